"""The dependency-parsing probe of Pimentel et al. 2020 (§7.2, appendix A).

A simplified biaffine parser (Dozat & Manning 2017) without its LSTM, so that it cannot build
context of its own. For a sentence of n words, a score l(i, j) for every candidate head i in
0..n (0 = root) of every dependent j in 1..n; p(head = i | tail = j) = softmax over i (eq. 8);
each word's head is decoded by argmax (no tree constraint, as in the released code); the metric
is UAS.

Two variants, both with a learned *root vector* standing in for the dummy root word:

- linear (:class:`LinearBiaffineProbes`): l(i, j) = x_i^T U x_j on L2-normalised inputs x;
  complexity = ||U||_* (§4.1 carried over to parsing; Figs. 7 and 8 cap it at 700). P probes
  with different alphas can stack along a leading axis.
- MLP (:class:`MLPBiaffineProbe`): h_head = MLP_head(x), h_tail = MLP_tail(x) (eq. 7; the
  architecture of §6.2), then l(i, j) = h_head_i^T W [h_tail_j; 1]. The appended 1 gives the
  head-prior term of a biaffine layer; dependent-only terms would cancel in the softmax over
  heads. Its complexity is non-parametric (label-shuffled training UAS, see
  :func:`probekit.methods.pareto.controls.shuffle_heads`).

Scores have shape (P, B, n, n + 1): axis 2 is the dependent (word j at index j - 1), axis 3 the
candidate head with column 0 the root, so an argmax over the last axis is already a CoNLL-U
head. Padded head columns are -inf (the released code used a logit of 1e-9, which lets padding
compete in the softmax).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from probekit.devices import module_device, resolve_device
from probekit.errors import ParameterError
from probekit.probes.linear import LN2, normalise_rows
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.norms import nuclear_norm
from probekit.probes.training import StackedEarlyStopping, TrainOptions, fit_stack
from probekit.representations.types import OneHotEmbedding
from probekit.seeds import derived_seeds

PARSE_OPTIONS = TrainOptions(batch_size=128, eval_batch_size=256)
"""Released-code settings for parsing: 128 sentences per batch, otherwise as TrainOptions."""

SELECT_ON = ("uas", "loss")
"""Early-stopping criteria of the parsers: dev UAS (the metric) or dev cross-entropy (the
released code's rule)."""

UAS_MIN_DELTA = 0.001
"""Smallest dev-UAS gain (0.1 points) that counts as an improvement when selecting on UAS."""


@dataclass(frozen=True)
class BiaffineConfig:
    """One parsing probe (Pimentel et al. 2020, §7.2).

    ``mlp=None``: the linear variant with penalty ``alpha * ||U||_*`` and input ``dropout``.
    ``mlp=MLPConfig(...)``: the MLP variant; its ``dropout`` is used on the input and after
    every hidden layer, and ``alpha``/``dropout`` here must stay 0.
    """

    alpha: float = 0.0
    dropout: float = 0.0
    mlp: MLPConfig | None = None

    @property
    def kind(self) -> str:
        """The scorer's kind: "linear" or "mlp"."""
        return "linear" if self.mlp is None else "mlp"


def pad_sentences(
    inputs: Sequence[Any], heads: Sequence[Any] | None = None
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
    """Pad a batch of sentences (appendix A works on whole sentences).

    Args:
        inputs: B arrays, either float embeddings (n_s, d) or int64 word-type ids (n_s,).
        heads: B arrays (n_s,), 1-based heads with 0 = root, or None.

    Returns:
        x: float32 (B, n, d) or int64 (B, n) with n = max n_s, zero-padded;
        heads: int64 (B, n) padded with -1, or None; mask: bool (B, n), True on real words.
    """
    lengths = [len(s) for s in inputs]
    B, n = len(inputs), max(lengths)
    first = np.asarray(inputs[0])
    if first.ndim == 1:
        x = torch.zeros(B, n, dtype=torch.int64)
    else:
        x = torch.zeros(B, n, first.shape[1], dtype=torch.float32)
    mask = torch.zeros(B, n, dtype=torch.bool)
    gold = None if heads is None else torch.full((B, n), -1, dtype=torch.int64)
    for b, s in enumerate(inputs):
        k = lengths[b]
        x[b, :k] = torch.as_tensor(np.asarray(s)).to(x.dtype)
        mask[b, :k] = True
        if gold is not None:
            gold[b, :k] = torch.as_tensor(np.asarray(heads[b], dtype=np.int64))
    return x, gold, mask


def _xavier(shape: tuple[int, int], seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    bound = math.sqrt(6.0 / (shape[0] + shape[1]))
    return (torch.rand(*shape, generator=g) * 2.0 - 1.0) * bound


INIT_NUCLEAR_NORM = 1.0
"""||U||_* of every linear parsing probe at initialisation, whatever d (see :func:`_scaled_init`)."""


def _scaled_init(d: int, seed: int, norm: float = INIT_NUCLEAR_NORM) -> torch.Tensor:
    """A (d, d) Xavier-uniform draw rescaled to nuclear norm ``norm``.

    The released code's Xavier init has ||U||_* of about 0.85 d (326 at d = 384, 54 at d = 64),
    so against a cap of 700 the complexity axis would start at the input size. A fixed small
    norm removes that; a scaled random draw (not zero) keeps the singular values distinct, so
    the SVD behind the nuclear-norm penalty has a defined gradient from the first step.
    """
    U = _xavier((d, d), seed).double()
    return (U * (norm / float(torch.linalg.matrix_norm(U, ord="nuc")))).float()


def _dropout(x: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    # The mask covers the (B, n, d) data axes and is shared along a leading probe axis, so it
    # depends on the seed only, not on how many probes are stacked. It is drawn from the CPU
    # generator and copied, so it is the same on every device.
    if p <= 0.0:
        return x
    keep = (torch.rand(x.shape[-3:], generator=generator) >= p).to(x.device)
    return x * keep / (1.0 - p)


class LinearBiaffineProbes(torch.nn.Module):
    """P linear parsing probes l(i, j) = x_i^T U x_j (Pimentel et al. 2020, §7.2, appendix A).

    Parameters: ``U`` (P, d, d), a Xavier-uniform draw rescaled to nuclear norm
    :data:`INIT_NUCLEAR_NORM` (the released code keeps Xavier's ~0.85 d; :func:`_scaled_init`
    says why we do not), and ``root`` (P, d),
    N(0, 1), the learned vector of the dummy root word; the same draw for every probe. ``root``
    passes through U like any word, so ||U||_* bounds its effect too; it is not counted in the
    complexity. ``forward(x, root, mask)``: x (B, n, d) or (P, B, n, d) and root (P, d), both
    already normalised -> scores (P, B, n, n + 1).
    """

    def __init__(self, d: int, alphas: Sequence[float], seed: int = 0):
        """P = len(alphas) probes on d-dimensional inputs, one penalty weight alpha each."""
        super().__init__()
        P = len(alphas)
        self.n_probes = P
        self.U = torch.nn.Parameter(_scaled_init(d, seed).expand(P, -1, -1).clone())
        g = torch.Generator().manual_seed(seed + 1)
        self.root = torch.nn.Parameter(torch.randn(d, generator=g).expand(P, -1).clone())
        self.register_buffer("alpha", torch.tensor(list(alphas), dtype=torch.float32))
        # Known here rather than read from the buffer at every step (that would wait for a GPU).
        self.penalised = any(float(a) > 0 for a in alphas)

    def forward(
        self,
        x: torch.Tensor,
        root: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Scores (P, B, n, n + 1) of every candidate head (root first) for every word.

        ``generator`` is unused (no dropout inside the linear scorer); ``mask`` is applied by
        :class:`BiaffineStack`.
        """
        # (U x_j) for every dependent j, then its dot product with every candidate head i. A
        # shared x (B, n, d) makes the first product one wide (B*n, d) x (d, P*d) matmul.
        if x.dim() == 3:
            Ux = torch.einsum("bnd,ped->pbne", x, self.U)
        else:
            Ux = torch.matmul(x, self.U.transpose(1, 2)[:, None])
        to_words = torch.matmul(Ux, x.transpose(-1, -2))  # (P, B, n, n)
        to_root = torch.einsum("pbne,pe->pbn", Ux, root)[..., None]
        return torch.cat([to_root, to_words], dim=-1)

    def penalty(self) -> torch.Tensor:
        """Alpha * ||U||_* per probe, shape (P,); no SVD when every alpha is 0."""
        if not self.penalised:
            return torch.zeros_like(self.alpha)
        return self.alpha * nuclear_norm(self.U)

    def complexity(self) -> np.ndarray:
        """||U||_* per probe, shape (P,)."""
        with torch.no_grad():
            return nuclear_norm(self.U.double()).cpu().numpy()


class _MLP(torch.nn.Module):
    """ReLU MLP of §6.2 with explicit-seed initialisation; identity when n_layers = 0."""

    def __init__(self, d: int, config: MLPConfig, seed: int):
        super().__init__()
        sizes = [d, *config.layer_sizes()]
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        for k, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
            g = torch.Generator().manual_seed(seed + k)
            bound = 1.0 / math.sqrt(fan_in)
            self.weights.append(
                torch.nn.Parameter((torch.rand(fan_out, fan_in, generator=g) * 2 - 1) * bound)
            )
            self.biases.append(
                torch.nn.Parameter((torch.rand(fan_out, generator=g) * 2 - 1) * bound)
            )
        self.dropout = config.dropout
        self.out_dim = sizes[-1]

    def forward(self, x: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
        for W, b in zip(self.weights, self.biases, strict=True):
            x = torch.relu(x @ W.T + b)
            if self.training:
                x = _dropout(x, self.dropout, generator)
        return x


class MLPBiaffineProbe(torch.nn.Module):
    """One MLP parsing probe (Pimentel et al. 2020, appendix A, eqs. 7 and 8).

    ``root`` (1, d) is the learned dummy-root input; it only ever plays the head role, so it
    passes through MLP_head. ``W`` (h, h + 1) scores l(i, j) = h_head_i^T W [h_tail_j; 1].
    ``forward(x, root, mask)``: x (B, n, d) or (1, B, n, d) -> scores (1, B, n, n + 1).
    """

    def __init__(self, d: int, config: MLPConfig, seed: int = 0):
        """MLP_head and MLP_tail of shape ``config`` on d-dimensional inputs, ``W`` and ``root``."""
        super().__init__()
        self.n_probes = 1
        self.mlp_head = _MLP(d, config, seed)
        self.mlp_tail = _MLP(d, config, seed + 100)
        h = self.mlp_head.out_dim
        self.W = torch.nn.Parameter(_xavier((h, h + 1), seed + 200))
        g = torch.Generator().manual_seed(seed + 1)
        self.root = torch.nn.Parameter(torch.randn(1, d, generator=g))

    def forward(
        self,
        x: torch.Tensor,
        root: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Scores (1, B, n, n + 1); ``generator`` drives the MLPs' dropout in training mode.

        ``mask`` is applied by :class:`BiaffineStack`.
        """
        if x.dim() == 4:
            x = x[0]
        B, n, d = x.shape
        heads = self.mlp_head(torch.cat([root[0].expand(B, 1, d), x], dim=1), generator)
        tails = self.mlp_tail(x, generator)
        tails = torch.cat([tails, tails.new_ones(B, n, 1)], dim=-1)
        return torch.matmul(tails @ self.W.T, heads.transpose(1, 2))[None]

    def penalty(self) -> torch.Tensor:
        """No parametric penalty; shape (1,)."""
        return torch.zeros(1, device=self.W.device)

    def complexity(self) -> np.ndarray:
        """NaN: the MLP's complexity is non-parametric (label-shuffled UAS). Shape (1,)."""
        return np.full(1, np.nan)

    def weight_nuclear_norm(self) -> np.ndarray:
        """||W||_* of the biaffine layer, shape (1,) (for inspection only)."""
        with torch.no_grad():
            return nuclear_norm(self.W.double()).cpu().numpy()[None]


class BiaffineStack(torch.nn.Module):
    """Input pipeline and scorer of the parsing probes.

    (one-hot lookup) -> (normalise, linear variant) -> dropout -> scores with padded head columns
    at -inf.

    ``forward(x, mask)``: x float (B, n, d) or int64 ids (B, n) with ``embedding``, mask (B, n)
    -> scores (P, B, n, n + 1).
    """

    def __init__(
        self,
        scorer: LinearBiaffineProbes | MLPBiaffineProbe,
        *,
        embedding: OneHotEmbedding | None = None,
        normalise: bool = True,
        dropout: float = 0.0,
    ):
        """Wrap ``scorer`` with an optional one-hot ``embedding``, normalisation and dropout."""
        super().__init__()
        self.scorer, self.embedding = scorer, embedding
        self.normalise, self.dropout = normalise, dropout

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """Scores (P, B, n, n + 1); ``generator`` drives dropout in training mode."""
        if self.embedding is not None:
            x = self.embedding(x)  # (P, B, n, dim)
        root = self.scorer.root
        if self.normalise:
            x, root = normalise_rows(x), normalise_rows(root)
        if self.training:
            x = _dropout(x, self.dropout, generator)
        scores = self.scorer(x, root, mask, generator)
        columns = torch.cat([torch.ones_like(mask[:, :1]), mask], dim=1)  # (B, n + 1)
        return scores.masked_fill(~columns[None, :, None, :], float("-inf"))


def decode_heads(scores: torch.Tensor) -> torch.Tensor:
    """Argmax head per word, no tree constraint (Pimentel et al. 2020, §7.2; released code).

    Args:
        scores: (..., n, n + 1). Returns: int64 (..., n), 1-based heads, 0 = root.
    """
    return scores.argmax(dim=-1)


def parse_loss(scores: torch.Tensor, heads: torch.Tensor) -> torch.Tensor:
    """Cross-entropy over candidate heads per word, mean over real words, in bits (eq. 8).

    Args:
        scores: (P, B, n, n + 1).
        heads: int64 (B, n), -1 on padding.

    Returns:
        shape (P,).
    """
    logp = torch.log_softmax(scores, dim=-1)
    real = heads >= 0
    index = heads.clamp(min=0)[None, :, :, None].expand(scores.shape[0], -1, -1, 1)
    nll = -logp.gather(-1, index)[..., 0] * real  # (P, B, n)
    return nll.sum(dim=(1, 2)) / real.sum().clamp(min=1) / LN2


def uas(pred_heads: Sequence[Any], gold_heads: Sequence[Any], average: str = "token") -> float:
    """Unlabelled attachment score (Pimentel et al. 2020, §7.2).

    ``average="token"``: the share of all words whose predicted head is the gold head (the
    usual definition). ``"sentence"``: mean of per-sentence UAS, the released code's
    ``get_uas``. Punctuation counts, as in the released code.

    Args:
        pred_heads: m arrays (n_s,) of predicted 1-based heads (0 = root).
        gold_heads: m arrays (n_s,) of gold 1-based heads (0 = root).
        average: ``"token"`` or ``"sentence"``, as above.
    """
    if len(pred_heads) != len(gold_heads) or not len(gold_heads):
        raise ParameterError("pred_heads", "must hold one array per gold sentence (m >= 1)")
    hits = [np.asarray(p) == np.asarray(g) for p, g in zip(pred_heads, gold_heads, strict=True)]
    if average == "token":
        return float(np.concatenate(hits).mean())
    if average == "sentence":
        return float(np.mean([h.mean() for h in hits if h.size]))
    raise ParameterError("average", f"must be 'token' or 'sentence', got {average!r}")


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


def _padded(
    inputs: Sequence[Any], heads: Sequence[Any], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`pad_sentences` of a batch, on ``device``: x, heads (B, n) and mask (B, n)."""
    x, gold, mask = pad_sentences(inputs, heads)
    return x.to(device), gold.to(device), mask.to(device)


@torch.no_grad()
def _evaluate(
    stack: BiaffineStack, inputs: Sequence[Any], heads: Sequence[Any], batch_size: int
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    was_training = stack.training
    stack.eval()
    device = module_device(stack)
    order = np.argsort([len(s) for s in inputs], kind="stable")
    P = stack.scorer.n_probes
    ce_sum, hits, total = np.zeros(P), np.zeros(P), 0
    preds: list[np.ndarray] = [np.zeros(0)] * len(inputs)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        x, gold, mask = _padded([inputs[i] for i in idx], [heads[i] for i in idx], device)
        scores = stack(x, mask)
        n_words = sum(len(inputs[i]) for i in idx)
        ce_sum += parse_loss(scores, gold).double().cpu().numpy() * n_words
        pred = decode_heads(scores)  # (P, B, n)
        hits += ((pred == gold[None]) & mask[None]).sum(dim=(1, 2)).double().cpu().numpy()
        total += n_words
        pred = pred.cpu()
        for b, i in enumerate(idx):
            preds[i] = pred[:, b, : len(inputs[i])].numpy()
    stack.train(was_training)
    return ce_sum / total, hits / total, preds


def _fit(
    stack: BiaffineStack,
    train: tuple[Sequence[Any], Sequence[Any]],
    dev: tuple[Sequence[Any], Sequence[Any]],
    opts: TrainOptions,
    order_seed: int,
    dropout_seed: int,
    select_on: str = "uas",
) -> StackedEarlyStopping:
    """Fit on eq. 8 (cross-entropy over heads in bits + penalty) with :func:`fit_stack`.

    Batches of sentence indices (B,) come from :func:`_batches`; each probe is kept at its best
    dev UAS (``select_on="uas"``, by more than :data:`UAS_MIN_DELTA`) or dev loss (``"loss"``).
    """
    lengths = np.asarray([len(s) for s in train[0]])
    device = module_device(stack)

    def train_loss(idx: np.ndarray, dropout_gen: torch.Generator) -> torch.Tensor:
        x, gold, mask = _padded([train[0][i] for i in idx], [train[1][i] for i in idx], device)
        return parse_loss(stack(x, mask, dropout_gen), gold) + stack.scorer.penalty()

    def criterion() -> np.ndarray:
        loss, accuracy, _ = _evaluate(stack, *dev, opts.eval_batch_size)
        return 1.0 - accuracy if select_on == "uas" else loss

    if select_on == "uas":
        # The 0.02-bit threshold of the loss rule means nothing on a share of words.
        opts = replace(opts, min_delta=UAS_MIN_DELTA)
    return fit_stack(
        stack,
        stack.scorer.n_probes,
        opts,
        batches=lambda order_gen: _batches(lengths, opts.batch_size, order_gen),
        train_loss=train_loss,
        dev_loss=criterion,
        order_seed=order_seed,
        dropout_seed=dropout_seed,
    )


@dataclass
class BiaffineResult:
    """Outcome of :func:`train_biaffine_probes`; arrays have shape (P,) in config order.

    ``dev_uas`` is token-level UAS at the restored best state; ``complexity`` is ||U||_* for the
    linear variant and NaN for the MLP variant; ``dev_loss`` is cross-entropy in bits per word;
    ``init_complexity`` is the complexity before training; ``at_cap`` is True for a probe still
    improving when training hit ``max_steps`` (not known to have converged).
    """

    configs: list[BiaffineConfig]
    dev_uas: np.ndarray
    dev_loss: np.ndarray
    complexity: np.ndarray
    best_step: np.ndarray
    at_cap: np.ndarray
    init_complexity: np.ndarray
    stacks: list[tuple[np.ndarray, BiaffineStack]] = field(repr=False)

    def predict(self, inputs: Sequence[Any], batch_size: int = 256) -> list[list[np.ndarray]]:
        """Predicted heads: for each probe, m arrays (n_s,) of 1-based heads (0 = root)."""
        out: list[list[np.ndarray]] = [[] for _ in self.configs]
        dummy = [np.zeros(len(s), dtype=np.int64) for s in inputs]
        for members, stack in self.stacks:
            preds = _evaluate(stack, inputs, dummy, batch_size)[2]
            for k, i in enumerate(members):
                out[i] = [p[k] for p in preds]
        return out

    def uas(self, inputs: Sequence[Any], heads: Sequence[Any]) -> np.ndarray:
        """Token-level UAS of every probe on (inputs, heads), shape (P,)."""
        return np.asarray([uas(p, heads) for p in self.predict(inputs)])


def _check_parse_data(name: str, inputs: Sequence[Any], heads: Sequence[Any]) -> None:
    if len(inputs) != len(heads) or not len(inputs):
        raise ParameterError(name, "needs one heads array per sentence and at least one sentence")
    for s, (x, h) in enumerate(zip(inputs, heads, strict=True)):
        h = np.asarray(h)
        if len(x) != len(h) or len(h) == 0:
            raise ParameterError(name, f"sentence {s}: {len(x)} inputs for {len(h)} heads")
        if h.min() < 0 or h.max() > len(h):
            raise ParameterError(name, f"sentence {s}: heads must lie in 0..{len(h)}")


def _check_biaffine_configs(configs: Sequence[BiaffineConfig]) -> None:
    if not configs:
        raise ParameterError("configs", "is empty", "e.g. [BiaffineConfig(alpha=a) for a in ...]")
    for c in configs:
        if c.alpha < 0 or not 0 <= c.dropout < 1:
            raise ParameterError("alpha", f"alpha must be >= 0 and dropout in [0, 1): {c}")
        if c.mlp is not None and (c.alpha != 0 or c.dropout != 0):
            raise ParameterError("mlp", "the MLP variant takes no alpha and uses mlp.dropout")


def _groups(configs: Sequence[BiaffineConfig], max_parallel: int) -> list[np.ndarray]:
    by_dropout: dict[float, list[int]] = {}
    out = []
    for i, c in enumerate(configs):
        if c.mlp is None:
            by_dropout.setdefault(c.dropout, []).append(i)
        else:
            out.append(np.asarray([i]))
    for members in by_dropout.values():
        for start in range(0, len(members), max_parallel):
            out.append(np.asarray(members[start : start + max_parallel]))
    return sorted(out, key=lambda m: int(m[0]))


def _build(
    group: list[BiaffineConfig],
    d_in: int,
    onehot_dim: int | None,
    vocab_size: int,
    normalise: bool,
    seed: int,
    onehot_trainable: int | None = None,
) -> BiaffineStack:
    embedding = None
    d = d_in
    if onehot_dim is not None:
        embedding = OneHotEmbedding(
            vocab_size, onehot_dim, n_probes=len(group), seed=seed, n_trainable=onehot_trainable
        )
        d = onehot_dim
    mlp = group[0].mlp
    if mlp is None:
        scorer: LinearBiaffineProbes | MLPBiaffineProbe = LinearBiaffineProbes(
            d, [c.alpha for c in group], seed=seed
        )
        return BiaffineStack(
            scorer, embedding=embedding, normalise=normalise, dropout=group[0].dropout
        )
    # The MLP variant reads raw inputs, like the released MLPParser.
    return BiaffineStack(
        MLPBiaffineProbe(d, mlp, seed=seed),
        embedding=embedding,
        normalise=False,
        dropout=mlp.dropout,
    )


def train_biaffine_probes(
    configs: Sequence[BiaffineConfig],
    train_inputs: Sequence[Any],
    train_heads: Sequence[Any],
    dev_inputs: Sequence[Any],
    dev_heads: Sequence[Any],
    *,
    seed: int,
    onehot_dim: int | None = None,
    vocab_size: int | None = None,
    normalise: bool = True,
    options: TrainOptions = PARSE_OPTIONS,
    max_parallel: int = 1,
    onehot_trainable: int | None = None,
    select_on: str = "uas",
    device: str | torch.device = "cpu",
) -> BiaffineResult:
    """Train parsing probes and report dev UAS and complexity (Pimentel et al. 2020, §7.2).

    Adam, early stopping on dev UAS, the metric a parser is judged by, or with
    ``select_on="loss"`` on dev cross-entropy as the released code
    (:class:`TrainOptions`; batches count sentences).
    Linear-variant configs with the same dropout can train as stacks of up to ``max_parallel``
    probes (memory grows as P x B x n x d); each MLP config trains alone. The default is 1:
    one probe's (B*n, d) x (d, d) product is already a large matmul, and on 2 CPU cores a
    stack of 8 at d = 384 measured no faster than 8 probes one after another. Results do not
    depend on ``max_parallel`` beyond floating-point rounding.

    Args:
        configs: P :class:`BiaffineConfig`.
        train_inputs: m sentences, float32 embeddings (n_s, d) or, with ``onehot_dim``,
            word-type ids (n_s,) (:func:`probekit.representations.types.type_ids`).
        train_heads: m int arrays (n_s,), 1-based heads, 0 = root (gold, or
            :func:`probekit.methods.pareto.controls.shuffle_heads` for the label-shuffled control).
        dev_inputs: the same as ``train_inputs``, for dev.
        dev_heads: the same as ``train_heads``, for dev.
        seed: drives initialisation, batch order and dropout.
        onehot_dim: size of the trainable one-hot representation's type vectors.
        vocab_size: rows of the one-hot table (defaults to max id + 1 over train and dev).
        normalise: L2-normalise the linear variant's inputs and root vector.
        options: optimisation settings (:class:`TrainOptions`).
        max_parallel: largest stack of linear-variant probes trained together.
        onehot_trainable: rows of the one-hot table at or above this id stay frozen outside the
            optimiser (the training sentences must only use lower ids); default all rows.
        select_on: ``"uas"`` or ``"loss"``, the early-stopping criterion (:data:`SELECT_ON`).
        device: where the probes train (:func:`probekit.devices.resolve_device`); sentences are
            padded on the CPU and copied per batch. Initial weights, batch orders and dropout
            masks are drawn on the CPU, so they are the same on every device.

    Returns:
        :class:`BiaffineResult`; its arrays are NumPy, its stacks stay on ``device``.
    """
    where = resolve_device(device)
    if select_on not in SELECT_ON:
        raise ParameterError("select_on", f"must be one of {SELECT_ON}, got {select_on!r}")
    _check_biaffine_configs(configs)
    _check_parse_data("train_inputs", train_inputs, train_heads)
    _check_parse_data("dev_inputs", dev_inputs, dev_heads)
    first = np.asarray(train_inputs[0])
    if (onehot_dim is None) != (first.ndim == 2):
        raise ParameterError(
            "train_inputs",
            "must be (n_s, d) float arrays without onehot_dim, (n_s,) ids with it",
        )
    d_in = first.shape[1] if first.ndim == 2 else 0
    V = vocab_size or (
        max(int(np.max(s)) for s in [*train_inputs, *dev_inputs]) + 1 if onehot_dim else 0
    )
    if onehot_trainable is not None and onehot_dim is not None:
        if max(int(np.max(s)) for s in train_inputs) >= onehot_trainable:
            raise ParameterError(
                "onehot_trainable", "training ids reach beyond it; give train types the low ids"
            )
    init_seed, order_seed, dropout_seed = derived_seeds(seed)
    P = len(configs)
    dev_uas, dev_loss, cx = np.zeros(P), np.zeros(P), np.zeros(P)
    best_step, stacks = np.zeros(P, dtype=np.int64), []
    at_cap = np.zeros(P, dtype=bool)
    init_cx = np.zeros(P)
    for members in _groups(configs, max_parallel):
        group = [configs[i] for i in members]
        stack = _build(group, d_in, onehot_dim, V, normalise, init_seed, onehot_trainable)
        init_cx[members] = stack.scorer.complexity()  # of the CPU draw, before the move
        stack = stack.to(where)
        stopper = _fit(
            stack,
            (train_inputs, train_heads),
            (dev_inputs, dev_heads),
            options,
            order_seed,
            dropout_seed,
            select_on,
        )
        dev_loss[members], dev_uas[members], _ = _evaluate(
            stack, dev_inputs, dev_heads, options.eval_batch_size
        )
        cx[members] = stack.scorer.complexity()
        best_step[members] = stopper.best_step
        at_cap[members] = stopper.at_cap
        stacks.append((members, stack))
    return BiaffineResult(list(configs), dev_uas, dev_loss, cx, best_step, at_cap, init_cx, stacks)
