"""The MLP probe of Kunz & Kuhlmann 2021 (§3.2) and two trainers for it.

The probe is ``Linear(d, 64) → ReLU → Linear(64, C)`` trained with cross-entropy and Adam
(lr 1e-3, batch 64) for a few epochs, keeping the best epoch's evaluation accuracy.

- :func:`train_reference` trains one probe at a time, written plainly with a ``DataLoader`` over
  a ``TensorDataset`` and ``torch.optim.Adam``, as the released code does. It is the baseline.
- :func:`train_batched` trains K probes in one pass. Probes may differ in initialisation seed,
  training subset, data order and input matrix ("view", e.g. one per layer). Probes that see the
  same inputs in the same order share every minibatch, so their first layers form one wide
  matrix and one matmul serves them all; groups run side by side as batched matmuls.

Both trainers build a probe's initial weights with :func:`init_params` from a
``torch.Generator`` seeded with the probe's ``seed``, and its data order with
:func:`epoch_orders` from a separate ``order_seed`` (``None`` = fixed corpus order, the released
code's ``shuffle=False``), so the two trainers start from the same weights and see the same
batches. No global RNG state is touched.

Differences from the released code (jekunz/extrapolation, `classifier.py`): the paper's 5 epochs are the
default (the code ran 10); update checkpoints count real updates (the code counted 64 per batch
and checked before incrementing, which put its checkpoints after batches 1, 2, 3, 5, 9, ...);
the final per-example losses come from the final weights on both train and eval examples (the
code took train losses during the last epoch with batch size 1); the prediction is the argmax
(the code counted every tied class as correct).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from probekit.errors import ParameterError
from probekit.probes.training import adam_update

HIDDEN = 64
LR = 1e-3
BATCH_SIZE = 64
EPOCHS = 5
BETAS = (0.9, 0.999)
EPS = 1e-8
# Rows per forward pass when evaluating, to bound memory on large sets.
_EVAL_CHUNK = 8192


@dataclass(frozen=True, eq=False)
class ProbeSpec:
    """What distinguishes one probe: init ``seed``, input ``view``, data order and subsets.

    ``train`` selects training examples (bool mask (N,) or index array; None = all), ``eval``
    the evaluation examples (bool mask (M,) or index array; None = all). Index arrays are
    treated as sets: training visits the selected rows in corpus order, or in the order drawn
    from ``order_seed``.
    """

    seed: int
    view: int = 0
    order_seed: int | None = None
    train: np.ndarray | None = None
    eval: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class MLPTrainResult:
    """Outcome of training K probes (K = 1 for :func:`train_reference`).

    Accuracies are fractions in [0, 1]. ``acc`` (K, epochs) is the evaluation accuracy after
    each epoch, on each probe's eval subset. ``pred_best`` (K, M) holds the predictions at each
    probe's best epoch on the rows it was evaluated on, -1 elsewhere. ``n_updates`` (K,) counts
    batch updates. Recorded at the update counts in ``checkpoints`` (if any), on *all* N training
    and M evaluation rows: ``ckpt_correct_train`` (K, n_ckpt, N) bool, ``ckpt_loss_train``
    (K, n_ckpt, N) float32 and the same for eval with M. With ``record_loss``: per-example
    cross-entropy of the final weights, ``loss_train`` (K, N) and ``loss_eval`` (K, M).
    ``flops`` counts the matmul FLOPs of training (forward and backward) and evaluation;
    ``n_trained`` the distinct probes actually trained (identical specs are trained once).
    """

    specs: tuple[ProbeSpec, ...]
    acc: np.ndarray
    pred_best: np.ndarray
    n_updates: np.ndarray
    checkpoints: tuple[int, ...] = ()
    ckpt_correct_train: np.ndarray | None = None
    ckpt_correct_eval: np.ndarray | None = None
    ckpt_loss_train: np.ndarray | None = None
    ckpt_loss_eval: np.ndarray | None = None
    loss_train: np.ndarray | None = None
    loss_eval: np.ndarray | None = None
    n_trained: int = 0
    flops: float = 0.0

    @property
    def best_acc(self) -> np.ndarray:
        """Best-epoch accuracy per probe, shape (K,) (Kunz & Kuhlmann 2021, §3.6)."""
        return self.acc.max(axis=1)

    @property
    def best_epoch(self) -> np.ndarray:
        """0-based index of the first epoch reaching :attr:`best_acc`, shape (K,)."""
        return self.acc.argmax(axis=1)


# --------------------------------------------------------------------------------------------
# The probe, its initialisation and the data order


def init_params(
    d_in: int, n_classes: int, seed: int, hidden: int = HIDDEN
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Initial weights of one probe: W1 (hidden, d_in), b1 (hidden,), W2 (C, hidden), b2 (C,).

    Kunz & Kuhlmann 2021, §3.2. The distribution is PyTorch's ``nn.Linear`` default, U(-1/√fan_in,
    1/√fan_in) for weights and biases, drawn in ``nn.Linear`` order from
    ``torch.Generator().manual_seed(seed)``, so no global RNG state is used. The layout is
    ``nn.Linear``'s (out, in), which is also the batched trainer's.
    """
    g = torch.Generator().manual_seed(int(seed))
    bound1, bound2 = 1.0 / math.sqrt(d_in), 1.0 / math.sqrt(hidden)
    W1 = torch.empty(hidden, d_in).uniform_(-bound1, bound1, generator=g)
    b1 = torch.empty(hidden).uniform_(-bound1, bound1, generator=g)
    W2 = torch.empty(n_classes, hidden).uniform_(-bound2, bound2, generator=g)
    b2 = torch.empty(n_classes).uniform_(-bound2, bound2, generator=g)
    return W1, b1, W2, b2


