"""Chapter 41: every scoring function and its split on one sample (Kunz & Kuhlmann 2021).

It follows §3.3-3.5 and gives the set sizes, score distributions and example items the chapter
shows.

:func:`survey_splits` does the chapter's computation in one call; the other functions read its
result.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.deviations import MAX_CAP_SHARE, cap_share
from probekit.experiments.part4_extrapolation.config import ScoringFunctionsConfig
from probekit.experiments.part4_extrapolation.figures import SCORE_PANELS
from probekit.experiments.part4_extrapolation.sample import (
    TASK_LABEL,
    Sample,
    load_sample,
    task_examples,
)
from probekit.experiments.part4_extrapolation.scoring import (
    EnsembleScores,
    ensemble_scores,
    split_scores,
)
from probekit.experiments.part4_extrapolation.splits import TASK_SPLITS, build_splits
from probekit.experiments.part4_extrapolation.tables import example_items, split_sizes
from probekit.io import tasks
from probekit.methods.extrapolation import splits as extrapolation_splits
from probekit.representations.layers import resolve_layer, resolve_layers

# Glue key prefix -> split whose points and set sizes the chapter's prose quotes.
SIZE_KEYS: dict[str, str] = {
    "len_pos": "T1 sentence_length_pos",
    "len_dep": "T2 sentence_length_deprel",
    "arc": "T2 arc_length",
    "arcmod": "T2 arc_length_modified",
    "mft": "T1 most_frequent_tag",
    "tp": "T1 tag_proportion",
    "speed_pos": "T1 speed_of_learning",
    "loss_pos": "T1 sample_loss",
}
# Splits whose easy and hard items the chapter shows: (task, split).
EXAMPLE_SPLITS: tuple[tuple[str, str], ...] = (
    ("deprel", "arc_length"),
    ("pos", "most_frequent_tag"),
    ("pos", "speed_of_learning"),
)


@dataclass(frozen=True, eq=False)
class SplitSurvey:
    """Every split of both tasks on one sample (:func:`survey_splits`).

    ``examples`` maps a task to its (train, eval) examples; ``entries`` maps a split, named
    e.g. "T1 tag_proportion", to (split points, train scores (N,), eval scores (M,)), learning-
    based ones at ``score_layer``; ``skipped`` maps a split that could not be made to the
    reason; ``sizes`` is :func:`~probekit.experiments.part4_extrapolation.tables.split_sizes`
    of ``entries``; ``ensembles`` maps a task to its scoring ensemble.
    """

    config: ScoringFunctionsConfig
    sample: Sample
    layers: list[int]
    score_layer: int
    examples: dict[str, tuple[tasks.Examples, tasks.Examples]]
    entries: dict[str, tuple[extrapolation_splits.SplitPoints, np.ndarray, np.ndarray]]
    skipped: dict[str, str]
    sizes: pd.DataFrame
    ensembles: dict[str, EnsembleScores]


def survey_splits(config: ScoringFunctionsConfig) -> SplitSurvey:
    """Sample, embed, score and split both tasks (Kunz & Kuhlmann 2021, §3.3-3.5).

    Every split of :data:`~probekit.experiments.part4_extrapolation.splits.TASK_SPLITS`, with
    the learning-based scores of a probe ensemble per layer (§3.4.3, cached, so chapter 44
    reads them back); ``config.score_layer`` (negative counts from the last layer) must be one
    of the scored layers.
    """
    sample = load_sample(config)
    layer_list = resolve_layers(config.layers, sample.n_layers)
    shown = resolve_layer(config.score_layer, sample.n_layers, "score_layer")
    if shown not in layer_list:
        raise ParameterError("score_layer", f"{shown} is not among the layers {layer_list}")
    pos = layer_list.index(shown)
    examples, entries, skipped, ensembles = {}, {}, {}, {}
    for task, names in TASK_SPLITS.items():
        train, evaluation = task_examples(task, sample)
        examples[task] = (train, evaluation)
        learned = ensembles[task] = ensemble_scores(
            sample, task, layer_list, config.ensemble_seeds, config.epochs, config.order,
            config.ensemble_folds, config.fold_seed, device=config.device,
        )  # fmt: skip
        _, points, skip = build_splits(
            names, train, evaluation, len(layer_list), learned,
            include_top_ties=config.widen_top_ties,
        )  # fmt: skip
        for name, p in points.items():
            ts, es = split_scores(name, train, evaluation, learned, pos)
            entries[f"{TASK_LABEL[task]} {name}"] = (p[pos] if isinstance(p, list) else p, ts, es)
        skipped.update({f"{TASK_LABEL[task]} {k}": v for k, v in skip.items()})
    return SplitSurvey(
        config, sample, layer_list, shown, examples, entries, skipped, split_sizes(entries),
        ensembles,
    )  # fmt: skip


def survey_values(survey: SplitSurvey) -> dict[str, object]:
    """Chapter 41's glue values.

    Sample and example counts, the ensemble (its folds, and the share (%) of its probes whose
    loss on the examples they score was still falling at their last epoch, ``cap_share``), the
    size control's half, the layer shown, the skipped splits, and m1, m2, easy % and hard % of
    each split of :data:`SIZE_KEYS` (NaN for a skipped split).
    """
    (pos_train, pos_eval), (dep_train, dep_eval) = survey.examples["pos"], survey.examples["deprel"]
    v: dict[str, object] = {
        "n_train_sentences": len(survey.sample.train),
        "n_eval_sentences": len(survey.sample.eval),
        "n_train_words": len(pos_train),
        "n_eval_words": len(pos_eval),
        "n_train_arcs": len(dep_train),
        "n_eval_arcs": len(dep_eval),
        "n_ensemble": len(survey.config.ensemble_seeds),
        "n_layers": len(survey.layers),
        "score_layer": int(survey.score_layer),
        "pooling": survey.config.pooling,
        "skipped": "; ".join(f"{k}: {v}" for k, v in survey.skipped.items()) or "none",
        "ensemble_folds": int(survey.config.ensemble_folds),
        "n_half_words": int(len(pos_train) // 2),
        "n_half_arcs": int(len(dep_train) // 2),
    }
    falling = [np.asarray(e.still_falling).ravel() for e in survey.ensembles.values()]
    v |= {"n_ensemble_probes": int(sum(len(f) for f in falling)), "cap_max": 100 * MAX_CAP_SHARE}
    v["cap_share"] = 100 * cap_share(list(np.concatenate(falling))) if falling else float("nan")
    v["cap_ok"] = "below" if v["cap_share"] < 100 * MAX_CAP_SHARE else "not below"
    sizes = survey.sizes
    for key, split in SIZE_KEYS.items():
        have = split in sizes.index
        for column, suffix in (
            ("m1", "m1"),
            ("m2", "m2"),
            ("easy %", "easy_pct"),
            ("hard %", "hard_pct"),
        ):
            v[f"{key}_{suffix}"] = float(sizes.loc[split, column]) if have else float("nan")
    return v


def score_panels(
    survey: SplitSurvey,
) -> dict[str, tuple[np.ndarray, np.ndarray, extrapolation_splits.SplitPoints]]:
    """The panels of the score-distribution figure, one per split that was made.

    Maps title -> (train scores, eval scores, split points), for each split of
    :data:`~probekit.experiments.part4_extrapolation.figures.SCORE_PANELS` that was made.
    """
    return {
        title: (survey.entries[k][1], survey.entries[k][2], survey.entries[k][0])
        for k, title in SCORE_PANELS.items()
        if k in survey.entries
    }


def easy_hard_examples(survey: SplitSurvey) -> pd.DataFrame:
    """Easy training and hard evaluation items of each split of :data:`EXAMPLE_SPLITS` (§3.5).

    ``config.n_examples`` of each, drawn with ``config.sample_seed``
    (:func:`~probekit.experiments.part4_extrapolation.tables.example_items`). Index: split,
    set ("easy (train)" or "hard (eval)"), word; columns: label, score, context.
    """
    k, seed = survey.config.n_examples, survey.config.sample_seed
    frames = []
    for task, name in EXAMPLE_SPLITS:
        split = f"{TASK_LABEL[task]} {name}"
        if split not in survey.entries:
            continue
        p, ts, es = survey.entries[split]
        train, evaluation = survey.examples[task]
        easy_mask = extrapolation_splits.easy_mask(ts, p)
        hard_mask = extrapolation_splits.hard_mask(es, p)
        easy = example_items(survey.sample.train, train, ts, easy_mask, k, seed=seed)
        hard = example_items(survey.sample.eval, evaluation, es, hard_mask, k, seed=seed)
        frames += [
            easy.assign(split=split, set="easy (train)"),
            hard.assign(split=split, set="hard (eval)"),
        ]
    columns = ["split", "set", "word", "label", "score", "context"]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return table[columns].set_index(["split", "set", "word"])
