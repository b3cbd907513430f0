"""Batched logistic-regression probes (the LogReg of Zhu et al. 2022, §4.1).

:func:`train_logreg` trains many softmax-regression probes at once, each with its own Adam, and
returns their correctness at checkpoints; it equals training them one by one in PyTorch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from probekit.errors import ParameterError
from probekit.probes.mlp import epoch_orders


def train_logreg(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_eval: np.ndarray,
    y_eval: np.ndarray,
    n_classes: int,
    specs: Sequence,
    *,
    epochs: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    checkpoints: Sequence[int],
) -> np.ndarray:
    """Train K softmax-regression probes at once; their correctness at each checkpoint.

    The logistic-regression probe of Zhu et al. 2022, §4.1 (``hid_sizes = []``: one linear
    layer, cross-entropy, Adam). Inputs follow :func:`probekit.probes.mlp.train_batched`:
    ``X_train`` (V, N, d) views with labels ``y_train`` (N,), ``X_eval`` (V, M, d) with
    ``y_eval`` (M,), and ``specs`` (K,) :class:`probekit.probes.mlp.ProbeSpec` giving each
    probe's init seed, view, training rows (index array; all probes the same number) and order
    seed. Initialisation as PyTorch's ``nn.Linear`` from ``torch.Generator(seed)``; epoch orders
    from :func:`probekit.probes.mlp.epoch_orders`. Each probe minimises its batch-mean
    cross-entropy with its own Adam (torch defaults); the result equals training the K probes
    one by one with ``nn.Linear`` and ``torch.optim.Adam`` (see the tests).

    Returns a bool array (K, len(checkpoints), M): whether probe k is right on eval row i after
    the given number of updates. (``probekit.probes.softmax.train_linear_probes`` returns no
    predictions and shares one training set between probes, hence this trainer.)
    """


    Xt = torch.as_tensor(np.ascontiguousarray(X_train, dtype=np.float32))
    Xe = torch.as_tensor(np.ascontiguousarray(X_eval, dtype=np.float32))
    if Xt.ndim != 3 or Xe.ndim != 3 or Xt.shape[0] != Xe.shape[0] or Xt.shape[2] != Xe.shape[2]:
        raise ParameterError("X_train", "X_train (V, N, d) and X_eval (V, M, d) must match")
    V, N, d = Xt.shape
    K, C = len(specs), int(n_classes)
    rows = [np.unique(np.asarray(s.train, dtype=np.int64)) for s in specs]
    if K == 0 or len({len(r) for r in rows}) != 1 or len(rows[0]) == 0:
        raise ParameterError("specs", "need one or more probes with equally many training rows")
    view = np.array([int(s.view) for s in specs])
    if view.min() < 0 or view.max() >= V:
        raise ParameterError("specs", f"views must lie in 0..{V - 1}")
    n = len(rows[0])
    ckpts = sorted({int(c) for c in checkpoints})
    if not ckpts or ckpts[0] < 1 or ckpts[-1] > epochs * math.ceil(n / batch_size):
        raise ParameterError("checkpoints", f"must lie in 1..{epochs * math.ceil(n / batch_size)}")
    # Flat row ids (view * N + row) of every probe's visits, shape (epochs, K, n).
    order = np.stack(
        [r[epoch_orders(n, epochs, s.order_seed)] for r, s in zip(rows, specs, strict=True)], 1
    )
    state = _LinearState(specs, d, C)
    flat = torch.as_tensor(order + (view * N)[None, :, None])
    labels = torch.as_tensor(np.asarray(y_train, dtype=np.int64)).repeat(V)[flat]
    ye = torch.as_tensor(np.asarray(y_eval, dtype=np.int64))
    out = np.zeros((K, len(ckpts), Xe.shape[1]), dtype=bool)
    threads = torch.get_num_threads()
    # The ops are tiny: one thread avoids per-op barriers that stall when cores are shared.
    torch.set_num_threads(1)
    try:
        t = 0
        for epoch in range(epochs):
            for start in range(0, n, batch_size):
                stop = start + batch_size
                state.step(
                    Xt.view(V * N, d), flat[epoch, :, start:stop], labels[epoch, :, start:stop], lr
                )
                t += 1
                if t in ckpts:
                    out[:, ckpts.index(t)] = state.correct(Xe, ye, view)
    finally:
        torch.set_num_threads(threads)
    return out


class _LinearState:
    """Stacked weights W (K, d, C), biases b (K, 1, C) and Adam moments of K linear probes."""

    def __init__(self, specs: Sequence, d: int, C: int):

        K = len(specs)
        bound = 1.0 / math.sqrt(d)
        self.W = torch.empty(K, d, C)
        self.b = torch.empty(K, 1, C)
        for k, s in enumerate(specs):
            # nn.Linear's draw order and layout: weight (C, d), then bias (C,).
            g = torch.Generator().manual_seed(int(s.seed))
            self.W[k] = torch.empty(C, d).uniform_(-bound, bound, generator=g).T
            self.b[k, 0] = torch.empty(C).uniform_(-bound, bound, generator=g)
        self.params = [self.W, self.b]
        self.grads = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.m = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.v = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.t = torch.zeros(())

    def step(self, X_flat, idx, y, lr: float) -> None:
        """One Adam step on minibatches ``idx`` (K, B) of flat rows with labels ``y`` (K, B)."""

        K, B = idx.shape
        Xb = torch.index_select(X_flat, 0, idx.reshape(-1)).view(K, B, -1)
        # Softmax cross-entropy: d(batch-mean loss)/d(logits) = (softmax - onehot) / B.
        G = torch.softmax(torch.baddbmm(self.b, Xb, self.W), dim=-1)
        G.view(K * B, -1)[torch.arange(K * B), y.reshape(-1)] -= 1.0
        G.mul_(1.0 / B)
        torch.bmm(Xb.transpose(1, 2), G, out=self.grads[0])
        torch.sum(G, dim=1, keepdim=True, out=self.grads[1])
        self.t += 1
        if hasattr(torch, "_fused_adam_"):
            torch._fused_adam_(
                self.params, self.grads, self.m, self.v, [], [self.t, self.t],
                lr=lr, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                amsgrad=False, maximize=False,
            )  # fmt: skip
            return
        t = float(self.t)
        for p, g, m, v in zip(self.params, self.grads, self.m, self.v, strict=True):
            m.lerp_(g, 0.1)
            v.mul_(0.999).addcmul_(g, g, value=0.001)
            denom = (v.sqrt() / math.sqrt(1 - 0.999**t)).add_(1e-8)
            p.addcdiv_(m, denom, value=-lr / (1 - 0.9**t))

    def correct(self, Xe, ye, view: np.ndarray) -> np.ndarray:
        """Correctness (K, M) of every probe on its view of the eval rows ``Xe`` (V, M, d)."""

        out = np.zeros((self.W.shape[0], Xe.shape[1]), dtype=bool)
        with torch.inference_mode():
            for v in np.unique(view):
                ks = torch.as_tensor(np.flatnonzero(view == v))
                pred = torch.baddbmm(self.b[ks], Xe[int(v)].expand(len(ks), -1, -1), self.W[ks])
                out[ks.numpy()] = (pred.argmax(-1) == ye).numpy()
        return out
