"""The splits each Part IV chapter makes and their setups (Kunz & Kuhlmann 2021, §3.5-3.6, §4).

A split is named after its rule
(:data:`~probekit.experiments.part4_extrapolation.scoring.SPLIT_SCORER` gives its scoring
function). :func:`build_splits` turns a task's splits into split points and the masks of their
setups (the easy training set and the hard evaluation set), one set per layer for the
learning-based scores, and reports the splits that cannot be made on the sample instead of
stopping the chapter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.scoring import (
    LearnedScores,
    is_learning_split,
    split_scores,
)
from probekit.io import tasks
from probekit.methods.extrapolation import splits as extrapolation_splits

# The setups every split reports: the three of §3.6 and the size control of §3.5, scored on all
# evaluation examples as in the paper and on the split's hard set (our comparison for the
# extrapolation setup at about the same training-set size).
EXPERIMENT_SETUPS: tuple[str, ...] = extrapolation_splits.SETUPS
# The setups that depend on the split: its easy training set and its hard evaluation set.
SPLIT_SETUPS: tuple[str, ...] = ("control", "extrapolation")

# The splits of each task (§3.5, §4): T1 part-of-speech tags, T2 dependency labels.
TASK_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": (
        "sentence_length_linguistic",
        "sentence_length_pos",
        "tag_proportion",
        "most_frequent_tag",
        "sample_loss",
        "speed_of_learning",
    ),
    "deprel": (
        "sentence_length_linguistic",
        "sentence_length_deprel",
        "arc_length",
        "arc_length_modified",
        "sample_loss",
        "speed_of_learning",
    ),
}
# The splits each chapter trains, per task: length (§4.1-4.2), tag (§4.3) and learning
# criteria (§4.4-4.5).
LENGTH_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": ("sentence_length_linguistic", "sentence_length_pos"),
    "deprel": (
        "sentence_length_linguistic",
        "sentence_length_deprel",
        "arc_length",
        "arc_length_modified",
    ),
}
TAG_SPLITS: dict[str, tuple[str, ...]] = {"pos": ("most_frequent_tag", "tag_proportion")}
LEARNING_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": ("speed_of_learning", "sample_loss"),
    "deprel": ("speed_of_learning", "sample_loss"),
}
# The splits of the other scoring functions whose control setup chapter 44 also scores, to
# compare every control accuracy with sample loss's (§4.5). The modified arc-length split is
# left out: its hard set is arc length's (the same m2).
LOSS_REFERENCE_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": (
        "sentence_length_linguistic",
        "sentence_length_pos",
        "most_frequent_tag",
        "tag_proportion",
    ),
    "deprel": ("sentence_length_linguistic", "sentence_length_deprel", "arc_length"),
}
# The splits of the other scoring functions whose control - extrapolation gaps chapter 44
# compares with speed of learning's (§4.4: "the largest among all settings"), each within its
# task; sample loss, the chapter's other split, is compared too. Their extrapolation probes
# train at the compared layer only. The modified arc-length split is a setting of its own here:
# its easy set differs from arc length's.
GAP_REFERENCE_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": (
        "sentence_length_linguistic",
        "sentence_length_pos",
        "most_frequent_tag",
        "tag_proportion",
    ),
    "deprel": (
        "sentence_length_linguistic",
        "sentence_length_deprel",
        "arc_length",
        "arc_length_modified",
    ),
}

# One split's setups: name -> Setup, for all layers, or a list with one dict per layer.
SplitSetups = (
    Mapping[str, extrapolation_splits.Setup] | Sequence[Mapping[str, extrapolation_splits.Setup]]
)


def split_setups(
    split: str,
    train_scores: np.ndarray,
    eval_scores: np.ndarray,
    *,
    seed: int = 0,
    include_top_ties: bool = False,
    setup_names: Sequence[str] = SPLIT_SETUPS,
) -> tuple[extrapolation_splits.SplitPoints, dict[str, extrapolation_splits.Setup]]:
    """Split points (§3.5 rule of ``split``) and the setups ``setup_names``.

    Kunz & Kuhlmann 2021, §3.5-3.6. ``split`` is one of
    :data:`probekit.methods.extrapolation.splits.SCORERS`; scores (N,) and (M,);
    ``include_top_ties`` as in
    :func:`~probekit.methods.extrapolation.splits.distributional_split_points`;
    ``setup_names`` the setups made (by default those that depend on the split, control and
    extrapolation; ``seed`` draws a size control's half). Raises :class:`ParameterError`
    naming ``points`` when the easy or hard set is empty.
    """
    points = extrapolation_splits.split_points(
        split, train_scores, eval_scores, include_top_ties=include_top_ties
    )
    return points, extrapolation_splits.setups(
        train_scores, eval_scores, points, seed=seed, names=setup_names
    )


def build_splits(
    names: Sequence[str],
    train: tasks.Examples,
    eval_: tasks.Examples,
    n_layers: int,
    learned: LearnedScores | None = None,
    seed: int = 0,
    include_top_ties: bool = True,
    setup_names: Sequence[str] = SPLIT_SETUPS,
) -> tuple[dict, dict, dict[str, str]]:
    """Setups for each split, its split points, and the splits that could not be made (§3.5).

    Kunz & Kuhlmann 2021, §3.5-3.6. Static splits give one setups dict and one
    :class:`~probekit.methods.extrapolation.splits.SplitPoints`; learning-based ones a list per
    layer (the ensemble scores every layer separately, §3.4.3). A split whose easy or hard set is
    empty (possible on small samples, since ties at a split point belong to neither set) is
    reported in the third dict, name → reason, instead of stopping the chapter. With
    ``include_top_ties`` (our choice; see
    :func:`~probekit.methods.extrapolation.splits.distributional_split_points`), an empty hard
    set caused by ties at the top score is first widened to those tied examples.
    ``setup_names`` are the setups made for every split (control and extrapolation by
    default; ``seed`` draws a size control's half).
    """
    splits: dict = {}
    points: dict = {}
    skipped: dict[str, str] = {}
    for name in names:
        try:
            if is_learning_split(name):
                per = [
                    split_setups(
                        name,
                        *split_scores(name, train, eval_, learned, i),
                        seed=seed,
                        include_top_ties=include_top_ties,
                        setup_names=setup_names,
                    )
                    for i in range(n_layers)
                ]
                points[name] = [p for p, _ in per]
                splits[name] = [s for _, s in per]
            else:
                points[name], splits[name] = split_setups(
                    name,
                    *split_scores(name, train, eval_),
                    seed=seed,
                    include_top_ties=include_top_ties,
                    setup_names=setup_names,
                )
        except ParameterError as exc:
            if exc.name == "points":
                skipped[name] = str(exc).splitlines()[0]
            else:
                raise
    return splits, points, skipped
