"""Probe against parser on test sentences (Hall Maudslay et al. 2020, §5).

The layer the two are compared on, their test scores and tables over seeds, and how much of an
interval of their differences
(:func:`probekit.experiments.tree_probing.intervals.tree_metric_interval`) the training seeds
account for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.tree_probing.training import LABELS, per_sentence_scores
from probekit.probes.structural import DistanceProbe
from probekit.representations.layers import resolve_layer
from probekit.stats.intervals import Interval
from probekit.trees.evaluation import METRICS, EvalSet, corpus_scores, linear_baselines


def best_layer(scores: pd.DataFrame, metric: str = "uuas") -> int:
    """The layer with the highest dev ``metric`` averaged over kinds and seeds (ties: lowest).

    ``scores``: the table of
    :func:`~probekit.experiments.tree_probing.training.train_layers`.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    means = scores.groupby("layer")[metric].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


def comparison_layer(compare_layer: int | None, scores: pd.DataFrame, n_layers: int) -> int:
    """The layer of the test comparison.

    ``compare_layer`` (negative counts from the last layer), or with None the best dev layer by
    mean UUAS (:func:`best_layer`). It must be one of the layers in ``scores``.
    """
    if compare_layer is None:
        return best_layer(scores, "uuas")
    layer = resolve_layer(compare_layer, n_layers, "compare_layer")
    trained = sorted(set(scores["layer"].tolist()))
    if layer not in trained:
        raise ParameterError(
            "compare_layer", f"layer {layer} was not trained", f"trained layers: {trained}"
        )
    return layer


def comparison_layer_rule(compare_layer: int | None) -> str:
    """How :func:`comparison_layer` chose the layer, in words for the prose."""
    return "the best dev layer by mean UUAS" if compare_layer is None else "set by parameter"


# --------------------------------------------------------------------------------------------
# The seeds' share of an interval of differences


def interval_seed_share(interval: Interval) -> float:
    """The share (%) of an interval's variance that comes from training seeds.

    ``se_seeds² / se²`` of :class:`~probekit.stats.intervals.Interval`; 0 for an interval
    without seed variance.
    """
    return 100.0 * interval.se_seeds**2 / interval.se**2 if interval.se > 0 else 0.0


# --------------------------------------------------------------------------------------------
# Tables of test scores


def seed_scores(per_sentence: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores per (kind, seed) from per-sentence score rows.

    The scores are :func:`~probekit.trees.evaluation.corpus_scores` of the rows of
    :func:`~probekit.experiments.tree_probing.training.per_sentence_scores`; columns
    ``kind``, ``seed``, ``uuas``, ``dspr``, ``dspr_pfw``.
    """
    rows = [
        {"kind": kind, "seed": seed, **corpus_scores(df)}
        for (kind, seed), df in per_sentence.groupby(["kind", "seed"], sort=True)
    ]
    return pd.DataFrame(rows)


def results_table(per_seed: pd.DataFrame, baseline: Mapping[str, float]) -> pd.DataFrame:
    """Mean and SD over seeds of each kind's scores, plus the linear-chain baseline row.

    UUAS in %, DSpr as correlations. ``per_seed``: :func:`seed_scores`; ``baseline``:
    :func:`probekit.trees.evaluation.linear_baselines`. One row per model ("probe", "parser",
    "linear-chain baseline"), columns ``seeds``, ``<metric>`` and ``<metric> SD``.
    """
    scale = {"uuas": 100.0, "dspr": 1.0, "dspr_pfw": 1.0}
    names = {"uuas": "UUAS (%)", "dspr": "DSpr", "dspr_pfw": "DSpr P+FW"}
    rows = []
    for kind, df in per_seed.groupby("kind", sort=False):
        row = {"model": LABELS.get(kind, kind), "seeds": len(df)}
        for m in METRICS:
            row[names[m]] = scale[m] * df[m].mean()
            row[f"{names[m]} SD"] = scale[m] * df[m].std(ddof=1) if len(df) > 1 else 0.0
        rows.append(row)
    chain = {"model": "linear-chain baseline", "seeds": 0}
    for m in METRICS:
        chain |= {names[m]: scale[m] * baseline[m], f"{names[m]} SD": 0.0}
    rows.append(chain)
    return pd.DataFrame(rows).set_index("model")


@dataclass(frozen=True, eq=False)
class HeldOutScores:
    """Both models on the test sentences at the comparison ``layer``.

    ``per_sentence`` rows
    (:func:`~probekit.experiments.tree_probing.training.per_sentence_scores`),
    ``per_seed`` corpus scores (:func:`seed_scores`) and the ``table`` of
    :func:`results_table`.
    """

    layer: int
    per_sentence: pd.DataFrame
    per_seed: pd.DataFrame
    table: pd.DataFrame


def held_out_scores(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    scores: pd.DataFrame,
    test_emb,
    test: EvalSet,
    compare_layer: int | None,
    device: str = "cpu",
) -> HeldOutScores:
    """Score every probe of the comparison layer on the ``test`` trees (§5 of the paper).

    The layer is :func:`comparison_layer` of the dev ``scores``. ``probes``, ``scores``: as
    :func:`~probekit.experiments.tree_probing.training.train_layers` returns them;
    ``test_emb``: the test sentences' embeddings; the distances are computed on ``device``.
    """
    layer = comparison_layer(compare_layer, scores, test_emb.n_layers)
    per_sentence = per_sentence_scores(probes, test_emb, test, layer, device)
    per_seed = seed_scores(per_sentence)
    table = results_table(per_seed, linear_baselines(test))
    return HeldOutScores(layer, per_sentence, per_seed, table)
