"""The one stacked trainer: every probe family of the book trains through :func:`fit_stack`.

A stack is P probes of one family whose parameters carry the probe axis first. They see the
same minibatches and their losses are summed, so each probe's gradient is its own; Adam is
elementwise, so one update of the stack is P independent Adams (:class:`StackAdam`); and each
probe stops on its own dev criterion (:class:`StackedEarlyStopping`, the released code's rule:
Pimentel et al. 2020, §6.1 and appendix A; Hall Maudslay et al. 2020, App. A). A family supplies
only how to draw an epoch of batches, the backward pass of a batch (autograd, or a hand-written
gradient where that is faster, tested against autograd) and its per-probe dev criterion.

The trainer owns what every family shares: the Adam update, early stopping with its caps and cap
accounting, the schedule (:class:`TrainOptions`: a per-probe rate multiplied by ``decay`` at
every check without a gain, ``schedule="plateau"``, the rule of Dozat & Manning's parser
recipes; Adam's betas; clipping of each probe's own gradient norm), the seeded generators and
progress. Families with a fixed number of epochs (Kunz & Kuhlmann 2021, §3.2; Zhu et al. 2022,
§4.1) run without a stopper and record what they need after each step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch
from torch.optim.adam import adam as functional_adam
from tqdm.auto import tqdm

from probekit.errors import ParameterError
from probekit.representations.types import OneHotEmbedding

Batch = TypeVar("Batch")


class StackedEarlyStopping:
    """Per-probe early stopping on a dev criterion (lower is better) for a stack of P probes.

    A probe's state is saved when its criterion drops by more than ``min_delta`` below its best
    (the first check always counts); after ``patience`` checks without that, the probe stops
    (its later states are never saved). Every check without a gain also multiplies the probe's
    learning-rate factor ``lr_scale`` (P,) by ``decay`` (1: a constant rate), once the probe has
    gained on its first check: a probe that has not yet started to learn (a control on shuffled
    labels sits at the labels' entropy for hundreds of updates before it memorises) keeps its
    rate, so that the schedule does not slow it before it starts. With ``wait_for_start`` the
    same holds for the patience: checks before that first gain do not count towards it, so such
    a probe stops once its memorising levels off, and only the step cap bounds its wait for the
    start. ``caps`` (P,): a probe still active at a check at or after its own cap on updates
    stops there.

    ``state``: the stack's parameters, a module (its ``state_dict``) or a mapping of tensors;
    every tensor must carry the probe axis first, except when P = 1. ``at_cap`` (P,) marks the
    probes stopped by a cap (their own, or the trainer's ``max_steps``) while still improving:
    they are not known to have converged.
    """

    def __init__(
        self,
        state: torch.nn.Module | Mapping[str, torch.Tensor],
        n_probes: int,
        patience: int,
        min_delta: float,
        decay: float = 1.0,
        wait_for_start: bool = False,
        caps: np.ndarray | None = None,
    ):
        """Track P = ``n_probes`` probes of ``state``, starting from a copy of it."""
        self.module = state if isinstance(state, torch.nn.Module) else None
        self.tensors = None if self.module is not None else dict(state)
        self.n_probes = n_probes
        self.patience, self.min_delta, self.decay = patience, min_delta, decay
        self.wait_for_start = wait_for_start
        self.caps = None if caps is None else np.asarray(caps)
        self.lr_scale = np.ones(n_probes)
        self.first_loss = np.full(n_probes, np.nan)
        self.best_loss = np.full(n_probes, np.inf)
        self.best_step = np.zeros(n_probes, dtype=np.int64)
        self.wait = np.zeros(n_probes, dtype=np.int64)
        self.active = np.ones(n_probes, dtype=bool)
        self.at_cap = np.zeros(n_probes, dtype=bool)
        self.state = {k: v.detach().clone() for k, v in self._current().items()}

    def _current(self) -> Mapping[str, torch.Tensor]:
        return self.module.state_dict() if self.module is not None else self.tensors

    def update(self, dev_loss: np.ndarray, step: int) -> None:
        """Record the dev criterion, shape (P,), after ``step`` updates."""
        first = np.isnan(self.first_loss)
        self.first_loss[first] = dev_loss[first]
        improved = self.active & ((dev_loss < self.best_loss - self.min_delta) | first)
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
        if self.caps is not None:
            reached = self.active & (step >= self.caps)
            self.at_cap |= reached
            self.active &= ~reached

    def _save(self, improved: np.ndarray) -> None:
        idx = torch.from_numpy(np.flatnonzero(improved))
        for k, v in self._current().items():
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
        """Load each probe's best state into the stack."""
        if self.module is not None:
            self.module.load_state_dict(self.state)
            return
        with torch.no_grad():
            for k, v in self.tensors.items():
                v.copy_(self.state[k])


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
    """Adam (Kingma & Ba 2015) for a stack, with a rate factor per probe.

    The arithmetic of ``torch.optim.Adam`` (torch's functional kernels), with its own moments and
    step counts. Each tensor takes the plain kernel or the fused one (``fused``): the plain one
    is elementwise in the same order whatever the stack size, so a probe's weights do not depend
    on which probes it was stacked with, down to rounding; the fused one makes one pass over
    memory, which counts where the update of a large stack is memory-bound (the hand-written
    trainers; the trainable one-hot tables, measured 5 times faster on a 12 x 12,000 x 128
    table). Gradients are read from each tensor's ``.grad`` or, for hand-written trainers, from
    the buffers ``grads``; a tensor without a gradient is skipped, as torch does.

    ``lr`` is one rate or one per probe (P,), and :meth:`step` takes each probe's factor on it
    (the schedule): Adam's update is proportional to the rate, so the update at a probe's own
    rate is the update at the stack's largest one scaled back towards the old weights, as a
    separate optimiser per probe would take it (up to rounding).
    """

    def __init__(
        self,
        params: Sequence[torch.Tensor],
        lr: float | np.ndarray,
        n_probes: int = 1,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        fused: Sequence[bool] | bool = False,
        grads: Sequence[torch.Tensor] | None = None,
    ):
        """Adam at ``lr`` for ``params`` (each with the probe axis first, unless P = 1)."""
        self.params = list(params)
        rates = np.asarray(lr, dtype=np.float64)
        self.lr = float(rates.max())
        self.rate = None if rates.ndim == 0 or bool(np.all(rates == self.lr)) else rates / self.lr
        self.betas, self.eps, self.n_probes = betas, eps, n_probes
        flags = [fused] * len(self.params) if isinstance(fused, bool) else list(fused)
        self.fused = flags
        self.grads = None if grads is None else list(grads)
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]
        # torch.optim keeps a fused tensor's step count on its device, a plain one's on the CPU.
        self.steps = [
            torch.zeros((), device=p.device if f else "cpu")
            for p, f in zip(self.params, flags, strict=True)
        ]

    @classmethod
    def for_module(
        cls, module: torch.nn.Module, lr: float, n_probes: int, betas: tuple[float, float]
    ) -> StackAdam:
        """Adam for the trainable parameters of ``module``.

        Its one-hot tables take the fused kernel (:class:`~probekit.representations.types.OneHotEmbedding`).
        """
        tables = {
            id(p)
            for m in module.modules()
            if isinstance(m, OneHotEmbedding)
            for p in m.parameters()
        }
        params = [p for p in module.parameters() if p.requires_grad]
        return cls(params, lr, n_probes, betas, fused=[id(p) in tables for p in params])

    def _gradients(self) -> list[torch.Tensor | None]:
        return self.grads if self.grads is not None else [p.grad for p in self.params]

    def zero_grad(self) -> None:
        """Clear the gradients that autograd accumulates in ``.grad``."""
        for p in self.params:
            p.grad = None

    def step(self, scale: np.ndarray | None = None, rows: Sequence[int] | None = None) -> None:
        """One Adam step: probe p's at ``lr * scale[p]`` (default 1).

        ``rows``: update only the first ``rows[i]`` rows of parameter i (the probes still
        training, where a family keeps them first); their step counts advance together.
        """
        if self.rate is not None:
            scale = self.rate if scale is None else self.rate * scale
        scaled = scale is not None and not bool(np.all(scale == 1.0))
        if scaled and rows is not None:
            raise ParameterError("rows", "per-probe rates need the whole stack")
        before = [p.detach().clone() for p in self.params] if scaled else None
        grads = self._gradients()
        for fused in (False, True):
            at = [i for i, g in enumerate(grads) if g is not None and self.fused[i] == fused]
            if not at:
                continue
            cut = (lambda t, i: t) if rows is None else (lambda t, i: t[: rows[i]])
            functional_adam(
                [cut(self.params[i].data, i) for i in at],
                [cut(grads[i], i) for i in at],
                [cut(self.exp_avg[i], i) for i in at],
                [cut(self.exp_avg_sq[i], i) for i in at],
                [],
                [self.steps[i] for i in at],
                fused=fused,
                foreach=False,
                amsgrad=False,
                beta1=self.betas[0],
                beta2=self.betas[1],
                lr=self.lr,
                weight_decay=0.0,
                eps=self.eps,
                maximize=False,
            )
        if scaled:
            back = torch.as_tensor(1.0 - scale, dtype=torch.float32)  # (P,) towards the old
            with torch.no_grad():
                for p, old in zip(self.params, before, strict=True):
                    p.lerp_(old, self._per_probe(back, p))

    def clip(self, max_norm: float) -> np.ndarray:
        """Rescale each probe's gradient to an L2 norm of at most ``max_norm``.

        The norm is over all of the probe's parameters (its slice of each stacked tensor), as
        ``torch.nn.utils.clip_grad_norm_`` takes it over one model. Returns the norms (P,).
        """
        grads = [g for g in self._gradients() if g is not None]
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


def fit_stack(
    opts: TrainOptions,
    adam: StackAdam,
    *,
    batches: Callable[[torch.Generator], Iterable[Batch]],
    backward: Callable[[Batch, torch.Generator], Sequence[int] | None],
    stopper: StackedEarlyStopping | None = None,
    dev_loss: Callable[[], np.ndarray] | None = None,
    after_step: Callable[[int], None] | None = None,
    order_seed: int = 0,
    dropout_seed: int = 0,
    progress: str | None = None,
) -> int:
    """The one training loop of the book's probes; returns the number of updates made.

    Every epoch draws a fresh batch order (``batches``, with the batch-order generator); for
    each batch, ``backward`` sets the gradients the Adam reads (autograd, or a hand-written
    gradient into the Adam's buffers) and returns the rows of each parameter it touched (None:
    all; see :meth:`StackAdam.step`); the gradients are clipped per probe (``opts.clip``) and
    Adam steps at each probe's rate factor (the ``stopper``'s schedule). ``after_step(step)``
    then records whatever the family keeps along the way (checkpoints, per-epoch scores). With a
    ``stopper``, ``dev_loss()`` (P,) is checked every ``opts.eval_every`` updates and at
    ``opts.max_steps``; training ends when every probe has stopped or after ``opts.max_steps``
    updates, a probe still improving then is flagged ``at_cap``, and each probe is restored to
    its best state. Without one, the stack trains ``opts.max_steps`` updates.

    The two generators stay on the CPU, so batch orders and dropout masks are the same on every
    device, and the batch order does not depend on how many dropout masks a family draws.
    ``progress``: a label for a progress bar over the updates (None: no bar).
    """
    if (stopper is None) != (dev_loss is None):
        raise ParameterError("stopper", "a stopper and a dev criterion go together")
    order_gen = torch.Generator().manual_seed(int(order_seed))
    dropout_gen = torch.Generator().manual_seed(int(dropout_seed))
    scale = None
    step = 0
    bar = tqdm(total=opts.max_steps, desc=progress, leave=False, disable=progress is None)
    with bar:
        while step < opts.max_steps and not (stopper is not None and stopper.done):
            before = step
            for batch in batches(order_gen):
                rows = backward(batch, dropout_gen)
                if opts.clip:
                    adam.clip(opts.clip)
                adam.step(scale, rows)
                adam.zero_grad()
                step += 1
                bar.update()
                if after_step is not None:
                    after_step(step)
                if stopper is not None and (step % opts.eval_every == 0 or step == opts.max_steps):
                    stopper.update(dev_loss(), step)
                    scale = stopper.lr_scale
                    if stopper.done:
                        break
                if step >= opts.max_steps:
                    break
            if step == before:
                raise ParameterError("batches", "an epoch drew no batch: no training data?")
    if stopper is not None:
        stopper.at_cap |= stopper.active & (step >= opts.max_steps)
        stopper.restore()
    return step


def fit_module(
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
    """:func:`fit_stack` for a stack that is a module trained through autograd.

    ``train_loss``: a minibatch's training loss per probe, shape (P,); summing over probes keeps
    their gradients separate. ``dev_loss`` must leave the stack in training mode. ``stopper``:
    the early-stopping record to use (``train_loss`` may read which probes are still
    ``active``); by default one with ``opts.patience``, ``opts.min_delta`` and the schedule.
    The stack is left in eval mode, each probe at its best state.
    """
    if stopper is None:
        stopper = StackedEarlyStopping(
            stack, n_probes, opts.patience, opts.min_delta, opts.lr_decay, opts.wait_for_start
        )

    def backward(batch: Batch, dropout_gen: torch.Generator) -> None:
        train_loss(batch, dropout_gen).sum().backward()

    stack.train()
    fit_stack(
        opts,
        StackAdam.for_module(stack, opts.lr, n_probes, opts.betas),
        batches=batches,
        backward=backward,
        stopper=stopper,
        dev_loss=dev_loss,
        order_seed=order_seed,
        dropout_seed=dropout_seed,
    )
    stack.eval()
    return stopper
