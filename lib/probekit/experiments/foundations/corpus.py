"""What the treebank looks like (chapter 01).

Sentence and arc lengths, and the label distributions of the two tasks that recur in the book
(UPOS tags and relations), with their figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from probekit.experiments import plots
from probekit.io.treebanks import Sentence, arc_lengths, flat, sentence_lengths


@dataclass(frozen=True)
class Lengths:
    """Sentence lengths (S,) and arc lengths |dependent - head| (n_arcs,) of a split."""

    sentences: np.ndarray
    arcs: np.ndarray

    @property
    def adjacent_share(self) -> float:
        """The share of arcs that join adjacent words, in [0, 1]."""
        return float((self.arcs == 1).mean())


def lengths(sentences: Sequence[Sentence]) -> Lengths:
    """The sentence and arc lengths of ``sentences``."""
    return Lengths(sentence_lengths(sentences), arc_lengths(sentences))


def lengths_figure(lengths: Lengths):
    """Histograms of sentence length (left) and arc length on a log scale (right)."""
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 2.8))
    plots.histogram(
        lengths.sentences,
        "sentence length (words)",
        "sentences",
        bins=np.arange(0, 80, 2),
        ax=axes[0],
        title="Sentence length",
    )
    plots.histogram(
        lengths.arcs,
        "arc length (|dependent − head|, words)",
        "arcs",
        bins=np.arange(0.5, 40.5, 1),
        ax=axes[1],
        title="Arc length",
        log=True,
    )
    return fig


@dataclass(frozen=True)
class Labels:
    """Counts of UPOS tags and of relations without subtype, most frequent first.

    A relation counts without its subtype: ``nsubj:pass`` counts as ``nsubj``.
    """

    upos: pd.Series
    relations: pd.Series


def labels(sentences: Sequence[Sentence]) -> Labels:
    """The label counts of ``sentences``."""
    upos = pd.Series(flat(sentences, "upos")).value_counts()
    rels = pd.Series([r.split(":")[0] for r in flat(sentences, "deprel")]).value_counts()
    return Labels(upos, rels)


def labels_figure(labels: Labels, top_relations: int = 20):
    """Bars of the UPOS shares and of the most frequent relations.

    Left: the UPOS shares; right: the ``top_relations`` most frequent relations.
    """
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 5.2))
    plots.bar_counts(labels.upos, "UPOS tag", ax=axes[0], title="Parts of speech")
    plots.bar_counts(
        labels.relations.head(top_relations),
        f"relation ({top_relations} most frequent)",
        "share of arcs (%)",
        ax=axes[1],
        title="Relations",
    )
    return fig
