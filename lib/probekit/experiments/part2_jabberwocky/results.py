"""Chapter 22's results (Hall Maudslay & Cotterell 2021, §5.2).

Corpus-level scores per representation, probe and dataset, the drops and leads with their
intervals over sentences and seeds, the summary table, the bar figure (cf. Fig. 3) and the
numbers the chapter's prose quotes beside its verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from probekit.errors import ParameterError
from probekit.experiments import plots
from probekit.experiments.claims import format_interval
from probekit.experiments.part2_jabberwocky.claims import PC_DROP, ST_DROP
from probekit.experiments.part2_jabberwocky.comparisons import LEVEL, drops_table, leads_table
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import (
    BEST,
    LAYER0,
    METRIC,
    METRIC_LABELS,
    PROBE_LABELS,
    variant_label,
)
from probekit.experiments.part2_jabberwocky.representations import TYPE_LEVEL
from probekit.trees.evaluation import corpus_scores

# The two probes by the prefix of their numbers in the chapter (st_..., pc_...).
PROBE_KEYS = {"structural": "st", "perceptron": "pc"}


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

    Layer, normal, Jabberwocky, the drop with its interval over sentences and seeds, and the
    lead over the best baseline on each dataset (UUAS in %, DSpr as ρ). Baseline rows carry
    scores only. Inputs: :func:`scores_table`,
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
    ci = d["low"].map("{:.3f}".format) + " to " + d["high"].map("{:.3f}".format)
    out[f"drop {LEVEL:.0%} CI"] = ci
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
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, level: float = LEVEL
) -> JabberwockyResults:
    """Score every (representation, probe) on both test sets and compare.

    From the stacked per-sentence test scores of all runs and the word-blind ``baselines``; the
    intervals of drops and leads are over test sentences and seeds, at ``level``.
    """
    scores = scores_table(per_sentence, baselines)
    drops = drops_table(per_sentence, level)
    leads = leads_table(per_sentence, baselines, level)
    return JabberwockyResults(scores, drops, leads, jabberwocky_summary(scores, drops, leads))


def relative_change(before: float, after: float) -> str:
    """How a lead changed from ``before`` to ``after``, in words, as a share of ``before``.

    One of "shrinks by 23 % of its size", "grows by 5 % of its size", "turns into a deficit"
    (positive before, negative after), or, without a lead to begin with, "cannot be read as a
    share of a lead that did not exist".
    """
    if not (np.isfinite(before) and np.isfinite(after)) or before <= 0:
        return "cannot be read as a share of a lead that did not exist"
    if after < 0:
        return "turns into a deficit"
    change = 100.0 * (before - after) / before
    word = "shrinks" if change >= 0 else "grows"
    return f"{word} by {abs(change):.0f} % of its size"


def _probe_values(kind: str, res: JabberwockyResults, encoder: str) -> dict[str, object]:
    """The numbers of one probe (see :func:`jabberwocky_prose_values`), without its prefix."""
    probe, best = PROBE_LABELS[kind], variant_label(encoder, BEST)
    rule = (ST_DROP if kind == "structural" else PC_DROP).rule
    drops = res.drops.set_index(["representation", "probe"])
    if (best, probe) not in drops.index:
        raise ParameterError("encoder", f"no {probe} rows for {best!r}")
    d = drops.loc[(best, probe)]
    out: dict[str, object] = {"normal": d["normal"], "jabberwocky": d["Jabberwocky"]}
    lead = res.leads.set_index(["representation", "probe", "dataset"])
    for dataset, dkey, tkey in (("normal", "n", "normal"), ("Jabberwocky", "j", "jab")):
        row = lead.loc[(best, probe, dataset)]
        out[f"lead_{dkey}"] = row["estimate"]
        out[f"lead_{tkey}_text"] = format_interval(row["interval"], rule)
    out["baseline"] = lead.loc[(best, probe, "Jabberwocky"), "baseline"]
    out["lead_change"] = relative_change(out["lead_n"], out["lead_j"])
    for rep, rkey in ((variant_label(encoder, LAYER0), "l0"), (TYPE_LEVEL, "ft")):
        out[f"{rkey}_drop_text"] = format_interval(drops.loc[(rep, probe), "interval"], rule)
    return out


def jabberwocky_prose_values(
    res: JabberwockyResults, baselines: pd.DataFrame, encoder: str
) -> dict[str, object]:
    """The numbers chapter 22's prose quotes, keyed by the name the chapter glues them under.

    For the encoder the prose discusses (``encoder``, its short name). Per probe, prefixed
    ``st_`` or ``pc_`` (:data:`PROBE_KEYS`), at the dev-chosen layer: the scores on ``normal``
    and ``jabberwocky`` sentences (UUAS in %); the lead over the better ``baseline`` on each
    dataset (``lead_n``, ``lead_j``, in points for UUAS) with its interval in words
    (``lead_normal_text``, ``lead_jab_text``,
    :func:`~probekit.experiments.claims.format_interval`)
    and how it changed (``lead_change``, :func:`relative_change`); the drops at layer 0 and
    on the type-level baseline in words (``l0_drop_text``, ``ft_drop_text``). The intervals of
    the claims themselves (the two drops and the perceptron probe's lead on Jabberwocky) are
    glued with the claims. Then the baselines' corpus scores (``chain_uuas``, ``majority_uuas``
    in %, ``chain_dspr``, ``majority_dspr``); ``n_model_probes``, the probes on an encoder's
    best layer, and ``n_drop_above_zero``, those whose interval of the drop lies above 0.
    """
    out: dict[str, object] = {}
    for kind, key in PROBE_KEYS.items():
        values = _probe_values(kind, res, encoder)
        out |= {f"{key}_{name}": value for name, value in values.items()}
    base = {name: corpus_scores(df) for name, df in baselines.groupby("baseline", sort=False)}
    out["chain_uuas"] = 100 * base["linear chain"]["uuas"]
    out["majority_uuas"] = 100 * base["majority tree"]["uuas"]
    out["chain_dspr"] = base["linear chain"]["dspr"]
    out["majority_dspr"] = base["majority tree"]["dspr"]
    model_drops = res.drops[res.drops["representation"].str.endswith(f"· {BEST}")]
    out["n_model_probes"] = len(model_drops)
    out["n_drop_above_zero"] = int((model_drops["low"] > 0).sum())
    return out
