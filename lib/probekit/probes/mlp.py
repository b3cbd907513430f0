"""The MLP probe of Kunz & Kuhlmann 2021 (§3.2), its specification and the reference trainer.

The probe is ``Linear(d, 64) → ReLU → Linear(64, C)`` trained with cross-entropy and Adam
(lr 1e-3, batch 64) for a few epochs, keeping the best epoch's evaluation accuracy.

- :func:`train_reference` trains one probe at a time, written plainly with a ``DataLoader`` over
  a ``TensorDataset`` and ``torch.optim.Adam``, as the released code does. It is the baseline.
- :func:`probekit.probes.mlp_batched.train_batched` trains K probes in one pass. Probes may
  differ in initialisation seed, training subset, data order and input matrix ("view", e.g. one
  per layer). Probes that see the same inputs in the same order share every minibatch, so their
  first layers form one wide matrix and one matmul serves them all; groups run side by side as
  batched matmuls.

Both trainers build a probe's initial weights with :func:`init_params` from a
``torch.Generator`` seeded with the probe's ``seed``, and its data order with
:func:`epoch_orders` from a separate ``order_seed`` (``None`` = fixed corpus order, the released
code's ``shuffle=False``), so the two trainers start from the same weights and see the same
batches. No global RNG state is touched.

Differences from the released code (jekunz/extrapolation, ``classifier.py``): the paper's 5
epochs are the default (the code ran 10); update checkpoints count real updates (the code
counted 64 per batch and checked before incrementing, which put its checkpoints after batches
1, 2, 3, 5, 9, ...); the final per-example losses come from the final weights on both train and
eval examples (the code took train losses during the last epoch with batch size 1); the
prediction is the argmax (the code counted every tied class as correct).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from probekit.devices import resolve_device
from probekit.errors import ParameterError

HIDDEN = 64
LR = 1e-3
BATCH_SIZE = 64
EPOCHS = 5
BETAS = (0.9, 0.999)
EPS = 1e-8


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
    ``eval_loss`` (K, epochs) is the mean cross-entropy after each epoch on each probe's eval
    subset (what :func:`loss_still_falling` reads). With ``record_epochs``: the predictions
    ``epoch_pred`` (K, epochs, M) int16 and cross-entropies ``epoch_loss`` (K, epochs, M)
    float32 after every epoch on *all* M evaluation rows, from which :func:`epoch_results`
    scores any evaluation subset later.
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
    eval_loss: np.ndarray | None = None
    epoch_pred: np.ndarray | None = None
    epoch_loss: np.ndarray | None = None

    @property
    def best_acc(self) -> np.ndarray:
        """Best-epoch accuracy per probe, shape (K,) (Kunz & Kuhlmann 2021, §3.6)."""
        return self.acc.max(axis=1)

    @property
    def best_epoch(self) -> np.ndarray:
        """0-based index of the first epoch reaching :attr:`best_acc`, shape (K,)."""
        return self.acc.argmax(axis=1)

    @property
    def still_falling(self) -> np.ndarray:
        """:func:`loss_still_falling` of :attr:`eval_loss`, bool (K,)."""
        if self.eval_loss is None:
            raise ParameterError("eval_loss", "was not recorded by this trainer")
        return loss_still_falling(self.eval_loss)


def loss_still_falling(eval_loss: np.ndarray) -> np.ndarray:
    """Whether each run's evaluation loss was still falling when its epochs ran out, bool (K,).

    ``eval_loss`` (K, epochs): the mean cross-entropy on the run's evaluation examples after each
    epoch. A run is still falling when its last epoch has the lowest loss of all its epochs
    (strictly below every earlier one): it had not turned yet, so more epochs might still
    change its best-epoch accuracy. Kunz & Kuhlmann 2021 (§3.2, §3.6) train for a fixed number
    of epochs and report the best one, so the epoch budget, not early stopping, decides whether
    a probe converged; the share of such runs is the Part IV analogue of the share of runs that
    end at an early-stopping cap. A run of one epoch is always still falling.
    """
    loss = np.asarray(eval_loss, dtype=np.float64)
    if loss.ndim != 2 or loss.shape[1] < 1:
        raise ParameterError("eval_loss", f"must have shape (K, epochs), got {loss.shape}")
    if loss.shape[1] == 1:
        return np.ones(loss.shape[0], dtype=bool)
    return loss[:, -1] < loss[:, :-1].min(axis=1)


def epoch_results(
    epoch_pred: np.ndarray,
    epoch_loss: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray | None,
    folds: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-epoch accuracy and loss, and chosen-epoch predictions, of recorded probes on a subset.

    ``epoch_pred`` (K, epochs, M) and ``epoch_loss`` (K, epochs, M) as recorded with
    ``record_epochs``; ``y`` (M,) gold labels; ``rows`` the evaluation subset (bool mask (M,),
    index array, or None for all). Returns ``acc`` (K, epochs) and ``eval_loss`` (K, epochs) on
    ``rows``, and ``pred_best`` (K, M) int16, the predictions on ``rows`` at the chosen epoch,
    -1 elsewhere.

    Without ``folds`` the chosen epoch is the first best on ``rows`` themselves, exactly what the
    trainers give a probe trained with ``eval=rows`` (Kunz & Kuhlmann 2021, §3.6: the best of
    the epochs, per evaluation set). That choice is scored on the items it was made on, which
    flatters every probe by its luckiest epoch. ``folds`` (M,) int, a fold per evaluation row
    (e.g. per sentence), cross-fits the choice instead: the rows of each fold get the
    predictions of the epoch that is best on the subset's rows of the other folds, so that no
    item helps choose the epoch it is scored at. A fold with no other fold in the subset keeps
    its own best epoch.
    """
    epoch_pred, epoch_loss = np.asarray(epoch_pred), np.asarray(epoch_loss)
    if epoch_pred.ndim != 3 or epoch_loss.shape != epoch_pred.shape:
        raise ParameterError(
            "epoch_pred", f"must be (K, epochs, M) like epoch_loss, got {epoch_pred.shape} "
            f"and {epoch_loss.shape}",
        )  # fmt: skip
    K, _, M = epoch_pred.shape
    picked = selected_rows(rows, M, "rows")
    pred = epoch_pred[:, :, picked]
    right = pred == np.asarray(y)[picked]  # (K, epochs, |rows|)
    acc = right.mean(axis=2)
    loss = epoch_loss[:, :, picked].astype(np.float64).mean(axis=2)
    pred_best = np.full((K, M), -1, dtype=np.int16)
    if folds is None:
        pred_best[:, picked] = pred[np.arange(K), acc.argmax(axis=1)]
        return acc, pred_best, loss
    fold = np.asarray(folds)
    if fold.shape != (M,):
        raise ParameterError("folds", f"must have shape ({M},), got {fold.shape}")
    fold = fold[picked]
    for f in np.unique(fold):
        mine = fold == f
        others = ~mine if (~mine).any() else mine
        epoch = right[:, :, others].mean(axis=2).argmax(axis=1)  # (K,)
        at = np.flatnonzero(mine)
        pred_best[:, picked[at]] = pred[np.arange(K)[:, None], epoch[:, None], at]
    return acc, pred_best, loss


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


