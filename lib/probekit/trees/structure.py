"""Dependency trees as arrays (Hall Maudslay et al. 2020; Hewitt & Manning 2019).

Validation, padding, and conversions between heads, parents and edges.

Conventions used throughout :mod:`probekit.trees`:

- ``heads``: 1-based head index per word, 0 for the root, shape (n,), as in CoNLL-U and
  :class:`probekit.io.treebanks.Sentence`. Exactly one word has head 0.
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

from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError

# Sentences per padded chunk; sorted by length, so padding stays small and memory bounded.
CHUNK_SIZE = 128


def check_square(matrix: np.ndarray, name: str) -> np.ndarray:
    """A float64 copy-free view of a finite square matrix, or a ParameterError."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ParameterError(name, f"expected a square (n, n) matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ParameterError(name, "contains NaN or infinite values", "pass finite distances")
    return m


def check_symmetric(m: np.ndarray, name: str) -> None:
    """Raise :class:`ParameterError` naming ``name`` unless ``m`` is symmetric in its last two axes.

    Equality up to ``rtol=1e-6, atol=1e-9`` is enough.
    """
    mt = np.swapaxes(m, -1, -2)
    # Exact equality is the common case and far cheaper than allclose.
    if not np.array_equal(m, mt) and not np.allclose(m, mt, rtol=1e-6, atol=1e-9):
        raise ParameterError(
            name,
            "is not symmetric",
            "spanning trees are undirected; symmetrise with (D + D.T) / 2 first",
        )


def check_heads(heads: np.ndarray, name: str = "heads") -> np.ndarray:
    """Validate one 1-based heads array (see :func:`check_padded_heads`); int64 (n,)."""
    h = int_vector(heads, name)
    check_padded_heads(h[None], np.array([h.size]), name)
    return h


def int_vector(heads: np.ndarray, name: str) -> np.ndarray:
    """``heads`` as an int64 (n,) array; :class:`ParameterError` unless 1-D and integer."""
    h = np.asarray(heads)
    if h.ndim != 1:
        raise ParameterError(name, f"expected a 1-D heads array, got shape {h.shape}")
    if h.size and not np.issubdtype(h.dtype, np.integer):
        raise ParameterError(name, f"expected integer heads, got dtype {h.dtype}")
    return h.astype(np.int64, copy=False)


def check_padded_heads(
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


def pad_vectors(vectors: Sequence[np.ndarray], fill: int) -> tuple[np.ndarray, np.ndarray]:
    """Stack int vectors into one int64 (B, N_max) array padded with ``fill``.

    Returns the padded array and the lengths, int64 (B,).
    """
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


def parents_from_heads(heads: np.ndarray) -> np.ndarray:
    """0-based parents (root = -1) from 1-based CoNLL-U heads (root = 0); shapes (n,)."""
    return check_heads(heads) - 1


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
    without PTB XPOS; for UD we use the UPOS tag instead (released code:
    john-hewitt/structural-probes, `reporter.py`).
    """
    return np.asarray(upos) != "PUNCT"
