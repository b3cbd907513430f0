"""Chapter 22's results (Hall Maudslay & Cotterell 2021, §5.2): corpus-level scores per
representation, probe and dataset, the summary table, the bar figure (cf. Fig. 3) and the two
claims in words.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from probekit.errors import ParameterError
from probekit.experiments import plots
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import METRIC, METRIC_LABELS, PROBE_LABELS
from probekit.trees.evaluation import corpus_scores


def scores_table(per_sentence: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores per (representation, probe, dataset): mean and SD over seeds.

    ``per_sentence``: rows with ``representation``, ``kind``, ``dataset``, ``seed``,
    ``layer`` and the :func:`probekit.trees.evaluation.score_distances` columns; ``baselines``:
    :func:`baseline_scores` (added for both datasets and both probes, SD 0). Each probe is
    scored on its own metric (§5.1): ``metric`` is "DSpr" or "UUAS (%)", ``score`` and ``SD``
    in those units. Columns: representation, probe, layer, dataset, metric, score, SD, seeds.
    """
    rows = []
    keys = ["representation", "kind", "dataset"]
    for (rep, kind, dataset), df in per_sentence.groupby(keys, sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        per_seed = [scale * corpus_scores(d)[metric] for _, d in df.groupby("seed")]
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "layer": int(df["layer"].iloc[0]),
                "dataset": dataset,
                "metric": METRIC_LABELS[metric],
                "score": float(np.mean(per_seed)),
                "SD": float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else 0.0,
                "seeds": len(per_seed),
            }
        )
    for name, df in baselines.groupby("baseline", sort=False):
        summary = corpus_scores(df)
        for kind, metric in METRIC.items():
            scale = 100.0 if metric == "uuas" else 1.0
            for dataset in DATASETS:
                rows.append(
                    {
                        "representation": name,
                        "probe": PROBE_LABELS[kind],
                        "layer": -1,
                        "dataset": dataset,
                        "metric": METRIC_LABELS[metric],
                        "score": scale * summary[metric],
                        "SD": 0.0,
                        "seeds": 0,
                    }
                )
    return pd.DataFrame(rows)


def jabberwocky_summary(scores: pd.DataFrame, drops: pd.DataFrame, leads: pd.DataFrame) -> pd.DataFrame:
    """One row per (representation, probe): layer, normal, Jabberwocky, the drop with its 95 %
    CI, and the lead over the best baseline on each dataset (UUAS in %, DSpr as ρ). Baseline
    rows carry scores only. Inputs: :func:`scores_table`, :func:`drops_table`,
    :func:`leads_table`."""
    wide = scores.pivot_table(
        index=["probe", "representation"], columns="dataset", values="score", sort=False
    )
    layer = scores.groupby(["probe", "representation"], sort=False)["layer"].first()
    out = pd.DataFrame(
        {"layer": layer, "normal": wide["normal"], "Jabberwocky": wide["Jabberwocky"]}
    )
    d = drops.set_index(["probe", "representation"])
    out["drop"] = d["estimate"]
    out["drop CI"] = d["low"].map("{:.3f}".format) + " to " + d["high"].map("{:.3f}".format)
    for dataset in DATASETS:
        lead = leads[leads["dataset"] == dataset].set_index(["probe", "representation"])
        out[f"lead ({dataset})"] = lead["estimate"]
    out["layer"] = out["layer"].map(lambda v: "–" if v < 0 else str(int(v)))
    return out


def bars_figure(table: pd.DataFrame, order: Sequence[str]):
    """Grouped bars in the spirit of §5.2, Fig. 3: one panel per probe, one group per
    representation (in ``order``), plain bars for normal and hatched bars for Jabberwocky,
    error bars ± 1 SD over seeds. ``table``: :func:`scores_table`."""


    plots.use_style()
    colours = dict(zip(order, plots.colors(len(order)), strict=True))
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.6), layout="constrained")
    width = 0.38
    for ax, kind in zip(axes, ("structural", "perceptron"), strict=True):
        sub = table[table["probe"] == PROBE_LABELS[kind]].set_index(["representation", "dataset"])
        x = np.arange(len(order))
        for offset, dataset, hatch in (
            (-width / 2, "normal", ""),
            (width / 2, "Jabberwocky", "///"),
        ):
            scores = [sub.loc[(r, dataset), "score"] for r in order]
            sds = [sub.loc[(r, dataset), "SD"] for r in order]
            ax.bar(
                x + offset,
                scores,
                width,
                yerr=sds,
                color=[colours[r] for r in order],
                edgecolor="0.2",
                linewidth=0.6,
                hatch=hatch,
                error_kw={"lw": 0.8, "capsize": 2},
            )
        ax.set_xticks(x, order, rotation=35, ha="right", fontsize=7)
        metric = METRIC_LABELS[METRIC[kind]]
        ax.set(ylabel=metric, title=f"{PROBE_LABELS[kind].capitalize()} ({metric.split()[0]})")
        ax.set_ylim(0.0, None)

    handles = [
        Patch(facecolor="white", edgecolor="0.2", label="normal"),
        Patch(facecolor="white", edgecolor="0.2", hatch="///", label="Jabberwocky"),
    ]
    fig.legend(handles=handles, fontsize=7, loc="outside upper center", ncols=2)
    return fig


def relative_change(before: float, after: float) -> str:
    """How a lead changed from ``before`` to ``after``, in words, as a share of ``before``:
    "shrinks by 23 % of its size", "grows by 5 % of its size", "turns into a deficit" (positive
    before, negative after), or, without a lead to begin with, "cannot be read as a share of a
    lead that did not exist"."""
    if not (np.isfinite(before) and np.isfinite(after)) or before <= 0:
        return "cannot be read as a share of a lead that did not exist"
    if after < 0:
        return "turns into a deficit"
    change = 100.0 * (before - after) / before
    word = "shrinks" if change >= 0 else "grows"
    return f"{word} by {abs(change):.0f} % of its size"


# Words for a drops_table "claim" in running prose.
CLAIM_PHRASES = {
    "holds": "a significant drop",
    "reversed": "a significant gain",
    "not shown (the interval includes 0)": "not significant",
}


def jabberwocky_verdict(drops: pd.DataFrame, leads: pd.DataFrame, representation: str) -> str:
    """One sentence on the paper's two claims (§5.2) for one representation: does each probe do
    significantly worse on Jabberwocky (:func:`drops_table`), and does it keep a significant
    lead over the best word-blind baseline there (:func:`leads_table`)?"""
    d = drops[drops["representation"] == representation].set_index("probe")
    lead = leads[
        (leads["representation"] == representation) & (leads["dataset"] == "Jabberwocky")
    ].set_index("probe")
    if d.empty or lead.empty:
        raise ParameterError("representation", f"no rows for {representation!r}")
    dropped = [p for p in d.index if d.loc[p, "claim"] == "holds"]
    kept = [p for p in lead.index if lead.loc[p, "low"] > 0]

    def which(probes: list[str], verb_all: str, verb_none: str, verb_one: str) -> str:
        if len(probes) == len(d.index):
            return verb_all
        if not probes:
            return verb_none
        return verb_one.format(" and ".join(f"the {p}" for p in probes))

    first = which(
        dropped,
        "both probes do significantly worse on Jabberwocky, as the paper found",
        "neither probe does significantly worse on Jabberwocky, unlike in the paper",
        "only {} does significantly worse on Jabberwocky",
    )
    second = which(
        kept,
        "both still beat the word-blind baselines there",
        "neither keeps a significant lead over the word-blind baselines there",
        "only {} keeps a significant lead over the word-blind baselines there",
    )
    return f"{first}, and {second}"