def make_probe(d_in: int, n_classes: int, seed: int, hidden: int = HIDDEN) -> nn.Sequential:
    """The §3.2 classifier ``Linear(d_in, hidden) → ReLU → Linear(hidden, C)``, seeded init.

    Kunz & Kuhlmann 2021, §3.2. Input (B, d_in), output logits (B, C).
    """
    probe = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))
    W1, b1, W2, b2 = init_params(d_in, n_classes, seed, hidden)
    with torch.no_grad():
        probe[0].weight.copy_(W1)
        probe[0].bias.copy_(b1)
        probe[2].weight.copy_(W2)
        probe[2].bias.copy_(b2)
    return probe


def epoch_orders(n: int, epochs: int, order_seed: int | None) -> np.ndarray:
    """The order in which each epoch visits n training examples, shape (epochs, n).

    Kunz & Kuhlmann 2021, §3.2 (minibatch training; the paper does not say whether data are
    shuffled).
    ``order_seed=None`` is the fixed corpus order (the released code's ``shuffle=False``);
    otherwise one ``torch.randperm`` per epoch, drawn in turn from
    ``torch.Generator().manual_seed(order_seed)``. Both trainers pass these orders explicitly
    (``DataLoader(shuffle=True)`` draws extra numbers from its generator, so its orders differ).
    """
    if order_seed is None:
        return np.tile(np.arange(n, dtype=np.int64), (epochs, 1))
    g = torch.Generator().manual_seed(int(order_seed))
    return np.stack([torch.randperm(n, generator=g).numpy() for _ in range(epochs)])


# --------------------------------------------------------------------------------------------
# Input checking shared by both trainers


def _as_views(X: object, name: str) -> torch.Tensor:
    """A (V, N, d) float32 tensor from one (N, d) matrix, a (V, N, d) array or a list of them."""
    if isinstance(X, torch.Tensor):
        T = X.detach().to(torch.float32)
    elif isinstance(X, np.ndarray):
        arr = np.ascontiguousarray(X, dtype=np.float32)
        T = torch.from_numpy(arr if arr.flags.writeable else arr.copy())
    elif isinstance(X, Sequence) and len(X) > 0:
        shapes = {tuple(np.shape(x)) for x in X}
        if len(shapes) != 1:
            raise ParameterError(name, f"views have different shapes: {sorted(shapes)}")
        T = torch.stack([torch.as_tensor(np.asarray(x, dtype=np.float32)) for x in X])
    else:
        raise ParameterError(name, "must be an (N, d) or (V, N, d) array or a list of views")
    if T.ndim == 2:
        T = T.unsqueeze(0)
    if T.ndim != 3 or T.shape[1] == 0:
        raise ParameterError(name, f"must have shape (N, d) or (V, N, d), got {tuple(T.shape)}")
    return T.contiguous()


def _as_labels(y: object, n: int, n_classes: int, name: str) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(y), dtype=torch.int64)
    if t.shape != (n,):
        raise ParameterError(name, f"must have shape ({n},), got {tuple(t.shape)}")
    if n and (int(t.min()) < 0 or int(t.max()) >= n_classes):
        raise ParameterError(name, f"labels must lie in [0, {n_classes}), n_classes={n_classes}")
    return t


def _rows(select: np.ndarray | None, n: int, name: str) -> np.ndarray:
    """Sorted unique row indices from a bool mask (n,), an index array or None (all rows)."""
    if select is None:
        return np.arange(n, dtype=np.int64)
    sel = np.asarray(select)
    if sel.dtype == bool:
        if sel.shape != (n,):
            raise ParameterError(name, f"mask has shape {sel.shape}, expected ({n},)")
        rows = np.flatnonzero(sel)
    else:
        rows = np.unique(sel.astype(np.int64))
        if len(rows) and (rows[0] < 0 or rows[-1] >= n):
            raise ParameterError(name, f"index out of range for {n} examples")
    if len(rows) == 0:
        raise ParameterError(name, "selects no example", hint="check the easy/hard split sizes")
    return rows