def as_views(X: object, name: str) -> torch.Tensor:
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


def as_labels(y: object, n: int, n_classes: int, name: str) -> torch.Tensor:
    """Labels ``y`` as int64 (n,), checked to lie in [0, n_classes); errors name ``name``."""
    t = torch.as_tensor(np.asarray(y), dtype=torch.int64)
    if t.shape != (n,):
        raise ParameterError(name, f"must have shape ({n},), got {tuple(t.shape)}")
    if n and (int(t.min()) < 0 or int(t.max()) >= n_classes):
        raise ParameterError(name, f"labels must lie in [0, {n_classes}), n_classes={n_classes}")
    return t


def selected_rows(select: np.ndarray | None, n: int, name: str) -> np.ndarray:
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


def check_training_options(n_classes: int, epochs: int, batch_size: int, hidden: int) -> None:
    """Raise :class:`ParameterError` unless every argument is at least 1."""
    for value, name in ((n_classes, "n_classes"), (epochs, "epochs"), (hidden, "hidden")):
        if int(value) < 1:
            raise ParameterError(name, f"must be >= 1, got {value}")
    if int(batch_size) < 1:
        raise ParameterError("batch_size", f"must be >= 1, got {batch_size}")


def check_checkpoints(checkpoints: Sequence[int], max_updates: int) -> tuple[int, ...]:
    """``checkpoints`` as ints, checked to be distinct, >= 1 and at most ``max_updates``."""
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


def train_flops(n_probe_steps: float, batch: int, d: int, hidden: int, C: int) -> float:
    """Matmul FLOPs of forward + backward (no input gradient) per the given probe-steps."""
    return n_probe_steps * (4 * batch * d * hidden + 6 * batch * hidden * C)


