"""The training protocol shared by the stacked linear and biaffine probes (Pimentel et al. 2020).

The released code trains every probe with Adam and early stopping on dev cross-entropy
(§6.1; appendix A for the parser). Here P probes of one stack share that loop: they see the
same minibatches, their losses are summed so that each probe's gradient is its own, and each
probe stops on its own dev criterion (:class:`StackedEarlyStopping`). :func:`fit_stack` is the
loop; the probe families supply only how to draw batches, the per-probe training loss and the
per-probe dev criterion.

The loop also owns what makes a probe converge rather than stall at a cap
(:class:`TrainOptions`): a per-probe learning-rate schedule that multiplies a probe's rate by
``decay`` at every check without a gain (``schedule="plateau"``, the rule of Dozat & Manning's
parser recipes), Adam's betas, and clipping of each probe's own gradient norm.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch
from torch.optim.adam import adam as functional_adam

from probekit.errors import ParameterError
from probekit.representations.types import OneHotEmbedding

Batch = TypeVar("Batch")


class StackedEarlyStopping:
    """Per-probe early stopping on dev loss for a stack of P probes (released-code protocol).

    A probe's state is saved when its dev loss drops by more than ``min_delta`` below its best;
    after ``patience`` evaluations without that, the probe stops (its later states are never
    saved). Every evaluation without a gain also multiplies the probe's learning-rate factor
    ``lr_scale`` (P,) by ``decay`` (1: a constant rate), once the probe has gained on its first
    evaluation: a probe that has not yet started to learn (a control on shuffled labels sits at
    the labels' entropy for hundreds of updates before it memorises) keeps its rate, so that the
    schedule does not slow it before it starts. With ``wait_for_start`` the same holds for the
    patience: evaluations before that first gain do not count towards it, so such a probe stops
    once its memorising levels off, and only the step cap bounds its wait for the start. Every
    parameter of the module must
    carry the probe axis first, except when P = 1. ``at_cap`` (P,) marks the probes still
    improving when :func:`fit_stack` reached ``max_steps``: they ended at the step cap, not by
    early stopping.
    """

    def __init__(
        self,
        module: torch.nn.Module,
        n_probes: int,
        patience: int,
        min_delta: float,
        decay: float = 1.0,
        wait_for_start: bool = False,
    ):
        """Track P = ``n_probes`` probes of ``module``, starting from a copy of its state."""
        self.module, self.n_probes = module, n_probes
        self.patience, self.min_delta, self.decay = patience, min_delta, decay
        self.wait_for_start = wait_for_start
        self.lr_scale = np.ones(n_probes)
        self.first_loss = np.full(n_probes, np.nan)
        self.best_loss = np.full(n_probes, np.inf)
        self.best_step = np.zeros(n_probes, dtype=np.int64)
        self.wait = np.zeros(n_probes, dtype=np.int64)
        self.active = np.ones(n_probes, dtype=bool)
        self.at_cap = np.zeros(n_probes, dtype=bool)
        self.state = {k: v.detach().clone() for k, v in module.state_dict().items()}

    def update(self, dev_loss: np.ndarray, step: int) -> None:
        """Record the dev loss, shape (P,), after ``step`` updates."""
        first = np.isnan(self.first_loss)
        self.first_loss[first] = dev_loss[first]
        improved = self.active & (dev_loss < self.best_loss - self.min_delta)
        if improved.any():
            self._save(improved)
        self.best_loss[improved] = dev_loss[improved]
        self.best_step[improved] = step
        self.wait[improved] = 0
        stalled = self.active & ~improved
        learning = self.best_loss < self.first_loss - self.min_delta
        self.wait[stalled & (learning | (not self.wait_for_start))] += 1
        self.lr_scale[stalled & learning] *= self.decay
        self.active &= self.wait < self.patience

    def _save(self, improved: np.ndarray) -> None:
        idx = torch.from_numpy(np.flatnonzero(improved))
        for k, v in self.module.state_dict().items():
            if self.n_probes == 1:
                self.state[k] = v.detach().clone()
            elif v.dim() > 0 and v.shape[0] == self.n_probes:
                at = idx.to(v.device)
                self.state[k][at] = v.detach()[at]

    @property
    def done(self) -> bool:
        """True when every probe has stopped."""
        return not self.active.any()

    def restore(self) -> None:
        """Load each probe's best state into the module."""
        self.module.load_state_dict(self.state)


@dataclass(frozen=True)
class TrainOptions:
    """Optimisation settings shared by the probe trainers.

    Defaults: the released code (Pimentel et al. 2020): Adam at lr 1e-3 with torch's betas, a
    constant rate, no clipping, dev evaluation every 100 batches, stop after 10 evaluations
    without a dev-loss gain of more than 0.02 bits.

    ``schedule="plateau"`` multiplies a probe's rate by ``decay`` at every evaluation that
    brings it no gain (:class:`StackedEarlyStopping`); ``wait_for_start`` counts the patience
    only from a probe's first gain (for controls that must first leave the labels' entropy);
    ``clip`` > 0 rescales each probe's own gradient to at most that L2 norm before the update
    (0: no clipping).
    """

    batch_size: int = 2048
    lr: float = 1e-3
    eval_every: int = 100
    patience: int = 10
    min_delta: float = 0.02
    max_steps: int = 20_000
    eval_batch_size: int = 8192
    schedule: str = "constant"
    decay: float = 0.5
    betas: tuple[float, float] = (0.9, 0.999)
    clip: float = 0.0
    wait_for_start: bool = False

    def __post_init__(self) -> None:
        """Check counts >= 1, ``lr`` > 0, ``min_delta`` and ``clip`` >= 0, the schedule."""
        for name in ("batch_size", "eval_every", "patience", "max_steps", "eval_batch_size"):
            if getattr(self, name) < 1:
                raise ParameterError(name, f"must be >= 1, got {getattr(self, name)}")
        if not self.lr > 0:
            raise ParameterError("lr", f"must be > 0, got {self.lr}")
        if self.min_delta < 0:
            raise ParameterError("min_delta", f"must be >= 0, got {self.min_delta}")
        if self.schedule not in SCHEDULES:
            raise ParameterError("schedule", f"must be one of {SCHEDULES}, got {self.schedule!r}")
        if not 0 < self.decay <= 1:
            raise ParameterError("decay", f"must lie in (0, 1], got {self.decay}")
        if not all(0 <= b < 1 for b in self.betas) or len(self.betas) != 2:
            raise ParameterError("betas", f"must be two numbers in [0, 1), got {self.betas}")
        if self.clip < 0:
            raise ParameterError("clip", f"must be >= 0 (0: no clipping), got {self.clip}")

    @property
    def lr_decay(self) -> float:
        """The factor a probe's rate takes at an evaluation without a gain (1: constant)."""
        return self.decay if self.schedule == "plateau" else 1.0


SCHEDULES = ("constant", "plateau")
"""Learning-rate schedules of :class:`TrainOptions`."""


class StackAdam:
    """Adam (Kingma & Ba 2015), by default with torch's settings as the released code, for a stack.

    The trainable one-hot tables (:class:`probekit.representations.types.OneHotEmbedding`,
    P x V x dim floats) are updated with torch's fused CPU kernel, measured 5 times faster on a
    12 x 12,000 x 128 table, where the plain update dominated the cost of a one-hot probe. All
    other parameters keep the plain kernel: it is elementwise in the same order whatever the
    stack size, so a probe's weights do not depend on which probes it was stacked with, down
    to rounding (the fused kernel's vector loops round differently at different offsets).

    :meth:`step` takes each probe's factor on the rate: Adam's update is proportional to the
    rate, so the update at ``lr * scale[p]`` is the update at ``lr`` scaled back towards the old
    weights, exactly as a separate optimiser per probe would take it.
    """

    def __init__(
        self,
        module: torch.nn.Module,
        lr: float,
        n_probes: int = 1,
        betas: tuple[float, float] = (0.9, 0.999),
    ):
        """One Adam at ``lr`` for the one-hot tables of ``module`` (fused), one for the rest."""
        self.n_probes = n_probes
        tables = {
            id(p)
            for m in module.modules()
            if isinstance(m, OneHotEmbedding)
            for p in m.parameters()
        }
        params = [p for p in module.parameters() if p.requires_grad]
        self.params = params
        big = [p for p in params if id(p) in tables]
        rest = [p for p in params if id(p) not in tables]
        self.optimisers = [torch.optim.Adam(rest, lr=lr, betas=betas)] if rest else []
        if big:
            self.optimisers.append(torch.optim.Adam(big, lr=lr, betas=betas, fused=True))

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of every parameter, as ``torch.optim.Optimizer.zero_grad``."""
        for opt in self.optimisers:
            opt.zero_grad(set_to_none=set_to_none)

    def step(self, scale: np.ndarray | None = None) -> None:
        """One Adam step on every parameter, probe p's at ``lr * scale[p]`` (default 1)."""
        if scale is None or bool(np.all(scale == 1.0)):
            for opt in self.optimisers:
                opt.step()
            return
        before = [p.detach().clone() for p in self.params]
        for opt in self.optimisers:
            opt.step()
        back = torch.as_tensor(1.0 - scale, dtype=torch.float32)  # (P,) towards the old weights
        with torch.no_grad():
            for p, old in zip(self.params, before, strict=True):
                p.lerp_(old, self._per_probe(back, p))

    def clip(self, max_norm: float) -> np.ndarray:
        """Rescale each probe's gradient to an L2 norm of at most ``max_norm``.

        The norm is over all of the probe's parameters (its slice of each stacked tensor), as
        ``torch.nn.utils.clip_grad_norm_`` takes it over one model. Returns the norms (P,).
        """
        grads = [p.grad for p in self.params if p.grad is not None]
        if not grads:
            return np.zeros(self.n_probes)
        rows = self.n_probes if self.n_probes > 1 else 1
        norms = torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(g.reshape(rows, -1), dim=1) for g in grads]),
            dim=0,
        )
        factor = (max_norm / (norms + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(self._per_probe(factor, g))
        return norms.cpu().numpy()

    def _per_probe(self, t: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        """A per-probe ``t`` (P,) shaped to broadcast over a stacked tensor p (P, ...)."""
        t = t.to(device=p.device, dtype=p.dtype)
        return t.reshape(()) if self.n_probes == 1 else t.view(-1, *([1] * (p.dim() - 1)))


def adam_update(
    params: list[torch.Tensor],
    grads: list[torch.Tensor],
    exp_avgs: list[torch.Tensor],
    exp_avg_sqs: list[torch.Tensor],
    steps: list[torch.Tensor],
    lr: float,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> None:
    """One Adam update (Kingma & Ba 2015) of ``params`` in place, for hand-written trainers.

    The arithmetic of ``torch.optim.Adam`` with its defaults, through torch's public functional
    API and its fused kernel: one pass over memory per tensor, since on a CPU the update of a
    large stack is memory-bound. Adam is elementwise, so one update of stacked tensors is exactly
    independent Adams of the probes in the stack. ``steps`` holds one 0-d float tensor per
    parameter, the number of updates so far; each is incremented here.
    """
    functional_adam(
        params,
        grads,
        exp_avgs,
        exp_avg_sqs,
        [],
        steps,
        fused=True,
        amsgrad=False,
        beta1=betas[0],
        beta2=betas[1],
        lr=lr,
        weight_decay=0.0,
        eps=eps,
        maximize=False,
    )


def fit_stack(
    stack: torch.nn.Module,
    n_probes: int,
    opts: TrainOptions,
    *,
    batches: Callable[[torch.Generator], Iterable[Batch]],
    train_loss: Callable[[Batch, torch.Generator], torch.Tensor],
    dev_loss: Callable[[], np.ndarray],
    order_seed: int,
    dropout_seed: int,
    stopper: StackedEarlyStopping | None = None,
) -> StackedEarlyStopping:
    """Train a stack of P probes with Adam and per-probe early stopping (released-code protocol).

    The loop runs where the stack's parameters live (the probe families build it on their
    ``device``); the two generators stay on the CPU, so batch orders and dropout masks are the
    same on every device. Every epoch draws a fresh batch order; the dev loss is checked every ``opts.eval_every``
    steps and at ``opts.max_steps``. Training ends when every probe has stopped or after
    ``opts.max_steps`` steps, and each probe is restored to its best state; the stack is left
    in eval mode.

    Args:
        stack: module whose parameters carry the probe axis first (see
            :class:`StackedEarlyStopping`).
        n_probes: P.
        opts: :class:`TrainOptions`.
        batches: one epoch of minibatches, drawn with the batch-order generator.
        train_loss: a minibatch's training loss per probe, shape (P,), with the dropout
            generator.
        dev_loss: the dev loss per probe, shape (P,); must leave the stack in training mode.
        order_seed: seed of the batch-order generator.
        dropout_seed: seed of the dropout generator.
        stopper: the early-stopping record to use (a subclass may add its own rules, and
            ``train_loss`` may read which probes are still ``active``); by default a new
            :class:`StackedEarlyStopping` with ``opts.patience`` and ``opts.min_delta``.

    Returns:
        The :class:`StackedEarlyStopping` record (best step, dev loss and ``at_cap`` per
        probe).
    """
    if stopper is None:
        stopper = StackedEarlyStopping(
            stack, n_probes, opts.patience, opts.min_delta, opts.lr_decay, opts.wait_for_start
        )
    optimiser = StackAdam(stack, opts.lr, n_probes, opts.betas)
    # Two generators, so that the batch order does not depend on how many dropout masks a
    # probe family draws per step.
    order_gen = torch.Generator().manual_seed(order_seed)
    dropout_gen = torch.Generator().manual_seed(dropout_seed)
    step = 0
    stack.train()
    while step < opts.max_steps and not stopper.done:
        for batch in batches(order_gen):
            # Summing over probes keeps their gradients separate: each sees only its own loss.
            loss = train_loss(batch, dropout_gen).sum()
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            if opts.clip:
                optimiser.clip(opts.clip)
            optimiser.step(stopper.lr_scale)
            step += 1
            if step % opts.eval_every == 0 or step == opts.max_steps:
                stopper.update(dev_loss(), step)
                if stopper.done or step >= opts.max_steps:
                    break
    # A probe still waiting for its patience to run out was stopped by the cap, not by its
    # dev loss: it is not known to have converged.
    stopper.at_cap = stopper.active & (step >= opts.max_steps)
    stopper.restore()
    stack.eval()
    return stopper
