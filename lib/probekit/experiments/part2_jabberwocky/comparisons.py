"""The paired comparisons of chapter 22 (Hall Maudslay & Cotterell 2021, §5.2): the drop of each
probe from normal to Jabberwocky sentences and its lead over the best word-blind baseline, each
a bootstrap over test sentences, plus McNemar's test on gold edges.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.baselines import best_baseline
from probekit.experiments.part2_jabberwocky.corpus import DATASETS
from probekit.experiments.part2_jabberwocky.probes import METRIC, METRIC_LABELS, PROBE_LABELS
from probekit.probes.structural import predict_distances
from probekit.representations.layers import layer_vectors
from probekit.stats.bootstrap import PairedBootstrap, paired_bootstrap
from probekit.stats.comparison import compare
from probekit.trees.evaluation import METRICS, EvalSet, corpus_scores, edge_outcomes, length_weights


def _seed_mean(per_sentence: pd.DataFrame, metric: str) -> pd.Series:
    """Per-sentence ``metric`` averaged over seeds, indexed by sentence."""
    return per_sentence.groupby("sentence")[metric].mean()


def difference(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metric: str,
    name_a: str,
    name_b: str,
    n_boot: int,
    seed: int,
) -> PairedBootstrap:
    """Paired bootstrap over test sentences of corpus-level ``metric``(a) − ``metric``(b).

    ``a`` and ``b``: per-sentence rows (``sentence``, ``length``, ``uuas_total``, metric; any
    number of seeds, averaged per sentence first) on the same sentences and trees. Weights make
    the statistic the corpus-level metric (:func:`probekit.experiments.part1_probe_parser.comparison.compare_models`):
    gold edges for UUAS, 1 / #(sentences of that length) within 5..50 words for DSpr. Sentences
    undefined for either side are left out. UUAS differences are fractions (× 100 for points).
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    x, y = _seed_mean(a, metric), _seed_mean(b, metric)
    shared = x.index.intersection(y.index)
    info = a.groupby("sentence")[["length", "uuas_total"]].first().loc[shared]
    xv, yv = x.loc[shared].to_numpy(), y.loc[shared].to_numpy()
    ok = np.isfinite(xv) & np.isfinite(yv)
    if metric == "uuas":
        w = info["uuas_total"].to_numpy(dtype=np.float64)
    else:
        # Length weights over the sentences kept (0 = out of range), as corpus_scores() counts them.
        w = length_weights(np.where(ok, info["length"].to_numpy(), 0))
    ok &= w > 0
    return paired_bootstrap(
        xv[ok], yv[ok], n_boot=n_boot, seed=seed, weights=w[ok], name_a=name_a, name_b=name_b
    )


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
    (:func:`difference`); UUAS in points. Columns: representation, probe, metric, normal,
    Jabberwocky, estimate (the drop), low, high, sentences, p_value, verdict, claim (the
    paper's claim "the probe does worse on Jabberwocky": holds, reversed or not shown).
    """
    rows = []
    for (rep, kind), df in per_sentence.groupby(["representation", "kind"], sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        normal, jab = (df[df["dataset"] == d] for d in DATASETS)
        res = difference(normal, jab, metric, "normal", "Jabberwocky", n_boot, seed)
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
    (:func:`best_baseline`; the same on both datasets). Lead = probe − baseline, paired over
    test sentences (:func:`difference`); UUAS in points. Columns: representation, probe,
    metric, dataset, baseline, estimate, low, high, sentences, p_value, verdict.
    """
    rows = []
    for (rep, kind, dataset), df in per_sentence.groupby(
        ["representation", "kind", "dataset"], sort=False
    ):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        base = best_baseline(baselines, metric)
        res = difference(
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


def jabberwocky_edge_comparison(probe, layer: int, test_embs: Mapping[str, object], gold: EvalSet):
    """McNemar's test (:func:`probekit.stats.comparison.compare`) of one probe's gold-edge
    outcomes on the normal against the Jabberwocky test set
    (:func:`probekit.trees.evaluation.edge_outcomes`; same trees, so the edges pair up).
    ``test_embs`` maps "normal" and "Jabberwocky" to embeddings. Edges of one sentence are not
    independent, so read the p-value as optimistic; the sentence bootstrap of
    :func:`drops_table` is the primary evidence."""

    outcomes = {
        d: edge_outcomes(predict_distances(probe, layer_vectors(test_embs[d], layer)), gold)
        for d in DATASETS
    }
    return compare(outcomes["normal"], outcomes["Jabberwocky"], "normal", "Jabberwocky")
