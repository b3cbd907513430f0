"""Tree machinery for syntactic-distance probing (Hall Maudslay et al. 2020; Hewitt & Manning 2019).

Conventions used throughout:

- ``heads``: 1-based head index per word, 0 for the root, shape (n,), as in CoNLL-U and
  :class:`probekit.data.Sentence`. Exactly one word has head 0.
- ``parents``: 0-based parent per vertex, -1 for the root, shape (n,). This is what the spanning
  tree functions return (rooted at vertex 0).
- undirected edges: an int64 array of shape (n - 1, 2) whose rows are ``(i, j)`` with ``i < j``
  (0-based), sorted lexicographically.
- distance matrices: dense, symmetric, shape (n, n), zero diagonal.

Every function that takes many sentences accepts a sequence of per-sentence arrays, sorts the
sentences by length and works on padded (B, N, N) chunks, so that the Python loops run over
positions (at most N times per chunk), never over sentences.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import rankdata

from probekit.errors import ParameterError

# Sentences per padded chunk; sorted by length, so padding stays small and memory bounded.
CHUNK_SIZE = 128

__all__ = [
    "CHUNK_SIZE",
    "MajorityTree",
    "dspr",
    "dspr_by_length",
    "dspr_per_sentence",
    "dspr_prim_fw",
    "edge_set",
    "edges_from_heads",
    "edges_from_parents",
    "edges_from_tree_distances",
    "floyd_warshall",
    "gold_distance_matrix",
    "heads_from_parents",
    "heads_from_tree_distances",
    "keep_non_punct",
    "length_chunks",
    "linear_chain_heads",
    "pad_matrices",
    "parents_from_heads",
    "prim_fw_distances",
    "prim_maxst",
    "prim_mst",
    "prim_mst_all",
    "prim_mst_batch",
    "round_trip",
    "row_spearman",
    "tree_distances",
    "tree_distances_all",
    "tree_distances_batch",
    "uuas",
    "uuas_counts",
]


# --------------------------------------------------------------------------------------------
# Validation and padding


def _square(matrix: np.ndarray, name: str) -> np.ndarray:
    """A float64 copy-free view of a finite square matrix, or a ParameterError."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ParameterError(name, f"expected a square (n, n) matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ParameterError(name, "contains NaN or infinite values", "pass finite distances")
    return m


def _check_symmetric(m: np.ndarray, name: str) -> None:
    mt = np.swapaxes(m, -1, -2)
    # Exact equality is the common case and far cheaper than allclose.
    if not np.array_equal(m, mt) and not np.allclose(m, mt, rtol=1e-6, atol=1e-9):
        raise ParameterError(
            name,
            "is not symmetric",
            "spanning trees are undirected; symmetrise with (D + D.T) / 2 first",
        )


def _heads(heads: np.ndarray, name: str = "heads") -> np.ndarray:
    """Validate one 1-based heads array (see :func:`_check_padded_heads`); int64 (n,)."""
    h = _int_vector(heads, name)
    _check_padded_heads(h[None], np.array([h.size]), name)
    return h


def _int_vector(heads: np.ndarray, name: str) -> np.ndarray:
    h = np.asarray(heads)
    if h.ndim != 1:
        raise ParameterError(name, f"expected a 1-D heads array, got shape {h.shape}")
    if h.size and not np.issubdtype(h.dtype, np.integer):
        raise ParameterError(name, f"expected integer heads, got dtype {h.dtype}")
    return h.astype(np.int64, copy=False)


def _check_padded_heads(
    h: np.ndarray, lengths: np.ndarray, name: str, index: np.ndarray | None = None
) -> None:
    """Ranges, exactly one root and no self-loops, for (B, N) padded heads; cycles come later.

    ``index`` maps rows to the caller's sentence numbers, for the error message.
    """
    n_max = h.shape[1]
    pos = np.arange(n_max)
    valid = pos[None, :] < lengths[:, None]
    n_roots = np.sum(valid & (h == 0), axis=1)
    checks = (
        (valid & ((h < 0) | (h > lengths[:, None]))).any(axis=1),
        (n_roots != 1) & (lengths > 0),
        (valid & (h == pos[None, :] + 1)).any(axis=1),
    )
    for k, bad in enumerate(checks):
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            where = name if index is None else f"{name}[{index[b]}]"
            what = (
                f"head indices must lie in 0..{lengths[b]} (1-based, 0 = root)",
                f"expected exactly one root (head 0), found {n_roots[b]}",
                "a word is its own head",
            )[k]
            raise ParameterError(where, what)


