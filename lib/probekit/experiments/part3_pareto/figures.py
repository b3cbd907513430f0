"""Part III's figures (Pimentel et al. 2020).

Pareto curves (Figs. 1 to 9), the two memorisation controls side by side (Fig. 6), and the toy
tasks' lookup baselines and label entropies (§7.1, appendix B). Every function returns a matplotlib
Figure in the book's style.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from probekit.experiments import plots
from probekit.experiments.part3_pareto.layer_choice import LayerSelection
from probekit.experiments.part3_pareto.paper import PAPER
from probekit.experiments.part3_pareto.representations import (
    LABELS,
    REPRESENTATIONS,
    TASK_TITLES,
)
from probekit.methods.pareto import frontier
from probekit.stats.intervals import Interval


def placeholder_figure(text: str):
    """A small figure that only says ``text``, in place of a Pareto-curve figure not run.

    It is glued in place of a Pareto-curve figure (Pimentel et al. 2020, Figs. 1 to 9) whose
    experiment was not run, so that the page still builds with every glue key present.
    """
    plots.use_style()
    fig, ax = plt.subplots(figsize=(plots.WIDTH, 0.8))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize="small", color="grey")
    return fig


def plot_frontiers(
    table: pd.DataFrame,
    x: str,
    cap: float | dict[str, float],
    xlabel: str,
    *,
    y: str = "accuracy",
    ylabel: str = "test accuracy",
    col: str = "task",
    hue: str = "representation",
    titles: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    height: float = 2.9,
):
    """Pareto curves as in Pimentel et al. 2020, Figs. 1 to 9.

    Every probe as a faint dot and each ``hue`` group's frontier (by default each representation's)
    as a staircase up to the cap, one panel per ``col`` value.

    ``cap`` may differ by panel (a dict from ``col`` values). Representations keep one colour
    throughout the book; other hue values take the palette in order. Panels are titled by
    ``titles``, by default the tasks' titles. Returns the Figure.
    """
    plots.use_style()
    titles = TASK_TITLES if titles is None else titles
    panels = list(dict.fromkeys(table[col]))
    fig, axes = plt.subplots(
        1, len(panels), figsize=(plots.WIDTH, height), squeeze=False, sharey=False
    )
    groups = list(dict.fromkeys(table[hue]))
    if hue == "representation":
        palette = dict(zip(REPRESENTATIONS, plots.colors(len(REPRESENTATIONS)), strict=True))
    else:
        palette = dict(zip(groups, plots.colors(len(groups)), strict=True))
    for ax, panel in zip(axes[0], panels, strict=True):
        limit = cap[panel] if isinstance(cap, dict) else cap
        sub = table[(table[col] == panel) & np.isfinite(table[x].to_numpy(dtype=float))]
        for rep, g in sub.groupby(hue, sort=False):
            color = palette.get(rep, "grey")
            name = (labels or {}).get(str(rep), LABELS.get(str(rep), str(rep)))
            shown = g[g[x] <= limit]
            ax.scatter(shown[x], shown[y], s=14, color=color, alpha=0.45, linewidths=0)
            xs, hs = frontier.frontier_staircase(g[x], g[y], limit)
            if xs.size:
                ax.step(xs, hs, where="post", color=color, linewidth=1.6, label=name)
        ax.set(
            xlim=(0, limit),
            xlabel=xlabel if len(panels) == 1 else None,
            ylabel=ylabel,
            title=titles.get(str(panel), str(panel)),
        )
    if len(panels) > 1:
        fig.supxlabel(xlabel, fontsize="medium")
    handles, names = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    fig.legend(
        handles, names, loc="outside upper center", ncol=min(len(names), 4), fontsize="small"
    )
    return fig


def plot_control_frontiers(
    table: pd.DataFrame,
    xlabel: str,
    *,
    ylabel: str = "test accuracy",
    titles: dict[str, str] | None = None,
    height: float = 2.9,
):
    """The contextual representation's probes under the two memorisation controls (Fig. 6).

    The controls of Pimentel et al. 2020, §5 (their Fig. 6): test accuracy against memorisation of
    shuffled labels on the real sentences (label-shuffled) and on word-shuffled ones (fully
    shuffled), one frontier per control, one panel per task.
    """
    ctx = table[table["representation"] == "contextual"]
    # Only the probes that ran both controls (the fully-shuffled one may run under one seed).
    ctx = ctx[ctx[["label_shuffled", "fully_shuffled"]].notna().all(axis=1)]
    long = pd.concat(
        [
            ctx.assign(control="label-shuffled", memorisation=ctx["label_shuffled"]),
            ctx.assign(control="fully shuffled", memorisation=ctx["fully_shuffled"]),
        ],
        ignore_index=True,
    )
    return plot_frontiers(
        long,
        "memorisation",
        1.0,
        xlabel,
        ylabel=ylabel,
        hue="control",
        titles=titles,
        height=height,
    )


def plot_lookup_sizes(sizes: pd.DataFrame):
    """Test accuracy of the lookup baselines (Pimentel et al. 2020, appendix B) by training size.

    Accuracy against the training words they were fitted on (log scale), with the paper's Table 1 as
    dotted lines. ``sizes``: one row per sample, columns ``words``, ``POSL`` and ``DAL`` (accuracies
    in [0, 1]).
    """
    plots.use_style()
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 2.8))
    for task, color in zip(["POSL", "DAL"], plots.colors(2), strict=True):
        ax.plot(sizes["words"], 100 * sizes[task], marker="o", color=color, label=task)
        ax.axhline(100 * PAPER["table1"][task.lower()], color=color, linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set(
        xlabel="training words (log scale)",
        ylabel="test accuracy (%)",
        title="Lookup baseline by training size",
    )
    ax.legend()
    return fig


def plot_label_entropies(entropies: pd.DataFrame):
    """H(label) and H(label | word) in bits of POSL and DAL (Pimentel et al. 2020, §7.1).

    As paired horizontal bars. ``entropies``: :func:`~.toy_tasks.label_entropies`' table (columns
    ``task``, ``H(label)`` and ``H(label | word)``).
    """
    plots.use_style()
    entropies = entropies.set_index("task")
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 2.6))
    c = plots.colors(2)
    tasks = ["posl", "dal"]
    y = np.arange(len(tasks))
    ax.barh(y + 0.2, entropies.loc[tasks, "H(label)"], height=0.4, color=c[0], label="H(label)")
    ax.barh(
        y - 0.2,
        entropies.loc[tasks, "H(label | word)"],
        height=0.4,
        color=c[1],
        label="H(label | word)",
    )
    ax.set_yticks(y, [TASK_TITLES[t] for t in tasks])
    ax.set(xlabel="entropy (bits)", title="Label uncertainty before and after the word")
    ax.legend(loc="lower right")
    return fig


def plot_contextual_leads(leads: Mapping[str, Interval | None], paper: Mapping[str, float]):
    """The contextual leads in hypervolume on each task, ours against the paper's (§7.2).

    ``leads`` maps tasks (keys of ``TASK_TITLES``: posl, dal, parse) to our interval (chapters
    33 and 34), missing or None where not measured; ``paper`` maps the same tasks to the paper's
    leads (Tables 2 and 3). One row per task: our estimate with its interval, and the paper's
    value as an open marker.
    """
    plots.use_style()
    row = {task: i for i, task in enumerate(TASK_TITLES)}
    ours, theirs = plots.colors(2)
    fig, ax = plt.subplots(figsize=(plots.WIDTH, 0.6 + 0.55 * len(row)))
    handles = []
    measured = [t for t in row if leads.get(t) is not None]
    if measured:
        est, low, high = (np.array([getattr(leads[t], f) for t in measured])
                          for f in ("estimate", "low", "high"))  # fmt: skip
        bars = ax.errorbar(est, [row[t] for t in measured], xerr=[est - low, high - est], fmt="o",
                           color=ours, capsize=3, label="ours (90 % interval)")  # fmt: skip
        handles.append(bars)
    shown = [t for t in row if t in paper]
    handles += ax.plot([paper[t] for t in shown], [row[t] for t in shown], "D", mfc="none",
                       color=theirs, label="the paper")  # fmt: skip
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(list(row.values()), [TASK_TITLES[t] for t in row])
    ax.invert_yaxis()
    ax.set_xlabel("contextual hypervolume minus the best type-level one")
    ax.legend(handles=handles, loc="lower right", fontsize="small")
    return fig


def plot_layer_uas(
    selection: pd.DataFrame,
    chosen: int,
    ceiling: float | None = None,
    rival: float | None = None,
):
    """Test UAS by layer of the selection pass's MLP and linear parsers (chapters 31 to 34).

    ``selection``: rows (layer, kind, uas) with UAS in [0, 1]; ``chosen``: the layer chosen on
    development UAS (marked); ``ceiling``: the recorded ceiling's UAS at the chosen layer;
    ``rival``: the best type-level parser's test UAS, so that the gap to it is the contextual
    lead at each layer. Values in %.
    """
    plots.use_style()
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.7, 3.2))
    kinds = selection.groupby("kind", sort=False)
    for (kind, rows), color in zip(kinds, plots.colors(kinds.ngroups), strict=True):
        rows = rows.sort_values("layer")
        ax.plot(rows["layer"], 100 * rows["uas"], "o-", color=color, label=f"{kind} parser")
    ax.axvline(chosen, color="grey", lw=0.8, ls="--", label=f"chosen on dev (layer {chosen})")
    if ceiling is not None:
        ax.plot([chosen], [100 * ceiling], "*", ms=12, color="black",
                label="ceiling (whole training split)")  # fmt: skip
    if rival is not None:
        ax.axhline(100 * rival, color="grey", lw=1, ls=":", label="best type-level parser")
    ax.set(xlabel="layer (0 = embeddings)", ylabel="test UAS (%)")
    ax.set_xticks(sorted(selection["layer"].unique()))
    ax.legend(fontsize="small", loc="lower center")
    return fig


def plot_selection(selection: LayerSelection | None, layer: int | None):
    """:func:`plot_layer_uas` of a selection pass, or a figure saying that the layer was given."""
    if selection is None:
        return placeholder_figure(f"The layer was given ({layer}): no selection pass ran.")
    return plot_layer_uas(selection.table, selection.layer)
