"""Fuzz campaign over every command and Python front door (issue 23): bad and extreme inputs, as a
careless user and an attacker would give them, each case run in a forked child with a time limit
and a memory cap, then classified.

Classes
-------
- ``clear error``: exit status 2 with one line naming the fuzzed option (or file), or an
  :mod:`ocef.errors` exception naming the fuzzed parameter.
- ``unclear message``: the same, but the line names neither the option nor its value.
- ``handled``: a valid (or extreme but valid) input answered normally.
- ``silent answer``: an input outside the option's documented domain answered without an error.
- ``traceback``: exit status 1 (a bug: traceback + "please report"), any other status, or an
  exception that is not OCEF's own (KeyError, IndexError, MemoryError, OverflowError, ...).
- ``hang``: still running at the time limit (default 60 s).
- ``crash``: the child died without a word (killed by a signal, a segfault, the memory cap) or raised
  something that is not an ``Exception`` (``SystemExit``, ``KeyboardInterrupt``) from a Python door.
- ``valid input refused``: an input inside the option's documented domain (``expect="ok"``)
  answered with an error, clear or not.

Run it (anyone can; nothing but the package and its test extras is needed)::

    nice python benchmarks/fuzz_campaign.py                 # every case, 2 workers
    nice python benchmarks/fuzz_campaign.py --sample 60     # a small deterministic sample
    python benchmarks/fuzz_campaign.py --only bandit --show traceback,silent

It prints the counts per class and per command (or front door), and the cases of the classes
given with ``--show``. ``tests/test_fuzz_sample.py`` runs a small sample of it in the suite.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import math
import multiprocessing as mp
import os
import resource
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SILENT = "silent answer: a null value with no reason"     # returned by a case that checks its answer itself
CLASSES = ("clear error", "handled", "unclear message", "silent answer", "traceback", "hang", "crash",
           "valid input refused")
MEMORY_CAP = 6 * 2**30          # address space of a case (numba reserves some)


@dataclass
class Case:
    door: str                    # command name or Python front door
    label: str                   # what was fuzzed, e.g. "--alpha=nan"
    names: tuple                 # what a clear message must name (any of them)
    expect: str                  # "error", "ok" or "either"
    argv: list | None = None     # a CLI case
    call: object = None          # a Python case: a zero-argument callable (built in the child)
    extra: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)   # environment variables set in the child (issue 28)


# ------------------------------------------------------------------------------------ inputs
def make_inputs(root: Path) -> dict:
    """Valid and broken input files under ``root``."""
    import pandas as pd

    rng = np.random.default_rng(0)
    f = {}
    rho = rng.uniform(size=(12, 5))
    probs = rng.dirichlet(np.ones(5), size=12)
    labels = np.repeat([0, 1, 2], 4)
    for name, arr in (("rho", rho), ("probs", probs), ("groups", labels), ("scores", rng.normal(size=(12, 5)))):
        np.save(root / f"{name}.npy", arr)
        f[name] = root / f"{name}.npy"
    bad = {
        "empty.npy": np.zeros((0, 5)), "nan.npy": np.where(rho > 0.9, np.nan, rho), "complex.npy": rho + 0.1j,
        "strings.npy": rho.astype(str), "big.npy": rho * 1e308, "neg.npy": -rho, "row.npy": rho[0],
        "huge_labels.npy": np.r_[labels[:-1], 10**12], "float_labels.npy": labels + 0.5,
        "bool.npy": rho > 0.5, "wrong_shape.npy": rho[:, :3], "three_d.npy": rho[:, None, :],
        "one_group.npy": np.zeros(12, int), "neg_labels.npy": labels - 1, "inf.npy": np.where(rho > 0.9, np.inf, rho),
    }
    for name, arr in bad.items():
        np.save(root / name, arr)
        f[name] = root / name
    (root / "empty.csv").write_text("")
    (root / "garbage.npy").write_bytes(b"\x93NUMPY garbage \x00\xff" * 10)
    (root / "text.csv").write_text("a,b\nx,y\n")
    (root / "dir.npy").mkdir()
    for name in ("empty.csv", "garbage.npy", "text.csv", "dir.npy"):
        f[name] = root / name
    f["missing.npy"] = root / "missing.npy"
    # REO logs
    n = 3000
    d = pd.DataFrame({"Y": rng.integers(0, 2, n), "S": rng.integers(0, 3, n), "day": rng.integers(0, 3, n)})
    r = pd.DataFrame({"Y": rng.integers(0, 2, n), "S": rng.integers(0, 3, n), "day": rng.integers(0, 3, n)})
    d.to_csv(root / "default.csv", index=False)
    r.to_csv(root / "random.csv", index=False)
    d.to_parquet(root / "default.parquet")
    bad_logs = {
        "no_group.csv": d[d["S"] != 2], "labels2.csv": d.assign(Y=d["Y"] * 2), "nan_label.csv": d.assign(
            Y=d["Y"].where(d.index % 7 != 0)), "no_S.csv": d.drop(columns="S"), "str_label.csv": d.assign(Y="yes"),
        "one_row.csv": d.iloc[:1], "no_pos.csv": d.assign(Y=0), "float_label.csv": d.assign(Y=d["Y"] + 0.5),
    }
    for name, frame in bad_logs.items():
        frame.to_csv(root / name, index=False)
        f[name] = root / name
    data = (root / "default.parquet").read_bytes()
    (root / "half.parquet").write_bytes(data[: len(data) // 2])
    (root / "header_only.csv").write_text("Y,S\n")
    for name in ("default.csv", "random.csv", "default.parquet", "half.parquet", "header_only.csv"):
        f[name] = root / name
    # pairs
    m = 400
    pairs = pd.DataFrame({"query": np.arange(m), "j": rng.integers(0, 50, m), "jp": rng.integers(50, 100, m),
                          "s_j": rng.integers(0, 2, m), "s_jp": rng.integers(0, 2, m),
                          "score_j": rng.normal(size=m), "score_jp": rng.normal(size=m)})
    pairs.to_csv(root / "pairs.csv", index=False)
    pairs.drop(columns="s_jp").to_csv(root / "pairs_missing.csv", index=False)
    pairs.iloc[:0].to_csv(root / "pairs_empty.csv", index=False)
    pairs.assign(score_j=np.nan).to_csv(root / "pairs_nan.csv", index=False)
    for name in ("pairs.csv", "pairs_missing.csv", "pairs_empty.csv", "pairs_nan.csv"):
        f[name] = root / name
    # user metrics for fairrec
    u = 300
    users = pd.DataFrame({"gender": rng.integers(0, 2, u), "age": rng.integers(0, 3, u),
                          "occupation": rng.integers(0, 4, u), "mrr": rng.uniform(size=u)})
    users.to_csv(root / "users.csv", index=False)
    users.assign(mrr="x").to_csv(root / "users_str.csv", index=False)
    users.assign(mrr=np.nan).to_csv(root / "users_nan.csv", index=False)
    users.iloc[:0].to_csv(root / "users_empty.csv", index=False)
    users.assign(gender=rng.integers(0, 6 * 10**9, u)).to_csv(root / "users_codes.csv", index=False)
    users.assign(mrr2=1 - users.mrr).set_axis(["gender", "age", "occupation", "mrr", "mrr"], axis=1).to_csv(
        root / "users_dup.csv", index=False)                  # a repeated metric column (pandas: mrr, mrr.1)
    for name in ("users.csv", "users_str.csv", "users_nan.csv", "users_empty.csv", "users_codes.csv",
                 "users_dup.csv"):
        f[name] = root / name
    # recmetrics
    np.save(root / "rm_scores.npy", rng.normal(size=(40, 20)))
    np.save(root / "rm_groups.npy", np.repeat([0, 1], 20))
    np.save(root / "rm_truth.npy", (rng.uniform(size=(40, 20)) > 0.7).astype(float))
    for name in ("rm_scores.npy", "rm_groups.npy", "rm_truth.npy"):
        f[name] = root / name
    # issue 28: the newest surfaces
    truth02 = (rng.uniform(size=(40, 20)) > 0.7) * 2.0
    np.save(root / "rm_truth02.npy", truth02)
    users.assign(mrr=users.mrr * 2.32).to_csv(root / "users_big.csv", index=False)
    users.assign(mrr=np.where(np.arange(u) % 3 == 0, np.inf, users.mrr)).to_csv(root / "users_inf.csv", index=False)
    for name in ("rm_truth02.npy", "users_big.csv", "users_inf.csv"):
        f[name] = root / name
    reports = {"rep_badjson": "{bad", "rep_list": "[]", "rep_noexp": '{"experiments": 3}',
               "rep_item": '{"experiments": [1]}', "rep_unknown": '{"experiments": [{"name": "nope", "status": "ok"}]}',
               "rep_fields": '{"experiments": [{"name": "x", "status": "skipped"}]}'}
    for name, body in reports.items():
        (root / name).mkdir()
        (root / name / "summary.json").write_text(body)
        f[name] = root / name
    (root / "rep_binary").mkdir()
    (root / "rep_binary" / "summary.json").write_bytes(b"\xff\xfe\x00")
    f["rep_binary"] = root / "rep_binary"
    ml = root / "ml_broken" / "ml-100k"
    ml.mkdir(parents=True)
    (ml / "u.data").write_text("1\t1\t5\t881250949\n2\t1")
    (ml / "u.user").write_bytes(b"garbage\x00\xff\n")
    (ml / "u.item").write_text("1|Toy Story (1995)|01-Jan-1995||http://x|" + "|".join("0" * 18) + "|1\n")
    f["ml_broken"] = root / "ml_broken"
    (root / "ml_empty" / "ml-100k").mkdir(parents=True)
    for fn in ("u.data", "u.user", "u.item"):
        (root / "ml_empty" / "ml-100k" / fn).write_text("")
    f["ml_empty"] = root / "ml_empty"
    import zipfile
    with zipfile.ZipFile(root / "default.zip", "w") as z:
        z.write(root / "default.csv", "default.csv")
    f["default.zip"] = root / "default.zip"
    (root / "a_file").write_text("x")
    f["a_file"] = root / "a_file"
    # ocef mitigate (candidates) and ocef offpolicy (a logged policy, a target policy)
    nu = 70
    cand = pd.DataFrame({"user": np.repeat(np.arange(nu), 10), "item": np.tile(np.arange(10), nu),
                         "score": rng.random(nu * 10)})
    cand["genre"] = np.where(cand["item"] < 4, "drama", "other")
    cand.to_csv(root / "cand.csv", index=False)
    cand.sample(frac=0.3, random_state=1)[["user", "item"]].assign(relevance=1).to_csv(root / "rel.csv", index=False)
    cand.assign(score=np.where(cand.index % 7 == 0, np.nan, cand.score)).to_csv(root / "cand_nan.csv", index=False)
    cand.assign(score=np.where(cand.index % 7 == 0, np.inf, cand.score)).to_csv(root / "cand_inf.csv", index=False)
    cand.assign(genre="drama").to_csv(root / "cand_onegroup.csv", index=False)
    pd.concat([cand, cand.iloc[:5]]).to_csv(root / "cand_dup.csv", index=False)
    cand.drop(columns="score").to_csv(root / "cand_noscore.csv", index=False)
    n = 3000
    log = pd.DataFrame({"user": rng.integers(0, 300, n), "item": rng.integers(0, 6, n)})
    log["propensity"] = 1 / 6
    log["reward"] = (rng.random(n) < 0.1 + 0.05 * log["item"]).astype(int)
    log["genre"] = np.array(["a", "a", "b", "b", "b", "c"])[log["item"]]
    log.to_csv(root / "oplog.csv", index=False)
    pd.DataFrame({"item": range(6), "probability": [0.1, 0.1, 0.2, 0.2, 0.2, 0.2]}).to_csv(root / "target.csv", index=False)
    pd.DataFrame({"item": range(6), "probability": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]}).to_csv(root / "target_sum3.csv",
                                                                                            index=False)
    pd.DataFrame({"item": range(6), "probability": [-0.1, 0.3, 0.2, 0.2, 0.2, 0.2]}).to_csv(root / "target_neg.csv",
                                                                                             index=False)
    log.assign(propensity=0.0).to_csv(root / "oplog_p0.csv", index=False)
    log.assign(propensity=np.nan).to_csv(root / "oplog_pnan.csv", index=False)
    log.assign(propensity=2.0).to_csv(root / "oplog_p2.csv", index=False)
    log.assign(reward=np.inf).to_csv(root / "oplog_rinf.csv", index=False)
    log.assign(reward=-1).to_csv(root / "oplog_rneg.csv", index=False)
    log.iloc[:0].to_csv(root / "oplog_empty.csv", index=False)
    log.drop(columns="propensity").to_csv(root / "oplog_nop.csv", index=False)
    # ocef exposure (top-k logs; the surface of the second campaign of issue 28)
    nu, kk = 60, 5
    rk = pd.DataFrame({"user": np.repeat(np.arange(nu), kk), "item": rng.integers(0, 40, nu * kk),
                       "rank": np.tile(np.arange(1, kk + 1), nu)})
    rk = rk.drop_duplicates(["user", "item"]).copy()
    rk["rank"] = rk.groupby("user").cumcount() + 1
    rk["relevance"] = (rng.random(len(rk)) < 0.3).astype(int)
    rk["genre"] = np.where(rk["item"] < 10, "pop", "niche")
    rk["gender"] = np.where(rk["user"] % 3 == 0, "f", "m")
    rk["n_relevant"] = rk.groupby("user")["relevance"].transform("sum") + 1
    rk.to_csv(root / "rank.csv", index=False)
    rk.to_csv(root / "[x].csv", index=False)
    bad_rank = {
        "rank_relnan.csv": rk.assign(relevance=np.where(rk.index % 5 == 0, np.nan, rk.relevance)),
        "rank_relinf.csv": rk.assign(relevance=np.where(rk.index % 5 == 0, np.inf, rk.relevance)),
        "rank_relbig.csv": rk.assign(relevance=rk.relevance * 1e308),
        "rank_relneg.csv": rk.assign(relevance=-rk.relevance),
        "rank_nrelneg.csv": rk.assign(n_relevant=-1),
        "rank_nrelnan.csv": rk.assign(n_relevant=np.nan),
        "rank_bigrank.csv": rk.assign(rank=np.where(rk.index == 3, 10**9, rk["rank"])),
        "rank_1e400.csv": rk.assign(rank=rk["rank"].astype(str).where(rk.index != 3, "1e400")),
        "rank_dupitem.csv": pd.concat([rk, rk.iloc[:1].assign(rank=kk + 1)]),
        "rank_norank.csv": rk.drop(columns="rank"),
        "rank_nogenre.csv": rk.drop(columns="genre"),
        "rank_empty.csv": rk.iloc[:0],
        "rank_strrank.csv": rk.assign(rank="a"),
        "rank_userchange.csv": rk.assign(gender=np.where(rk.index % 2 == 0, "f", "m")),
        "rank_intgender.csv": rk.assign(gender=(rk.user % 3 == 0).astype(int)),
    }
    for name, frame in bad_rank.items():
        frame.to_csv(root / name, index=False)
    rk[["item", "genre"]].drop_duplicates("item").to_csv(root / "rank_items.csv", index=False)
    rk[["user", "item", "relevance"]].to_csv(root / "rank_judg.csv", index=False)
    rk[["user", "item"]].assign(relevance=-1).to_csv(root / "rank_judgneg.csv", index=False)
    for name in ("rank.csv", "[x].csv", *bad_rank, "rank_items.csv", "rank_judg.csv", "rank_judgneg.csv"):
        f[name] = root / name
    for name in ("cand.csv", "rel.csv", "cand_nan.csv", "cand_inf.csv", "cand_onegroup.csv", "cand_dup.csv",
                 "cand_noscore.csv", "oplog.csv", "target.csv", "target_sum3.csv", "target_neg.csv", "oplog_p0.csv",
                 "oplog_pnan.csv", "oplog_p2.csv", "oplog_rinf.csv", "oplog_rneg.csv", "oplog_empty.csv",
                 "oplog_nop.csv"):
        f[name] = root / name
    return f


# ------------------------------------------------------------------------------------ domains
def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def unit_open(v):
    x = _num(v)
    return x is not None and 0 < x < 1


def unit_half(v):
    x = _num(v)
    return x is not None and 0 < x <= 1


def int_in(lo, hi):
    def ok(v):
        try:
            x = int(str(v))
        except ValueError:
            return False
        return lo <= x <= hi
    return ok


def anything(v):
    return None        # no judgement: an answer is "handled", an error must be clear


NUMBERS = ["0", "-1", "1", "0.5", "1.5", "2", "nan", "inf", "-inf", "1e308", "-1e308", "1e-300", "1e-320",
           "1000000000000", "99999999999999999999999", "abc", "", "0x10", "1,2", " 3 ", "1e3", "0.9999999999999999",
           "1_000"]


def cli_cases(f: dict, url: str | None) -> list[Case]:
    cases: list[Case] = []

    def add(door, base, option, values, domain, names=None):
        for v in values:
            argv = [door] + [str(a) for a in base] + [option, str(v)]
            valid = domain(v)
            expect = "either" if valid is None else ("ok" if valid else "error")
            stem = option.lstrip("-")
            cases.append(Case(door, f"{option}={v!s}"[:60], tuple(names or (option, stem.replace("-", "_"), stem,
                                                                            stem.rstrip("s"))), expect, argv))

    aliases = {"--policy-probs": ("probs", "policy"), "--groups": ("group",), "--default": ("default",),
               "--random": ("random",), "--control": ("control",), "--treatment": ("treatment",),
               "--pairs": ("pairs",), "--user-metrics": ("metric", "user-metrics table"), "--scores": ("scores",),
               "--rho": ("rho",)}

    def add_file(door, base, option, files, names=None):
        for name in files:
            argv = [door] + [str(a) for a in base] + [option, str(f[name])]
            cases.append(Case(door, f"{option}={name}", tuple(names or (option, name) + aliases.get(option, ())),
                              "error", argv))

    bandit = ["--means", "0.6,0.3,0.3", "--trials", "2", "--max-steps", "300", "--json"]
    add("bandit", bandit, "--alpha", NUMBERS, unit_half)
    add("bandit", bandit, "--delta", NUMBERS, unit_open)
    add("bandit", bandit, "--epsilon", NUMBERS, unit_half)
    add("bandit", bandit, "--trials", NUMBERS, int_in(1, 10**6))
    add("bandit", bandit, "--max-steps", NUMBERS, anything)      # a cap: 10**12 is fine when runs stop early
    add("bandit", bandit, "--group-size", NUMBERS, int_in(1, 10**6))
    add("bandit", bandit, "--seed", NUMBERS, int_in(0, 10**100))
    add("bandit", bandit, "--engine", ["numba", "numpy", "ask-tell", "gpu", ""], lambda v: v in ("numba", "numpy", "ask-tell"))
    add("bandit", ["--trials", "2", "--max-steps", "300"], "--means",
        ["0.5,1.5", "0.5", "", "0.5,,0.3", "nan,0.3", "0.5,-0.1", "a,b", "0.5,0.3,0.3", "1e308,0", "0.6,0.3+1j"],
        lambda v: v == "0.5,0.3,0.3")
    add("bandit", ["--instance", "1", "--trials", "2", "--max-steps", "300"], "--n-arms", NUMBERS, int_in(1, 10**5))
    add("bandit", ["--means", "0.5,0.3", "--trials", "2"], "--n-arms", ["3", "9"], lambda v: False)
    for combo in (["--alpha", "1e-300", "--delta", "1e-300", "--epsilon", "1e-300", "--max-steps", "1000000000000"],
                  ["--trials", "100000000", "--max-steps", "1000000"]):
        cases.append(Case("bandit", " ".join(combo)[:60], ("max_steps", "trials", "limit"), "error",
                          ["bandit", "--means", "0.5,0.4"] + combo))

    envy = ["--rho", f["rho"], "--policy-probs", f["probs"], "--groups", f["groups"], "--json"]
    add("envy", envy, "--epsilon", NUMBERS, lambda v: (_num(v) is not None and 0 <= _num(v) <= 1))
    add("envy", envy, "--matching", ["transport", "average", "greedy"], lambda v: v != "greedy")
    base_files = ["--policy-probs", f["probs"], "--groups", f["groups"], "--json"]
    bad_arrays = ["empty.npy", "nan.npy", "complex.npy", "strings.npy", "big.npy", "neg.npy", "row.npy", "bool.npy",
                  "wrong_shape.npy", "inf.npy", "empty.csv", "garbage.npy", "text.csv", "dir.npy", "missing.npy"]
    add_file("envy", base_files, "--rho", bad_arrays)
    add_file("envy", ["--rho", f["rho"], "--groups", f["groups"], "--json"], "--policy-probs", bad_arrays)
    add_file("envy", ["--rho", f["rho"], "--policy-probs", f["probs"], "--json"], "--groups",
             ["huge_labels.npy", "float_labels.npy", "one_group.npy", "neg_labels.npy", "empty.csv", "garbage.npy",
              "missing.npy", "rho", "dir.npy"])
    syn = ["--dataset", "synthetic", "--json"]
    add("envy", syn, "--n-users", NUMBERS, int_in(4, 10**5))        # the synthetic world's 4 user groups
    add("envy", syn, "--n-items", NUMBERS, int_in(5, 10**5))        # ... and 5 item categories
    add("envy", syn, "--factors", NUMBERS, int_in(1, 10**4))
    add("envy", syn, "--beta", NUMBERS, lambda v: (_num(v) is not None and 0 < _num(v) < 1e6) or None)
    add("envy", syn, "--k", NUMBERS, anything)
    add("envy", syn, "--train-fraction", NUMBERS, anything)

    audit = ["--rho", f["rho"], "--policy-probs", f["probs"], "--groups", f["groups"], "--max-steps", "300",
             "--json", "--no-progress"]
    add("audit", audit, "--alpha", NUMBERS, unit_half)
    add("audit", audit, "--delta", NUMBERS, unit_open)
    add("audit", audit, "--epsilon", NUMBERS, unit_half)
    add("audit", audit, "--trials", NUMBERS, int_in(1, 10**4))
    add("audit", audit, "--max-steps", NUMBERS, anything)
    add("audit", audit, "--group-size", NUMBERS, anything)
    add("audit", audit, "--engine", ["numba", "numpy", "ask-tell", "x"], lambda v: v != "x")
    add("audit", audit, "--out", ["", "/", "/proc/nope/x.csv", str(f["dir.npy"]), "/dev/null/x"], lambda v: False)
    add_file("audit", base_files + ["--max-steps", "300", "--no-progress"], "--rho", bad_arrays)

    reo = ["--default", f["default.csv"], "--random", f["random.csv"], "--json"]
    add("reo", reo, "--confidence", NUMBERS, unit_open)
    add("reo", reo, "--interval", ["delta", "delta-full", "standard", "percentile", "bca", "x"], lambda v: v != "x")
    add("reo", reo + ["--interval", "percentile"], "--resamples", NUMBERS, anything)
    add("reo", reo, "--plan-epsilon", NUMBERS, anything)
    add("reo", reo, "--backend", ["duckdb", "pandas", "spark-x", ""], lambda v: v in ("duckdb", "pandas"))
    add("reo", reo, "--engine", ["duckdb", "pandas"], lambda v: False)   # removed in issue 27 (--backend)
    add("reo", reo, "--label", ["Y", "S", "nope", "", ",", "Y,Y"], anything)
    add("reo", reo, "--group", ["S", "Y", "nope", "", "day"], anything)
    add("reo", reo, "--by", ["day", "nope", "Y"], anything)
    add("reo", reo, "--fail-above", NUMBERS, anything)
    add_file("reo", ["--random", f["random.csv"], "--json"], "--default",
             ["labels2.csv", "nan_label.csv", "no_S.csv", "str_label.csv", "half.parquet", "header_only.csv",
              "empty.csv", "missing.npy", "garbage.npy"])
    for name in ("no_pos.csv", "one_row.csv", "no_group.csv", "float_label.csv"):
        argv = ["reo", "--default", str(f["default.csv"]), "--random", str(f[name]), "--json"]
        cases.append(Case("reo", f"--random={name}", ("--random", name, "random"), "either", argv))

    ab = ["--control", f["default.csv"], "--treatment", f["default.csv"], "--random", f["random.csv"], "--json"]
    add("reo-ab", ab, "--interval", ["delta", "delta-shared", "partition", "standard", "percentile", "bca", "x"],
        lambda v: v != "x")
    add("reo-ab", ab + ["--interval", "partition"], "--folds", NUMBERS, anything)
    add("reo-ab", ab + ["--interval", "percentile"], "--resamples", NUMBERS, anything)
    add("reo-ab", ab, "--confidence", NUMBERS, unit_open)
    add_file("reo-ab", ["--treatment", f["default.csv"], "--random", f["random.csv"], "--json"], "--control",
             ["no_group.csv", "no_pos.csv", "labels2.csv", "no_S.csv", "half.parquet", "empty.csv"])

    pw = ["--pairs", f["pairs.csv"], "--resamples", "20", "--json"]
    add("pairwise", pw, "--resamples", NUMBERS, anything)
    add("pairwise", pw, "--confidence", NUMBERS, unit_open)
    add("pairwise", pw, "--cluster", ["query", "nope", ""], lambda v: v == "query")
    add("pairwise", pw, "--subgroup", ["0", "1", "7", "x"], anything)
    add_file("pairwise", ["--resamples", "20", "--json"], "--pairs",
             ["pairs_missing.csv", "pairs_empty.csv", "pairs_nan.csv", "empty.csv", "missing.npy"])

    rm = ["--scores", f["rm_scores.npy"], "--groups", f["rm_groups.npy"], "--json"]
    add("recmetrics", rm, "--k", NUMBERS, anything)
    add("recmetrics", rm, "--resamples", NUMBERS, anything)
    add("recmetrics", rm, "--confidence", NUMBERS, anything)
    add("recmetrics", rm, "--thresh", NUMBERS, anything)
    add_file("recmetrics", ["--groups", f["rm_groups.npy"], "--json"], "--scores",
             ["empty.npy", "complex.npy", "strings.npy", "garbage.npy", "missing.npy", "three_d.npy"])

    fr = ["--user-metrics", f["users.csv"], "--metric", "mrr", "--json"]
    add("fairrec", fr, "--epsilon", NUMBERS, anything)
    add("fairrec", fr, "--iters", NUMBERS, anything)
    add("fairrec", fr, "--min-users", NUMBERS, anything)
    add("fairrec", fr, "--top-n", NUMBERS, anything)
    add("fairrec", fr, "--max-cost", NUMBERS, anything)
    add("fairrec", fr, "--metric", ["mrr", "gender", "nope", ""], lambda v: v == "mrr")
    add("fairrec", fr, "--model", ["logmf", "fm", "x"], lambda v: False)        # applies to --dataset only
    add("fairrec", fr, "--k", ["3"], lambda v: False)
    add("fairrec", fr, "--split-seed", ["1"], lambda v: False)
    add("fairrec", fr, "--attributes", ["gender", "gender,gender", "nope", "", "mrr"], anything)
    add_file("fairrec", ["--metric", "mrr", "--json"], "--user-metrics",
             ["users_str.csv", "users_nan.csv", "users_empty.csv", "empty.csv", "missing.npy", "users_codes.csv",
              "users_dup.csv"], names=("--user-metrics", "metric", "attribute", "column"))

    # issue 28: FairRec inference options, recmetrics/pairwise uncertainty options, reproduce, environment
    add("fairrec", fr, "--confidence", NUMBERS, unit_open)
    add("fairrec", fr, "--test", ["auto", "permutation", "bound", "x"], lambda v: v != "x")
    add("fairrec", fr + ["--test", "permutation"], "--n-resamples", NUMBERS, anything)
    add("fairrec", fr, "--bounds", ["0,1", "1,0", "0", "nan,1", "0,inf", "a,b", "", "0,1,2", "-1e308,1e308"],
        lambda v: None if v in ("0,1", "-1e308,1e308") else False)
    add("fairrec", fr, "--method", ["dpso", "exhaustive", "testsgd", "vanilla", "x"], lambda v: v != "x")
    add("fairrec", fr, "--epsilon-base", ["cells", "groups", "x"], anything)
    add("fairrec", fr, "--max-evaluations", NUMBERS, anything)
    add("fairrec", fr, "--group-cost", NUMBERS, anything)
    add("fairrec", fr, "--theta", NUMBERS, anything)
    add_file("fairrec", ["--metric", "mrr", "--json"], "--user-metrics", ["users_inf.csv"],
             names=("--user-metrics", "metric", "bounds", "infinite", "mrr"))
    # a metric named mrr reaching 2.3: answered without the [0, 1] range assumed for mrr, with the reason
    cases.append(Case("fairrec", "--user-metrics=users_big.csv", ("--user-metrics",), "either",
                      ["fairrec", "--metric", "mrr", "--json", "--user-metrics", str(f["users_big.csv"])]))
    cases.append(Case("fairrec", "--bounds 0,1 on a metric reaching 2.3", ("bounds",), "error",
                      ["fairrec", "--user-metrics", str(f["users_big.csv"]), "--metric", "mrr", "--bounds", "0,1",
                       "--json"]))
    add("recmetrics", rm, "--interval", ["auto", "percentile", "basic", "x"], lambda v: v != "x")
    add("recmetrics", rm + ["--interval", "percentile"], "--resamples", NUMBERS, anything)
    add("recmetrics", rm + ["--simultaneous"], "--confidence", NUMBERS, anything)
    add("recmetrics", rm + ["--truth", f["rm_truth.npy"]], "--k", ["1", "5", "20", "21", "0"], anything)
    add_file("recmetrics", rm + ["--k", "5"], "--truth", ["rm_truth02.npy", "wrong_shape.npy", "nan.npy", "strings.npy"],
             names=("--truth", "truth"))
    add("pairwise", pw + ["--interval", "percentile"], "--resamples", NUMBERS,
        lambda v: None if _num(v) is None else (int_in(200, 10**6)(v) or _num(v) == 0 or None))
    add("pairwise", pw + ["--interval", "percentile", "--resamples", "200"], "--confidence", NUMBERS, anything)
    cases.append(Case("pairwise", "--interval percentile --resamples 1", ("resamples",), "error",
                      ["pairwise"] + [str(a) for a in pw] + ["--interval", "percentile", "--resamples", "1"]))
    for name in ("rep_badjson", "rep_list", "rep_noexp", "rep_item", "rep_unknown", "rep_fields", "rep_binary"):
        cases.append(Case("reproduce", f"--recheck --out {name}", ("summary.json",), "error",
                          ["reproduce", "--recheck", "--out", str(f[name])]))
    add("reproduce", ["--recheck"], "--out", ["", "/nonexistent-ocef-dir", str(f["a_file"])], lambda v: False,
        names=("--out", "summary.json", "folder"))
    add("reproduce", ["--list"], "--seed", ["0"], lambda v: True)
    cases.append(Case("reproduce", "unknown experiment", ("nope", "experiment"), "error", ["reproduce", "nope"]))
    # environment variables: a data root that is broken, missing or a file; a cache dir that is a file
    for var, value, names in (("OCEF_DATA_DIR", f["ml_broken"], ("MovieLens", "ml-100k", "u.")),
                              ("OCEF_DATA_DIR", f["ml_empty"], ("MovieLens", "ml-100k", "u.")),
                              ("OCEF_DATA_DIR", "/nonexistent-ocef-data", ("OCEF_DATA_DIR", "MovieLens", "not found")),
                              ("OCEF_DATA_DIR", f["a_file"], ("OCEF_DATA_DIR", "MovieLens", "not found")),
                              ("OCEF_DATA_DIR", "", ("OCEF_DATA_DIR", "MovieLens", "not found"))):
        expect = "either" if value == "" else "error"            # empty: unset, the default root
        cases.append(Case("env", f"{var}={Path(str(value)).name or repr(value)} fairrec --dataset", names, expect,
                          ["fairrec", "--dataset", "movielens", "--iters", "2", "--json"], env={var: str(value)}))
        cases.append(Case("env", f"{var}={Path(str(value)).name or repr(value)} recmetrics --dataset", names, expect,
                          ["recmetrics", "--dataset", "movielens", "--json"], env={var: str(value)}))
    for value in (f["a_file"], "/proc/nope-ocef-cache", ""):     # the FairRec model cache (default data root)
        cases.append(Case("env", f"OCEF_CACHE_DIR={Path(str(value)).name or repr(value)} fairrec --dataset",
                          ("OCEF_CACHE_DIR", "cache"), "either",
                          ["fairrec", "--dataset", "movielens", "--iters", "2", "--json"],
                          env={"OCEF_CACHE_DIR": str(value)}))
    add_file("reo", ["--random", f["random.csv"], "--json"], "--default", ["default.zip"])

    # ocef mitigate and ocef offpolicy (merged from main near the end of issue 28)
    mg = ["--candidates", f["cand.csv"], "--item-group", "genre", "--method", "fair", "--json"]
    add("mitigate", mg, "--k", NUMBERS, anything)
    add("mitigate", mg, "--confidence", NUMBERS, lambda v: _num(v) is not None and 0.5 < _num(v) < 1)   # documented
    add("mitigate", mg, "--margin", NUMBERS, anything)
    add("mitigate", mg, "--patience", NUMBERS, anything)
    add("mitigate", mg, "--samples", NUMBERS, anything)
    add("mitigate", mg, "--protected", ["drama", "other", "nope", ""], anything)
    add("mitigate", mg, "--target", ["equal", "merit", "x"], lambda v: v == "equal")
    add("mitigate", mg, "--grid", ["p=0.5", "p=2", "p=nan", "x=1", "", "p", "p=abc", "nonsense"], anything)
    add("mitigate", mg, "--memory-limit", ["2GB", "0", "-1GB", "x", "1e400GB"], anything)
    add("mitigate", ["--candidates", f["cand.csv"], "--item-group", "genre", "--json"], "--method",
        ["fair", "detconstsort", "epsilon-greedy", "calibrated", "lp", "expohedron", "boost", "x"], lambda v: v != "x")
    add_file("mitigate", ["--item-group", "genre", "--method", "fair", "--json"], "--candidates",
             ["cand_nan.csv", "cand_inf.csv", "cand_onegroup.csv", "cand_dup.csv", "cand_noscore.csv", "empty.csv",
              "missing.npy", "garbage.npy"], names=("--candidates", "candidates", "score", "genre", "group", "item"))
    add_file("mitigate", mg, "--relevance", ["cand_nan.csv", "empty.csv", "missing.npy"],
             names=("--relevance", "relevance"))
    op = ["--log", f["oplog.csv"], "--target", f["target.csv"], "--item-group", "genre", "--json"]
    add("offpolicy", op, "--confidence", NUMBERS, unit_open)
    add("offpolicy", op, "--min-ess", NUMBERS, anything)
    add("offpolicy", op, "--min-clicks", NUMBERS, anything)
    add("offpolicy", op, "--estimator", ["ips", "snips", "dm", "dr", "sndr", "switch-dr", "dros", "x"], lambda v: v != "x")
    add("offpolicy", op, "--interval", ["wald", "bootstrap", "cressie-read", "gaussian", "clopper-pearson", "betting",
                                        "x"], lambda v: v != "x")
    add("offpolicy", op, "--backend", ["auto", "duckdb", "pandas", "spark"], lambda v: v != "spark")
    add_file("offpolicy", ["--target", f["target.csv"], "--item-group", "genre", "--json"], "--log",
             ["oplog_p0.csv", "oplog_pnan.csv", "oplog_p2.csv", "oplog_rinf.csv", "oplog_rneg.csv", "oplog_empty.csv",
              "oplog_nop.csv", "empty.csv", "missing.npy"],
             names=("--log", "log", "propensity", "reward"))
    add_file("offpolicy", ["--target", f["target.csv"], "--json", "--interval", "clopper-pearson"], "--log",
             ["oplog_rneg.csv"], names=("--log", "log", "reward"))          # [0, 1] rewards assumed (issue 28)
    add_file("offpolicy", ["--log", f["oplog.csv"], "--item-group", "genre", "--json"], "--target",
             ["target_sum3.csv", "target_neg.csv", "empty.csv", "missing.npy"], names=("--target", "target", "probabilit"))

    ex = ["--rankings", f["rank.csv"], "--item-group", "genre", "--json", "--no-progress"]
    add("exposure", ex, "--k", NUMBERS, anything)
    add("exposure", ex, "--patience", NUMBERS, unit_open)
    add("exposure", ex + ["--browsing", "cascade"], "--stop", NUMBERS, anything)
    add("exposure", ex, "--confidence", NUMBERS, lambda v: unit_open(v) and _num(v) <= 0.999999999)   # documented
    add("exposure", ex, "--browsing", ["geometric", "dcg", "cascade", "x"], lambda v: v != "x")
    add("exposure", ex, "--target", ["catalogue", "equal", "merit", "x"], lambda v: v != "x")
    add("exposure", ex, "--backend", ["auto", "duckdb", "pandas", "spark-x"], lambda v: v != "spark-x")
    add("exposure", ex, "--user-group", ["gender", "nope", "", "genre", "user"], anything)
    add("exposure", ex + ["--user-group", "gender"], "--reference", ["m", "f", "x", ""], anything)
    add("exposure", ex + ["--user-group", "gender"], "--ranking-metrics",
        ["awrf", "ndkl", "ee_disparity", "ee_relevance", "ee_difference", "x"], lambda v: v != "x")
    add("exposure", ex + ["--ranking-metrics", "ndkl"], "--ndkl-target",
        ["pop=0.3", "pop=0.3 niche=0.7", "pop=x", "x=1", "pop=-1", "pop=nan"], anything)
    add("exposure", ex, "--memory-limit", ["1GB", "0", "x", "-1GB"], anything)
    add("exposure", ex, "--family", ["report", "table", "x"], lambda v: v != "x")
    add_file("exposure", ["--item-group", "genre", "--json", "--no-progress", "--user-group", "gender"], "--rankings",
             ["rank_relnan.csv", "rank_relinf.csv", "rank_relbig.csv", "rank_relneg.csv", "rank_nrelneg.csv",
              "rank_nrelnan.csv", "rank_bigrank.csv", "rank_1e400.csv", "rank_dupitem.csv", "rank_norank.csv",
              "rank_nogenre.csv", "rank_empty.csv", "rank_strrank.csv", "rank_userchange.csv", "empty.csv",
              "missing.npy", "garbage.npy", "default.zip"],
             names=("--rankings", "rankings", "rank", "relevance", "n_relevant", "genre", "item", "gender", "user"))
    for name in ("[x].csv", "rank_intgender.csv"):
        cases.append(Case("exposure", f"--rankings={name}", ("--rankings",), "ok",
                          ["exposure", "--rankings", str(f[name]), "--item-group", "genre", "--user-group", "gender",
                           "--json", "--no-progress"]))
    cases.append(Case("exposure", "--reference 1 (integer user groups)", ("--reference",), "ok",
                      ["exposure", "--rankings", str(f["rank_intgender.csv"]), "--item-group", "genre",
                       "--user-group", "gender", "--reference", "1", "--json", "--no-progress"]))
    add_file("exposure", ex + ["--ranking-metrics", "ee_relevance"], "--judgments",
             ["rank_judgneg.csv", "empty.csv", "missing.npy"], names=("--judgments", "judgments", "relevance"))
    add_file("exposure", ex, "--item-groups", ["empty.csv", "missing.npy", "text.csv"],
             names=("--item-groups", "item-groups", "item_groups", "genre", "item"))
    add("exposure", ex, "--k", ["5", "50"], lambda v: None)           # 5-item lists: --k 50 needs a note

    svc = ["--rho", f["rho"], "--policy-probs", f["probs"], "--groups", f["groups"]]
    add("simulate-service", svc, "--port", ["-1", "70000", "abc", "1e3"], lambda v: False)
    add("simulate-service", svc, "--fail-every", ["0", "1", "-3", "x"], lambda v: False)
    add_file("simulate-service", ["--policy-probs", f["probs"], "--groups", f["groups"]], "--rho",
             ["nan.npy", "complex.npy", "missing.npy"])

    if url is not None:
        live = ["--url", url, "--max-steps", "50", "--json", "--no-progress"]
        add("audit-live", live, "--alpha", NUMBERS, unit_half)
        add("audit-live", live, "--delta", NUMBERS, unit_open)
        add("audit-live", live, "--every", NUMBERS, anything)
        add("audit-live", live, "--timeout", ["0", "-1", "nan", "1e308", "abc"], lambda v: False)
        add("audit-live", ["--max-steps", "5", "--json", "--no-progress"], "--url",
            ["http://127.0.0.1:1", "ftp://x", "", "http://", "nonsense"], lambda v: False)
    return cases


# ------------------------------------------------------------------------------------ Python doors
EVIL = {
    "str": "0.05", "bytes": b"0.05", "none": None, "nan": math.nan, "inf": math.inf, "-inf": -math.inf,
    "zero": 0, "neg": -1, "huge_int": 10**12, "giant_int": 10**400, "tiny": 1e-300, "big": 1e308, "half": 0.5,
    "one": 1, "1.5": 1.5, "bool": True, "complex": 0.5 + 0.1j, "list": [0.1, 0.2], "empty_list": [],
    "dict": {"a": 1}, "array": np.array([0.1, 0.2]), "np_float": np.float64(0.3), "np_int": np.int64(3),
    "object": object(),
}


BACKENDS = ("auto", "pandas", "duckdb")
METHODS = ("dpso", "exhaustive", "testsgd", "vanilla")


def python_cases(f: dict) -> list[Case]:
    cases: list[Case] = []

    def door(name, make, params):
        for p, domain in params.items():
            for key, value in EVIL.items():
                valid = domain(value)
                expect = "either" if valid is None else ("ok" if valid else "error")
                cases.append(Case(name, f"{p}={key}", (p,), expect, call=(make, p, value)))

    def real_in(lo, hi, lo_open=True, hi_open=False):
        def ok(v):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                return False
            try:
                x = float(v)
            except OverflowError:
                return False
            if math.isnan(x):
                return False
            return (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
        return ok

    def integer(lo, hi):
        def ok(v):
            return (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and lo <= v <= hi)
        return ok

    door("run_bandits", "run_bandits", {"trials": integer(1, 10**5), "max_steps": anything, "rng": anything,
                                        "engine": lambda v: False})
    door("run_bandits[configs.alpha]", "run_bandits_alpha", {"alpha": real_in(0, 1)})
    door("run_bandits[means]", "run_bandits_means", {"mean": real_in(0, 1, lo_open=False)})
    door("run_audit", "run_audit", {"alpha": anything, "delta": anything, "epsilon": anything, "trials": anything,
                                    "max_steps": anything})
    door("OCEF", "OCEF", {"n_arms": integer(1, 10**6), "delta": real_in(0, 1, hi_open=True), "alpha": real_in(0, 1),
                          "epsilon": real_in(0, 1), "group_size": integer(1, 2**53), "sigma": anything,
                          "omega": real_in(0, 1, hi_open=True)})
    door("OCEF.observe", "observe", {"reward": real_in(0, 1, lo_open=False)})
    door("envy_report", "envy_report", {"epsilon": anything, "matching": lambda v: False})
    door("estimate_reo", "estimate_reo", {"confidence": real_in(0, 1, hi_open=True), "interval": lambda v: False,
                                          "backend": lambda v: False, "n_resamples": anything, "label": anything,
                                          "group": anything})
    door("ab_test", "ab_test", {"confidence": real_in(0, 1, hi_open=True), "n_resamples": anything,
                                "n_folds": anything, "interval": lambda v: False})
    door("simulate_traffic", "simulate_traffic", {"n_days": integer(1, 100), "requests_per_day": anything,
                                                  "k": anything, "p_act": anything})
    door("make_traffic_world", "make_traffic_world", {"n_users": anything, "n_items": anything,
                                                      "n_groups": anything, "positive_rate": anything})
    door("softmax_policy", "softmax_policy", {"beta": anything})
    door("SyntheticEnvironment", "SyntheticEnvironment", {"n_users": anything, "n_items": anything,
                                                          "n_groups": anything})
    door("delta_method_sample_size", "plan", {"epsilon": anything})
    door("recommender_bias", "recommender_bias", {"k": anything, "n_resamples": anything, "confidence": anything})
    door("pairwise_accuracy", "pairwise_accuracy", {"n_resamples": anything, "confidence": anything,
                                                    "backend": lambda v: isinstance(v, str) and v in BACKENDS,
                                                    "engine": lambda v: False,     # removed in issue 27 (backend)
                                                    "cluster": lambda v: isinstance(v, str) and v == "query",
                                                    "rng": anything})
    door("fairrec.search", "search", {"n_iter": anything, "epsilon": anything, "top_n": anything,
                                      "confidence": anything, "n_resamples": anything, "rng": anything,
                                      "method": lambda v: isinstance(v, str) and v in METHODS})
    door("fairrec.grid", "grid", {"code": anything})     # one user's attribute code (10^4 x 10^4 grids, 6e9)
    # issue 28: what a black-box metric returns (a constant for every user; NaN/inf must be refused)
    def finite_number(v):
        try:
            return None if math.isfinite(float(v)) else False
        except (TypeError, ValueError, OverflowError):
            return False

    door("fairrec.oracle", "oracle", {"value": finite_number, "name_and_value": finite_number})
    for c in cases:
        if c.door == "fairrec.oracle":
            c.names = ("value", "evaluate", "metric")
    door("run_audit[timeouts]", "run_audit_timeouts", {"max_steps": lambda v: None if integer(1, 10**15)(v) else False})
    door("exposure_fairness", "exposure_fairness", {"k": anything, "patience": real_in(0, 1, hi_open=True),
                                                    "confidence": real_in(0, 1, hi_open=True),
                                                    "browsing": lambda v: False, "target": lambda v: False,
                                                    "backend": lambda v: isinstance(v, str) and v in BACKENDS,
                                                    "reference": anything, "progress": anything})
    # issue 28 (robust3): the front doors no campaign had fuzzed yet
    unit = real_in(0, 1, hi_open=True)
    door("offpolicy_audit", "offpolicy_audit", {"confidence": unit, "interval": lambda v: False, "rng": anything,
                                                "estimators": lambda v: False, "progress": anything})
    door("mitigate.loop", "mitigate", {"k": anything, "confidence": real_in(0.5, 1, hi_open=True), "margin": anything,
                                  "samples": anything, "chunk_users": anything, "envy_epsilon": anything,
                                  "envy_alpha": anything, "patience": unit, "target": lambda v: False,
                                  "method": lambda v: False, "protected": anything})
    door("ranking_fairness", "ranking_fairness", {"confidence": unit, "patience": unit, "stop": anything,
                                                  "awrf_target": anything, "ndkl_desired": anything,
                                                  "attention": lambda v: False,
                                                  "metrics": lambda v: True if v is None else False,
                                                  "reference": anything})
    door("estimate_reo_by", "estimate_reo_by", {"confidence": unit, "threshold": anything, "by": anything,
                                                "interval": lambda v: False})
    door("simulate_pairs", "simulate_pairs", {"n_requests": anything, "p_pair": anything, "n_relevant": anything,
                                              "n_levels": anything, "position_bias": anything})
    door("reo.planning", "planning", {"p_act": anything, "n_requests": anything, "k": anything})
    door("fair_rerank", "fair_rerank", {"k": anything, "p": anything, "alpha": anything, "protected": anything})
    door("calibrated_rerank", "calibrated_rerank", {"k": anything, "lam": anything, "target": anything})
    door("pairwise_accuracy[percentile]", "pairwise_percentile",
         {"n_resamples": lambda v: (True if integer(200, 10**5)(v) or (integer(0, 0)(v)) else
                                    (False if not integer(0, 10**6)(v) or v < 200 else None))})
    return cases


def build_call(spec, f):
    """The zero-argument callable of a Python case (built in the child: imports happen there)."""
    import pandas as pd

    make, p, value = spec
    rng = np.random.default_rng(0)
    if make == "run_bandits":
        from ocef.envy.runner import run_bandits
        from ocef.environments.bandits import paper_instance
        cfg = pd.DataFrame({"instance": [1], "alpha": [0.1], "delta": [0.1], "epsilon": [0.1]})
        kw = dict(configs=cfg, means={1: paper_instance(1, 3)}, trials=2, max_steps=300, rng=0)
        return lambda: run_bandits(**{**kw, p: value})
    if make == "run_bandits_alpha":
        from ocef.envy.runner import run_bandits
        cfg = pd.DataFrame({"instance": [1], "alpha": [value], "delta": [0.1], "epsilon": [0.1]})
        return lambda: run_bandits(cfg, {1: [0.6, 0.3]}, trials=2, max_steps=300, rng=0)
    if make == "run_bandits_means":
        from ocef.envy.runner import run_bandits
        cfg = pd.DataFrame({"instance": [1], "alpha": [0.1], "delta": [0.1], "epsilon": [0.1]})
        return lambda: run_bandits(cfg, {1: [0.6, value]}, trials=2, max_steps=300, rng=0)
    if make == "run_audit":
        from ocef.envy.audit import AuditProblem, run_audit
        prob = AuditProblem(rng.uniform(size=(6, 3)), rng.dirichlet(np.ones(3), size=6), [0, 0, 1, 1, 2, 2])
        return lambda: run_audit(prob, **{"max_steps": 300, "rng": 0, p: value})
    if make == "OCEF":
        from ocef import OCEF
        kw = dict(n_arms=3, delta=0.05, alpha=0.05, epsilon=0.05)
        return lambda: OCEF(**{**kw, p: value})
    if make == "observe":
        from ocef import OCEF

        def obs():
            a = OCEF(3, 0.05, 0.05, 0.05, rng=0)
            return a.observe(a.next_arm(), value)
        return obs
    if make == "envy_report":
        from ocef.envy.exact import envy_report
        return lambda: envy_report(rng.uniform(size=(6, 3)), rng.dirichlet(np.ones(3), size=6),
                                   [0, 0, 1, 1, 2, 2], **{p: value})
    if make in ("estimate_reo", "ab_test"):
        from ocef.reo import ab_test, estimate_reo
        d, r = pd.read_csv(f["default.csv"]), pd.read_csv(f["random.csv"])
        if make == "ab_test":
            kw = {"interval": "partition"} if p == "n_folds" else ({"interval": "standard"} if p == "n_resamples" else {})
            return lambda: ab_test(d, d, r, **{**kw, p: value})
        kw = {"interval": "percentile"} if p == "n_resamples" else {}
        return lambda: estimate_reo(d, r, **{**kw, p: value})
    if make in ("simulate_traffic", "make_traffic_world"):
        from ocef.reo.simulate import make_traffic_world, simulate_traffic
        if make == "make_traffic_world":
            return lambda: make_traffic_world(**{"n_users": 50, "n_items": 20, "rng": 0, p: value})
        w = make_traffic_world(n_users=50, n_items=20, rng=0)
        return lambda: simulate_traffic(w, **{"requests_per_day": 100, "k": 3, "rng": 0, p: value})
    if make == "softmax_policy":
        from ocef.policies import softmax_policy
        return lambda: softmax_policy(rng.normal(size=(4, 5)), beta=value)
    if make == "SyntheticEnvironment":
        from ocef.environments.synthetic import SyntheticEnvironment
        return lambda: SyntheticEnvironment(**{"n_users": 20, "n_items": 10, "n_groups": 2, p: value})
    if make == "plan":
        from ocef.reo import delta_method_sample_size
        return lambda: delta_method_sample_size([0.2, 0.3], [0.4, 0.2], epsilon=value, n_default=10**6)
    if make == "recommender_bias":
        from ocef.metrics.bias import recommender_bias
        return lambda: recommender_bias(**{"scores": rng.uniform(size=(10, 4)), "groups": np.repeat([0, 1], 5),
                                           "k": 2, p: value})
    if make == "pairwise_accuracy":
        from ocef.pairwise.accuracy import pairwise_accuracy
        pairs = pd.read_csv(f["pairs.csv"])
        return lambda: pairwise_accuracy(pairs, **{"n_resamples": 20, p: value})
    if make == "search":
        from ocef.fairrec.search import GroupOracle, search
        users = pd.read_csv(f["users.csv"])
        oracle = GroupOracle.from_user_metrics(users, ["gender", "age", "occupation"], "mrr")
        return lambda: search(oracle, **{"method": "dpso", "n_resamples": 20, p: value})
    if make == "oracle":
        from ocef.fairrec.search import GroupOracle, search
        users = pd.read_csv(f["users.csv"])

        def oracle():
            # what the black box returns, as it returns it: one value per user row, or one value for the group
            ev = (lambda rows: np.array([value] * rows.size, dtype=object)) if p == "value" else (lambda rows: value)
            o = GroupOracle(users, ["gender", "age"], ev, name="" if p == "name_and_value" else "m")
            return search(o, n_resamples=20, rng=0)
        return oracle
    if make == "run_audit_timeouts":
        from ocef.envy.audit import AuditProblem, run_audit

        def audit():
            prob = AuditProblem(rng.uniform(size=(6, 3)), rng.dirichlet(np.ones(3), size=6), [0, 0, 1, 1, 2, 2])
            rec = run_audit(prob, max_steps=value, rng=0).to_dict()
            if rec.get("correct_rate") is None and not rec.get("reason"):
                return SILENT                   # a null rate with no reason
            return rec
        return audit
    if make == "pairwise_percentile":
        from ocef.pairwise.accuracy import pairwise_accuracy
        pairs = pd.read_csv(f["pairs.csv"])
        return lambda: pairwise_accuracy(pairs, interval="percentile", n_resamples=value, rng=0)
    if make == "grid":
        from ocef.fairrec.search import GroupOracle, search
        users = pd.read_csv(f["users.csv"])

        def grid():
            codes = np.empty(len(users), dtype=object)
            codes[:] = users["gender"].tolist()
            codes[0] = value
            t = users.assign(gender=codes)
            t.loc[1, "age"] = 10**4                       # with value 10^4: a 10^4 x 10^4 x 4 grid
            oracle = GroupOracle.from_user_metrics(t, ["gender", "age", "occupation"], "mrr", min_users=5)
            return search(oracle, n_resamples=20, rng=0)
        return grid
    if make == "exposure_fairness":
        from ocef.exposure import exposure_fairness
        log = pd.read_csv(f["rank.csv"])
        return lambda: exposure_fairness(log, **{"item_group": "genre", "user_group": "gender", p: value})
    if make == "offpolicy_audit":
        from ocef.offpolicy import offpolicy_audit
        log, target = pd.read_csv(f["oplog.csv"]), pd.read_csv(f["target.csv"])
        return lambda: offpolicy_audit(log, target, **{"item_group": "genre", "rng": 0, p: value})
    if make == "mitigate":
        from ocef.mitigate import mitigate
        cand = pd.read_csv(f["cand.csv"])
        return lambda: mitigate(cand, **{"item_group": "genre", "method": "fair", "k": 5, "rng": 0, p: value})
    if make == "ranking_fairness":
        from ocef.exposure import ranking_fairness
        log = pd.read_csv(f["rank.csv"])
        kw = {"item_group": "genre", "user_group": "gender", "metrics": ["awrf", "ndkl"]}
        if p == "reference":
            kw["metrics"] = ["awrf"]
        return lambda: ranking_fairness(log, **{**kw, p: value})
    if make == "estimate_reo_by":
        from ocef.reo import estimate_reo_by
        d, r = pd.read_csv(f["default.csv"]), pd.read_csv(f["random.csv"])
        return lambda: estimate_reo_by(d, r, **{"by": "day", p: value})
    if make == "simulate_pairs":
        from ocef.pairwise.simulate import simulate_pairs
        from ocef.reo.simulate import make_traffic_world
        w = make_traffic_world(n_users=50, n_items=20, rng=0)
        return lambda: simulate_pairs(w, **{"n_requests": 500, "rng": 0, p: value})
    if make == "planning":
        from ocef.reo.planning import expected_random_rows
        return lambda: expected_random_rows(**{"p_act": 0.01, "n_requests": 1000, "k": 5, p: value})
    if make in ("fair_rerank", "calibrated_rerank"):
        from ocef.mitigate.calibrated import calibrated_rerank
        from ocef.mitigate.fair import fair_rerank
        fn = fair_rerank if make == "fair_rerank" else calibrated_rerank
        scores, groups = rng.random(10), np.tile([0, 1], 5)
        kw = {"k": 4, "rng": 0}
        return lambda: fn(scores, groups, **{**kw, p: value})
    raise KeyError(make)


# ------------------------------------------------------------------------------------ running
def _names_in(message: str, names) -> bool:
    low = message.lower()
    return any(str(n).lower() in low for n in names if str(n))


def _child(case: Case, f: dict, conn) -> None:
    os.nice(5) if hasattr(os, "nice") else None
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    os.environ.update(case.env)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            if case.argv is not None:
                import ocef.cli

                try:
                    code = ocef.cli.main(case.argv)
                except SystemExit as exc:                # argparse
                    code = exc.code if isinstance(exc.code, int) else 2
                conn.send(("cli", code, err.getvalue()[-2000:], ""))
            else:
                from ocef.errors import OcefError

                call = build_call(case.call, f)
                try:
                    answer = call()
                    conn.send(("py", 5, "", "") if answer is SILENT else ("py", 0, "", ""))
                except OcefError as exc:
                    conn.send(("py", 2, str(exc), type(exc).__name__))
                except (ValueError, TypeError) as exc:   # not OCEF's own class: unclear unless it names the parameter
                    conn.send(("py", 4, str(exc), type(exc).__name__))
                except Exception as exc:                  # noqa: BLE001
                    conn.send(("py", 1, "".join(traceback.format_exception(exc))[-2000:], type(exc).__name__))
    except BaseException as exc:                          # noqa: BLE001
        conn.send(("crash", 1, f"{type(exc).__name__}: {exc}", type(exc).__name__))
    finally:
        conn.close()


def classify(case: Case, result) -> tuple[str, str]:
    if result is None:
        return "hang", ""
    kind, code, text, exc_name = result
    if kind == "crash" or exc_name == "crash":
        return "crash", text[-600:]
    if kind == "cli":
        if code == 2 and case.expect == "ok":
            return "valid input refused", text.strip()[:300]
        if code == 2:
            lines = text.strip().splitlines()
            one = len(lines) == 1 and "Traceback" not in text
            label_value = case.label.split("=", 1)[-1]
            clear = one and (_names_in(text, case.names) or (label_value and label_value in text))
            return ("clear error" if clear else "unclear message"), text.strip()[:300]
        if code in (0, 3):
            return ("silent answer" if case.expect == "error" else "handled"), ""
        lines = text.strip().splitlines()
        if code == 1 and len(lines) == 1 and "Traceback" not in text and "internal error" not in text:
            # audit-live's documented status for a service that keeps failing (one line, resumable)
            return "clear error", text.strip()[:300]
        return "traceback", text.strip()[-600:]
    if kind == "py":
        if code == 5:                                     # the case itself saw a null without a reason
            return "silent answer", "a null value with no reason"
        if code == 0:
            return ("silent answer" if case.expect == "error" else "handled"), ""
        if code in (2, 4) and case.expect == "ok":
            return "valid input refused", f"{exc_name}: {text[:300]}"
        if code in (2, 4):
            value = case.call[2]
            names = case.names + ((value,) if isinstance(value, str) and value else ())
            clear = _names_in(text, names)
            return ("clear error" if clear else "unclear message"), f"{exc_name}: {text[:300]}"
        return "traceback", text[-600:]
    return "traceback", text


def run_case(case: Case, f: dict, timeout: float):
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(case, f, send))
    start = time.perf_counter()
    proc.start()
    send.close()
    result = None
    if recv.poll(timeout):
        with contextlib.suppress(EOFError):
            result = recv.recv()
        proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    elif result is None:                                  # died without a word (killed, segfault, OOM)
        result = ("cli" if case.argv else "py", 1, f"child exited with status {proc.exitcode}", "crash")
    return result, time.perf_counter() - start


def start_service(f: dict):
    """A simulated service for the audit-live cases, served by a thread of this process."""
    from ocef.envy.audit import AuditProblem
    from ocef.envy.service import SimulatedService, make_server

    rho, probs = np.load(f["rho"]), np.load(f["probs"])
    problem = AuditProblem(rho, probs, np.load(f["groups"]))
    service = SimulatedService(lambda p: problem, ["groups"], rng=1, description="fuzz", rho=rho, probs=probs)
    server = make_server(service, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    ap.add_argument("--sample", type=int, default=None, help="run a deterministic sample of this many cases")
    ap.add_argument("--only", default=None, help="comma-separated commands / front doors to run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--show", default="traceback,silent answer,hang,crash,valid input refused,unclear message",
                    help="classes whose cases are listed (comma-separated; '' for none)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    # warm the imports once: forked children inherit them
    import ocef.cli  # noqa: F401
    import pandas  # noqa: F401
    import ocef.envy.audit, ocef.envy.runner, ocef.reo, ocef.reo.simulate, ocef.backends  # noqa: E401,F401

    with tempfile.TemporaryDirectory(prefix="ocef-fuzz-") as tmp:
        f = make_inputs(Path(tmp))
        server, url = start_service(f)
        cases = cli_cases(f, url) + python_cases(f)
        if args.only:
            keep = set(args.only.split(","))
            cases = [c for c in cases if c.door in keep]
        if args.sample is not None and args.sample < len(cases):
            idx = np.sort(np.random.default_rng(args.seed).choice(len(cases), args.sample, replace=False))
            cases = [cases[i] for i in idx]
        print(f"{len(cases)} cases over {len({c.door for c in cases})} commands and front doors, "
              f"time limit {args.timeout:g} s per case", flush=True)
        results: list = [None] * len(cases)
        lock = threading.Lock()
        nxt = iter(range(len(cases)))

        def worker():
            while True:
                with lock:
                    i = next(nxt, None)
                if i is None:
                    return
                res, secs = run_case(cases[i], f, args.timeout)
                cls, detail = classify(cases[i], res)
                results[i] = (cls, detail, secs)

        t0 = time.perf_counter()
        threads = [threading.Thread(target=worker) for _ in range(max(1, args.workers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        server.shutdown()
    per_door: dict = defaultdict(Counter)
    totals: Counter = Counter()
    for case, (cls, _, _) in zip(cases, results):
        per_door[case.door][cls] += 1
        totals[cls] += 1
    width = max(len(d) for d in per_door)
    cw = max(len(c) for c in CLASSES)
    print(f"\n{'command / front door':<{width}} " + " ".join(f"{c:>{cw}}" for c in CLASSES) + f" {'total':>7}")
    for door in sorted(per_door):
        print(f"{door:<{width}} " + " ".join(f"{per_door[door][c]:>{cw}}" for c in CLASSES)
              + f" {sum(per_door[door].values()):>7}")
    print(f"{'TOTAL':<{width}} " + " ".join(f"{totals[c]:>{cw}}" for c in CLASSES) + f" {sum(totals.values()):>7}")
    print(f"wall time {time.perf_counter() - t0:.0f} s; slowest case {max(r[2] for r in results):.1f} s")
    show = [s.strip() for s in args.show.split(",") if s.strip()]
    for case, (cls, detail, secs) in zip(cases, results):
        if cls in show:
            print(f"\n[{cls}] {case.door} {case.label} ({secs:.1f} s) expect={case.expect}")
            if case.argv:
                print("  ocef " + " ".join(repr(a) if (" " in a or not a) else a for a in case.argv))
            if detail:
                print("  " + detail.replace("\n", "\n  ")[-800:])
    bad = sum(totals[c] for c in ("traceback", "silent answer", "hang", "crash", "valid input refused"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
