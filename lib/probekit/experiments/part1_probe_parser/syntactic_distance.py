"""Syntactic distance (Hall Maudslay et al. 2020, §2), chapter 11.

An example tree and the path between its two farthest words, checking Proposition 1 (the
distances determine the tree) over a corpus, and how syntactic distance relates to linear
distance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.trees import distances, spanning, structure


def pick_example(sentences: Sequence, sent_id: str = "", length: int = 12):
    """The sentence whose ``sent_id`` is given, else the first of ``length`` words.

    With no sentence of exactly ``length`` words, the first of the nearest length is taken, so
    any treebank yields an example. Raises ParameterError for an unknown ``sent_id``.
    """
    if not sentences:
        raise ParameterError("sentences", "no sentences to pick an example from")
    if sent_id:
        for s in sentences:
            if s.sent_id == sent_id:
                return s
        raise ParameterError(
            "example_id",
            f"no sentence has sent_id {sent_id!r}",
            "leave it empty to pick a sentence by length",
        )
    if length < 2:
        raise ParameterError("example_length", f"must be >= 2, got {length}")
    gaps = np.abs(np.array([len(s) for s in sentences]) - length)
    return sentences[int(np.argmin(gaps))]


def tree_path(heads: np.ndarray, i: int, j: int) -> np.ndarray:
    """Words on the tree path from word i to word j (0-based, both ends included).

    Hall Maudslay et al. 2020, §2 and Fig. 1: Δ_t(w_i, w_j) is the number of edges on this path,
    i.e. ``len(path) - 1``. ``heads``: 1-based (n,), 0 = root. Returns int64 (Δ + 1,).
    """
    parents = structure.parents_from_heads(heads)
    n = parents.size
    if not (0 <= i < n and 0 <= j < n):
        raise ParameterError("i", f"words must lie in 0..{n - 1}, got {i} and {j}")

    def up(v: int) -> list[int]:
        chain = [v]
        while parents[chain[-1]] >= 0:
            chain.append(int(parents[chain[-1]]))
        return chain

    up_i, up_j = up(i), up(j)
    common = set(up_i) & set(up_j)
    meet = next(v for v in up_i if v in common)
    left = up_i[: up_i.index(meet) + 1]
    right = up_j[: up_j.index(meet)][::-1]
    return np.array(left + right, dtype=np.int64)


def farthest_pair(dist: np.ndarray) -> tuple[int, int]:
    """The word pair (i < j) at the largest distance of an (n, n) matrix; ties: first row-major."""
    d = np.asarray(dist)
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[0] != d.shape[1]:
        raise ParameterError("dist", f"expected an (n, n) matrix with n >= 2, got {d.shape}")
    upper = np.where(np.triu(np.ones(d.shape, bool), k=1), d, -np.inf)
    i, j = np.unravel_index(int(np.argmax(upper)), d.shape)
    return int(i), int(j)


@dataclass(frozen=True, eq=False)
class ExampleTree:
    """One sentence's tree distances and the path between its two farthest words (§2, Fig. 1).

    ``sentence``: a :class:`probekit.io.treebanks.Sentence`; ``dist``: its int (n, n) tree
    distances; ``pair``: the farthest pair (i < j, :func:`farthest_pair`); ``path``: the words
    from i to j (:func:`tree_path`).
    """

    sentence: object
    dist: np.ndarray
    pair: tuple[int, int]
    path: np.ndarray

    @property
    def words(self) -> tuple[str, str]:
        """The forms of the pair's two words."""
        i, j = self.pair
        return str(self.sentence.forms[i]), str(self.sentence.forms[j])

    @property
    def pair_distance(self) -> int:
        """Δ_t of the pair: edges on the path between them."""
        return int(self.dist[self.pair])

    @property
    def pair_linear(self) -> int:
        """|i − j| of the pair: how far apart they are in the string."""
        return int(abs(self.pair[1] - self.pair[0]))

    @property
    def mean_distance(self) -> float:
        """Mean Δ_t over the sentence's word pairs (i < j)."""
        return float(self.dist[np.triu_indices(len(self.sentence), 1)].mean())


def example_tree(sentences: Sequence, sent_id: str = "", length: int = 12) -> ExampleTree:
    """The :class:`ExampleTree` of the sentence :func:`pick_example` picks.

    That sentence is ``sent_id``, else the first of ``length`` words.
    """
    sentence = pick_example(sentences, sent_id, length)
    dist = distances.tree_distances(sentence.heads)
    i, j = farthest_pair(dist)
    return ExampleTree(sentence, dist, (i, j), tree_path(sentence.heads, i, j))


