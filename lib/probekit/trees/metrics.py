"""Tree metrics (Hall Maudslay et al. 2020, §4.2; Hewitt & Manning 2019).

UUAS, the share of gold edges in the predicted tree; DSpr, the Spearman correlation of predicted
and tree distances averaged by sentence length; and DSpr P+FW after Prim and Floyd-Warshall.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import rankdata

from probekit.errors import ParameterError
from probekit.trees.distances import distances_padded, tree_distances_all
from probekit.trees.spanning import padded_distances_chunk, prim_mst_all, prim_mst_batch
from probekit.trees.structure import heads_from_parents, length_chunks


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
    (released code: john-hewitt/structural-probes, `reporter.py`): for each sentence, restrict
    the predicted (n, n) distance matrix and the gold tree distance matrix to the kept words; the
    predicted edges are the MST of the restricted prediction (Prim, :func:`prim_mst`) and the gold
    edges the MST of the restricted gold distances, which equal the HEAD edges whenever every
    dropped word is a leaf.
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
        padded, lens = padded_distances_chunk(pred_dists, idx)
        heads = heads_from_parents(prim_mst_batch(padded, lens))
        dist = distances_padded(heads, lens)
        for b, i in enumerate(idx):
            out[i] = dist[b, : lens[b], : lens[b]].astype(np.int64)
    return out


def dspr_prim_fw(
    pred_dists: Sequence[np.ndarray],
    gold_dists: Sequence[np.ndarray],
    min_len: int = 5,
    max_len: int = 50,
) -> float:
    """DSpr_P+FW (Hall Maudslay et al. 2020, §4.2, Fig. 3).

    :func:`dspr` of :func:`prim_fw_distances` against the gold distances. Inputs as :func:`dspr`.
    """
    return dspr(prim_fw_distances(pred_dists), gold_dists, min_len, max_len)
