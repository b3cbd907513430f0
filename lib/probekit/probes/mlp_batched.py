"""The batched trainer of the MLP probe of Kunz & Kuhlmann 2021 (§3.2): K probes in one pass.

Probes may differ in initialisation seed, training subset, data order and input matrix ("view",
e.g. one per layer). Probes that see the same inputs in the same order share every minibatch, so
their first layers form one wide matrix and one matmul serves them all; groups run side by side
as batched matmuls, with a hand-written forward and backward pass, through the one trainer
(:func:`probekit.probes.training.fit_stack`, one fused Adam update of the whole stack). It starts every probe from the same
weights and data order as :func:`probekit.probes.mlp.train_reference`, so the two agree up to
float rounding (see the tests and ``benchmarks/bench_trainer.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from probekit.devices import resolve_device
from probekit.errors import ParameterError
from probekit.probes.mlp import (
    BATCH_SIZE,
    BETAS,
    EPOCHS,
    EPS,
    HIDDEN,
    LR,
    MLPTrainResult,
    ProbeSpec,
    as_labels,
    as_views,
    check_checkpoints,
    check_training_options,
    epoch_orders,
    eval_flops,
    init_params,
    selected_rows,
    train_flops,
)
from probekit.probes.training import StackAdam, TrainOptions, fit_stack

# Rows per forward pass when evaluating, to bound memory on large sets.
_EVAL_CHUNK = 8192

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
        rows = selected_rows(spec.train, N, f"specs[{k}].train")
        eval_rows.append(selected_rows(spec.eval, M, f"specs[{k}].eval"))
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
    """Number of chunks still training at each step t, shape (T,).

    Chunks are sorted longest first, so the active ones are always a prefix, and every slice of the
    stacked state is a contiguous view.
    """
    T = epochs * chunks[0].steps
    totals = np.array([epochs * c.steps for c in chunks])
    return (totals[None, :] > np.arange(T)[:, None]).sum(1)


# --------------------------------------------------------------------------------------------
# Batched trainer: state and step


class _Stack:
    """The stacked parameters, gradients and step buffers of G chunks of c probe slots.

    Layout (transposed, so that no step needs a copy): W1 (G, c*h, d) holds the c first layers of
    a chunk as one wide matrix; b1 (G, c*h, 1); W2 (G*c, C, h); b2 (G*c, C, 1). Hidden
    activations are (G, c*h, B), which views as (G*c, h, B) for the second layer's bmm.
    Everything lives on ``device``.
    """

    def __init__(
        self, G: int, c: int, h: int, d: int, C: int, B: int, device: torch.device | None = None
    ):
        self.G, self.c, self.h, self.d, self.C, self.B = G, c, h, d, C, B
        on = {"device": device}
        self.params = [
            torch.zeros(G, c * h, d, **on),
            torch.zeros(G, c * h, 1, **on),
            torch.zeros(G * c, C, h, **on),
            torch.zeros(G * c, C, 1, **on),
        ]
        self.grads = [torch.zeros_like(p) for p in self.params]
        self.alive = torch.zeros(G, c, 1, 1, **on)  # 1 for a real probe, 0 for a padding slot
        self.Xb = torch.empty(G, B, d, **on)
        self.H = torch.empty(G, c * h, B, **on)
        self.Z = torch.empty(G * c, C, B, **on)
        self.dH = torch.empty(G * c, h, B, **on)
        self.onehot = torch.zeros(G, C, B, **on)

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
    eval_loss: np.ndarray  # (K, epochs)
    pred_best: np.ndarray  # (K, M)
    epoch_pred: np.ndarray | None  # (U, epochs, M)
    epoch_loss: np.ndarray | None  # (U, epochs, M)
    rec: _Recorder | None
    loss_train: np.ndarray | None  # (U, N)
    loss_eval: np.ndarray | None  # (U, M)
    yt_host: torch.Tensor  # (N,) yt on the CPU, where the schedule is planned


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
    record_epochs: bool = False,
    record_train: bool = True,
    workers: int | None = None,
    device: str | torch.device = "cpu",
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
    eval subset (accuracy and mean cross-entropy). ``record_epochs`` also keeps every epoch's
    predictions and losses on all evaluation rows, so that other subsets can be scored later
    (:func:`probekit.probes.mlp.epoch_results`). Returns a :class:`MLPTrainResult` with K rows
    in spec order.

    ``record_train=False`` leaves the training rows out of the checkpoint and final-loss records
    (``ckpt_*_train`` and ``loss_train`` are None) and scores each probe there only on the
    evaluation rows that its chunk evaluates (the union of its chunk's eval subsets; other rows
    stay 0). A scoring ensemble that only needs the examples it did not train on (cross-fitting,
    passed as evaluation rows) then pays for no other row.

    ``workers`` (default: ``torch.get_num_threads()``) splits the chunks between that many
    threads, each running single-threaded torch ops; torch's thread count is restored afterwards.
    Probes are independent, so workers never wait for each other, which keeps the trainer fast
    when other processes share the cores (per-op thread barriers then stall). Results do not
    depend on timing; they may differ in the last float bits between different ``workers``.

    ``device`` (:func:`probekit.devices.resolve_device`): where the inputs, the stacked weights
    and every step live; results come back as NumPy arrays. Initial weights and data orders are
    drawn on the CPU, so they are the same on every device. On a GPU one worker drives all chunks
    (the threads only serve to spread CPU work over cores).
    """
    where = resolve_device(device)
    check_training_options(n_classes, epochs, batch_size, hidden)
    if len(specs) == 0:
        raise ParameterError("specs", "is empty: give at least one ProbeSpec")
    if workers is not None and int(workers) < 1:
        raise ParameterError("workers", f"must be >= 1, got {workers}")
    Xt, Xe = as_views(X_train, "X_train").to(where), as_views(X_eval, "X_eval").to(where)
    V, N, d = Xt.shape
    if Xe.shape[0] != V or Xe.shape[2] != d:
        raise ParameterError(
            "X_eval", f"shape {tuple(Xe.shape)} does not match X_train's {tuple(Xt.shape)}"
        )
    M = Xe.shape[1]
    yt_host = as_labels(y_train, N, n_classes, "y_train")
    yt = yt_host.to(where)
    ye = as_labels(y_eval, M, n_classes, "y_eval").to(where)
    distinct, of_spec, eval_rows, groups = _plan(specs, N, M, V)
    width = _chunk_width([len(ids) for ids in groups.values()])
    chunks = _chunks(distinct, groups, width, batch_size)
    ckpts = check_checkpoints(checkpoints, epochs * chunks[-1].steps)
    U, K = len(distinct), len(specs)
    specs_of: list[list[int]] = [[] for _ in range(U)]
    for k, u in enumerate(of_spec):
        specs_of[u].append(k)
    job = _Job(
        Xt, yt, Xe, ye, distinct, specs_of, eval_rows, epochs, batch_size, hidden, n_classes,
        lr, width, ckpts,
        acc=np.zeros((K, epochs)),
        eval_loss=np.zeros((K, epochs)),
        pred_best=np.full((K, M), -1, dtype=np.int16),
        epoch_pred=np.zeros((U, epochs, M), np.int16) if record_epochs else None,
        epoch_loss=np.zeros((U, epochs, M), np.float32) if record_epochs else None,
        rec=_Recorder(U, len(ckpts), N, M, record_train) if ckpts else None,
        loss_train=np.zeros((U, N), np.float32) if record_loss and record_train else None,
        loss_eval=np.zeros((U, M), np.float32) if record_loss else None,
        yt_host=yt_host,
    )  # fmt: skip
    n_workers = min(len(chunks), int(workers or torch.get_num_threads()))
    if where.type != "cpu":
        n_workers = 1
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
        ckpt_correct_train=rec.correct_train[of_spec] if rec and record_train else None,
        ckpt_correct_eval=rec.correct_eval[of_spec] if rec else None,
        ckpt_loss_train=rec.loss_train[of_spec] if rec and record_train else None,
        ckpt_loss_eval=rec.loss_eval[of_spec] if rec else None,
        loss_train=job.loss_train[of_spec] if record_loss and record_train else None,
        loss_eval=job.loss_eval[of_spec] if record_loss else None,
        n_trained=U,
        flops=train_flops(probe_steps, batch_size, d, hidden, n_classes)
        + eval_flops(evaluated_rows, d, hidden, n_classes),
        eval_loss=job.eval_loss,
        epoch_pred=job.epoch_pred[of_spec] if record_epochs else None,
        epoch_loss=job.epoch_loss[of_spec] if record_epochs else None,
    )


