"""Stacks of MLP probes of one shape, trained together (Pimentel et al. 2020, §6.2).

They train with :func:`probekit.probes.training.fit_stack`: :class:`MLPConfig` describes one
architecture, :class:`MLPStack` holds P probes of one shape, :func:`train_mlps` trains every
architecture on every :class:`TrainingSet` (gold labels and the shuffled controls of §5).
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
from probekit.probes import linear
from probekit.probes.training import StackedEarlyStopping, TrainOptions, fit_module
from probekit.representations import types
from probekit.seeds import derived_seeds


@dataclass(frozen=True)
class MLPConfig:
    """One MLP probe architecture (Pimentel et al. 2020, §6.2).

    ``n_layers`` hidden layers (0 = a linear probe) of width ``hidden_size`` with ReLU and
    ``dropout``. The paper gives one hidden size; the released code halves the width at each
    layer (h, h/2, ...): :meth:`layer_sizes` offers both.
    """

    n_layers: int
    hidden_size: int
    dropout: float

    def layer_sizes(self, halve: bool = False) -> tuple[int, ...]:
        """Widths of the hidden layers, shape (n_layers,)."""
        if halve:
            return tuple(max(1, self.hidden_size // 2**k) for k in range(self.n_layers))
        return (self.hidden_size,) * self.n_layers


def _uniform(shape: tuple[int, ...], bound: float, generator: torch.Generator) -> torch.Tensor:
    return (torch.rand(*shape, generator=generator) * 2.0 - 1.0) * bound


class MLPStack(torch.nn.Module):
    """P MLP probes of one shape, trained together (Pimentel et al. 2020, §6.2).

    Each probe: (one-hot table lookup) -> dropout -> n x [Linear -> ReLU -> dropout] ->
    Linear to C classes, with ``layer_sizes`` the hidden widths (the same for every probe of
    the stack) and its own dropout rate. Inputs are not normalised, as in the released MLP.
    Weights carry a leading probe axis: ``weights[k]`` (P, fan_in, fan_out), ``biases[k]``
    (P, fan_out); every probe starts from the same draw (``nn.Linear``'s U(+-1/sqrt(fan_in)))
    of ``seed``, and dropout masks come from one uniform draw per layer compared with each
    probe's rate, so a probe's training does not depend on which others share its stack.

    ``forward(x)``: x float (B, d) shared by all probes or (P, B, d), or int64 ids (B[, k]) /
    (P, B[, k]) with ``embedding`` -> logits (P, B, C).
    """

    def __init__(
        self,
        d_in: int,
        n_classes: int,
        layer_sizes: Sequence[int],
        dropouts: Sequence[float],
        seed: int,
        embedding: types.OneHotEmbedding | None = None,
    ):
        """P = len(dropouts) probes d_in -> ``layer_sizes`` -> n_classes, drawn from ``seed``.

        ``embedding``, when given, turns int64 word-type ids into the inputs.
        """
        super().__init__()
        P = len(dropouts)
        if P < 1 or any(not 0 <= p < 1 for p in dropouts):
            raise ParameterError("dropout", f"need >= 1 probe with rates in [0, 1): {dropouts}")
        self.n_probes = P
        self.embedding = embedding
        sizes = [d_in, *layer_sizes, n_classes]
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        g = torch.Generator().manual_seed(seed)
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = 1.0 / math.sqrt(fan_in)
            W = _uniform((fan_in, fan_out), bound, g)
            b = _uniform((fan_out,), bound, g)
            self.weights.append(torch.nn.Parameter(W.expand(P, -1, -1).clone()))
            self.biases.append(torch.nn.Parameter(b.expand(P, -1).clone()))
        self.register_buffer("dropout", torch.tensor(list(dropouts), dtype=torch.float32))
        # Known here rather than read from the buffer at every layer (that would wait for a GPU).
        self.any_dropout = any(float(p) > 0 for p in dropouts)

    def _dropout(
        self, x: torch.Tensor, members: torch.Tensor | None, generator: torch.Generator | None
    ) -> torch.Tensor:
        # Training always runs the whole stack (members is None), so ``any_dropout`` decides
        # exactly as the rates of the probes in the pass would.
        if not self.training or not self.any_dropout:
            return x
        p = self.dropout if members is None else self.dropout[members]
        # Drawn from the CPU generator and copied: the same masks on every device.
        u = torch.rand(x.shape[-2:], generator=generator).to(x.device)
        keep = (u[None] >= p[:, None, None]).to(x.dtype)
        return x * keep / (1.0 - p)[:, None, None]

    def forward(
        self,
        x: torch.Tensor,
        generator: torch.Generator | None = None,
        members: torch.Tensor | None = None,
        per_probe: bool = False,
    ) -> torch.Tensor:
        """Logits (P', B, C) of all probes, or of the probes ``members`` (P',) only.

        ``per_probe``: x has a leading probe axis (P', B, ...); otherwise all probes share it.
        """

        def pick(t: torch.Tensor) -> torch.Tensor:
            return t if members is None else t[members]

        if self.embedding is not None:
            e = self.embedding(x, members, per_probe)  # (P', B, [k,] dim)
            x = e.reshape(e.shape[0], e.shape[1], -1)
        x = self._dropout(x, members, generator)
        n_hidden = len(self.weights) - 1
        for k, (W, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = torch.matmul(x, pick(W)) + pick(b)[:, None, :]
            if k < n_hidden:
                x = self._dropout(torch.relu(x), members, generator)
        return x


@dataclass(frozen=True, eq=False)
class TrainingSet:
    """One training condition of the MLP trainer (Pimentel et al. 2020, §5 and §6.2).

    Inputs ``X`` (N, ...) with labels ``y`` (N,), and the held-out examples ``X_stop``,
    ``y_stop`` that decide early stopping (the dev split for normal training; for the shuffled
    controls, training examples with their shuffled labels, since there the training set is the
    evaluation set).
    """

    name: str
    X: Any
    y: np.ndarray
    X_stop: Any
    y_stop: np.ndarray


@dataclass
class MLPResult:
    """Outcome of :func:`train_mlps` (Pimentel et al. 2020, §6.2).

    Arrays have shape (n_configs, n_sets).

    ``stop_accuracy`` / ``stop_loss`` (bits) are measured on each set's stopping examples at the
    restored best state (``best_step``); ``at_cap`` (bool) marks the probes that were still
    improving when training reached ``max_steps``.
    """

    configs: list[MLPConfig]
    sets: list[str]
    stop_accuracy: np.ndarray
    stop_loss: np.ndarray
    best_step: np.ndarray
    at_cap: np.ndarray
    stacks: list[tuple[np.ndarray, np.ndarray, MLPStack]] = field(repr=False)

    def predict(self, X: Any, set_index: int, batch_size: int = 8192) -> np.ndarray:
        """Class ids predicted for inputs X (N, ...) by every config trained on set ``set_index``.

        Shape (n_configs, N).
        """
        n = len(X)
        out = np.zeros((len(self.configs), n), dtype=np.int64)
        with torch.no_grad():
            for config_ids, set_ids, stack in self.stacks:
                members = np.flatnonzero(set_ids == set_index)
                if not members.size:
                    continue
                device = module_device(stack)
                m = torch.from_numpy(members).to(device)
                for start in range(0, n, batch_size):
                    xb = _batch(X, np.arange(start, min(start + batch_size, n)), device)
                    pred = stack(xb, members=m).argmax(-1).cpu().numpy()
                    out[config_ids[members], start : start + len(xb)] = pred
        return out

    def accuracy(self, X: Any, y: Any, set_index: int) -> np.ndarray:
        """Accuracy on (X, y) of every config trained on set ``set_index``, shape (n_configs,)."""
        return (self.predict(X, set_index) == np.asarray(y)[None, :]).mean(axis=1)


def _batch(X: Any, idx: np.ndarray, device: torch.device) -> torch.Tensor:
    """Rows ``idx`` (B,) of X (N, ...) as a float32 (B, ...) or int64 id tensor on ``device``."""
    t = torch.as_tensor(np.asarray(X[idx])).to(device)
    return t.float() if t.is_floating_point() else t.long()


def _loss_and_accuracy(
    stack: MLPStack, members: np.ndarray, X: Any, y: np.ndarray, batch_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Mean cross-entropy in bits and accuracy of the stack's probes ``members`` (P',).

    Measured on (X (N, ...), y (N,)) in eval mode; each result has shape (P',).
    """
    was = stack.training
    stack.eval()
    device = module_device(stack)
    m = torch.from_numpy(members).to(device)
    ce = torch.zeros(len(members), dtype=torch.float64, device=device)
    hits = torch.zeros(len(members), device=device)
    yt = torch.as_tensor(np.asarray(y), dtype=torch.int64).to(device)
    with torch.no_grad():
        for start in range(0, len(yt), batch_size):
            idx = np.arange(start, min(start + batch_size, len(yt)))
            logits = stack(_batch(X, idx, device), members=m)
            target = yt[start : start + len(idx)]
            ce += linear.cross_entropy_bits(logits, target).sum(1).double()
            hits += (logits.argmax(-1) == target[None]).sum(1).float()
    stack.train(was)
    n = max(len(yt), 1)
    return (ce / n).cpu().numpy(), (hits.double() / n).cpu().numpy()


def _check_sets(sets: Sequence[TrainingSet]) -> int:
    if not sets:
        raise ParameterError("sets", "is empty", "pass at least the normal training set")
    n = len(sets[0].y)
    for s in sets:
        if len(s.X) != n or len(s.y) != n:
            raise ParameterError(
                "sets",
                f"'{s.name}' has {len(s.X)} inputs and {len(s.y)} labels, expected {n}",
                "all conditions share the training rows (and so the minibatches)",
            )
        if len(s.X_stop) != len(s.y_stop) or len(s.y_stop) == 0:
            raise ParameterError("sets", f"'{s.name}' needs a non-empty stopping set")
    return n


def _group_by_shape(configs: Sequence[MLPConfig]) -> list[np.ndarray]:
    keys: dict[tuple[int, ...], list[int]] = {}
    for i, c in enumerate(configs):
        keys.setdefault(c.layer_sizes(), []).append(i)
    return [np.asarray(v, dtype=np.int64) for v in keys.values()]


def train_mlps(
    configs: Sequence[MLPConfig],
    sets: Sequence[TrainingSet],
    *,
    n_classes: int,
    seed: int,
    options: TrainOptions | None = None,
    onehot_dim: int | None = None,
    vocab_size: int | None = None,
    onehot_trainable: int | None = None,
    max_parallel: int = 32,
    device: str | torch.device = "cpu",
) -> MLPResult:
    """Train every MLP config on every training set (Pimentel et al. 2020, §6.2).

    Configs with the same hidden widths (e.g. every zero-layer config) and all their sets form
    one :class:`MLPStack` of up to ``max_parallel`` probes trained in one pass; other configs
    train one stack after another. Every stack sees the same minibatch order (drawn from
    ``seed``) over the N training rows shared by all sets; a probe reads its own set's inputs
    and labels at those rows. Adam, early stopping per probe on its set's stopping examples
    (:class:`probekit.probes.training.TrainOptions`; cross-entropy in bits, as the released code).

    Args:
        configs: K :class:`probekit.probes.mlp_stack.MLPConfig`.
        sets: S :class:`TrainingSet` with the same N (e.g. normal, label-shuffled,
            fully-shuffled).
        n_classes: C.
        seed: initialisation, batch order and dropout.
        options: optimisation settings; None means the :class:`TrainOptions` defaults.
        onehot_dim: when set, inputs are word-type ids for a trainable one-hot table with
            vectors of this size.
        vocab_size: rows of the one-hot table.
        onehot_trainable: rows from this id on stay frozen (no training input uses them).
        max_parallel: largest number of probes in one stack.
        device: where the probes train (:func:`probekit.devices.resolve_device`); inputs are
            copied per minibatch. Initial weights, batch orders and dropout masks are drawn on
            the CPU, so they are the same on every device.

    Returns:
        :class:`MLPResult`; its arrays are NumPy, its stacks stay on ``device``.
    """
    where = resolve_device(device)
    opts = options or TrainOptions()
    if not configs:
        raise ParameterError("configs", "is empty", "e.g. sample_mlp_configs(10, seed=0)")
    if max_parallel < 1:
        raise ParameterError("max_parallel", f"must be >= 1, got {max_parallel}")
    n = _check_sets(sets)
    init_seed, order_seed, dropout_seed = derived_seeds(seed)
    K, S = len(configs), len(sets)
    acc, loss = np.zeros((K, S)), np.zeros((K, S))
    best = np.zeros((K, S), dtype=np.int64)
    at_cap = np.zeros((K, S), dtype=bool)
    stacks = []
    pairs = [(c, s) for group in _group_by_shape(configs) for c in group.tolist() for s in range(S)]
    chunks = _chunks(pairs, configs, max_parallel)
    for chunk in chunks:
        config_ids = np.asarray([c for c, _ in chunk], dtype=np.int64)
        set_ids = np.asarray([s for _, s in chunk], dtype=np.int64)
        stack = _build_mlp_stack(
            configs,
            config_ids,
            sets,
            n_classes,
            onehot_dim,
            vocab_size,
            init_seed,
            onehot_trainable,
        ).to(where)
        stopper = _fit_mlp_stack(stack, set_ids, sets, n, opts, order_seed, dropout_seed)
        for s in np.unique(set_ids):
            members = np.flatnonzero(set_ids == s)
            l_, a_ = _loss_and_accuracy(
                stack, members, sets[s].X_stop, sets[s].y_stop, opts.eval_batch_size
            )
            loss[config_ids[members], s], acc[config_ids[members], s] = l_, a_
        best[config_ids, set_ids] = stopper.best_step
        at_cap[config_ids, set_ids] = stopper.at_cap
        stacks.append((config_ids, set_ids, stack))
    return MLPResult(list(configs), [s.name for s in sets], acc, loss, best, at_cap, stacks)


def _chunks(
    pairs: list[tuple[int, int]], configs: Sequence[MLPConfig], max_parallel: int
) -> list[list[tuple[int, int]]]:
    out: list[list[tuple[int, int]]] = []
    for pair in pairs:
        shape = configs[pair[0]].layer_sizes()
        if out and len(out[-1]) < max_parallel and configs[out[-1][0][0]].layer_sizes() == shape:
            out[-1].append(pair)
        else:
            out.append([pair])
    return out


def _build_mlp_stack(
    configs: Sequence[MLPConfig],
    config_ids: np.ndarray,
    sets: Sequence[TrainingSet],
    n_classes: int,
    onehot_dim: int | None,
    vocab_size: int | None,
    seed: int,
    onehot_trainable: int | None = None,
) -> MLPStack:
    first = np.asarray(sets[0].X[:1])
    embedding = None
    if onehot_dim is not None:
        V = vocab_size or int(max(np.max(np.asarray(s.X)) for s in sets)) + 1
        if onehot_trainable is not None and any(
            int(np.max(np.asarray(s.X))) >= onehot_trainable for s in sets
        ):
            raise ParameterError("onehot_trainable", "training ids reach beyond it")
        embedding = types.OneHotEmbedding(
            V, onehot_dim, n_probes=len(config_ids), seed=seed, n_trainable=onehot_trainable
        )
        d = onehot_dim * (1 if first.ndim == 1 else first.shape[1])
    else:
        if not np.issubdtype(first.dtype, np.floating):
            raise ParameterError("sets", "hold word ids", "pass onehot_dim for one-hot inputs")
        d = int(np.prod(first.shape[1:]))
    sizes = configs[int(config_ids[0])].layer_sizes()
    dropouts = [configs[int(c)].dropout for c in config_ids]
    return MLPStack(d, n_classes, sizes, dropouts, seed + 17 * len(sizes), embedding)


def _fit_mlp_stack(
    stack: MLPStack,
    set_ids: np.ndarray,
    sets: Sequence[TrainingSet],
    n: int,
    opts: TrainOptions,
    order_seed: int,
    dropout_seed: int,
) -> StackedEarlyStopping:
    """Fit the P = len(set_ids) probes of ``stack`` (Pimentel et al. 2020, §6.2).

    With :func:`~probekit.probes.training.fit_module`: mean cross-entropy in bits of each probe on
    its own set's labels at the shared rows ``idx`` (B,) of the N = ``n`` training rows, early
    stopping on each set's stopping examples.
    """
    # Sets that share an input array are read once per batch.
    views: list[Any] = []
    view_of: list[int] = []
    for s in set_ids.tolist():
        known = [k for k, v in enumerate(views) if v is sets[s].X]
        if not known:
            views.append(sets[s].X)
        view_of.append(known[0] if known else len(views) - 1)
    device = module_device(stack)
    view_index = torch.as_tensor(view_of).to(device)
    Y = torch.as_tensor(np.stack([np.asarray(sets[s].y) for s in set_ids.tolist()])).long()
    Y = Y.to(device)

    def batches(order_gen: torch.Generator) -> list[np.ndarray]:
        perm = torch.randperm(n, generator=order_gen).numpy()
        return [perm[start : start + opts.batch_size] for start in range(0, n, opts.batch_size)]

    def train_loss(idx: np.ndarray, dropout_gen: torch.Generator) -> torch.Tensor:
        xs = [_batch(v, idx, device) for v in views]
        x = xs[0] if len(xs) == 1 else torch.stack(xs)[view_index]
        logits = stack(x, dropout_gen, per_probe=len(xs) > 1)  # (P, B, C)
        # Each probe has its own labels (gold or shuffled), so the targets are (P, B), not the
        # shared (B,) of linear.cross_entropy_bits.
        target = Y[:, torch.from_numpy(idx).to(device)]
        logp = torch.log_softmax(logits, dim=-1)
        return -logp.gather(-1, target[..., None])[..., 0].mean(1) / linear.LN2

    return fit_module(
        stack,
        len(set_ids),
        opts,
        batches=batches,
        train_loss=train_loss,
        dev_loss=lambda: _stop_losses(stack, set_ids, sets, opts),
        order_seed=order_seed,
        dropout_seed=dropout_seed,
    )


def _stop_losses(
    stack: MLPStack, set_ids: np.ndarray, sets: Sequence[TrainingSet], opts: TrainOptions
) -> np.ndarray:
    """Cross-entropy in bits of each of the P = len(set_ids) probes on its set's stopping examples.

    Shape (P,); the stack is left in the mode it was in.
    """
    out = np.zeros(len(set_ids))
    for s in np.unique(set_ids):
        members = np.flatnonzero(set_ids == s)
        out[members] = _loss_and_accuracy(
            stack, members, sets[s].X_stop, sets[s].y_stop, opts.eval_batch_size
        )[0]
    return out
