"""Training many structural probes or perceptron parsers at once, as one stacked model.

Hall Maudslay et al. 2020, §3 and App. A (Adam, batches of 64 sentences, dropout on the input
vectors, early stopping; one-word sentences and sentences of over 50 words dropped); Hall
Maudslay & Cotterell 2021, App. B (a random search of rank, learning rate and dropout). A
random search, or several seeds and layers, is P probes B_p (rank_p, d) trained on the same
sentences, so :func:`train_distance_probes` trains them together through the one trainer
(:func:`probekit.probes.training.fit_stack`, an epoch between dev checks):

- one minibatch order for the whole stack (drawn from ``order_seed``), so the word vectors of a
  batch are gathered once; seeds of one stack differ in their initialisation and dropout masks,
  both drawn from the probe's own generators (seeded with its ``seed``), so a probe follows the
  same trajectory alone or in any stack with the same ``order_seed``;
- the projection of every word by every probe is one batched matrix product over the real
  words (no padding), then the pairwise distances of eq. 1 per padded sentence;
- ranks differ within a stack: B is padded to the largest rank with rows that are zero and stay
  zero (they are masked in the forward pass, so their gradient and Adam update are exactly 0),
  and a rank-r probe computes exactly its own function;
- the losses of the probes are summed, so each probe's gradient is its own; each probe has its
  own learning rate (:class:`probekit.probes.training.StackAdam`);
- the gradient is written out by hand (:func:`batch_loss_and_grad`: the loss's derivative in
  the squared distances, then through eq. 1 to B), so a step builds no autograd graph; the
  tests check it against autograd;
- the perceptron's minimum spanning trees (eq. 4) are found for the whole minibatch and every
  probe in one batched Prim (:func:`probekit.trees.spanning.prim_mst_batch`), and so are the
  trees behind the dev UUAS;
- each probe stops on its own dev selection metric (:data:`SELECTIONS`) after ``patience``
  epochs without an improvement of more than ``min_delta`` and keeps its best epoch; the forward
  and backward passes of the remaining epochs run on the probes still training alone.

Selection. The structural probe fits distances (eqs. 2-3), so its dev loss is a fair yardstick.
The perceptron loss (eq. 4) has no margin: it is homogeneous of degree 1 in B (d_{cB} = c d_B),
so the same trees at half the scale have half the loss, and a run can "improve" its loss by
shrinking B while its trees stay the same. Its own metric, dev UUAS, depends only on the order
of the distances and is invariant to that scale (``selection="uuas"``).

Per-sentence inputs: float (n, d) word vectors and 1-based heads (n,), 0 = root, as in
:class:`probekit.io.treebanks.Sentence`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from probekit.devices import resolve_device
from probekit.errors import ParameterError
from probekit.probes.perceptron import SQRT_FLOOR, mst_edge_mask, perceptron_loss
from probekit.probes.structural import (
    INIT_SCALE,
    KINDS,
    DistanceProbe,
    SearchSpace,
    check_probe_data,
    sample_trials,
    structural_loss,
)
from probekit.probes.training import StackAdam, StackedEarlyStopping, TrainOptions, fit_stack
from probekit.trees.distances import tree_distances_all
from probekit.trees.spanning import prim_mst_batch, tree_edge_mask

# How a run is early-stopped and selected: its dev loss, or its dev UUAS.
SELECTIONS = ("loss", "uuas")
# Hall Maudslay et al. 2020, App. A: one-word sentences and sentences of over 50 words dropped.
MIN_LEN, MAX_LEN = 2, 50
# Adam's defaults (Kingma & Ba 2015), as torch.optim.Adam.
BETAS, EPS = (0.9, 0.999), 1e-8
# Input dropout masks are drawn as 16-bit integers (see dropout_threshold).
DROPOUT_LEVELS = 2**16
# Dev sentences per evaluation batch (sorted by length, so padding stays small).
EVAL_CHUNK = 64
# Sentences per chunk of the pairwise-distance computation within a batch (see
# DistanceData.batch): small enough that padding to the longest sentence of a chunk wastes
# little, large enough that the matrix products stay efficient.
GRAM_CHUNK = 16


# --------------------------------------------------------------------------------------------
# Data, built once per split


@dataclass(eq=False)
class DistanceData:
    """One split, ready for stacked training and evaluation; built once, reused by every stack.

    Sentences of ``MIN_LEN..MAX_LEN`` words are kept (``n_dropped`` the others). Per source (a
    layer, or any representation) the word vectors of the kept sentences are one float32
    (W, d) tensor; ``offsets`` (S + 1,) index them. ``gold`` (S, N, N) float32 holds the padded
    tree distances (the structural target; distance 1 marks the perceptron's gold edges).
    ``kept`` (S, K) int64 and ``kept_lengths`` (S,) give the words UUAS counts (all words, or
    those of ``keep``), and ``kept_gold`` (S, K, K) bool the upper-triangular gold edges among
    them (the MST of the restricted gold distances, as
    :func:`probekit.trees.metrics.uuas_counts` scores them).
    """

    sources: dict[Hashable, torch.Tensor]
    offsets: np.ndarray
    lengths: np.ndarray
    gold: torch.Tensor
    kept: torch.Tensor
    kept_lengths: np.ndarray
    kept_gold: torch.Tensor
    n_dropped: int
    dim: int

    @classmethod
    def build(
        cls,
        features: Mapping[Hashable, Sequence[np.ndarray]],
        heads: Sequence[np.ndarray],
        keep: Sequence[np.ndarray] | None = None,
        name: str = "features",
    ) -> DistanceData:
        """The data of ``heads`` with one feature set per key of ``features``.

        Each feature set is a per-sentence list of float (n, d) arrays aligned with ``heads``;
        ``keep`` optional bool (n,) masks of the words UUAS counts (e.g. non-punctuation).
        """
        if not features:
            raise ParameterError(name, "needs at least one feature set")
        dims = {check_probe_data(f, heads, name) for f in features.values()}
        if len(dims) != 1:
            raise ParameterError(name, f"feature sets have different dimensions {sorted(dims)}")
        if keep is not None and len(keep) != len(heads):
            raise ParameterError("keep", f"{len(keep)} masks for {len(heads)} sentences")
        kept_ids = [i for i, h in enumerate(heads) if MIN_LEN <= len(h) <= MAX_LEN]
        if not kept_ids:
            raise ParameterError(name, f"no sentence of {MIN_LEN}..{MAX_LEN} words")
        lengths = np.array([len(heads[i]) for i in kept_ids], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        sources = {
            key: torch.from_numpy(
                np.concatenate([np.asarray(f[i], dtype=np.float32) for i in kept_ids])
            )
            for key, f in features.items()
        }
        n_max = int(lengths.max())
        dists = tree_distances_all([heads[i] for i in kept_ids])
        gold = np.zeros((len(kept_ids), n_max, n_max), dtype=np.float32)
        for s, d in enumerate(dists):
            gold[s, : d.shape[0], : d.shape[0]] = d
        masks = [
            np.ones(len(heads[i]), bool) if keep is None else np.asarray(keep[i], bool)
            for i in kept_ids
        ]
        kept_lengths = np.array([m.sum() for m in masks], dtype=np.int64)
        k_max = max(int(kept_lengths.max()), 1)
        kept = np.zeros((len(kept_ids), k_max), dtype=np.int64)
        sub = np.zeros((len(kept_ids), k_max, k_max), dtype=np.float64)
        for s, (m, d) in enumerate(zip(masks, dists, strict=True)):
            idx = np.flatnonzero(m)
            kept[s, : idx.size] = idx
            sub[s, : idx.size, : idx.size] = d[np.ix_(idx, idx)]
        kept_gold = tree_edge_mask(prim_mst_batch(sub, kept_lengths))
        return cls(
            sources,
            offsets,
            lengths,
            torch.from_numpy(gold),
            torch.from_numpy(kept),
            kept_lengths,
            torch.from_numpy(kept_gold),
            len(heads) - len(kept_ids),
            dims.pop(),
        )

    def __len__(self) -> int:
        """The number of kept sentences."""
        return int(self.lengths.size)

    @property
    def device(self) -> torch.device:
        """Where the tensors of the split live."""
        return self.gold.device

    def to(self, device: torch.device) -> DistanceData:
        """The split with its tensors on ``device`` (itself when they are there already).

        The NumPy layout (offsets, lengths) stays on the CPU, where batches are planned.
        """
        if self.gold.device == device:
            return self
        return DistanceData(
            {k: v.to(device) for k, v in self.sources.items()},
            self.offsets,
            self.lengths,
            self.gold.to(device),
            self.kept.to(device),
            self.kept_lengths,
            self.kept_gold.to(device),
            self.n_dropped,
            self.dim,
        )

    def batch(self, idx: np.ndarray) -> _Batch:
        """The words and padding layout of the sentences ``idx``, sorted by length.

        The pairwise distances of a batch are computed in chunks of :data:`GRAM_CHUNK`
        sentences of similar length, each padded to its own longest sentence; the batch's
        composition is unchanged, only the padding shrinks. The layout is planned with NumPy
        and its index tensors copied to the split's device.
        """
        on = self.device
        idx = np.asarray(idx)[np.argsort(self.lengths[idx], kind="stable")]
        lens = self.lengths[idx]
        ends = np.cumsum(lens)
        starts = ends - lens
        pos = np.arange(int(ends[-1])) - np.repeat(starts, lens)
        sent = np.repeat(np.arange(idx.size), lens)
        words = torch.from_numpy(self.offsets[idx][sent] + pos).to(on)
        chunks = []
        for c0 in range(0, idx.size, GRAM_CHUNK):
            c1 = min(c0 + GRAM_CHUNK, idx.size)
            w0, w1 = int(starts[c0]), int(ends[c1 - 1])
            n = int(lens[c1 - 1])
            slots = torch.from_numpy((sent[w0:w1] - c0) * n + pos[w0:w1]).to(on)
            chunks.append(_Chunk(c0, c1, w0, w1, slots, n))
        return _Batch(
            torch.from_numpy(idx).to(on), words, torch.from_numpy(lens).to(on), chunks, idx
        )


@dataclass
class _Chunk:
    """Sentences c0..c1 - 1 of a batch (words w0..w1 - 1), padded to n words: ``slots``."""

    c0: int
    c1: int
    w0: int
    w1: int
    slots: torch.Tensor
    n: int


@dataclass
class _Batch:
    """Sentences ``idx`` (B,), by length: their words' rows in the flat tensors, and chunks.

    The tensors live on the split's device; ``rows`` is ``idx`` as a CPU array, for NumPy.
    """

    idx: torch.Tensor
    words: torch.Tensor
    lengths: torch.Tensor
    chunks: list[_Chunk]
    rows: np.ndarray


# --------------------------------------------------------------------------------------------
# The stack


@dataclass(frozen=True)
class DistanceTrial:
    """One probe of a stack: its rank, Adam learning rate, input dropout, seed and source.

    ``source`` is the key of the feature set (e.g. the layer) in :class:`DistanceData`.
    """

    rank: int
    lr: float
    dropout: float
    seed: int
    source: Hashable = 0

    def config(self) -> dict[str, object]:
        """{rank, lr, dropout, seed} as plain numbers."""
        return {
            "rank": int(self.rank),
            "lr": float(self.lr),
            "dropout": float(self.dropout),
            "seed": int(self.seed),
        }


def check_trial(trial: DistanceTrial) -> None:
    """Raise :class:`ParameterError` naming the bad hyperparameter of ``trial``."""
    if not (isinstance(trial.rank, int | np.integer) and trial.rank >= 1):
        raise ParameterError("rank", f"must be a positive integer, got {trial.rank!r}")
    if not trial.lr > 0:
        raise ParameterError("lr", f"must be > 0, got {trial.lr!r}")
    if not 0.0 <= trial.dropout < 1.0:
        raise ParameterError("dropout", f"must lie in [0, 1), got {trial.dropout!r}")


def init_stack(trials: Sequence[DistanceTrial], d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Initial B (P, r_max, d) and the rank mask (P, r_max, 1) of a stack.

    Probe p's rows 0..rank_p - 1 are drawn U(-0.05, 0.05) from a ``torch.Generator`` seeded
    with its seed, exactly as :class:`~probekit.probes.structural.DistanceProbe` draws them; the
    other rows are 0 and masked.
    """
    r_max = max(int(t.rank) for t in trials)
    B = torch.zeros(len(trials), r_max, d)
    mask = torch.zeros(len(trials), r_max, 1)
    for p, t in enumerate(trials):
        g = torch.Generator().manual_seed(int(t.seed))
        B[p, : t.rank] = torch.empty(int(t.rank), d).uniform_(-INIT_SCALE, INIT_SCALE, generator=g)
        mask[p, : t.rank] = 1.0
    return B, mask


def dropout_threshold(rate: float) -> int:
    """The 16-bit threshold of input dropout at ``rate``: a unit is dropped when its draw is below.

    Masks come from 16-bit uniform draws (four per 64-bit output of the probe's generator,
    several times cheaper than float draws), so the rate is rounded to a multiple of 1/65536;
    the survivors are scaled by 1 / (1 - threshold / 65536).
    """
    return min(int(round(float(rate) * DROPOUT_LEVELS)), DROPOUT_LEVELS - 1)


def stack_squared_distances(u_words: torch.Tensor, chunk: _Chunk) -> torch.Tensor:
    """d_B(w_i, w_j)^2 of every probe for every pair of one chunk (eq. 1, footnote 4).

    ``u_words``: (P, W, r) the batch's words projected by each probe (B h). Returns
    (P, c, N, N) for the chunk's c sentences padded to N words, symmetric with a zero diagonal;
    padding entries are 0.
    """
    P, r = u_words.shape[0], u_words.shape[2]
    c = chunk.c1 - chunk.c0
    u = u_words.new_zeros(P, c * chunk.n, r)
    u = u.index_copy(1, chunk.slots, u_words[:, chunk.w0 : chunk.w1])
    return _squared_distances(u.view(P, c, chunk.n, r), chunk.n)


def _squared_distances(u: torch.Tensor, n: int) -> torch.Tensor:
    """Symmetric squared distances (..., N, N), clamped at 0, zero diagonal, of u (..., N, r)."""
    norms = (u * u).sum(-1)
    sq = norms[..., :, None] + norms[..., None, :] - 2.0 * (u @ u.transpose(-1, -2))
    sq = 0.5 * (sq + sq.transpose(-1, -2))
    off = 1.0 - torch.eye(n, dtype=sq.dtype, device=sq.device)
    return sq.clamp_min(0.0) * off


def project(x: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Every word projected by every probe, (P, W, r): x (P, W, d) times B (P, r, d)."""
    return torch.bmm(x, B.transpose(1, 2))


def batch_losses(
    kind: str, x: torch.Tensor, B: torch.Tensor, data: DistanceData, batch: _Batch
) -> torch.Tensor:
    """Per-probe, per-sentence losses (P, len(batch)) of the sentences of ``batch``.

    Eqs. 2-3 (``structural``) or eq. 4 (``perceptron``); ``x`` (P, W, d) the batch's words as
    each probe reads them, ``B`` (P, r, d). Differentiable (autograd); training uses
    :func:`batch_loss_and_grad`, which computes the same losses and their gradient directly.
    """
    u = project(x, B)
    out = []
    for chunk in batch.chunks:
        sq = stack_squared_distances(u, chunk)
        rows = batch.idx[chunk.c0 : chunk.c1]
        gold = data.gold[rows, : chunk.n, : chunk.n]
        out.append(stack_losses(kind, sq, gold, batch.lengths[chunk.c0 : chunk.c1]))
    return torch.cat(out, dim=1)


def _loss_and_sq_grad(
    kind: str, sq: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-probe, per-sentence loss (P, c) and its gradient with respect to ``sq`` (P, c, N, N).

    ``sq`` is :func:`stack_squared_distances`' output (clamped at 0, zero diagonal), ``gold``
    (c, N, N) tree distances, ``lengths`` (c,). The loss is :func:`stack_losses`'; the gradient
    is autograd's through it and through the clamp, which passes only positive entries (the
    perceptron's floor passes entries >= ``SQRT_FLOOR``).

    - eqs. 2-3: d/d sq_ij |sq_ij - Δ_ij| / n^2 = sign(sq_ij - Δ_ij) / n^2 on the real pairs i < j;
    - eq. 4: d/d sq_ij of ± d_B(w_i, w_j) = ± 1 / (2 d_B) on the gold (+) and MST (-) edges, the
      tree held fixed (a subgradient, as with autograd).
    """
    n = sq.shape[-1]
    pos = torch.arange(n, device=sq.device)
    if kind == "structural":
        valid = pos[None, :] < lengths[:, None]
        pairs = valid[:, :, None] & valid[:, None, :] & (pos[:, None] < pos[None, :])
        weight = pairs.to(sq.dtype) / lengths.to(sq.dtype).pow(2)[:, None, None]  # (c, N, N)
        diff = sq - gold
        loss = (diff.abs() * weight).sum(dim=(-2, -1))
        grad = torch.sign(diff) * weight
        return loss, grad * (sq > 0).to(sq.dtype)
    gold_edges = (gold == 1.0) & (pos[:, None] < pos[None, :])
    floored = sq.clamp_min(SQRT_FLOOR)
    d = torch.sqrt(floored)
    edges = gold_edges.to(sq.dtype) - mst_edge_mask(sq, lengths.expand(sq.shape[:-2])).to(sq.dtype)
    loss = (d * edges).sum(dim=(-2, -1))
    grad = edges * 0.5 / d
    return loss, grad * (sq >= SQRT_FLOOR).to(sq.dtype)


def batch_loss_and_grad(
    kind: str, x: torch.Tensor, B: torch.Tensor, data: DistanceData, batch: _Batch
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each probe's mean per-sentence loss over ``batch`` (P,) and its gradient in B (P, r, d).

    The losses of :func:`batch_losses`, averaged over the batch's sentences, differentiated by
    hand rather than by autograd (the same gradient, up to rounding; no graph is built). With
    G = d loss / d sq (:func:`_loss_and_sq_grad`) and H its symmetric part (the distances are
    symmetrised), sq_ij = |u_i|^2 + |u_j|^2 - 2 u_i·u_j gives, per sentence padded to U
    (N, r), d loss / d U = 4 (diag(H 1) U - H U); the words' gradients gathered back from the
    padding give d loss / d B = (d loss / d u)^T x per probe, one batched product.
    ``x`` (P, W, d) the batch's words as each probe reads them, ``B`` (P, r, d).
    """
    u = project(x, B)
    P, r = u.shape[0], u.shape[2]
    grad_u = torch.empty_like(u)
    losses = []
    scale = 1.0 / int(batch.idx.numel())
    for chunk in batch.chunks:
        c = chunk.c1 - chunk.c0
        padded = u.new_zeros(P, c * chunk.n, r)
        padded = padded.index_copy(1, chunk.slots, u[:, chunk.w0 : chunk.w1])
        padded = padded.view(P, c, chunk.n, r)
        sq = _squared_distances(padded, chunk.n)
        rows = batch.idx[chunk.c0 : chunk.c1]
        gold = data.gold[rows, : chunk.n, : chunk.n]
        loss, g = _loss_and_sq_grad(kind, sq, gold, batch.lengths[chunk.c0 : chunk.c1])
        losses.append(loss)
        h = g + g.transpose(-1, -2)  # 2 H: the symmetrisation halves, the chain rule doubles
        grad_pad = h.sum(-1, keepdim=True) * padded - h @ padded
        grad_pad = grad_pad.view(P, c * chunk.n, r).index_select(1, chunk.slots)
        grad_u[:, chunk.w0 : chunk.w1] = grad_pad.mul_(2.0 * scale)
    per_probe = torch.cat(losses, dim=1).mean(dim=1)
    return per_probe, torch.bmm(grad_u.transpose(1, 2), x)


def stack_losses(kind: str, sq: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor):
    """Per-probe, per-sentence loss (P, B): eqs. 2-3 (``structural``) or eq. 4 (``perceptron``).

    ``sq`` (P, B, N, N) squared distances, ``gold`` (B, N, N) tree distances, ``lengths`` (B,).
    """
    if kind == "structural":
        return structural_loss(sq, gold, lengths)
    gold_edges = (gold == 1.0) & torch.triu(torch.ones_like(gold, dtype=torch.bool), diagonal=1)
    return perceptron_loss(sq, gold_edges, lengths)


def _gather_inputs(
    data: DistanceData, sources: list, probe_source: torch.Tensor, words: torch.Tensor
) -> torch.Tensor:
    """The batch's word vectors as each probe reads them, (P, W, d), without dropout."""
    if len(sources) == 1:
        x = data.sources[sources[0]].index_select(0, words)
        return x.expand(probe_source.numel(), -1, -1)
    per_source = torch.stack([data.sources[s].index_select(0, words) for s in sources])
    return per_source.index_select(0, probe_source)


def _dropped_inputs(
    data: DistanceData,
    sources: list,
    probe_source: torch.Tensor,
    words: torch.Tensor,
    thresholds: Sequence[int],
    generators: Sequence[np.random.Generator],
    probe_sources: Sequence[int] | None = None,
) -> torch.Tensor:
    """The batch's word vectors with each probe's inverted input dropout, (P, W, d).

    Probe p's mask comes from its own generator (16-bit draws, :func:`dropout_threshold`), so
    it does not depend on the other probes of the stack. ``probe_sources`` (P,), when given,
    is ``probe_source`` as plain ints (read without waiting for a GPU). The masks are drawn on the
    CPU on every device (the same masks everywhere); off the CPU they are copied to the words.
    """
    if not any(thresholds):
        return _gather_inputs(data, sources, probe_source, words)
    if probe_sources is None:
        probe_sources = [int(i) for i in probe_source.tolist()]
    per_source = [data.sources[s].index_select(0, words) for s in sources]
    W, d = per_source[0].shape
    on_cpu = per_source[0].device.type == "cpu"
    out = per_source[0].new_empty(len(thresholds), W, d)
    n = W * d
    for p, (thr, g) in enumerate(zip(thresholds, generators, strict=True)):
        src = per_source[probe_sources[p]]
        if thr == 0:
            out[p].copy_(src)
            continue
        bits = g.bit_generator.random_raw(-(-n // 4)).view(np.uint16)[:n].reshape(W, d)
        if on_cpu:
            # NumPy multiplies by a bool mask several times faster than torch's promoting mul.
            np.multiply(src.numpy(), bits >= thr, out=out[p].numpy())
        else:
            torch.mul(src, torch.from_numpy(bits >= thr).to(src.device), out=out[p])
        out[p].mul_(DROPOUT_LEVELS / (DROPOUT_LEVELS - thr))
    return out


@dataclass
class DevScores:
    """Dev scores of the probes of a stack: mean per-sentence loss (P,) and UUAS (P,) or None."""

    loss: np.ndarray
    uuas: np.ndarray | None


def _uuas_hits(
    sq: torch.Tensor, data: DistanceData, rows: torch.Tensor, rows_np: np.ndarray
) -> tuple[np.ndarray, int]:
    """Gold edges recovered per probe (P,) and gold edges counted, for sentences ``rows``.

    ``rows`` on the split's device and ``rows_np``, the same as a CPU array.

    ``sq`` (P, c, N, N): predicted squared distances of the c sentences ``rows`` of ``data``.
    Each matrix is restricted to the words UUAS counts (``data.kept``), its MST found by one
    batched Prim over every probe and sentence, and compared with the gold edges among them.
    """
    P, c = sq.shape[0], sq.shape[1]
    k_len = data.kept_lengths[rows_np]
    k = max(int(k_len.max()), 1)
    kept = data.kept[rows, :k]
    sub = sq[
        :, torch.arange(c, device=sq.device)[:, None, None], kept[:, :, None], kept[:, None, :]
    ]
    # Prim runs in NumPy on the CPU whatever the device.
    parents = prim_mst_batch(
        sub.reshape(P * c, k, k).to(torch.float64).cpu().numpy(), np.tile(k_len, P)
    )
    gold = data.kept_gold[rows, :k, :k].cpu().numpy()
    hits = tree_edge_mask(parents).reshape(P, c, k, k) & gold[None]
    return hits.sum(axis=(1, 2, 3)), int(np.maximum(k_len - 1, 0).sum())


def evaluate_stack(
    kind: str,
    B: torch.Tensor,
    sources: Sequence[Hashable],
    data: DistanceData,
    with_uuas: bool,
) -> DevScores:
    """Dev loss and (``with_uuas``) dev UUAS of P probes B (P, r, d) reading ``sources`` (P,).

    The loss is the mean per-sentence loss of ``kind`` (eqs. 2-3 or eq. 4). UUAS is the corpus
    micro-average over the words of ``data.kept``: the MST of each probe's predicted distances
    restricted to those words against the gold edges among them (as
    :func:`probekit.trees.metrics.uuas_counts`). Sentences are evaluated in length-sorted chunks;
    every probe's trees of a chunk come from one batched Prim.
    """
    keys = list(dict.fromkeys(sources))
    probe_source = torch.tensor([keys.index(s) for s in sources], device=data.device)
    P = B.shape[0]
    loss_sum = np.zeros(P)
    correct = np.zeros(P)
    total = 0
    order = np.argsort(data.lengths, kind="stable")
    with torch.no_grad():
        for start in range(0, order.size, EVAL_CHUNK):
            idx = order[start : start + EVAL_CHUNK]
            batch = data.batch(idx)
            u = project(_gather_inputs(data, keys, probe_source, batch.words), B)
            for chunk in batch.chunks:
                sq = stack_squared_distances(u, chunk)
                rows = batch.idx[chunk.c0 : chunk.c1]
                lens = batch.lengths[chunk.c0 : chunk.c1]
                gold = data.gold[rows, : chunk.n, : chunk.n]
                loss_sum += stack_losses(kind, sq, gold, lens).sum(dim=1).cpu().numpy()
                if with_uuas:
                    hits, edges = _uuas_hits(sq, data, rows, batch.rows[chunk.c0 : chunk.c1])
                    correct += hits
                    total += edges
    uuas = (correct / total if total else np.full(P, np.nan)) if with_uuas else None
    return DevScores(loss_sum / len(data), uuas)


# --------------------------------------------------------------------------------------------
# Training


@dataclass
class DistanceProbeResult:
    """A trained probe (at its best dev epoch) and its training record.

    ``selection`` is the dev quantity that early-stopped and selected it ("loss" or "uuas") and
    ``best_score`` its value at ``best_epoch`` (a loss, lower is better; or a UUAS, higher is
    better); ``best_dev_loss`` is the dev loss at that epoch. ``history`` holds one dict per
    epoch: ``epoch``, ``train_loss`` (mean over batches), ``dev_loss`` and, when computed,
    ``dev_uuas``. ``stopped_at_cap``: training ended at ``max_epochs`` rather than by early
    stopping, so the run is not known to have converged.
    """

    probe: DistanceProbe
    kind: str
    config: dict[str, object]
    selection: str
    best_score: float
    best_dev_loss: float
    best_epoch: int
    stopped_at_cap: bool
    history: list[dict[str, float]] = field(default_factory=list)
    n_dropped_train: int = 0
    n_dropped_dev: int = 0

    @property
    def epochs(self) -> int:
        """Epochs trained."""
        return len(self.history)


def check_training(
    kind: str,
    selection: str,
    batch_size: int,
    max_epochs: int,
    patience: int,
    min_delta: float,
) -> None:
    """Raise :class:`ParameterError` naming the first bad training setting."""
    if kind not in KINDS:
        raise ParameterError("kind", f"must be one of {KINDS}, got {kind!r}")
    if selection not in SELECTIONS:
        raise ParameterError("selection", f"must be one of {SELECTIONS}, got {selection!r}")
    if batch_size < 1:
        raise ParameterError("batch_size", f"must be >= 1, got {batch_size}")
    if max_epochs < 1:
        raise ParameterError("max_epochs", f"must be >= 1, got {max_epochs}")
    if patience < 1:
        raise ParameterError("patience", f"must be >= 1, got {patience}")
    if not min_delta >= 0:
        raise ParameterError("min_delta", f"must be >= 0, got {min_delta}")


def selection_score(scores: DevScores, selection: str) -> np.ndarray:
    """The quantity each probe is early-stopped and selected on, higher is better, (P,).

    ``"loss"``: minus the dev loss (the paper's rule); ``"uuas"``: the dev UUAS, which depends
    only on the order of the predicted distances and so is invariant to rescaling B.
    """
    if selection not in SELECTIONS:
        raise ParameterError("selection", f"must be one of {SELECTIONS}, got {selection!r}")
    if selection == "loss":
        return -np.asarray(scores.loss, dtype=np.float64)
    if scores.uuas is None:
        raise ParameterError("selection", "UUAS selection needs dev UUAS scores")
    return np.asarray(scores.uuas, dtype=np.float64)


def train_distance_probes(
    kind: str,
    trials: Sequence[DistanceTrial],
    train: DistanceData,
    dev: DistanceData,
    *,
    selection: str = "loss",
    order_seed: int = 0,
    batch_size: int = 64,
    max_epochs: int = 40,
    patience: int = 5,
    min_delta: float = 0.0,
    progress: bool = False,
    group_ranks: bool = True,
    device: str | torch.device = "cpu",
) -> list[DistanceProbeResult]:
    """Train P = len(trials) probes of one ``kind`` together (see the module docstring).

    Adam on each probe's mean per-sentence loss of every minibatch of ``batch_size`` sentences
    (eqs. 2-3 for ``"structural"``, eq. 4 for ``"perceptron"``); inverted dropout on the input
    vectors; one shared minibatch order per epoch drawn from ``order_seed``. After every epoch
    each active probe is scored on ``dev`` (:func:`evaluate_stack`) and compared by
    :func:`selection_score`; a probe stops after ``patience`` epochs without an improvement of
    more than ``min_delta`` and returns the weights of its best epoch. ``max_epochs`` ends the
    rest (they are flagged ``stopped_at_cap``). All hyperparameters are checked before any
    computation (``ParameterError`` naming the parameter). ``group_ranks``: train the probes of
    each rank as their own stack (same minibatches, hence the same results as one stack padded
    to the largest rank, without the cost of the padding); ``False`` pads and masks.
    ``device`` (:func:`probekit.devices.resolve_device`): where the word vectors, the stack and
    every step live; initial B, batch orders and dropout masks are drawn on the CPU, so they are
    the same on every device, and the spanning trees (Prim) are found on the CPU.

    Returns one :class:`DistanceProbeResult` per trial, in order; the probes are on the CPU.
    """
    where = resolve_device(device)
    check_training(kind, selection, batch_size, max_epochs, patience, min_delta)
    if not trials:
        raise ParameterError("trials", "needs at least one probe")
    for t in trials:
        check_trial(t)
        for data, name in ((train, "train"), (dev, "dev")):
            if t.source not in data.sources:
                raise ParameterError("source", f"{t.source!r} is not a feature set of {name}")
    if dev.dim != train.dim:
        raise ParameterError("dev", f"dimension {dev.dim} differs from train's {train.dim}")
    train, dev = train.to(where), dev.to(where)
    # The data's own device names the GPU's index ("cuda" becomes "cuda:0"), so the rank groups
    # below find their data already in place.
    where = train.device

    if group_ranks:
        # Probes of one rank share a stack, so no probe pays for another's larger rank; they
        # all see the same minibatches, so the results are those of one mixed stack.
        results: list[DistanceProbeResult | None] = [None] * len(trials)
        for rank in sorted({int(t.rank) for t in trials}, reverse=True):
            members = [i for i, t in enumerate(trials) if int(t.rank) == rank]
            group = train_distance_probes(
                kind,
                [trials[i] for i in members],
                train,
                dev,
                selection=selection,
                order_seed=order_seed,
                batch_size=batch_size,
                max_epochs=max_epochs,
                patience=patience,
                min_delta=min_delta,
                progress=progress,
                group_ranks=False,
                device=where,
            )
            for i, result in zip(members, group, strict=True):
                results[i] = result
        return results
    P, d = len(trials), train.dim
    B_all, mask_all = (t.to(where) for t in init_stack(trials, d))
    grad_all = torch.zeros_like(B_all)
    rates = np.array([float(t.lr) for t in trials])
    gens = [np.random.default_rng(int(t.seed)) for t in trials]
    stopper = StackedEarlyStopping({"B": B_all}, P, patience, min_delta)
    history: list[list[dict[str, float]]] = [[] for _ in trials]
    with_uuas = selection == "uuas"
    steps_per_epoch = math.ceil(len(train) / batch_size)
    epoch_losses: list[np.ndarray] = []
    member: dict[str, object] = {}

    def batches(order_gen: torch.Generator) -> list[np.ndarray]:
        # Probes stop only at the check that ends an epoch, so the probes still training, and
        # what their steps read, are set once per epoch.
        active = np.flatnonzero(stopper.active)
        keys = list(dict.fromkeys(trials[p].source for p in active))
        sources = [keys.index(trials[p].source) for p in active]
        sel = None if len(active) == P else torch.from_numpy(active).to(where)
        member.update(
            ids=active, sel=sel, keys=keys, sources=sources,
            probe_source=torch.tensor(sources, device=where),
            mask=mask_all if sel is None else mask_all[sel],
            thresholds=[dropout_threshold(trials[p].dropout) for p in active],
            gens=[gens[p] for p in active],
        )  # fmt: skip
        perm = torch.randperm(len(train), generator=order_gen).numpy()
        return [perm[start : start + batch_size] for start in range(0, perm.size, batch_size)]

    def backward(idx: np.ndarray, _: torch.Generator) -> None:
        # Only the probes still training take part: the forward pass runs on them alone.
        m = member
        B = (B_all if m["sel"] is None else B_all[m["sel"]]) * m["mask"]
        batch = train.batch(idx)
        x = _dropped_inputs(
            train, m["keys"], m["probe_source"], batch.words, m["thresholds"], m["gens"],
            m["sources"],
        )  # fmt: skip
        per_probe, grad = batch_loss_and_grad(kind, x, B, train, batch)
        grad.mul_(m["mask"])
        if m["sel"] is None:
            grad_all.copy_(grad)
        else:
            grad_all.zero_()
            grad_all[m["sel"]] = grad
        epoch_losses.append(per_probe.detach().cpu().numpy())

    def dev_criterion() -> np.ndarray:
        m = member
        B = (B_all if m["sel"] is None else B_all[m["sel"]]) * m["mask"]
        scores = evaluate_stack(kind, B, [trials[p].source for p in m["ids"]], dev, with_uuas)
        train_loss = np.mean(epoch_losses, axis=0)
        epoch_losses.clear()
        for i, p in enumerate(m["ids"]):
            row = {"epoch": len(history[p]), "train_loss": float(train_loss[i])}
            row["dev_loss"] = float(scores.loss[i])
            if scores.uuas is not None:
                row["dev_uuas"] = float(scores.uuas[i])
            history[p].append(row)
        out = np.full(P, np.inf)
        out[m["ids"]] = -selection_score(scores, selection)
        return out

    fit_stack(
        TrainOptions(
            eval_every=steps_per_epoch, patience=patience, min_delta=min_delta,
            max_steps=max_epochs * steps_per_epoch,
        ),
        StackAdam([B_all], rates, P, BETAS, EPS, grads=[grad_all]),
        batches=batches,
        backward=backward,
        stopper=stopper,
        dev_loss=dev_criterion,
        order_seed=order_seed,
        progress=f"{kind} × {P}" if progress else None,
    )  # fmt: skip
    best_epoch = stopper.best_step // steps_per_epoch - 1
    results = []
    for p, t in enumerate(trials):
        probe = DistanceProbe(d, int(t.rank), torch.Generator().manual_seed(0))
        with torch.no_grad():
            probe.B.copy_(B_all[p, : t.rank].cpu())
        best = history[p][best_epoch[p]]
        score = best["dev_loss"] if selection == "loss" else best["dev_uuas"]
        config = t.config() | {"batch_size": batch_size, "max_epochs": max_epochs}
        config |= {"patience": patience, "min_delta": min_delta, "order_seed": int(order_seed)}
        results.append(
            DistanceProbeResult(
                probe,
                kind,
                config,
                selection,
                float(score),
                float(best["dev_loss"]),
                int(best_epoch[p]),
                bool(stopper.at_cap[p]),
                history[p],
                train.n_dropped,
                dev.n_dropped,
            )
        )
    return results


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
    selection: str = "loss",
    min_delta: float = 0.0,
    dev_keep: Sequence[np.ndarray] | None = None,
    progress: bool = False,
    device: str | torch.device = "cpu",
) -> DistanceProbeResult:
    """Train one structural probe or perceptron parser (Hall Maudslay et al. 2020, App. A).

    A stack of one (:func:`train_distance_probes`), with the minibatch order drawn from ``seed`` too.
    Sentences of one word or of more than 50 words are dropped from both splits first (counts
    in the result). ``selection``: "loss" (the paper's rule) or "uuas" (over the words of
    ``dev_keep``, all words by default). ``max_epochs`` defaults to Hewitt & Manning's 40.
    ``device``: where it trains (:func:`train_distance_probes`).
    """
    check_training(kind, selection, batch_size, max_epochs, patience, min_delta)
    check_trial(DistanceTrial(rank, lr, dropout, seed))
    train = DistanceData.build({0: train_embs}, train_heads, name="train_embs")
    dev = DistanceData.build({0: dev_embs}, dev_heads, dev_keep, name="dev_embs")
    (result,) = train_distance_probes(
        kind,
        [DistanceTrial(int(rank), float(lr), float(dropout), int(seed))],
        train,
        dev,
        selection=selection,
        order_seed=int(seed),
        batch_size=batch_size,
        max_epochs=max_epochs,
        patience=patience,
        min_delta=min_delta,
        progress=progress,
        device=device,
    )
    return result


# --------------------------------------------------------------------------------------------
# Random search


@dataclass
class SearchResult:
    """The best trained probe of a random search and every trial's record.

    ``trials``: one dict per trial with its {rank, lr, dropout, seed}, ``dev_loss``,
    ``dev_score`` (the selection quantity at its best epoch), ``epochs`` and
    ``stopped_at_cap``.
    """

    best: DistanceProbeResult
    trials: list[dict[str, object]]


def best_trial(results: Sequence[DistanceProbeResult]) -> int:
    """Index of the best of ``results`` on their selection quantity (ties: the earlier).

    Lowest ``best_score`` for loss selection, highest for UUAS selection.
    """
    if not results:
        raise ParameterError("results", "needs at least one trained probe")
    selections = {r.selection for r in results}
    if len(selections) != 1:
        raise ParameterError("results", f"mix selection rules {sorted(selections)}")
    scores = np.array([r.best_score for r in results], dtype=np.float64)
    scores = -scores if selections.pop() == "loss" else scores
    return int(np.argmax(scores))


def trial_record(result: DistanceProbeResult) -> dict[str, object]:
    """One trial's row: its configuration, dev loss and score, epochs and cap flag."""
    return {
        **{k: result.config[k] for k in ("rank", "lr", "dropout", "seed")},
        "dev_loss": result.best_dev_loss,
        "dev_score": result.best_score,
        "epochs": result.epochs,
        "best_epoch": result.best_epoch,
        "stopped_at_cap": result.stopped_at_cap,
    }


def random_search(
    kind: str,
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    space: SearchSpace | None = None,
    n_trials: int = 10,
    seed: int = 0,
    selection: str = "loss",
    dev_keep: Sequence[np.ndarray] | None = None,
    **train_kwargs,
) -> SearchResult:
    """Random hyperparameter search (Hall Maudslay et al. 2020, App. A), all trials stacked.

    Samples ``n_trials`` configurations with :func:`~probekit.probes.structural.sample_trials`,
    trains them as one stack (:func:`train_distance_probes`, minibatch order from ``seed``;
    ``train_kwargs`` such as ``max_epochs`` or ``device`` are passed on) and keeps the best on its own
    selection quantity (:func:`best_trial`).
    """
    space = space or SearchSpace()
    train = DistanceData.build({0: train_embs}, train_heads, name="train_embs")
    dev = DistanceData.build({0: dev_embs}, dev_heads, dev_keep, name="dev_embs")
    trials = [
        DistanceTrial(c["rank"], c["lr"], c["dropout"], c["seed"])
        for c in sample_trials(space, n_trials, seed, train.dim)
    ]
    results = train_distance_probes(
        kind, trials, train, dev, selection=selection, order_seed=seed, **train_kwargs
    )
    return SearchResult(results[best_trial(results)], [trial_record(r) for r in results])
