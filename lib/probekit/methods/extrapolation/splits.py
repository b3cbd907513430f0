"""Split points and setups of Kunz & Kuhlmann 2021 (§3.5-3.6).

Split points m1 <= m2 cut the training examples into an easy set {m < m1} and the evaluation
examples into a hard set {m > m2}; both inequalities are strict, so ties at a split point belong
to neither set. The setups then train and evaluate probes:

- standard: all training examples -> all evaluation examples;
- control: all training examples -> hard evaluation examples;
- extrapolation: easy training examples -> hard evaluation examples;
- size control (§3.5): a seeded random half of the training examples -> all evaluation examples;
- size control on the hard set (ours): the same half -> hard evaluation examples, the
  comparison for the extrapolation setup with the training-set size held (about) equal.

One sentence sample serves all layers (the released code drew a new one per layer), and the
speed-of-learning hard set is the top quartile of the score (the code took the value at 25 % of
a descending list).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from probekit.errors import ParameterError
from probekit.io.treebanks import Sentence, sample_sentences

LINGUISTIC_M1 = 17  # Flesch & Gould: "fairly easy" readability below 17 words (§3.5)


LINGUISTIC_M2 = 29  # "very difficult" above 29 words (§3.5)


MODIFIED_ARC_M1 = 3  # §4.2: easy arcs of length 1-2 instead of length 1 only


SETUPS: tuple[str, ...] = (
    "standard",
    "control",
    "extrapolation",
    "size_control",
    "size_control_hard",
)


# Which data supplied (m1, m2) per scorer in the released code (jekunz/extrapolation,
# `scoring_functions/`); pass these to `distributional_split_points` for a faithful replication.
RELEASED_THRESHOLD_SOURCES: dict[str, tuple[str, str]] = {
    "sentence_length_pos": ("train", "train"),
    "sentence_length_deprel": ("train", "eval"),
    "arc_length": ("train", "eval"),
    "tag_proportion": ("eval", "eval"),
    "sample_loss": ("train", "eval"),
    "speed_of_learning": ("train", "eval"),
}


def sample_split(
    sentences: Sequence[Sentence], n: int | None = 1000, *, seed: int
) -> list[Sentence]:
    """A seeded sample of ``n`` sentences (corpus order) for S_train or S_test (§3.3).

    ``n`` of 0 or None keeps them all. Kunz & Kuhlmann 2021, §3.3: two 1,000-sentence samples from EWT train and dev. One sample
    serves all layers. The released code drew a fresh sample per layer from one advancing
    ``random.Random(42)`` stream (released code: jekunz/extrapolation, `load_ud.py`), so its
    layers saw different data.
    """
    if n is not None and n < 0:
        raise ParameterError("n", f"must be >= 0 (0 or None: all), got {n}")
    return sample_sentences(sentences, n, seed)


@dataclass(frozen=True)
class SplitPoints:
    """Split points m1 (easy: m < m1) and m2 (hard: m > m2) and where each came from.

    ``m1_from``/``m2_from`` are "constant", "train" or "eval"; ``rule`` names the §3.5 rule.
    ``top_ties`` is True when m2 was lowered to take in the examples tied at the top score
    (``include_top_ties`` of :func:`distributional_split_points`; not the paper's rule).
    """

    m1: float
    m2: float
    m1_from: str
    m2_from: str
    rule: str
    top_ties: bool = False

    @property
    def label(self) -> str:
        """The rule as tables show it, e.g. "distributional + ties at m2"."""
        return f"{self.rule} + ties at m2" if self.top_ties else self.rule


def percentile(scores: np.ndarray, q: float) -> float:
    """``sorted(scores)[int(q * n)]``: the paper's and released code's percentile, no interpolation.

    Kunz & Kuhlmann 2021, §3.5; released code: jekunz/extrapolation, `scoring_functions/`.
    ``scores`` (n,), 0 <= q < 1.
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    if len(scores) == 0:
        raise ParameterError("scores", "is empty: no example to take a percentile of")
    if not 0.0 <= q < 1.0:
        raise ParameterError("q", f"must lie in [0, 1), got {q}")
    return float(np.sort(scores)[int(q * len(scores))])


def linguistic_split_points(m1: float = LINGUISTIC_M1, m2: float = LINGUISTIC_M2) -> SplitPoints:
    """Sentence-length split points from readability classes: m1 = 17, m2 = 29 (§3.5).

    Kunz & Kuhlmann 2021, §3.5 ("Linguistic criteria", after Flesch & Gould 1949).
    """
    return SplitPoints(float(m1), float(m2), "constant", "constant", "linguistic")


def _source(name: str, value: str, train_scores: np.ndarray, eval_scores: np.ndarray):
    if value == "train":
        return train_scores
    if value == "eval":
        return eval_scores
    raise ParameterError(name, f"'{value}' is not one of 'train', 'eval'")


def distributional_split_points(
    train_scores: np.ndarray,
    eval_scores: np.ndarray,
    m1_from: str = "train",
    m2_from: str = "eval",
    *,
    include_top_ties: bool = False,
) -> SplitPoints:
    """m1 = 50th and m2 = 75th percentile of the scores (§3.5, "Distributional criteria").

    Kunz & Kuhlmann 2021, §3.5. Percentiles per :func:`percentile`. ``train_scores`` (N,) and
    ``eval_scores`` (M,); the paper does not say which set supplies each point. By default m1
    comes from the training scores (it cuts the easy training set) and m2 from the evaluation
    scores (it cuts the hard evaluation set), which is what most released scorers do;
    :data:`RELEASED_THRESHOLD_SOURCES` lists the released choice per scorer and
    :func:`split_points` applies it. The per-example distribution is token-weighted for T1
    sentence length, as released (arc-weighted for T2; the release weighted by tokens there too).

    ``include_top_ties`` (our choice, not the paper's): when over a quarter of the evaluation
    examples share the top score (e.g. never-correct examples under speed of learning, score 1),
    the 75th percentile is that top score and the strict D_hard = {m > m2} is empty. m2 is then
    lowered to the next lower observed evaluation score, so D_hard is exactly the tied top
    examples, and ``top_ties`` is set. Points whose hard set is not empty are left as they are.
    The released code instead dropped never-correct examples.
    """
    m1 = percentile(_source("m1_from", m1_from, train_scores, eval_scores), 0.5)
    m2 = percentile(_source("m2_from", m2_from, train_scores, eval_scores), 0.75)
    points = SplitPoints(m1, m2, m1_from, m2_from, "distributional")
    return _with_top_ties(points, eval_scores) if include_top_ties else points


def _with_top_ties(points: SplitPoints, eval_scores: np.ndarray) -> SplitPoints:
    """``points`` with m2 just below the top score when ties there leave D_hard empty."""
    scores = np.asarray(eval_scores, dtype=np.float64)
    if hard_mask(scores, points).any():
        return points
    below = scores[scores < points.m2]
    if len(below) == 0 or points.m2 != scores.max():
        return points
    return replace(points, m2=float(below.max()), top_ties=True)


def mft_split_points() -> SplitPoints:
    """Most-frequent-tag split: easy = the gold tag is the mft (m = 0), hard = it is not (m = 1).

    Kunz & Kuhlmann 2021, §3.4.2 and §3.5. Expressed with the general rule as m1 = 1, m2 = 0.
    """
    return SplitPoints(1.0, 0.0, "constant", "constant", "mft")


def modified_arc_length_split_points(
    train_scores: np.ndarray,
    eval_scores: np.ndarray,
    m1: float = MODIFIED_ARC_M1,
    m2_from: str = "eval",
    m2: float | None = None,
) -> SplitPoints:
    """Arc-length split with m1 = 3 (easy = arcs of length 1-2), m2 distributional (§4.2).

    Kunz & Kuhlmann 2021, §4.2: the distributional m1 = 2 left only adjacent arcs in the easy
    set, so m1 is set to 3 and m2 stays the 75th percentile (4 in the paper). The released code
    fixed m2 = 4 as a constant (released code: jekunz/extrapolation, `stp_arc_len.py`); pass
    ``m2=4`` for that. On other samples the 75th percentile can be 3, which leaves no gap
    between the sets.
    """
    if m2 is not None:
        return SplitPoints(float(m1), float(m2), "constant", "constant", "modified_arc_length")
    value = percentile(_source("m2_from", m2_from, train_scores, eval_scores), 0.75)
    return SplitPoints(float(m1), value, "constant", m2_from, "modified_arc_length")


SCORERS: tuple[str, ...] = (
    "sentence_length_linguistic",
    "sentence_length_pos",
    "sentence_length_deprel",
    "arc_length",
    "arc_length_modified",
    "tag_proportion",
    "most_frequent_tag",
    "sample_loss",
    "speed_of_learning",
)


def split_points(
    scorer: str,
    train_scores: np.ndarray,
    eval_scores: np.ndarray,
    *,
    include_top_ties: bool = False,
) -> SplitPoints:
    """The §3.5 split rule of a scorer, with the released code's threshold sources.

    Kunz & Kuhlmann 2021, §3.5 and §4.2. ``scorer`` is one of :data:`SCORERS`; scores (N,) and
    (M,). Linguistic sentence length: 17/29; most frequent tag: the binary rule; modified arc
    length: m1 = 3 and the distributional m2; every other scorer: 50th/75th percentiles from the
    sets in :data:`RELEASED_THRESHOLD_SOURCES`. For tag proportion that is the evaluation
    scores: on the training tokens the tag frequencies are in-sample, so most score 0 and a
    training median would leave the easy set empty. ``include_top_ties`` applies to the
    percentile rules only (see :func:`distributional_split_points`); constant points never move.
    """
    if scorer == "sentence_length_linguistic":
        return linguistic_split_points()
    if scorer == "most_frequent_tag":
        return mft_split_points()
    if scorer == "arc_length_modified":
        return modified_arc_length_split_points(train_scores, eval_scores)
    if scorer not in RELEASED_THRESHOLD_SOURCES:
        raise ParameterError("scorer", f"unknown scorer '{scorer}'", hint=f"use one of {SCORERS}")
    m1_from, m2_from = RELEASED_THRESHOLD_SOURCES[scorer]
    return distributional_split_points(
        train_scores, eval_scores, m1_from, m2_from, include_top_ties=include_top_ties
    )


def easy_mask(scores: np.ndarray, points: SplitPoints) -> np.ndarray:
    """D_easy = {e | m(e) < m1}, bool (N,) (Kunz & Kuhlmann 2021, §3.5)."""
    return np.asarray(scores) < points.m1


def hard_mask(scores: np.ndarray, points: SplitPoints) -> np.ndarray:
    """D_hard = {e | m(e) > m2}, bool (M,) (Kunz & Kuhlmann 2021, §3.5)."""
    return np.asarray(scores) > points.m2


@dataclass(frozen=True, eq=False)
class Setup:
    """One training/evaluation pairing: ``train`` bool (N,) and ``eval`` bool (M,) masks."""

    name: str
    train: np.ndarray
    eval: np.ndarray


def size_control_mask(n: int, seed: int) -> np.ndarray:
    """A seeded random half (n // 2) of n training examples, bool (n,) (§3.5 size control).

    Kunz & Kuhlmann 2021, §3.5: "we randomly sub-sampled the 'standard' training sets down to
    50% of their original size". The same ``seed`` gives the same half. The released
    ``len_control.py`` took the first half of the example tensor instead (released code:
    jekunz/extrapolation, `len_control.py`).
    """
    if n < 2:
        raise ParameterError("n", f"needs at least 2 training examples to halve, got {n}")
    mask = np.zeros(n, dtype=bool)
    mask[np.random.default_rng(seed).choice(n, size=n // 2, replace=False)] = True
    return mask


def setups(
    train_scores: np.ndarray,
    eval_scores: np.ndarray,
    points: SplitPoints,
    *,
    seed: int,
    names: Sequence[str] = SETUPS,
) -> dict[str, Setup]:
    """The train/eval masks of the standard, control, extrapolation and size-control setups.

    Kunz & Kuhlmann 2021, §3.6 (standard N→N, control N→H, extrapolation E→H) and §3.5 (size
    control: a random half of N → N, drawn with ``seed``); ``size_control_hard`` trains on the
    same half and tests on H, so that it and the extrapolation setup differ in which examples
    they train on, not (much) in how many. ``train_scores`` (N,), ``eval_scores`` (M,). Raises
    :class:`ParameterError` when the easy or hard set is empty (ties at a split point are in
    neither set, so heavily tied scores can empty a set).
    """
    unknown = [n for n in names if n not in SETUPS]
    if unknown:
        raise ParameterError("names", f"unknown setups {unknown}", hint=f"use {SETUPS}")
    train_scores, eval_scores = np.asarray(train_scores), np.asarray(eval_scores)
    every_train = np.ones(len(train_scores), dtype=bool)
    every_eval = np.ones(len(eval_scores), dtype=bool)
    easy, hard = easy_mask(train_scores, points), hard_mask(eval_scores, points)
    for mask, what, where in ((easy, "easy", "m1"), (hard, "hard", "m2")):
        if not mask.any() and ({"control", "extrapolation", "size_control_hard"} & set(names)):
            raise ParameterError(
                "points",
                f"the {what} set is empty ({where} = {getattr(points, where)}, rule "
                f"'{points.rule}')",
                hint="ties at the split point belong to neither set; check the score distribution",
            )
    masks = {
        "standard": (every_train, every_eval),
        "control": (every_train, hard),
        "extrapolation": (easy, hard),
    }
    if {"size_control", "size_control_hard"} & set(names):
        half = size_control_mask(len(train_scores), seed)
        masks |= {"size_control": (half, every_eval), "size_control_hard": (half, hard)}
    return {name: Setup(name, *masks[name]) for name in names}