def monotone_transform(dist: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random strictly increasing map applied to the integer distances of (n, n) ``dist``.

    Prop. 1's remark (Hall Maudslay et al. 2020, §2): only the ordering of the distances is
    needed to recover the tree. Value v goes to Σ_{u <= v} g_u with g_u ~ U(0.1, 10), so the
    zero diagonal is kept and the order of the distances, not their spacing, survives.
    """
    d = np.asarray(dist, dtype=np.int64)
    steps = rng.uniform(0.1, 10.0, size=int(d.max(initial=0)) + 1)
    steps[0] = 0.0
    return np.cumsum(steps)[d]


def round_trip_counts(sentences: Sequence, seed: int) -> dict[str, int]:
    """Prop. 1 (Hall Maudslay et al. 2020, §2) checked on every tree of ``sentences``.

    Counts, over the trees:
    - ``trees``: trees checked;
    - ``round_trip``: :func:`probekit.trees.distances.round_trip` is true (pairs at distance 1
      are the edges; Prim's MST of the distances has the same edges; the recovered tree has the
      same distances);
    - ``ordering_only``: Prim's MST of a random strictly increasing transform of the distances
      (:func:`monotone_transform`, drawn from ``numpy.random.default_rng(seed)``) still has
      the gold edges;
    - ``floyd_warshall``: Floyd–Warshall on the adjacency matrix gives the same distances as
      the O(n^2) breadth-first computation.
    """
    rng = np.random.default_rng(seed)
    counts = {"trees": 0, "round_trip": 0, "ordering_only": 0, "floyd_warshall": 0}
    heads = [s.heads for s in sentences]
    for h, dist in zip(heads, distances.tree_distances_all(heads), strict=True):
        edges = structure.edges_from_heads(h)
        counts["trees"] += 1
        counts["round_trip"] += bool(distances.round_trip(h))
        mst = spanning.prim_mst(monotone_transform(dist, rng))
        counts["ordering_only"] += bool(np.array_equal(structure.edges_from_parents(mst), edges))
        counts["floyd_warshall"] += bool(np.array_equal(distances.floyd_warshall(dist == 1), dist))
    return counts


# What each count of round_trip_counts checks, in the words of the chapter's table.
ROUND_TRIP_CHECKS = {
    "round_trip": "pairs at distance 1 = edges; Prim's tree = edges; distances re-computed",
    "ordering_only": "Prim's tree of an order-preserving transform = edges",
    "floyd_warshall": "Floyd–Warshall distances = breadth-first distances",
}


@dataclass(frozen=True)
class Proposition1Check:
    """Prop. 1 (Hall Maudslay et al. 2020, §2) checked on a corpus.

    ``counts`` of :func:`round_trip_counts` and ``words``, the words of the trees checked.
    """

    counts: dict[str, int]
    words: int

    def rate(self, check: str) -> float:
        """% of the trees that pass ``check`` (a key of :data:`ROUND_TRIP_CHECKS`)."""
        if check not in ROUND_TRIP_CHECKS:
            raise ParameterError(
                "check", f"must be one of {list(ROUND_TRIP_CHECKS)}, got {check!r}"
            )
        return 100 * self.counts[check] / self.counts["trees"]

    @property
    def failures(self) -> int:
        """Trees failing the check that fails most often.

        A lower bound on the trees that fail any check.
        """
        return self.counts["trees"] - min(self.counts[c] for c in ROUND_TRIP_CHECKS)

    @property
    def outcome(self) -> str:
        """The check in words, for the prose.

        "every tree passes all three checks" or "at least N trees fail a check". Prop. 1 is a
        theorem, so this tests the implementation, not the paper: it is not a verdict.
        """
        if self.failures == 0:
            return "every tree passes all three checks"
        return f"at least {self.failures:,} trees fail a check"

    def table(self) -> pd.DataFrame:
        """One row per check: ``trees passing`` and ``share (%)`` (2 decimals), index ``check``."""
        passing = [self.counts[c] for c in ROUND_TRIP_CHECKS]
        table = pd.DataFrame({"check": list(ROUND_TRIP_CHECKS.values()), "trees passing": passing})
        table["share (%)"] = (100 * table["trees passing"] / self.counts["trees"]).round(2)
        return table.set_index("check")


def check_proposition1(sentences: Sequence, seed: int) -> Proposition1Check:
    """:func:`round_trip_counts` of ``sentences`` with ``seed``, as a :class:`Proposition1Check`."""
    if not sentences:
        raise ParameterError("sentences", "no trees to check")
    words = int(sum(len(s) for s in sentences))
    return Proposition1Check(round_trip_counts(sentences, seed), words)


def distance_pairs(sentences: Sequence) -> pd.DataFrame:
    """Counts of word pairs (i < j) by linear distance j − i and syntactic distance Δ_t.

    One row per occurring (linear, syntactic) combination, columns ``linear``, ``syntactic``,
    ``pairs``; over all sentences of at least two words.
    """
    dists = distances.tree_distances_all([s.heads for s in sentences])
    lin, syn = [], []
    for d in dists:
        i, j = np.triu_indices(d.shape[0], k=1)
        lin.append(j - i)
        syn.append(d[i, j])
    if not lin:
        return pd.DataFrame(columns=["linear", "syntactic", "pairs"])
    df = pd.DataFrame({"linear": np.concatenate(lin), "syntactic": np.concatenate(syn)})
    return (
        df.value_counts()
        .rename("pairs")
        .reset_index()
        .sort_values(["linear", "syntactic"], ignore_index=True)
    )


def distance_summary(pairs: pd.DataFrame, far: int = 10) -> dict[str, float]:
    """Two numbers from a :func:`distance_pairs` table.

    ``adjacent_arc_share``: % of adjacent word pairs (|i − j| = 1) joined by an arc. A sentence
    of n words has n − 1 arcs and n − 1 adjacent pairs, so this is also the % of arcs that join
    adjacent words. ``mean_syntactic_far``: mean Δ_t (edges) of the pairs ``far`` words apart
    (NaN if there are none).
    """
    lin, syn, w = (pairs[c].to_numpy() for c in ("linear", "syntactic", "pairs"))
    adjacent, at_far = lin == 1, lin == far
    return {
        "adjacent_arc_share": (
            100.0 * float(w[adjacent & (syn == 1)].sum() / w[adjacent].sum())
            if adjacent.any()
            else float("nan")
        ),
        "mean_syntactic_far": (
            float(np.average(syn[at_far], weights=w[at_far])) if at_far.any() else float("nan")
        ),
    }
