"""Shared set-up of the FairRec experiments (Guo et al. 2023, Sec. 4): models, oracles, accuracy, plots."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ocef.fairrec.unfairness import METRICS

#: numpy recommenders tested in every run (the deep ones join full runs when torch is installed).
MODELS: tuple[str, ...] = ("logmf", "fm")
#: Smallest valid group on ML-100K (specs/seeds-002-004.md: with 1, UF_mrr reaches 1.0 on singletons).
MIN_USERS = 5
ATTRIBUTES = ("gender", "age", "occupation")
#: Sec. 4.2: for <= 1,000 groups, epsilon in [0.1, 0.2] and n_it in [5, 10].
EPSILON = 0.2
N_ITER = 10
METHOD_LABELS = {"themis": "Themis", "testsgd-0.01": "TestSGD θ=0.01", "testsgd-0.005": "TestSGD θ=0.005",
                 "fairrec": "FairRec", "vanilla": "vanilla PSO", "themis-random": "Themis (random subset)"}


def models_for(quick: bool) -> tuple[str, ...]:
    """The numpy models, plus the deep ones (Wide&Deep, DeepFM, DCN) in full runs when torch is installed."""
    from ocef.fairrec.deep import torch_available
    from ocef.fairrec.models import DEEP_MODEL_NAMES

    return MODELS if quick or not torch_available() else MODELS + DEEP_MODEL_NAMES


def fitted(data_dir, models=MODELS) -> dict:
    """``{model name: FittedRecommender}`` on MovieLens (models cached on disk)."""
    from ocef.fairrec.pipeline import fit_movielens

    return {m: fit_movielens(m, data_dir) for m in models}


def oracles(fits: dict, attributes=ATTRIBUTES, min_users: int = MIN_USERS) -> dict:
    """``{(model, metric): GroupOracle}`` over precomputed scores."""
    return {(m, metric): f.oracle(metric, list(attributes), min_users=min_users)
            for m, f in fits.items() for metric in METRICS}


def run_oracle_experiment(out_dir, name: str, *, models, seeds, config: dict, measure, figure, data_dir,
                          progress: bool, assign: dict | None = None) -> list:
    """Run ``measure(oracle, model, metric, seeds)`` for every (model, metric) oracle on MovieLens,
    part by part (resumable), and write ``name.csv`` and ``name.png`` (``figure(df)``)."""
    from pathlib import Path

    from ocef.experiments._io import run_parts, save_figure, write_csv

    out_dir = Path(out_dir)
    ors = oracles(fitted(data_dir, models))
    config = {**config, "models": list(models), "seeds": list(seeds), "min_users": MIN_USERS}
    df = run_parts(out_dir, config, list(ors), lambda key: measure(ors[key], *key, seeds),
                   progress=progress, desc=name)
    if assign:
        df = df.assign(**assign)
    csv = write_csv(df, out_dir / f"{name}.csv")
    return [csv, save_figure(figure(df), out_dir / f"{name}.png")]


def sweep(oracle, model: str, metric: str, seeds, settings, methods=(("dpso", "fairrec"),)) -> pd.DataFrame:
    """One row per setting, seed and method: ``settings`` = ``[(search kwargs, extra columns), ...]``,
    ``methods`` = ``[(search method, name in the CSV), ...]``; accuracy against Themis' UF."""
    from ocef.fairrec.search import search

    opt = search(oracle, "exhaustive", test=None).uf
    rows = []
    for kwargs, extra in settings:
        for s in seeds:
            for method, name in methods:
                rows.append(row(model, metric, name, s, search(oracle, method, test=None, rng=s, **kwargs), opt, **extra))
    return pd.DataFrame(rows)


def row(model: str, metric: str, method: str, seed, res, uf_opt: float, **extra) -> dict:
    return {"model": model, "metric": metric, "method": method, "seed": seed, "uf": res.uf,
            "uf_themis": uf_opt, "accuracy": res.uf / uf_opt if uf_opt > 0 else np.nan,
            "n_evaluations": res.n_evaluations, "n_users_queried": res.n_users_queried,
            "n_groups": res.n_groups, "n_cells": res.n_cells, "seconds": res.seconds,
            "min_users": res.min_users, "uf_lower": res.uf_lower, "p_value": res.p_value,
            "significant": res.significant, "confidence": res.confidence, "test": res.test,
            "n_resamples": res.n_resamples,
            "advantaged": res.advantaged.name() if res.advantaged is not None else None,
            "disadvantaged": res.disadvantaged.name() if res.disadvantaged is not None else None, **extra}


def panel_grid(n: int, width: float, height: float, ncols: int = 3):
    """A figure with ``n`` panels in rows of at most ``ncols``; returns ``(fig, axes)`` (flat list, unused hidden)."""
    from ocef.experiments import plotting

    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plotting.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def accuracy_bars(ax, df: pd.DataFrame, methods, title: str) -> None:
    """Grouped bars of the mean ``accuracy`` of ``df``'s rows: one group per metric, one bar per method."""
    table = df.groupby(["metric", "method"])["accuracy"].mean().unstack("method")
    metrics = [m for m in METRICS if m in table.index]
    width = 0.8 / len(methods)
    x = np.arange(len(metrics))
    for j, meth in enumerate(methods):
        ax.bar(x + j * width - 0.4 + width / 2, table.loc[metrics, meth], width, label=METHOD_LABELS.get(meth, meth))
    ax.set_xticks(x, [f"UF_{m}" for m in metrics])
    ax.axhline(1.0, color="k", lw=0.6)
    ax.axhline(0.9, color="gray", lw=0.6, ls="--")
    ax.set_ylabel("testing accuracy (UF / UF of Themis)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, axis="y")