def _run_part(job: _Job, chunks: list[_Chunk], threads: int | None) -> int:
    """Train one worker's chunks start to finish; returns the probe-rows it evaluated."""
    if threads is not None:
        torch.set_num_threads(threads)
    V, N, d = job.Xt.shape
    M = job.Xe.shape[1]
    device = job.Xt.device
    stack = _Stack(len(chunks), job.width, job.hidden, d, job.n_classes, job.batch_size, device)
    for g, chunk in enumerate(chunks):
        for j, u in enumerate(chunk.members):
            init = init_params(d, job.n_classes, job.distinct[u][3], job.hidden)
            stack.place(g, j, *(t.to(device) for t in init))
    # Each chunk is evaluated on the union of its specs' eval rows (all rows if that is all, or
    # if every epoch is recorded).
    chunk_eval = []
    for chunk in chunks:
        union = np.unique(
            np.concatenate([job.eval_rows[k] for u in chunk.members for k in job.specs_of[u]])
        )
        every = len(union) == M or job.epoch_pred is not None
        chunk_eval.append(None if every else torch.from_numpy(union))
    # The schedule is built on the CPU (from the CPU data orders), then copied once.
    schedule = _schedule(chunks, job.epochs, job.batch_size, N, job.yt_host)
    flat, labels, weight = (t.to(device) for t in schedule)
    active = _active(chunks, job.epochs)
    epoch_end: dict[int, list[int]] = {}
    for g, chunk in enumerate(chunks):
        for e in range(job.epochs):
            epoch_end.setdefault((e + 1) * chunk.steps - 1, []).append(g)
    X_flat = job.Xt.view(V * N, d)
    evaluated_rows = 0  # probe-rows of evaluation, for the FLOP count
    c = stack.c

    def backward(t: int, _: torch.Generator) -> tuple[int, ...]:
        g = int(active[t])
        _train_step(stack, g, X_flat, flat[t, :g], labels[t, :g], weight[t, :g])
        return (g, g, g * c, g * c)  # the chunks still training lead the stack

    def after_step(step: int) -> None:
        nonlocal evaluated_rows
        if step in job.ckpts:
            with torch.inference_mode():
                for i, chunk in enumerate(chunks):
                    evaluated_rows += job.rec.record(
                        job.ckpts.index(step), stack, i, chunk, job, chunk_eval[i]
                    )
        for i in epoch_end.get(step - 1, ()):
            epoch = step // chunks[i].steps - 1
            evaluated_rows += _evaluate(job, stack, i, chunks[i], epoch, chunk_eval[i])

    # All active chunks started together, so they share Adam's step count.
    fit_stack(
        TrainOptions(max_steps=len(active)),
        StackAdam(stack.params, job.lr, betas=BETAS, eps=EPS, fused=True, grads=stack.grads),
        batches=lambda _: range(len(active)),
        backward=backward,
        after_step=after_step,
    )
    if job.loss_eval is not None:
        with torch.inference_mode():
            for i, chunk in enumerate(chunks):
                n, params = len(chunk.members), stack.chunk_params(i)
                if job.loss_train is not None:
                    loss = _chunk_score(params, job.Xt[chunk.view], job.yt)[2]
                    job.loss_train[chunk.members] = loss[:n].cpu().numpy()
                    evaluated_rows += n * N
                rows = chunk_eval[i] if job.loss_train is None else None
                X, y, where = _eval_rows(job, chunk, rows)
                loss = _chunk_score(params, X, y)[2]
                job.loss_eval[np.asarray(chunk.members)[:, None], where] = loss[:n].cpu().numpy()
                evaluated_rows += n * len(y)
    return evaluated_rows


