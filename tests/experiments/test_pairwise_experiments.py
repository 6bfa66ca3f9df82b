import pandas as pd

from ocef.experiments import pairwise_coat, pairwise_lemmas, pairwise_regularization, registry
from ocef.experiments.claims import check_claims
from tests.conftest import require_data


def test_lemmas_experiment_reproduces_both_lemmas(tmp_path):
    paths = registry.run("pairwise-lemmas", out=tmp_path, quick=True, progress=False)
    df = pd.read_csv(paths[0])
    assert paths[1].suffix == ".png" and paths[1].stat().st_size > 0
    verdicts = check_claims(pairwise_lemmas.CLAIMS, df)
    assert all(v["holds"] is True for v in verdicts), verdicts
    # the calibration part of Lemma 1 can fail: exactly (any error) and sampled (beyond 4 standard errors)
    sample = df.method == "sample"
    assert (df[sample].calibration_error_0 > 0).all() and (df[~sample].calibration_se_0.isna()).all()
    off = df.assign(calibration_error_1=df.calibration_error_1.where(sample, 1e-3))
    assert not pairwise_lemmas.CLAIMS[0].check(off)[0]
    off = df.assign(calibration_error_0=df.calibration_error_0.where(~sample, 5 * df.calibration_se_0))
    assert not pairwise_lemmas.CLAIMS[0].check(off)[0]


def test_regularization_claim_check_thresholds():
    rows = [{"seed": s, "lam": lam, "inter_gap_shrink": g, "intra_ratio_move": m, "accuracy_drop": d,
             "inter_ratio": 1.0, "intra_ratio": 1.0, "overall_ratio": 1.0, "accuracy_pooled": 0.8}
            for s in (0, 1) for lam, g, m, d in ((0.0, 0.0, 0.0, 0.0), (0.1, 0.6, 0.01, 0.0), (1.0, 0.9, 0.2, 0.0))]
    holds, evidence = pairwise_regularization.CLAIMS[0].check(pd.DataFrame(rows))
    assert holds and "lambda=0.1" in evidence
    rows = [r | {"intra_ratio_move": 0.2} for r in rows]
    assert not pairwise_regularization.CLAIMS[0].check(pd.DataFrame(rows))[0]


def test_coat_experiment_runs_with_intervals(tmp_path):
    require_data("coat", "test.ascii")
    paths = registry.run("pairwise-coat", out=tmp_path, quick=True, progress=False)
    df = pd.read_csv(paths[0])
    acc = df[df.table == "accuracy"]
    assert (acc.ci_low <= acc.value).all() and (acc.value <= acc.ci_high).all()
    verdicts = check_claims(pairwise_coat.CLAIMS, df)
    assert all(v["holds"] is not None for v in verdicts)