def _check_common(n_classes: int, epochs: int, batch_size: int, hidden: int) -> None:
    for value, name in ((n_classes, "n_classes"), (epochs, "epochs"), (hidden, "hidden")):
        if int(value) < 1:
            raise ParameterError(name, f"must be >= 1, got {value}")
    if int(batch_size) < 1:
        raise ParameterError("batch_size", f"must be >= 1, got {batch_size}")


def _check_checkpoints(checkpoints: Sequence[int], max_updates: int) -> tuple[int, ...]:
    ckpts = tuple(int(c) for c in checkpoints)
    if any(c < 1 for c in ckpts) or len(set(ckpts)) != len(ckpts):
        raise ParameterError("checkpoints", f"must be distinct update counts >= 1, got {ckpts}")
    if ckpts and max(ckpts) > max_updates:
        raise ParameterError(
            "checkpoints",
            f"checkpoint {max(ckpts)} exceeds the {max_updates} updates of a probe",
            hint="use smaller checkpoints, more epochs or a larger training subset",
        )
    return ckpts


def _train_flops(n_probe_steps: float, batch: int, d: int, hidden: int, C: int) -> float:
    """Matmul FLOPs of forward + backward (no input gradient) per the given probe-steps."""
    return n_probe_steps * (4 * batch * d * hidden + 6 * batch * hidden * C)


def _eval_flops(n_probe_rows: float, d: int, hidden: int, C: int) -> float:
    return n_probe_rows * 2 * (d * hidden + hidden * C)


# --------------------------------------------------------------------------------------------
# Reference trainer: one probe, plain PyTorch


