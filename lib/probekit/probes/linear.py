"""Linear probes with parametric complexity (Pimentel et al. 2020, §4.1 and §6.1).

Two families, both trained many-at-once:

- :class:`NuclearNormProbes`: p(t | h) = softmax(W h + b) trained on eq. 3, mean cross-entropy
  (in bits) + alpha * ||[W | b]||_*; complexity = the nuclear norm of the trained [W | b].
- :class:`RankProbes`: W = W_l^T W_r with W_r of r rows, so rank([W | b]) <= r; no penalty;
  complexity = r.

:func:`train_linear_probes` fits a list of :class:`LinearProbeConfig` on the same data. Probes
that share a shape and a dropout rate form one stack of P probes whose weights carry a leading
P axis: they see the same minibatches, so their first matmul is one wide (B, d) x (d, P*C)
product, and Adam (elementwise) keeps them independent. Every probe of a stack starts from the
same initial weights and the batches and dropout masks depend only on ``seed``, so a probe's
result does not depend on which other probes it was trained with (up to floating-point
rounding).

Inputs are either dense features (N, d) (contextual, fastText or random vectors) or word-type
ids (N,) / (N, k) for the trainable one-hot representation
(:class:`probekit.representations.types.OneHotEmbedding`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from probekit.devices import module_device, resolve_device
from probekit.errors import ParameterError
from probekit.probes.norms import nuclear_norm, numerical_rank
from probekit.probes.training import StackedEarlyStopping, TrainOptions, fit_module
from probekit.representations.types import OneHotEmbedding
from probekit.seeds import derived_seeds

LN2 = math.log(2.0)


def cross_entropy_bits(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-example cross-entropy in bits of P stacked probes.

    Args:
        logits: (P, B, C).
        target: int64 (B,), shared by the probes.

    Returns:
        shape (P, B).
    """
    logp = torch.log_softmax(logits, dim=-1)
    index = target[None, :, None].expand(logits.shape[0], -1, 1)
    return -logp.gather(-1, index)[..., 0] / LN2


@dataclass(frozen=True)
class LinearProbeConfig:
    """One linear probe (Pimentel et al. 2020, §6.1).

    ``rank=None``: a full-rank probe penalised by ``alpha * ||[W | b]||_*`` (eq. 3; alpha = 0 is
    the unpenalised probe). ``rank=r``: a rank-constrained probe (alpha must be 0).
    ``dropout`` is applied to the (normalised) input during training; the paper does not
    mention dropout for linear probes (the released code draws it at random), so it is 0 here.
    """

    alpha: float = 0.0
    rank: int | None = None
    dropout: float = 0.0

    @property
    def kind(self) -> str:
        """The probe's kind: "nuclear" or "rank"."""
        return "nuclear" if self.rank is None else "rank"


def alpha_grid(
    n_points: int = 49, low: float = 2.0**-10, high: float = 8.0, include_zero: bool = True
) -> np.ndarray:
    """The nuclear-norm weights of §6.1 (footnote 8): 0 plus a log-uniform grid on [low, high].

    Default: 0 and 49 values from 2^-10 to 8 = 2^3 evenly spaced in log2 (steps of 13/48), i.e.
    the paper's 50 probes per language-representation-task triple (the released grid).

    Returns:
        float64 array of shape (n_points + include_zero,), increasing.
    """
    if n_points < 1 or not 0 < low <= high:
        raise ParameterError("alpha_grid", "needs n_points >= 1 and 0 < low <= high")
    grid = np.geomspace(low, high, n_points)
    return np.r_[0.0, grid] if include_zero else grid


def rank_grid(n_classes: int) -> np.ndarray:
    """Every rank 1..C for the rank-constrained probes (§4.1; rank([W|b]) <= C anyway).

    The released code instead runs 50 probes with ``int(linspace(1, C + 0.99, 50))``, which
    repeats ranks. Returns: int64 array of shape (C,).
    """
    if n_classes < 1:
        raise ParameterError("n_classes", f"must be >= 1, got {n_classes}")
    return np.arange(1, n_classes + 1, dtype=np.int64)


