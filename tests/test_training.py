"""The shared stacked trainer: its learning-rate schedule, per-probe rates and clipping."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit.errors import ParameterError
from probekit.probes.training import StackAdam, StackedEarlyStopping, TrainOptions, fit_module


class Stack(torch.nn.Module):
    """P independent quadratic bowls, one weight vector per probe: w (P, d)."""

    def __init__(self, P: int, d: int = 3):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(P, d))


def test_a_plateau_halves_the_rate_at_every_check_without_a_gain_and_then_stops():
    stopper = StackedEarlyStopping(Stack(2), 2, patience=3, min_delta=0.0, decay=0.5)
    stopper.update(np.array([1.0, 1.0]), 10)  # both improve on inf
    stopper.update(np.array([0.5, 0.8]), 20)  # both learn
    stopper.update(np.array([0.4, 0.9]), 30)  # probe 0 improves, probe 1 stalls
    np.testing.assert_array_equal(stopper.lr_scale, [1.0, 0.5])
    stopper.update(np.array([0.6, 0.9]), 40)
    stopper.update(np.array([0.6, 0.9]), 50)
    np.testing.assert_array_equal(stopper.lr_scale, [0.25, 0.125])
    assert stopper.active.tolist() == [True, False]  # probe 1: three checks without a gain
    stopper.update(np.array([0.6, 0.9]), 60)
    assert stopper.done
    np.testing.assert_array_equal(stopper.lr_scale, [0.125, 0.125])  # a stopped probe keeps it


def test_a_probe_that_has_not_started_to_learn_keeps_its_rate():
    """A control on shuffled labels sits at the labels' entropy before it memorises: the
    schedule must not shrink its rate then, or it would never start."""
    stopper = StackedEarlyStopping(Stack(1), 1, patience=10, min_delta=0.01, decay=0.5)
    for step, loss in enumerate([3.0, 3.0, 2.995, 3.0, 3.0], start=1):
        stopper.update(np.array([loss]), step)
    np.testing.assert_array_equal(stopper.lr_scale, [1.0])
    stopper.update(np.array([2.5]), 6)  # it starts to memorise
    stopper.update(np.array([2.5]), 7)  # and stalls
    np.testing.assert_array_equal(stopper.lr_scale, [0.5])


def test_waiting_for_the_start_counts_patience_only_from_the_first_gain():
    """With wait_for_start, a control that sits at the entropy for many checks is not stopped
    there; once it has started, it stops after ``patience`` checks without a gain."""
    waits = StackedEarlyStopping(Stack(1), 1, patience=2, min_delta=0.01, wait_for_start=True)
    plain = StackedEarlyStopping(Stack(1), 1, patience=2, min_delta=0.01)
    for step, loss in enumerate([3.0, 3.0, 3.0, 3.0, 2.0, 1.5, 1.5], start=1):
        waits.update(np.array([loss]), step)
        plain.update(np.array([loss]), step)
        if step == 3:
            assert not plain.active[0] and waits.active[0]
    assert waits.active[0] and waits.best_step[0] == 6
    waits.update(np.array([1.5]), 8)
    assert waits.done
    assert TrainOptions(wait_for_start=True).wait_for_start


def test_a_constant_schedule_keeps_every_rate():
    stopper = StackedEarlyStopping(Stack(2), 2, patience=5, min_delta=0.0)
    for step in range(1, 5):
        stopper.update(np.array([1.0, 2.0]), step)
    np.testing.assert_array_equal(stopper.lr_scale, [1.0, 1.0])
    assert TrainOptions().lr_decay == 1.0
    assert TrainOptions(schedule="plateau", decay=0.25).lr_decay == 0.25


def _adam_alone(w0: torch.Tensor, grads: list[torch.Tensor], lr: float) -> torch.Tensor:
    w = torch.nn.Parameter(w0.clone())
    opt = torch.optim.Adam([w], lr=lr, betas=(0.9, 0.9))
    for g in grads:
        w.grad = g.clone()
        opt.step()
    return w.detach()


def test_a_probe_rate_in_a_stack_is_its_own_adam_at_that_rate():
    gen = torch.Generator().manual_seed(0)
    grads = [torch.randn(3, 4, generator=gen) for _ in range(5)]
    stack = Stack(3, 4)
    opt = StackAdam.for_module(stack, lr=0.1, n_probes=3, betas=(0.9, 0.9))
    scale = np.array([1.0, 0.5, 0.125])
    for g in grads:
        stack.w.grad = g.clone()
        opt.step(scale)
    for p in range(3):
        alone = _adam_alone(torch.ones(4), [g[p] for g in grads], 0.1 * scale[p])
        torch.testing.assert_close(stack.w.detach()[p], alone, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fused", [False, True])
def test_the_one_adam_is_torch_adam(fused):
    """Kingma & Ba 2015 as torch.optim.Adam computes it, from gradient buffers (the hand-written
    trainers) with either kernel, on two tensors over five steps."""
    gen = torch.Generator().manual_seed(0)
    params = [torch.randn(4, 3, generator=gen), torch.randn(4, generator=gen)]
    ref = [p.clone().requires_grad_(True) for p in params]
    opt = torch.optim.Adam(ref, lr=0.01)
    grads = [torch.zeros_like(p) for p in params]
    adam = StackAdam(params, 0.01, n_probes=4, fused=fused, grads=grads)
    for _ in range(5):
        for r, g in zip(ref, grads, strict=True):
            g.copy_(torch.randn(g.shape, generator=gen))
            r.grad = g.clone()
        opt.step()
        adam.step()
    for p, r in zip(params, ref, strict=True):
        torch.testing.assert_close(p, r.detach(), rtol=1e-5, atol=1e-7)
    assert [float(s) for s in adam.steps] == [5.0, 5.0]


def test_the_leading_rows_train_while_the_others_keep_their_weights():
    """A family that keeps its probes still training first updates only those rows."""
    w = torch.ones(3, 2)
    grad = torch.ones(3, 2)
    adam = StackAdam([w], 0.1, n_probes=3, fused=True, grads=[grad])
    adam.step(rows=[2])
    assert torch.equal(w[2], torch.ones(2))
    assert (w[:2] < 1).all()
    with pytest.raises(ParameterError, match="rows"):
        adam.step(np.array([1.0, 0.5, 1.0]), rows=[2])


def test_a_rate_per_probe_is_each_probe_at_its_own_rate():
    gen = torch.Generator().manual_seed(1)
    grads = [torch.randn(2, 4, generator=gen) for _ in range(4)]
    w, g = torch.ones(2, 4), torch.zeros(2, 4)
    adam = StackAdam([w], np.array([0.1, 0.01]), n_probes=2, betas=(0.9, 0.9), grads=[g])
    for step in grads:
        g.copy_(step)
        adam.step()
    for p, lr in enumerate((0.1, 0.01)):
        alone = _adam_alone(torch.ones(4), [s[p] for s in grads], lr)
        torch.testing.assert_close(w[p], alone, rtol=1e-5, atol=1e-6)


def test_clipping_rescales_each_probe_by_its_own_norm():
    stack = Stack(2, 4)
    stack.w.grad = torch.tensor([[3.0, 4.0, 0.0, 0.0], [0.3, 0.4, 0.0, 0.0]])
    norms = StackAdam.for_module(stack, lr=0.1, n_probes=2, betas=(0.9, 0.999)).clip(1.0)
    np.testing.assert_allclose(norms, [5.0, 0.5], rtol=1e-6)
    torch.testing.assert_close(stack.w.grad[0], torch.tensor([0.6, 0.8, 0.0, 0.0]))
    torch.testing.assert_close(stack.w.grad[1], torch.tensor([0.3, 0.4, 0.0, 0.0]))


def _fit(schedule: str) -> tuple[StackedEarlyStopping, int]:
    """Two probes on a noisy bowl whose dev loss stops improving at a noise floor."""
    stack = Stack(2)
    target = torch.tensor([[0.0, 0.0, 0.0], [2.0, -1.0, 0.5]])
    steps = []

    def train_loss(batch, _):
        noise = torch.randn(2, 3, generator=torch.Generator().manual_seed(batch))
        return ((stack.w - target - 0.3 * noise) ** 2).sum(dim=1)

    def dev_loss() -> np.ndarray:
        steps.append(1)
        with torch.no_grad():
            return ((stack.w - target) ** 2).sum(dim=1).numpy()

    opts = TrainOptions(
        batch_size=1, lr=0.1, eval_every=10, patience=6, min_delta=1e-4, max_steps=3000,
        schedule=schedule, decay=0.5,
    )  # fmt: skip
    stopper = fit_module(
        stack, 2, opts, batches=lambda g: range(int(torch.randint(10**6, (1,), generator=g)),
        int(torch.randint(10**6, (1,), generator=g)) + 20), train_loss=train_loss,
        dev_loss=dev_loss, order_seed=0, dropout_seed=0,
    )  # fmt: skip
    return stopper, 10 * len(steps)


def test_the_plateau_schedule_converges_where_a_constant_rate_hovers():
    plateau, plateau_steps = _fit("plateau")
    constant, _ = _fit("constant")
    assert plateau.done and not plateau.at_cap.any()
    assert plateau_steps < 3000
    assert (plateau.lr_scale < 1).all()
    # A rate that keeps stepping through the noise stays further from the target.
    assert (plateau.best_loss < constant.best_loss).all()


@pytest.mark.parametrize(
    "kwargs",
    [{"schedule": "cosine"}, {"decay": 0.0}, {"decay": 1.5}, {"betas": (0.9, 1.0)}, {"clip": -1}],
)
def test_bad_schedule_settings_are_named(kwargs):
    with pytest.raises(ParameterError, match=next(iter(kwargs))):
        TrainOptions(**kwargs)
