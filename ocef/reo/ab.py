"""A/B comparisons of REO metrics: Algorithms 2 (delta), 3 (partition), 4 (bootstrap) and a joint delta method.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ocef.reo.bootstrap import (
    BOOTSTRAP_INTERVALS,
    _ab_stat_from_counts,
    _bootstrap_counts,
    _reo_stat_from_counts,
)
from ocef.reo.estimators import (
    _check_estimable,
    normal_quantile,
    reo_from_counts,
    reo_jacobians,
    rtpr_utilities,
)
from ocef.results import Result, column_records, jsonable, presents
from ocef.validation import CONFIDENCE, Integer, Options, Rng, validate_params
from ocef._progress import PROGRESS
from ocef.backends import BACKENDS
from ocef.errors import DataError, ParameterError

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is built
    import pandas as pd

# --------------------------------------------------------------------------------------------
# A/B comparisons (App. D "Between strategies", App. G)
# --------------------------------------------------------------------------------------------

#: The intervals (and tests) of :func:`ab_test`: Algorithm 2 (``"delta"``), the joint delta method
#: (``"delta-shared"``), Algorithm 3 (``"partition"``) and Algorithm 4 with a bootstrap interval.
AB_INTERVALS = ("delta", "delta-shared", "partition") + BOOTSTRAP_INTERVALS


def _quadratic(J: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``J[:, m]^T C J[:, m]`` for every column m: J (..., K, M), C (..., K, K) -> (..., M)."""
    return np.einsum("...jm,...jk,...km->...m", J, C, J)


def _multinomial_cov(p: np.ndarray, n, covariance: str) -> np.ndarray:
    """``(diag(p) - p p^T) / n`` of one multinomial log's cell shares, or only its diagonal."""
    n = np.asarray(n, dtype=float)[..., None, None]
    K = p.shape[-1]
    if covariance == "diagonal":
        return np.eye(K) * (p * (1.0 - p))[..., None, :] / n
    return (np.eye(K) * p[..., None, :] - p[..., :, None] * p[..., None, :]) / n