def normalise_rows(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """X / (||x||_2 + eps) along the last axis, the released code's input scaling (any shape).

    The paper does not state it; without it the nuclear norm of a probe scales inversely with
    the norm of the representation, and the 400/700 caps would not be comparable across
    representations.
    """
    return x / (x.norm(dim=-1, keepdim=True) + eps)


def input_dropout(x: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    """Inverted dropout with an explicit generator.

    The mask has shape x.shape[-2:] and is shared over any leading probe axis (so the mask depends
    on the seed only, not on the stack size). It is drawn from the CPU ``generator`` and copied
    to x's device, so the masks are the same on every device.
    """
    if p <= 0.0:
        return x
    keep = (torch.rand(x.shape[-2:], generator=generator) >= p).to(x.device)
    return x * keep / (1.0 - p)


def _uniform(shape: Sequence[int], bound: float, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g) * 2.0 - 1.0) * bound


class NuclearNormProbes(torch.nn.Module):
    """P linear probes p(t | h) = softmax(W h + b) (Pimentel et al. 2020, eqs. 1 and 3).

    Parameters: ``weight`` (P, C, d), ``bias`` (P, C); buffer ``alpha`` (P,). Initialised like
    ``torch.nn.Linear`` (U(-1/sqrt(d), 1/sqrt(d))), the same draw for every probe.
    ``forward`` maps x of shape (B, d) (shared) or (P, B, d) to logits (P, B, C).
    """

    def __init__(self, d: int, n_classes: int, alphas: Sequence[float], seed: int = 0):
        """P = len(alphas) probes from d inputs to C = n_classes classes, one alpha each."""
        super().__init__()
        P, bound = len(alphas), 1.0 / math.sqrt(d)
        self.weight = torch.nn.Parameter(
            _uniform((n_classes, d), bound, seed).expand(P, -1, -1).clone()
        )
        self.bias = torch.nn.Parameter(
            _uniform((n_classes,), bound, seed + 1).expand(P, -1).clone()
        )
        self.register_buffer("alpha", torch.tensor(list(alphas), dtype=torch.float32))
        self.n_probes = P
        # Known here rather than read from the buffer at every step: reading a device tensor's
        # value would wait for the GPU.
        self.penalised = any(float(a) > 0 for a in alphas)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (P, B, C) for x of shape (B, d) (shared) or (P, B, d)."""
        if x.dim() == 2:
            return torch.einsum("bd,pcd->pbc", x, self.weight) + self.bias[:, None, :]
        return torch.bmm(x, self.weight.transpose(1, 2)) + self.bias[:, None, :]

    def weight_and_bias(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(W, b) of shapes (P, C, d) and (P, C)."""
        return self.weight, self.bias

    def penalty(self) -> torch.Tensor:
        """Alpha * ||[W | b]||_* per probe, shape (P,) (eq. 3); skips the SVD when all alpha = 0."""
        if not self.penalised:
            return torch.zeros_like(self.alpha)
        return self.alpha * nuclear_norm(self.weight, self.bias)

    def complexity(self) -> np.ndarray:
        """||[W | b]||_* per probe, shape (P,) (§4.1)."""
        with torch.no_grad():
            return nuclear_norm(self.weight.double(), self.bias.double()).cpu().numpy()


class RankProbes(torch.nn.Module):
    """P rank-constrained probes W = W_l^T W_r (Pimentel et al. 2020, §4.1).

    ``W_r`` (P, R, d) with bias ``b_r`` (P, R) maps to an r-dimensional space and ``W_l``
    (P, R, C) on to the classes, R = max rank. Rows r_p..R-1 of probe p are masked to zero, so
    [W | b] = W_l^T [W_r | b_r] has rank <= r_p exactly (the bias of footnote 4 lives in W_r,
    as in the released code). ``forward``: x (B, d) or (P, B, d) -> logits (P, B, C).
    """

    def __init__(self, d: int, n_classes: int, ranks: Sequence[int], seed: int = 0):
        """P = len(ranks) probes from d inputs to C = n_classes classes, rank r_p each."""
        super().__init__()
        ranks_t = torch.tensor(list(ranks), dtype=torch.int64)
        P, R = len(ranks_t), int(ranks_t.max())
        bound_r = 1.0 / math.sqrt(d)
        self.w_r = torch.nn.Parameter(_uniform((R, d), bound_r, seed).expand(P, -1, -1).clone())
        self.b_r = torch.nn.Parameter(_uniform((R,), bound_r, seed + 1).expand(P, -1).clone())
        # nn.Linear(r, C) scale for each probe's own r; row-major draws keep the first r rows
        # identical whatever R is.
        w_l = _uniform((R, n_classes), 1.0, seed + 2).expand(P, -1, -1).clone()
        self.w_l = torch.nn.Parameter(w_l / ranks_t.double().sqrt().float()[:, None, None])
        self.register_buffer("mask", (torch.arange(R)[None, :] < ranks_t[:, None]).float())
        self.register_buffer("ranks", ranks_t)
        self.n_probes = P

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (P, B, C) for x of shape (B, d) (shared) or (P, B, d)."""
        if x.dim() == 2:
            h = torch.einsum("bd,prd->pbr", x, self.w_r)
        else:
            h = torch.bmm(x, self.w_r.transpose(1, 2))
        h = (h + self.b_r[:, None, :]) * self.mask[:, None, :]
        return torch.bmm(h, self.w_l)

    def weight_and_bias(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The effective (W, b) = W_l^T (W_r, b_r), shapes (P, C, d) and (P, C)."""
        w_l = self.w_l * self.mask[:, :, None]
        W = torch.bmm(w_l.transpose(1, 2), self.w_r)
        b = torch.bmm(w_l.transpose(1, 2), self.b_r[:, :, None])[..., 0]
        return W, b

    def penalty(self) -> torch.Tensor:
        """No penalty: the rank constraint is a hard one. Shape (P,)."""
        return torch.zeros(self.w_r.shape[0], device=self.w_r.device)

    def complexity(self) -> np.ndarray:
        """The rank bound r per probe, shape (P,) (§4.1)."""
        return self.ranks.double().cpu().numpy()


class LinearProbeStack(torch.nn.Module):
    """A stack of P linear probes with their input pipeline (Pimentel et al. 2020, §6.1).

    input -> (one-hot table lookup, concatenating k words) -> L2 normalisation (optional) ->
    dropout (training only) -> probes. ``forward(x)`` takes float features (B, d) or int64
    ids (B,) / (B, k) when ``embedding`` is set, and returns logits (P, B, C).
    """

    def __init__(
        self,
        probes: NuclearNormProbes | RankProbes,
        *,
        embedding: OneHotEmbedding | None = None,
        normalise: bool = True,
        dropout: float = 0.0,
    ):
        """Wrap ``probes`` with an optional one-hot ``embedding``, normalisation and dropout."""
        super().__init__()
        self.probes = probes
        self.embedding = embedding
        self.normalise = normalise
        self.dropout = dropout

    def features(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Probe input of shape (B, d) or (P, B, d)."""
        if self.embedding is not None:
            e = self.embedding(x)  # (P, B, [k,] dim)
            x = e.reshape(e.shape[0], e.shape[1], -1)
        if self.normalise:
            x = normalise_rows(x)
        if self.training:
            x = input_dropout(x, self.dropout, generator)
        return x

    def forward(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Logits (P, B, C); ``generator`` drives dropout in training mode."""
        return self.probes(self.features(x, generator))


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


def _rows(X: Any, idx: np.ndarray, device: torch.device) -> torch.Tensor:
    """Rows ``idx`` (B,) of X (N, ...) on ``device``: float32 features or int64 ids."""
    rows = X[torch.from_numpy(idx)] if isinstance(X, torch.Tensor) else np.asarray(X[idx])
    t = torch.as_tensor(rows).to(device)
    return t if not t.is_floating_point() else t.float()


def _labels(y: Any, name: str) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(y) if not isinstance(y, torch.Tensor) else y)
    if t.dim() != 1 or t.is_floating_point():
        raise ParameterError(name, "must be a 1-D array of integer class ids")
    return t.long()


@torch.no_grad()
def stack_loss_and_accuracy(
    stack: LinearProbeStack, X: Any, y: torch.Tensor, batch_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Mean cross-entropy (bits, no penalty) and accuracy of each probe, shapes (P,), (P,).

    Computed on the stack's device; y (N,) may live anywhere.
    """
    was_training = stack.training
    stack.eval()
    device = module_device(stack)
    y = y.to(device)
    ce_sum, correct = 0.0, 0.0
    for start in range(0, len(y), batch_size):
        idx = np.arange(start, min(start + batch_size, len(y)))
        logits = stack(_rows(X, idx, device))  # (P, B, C)
        target = y[start : start + len(idx)]
        ce_sum = ce_sum + cross_entropy_bits(logits, target).sum(1).double()
        correct = correct + (logits.argmax(-1) == target[None, :]).sum(1).double()
    stack.train(was_training)
    return (ce_sum / len(y)).cpu().numpy(), (correct / len(y)).cpu().numpy()


def _fit_stack(
    stack: LinearProbeStack,
    X_train: Any,
    y_train: torch.Tensor,
    X_dev: Any,
    y_dev: torch.Tensor,
    opts: TrainOptions,
    order_seed: int,
    dropout_seed: int,
) -> StackedEarlyStopping:
    """Fit on eq. 3 (mean cross-entropy in bits + penalty) with :func:`fit_module`.

    Batches are random example rows ``idx`` (B,) of X_train (N, ...), read onto the stack's
    device.
    """
    n = len(y_train)
    device = module_device(stack)
    y_train = y_train.to(device)

    def batches(order_gen: torch.Generator) -> list[np.ndarray]:
        perm = torch.randperm(n, generator=order_gen).numpy()
        return [perm[start : start + opts.batch_size] for start in range(0, n, opts.batch_size)]

    def train_loss(idx: np.ndarray, dropout_gen: torch.Generator) -> torch.Tensor:
        logits = stack(_rows(X_train, idx, device), dropout_gen)
        ce = cross_entropy_bits(logits, y_train[torch.from_numpy(idx).to(device)]).mean(1)
        return ce + stack.probes.penalty()

    return fit_module(
        stack,
        stack.probes.n_probes,
        opts,
        batches=batches,
        train_loss=train_loss,
        dev_loss=lambda: stack_loss_and_accuracy(stack, X_dev, y_dev, opts.eval_batch_size)[0],
        order_seed=order_seed,
        dropout_seed=dropout_seed,
    )


@dataclass
class LinearProbeResult:
    """Outcome of :func:`train_linear_probes`; arrays have shape (P,) in config order.

    ``complexity`` is the paper's metric for the probe's family: the nuclear norm of [W | b]
    for alpha-probes, the rank bound r for rank probes. ``nuclear_norm`` and ``rank`` (number
    of singular values of [W | b] above 1e-3) are given for both. ``dev_loss`` is cross-entropy
    in bits without the penalty, at the restored best state (``best_step``). ``at_cap`` (bool)
    marks the probes that were still improving when training reached ``max_steps``.
    """

    configs: list[LinearProbeConfig]
    dev_accuracy: np.ndarray
    dev_loss: np.ndarray
    complexity: np.ndarray
    nuclear_norm: np.ndarray
    rank: np.ndarray
    best_step: np.ndarray
    at_cap: np.ndarray
    stacks: list[tuple[np.ndarray, LinearProbeStack]] = field(repr=False)

    def predict(self, X: Any, batch_size: int = 8192) -> np.ndarray:
        """Predicted class ids of every probe, shape (P, N), for inputs like the training ones."""
        n = len(X)
        out = np.zeros((len(self.configs), n), dtype=np.int64)
        with torch.no_grad():
            for members, stack in self.stacks:
                device = module_device(stack)
                for start in range(0, n, batch_size):
                    idx = np.arange(start, min(start + batch_size, n))
                    pred = stack(_rows(X, idx, device)).argmax(-1)
                    out[members, start : idx[-1] + 1] = pred.cpu().numpy()
        return out

    def accuracy(self, X: Any, y: Any) -> np.ndarray:
        """Accuracy of every probe on (X, y), shape (P,)."""
        return (self.predict(X) == _labels(y, "y").numpy()[None, :]).mean(axis=1)


def _is_float(X: Any) -> bool:
    first = X[:1] if isinstance(X, torch.Tensor) else np.asarray(X[:1])
    return torch.as_tensor(first).is_floating_point()


def _check_inputs(
    X_train: Any, y_train: torch.Tensor, X_dev: Any, y_dev: torch.Tensor, onehot: bool
) -> None:
    for name, X, y in (("X_train", X_train, y_train), ("X_dev", X_dev, y_dev)):
        if len(X) != len(y):
            raise ParameterError(name, f"has {len(X)} rows but its labels have {len(y)}")
        if len(X) == 0:
            raise ParameterError(name, "is empty")
        if onehot == _is_float(X):
            what = "float features but onehot_dim is set" if onehot else "word ids"
            raise ParameterError(
                name,
                f"holds {what}" + ("" if onehot else " but onehot_dim is not set"),
                "pass type ids (N,) or (N, k) with onehot_dim, or float features (N, d) without",
            )


def _groups(configs: Sequence[LinearProbeConfig], max_parallel: int) -> list[np.ndarray]:
    # A rank stack computes max-rank columns for every probe, so ranks share a stack only
    # within one power of two: stacked ranks 1..50 would cost twice their sum.
    keys: dict[tuple[str, float, int], list[int]] = {}
    for i, c in enumerate(configs):
        bucket = 0 if c.rank is None else math.ceil(math.log2(c.rank))
        keys.setdefault((c.kind, c.dropout, bucket), []).append(i)
    out = []
    for members in keys.values():
        for start in range(0, len(members), max_parallel):
            out.append(np.asarray(members[start : start + max_parallel], dtype=np.int64))
    return out


def _check_configs(configs: Sequence[LinearProbeConfig]) -> None:
    if not configs:
        raise ParameterError(
            "configs", "is empty", "e.g. [LinearProbeConfig(alpha=a) for a in alpha_grid()]"
        )
    for c in configs:
        if c.alpha < 0 or not math.isfinite(c.alpha):
            raise ParameterError("alpha", f"must be a finite number >= 0, got {c.alpha}")
        if c.rank is not None and (c.rank < 1 or c.alpha != 0):
            raise ParameterError("rank", f"must be >= 1 with alpha = 0, got {c}")
        if not 0 <= c.dropout < 1:
            raise ParameterError("dropout", f"must be in [0, 1), got {c.dropout}")


def train_linear_probes(
    configs: Sequence[LinearProbeConfig],
    X_train: Any,
    y_train: Any,
    X_dev: Any,
    y_dev: Any,
    *,
    seed: int,
    n_classes: int | None = None,
    onehot_dim: int | None = None,
    vocab_size: int | None = None,
    normalise: bool = True,
    options: TrainOptions | None = None,
    max_parallel: int = 64,
    onehot_trainable: int | None = None,
    device: str | torch.device = "cpu",
) -> LinearProbeResult:
    """Train linear probes and report dev accuracy and complexity (Pimentel et al. 2020, §6.1).

    Each config is trained on eq. 3 with Adam and early stopping on dev cross-entropy
    (:class:`TrainOptions`); configs of one kind and dropout rate are trained as stacks of up to
    ``max_parallel`` probes in one batched pass (e.g. the whole :func:`alpha_grid` at once).

    Loss scale: the cross-entropy is the minibatch *mean* in bits, as in the released code,
    not eq. 3's sum over the corpus; the alpha grid of §6.1 is meant for this scale.

    Args:
        configs: P :class:`LinearProbeConfig`.
        X_train: float features (N, d) (torch tensor or numpy array, memory-mapped float16 is
            fine: rows are read per minibatch and cast to float32), or int64 word-type ids
            (N,) / (N, k) with ``onehot_dim`` set (one-hot representation; k words per
            example, e.g. 2 for DAL's dependent and head, each with ``onehot_dim`` dims).
        y_train: class ids, shape (N,).
        X_dev: the same as ``X_train`` for the dev set (M examples).
        y_dev: class ids of the dev set, shape (M,).
        seed: drives initialisation, batch order and dropout masks.
        n_classes: C; default max class id in train and dev + 1.
        onehot_dim: size of the trainable type vectors.
        vocab_size: rows of the one-hot table, V; defaults to max id + 1.
        normalise: L2-normalise the probe input (released code; see :func:`normalise_rows`).
        options: optimisation settings.
        max_parallel: largest stack (bounds memory: the one-hot table is stacked too,
            P x V x onehot_dim).
        onehot_trainable: when the training inputs only use ids below this number, the rows
            above it are kept frozen outside the optimiser (see
            :class:`probekit.representations.types.OneHotEmbedding`); default all rows.
        device: where the probes train (:func:`probekit.devices.resolve_device`); the inputs
            stay where they are and are copied per minibatch. Initial weights, batch orders and
            dropout masks are drawn on the CPU, so they are the same on every device.

    Returns:
        :class:`LinearProbeResult`; its arrays are NumPy, its stacks stay on ``device``.
    """
    where = resolve_device(device)
    _check_configs(configs)
    opts = options or TrainOptions()
    y_tr, y_dv = _labels(y_train, "y_train"), _labels(y_dev, "y_dev")
    _check_inputs(X_train, y_tr, X_dev, y_dv, onehot_dim is not None)
    C = n_classes or int(max(y_tr.max(), y_dv.max())) + 1
    if int(max(y_tr.max(), y_dv.max())) >= C or int(min(y_tr.min(), y_dv.min())) < 0:
        raise ParameterError("n_classes", f"labels must lie in 0..{C - 1}")
    init_seed, order_seed, dropout_seed = derived_seeds(seed)
    P = len(configs)
    res = {k: np.zeros(P) for k in ("acc", "loss", "cx", "nuc")}
    rank, best_step, stacks = np.zeros(P, np.int64), np.zeros(P, np.int64), []
    at_cap = np.zeros(P, dtype=bool)
    for members in _groups(configs, max_parallel):
        group = [configs[i] for i in members]
        stack = _build_stack(
            group, X_train, C, onehot_dim, vocab_size, X_dev, normalise, init_seed, onehot_trainable
        ).to(where)
        stopper = _fit_stack(stack, X_train, y_tr, X_dev, y_dv, opts, order_seed, dropout_seed)
        res["loss"][members], res["acc"][members] = stack_loss_and_accuracy(
            stack, X_dev, y_dv, opts.eval_batch_size
        )
        W, b = stack.probes.weight_and_bias()
        res["cx"][members] = stack.probes.complexity()
        res["nuc"][members] = nuclear_norm(W.detach().double(), b.detach().double()).cpu().numpy()
        rank[members] = numerical_rank(W.detach(), b.detach())
        best_step[members] = stopper.best_step
        at_cap[members] = stopper.at_cap
        stacks.append((members, stack))
    return LinearProbeResult(
        list(configs),
        res["acc"],
        res["loss"],
        res["cx"],
        res["nuc"],
        rank,
        best_step,
        at_cap,
        stacks,
    )


def _build_stack(
    group: list[LinearProbeConfig],
    X_train: Any,
    n_classes: int,
    onehot_dim: int | None,
    vocab_size: int | None,
    X_dev: Any,
    normalise: bool,
    seed: int,
    onehot_trainable: int | None = None,
) -> LinearProbeStack:
    embedding = None
    if onehot_dim is not None:
        V = vocab_size or int(max(np.asarray(X_train).max(), np.asarray(X_dev).max())) + 1
        if onehot_trainable is not None and int(np.asarray(X_train).max()) >= onehot_trainable:
            raise ParameterError(
                "onehot_trainable", "training ids reach beyond it; give train types the low ids"
            )
        embedding = OneHotEmbedding(
            V, onehot_dim, n_probes=len(group), seed=seed, n_trainable=onehot_trainable
        )
        k = 1 if np.asarray(X_train[:1]).ndim == 1 else np.asarray(X_train[:1]).shape[1]
        d = k * onehot_dim
    else:
        d = int(np.prod(np.asarray(X_train[:1]).shape[1:]))
    if group[0].kind == "nuclear":
        probes: NuclearNormProbes | RankProbes = NuclearNormProbes(
            d, n_classes, [c.alpha for c in group], seed=seed
        )
    else:
        probes = RankProbes(d, n_classes, [int(c.rank or 0) for c in group], seed=seed)
    return LinearProbeStack(
        probes, embedding=embedding, normalise=normalise, dropout=group[0].dropout
    )
