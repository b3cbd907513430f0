"""Trees predicted from the sentence length alone (Hall Maudslay & Cotterell 2021, §5.1).

The linear chain and the majority tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from probekit.errors import ParameterError
from probekit.trees.spanning import prim_maxst
from probekit.trees.structure import check_heads, edges_from_heads, heads_from_parents


def linear_chain_heads(n: int) -> np.ndarray:
    """The linear-chain baseline (Hall Maudslay & Cotterell 2021, §4): word i joined to i + 1.

    Rooted at the first word; returns 1-based heads (n,), i.e. ``[0, 1, 2, ..., n - 1]``. Only
    the undirected edges matter for UUAS and DSpr. It ignores the words themselves.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    return np.arange(n, dtype=np.int64)


@dataclass
class MajorityTree:
    """The majority-tree baseline.

    Hall Maudslay & Cotterell 2021, §4, "Additional Simple Baselines".

    Training sentences are binned by length n. In each bin, the position pair (i, j) is weighted
    by how many training trees contain the undirected edge (i, j); the majority tree of length n
    is the maximum spanning tree of these weights (:func:`prim_maxst`, ties to the lowest index).
    The paper replaces sparse lengths by the linear-chain baseline without stating the cut-off
    (it is lost from our copy of the text); here lengths with fewer than ``min_count`` training
    sentences (default 5) fall back to :func:`linear_chain_heads`. The words are ignored.

    ``fit`` then ``heads(n)`` (1-based heads rooted at word 0) or ``predict(lengths)``.
    """

    min_count: int = 5
    counts: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    n_sentences: dict[int, int] = field(default_factory=dict, init=False)
    _cache: dict[int, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        """Check that ``min_count`` is at least 1."""
        if self.min_count < 1:
            raise ParameterError("min_count", f"must be >= 1, got {self.min_count}")

    def fit(self, train_heads: Sequence[np.ndarray]) -> MajorityTree:
        """Count undirected edges per (length, i, j) over 1-based training heads arrays."""
        self.counts, self.n_sentences, self._cache = {}, {}, {}
        for s, heads in enumerate(train_heads):
            edges = edges_from_heads(check_heads(heads, f"train_heads[{s}]"))
            n = len(heads)
            w = self.counts.setdefault(n, np.zeros((n, n), dtype=np.int64))
            w[edges[:, 0], edges[:, 1]] += 1
            w[edges[:, 1], edges[:, 0]] += 1
            self.n_sentences[n] = self.n_sentences.get(n, 0) + 1
        return self

    def heads(self, n: int) -> np.ndarray:
        """The baseline tree for sentence length n, 1-based heads (n,) rooted at word 0."""
        if n not in self._cache:
            if self.n_sentences.get(n, 0) < self.min_count:
                self._cache[n] = linear_chain_heads(n)
            else:
                self._cache[n] = heads_from_parents(prim_maxst(self.counts[n]))
        return self._cache[n].copy()

    def predict(self, lengths: Sequence[int]) -> list[np.ndarray]:
        """Heads (n_s,) for every sentence length in ``lengths``."""
        return [self.heads(int(n)) for n in lengths]
