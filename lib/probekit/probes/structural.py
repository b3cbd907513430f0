"""The structural (distance) probe: its parameterisation, loss, predictions and search space.

Hall Maudslay et al. 2020, §3.1 (after Hewitt & Manning 2019): a probe B of shape (rank, d)
defines d_B(w_i, w_j)^2 = ||B(h_i - h_j)||^2 (eq. 1, squared as in footnote 4) and is trained with
the L1 loss of eqs. 2–3 against the gold tree distance. The structured-perceptron parser of §3.2
shares the parameterisation (its loss is in :mod:`probekit.probes.perceptron`). Both are trained,
one or many at a time, by :mod:`probekit.probes.structural_stack`; :class:`SearchSpace` and
:func:`sample_trials` describe the random search of (rank, lr, dropout) of App. A.

Embeddings are per sentence, float (n, d) NumPy arrays (one vector per word); heads are 1-based
(n,) arrays with 0 for the root, as in :class:`probekit.io.treebanks.Sentence`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from probekit.devices import resolve_device
from probekit.errors import ParameterError

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
        pred_sq: float (..., B, N, N) predicted squared distances (e.g. a leading probe axis).
        gold: float (B, N, N) gold tree distances (padding arbitrary), broadcast over ``...``.
        lengths: int (B,) sentence lengths n.

    Returns:
        float (..., B). Eq. 2 sums over pairs i < j; Hewitt & Manning's code sums over all ordered
        pairs, which doubles the value (the diagonal contributes 0) and nothing else.
    """
    n_max = pred_sq.shape[-1]
    pos = torch.arange(n_max, device=pred_sq.device)
    valid = pos[None, :] < lengths[:, None]
    upper = pos[:, None] < pos[None, :]
    mask = valid[:, :, None] & valid[:, None, :] & upper
    err = (pred_sq - gold).abs() * mask.to(pred_sq.dtype)
    return err.sum(dim=(-2, -1)) / lengths.to(pred_sq.dtype) ** 2


# --------------------------------------------------------------------------------------------
# Data handling


def pad_embeddings(embs: Sequence[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (n_b, d) arrays into a zero-padded float32 (B, N, d) tensor and lengths (B,)."""
    lengths = torch.tensor([e.shape[0] for e in embs], dtype=torch.int64)
    n_max = int(lengths.max()) if len(embs) else 0
    d = embs[0].shape[1] if len(embs) else 0
    out = np.zeros((len(embs), n_max, d), dtype=np.float32)
    for b, e in enumerate(embs):
        out[b, : e.shape[0]] = e
    return torch.from_numpy(out), lengths


def check_probe_data(embs: Sequence[np.ndarray], heads: Sequence[np.ndarray], name: str) -> int:
    """Validate paired (n, d) embeddings and (n,) heads; return d.

    Raises :class:`~probekit.errors.ParameterError` naming ``name`` on a mismatch.
    """
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


def predict_distances(
    probe: DistanceProbe,
    embs: Sequence[np.ndarray],
    batch_size: int = 256,
    squared: bool = True,
    device: str | torch.device = "cpu",
) -> list[np.ndarray]:
    """Predicted distance matrices, one float64 (n, n) per sentence of ``embs`` ((n, d) each).

    ``squared=True`` returns d_B^2, the quantity the structural probe fits to the tree distance
    (footnote 4); ``False`` returns d_B (eq. 1). Spanning trees and Spearman correlations are
    the same for both. Sentences are batched by length; the output keeps the input order.
    ``device`` (:func:`probekit.devices.resolve_device`): where the distances are computed; the
    probe itself is left where it is, and the matrices come back as NumPy arrays.
    """
    where = resolve_device(device)
    B = probe.B.detach().to(where)
    lengths = np.array([np.shape(e)[0] for e in embs], dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    out: list[np.ndarray] = [np.empty((0, 0))] * len(embs)
    with torch.inference_mode():
        for start in range(0, order.size, batch_size):
            idx = order[start : start + batch_size]
            h, lens = pad_embeddings([np.asarray(embs[i], dtype=np.float32) for i in idx])
            sq = squared_distances(h.to(where), B).to(torch.float64)
            dist = (sq if squared else sq.sqrt()).cpu().numpy()
            for b, i in enumerate(idx):
                n = int(lens[b])
                out[i] = dist[b, :n, :n].copy()
    return out


# --------------------------------------------------------------------------------------------
# Random search


@dataclass(frozen=True)
class SearchSpace:
    """The (rank, lr, dropout) search space of a random search (App. A of the paper).

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
