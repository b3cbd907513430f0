"""Chapter 21's figures (Hall Maudslay & Cotterell 2021, §3).

Coverage per feature set and per UPOS, word lengths before and after substitution, and one tree
drawn over both word rows (cf. the paper's Fig. 2).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Arc

from probekit.errors import ParameterError
from probekit.experiments import plots
from probekit.experiments.part2_jabberwocky.corpus import substituted
from probekit.experiments.part2_jabberwocky.corpus_tables import replaced_word_lengths
from probekit.io.treebanks import Sentence


def coverage_figure(coverage: pd.DataFrame, by_upos: pd.DataFrame):
    """Coverage in two panels: per feature set (left) and per UPOS (right).

    Left: words replaced per feature set, each bar annotated with the words of that set left
    alone (inside a multiword token or not word-shaped). Right: the share of words replaced per
    UPOS. Inputs: :func:`~probekit.experiments.part2_jabberwocky.corpus_tables.coverage_table`,
    :func:`~probekit.experiments.part2_jabberwocky.corpus_tables.upos_coverage`.
    """
    plots.use_style()
    colour = plots.colors(1)[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.4), width_ratios=[1.3, 1])
    y = np.arange(len(coverage))[::-1]
    replaced = coverage["replaced"].to_numpy(dtype=float)
    left.barh(y, np.maximum(replaced, 0.8), color=colour, height=0.7)
    left.set_xscale("log")
    skipped = coverage["in multiword token"] + coverage["not word-shaped"]
    for yy, r, k in zip(y, replaced, skipped.to_numpy(), strict=True):
        note = f"{int(r):,}" + (f" (+{int(k)} kept)" if k else "")
        left.text(max(r, 0.8) * 1.15, yy, note, va="center", fontsize=6.5)
    left.set_yticks(y, coverage.index.tolist(), fontsize=7)
    left.set_xlim(0.8, max(replaced.max(), 1.0) * 12)
    left.set(xlabel="words replaced (log scale)", title="Per feature set")
    shown = by_upos[by_upos["words"] > 0]
    yy = np.arange(len(shown))[::-1]
    right.barh(yy, shown["replaced (%)"], color=colour, height=0.7)
    right.set_yticks(yy, shown.index.tolist(), fontsize=7)
    right.set(xlabel="words replaced (%)", title="Per UPOS", xlim=(0, 100))
    return fig


def length_figure(stems: pd.DataFrame, pairs: Sequence[tuple[Sentence, Sentence]]):
    """Two histograms of lengths in letters: pseudoword stems and replaced words.

    Left: letters per pseudoword stem (one count per stem); right: letters per replaced word
    before and after substitution (one count per word).
    """
    plots.use_style()
    before, after = replaced_word_lengths(pairs)
    c = plots.colors(2)
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 2.7))
    top = max([*stems["length"].tolist(), *before, *after, 2]) + 1
    stem_top = max([*stems["length"].tolist(), 2]) + 1
    left.hist(stems["length"], bins=np.arange(0.5, stem_top + 0.5), color=c[0], edgecolor="white")
    left.set(xlabel="stem length (letters)", ylabel="pseudoword stems", title="Pseudowords")
    left.set_xlim(0.5, stem_top + 0.5)
    bins = np.arange(0.5, min(top, 20) + 0.5)
    right.hist(before, bins=bins, color=c[1], alpha=0.6, label="original word")
    right.hist(after, bins=bins, color=c[0], alpha=0.6, label="pseudoword")
    right.set(xlabel="word length (letters)", ylabel="replaced words", title="Replaced words")
    right.legend(fontsize=7)
    return fig


def pick_parse_example(
    pairs: Sequence[tuple[Sentence, Sentence]],
    sent_id: str = "",
    min_len: int = 7,
    max_len: int = 11,
) -> tuple[Sentence, Sentence]:
    """The pair with ``sent_id``, else a short one with several substitutions.

    Without ``sent_id``: the first of ``min_len..max_len`` words with at least three
    substitutions and no multiword token (else the first with any substitution).
    """
    if not pairs:
        raise ParameterError("pairs", "no sentences to pick from")
    if sent_id:
        for o, j in pairs:
            if o.sent_id == sent_id:
                return o, j
        raise ParameterError("example_id", f"no test sentence has sent_id {sent_id!r}")
    for o, j in pairs:
        if min_len <= len(o) <= max_len and substituted(o, j).sum() >= 3 and not o.multiword:
            return o, j
    for o, j in pairs:
        if substituted(o, j).any():
            return o, j
    return pairs[0]


def parse_figure(original: Sentence, jabberwocky: Sentence):
    """The unlabelled, undirected tree as arcs above two aligned word rows (cf. §3, Fig. 2).

    Top row: the Jabberwocky words (replaced ones in bold and colour); bottom row: the original
    words in grey. Arcs are drawn undirected and unlabelled, the structure the probes see.
    """
    plots.use_style()
    n = len(original)
    mask = substituted(original, jabberwocky)
    colour = plots.colors(1)[0]
    fig, ax = plt.subplots(figsize=(plots.WIDTH, 2.6))
    top = 0.6
    for dep, head in enumerate(original.heads.tolist()):
        if head == 0:
            continue
        span = abs(head - 1 - dep)
        height = 0.35 + 0.3 * (span - 1) ** 0.85
        top = max(top, height)
        ax.add_patch(
            Arc(((head - 1 + dep) / 2, 0.1), span, 2 * height, theta1=0, theta2=180, color="0.35")
        )
    for k in range(n):
        ax.text(
            k,
            -0.1,
            str(jabberwocky.forms[k]),
            ha="center",
            va="top",
            fontsize=8,
            color=colour if mask[k] else "black",
            fontweight="bold" if mask[k] else "normal",
        )
        ax.text(k, -0.55, str(original.forms[k]), ha="center", va="top", fontsize=7, color="0.45")
    ax.text(-0.7, -0.1, "Jabberwocky", ha="right", va="top", fontsize=7, style="italic")
    ax.text(-0.7, -0.55, "original", ha="right", va="top", fontsize=7, style="italic")
    ax.set_xlim(-2.2, n - 0.3)
    ax.set_ylim(-1.0, top + 0.3)
    ax.axis("off")
    return fig