def _eval_rows(
    job: _Job, chunk: _Chunk, rows: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor, np.ndarray]:
    """A chunk's evaluation inputs (m, d), labels (m,) and their row numbers (1, m) or all.

    ``rows`` (CPU) are copied to the inputs' device to select them.
    """
    Xe, ye = job.Xe[chunk.view], job.ye
    if rows is None:
        return Xe, ye, np.arange(len(ye))[None, :]
    on = rows.to(Xe.device)
    return Xe[on], ye[on], rows.numpy()[None, :]


def _evaluate(
    job: _Job, stack: _Stack, g: int, chunk: _Chunk, epoch: int, rows: torch.Tensor | None
) -> int:
    """Accuracy and loss of chunk g's probes after ``epoch`` on each of their specs' eval subsets.

    Fills job.acc[k, epoch], job.eval_loss[k, epoch] and, on improvement, job.pred_best[k]
    (and the epoch's records on all rows, if kept). ``rows`` are the eval rows to score
    (None = all). Returns the probe-rows evaluated.
    """
    Xe = job.Xe[chunk.view]
    X, y, _ = _eval_rows(job, chunk, rows)
    with torch.inference_mode():
        pred, correct, loss = _chunk_score(stack.chunk_params(g), X, y)
    pred, correct, loss = pred.cpu().numpy(), correct.cpu().numpy(), loss.cpu().numpy()
    if job.epoch_pred is not None:  # rows is None: every row was scored
        n = len(chunk.members)
        job.epoch_pred[chunk.members, epoch] = pred[:n]
        job.epoch_loss[chunk.members, epoch] = loss[:n]
    # Position of every eval row in the evaluated set (identity when all rows were evaluated).
    where = None if rows is None else np.full(Xe.shape[0], -1, dtype=np.int64)
    if where is not None:
        where[rows.numpy()] = np.arange(len(rows))
    acc, pred_best = job.acc, job.pred_best
    for j, u in enumerate(chunk.members):
        for k in job.specs_of[u]:
            cols = job.eval_rows[k] if where is None else where[job.eval_rows[k]]
            acc[k, epoch] = correct[j, cols].mean()
            job.eval_loss[k, epoch] = loss[j, cols].mean(dtype=np.float64)
            if acc[k, epoch] > acc[k, :epoch].max(initial=-1.0):
                pred_best[k, job.eval_rows[k]] = pred[j, cols]
    return len(chunk.members) * len(y)


