"""The dependency-parsing probe of Pimentel et al. 2020 (§7.2, appendix A): scorers and metrics.

A simplified biaffine parser (Dozat & Manning 2017) without its LSTM, so that it cannot build
context of its own. For a sentence of n words, a score l(i, j) for every candidate head i in
0..n (0 = root) of every dependent j in 1..n; p(head = i | tail = j) = softmax over i (eq. 8);
each word's head is decoded by argmax (no tree constraint, as in the released code); the metric
is UAS.

Two variants, both with a learned *root vector* standing in for the dummy root word, and both
holding P probes along a leading axis so that they train as one stacked model
(:mod:`probekit.probes.biaffine_stack`):

- linear (:class:`LinearBiaffineProbes`): l(i, j) = x_i^T U x_j on L2-normalised inputs x;
  complexity = ||U||_* (§4.1 carried over to parsing; Figs. 7 and 8 cap it at 700).
- MLP (:class:`MLPBiaffineProbes`): h_head = MLP_head(x), h_tail = MLP_tail(x) (eq. 7; the
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from probekit.errors import ParameterError
from probekit.probes.linear import LN2
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.norms import nuclear_norm
from probekit.probes.training import TrainOptions

PARSE_OPTIONS = TrainOptions(batch_size=128, eval_batch_size=256)
"""Released-code settings for parsing: 128 sentences per batch, otherwise as TrainOptions."""

PARSER_BETAS = (0.9, 0.9)
"""Adam's betas for parsers (Dozat & Manning 2017, §4): a second-moment average over about ten
updates instead of a thousand, which follows the quickly changing scale of arc-score gradients."""

PARSER_CLIP = 5.0
"""The largest L2 norm of a parser's gradient (Dozat & Manning 2017, §4)."""

SELECT_ON = ("uas", "loss")
"""Early-stopping criteria of the parsers: dev UAS (the metric) or dev cross-entropy (the
released code's rule)."""

UAS_MIN_DELTA = 0.005
"""Smallest dev-UAS gain (0.5 points) that counts as an improvement when selecting on UAS.

About the binomial standard error of a UAS near 50 % on 500 development sentences (some 8,500
words): a smaller gain between two checks is within their noise, and counting it kept slowly
drifting runs going to their cap."""

Dropout = Callable[[torch.Tensor], torch.Tensor]
"""Inverted dropout of a stack's activations (P', B, m, h), each probe at its own rate."""


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

    @property
    def rate(self) -> float:
        """The dropout rate the probe trains with (input and, for the MLP, hidden layers)."""
        return self.dropout if self.mlp is None else self.mlp.dropout


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


def _pick(t: torch.Tensor, members: torch.Tensor | None) -> torch.Tensor:
    # ``members`` stay on the CPU, where the stack decides which probes run; copied per use.
    return t if members is None else t.index_select(0, members.to(t.device))


