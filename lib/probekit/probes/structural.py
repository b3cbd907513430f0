"""The structural (distance) probe and the shared trainer for it and the perceptron parser.

Hall Maudslay et al. 2020, §3.1 (after Hewitt & Manning 2019): a probe B of shape (rank, d)
defines d_B(w_i, w_j)^2 = ||B(h_i - h_j)||^2 (eq. 1, squared as in footnote 4) and is trained with
the L1 loss of eqs. 2–3 against the gold tree distance. :func:`train_distance_probe` trains
either this probe (``kind="structural"``) or the structured-perceptron parser of §3.2
(``kind="perceptron"``, loss in :mod:`probekit.probes.perceptron`) with the settings of appendix A:
Adam, batches of 64 sentences, dropout on the input representations, early stopping on the dev
loss, one-word sentences and sentences longer than 50 words dropped. :func:`random_search` picks
(rank, lr, dropout) by dev loss.

Embeddings are per sentence, float (n, d) NumPy arrays (one vector per word); heads are 1-based
(n,) arrays with 0 for the root, as in :class:`probekit.io.treebanks.Sentence`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from probekit.errors import ParameterError
from probekit.probes.perceptron import gold_edge_mask, perceptron_loss
from probekit.trees.distances import tree_distances_all

KINDS = ("structural", "perceptron")
# Hewitt & Manning initialise B uniformly in [-0.05, 0.05] (structural-probes probe.py).
INIT_SCALE = 0.05

# --------------------------------------------------------------------------------------------
# The probe


def squared_distances(h: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """d_B(w_i, w_j)^2 = ||B(h_i - h_j)||^2 for all pairs (Hall Maudslay et al. 2020, eq. 1).

    ``h``: (batch, N, d) word vectors; ``B``: (rank, d). Returns (batch, N, N), exactly symmetric
    with a zero diagonal. Uses ||u_i||^2 + ||u_j||^2 - 2 u_i·u_j with u = hBᵀ, so memory is
    O(batch N^2) rather than O(batch N^2 rank); rounding negatives are clamped to 0.
    """
    u = h @ B.T
    norms = (u * u).sum(dim=-1)
    sq = norms[:, :, None] + norms[:, None, :] - 2.0 * (u @ u.transpose(1, 2))
    sq = 0.5 * (sq + sq.transpose(1, 2))
    off_diag = 1.0 - torch.eye(sq.shape[-1], dtype=sq.dtype, device=sq.device)
    return sq.clamp_min(0.0) * off_diag


class DistanceProbe(torch.nn.Module):
    """The parameterisation shared by the structural probe and the perceptron parser.

    Hall Maudslay et al. 2020, eq. 1: B ∈ R^{rank × d}; B^T B is PSD with rank <= ``rank``.
    Initialised U(-0.05, 0.05) from ``generator`` (Hewitt & Manning's choice).
    """

    def __init__(self, d: int, rank: int, generator: torch.Generator):
        """Draw B (rank, d) from ``generator``; d and rank must be >= 1."""
        super().__init__()
        if d < 1:
            raise ParameterError("d", f"must be >= 1, got {d}")
        if rank < 1:
            raise ParameterError("rank", f"must be >= 1, got {rank}")
        B = torch.empty(rank, d).uniform_(-INIT_SCALE, INIT_SCALE, generator=generator)
        self.B = torch.nn.Parameter(B)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """Squared distances d_B^2 (batch, N, N) for word vectors ``h`` (batch, N, d)."""
        return squared_distances(h, self.B)


def structural_loss(
    pred_sq: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """Per-sentence structural-probe loss, Hall Maudslay et al. 2020, eqs. 2–3 with footnote 4.

    (1 / n^2) Σ_{i<j} |Δ_t(w_i, w_j) − d_B(w_i, w_j)^2| for each sentence.

    Args:
        pred_sq: float (B, N, N) predicted squared distances.
        gold: float (B, N, N) gold tree distances (padding arbitrary).
        lengths: int (B,) sentence lengths n.

    Returns:
        float (B,). Eq. 2 sums over pairs i < j; Hewitt & Manning's code sums over all ordered
        pairs, which doubles the value (the diagonal contributes 0) and nothing else.
    """
    n_max = pred_sq.shape[-1]
    pos = torch.arange(n_max, device=pred_sq.device)
    valid = pos[None, :] < lengths[:, None]
    upper = pos[:, None] < pos[None, :]
    mask = valid[:, :, None] & valid[:, None, :] & upper
    err = (pred_sq - gold).abs() * mask.to(pred_sq.dtype)
    return err.sum(dim=(1, 2)) / lengths.to(pred_sq.dtype) ** 2


# --------------------------------------------------------------------------------------------
# Data handling


def drop_by_length(
    embs: Sequence[np.ndarray], heads: Sequence[np.ndarray], min_len: int = 2, max_len: int = 50
) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Keep sentences with ``min_len <= n <= max_len`` (Hall Maudslay et al. 2020, App. A).

    The paper discards one-word sentences and sentences of over 50 words. Returns the kept
    embeddings, the kept heads and the number dropped.
    """
    if len(embs) != len(heads):
        raise ParameterError("embs", f"{len(embs)} embedding arrays but {len(heads)} heads arrays")
    keep = [i for i, h in enumerate(heads) if min_len <= len(h) <= max_len]
    return [embs[i] for i in keep], [heads[i] for i in keep], len(heads) - len(keep)


def pad_embeddings(embs: Sequence[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (n_b, d) arrays into a zero-padded float32 (B, N, d) tensor and lengths (B,)."""
    lengths = torch.tensor([e.shape[0] for e in embs], dtype=torch.int64)
    n_max = int(lengths.max()) if len(embs) else 0
    d = embs[0].shape[1] if len(embs) else 0
    out = np.zeros((len(embs), n_max, d), dtype=np.float32)
    for b, e in enumerate(embs):
        out[b, : e.shape[0]] = e
    return torch.from_numpy(out), lengths


def _pad_targets(targets: Sequence[np.ndarray], dtype: torch.dtype) -> torch.Tensor:
    n_max = max(t.shape[0] for t in targets)
    out = np.zeros((len(targets), n_max, n_max), dtype=targets[0].dtype)
    for b, t in enumerate(targets):
        out[b, : t.shape[0], : t.shape[0]] = t
    return torch.from_numpy(out).to(dtype)


def _check_data(embs: Sequence[np.ndarray], heads: Sequence[np.ndarray], name: str) -> int:
    """Validate paired (n, d) embeddings and (n,) heads; return d."""
    if len(embs) != len(heads):
        raise ParameterError(name, f"{len(embs)} embedding arrays but {len(heads)} heads arrays")
    dims = {np.shape(e)[1] if np.ndim(e) == 2 else -1 for e in embs}
    if len(dims) > 1 or -1 in dims:
        raise ParameterError(name, "embeddings must all be 2-D (n, d) with the same d")
    for s, (e, h) in enumerate(zip(embs, heads, strict=True)):
        if np.shape(e)[0] != len(h):
            raise ParameterError(
                name, f"sentence {s}: {np.shape(e)[0]} embedding rows but {len(h)} heads"
            )
    return dims.pop() if dims else 0


@dataclass
class _Split:
    """One split, ready for batching: embeddings, targets and lengths, per sentence."""

    embs: list[np.ndarray]
    targets: list[np.ndarray]
    lengths: np.ndarray

    @classmethod
    def build(cls, kind: str, embs: Sequence[np.ndarray], heads: Sequence[np.ndarray]) -> _Split:
        if kind == "structural":
            targets = [d.astype(np.float32) for d in tree_distances_all(heads)]
        else:
            targets = [gold_edge_mask(h) for h in heads]
        embs32 = [np.asarray(e, dtype=np.float32) for e in embs]
        return cls(embs32, targets, np.array([len(h) for h in heads], dtype=np.int64))

    def batch(self, idx: np.ndarray, kind: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h, lengths = pad_embeddings([self.embs[i] for i in idx])
        dtype = torch.float32 if kind == "structural" else torch.bool
        return h, _pad_targets([self.targets[i] for i in idx], dtype), lengths


def _loss(kind: str, pred_sq: torch.Tensor, target: torch.Tensor, lengths: torch.Tensor):
    if kind == "structural":
        return structural_loss(pred_sq, target, lengths)
    return perceptron_loss(pred_sq, target, lengths)


def _dropout(h: torch.Tensor, p: float, generator: torch.Generator) -> torch.Tensor:
    """Inverted dropout drawn from ``generator`` (torch's F.dropout takes no generator)."""
    if p == 0.0:
        return h
    keep = torch.rand(h.shape, generator=generator) >= p
    return h * keep.to(h.dtype) / (1.0 - p)


# --------------------------------------------------------------------------------------------
# Training


@dataclass
class DistanceProbeResult:
    """A trained probe (at its best dev epoch) and its training record.

    ``history`` holds one dict per epoch: ``epoch``, ``train_loss`` (mean over batches) and
    ``dev_loss`` (mean per-sentence loss over the dev set).
    """

    probe: DistanceProbe
    kind: str
    config: dict[str, object]
    best_dev_loss: float
    best_epoch: int
    history: list[dict[str, float]] = field(default_factory=list)
    n_dropped_train: int = 0
    n_dropped_dev: int = 0


def _validate_config(kind, rank, lr, dropout, batch_size, max_epochs, patience) -> None:
    if kind not in KINDS:
        raise ParameterError("kind", f"must be one of {KINDS}, got {kind!r}")
    if not (isinstance(rank, int | np.integer) and rank >= 1):
        raise ParameterError("rank", f"must be a positive integer, got {rank!r}")
    if not lr > 0:
        raise ParameterError("lr", f"must be > 0, got {lr!r}")
    if not 0.0 <= dropout < 1.0:
        raise ParameterError("dropout", f"must lie in [0, 1), got {dropout!r}")
    if batch_size < 1:
        raise ParameterError("batch_size", f"must be >= 1, got {batch_size}")
    if max_epochs < 1:
        raise ParameterError("max_epochs", f"must be >= 1, got {max_epochs}")
    if patience < 1:
        raise ParameterError("patience", f"must be >= 1, got {patience}")


def _dev_loss(kind: str, probe: DistanceProbe, split: _Split, batch_size: int) -> float:
    order = np.argsort(split.lengths, kind="stable")
    total = 0.0
    with torch.no_grad():
        for start in range(0, order.size, batch_size):
            h, target, lengths = split.batch(order[start : start + batch_size], kind)
            total += float(_loss(kind, probe(h), target, lengths).sum())
    return total / order.size


def train_distance_probe(
    kind: str,
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    rank: int,
    lr: float,
    dropout: float,
    seed: int,
    batch_size: int = 64,
    max_epochs: int = 40,
    patience: int = 5,
    progress: bool = False,
) -> DistanceProbeResult:
    """Train the structural probe or the perceptron parser (Hall Maudslay et al. 2020, App. A).

    Adam on the mean per-sentence loss of each batch (eqs. 2–3 for ``"structural"``, eq. 4 for
    ``"perceptron"``); inverted dropout with rate ``dropout`` on the input vectors; early
    stopping once the dev loss has not improved for ``patience`` epochs (the paper: "after five
    steps"); the parameters of the best dev epoch are returned. Sentences of one word or of
    more than 50 words are dropped from both splits first (counts in the result). All
    randomness (initialisation, shuffling, dropout) comes from one ``torch.Generator`` seeded
    with ``seed``. ``max_epochs`` defaults to Hewitt & Manning's 40; the paper does not say.

    Args:
        kind: ``"structural"`` or ``"perceptron"``.
        train_embs: per-sentence float (n, d) word vectors of the training split.
        train_heads: per-sentence 1-based heads (n,), 0 = root, of the training split.
        dev_embs: per-sentence float (n, d) word vectors of the dev split.
        dev_heads: per-sentence 1-based heads (n,), 0 = root, of the dev split.
        rank: rows of B (<= d for a true rank constraint; larger is allowed).
        lr: Adam learning rate.
        dropout: input dropout rate in [0, 1).
        seed: the seed.
        batch_size: sentences per batch.
        max_epochs: most epochs to train.
        patience: epochs without a dev-loss improvement before stopping.
        progress: show a tqdm bar over epochs.
    """
    _validate_config(kind, rank, lr, dropout, batch_size, max_epochs, patience)
    d = _check_data(train_embs, train_heads, "train_embs")
    d_dev = _check_data(dev_embs, dev_heads, "dev_embs")
    if d_dev not in (d, 0):
        raise ParameterError("dev_embs", f"dimension {d_dev} differs from train's {d}")
    train_embs, train_heads, n_drop_train = drop_by_length(train_embs, train_heads)
    dev_embs, dev_heads, n_drop_dev = drop_by_length(dev_embs, dev_heads)
    if not train_heads or not dev_heads:
        raise ParameterError(
            "train_heads" if not train_heads else "dev_heads",
            "no sentence of 2..50 words left after filtering",
        )
    train, dev = (
        _Split.build(kind, train_embs, train_heads),
        _Split.build(kind, dev_embs, dev_heads),
    )

    generator = torch.Generator().manual_seed(seed)
    probe = DistanceProbe(d, int(rank), generator)
    optimiser = torch.optim.Adam(probe.parameters(), lr=lr)
    config = {"rank": int(rank), "lr": float(lr), "dropout": float(dropout), "seed": int(seed)}
    config |= {"batch_size": batch_size, "max_epochs": max_epochs, "patience": patience}

    best_loss, best_epoch, best_state = math.inf, -1, copy.deepcopy(probe.state_dict())
    history: list[dict[str, float]] = []
    epochs = range(max_epochs)
    if progress:
        epochs = tqdm(epochs, desc=f"{kind} rank={rank}")
    for epoch in epochs:
        perm = torch.randperm(len(train.embs), generator=generator).numpy()
        batch_losses = []
        for start in range(0, perm.size, batch_size):
            h, target, lengths = train.batch(perm[start : start + batch_size], kind)
            h = _dropout(h, dropout, generator)
            loss = _loss(kind, probe(h), target, lengths).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            batch_losses.append(float(loss.detach()))
        dev_loss = _dev_loss(kind, probe, dev, batch_size)
        history.append(
            {"epoch": epoch, "train_loss": float(np.mean(batch_losses)), "dev_loss": dev_loss}
        )
        if dev_loss < best_loss:
            best_loss, best_epoch = dev_loss, epoch
            best_state = copy.deepcopy(probe.state_dict())
        elif epoch - best_epoch >= patience:
            break
    probe.load_state_dict(best_state)
    return DistanceProbeResult(
        probe, kind, config, best_loss, best_epoch, history, n_drop_train, n_drop_dev
    )


def predict_distances(
    probe: DistanceProbe, embs: Sequence[np.ndarray], batch_size: int = 256, squared: bool = True
) -> list[np.ndarray]:
    """Predicted distance matrices, one float64 (n, n) per sentence of ``embs`` ((n, d) each).

    ``squared=True`` returns d_B^2, the quantity the structural probe fits to the tree distance
    (footnote 4); ``False`` returns d_B (eq. 1). Spanning trees and Spearman correlations are
    the same for both. Sentences are batched by length; the output keeps the input order.
    """
    lengths = np.array([np.shape(e)[0] for e in embs], dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    out: list[np.ndarray] = [np.empty((0, 0))] * len(embs)
    with torch.inference_mode():
        for start in range(0, order.size, batch_size):
            idx = order[start : start + batch_size]
            h, lens = pad_embeddings([np.asarray(embs[i], dtype=np.float32) for i in idx])
            sq = probe(h).to(torch.float64)
            dist = (sq if squared else sq.sqrt()).numpy()
            for b, i in enumerate(idx):
                n = int(lens[b])
                out[i] = dist[b, :n, :n].copy()
    return out


# --------------------------------------------------------------------------------------------
# Random search


@dataclass(frozen=True)
class SearchSpace:
    """The (rank, lr, dropout) search space of :func:`random_search`.

    Hall Maudslay et al. 2020 (App. A) and Hall Maudslay & Cotterell 2021 (App. B) search rank,
    learning rate and dropout at random (10 trials in the latter), but the ranges are not in
    our copies of the papers. Our defaults:
    - ``rank``: uniform over ``ranks``; None means the powers of two up to d, plus d itself
      (the "full rank" case of the paper);
    - ``lr``: log-uniform on [lr_min, lr_max] = [1e-4, 1e-2] (Hewitt & Manning used 1e-3);
    - ``dropout``: uniform on [dropout_min, dropout_max] = [0.0, 0.5].
    """

    ranks: tuple[int, ...] | None = None
    lr_min: float = 1e-4
    lr_max: float = 1e-2
    dropout_min: float = 0.0
    dropout_max: float = 0.5

    def rank_choices(self, d: int) -> tuple[int, ...]:
        """The ranks to sample from for input dimension d."""
        if self.ranks is not None:
            return tuple(self.ranks)
        powers = [2**k for k in range(int(math.log2(d)) + 1) if 2**k < d]
        return (*powers, d)


def sample_trials(space: SearchSpace, n_trials: int, seed: int, d: int) -> list[dict]:
    """Draw ``n_trials`` configurations {rank, lr, dropout, seed} from ``space`` for input dim d.

    Each configuration gets its own training seed, drawn from the same seeded generator.
    """
    if n_trials < 1:
        raise ParameterError("n_trials", f"must be >= 1, got {n_trials}")
    if not 0 < space.lr_min <= space.lr_max:
        raise ParameterError("space", "needs 0 < lr_min <= lr_max")
    if not 0.0 <= space.dropout_min <= space.dropout_max < 1.0:
        raise ParameterError("space", "needs 0 <= dropout_min <= dropout_max < 1")
    rng = np.random.default_rng(seed)
    ranks = space.rank_choices(d)
    configs = []
    for _ in range(n_trials):
        log_lr = rng.uniform(math.log(space.lr_min), math.log(space.lr_max))
        configs.append(
            {
                "rank": int(rng.choice(ranks)),
                "lr": float(math.exp(log_lr)),
                "dropout": float(rng.uniform(space.dropout_min, space.dropout_max)),
                "seed": int(rng.integers(2**31 - 1)),
            }
        )
    return configs


@dataclass
class SearchResult:
    """The best trained probe of a random search and every trial's configuration and dev loss."""

    best: DistanceProbeResult
    trials: list[dict[str, object]]


def random_search(
    kind: str,
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    space: SearchSpace | None = None,
    n_trials: int = 10,
    seed: int = 0,
    **train_kwargs,
) -> SearchResult:
    """Random hyperparameter search selected by dev loss (Hall Maudslay et al. 2020, App. A).

    Samples ``n_trials`` configurations with :func:`sample_trials`, trains each with
    :func:`train_distance_probe` (``train_kwargs`` are passed on, e.g. ``max_epochs``) and keeps
    the one with the lowest best-epoch dev loss (ties: the earlier trial).
    """
    space = space or SearchSpace()
    d = _check_data(train_embs, train_heads, "train_embs")
    best: DistanceProbeResult | None = None
    trials = []
    for config in sample_trials(space, n_trials, seed, d):
        result = train_distance_probe(
            kind, train_embs, train_heads, dev_embs, dev_heads, **config, **train_kwargs
        )
        trials.append({**config, "dev_loss": result.best_dev_loss, "epochs": len(result.history)})
        if best is None or result.best_dev_loss < best.best_dev_loss:
            best = result
    assert best is not None  # n_trials >= 1 is checked in sample_trials
    return SearchResult(best, trials)
