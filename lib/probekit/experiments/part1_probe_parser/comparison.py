"""Probe against parser on test sentences (Hall Maudslay et al. 2020, §5).

The layer the two are compared on, their test scores and tables over seeds, and the per-sentence
arrays behind every interval of Parts I and II: what each model scores in each test sentence
under each seed, with the sentence's units (gold edges for UUAS, length weights for DSpr), so
that sentences and seeds both enter the interval of a difference
(:func:`probekit.stats.intervals.crossed_interval`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.training import LABELS, per_sentence_scores
from probekit.probes.structural import DistanceProbe
from probekit.representations.layers import resolve_layer
from probekit.stats.intervals import Interval, crossed_interval
from probekit.trees.evaluation import (
    METRICS,
    EvalSet,
    corpus_scores,
    length_weights,
    linear_baselines,
)


def best_layer(scores: pd.DataFrame, metric: str = "uuas") -> int:
    """The layer with the highest dev ``metric`` averaged over kinds and seeds (ties: lowest).

    ``scores``: the table of
    :func:`~probekit.experiments.part1_probe_parser.training.train_layers`.
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
# Per-sentence arrays and the intervals of differences


@dataclass(frozen=True, eq=False)
class TreeMetricArrays:
    """What several models score in each of the same test sentences, seed by seed.

    ``scores`` holds one (k, n) array per model (k its seeds, n the sentences kept); ``units``
    (n,) the sentences' units; ``seeds`` each model's seeds in the order of its rows;
    ``sentences`` (n,) the sentence indices kept. For ``"uuas"`` a score is the number of gold
    edges the model's tree recovers and the units are the gold edges UUAS counts; for DSpr
    (``"dspr"``, ``"dspr_pfw"``) a score is ``w_i * dspr_i`` and the units are the length
    weights ``w_i`` (:func:`probekit.trees.evaluation.length_weights`), so that the ratio of
    sums is DSpr as Hewitt & Manning 2019 (§3.1) average it: per length, then over lengths.
    """

    scores: tuple[np.ndarray, ...]
    units: np.ndarray
    seeds: tuple[tuple[int, ...], ...]
    sentences: np.ndarray


def _by_seed(rows: pd.DataFrame, column: str, name: str) -> pd.DataFrame:
    """(seeds × sentences) table of one column; rows without a ``seed`` are one 'seed' (0)."""
    if rows.empty:
        raise ParameterError(name, "has no rows")
    rows = rows if "seed" in rows.columns else rows.assign(seed=0)
    if rows.duplicated(["seed", "sentence"]).any():
        raise ParameterError(name, "has more than one row per (seed, sentence)")
    return rows.pivot(index="seed", columns="sentence", values=column).sort_index()


def tree_metric_arrays(models: Sequence[pd.DataFrame], metric: str) -> TreeMetricArrays:
    """Per-sentence scores and units of ``models`` on their shared test sentences.

    Each model is given by its rows of
    :func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores` (``seed``,
    ``sentence``, ``length``, ``uuas_correct``, ``uuas_total`` and the metric), all on the same
    trees; rows without a ``seed`` column (a deterministic baseline) are one seed. A sentence
    is kept when every model has it under every seed, it has units (gold edges for UUAS, 5 to
    50 words for DSpr) and every value is finite; the length weights are those of the kept
    sentences, so the ratio of sums is each model's corpus metric
    (:func:`probekit.trees.evaluation.corpus_scores`) averaged over its seeds.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    if not models:
        raise ParameterError("models", "needs at least one model's rows")
    column = "uuas_correct" if metric == "uuas" else metric
    tables = [_by_seed(m, column, f"models[{i}]") for i, m in enumerate(models)]
    info = models[0].groupby("sentence")[["length", "uuas_total"]].first()
    shared = info.index
    for table in tables:
        shared = shared.intersection(table.columns)
    for i, m in enumerate(models[1:], start=1):
        other = m.groupby("sentence")[["length", "uuas_total"]].first().reindex(shared)
        if not np.array_equal(other.to_numpy(np.float64), info.loc[shared].to_numpy(np.float64)):
            raise ParameterError(f"models[{i}]", "is not scored on the same trees")
    info = info.loc[shared]
    values = [t[shared].to_numpy(dtype=np.float64) for t in tables]
    if metric == "uuas":
        keep = info["uuas_total"].to_numpy() > 0
    else:
        keep = length_weights(info["length"].to_numpy()) > 0
    for v in values:
        keep &= np.isfinite(v).all(axis=0)
    if keep.sum() < 2:
        raise ParameterError("models", f"fewer than 2 test sentences can be scored on {metric}")
    if metric == "uuas":
        units = info["uuas_total"].to_numpy(dtype=np.float64)[keep]
        scores = tuple(v[:, keep] for v in values)
    else:
        units = length_weights(info["length"].to_numpy()[keep])
        scores = tuple(units * v[:, keep] for v in values)
    seeds = tuple(tuple(int(s) for s in t.index) for t in tables)
    return TreeMetricArrays(scores, units, seeds, np.asarray(shared)[keep])


def tree_metric_interval(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metric: str,
    level: float,
    *,
    paired_seeds: bool = False,
) -> Interval:
    """Interval of ``metric``(a) − ``metric``(b) over test sentences and seeds.

    :func:`probekit.stats.intervals.crossed_interval` on the :func:`tree_metric_arrays` of the two
    models (fractions for UUAS, correlation units for DSpr). ``paired_seeds``: ``a``'s seed s
    and ``b``'s seed s are one trained probe scored twice (on the normal and the Jabberwocky
    version of the same sentences); both must have the same seeds. A model whose rows have no
    ``seed`` column is deterministic: one "seed", no seed variance.
    """
    arrays = tree_metric_arrays([a, b], metric)
    if paired_seeds and arrays.seeds[0] != arrays.seeds[1]:
        raise ParameterError(
            "seeds", f"paired seeds differ: {list(arrays.seeds[0])} and {list(arrays.seeds[1])}"
        )
    return crossed_interval(
        arrays.scores[0], arrays.scores[1], arrays.units, level, paired_seeds=paired_seeds
    )


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
    :func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`; columns
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
    (:func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`),
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
    :func:`~probekit.experiments.part1_probe_parser.training.train_layers` returns them;
    ``test_emb``: the test sentences' embeddings; the distances are computed on ``device``.
    """
    layer = comparison_layer(compare_layer, scores, test_emb.n_layers)
    per_sentence = per_sentence_scores(probes, test_emb, test, layer, device)
    per_seed = seed_scores(per_sentence)
    table = results_table(per_seed, linear_baselines(test))
    return HeldOutScores(layer, per_sentence, per_seed, table)
