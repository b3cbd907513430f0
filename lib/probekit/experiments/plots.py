"""One figure style for the whole book, and the figure helpers chapters share.

``use_style()`` sets a seaborn theme with a colour-blind-safe palette, sizes readable at book
width (about 7 inches wide at 150 dpi) and PNG output, since Jupyter Book can glue PNG (not SVG)
across pages. Every helper returns a matplotlib Figure and labels its axes with units.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

PALETTE = "colorblind"
WIDTH = 7.0  # inches, the book's text width
DPI = 150


def use_style() -> None:
    """Apply the book's figure style (idempotent)."""
    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE, font_scale=0.95)
    plt.rcParams.update(
        {
            "figure.dpi": DPI,
            "savefig.dpi": DPI,
            "figure.figsize": (WIDTH, WIDTH * 0.5),
            "figure.constrained_layout.use": True,
            "axes.titleweight": "bold",
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
        }
    )


def colors(n: int) -> list:
    """``n`` colours of the book's palette (:data:`PALETTE`)."""
    return sns.color_palette(PALETTE, n)


def histogram(
    values: np.ndarray,
    xlabel: str,
    ylabel: str = "count",
    title: str | None = None,
    bins: int | Sequence[float] = 50,
    ax=None,
    log: bool = False,
):
    """A histogram of one distribution."""
    use_style()
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(WIDTH / 2, 2.6))
    ax.hist(values, bins=bins, color=colors(1)[0], edgecolor="white", linewidth=0.4)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    if log:
        ax.set_yscale("log")
    return fig


def bar_counts(
    counts: pd.Series,
    xlabel: str,
    ylabel: str = "share of words (%)",
    title: str | None = None,
    ax=None,
):
    """Horizontal bars of a categorical distribution, largest first, as percentages."""
    use_style()
    share = 100 * counts.sort_values(ascending=True) / counts.sum()
    fig, ax = (
        (ax.figure, ax)
        if ax is not None
        else plt.subplots(figsize=(WIDTH / 2, 0.18 * len(share) + 0.8))
    )
    ax.barh(share.index.astype(str), share.values, color=colors(1)[0])
    ax.set(xlabel=ylabel, ylabel=xlabel, title=title)
    return fig


def stacked_bars(counts: pd.DataFrame, xlabel: str, ax=None):
    """Horizontal stacked bars: one bar per row of ``counts`` (rows, categories).

    Segments in column order and colour; empty categories keep their legend entry.
    """
    use_style()
    fig, ax = (
        (ax.figure, ax)
        if ax is not None
        else plt.subplots(figsize=(WIDTH, 0.45 * len(counts) + 1.2))
    )
    rows = counts.index.astype(str)[::-1]
    left = np.zeros(len(counts))
    for column, color in zip(counts.columns, colors(len(counts.columns)), strict=True):
        values = counts[column].to_numpy(dtype=float)[::-1]
        ax.barh(rows, values, left=left, color=color, label=str(column))
        left += values
    ax.set(xlabel=xlabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(ncols=len(counts.columns), loc="lower center", bbox_to_anchor=(0.5, 1.0))
    return fig


def layer_curves(
    df: pd.DataFrame,
    y: str,
    ylabel: str,
    hue: str | None = None,
    title: str | None = None,
    ax=None,
    chance: float | None = None,
):
    """Mean ± SD over seeds of a metric per layer; one line per ``hue`` value.

    ``df`` has one row per (layer, seed[, hue]) with columns ``layer``, ``seed`` and ``y``.
    """
    use_style()
    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(WIDTH * 0.6, 3.0))
    sns.lineplot(
        data=df,
        x="layer",
        y=y,
        hue=hue,
        errorbar="sd",
        marker="o",
        ax=ax,
        palette=PALETTE if hue else None,
        color=None if hue else colors(1)[0],
    )
    if chance is not None:
        ax.axhline(chance, color="grey", linestyle=":", linewidth=1, label="majority baseline")
        ax.legend()
    ax.set(xlabel="layer (0 = embeddings)", ylabel=ylabel, title=title)
    ax.set_xticks(sorted(df["layer"].unique()))
    return fig