def _score(logits: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-example (correct, cross-entropy) from logits (n, C) and labels (n,)."""
    return logits.argmax(1) == y, F.cross_entropy(logits, y, reduction="none")


def train_reference(
    X_train: object,
    y_train: object,
    X_eval: object,
    y_eval: object,
    n_classes: int,
    spec: ProbeSpec,
    *,
    epochs: int = EPOCHS,
    batch_size: int = BATCH_SIZE,
    hidden: int = HIDDEN,
    lr: float = LR,
    checkpoints: Sequence[int] = (),
    record_loss: bool = False,
) -> MLPTrainResult:
    """Train one §3.2 probe the plain way: DataLoader over a TensorDataset, ``torch.optim.Adam``.

    Kunz & Kuhlmann 2021, §3.2 and §3.6 (best epoch accuracy). ``X_train`` (N, d) or (V, N, d)
    with labels (N,); ``X_eval`` (M, d) or (V, M, d) with labels (M,); ``spec.view`` picks the
    view. This is the baseline :func:`train_batched` must reproduce; see :class:`MLPTrainResult`.
    """
    _check_common(n_classes, epochs, batch_size, hidden)
    Xt_all, Xe_all = _as_views(X_train, "X_train"), _as_views(X_eval, "X_eval")
    if not 0 <= spec.view < Xt_all.shape[0] or Xe_all.shape[0] != Xt_all.shape[0]:
        raise ParameterError("spec.view", f"{spec.view} is not a view of X_train and X_eval")
    Xt, Xe = Xt_all[spec.view], Xe_all[spec.view]
    N, M, d = Xt.shape[0], Xe.shape[0], Xt.shape[1]
    yt = _as_labels(y_train, N, n_classes, "y_train")
    ye = _as_labels(y_eval, M, n_classes, "y_eval")
    rows = _rows(spec.train, N, "spec.train")
    eval_rows = torch.from_numpy(_rows(spec.eval, M, "spec.eval"))
    steps = math.ceil(len(rows) / batch_size)
    ckpts = _check_checkpoints(checkpoints, epochs * steps)

    probe = make_probe(d, n_classes, spec.seed, hidden)
    optimizer = torch.optim.Adam(probe.parameters(), lr=lr, betas=BETAS, eps=EPS)
    dataset = TensorDataset(Xt[torch.from_numpy(rows)], yt[torch.from_numpy(rows)])
    orders = epoch_orders(len(rows), epochs, spec.order_seed)
    n_ck = len(ckpts)
    ck_ct, ck_lt = np.zeros((1, n_ck, N), bool), np.zeros((1, n_ck, N), np.float32)
    ck_ce, ck_le = np.zeros((1, n_ck, M), bool), np.zeros((1, n_ck, M), np.float32)
    acc = np.zeros((1, epochs))
    pred_best = np.full((1, M), -1, dtype=np.int16)
    updates = 0
    for epoch in range(epochs):
        loader = DataLoader(dataset, batch_size=batch_size, sampler=orders[epoch].tolist())
        for xb, yb in loader:
            optimizer.zero_grad()
            F.cross_entropy(probe(xb), yb).backward()
            optimizer.step()
            updates += 1
            if updates in ckpts:
                i = ckpts.index(updates)
                with torch.inference_mode():
                    ck_ct[0, i], ck_lt[0, i] = (a.numpy() for a in _score(probe(Xt), yt))
                    ck_ce[0, i], ck_le[0, i] = (a.numpy() for a in _score(probe(Xe), ye))
        with torch.inference_mode():
            pred = probe(Xe[eval_rows]).argmax(1)
        acc[0, epoch] = float((pred == ye[eval_rows]).double().mean())
        if acc[0, epoch] > acc[0, :epoch].max(initial=-1.0):
            pred_best[0, eval_rows.numpy()] = pred.numpy()
    loss_train = loss_eval = None
    if record_loss:
        with torch.inference_mode():
            loss_train = _score(probe(Xt), yt)[1].numpy()[None]
            loss_eval = _score(probe(Xe), ye)[1].numpy()[None]
    evaluated = epochs * len(eval_rows) + n_ck * (N + M) + (N + M) * record_loss
    return MLPTrainResult(
        specs=(spec,),
        acc=acc,
        pred_best=pred_best,
        n_updates=np.array([updates]),
        checkpoints=ckpts,
        ckpt_correct_train=ck_ct if n_ck else None,
        ckpt_correct_eval=ck_ce if n_ck else None,
        ckpt_loss_train=ck_lt if n_ck else None,
        ckpt_loss_eval=ck_le if n_ck else None,
        loss_train=loss_train,
        loss_eval=loss_eval,
        n_trained=1,
        flops=_train_flops(epochs * steps, batch_size, d, hidden, n_classes)
        + _eval_flops(evaluated, d, hidden, n_classes),
    )


# --------------------------------------------------------------------------------------------
# Batched trainer: planning


@dataclass
class _Chunk:
    """Up to ``width`` distinct probes that share every minibatch (same view, rows, order)."""

    view: int
    rows: np.ndarray  # training rows, sorted
    order_seed: int | None
    members: list[int]  # distinct-probe ids, in slot order
    steps: int = 0  # updates per epoch


def _plan(
    specs: Sequence[ProbeSpec], N: int, M: int, V: int
) -> tuple[list[tuple], np.ndarray, list[np.ndarray], dict[tuple, list[int]]]:
    """Normalise specs; dedupe identical probes; group distinct probes by (view, rows, order).

    Returns the distinct probes as (view, rows, order_seed, seed), the distinct id of each of the
    K specs (K,), each spec's eval rows, and the groups {key: [distinct ids]} in first-seen order.
    """
    distinct: list[tuple] = []
    index: dict[tuple, int] = {}
    groups: dict[tuple, list[int]] = {}
    of_spec = np.empty(len(specs), dtype=np.int64)
    eval_rows = []
    for k, spec in enumerate(specs):
        if not 0 <= int(spec.view) < V:
            raise ParameterError(f"specs[{k}].view", f"{spec.view} is not one of {V} views")
        rows = _rows(spec.train, N, f"specs[{k}].train")
        eval_rows.append(_rows(spec.eval, M, f"specs[{k}].eval"))
        order = None if spec.order_seed is None else int(spec.order_seed)
        group_key = (int(spec.view), rows.tobytes(), order)
        key = (*group_key, int(spec.seed))
        if key not in index:
            index[key] = len(distinct)
            distinct.append((int(spec.view), rows, order, int(spec.seed)))
            groups.setdefault(group_key, []).append(index[key])
        of_spec[k] = index[key]
    return distinct, of_spec, eval_rows, groups


def _chunk_width(sizes: Sequence[int]) -> int:
    """Probes per chunk, among the group sizes: fewest padded slots + chunks (ties: wider).

    All chunks must be equally wide for the batched matmuls; a padding slot costs a probe's
    compute and every extra chunk narrows the wide matmul, so both count.
    """
    return min(
        sorted(set(sizes), reverse=True),
        key=lambda c: sum(math.ceil(s / c) * (c + 1) for s in sizes),
    )


def _chunks(
    distinct: list[tuple], groups: dict[tuple, list[int]], width: int, batch_size: int
) -> list[_Chunk]:
    """Split groups into chunks of <= width probes, longest training first (stable)."""
    chunks = []
    for ids in groups.values():
        view, rows, order, _ = distinct[ids[0]]
        for start in range(0, len(ids), width):
            chunk = _Chunk(view, rows, order, ids[start : start + width])
            chunk.steps = math.ceil(len(rows) / batch_size)
            chunks.append(chunk)
    chunks.sort(key=lambda c: -c.steps)
    return chunks


def _schedule(
    chunks: list[_Chunk], epochs: int, batch_size: int, N: int, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per step t and chunk g: flat input rows (T, G, B), labels (T, G, B), weights (T, G, B).

    A partial last batch is padded with row 0 at weight 0; weights are 1/(real batch size), so the
    weighted sum of per-example losses is the batch mean of the reference trainer. Chunks with
    fewer updates than T are padded the same way; they are inactive then (see `_active`).
    """
    T, G, B = epochs * chunks[0].steps, len(chunks), batch_size
    flat = torch.zeros((T, G, B), dtype=torch.int64)
    labels = torch.zeros((T, G, B), dtype=torch.int64)
    weight = torch.zeros((T, G, B), dtype=torch.float32)
    made: dict[tuple, tuple] = {}
    for g, chunk in enumerate(chunks):
        key = (chunk.view, chunk.rows.tobytes(), chunk.order_seed)
        if key not in made:
            n, steps = len(chunk.rows), chunk.steps
            order = chunk.rows[epoch_orders(n, epochs, chunk.order_seed)]  # (epochs, n)
            padded = np.zeros((epochs, steps * B), dtype=np.int64)
            w = np.zeros((epochs, steps * B), dtype=np.float32)
            padded[:, :n] = order
            w[:, :n] = 1.0
            sizes = np.minimum(B, n - np.arange(steps) * B)  # real rows per batch
            w = w.reshape(epochs * steps, B) / np.tile(sizes, epochs)[:, None]
            rows = torch.from_numpy(padded.reshape(epochs * steps, B))
            made[key] = (rows + chunk.view * N, y[rows], torch.from_numpy(w))
        f, lab, w = made[key]
        flat[: len(f), g], labels[: len(f), g], weight[: len(w), g] = f, lab, w
    return flat, labels, weight


def _active(chunks: list[_Chunk], epochs: int) -> np.ndarray:
    """Number of chunks still training at each step t, shape (T,). Chunks are sorted longest
    first, so the active ones are always a prefix, and every slice of the stacked state is a
    contiguous view."""
    T = epochs * chunks[0].steps
    totals = np.array([epochs * c.steps for c in chunks])
    return (totals[None, :] > np.arange(T)[:, None]).sum(1)


# --------------------------------------------------------------------------------------------
# Batched trainer: state and step


class _Stack:
    """The stacked parameters, Adam moments and step buffers of G chunks of c probe slots.

    Layout (transposed, so that no step needs a copy): W1 (G, c*h, d) holds the c first layers of
    a chunk as one wide matrix; b1 (G, c*h, 1); W2 (G*c, C, h); b2 (G*c, C, 1). Hidden
    activations are (G, c*h, B), which views as (G*c, h, B) for the second layer's bmm.
    """

    def __init__(self, G: int, c: int, h: int, d: int, C: int, B: int):
        self.G, self.c, self.h, self.d, self.C, self.B = G, c, h, d, C, B
        self.params = [
            torch.zeros(G, c * h, d),
            torch.zeros(G, c * h, 1),
            torch.zeros(G * c, C, h),
            torch.zeros(G * c, C, 1),
        ]
        self.grads = [torch.zeros_like(p) for p in self.params]
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]
        self.alive = torch.zeros(G, c, 1, 1)  # 1 for a real probe, 0 for a padding slot
        self.Xb = torch.empty(G, B, d)
        self.H = torch.empty(G, c * h, B)
        self.Z = torch.empty(G * c, C, B)
        self.dH = torch.empty(G * c, h, B)
        self.onehot = torch.zeros(G, C, B)
        self.steps = [torch.zeros(()) for _ in self.params]

    def place(self, g: int, j: int, W1, b1, W2, b2) -> None:
        """Put one probe's parameters (nn.Linear layout) into chunk g, slot j."""
        h, s = self.h, g * self.c + j
        self.params[0][g, j * h : (j + 1) * h] = W1
        self.params[1][g, j * h : (j + 1) * h, 0] = b1
        self.params[2][s] = W2
        self.params[3][s, :, 0] = b2
        self.alive[g, j] = 1.0

    def chunk_params(self, g: int) -> tuple[torch.Tensor, ...]:
        c = self.c
        W1, b1, W2, b2 = self.params
        return W1[g], b1[g], W2[g * c : (g + 1) * c], b2[g * c : (g + 1) * c]


