"""The expohedron (Kletti, Renders & Loiseau, WSDM 2022): Pareto-optimal fair stochastic rankings.

Under a position-based model γ (γ_j: the exposure of position j, non-increasing), the exposure
vectors of all stochastic rankings of n items form the permutahedron of γ — the *expohedron* —
whose vertices are the permutations of γ (one per deterministic ranking) and whose points are the
vectors majorized by γ (Kletti et al. Thm. 1). A point's *face* is given by the prefix sums of its
sorted entries that reach those of γ (Sec. 4). Individual fairness is the distance of the exposure
vector to a target (demographic: the barycenter mean(γ)·1; meritocratic: ρ/Σρ·Σγ, or where the ray
from the barycenter towards it leaves the expohedron). This module re-implements, and is tested
equal to within 1e-9 on random instances to, naver/expohedron @30bf252 (the authors' code, not
vendored: CC BY-NC-SA):

- :func:`pareto_curve` (their ``pareto_curve_pbm_individual``, Alg. 2 "Pareto curve"): from the fairness
  end, repeatedly project ρ onto the linear subspace of the current face and move along it to the
  boundary, until the utility of the PRP vertex is reached; the curve is the piecewise-linear path
  through the returned points;
- :func:`caratheodory_decomposition` (their ``caratheodory_decomposition_pbm_gls``, Alg. 1 "GLS"):
  at most n vertices and convex coefficients reconstructing a point.

Group fairness (Kletti et al. Sec. 5; the reference's ``fairness_endpoint`` and ``pareto_curve_pbm`` with
a ``grouping`` matrix): the unfairness is the distance ‖A x − A b‖₂ of the item groups' exposures to those
of the barycenter b (:func:`group_unfairness`). :func:`group_fairness_endpoint` is the reference's walk to
the fair end; the reference's group curve does not terminate on most instances, so
:func:`group_pareto_curve` and :func:`group_pareto_point` solve the scalarized problem
min ½‖A x − A b‖² − λ ρ·x exactly, piece by piece in λ (see there).

:func:`expohedron_rerank` picks the point of the curve at a share ``alpha`` of the way, in utility,
from the fairness end to the PRP, and returns its decomposition as a lottery of rankings.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import orth

from ocef.errors import DataError
from ocef.mitigate.lottery import Lottery, check_candidates, lottery_from_rankings
from ocef.validation import Integer, Options, Real, Rng, validate_params

__all__ = ["expohedron_rerank", "pareto_curve", "group_fairness_endpoint", "group_pareto_curve", "group_pareto_point",
           "group_unfairness",
           "caratheodory_decomposition", "majorized", "identify_face", "face_intersection"]

LOW_TOLERANCE = 1e-6            # the reference's tolerances, by name
DEFAULT_TOLERANCE = 1e-9
HIGH_TOLERANCE = 1e-15
MAX_TOLERANCE = float(np.finfo(float).eps)
UTILITY_PRECISION = 1e-9
_BISECTION_POINTS = 32         # a bracket is cut into 32 at each step of the bisection (5 halvings)


def majorized(a, b, tolerance: float = LOW_TOLERANCE) -> bool:
    """Whether ``a`` is majorized by ``b`` (a ≺ b): equal sums, prefix sums of the decreasing sort ≤.

    Parameters
    ----------
    a, b : array-like of float, shape (n,)
    tolerance : float, default 1e-6

    Returns
    -------
    bool

    Examples
    --------
    >>> majorized([0.5, 0.5], [1.0, 0.0]), majorized([1.0, 0.0], [0.5, 0.5])
    (True, False)
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.cumsum(-np.sort(-a)) <= np.cumsum(-np.sort(-b)) + tolerance)
                and np.abs(np.sum(a) - np.sum(b)) < tolerance)


