"""Figures of Part IV (Kunz & Kuhlmann 2021), with the panels each chapter shows.

Score distributions with their split points (§3.4-3.5) and accuracy per layer and setup (the
layout of Figs. 1-5).
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from probekit.experiments import plots
from probekit.methods.extrapolation import splits as extrapolation_splits

# Panels of each chapter's figures: split (as in the combined tables) -> panel title.
SCORE_PANELS: dict[str, str] = {
    "T1 sentence_length_pos": "T1 sentence length",
    "T1 tag_proportion": "T1 tag proportion",
    "T1 most_frequent_tag": "T1 most frequent tag",
    "T1 speed_of_learning": "T1 speed of learning",
    "T1 sample_loss": "T1 sample loss",
    "T2 sentence_length_deprel": "T2 sentence length",
    "T2 arc_length": "T2 arc length",
    "T2 speed_of_learning": "T2 speed of learning",
    "T2 sample_loss": "T2 sample loss",
}
SENTENCE_LENGTH_PANELS: dict[str, str] = {  # Fig. 1
    "T1 sentence_length_linguistic": "T1, linguistic (17/29)",
    "T2 sentence_length_linguistic": "T2, linguistic (17/29)",
    "T1 sentence_length_pos": "T1, distributional",
    "T2 sentence_length_deprel": "T2, distributional",
}
ARC_LENGTH_PANELS: dict[str, str] = {  # Fig. 2
    "T2 arc_length": "T2, arc length (distributional)",
    "T2 arc_length_modified": "T2, arc length (modified, m1 = 3)",
}
TAG_PANELS: dict[str, str] = {  # Fig. 3
    "T1 most_frequent_tag": "T1, most frequent tag",
    "T1 tag_proportion": "T1, tag proportions",
}
SPEED_PANELS: dict[str, str] = {  # Fig. 4
    "T1 speed_of_learning": "T1, speed of learning",
    "T2 speed_of_learning": "T2, speed of learning",
}
LOSS_PANELS: dict[str, str] = {  # Fig. 5
    "T1 sample_loss": "T1, sample loss",
    "T2 sample_loss": "T2, sample loss",
}


# How the setups read in the figures' legends: training set -> evaluation set.
SETUP_LABELS: dict[str, str] = {
    "standard": "standard (all → all)",
    "control": "control (all → hard)",
    "extrapolation": "extrapolation (easy → hard)",
    "size_control": "size control (half → all)",
    "size_control_hard": "size control (half → hard)",
}


def _no_split_figure():
    """A small placeholder figure, so a chapter on a tiny sample still renders its panels."""
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 1.5))
    ax.text(0.5, 0.5, "no split could be made on this sample", ha="center", va="center")
    ax.set_axis_off()
    return fig


def setup_panels(table: pd.DataFrame, titles: Mapping[str, str], ncols: int = 2):
    """One panel per split: best-epoch accuracy per layer, mean ± SD over seeds, per setup.

    ``table`` has one row per probe (split, layer, seed, setup, accuracy in %), as the combined
    probe table of a chapter; ``titles`` maps split names, in panel order, to panel titles;
    splits absent from ``table`` (skipped) get no panel. Reproduces the layout of Kunz &
    Kuhlmann 2021, Figs. 1-5, with the size control of §3.5 beside their three setups; setups
    are named by :data:`SETUP_LABELS`.
    """
    plots.use_style()
    table = table.assign(setup=table["setup"].map(SETUP_LABELS).fillna(table["setup"]))
    names = [name for name in titles if (table["split"] == name).any()]
    if not names:
        return _no_split_figure()
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(plots.WIDTH, 2.8 * nrows), squeeze=False, sharex=True
    )
    for ax, name in zip(axes.ravel(), names, strict=False):
        part = table[table["split"] == name]
        plots.layer_curves(part, "accuracy", "accuracy (%)", hue="setup", title=titles[name], ax=ax)
        if ax is not axes.ravel()[0]:
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    return fig


def score_histograms(
    panels: Mapping[str, tuple[np.ndarray, np.ndarray, extrapolation_splits.SplitPoints]],
    ncols: int = 3,
):
    """Train and eval score distributions, one panel per entry, with m1 and m2 marked (§3.4-3.5).

    ``panels`` maps a title to (train scores (N,), eval scores (M,), split points). Shares of
    examples (%) on the y axis, so the two sets are comparable.
    """
    plots.use_style()
    names = list(panels)
    if not names:
        return _no_split_figure()
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(plots.WIDTH, 2.4 * nrows), squeeze=False)
    train_color, eval_color = plots.colors(2)
    for ax, name in zip(axes.ravel(), names, strict=False):
        ts, es, p = panels[name]
        both = np.concatenate([ts, es])
        bins = np.histogram_bin_edges(both, bins=min(30, max(len(np.unique(both)), 2)))
        for scores, color, label in ((ts, train_color, "train"), (es, eval_color, "eval")):
            weights = np.full(len(scores), 100 / max(len(scores), 1))
            ax.hist(scores, bins=bins, weights=weights, alpha=0.5, color=color, label=label)
        ax.axvline(p.m1, color="black", linestyle="--", linewidth=1, label="m1 (easy below)")
        ax.axvline(p.m2, color="black", linestyle=":", linewidth=1, label="m2 (hard above)")
        ax.set_ylabel("examples (%)")
        ax.set_title(name, fontsize="small")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=4, fontsize="small")
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    return fig
