"""Minimum spanning trees by Prim's algorithm.

Hall Maudslay et al. 2020, §3.2; Hewitt & Manning 2019: on one dense distance matrix, or on a
padded batch of them at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.trees.structure import (
    CHUNK_SIZE,
    check_square,
    check_symmetric,
    length_chunks,
    pad_matrices,
)


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


def tree_edge_mask(parents: np.ndarray) -> np.ndarray:
    """The undirected edges of padded parent arrays as upper-triangular bool (..., N, N).

    ``parents``: int (..., N), 0-based parent per vertex and -1 for the root and padding (as
    :func:`prim_mst_batch` returns them). Entry (i, j), i < j, is True iff i and j are joined.
    """
    parents = np.asarray(parents, dtype=np.int64)
    flat = parents.reshape(-1, parents.shape[-1])
    b, child = np.nonzero(flat >= 0)
    par = flat[b, child]
    out = np.zeros((*flat.shape, flat.shape[-1]), dtype=bool)
    out[b, np.minimum(child, par), np.maximum(child, par)] = True
    return out.reshape(*parents.shape, parents.shape[-1])


def prim_mst(dist: np.ndarray) -> np.ndarray:
    """Prim's minimum spanning tree of one dense symmetric (n, n) distance matrix.

    Hall Maudslay et al. 2020, Prop. 1 and eq. 6: the predicted tree is the MST of the pairwise
    distances. This is Prim's algorithm, O(n^2) on a dense matrix (the structural-probes code
    calls its Kruskal implementation "Prim"; see john-hewitt/structural-probes, `reporter.py`).
    Ties go to the lowest index (see :func:`prim_mst_batch`).

    Returns int64 (n,) parents rooted at vertex 0 (``parents[0] == -1``); use
    :func:`edges_from_parents` for the undirected edge list.
    """
    m = check_square(dist, "dist")
    check_symmetric(m, "dist")
    return prim_mst_batch(m[None])[0]


def prim_maxst(weights: np.ndarray) -> np.ndarray:
    """Prim's maximum spanning tree of a dense symmetric (n, n) weight matrix.

    Hall Maudslay & Cotterell 2021, §4 (majority tree: "negating the edges, then running Prim's
    algorithm"). Returns int64 (n,) parents rooted at vertex 0, as :func:`prim_mst`.
    """
    m = check_square(weights, "weights")
    check_symmetric(m, "weights")
    return prim_mst_batch(-m[None])[0]


def padded_distances_chunk(
    dists: Sequence[np.ndarray], idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pad the square matrices ``dists[idx]`` and check they are finite and symmetric."""
    for i in idx:
        if np.ndim(dists[i]) != 2 or np.shape(dists[i])[0] != np.shape(dists[i])[1]:
            raise ParameterError(f"dists[{i}]", f"expected (n, n), got {np.shape(dists[i])}")
    padded, lens = pad_matrices([dists[i] for i in idx])
    if not np.all(np.isfinite(padded)):
        raise ParameterError("dists", "contain NaN or infinite values")
    check_symmetric(padded, "dists")
    return padded, lens


def prim_mst_all(dists: Sequence[np.ndarray], chunk_size: int = CHUNK_SIZE) -> list[np.ndarray]:
    """Prim's MST of many sentences, batched in length-sorted padded chunks.

    ``dists`` holds S symmetric (n_s, n_s) matrices; returns S int64 (n_s,) parent arrays rooted
    at vertex 0. Same algorithm and tie-breaking as :func:`prim_mst`.
    """
    out: list[np.ndarray] = [np.empty(0, np.int64)] * len(dists)
    lengths = np.array([np.shape(m)[0] for m in dists], dtype=np.int64)
    for idx in length_chunks(lengths, chunk_size):
        padded, lens = padded_distances_chunk(dists, idx)
        parents = prim_mst_batch(padded, lens)
        for b, i in enumerate(idx):
            out[i] = parents[b, : lens[b]].copy()
    return out
