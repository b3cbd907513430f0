"""Softmax-regression probes trained together (probekit.probes.softmax)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from conftest import blobs
from probekit.errors import ParameterError
from probekit.probes.mlp import ProbeSpec, epoch_orders
from probekit.probes.softmax import _SoftmaxStack, train_softmax_probes
from probekit.probes.training import StackAdam


def test_softmax_stack_matches_nn_linear_with_adam():
    X, y = blobs(40, seed=0, C=3, d=5)
    spec = ProbeSpec(seed=7, order_seed=3, train=np.arange(40))
    state = _SoftmaxStack([spec], d=5, C=3)
    ref = torch.nn.Linear(5, 3)
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        ref.weight.copy_(torch.empty(3, 5).uniform_(-(5**-0.5), 5**-0.5, generator=g))
        ref.bias.copy_(torch.empty(3).uniform_(-(5**-0.5), 5**-0.5, generator=g))
    opt = torch.optim.Adam(ref.parameters(), lr=0.01)
    adam = StackAdam(state.params, 0.01, fused=True, grads=state.grads)
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    order = epoch_orders(40, 2, 3)
    for epoch in range(2):
        for start in range(0, 40, 16):
            idx = torch.as_tensor(order[epoch, start : start + 16])
            state.backward(Xt, idx[None], yt[idx][None])
            adam.step()
            opt.zero_grad()
            torch.nn.functional.cross_entropy(ref(Xt[idx]), yt[idx]).backward()
            opt.step()
    assert torch.allclose(state.W[0].T, ref.weight, atol=1e-5)
    assert torch.allclose(state.b[0, 0], ref.bias, atol=1e-5)


def test_stacked_probes_train_as_if_alone():
    """Each probe of a stack gets its own gradient and its own Adam, so its weights are those it
    would reach alone, up to float rounding (compared with a tolerance, not bit for bit)."""
    X, y = blobs(200, seed=0, C=3, d=6)
    views = torch.as_tensor(np.stack([X, X[:, ::-1].copy()]))
    flat = views.reshape(2 * 200, 6)
    rng = np.random.default_rng(1)
    specs = [ProbeSpec(seed=s, view=v, order_seed=s) for s in (0, 1) for v in (0, 1)]
    rows = [np.sort(rng.choice(200, 128, replace=False)) for _ in specs]
    stacked = _SoftmaxStack(specs, d=6, C=3)
    alone = [_SoftmaxStack([s], d=6, C=3) for s in specs]
    adams = [StackAdam(s.params, 0.05, fused=True, grads=s.grads) for s in (stacked, *alone)]
    yt = torch.as_tensor(y)
    for step in range(8):
        idx = np.stack([r[(step * 16) % 128 :][:16] for r in rows])
        flat_idx = torch.as_tensor(idx + np.array([s.view * 200 for s in specs])[:, None])
        stacked.backward(flat, flat_idx, yt[torch.as_tensor(idx)])
        for k, one in enumerate(alone):
            one.backward(flat, flat_idx[k : k + 1], yt[torch.as_tensor(idx[k : k + 1])])
        for adam in adams:
            adam.step()
    for k, one in enumerate(alone):
        assert torch.allclose(stacked.W[k], one.W[0], rtol=1e-5, atol=1e-6)
        assert torch.allclose(stacked.b[k], one.b[0], rtol=1e-5, atol=1e-6)


def test_train_softmax_probes_learns_and_agrees_with_single_runs():
    X, y = blobs(300, seed=0, C=3, d=6)
    Xt, yt, Xe, ye = X[:200], y[:200], X[200:], y[200:]
    views = np.stack([Xt, Xt[:, ::-1]]), np.stack([Xe, Xe[:, ::-1]])
    rng = np.random.default_rng(1)
    specs = [
        ProbeSpec(seed=s, view=v, order_seed=s, train=np.sort(rng.choice(200, 128, False)))
        for s in (0, 1)
        for v in (0, 1)
    ]
    out = train_softmax_probes(
        views[0], yt, views[1], ye, 3, specs, epochs=5, checkpoints=[2, 10], lr=0.05
    )
    assert out.shape == (4, 2, 100) and out.dtype == bool
    assert out[:, -1].mean() > 0.9
    for k, spec in enumerate(specs):
        alone = train_softmax_probes(
            views[0], yt, views[1], ye, 3, [spec], epochs=5, checkpoints=[2, 10], lr=0.05
        )
        # Equal weights up to rounding (above); predictions may flip only at a tie.
        assert (alone[0] == out[k]).mean() >= 0.99


def test_train_softmax_probes_input_errors():
    X, y = blobs(20, seed=0, C=2, d=6)
    specs = [ProbeSpec(0, train=np.arange(10)), ProbeSpec(1, train=np.arange(12))]
    with pytest.raises(ParameterError, match="equally many"):
        train_softmax_probes(X[None], y, X[None], y, 2, specs, epochs=1, checkpoints=[1])
    with pytest.raises(ParameterError, match="checkpoints"):
        train_softmax_probes(X[None], y, X[None], y, 2, specs[:1], epochs=1, checkpoints=[5])
    with pytest.raises(ParameterError, match="views"):
        train_softmax_probes(
            X[None], y, X[None], y, 2, [ProbeSpec(0, view=2, train=np.arange(5))],
            epochs=1, checkpoints=[1],
        )  # fmt: skip
