"""holisticai's metrics on small matrices computed by hand, holisticai 1.0.14's numbers (recorded,
and live when holisticai is installed), and bad inputs."""
import math
import warnings

import numpy as np
import pytest

import ocef.metrics as M
from ocef.metrics.recommender import METRIC_NAMES

# 4 users x 3 items; user 2 did not score item 2. Groups a = users 0, 1 and b = users 2, 3.
S = np.array([[0.9, 0.1, 0.5],
              [0.2, 0.8, 0.6],
              [0.7, 0.3, np.nan],
              [0.4, 0.6, 0.55]])
T = np.array([[1, 0, 0],
              [0, 0, 1],
              [0, 1, 0],
              [0, 1, 1]], dtype=float)
A = np.array([1, 1, 0, 0])
B = 1 - A


# ------------------------------------------------------------------ exposure

def test_exposure_thresh_top_and_nan_never_shown():
    np.testing.assert_array_equal(M.exposure(S, thresh=0.5), [[1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(M.exposure(S, k=1), [[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 1, 0]])
    # user 2 has two scores only: top 3 shows those two, never the NaN
    np.testing.assert_array_equal(M.exposure(S, k=3)[2], [1, 1, 0])
    assert M.exposure(S, k=1).dtype == np.int8


def test_exposure_ties_go_to_the_lower_index_and_binary_input_is_kept():
    np.testing.assert_array_equal(M.exposure([[0.5, 0.5, 0.5, 0.1]], k=2), [[1, 1, 0, 0]])
    np.testing.assert_array_equal(M.exposure([[0.1, 0.5, 0.2, 0.5]], k=1), [[0, 1, 0, 0]])
    binary = np.array([[1, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(M.exposure(binary, k=1), binary)          # top ignored (holisticai)


def test_binary_matrix_with_unscored_cells_is_kept_not_ranked():
    # a 0/1 truth (or recommendation) matrix where some cells are unknown (NaN) is still 0/1: NaN is
    # neither relevant nor shown; ranking it by `top` made a truth-0 item relevant (precision 0.5 -> 1.0)
    scores = np.array([[0.9, 0.8, 0.1, 0.2], [0.9, 0.8, 0.1, 0.2]])
    truth = np.array([[1, 0, 0, 0], [1, 0, 0, 0]], dtype=float)
    with_unknown = truth.copy()
    with_unknown[:, 2] = np.nan
    np.testing.assert_array_equal(M.exposure(with_unknown, k=2), truth)
    b = np.array([0, 1])
    assert M.avg_precision_ratio(1 - b, b, scores, with_unknown, k=2) == pytest.approx(1.0)
    res = M.recommender_bias(scores, with_unknown, groups=["x", "y"], k=2)
    precision = res.table[(res.table.level == "group") & (res.table.metric == "avg_precision")].value
    np.testing.assert_allclose(precision, [0.5, 0.5])                     # as without the unknown cell
    np.testing.assert_array_equal(M.exposure([[1.0, np.nan, 0.0]], k=1), [[1, 0, 0]])


def test_exposure_normalize_min_max():
    # stars 1..5: normalised (r - 1) / 4, so thresh 0.5 shows ratings >= 3
    stars = np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 2.5]])
    np.testing.assert_array_equal(M.exposure(stars, thresh=0.5, normalize=True), [[0, 1, 1], [0, 1, 0]])
    # two distinct values become a 0/1 matrix after normalising: used as is
    np.testing.assert_array_equal(M.exposure([[2.0, 7.0], [7.0, 7.0]], k=1, normalize=True), [[0, 1], [1, 1]])


# ------------------------------------------------------------------ hand-computed metrics

def test_item_metrics_by_hand_top1():
    # top 1: items 0, 1, 0, 1 -> counts [2, 2, 0], item_dist [1/2, 1/2, 0]
    assert M.aggregate_diversity(S, k=1) == pytest.approx(2 / 3)
    # ascending [0, 1/2, 1/2], weights 2i - n - 1 = [-2, 0, 2]: 1 / (n - 1) = 1/2, or 1 / n = 1/3
    assert M.gini_index(S, k=1) == pytest.approx(0.5)
    assert M.gini_index(S, k=1, convention="formula") == pytest.approx(1 / 3)
    assert M.exposure_entropy(S, k=1) == pytest.approx(math.log(2))
    assert M.avg_recommendation_popularity(S, k=1) == pytest.approx(2.0)   # every shown item has 2 users
    assert M.exposure_total_variation(A, B, S, k=1) == 0.0
    assert M.exposure_kl(A, B, S, k=1) == 0.0


def test_item_and_outcome_metrics_by_hand_thresh():
    # thresh 0.5: rows {0,2}, {1,2}, {0}, {1,2} -> counts [2, 2, 3], item_dist [2/7, 2/7, 3/7]
    assert M.aggregate_diversity(S) == 1.0
    assert M.gini_index(S) == pytest.approx((2 / 7) / 2)               # (-2 * 2/7 + 0 + 2 * 3/7) / 2
    assert M.gini_index(S, convention="formula") == pytest.approx((2 / 7) / 3)
    p = np.array([2, 2, 3]) / 7
    assert M.exposure_entropy(S) == pytest.approx(-(p * np.log(p)).sum())
    # per user mean popularity of the shown items: 5/2, 5/2, 2, 5/2
    assert M.avg_recommendation_popularity(S) == pytest.approx(9.5 / 4)
    # a: counts [1, 1, 2] / 4; b: [1, 1, 1] / 3
    assert M.exposure_total_variation(A, B, S) == pytest.approx(1 / 6)
    assert M.exposure_l1(A, B, S) == M.exposure_total_variation(A, B, S)
    assert M.exposure_kl(A, B, S) == pytest.approx(0.5 * math.log(0.75) + 0.5 * math.log(1.5))
    # MAD over scored entries: a 3.1 / 6, b 2.55 / 5 (the NaN is not counted)
    assert M.mad_score(A, B, S) == pytest.approx(3.1 / 6 - 2.55 / 5)
    assert M.mad_score(A, B, S, orientation="b-a") == pytest.approx(2.55 / 5 - 3.1 / 6)


def test_opportunity_ratios_by_hand():
    # truth is 0/1: used as is. Per user (P, R, F1): (1/2, 1, 2/3), (1/2, 1, 2/3), (0, 0, 0), (1, 1, 1)
    assert M.avg_precision_ratio(A, B, S, T) == pytest.approx(0.5 / 0.5)
    assert M.avg_recall_ratio(A, B, S, T) == pytest.approx(1.0 / 0.5)
    assert M.avg_f1_ratio(A, B, S, T) == pytest.approx((2 / 3) / 0.5)
    assert M.avg_recall_ratio(A, B, S, T, orientation="b/a") == pytest.approx(0.5)   # the seed's AR_b / AR_a
    # RMSE / MAE over the cells both define (the NaN cell of user 2 is left out)
    assert M.recommender_rmse_ratio(A, B, S, T) == pytest.approx(math.sqrt((1.11 / 6) / (1.5025 / 5)))
    assert M.recommender_mae_ratio(A, B, S, T) == pytest.approx((2.1 / 6) / (2.65 / 5))


def test_ratio_division_conventions():
    # group b (users 2, 3) never gets a relevant item -> precision 0: x/0 = inf, 0/0 = nan
    truth = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=float)
    assert M.avg_precision_ratio(A, B, S, truth) == math.inf
    assert math.isnan(M.avg_precision_ratio(B, B, S, truth))


def test_kl_is_infinite_when_reference_misses_an_item():
    # a sees item 2 (top 1 of user 0), b never does
    scores = np.array([[0.1, 0.2, 0.9], [0.9, 0.1, 0.2], [0.9, 0.2, 0.1]])
    a, b = np.array([1, 0, 0]), np.array([0, 1, 1])
    assert M.exposure_kl(a, b, scores, k=1) == math.inf
    assert M.exposure_kl(b, a, scores, k=1) == math.inf
    assert M.exposure_total_variation(a, b, scores, k=1) == 1.0


def test_gini_bounds_uniform_and_concentrated():
    assert M.gini(np.full(5, 0.2)) == pytest.approx(0.0)
    assert M.gini(np.array([0, 0, 0, 0, 1.0])) == pytest.approx(1.0)                     # (n - 1) normalisation
    assert M.gini(np.array([0, 0, 0, 0, 1.0]), "formula") == pytest.approx(0.8)          # (n - 1) / n


def test_groups_need_not_be_complementary():
    a = np.array([1, 1, 1, 0])
    b = np.array([0, 1, 1, 1])
    assert M.mad_score(a, b, S) == pytest.approx(np.nanmean(S[:3]) - np.nanmean(S[1:]))


def test_batch_table_has_holisticai_names():
    table = M.recommender_bias_metrics(A, B, S, T, metric_type="all")
    assert list(table.index) == list(METRIC_NAMES)
    assert table.loc["Average Recall Ratio", "Value"] == pytest.approx(2.0)
    assert table.loc["GINI index", "Reference"] == 0
    assert list(M.recommender_bias_metrics(A, B, S).index) == ["Mean Absolute Deviation", "Exposure Total Variation",
                                                               "Exposure KL Divergence"]
    assert len(M.recommender_bias_metrics(scores=S, metric_type="item_based")) == 4


# ------------------------------------------------------------------ holisticai 1.0.14

HOLISTICAI_DOC = np.array([[0.9, 0.8, 0.4, 0.2], [0.7, 0.9, 0.1, 0.7], [0.3, 0.2, 0.3, 0.3], [0.2, 0.1, 0.7, 0.8],
                           [0.8, 0.7, 0.9, 0.1], [1.0, 0.9, 0.3, 0.6], [0.8, 0.9, 0.1, 0.1], [0.2, 0.3, 0.1, 0.5],
                           [0.1, 0.2, 0.7, 0.7], [0.2, 0.7, 0.1, 0.2]])
HOLISTICAI_DOC_TRUE = np.array([[0.7, 0.8, 0.4, 0.2], [0.9, 0.9, 0.1, 0.2], [0.3, 0.8, 0.2, 0.6],
                                [0.2, 0.1, 0.7, 0.8], [0.6, 0.7, 0.9, 0.1], [1.0, 0.9, 0.3, 0.6],
                                [0.8, 0.1, 0.1, 0.1], [0.2, 0.3, 0.1, 0.5], [0.1, 0.2, 0.7, 0.7],
                                [0.2, 0.1, 0.1, 0.8]])
DOC_A = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])


