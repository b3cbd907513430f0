"""Training many biaffine parsing probes at once, as one stacked model (Pimentel et al. 2020).

§7.2 and appendix A: a parser trains with Adam on eq. 8 and stops early on its development set.
A chapter trains many of them on one representation: several architectures or nuclear-norm
weights (:class:`~probekit.probes.biaffine.BiaffineConfig`), each on the gold heads and on the
shuffled heads of the controls (§5), and some under several seeds. :func:`train_parsers` trains
them as stacks (:class:`ParserStack`) with :func:`probekit.probes.training.fit_stack`:

- one stack holds the probes of one shape (the MLP's hidden widths; for the linear variant its
  input dropout, up to ``max_parallel`` probes) over every training condition (:class:`ParseSet`)
  and seed (:class:`ParseRun`); they see the same minibatches, drawn from the call's ``seed``;
- the sentences are cached once per split as one flat (W, d) tensor (:class:`ParseData`); a
  minibatch is one gather of its word rows into a padded (B, n, d) batch, shared by every probe
  of the stack that reads those inputs;
- a probe's initialisation and dropout masks come from its own seed: the masks from a 16-bit
  draw per seed and layer compared with each probe's rate (:func:`~.structural_stack.
  dropout_threshold`), so a probe follows the same trajectory alone or in any stack, down to
  floating-point rounding (the one-hot table is drawn per stack: one-hot probes of different
  seeds never share one);
- each probe stops on its own criterion, its own set's stopping data (:class:`ParseSet`), and
  a stopped probe leaves the stack's forward pass, so the rest of the run costs only the
  probes still training;
- each set may cap its probes' updates below the stack's (``ParseSet.max_steps``, checked at
  the stack's evaluations);
- the stacks and the cached sentences live on the call's ``device``; initial weights, batch
  orders and dropout masks are drawn on the CPU and copied, so they are the same on every
  device, and which probes still train is decided on the CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from probekit.devices import module_device, resolve_device
from probekit.errors import ParameterError
from probekit.probes.biaffine import (
    PARSE_OPTIONS,
    SELECT_ON,
    UAS_MIN_DELTA,
    BiaffineConfig,
    LinearBiaffineProbes,
    MLPBiaffineProbes,
    _pick,
    decode_heads,
    parse_loss,
    uas,
)
from probekit.probes.linear import normalise_rows
from probekit.probes.structural_stack import DROPOUT_LEVELS, dropout_threshold
from probekit.probes.training import StackedEarlyStopping, TrainOptions, fit_module
from probekit.representations.types import OneHotEmbedding
from probekit.seeds import derived_seeds

# ---------------------------------------------------------------------------------------------
# Data, built once per split
# ---------------------------------------------------------------------------------------------


def _flat(arrays: Sequence[Any], ids: bool) -> torch.Tensor:
    """One tensor of the rows of m per-sentence arrays, plus a zero padding row at the end."""
    if ids:
        flat = np.concatenate([np.asarray(a, dtype=np.int64).reshape(-1) for a in arrays])
        return torch.from_numpy(np.concatenate([flat, [0]]))
    d = np.asarray(arrays[0]).shape[1]
    out = np.zeros((sum(len(a) for a in arrays) + 1, d), dtype=np.float32)
    np.concatenate([np.asarray(a, dtype=np.float32) for a in arrays], out=out[:-1])
    return torch.from_numpy(out)


@dataclass(eq=False)
class ParseData:
    """m sentences ready for batched parsing: built once, read by index (appendix A).

    ``x`` float32 (W + 1, d) or int64 word-type ids (W + 1,): the words of all sentences in
    order, then a zero padding row; ``heads`` int64 (W + 1,), 1-based gold heads (0 = root),
    -1 on the padding row, or None; ``offsets`` (m + 1,) and ``lengths`` (m,).
    """

    x: torch.Tensor
    heads: torch.Tensor | None
    offsets: np.ndarray
    lengths: np.ndarray

    @classmethod
    def build(
        cls,
        inputs: Sequence[Any],
        heads: Sequence[Any] | None = None,
        x: torch.Tensor | None = None,
    ) -> ParseData:
        """From m arrays (n_s, d) or (n_s,) ids and m head arrays (n_s,); ``x`` reuses a tensor."""
        lengths = np.asarray([len(s) for s in inputs], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if x is None:
            x = _flat(inputs, np.asarray(inputs[0]).ndim == 1)
        gold = None
        if heads is not None:
            gold = _flat(heads, ids=True)
            gold[-1] = -1
        return cls(x, gold, offsets, lengths)

    def to(self, device: torch.device) -> ParseData:
        """This data with its tensors on ``device`` (a tensor already there is kept, not copied)."""
        heads = None if self.heads is None else self.heads.to(device)
        return ParseData(self.x.to(device), heads, self.offsets, self.lengths)

    def positions(self, idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """Rows (B, n) of the words of sentences ``idx`` (B,), padding -> the padding row; mask.

        Both on the data's device.
        """
        lengths = self.lengths[idx]
        n = int(lengths.max())
        j = np.arange(n)
        mask = j[None, :] < lengths[:, None]
        rows = np.where(mask, self.offsets[idx][:, None] + j[None, :], len(self.x) - 1)
        device = self.x.device
        return torch.from_numpy(rows).to(device), torch.from_numpy(mask).to(device)

    def gather(self, rows: torch.Tensor) -> torch.Tensor:
        """Inputs of the padded words ``rows`` (B, n): (B, n, d) floats or (B, n) ids."""
        return _rows_of(self.x, rows)

    def gold(self, rows: torch.Tensor) -> torch.Tensor:
        """Heads (B, n) of the padded words ``rows``, -1 on padding."""
        if self.heads is None:
            raise ParameterError("heads", "these sentences were given without heads")
        return _rows_of(self.heads, rows)

    def eval_batches(self, batch_size: int) -> list[np.ndarray]:
        """Sentence indices in batches of ``batch_size``, sorted by length (little padding)."""
        order = np.argsort(self.lengths, kind="stable")
        return [order[k : k + batch_size] for k in range(0, len(order), batch_size)]


@dataclass(frozen=True, eq=False)
class ParseSet:
    """One training condition of the parsers (Pimentel et al. 2020, §5 and §7.2).

    ``inputs`` and ``heads`` of m training sentences (gold heads, or shuffled for a control) and
    the sentences that decide early stopping (``stop_inputs``, ``stop_heads``: development
    sentences for the gold heads; for a control, its own training sentences, since there the
    training set is the evaluation set). Every set of one call has the same sentence lengths,
    so they share minibatches. ``max_steps`` caps its probes' updates below the stack's cap
    (None: the training options' ``max_steps``).
    """

    name: str
    inputs: Sequence[Any]
    heads: Sequence[Any]
    stop_inputs: Sequence[Any]
    stop_heads: Sequence[Any]
    max_steps: int | None = None


@dataclass(frozen=True)
class ParseRun:
    """One parser to train: a config on set number ``set`` with ``seed``.

    ``seed`` drives the probe's initialisation and dropout; None means the call's ``seed``.
    """

    config: BiaffineConfig
    set: int = 0
    seed: int | None = None


# ---------------------------------------------------------------------------------------------
# The stacked model
# ---------------------------------------------------------------------------------------------


class DropoutStreams:
    """Inverted dropout for P probes, each at its own rate, from one stream per seed.

    Probe p reads stream ``stream[p]``; each stream draws one 16-bit uniform array per dropout
    site (:func:`~probekit.probes.structural_stack.dropout_threshold`) when any of its probes in
    the forward pass drops units, and each probe keeps the units whose draw reaches its
    threshold. A probe's masks therefore depend only on its stream's seed and the batch shapes,
    not on the other probes in the stack. :meth:`reset` restarts the streams.
    """

    def __init__(self, rates: Sequence[float], stream: Sequence[int], seeds: Sequence[int]):
        """P ``rates`` in [0, 1), the stream (P,) of each probe and one seed per stream."""
        self.thresholds = np.asarray([dropout_threshold(r) for r in rates], dtype=np.int64)
        self.stream = np.asarray(stream, dtype=np.int64)
        self.seeds = [int(s) for s in seeds]
        self.reset()

    def reset(self) -> None:
        """Restart every stream from its seed (SFC64: the fastest of NumPy's raw generators)."""
        self.generators = [np.random.Generator(np.random.SFC64(s)) for s in self.seeds]

    def drops(self, members: np.ndarray) -> bool:
        """Whether any of the probes ``members`` drops units."""
        return bool(self.thresholds[members].any())

    def __call__(self, t: torch.Tensor, members: np.ndarray) -> torch.Tensor:
        """Inverted dropout of t (P', ...) or (1, ...) for the probes ``members`` (P',).

        Each probe drops its own share of units; the mask covers t.shape[1:] (the probe axis
        aside), so it does not depend on how many probes are stacked. Probes of one stream and
        rate share their mask: when all of ``members`` do, the result keeps t's leading axis,
        else it is (P', ...).
        """
        thr = self.thresholds[members]
        streams = self.stream[members]
        shape = tuple(t.shape[1:])
        size = int(np.prod(shape))
        masks: dict[tuple[int, int], torch.Tensor] = {}
        for s in np.unique(streams[thr > 0]):
            raw = self.generators[s].bit_generator.random_raw(-(-size // 4))
            bits = raw.view(np.uint16)[:size].reshape(shape)
            for level in np.unique(thr[(streams == s) & (thr > 0)]):
                # A uint16 threshold keeps the comparison in 16 bits (an int64 one upcasts).
                keep = (bits >= np.uint16(level)).astype(np.float32)
                scale = DROPOUT_LEVELS / (DROPOUT_LEVELS - int(level))
                masks[int(s), int(level)] = torch.from_numpy(keep).mul_(scale)
        keys = [(int(s), int(level)) for s, level in zip(streams, thr, strict=True)]
        if len(set(keys)) == 1:
            return t * masks[keys[0]].to(t.device) if keys[0] in masks else t
        ones = torch.ones(shape)
        return t * torch.stack([masks.get(k, ones) for k in keys]).to(t.device)


class ParserStack(torch.nn.Module):
    """P parsing probes of one shape and their input pipeline (Pimentel et al. 2020, §7.2).

    (one-hot lookup) -> (L2 normalisation, linear variant) -> input dropout -> scorer -> padded
    head columns at -inf. ``forward(x, mask, members)``: x float (B, n, d) or int64 ids (B, n)
    shared by the probes, or with a leading probe axis (P', ...) one per probe; mask (B, n);
    ``members`` (P',) the probes to run (default all; int64 on the CPU) -> scores
    (P', B, n, n + 1). In training
    mode the :class:`DropoutStreams` ``dropout`` drop units of the inputs and, in the MLP
    variant, of every hidden layer.
    """

    def __init__(
        self,
        scorer: LinearBiaffineProbes | MLPBiaffineProbes,
        dropout: DropoutStreams,
        *,
        embedding: OneHotEmbedding | None = None,
        normalise: bool = False,
    ):
        """Wrap ``scorer`` with an optional one-hot ``embedding`` and normalisation."""
        super().__init__()
        self.scorer, self.embedding, self.normalise = scorer, embedding, normalise
        self.dropout = dropout
        self.n_probes = scorer.n_probes

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor, members: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Scores (P', B, n, n + 1), shapes as in the class docstring."""
        per_probe = x.dim() == (3 if self.embedding is not None else 4)
        if self.embedding is not None:
            x = self.embedding(x, members, per_probe)  # (P', B, n, dim)
        root = _pick(self.scorer.root, members)
        if self.normalise:
            x, root = normalise_rows(x), normalise_rows(root)
        dropout = None
        local = np.arange(self.n_probes) if members is None else members.numpy()
        if self.training and self.dropout.drops(local):

            def dropout(t: torch.Tensor) -> torch.Tensor:
                return self.dropout(t, local)

            x = dropout(x if x.dim() == 4 else x[None])
            if x.shape[0] == 1:  # one mask for every probe: the inputs stay shared
                x = x[0]
        scores = self.scorer(x, root, members, dropout)
        columns = torch.cat([torch.ones_like(mask[:, :1]), mask], dim=1)  # (B, n + 1)
        return scores.masked_fill(~columns[None, :, None, :], float("-inf"))

    def penalty(self, members: torch.Tensor | None = None) -> torch.Tensor:
        """The scorer's complexity penalty per probe, shape (P',)."""
        return self.scorer.penalty(members)


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


def _batches(lengths: np.ndarray, batch_size: int, generator: torch.Generator) -> list[np.ndarray]:
    # Random pools of 20 batches, sorted by length inside a pool, so that padding stays small
    # while the batch order stays random.
    perm = torch.randperm(len(lengths), generator=generator).numpy()
    pool = 20 * batch_size
    batches = []
    for start in range(0, len(perm), pool):
        chunk = perm[start : start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches.extend(chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size))
    order = torch.randperm(len(batches), generator=generator).numpy()
    return [batches[k] for k in order]


def _rows_of(t: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """Rows ``rows`` (B, n) of a flat tensor (W + 1, ...) -> (B, n, ...)."""
    return t.index_select(0, rows.reshape(-1)).view(*rows.shape, *t.shape[1:])


class _Shared:
    """The distinct tensors a stack's probes read (inputs or heads), and which one each reads."""

    def __init__(self, tensors: Sequence[torch.Tensor]):
        self.tensors: list[torch.Tensor] = []
        view = []
        for t in tensors:
            known = [k for k, u in enumerate(self.tensors) if u is t]
            if not known:
                self.tensors.append(t)
            view.append(known[0] if known else len(self.tensors) - 1)
        self.view = np.asarray(view, dtype=np.int64)

    def gather(self, rows: torch.Tensor, members: np.ndarray) -> torch.Tensor:
        """Rows (B, n) as ``members`` (P',) read them.

        Shared (B, n, ...) when they all read one tensor, else (P', B, n, ...).
        """
        views = self.view[members]
        used = np.unique(views)
        if len(used) == 1:
            return _rows_of(self.tensors[int(used[0])], rows)
        per_tensor = {int(v): _rows_of(self.tensors[int(v)], rows) for v in used}
        return torch.stack([per_tensor[int(v)] for v in views])


@torch.no_grad()
def _evaluate(
    stack: ParserStack,
    data: ParseData,
    members: np.ndarray,
    batch_size: int,
    predictions: bool = False,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Mean cross-entropy in bits and token UAS of the probes ``members`` (P',) on ``data``.

    With ``predictions``, also each sentence's predicted heads (P', n_s). The stack is left in
    the mode it was in.
    """
    was_training = stack.training
    stack.eval()
    P = len(members)
    m = None if P == stack.n_probes else torch.from_numpy(members)
    ce_sum, hits, total = np.zeros(P), np.zeros(P), 0
    preds: list[np.ndarray] = [np.zeros(0)] * len(data.lengths)
    for idx in data.eval_batches(batch_size):
        rows, mask = data.positions(idx)
        scores = stack(data.gather(rows), mask, m)
        pred = decode_heads(scores)  # (P', B, n)
        if data.heads is not None:
            gold = data.gold(rows)
            n_words = int(mask.sum())
            ce_sum += parse_loss(scores, gold).double().cpu().numpy() * n_words
            hits += ((pred == gold[None]) & mask[None]).sum(dim=(1, 2)).double().cpu().numpy()
            total += n_words
        if predictions:
            pred_np = pred.cpu().numpy()
            for b, i in enumerate(idx):
                preds[i] = pred_np[:, b, : data.lengths[i]]
    stack.train(was_training)
    total = max(total, 1)
    return ce_sum / total, hits / total, preds


def _fit(
    stack: ParserStack,
    train: Sequence[ParseData],
    stop: Sequence[ParseData],
    caps: np.ndarray,
    opts: TrainOptions,
    order_seed: int,
    select_on: str,
    min_gain: float = UAS_MIN_DELTA,
) -> StackedEarlyStopping:
    """Fit the P probes of ``stack`` on eq. 8 (cross-entropy over heads in bits + penalty).

    Probe p trains on ``train[p]`` (inputs and heads; all share sentence lengths) and stops on
    ``stop[p]``: at its best UAS there (``select_on="uas"``, gains above ``min_gain``) or its
    best loss (``"loss"``, gains above ``opts.min_delta``), or at its cap ``caps[p]``. Minibatches of sentence indices (B,) from :func:`_batches`.
    """
    P = stack.n_probes
    inputs = _Shared([d.x for d in train])
    heads = _Shared([d.heads for d in train])
    stops: dict[int, list[int]] = {}
    for p, d in enumerate(stop):
        key = next((q for q in stops if stop[q].x is d.x and stop[q].heads is d.heads), p)
        stops.setdefault(key, []).append(p)
    if select_on == "uas":
        # The 0.02-bit threshold of the loss rule means nothing on a share of words.
        opts = replace(opts, min_delta=min_gain)
    opts = replace(opts, max_steps=int(caps.max()))
    stopper = StackedEarlyStopping(
        stack, P, opts.patience, opts.min_delta, opts.lr_decay, caps=caps
    )
    stack.dropout.reset()

    def active() -> np.ndarray:
        return np.flatnonzero(stopper.active)

    def train_loss(idx: np.ndarray, _: torch.Generator) -> torch.Tensor:
        members = active()
        rows, mask = train[0].positions(idx)
        m = None if len(members) == P else torch.from_numpy(members)
        scores = stack(inputs.gather(rows, members), mask, m)
        return parse_loss(scores, heads.gather(rows, members)) + stack.penalty(m)

    def criterion() -> np.ndarray:
        out = np.full(P, np.inf)
        for key, probes in stops.items():
            members = np.intersect1d(probes, active())
            if len(members):
                loss, accuracy, _ = _evaluate(stack, stop[key], members, opts.eval_batch_size)
                out[members] = 1.0 - accuracy if select_on == "uas" else loss
        return out

    fit_module(
        stack,
        P,
        opts,
        batches=lambda order_gen: _batches(train[0].lengths, opts.batch_size, order_gen),
        train_loss=train_loss,
        dev_loss=criterion,
        order_seed=order_seed,
        dropout_seed=order_seed,  # unused: the masks come from the stack's DropoutStreams
        stopper=stopper,
    )
    return stopper


@dataclass
class BiaffineResult:
    """Outcome of :func:`train_parsers`; arrays have shape (P,) in run order.

    ``dev_uas`` is token-level UAS on each run's stopping sentences at its restored best state;
    ``complexity`` is ||U||_* for the linear variant and NaN for the MLP variant; ``dev_loss``
    is cross-entropy in bits per word; ``init_complexity`` is the complexity before training;
    ``at_cap`` is True for a probe still improving when training hit its cap of updates (not
    known to have converged).
    """

    runs: list[ParseRun]
    dev_uas: np.ndarray
    dev_loss: np.ndarray
    complexity: np.ndarray
    best_step: np.ndarray
    at_cap: np.ndarray
    init_complexity: np.ndarray
    stacks: list[tuple[np.ndarray, ParserStack]] = field(repr=False)

    @property
    def configs(self) -> list[BiaffineConfig]:
        """The config of every run, shape (P,)."""
        return [r.config for r in self.runs]

    def predict(
        self, inputs: Sequence[Any], batch_size: int = 256, which: Sequence[int] | None = None
    ) -> list[list[np.ndarray]]:
        """Predicted heads of the runs ``which`` (default all): per run, m arrays (n_s,).

        1-based heads, 0 = root; runs not asked for get an empty list.
        """
        wanted = set(range(len(self.runs)) if which is None else (int(i) for i in which))
        out: list[list[np.ndarray]] = [[] for _ in self.runs]
        data = ParseData.build(inputs)
        for members, stack in self.stacks:
            local = np.asarray([k for k, i in enumerate(members) if int(i) in wanted])
            if not len(local):
                continue
            on = data.to(module_device(stack))
            preds = _evaluate(stack, on, local, batch_size, predictions=True)[2]
            for j, k in enumerate(local):
                out[int(members[k])] = [p[j] for p in preds]
        return out

    def uas(
        self, inputs: Sequence[Any], heads: Sequence[Any], which: Sequence[int] | None = None
    ) -> np.ndarray:
        """Token-level UAS of the runs ``which`` (default all) on (inputs, heads), shape (P',)."""
        which = list(range(len(self.runs))) if which is None else [int(i) for i in which]
        preds = self.predict(inputs, which=which)
        return np.asarray([uas(preds[i], heads) for i in which])


def _check_parse_data(name: str, inputs: Sequence[Any], heads: Sequence[Any]) -> None:
    if len(inputs) != len(heads) or not len(inputs):
        raise ParameterError(name, "needs one heads array per sentence and at least one sentence")
    for s, (x, h) in enumerate(zip(inputs, heads, strict=True)):
        h = np.asarray(h)
        if len(x) != len(h) or len(h) == 0:
            raise ParameterError(name, f"sentence {s}: {len(x)} inputs for {len(h)} heads")
        if h.min() < 0 or h.max() > len(h):
            raise ParameterError(name, f"sentence {s}: heads must lie in 0..{len(h)}")


def _check_runs(runs: Sequence[ParseRun], sets: Sequence[ParseSet]) -> None:
    if not runs:
        raise ParameterError("configs", "is empty", "e.g. [BiaffineConfig(alpha=a) for a in ...]")
    if not sets:
        raise ParameterError("sets", "is empty", "pass at least the gold-head training set")
    for r in runs:
        c = r.config
        if c.alpha < 0 or not 0 <= c.dropout < 1:
            raise ParameterError("alpha", f"alpha must be >= 0 and dropout in [0, 1): {c}")
        if c.mlp is not None and (c.alpha != 0 or c.dropout != 0):
            raise ParameterError("mlp", "the MLP variant takes no alpha and uses mlp.dropout")
        if not 0 <= r.set < len(sets):
            raise ParameterError("runs", f"set {r.set} is not one of the {len(sets)} sets")
    for s in sets:
        _check_parse_data(f"{s.name} inputs", s.inputs, s.heads)
        _check_parse_data(f"{s.name} stop_inputs", s.stop_inputs, s.stop_heads)
        if [len(x) for x in s.inputs] != [len(x) for x in sets[0].inputs]:
            raise ParameterError(
                "sets",
                f"'{s.name}' has other sentences than '{sets[0].name}'",
                "the sets of one call share their minibatches; train other sentences apart",
            )
        if s.max_steps is not None and s.max_steps < 1:
            raise ParameterError("max_steps", f"set '{s.name}' caps at {s.max_steps} updates")


def _stacks(
    runs: Sequence[ParseRun], seeds: Sequence[int], onehot: bool, max_parallel: int | None
) -> list[np.ndarray]:
    """Run indices grouped into stacks, in the order of their first run.

    Same kind and shape (the MLP's hidden widths; the linear variant's dropout and seed, which
    fixes its shared initialisation), and for one-hot inputs the same seed (the table is drawn
    per stack); at most ``max_parallel`` runs each.
    """
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(runs):
        c = r.config
        if c.mlp is None:
            key: tuple = ("linear", c.dropout, seeds[i])
        else:
            key = ("mlp", c.mlp.layer_sizes(), seeds[i] if onehot else None)
        groups.setdefault(key, []).append(i)
    out = []
    for members in groups.values():
        size = max_parallel or len(members)
        out.extend(np.asarray(members[k : k + size]) for k in range(0, len(members), size))
    return sorted(out, key=lambda m: int(m[0]))


def _build(
    runs: Sequence[ParseRun],
    seeds: Sequence[int],
    d: int,
    onehot_dim: int | None,
    vocab_size: int,
    normalise: bool,
    onehot_trainable: int | None,
) -> ParserStack:
    """A stack for ``runs`` (one group of :func:`_stacks`) with probe seeds ``seeds``."""
    init = [derived_seeds(s)[0] for s in seeds]
    dropout_seeds = sorted({derived_seeds(s)[2] for s in seeds})
    dropout = DropoutStreams(
        [r.config.rate for r in runs],
        [dropout_seeds.index(derived_seeds(s)[2]) for s in seeds],
        dropout_seeds,
    )
    embedding = None
    if onehot_dim is not None:
        embedding = OneHotEmbedding(
            vocab_size, onehot_dim, n_probes=len(runs), seed=init[0], n_trainable=onehot_trainable
        )
        d = onehot_dim
    mlp = runs[0].config.mlp
    if mlp is None:
        scorer: LinearBiaffineProbes | MLPBiaffineProbes = LinearBiaffineProbes(
            d, [r.config.alpha for r in runs], seed=init[0]
        )
        return ParserStack(scorer, dropout, embedding=embedding, normalise=normalise)
    # The MLP variant reads raw inputs, like the released MLPParser.
    return ParserStack(MLPBiaffineProbes(d, mlp.layer_sizes(), init), dropout, embedding=embedding)


def train_parsers(
    runs: Sequence[ParseRun],
    sets: Sequence[ParseSet],
    *,
    seed: int,
    onehot_dim: int | None = None,
    vocab_size: int | None = None,
    normalise: bool = True,
    options: TrainOptions = PARSE_OPTIONS,
    max_parallel: int | None = None,
    onehot_trainable: int | None = None,
    select_on: str = "uas",
    min_gain: float = UAS_MIN_DELTA,
    device: str | torch.device = "cpu",
) -> BiaffineResult:
    """Train parsing probes as stacks and report their UAS and complexity (§7.2, appendix A).

    Adam on eq. 8, early stopping per probe on UAS over its set's stopping sentences, the metric
    a parser is judged by, or with ``select_on="loss"`` on their cross-entropy as the released
    code (:class:`~probekit.probes.training.TrainOptions`; batches count sentences). Runs are
    grouped into stacks (see the module docstring); results do not depend on the grouping beyond
    floating-point rounding.

    Args:
        runs: P :class:`ParseRun` (config, set, seed).
        sets: S :class:`ParseSet` with the same sentence lengths: inputs float32 (n_s, d)
            embeddings or, with ``onehot_dim``, word-type ids (n_s,)
            (:func:`probekit.representations.types.type_ids`); heads int (n_s,), 1-based,
            0 = root (gold, or :func:`probekit.methods.pareto.controls.shuffle_heads` for the
            label-shuffled control).
        seed: the minibatch order (shared by every stack), and the initialisation and dropout of
            the runs without a seed of their own.
        onehot_dim: size of the trainable one-hot representation's type vectors.
        vocab_size: rows of the one-hot table (defaults to max id + 1 over every input).
        normalise: L2-normalise the linear variant's inputs and root vector.
        options: optimisation settings; ``max_steps`` caps every run (a set may cap lower).
        max_parallel: largest stack (None: no limit).
        onehot_trainable: rows of the one-hot table at or above this id stay frozen outside the
            optimiser (the training sentences must only use lower ids); default all rows.
        select_on: ``"uas"`` or ``"loss"``, the early-stopping criterion (:data:`SELECT_ON`).
        min_gain: with ``select_on="uas"``, the smallest UAS gain that counts as an improvement
            (default :data:`~probekit.probes.biaffine.UAS_MIN_DELTA`).
        device: where the stacks train (:func:`probekit.devices.resolve_device`).

    Returns:
        :class:`BiaffineResult`; its arrays are NumPy, its stacks stay on ``device``.
    """
    if select_on not in SELECT_ON:
        raise ParameterError("select_on", f"must be one of {SELECT_ON}, got {select_on!r}")
    if not 0 <= min_gain < 1:
        raise ParameterError("min_gain", f"must lie in [0, 1), got {min_gain}")
    if max_parallel is not None and max_parallel < 1:
        raise ParameterError("max_parallel", f"must be >= 1, got {max_parallel}")
    _check_runs(runs, sets)
    where = resolve_device(device)
    first = np.asarray(sets[0].inputs[0])
    if (onehot_dim is None) != (first.ndim == 2):
        raise ParameterError(
            "train_inputs",
            "must be (n_s, d) float arrays without onehot_dim, (n_s,) ids with it",
        )
    d_in = first.shape[1] if first.ndim == 2 else 0
    V = vocab_size or 0
    if onehot_dim is not None:
        every = [a for s in sets for a in (*s.inputs, *s.stop_inputs)]
        V = V or max(int(np.max(a)) for a in every) + 1
        if onehot_trainable is not None and any(
            int(np.max(a)) >= onehot_trainable for s in sets for a in s.inputs
        ):
            raise ParameterError(
                "onehot_trainable", "training ids reach beyond it; give train types the low ids"
            )
    order_seed = derived_seeds(seed)[1]
    run_seeds = [seed if r.seed is None else r.seed for r in runs]
    # Each distinct list of sentences becomes one tensor, shared by every set that reads it.
    tensors: dict[int, torch.Tensor] = {}

    def data(inputs: Sequence[Any], heads: Sequence[Any]) -> ParseData:
        built = ParseData.build(inputs, heads, x=tensors.get(id(inputs))).to(where)
        tensors[id(inputs)] = built.x
        return built

    train = [data(s.inputs, s.heads) for s in sets]
    stop = [data(s.stop_inputs, s.stop_heads) for s in sets]
    caps = np.asarray([min(s.max_steps or options.max_steps, options.max_steps) for s in sets])
    P = len(runs)
    dev_uas, dev_loss, cx, init_cx = np.zeros(P), np.zeros(P), np.zeros(P), np.zeros(P)
    best_step, at_cap = np.zeros(P, dtype=np.int64), np.zeros(P, dtype=bool)
    stacks = []
    for members in _stacks(runs, run_seeds, onehot_dim is not None, max_parallel):
        group = [runs[i] for i in members]
        seeds = [run_seeds[i] for i in members]
        stack = _build(group, seeds, d_in, onehot_dim, V, normalise, onehot_trainable)
        init_cx[members] = stack.scorer.complexity()  # of the CPU draw, before the move
        stack = stack.to(where)
        sets_of = [r.set for r in group]
        stopper = _fit(
            stack,
            [train[s] for s in sets_of],
            [stop[s] for s in sets_of],
            caps[sets_of],
            options,
            order_seed,
            select_on,
            min_gain,
        )
        for s in sorted(set(sets_of)):
            local = np.flatnonzero(np.asarray(sets_of) == s)
            loss, accuracy, _ = _evaluate(stack, stop[s], local, options.eval_batch_size)
            dev_loss[members[local]], dev_uas[members[local]] = loss, accuracy
        cx[members] = stack.scorer.complexity()
        best_step[members] = stopper.best_step
        at_cap[members] = stopper.at_cap
        stacks.append((members, stack))
    return BiaffineResult(list(runs), dev_uas, dev_loss, cx, best_step, at_cap, init_cx, stacks)


def train_biaffine_probes(
    configs: Sequence[BiaffineConfig],
    train_inputs: Sequence[Any],
    train_heads: Sequence[Any],
    dev_inputs: Sequence[Any],
    dev_heads: Sequence[Any],
    *,
    seed: int,
    **kwargs: Any,
) -> BiaffineResult:
    """Train parsing probes on one training set (§7.2): :func:`train_parsers` with one set.

    ``configs`` (P,) on (``train_inputs``, ``train_heads``), stopped on (``dev_inputs``,
    ``dev_heads``), all with ``seed``; keyword arguments as :func:`train_parsers`.
    """
    train = ParseSet("train", train_inputs, train_heads, dev_inputs, dev_heads)
    return train_parsers([ParseRun(c) for c in configs], [train], seed=seed, **kwargs)
