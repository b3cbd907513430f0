"""Chapter 22's results (Hall Maudslay & Cotterell 2021, §5.2).

Corpus-level scores per representation, probe and dataset, the drops and leads, the summary
table and the bar figure (cf. Fig. 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from probekit.experiments import plots
from probekit.experiments.part2_jabberwocky.comparisons import drops_table, leads_table
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import METRIC, METRIC_LABELS, PROBE_LABELS
from probekit.trees.evaluation import corpus_scores


def scores_table(per_sentence: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores per (representation, probe, dataset): mean and SD over seeds.

    ``per_sentence``: rows with ``representation``, ``kind``, ``dataset``, ``seed``,
    ``layer`` and the :func:`probekit.trees.evaluation.score_distances` columns; ``baselines``:
    :func:`~probekit.experiments.part2_jabberwocky.baselines.baseline_scores` (added for both
    datasets and both probes, SD 0). Each probe is
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


def jabberwocky_summary(
    scores: pd.DataFrame, drops: pd.DataFrame, leads: pd.DataFrame
) -> pd.DataFrame:
    """One row per (representation, probe): scores, drop and leads over the best baseline.

    Layer, normal, Jabberwocky, the drop with its 95 % CI, and the lead over the best baseline
    on each dataset (UUAS in %, DSpr as ρ). Baseline rows carry scores only. Inputs:
    :func:`scores_table`,
    :func:`~probekit.experiments.part2_jabberwocky.comparisons.drops_table`,
    :func:`~probekit.experiments.part2_jabberwocky.comparisons.leads_table`.
    """
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
    """Grouped bars in the spirit of §5.2, Fig. 3: one panel per probe.

    One group per representation (in ``order``), plain bars for normal and hatched bars for
    Jabberwocky, error bars ± 1 SD over seeds. ``table``: :func:`scores_table`.
    """
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


@dataclass(frozen=True, eq=False)
class JabberwockyResults:
    """Chapter 22's result tables (§5.2): scores, drops, leads and their summary.

    ``scores`` (:func:`scores_table`), ``drops`` and ``leads``
    (:func:`~probekit.experiments.part2_jabberwocky.comparisons.drops_table`,
    :func:`~probekit.experiments.part2_jabberwocky.comparisons.leads_table`) and their
    ``summary`` (:func:`jabberwocky_summary`).
    """

    scores: pd.DataFrame
    drops: pd.DataFrame
    leads: pd.DataFrame
    summary: pd.DataFrame


def jabberwocky_results(
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, n_boot: int, seed: int
) -> JabberwockyResults:
    """Score every (representation, probe) on both test sets and compare.

    From the stacked per-sentence test scores of all runs and the word-blind ``baselines``; the
    bootstraps draw ``n_boot`` resamples with ``seed``.
    """
    scores = scores_table(per_sentence, baselines)
    drops = drops_table(per_sentence, n_boot, seed)
    leads = leads_table(per_sentence, baselines, n_boot, seed)
    return JabberwockyResults(scores, drops, leads, jabberwocky_summary(scores, drops, leads))
