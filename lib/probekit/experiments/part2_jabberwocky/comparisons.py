"""The paired comparisons of chapter 22 (Hall Maudslay & Cotterell 2021, §5.2).

The drop of each probe from normal to Jabberwocky sentences and its lead over the best
word-blind baseline, each a bootstrap over test sentences, plus McNemar's test on gold edges.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.comparison import (
    paired_difference,
    probe_edge_outcomes,
)
from probekit.experiments.part2_jabberwocky.baselines import best_baseline
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import (
    METRIC,
    METRIC_LABELS,
    PROBE_LABELS,
    RepresentationRun,
)
from probekit.stats.bootstrap import PairedBootstrap
from probekit.stats.comparison import compare
from probekit.trees.evaluation import EvalSet, corpus_scores


def _verdict_row(res: PairedBootstrap, scale: float) -> dict[str, object]:
    return {
        "estimate": scale * res.diff,
        "low": scale * res.low,
        "high": scale * res.high,
        "sentences": res.n,
        "p_value": res.p_value,
        "verdict": res.verdict,
    }


def drops_table(per_sentence: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """The drop from normal to Jabberwocky per (representation, probe), §5.2.

    For each probe on its own metric: normal − Jabberwocky, paired over test sentences
    (:func:`~probekit.experiments.part1_probe_parser.comparison.paired_difference`); UUAS in
    points. Columns: representation, probe, metric, normal, Jabberwocky, estimate (the drop),
    low, high, sentences, p_value, verdict, claim (the paper's claim "the probe does worse on
    Jabberwocky": holds, reversed or not shown).
    """
    rows = []
    for (rep, kind), df in per_sentence.groupby(["representation", "kind"], sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        normal, jab = (df[df["dataset"] == d] for d in DATASETS)
        res = paired_difference(normal, jab, metric, "normal", "Jabberwocky", n_boot, seed)
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "normal": scale * corpus_scores(normal)[metric],
                "Jabberwocky": scale * corpus_scores(jab)[metric],
                **_verdict_row(res, scale),
                "claim": res.supports("normal"),
            }
        )
    return pd.DataFrame(rows)


def leads_table(
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, n_boot: int, seed: int
) -> pd.DataFrame:
    """The lead of each probe over the best simple baseline, on each dataset (§5.2).

    The baseline is the better of linear chain and majority tree on the probe's metric
    (:func:`~probekit.experiments.part2_jabberwocky.baselines.best_baseline`; the same on both
    datasets). Lead = probe − baseline, paired over test sentences
    (:func:`~probekit.experiments.part1_probe_parser.comparison.paired_difference`); UUAS in
    points. Columns: representation, probe, metric, dataset, baseline, estimate, low, high,
    sentences, p_value, verdict.
    """
    rows = []
    for (rep, kind, dataset), df in per_sentence.groupby(
        ["representation", "kind", "dataset"], sort=False
    ):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        base = best_baseline(baselines, metric)
        res = paired_difference(
            df, baselines[baselines["baseline"] == base], metric, rep, base, n_boot, seed
        )
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "dataset": dataset,
                "baseline": base,
                **_verdict_row(res, scale),
            }
        )
    return pd.DataFrame(rows)


def jabberwocky_edge_comparison(
    run: RepresentationRun,
    test_embs: Mapping[str, object],
    gold: EvalSet,
    seed: int,
    kind: str = "perceptron",
):
    """McNemar's test of one probe's gold-edge outcomes, normal against Jabberwocky test set.

    The test is :func:`probekit.stats.comparison.compare`, on the outcomes of
    :func:`probekit.trees.evaluation.edge_outcomes` (same trees, so the edges pair up).

    The probe is ``run``'s ``kind`` trained with ``seed`` on its dev-chosen layer;
    ``test_embs`` maps "normal" and "Jabberwocky" to that representation's embeddings. Edges of
    one sentence are not independent, so read the p-value as optimistic; the sentence bootstrap
    of :func:`drops_table` is the primary evidence.
    """
    if kind not in run.chosen:
        raise ParameterError("kind", f"must be one of {sorted(run.chosen)}, got {kind!r}")
    layer = run.chosen[kind]
    if (kind, layer, seed) not in run.probes:
        raise ParameterError(
            "seed", f"no {kind} probe was trained with seed {seed} on layer {layer}"
        )
    probe = run.probes[(kind, layer, seed)]
    outcomes = {d: probe_edge_outcomes(probe, test_embs[d], layer, gold) for d in DATASETS}
    return compare(outcomes["normal"], outcomes["Jabberwocky"], "normal", "Jabberwocky")