def _adam(stack: _Stack, g: int, t: int, lr: float) -> None:
    """One Adam update of the first g chunks, in place (:func:`probekit.probes.training.adam_update`).

    All active chunks started together, so they share the step count t for bias correction.
    """
    c = stack.c
    cut = (g, g, g * c, g * c)
    p = [x[:n] for x, n in zip(stack.params, cut, strict=True)]
    gr = [x[:n] for x, n in zip(stack.grads, cut, strict=True)]
    m = [x[:n] for x, n in zip(stack.exp_avg, cut, strict=True)]
    v = [x[:n] for x, n in zip(stack.exp_avg_sq, cut, strict=True)]
    for step in stack.steps:
        step.fill_(t)
    adam_update(p, gr, m, v, stack.steps, lr, BETAS, EPS)


def _train_step(
    stack: _Stack,
    g: int,
    X_flat: torch.Tensor,
    rows: torch.Tensor,
    labels: torch.Tensor,
    weight: torch.Tensor,
) -> None:
    """Forward and hand-written backward of the first g chunks on their minibatches.

    rows, labels, weight: (g, B). The loss is the sum over probes of each probe's batch-mean
    cross-entropy, so each probe's gradient is the one it would get alone.
    """
    c, h, d, C, B = stack.c, stack.h, stack.d, stack.C, stack.B
    gc = g * c
    W1, b1, W2, b2 = stack.params
    dW1, db1, dW2, db2 = stack.grads
    Xb = stack.Xb[:g]
    torch.index_select(X_flat, 0, rows.reshape(-1), out=Xb.view(g * B, d))
    H = torch.baddbmm(b1[:g], W1[:g], Xb.transpose(1, 2), out=stack.H[:g])  # (g, c*h, B)
    H.relu_()
    Hk = H.view(gc, h, B)
    Z = torch.baddbmm(b2[:gc], W2[:gc], Hk, out=stack.Z[:gc])  # logits (g*c, C, B)
    P = torch.softmax(Z, dim=1)
    onehot = stack.onehot[:g].zero_().scatter_(1, labels.unsqueeze(1), 1.0)
    dZ = P.view(g, c, C, B).sub_(onehot.unsqueeze(1))
    dZ.mul_(stack.alive[:g] * weight.view(g, 1, 1, B))
    dZ = dZ.view(gc, C, B)
    torch.bmm(dZ, Hk.transpose(1, 2), out=dW2[:gc])
    torch.sum(dZ, dim=2, keepdim=True, out=db2[:gc])
    dH = torch.bmm(W2[:gc].transpose(1, 2), dZ, out=stack.dH[:gc])  # (g*c, h, B)
    dH.mul_(torch.sign(Hk))  # Hk >= 0 after the ReLU, so sign() is its derivative mask
    dH = dH.view(g, c * h, B)
    torch.sum(dH, dim=2, keepdim=True, out=db1[:g])
    torch.bmm(dH, Xb, out=dW1[:g])


