"""The per-sentence arrays behind every interval of Parts I and II (§5 of both papers).

What each model scores in each test sentence under each seed, with the sentence's units (gold
edges for UUAS, length weights for DSpr), so that sentences and seeds both enter the interval
of a difference (:func:`probekit.stats.intervals.crossed_interval`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval, crossed_interval
from probekit.trees.evaluation import METRICS, length_weights


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
    :func:`~probekit.experiments.tree_probing.training.per_sentence_scores` (``seed``,
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
