"""Tests of probekit.trees: Prim, tree distances, Prop. 1, UUAS, DSpr, baselines."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_heads
from probekit.errors import ParameterError
from probekit.trees import baselines, distances, metrics, spanning, structure

SETTINGS = settings(max_examples=60, deadline=None)


def random_symmetric(rng: np.random.Generator, n: int, integer: bool) -> np.ndarray:
    """A symmetric matrix; integer weights in 0..4 produce many ties."""
    m = rng.integers(0, 5, (n, n)).astype(float) if integer else rng.random((n, n))
    m = np.triu(m, 1)
    return m + m.T


@st.composite
def heads_arrays(draw, min_n: int = 1, max_n: int = 30) -> np.ndarray:
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_heads(np.random.default_rng(seed), n)


@st.composite
def complete_graphs(draw, min_n: int = 1, max_n: int = 25) -> np.ndarray:
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_symmetric(np.random.default_rng(seed), n, draw(st.booleans()))


def tree_weight(parents: np.ndarray, weights: np.ndarray) -> float:
    child = np.flatnonzero(parents >= 0)
    return float(weights[child, parents[child]].sum())


def nx_tree_weight(weights: np.ndarray, maximum: bool) -> float:
    g = nx.Graph()
    n = weights.shape[0]
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((i, j, weights[i, j]) for i in range(n) for j in range(i + 1, n))
    tree = nx.maximum_spanning_tree(g) if maximum else nx.minimum_spanning_tree(g)
    return float(tree.size(weight="weight"))


def is_spanning_tree(parents: np.ndarray) -> bool:
    n = parents.size
    return n == 0 or distances.round_trip(structure.heads_from_parents(parents))


# --------------------------------------------------------------------------------------------
# Prim


@SETTINGS
@given(complete_graphs())
def test_prim_mst_weight_equals_networkx(w):
    parents = spanning.prim_mst(w)
    assert parents[0] == -1 and is_spanning_tree(parents)
    assert tree_weight(parents, w) == pytest.approx(nx_tree_weight(w, maximum=False))


@SETTINGS
@given(complete_graphs())
def test_prim_maxst_weight_equals_networkx(w):
    parents = spanning.prim_maxst(w)
    assert is_spanning_tree(parents)
    assert tree_weight(parents, w) == pytest.approx(nx_tree_weight(w, maximum=True))


@SETTINGS
@given(st.lists(complete_graphs(max_n=15), min_size=1, max_size=8))
def test_prim_mst_all_equals_one_at_a_time(ws):
    batched = spanning.prim_mst_all(ws, chunk_size=3)
    for w, parents in zip(ws, batched, strict=True):
        np.testing.assert_array_equal(parents, spanning.prim_mst(w))


def test_tree_edge_mask_marks_each_undirected_edge_once():
    # Parents of two padded trees: 0-1, 1-2 (a chain) and 0-1, 0-2 with one padding vertex.
    parents = np.array([[-1, 0, 1], [-1, 0, -1]])
    mask = spanning.tree_edge_mask(parents)
    assert mask.shape == (2, 3, 3)
    assert np.argwhere(mask[0]).tolist() == [[0, 1], [1, 2]]
    assert np.argwhere(mask[1]).tolist() == [[0, 1]]
    # Leading axes (e.g. probes × sentences) are kept; a child with a larger-index parent
    # lands above the diagonal too.
    stacked = spanning.tree_edge_mask(np.array([[[-1, 2, 0], [-1, 0, 1]]]))
    assert stacked.shape == (1, 2, 3, 3)
    assert np.argwhere(stacked[0, 0]).tolist() == [[0, 2], [1, 2]]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
def test_tree_edge_mask_of_prim_matches_edges_from_parents(lengths, seed):
    rng = np.random.default_rng(seed)
    dists = [np.triu(rng.random((n, n)), 1) for n in lengths]
    dists = [d + d.T for d in dists]
    padded, lens = spanning.padded_distances_chunk(dists, np.arange(len(dists)))
    mask = spanning.tree_edge_mask(spanning.prim_mst_batch(padded, lens))
    for b, d in enumerate(dists):
        edges = structure.edge_set(structure.edges_from_parents(spanning.prim_mst(d)))
        assert {tuple(e) for e in np.argwhere(mask[b])} == edges


def test_prim_ties_go_to_lowest_index():
    # All distances equal: each new vertex is the lowest unvisited index, its parent vertex 0.
    parents = spanning.prim_mst(np.ones((4, 4)) - np.eye(4))
    np.testing.assert_array_equal(parents, [-1, 0, 0, 0])
    # Vertex 3 is equally near vertices 1 and 2: the lower-index tree vertex wins.
    d = np.array(
        [[0, 1, 1, 9], [1, 0, 9, 2], [1, 9, 0, 2], [9, 2, 2, 0]],
        dtype=float,
    )
    np.testing.assert_array_equal(spanning.prim_mst(d), [-1, 0, 0, 1])


def test_prim_small_and_invalid_inputs():
    np.testing.assert_array_equal(spanning.prim_mst(np.zeros((1, 1))), [-1])
    assert spanning.prim_mst(np.zeros((0, 0))).shape == (0,)
    with pytest.raises(ParameterError, match="square"):
        spanning.prim_mst(np.zeros((2, 3)))
    with pytest.raises(ParameterError, match="symmetric"):
        spanning.prim_mst(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(ParameterError, match="NaN"):
        spanning.prim_mst(np.array([[0.0, np.nan], [np.nan, 0.0]]))


# --------------------------------------------------------------------------------------------
# Distances and Proposition 1


def scipy_tree_distances(heads: np.ndarray) -> np.ndarray:
    n = heads.size
    adj = np.zeros((n, n))
    child = np.flatnonzero(heads > 0)
    adj[child, heads[child] - 1] = 1
    return csgraph.shortest_path(adj, directed=False, unweighted=True)


@SETTINGS
@given(heads_arrays())
def test_tree_distances_equal_scipy(heads):
    np.testing.assert_array_equal(distances.tree_distances(heads), scipy_tree_distances(heads))


@SETTINGS
@given(st.lists(heads_arrays(max_n=20), min_size=1, max_size=10))
def test_tree_distances_all_equals_one_at_a_time(heads):
    for h, d in zip(heads, distances.tree_distances_all(heads, chunk_size=4), strict=True):
        np.testing.assert_array_equal(d, distances.gold_distance_matrix(h))


def test_tree_distances_batch_marks_padding():
    heads = np.array([[0, 1, 0], [2, 0, 2]])
    d = distances.tree_distances_batch(heads, np.array([2, 3]))
    np.testing.assert_array_equal(d[0], [[0, 1, -1], [1, 0, -1], [-1, -1, -1]])
    np.testing.assert_array_equal(d[1], [[0, 1, 2], [1, 0, 1], [2, 1, 0]])


@SETTINGS
@given(complete_graphs(min_n=1, max_n=12), st.floats(0.0, 1.0))
def test_floyd_warshall_equals_scipy(w, p_missing):
    rng = np.random.default_rng(int(w.sum() * 1000) % 2**32)
    w = w + 0.5  # csgraph treats 0 as "no edge" in dense input
    missing = np.triu(rng.random(w.shape) < p_missing, 1)
    w[missing | missing.T] = np.inf
    expected = csgraph.shortest_path(w, method="D", directed=False)
    np.testing.assert_allclose(distances.floyd_warshall(w), expected)


def test_floyd_warshall_adjacency_and_batch():
    heads = np.array([2, 0, 2, 3])
    dist = distances.tree_distances(heads)
    np.testing.assert_array_equal(distances.floyd_warshall(dist == 1), dist)
    batch = distances.floyd_warshall(np.stack([dist == 1, dist == 1]))
    assert batch.shape == (2, 4, 4)
    with pytest.raises(ParameterError, match=">= 0"):
        distances.floyd_warshall(-np.ones((2, 2)))


@SETTINGS
@given(heads_arrays())
def test_round_trip(heads):
    assert distances.round_trip(heads)
    dist = distances.tree_distances(heads)
    root = int(np.flatnonzero(heads == 0)[0])
    np.testing.assert_array_equal(distances.heads_from_tree_distances(dist, root=root), heads)


def test_heads_from_tree_distances_rejects_non_trees():
    with pytest.raises(ParameterError, match="tree"):
        distances.heads_from_tree_distances(np.ones((3, 3)) - np.eye(3))
    cycle = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    with pytest.raises(ParameterError):
        distances.heads_from_tree_distances(cycle)


@pytest.mark.parametrize(
    ("heads", "match"),
    [
        ([0, 0, 1], "one root"),
        ([2, 3, 1], "one root"),
        ([0, 4], "0..2"),
        ([0, 2], "own head"),
        ([0, 3, 2], "cycle"),
    ],
)
def test_invalid_heads(heads, match):
    with pytest.raises(ParameterError, match=match):
        distances.tree_distances(np.array(heads))


def test_edges_from_heads():
    heads = np.array([2, 0, 2, 3])
    np.testing.assert_array_equal(structure.edges_from_heads(heads), [[0, 1], [1, 2], [2, 3]])
    assert structure.edge_set([[1, 0], [2, 1]]) == {(0, 1), (1, 2)}
    np.testing.assert_array_equal(structure.parents_from_heads(heads), [1, -1, 1, 2])


# --------------------------------------------------------------------------------------------
# UUAS


def test_uuas_of_gold_distances_is_one():
    rng = np.random.default_rng(0)
    heads = [random_heads(rng, int(n)) for n in rng.integers(1, 30, 40)]
    gold = distances.tree_distances_all(heads)
    assert metrics.uuas(gold, heads) == 1.0
    correct, total = metrics.uuas_counts(gold, heads)
    np.testing.assert_array_equal(correct, total)
    np.testing.assert_array_equal(total, [h.size - 1 for h in heads])


def test_uuas_punctuation_masking():
    # "The cat sat ." : The <- cat <- sat -> .
    heads = np.array([2, 3, 0, 3])
    upos = np.array(["DET", "NOUN", "VERB", "PUNCT"])
    # The prediction puts the full stop next to every word, and orders the rest correctly.
    pred = np.array(
        [[0, 1, 2, 0.1], [1, 0, 1, 0.1], [2, 1, 0, 0.1], [0.1, 0.1, 0.1, 0]], dtype=float
    )
    correct, total = metrics.uuas_counts([pred], [heads])
    assert (correct[0], total[0]) == (1, 3)  # only the gold edge sat - . survives
    keep = [structure.keep_non_punct(upos)]
    correct, total = metrics.uuas_counts([pred], [heads], keep)
    assert (correct[0], total[0]) == (2, 2)
    assert metrics.uuas([pred], [heads], keep) == 1.0


def test_uuas_non_leaf_punctuation_uses_gold_mst():
    # Word 2 is punctuation with a dependent (word 3); dropping it joins 3 to the tree through
    # the MST of the gold distances over kept words, as in Hewitt & Manning's reporter.
    heads = np.array([0, 1, 1, 3])
    keep = [np.array([True, True, False, True])]
    gold = distances.tree_distances(heads)
    correct, total = metrics.uuas_counts([gold], [heads], keep)
    assert total[0] == 2 and correct[0] == 2


def test_uuas_counts_per_sentence_and_micro_average():
    heads = [np.array([2, 0, 2]), np.array([0, 1, 2, 3])]
    chain = [
        distances.tree_distances(baselines.linear_chain_heads(3)),
        distances.tree_distances(baselines.linear_chain_heads(4)),
    ]
    correct, total = metrics.uuas_counts(chain, heads)
    np.testing.assert_array_equal(correct, [2, 3])
    np.testing.assert_array_equal(total, [2, 3])
    star = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float)
    correct, total = metrics.uuas_counts([chain[0], star], heads)
    np.testing.assert_array_equal(correct, [2, 1])
    assert metrics.uuas([chain[0], star], heads) == pytest.approx(3 / 5)


def test_uuas_rejects_mismatched_inputs():
    with pytest.raises(ParameterError, match="shape"):
        metrics.uuas([np.zeros((3, 3))], [np.array([0, 1])])
    with pytest.raises(ParameterError, match="keep"):
        metrics.uuas([np.zeros((2, 2))], [np.array([0, 1])], keep=[np.array([True])])


# --------------------------------------------------------------------------------------------
# DSpr


@SETTINGS
@given(
    st.integers(2, 20),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_row_spearman_equals_scipy(n, rows, seed, ties):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, (rows, n)) if ties else rng.random((rows, n))
    b = rng.integers(0, 4, (rows, n)) if ties else rng.random((rows, n))
    ours = metrics.row_spearman(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant rows; both give NaN
        expected = [scipy.stats.spearmanr(a[i], b[i]).statistic for i in range(rows)]
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-12)


def test_dspr_of_gold_is_one():
    rng = np.random.default_rng(1)
    heads = [random_heads(rng, int(n)) for n in rng.integers(2, 40, 50)]
    gold = distances.tree_distances_all(heads)
    assert metrics.dspr(gold, gold) == pytest.approx(1.0)
    np.testing.assert_allclose(metrics.dspr_per_sentence(gold, gold), 1.0)
    assert metrics.dspr_prim_fw(gold, gold) == pytest.approx(1.0)


def test_dspr_averages_per_length_then_over_lengths():
    rng = np.random.default_rng(2)
    heads = [random_heads(rng, n) for n in (5, 5, 5, 6, 3, 60)]
    gold = distances.tree_distances_all(heads)
    pred = [g + rng.random(g.shape) * 3 for g in gold]
    pred = [(p + p.T) / 2 for p in pred]
    per = metrics.dspr_per_sentence(pred, gold)
    for p, g, r in zip(pred, gold, per, strict=True):
        assert r == pytest.approx(
            np.mean([scipy.stats.spearmanr(p[i], g[i])[0] for i in range(len(g))])
        )
    # Lengths 3 and 60 fall outside 5..50; length 5 (three sentences) and 6 weigh the same.
    expected = (per[:3].mean() + per[3]) / 2
    assert metrics.dspr(pred, gold) == pytest.approx(expected)
    assert metrics.dspr_by_length(per, [5, 5, 5, 6, 3, 60]) == pytest.approx(
        {5: per[:3].mean(), 6: per[3]}
    )
    assert np.isnan(metrics.dspr(pred[4:5], gold[4:5]))


@SETTINGS
@given(st.lists(complete_graphs(max_n=15), min_size=1, max_size=8))
def test_prim_fw_distances_equal_floyd_warshall_on_the_mst(ws):
    for w, fw in zip(ws, metrics.prim_fw_distances(ws), strict=True):
        parents = spanning.prim_mst(w)
        adjacency = np.zeros(w.shape, dtype=bool)
        child = np.flatnonzero(parents >= 0)
        adjacency[child, parents[child]] = adjacency[parents[child], child] = True
        np.testing.assert_array_equal(fw, distances.floyd_warshall(adjacency))


def test_dspr_rejects_mismatched_shapes():
    with pytest.raises(ParameterError, match="shape"):
        metrics.dspr([np.zeros((3, 3))], [np.zeros((4, 4))])


def test_prim_fw_distances_are_tree_distances_of_the_mst():
    d = np.array([[0, 1, 5, 6], [1, 0, 2, 7], [5, 2, 0, 3], [6, 7, 3, 0]], dtype=float)
    (fw,) = metrics.prim_fw_distances([d])
    np.testing.assert_array_equal(fw, distances.tree_distances(baselines.linear_chain_heads(4)))


# --------------------------------------------------------------------------------------------
# Baselines


def test_linear_chain():
    np.testing.assert_array_equal(baselines.linear_chain_heads(4), [0, 1, 2, 3])
    np.testing.assert_array_equal(
        structure.edges_from_heads(baselines.linear_chain_heads(4)), [[0, 1], [1, 2], [2, 3]]
    )
    dist = distances.tree_distances(baselines.linear_chain_heads(6))
    idx = np.arange(6)
    np.testing.assert_array_equal(dist, np.abs(idx[:, None] - idx[None, :]))
    assert baselines.linear_chain_heads(0).shape == (0,)


def test_majority_tree_toy_training_set():
    # Length 4: two star trees centred on word 1 and one chain -> the star wins on every edge.
    star = np.array([2, 0, 2, 2])
    chain = np.array([0, 1, 2, 3])
    # Length 3: three trees where word 2 heads both others.
    v = np.array([3, 3, 0])
    model = baselines.MajorityTree(min_count=2).fit(
        [star, star, chain, v, v, v, np.array([0, 1, 2, 3, 4])]
    )
    assert model.n_sentences == {4: 3, 3: 3, 5: 1}
    assert structure.edge_set(structure.edges_from_heads(model.heads(4))) == {
        (0, 1),
        (1, 2),
        (1, 3),
    }
    assert structure.edge_set(structure.edges_from_heads(model.heads(3))) == {(0, 2), (1, 2)}
    # Length 5 has one training sentence (< min_count) and length 7 none: linear chain.
    np.testing.assert_array_equal(model.heads(5), baselines.linear_chain_heads(5))
    np.testing.assert_array_equal(model.heads(7), baselines.linear_chain_heads(7))
    assert [h.size for h in model.predict([3, 4, 7])] == [3, 4, 7]
    with pytest.raises(ParameterError, match="min_count"):
        baselines.MajorityTree(min_count=0)


def test_majority_tree_counts_are_symmetric_edge_counts():
    # Edges {01, 02} and {01, 12}.
    model = baselines.MajorityTree().fit([np.array([2, 0, 1]), np.array([0, 1, 2])])
    np.testing.assert_array_equal(model.counts[3], [[0, 2, 1], [2, 0, 1], [1, 1, 0]])
