"""Softmax-regression probes, many trained at once.

The linear probe of chapter 01 and the logistic regression of Zhu et al. 2022, §4.1
(``hid_sizes = []``: one linear layer, cross-entropy, Adam).

:func:`train_softmax_probes` trains K probes together. Probes may differ in initialisation
seed, input matrix ("view", e.g. one per layer), training subset and data order, described by
:class:`probekit.probes.mlp.ProbeSpec` as for the MLP trainer. Each probe minimises its own
batch-mean cross-entropy with its own Adam (torch's defaults), so the result equals training
the K probes one by one with ``nn.Linear`` and ``torch.optim.Adam`` (see the tests). They train
through the one trainer (:func:`probekit.probes.training.fit_stack`) with a hand-written
gradient, for a fixed number of epochs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from probekit.devices import resolve_device
from probekit.errors import ParameterError
from probekit.probes.mlp import ProbeSpec, epoch_orders
from probekit.probes.training import StackAdam, TrainOptions, fit_stack


def train_softmax_probes(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_eval: np.ndarray,
    y_eval: np.ndarray,
    n_classes: int,
    specs: Sequence[ProbeSpec],
    *,
    epochs: int,
    checkpoints: Sequence[int],
    batch_size: int = 64,
    lr: float = 1e-3,
    device: str | torch.device = "cpu",
) -> np.ndarray:
    """Train K softmax-regression probes at once; their correctness at each checkpoint.

    Args:
        X_train: (V, N, d) training inputs, one (N, d) matrix per view.
        y_train: (N,) labels.
        X_eval: (V, M, d) evaluation inputs.
        y_eval: (M,) labels.
        n_classes: C.
        specs: (K,) probes: init ``seed`` (``nn.Linear``'s draw from ``torch.Generator(seed)``),
            ``view``, training rows ``train`` (an index array, treated as a set, all probes the
            same size; None means all N) and ``order_seed`` (epoch orders from
            :func:`probekit.probes.mlp.epoch_orders`).
        epochs: passes over each probe's training rows.
        checkpoints: update counts after which every probe is evaluated.
        batch_size: minibatch size.
        lr: Adam's learning rate.
        device: where the inputs, weights and steps live
            (:func:`probekit.devices.resolve_device`); initial weights and data orders are
            drawn on the CPU, so they are the same on every device.

    Returns:
        bool (K, len(checkpoints), M): whether probe k is right on evaluation row i after the
        given number of updates, checkpoints in ascending order.
    """
    where = resolve_device(device)
    Xt = torch.as_tensor(np.ascontiguousarray(X_train, dtype=np.float32)).to(where)
    Xe = torch.as_tensor(np.ascontiguousarray(X_eval, dtype=np.float32)).to(where)
    if Xt.ndim != 3 or Xe.ndim != 3 or Xt.shape[0] != Xe.shape[0] or Xt.shape[2] != Xe.shape[2]:
        raise ParameterError("X_train", "X_train (V, N, d) and X_eval (V, M, d) must match")
    V, N, d = Xt.shape
    K = len(specs)
    rows = [
        np.arange(N) if s.train is None else np.unique(np.asarray(s.train, dtype=np.int64))
        for s in specs
    ]
    if K == 0 or len({len(r) for r in rows}) != 1 or len(rows[0]) == 0:
        raise ParameterError("specs", "need one or more probes with equally many training rows")
    view = np.array([int(s.view) for s in specs])
    if view.min() < 0 or view.max() >= V:
        raise ParameterError("specs", f"views must lie in 0..{V - 1}")
    n = len(rows[0])
    steps_per_epoch = math.ceil(n / batch_size)
    ckpts = sorted({int(c) for c in checkpoints})
    if not ckpts or ckpts[0] < 1 or ckpts[-1] > epochs * steps_per_epoch:
        raise ParameterError("checkpoints", f"must lie in 1..{epochs * steps_per_epoch}")
    orders = [r[epoch_orders(n, epochs, s.order_seed)] for r, s in zip(rows, specs, strict=True)]
    y_flat = torch.as_tensor(np.asarray(y_train, dtype=np.int64)).to(where)
    ye = torch.as_tensor(np.asarray(y_eval, dtype=np.int64)).to(where)
    offset = (view * N)[:, None]  # a view's rows sit at view * N + row in the flat inputs
    state = _SoftmaxStack(specs, d, int(n_classes), where)
    out = np.zeros((K, len(ckpts), Xe.shape[1]), dtype=bool)
    epoch_rows = iter(np.stack([o[epoch] for o in orders]) for epoch in range(epochs))

    def batches(_: torch.Generator) -> list[tuple[torch.Tensor, torch.Tensor]]:
        rows = next(epoch_rows)  # (K, n): every probe's visits in this epoch
        flat = torch.as_tensor(rows + offset).to(where)
        labels = y_flat[torch.as_tensor(rows).to(where)]
        return [
            (flat[:, i : i + batch_size], labels[:, i : i + batch_size])
            for i in range(0, n, batch_size)
        ]

    def after_step(step: int) -> None:
        if step in ckpts:
            out[:, ckpts.index(step)] = state.correct(Xe, ye, view)

    threads = torch.get_num_threads()
    # The ops are tiny: one thread avoids per-op barriers that stall when cores are shared.
    torch.set_num_threads(1)
    try:
        fit_stack(
            TrainOptions(max_steps=epochs * steps_per_epoch),
            StackAdam(state.params, lr, K, fused=True, grads=state.grads),
            batches=batches,
            backward=lambda batch, _: state.backward(Xt.view(V * N, d), *batch),
            after_step=after_step,
        )
    finally:
        torch.set_num_threads(threads)
    return out


class _SoftmaxStack:
    """Stacked weights W (K, d, C), biases b (K, 1, C) and their gradients, of K softmax probes.

    Drawn on the CPU, then moved to ``device``.
    """

    def __init__(
        self, specs: Sequence[ProbeSpec], d: int, C: int, device: torch.device | None = None
    ):
        device = torch.device("cpu") if device is None else device
        K = len(specs)
        bound = 1.0 / math.sqrt(d)
        W = torch.empty(K, d, C)
        b = torch.empty(K, 1, C)
        for k, s in enumerate(specs):
            # nn.Linear's draw order and layout: weight (C, d), then bias (C,).
            g = torch.Generator().manual_seed(int(s.seed))
            W[k] = torch.empty(C, d).uniform_(-bound, bound, generator=g).T
            b[k, 0] = torch.empty(C).uniform_(-bound, bound, generator=g)
        self.W, self.b = W.to(device), b.to(device)
        self.params = [self.W, self.b]
        self.grads = [torch.zeros_like(self.W), torch.zeros_like(self.b)]

    def backward(self, X_flat: torch.Tensor, idx: torch.Tensor, y: torch.Tensor) -> None:
        """Gradients of minibatches ``idx`` (K, B) of flat rows with labels ``y`` (K, B)."""
        K, B = idx.shape
        Xb = torch.index_select(X_flat, 0, idx.reshape(-1)).view(K, B, -1)
        # Softmax cross-entropy: d(batch-mean loss)/d(logits) = (softmax - onehot) / B.
        G = torch.softmax(torch.baddbmm(self.b, Xb, self.W), dim=-1)
        G.view(K * B, -1)[torch.arange(K * B, device=G.device), y.reshape(-1)] -= 1.0
        G.mul_(1.0 / B)
        torch.bmm(Xb.transpose(1, 2), G, out=self.grads[0])
        torch.sum(G, dim=1, keepdim=True, out=self.grads[1])

    def correct(self, Xe: torch.Tensor, ye: torch.Tensor, view: np.ndarray) -> np.ndarray:
        """Correctness (K, M) of every probe on its view of the eval rows ``Xe`` (V, M, d)."""
        out = np.zeros((self.W.shape[0], Xe.shape[1]), dtype=bool)
        with torch.inference_mode():
            for v in np.unique(view):
                rows = np.flatnonzero(view == v)
                ks = torch.as_tensor(rows).to(self.W.device)
                pred = torch.baddbmm(self.b[ks], Xe[int(v)].expand(len(ks), -1, -1), self.W[ks])
                out[rows] = (pred.argmax(-1) == ye).cpu().numpy()
        return out
