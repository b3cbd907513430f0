"""Chapter 12's figures: scores per layer for probe and parser.

UUAS and DSpr per layer for probe and parser (cf. Hall Maudslay et al. 2020, Fig. 2), and DSpr
before and after Prim + Floyd-Warshall (cf. Fig. 3).
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D

from probekit.experiments import plots
from probekit.experiments.tree_probing.training import LABELS


def layer_figure(scores: pd.DataFrame, baseline: Mapping[str, float]):
    """UUAS (%) and DSpr per layer for both models, mean ± SD over seeds.

    Cf. Hall Maudslay et al. 2020, Fig. 2a and 2b, with the linear-chain baseline dotted.
    ``scores``: the table of
    :func:`~probekit.experiments.tree_probing.training.train_layers`; ``baseline``:
    :func:`probekit.trees.evaluation.linear_baselines` on the same split.
    """
    plots.use_style()
    df = scores.assign(model=scores["kind"].map(LABELS), uuas=100 * scores["uuas"])
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.0))
    for ax, metric, label, scale in (
        (axes[0], "uuas", "UUAS (%)", 100.0),
        (axes[1], "dspr", "DSpr (Spearman ρ)", 1.0),
    ):
        plots.layer_curves(df, metric, label, hue="model", ax=ax)
        ax.axhline(scale * baseline[metric], color="grey", ls=":", lw=1, label="linear chain")
        ax.legend(fontsize=7)
    axes[0].set_title("UUAS", fontsize=9)
    axes[1].set_title("DSpr", fontsize=9)
    return fig


def pfw_figure(scores: pd.DataFrame, baseline: Mapping[str, float]):
    """DSpr before and after Prim + Floyd–Warshall per layer and model, mean ± SD over seeds.

    Before: dashed; after: solid (cf. Hall Maudslay et al. 2020, Fig. 3). Inputs as
    :func:`layer_figure`.
    """
    plots.use_style()
    long = scores.assign(model=scores["kind"].map(LABELS)).melt(
        id_vars=["model", "layer", "seed"],
        value_vars=["dspr", "dspr_pfw"],
        var_name="metric",
        value_name="value",
    )
    long["metric"] = long["metric"].map({"dspr": "DSpr", "dspr_pfw": "DSpr P+FW"})
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.65, 3.0))
    sns.lineplot(
        data=long,
        x="layer",
        y="value",
        hue="model",
        style="metric",
        style_order=["DSpr P+FW", "DSpr"],
        dashes={"DSpr P+FW": "", "DSpr": (4, 2)},
        errorbar="sd",
        marker="o",
        ax=ax,
        palette=plots.PALETTE,
        legend=False,
    )
    ax.axhline(baseline["dspr_pfw"], color="grey", ls=":", lw=1)
    ax.set(xlabel="layer (0 = embeddings)", ylabel="Spearman ρ")
    ax.set_xticks(sorted(long["layer"].unique()))
    # A hand-made legend: seaborn's short dashed handles are hard to tell from solid ones.
    colors = dict(zip(long["model"].drop_duplicates(), plots.colors(2), strict=False))
    handles = [Line2D([], [], color=c, marker="o", label=m) for m, c in colors.items()]
    handles += [
        Line2D([], [], color="0.3", lw=1.5, label="DSpr P+FW"),
        Line2D([], [], color="0.3", lw=1.5, ls=(0, (4, 2)), label="DSpr"),
        Line2D([], [], color="grey", lw=1, ls=":", label="linear chain"),
    ]
    ax.legend(handles=handles, fontsize=7, handlelength=3)
    return fig
