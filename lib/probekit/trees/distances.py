"""Tree distances (Hall Maudslay et al. 2020, §2).

Path lengths in a tree by breadth-first search from the gold heads, Floyd-Warshall on a weighted
graph, and the way back from a tree distance matrix to the tree (Proposition 1).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.trees.spanning import prim_mst
from probekit.trees.structure import (
    CHUNK_SIZE,
    check_heads,
    check_padded_heads,
    check_square,
    edges_from_heads,
    edges_from_parents,
    int_vector,
    length_chunks,
    pad_vectors,
)


def _depths(par: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Depth of every vertex by pointer jumping; ``par`` is (B, N) with roots pointing to self."""
    n_b, n_max = par.shape
    rows = np.arange(n_b)[:, None]
    cur = np.broadcast_to(np.arange(n_max), (n_b, n_max)).copy()
    depth = np.zeros((n_b, n_max), dtype=np.int64)
    for _ in range(n_max):
        nxt = par[rows, cur]
        moved = nxt != cur
        if not moved.any():
            return depth
        depth += moved
        cur = nxt
    if np.any((par[rows, cur] != cur) & valid):
        raise ParameterError("heads", "the head pointers contain a cycle (not a tree)")
    return depth


def tree_distances_batch(heads: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """All-pairs tree path distances of B padded trees, int64 (B, N, N); padding is -1.

    Hall Maudslay et al. 2020, §2: the syntactic distance Δ_t(w_i, w_j) is the number of edges on
    the path between i and j. One breadth-first order from the root is enough: in that order a
    vertex v comes after its parent p and after every vertex that is not its descendant, and
    for any such earlier u, Δ(v, u) = Δ(p, u) + 1. Filling one row per vertex in that order
    gives all distances in O(N^2) per tree (the same bound as a BFS from every vertex), with one
    Python iteration per position for the whole batch.

    Args:
        heads: int (B, N), 1-based heads (0 = root) in the first n_b entries; padding ignored.
        lengths: int (B,), the number of words n_b of each tree.
    """
    h = np.asarray(heads, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    check_padded_heads(h, lengths, "heads")
    out = distances_padded(h, lengths).astype(np.int64)
    valid = np.arange(h.shape[1])[None, :] < lengths[:, None]
    out[~(valid[:, :, None] & valid[:, None, :])] = -1
    return out


def distances_padded(h: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The work of :func:`tree_distances_batch` on validated heads; padding is garbage."""
    n_b, n_max = h.shape
    cols = np.arange(n_max)
    valid = cols[None, :] < lengths[:, None]
    par = np.where(valid & (h > 0), h - 1, cols[None, :])
    depth = _depths(par, valid)
    # Breadth-first order: by depth, padding last. Parents precede children.
    order = np.argsort(np.where(valid, depth, n_max + 1), axis=1, kind="stable")
    rows = np.arange(n_b)
    inv = np.empty_like(order)
    inv[rows[:, None], order] = cols[None, :]
    ppos = inv[rows[:, None], par[rows[:, None], order]]
    # Distances never exceed n - 1: the smallest integer type keeps the gathers cheap.
    dtype = np.int8 if n_max < 128 else np.int16 if n_max < 2**15 else np.int32
    dp = np.zeros((n_b, n_max, n_max), dtype=dtype)
    for k in range(1, n_max):
        row = dp[rows, ppos[:, k], :k] + 1
        dp[:, k, :k] = row
        dp[:, :k, k] = row
    return dp[rows[:, None, None], inv[:, :, None], inv[:, None, :]]


def tree_distances(heads: np.ndarray) -> np.ndarray:
    """Tree path distances Δ_t(w_i, w_j) of one tree, int64 (n, n).

    Hall Maudslay et al. 2020, §2; Hewitt & Manning 2019, §2. ``heads`` is 1-based (0 = root),
    shape (n,). O(n^2); see :func:`tree_distances_batch` for the method.
    """
    h = check_heads(heads)
    return tree_distances_batch(h[None], np.array([h.size]))[0]


def gold_distance_matrix(heads: np.ndarray) -> np.ndarray:
    """The gold syntactic distance matrix of a sentence, int64 (n, n).

    Hall Maudslay et al. 2020, §2 and eq. 2 (Δ_t); a thin name for :func:`tree_distances`.
    """
    return tree_distances(heads)


def tree_distances_all(
    heads: Sequence[np.ndarray], chunk_size: int = CHUNK_SIZE
) -> list[np.ndarray]:
    """:func:`tree_distances` for many sentences, batched in length-sorted padded chunks.

    ``heads`` holds S 1-based (n_s,) arrays; returns S int64 (n_s, n_s) matrices.
    """
    checked = [int_vector(h, f"heads[{i}]") for i, h in enumerate(heads)]
    out: list[np.ndarray] = [np.empty((0, 0), np.int64)] * len(checked)
    lengths = np.array([h.size for h in checked], dtype=np.int64)
    for idx in length_chunks(lengths, chunk_size):
        padded, lens = pad_vectors([checked[i] for i in idx], fill=0)
        check_padded_heads(padded, lens, "heads", index=idx)
        dist = distances_padded(padded, lens)
        for b, i in enumerate(idx):
            out[i] = dist[b, : lens[b], : lens[b]].astype(np.int64)
    return out


def floyd_warshall(adj_or_dist: np.ndarray) -> np.ndarray:
    """All-pairs shortest paths by Floyd–Warshall (Floyd 1962), vectorised, O(n^3).

    Hall Maudslay et al. 2020, Prop. 1 and §4.2 (gold distances and DSpr_P+FW "computed with
    Floyd–Warshall"). Input: shape (..., n, n), either
    - bool: an adjacency matrix, every True entry an edge of length 1; or
    - numeric: edge lengths, ``np.inf`` for "no edge"; lengths must be >= 0.
    The diagonal is taken as 0. Returns float64 (..., n, n), ``inf`` where no path exists.
    For trees, :func:`tree_distances` gives the same result in O(n^2).
    """
    a = np.asarray(adj_or_dist)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ParameterError("adj_or_dist", f"expected shape (..., n, n), got {a.shape}")
    if a.dtype == bool:
        d = np.where(a, 1.0, np.inf)
    else:
        d = a.astype(np.float64, copy=True)
        if np.any(np.isnan(d)) or np.any(d < 0):
            raise ParameterError(
                "adj_or_dist", "edge lengths must be >= 0 (use np.inf for a missing edge)"
            )
    n = d.shape[-1]
    idx = np.arange(n)
    d[..., idx, idx] = 0.0
    for k in range(n):
        d = np.minimum(d, d[..., :, k : k + 1] + d[..., k : k + 1, :])
    return d


def edges_from_tree_distances(dist: np.ndarray) -> np.ndarray:
    """Hall Maudslay et al. 2020, Prop. 1: the edges are exactly the pairs at distance 1.

    ``dist``: (n, n) tree distance matrix. Returns int64 (k, 2) edges ``(i, j)``, ``i < j``,
    sorted; k = n - 1 when ``dist`` is a tree's distance matrix.
    """
    d = check_square(dist, "dist")
    i, j = np.nonzero(np.triu(d == 1, k=1))
    return np.stack([i, j], axis=1).astype(np.int64)


def heads_from_tree_distances(dist: np.ndarray, root: int = 0) -> np.ndarray:
    """Recover the tree of a tree distance matrix (Hall Maudslay et al. 2020, Prop. 1).

    Edges are the pairs at distance 1; a breadth-first search from ``root`` orients them. An
    undirected tree has no root of its own, so the result is rooted at ``root``.
    ``dist``: (n, n). Returns 1-based heads (n,) with ``heads[root] == 0``. Raises
    ParameterError when the pairs at distance 1 do not form a spanning tree.
    """
    d = check_square(dist, "dist")
    n = d.shape[0]
    if n == 0:
        return np.empty(0, np.int64)
    if not 0 <= root < n:
        raise ParameterError("root", f"must lie in 0..{n - 1}, got {root}")
    adj = d == 1
    if int(np.triu(adj, k=1).sum()) != n - 1 or not np.array_equal(adj, adj.T):
        raise ParameterError("dist", "the pairs at distance 1 do not form a tree")
    heads = np.full(n, -1, dtype=np.int64)
    heads[root] = 0
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in np.flatnonzero(adj[u]):
            if heads[v] < 0:
                heads[v] = u + 1
                queue.append(v)
    if np.any(heads < 0):
        raise ParameterError("dist", "the pairs at distance 1 do not connect all words")
    return heads


def round_trip(heads: np.ndarray) -> bool:
    """Check Prop. 1 of Hall Maudslay et al. 2020 on one tree (heads (n,), 1-based).

    True iff (a) the pairs at distance 1 of the tree's distance matrix are its edges, (b) Prim's
    MST of the distance matrix has the same edges, and (c) the distances of the recovered tree
    equal the original distances.
    """
    edges = edges_from_heads(heads)
    dist = tree_distances(heads)
    recovered = heads_from_tree_distances(dist)
    return (
        np.array_equal(edges_from_tree_distances(dist), edges)
        and np.array_equal(edges_from_parents(prim_mst(dist)), edges)
        and np.array_equal(tree_distances(recovered), dist)
    )
