"""Figures of the data-size chapters (Zhu et al. 2022, Figs. 2-6).

The ``plot_*`` helpers draw into a given axes; the ``*_figure`` functions draw a chapter's
figure. These return a :class:`matplotlib.figure.Figure` that pyplot does not manage, so a
notebook shows it only where it glues it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from probekit.experiments import plots
from probekit.experiments.part5_datasize.bound_tables import BoundSummary
from probekit.experiments.part5_datasize.comparison_problems import ComparisonProblems
from probekit.experiments.part5_datasize.data import TASK_NAMES
from probekit.experiments.part5_datasize.noise import NoiseExperiment
from probekit.experiments.part5_datasize.requirements import EPSILONS, n_params
from probekit.experiments.part5_datasize.runs import Runs
from probekit.experiments.part5_datasize.training import CLF_NAMES
from probekit.stats.bounds import finite_class_bound
from probekit.stats.power import POWER_THRESHOLD


def _log2_axis(ax, values: Sequence[float], label: str) -> None:
    ax.set_xscale("log", base=2)
    ticks = sorted({int(v) for v in values})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:,}" for t in ticks], rotation=45, ha="right")
    ax.minorticks_off()
    ax.set_xlabel(label)


def plot_bound(ax, table: pd.DataFrame, label: str, color, show_bound: bool = True):
    """Fig. 2 of Zhu et al. 2022: test accuracy against training-set size, with the bound's margins.

    Test accuracy (%) mean ± SD over seeds (band) against the training-set size, with the
    learning-theory margins mean ± bound (dashed), from a
    :func:`~probekit.experiments.part5_datasize.bound_tables.bound_table`.
    """
    x = table["n_train"].to_numpy(float)
    acc, sd = 100 * table["acc"], 100 * table["sd"].fillna(0)
    ax.fill_between(x, acc - sd, acc + sd, color=color, alpha=0.3, linewidth=0)
    ax.plot(x, acc, marker="o", color=color, label=f"{label}: mean ± SD")
    if show_bound:
        for side in ("lo", "hi"):
            ax.plot(x, 100 * table[side], color=color, linestyle="--", linewidth=1,
                    label=f"{label}: mean ± bound" if side == "lo" else None)  # fmt: skip
    _log2_axis(ax, x, "training examples (log scale)")
    ax.set_ylabel("test accuracy (%)")
    return ax


def plot_power(ax, curves: Mapping[str, pd.DataFrame], colors, x: str = "n_test"):
    """Power against test-set size (Zhu et al. 2022, §4.3-4.6, Figs. 3-6).

    One line per comparison in ``curves`` (frames with columns ``x`` and ``power``), with the 0.8
    line.
    """
    values = []
    for (label, df), color in zip(curves.items(), colors, strict=False):
        style = "--" if df.attrs.get("prospective") else "-"
        marker = None if df.attrs.get("prospective") else "o"
        ax.plot(df[x], df["power"], marker=marker, linestyle=style, color=color, label=label)
        values.extend(df[x].tolist())
    ax.axhline(POWER_THRESHOLD, color="grey", linestyle=":", linewidth=1)
    _log2_axis(ax, values, "test examples (log scale)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("power")
    return ax


def plot_accuracies(ax, runs: Runs, configs: Sequence[str], colors):
    """Mean ± SD test accuracy (%) over seeds against the training-set size, per config.

    As in the left panels of Figs. 4-6 of Zhu et al. 2022.
    """
    means = runs.mean_accuracy()
    for name, color in zip(configs, colors, strict=False):
        df = means[means["config"] == name]
        x = df["n_train"].to_numpy(float)
        acc, sd = 100 * df["acc"], 100 * df["sd"].fillna(0)
        ax.fill_between(x, acc - sd, acc + sd, color=color, alpha=0.25, linewidth=0)
        ax.plot(x, acc, marker="o", color=color, label=name)
    _log2_axis(ax, means["n_train"], "training examples (log scale)")
    ax.set_ylabel("test accuracy (%)")
    return ax


def bound_curves_figure(dim: int, delta: float) -> Figure:
    """The finite-class bound (Zhu et al. 2022, eq. 1) against n.

    For both classifiers at input size ``dim`` and for logistic regression at 4,096 dimensions,
    with the bounds of :data:`~probekit.experiments.part5_datasize.requirements.EPSILONS` as grey
    lines.
    """
    fig = Figure(figsize=(plots.WIDTH * 0.62, 2.9))
    ax = fig.subplots()
    n_grid = np.logspace(np.log10(64), np.log10(1e7), 200)
    styles = [("logreg", dim, "-"), ("mlp20", dim, "--"), ("logreg", 4096, ":")]
    for (clf, d, style), color in zip(styles, plots.colors(3), strict=True):
        bound = finite_class_bound(n_grid, n_params(clf, d, 2), delta)
        ax.plot(n_grid, bound, linestyle=style, color=color, label=f"{CLF_NAMES[clf]}, D = {d:,}")
    for eps in EPSILONS:
        ax.axhline(eps, color="grey", linewidth=0.6, linestyle=":")
    ax.set(xscale="log", yscale="log", xlabel="training examples n (log scale)",
           ylabel="bound B(n, δ) (log scale)", title="The finite-class bound")  # fmt: skip
    ax.legend()
    return fig


def bounds_figure(bounds: BoundSummary) -> Figure:
    """Zhu et al. 2022, Fig. 2: one panel per task, each probe's accuracy against the training size.

    Accuracy as mean ± SD, with the margins mean ± bound of the first probe.
    """
    tasks = list(dict.fromkeys(task for task, _ in bounds.tables))
    probes = list(dict.fromkeys(probe for _, probe in bounds.tables))
    fig = Figure(figsize=(plots.WIDTH, 3.2))
    axes = fig.subplots(1, len(tasks), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        for i, (probe, color) in enumerate(zip(probes, plots.colors(len(probes)), strict=True)):
            plot_bound(ax, bounds.tables[(task, probe)], probe, color, show_bound=i == 0)
        lo = min(100 * bounds.tables[(task, probe)]["acc"].min() for probe in probes)
        ax.set_ylim(max(0, lo - 25), 100.5)
        ax.set_title(TASK_NAMES[task])
    axes[0][0].legend(fontsize="small", loc="lower right")
    return fig


def noise_power_figure(noise: NoiseExperiment) -> Figure:
    """Zhu et al. 2022, Fig. 3: accuracy of clean and noisy probes, and the power of McNemar's test.

    Left: accuracy of the clean and noisy probes against the training size; right: the power of
    McNemar's test against the clean probe at each subset's test size.
    """
    colors = plots.colors(len(noise.names) + 1)
    fig = Figure(figsize=(plots.WIDTH, 3.6))
    axes = fig.subplots(1, 2)
    plot_accuracies(axes[0], noise.runs, [c.name for c in noise.runs.configs], colors)
    axes[0].set_title("Accuracy")
    curves = {noise.names[s]: noise.tables[s] for s in noise.names}
    plot_power(axes[1], curves, colors[1:])
    axes[1].set_title("Power against the clean probe")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize="small",
               handlelength=1.2, columnspacing=1.0)  # fmt: skip
    return fig


def comparisons_figure(problems: ComparisonProblems) -> Figure:
    """Zhu et al. 2022, Figs. 4-6 on the head task: accuracies and power of each comparison.

    Per comparison, the accuracies of both sides against the training size (left) and the power
    at each subset's test size (right).
    """
    colors = plots.colors(4)
    fig = Figure(figsize=(plots.WIDTH, 8.4))
    axes = fig.subplots(3, 2)
    for row, (key, (a, b, title)) in zip(axes, problems.pairs.items(), strict=True):
        plot_accuracies(row[0], problems.runs(problems.head), [a, b], colors[:2])
        row[0].set_title(title, fontsize="medium")
        row[0].legend(fontsize="small", loc="lower right")
        plot_power(row[1], {"observed": problems.tables[(problems.head, key)]}, [colors[2]])
        row[1].set_title("Power of McNemar's test", fontsize="medium")
    return fig