class _Recorder:
    """Per distinct probe, correctness and loss at each checkpoint on train and eval rows.

    With ``train`` all train rows and all eval rows are recorded; without, only the eval rows
    that each chunk evaluates.
    """

    def __init__(self, U: int, n_ck: int, N: int, M: int, train: bool = True):
        self.train = train
        if train:
            self.correct_train = np.zeros((U, n_ck, N), bool)
            self.loss_train = np.zeros((U, n_ck, N), np.float32)
        self.correct_eval = np.zeros((U, n_ck, M), bool)
        self.loss_eval = np.zeros((U, n_ck, M), np.float32)

    def record(
        self, i: int, stack: _Stack, g: int, chunk: _Chunk, job: _Job, rows: torch.Tensor | None
    ) -> int:
        """Record checkpoint i of chunk g; returns the probe-rows scored."""
        n, params = len(chunk.members), stack.chunk_params(g)
        members = np.asarray(chunk.members)[:, None]
        scored = 0
        if self.train:
            _, correct, loss = _chunk_score(params, job.Xt[chunk.view], job.yt)
            self.correct_train[chunk.members, i] = correct[:n].cpu().numpy()
            self.loss_train[chunk.members, i] = loss[:n].cpu().numpy()
            scored += n * len(job.yt)
            rows = None
        X, y, where = _eval_rows(job, chunk, rows)
        _, correct, loss = _chunk_score(params, X, y)
        self.correct_eval[members, i, where] = correct[:n].cpu().numpy()
        self.loss_eval[members, i, where] = loss[:n].cpu().numpy()
        return scored + n * len(y)
