"""Regenerates ``data/calibrated_reference.json``: librec-auto's calibrated re-ranking (``CALI`` of
``librec_auto/core/cmd/rerank/cali_rerank.py`` with ``reranker.py``, that-recsys-lab/librec-auto @
26022e221e832130083121e1df2ba75bd313a5ed) run on random instances. librec-auto is GPL-3.0, so its
code is not copied into this repository: this script loads it from a checkout and stores only the
inputs and outputs. Needs pandas and scikit-learn (MinMaxScaler).

    python tests/ocef/mitigate/make_calibrated_reference.py PATH/TO/librec-auto [out.json]

The checkout's package imports (config reading, XML helpers) are replaced by empty stand-ins; the
two re-ranking files run unchanged.
"""
import importlib.util
import json
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def _load(root: Path):
    for name in ("librec_auto", "librec_auto.core", "librec_auto.core.util", "librec_auto.core.util.xml_utils",
                 "librec_auto.core.cmd"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["librec_auto.core"].read_config_file = None
    sys.modules["librec_auto.core.util.xml_utils"].single_xpath = None
    folder = root / "librec_auto" / "core" / "cmd" / "rerank"
    spec = importlib.util.spec_from_file_location("librec_auto.core.cmd.rerank.reranker", folder / "reranker.py")
    reranker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reranker)
    pkg = types.ModuleType("librec_auto.core.cmd.rerank")
    pkg.Rerank_Helper, pkg.User_Helper, pkg.Reranker = reranker.Rerank_Helper, reranker.User_Helper, reranker.Reranker
    sys.modules["librec_auto.core.cmd.rerank"] = pkg
    spec = importlib.util.spec_from_file_location("cali_rerank", folder / "cali_rerank.py")
    cali = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cali)
    return reranker, cali


def run(reranker, cali, item_genres, train, rating, lam, max_len):
    """item_genres: {item: [genre names]}; train: [(user, item)]; rating: [(user, item, rating)]."""
    feats = pd.DataFrame([(i, g, 1) for i, gs in item_genres.items() for g in gs], columns=["itemid", "feature", "value"])
    feats.set_index("itemid", inplace=True)
    helper = reranker.Rerank_Helper()
    helper.set_rerank_helper({"binary": "True", "max_len": max_len, "protected_feature": None, "lambda": lam,
                              "alpha": None}, None, feats)
    tr = pd.DataFrame([(u, i, 1.0) for u, i in train], columns=["userid", "itemid", "score"])
    rt = pd.DataFrame(rating, columns=["userid", "itemid", "rating"])
    out, _ = cali.CALI(rt, tr, helper).reranker()
    return out


def main(root, out=HERE / "data" / "calibrated_reference.json"):
    reranker, cali = _load(Path(root))
    rng = np.random.default_rng(29)
    cases = []
    # the spec's worked example
    genres = {1: ["A"], 2: ["A"], 3: ["C"], 4: ["A", "D"], 11: ["A"], 12: ["A"], 16: ["A"], 13: ["C"], 14: ["D"],
              15: ["C", "D"]}
    rating = [(0, 11, 4.5), (0, 12, 4.4), (0, 16, 4.3), (0, 13, 3.0), (0, 14, 2.5), (0, 15, 2.0)]
    instances = [(genres, [(0, 1), (0, 2), (0, 3), (0, 4)], rating, lam, 4) for lam in (0.0, 0.5, 0.9)]
    names = list("ABCDEFG")
    for _ in range(40):
        n_items, n_genres = int(rng.integers(15, 40)), int(rng.integers(2, 7))
        multi = rng.random() < 0.5
        genres = {}
        for i in range(n_items):
            m = int(rng.integers(1, 3)) if multi else 1
            genres[i] = sorted(set(rng.choice(names[:n_genres], size=m).tolist()))
        train, rating = [], []
        for u in range(3):
            prof = rng.choice(n_items, size=int(rng.integers(1, 12)), replace=True)     # duplicates count
            train += [(u, int(i)) for i in prof]
            cand = rng.choice(n_items, size=int(rng.integers(8, n_items)), replace=False)
            rating += [(u, int(i), float(np.round(rng.uniform(1, 5), int(rng.integers(0, 3))))) for i in cand]
        lam = float(rng.choice([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]))
        instances.append((genres, train, rating, lam, int(rng.integers(1, 8))))
    for genres, train, rating, lam, max_len in instances:
        res = run(reranker, cali, genres, train, rating, lam, max_len)
        cases.append({"genres": {str(k): v for k, v in genres.items()}, "train": train, "rating": rating, "lambda": lam,
                      "max_len": max_len, "users": res["Users"].tolist(), "items": [int(v) for v in res["Items"]],
                      "scores": [float(v) for v in res["Ratings"]]})
    Path(out).write_text(json.dumps({"source": "librec-auto @26022e2 cali_rerank.py (run, not vendored)",
                                     "cases": cases}))
    print(len(cases), "cases")


if __name__ == "__main__":
    main(*sys.argv[1:])