def shared_random_ab_variance(P, Q_control, Q_treatment, n_control, n_treatment, n_random, *,
                              covariance: str = "full") -> np.ndarray:
    """Delta-method variances of ``(D_1..D_K, D_REO)`` for two arms sharing one random log (an extension of Algorithm 2; not in the paper).

    With ``J = [G, G H]`` the gradient of ``(delta_U, Delta_REO)`` in U (App. F,
    :func:`ocef.reo.reo_jacobians`) and ``U = Q / P``, the first-order expansion in the independent
    ``Q^T``, ``Q^C`` and ``P`` gives::

        Var_m = a_T^T Cov(Q^T) a_T + a_C^T Cov(Q^C) a_C + v^T Cov(P) v,
        a_j = J_jm / P_j (per arm),  v_j = (J^T_jm U^T_j - J^C_jm U^C_j) / P_j,

    with multinomial ``Cov(Q) = (diag(Q) - Q Q^T) / |D_rec|`` and ``Cov(P) = (diag(P) - P P^T) /
    |D_rand|``; ``covariance="diagonal"`` keeps their diagonals only (A/A rejection 8-9% at level 5%
    when positive labels are common).

    Parameters
    ----------
    P : array_like, shape (..., K)
        ``P_k`` of the shared random log.
    Q_control, Q_treatment : array_like, shape (..., K)
        ``Q_k`` of each arm's default log.
    n_control, n_treatment, n_random : int or array_like, shape (...)
        ``|D_rec|`` of each arm and ``|D_rand|``.
    covariance : {"full", "diagonal"}
        The multinomial covariances, or only their diagonals.

    Returns
    -------
    numpy.ndarray, shape (..., K + 1)
        Variances of ``D_1..D_K`` and ``D_REO``; NaN for ``D_REO`` where an arm's penalty is 0.

    Examples
    --------
    >>> v = shared_random_ab_variance([0.15, 0.15], [0.1, 0.2], [0.12, 0.18], 200, 200, 200)
    >>> np.sqrt(v).round(4).tolist()                    # SE of D_a, D_b, D_REO
    [0.1758, 0.1758, 0.1758]
    """
    from ocef.reo.estimators import COVARIANCES

    if covariance not in COVARIANCES:
        raise ParameterError(f"covariance must be one of {COVARIANCES}, got {covariance!r}")
    P = np.asarray(P, dtype=float)
    total = 0.0
    grads = []
    for Q, n in ((np.asarray(Q_treatment, float), n_treatment), (np.asarray(Q_control, float), n_control)):
        U = rtpr_utilities(P, Q)
        G, H = reo_jacobians(U)
        J = np.concatenate([G, np.einsum("...jk,...k->...j", G, H)[..., None]], axis=-1)   # (..., K, K+1)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = total + _quadratic(J / P[..., :, None], _multinomial_cov(Q, n, covariance))
        grads.append(J * U[..., :, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (grads[0] - grads[1]) / P[..., :, None]
        return total + _quadratic(v, _multinomial_cov(P, n_random, covariance))


@dataclass(frozen=True, eq=False)
class AbResult(Result):
    """Treatment minus control REO metrics with standard errors, intervals and p-values (App. D,
    Algorithms 2-4), the output of :func:`ab_test`.

    ``groups`` is ``columns`` as a DataFrame, built when first read (``to_dict`` needs no pandas).

    Parameters
    ----------
    columns : mapping of str to sequence
        ``group, delta_U_control, delta_U_treatment, D, se, ci_low, ci_high, p_value``, one value
        per group each.
    D_reo, D_reo_se : float
        ``D_REO`` and its standard error (NaN where undefined, e.g. an arm's penalty exactly 0).
    D_reo_ci : tuple of float
        ``(low, high)`` of its interval.
    D_reo_p_value : float
        Two-sided p-value of ``D_REO = 0``.
    penalty_control, penalty_treatment : float
        Each arm's ``Delta_REO``.
    n_control, n_treatment, n_random : int
        Rows of the three logs.
    method : str
        ``"delta"``, ``"delta-shared"``, ``"partition"`` or ``"bootstrap-<interval>"``.
    confidence : float
        Two-sided level of the intervals.
    notes : tuple of str
        Warnings on the validity of the intervals (e.g. a group without positive in an arm).

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_log as log   # 100 rows a group
    >>> round(ab_test(log((20, 40)), log((24, 36)), log((30, 30))).D_reo_se, 4)
    0.1758
    """

    columns: Mapping[str, Any] = field(repr=False)
    D_reo: float
    D_reo_se: float
    D_reo_ci: tuple[float, float]
    D_reo_p_value: float
    penalty_control: float
    penalty_treatment: float
    n_control: int
    n_treatment: int
    n_random: int
    method: str
    confidence: float
    #: Warnings on the validity of the intervals (e.g. a group without positive in an arm: Q_k = 0,
    #: where the delta-method variance vanishes and intervals and p-values are too narrow).
    notes: tuple = ()

    @cached_property
    def groups(self) -> pd.DataFrame:
        """The per-group table (see the class docstring)."""
        import pandas as pd

        return pd.DataFrame(self.columns)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The A/B comparison as one tidy table: the ``groups`` table with the ``D_REO`` fields repeated on every row.

        One row per group: ``group, delta_U_control, delta_U_treatment, D, se, ci_low,
        ci_high, p_value`` (``D_k``, Algorithms 2-4), then ``D_reo, D_reo_se, D_reo_ci_low,
        D_reo_ci_high, D_reo_p_value, penalty_control, penalty_treatment, n_control,
        n_treatment, n_random, method, confidence``.
        """
        return self.groups.assign(
            D_reo=self.D_reo, D_reo_se=self.D_reo_se, D_reo_ci_low=self.D_reo_ci[0],
            D_reo_ci_high=self.D_reo_ci[1], D_reo_p_value=self.D_reo_p_value,
            penalty_control=self.penalty_control, penalty_treatment=self.penalty_treatment,
            n_control=self.n_control, n_treatment=self.n_treatment, n_random=self.n_random,
            method=self.method, confidence=self.confidence)

    @presents
    def to_dict(self) -> dict:
        """The A/B comparison as strict-JSON data (what ``ocef reo-ab --json`` prints).

        Keys ``groups`` (the ``groups`` table as records), ``D_reo``, ``D_reo_se``,
        ``D_reo_ci`` (``[low, high]``), ``D_reo_p_value``, ``penalty_control``,
        ``penalty_treatment``, ``n_control``, ``n_treatment``, ``n_random``, ``method``,
        ``confidence`` and ``notes`` (list of str); NaN becomes None.
        """
        return jsonable({
            "groups": column_records(self.columns), "D_reo": self.D_reo, "D_reo_se": self.D_reo_se,
            "D_reo_ci": list(self.D_reo_ci), "D_reo_p_value": self.D_reo_p_value,
            "penalty_control": self.penalty_control, "penalty_treatment": self.penalty_treatment,
            "n_control": self.n_control, "n_treatment": self.n_treatment, "n_random": self.n_random,
            "method": self.method, "confidence": self.confidence, "notes": list(self.notes),
        })


def _normal_p_value(estimate, se) -> np.ndarray:
    """Two-sided normal p-value ``erfc(|estimate / se| / sqrt 2)``, without importing scipy.stats."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(np.asarray(estimate, dtype=float) / np.asarray(se, dtype=float))
    return np.asarray(_ERFC(z / math.sqrt(2.0)), dtype=float)[()]


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _fold_counts(rng: np.random.Generator, counts: np.ndarray, n_folds: int) -> np.ndarray:
    """Category counts of ``n_folds`` non-overlapping random folds of equal size (Alg. 3)."""
    rows = np.repeat(np.arange(counts.size), counts)
    fold = rng.permutation(rows.size) % n_folds
    return np.bincount(fold * counts.size + rows, minlength=n_folds * counts.size).reshape(n_folds, counts.size)


@validate_params(interval=Options(*AB_INTERVALS), confidence=CONFIDENCE, rng=Rng(), n_resamples=Integer(2, 10**7),
                 backend=Options(*BACKENDS), progress=PROGRESS)
def ab_test(control, treatment, random, *,
            interval: str = "delta-shared", label: str | Sequence[str] = "Y", group: str = "S",
            confidence: float = 0.95, rng=None, groups: Sequence | None = None,
            n_resamples: int = 100,
            n_folds: int | tuple[int, int] = 10, backend: str = "auto", spark=None, progress=False) -> AbResult:
    """Compare the REO metrics of a treatment arm with a control arm that share one random traffic log (App. D, Algorithms 2-4; App. I.2).

    ``D_k = delta_U_k^T - delta_U_k^C`` and ``D_REO = Delta_REO^T - Delta_REO^C`` get a standard
    error, an interval and a two-sided p-value of H0: no difference, by ``interval``:

    * ``"delta"`` -- Algorithm 2, ``SE(D) = sqrt(SE_T^2 + SE_C^2)``: it neglects the covariance of
      the shared D_rand (its D_REO intervals covered 86.7-91% at 95%; reo guide);
    * ``"delta-shared"`` -- the delta method applied jointly to (Q^T, Q^C, P)
      (:func:`shared_random_ab_variance`), which holds its level; an extension, not in the paper;
    * ``"partition"`` -- Algorithm 3: ``n_folds`` folds per arm compared by Welch's t-test (scipy's
      unrounded degrees of freedom where eq. 22 floors them);
    * ``"standard"`` (eq. 23), ``"percentile"`` or ``"bca"`` -- Algorithm 4 with that bootstrap
      interval (the three logs resampled independently; normal p-values D / SE_boot).

    Parameters
    ----------
    control, treatment, random : DataFrame, file path, DuckDB relation, :class:`ocef.backends.Sql` or Spark DataFrame
        The two arms' default logs and the shared random log, reduced to per-group counts first
        (:func:`ocef.reo.reo_counts`).
    interval : {"delta", "delta-shared", "partition", "standard", "percentile", "bca"}
        The comparison (see above, :data:`AB_INTERVALS`).
    label : str or sequence of str
        The 0/1 label column(s).
    group : str
        The item-group column.
    confidence : float
        Two-sided level, in (0, 1).
    rng : None, int, SeedSequence or Generator
        Randomness of the folds or the resamples.
    groups : sequence, optional
        The groups and their order (default: the sorted values found).
    n_resamples : int
        Bootstrap resamples.
    n_folds : int or tuple of (int, int)
        Folds per arm for ``"partition"``, at most the rows of the smaller log; a pair gives
        (control, treatment).
    backend : {"auto", "duckdb", "pandas", "spark"}
        Where the counts are computed.
    spark : SparkSession, optional
        For ``backend="spark"``.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    AbResult

    Raises
    ------
    ocef.errors.DataError
        If an arm has no positive label at all, or lacks a group the other logs have.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_log as log   # 100 rows a group
    >>> res = ab_test(log((20, 40)), log((24, 36)), log((30, 30)))
    >>> round(res.D_reo, 4), [round(v, 3) for v in res.D_reo_ci], round(res.D_reo_p_value, 3)
    (-0.1333, [-0.478, 0.211], 0.448)
    """

    from ocef.validation import as_generator, check_positive_int

    from ocef.reo.counts import reo_counts

    method = interval
    from ocef._progress import query_progress

    with query_progress(progress, "reo-ab: counting the logs"):          # a long DuckDB query's own bar
        counts = reo_counts({"control": control, "treatment": treatment, "random": random}, label=label,
                            group=group, groups=groups, backend=backend, spark=spark)
    names = list(counts.group_names)
    for arm in ("control", "treatment"):
        # a group absent from an arm's log has Q_k = 0 with a delta-method SE of 0: the difference
        # looked hugely significant (D_REO = -0.99 at p = 6e-35) when it is only missing data
        rows = counts.group_rows(arm)
        if int(np.sum(counts.positives(arm))) == 0:
            raise DataError(f"the {arm} log has no positive label in any group: mean(U) = 0, so delta_U and the "
                            f"REO penalty of the {arm} arm are undefined")
        missing = [g for g, n in zip(names, rows) if n == 0]
        if missing:
            raise DataError(f"the {arm} log has no row of group(s) {missing[:5]} (column {group!r}) that the other "
                            f"logs have: an A/B comparison needs every group in both arms")
    notes = []
    for arm in ("control", "treatment"):
        no_pos = [g for g, n in zip(names, counts.positives(arm)) if n == 0]
        if no_pos:
            notes.append(f"the {arm} log has no positive label for group(s) {no_pos[:5]}: Q_k = 0, where the "
                         f"delta-method variance vanishes; intervals and p-values involving them are too narrow "
                         f"(collect more traffic, or read the bootstrap with care)")
    cc, ct, cr = (counts.category_counts(n) for n in ("control", "treatment", "random"))
    _check_estimable(names, cc[:-1], cr[:-1])
    _check_estimable(names, ct[:-1], cr[:-1])
    z = normal_quantile(confidence)
    n_c, n_t, n_r = int(cc.sum()), int(ct.sum()), int(cr.sum())
    arr_c = reo_from_counts(cc[:-1], n_c, cr[:-1], n_r, confidence=confidence)
    arr_t = reo_from_counts(ct[:-1], n_t, cr[:-1], n_r, confidence=confidence)
    D = np.append(arr_t.delta_U - arr_c.delta_U, arr_t.penalty - arr_c.penalty)

    if method == "delta":                                                   # Algorithm 2
        se = np.sqrt(np.append(arr_t.se_delta_U ** 2 + arr_c.se_delta_U ** 2,
                               arr_t.se_penalty ** 2 + arr_c.se_penalty ** 2))
        low, high, p = D - z * se, D + z * se, _normal_p_value(D, se)
    elif method == "delta-shared":                                          # joint delta method
        se = np.sqrt(shared_random_ab_variance(cr[:-1] / n_r, cc[:-1] / n_c, ct[:-1] / n_t, n_c, n_t, n_r))
        low, high, p = D - z * se, D + z * se, _normal_p_value(D, se)
    elif method == "partition":                                             # Algorithm 3
        if np.ndim(n_folds) == 0:
            m_c = m_t = n_folds
        elif isinstance(n_folds, (tuple, list)) and len(n_folds) == 2:
            m_c, m_t = n_folds
        else:
            raise ParameterError(f"n_folds must be an integer >= 2 or a pair (control, treatment) of them, "
                                 f"got {n_folds!r}")
        m_c = check_positive_int("n_folds (control)", m_c, minimum=2)
        m_t = check_positive_int("n_folds (treatment)", m_t, minimum=2)
        for m, n, arm in ((m_c, min(n_c, n_r), "control"), (m_t, min(n_t, n_r), "treatment")):
            if m > n:
                raise ParameterError(f"n_folds ({arm}) = {m} exceeds the rows of the smaller log ({n}): "
                                     f"every fold needs rows; use fewer folds")
        gen = as_generator(rng)
        v_c = _reo_stat_from_counts(_fold_counts(gen, cc, m_c), _fold_counts(gen, cr, m_c))
        v_t = _reo_stat_from_counts(_fold_counts(gen, ct, m_t), _fold_counts(gen, cr, m_t))
        if not (np.isfinite(v_c).all() and np.isfinite(v_t).all()):
            raise ParameterError(f"with n_folds={n_folds} some fold has a group without positive label in "
                             f"its share of the random traffic (U_k undefined); use fewer folds")
        from scipy import stats  # lazy: only Algorithm 3 needs it (start-up of `ocef reo-ab`)

        test = stats.ttest_ind(v_t, v_c, axis=0, equal_var=False)
        ci = test.confidence_interval(confidence_level=confidence)
        D = v_t.mean(axis=0) - v_c.mean(axis=0)
        se = np.sqrt(v_t.var(axis=0, ddof=1) / m_t + v_c.var(axis=0, ddof=1) / m_c)
        low, high, p = np.asarray(ci.low), np.asarray(ci.high), np.asarray(test.pvalue)
    else:                                                                   # Algorithm 4
        boot = _bootstrap_counts(_ab_stat_from_counts, [cc, ct, cr], method=interval,
                                 n_resamples=n_resamples, confidence=confidence, rng=rng, progress=progress)
        se, low, high = boot.se, boot.ci_low, boot.ci_high
        p = _normal_p_value(D, se)
        method = f"bootstrap-{interval}"

    table = {
        "group": names, "delta_U_control": arr_c.delta_U, "delta_U_treatment": arr_t.delta_U,
        "D": D[:-1], "se": se[:-1], "ci_low": low[:-1], "ci_high": high[:-1], "p_value": p[:-1],
    }
    return AbResult(table, float(D[-1]), float(se[-1]), (float(low[-1]), float(high[-1])), float(p[-1]),
                    float(arr_c.penalty), float(arr_t.penalty), n_c, n_t, n_r, method, confidence, tuple(notes))