def test_holisticai_docstring_examples():
    """The examples in holisticai 1.0.14's docstrings that do not depend on its tie order."""
    P, Tr, a, b = HOLISTICAI_DOC, HOLISTICAI_DOC_TRUE, DOC_A, 1 - DOC_A
    assert M.aggregate_diversity(P, thresh=0.8, normalize=True) == 0.75
    assert M.exposure_entropy(P, thresh=0.3, normalize=True) == pytest.approx(1.3762266043445464, rel=1e-12)
    assert M.avg_recommendation_popularity(P, thresh=0.5) == pytest.approx(5.037037037037036, rel=1e-12)
    assert M.mad_score(a, b, P) == pytest.approx(0.00833333333333336, rel=1e-9)
    assert M.recommender_mae_ratio(a, b, P, Tr) == pytest.approx(1.2954545454545452, rel=1e-12)
    # these two docstrings print 0.9286 and 1.1496, but holisticai 1.0.14's code returns 0.9 and 0.92
    assert M.avg_f1_ratio(a, b, P, Tr, thresh=0.5) == pytest.approx(0.9, rel=1e-12)
    assert M.recommender_rmse_ratio(a, b, P, Tr) == pytest.approx(0.9200155278192708, rel=1e-12)


def test_holisticai_tie_order_differs_on_its_docstring_example():
    # rows 2, 3 and 10 of the example tie inside the top 2; holisticai (numpy's argsort) keeps the
    # higher index there and prints 0.1333; ties go to the lower index here: item counts [7, 6, 4, 3]
    np.testing.assert_array_equal(M.exposure(HOLISTICAI_DOC, k=2).sum(axis=0), [7, 6, 4, 3])
    assert M.gini_index(HOLISTICAI_DOC, k=2) == pytest.approx(0.7 / 3)


