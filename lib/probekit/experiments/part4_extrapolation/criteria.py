"""One call per chapter 42-44: sample, score, split and train (Kunz & Kuhlmann 2021, §3-4).

:func:`run_criteria` goes from a chapter's configuration and its splits to the probes of every
task and the combined tables the chapter shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.config import CriteriaConfig, LearningCriteriaConfig
from probekit.experiments.part4_extrapolation.runs import TaskRun, run_task
from probekit.experiments.part4_extrapolation.sample import Sample, load_sample
from probekit.experiments.part4_extrapolation.scoring import (
    EnsembleScores,
    ensemble_scores,
    is_learning_split,
)
from probekit.experiments.part4_extrapolation.tables import combined_tables
from probekit.representations.layers import resolve_layer, resolve_layers


@dataclass(frozen=True, eq=False)
class ChapterRun:
    """What a Part IV chapter shows: its sample, probed layers, task runs and combined tables.

    ``tasks`` maps "pos" (T1) or "deprel" (T2) to its
    :class:`~probekit.experiments.part4_extrapolation.runs.TaskRun`; ``probes`` and ``gaps``
    are the combined probe and gap tables of those runs (Kunz & Kuhlmann 2021, §3.3-3.6, §4);
    ``compare_layer`` is the chapter's ``compare_layer`` resolved to one of ``layers``;
    ``ensembles`` maps a task to the scoring ensemble of its learning-based splits (empty
    without them).
    """

    config: CriteriaConfig
    sample: Sample
    layers: list[int]
    compare_layer: int
    tasks: dict[str, TaskRun]
    probes: pd.DataFrame
    gaps: pd.DataFrame
    ensembles: dict[str, EnsembleScores] = field(default_factory=dict)


def run_criteria(
    config: CriteriaConfig,
    splits: Mapping[str, Sequence[str]],
    controls: Mapping[str, Sequence[str]] | None = None,
    compared: Mapping[str, Sequence[str]] | None = None,
) -> ChapterRun:
    """Sample, embed and run the splits ``splits[task]`` of each task (Kunz & Kuhlmann 2021, §3).

    ``splits`` maps a task to its split names, e.g.
    :data:`~probekit.experiments.part4_extrapolation.splits.LENGTH_SPLITS`; ``controls`` maps a
    task to further splits whose control setup alone is scored, and ``compared`` to further
    splits whose setups are also trained and scored at ``compare_layer``, to compare their gaps
    with a main split's there (:func:`~probekit.experiments.part4_extrapolation.runs.run_task`).
    Learning-based splits need a
    :class:`~probekit.experiments.part4_extrapolation.config.LearningCriteriaConfig`: each task
    then first gets its scores from
    :func:`~probekit.experiments.part4_extrapolation.scoring.ensemble_scores` (§3.4.3).
    ``config.layers`` empty means all layers; ``compare_layer`` (negative counts from the last
    layer) must be one of the probed layers.
    """
    learning = any(is_learning_split(name) for names in splits.values() for name in names)
    if learning and not isinstance(config, LearningCriteriaConfig):
        raise ParameterError(
            "ensemble_seeds",
            "is not set, but learning-based splits need the scoring ensemble",
            "declare ensemble_seeds in the chapter's parameters cell",
        )
    sample = load_sample(config)
    layer_list = resolve_layers(config.layers, sample.n_layers)
    compare = resolve_layer(config.compare_layer, sample.n_layers, "compare_layer")
    if compare not in layer_list:
        raise ParameterError(
            "compare_layer", f"layer {compare} is not among the probed layers {layer_list}"
        )
    runs, ensembles = {}, {}
    for task, names in splits.items():
        learned = None
        if isinstance(config, LearningCriteriaConfig):
            learned = ensembles[task] = ensemble_scores(
                sample, task, layer_list, config.ensemble_seeds, config.epochs, config.order,
                config.ensemble_folds, config.fold_seed, device=config.device,
            )  # fmt: skip
        runs[task] = run_task(
            sample, task, names, layer_list, config.seeds, config.epochs, config.order, learned,
            (controls or {}).get(task, ()), config.size_seed, config.widen_top_ties,
            device=config.device, compared=(compared or {}).get(task, ()), compare_layer=compare,
            epoch_folds=config.epoch_folds,
        )  # fmt: skip
    probes, gaps = combined_tables(list(runs.values()))
    return ChapterRun(config, sample, layer_list, compare, runs, probes, gaps, ensembles)
