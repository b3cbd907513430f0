"""The non-parametric controls of Pimentel et al. 2020 (§5 and §7.2).

Shuffled labels, shuffled word order and shuffled heads for parsing.

The label-shuffled control trains on :func:`shuffle_labels`. The fully-shuffled control (§5:
"both labels and inputs are shuffled") also embeds every sentence with its words in the order
of :func:`shuffle_word_order`; the vector at position i of a shuffled sentence then stands in
for word i of the original sentence, without realignment, as in the released code. For parsing
the labels are heads, shuffled within each sentence by :func:`shuffle_heads`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from probekit.errors import ParameterError
from probekit.io.treebanks import forms_of
from probekit.seeds import as_generator


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
    return arr[as_generator(seed).permutation(arr.shape[0])]


def shuffle_word_order(
    sentences_or_token_lists: Sequence[Any], seed: int | np.random.Generator
) -> tuple[list[list[str]], list[np.ndarray]]:
    """Randomly permute the words of every sentence (Pimentel et al. 2020, §5, "fully shuffled").

    Non-contextual representations are unchanged by it, which is why the paper only runs the
    fully-shuffled control for contextual models (footnote 10). ``np.argsort(orders[s])``
    realigns a shuffled sentence with the original if wanted.

    Args:
        sentences_or_token_lists: m sentences, each a ``probekit.io.treebanks.Sentence`` (its
            ``forms`` are used) or a sequence of word strings.
        seed: int or numpy Generator; sentences are permuted in order from one stream.

    Returns:
        (token_lists, orders): ``token_lists[s][i] == original[s][orders[s][i]]``; each
        ``orders[s]`` is an int64 permutation of shape (n_s,).
    """
    rng = as_generator(seed)
    token_lists, orders = [], []
    for sentence in sentences_or_token_lists:
        words = forms_of(sentence)
        order = rng.permutation(len(words)).astype(np.int64)
        token_lists.append([words[i] for i in order])
        orders.append(order)
    return token_lists, orders


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
    rng = as_generator(seed)
    return [rng.permutation(np.asarray(h, dtype=np.int64)) for h in heads_per_sentence]
