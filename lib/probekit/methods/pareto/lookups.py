"""Dictionary-lookup baselines (Pimentel et al. 2020, appendix B).

The most frequent tag of a word (POSL) and the most frequent relation of a (dependent, head) pair
with back-off (DAL).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from probekit.errors import ParameterError


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
    """Appendix-B lookup for POSL.

    ``by_word[w]`` is w's most frequent training tag; ``default`` the most frequent training tag
    overall.
    """

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
    """Tags from :func:`fit_posl_lookup` (appendix B).

    (i) A training word gets its most common tag; (ii) an out-of-vocabulary word gets the most
    frequent tag overall.

    Args:
        lookup: the fitted lookup.
        words: shape (n,).

    Returns:
        Shape (n,).
    """
    return np.asarray([lookup.by_word.get(w, lookup.default) for w in _items(words)])


@dataclass(frozen=True)
class DalLookup:
    """Appendix-B lookup for DAL.

    Keys are word forms; ``by_arc`` is keyed by (dependent, head), ``by_tail`` by the dependent
    (tail) word of training arcs, ``by_head`` by the head word of training arcs.
    """

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
        lookup: the fitted lookup (:func:`fit_dal_lookup`).
        dependents: shape (n,), dependent word forms.
        heads: shape (n,), head word forms.

    Returns:
        int64, shape (n,), values in 1..4.
    """
    dependents, heads = _items(dependents), _items(heads)
    _check_same_length(dependents=dependents, heads=heads)
    pairs = zip(dependents, heads, strict=True)
    return np.asarray([_backoff(lookup, d, h)[0] for d, h in pairs], dtype=np.int64)


def predict_dal_lookup(lookup: DalLookup, dependents: Any, heads: Any) -> np.ndarray:
    """Labels from :func:`fit_dal_lookup`, backing off arc -> tail word -> head word -> global.

    Appendix B; the level used per arc is :func:`dal_backoff_level`.

    Args:
        lookup: the fitted lookup.
        dependents: shape (n,), dependent word forms.
        heads: shape (n,), head word forms.

    Returns:
        Shape (n,).
    """
    dependents, heads = _items(dependents), _items(heads)
    _check_same_length(dependents=dependents, heads=heads)
    pairs = zip(dependents, heads, strict=True)
    return np.asarray([_backoff(lookup, d, h)[1] for d, h in pairs])
