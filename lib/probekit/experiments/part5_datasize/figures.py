"""Figures of the data-size chapters (Zhu et al. 2022, Figs. 2-6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from probekit.experiments.part5_datasize.runs import Runs
from probekit.stats.power import POWER_THRESHOLD


def _log2_axis(ax, values: Sequence[float], label: str) -> None:
    ax.set_xscale("log", base=2)
    ticks = sorted({int(v) for v in values})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:,}" for t in ticks], rotation=45, ha="right")
    ax.minorticks_off()
    ax.set_xlabel(label)


def plot_bound(ax, table: pd.DataFrame, label: str, color, show_bound: bool = True):
    """Fig. 2 of Zhu et al. 2022: test accuracy (%) mean ± SD over seeds (band) against the
    training-set size, with the learning-theory margins mean ± bound (dashed), from a
    :func:`bound_table`."""
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
    """Power against test-set size (Zhu et al. 2022, §4.3-4.6, Figs. 3-6), one line per
    comparison in ``curves`` (frames with columns ``x`` and ``power``), with the 0.8 line."""
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


def plot_accuracies(ax, runs: Runs, configs: Sequence[str], colors, labels=None):
    """Mean ± SD test accuracy (%) over seeds against the training-set size, per config
    (Zhu et al. 2022, left panels of Figs. 4-6)."""
    means = runs.mean_accuracy()
    for i, (name, color) in enumerate(zip(configs, colors, strict=False)):
        df = means[means["config"] == name]
        x = df["n_train"].to_numpy(float)
        acc, sd = 100 * df["acc"], 100 * df["sd"].fillna(0)
        ax.fill_between(x, acc - sd, acc + sd, color=color, alpha=0.25, linewidth=0)
        ax.plot(x, acc, marker="o", color=color, label=labels[i] if labels else name)
    _log2_axis(ax, means["n_train"], "training examples (log scale)")
    ax.set_ylabel("test accuracy (%)")
    return ax
