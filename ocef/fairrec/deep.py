"""The seed's deep CTR models (Guo et al. 2023, Sec. 4.1): Wide&Deep, DeepFM and DCN, in torch (CPU).

Optional: ``pip install -e '.[deep]'`` in a checkout installs torch; without it these models raise a clear
error and everything else works. Inputs are the fields of the split: user id, item id, gender,
age, occupation (one embedding each) and the item's genre flags (a bag of genre embeddings, the
mean of the item's genres), as deepctr's MovieLens examples do. Trained with binary cross-entropy
and Adam on the split's positives and sampled negatives; fitted weights are cached on disk.

- Wide&Deep (Cheng et al. 2016): a linear (wide) part over the one-hot fields and genres plus an
  MLP (deep) over the concatenated embeddings.
- DeepFM (Guo et al. 2017): first-order terms + FM pairwise interactions of the field embeddings,
  plus the same MLP, sharing the embeddings.
- DCN (Wang et al. 2017): cross network ``x_{l+1} = x0 (x_l · w_l) + b_l + x_l`` (3 layers) beside
  the MLP, concatenated into a final logit.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ocef.fairrec.training import check_training, fitted_params
from ocef.validation import as_generator
from ocef.errors import ParameterError

__all__ = ["DeepCTR", "WideDeep", "DeepFM", "DCN", "DEEP_MODELS", "torch_available"]


#: Bumped when the networks change, so that cached weights of older code are not reused.
DEEP_CODE_VERSION = 2


def torch_available() -> bool:
    """Whether torch can be imported, i.e. whether the deep models can be fitted here.

    Returns
    -------
    bool
        True if ``import torch`` succeeds.

    Examples
    --------
    >>> isinstance(torch_available(), bool)
    True
    """
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _require_torch():
    try:
        import torch
    except ImportError:
        raise ParameterError("the deep models (wdl, deepfm, dcn) need torch: pip install -e '.[deep]' in a checkout") from None
    return torch


@dataclass
class DeepCTR:
    """Base of the deep models (Guo et al. 2023, Sec. 4.1): fields, embeddings, training loop, cache and scoring.

    Fields and training: module docstring; ``score(candidates)`` (also the call) returns click
    probabilities. Use a subclass: :class:`WideDeep`, :class:`DeepFM`, :class:`DCN`. Measured on
    ML-100K (embedding 4, MLP 256-128, 3 epochs): 162-296 s a model on CPU, AUC 0.65-0.73
    (``specs/seeds-002-004.md``); the numpy :class:`~ocef.fairrec.models.LogisticMF` reaches 0.838 in 5 s.

    Parameters
    ----------
    embedding_dim : int
        Dimension ``d`` of each field's embedding.
    hidden : tuple of int
        Widths of the MLP's hidden layers (ReLU).
    epochs : int
        Passes over ``split.train``.
    lr : float
        Adam's step size.
    batch_size : int
        Rows per mini-batch (>= 1).
    reg : float
        Adam's ``weight_decay``.
    params : dict, optional
        The fitted network's state, set by ``fit``.

    Examples
    --------
    >>> DeepCTR(embedding_dim=4, hidden=(64,), epochs=1).hyper()["hidden"]       # fitting needs torch
    [64]
    """

    embedding_dim: int = 8
    hidden: tuple = (256, 128)
    epochs: int = 3
    lr: float = 1e-3
    batch_size: int = 1024
    reg: float = 1e-6
    params: dict = field(default_factory=dict, repr=False)

    kind = "deep"

    def hyper(self) -> dict:
        """The hyper-parameters, JSON-ready (the cache key and the experiments' CSV columns).

        Returns
        -------
        dict
            ``embedding_dim, hidden (a list), epochs, lr, batch_size, reg``.

        Examples
        --------
        >>> DeepFM(embedding_dim=4).hyper()
        {'embedding_dim': 4, 'hidden': [256, 128], 'epochs': 3, 'lr': 0.001, 'batch_size': 1024, 'reg': 1e-06}
        """
        return {"embedding_dim": self.embedding_dim, "hidden": list(self.hidden), "epochs": self.epochs,
                "lr": self.lr, "batch_size": self.batch_size, "reg": self.reg}

    def _setup(self, split) -> None:
        users = split.users.to_numpy(dtype=np.int64)
        self.user_codes = users - users.min(axis=0)
        self.cards = [split.n_users, split.n_items] + [int(c) + 1 for c in self.user_codes.max(axis=0)]
        self.genres = np.asarray(split.genres, dtype=np.float32)

    def _fields(self, u: np.ndarray, i: np.ndarray):
        torch = _require_torch()
        cat = np.concatenate([u[:, None], i[:, None], self.user_codes[u]], axis=1)
        return torch.from_numpy(cat), torch.from_numpy(self.genres[i])

    def _module(self):
        torch = _require_torch()
        nn = torch.nn
        d, cards, n_genres, kind, hidden = self.embedding_dim, self.cards, self.genres.shape[1], self.kind, self.hidden
        n_fields = len(cards) + 1                      # + the genre bag

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.ModuleList([nn.Embedding(c, d) for c in cards])
                for e in self.emb:             # small initial embeddings (deepctr: init_std 1e-4);
                    nn.init.normal_(e.weight, std=0.01)   # N(0, 1) saturates the FM term
                self.genre_emb = nn.Linear(n_genres, d, bias=False)
                self.first = nn.ModuleList([nn.Embedding(c, 1) for c in cards])
                self.genre_first = nn.Linear(n_genres, 1)
                layers, width = [], n_fields * d
                for h in hidden:
                    layers += [nn.Linear(width, h), nn.ReLU()]
                    width = h
                self.mlp = nn.Sequential(*layers)
                self.mlp_width = width
                if kind == "dcn":
                    self.cross_w = nn.ParameterList([nn.Parameter(torch.randn(n_fields * d) * 0.01) for _ in range(3)])
                    self.cross_b = nn.ParameterList([nn.Parameter(torch.zeros(n_fields * d)) for _ in range(3)])
                    self.out = nn.Linear(width + n_fields * d, 1)
                else:
                    self.out = nn.Linear(width, 1)

            def forward(self, cat, genres):
                gsum = genres.sum(dim=1, keepdim=True).clamp(min=1.0)
                embs = [e(cat[:, j]) for j, e in enumerate(self.emb)] + [self.genre_emb(genres / gsum)]
                x0 = torch.cat(embs, dim=1)
                deep = self.mlp(x0)
                if kind == "dcn":
                    x = x0
                    for w, b in zip(self.cross_w, self.cross_b):
                        x = x0 * (x @ w).unsqueeze(1) + b + x
                    return self.out(torch.cat([x, deep], dim=1)).squeeze(1)
                first = sum(f(cat[:, j]) for j, f in enumerate(self.first)) + self.genre_first(genres)
                logit = self.out(deep).squeeze(1) + first.squeeze(1)
                if kind == "deepfm":
                    v = torch.stack(embs, dim=1)                                 # (n, fields, d)
                    logit = logit + 0.5 * ((v.sum(1) ** 2) - (v ** 2).sum(1)).sum(1)
                return logit

        return Net()

    def fit(self, split, *, rng=0, cache: bool = True, progress=False):
        """Fit on ``split.train``; weights cached on disk for an int ``rng`` (key: hyper-parameters, data,
        seed, torch's and the networks' code versions; :func:`ocef.fairrec.training.fitted_params`).

        Parameters
        ----------
        split : FairRecSplit
            ``train``, ``users`` (attribute codes), ``genres``.
        rng : None, int, SeedSequence or Generator
            Only an int seed is cached.
        cache : bool
            Read and write the on-disk cache.
        progress : bool or "auto"
            A progress bar of the epochs on stderr.

        Returns
        -------
        DeepCTR
            Itself, fitted: ``model.fit(split).score(candidates)``.

        Examples
        --------
        >>> DCN(lr=2.0).fit(None)                       # refused before any work; a real fit needs torch
        Traceback (most recent call last):
        ...
        ocef.errors.ParameterError: lr must be in (0.0, 1.0], got 2.0
        """
        check_training(self, "embedding_dim")           # reg too: torch's weight_decay must be >= 0
        torch = _require_torch()
        self._setup(split)
        key = {**self.hyper(), "torch": torch.__version__, "code": DEEP_CODE_VERSION}
        self.params = fitted_params(self.kind, split, key, rng, cache, lambda: self._train(split.train, rng, progress))
        self._net = self._module()
        self._net.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in self.params.items()})
        self._net.eval()
        return self

    def _train(self, train: pd.DataFrame, rng, progress=False) -> dict[str, np.ndarray]:
        torch = _require_torch()
        gen = as_generator(rng)
        torch.manual_seed(int(gen.integers(2**31)))
        net = self._module()
        opt = torch.optim.Adam(net.parameters(), lr=self.lr, weight_decay=self.reg)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        u = train["user"].to_numpy(dtype=np.int64)
        i = train["item"].to_numpy(dtype=np.int64)
        y = torch.from_numpy(train["label"].to_numpy(dtype=np.float32))
        net.train()
        from ocef._progress import progress_iter

        for _ in progress_iter(range(self.epochs), progress, desc=f"training {self.kind}", unit="epoch"):
            perm = gen.permutation(u.size)
            for start in range(0, u.size, self.batch_size):
                b = perm[start:start + self.batch_size]
                cat, genres = self._fields(u[b], i[b])
                opt.zero_grad()
                loss = loss_fn(net(cat, genres), y[b])
                loss.backward()
                opt.step()
        return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}

    def score(self, candidates: pd.DataFrame) -> np.ndarray:
        """Click probability ``sigmoid(logit)`` of every ``(user, item)`` row of ``candidates``: the black box
        FairRec queries.

        Parameters
        ----------
        candidates : pandas.DataFrame
            ``user`` and ``item``, indices of the split the model was fitted on.

        Returns
        -------
        numpy.ndarray of float, shape (len(candidates),)

        Examples
        --------
        >>> WideDeep().score(pd.DataFrame({"user": [0], "item": [0]}))
        Traceback (most recent call last):
        ...
        ocef.errors.ParameterError: WideDeep is not fitted: call fit(split) first
        """
        if not self.params:
            raise ParameterError(f"{type(self).__name__} is not fitted: call fit(split) first")
        torch = _require_torch()
        cat, genres = self._fields(candidates["user"].to_numpy(dtype=np.int64),
                                   candidates["item"].to_numpy(dtype=np.int64))
        with torch.no_grad():
            return torch.sigmoid(self._net(cat, genres)).numpy().astype(float)

    __call__ = score


@dataclass
class WideDeep(DeepCTR):
    """Wide&Deep (Cheng et al. 2016), one of the paper's recommenders under test (Sec. 4.1).

    ``logit = w·x + MLP([e_1, ..., e_F])``: a linear (wide) part over the one-hot fields and the
    genre flags, plus an MLP (deep) over the concatenated field embeddings (:class:`DeepCTR`).

    H.-T. Cheng et al., "Wide & Deep Learning for Recommender Systems", DLRS 2016.

    Parameters
    ----------
    embedding_dim, hidden, epochs, lr, batch_size, reg, params
        As in :class:`DeepCTR`.

    Examples
    --------
    >>> WideDeep(embedding_dim=4).kind
    'wdl'
    """

    kind = "wdl"


@dataclass
class DeepFM(DeepCTR):
    """DeepFM (Guo et al. 2017), one of the paper's recommenders under test (Sec. 4.1).

    ``logit = w·x + ½ Σ_f [(Σ_j e_jf)² − Σ_j e_jf²] + MLP([e_1, ..., e_F])``: first-order terms,
    the factorization machine's pairwise interactions of the field embeddings, and the MLP over
    the same (shared) embeddings (:class:`DeepCTR`).

    H. Guo et al., "DeepFM: A Factorization-Machine based Neural Network for CTR Prediction",
    IJCAI 2017.

    Parameters
    ----------
    embedding_dim, hidden, epochs, lr, batch_size, reg, params
        As in :class:`DeepCTR`.

    Examples
    --------
    >>> DeepFM(embedding_dim=4).kind
    'deepfm'
    """

    kind = "deepfm"


@dataclass
class DCN(DeepCTR):
    """Deep & Cross Network (Wang et al. 2017), 3 cross layers; one of the paper's recommenders (Sec. 4.1).

    The cross network ``x_{l+1} = x_0 (x_l · w_l) + b_l + x_l`` (three layers, from the
    concatenated field embeddings ``x_0``) runs beside the MLP; their outputs are concatenated
    into the final logit (:class:`DeepCTR`).

    R. Wang et al., "Deep & Cross Network for Ad Click Predictions", ADKDD 2017.

    Parameters
    ----------
    embedding_dim, hidden, epochs, lr, batch_size, reg, params
        As in :class:`DeepCTR`.

    Examples
    --------
    >>> DCN(embedding_dim=4).kind
    'dcn'
    """

    kind = "dcn"


DEEP_MODELS = {"wdl": WideDeep, "deepfm": DeepFM, "dcn": DCN}
