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

:func:`expohedron_rerank` picks the point of the curve at a share ``alpha`` of the way, in utility,
from the fairness end to the PRP, and returns its decomposition as a lottery of rankings.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import orth

from ocef.errors import DataError
from ocef.mitigate.lottery import Lottery, check_candidates, lottery_from_rankings
from ocef.validation import Integer, Options, Real, Rng, validate_params

__all__ = ["expohedron_rerank", "pareto_curve", "group_fairness_endpoint",
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
    (``grouping`` = the group membership matrix) to 1e-9 on random instances. The rest of the
    reference's group curve (``pareto_curve_pbm``) restarts every step from this point and does not
    terminate on 34 of 41 random instances, and Alg. 2's walk from it (:func:`pareto_curve`'s) leaves
    the expohedron's faces on 27 of 41: the group Pareto curve is not implemented.

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


@validate_params(k=Integer(1), rng=Rng(), alpha=Real(0, 1), fairness=Options("meritocratic", "demographic"))
def expohedron_rerank(scores, groups, k, *, rng=None, alpha=0.5, fairness="meritocratic") -> Lottery:
    """A Pareto-optimal fair lottery of rankings of one user's candidates (the expohedron).

    γ_j = 1/log2(1 + j) over all n positions; the point of :func:`pareto_curve` whose utility is
    ``U_fair + alpha·(U_PRP − U_fair)`` (linear inside a segment) is decomposed by
    :func:`caratheodory_decomposition`; each vertex gives the ranking of the items by decreasing
    exposure (ties: input order), cut at k (rankings with the same top k are merged).

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        Relevance ρ ≥ 0 (not all 0).
    groups : array-like of int, shape (n_candidates,)
        Checked but not used: the fairness here is per item (individual), as the reference's
        ``pareto_curve_pbm_individual``.
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (the lottery is returned, not drawn).
    alpha : float, default 0.5
        Position on the curve in utility: 0 the fairness end, 1 the PRP ranking.
    fairness : {"meritocratic", "demographic"}, default "meritocratic"

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
    """
    s, _, k = check_candidates(scores, groups, k)
    if s.min() < 0 or s.max() <= 0:
        raise DataError("scores must be >= 0 and not all 0 for the expohedron (relevance)")
    n = s.size
    gamma = 1.0 / np.log2(np.arange(2, n + 2))
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
