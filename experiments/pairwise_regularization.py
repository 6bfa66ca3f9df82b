"""Pairwise regularization closes the inter-group gap (Beutel et al. 2019, Sec. 6.3, Fig. 1-3) on a
synthetic world.

World: :func:`ocef.reo.simulate.make_traffic_world` with a 20% item subgroup (group 1). The training
data D are 0/1 feedback on 30% of the (user, item) pairs, where a positive on a subgroup item is
recorded only with probability 0.7 (under-reporting): the production MF trained on D is biased
against the subgroup. Randomized pairs P (:func:`ocef.pairwise.simulate_pairs`, clicks from the
true preferences) are split by query into a training half (regularizer) and a held-out half
(evaluation), as in Sec. 6.1. The test model fine-tunes the production model on
MSE(D) + λ·|Corr_P(A, B)| over inter-group pairs, re-balanced by the clicked item's group (eq.
10-12). Held-out summaries (accuracies averaged over the z levels, ratio = not-subgroup /
subgroup) per λ and seed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments.claims import Claim, Verdict
from ocef.pairwise import KINDS, fit_mf_pairwise, pairwise_accuracy, simulate_pairs
from ocef.pairwise.datasets import score_pairs
from ocef.reo.simulate import make_traffic_world

NAME = "pairwise-regularization"
DESCRIPTION = "Sec. 6.3: pairwise regularizer shrinks the held-out inter-group gap (synthetic, 20% subgroup)"
DATASET = 'synthetic world (ocef.pairwise.simulate: 20% item subgroup, model biased against it)'

N_USERS, N_ITEMS, RANK = 300, 150, 4
UNDER_REPORT = 0.3


def _world(seed: int):
    rng = np.random.default_rng([seed, 0])
    world = make_traffic_world(N_USERS, N_ITEMS, 2, group_shares=[0.8, 0.2], positive_rate=0.3,
                               preference_scale=4.0, rank=RANK, rng=rng)
    obs = rng.random(world.preferences.shape) < 0.3
    u, i = np.nonzero(obs)
    y = (rng.random(u.size) < world.preferences[u, i]).astype(float)
    y[(world.item_groups[i] == 1) & (rng.random(u.size) < UNDER_REPORT)] = 0.0   # biased training labels
    ratings = pd.DataFrame({"user": u, "item": i, "rating": y})
    sim = simulate_pairs(world, n_requests=80_000, p_pair=0.5, n_levels=2, rng=rng, truth=False)
    pairs = sim.pairs
    queries = pairs["query"].unique()
    train_q = rng.choice(queries, queries.size // 2, replace=False)
    is_train = pairs["query"].isin(train_q).to_numpy()
    return ratings, pairs[is_train].reset_index(drop=True), pairs[~is_train].reset_index(drop=True)


def evaluate(scores: np.ndarray, held_out: pd.DataFrame) -> dict:
    """Held-out summaries of a users × items score matrix."""
    te = score_pairs(held_out, scores, user="user")
    res = pairwise_accuracy(te, n_resamples=0, subgroup=1)
    sm = res.summary().set_index("kind")
    tot = res.counts.total
    out = {"n_pairs": res.n_pairs,
           "accuracy_pooled": float((tot[..., 2].sum() + 0.5 * tot[..., 1].sum()) / tot.sum())}
    for kind in KINDS:
        out[f"{kind}_ratio"] = sm.ratio[kind]
        out[f"{kind}_accuracy_0"] = sm.accuracy_0[kind]
        out[f"{kind}_accuracy_1"] = sm.accuracy_1[kind]
    return out


def one_seed(seed: int, lams, epochs: int) -> pd.DataFrame:
    ratings, train_pairs, test_pairs = _world(seed)
    base = fit_mf_pairwise(ratings, None, lam=0.0, n_users=N_USERS, n_items=N_ITEMS, rank=RANK, l2=3e-4,
                           epochs=200, lr=0.05, rng=seed)
    rows = []
    for lam in lams:
        model = base if lam == 0 else fit_mf_pairwise(
            ratings, train_pairs, lam=lam, n_users=N_USERS, n_items=N_ITEMS, l2=3e-4, epochs=epochs, lr=0.01,
            pair_user="user", subgroup=1, init=base, kind="inter", rng=seed)
        row = {"seed": seed, "lam": lam, **evaluate(model.scores(), test_pairs)}
        row["train_corr"] = float(model.history["corr"].iloc[-1]) if lam else np.nan
        rows.append(row)
    df = pd.DataFrame(rows)
    b = df[df.lam == 0].iloc[0]
    df["inter_gap_shrink"] = 1 - (df.inter_ratio - 1).abs() / abs(b.inter_ratio - 1)
    df["intra_ratio_move"] = (df.intra_ratio - b.intra_ratio).abs()
    df["accuracy_drop"] = b.accuracy_pooled - df.accuracy_pooled
    return df


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    lams = [0.0, 0.03, 0.1, 0.3] if quick else [0.0, 0.01, 0.03, 0.1, 0.3, 1.0]
    seeds = [seed + k for k in range(2 if quick else 5)]
    epochs = 100 if quick else 150
    config = {"lams": lams, "seeds": seeds, "epochs": epochs}
    df = run_parts(out_dir, config, seeds, lambda s: one_seed(s, lams, epochs), progress=progress, desc=NAME)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, out_dir / f"{NAME}.png"))
    return paths


def _means(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby("lam")[["inter_gap_shrink", "intra_ratio_move", "accuracy_drop", "inter_ratio",
                              "intra_ratio", "overall_ratio", "accuracy_pooled"]].mean()


def _best(df: pd.DataFrame):
    m = _means(df).drop(index=0.0, errors="ignore")
    ok = m[(m.inter_gap_shrink >= 0.5) & (m.intra_ratio_move <= 0.05) & (m.accuracy_drop <= 0.02)]
    return m, ok


def _check(df: pd.DataFrame):
    m, ok = _best(df)
    lam = ok.inter_gap_shrink.idxmax() if len(ok) else m.inter_gap_shrink.idxmax()
    r = m.loc[lam]
    ev = (f"lambda={lam:g}: held-out |inter ratio - 1| shrinks by {r.inter_gap_shrink:.0%} "
          f"(ratio {r.inter_ratio:.3f}), intra ratio moves {r.intra_ratio_move:.3f}, overall "
          f"accuracy drop {r.accuracy_drop:+.4f} (mean over seeds); thresholds met at "
          f"lambda in {[float(v) for v in sorted(ok.index.tolist())]}")
    if len(ok) > 0:
        return Verdict("holds", ev, None, float(r.inter_gap_shrink))
    return Verdict("inconclusive", ev, "a threshold is missed on the means over seeds (no interval tested)",
                   float(r.inter_gap_shrink))


CLAIMS = [Claim("Sec. 6.3, Fig. 1-3",
                "Pairwise regularization over inter-group pairs closes the inter-group gap (|ratio - 1| shrinks "
                ">= 50%) while the intra-group ratio moves <= 0.05 and overall accuracy drops <= 0.02",
                _check, test="seed means against the thresholds (point comparison)", paper_value=0.93,
                paper_source="Sec. 6.3: the inter-group advantage falls from 35.6% to 2.6% (gap shrinks by 93%)",
                reason_if_false="a threshold is missed on the means over seeds (no interval tested)")]


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    g = df.groupby("lam")
    lams = np.array(sorted(df.lam.unique()))
    x = np.arange(lams.size)
    fig, axes = plotting.subplots(1, 2, figsize=(11, 4))
    for kind, colour in (("overall", "tab:blue"), ("intra", "tab:green"), ("inter", "tab:red")):
        mean, sd = g[f"{kind}_ratio"].mean().loc[lams], g[f"{kind}_ratio"].std().loc[lams]
        axes[0].errorbar(x, mean, yerr=sd, fmt="o-", capsize=4, color=colour, label=f"{kind} ratio")
    axes[0].axhline(1, color="black", lw=0.7)
    axes[0].set_xticks(x, [f"{v:g}" for v in lams])
    axes[0].set_xlabel(r"$\lambda$ (weight of |Corr(A, B)|)")
    axes[0].set_ylabel("held-out accuracy ratio (not subgroup / subgroup)")
    axes[0].set_title("Held-out pairwise accuracy ratios (mean ± sd over seeds)", fontsize=10)
    axes[0].legend(fontsize=8)
    for col, colour, label in (("inter_gap_shrink", "tab:red", "inter |ratio-1| shrink (>= 0.5)"),
                               ("intra_ratio_move", "tab:green", "intra ratio move (<= 0.05)"),
                               ("accuracy_drop", "tab:blue", "overall accuracy drop (<= 0.02)")):
        mean, sd = g[col].mean().loc[lams], g[col].std().loc[lams]
        axes[1].errorbar(x, mean, yerr=sd, fmt="o-", capsize=4, color=colour, label=label)
    for h in (0.5, 0.05, 0.02):
        axes[1].axhline(h, color="gray", ls=":", lw=0.8)
    axes[1].set_xticks(x, [f"{v:g}" for v in lams])
    axes[1].set_xlabel(r"$\lambda$")
    holds = _check(df).verdict == "holds"
    axes[1].set_title(("thresholds met" if holds else "thresholds NOT met") + f" ({df.seed.nunique()} seeds)",
                      fontsize=10)
    axes[1].legend(fontsize=8)
    fig.suptitle("Pairwise regularization (Beutel et al. 2019, Sec. 6.3) on a synthetic world with a 20% subgroup under-"
                 "reported in training", fontsize=10)
    return save_figure(fig, path)