def _chunk_logits(params: tuple[torch.Tensor, ...], X: torch.Tensor) -> torch.Tensor:
    """Logits of one chunk's c probes on X (m, d), shape (c, m, C), computed in row chunks.

    Classes come last so that argmax and logsumexp reduce over contiguous memory.
    """
    W1, b1, W2, b2 = params
    c, h = W2.shape[0], W2.shape[2]
    out = []
    for start in range(0, X.shape[0], _EVAL_CHUNK):
        Xs = X[start : start + _EVAL_CHUNK]
        H = torch.addmm(b1, W1, Xs.T).relu_()  # (c*h, m)
        out.append(
            torch.baddbmm(b2.transpose(1, 2), H.view(c, h, -1).transpose(1, 2), W2.transpose(1, 2))
        )
    return torch.cat(out, dim=1)


def _chunk_score(
    params: tuple[torch.Tensor, ...], X: torch.Tensor, y: torch.Tensor, loss: bool = True
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Predictions (c, m), correctness (c, m) and cross-entropy (c, m) of one chunk on (X, y)."""
    Z = _chunk_logits(params, X)
    pred = Z.argmax(2)
    if not loss:
        return pred, pred == y, None
    gold = Z.gather(2, y.view(1, -1, 1).expand(Z.shape[0], -1, 1)).squeeze(2)
    return pred, pred == y, torch.logsumexp(Z, 2) - gold


# --------------------------------------------------------------------------------------------
# Batched trainer: driver


@dataclass
class _Job:
    """What every worker reads (inputs, plan) and writes (disjoint rows of the outputs)."""

    Xt: torch.Tensor  # (V, N, d)
    yt: torch.Tensor  # (N,)
    Xe: torch.Tensor  # (V, M, d)
    ye: torch.Tensor  # (M,)
    distinct: list[tuple]  # (view, rows, order_seed, seed) per distinct probe
    specs_of: list[list[int]]  # spec indices of each distinct probe
    eval_rows: list[np.ndarray]  # eval rows of each spec
    epochs: int
    batch_size: int
    hidden: int
    n_classes: int
    lr: float
    width: int
    ckpts: tuple[int, ...]
    acc: np.ndarray  # (K, epochs)
    pred_best: np.ndarray  # (K, M)
    rec: _Recorder | None
    loss_train: np.ndarray | None  # (U, N)
    loss_eval: np.ndarray | None  # (U, M)


def train_batched(
    X_train: object,
    y_train: object,
    X_eval: object,
    y_eval: object,
    n_classes: int,
    specs: Sequence[ProbeSpec],
    *,
    epochs: int = EPOCHS,
    batch_size: int = BATCH_SIZE,
    hidden: int = HIDDEN,
    lr: float = LR,
    checkpoints: Sequence[int] = (),
    record_loss: bool = False,
    workers: int | None = None,
) -> MLPTrainResult:
    """Train K §3.2 probes in one batched pass; same semantics as :func:`train_reference`.

    Kunz & Kuhlmann 2021, §3.2 (probe), §3.6 (best of the epochs), §3.4.3 (checkpoint and loss
    recording for the learning-based scores). ``X_train`` (V, N, d) or a list of V (N, d) views
    (e.g. one per layer, from :func:`probekit.io.tasks.gather_layers`), labels (N,); ``X_eval``
    (V, M, d), labels (M,). ``specs`` (K,) say per probe: init seed, view, training and
    evaluation subsets and order seed (:class:`ProbeSpec`).

    Identical specs up to their eval subsets are trained once. Distinct probes with the same
    (view, training rows, order seed) form a group that shares every minibatch; groups are split
    into equal chunks and chunks step together with batched matmuls, the first layer of each
    chunk being one wide (c*h, d) matrix. Each probe is evaluated after every epoch on its own
    eval subset. Returns a :class:`MLPTrainResult` with K rows in spec order.

    ``workers`` (default: ``torch.get_num_threads()``) splits the chunks between that many
    threads, each running single-threaded torch ops; torch's thread count is restored afterwards.
    Probes are independent, so workers never wait for each other, which keeps the trainer fast
    when other processes share the cores (per-op thread barriers then stall). Results do not
    depend on timing; they may differ in the last float bits between different ``workers``.
    """
    _check_common(n_classes, epochs, batch_size, hidden)
    if len(specs) == 0:
        raise ParameterError("specs", "is empty: give at least one ProbeSpec")
    if workers is not None and int(workers) < 1:
        raise ParameterError("workers", f"must be >= 1, got {workers}")
    Xt, Xe = _as_views(X_train, "X_train"), _as_views(X_eval, "X_eval")
    V, N, d = Xt.shape
    if Xe.shape[0] != V or Xe.shape[2] != d:
        raise ParameterError(
            "X_eval", f"shape {tuple(Xe.shape)} does not match X_train's {tuple(Xt.shape)}"
        )
    M = Xe.shape[1]
    yt = _as_labels(y_train, N, n_classes, "y_train")
    ye = _as_labels(y_eval, M, n_classes, "y_eval")
    distinct, of_spec, eval_rows, groups = _plan(specs, N, M, V)
    width = _chunk_width([len(ids) for ids in groups.values()])
    chunks = _chunks(distinct, groups, width, batch_size)
    ckpts = _check_checkpoints(checkpoints, epochs * chunks[-1].steps)
    U, K = len(distinct), len(specs)
    specs_of: list[list[int]] = [[] for _ in range(U)]
    for k, u in enumerate(of_spec):
        specs_of[u].append(k)
    job = _Job(
        Xt, yt, Xe, ye, distinct, specs_of, eval_rows, epochs, batch_size, hidden, n_classes,
        lr, width, ckpts,
        acc=np.zeros((K, epochs)),
        pred_best=np.full((K, M), -1, dtype=np.int16),
        rec=_Recorder(U, len(ckpts), N, M) if ckpts else None,
        loss_train=np.zeros((U, N), np.float32) if record_loss else None,
        loss_eval=np.zeros((U, M), np.float32) if record_loss else None,
    )  # fmt: skip
    n_workers = min(len(chunks), int(workers or torch.get_num_threads()))
    # Round-robin over chunks sorted by length balances both count and training steps.
    parts = [chunks[w::n_workers] for w in range(n_workers)]
    if n_workers == 1:
        evaluated_rows = _run_part(job, parts[0], threads=None)
    else:
        threads_before = torch.get_num_threads()
        try:
            with ThreadPoolExecutor(n_workers) as pool:
                futures = [pool.submit(_run_part, job, part, 1) for part in parts]
                evaluated_rows = sum(f.result() for f in futures)
        finally:
            torch.set_num_threads(threads_before)
    rec, steps = job.rec, {u: c.steps for c in chunks for u in c.members}
    probe_steps = sum(len(c.members) * epochs * c.steps for c in chunks)
    return MLPTrainResult(
        specs=tuple(specs),
        acc=job.acc,
        pred_best=job.pred_best,
        n_updates=np.array([epochs * steps[u] for u in of_spec]),
        checkpoints=ckpts,
        ckpt_correct_train=rec.correct_train[of_spec] if rec else None,
        ckpt_correct_eval=rec.correct_eval[of_spec] if rec else None,
        ckpt_loss_train=rec.loss_train[of_spec] if rec else None,
        ckpt_loss_eval=rec.loss_eval[of_spec] if rec else None,
        loss_train=job.loss_train[of_spec] if record_loss else None,
        loss_eval=job.loss_eval[of_spec] if record_loss else None,
        n_trained=U,
        flops=_train_flops(probe_steps, batch_size, d, hidden, n_classes)
        + _eval_flops(evaluated_rows, d, hidden, n_classes),
    )


def _run_part(job: _Job, chunks: list[_Chunk], threads: int | None) -> int:
    """Train one worker's chunks start to finish; returns the probe-rows it evaluated."""
    if threads is not None:
        torch.set_num_threads(threads)
    V, N, d = job.Xt.shape
    M = job.Xe.shape[1]
    stack = _Stack(len(chunks), job.width, job.hidden, d, job.n_classes, job.batch_size)
    for g, chunk in enumerate(chunks):
        for j, u in enumerate(chunk.members):
            stack.place(g, j, *init_params(d, job.n_classes, job.distinct[u][3], job.hidden))
    # Each chunk is evaluated on the union of its specs' eval rows (all rows if that is all).
    chunk_eval = []
    for chunk in chunks:
        union = np.unique(
            np.concatenate([job.eval_rows[k] for u in chunk.members for k in job.specs_of[u]])
        )
        chunk_eval.append(None if len(union) == M else torch.from_numpy(union))
    flat, labels, weight = _schedule(chunks, job.epochs, job.batch_size, N, job.yt)
    active = _active(chunks, job.epochs)
    epoch_end: dict[int, list[int]] = {}
    for g, chunk in enumerate(chunks):
        for e in range(job.epochs):
            epoch_end.setdefault((e + 1) * chunk.steps - 1, []).append(g)
    X_flat = job.Xt.view(V * N, d)
    n_probes = sum(len(c.members) for c in chunks)
    evaluated_rows = 0  # probe-rows of evaluation, for the FLOP count
    for t in range(len(active)):
        g = int(active[t])
        _train_step(stack, g, X_flat, flat[t, :g], labels[t, :g], weight[t, :g])
        _adam(stack, g, t, job.lr)
        if t + 1 in job.ckpts:
            with torch.inference_mode():
                for i, chunk in enumerate(chunks):
                    job.rec.record(job.ckpts.index(t + 1), stack, i, chunk, job)
            evaluated_rows += n_probes * (N + M)
        for i in epoch_end.get(t, ()):
            epoch = (t + 1) // chunks[i].steps - 1
            evaluated_rows += _evaluate(job, stack, i, chunks[i], epoch, chunk_eval[i])
    if job.loss_train is not None:
        with torch.inference_mode():
            for i, chunk in enumerate(chunks):
                n, params = len(chunk.members), stack.chunk_params(i)
                loss = _chunk_score(params, job.Xt[chunk.view], job.yt)[2]
                job.loss_train[chunk.members] = loss[:n].numpy()
                loss = _chunk_score(params, job.Xe[chunk.view], job.ye)[2]
                job.loss_eval[chunk.members] = loss[:n].numpy()
        evaluated_rows += n_probes * (N + M)
    return evaluated_rows


def _evaluate(
    job: _Job, stack: _Stack, g: int, chunk: _Chunk, epoch: int, rows: torch.Tensor | None
) -> int:
    """Accuracy of chunk g's probes after ``epoch`` on each of their specs' eval subsets.

    Fills job.acc[k, epoch] and, on improvement, job.pred_best[k]. ``rows`` are the eval rows
    to score (None = all). Returns the probe-rows evaluated.
    """
    Xe, ye = job.Xe[chunk.view], job.ye
    X, y = (Xe, ye) if rows is None else (Xe[rows], ye[rows])
    with torch.inference_mode():
        pred, correct, _ = _chunk_score(stack.chunk_params(g), X, y, loss=False)
    pred, correct = pred.numpy(), correct.numpy()
    # Position of every eval row in the evaluated set (identity when all rows were evaluated).
    where = None if rows is None else np.full(Xe.shape[0], -1, dtype=np.int64)
    if where is not None:
        where[rows.numpy()] = np.arange(len(rows))
    acc, pred_best = job.acc, job.pred_best
    for j, u in enumerate(chunk.members):
        for k in job.specs_of[u]:
            cols = job.eval_rows[k] if where is None else where[job.eval_rows[k]]
            acc[k, epoch] = correct[j, cols].mean()
            if acc[k, epoch] > acc[k, :epoch].max(initial=-1.0):
                pred_best[k, job.eval_rows[k]] = pred[j, cols]
    return len(chunk.members) * len(y)


class _Recorder:
    """Per distinct probe, correctness and loss at each checkpoint on all train and eval rows."""

    def __init__(self, U: int, n_ck: int, N: int, M: int):
        self.correct_train = np.zeros((U, n_ck, N), bool)
        self.loss_train = np.zeros((U, n_ck, N), np.float32)
        self.correct_eval = np.zeros((U, n_ck, M), bool)
        self.loss_eval = np.zeros((U, n_ck, M), np.float32)

    def record(self, i: int, stack: _Stack, g: int, chunk: _Chunk, job: _Job) -> None:
        n, params = len(chunk.members), stack.chunk_params(g)
        _, correct, loss = _chunk_score(params, job.Xt[chunk.view], job.yt)
        self.correct_train[chunk.members, i] = correct[:n].numpy()
        self.loss_train[chunk.members, i] = loss[:n].numpy()
        _, correct, loss = _chunk_score(params, job.Xe[chunk.view], job.ye)
        self.correct_eval[chunk.members, i] = correct[:n].numpy()
        self.loss_eval[chunk.members, i] = loss[:n].numpy()