class LinearBiaffineProbes(torch.nn.Module):
    """P linear parsing probes l(i, j) = x_i^T U x_j (Pimentel et al. 2020, §7.2, appendix A).

    Parameters: ``U`` (P, d, d), a Xavier-uniform draw rescaled to nuclear norm
    :data:`INIT_NUCLEAR_NORM` (the released code keeps Xavier's ~0.85 d; :func:`_scaled_init`
    says why we do not), and ``root`` (P, d), N(0, 1), the learned vector of the dummy root
    word; the same draw for every probe. ``root`` passes through U like any word, so ||U||_*
    bounds its effect too; it is not counted in the complexity.
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
        # A CPU copy decides whether any probe is penalised; reading the buffer at every step
        # would wait for a GPU.
        self._alpha_cpu = self.alpha.clone()

    def forward(
        self,
        x: torch.Tensor,
        root: torch.Tensor,
        members: torch.Tensor | None = None,
        dropout: Dropout | None = None,
    ) -> torch.Tensor:
        """Scores (P', B, n, n + 1) of every candidate head (root first) for every word.

        x (B, n, d) shared or (P', B, n, d), and root (P', d), both already normalised (and
        dropped out) by :class:`~probekit.probes.biaffine_stack.ParserStack`; ``members`` (P',)
        selects probes (default all); ``dropout`` is unused (no dropout inside the scorer).
        """
        U = _pick(self.U, members)
        # (U x_j) for every dependent j, then its dot product with every candidate head i. A
        # shared x (B, n, d) makes the first product one wide (B*n, d) x (d, P*d) matmul.
        if x.dim() == 3:
            Ux = torch.einsum("bnd,ped->pbne", x, U)
        else:
            Ux = torch.matmul(x, U.transpose(1, 2)[:, None])
        to_words = torch.matmul(Ux, x.transpose(-1, -2))  # (P', B, n, n)
        to_root = torch.einsum("pbne,pe->pbn", Ux, root)[..., None]
        return torch.cat([to_root, to_words], dim=-1)

    def penalty(self, members: torch.Tensor | None = None) -> torch.Tensor:
        """Alpha * ||U||_* per probe, shape (P',); an SVD only for the probes with alpha > 0."""
        alpha = _pick(self.alpha, members)
        on = _pick(self._alpha_cpu, members) > 0
        if bool(on.all()):
            return alpha * nuclear_norm(_pick(self.U, members))
        out = torch.zeros_like(alpha)
        if not bool(on.any()):
            return out
        # An unpenalised probe's SVD (of a 384 x 384 U, say) would cost as much as a penalised
        # one's, for a term that is 0 with a 0 gradient.
        idx = torch.nonzero(on).squeeze(1).to(alpha.device)
        U = _pick(self.U, members).index_select(0, idx)
        return out.index_add(0, idx, alpha.index_select(0, idx) * nuclear_norm(U))

    def complexity(self) -> np.ndarray:
        """||U||_* per probe, shape (P,)."""
        with torch.no_grad():
            return nuclear_norm(self.U.double()).cpu().numpy()


def _mlp_layers(
    d: int, sizes: Sequence[int], seeds: Sequence[int]
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Weights (P, fan_in, fan_out) and biases (P, fan_out) of P ReLU MLPs d -> ``sizes``.

    Probe p's layer k is drawn as ``torch.nn.Linear`` draws it (U(+-1/sqrt(fan_in))) from a
    generator seeded with ``seeds[p] + k``, so a probe starts from the same weights alone or in
    any stack.
    """
    weights, biases = [], []
    dims = [d, *sizes]
    for k, (fan_in, fan_out) in enumerate(zip(dims[:-1], dims[1:], strict=True)):
        W, b = [], []
        for seed in seeds:
            g = torch.Generator().manual_seed(int(seed) + k)
            bound = 1.0 / math.sqrt(fan_in)
            W.append(((torch.rand(fan_out, fan_in, generator=g) * 2 - 1) * bound).T)
            b.append((torch.rand(fan_out, generator=g) * 2 - 1) * bound)
        weights.append(torch.stack(W).contiguous())
        biases.append(torch.stack(b))
    return weights, biases


class MLPBiaffineProbes(torch.nn.Module):
    """P MLP parsing probes of one shape (Pimentel et al. 2020, appendix A, eqs. 7 and 8).

    Every probe has MLP_head and MLP_tail with the hidden widths ``sizes`` (ReLU, dropout after
    every hidden layer), a biaffine ``W`` (P, h, h + 1) that scores
    l(i, j) = h_head_i^T W [h_tail_j; 1], and ``root`` (P, d), the learned dummy-root input; it
    only ever plays the head role, so it passes through MLP_head. Weights carry the probe axis
    first: ``head_weights[k]``/``tail_weights[k]`` (P, fan_in, fan_out), biases (P, fan_out).
    Probe p is drawn from ``seeds[p]`` (MLP_head from seed + k, MLP_tail from seed + 100 + k,
    root from seed + 1), so it starts from the same state alone or in any stack. ``W`` starts at
    zero, as in the biaffine scorers of Stanza and SuPar (Dozat & Manning's parser): every head
    starts equally likely, and the first updates shape W before the MLPs' gradients, which pass
    through W, grow. On chapter 34's contextual features (layer 3, 2,000 training sentences, one
    hidden layer of 256, dropout 0.2) this gains 0.4 to 1.4 points of test UAS over a Xavier
    draw of W (0.9 on average over training seeds 0 to 2). With no hidden layer both MLPs are
    the identity.
    """

    def __init__(self, d: int, sizes: Sequence[int], seeds: Sequence[int]):
        """P = len(seeds) probes on d-dimensional inputs with hidden widths ``sizes``."""
        super().__init__()
        self.n_probes = len(seeds)
        head_w, head_b = _mlp_layers(d, sizes, seeds)
        tail_w, tail_b = _mlp_layers(d, sizes, [s + 100 for s in seeds])
        self.head_weights = torch.nn.ParameterList(head_w)
        self.head_biases = torch.nn.ParameterList(head_b)
        self.tail_weights = torch.nn.ParameterList(tail_w)
        self.tail_biases = torch.nn.ParameterList(tail_b)
        h = sizes[-1] if sizes else d
        self.W = torch.nn.Parameter(torch.zeros(self.n_probes, h, h + 1))
        roots = [torch.randn(d, generator=torch.Generator().manual_seed(s + 1)) for s in seeds]
        self.root = torch.nn.Parameter(torch.stack(roots))

    def _chain(
        self,
        h: torch.Tensor,
        weights: Sequence[torch.Tensor],
        biases: Sequence[torch.Tensor],
        members: torch.Tensor | None,
        dropout: Dropout | None,
    ) -> torch.Tensor:
        """Hidden layers 2.. of one MLP on h (P', B, m, h_1) after its first linear map."""
        for k in range(len(weights)):
            if k:
                P, B, m, _ = h.shape
                flat = torch.bmm(h.reshape(P, B * m, -1), _pick(weights[k], members))
                h = flat.view(P, B, m, -1) + _pick(biases[k], members)[:, None, None, :]
            h = torch.relu(h)
            if dropout is not None:
                h = dropout(h)
        return h

    def forward(
        self,
        x: torch.Tensor,
        root: torch.Tensor,
        members: torch.Tensor | None = None,
        dropout: Dropout | None = None,
    ) -> torch.Tensor:
        """Scores (P', B, n, n + 1).

        x (B, n, d) shared or (P', B, n, d), already dropped out; root (P', d); ``members``
        (P',) selects probes (default all); ``dropout`` (training only) is applied after every
        hidden layer, MLP_head's layers first (whose activations include the root, so its masks
        have shape (B, n + 1, h)), then MLP_tail's.
        """
        P = root.shape[0]
        B, n = x.shape[-3], x.shape[-2]
        if not len(self.head_weights):
            tails = x.expand(P, -1, -1, -1)
            heads = torch.cat([root[:, None, None, :].expand(P, B, 1, -1), tails], dim=2)
        else:
            # The first layers of MLP_head and MLP_tail read the same x: one product for both.
            first = torch.cat(
                [_pick(self.head_weights[0], members), _pick(self.tail_weights[0], members)], -1
            )
            h1 = first.shape[-1] // 2
            if x.dim() == 3:
                pre = torch.matmul(x.reshape(1, B * n, -1), first)  # (P', B*n, 2 h1)
            else:
                pre = torch.bmm(x.reshape(P, B * n, -1), first)
            pre = pre.view(P, B, n, 2 * h1)
            head_b, tail_b = (
                _pick(self.head_biases[0], members),
                _pick(self.tail_biases[0], members),
            )
            root_pre = torch.bmm(root[:, None, :], first[..., :h1])  # (P', 1, h1)
            head_pre = torch.cat([root_pre[:, None].expand(P, B, 1, h1), pre[..., :h1]], dim=2)
            heads = self._chain(
                head_pre + head_b[:, None, None, :],
                self.head_weights,
                self.head_biases,
                members,
                dropout,
            )
            tails = self._chain(
                pre[..., h1:] + tail_b[:, None, None, :],
                self.tail_weights,
                self.tail_biases,
                members,
                dropout,
            )
        ones = tails.new_ones(*tails.shape[:-1], 1)
        tails = torch.cat([tails, ones], dim=-1)  # (P', B, n, h + 1)
        W = _pick(self.W, members)
        left = torch.bmm(tails.reshape(P, B * n, -1), W.transpose(1, 2)).view(P, B, n, -1)
        return torch.matmul(left, heads.transpose(-1, -2))

    def penalty(self, members: torch.Tensor | None = None) -> torch.Tensor:
        """No parametric penalty; shape (P',)."""
        return self.W.new_zeros(self.n_probes if members is None else len(members))

    def complexity(self) -> np.ndarray:
        """NaN: the MLP's complexity is non-parametric (label-shuffled UAS). Shape (P,)."""
        return np.full(self.n_probes, np.nan)


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
        heads: int64 (B, n) shared by the probes or (P, B, n) one set per probe, -1 on padding.

    Returns:
        shape (P,).
    """
    P = scores.shape[0]
    heads = heads.expand(P, -1, -1) if heads.dim() == 2 else heads
    logp = torch.log_softmax(scores, dim=-1)
    real = heads >= 0
    nll = -logp.gather(-1, heads.clamp(min=0)[..., None])[..., 0] * real  # (P, B, n)
    return nll.sum(dim=(1, 2)) / real[0].sum().clamp(min=1) / LN2


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
