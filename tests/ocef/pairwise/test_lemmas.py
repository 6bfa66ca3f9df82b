import numpy as np
import pytest

from ocef.pairwise.lemmas import calibration_errors, lemma_case


def test_calibration_errors_detect_a_miscalibrated_model():
    y = np.array([0.8, 0.2])
    assert calibration_errors(y, 0.5, y) == pytest.approx([0.0, 0.0], abs=1e-15)
    assert calibration_errors(y, 0.5, [0.9, 0.1]) == pytest.approx([0.1, 0.1])
    assert calibration_errors(y, 0.5, [0.6, 0.3]) == pytest.approx([0.2, 0.1])
    # one prediction for both groups: calibrated only at the pooled rate π_0 ȳ_0 + π_1 ȳ_1
    assert calibration_errors(y, 0.25, [0.65, 0.65]) == pytest.approx([0.0, 0.0], abs=1e-15)
    assert calibration_errors(y, 0.25, [0.5, 0.5]) == pytest.approx([0.15, 0.15])


@pytest.mark.parametrize("y0, y1, share", [(0.9, 0.3, 0.5), (0.6, 0.4, 0.2)])
def test_lemma_case_is_calibrated_with_equal_mse_yet_unfair(y0, y1, share):
    out = lemma_case(y0, y1, share)
    assert out["calibration_error_0"] == pytest.approx(0.0, abs=1e-15)
    assert out["calibration_error_1"] == pytest.approx(0.0, abs=1e-15)
    assert (out["inter_accuracy_0"], out["inter_accuracy_1"]) == (1.0, 0.0)
    assert out["intra_accuracy_0"] == out["intra_accuracy_1"] == 0.5
    assert out["overall_accuracy_0"] > out["overall_accuracy_1"]
    pi = np.array([1 - share, share])
    p_inter = (pi[0] * y0 * pi[1] * (1 - y1) + pi[1] * y1 * pi[0] * (1 - y0)) / (
        (pi * [y0, y1]).sum() * (pi * [1 - y0, 1 - y1]).sum())
    assert out["p_inter"] == pytest.approx(p_inter)
    if y1 == pytest.approx(1 - y0):
        assert out["mse_0"] == pytest.approx(out["mse_1"])
