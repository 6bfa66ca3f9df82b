"""Lemmas 1-2 of Beutel et al. 2019 (Sec. 4.2): calibration and equal MSE do not give pairwise fairness.

Setting of the proofs: z = 0, g(y, z) = y, two item groups with average labels ȳ_0 ≠ ȳ_1 and the
model f(q, v_j) = ȳ_{s_j} (each item predicted at its group's base rate). A randomized pair has
its two items' groups drawn independently (group 1 with probability ``share_1``) and labels
Bernoulli(ȳ_s); it is recorded when exactly one item is clicked, so (clicked group s, unclicked
group s′) has probability ∝ π_s ȳ_s · π_s′ (1 − ȳ_s′).

* the model is calibrated in each group: E[y | f = ȳ_s] = ȳ_s (eq. 9) — Lemma 1;
* MSE_s = ȳ_s (1 − ȳ_s)² + (1 − ȳ_s) ȳ_s² = ȳ_s − ȳ_s², equal for ȳ_1 = 1 − ȳ_0 — Lemma 2;
* yet same-group pairs tie (accuracy ½), inter-group pairs are won by the higher-rate group
  (accuracy 1) and lost by the other (accuracy 0), and by eq. (7) the overall accuracies differ
  whenever P(s_j ≠ s_j′ | y_j > y_j′) > 0.

:func:`lemma_case` computes every quantity exactly through the same count functions as the
estimates (expected counts instead of observed ones).
"""
from __future__ import annotations

import numpy as np

from ocef.pairwise.counts import KINDS
from ocef.pairwise.accuracy import cell_statistics, summary_statistics
from ocef.validation import check_in_interval

__all__ = ["lemma_case", "lemma_mass", "calibration_errors"]


def _base_rates(y_bar_0: float, y_bar_1: float) -> np.ndarray:
    return np.array([check_in_interval("y_bar_0", y_bar_0, 0.0, 1.0, low_open=True, high_open=True),
                     check_in_interval("y_bar_1", y_bar_1, 0.0, 1.0, low_open=True, high_open=True)])


def _base_rate_model(y: np.ndarray) -> np.ndarray:
    """The lemmas' model: each item predicted at its group's base rate, f(q, v_j) = ȳ_{s_j}."""
    return y.copy()


def calibration_errors(y_bar, share_1: float, predictions) -> np.ndarray:
    """Calibration error |E[y | f = f_s] − f_s| of each group's prediction (eq. 9); groups predicted
    alike are pooled (the condition is on the prediction).

    Parameters
    ----------
    y_bar : array_like of float, shape (2,)
        Average labels ȳ_0, ȳ_1.
    share_1 : float
        Probability π_1 that an item is in group 1.
    predictions : array_like of float, shape (2,)
        The prediction f_s of every item of group s.

    Returns
    -------
    numpy.ndarray, shape (2,)

    Examples
    --------
    >>> calibration_errors([0.8, 0.2], 0.25, [0.5, 0.5]).round(4).tolist()
    [0.15, 0.15]
    """
    y, f = np.asarray(y_bar, dtype=float), np.asarray(predictions, dtype=float)
    pi = np.array([1 - share_1, share_1])
    same = f[:, None] == f[None, :]                          # items sharing group s's prediction
    return np.abs(same @ (pi * y) / (same @ pi) - f)


def lemma_mass(y_bar_0: float, y_bar_1: float, share_1: float) -> np.ndarray:
    """Expected counts N[s, t, z = 0, o] of the recorded pairs in the setting of Lemmas 1-2 (Sec. 4.2,
    module docstring).

    Parameters
    ----------
    y_bar_0, y_bar_1 : float
        Average labels of the two groups.
    share_1 : float
        Probability that an item is in group 1.

    Returns
    -------
    numpy.ndarray, shape (2, 2, 1, 3)
        Probabilities in the layout of :attr:`ocef.pairwise.PairCounts.total`.

    Examples
    --------
    >>> lemma_mass(0.8, 0.2, 0.5)[:, :, 0, :].round(4).tolist()
    [[[0.0, 0.16, 0.0], [0.0, 0.0, 0.64]], [[0.0, 0.16, 0.0], [0.04, 0.0, 0.0]]]
    """
    y = _base_rates(y_bar_0, y_bar_1)
    share_1 = check_in_interval("share_1", share_1, 0.0, 1.0, low_open=True, high_open=True)
    pi = np.array([1 - share_1, share_1])
    f = _base_rate_model(y)
    mass = np.zeros((2, 2, 1, 3))
    for s in (0, 1):
        for sp in (0, 1):
            p = pi[s] * y[s] * pi[sp] * (1 - y[sp])
            o = 1 + int(np.sign(f[s] - f[sp]))                   # 0 lost, 1 tie, 2 won
            mass[s, int(s != sp), 0, o] += p
    return mass / mass.sum()


def lemma_case(y_bar_0: float, y_bar_1: float, share_1: float = 0.5) -> dict:
    """Every quantity of Lemmas 1-2 (Sec. 4.2) for the base-rate model, exactly (the accuracies from
    :func:`lemma_mass` by the same functions as the estimates).

    Parameters
    ----------
    y_bar_0, y_bar_1 : float
        Average labels of the two groups, in (0, 1).
    share_1 : float
        Probability that an item is in group 1, in (0, 1).

    Returns
    -------
    dict
        The inputs; ``calibration_error_0/1`` (eq. 9), ``mse_0/1``, ``p_inter`` and, per kind
        (``overall``, ``intra``, ``inter``), ``<kind>_accuracy_0``, ``<kind>_accuracy_1``,
        ``<kind>_ratio``.

    Examples
    --------
    >>> case = lemma_case(0.8, 0.2)                     # ȳ_1 = 1 − ȳ_0: equal MSE, both calibrated
    >>> float(case["calibration_error_0"]), case["overall_accuracy_0"], case["overall_accuracy_1"]
    (0.0, 0.9, 0.4)
    """
    mass = lemma_mass(y_bar_0, y_bar_1, share_1)
    n, acc = cell_statistics(mass)
    summ = summary_statistics(acc, (n > 0).all(axis=1))
    y = _base_rates(y_bar_0, y_bar_1)
    calibration = calibration_errors(y, share_1, _base_rate_model(y))     # eq. (9)
    mse = y * (1 - y) ** 2 + (1 - y) * y ** 2
    out = {"y_bar_0": y_bar_0, "y_bar_1": y_bar_1, "share_1": share_1,
           "calibration_error_0": calibration[0], "calibration_error_1": calibration[1],
           "mse_0": mse[0], "mse_1": mse[1],
           "p_inter": float(n[2].sum())}
    for k, kind in enumerate(KINDS):                                      # the kind axis of cell_statistics
        out[f"{kind}_accuracy_0"], out[f"{kind}_accuracy_1"] = float(acc[k, 0, 0]), float(acc[k, 1, 0])
        out[f"{kind}_ratio"] = float(summ[k, 2])
    return out