def identify_face(gamma, point, tolerance: float = LOW_TOLERANCE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The smallest face of the γ-expohedron containing ``point`` (Kletti et al. Sec. 4).

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    point : array-like of float, shape (n,)
    tolerance : float, default 1e-6

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ``gamma`` sorted increasingly, the zone ``argsort(point)`` and the splits: indices i where the
        prefix sums of the increasing sorts of γ and ``point`` agree (the face has dimension
        n − number of splits).

    Examples
    --------
    >>> identify_face([2.0, 1.0, 0.0], [1.0, 1.0, 1.0])[2]
    array([2])
    """
    g = np.sort(np.asarray(gamma, dtype=float))
    p = np.asarray(point, dtype=float)
    splits = np.where(np.abs(np.cumsum(g) - np.cumsum(np.sort(p))) < tolerance)[0]
    return g, np.argsort(p), splits


def _face_normals(face) -> np.ndarray:
    """Orthonormal basis (columns) of the normals of the face's smallest linear subspace."""
    g, zone, splits = face
    n = g.size
    inverse = np.argsort(zone)
    a = np.zeros((splits.size, n))
    for j, i in enumerate(splits):
        nu = np.ones(n)
        s1, s2 = np.sum(g[0:i + 1]), np.sum(g[i + 1:n])
        nu[i + 1:n] = -(1 if s2 == 0 else s1 / s2)
        a[j, :] = nu[inverse]
    return orth(a.T)


def _face_blocks(face) -> np.ndarray | None:
    """Each item's block (0, 1, ...) between consecutive splits of ``face``, or None without the last split.

    With the split n − 1 (equal sums), the normals ν_i = 1_{≤i} − ψ_i 1_{>i} of the face (one per
    split) span the indicators of the blocks, so the face's linear subspace is {x : every block sums
    to 0} (Kletti et al. Sec. 4).
    """
    g, zone, splits = face
    n = g.size
    if splits.size == 0 or splits[-1] != n - 1:
        return None
    blocks = np.empty(n, dtype=np.intp)
    blocks[zone] = np.searchsorted(splits, np.arange(n))
    return blocks


def _project_on_face(x: np.ndarray, face) -> np.ndarray:
    """Projection of ``x`` onto the face's linear subspace: minus its block means, refined once so that
    each block sums to 0 up to rounding relative to the result (not to ``x``): the projection of a
    large ρ onto a face of near-tied items is small, and its error must be too."""
    blocks = _face_blocks(face)
    if blocks is None:
        return _project(x, _face_normals(face))
    counts = np.bincount(blocks)
    out = x - (np.bincount(blocks, x) / counts)[blocks]
    return out - (np.bincount(blocks, out) / counts)[blocks]


def _project(x: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Projection of ``x`` onto {y : Aᵀ y = 0} for the columns A = ``normals``."""
    basis = orth(normals)
    return x - basis @ (basis.T @ x)


def _post_correction(face, point: np.ndarray) -> np.ndarray:
    """Project ``point`` onto the affine hull of ``face`` (through its vertex γ[zone⁻¹])."""
    g, zone, _ = face
    vertex = g[np.argsort(zone)]
    return _project_on_face(point - vertex, face) + vertex


def face_intersection(gamma, start, direction, precision: float = 1e-12) -> np.ndarray:
    """Where the half-line ``start + λ·direction`` (λ ≥ 0) leaves the γ-expohedron.

    Closed form when ``start`` and ``direction`` have the same ordering; otherwise a bisection on
    the majorization test (bracket doubled until outside, then cut to ``precision``, 31 trial points
    per step), the end point projected onto the affine hull of its face. The directions the curve
    and the decomposition pass here are projected onto a face by block means
    (:func:`_project_on_face`), so each block sums to 0 up to rounding relative to the direction:
    with near-tied relevance the direction is tiny, λ large, and an error relative to ρ would move
    the trial points off the face by more than ``precision``.

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    start : array-like of float, shape (n,)
        A point of the expohedron.
    direction : array-like of float, shape (n,)
        Summing to 0.
    precision : float, default 1e-12

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> face_intersection([2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, -1.0])
    array([2., 1., 0.])
    """
    gamma = np.asarray(gamma, dtype=float)
    start = np.asarray(start, dtype=float)
    direction = np.asarray(direction, dtype=float)
    if np.linalg.norm(direction) < precision:
        return start
    if np.all(np.argsort(start) == np.argsort(direction)):
        zone = np.argsort(start)
        gk = np.cumsum(np.sort(gamma))
        sk = np.cumsum(start[zone])
        dk = np.cumsum(direction[zone])
        idx = np.where(np.abs(dk) > 1e-12)
        bounds = (gk - sk)[idx] / dk[idx]
        lam = min(bounds[np.where(bounds >= 0)], default=0)
        return start + lam * direction
    k = 1
    while majorized((start + k * direction) / np.sum(start + k * direction) * np.sum(gamma), gamma):
        k *= 2
    upper = (start + k * direction) / np.sum(start + k * direction) * np.sum(gamma)
    lower = start
    prefix, total = np.cumsum(-np.sort(-gamma)), np.sum(gamma)
    steps = np.arange(1, _BISECTION_POINTS)[:, None] / _BISECTION_POINTS
    while not np.all(np.abs(upper - lower) < precision):
        trial = lower + steps * (upper - lower)     # the bisection, _BISECTION_POINTS - 1 centres at a time
        inside = np.all(np.cumsum(-np.sort(-trial, axis=1), axis=1) <= prefix + precision, axis=1) \
            & (np.abs(np.sum(trial, axis=1) - total) < precision)
        first_out = int(np.argmin(inside)) if not inside.all() else inside.size
        if first_out < inside.size:
            upper = trial[first_out]
        if first_out > 0:
            lower = trial[first_out - 1]
    return _post_correction(identify_face(gamma, lower), lower)


def fairness_endpoint(gamma, relevance, fairness: str) -> np.ndarray:
    """The fairness end of the Pareto curve: the barycenter (demographic) or the meritocratic target
    ρ/Σρ·Σγ, replaced when outside by the exit point of the ray from the barycenter towards it.

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    relevance : array-like of float, shape (n,)
    fairness : {"demographic", "meritocratic"}

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> fairness_endpoint([2.0, 1.0, 0.0], [0.5, 0.5, 0.0], "meritocratic")
    array([1.5, 1.5, 0. ])
    """
    gamma = np.asarray(gamma, dtype=float)
    rho = np.asarray(relevance, dtype=float)
    barycenter = np.ones(gamma.size) * np.mean(gamma)
    if fairness == "demographic":
        return barycenter
    target = rho / np.sum(rho) * np.sum(gamma)
    if majorized(target, gamma):
        return target
    return face_intersection(gamma, barycenter, target - barycenter)


def pareto_curve(gamma, relevance, fairness: str = "meritocratic") -> np.ndarray:
    """The Pareto curve of utility ρ·x against individual unfairness ‖x − target‖₂ (Kletti et al. Alg. 2).

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
        Position exposures, non-increasing.
    relevance : array-like of float, shape (n,)
        ρ ≥ 0.
    fairness : {"demographic", "meritocratic"}, default "meritocratic"

    Returns
    -------
    numpy.ndarray of float, shape (m, n)
        The exposure vectors (item space) at the ends of the curve's segments, from the fairness end
        to the PRP vertex.

    Raises
    ------
    ocef.errors.DataError
        When a step does not reach a lower-dimensional face (a loss of precision).

    Examples
    --------
    >>> gamma = 1 / np.log2(np.arange(2, 5))
    >>> pareto_curve(gamma, [0.9, 0.5, 0.1], "demographic").round(4)
    array([[0.7103, 0.7103, 0.7103],
           [0.9206, 0.7103, 0.5   ],
           [1.    , 0.6309, 0.5   ]])
    """
    gamma = np.asarray(gamma, dtype=float)
    rho = np.asarray(relevance, dtype=float)
    return _walk_to_prp(gamma, rho, fairness_endpoint(gamma, rho, fairness))


def _walk_to_prp(gamma: np.ndarray, rho: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Alg. 2's walk: from ``start``, project ρ on the current face and move to the boundary, until the PRP."""
    points = [start]
    prp_utility = np.sort(gamma) @ np.sort(rho)
    current_utility = start @ rho
    face = identify_face(gamma, start)
    corrected = _post_correction(face, start)
    while np.abs(current_utility - prp_utility) > UTILITY_PRECISION:
        direction = _project_on_face(rho, face)
        direction[np.abs(direction) < 1e-13] = 0.0
        new_point = face_intersection(gamma, corrected, direction)
        new_face = identify_face(gamma, new_point)
        corrected = _post_correction(new_face, new_point)
        if not gamma.size - new_face[2].size < gamma.size - face[2].size:
            raise DataError("the Pareto curve did not reach a lower-dimensional face: a loss of precision")
        points.append(new_point)
        current_utility = new_point @ rho
        face = new_face
    return np.asarray(points)


def group_fairness_endpoint(gamma, relevance, groups) -> np.ndarray:
    """The fairness end of the group Pareto curve: the highest-utility exposure vector whose item groups
    all get the exposure of the barycenter (demographic group fairness, Kletti et al. WSDM 2022, Sec. 5).

    From the barycenter, ρ projected on {x : every group's exposure is unchanged} is followed to the
    boundary; then again inside the intersection of that subspace with the linear subspace of the face
    reached, until the point does not move (1e-9). Equal to naver/expohedron's ``fairness_endpoint``
    (``grouping`` = the group membership matrix) to 1e-9 on random instances. The walk never releases a
    face it has reached, and measured against a linear program over doubly stochastic matrices (HiGHS) it
    is not the group-fair point of highest utility on 6 of 41 random instances (utility short by 1e-4 to
    4.3e-3); the first point of :func:`group_pareto_curve` is (equal to the LP within 1e-9 on all 41, and
    to this point within 1e-9 on the other 35).

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    relevance : array-like of float, shape (n,)
    groups : array-like, shape (n,)
        The item group of each item.

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> group_fairness_endpoint([4.0, 3.0, 2.0, 1.0], [0.5, 0.6, 0.8, 0.9], [1, 0, 1, 0])
    array([1.5, 1.5, 3.5, 3.5])
    """
    gamma = np.asarray(gamma, dtype=float)
    rho = np.asarray(relevance, dtype=float)
    labels = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    subspace = (labels[None, :] == np.arange(labels.max() + 1)[:, None]).astype(float)   # rows: normals
    p1 = np.full(gamma.size, np.mean(gamma))
    p2 = face_intersection(gamma, p1, _project(rho, subspace.T))
    while not np.all(np.abs(p2 - p1) < DEFAULT_TOLERANCE):
        p1 = p2
        subspace = orth(np.concatenate((subspace, _face_normals(identify_face(gamma, p1)).T), axis=0).T).T
        p2 = face_intersection(gamma, p1, _project(rho, subspace.T))
    return p2


def caratheodory_decomposition(gamma, point, tol: float = HIGH_TOLERANCE) -> tuple[np.ndarray, np.ndarray]:
    """A point of the expohedron as a convex combination of at most n vertices (Kletti et al. Alg. 1, GLS).

    From the vertex with the point's ordering, move along (vertex → point), projected on the face of
    the current point, to the boundary; the exit point is on a lower-dimensional face and is
    decomposed in turn. Coefficients below machine epsilon are dropped.

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    point : array-like of float, shape (n,)
        Majorized by γ.
    tol : float, default 1e-15
        Stop as soon as the reconstruction is within ``tol`` everywhere.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``coefficients`` (m,) and ``vertices`` (n, m): column j is a permutation of γ (the exposure of
        each item under ranking j); ``vertices @ coefficients`` reconstructs ``point``.

    Raises
    ------
    ocef.errors.DataError
        A point outside the expohedron.

    Examples
    --------
    >>> c, v = caratheodory_decomposition([1.0, 0.0], [0.25, 0.75])
    >>> c, v
    (array([0.75, 0.25]), array([[0., 1.],
           [1., 0.]]))
    """
    point = np.asarray(point, dtype=float)
    if not majorized(point, gamma):
        raise DataError("point must be majorized by gamma (inside the expohedron) to be decomposed")
    gamma = np.sort(np.asarray(gamma, dtype=float))
    n = point.size
    vertices = np.zeros((n, n))
    coefficients = np.zeros(n)
    vertices[:, 0] = gamma[np.argsort(np.argsort(point))]
    coefficients[0] = 1
    x = point
    dim = n - identify_face(gamma, x)[2].size
    for i in np.arange(0, n - 1):
        if np.all(np.abs(vertices @ coefficients - point) < tol):
            break
        v = vertices[:, i]
        direction = _project_on_face(x - v, identify_face(gamma, x))
        intersection = face_intersection(gamma, v, direction)
        intersection = _post_correction(identify_face(gamma, intersection), intersection)
        old = coefficients[i]
        coefficients[i] = np.linalg.norm(intersection - x) / np.linalg.norm(intersection - v) * coefficients[i]
        coefficients[i + 1] = old - coefficients[i]
        vertices[:, i + 1] = gamma[np.argsort(np.argsort(intersection))]
        x = intersection
        new_dim = n - identify_face(gamma, x)[2].size
        if not new_dim < dim:
            raise DataError("the Caratheodory decomposition did not reach a lower-dimensional face")
        dim = new_dim
        if dim == 0:
            break
    coefficients[coefficients < MAX_TOLERANCE] = 0
    keep = np.where(coefficients != 0)[0]
    return coefficients[keep], vertices[:, keep]


@validate_params(k=Integer(1), rng=Rng(), alpha=Real(0, 1), fairness=Options("meritocratic", "demographic", "group"))
def expohedron_rerank(scores, groups, k, *, rng=None, alpha=0.5, fairness="meritocratic") -> Lottery:
    """A Pareto-optimal fair lottery of rankings of one user's candidates (the expohedron).

    γ_j = 1/log2(1 + j) over all n positions; the point of :func:`pareto_curve` (``fairness`` =
    "meritocratic" or "demographic": individual fairness) or of :func:`group_pareto_curve` (``fairness`` =
    "group": demographic fairness of the item groups, Kletti et al. Sec. 5) whose utility is
    ``U_fair + alpha·(U_PRP − U_fair)`` (linear inside a segment) is decomposed by
    :func:`caratheodory_decomposition`; each vertex gives the ranking of the items by decreasing
    exposure (ties: input order), cut at k (rankings with the same top k are merged).

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        Relevance ρ ≥ 0 (not all 0).
    groups : array-like of int, shape (n_candidates,)
        The item groups of ``fairness="group"``; checked but not used by the individual notions (the
        reference's ``pareto_curve_pbm_individual``).
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (the lottery is returned, not drawn).
    alpha : float, default 0.5
        Position on the curve in utility: 0 the fairness end, 1 the PRP ranking.
    fairness : {"meritocratic", "demographic", "group"}, default "meritocratic"
        Individual fairness (the exposure of each item against its target) or group fairness (each
        item group's exposure against |group|·mean(γ), :func:`group_unfairness`).

    Returns
    -------
    Lottery

    Raises
    ------
    ocef.errors.DataError
        Negative scores or all zero.

    Examples
    --------
    >>> lot = expohedron_rerank([0.9, 0.8, 0.5, 0.3, 0.1], [0, 0, 1, 1, 1], 2, alpha=0.0)
    >>> lot.rankings.shape[1], round(float(lot.probabilities.sum()), 12)
    (2, 1.0)
    >>> expohedron_rerank([0.5, 0.6, 0.8, 0.9], [1, 0, 1, 0], 4, alpha=0.0, fairness="group").probabilities
    array([0.5, 0.5])
    """
    s, g, k = check_candidates(scores, groups, k)
    if s.min() < 0 or s.max() <= 0:
        raise DataError("scores must be >= 0 and not all 0 for the expohedron (relevance)")
    n = s.size
    gamma = 1.0 / np.log2(np.arange(2, n + 2))
    if fairness == "group":
        coefficients, vertices = group_pareto_point(gamma, s, g, alpha)
        rankings = np.argsort(-vertices.T, axis=1, kind="stable")[:, :k]
        return lottery_from_rankings(rankings, coefficients)
    curve = pareto_curve(gamma, s, fairness)
    util = curve @ s
    goal = util[0] + alpha * (util[-1] - util[0])
    j = int(np.searchsorted(util, goal, side="left"))
    if j == 0:
        point = curve[0]
    else:
        j = min(j, len(util) - 1)
        w = 0.0 if util[j] == util[j - 1] else (goal - util[j - 1]) / (util[j] - util[j - 1])
        point = curve[j - 1] + w * (curve[j] - curve[j - 1])
    coefficients, vertices = caratheodory_decomposition(gamma, point)
    rankings = np.argsort(-vertices.T, axis=1, kind="stable")[:, :k]
    return lottery_from_rankings(rankings, coefficients)


# --------------------------------------------------------------------------------------------------
# Group fairness: the Pareto curve of utility against group unfairness (Kletti et al. Sec. 5)
# --------------------------------------------------------------------------------------------------

#: Most item groups of the exact group curve: its cost is polynomial (:meth:`_GroupProblem._simplex_qp`) but steep in
#: the groups; measured CPU s per user on the default grid (3 points), 100 candidates: 1.0 at 20 groups, 1.9 at 32,
#: 17 at 50, 37 at 64 (``benchmarks/expohedron_group.py``).
MAX_GROUPS = 32


def _group_labels(groups, n: int) -> np.ndarray:
    labels = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    if labels.size != n:
        raise DataError(f"groups must have one entry per item ({n}), got {labels.size}")
    return labels


def group_unfairness(exposure, gamma, groups) -> float:
    """Demographic group unfairness ‖A x − A b‖₂ of an exposure vector (Kletti et al. Sec. 5).

    A is the group membership matrix (one row per item group) and b = mean(γ)·1 the barycenter, so the
    target of each group is the exposure of its items under the uniform lottery (|G|·mean(γ)); the group
    fair points are those with A x = A b (the first point of :func:`group_pareto_curve` is the one of
    highest utility).

    Parameters
    ----------
    exposure : array-like of float, shape (n,)
        A point of the expohedron.
    gamma : array-like of float, shape (n,)
    groups : array-like, shape (n,)
        One label per item (any hashable values; A has one row per distinct label).

    Returns
    -------
    float

    Examples
    --------
    >>> group_unfairness([4.0, 3.0, 2.0, 1.0], [4.0, 3.0, 2.0, 1.0], [1, 0, 1, 0])
    1.4142135623730951
    """
    x = np.asarray(exposure, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    labels = _group_labels(groups, x.size)
    return float(np.linalg.norm(np.bincount(labels, x - np.mean(gamma))))


class _GroupProblem:
    """min_x ½‖A x − c‖² − λ ρ·x over the γ-expohedron (c = A b), at one λ and on its piece of λ.

    :meth:`solve` is the simplicial decomposition of :func:`group_pareto_curve`; :meth:`piece` the range
    [lo, hi] of λ on which the optimum's vertices keep it optimal as θ₀ + λθ₁ (θ ≥ 0 and every vertex
    sorted by the oracle's scores s(λ)). ρ is divided by its maximum, so λ is in those units.
    """

    def __init__(self, gamma, rho, labels):
        if labels.max() + 1 > MAX_GROUPS:
            raise DataError(f"the expohedron's group curve takes {int(labels.max()) + 1} item groups; it is solved "
                            f"exactly for at most {MAX_GROUPS} (measured, 100 candidates: 1.9 CPU s per user at 32 "
                            f"groups, 17 s at 50, 37 s at 64); merge groups, or use fairness='meritocratic' "
                            f"(--grid alpha=...,fairness=meritocratic)")
        self.gd = -np.sort(-gamma)
        self.total = float(np.sum(gamma))
        self.rho = rho / np.max(rho)                    # λ in the units of the normalized relevance
        self.labels = labels
        self.m = int(labels.max()) + 1
        self.c = np.bincount(labels, minlength=self.m) * np.mean(gamma)
        levels = np.concatenate(([0], np.cumsum(self.gd[1:] < self.gd[:-1])))
        self.level_bounds = np.flatnonzero(np.diff(levels)) + 1        # first position of each new level
        self.level_start = np.concatenate(([0], self.level_bounds))
        self.level_end = np.concatenate((self.level_bounds, [gamma.size]))
        self.tol = 1e-12 * self.total

    def vertex(self, scores) -> np.ndarray:
        v = np.empty(scores.size)
        v[np.argsort(-scores, kind="stable")] = self.gd
        return v

    def image(self, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = np.stack([np.bincount(self.labels, v, minlength=self.m) for v in vertices], axis=1)
        return w, vertices @ self.rho

    def _affine(self, w: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """θ(λ) = θ₀ + λθ₁ minimizing ½‖wθ − c‖² − λ uθ on the affine hull of these vertices (Σθ = 1), or
        None if their group exposures are affinely dependent (then a smaller support is optimal).

        θ = e₁ + (0, α) − (Σα) e₁ with α minimizing ½‖w₁ + Dα − c‖² − λ Δu·α, D = (w_k − w₁)_k: the normal
        equations Dᵀ D α = Dᵀ (c − w₁) + λ Δu solved by a QR of D, which stays well conditioned when the
        vertices' group exposures are close (not so Wᵀ W)."""
        k = w.shape[1]
        if k == 1:
            return np.ones(1), np.zeros(1)
        d = w[:, 1:] - w[:, :1]
        q, r = np.linalg.qr(d)
        diag = np.abs(np.diag(r))
        if r.shape[0] < k - 1 or diag.min() <= 1e-12 * max(1.0, diag.max()):
            return None
        a0 = np.linalg.solve(r, q.T @ (self.c - w[:, 0]))
        a1 = np.linalg.solve(r, np.linalg.solve(r.T, u[1:] - u[0]))
        return np.concatenate(([1.0 - a0.sum()], a0)), np.concatenate(([-a1.sum()], a1))

    def _gap_tolerance(self, s: np.ndarray) -> float:
        """The Frank-Wolfe gap s·v − s·x counted as 0: rounding of the scores times the exposures."""
        return 1e-12 * (np.abs(s).max() + 1.0) * self.total

    def _simplex_qp(self, w, u, lam, theta0: np.ndarray | None = None) -> np.ndarray:
        """θ minimizing f(θ) = ½‖wθ − c‖² − λ uθ on the simplex (θ ≥ 0, Σθ = 1): a primal active-set method,
        Wolfe's minimum-norm-point algorithm (1976) with the linear term.

        A major cycle starts from θ, the exact minimizer of f on the affine hull of its support S (θ_S > 0);
        KKT on the simplex: every gap s·v_k − s·x (s·v_k = λu_k − (wᵀ(wθ − c))_k, minus the gradient) is
        ≤ 0 up to rounding (the same test as :meth:`solve`'s) — then θ is optimal and returned; otherwise
        the vertex of the largest gap joins S. Minor cycles: the affine minimizer y of f on S (:meth:`_affine`)
        is taken if y > 0; else θ moves towards y until a weight reaches 0 and that vertex leaves S. When S's
        group exposures are affinely dependent, f is linear along the null direction d (Σd = 0, wd = 0);
        θ moves along d, the way f does not increase, until a weight reaches 0. Each major cycle lowers f and
        ends on the unique minimizer over its support, so no support recurs: exact termination in finitely
        many steps, each a QR of the support's group exposures (m rows) — polynomial, against the 2ᵏ subsets of a
        search. ``theta0``: a feasible start (the last optimum with the oracle's new vertex at 0)."""
        k = w.shape[1]
        if theta0 is None:
            f1 = 0.5 * np.sum((w - self.c[:, None]) ** 2, axis=0) - lam * u
            theta = np.zeros(k)
            theta[int(np.argmin(f1))] = 1.0
        else:
            theta = np.asarray(theta0, dtype=float).copy()
        best, best_f = None, np.inf
        for _ in range(20 * k + 50):
            resid = w @ theta - self.c
            gaps = lam * u - w.T @ resid                     # s·v_k for each vertex k
            viol = gaps - gaps @ theta
            f = 0.5 * resid @ resid - lam * (u @ theta)
            if f < best_f:
                best, best_f = theta, f
            s_scale = lam * np.max(self.rho) + np.abs(resid).max()
            j = int(np.argmax(viol))
            if viol[j] <= self._gap_tolerance(np.array([s_scale])):
                return theta
            if theta[j] > 0 or f > best_f:               # rounding: the vertex is in already, or f went up
                break
            support = np.flatnonzero(theta > 0).tolist() + [j]
            for _ in range(k + 1):                       # minor cycles: each one drops a vertex of S
                idx = np.array(support)
                line = self._affine(w[:, idx], u[idx])
                if line is None:                         # dependent: along the null direction of the differences
                    d = w[:, idx[1:]] - w[:, idx[:1]]
                    z = np.linalg.svd(d)[2][-1]
                    step = np.concatenate(([-z.sum()], z))
                    grad = w[:, idx].T @ (w @ theta - self.c) - lam * u[idx]
                    if grad @ step > 0:
                        step = -step
                else:
                    y = line[0] + lam * line[1]
                    if np.all(y > 0):
                        theta = np.zeros(k)
                        theta[idx] = y
                        break
                    step = y - theta[idx]
                down = step < 0
                ratios = np.full(idx.size, np.inf)
                ratios[down] = theta[idx][down] / -step[down]
                t = float(np.min(ratios))
                out = int(np.argmin(ratios))
                new = np.zeros(k)
                new[idx] = np.clip(theta[idx] + t * step, 0.0, None)
                new[idx[out]] = 0.0
                theta = new / new.sum()
                support = [i for i in support if theta[i] > 0]
                if len(support) == 1:
                    break
            else:
                break
        if best is None:
            raise DataError("the group Pareto problem has no optimum on the vertices: a loss of precision")
        return best

    def solve(self, lam: float, vertices: np.ndarray | None = None) -> np.ndarray:
        """The vertices (rows) of the optimum at ``lam`` (affinely independent group exposures)."""
        verts = self.vertex(self.rho)[None, :] if vertices is None else vertices
        theta = None
        for _ in range(50 * self.gd.size + 100):
            w, u = self.image(verts)
            start = None if theta is None else np.append(theta, 0.0)
            theta = self._simplex_qp(w, u, lam, start)
            if start is not None and theta[-1] == 0 and np.all(theta[:-1] > 0):
                return verts[:-1]                        # the oracle's vertex lowers f by rounding only
            verts, theta = verts[theta > 0], theta[theta > 0]
            x = theta @ verts
            s = lam * self.rho - (np.bincount(self.labels, x, minlength=self.m) - self.c)[self.labels]
            new = self.vertex(s)
            if s @ new - s @ x <= self._gap_tolerance(s) \
                    or np.any(np.all(np.abs(verts - new) < 1e-15, axis=1)):
                return verts
            verts = np.vstack((verts, new))
        raise DataError("the group Pareto problem did not converge")

    def piece(self, lam: float, vertices: np.ndarray | None = None):
        """(lo, hi, vertices, θ₀, θ₁): the optimum is (θ₀ + λθ₁) @ vertices for λ in [lo, hi]."""
        verts = self.solve(lam, vertices)
        w, u = self.image(verts)
        line = self._affine(w, u)
        if line is None:
            raise DataError("the group Pareto problem's support is degenerate: a loss of precision")
        t0, t1 = line
        lo, hi = 0.0, np.inf

        def bound(a, b, slack, tol):                     # a + λ b ≥ −slack; |b| ≤ tol: a tie kept (rounding)
            nonlocal lo, hi
            up, down = b > tol, b < -tol
            if up.any():
                lo = max(lo, float(np.max((-slack - a[up]) / b[up])))
            if down.any():
                hi = min(hi, float(np.min((slack + a[down]) / -b[down])))

        bound(t0, t1, 1e-12, 1e-12 * (1.0 + np.abs(t1).max()))
        a_s = (self.c - w @ t0)[self.labels]            # s(λ) = a_s + λ b_s
        b_s = self.rho - (w @ t1)[self.labels]
        b_tol = 1e-9 * (1.0 + np.abs(w @ t1).max())
        for v in verts:
            order = np.argsort(-v, kind="stable")
            if self.level_start.size == self.gd.size:    # γ strictly decreasing: adjacent positions
                bound(a_s[order[:-1]] - a_s[order[1:]], b_s[order[:-1]] - b_s[order[1:]], 1e3 * self.tol, b_tol)
                continue
            for start, mid, end in zip(self.level_start[:-1], self.level_end[:-1], self.level_end[1:]):
                upper, lower = order[start:mid], order[mid:end]
                bound((a_s[upper][:, None] - a_s[lower][None, :]).ravel(),
                      (b_s[upper][:, None] - b_s[lower][None, :]).ravel(), 1e3 * self.tol, b_tol)
        if not lo - 1e-9 * (1 + lam) <= lam <= hi + 1e-9 * (1 + lam):
            lo = hi = lam                                # the range is lost to rounding: this λ only
        lo, hi = min(lo, lam), max(hi, lam)
        return lo, hi, verts, t0, t1


def _group_pieces(gamma: np.ndarray, rho: np.ndarray, labels: np.ndarray):
    """All the pieces of λ ↦ optimum, from λ = 0⁺ to the PRP end (hi = ∞), sorted by λ."""
    prob = _GroupProblem(gamma, rho, labels)
    pieces = []
    lam = 1.0
    while True:                                          # the last piece: hi = ∞
        p = prob.piece(lam, None if not pieces else pieces[-1][2])
        pieces.append(p)
        if p[1] == np.inf:
            break
        lam = 2.0 * p[1] + 1.0
    top = pieces[-1][0]
    pieces.sort(key=lambda p: p[0])
    gaps = [(0.0, pieces[0][0], None, pieces[0][2])] + \
        [(pieces[i][1], pieces[i + 1][0], pieces[i][2], pieces[i + 1][2]) for i in range(len(pieces) - 1)]
    while gaps:
        a, b, below, above = gaps.pop()
        if b - a <= 1e-9 * b or b <= 1e-10 * max(top, 1.0):
            continue
        if len(pieces) > 50 * gamma.size * prob.m + 100:
            raise DataError("the group Pareto curve has too many pieces: a loss of precision")
        lam = np.sqrt(a * b) if a > 0 and b > 4 * a else (a + b) / 2
        p = prob.piece(lam, above if below is None else np.vstack((below, above)))   # warm start
        pieces.append(p)
        gaps += [(a, min(p[0], b), below, p[2]), (max(p[1], a), b, p[2], above)]
    pieces.sort(key=lambda p: p[0])
    return prob, pieces


def group_pareto_curve(gamma, relevance, groups) -> np.ndarray:
    """The Pareto curve of utility ρ·x against demographic group unfairness ‖A x − A b‖₂ (Kletti et al. Sec. 5).

    Every point of the returned piecewise-linear path solves, for some λ ≥ 0, the convex problem
    min_x ½‖A x − A b‖² − λ ρ·x over the expohedron (A: the group membership matrix, b = mean(γ)·1):
    the utility is the highest for its group unfairness and the unfairness the lowest for its utility
    (the scalarization reaches the whole front: unfairness is convex and utility linear in x). The
    optimum is unique in (A x, ρ·x) and piecewise affine in λ (a parametric convex QP over a polytope).
    At one λ it is found exactly by simplicial decomposition: the exact minimizer over the convex hull of a
    few vertices (rankings; a primal active-set method, Wolfe's), and the expohedron's linear oracle — the vertex sorting the items by
    s = λρ − (A x − A b)[group] — adds a vertex until none improves (Frank-Wolfe gap 0 up to rounding). The
    vertices of the optimum then give it as θ₀ + λθ₁ on a whole piece of λ, bounded where a θ reaches 0 or
    a vertex stops being sorted by s(λ); the pieces are found from the PRP end (λ = ∞) down to λ = 0⁺ by
    solving inside each uncovered gap. Any two points mapped onto consecutive piece ends join by a segment
    mapped onto the front, so the returned points (piece ends, consecutive collinear ones dropped, items of
    one group with equal relevance sharing their exposure) trace the front exactly.

    naver/expohedron's own group curve (``pareto_curve_pbm`` with ``grouping``) moves every step from the
    fairness end along ρ projected on the face of the last point; measured on 41 random instances
    (``make_expohedron_group_reference.py``) it does not terminate in 3 s on 34; on the 7 where it does,
    this curve equals it within 1e-9. Alg. 2's walk from the group end (:func:`pareto_curve`'s) leaves
    the expohedron's faces on 27 of 41. This is why the group curve is solved as above. Measured: the
    fair end equals the LP's group-fair optimum within 1e-9 on all 41 (the reference's
    ``fairness_endpoint`` falls short on 6, see :func:`group_fairness_endpoint`); with two groups every
    point equals the LP's best utility at its disparity within 2e-15; utility and unfairness increase
    together, and no sampled ranking or lottery dominates a point; with 3-20 groups each optimum has the
    objective of HiGHS's QP over doubly stochastic matrices within 2e-14. Cost: the number of pieces grows
    with the groups (30 items: about 10 pieces with 2 groups, 100-200 with 4); CPU s per user on
    ``ocef mitigate``'s grid (3 points), 100 candidates: 0.04 / 0.3 / 1.0 / 1.9 at 2 / 8 / 20 / 32 groups
    (at most ``MAX_GROUPS`` = 32).

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
        Position exposures, non-increasing.
    relevance : array-like of float, shape (n,)
        ρ ≥ 0, not all 0.
    groups : array-like, shape (n,)
        The item group of each item.

    Returns
    -------
    numpy.ndarray of float, shape (m, n)
        Exposure vectors (item space) from the group fairness end (the group-fair point of highest
        utility) to the end of highest utility (the PRP vertex when ρ has no ties; with ties across
        groups, the least unfair of the PRP points).

    Raises
    ------
    ocef.errors.DataError
        Relevance negative or all 0, or a loss of precision (a piece the solver cannot bound).

    Examples
    --------
    >>> group_pareto_curve([4.0, 3.0, 2.0, 1.0], [0.5, 0.6, 0.8, 0.9], [1, 0, 1, 0])
    array([[1.5, 1.5, 3.5, 3.5],
           [1. , 2. , 3. , 4. ]])
    """
    gamma = np.asarray(gamma, dtype=float)
    rho = np.asarray(relevance, dtype=float)
    labels = _group_labels(groups, gamma.size)
    if rho.size != gamma.size or rho.min() < 0 or rho.max() <= 0:
        raise DataError("relevance must have one value >= 0 per item, not all 0")
    prob, pieces = _group_pieces(gamma, rho, labels)
    ends = []                                            # each piece's ends by its own formula, by λ
    for j, (lo, hi, verts, t0, t1) in enumerate(pieces):
        for lam in ((0.0 if j == 0 else lo), hi):
            if np.isfinite(lam):
                ends.append((lam, np.clip(t0 + lam * t1, 0, None) @ verts))
    ends.sort(key=lambda e: e[0])
    ends.append((np.inf, pieces[-1][3] @ pieces[-1][2]))
    points = _drop_collinear(np.asarray([e[1] for e in ends]), prob)
    tied = np.unique(np.stack((labels.astype(float), rho)), axis=1, return_inverse=True)[1].ravel()
    counts = np.bincount(tied)
    points = np.stack([(np.bincount(tied, x) / counts)[tied] for x in points])   # ties share exposure
    return points


def _drop_collinear(points: np.ndarray, prob: _GroupProblem) -> np.ndarray:
    """Drop the points whose (A x, ρ·x) repeats the previous one or lies on the segment of its neighbours."""
    w, u = prob.image(points)
    img = np.vstack((w, u * prob.total))
    keep = [0]
    for i in range(1, points.shape[0]):
        if np.max(np.abs(img[:, i] - img[:, keep[-1]])) > 1e-9 * prob.total:
            keep.append(i)
        elif keep[-1] != 0:
            keep[-1] = i                                 # the same point: the later piece's formula
    out = [keep[0]]
    for j in range(1, len(keep) - 1):
        a, b, c = img[:, out[-1]], img[:, keep[j]], img[:, keep[j + 1]]
        d1, d2 = b - a, c - b
        cross = np.linalg.norm(d1 * np.linalg.norm(d2) - d2 * np.linalg.norm(d1))
        if cross > 1e-10 * np.linalg.norm(d1) * np.linalg.norm(d2) + 1e-14:
            out.append(keep[j])
    if len(keep) > 1:
        out.append(keep[-1])
    return points[out]


def group_pareto_point(gamma, relevance, groups, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The point of :func:`group_pareto_curve` at a share ``alpha`` of the way, in utility, from the group
    fairness end to the end of highest utility, as a lottery of at most (number of groups) rankings.

    Found without the whole curve: the pieces of λ are searched (bisection between the pieces known
    below and above the goal utility) until one contains the goal, where the utility is affine in λ.
    The lottery is the optimum's own convex combination of vertices (a Carathéodory decomposition with at
    most as many rankings as groups, instead of :func:`caratheodory_decomposition`'s n).

    Parameters
    ----------
    gamma : array-like of float, shape (n,)
    relevance : array-like of float, shape (n,)
    groups : array-like, shape (n,)
    alpha : float
        In [0, 1]: 0 the group fairness end, 1 the end of highest utility.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``coefficients`` (m,) and ``vertices`` (n, m) as :func:`caratheodory_decomposition`'s: column j
        is the exposure of each item under ranking j.

    Raises
    ------
    ocef.errors.DataError
        Relevance negative or all 0, or a loss of precision.

    Examples
    --------
    >>> c, v = group_pareto_point([4.0, 3.0, 2.0, 1.0], [0.5, 0.6, 0.8, 0.9], [1, 0, 1, 0], 0.0)
    >>> v @ c
    array([1.5, 1.5, 3.5, 3.5])
    """
    gamma = np.asarray(gamma, dtype=float)
    rho = np.asarray(relevance, dtype=float)
    labels = _group_labels(groups, gamma.size)
    if rho.size != gamma.size or rho.min() < 0 or rho.max() <= 0:
        raise DataError("relevance must have one value >= 0 per item, not all 0")
    prob = _GroupProblem(gamma, rho, labels)

    def utility(p, lam):
        return float((p[3] + lam * p[4]) @ (p[2] @ prob.rho))

    p = prob.piece(1.0)
    top = p
    while np.isfinite(top[1]):                           # the end of highest utility: hi = ∞
        top = prob.piece(2 * top[1] + 1, top[2])
    while p[0] > 0:                                      # the fair end: the piece containing λ = 0⁺
        p = prob.piece(p[0] / 4, p[2])
    u_fair = utility(p, 0.0)
    above, below = top, None                             # pieces known above / below the goal
    goal = u_fair + alpha * (utility(top, top[0]) - u_fair)
    tol = 1e-12 * (abs(goal) + 1.0)
    for _ in range(50 * gamma.size * prob.m + 100):
        u_lo = utility(p, p[0] if p[0] > 0 else 0.0)
        u_hi = utility(p, p[1]) if np.isfinite(p[1]) else utility(p, p[0])
        if u_lo - tol <= goal <= u_hi + tol:
            slope = float(p[4] @ (p[2] @ prob.rho))
            lam = p[0] if abs(slope) <= 1e-15 or not np.isfinite(p[1]) else \
                float(np.clip((goal - utility(p, 0.0)) / slope, max(p[0], 0.0), p[1]))
            theta = np.clip(p[3] + lam * p[4], 0, None)
            keep = theta > MAX_TOLERANCE
            return theta[keep] / theta[keep].sum(), p[2][keep].T
        if goal < u_lo:
            above = p
        else:
            below = p
        a, b = below[1], above[0]
        if b - a <= 1e-9 * b:                            # between two pieces that meet: their common end
            theta = np.clip(above[3] + b * above[4], 0, None)
            keep = theta > MAX_TOLERANCE
            return theta[keep] / theta[keep].sum(), above[2][keep].T
        lam = np.sqrt(a * b) if a > 0 and b > 4 * a else (a + b) / 2
        p = prob.piece(lam, np.vstack((below[2], above[2])))
    raise DataError("the group Pareto point was not found: a loss of precision")