def shared_input(seed: int):
    """30 users x 8 items without ties; group a = every third user, b = the others."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((30, 8)), 6)
    truth = np.round(rng.random((30, 8)), 6)
    a = (np.arange(30) % 3 == 0).astype(int)
    return scores, truth, a, 1 - a


#: holisticai 1.0.14 ``recommender_bias_metrics(a, b, scores, truth, top, thresh, normalize,
#: metric_type="all")`` on :func:`shared_input`, in the order of METRIC_NAMES.
HOLISTICAI_VALUES = {
    (11, 3, None, False): [1.0, 0.17777777777777776, 2.037217151638727, 12.133333333333333, -0.008950987500000007,
                           0.23333333333333334, 0.24648674054118586, 1.1, 1.1, 1.1, 1.0712440393437344,
                           1.0338098822957709],
    (11, None, 0.5, False): [1.0, 0.10129870129870135, 2.0659676938945513, 14.262777777777776, -0.008950987500000007,
                             0.12462462462462462, 0.039735641011361233, 1.0613598673300166, 1.0463121783876503,
                             1.0517743871078344, 1.0712440393437344, 1.0338098822957709],
    (11, None, 0.6, True): [1.0, 0.08374384236453203, 2.0704744946166427, 11.174444444444443, -0.009065824296362046,
                            0.20689655172413796, 0.17769249794152034, 1.1268817204301074, 1.048169556840077,
                            1.0718763058921854, 1.0712440393437344, 1.033809882295771],
    (12, 3, None, False): [1.0, 0.16190476190476186, 2.0456512402471656, 11.977777777777778, -0.0015380999999999867,
                           0.23333333333333334, 0.1310150673975216, 0.782608695652174, 0.782608695652174,
                           0.782608695652174, 1.075821340859047, 1.0656880996754412],
    (12, None, 0.5, False): [1.0, 0.13553113553113555, 2.053487481117001, 15.495555555555557, -0.0015380999999999867,
                             0.1923076923076923, 0.09732638680088718, 0.9981481481481482, 0.7287798408488064,
                             0.8890228901118572, 1.075821340859047, 1.0656880996754412],
    (12, None, 0.6, True): [1.0, 0.1619047619047619, 2.0440485181334536, 14.262063492063493, -0.00154882561740044,
                            0.18571428571428572, 0.09772715776925212, 1.0788681517158338, 0.6934931506849316,
                            0.9307816577606561, 1.075821340859047, 1.0656880996754408],
}


@pytest.mark.parametrize("key", list(HOLISTICAI_VALUES), ids=lambda k: f"seed{k[0]}-top{k[1]}-thresh{k[2]}-norm{k[3]}")
def test_recorded_holisticai_values(key):
    seed, top, thresh, normalize = key
    scores, truth, a, b = shared_input(seed)
    ours = M.recommender_bias_metrics(a, b, scores, truth, k=top, thresh=thresh, normalize=normalize,
                                      metric_type="all")
    np.testing.assert_allclose(ours.Value.to_numpy(dtype=float), HOLISTICAI_VALUES[key], rtol=1e-12, atol=1e-15)
    # the many-group function gives the same numbers on the two groups (pair = (a, reference b))
    res = M.recommender_bias(scores, truth, groups=np.where(a == 1, "a", "b"), reference="b", k=top,
                             thresh=thresh, normalize=normalize, n_resamples=50, rng=0)
    values = dict(zip([key for key, _ in METRIC_NAMES.values()], HOLISTICAI_VALUES[key]))
    pair = res.pairs.iloc[0]
    for name in ("mad", "exposure_total_variation", "exposure_kl", "avg_precision_ratio", "avg_recall_ratio",
                 "avg_f1_ratio", "rmse_ratio", "mae_ratio"):
        assert pair[name] == pytest.approx(values[name], rel=1e-12, abs=1e-15), name
    for name in ("aggregate_diversity", "gini_index", "exposure_entropy", "avg_recommendation_popularity"):
        assert res.overall[name].iloc[0] == pytest.approx(values[name], rel=1e-12), name


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("top,thresh,normalize", [(3, None, False), (1, None, True), (None, 0.5, False),
                                                  (None, 0.6, True)])
def test_live_holisticai(seed, top, thresh, normalize):
    hai = pytest.importorskip("holisticai.bias.metrics", reason="holisticai 1.0.14 not installed (test-only)")
    scores, truth, a, b = shared_input(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = hai.recommender_bias_metrics(a, b, scores, truth, top, thresh, normalize, metric_type="all")
    ours = M.recommender_bias_metrics(a, b, scores, truth, k=top, thresh=thresh, normalize=normalize,
                                      metric_type="all")
    assert list(theirs.index) == list(ours.index)
    np.testing.assert_allclose(ours.Value.to_numpy(dtype=float), theirs.Value.to_numpy(dtype=float),
                               rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ k keyword-only (issue 18)

#: each holisticai bias metrics function whose ``k`` is keyword-only: (function, data arguments, its options in order)
KEYWORD_ONLY_K = [
    (M.exposure, (S,), ("k", "thresh", "normalize")),
    (M.aggregate_diversity, (S,), ("k", "thresh", "normalize")),
    (M.gini_index, (S,), ("k", "thresh", "normalize", "convention")),
    (M.exposure_entropy, (S,), ("k", "thresh", "normalize")),
    (M.avg_recommendation_popularity, (S,), ("k", "thresh", "normalize")),
    (M.exposure_total_variation, (A, B, S), ("k", "thresh", "normalize")),
    (M.exposure_kl, (A, B, S), ("k", "thresh", "normalize")),
    (M.avg_precision_ratio, (A, B, S, T), ("k", "thresh", "normalize", "orientation")),
    (M.avg_recall_ratio, (A, B, S, T), ("k", "thresh", "normalize", "orientation")),
    (M.avg_f1_ratio, (A, B, S, T), ("k", "thresh", "normalize", "orientation")),
    (M.recommender.user_stats, (S, T), ("k", "thresh", "normalize")),
    (M.recommender_bias_metrics, (A, B, S, T), ("k", "thresh", "normalize", "metric_type", "gini_convention")),
]


@pytest.mark.parametrize("func,data,names", KEYWORD_ONLY_K, ids=lambda v: getattr(v, "__name__", ""))
def test_k_and_the_options_are_keyword_only(func, data, names):
    import inspect

    params = inspect.signature(func).parameters
    assert all(params[n].kind is inspect.Parameter.KEYWORD_ONLY for n in names)
    with pytest.raises(TypeError, match="positional argument"):
        func(*data, 1)


def test_holisticai_call_with_keywords_keeps_its_numbers():
    """holisticai's ``recommender_bias_metrics(a, b, scores, truth, top, thresh, normalize)``,
    with its options passed by keyword, gives the recorded numbers."""
    scores, truth, a, b = shared_input(11)
    ours = M.recommender_bias_metrics(a, b, scores, truth, k=3, thresh=None, normalize=False, metric_type="all")
    np.testing.assert_allclose(ours.Value.to_numpy(dtype=float), HOLISTICAI_VALUES[(11, 3, None, False)],
                               rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("call,match", [
    (lambda: M.exposure(np.zeros(3)), "2-d"),
    (lambda: M.exposure(np.full((2, 2), np.nan)), "every entry is NaN"),
    (lambda: M.exposure([["a", "b"]]), "numeric"),
    (lambda: M.exposure(S, k=0), r"k must be an integer in \[1, 3\]"),
    (lambda: M.exposure(S, k=4), r"k must be an integer in \[1, 3\]"),
    (lambda: M.exposure(S, k=1.5), "k must be an integer"),
    (lambda: M.exposure(S, thresh=None), "give k"),
    (lambda: M.exposure(np.full((2, 2), 0.3), normalize=True), "constant"),
    (lambda: M.avg_precision_ratio(A, B, S, T[:3]), "shape"),
    (lambda: M.avg_precision_ratio(A, B, np.full((4, 3), 0.3), np.full((4, 3), 0.3), normalize=True), "constant"),
    (lambda: M.mad_score(A[:3], B, S), "group_a must be a 0/1 vector"),
    (lambda: M.mad_score(np.array([0, 2, 1, 0]), B, S), "only 0 and 1"),
    (lambda: M.mad_score(np.zeros(4), B, S), "group_a is empty"),
    (lambda: M.gini_index(S, convention="other"), "convention"),
    (lambda: M.avg_f1_ratio(A, B, S, T, orientation="a-b"), "orientation"),
    (lambda: M.avg_f1_ratio(A, B, S, None), "truth is required"),
    (lambda: M.recommender_bias_metrics(A, None, S), "both group_a and group_b"),
    (lambda: M.exposure(np.array([[1.0, np.inf]])), "finite"),
])
def test_bad_input_raises_one_clear_error(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
