"""Pareto probing (Pimentel et al. 2020): frontiers, hypervolume, complexity controls, baselines.

What lives here, by section of the paper:

- §3: :func:`pareto_frontier`, :func:`hypervolume` and :func:`frontier_staircase` (the curve
  that the hypervolume integrates, for plotting).
- §4.1: :func:`nuclear_norm` and :func:`numerical_rank` of a probe's ``[W | b]``.
- §5 and §7.2: the non-parametric controls :func:`shuffle_labels`, :func:`shuffle_word_order`,
  :func:`shuffle_full` and :func:`shuffle_heads`.
- Appendix B: the dictionary-lookup baselines (:func:`fit_posl_lookup`, :func:`fit_dal_lookup`).
- §7.1: :func:`entropy` and :func:`conditional_entropy` of labels (in bits).
- §6: the non-contextual representations: :func:`random_type_vectors`, :func:`embed_types`,
  :func:`fasttext_vectors`, and the trainable one-hot table :class:`OneHotEmbedding`.
- §6.2: :func:`sample_mlp_configs`.

The released code (rycolab/pareto-probing) has no frontier, hypervolume or lookup code; those
follow the paper's text. Where the released code differs from the text, the docstring says so.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from probekit.errors import DataNotFoundError, ParameterError

# ---------------------------------------------------------------------------------------------
# Frontier and hypervolume (§3)
# ---------------------------------------------------------------------------------------------


def _points(complexity: Any, accuracy: Any) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(complexity, dtype=np.float64).reshape(-1)
    a = np.asarray(accuracy, dtype=np.float64).reshape(-1)
    if c.shape != a.shape:
        raise ParameterError(
            "accuracy",
            f"has {a.size} values but complexity has {c.size}",
            "pass one (complexity, accuracy) pair per probe",
        )
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(a))):
        raise ParameterError(
            "complexity", "contains NaN or infinite values", "drop failed runs before plotting"
        )
    if np.any(c < 0):
        raise ParameterError("complexity", "contains negative values", "complexities are >= 0")
    return c, a


def pareto_frontier(complexity: Any, accuracy: Any) -> np.ndarray:
    """Indices of the Pareto-optimal probes, sorted by complexity (Pimentel et al. 2020, §3).

    A probe j *dominates* probe i when ``c_j <= c_i`` and ``a_j >= a_i`` with at least one of
    the two strict. A probe is on the frontier when no other probe dominates it.

    Ties, explicitly: probes with exactly equal (complexity, accuracy) do not dominate each other,
    so all copies of a frontier point are returned; a probe with the same complexity as another
    but lower accuracy, or the same accuracy but higher complexity, is dominated.

    Args:
        complexity: shape (n,), values >= 0 (lower is simpler).
        accuracy: shape (n,) (higher is better).

    Returns:
        int64 array of shape (k,), k <= n: frontier indices ordered by increasing complexity
        (then by index); accuracy increases strictly along it except between exact copies.
    """
    c, a = _points(complexity, accuracy)
    if c.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(c.size), c))
    cs, as_ = c[order], a[order]
    # Each group of equal complexity: the best accuracy inside it, and the best accuracy of all
    # strictly simpler groups. A point survives iff it is its group's best and beats the simpler.
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]])
    group = np.cumsum(np.r_[True, cs[1:] != cs[:-1]]) - 1
    group_best = np.maximum.reduceat(as_, starts)
    simpler_best = np.r_[-np.inf, np.maximum.accumulate(group_best)[:-1]]
    keep = (as_ == group_best[group]) & (as_ > simpler_best[group])
    return order[keep].astype(np.int64)


def hypervolume(
    complexity: Any,
    accuracy: Any,
    max_complexity: float,
    *,
    min_accuracy: float = 0.0,
    normalise: bool = True,
) -> float:
    """Pareto hypervolume of one family of probes (Pimentel et al. 2020, §3 and Table 3).

    The hypervolume indicator (Auger et al. 2012) is the area of the (complexity, accuracy)
    region that the probes dominate, measured against the *reference point*
    ``(max_complexity, min_accuracy)`` (the worst complexity the paper allows, the worst
    accuracy): the union over probes p with ``c_p <= max_complexity`` of the rectangles
    ``[c_p, max_complexity] x [min_accuracy, a_p]``.

    Equivalently, the staircase: for every complexity budget x in ``[0, max_complexity]`` take
    h(x) = the best accuracy of any probe with complexity <= x, and integrate h - min_accuracy
    (clipped at 0) over x. So:

    - the staircase starts at complexity **0**, not at the simplest probe; left of the simplest
      probe no probe fits the budget, h = min_accuracy and that stretch adds nothing (a family
      whose simplest probe is already complex is penalised for it);
    - each step is flat from a frontier point rightwards to the next frontier point (right-
      continuous, no interpolation: a budget between two probes only buys the simpler one);
    - the last step runs to ``max_complexity``;
    - probes beyond the cap (``c > max_complexity``) fit no budget and add nothing. They are
      dropped, not clipped to the cap: a probe at the cap would span zero width anyway.

    The paper caps the nuclear norm at 400 for POSL/DAL (Table 3) and 700 for parsing (Figs. 7
    and 8), normalises nuclear-norm and rank volumes by their maximum complexity, and uses
    label-shuffled/fully-shuffled training accuracy (max 1) as is. With ``normalise=True`` the
    area is divided by ``max_complexity * (1 - min_accuracy)``, so the result lies in [0, 1]
    for accuracies in [0, 1]; for the shuffled controls pass ``max_complexity=1``.

    Note: recomputed this way from the released English POSL runs (test accuracy), the
    label-shuffled one-hot volume is 0.70 as in Table 3, but the nuclear-norm volumes (BERT
    0.79, fastText 0.80, one-hot 0.83, random 0.56) fall short of Table 3 (0.91, 0.87, 0.85,
    0.63) and even reorder the representations. No reading that leaves out probes beyond the
    cap can reproduce them: random's 0.63 exceeds the best accuracy (0.61) of any released
    random probe with a nuclear norm <= 400.

    Args:
        complexity: shape (n,), values >= 0.
        accuracy: shape (n,), in [0, 1] for the normalised reading.
        max_complexity: the cap, > 0 (e.g. 400 nuclear norm, the number of classes for rank).
        min_accuracy: accuracy coordinate of the reference point.
        normalise: divide by the area of the reference box.

    Returns:
        The (normalised) hypervolume; 0.0 when no probe lies within the cap.
    """
    c, a = _points(complexity, accuracy)
    if not (np.isfinite(max_complexity) and max_complexity > 0):
        raise ParameterError(
            "max_complexity", f"must be a positive number, got {max_complexity!r}", "e.g. 400"
        )
    if normalise and not min_accuracy < 1.0:
        raise ParameterError("min_accuracy", "must be < 1 when normalise=True")
    x, h = frontier_staircase(c, a, max_complexity)
    if x.size == 0:
        return 0.0
    height = np.clip(h[:-1] - min_accuracy, 0.0, None)
    area = float(np.sum(np.diff(x) * height))
    return area / (max_complexity * (1.0 - min_accuracy)) if normalise else area


def frontier_staircase(
    complexity: Any, accuracy: Any, max_complexity: float
) -> tuple[np.ndarray, np.ndarray]:
    """The step function that :func:`hypervolume` integrates (Pimentel et al. 2020, §3).

    Only probes with complexity <= ``max_complexity`` enter. The staircase is right-continuous:
    on ``[x[k], x[k+1])`` the best reachable accuracy is ``h[k]``; ``x[-1] == max_complexity``
    and ``h[-1]`` repeats ``h[-2]`` so that ``plt.step(x, h, where="post")`` draws it.

    Args:
        complexity, accuracy: shape (n,).
        max_complexity: the cap.

    Returns:
        (x, h), each of shape (k + 1,) for k frontier points within the cap (both empty when
        k = 0). Left of ``x[0]`` no probe fits the budget.
    """
    c, a = _points(complexity, accuracy)
    inside = c <= max_complexity
    front = pareto_frontier(c[inside], a[inside])
    if front.size == 0:
        return np.zeros(0), np.zeros(0)
    xs, hs = c[inside][front], a[inside][front]
    # Exact copies of a frontier point would add zero-width steps.
    first = np.r_[True, xs[1:] != xs[:-1]]
    xs, hs = xs[first], hs[first]
    return np.r_[xs, max_complexity], np.r_[hs, hs[-1]]


# ---------------------------------------------------------------------------------------------
# Parametric complexity (§4.1)
# ---------------------------------------------------------------------------------------------


def _with_bias(W: Any, b: Any) -> Any:
    if b is None:
        return W
    if isinstance(W, torch.Tensor):
        return torch.cat([W, torch.as_tensor(b, dtype=W.dtype).unsqueeze(-1)], dim=-1)
    return np.concatenate([np.asarray(W), np.asarray(b)[..., None]], axis=-1)


class _NuclearNorm(torch.autograd.Function):
    """Sum of singular values with the minimum-norm subgradient U_+ V_+^T.

    U_+, V_+ are the singular vectors of the singular values above numerical zero (numpy's
    ``matrix_rank`` tolerance). Where the norm is differentiable this is its gradient U V^T.
    Where singular values vanish, pairs with a zero singular value have an arbitrary basis, and
    a step along them would raise the norm; dropping them makes the subgradient unique.

    Also faster than ``torch.linalg.matrix_norm(ord="nuc")``: torch's SVD is several times
    slower on short-wide matrices (C x d with C << d, the probe shape) than on their transpose,
    and its backward costs much more than the forward.
    """

    @staticmethod
    def forward(ctx: Any, M: torch.Tensor) -> torch.Tensor:
        wide = M.shape[-2] < M.shape[-1]
        tall = M.transpose(-1, -2) if wide else M
        U, S, Vh = torch.linalg.svd(tall, full_matrices=False)
        tol = S.amax(dim=-1, keepdim=True) * max(M.shape[-2:]) * torch.finfo(M.dtype).eps
        polar = (U * (S > tol).to(M.dtype)[..., None, :]) @ Vh
        ctx.save_for_backward(polar.transpose(-1, -2) if wide else polar)
        return S.sum(dim=-1)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (polar,) = ctx.saved_tensors
        return grad[..., None, None] * polar


def nuclear_norm(W: Any, b: Any = None) -> Any:
    """Nuclear norm ``||[W | b]||_*``, the sum of singular values (Pimentel et al. 2020, eq. 2).

    The bias is appended as a last column, as in footnote 4 (``h~ = [h; 1]``) and the released
    code. Torch input stays torch and is differentiable, with gradient U V^T (where singular
    values vanish, the minimum-norm subgradient), as training on eq. 3 needs; numpy input
    gives numpy.

    Args:
        W: shape (..., C, d): one matrix or a stack of P matrices.
        b: shape (..., C) or None.

    Returns:
        shape (...): a scalar for one matrix, (P,) for a stack.
    """
    M = _with_bias(W, b)
    if isinstance(M, torch.Tensor):
        return _NuclearNorm.apply(M)
    M = np.asarray(M, dtype=np.float64)
    return np.linalg.svd(M, compute_uv=False).sum(axis=-1)


def numerical_rank(W: Any, b: Any = None, tol: float = 1e-3) -> np.ndarray:
    """Number of singular values of ``[W | b]`` above ``tol`` (Pimentel et al. 2020, §4.1).

    The paper defines rank as the number of non-zero singular values; a trained matrix has none
    exactly zero, so a tolerance is needed. 1e-3 is the released code's choice.

    Args:
        W: shape (..., C, d); b: shape (..., C) or None.

    Returns:
        int64 array of shape (...).
    """
    M = _with_bias(W, b)
    if isinstance(M, torch.Tensor):
        s = torch.linalg.svdvals(M.detach().double()).numpy()
    else:
        s = np.linalg.svd(np.asarray(M, dtype=np.float64), compute_uv=False)
    return (s > tol).sum(axis=-1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Non-parametric controls (§5, §7.2)
# ---------------------------------------------------------------------------------------------


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError("seed", f"must be a non-negative int, got {seed!r}")
    return int(seed)


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(_check_seed(seed))


def shuffle_labels(labels: Any, seed: int | np.random.Generator) -> np.ndarray:
    """Label-shuffled control: a token-level, corpus-wide permutation (Pimentel et al. 2020, §5).

    Every training label moves to a uniformly random other token of the whole training set, so
    the labels keep their exact multiset (marginal distribution) but no longer depend on the
    input. Unlike Hewitt & Liang's control tasks this is per token, not per word type
    (footnote 5), and the complexity it yields is the probe's *training* accuracy on these labels.

    The released code calls ``np.random.shuffle`` on a torch tensor, which duplicates labels
    instead of permuting them; this function is a true permutation.

    Args:
        labels: shape (n,), any dtype (tags as strings or class ids).
        seed: int or numpy Generator.

    Returns:
        A new array of shape (n,), a permutation of ``labels``.
    """
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ParameterError("labels", f"must be 1-D, got shape {arr.shape}")
    return arr[_rng(seed).permutation(arr.shape[0])]


def _forms(sentence: Any) -> list[str]:
    forms = getattr(sentence, "forms", sentence)
    return [str(w) for w in forms]


def shuffle_word_order(
    sentences_or_token_lists: Sequence[Any], seed: int | np.random.Generator
) -> tuple[list[list[str]], list[np.ndarray]]:
    """Randomly permute the words of every sentence (Pimentel et al. 2020, §5, "fully shuffled").

    Args:
        sentences_or_token_lists: m sentences, each a ``probekit.data.Sentence`` (its ``forms``
            are used) or a sequence of word strings.
        seed: int or numpy Generator; sentences are permuted in order from one stream.

    Returns:
        (token_lists, orders): ``token_lists[s][i] == original[s][orders[s][i]]``; each
        ``orders[s]`` is an int64 permutation of shape (n_s,).
    """
    rng = _rng(seed)
    token_lists, orders = [], []
    for sentence in sentences_or_token_lists:
        words = _forms(sentence)
        order = rng.permutation(len(words)).astype(np.int64)
        token_lists.append([words[i] for i in order])
        orders.append(order)
    return token_lists, orders


@dataclass(frozen=True)
class FullyShuffled:
    """Inputs and labels of the fully-shuffled control (Pimentel et al. 2020, §5).

    ``token_lists`` are the sentences to embed, in shuffled word order; ``orders[s][i]`` is the
    original position of the word now at position i; ``labels`` is the label array permuted
    corpus-wide, shape (n,).
    """

    token_lists: list[list[str]]
    orders: list[np.ndarray]
    labels: np.ndarray


def shuffle_full(
    sentences_or_token_lists: Sequence[Any], labels: Any, seed: int | np.random.Generator
) -> FullyShuffled:
    """Fully-shuffled control: word order and labels both shuffled (Pimentel et al. 2020, §5).

    §5 removes the structure of the input "by shuffling the word sequences themselves" and
    calls the scenario "wherein both labels and inputs are shuffled" fully shuffled. Exactly:

    1. the words of each sentence are permuted (:func:`shuffle_word_order`) and the permuted
       sentences are what the contextual model embeds;
    2. the labels are permuted token-level and corpus-wide (:func:`shuffle_labels`);
    3. the vector at position i of a shuffled sentence stands in for token i of the original
       sentence, without realignment (as in the released code): examples are built from the
       original token positions (and, for DAL, the original head positions) but read the
       shuffled sentence's vectors there. Since the labels are random, only the input matters,
       and it carries no syntactic pattern. ``np.argsort(orders[s])`` realigns if wanted.

    The two permutations come from independent streams spawned from ``seed``. Non-contextual
    representations are unchanged by step 1, which is why the paper only runs this control for
    contextual models (footnote 10). For parsing use :func:`shuffle_word_order` with
    :func:`shuffle_heads`.

    Args:
        sentences_or_token_lists: m sentences (``Sentence`` or sequences of words).
        labels: shape (n,), the task's labels in example order (any length: n need not equal
            the number of words, e.g. DAL skips root arcs).
        seed: int (numpy Generators are not accepted: two streams are spawned from the int).

    Returns:
        :class:`FullyShuffled`.
    """
    if isinstance(seed, np.random.Generator):
        raise ParameterError("seed", "must be an int here", "two streams are derived from it")
    words_ss, labels_ss = np.random.SeedSequence(_check_seed(seed)).spawn(2)
    token_lists, orders = shuffle_word_order(
        sentences_or_token_lists, np.random.default_rng(words_ss)
    )
    return FullyShuffled(
        token_lists, orders, shuffle_labels(labels, np.random.default_rng(labels_ss))
    )


def shuffle_heads(
    heads_per_sentence: Sequence[Any], seed: int | np.random.Generator
) -> list[np.ndarray]:
    """Label-shuffled control for parsing: permute the heads within each sentence (§7.2).

    Word i receives the head (1-based index, 0 = root) of another word of the same sentence, so
    each sentence keeps its multiset of head indices but the result is generally not a tree
    ("creating non-tree dependencies"); a word may even become its own head.

    Args:
        heads_per_sentence: m arrays, shape (n_s,), 1-based heads with 0 for the root.
        seed: int or numpy Generator; sentences are shuffled in order from one stream.

    Returns:
        m new int64 arrays of shape (n_s,).
    """
    rng = _rng(seed)
    return [rng.permutation(np.asarray(h, dtype=np.int64)) for h in heads_per_sentence]


# ---------------------------------------------------------------------------------------------
# Lookup baselines (appendix B)
# ---------------------------------------------------------------------------------------------


def _most_frequent(counts: Counter) -> Hashable:
    # Ties go to the smallest label in sorted order, so the result does not depend on the order
    # of the training data.
    return min(counts, key=lambda label: (-counts[label], label))


def _best_per_key(keys: Sequence[Hashable], labels: Sequence[Hashable]) -> dict[Hashable, Any]:
    counts: dict[Hashable, Counter] = {}
    for key, label in zip(keys, labels, strict=True):
        counts.setdefault(key, Counter())[label] += 1
    return {key: _most_frequent(c) for key, c in counts.items()}


def _check_same_length(allow_empty: bool = True, **arrays: Sequence[Any]) -> None:
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ParameterError(
            next(iter(lengths)), f"lengths differ: {lengths}", "pass one entry per example"
        )
    if not allow_empty and not next(iter(lengths.values())):
        raise ParameterError(next(iter(lengths)), "is empty", "fit on a non-empty training set")


def _items(values: Any) -> list[Any]:
    # numpy str_ and Python str hash alike; convert to plain Python objects once.
    return np.asarray(values).tolist()


@dataclass(frozen=True)
class PoslLookup:
    """Appendix-B lookup for POSL: ``by_word[w]`` is w's most frequent training tag;
    ``default`` the most frequent training tag overall."""

    by_word: dict[Hashable, Any]
    default: Any


def fit_posl_lookup(words: Any, tags: Any) -> PoslLookup:
    """Fit the POSL dictionary-lookup baseline (Pimentel et al. 2020, appendix B, Table 1).

    Ties between equally frequent tags go to the smallest tag in sorted order. Word forms are
    compared exactly as given (lower-case them first for a case-insensitive table).

    Args:
        words: shape (n,), training word forms.
        tags: shape (n,), their tags.
    """
    words, tags = _items(words), _items(tags)
    _check_same_length(allow_empty=False, words=words, tags=tags)
    return PoslLookup(_best_per_key(words, tags), _most_frequent(Counter(tags)))


def predict_posl_lookup(lookup: PoslLookup, words: Any) -> np.ndarray:
    """Tags from :func:`fit_posl_lookup`: (i) a training word gets its most common tag; (ii) an
    out-of-vocabulary word gets the most frequent tag overall (appendix B).

    Args:
        words: shape (n,). Returns: shape (n,).
    """
    return np.asarray([lookup.by_word.get(w, lookup.default) for w in _items(words)])


@dataclass(frozen=True)
class DalLookup:
    """Appendix-B lookup for DAL. Keys are word forms; ``by_arc`` is keyed by
    (dependent, head), ``by_tail`` by the dependent (tail) word of training arcs, ``by_head`` by
    the head word of training arcs."""

    by_arc: dict[tuple[Hashable, Hashable], Any]
    by_tail: dict[Hashable, Any]
    by_head: dict[Hashable, Any]
    default: Any


def fit_dal_lookup(dependents: Any, heads: Any, labels: Any) -> DalLookup:
    """Fit the DAL dictionary-lookup baseline (Pimentel et al. 2020, appendix B, Table 1).

    An *arc* is the pair (dependent word form, head word form), the two words whose
    representations the DAL probe sees (§6); the *tail* is the dependent (appendix A). Ties
    between equally frequent labels go to the smallest label in sorted order.

    Args:
        dependents: shape (n,), dependent word forms of the training arcs.
        heads: shape (n,), head word forms of the same arcs.
        labels: shape (n,), their dependency relations.
    """
    dependents, heads, labels = _items(dependents), _items(heads), _items(labels)
    _check_same_length(allow_empty=False, dependents=dependents, heads=heads, labels=labels)
    return DalLookup(
        by_arc=_best_per_key(list(zip(dependents, heads, strict=True)), labels),
        by_tail=_best_per_key(dependents, labels),
        by_head=_best_per_key(heads, labels),
        default=_most_frequent(Counter(labels)),
    )


def _backoff(lookup: DalLookup, dependent: Hashable, head: Hashable) -> tuple[int, Any]:
    if (dependent, head) in lookup.by_arc:
        return 1, lookup.by_arc[(dependent, head)]
    if dependent in lookup.by_tail:
        return 2, lookup.by_tail[dependent]
    if head in lookup.by_head:
        return 3, lookup.by_head[head]
    return 4, lookup.default


def dal_backoff_level(lookup: DalLookup, dependents: Any, heads: Any) -> np.ndarray:
    """Which of appendix B's four DAL behaviours answers each arc.

    1: the (dependent, head) arc was seen in training; 2: unseen arc, but the tail (dependent)
    word was seen as a tail; 3: tail unseen, head word seen as a head; 4: neither, global
    label. "Seen" is per role: a word that only occurred as a head has no tail statistics.

    Args:
        dependents, heads: shape (n,) word forms. Returns: int64, shape (n,), values in 1..4.
    """
    dependents, heads = _items(dependents), _items(heads)
    _check_same_length(dependents=dependents, heads=heads)
    pairs = zip(dependents, heads, strict=True)
    return np.asarray([_backoff(lookup, d, h)[0] for d, h in pairs], dtype=np.int64)


def predict_dal_lookup(lookup: DalLookup, dependents: Any, heads: Any) -> np.ndarray:
    """Labels from :func:`fit_dal_lookup`, backing off arc -> tail word -> head word -> global
    (appendix B; the level used per arc is :func:`dal_backoff_level`).

    Args:
        dependents, heads: shape (n,) word forms. Returns: shape (n,).
    """
    dependents, heads = _items(dependents), _items(heads)
    _check_same_length(dependents=dependents, heads=heads)
    pairs = zip(dependents, heads, strict=True)
    return np.asarray([_backoff(lookup, d, h)[1] for d, h in pairs])


# ---------------------------------------------------------------------------------------------
# Entropies (§7.1)
# ---------------------------------------------------------------------------------------------


def _codes(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ParameterError(name, f"must be a non-empty 1-D array, got shape {arr.shape}")
    return np.unique(arr, return_inverse=True)[1].reshape(-1)


def _entropy_of_counts(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


def entropy(labels: Any) -> float:
    """Plug-in entropy H(label) in bits from label counts (Pimentel et al. 2020, §7.1).

    Args:
        labels: shape (n,). Returns: H >= 0 in bits.
    """
    return _entropy_of_counts(np.bincount(_codes(labels, "labels")))


def conditional_entropy(labels: Any, words: Any) -> float:
    """Plug-in H(label | word) = H(label, word) - H(word) in bits (Pimentel et al. 2020, §7.1).

    How much of the label is left to guess once the word type is known: near 0 for POS in
    English (0.26 bits on EWT over train+dev+test in the released results), which is why a
    word-identity lookup does so well.

    Args:
        labels, words: shape (n,). Returns: 0 <= H(label | word) <= H(label), in bits.
    """
    lab, wrd = _codes(labels, "labels"), _codes(words, "words")
    if lab.size != wrd.size:
        raise ParameterError("words", f"has {wrd.size} entries but labels has {lab.size}")
    joint = lab.astype(np.int64) * (int(wrd.max()) + 1) + wrd
    h = _entropy_of_counts(np.bincount(joint)) - _entropy_of_counts(np.bincount(wrd))
    return max(h, 0.0)


# ---------------------------------------------------------------------------------------------
# Non-contextual representations (§6)
# ---------------------------------------------------------------------------------------------


def _word_seed(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def random_type_vectors(vocab: Sequence[str], dim: int, seed: int) -> np.ndarray:
    """A fixed N(0, 1) vector per word type: the *random* representation (§6).

    The vector of a word depends only on (seed, word), not on the vocabulary it is asked with,
    so the out-of-vocabulary words of dev and test get fresh untrained vectors "sampled on the
    spot" simply by asking for them, and every run with the same seed agrees.

    Args:
        vocab: V word types. dim: vector size. seed: non-negative int.

    Returns:
        float32 array of shape (V, dim); row k belongs to ``vocab[k]``.
    """
    seed = _check_seed(seed)
    if dim < 1:
        raise ParameterError("dim", f"must be >= 1, got {dim}")
    out = np.empty((len(vocab), dim), dtype=np.float32)
    for k, word in enumerate(vocab):
        out[k] = np.random.default_rng([seed, _word_seed(str(word))]).standard_normal(dim)
    return out


def embed_types(
    sentences_forms: Sequence[Any], vectors: Callable[[list[str]], np.ndarray] | Any
) -> list[np.ndarray]:
    """Per-sentence matrices of a type-level (non-contextual) representation (§6).

    Args:
        sentences_forms: m sentences (``Sentence`` or sequences of words).
        vectors: a function from a list of V words to an array (V, d) (e.g.
            ``lambda ws: random_type_vectors(ws, 300, seed)``), or gensim ``KeyedVectors``
            such as :func:`fasttext_vectors` returns.

    Returns:
        m float32 arrays of shape (n_s, d), the same layout as contextual embeddings.
    """
    sentences = [_forms(s) for s in sentences_forms]
    vocab = sorted({w for s in sentences for w in s})
    if not vocab:
        return [np.zeros((0, 0), dtype=np.float32) for _ in sentences]
    table = np.asarray(vectors(vocab) if callable(vectors) else vectors[vocab], dtype=np.float32)
    index = {w: k for k, w in enumerate(vocab)}
    return [table[[index[w] for w in s]].reshape(len(s), table.shape[1]) for s in sentences]


def _stable_hash(text: str) -> int:
    # gensim seeds some vectors with hash(); Python's str hash changes per process.
    return zlib.crc32(text.encode("utf-8"))


def fasttext_vectors(
    sentences_forms: Sequence[Any],
    dim: int,
    seed: int,
    pretrained_path: str | os.PathLike | None = None,
    *,
    epochs: int = 5,
    min_count: int = 1,
) -> Any:
    """fastText vectors (Bojanowski et al. 2017), the paper's non-contextual baseline (§6).

    The paper uses the pretrained Common Crawl vectors ``cc.<lang>.300.bin``; pass such a file
    as ``pretrained_path`` (loaded with gensim's ``load_facebook_vectors``; ``sentences_forms``
    is then unused and ``dim`` must match the file). Without it, a gensim FastText model is
    trained on ``sentences_forms`` (the training text) with one worker thread and a fixed seed,
    so that the run is deterministic. Either way out-of-vocabulary words get vectors from their
    character n-grams, as ``model[word]`` does in the released code.

    Args:
        sentences_forms: m training sentences (``Sentence`` or sequences of words).
        dim: vector size. seed: non-negative int. epochs, min_count: gensim training options.

    Returns:
        gensim ``FastTextKeyedVectors``; use with :func:`embed_types`.
    """
    from gensim.models.fasttext import FastText, load_facebook_vectors

    seed = _check_seed(seed)
    if pretrained_path is not None:
        path = Path(pretrained_path)
        if not path.is_file():
            raise DataNotFoundError(
                f"fastText vectors not found: {path}",
                "download cc.<lang>.300.bin from fasttext.cc or omit pretrained_path",
            )
        kv = load_facebook_vectors(str(path))
        if kv.vector_size != dim:
            raise ParameterError(
                "dim", f"is {dim} but {path.name} holds {kv.vector_size}-d vectors"
            )
        return kv
    sentences = [_forms(s) for s in sentences_forms]
    if not any(sentences):
        raise ParameterError("sentences_forms", "is empty", "pass the training sentences")
    model = FastText(
        sentences=sentences,
        vector_size=dim,
        seed=seed,
        workers=1,
        epochs=epochs,
        min_count=min_count,
        hashfxn=_stable_hash,
    )
    return model.wv


class OneHotEmbedding(torch.nn.Module):
    """The *one-hot* representation: a trainable vector per word type (§6).

    A one-hot input followed by a learned projection equals a learned embedding table, so the
    table is trained with the probe ("All representations are kept fixed during training,
    except for one-hot"). The released code's table is an ``nn.Embedding`` with a sampled size
    (48 to 292); ``dim`` is that size here.

    Build the vocabulary over train, dev and test words (:func:`build_vocab`): rows of words
    never seen in training get no gradient, and Adam leaves a parameter with zero gradient
    history exactly where it is, so those words keep their untrained N(0, 1) vectors, as the
    paper prescribes for out-of-vocabulary words.

    ``n_probes`` tables are stacked so that P probes train in one batched pass; each starts
    from the same N(0, 1) draw of ``seed``.

    ``n_trainable`` (default: all rows): when the ids of the training words are
    0..n_trainable-1, the other rows can never receive a gradient, so they are kept as a frozen
    buffer ``frozen`` (V - n_trainable, dim) outside ``weight`` (P, n_trainable, dim). The
    result is the same (the same draw, and untrained rows stay put either way), but Adam no
    longer sweeps the rows of dev- and test-only words at every step, which dominates the cost
    of the one-hot probes when the training sample is small.

    Shapes: ``forward(ids)`` maps int64 ids of shape (...) to (P, ..., dim);
    ``forward(ids, members)`` uses only the probes ``members`` (P',), giving (P', ..., dim);
    with ``per_probe=True`` ids carry a leading probe axis (P', ...).
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        n_probes: int = 1,
        seed: int = 0,
        n_trainable: int | None = None,
    ):
        super().__init__()
        if vocab_size < 1 or dim < 1 or n_probes < 1:
            raise ParameterError("vocab_size", "vocab_size, dim and n_probes must be >= 1")
        k = vocab_size if n_trainable is None else n_trainable
        if not 1 <= k <= vocab_size:
            raise ParameterError("n_trainable", f"must lie in 1..{vocab_size}, got {k}")
        g = torch.Generator().manual_seed(_check_seed(seed))
        table = torch.randn(vocab_size, dim, generator=g)
        self.weight = torch.nn.Parameter(table[:k].expand(n_probes, -1, -1).clone())
        self.register_buffer("frozen", table[k:].clone())

    def forward(
        self, ids: torch.Tensor, members: torch.Tensor | None = None, per_probe: bool = False
    ) -> torch.Tensor:
        W = self.weight if members is None else self.weight[members]
        P, k, dim = W.shape
        shape = ids.shape[1:] if per_probe else ids.shape
        flat = ids.reshape(P, -1) if per_probe else ids.reshape(-1)
        inside = flat.clamp(max=k - 1)
        if per_probe:
            out = W[torch.arange(P)[:, None], inside]  # (P, N, dim)
        else:
            out = W[:, inside]  # (P, N, dim)
        if self.frozen.shape[0]:
            fixed = self.frozen[(flat - k).clamp(min=0)]  # (N, dim) or (P, N, dim)
            out = torch.where((flat < k)[..., None], out, fixed)
        return out.reshape(P, *shape, dim)


def build_vocab(*corpora: Sequence[Any]) -> dict[str, int]:
    """Word-type ids for :class:`OneHotEmbedding`: sorted types of all given corpora (§6).

    Args:
        corpora: any number of sentence lists (``Sentence`` or sequences of words), e.g.
            train, dev and test.

    Returns:
        {word: id}, ids 0..V-1 in sorted word order.
    """
    types = sorted({w for corpus in corpora for s in corpus for w in _forms(s)})
    return {w: k for k, w in enumerate(types)}


def type_ids(sentences_forms: Sequence[Any], vocab: dict[str, int]) -> list[np.ndarray]:
    """Map sentences to word-type ids of ``vocab`` (shape (n_s,) int64 each).

    Raises ParameterError for a word missing from ``vocab`` (build it over every split).
    """
    out = []
    for s in sentences_forms:
        words = _forms(s)
        missing = [w for w in words if w not in vocab]
        if missing:
            raise ParameterError(
                "vocab", f"lacks {missing[0]!r}", "build_vocab(train, dev, test) covers all splits"
            )
        out.append(np.asarray([vocab[w] for w in words], dtype=np.int64))
    return out


# ---------------------------------------------------------------------------------------------
# MLP hyperparameters (§6.2)
# ---------------------------------------------------------------------------------------------


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


def sample_mlp_configs(n: int, seed: int) -> list[MLPConfig]:
    """Random MLP architectures as in Pimentel et al. 2020, §6.2.

    Number of layers uniform on {0, ..., 5}; dropout uniform on [0, 0.5]; hidden size
    log-uniform on [2^5, 2^10] = [32, 1024], rounded to an int. (The released code instead
    draws the size uniformly from the set {int(2^x): x in 5, 5.01, ..., 9.99}, and dropout on a
    0.01 grid.)

    Args:
        n: number of configurations. seed: non-negative int.

    Returns:
        n :class:`MLPConfig`.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    rng = _rng(seed)
    n_layers = rng.integers(0, 6, size=n)
    dropout = rng.uniform(0.0, 0.5, size=n)
    hidden = np.clip(np.rint(2.0 ** rng.uniform(5.0, 10.0, size=n)), 32, 1024).astype(int)
    return [
        MLPConfig(int(layers), int(h), float(p))
        for layers, h, p in zip(n_layers, hidden, dropout, strict=True)
    ]
