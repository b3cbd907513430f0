"""The paired comparisons of chapter 22 (Hall Maudslay & Cotterell 2021, §5.2).

The drop of each probe from normal to Jabberwocky sentences and its lead over the better
word-blind baseline, each an interval over test sentences and seeds
(:func:`~probekit.experiments.tree_probing.intervals.tree_metric_interval`). A drop pairs
seeds: each trained probe is scored on both versions of the same sentences. A lead compares a
trained probe (every seed) with a baseline that predicts from the sentence length alone: one
"seed", without seed variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.baselines import best_baseline
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import METRIC, METRIC_LABELS, PROBE_LABELS
from probekit.experiments.tree_probing.intervals import tree_metric_interval
from probekit.stats.intervals import Interval
from probekit.trees.evaluation import corpus_scores

# Coverage of the intervals of the tables: the rules' (1 - 2 alpha) at alpha = 0.05.
LEVEL = 0.90


def jabberwocky_drop_interval(rows: pd.DataFrame, metric: str, level: float = LEVEL) -> Interval:
    """Normal − Jabberwocky ``metric`` of one probe, over test sentences and paired seeds.

    ``rows``: one probe's per-sentence test scores on both ``dataset`` values ("normal",
    "Jabberwocky"), every seed; the same trained probe (seed) is scored on both versions of
    each sentence, so the seeds pair up (``paired_seeds``). UUAS as fractions.
    """
    normal, jab = (rows[rows["dataset"] == d] for d in DATASETS)
    return tree_metric_interval(normal, jab, metric, level, paired_seeds=True)


def baseline_lead_interval(
    rows: pd.DataFrame, baseline_rows: pd.DataFrame, metric: str, level: float = LEVEL
) -> Interval:
    """Probe − baseline ``metric`` on one test set, over test sentences and the probe's seeds.

    ``rows``: one probe's per-sentence scores on one dataset, every seed; ``baseline_rows``:
    one word-blind baseline's rows of
    :func:`~probekit.experiments.part2_jabberwocky.baselines.baseline_scores` (no ``seed``:
    deterministic). UUAS as fractions.
    """
    return tree_metric_interval(rows, baseline_rows, metric, level)


def _seed_mean(rows: pd.DataFrame, metric: str) -> float:
    """The corpus ``metric`` of each seed's rows, averaged over the seeds."""
    return float(np.mean([corpus_scores(df)[metric] for _, df in rows.groupby("seed")]))


def _row(interval: Interval, scale: float) -> dict[str, object]:
    return {
        "estimate": scale * interval.estimate,
        "low": scale * interval.low,
        "high": scale * interval.high,
        "sentences": interval.n_sentences,
        "seeds": interval.n_seeds[0],
        "interval": interval,
    }


def drops_table(per_sentence: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """The drop from normal to Jabberwocky per (representation, probe), §5.2.

    For each probe on its own metric, :func:`jabberwocky_drop_interval` at ``level``; UUAS in
    points. Columns: representation, probe, metric, normal, Jabberwocky (corpus scores, means
    over seeds), estimate (the drop), low, high, sentences, seeds and ``interval`` (the
    :class:`~probekit.stats.intervals.Interval`, in the metric's own units).
    """
    rows = []
    for (rep, kind), df in per_sentence.groupby(["representation", "kind"], sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        means = {d: _seed_mean(df[df["dataset"] == d], metric) for d in DATASETS}
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "normal": scale * means["normal"],
                "Jabberwocky": scale * means["Jabberwocky"],
                **_row(jabberwocky_drop_interval(df, metric, level), scale),
            }
        )
    return pd.DataFrame(rows)


def leads_table(
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, level: float = LEVEL
) -> pd.DataFrame:
    """The lead of each probe over the better word-blind baseline, on each dataset (§5.2).

    The baseline is the better of linear chain and majority tree on the probe's metric
    (:func:`~probekit.experiments.part2_jabberwocky.baselines.best_baseline`; the same on both
    datasets). Lead = probe − baseline (:func:`baseline_lead_interval` at ``level``); UUAS in
    points. Columns: representation, probe, metric, dataset, baseline, estimate, low, high,
    sentences, seeds and ``interval``.
    """
    rows = []
    for (rep, kind, dataset), df in per_sentence.groupby(
        ["representation", "kind", "dataset"], sort=False
    ):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        base = best_baseline(baselines, metric)
        interval = baseline_lead_interval(
            df, baselines[baselines["baseline"] == base], metric, level
        )
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "dataset": dataset,
                "baseline": base,
                **_row(interval, scale),
            }
        )
    return pd.DataFrame(rows)


def probe_rows(per_sentence: pd.DataFrame, representation: str, kind: str) -> pd.DataFrame:
    """The per-sentence rows of one probe (``kind``) on one ``representation``, both datasets.

    ``ParameterError`` naming ``representation`` when there are none.
    """
    rows = per_sentence[
        (per_sentence["representation"] == representation) & (per_sentence["kind"] == kind)
    ]
    if rows.empty:
        raise ParameterError("representation", f"no {kind} rows for {representation!r}")
    return rows