def eval_flops(n_probe_rows: float, d: int, hidden: int, C: int) -> float:
    """Matmul FLOPs of the forward pass over the given probe-rows (evaluation)."""
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
    record_epochs: bool = False,
    device: str | torch.device = "cpu",
) -> MLPTrainResult:
    """Train one §3.2 probe the plain way: DataLoader over a TensorDataset, ``torch.optim.Adam``.

    Kunz & Kuhlmann 2021, §3.2 and §3.6 (best epoch accuracy). ``X_train`` (N, d) or (V, N, d)
    with labels (N,); ``X_eval`` (M, d) or (V, M, d) with labels (M,); ``spec.view`` picks the
    view. This is the baseline :func:`train_batched` must reproduce; see :class:`MLPTrainResult`.
    ``device`` (:func:`probekit.devices.resolve_device`): where the probe and the data live;
    the initial weights and orders are drawn on the CPU.
    """
    where = resolve_device(device)
    check_training_options(n_classes, epochs, batch_size, hidden)
    Xt_all = as_views(X_train, "X_train").to(where)
    Xe_all = as_views(X_eval, "X_eval").to(where)
    if not 0 <= spec.view < Xt_all.shape[0] or Xe_all.shape[0] != Xt_all.shape[0]:
        raise ParameterError("spec.view", f"{spec.view} is not a view of X_train and X_eval")
    Xt, Xe = Xt_all[spec.view], Xe_all[spec.view]
    N, M, d = Xt.shape[0], Xe.shape[0], Xt.shape[1]
    yt = as_labels(y_train, N, n_classes, "y_train").to(where)
    ye = as_labels(y_eval, M, n_classes, "y_eval").to(where)
    rows = selected_rows(spec.train, N, "spec.train")
    eval_rows_cpu = selected_rows(spec.eval, M, "spec.eval")
    eval_rows = torch.from_numpy(eval_rows_cpu).to(where)
    steps = math.ceil(len(rows) / batch_size)
    ckpts = check_checkpoints(checkpoints, epochs * steps)

    probe = make_probe(d, n_classes, spec.seed, hidden).to(where)
    optimizer = torch.optim.Adam(probe.parameters(), lr=lr, betas=BETAS, eps=EPS)
    picked = torch.from_numpy(rows).to(where)
    dataset = TensorDataset(Xt[picked], yt[picked])
    orders = epoch_orders(len(rows), epochs, spec.order_seed)
    n_ck = len(ckpts)
    ck_ct, ck_lt = np.zeros((1, n_ck, N), bool), np.zeros((1, n_ck, N), np.float32)
    ck_ce, ck_le = np.zeros((1, n_ck, M), bool), np.zeros((1, n_ck, M), np.float32)
    acc, eval_loss = np.zeros((1, epochs)), np.zeros((1, epochs))
    pred_best = np.full((1, M), -1, dtype=np.int16)
    epoch_pred = np.zeros((1, epochs, M), np.int16) if record_epochs else None
    epoch_loss = np.zeros((1, epochs, M), np.float32) if record_epochs else None
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
                    ck_ct[0, i], ck_lt[0, i] = (a.cpu().numpy() for a in _score(probe(Xt), yt))
                    ck_ce[0, i], ck_le[0, i] = (a.cpu().numpy() for a in _score(probe(Xe), ye))
        with torch.inference_mode():
            logits = probe(Xe[eval_rows])
            pred = logits.argmax(1)
            eval_loss[0, epoch] = float(F.cross_entropy(logits, ye[eval_rows]).double())
            if record_epochs:
                every = probe(Xe)
                epoch_pred[0, epoch] = every.argmax(1).cpu().numpy()
                epoch_loss[0, epoch] = F.cross_entropy(every, ye, reduction="none").cpu().numpy()
        acc[0, epoch] = float((pred == ye[eval_rows]).double().mean())
        if acc[0, epoch] > acc[0, :epoch].max(initial=-1.0):
            pred_best[0, eval_rows_cpu] = pred.cpu().numpy()
    loss_train = loss_eval = None
    if record_loss:
        with torch.inference_mode():
            loss_train = _score(probe(Xt), yt)[1].cpu().numpy()[None]
            loss_eval = _score(probe(Xe), ye)[1].cpu().numpy()[None]
    evaluated = (
        epochs * len(eval_rows)
        + n_ck * (N + M)
        + (N + M) * record_loss
        + epochs * M * record_epochs
    )
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
        flops=train_flops(epochs * steps, batch_size, d, hidden, n_classes)
        + eval_flops(evaluated, d, hidden, n_classes),
        eval_loss=eval_loss,
        epoch_pred=epoch_pred,
        epoch_loss=epoch_loss,
    )
