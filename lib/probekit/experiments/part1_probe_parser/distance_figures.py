"""Chapter 11's figures (Hall Maudslay et al. 2020, §2 and Fig. 1).

A dependency tree as arcs above its words, its (n, n) syntactic distance matrix, and mean
syntactic distance against linear distance.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.patches import Arc, Rectangle

from probekit.experiments import plots


def _arc_height(span: int) -> float:
    """Apex height of an arc over ``span`` words: longer arcs rise higher, sublinearly."""
    return 0.5 + 0.42 * (span - 1) ** 0.85


def draw_arcs(ax, sentence, path: Sequence[int] = (), color_path: str = "C3") -> None:
    """Draw a dependency tree as arcs above the words (one arc per head → dependent).

    Arc height grows with the arc's linear length; the root gets a vertical line. Edges whose
    two ends are consecutive on ``path`` (0-based words, e.g. from
    :func:`~probekit.experiments.part1_probe_parser.syntactic_distance.tree_path`) are drawn
    in ``color_path`` and the path's end words in bold, as in Fig. 1 of Hall Maudslay et al.
    2020. Draws on matplotlib ``ax``; ``sentence`` is a :class:`probekit.io.treebanks.Sentence`.
    """
    n = len(sentence)
    path = [int(v) for v in path]
    on_path = {frozenset(p) for p in zip(path[:-1], path[1:], strict=True)}
    ends = set(path[:1]) | set(path[-1:])
    top = 1.0
    base = 0.1
    for dep, head in enumerate(sentence.heads.tolist()):
        if head == 0:
            continue
        h = head - 1
        span = abs(h - dep)
        height = _arc_height(span)
        top = max(top, height)
        hot = frozenset((h, dep)) in on_path
        color, lw = (color_path, 2.0) if hot else ("0.4", 0.9)
        ax.add_patch(
            Arc(((h + dep) / 2, base), span, 2 * height, theta1=0, theta2=180, color=color, lw=lw)
        )
        # An arrowhead at the dependent end says which word is the head.
        ax.annotate(
            "",
            xy=(dep, base),
            xytext=(dep, base + 0.12),
            arrowprops={
                "arrowstyle": "-|>,head_length=0.4,head_width=0.2",
                "color": color,
                "lw": 0,
            },
        )
        ax.text(
            (h + dep) / 2,
            base + height,
            str(sentence.deprel[dep]),
            ha="center",
            va="center",
            fontsize=5.5,
            color=color,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.9},
        )
    root = int(np.flatnonzero(sentence.heads == 0)[0])
    ax.plot([root, root], [base, top + 0.35], color="0.2", lw=1)
    ax.text(root, top + 0.4, "root", ha="center", va="bottom", fontsize=6, color="0.2")
    rotate = n > 8
    for k, form in enumerate(sentence.forms.tolist()):
        ax.text(
            k,
            -0.05,
            form,
            ha="right" if rotate else "center",
            va="top",
            fontsize=7.5,
            rotation=40 if rotate else 0,
            rotation_mode="anchor",
            color=color_path if k in ends else "black",
            fontweight="bold" if k in ends else "normal",
        )
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(-1.6 if rotate else -0.6, top + 0.8)
    ax.axis("off")


def distance_heatmap(
    ax, dist: np.ndarray, words: Sequence[str], mark: tuple[int, int] | None = None
) -> None:
    """The (n, n) syntactic distance matrix as an annotated heatmap on ``ax``.

    ``mark`` = (i, j) outlines that cell and its mirror image.
    """
    d = np.asarray(dist)
    sns.heatmap(
        d,
        ax=ax,
        annot=len(words) <= 20,
        fmt="d",
        cmap="mako_r",
        square=True,
        cbar_kws={"shrink": 0.6},
        xticklabels=list(words),
        yticklabels=list(words),
        annot_kws={"fontsize": 5.5},
        linewidths=0.3,
        linecolor="white",
    )
    cbar = ax.collections[0].colorbar
    cbar.set_label("syntactic distance (edges)", fontsize=7)
    cbar.set_ticks(np.arange(0, int(d.max(initial=0)) + 1))
    cbar.ax.tick_params(labelsize=6)
    ax.tick_params(labelsize=6.5, length=0)
    ax.set_xticklabels(ax.get_xticklabels(), rotation=90)
    ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
    if mark is not None:
        i, j = mark
        for r, c in ((i, j), (j, i)):
            ax.add_patch(Rectangle((c, r), 1, 1, fill=False, edgecolor="C3", lw=1.8))


def example_figure(sentence, dist: np.ndarray, path: Sequence[int]):
    """Chapter 11's figure: the tree as arcs (left) beside its distance matrix (right).

    ``dist``: the sentence's (n, n) tree distances; ``path``: the words of one highlighted
    path (:func:`~probekit.experiments.part1_probe_parser.syntactic_distance.tree_path`), whose
    end pair is outlined in the matrix. Returns the Figure.
    """
    plots.use_style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.3), width_ratios=[1.6, 1])
    draw_arcs(left, sentence, path)
    left.set_title("Dependency tree", fontsize=9)
    pair = (int(path[0]), int(path[-1])) if len(path) > 1 else None
    distance_heatmap(right, dist, sentence.forms.tolist(), pair)
    right.set_title("Syntactic distance matrix", fontsize=9)
    return fig


def linear_vs_syntactic_figure(pairs: pd.DataFrame, max_linear: int = 15):
    """Mean syntactic distance (± SD) of word pairs by their linear distance.

    From the :func:`~probekit.experiments.part1_probe_parser.syntactic_distance.distance_pairs`
    table, with the identity line Δ = |i − j| for reference.
    """
    plots.use_style()
    df = pairs[pairs["linear"] <= max_linear]
    grouped = df.groupby("linear")
    mean = grouped.apply(
        lambda g: np.average(g["syntactic"], weights=g["pairs"]), include_groups=False
    )
    var = grouped.apply(
        lambda g: np.average(
            (g["syntactic"] - np.average(g["syntactic"], weights=g["pairs"])) ** 2,
            weights=g["pairs"],
        ),
        include_groups=False,
    )
    sd = np.sqrt(var)
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 2.8))
    color = plots.colors(1)[0]
    ax.plot(mean.index, mean.values, marker="o", color=color, label="mean syntactic distance")
    ax.fill_between(mean.index, mean - sd, mean + sd, color=color, alpha=0.2, label="± 1 SD")
    ax.plot(mean.index, mean.index, color="grey", ls=":", lw=1, label="syntactic = linear")
    ax.set(xlabel="linear distance |i − j| (words)", ylabel="syntactic distance (edges)")
    ax.legend(fontsize=7)
    return fig