def pad_matrices(
    matrices: Sequence[np.ndarray], fill: float = 0.0, dtype: type = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """Stack square matrices of shapes (n_b, n_b) into one padded (B, N, N) array.

    Returns the padded array (N = max n_b, entries beyond n_b set to ``fill``) and the lengths
    (B,) as int64.
    """
    lengths = np.array([np.shape(m)[0] for m in matrices], dtype=np.int64)
    n_max = int(lengths.max()) if lengths.size else 0
    out = np.full((len(matrices), n_max, n_max), fill, dtype=dtype)
    for b, m in enumerate(matrices):
        n = lengths[b]
        out[b, :n, :n] = m
    return out, lengths


def _pad_vectors(vectors: Sequence[np.ndarray], fill: int) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.array([len(v) for v in vectors], dtype=np.int64)
    n_max = int(lengths.max()) if lengths.size else 0
    out = np.full((len(vectors), n_max), fill, dtype=np.int64)
    for b, v in enumerate(vectors):
        out[b, : lengths[b]] = v
    return out, lengths


def length_chunks(lengths: np.ndarray, chunk_size: int = CHUNK_SIZE) -> list[np.ndarray]:
    """Split sentence indices, sorted by length, into chunks of at most ``chunk_size``.

    Sorting first keeps the padding of each chunk small. ``lengths`` has shape (S,); returns
    index arrays whose concatenation is a permutation of ``range(S)``.
    """
    order = np.argsort(np.asarray(lengths), kind="stable")
    return [order[i : i + chunk_size] for i in range(0, order.size, chunk_size)]


# --------------------------------------------------------------------------------------------
# Heads, parents and edges


def parents_from_heads(heads: np.ndarray) -> np.ndarray:
    """0-based parents (root = -1) from 1-based CoNLL-U heads (root = 0); shapes (n,)."""
    return _heads(heads) - 1


def heads_from_parents(parents: np.ndarray) -> np.ndarray:
    """1-based heads (root = 0) from 0-based parents (root = -1); shapes (n,)."""
    return np.asarray(parents, dtype=np.int64) + 1


def edges_from_parents(parents: np.ndarray) -> np.ndarray:
    """Undirected edges of a rooted tree given by 0-based parents (root = -1).

    Returns int64 (n - 1, 2) rows ``(i, j)``, ``i < j``, sorted lexicographically.
    """
    p = np.asarray(parents, dtype=np.int64)
    child = np.flatnonzero(p >= 0)
    edges = np.stack([np.minimum(child, p[child]), np.maximum(child, p[child])], axis=1)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))] if edges.size else edges.reshape(0, 2)


def edges_from_heads(heads: np.ndarray) -> np.ndarray:
    """Undirected edges (0-based, (n - 1, 2), ``i < j``, sorted) of a 1-based heads array."""
    return edges_from_parents(parents_from_heads(heads))


