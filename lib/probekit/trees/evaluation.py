"""The metrics of Hall Maudslay et al. 2020, §4.2, per sentence and over a corpus.

UUAS (the share of gold edges in the predicted tree), DSpr (Spearman correlation of predicted and
gold distances, averaged over sentence lengths 5..50) and DSpr P+FW (the same after decoding a
tree with Prim and taking its distances with Floyd-Warshall), plus the linear-chain baseline and
the gold-edge outcomes behind UUAS for McNemar's test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.trees import distances, metrics, spanning, structure

METRICS = ("uuas", "dspr", "dspr_pfw")
# Hewitt & Manning's DSpr averages over sentence lengths 5..50 (released code:
# john-hewitt/structural-probes, `reporter.py`).
DSPR_MIN_LEN, DSPR_MAX_LEN = 5, 50


@dataclass(frozen=True)
class EvalSet:
    """Gold data of one split for scoring: heads, UUAS word masks, gold distances, lengths.

    ``keep[s]`` is bool (n_s,): words that count for UUAS (all words, or non-punctuation by
    UPOS when ``exclude_punct``; Hewitt & Manning filter PTB punctuation XPOS, which does
    nothing on treebanks without PTB tags, released code: john-hewitt/structural-probes,
    `reporter.py`). DSpr always uses every word, as in Hewitt & Manning's code.
    """

    heads: list[np.ndarray]
    keep: list[np.ndarray]
    gold: list[np.ndarray]
    lengths: np.ndarray

    @classmethod
    def build(cls, sentences: Sequence, exclude_punct: bool = True) -> EvalSet:
        """The gold data of ``sentences`` (treebank sentences with ``heads`` and ``upos``)."""
        heads = [s.heads for s in sentences]
        keep = [
            structure.keep_non_punct(s.upos) if exclude_punct else np.ones(len(s), bool)
            for s in sentences
        ]
        return cls(
            heads,
            keep,
            distances.tree_distances_all(heads),
            np.array([len(h) for h in heads], dtype=np.int64),
        )

    def __len__(self) -> int:
        """The number of sentences."""
        return len(self.heads)


def score_distances(pred_dists: Sequence[np.ndarray], gold: EvalSet) -> pd.DataFrame:
    """Per-sentence scores of predicted (n_s, n_s) distance matrices against ``gold``.

    Hall Maudslay et al. 2020, §4.2. One row per sentence, columns: ``length``;
    ``uuas_correct`` and ``uuas_total`` (undirected edges of Prim's tree that are gold, and
    gold edges, over the kept words); ``uuas`` (their ratio, NaN without gold edges); ``dspr``
    (mean row Spearman ρ of the predicted distances); ``dspr_pfw`` (the same after Prim then
    tree distances, i.e. DSpr_P+FW).
    """
    if len(pred_dists) != len(gold):
        raise ParameterError("pred_dists", f"{len(pred_dists)} matrices for {len(gold)} sentences")
    correct, total = metrics.uuas_counts(pred_dists, gold.heads, gold.keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_uuas = np.where(total > 0, correct / np.maximum(total, 1), np.nan)
    return pd.DataFrame(
        {
            "length": gold.lengths,
            "uuas_correct": correct,
            "uuas_total": total,
            "uuas": per_uuas,
            "dspr": metrics.dspr_per_sentence(pred_dists, gold.gold),
            "dspr_pfw": metrics.dspr_per_sentence(metrics.prim_fw_distances(pred_dists), gold.gold),
        }
    )


def length_weights(
    lengths: np.ndarray, min_len: int = DSPR_MIN_LEN, max_len: int = DSPR_MAX_LEN
) -> np.ndarray:
    """Per-sentence weights 1 / #(sentences of that length) inside ``min_len..max_len``, else 0.

    A weighted mean of per-sentence DSpr with these weights is the unweighted mean over lengths
    of the per-length means, i.e. DSpr as Hewitt & Manning 2019 (§3.1) report it. (S,) -> (S,).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    in_range = (lengths >= min_len) & (lengths <= max_len)
    counts = np.bincount(lengths[in_range], minlength=int(lengths.max(initial=0)) + 1)
    w = np.zeros(lengths.size)
    w[in_range] = 1.0 / counts[lengths[in_range]]
    return w


def corpus_scores(per_sentence: pd.DataFrame) -> dict[str, float]:
    """Corpus-level UUAS (micro average), DSpr and DSpr_P+FW (means over lengths 5..50).

    Hall Maudslay et al. 2020, §4.2; the same values as :func:`probekit.trees.metrics.uuas`,
    :func:`~probekit.trees.metrics.dspr` and :func:`~probekit.trees.metrics.dspr_prim_fw`, from
    the rows of :func:`score_distances`.
    """
    total = per_sentence["uuas_total"].sum()
    out = {"uuas": float(per_sentence["uuas_correct"].sum() / total) if total else float("nan")}
    w = length_weights(per_sentence["length"].to_numpy())
    used = w > 0
    for metric in ("dspr", "dspr_pfw"):
        # Sentences outside 5..50 words have weight 0 and may be NaN (one-word sentences).
        values = per_sentence[metric].to_numpy()[used]
        out[metric] = float(np.sum(w[used] * values) / w[used].sum()) if used.any() else np.nan
    return out


def linear_baselines(gold: EvalSet) -> dict[str, float]:
    """Scores of the linear-chain baseline (Hall Maudslay & Cotterell 2021, §4) on ``gold``.

    The predicted distance is the linear distance |i − j|: its spanning tree is the chain of
    adjacent words, so UUAS is that of :func:`probekit.trees.baselines.linear_chain_heads`, and
    its DSpr measures how far syntactic distance follows word order. Keys as
    :func:`corpus_scores`.
    """
    preds = [
        np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(np.float64)
        for n in gold.lengths
    ]
    return corpus_scores(score_distances(preds, gold))


def edge_outcomes(pred_dists: Sequence[np.ndarray], gold: EvalSet) -> np.ndarray:
    """Bool (E,): for every gold edge of every sentence, whether the predicted tree has it.

    The per-item outcomes behind UUAS (Hall Maudslay et al. 2020, §4.2), in a fixed order
    (sentence, then gold edge (i, j) with i < j), so two predictions for the same trees can be
    compared edge by edge with McNemar's test (:func:`probekit.stats.comparison.compare`). Same word
    masks and conventions as :func:`probekit.trees.metrics.uuas_counts`: ``outcomes.sum()`` is its
    ``correct.sum()`` and ``outcomes.size`` its ``total.sum()``.
    """
    if len(pred_dists) != len(gold):
        raise ParameterError("pred_dists", f"{len(pred_dists)} matrices for {len(gold)} sentences")
    pred_sub, gold_sub = [], []
    for p, g, k in zip(pred_dists, gold.gold, gold.keep, strict=True):
        idx = np.flatnonzero(k)
        pred_sub.append(np.asarray(p, dtype=np.float64)[np.ix_(idx, idx)])
        gold_sub.append(np.asarray(g, dtype=np.float64)[np.ix_(idx, idx)])
    out: list[bool] = []
    for pp, gp in zip(
        spanning.prim_mst_all(pred_sub), spanning.prim_mst_all(gold_sub), strict=True
    ):
        predicted = structure.edge_set(structure.edges_from_parents(pp))
        out += [
            e in predicted for e in sorted(structure.edge_set(structure.edges_from_parents(gp)))
        ]
    return np.array(out, dtype=bool)