def edge_set(edges: np.ndarray) -> frozenset[tuple[int, int]]:
    """Undirected edges (k, 2) as a frozenset of ``(min, max)`` tuples, for set comparisons."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    return frozenset(
        zip(
            np.minimum(e[:, 0], e[:, 1]).tolist(),
            np.maximum(e[:, 0], e[:, 1]).tolist(),
            strict=True,
        )
    )


def keep_non_punct(upos: np.ndarray) -> np.ndarray:
    """The default UUAS word mask for UD: ``upos != "PUNCT"``, bool (n,).

    Hewitt & Manning's code filters PTB punctuation XPOS tags, which filters nothing on treebanks
    without PTB XPOS; for UD we use the UPOS tag instead (reference-repos.md §4.6).
    """
    return np.asarray(upos) != "PUNCT"


def linear_chain_heads(n: int) -> np.ndarray:
    """The linear-chain baseline (Hall Maudslay & Cotterell 2021, §4): word i joined to i + 1.

    Rooted at the first word; returns 1-based heads (n,), i.e. ``[0, 1, 2, ..., n - 1]``. Only
    the undirected edges matter for UUAS and DSpr. It ignores the words themselves.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    return np.arange(n, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Prim's algorithm


def prim_mst_batch(dists: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """Prim's minimum spanning tree (Prim 1957) of B dense symmetric graphs at once.

    Hall Maudslay et al. 2020, §2 (Prop. 1) and §4.1 (decoding with Prim's). Vertex 0 starts the
    tree; every step adds, in each sentence, the vertex nearest to the tree. Time O(B N^2), one
    Python iteration per vertex position.

    Ties are broken deterministically towards the lowest index: the next vertex is the
    lowest-index vertex at minimal distance from the tree, and its parent is the lowest-index
    tree vertex at that distance.

    Args:
        dists: float (B, N, N), symmetric in the top-left (n_b, n_b) block of each sentence;
            entries outside that block are ignored. Must be finite.
        lengths: int (B,), the number of vertices n_b of each graph (default: all N).

    Returns:
        int64 (B, N) parents: 0-based parent per vertex, -1 for vertex 0 and for padding.
    """
    d = np.asarray(dists, dtype=np.float64)
    if d.ndim != 3 or d.shape[1] != d.shape[2]:
        raise ParameterError("dists", f"expected shape (B, N, N), got {d.shape}")
    n_b, n_max = d.shape[0], d.shape[1]
    lengths = (
        np.full(n_b, n_max, dtype=np.int64) if lengths is None else np.asarray(lengths, np.int64)
    )
    if lengths.shape != (n_b,) or np.any(lengths < 0) or np.any(lengths > n_max):
        raise ParameterError("lengths", f"expected {n_b} lengths in 0..{n_max}")
    parents = np.full((n_b, n_max), -1, dtype=np.int64)
    if n_max == 0:
        return parents
    cols = np.arange(n_max)
    valid = cols[None, :] < lengths[:, None]
    # Padding counts as already in the tree, so it is never chosen and never re-parented.
    in_tree = ~valid
    in_tree[:, 0] = True
    key = np.where(in_tree, np.inf, d[:, 0, :])
    parents[valid] = 0
    parents[:, 0] = -1
    rows = np.arange(n_b)
    for _ in range(1, n_max):
        # A finished sentence has every key at inf: argmin gives vertex 0, already in the tree,
        # whose update below is masked out. So no per-sentence bookkeeping is needed.
        u = np.argmin(np.where(in_tree, np.inf, key), axis=1)
        in_tree[rows, u] = True
        new = d[rows, u, :]
        better = (new < key) | ((new == key) & (u[:, None] < parents))
        better &= ~in_tree
        key = np.where(better, new, key)
        parents = np.where(better, u[:, None], parents)
    return parents


def prim_mst(dist: np.ndarray) -> np.ndarray:
    """Prim's minimum spanning tree of one dense symmetric (n, n) distance matrix.

    Hall Maudslay et al. 2020, Prop. 1 and eq. 6: the predicted tree is the MST of the pairwise
    distances. This is Prim's algorithm, O(n^2) on a dense matrix (the structural-probes code
    calls its Kruskal implementation "Prim"; see reference-repos.md §4.6). Ties go to the lowest
    index (see :func:`prim_mst_batch`).

    Returns int64 (n,) parents rooted at vertex 0 (``parents[0] == -1``); use
    :func:`edges_from_parents` for the undirected edge list.
    """
    m = _square(dist, "dist")
    _check_symmetric(m, "dist")
    return prim_mst_batch(m[None])[0]


def prim_maxst(weights: np.ndarray) -> np.ndarray:
    """Prim's maximum spanning tree of a dense symmetric (n, n) weight matrix.

    Hall Maudslay & Cotterell 2021, §4 (majority tree: "negating the edges, then running Prim's
    algorithm"). Returns int64 (n,) parents rooted at vertex 0, as :func:`prim_mst`.
    """
    m = _square(weights, "weights")
    _check_symmetric(m, "weights")
    return prim_mst_batch(-m[None])[0]


def _padded_distances_chunk(
    dists: Sequence[np.ndarray], idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pad the square matrices ``dists[idx]`` and check they are finite and symmetric."""
    for i in idx:
        if np.ndim(dists[i]) != 2 or np.shape(dists[i])[0] != np.shape(dists[i])[1]:
            raise ParameterError(f"dists[{i}]", f"expected (n, n), got {np.shape(dists[i])}")
    padded, lens = pad_matrices([dists[i] for i in idx])
    if not np.all(np.isfinite(padded)):
        raise ParameterError("dists", "contain NaN or infinite values")
    _check_symmetric(padded, "dists")
    return padded, lens


def prim_mst_all(dists: Sequence[np.ndarray], chunk_size: int = CHUNK_SIZE) -> list[np.ndarray]:
    """Prim's MST of many sentences, batched in length-sorted padded chunks.

    ``dists`` holds S symmetric (n_s, n_s) matrices; returns S int64 (n_s,) parent arrays rooted
    at vertex 0. Same algorithm and tie-breaking as :func:`prim_mst`.
    """
    out: list[np.ndarray] = [np.empty(0, np.int64)] * len(dists)
    lengths = np.array([np.shape(m)[0] for m in dists], dtype=np.int64)
    for idx in length_chunks(lengths, chunk_size):
        padded, lens = _padded_distances_chunk(dists, idx)
        parents = prim_mst_batch(padded, lens)
        for b, i in enumerate(idx):
            out[i] = parents[b, : lens[b]].copy()
    return out


# --------------------------------------------------------------------------------------------
# Distances


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
    _check_padded_heads(h, lengths, "heads")
    out = _distances_padded(h, lengths).astype(np.int64)
    valid = np.arange(h.shape[1])[None, :] < lengths[:, None]
    out[~(valid[:, :, None] & valid[:, None, :])] = -1
    return out


def _distances_padded(h: np.ndarray, lengths: np.ndarray) -> np.ndarray:
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
    h = _heads(heads)
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
    checked = [_int_vector(h, f"heads[{i}]") for i, h in enumerate(heads)]
    out: list[np.ndarray] = [np.empty((0, 0), np.int64)] * len(checked)
    lengths = np.array([h.size for h in checked], dtype=np.int64)
    for idx in length_chunks(lengths, chunk_size):
        padded, lens = _pad_vectors([checked[i] for i in idx], fill=0)
        _check_padded_heads(padded, lens, "heads", index=idx)
        dist = _distances_padded(padded, lens)
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


# --------------------------------------------------------------------------------------------
# Proposition 1: distances <-> trees


def edges_from_tree_distances(dist: np.ndarray) -> np.ndarray:
    """Hall Maudslay et al. 2020, Prop. 1: the edges are exactly the pairs at distance 1.

    ``dist``: (n, n) tree distance matrix. Returns int64 (k, 2) edges ``(i, j)``, ``i < j``,
    sorted; k = n - 1 when ``dist`` is a tree's distance matrix.
    """
    d = _square(dist, "dist")
    i, j = np.nonzero(np.triu(d == 1, k=1))
    return np.stack([i, j], axis=1).astype(np.int64)


def heads_from_tree_distances(dist: np.ndarray, root: int = 0) -> np.ndarray:
    """Recover the tree of a tree distance matrix (Hall Maudslay et al. 2020, Prop. 1).

    Edges are the pairs at distance 1; a breadth-first search from ``root`` orients them. An
    undirected tree has no root of its own, so the result is rooted at ``root``.
    ``dist``: (n, n). Returns 1-based heads (n,) with ``heads[root] == 0``. Raises
    ParameterError when the pairs at distance 1 do not form a spanning tree.
    """
    d = _square(dist, "dist")
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


# --------------------------------------------------------------------------------------------
# UUAS


def _edge_codes(parents: Sequence[np.ndarray], offsets: np.ndarray, sizes: np.ndarray):
    """Global integer codes of undirected edges, and the sentence index of each code."""
    child = [np.flatnonzero(p >= 0) for p in parents]
    sent = np.repeat(np.arange(len(parents)), [c.size for c in child])
    if sent.size == 0:
        return np.empty(0, np.int64), sent
    c = np.concatenate(child)
    p = np.concatenate([pp[cc] for pp, cc in zip(parents, child, strict=True)])
    codes = offsets[sent] + np.minimum(c, p) * sizes[sent] + np.maximum(c, p)
    return codes, sent


def uuas_counts(
    pred_dists: Sequence[np.ndarray],
    gold_heads: Sequence[np.ndarray],
    keep: Sequence[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-sentence (correct, total) undirected edge counts behind UUAS.

    Hall Maudslay et al. 2020, §4.2 (UUAS); conventions of Hewitt & Manning's reporter
    (reference-repos.md §4.6): for each sentence, restrict the predicted (n, n) distance matrix
    and the gold tree distance matrix to the kept words; the predicted edges are the MST of the
    restricted prediction (Prim, :func:`prim_mst`) and the gold edges the MST of the restricted
    gold distances, which equal the HEAD edges whenever every dropped word is a leaf.
    ``correct`` counts predicted edges that are gold edges; ``total`` = kept words - 1 (0 when
    fewer than two words are kept). When a dropped word is not a leaf its neighbours tie in the
    gold matrix; Prim resolves the tie towards the lowest index, the reference code's Kruskal
    towards the first pair in row-major order, so such sentences may score differently.

    Args:
        pred_dists: S float (n_s, n_s) symmetric predicted distances.
        gold_heads: S int (n_s,) 1-based heads.
        keep: None (keep all words) or S bool (n_s,) masks, e.g. :func:`keep_non_punct`.

    Returns:
        ``(correct, total)``, two int64 arrays of shape (S,).
    """
    if len(pred_dists) != len(gold_heads):
        raise ParameterError("pred_dists", "must have one matrix per gold_heads entry")
    if keep is not None and len(keep) != len(gold_heads):
        raise ParameterError("keep", "must have one mask per sentence")
    gold_d = tree_distances_all(gold_heads)
    pred_sub, gold_sub = [], []
    for s, (p, g) in enumerate(zip(pred_dists, gold_d, strict=True)):
        p = np.asarray(p, dtype=np.float64)
        if p.shape != g.shape:
            raise ParameterError(
                f"pred_dists[{s}]", f"has shape {p.shape}, the gold tree has {g.shape}"
            )
        k = np.ones(g.shape[0], bool) if keep is None else np.asarray(keep[s], dtype=bool)
        if k.shape != (g.shape[0],):
            raise ParameterError(f"keep[{s}]", f"expected shape ({g.shape[0]},), got {k.shape}")
        pred_sub.append(p[np.ix_(k, k)])
        gold_sub.append(g[np.ix_(k, k)].astype(np.float64))
    sizes = np.array([m.shape[0] for m in gold_sub], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes**2)[:-1]]).astype(np.int64)
    pred_codes, pred_sent = _edge_codes(prim_mst_all(pred_sub), offsets, sizes)
    gold_codes, _ = _edge_codes(prim_mst_all(gold_sub), offsets, sizes)
    hits = np.isin(pred_codes, gold_codes)
    correct = np.bincount(pred_sent[hits], minlength=len(sizes)).astype(np.int64)
    total = np.maximum(sizes - 1, 0)
    return correct, total


def uuas(
    pred_dists: Sequence[np.ndarray],
    gold_heads: Sequence[np.ndarray],
    keep: Sequence[np.ndarray] | None = None,
) -> float:
    """Corpus-level UUAS: Σ correct undirected edges / Σ gold edges (micro average).

    Hall Maudslay et al. 2020, §4.2; see :func:`uuas_counts` for the conventions, the shapes and
    the per-sentence counts (for bootstrapping). NaN when no sentence has a gold edge.
    """
    correct, total = uuas_counts(pred_dists, gold_heads, keep)
    return float(correct.sum() / total.sum()) if total.sum() else float("nan")


# --------------------------------------------------------------------------------------------
# DSpr


def row_spearman(pred: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Spearman's ρ between matching rows, vectorised; shapes (..., m) -> (...,).

    Equals ``scipy.stats.spearmanr(pred[i], gold[i])`` row by row: ranks with ties averaged
    (``rankdata(axis=-1)``), then Pearson's r of the ranks. A constant row gives NaN, as in
    scipy.
    """
    rp = rankdata(np.asarray(pred, dtype=np.float64), axis=-1)
    rg = rankdata(np.asarray(gold, dtype=np.float64), axis=-1)
    rp -= rp.mean(axis=-1, keepdims=True)
    rg -= rg.mean(axis=-1, keepdims=True)
    num = np.sum(rp * rg, axis=-1)
    den = np.sqrt(np.sum(rp * rp, axis=-1) * np.sum(rg * rg, axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = num / den
    return np.clip(rho, -1.0, 1.0)


def dspr_per_sentence(
    pred_dists: Sequence[np.ndarray], gold_dists: Sequence[np.ndarray]
) -> np.ndarray:
    """Per-sentence mean over words of the row Spearman ρ (Hewitt & Manning 2019, §3.1).

    For each sentence and word i, ρ between the predicted row d̂(i, ·) and the gold row d(i, ·)
    over all n words (including i itself and punctuation); the mean over the n rows. Sentences
    of the same length are ranked together in one (S_n, n, n) array. Inputs: S (n_s, n_s)
    matrices each. Returns float64 (S,); NaN for sentences with a constant predicted row and
    for one-word sentences.
    """
    if len(pred_dists) != len(gold_dists):
        raise ParameterError("pred_dists", "must have one matrix per gold_dists entry")
    for s, (p, g) in enumerate(zip(pred_dists, gold_dists, strict=True)):
        n = np.shape(g)[0]
        if np.shape(p) != (n, n) or np.shape(g) != (n, n):
            raise ParameterError(
                f"pred_dists[{s}]", f"shape {np.shape(p)} does not match gold {np.shape(g)}"
            )
    lengths = np.array([np.shape(g)[0] for g in gold_dists], dtype=np.int64)
    out = np.full(len(gold_dists), np.nan)
    for n in np.unique(lengths):
        idx = np.flatnonzero(lengths == n)
        p = np.stack([np.asarray(pred_dists[i], dtype=np.float64) for i in idx])
        g = np.stack([np.asarray(gold_dists[i], dtype=np.float64) for i in idx])
        if n >= 2:
            out[idx] = row_spearman(p, g).mean(axis=1)
    return out


def dspr_by_length(
    per_sentence: np.ndarray, lengths: np.ndarray, min_len: int = 5, max_len: int = 50
) -> dict[int, float]:
    """Mean per-sentence DSpr for each sentence length in ``min_len..max_len`` that occurs.

    Hewitt & Manning 2019, §3.1 ("averaged across sentences of each length"). Because every
    sentence of length n has n rows, the mean of row ρs over all sentences of length n equals
    the mean of their per-sentence means. Inputs have shape (S,).
    """
    per_sentence = np.asarray(per_sentence, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.int64)
    return {
        int(n): float(per_sentence[lengths == n].mean())
        for n in np.unique(lengths)
        if min_len <= n <= max_len
    }


def dspr(
    pred_dists: Sequence[np.ndarray],
    gold_dists: Sequence[np.ndarray],
    min_len: int = 5,
    max_len: int = 50,
) -> float:
    """Distance Spearman, DSpr (Hewitt & Manning 2019, §3.1; Hall Maudslay et al. 2020, §4.2).

    Row Spearman per word, averaged per sentence length, then the unweighted mean over the
    lengths ``min_len..max_len`` that occur (the reference code's ``spearmanr-5_50-mean``).
    Inputs: S (n_s, n_s) predicted and gold distance matrices. NaN when no sentence length
    falls in the range.
    """
    per_sentence = dspr_per_sentence(pred_dists, gold_dists)
    lengths = np.array([np.shape(g)[0] for g in gold_dists], dtype=np.int64)
    by_len = dspr_by_length(per_sentence, lengths, min_len, max_len)
    return float(np.mean(list(by_len.values()))) if by_len else float("nan")


def prim_fw_distances(pred_dists: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Predicted distances after Prim's then Floyd–Warshall (Hall Maudslay et al. 2020, §4.2).

    The MST of each predicted (n, n) matrix, then the path distances in that tree, int64 (n, n).
    On a tree, Floyd–Warshall's result equals the O(n^2) :func:`tree_distances`, used here.
    """
    out: list[np.ndarray] = [np.empty((0, 0), np.int64)] * len(pred_dists)
    lengths = np.array([np.shape(m)[0] for m in pred_dists], dtype=np.int64)
    # One padded pass per chunk: the MST's heads are valid trees by construction, so they go
    # straight into the distance computation without re-padding or re-validation.
    for idx in length_chunks(lengths):
        padded, lens = _padded_distances_chunk(pred_dists, idx)
        heads = heads_from_parents(prim_mst_batch(padded, lens))
        dist = _distances_padded(heads, lens)
        for b, i in enumerate(idx):
            out[i] = dist[b, : lens[b], : lens[b]].astype(np.int64)
    return out


def dspr_prim_fw(
    pred_dists: Sequence[np.ndarray],
    gold_dists: Sequence[np.ndarray],
    min_len: int = 5,
    max_len: int = 50,
) -> float:
    """DSpr_P+FW (Hall Maudslay et al. 2020, §4.2, Fig. 3): :func:`dspr` of
    :func:`prim_fw_distances` against the gold distances. Inputs as :func:`dspr`."""
    return dspr(prim_fw_distances(pred_dists), gold_dists, min_len, max_len)


# --------------------------------------------------------------------------------------------
# Majority-tree baseline


@dataclass
class MajorityTree:
    """The majority-tree baseline (Hall Maudslay & Cotterell 2021, §4, "Additional Simple
    Baselines").

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
        if self.min_count < 1:
            raise ParameterError("min_count", f"must be >= 1, got {self.min_count}")

    def fit(self, train_heads: Sequence[np.ndarray]) -> MajorityTree:
        """Count undirected edges per (length, i, j) over 1-based training heads arrays."""
        self.counts, self.n_sentences, self._cache = {}, {}, {}
        for s, heads in enumerate(train_heads):
            edges = edges_from_heads(_heads(heads, f"train_heads[{s}]"))
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
