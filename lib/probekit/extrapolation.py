"""Extrapolation splits of Kunz & Kuhlmann 2021, "Test Harder than You Train" (§3.3–3.6).

A scoring function gives every example a hardness score ``m(e)``; **higher means harder**
everywhere in this module (§3.4: "if m(e) > m(e'), e is harder than e'"). Split points
m1 <= m2 cut the training examples into an easy set {m < m1} and the evaluation examples into a
hard set {m > m2} (§3.5); both inequalities are strict, so ties at a split point belong to
neither set. The setups of §3.6 then train and evaluate probes:

- standard: all training examples → all evaluation examples;
- control: all training examples → hard evaluation examples;
- extrapolation: easy training examples → hard evaluation examples;
- size control (§3.5): a seeded random half of the training examples → all evaluation examples.

Where the released code (jekunz/extrapolation, reference-repos.md §1) differs from the paper we
follow the paper and say so in the function's docstring. The main differences: one sentence
sample serves all layers (the code drew a new one per layer); tag statistics use real counts
(the code hashed 0-d tensors by identity, so every count was 1); the speed-of-learning score
keeps never-correct examples and its hard set is the top quartile of the score (the code dropped
never-correct items and took the value at 25% of a descending list).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.data import Sentence, sample_sentences
from probekit.errors import ParameterError
from probekit.probes.mlp import ProbeSpec, TrainResult
from probekit.tasks import Examples

LINGUISTIC_M1 = 17  # Flesch & Gould: "fairly easy" readability below 17 words (§3.5)
LINGUISTIC_M2 = 29  # "very difficult" above 29 words (§3.5)
MODIFIED_ARC_M1 = 3  # §4.2: easy arcs of length 1-2 instead of length 1 only
# §3.4.3: after 2^n batch updates. The paper's "1 <= i <= 7" leaves n = 0..6 or 1..7 open; we
# take n = 0..6 (1 ... 64 updates), which gives the "7 · 10" maximum of c the paper states.
SPEED_CHECKPOINTS: tuple[int, ...] = tuple(2**n for n in range(7))
ENSEMBLE_SEEDS: tuple[int, ...] = tuple(range(1, 11))  # 10 classifiers, seeds 1..10 as released
SETUPS: tuple[str, ...] = ("standard", "control", "extrapolation", "size_control")
# Which data supplied (m1, m2) per scorer in the released code (reference-repos.md §1.9.8); pass
# these to `distributional_split_points` for a faithful replication.
RELEASED_THRESHOLD_SOURCES: dict[str, tuple[str, str]] = {
    "sentence_length_pos": ("train", "train"),
    "sentence_length_deprel": ("train", "eval"),
    "arc_length": ("train", "eval"),
    "tag_proportion": ("eval", "eval"),
    "sample_loss": ("train", "eval"),
    "speed_of_learning": ("train", "eval"),
}


# --------------------------------------------------------------------------------------------
# Data


def sample_split(
    sentences: Sequence[Sentence], n: int | None = 1000, *, seed: int
) -> list[Sentence]:
    """A seeded sample of ``n`` sentences (corpus order) for S_train or S_test (§3.3).

    Kunz & Kuhlmann 2021, §3.3: two 1,000-sentence samples from EWT train and dev. One sample
    serves all layers. The released code drew a fresh sample per layer from one advancing
    ``random.Random(42)`` stream (reference-repos.md §1.2), so its layers saw different data.
    """
    if n is not None and n < 1:
        raise ParameterError("n", f"must be >= 1 or None, got {n}")
    return sample_sentences(sentences, n, seed)


# --------------------------------------------------------------------------------------------
# Scoring functions (§3.4): one score per example, higher = harder


def _require(examples: Examples, task: str, scorer: str) -> None:
    if examples.task != task:
        raise ParameterError(
            "examples", f"{scorer} is defined for '{task}' examples, got '{examples.task}'"
        )


def sentence_length(examples: Examples) -> np.ndarray:
    """m(e) = |s_i|, the number of words of the example's sentence, shape (N,) (§3.4.1, T1/T2).

    Kunz & Kuhlmann 2021, §3.4.1. Words are the syntactic words of the treebank, punctuation
    included (multiword-token ranges and empty nodes are not words; the released code also
    counted empty nodes).
    """
    return examples.sent_len.astype(np.float64)


def arc_length(examples: Examples) -> np.ndarray:
    """m(e) = |j - k|, the linear distance between dependent and head, shape (N,) (§3.4.1, T2).

    Kunz & Kuhlmann 2021, §3.4.1. Root arcs are not examples. The released code also kept a
    sentence's qualifying arcs only if the sentence had more than one (reference-repos.md §1.9.5);
    the paper states no such filter and neither do we.
    """
    _require(examples, "deprel", "arc_length")
    return examples.arc_len.astype(np.float64)


def _tag_table(train: Examples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted train vocabulary (V,), counts (V, C) and first train position of each (word, tag)."""
    vocab, ids = np.unique(train.form, return_inverse=True)
    counts = np.zeros((len(vocab), train.n_classes), dtype=np.int64)
    np.add.at(counts, (ids, train.y), 1)
    first = np.full(counts.shape, len(train), dtype=np.int64)
    np.minimum.at(first, (ids, train.y), np.arange(len(train)))
    return vocab, counts, first


def _lookup(vocab: np.ndarray, forms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each form in the sorted vocabulary and whether it is there, each (N,)."""
    idx = np.minimum(np.searchsorted(vocab, forms), max(len(vocab) - 1, 0))
    return idx, vocab[idx] == forms


def tag_proportion(train: Examples, examples: Examples) -> np.ndarray:
    """m(e) = 1 - f(w, y): 1 minus the relative frequency of the gold tag among w's train tags.

    Kunz & Kuhlmann 2021, §3.4.2 (T1). f is counted over the training examples ``train``
    (word forms as written, case kept, as released); words absent from ``train`` score 1, the
    hardest. Returns (N,) scores for ``examples``. The released code stored tags as 0-d tensors,
    which hash by identity, so its counts were all 1 (reference-repos.md §1.9.4); it also
    scored f itself and flipped the inequalities, which selects the same sets as 1 - f.
    """
    _require(train, "pos", "tag_proportion")
    _require(examples, "pos", "tag_proportion")
    vocab, counts, _ = _tag_table(train)
    idx, known = _lookup(vocab, examples.form)
    f = counts[idx, examples.y] / np.maximum(counts[idx].sum(axis=1), 1)
    return np.where(known, 1.0 - f, 1.0)


def most_frequent_tags(train: Examples) -> tuple[np.ndarray, np.ndarray, int]:
    """The most frequent tag (mft) of every training word: (vocab (V,), mft (V,), global mft).

    Kunz & Kuhlmann 2021, §3.4.2. Ties go to the tag seen first in ``train``, which is what the
    released ``TagdictTagger`` (a ``Counter``) does once tags are hashable integers.
    """
    vocab, counts, first = _tag_table(train)
    # Larger count wins; among equal counts the earlier first occurrence wins.
    key = counts * (len(train) + 1) - first
    totals = counts.sum(axis=0)
    global_first = first.min(axis=0)
    global_mft = int(np.argmax(totals * (len(train) + 1) - global_first))
    return vocab, np.argmax(key, axis=1), global_mft


def most_frequent_tag(train: Examples, examples: Examples, oov: str = "global") -> np.ndarray:
    """m(e) = 1 - 1[y is the mft of w in S_train], binary (N,) scores (§3.4.2, T1).

    Kunz & Kuhlmann 2021, §3.4.2. The paper leaves words unseen in training open. ``oov="global"``
    compares their gold tag with the globally most frequent training tag, as the released
    ``TagdictTagger`` does; ``oov="hard"`` scores them 1, as the tag-proportion score does.
    The released code's tensor-identity hashing made every word's "mft" its first-seen tag and
    the global mft the first token's tag (reference-repos.md §1.9.3); we count properly.
    """
    _require(train, "pos", "most_frequent_tag")
    _require(examples, "pos", "most_frequent_tag")
    if oov not in ("global", "hard"):
        raise ParameterError("oov", f"'{oov}' is not one of 'global', 'hard'")
    vocab, mft, global_mft = most_frequent_tags(train)
    idx, known = _lookup(vocab, examples.form)
    is_mft = np.where(known, mft[idx] == examples.y, examples.y == global_mft)
    score = 1.0 - is_mft
    if oov == "hard":
        score[~known] = 1.0
    return score


def sample_loss(loss: np.ndarray) -> np.ndarray:
    """m(e) = the example's cross-entropy averaged over the ensemble (§3.4.3, T1/T2).

    Kunz & Kuhlmann 2021, §3.4.3. ``loss`` (..., n_ensemble, N), e.g. ``TrainResult.loss_train``
    of the 10 ensemble probes (reshaped to (layers, 10, N) for per-layer scores); returns
    (..., N). Our losses come from the final weights (``record_loss``); the released code took
    train losses during the last epoch with batch size 1 and 10 epochs (reference-repos.md §1.9.6).
    """
    loss = np.asarray(loss, dtype=np.float64)
    if loss.ndim < 2:
        raise ParameterError("loss", f"must have shape (..., n_ensemble, N), got {loss.shape}")
    return loss.mean(axis=-2)


def speed_of_learning(correct: np.ndarray) -> np.ndarray:
    """m(e) = 1 / (c + 1), c = correct predictions of the ensemble over the checkpoints (§3.4.3).

    Kunz & Kuhlmann 2021, §3.4.3 (T1/T2). ``correct`` (..., n_ensemble, n_checkpoints, N) bool,
    e.g. ``TrainResult.ckpt_correct_train`` recorded at :data:`SPEED_CHECKPOINTS`; returns
    (..., N) in (0, 1], 1 for never-correct examples (the hardest). The released code left
    never-correct examples out entirely, and identified examples by their first two input floats
    (reference-repos.md §1.9.7).
    """
    correct = np.asarray(correct)
    if correct.ndim < 3:
        raise ParameterError(
            "correct", f"must have shape (..., n_ensemble, n_checkpoints, N), got {correct.shape}"
        )
    c = correct.sum(axis=(-3, -2))
    return 1.0 / (c + 1.0)


# --------------------------------------------------------------------------------------------
# Split points (§3.5)


@dataclass(frozen=True)
class SplitPoints:
    """Split points m1 (easy: m < m1) and m2 (hard: m > m2) and where each came from.

    ``m1_from``/``m2_from`` are "constant", "train" or "eval"; ``rule`` names the §3.5 rule.
    """

    m1: float
    m2: float
    m1_from: str
    m2_from: str
    rule: str


def percentile(scores: np.ndarray, q: float) -> float:
    """``sorted(scores)[int(q * n)]``: the paper's and released code's percentile, no interpolation.

    Kunz & Kuhlmann 2021, §3.5; reference-repos.md §1.8. ``scores`` (n,), 0 <= q < 1.
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
) -> SplitPoints:
    """m1 = 50th and m2 = 75th percentile of the scores (§3.5, "Distributional criteria").

    Kunz & Kuhlmann 2021, §3.5. Percentiles per :func:`percentile`. ``train_scores`` (N,) and
    ``eval_scores`` (M,); the paper does not say which set supplies each point. By default m1
    comes from the training scores (it cuts the easy training set) and m2 from the evaluation
    scores (it cuts the hard evaluation set), which is what most released scorers do;
    :data:`RELEASED_THRESHOLD_SOURCES` lists the released choice per scorer and
    :func:`split_points` applies it. The per-example distribution is token-weighted for T1
    sentence length, as released (arc-weighted for T2; the release weighted by tokens there too).
    """
    m1 = percentile(_source("m1_from", m1_from, train_scores, eval_scores), 0.5)
    m2 = percentile(_source("m2_from", m2_from, train_scores, eval_scores), 0.75)
    return SplitPoints(m1, m2, m1_from, m2_from, "distributional")


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
    fixed m2 = 4 as a constant (reference-repos.md §1.9.5); pass ``m2=4`` for that. On other
    samples the 75th percentile can be 3, which leaves no gap between the sets.
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


def split_points(scorer: str, train_scores: np.ndarray, eval_scores: np.ndarray) -> SplitPoints:
    """The §3.5 split rule of a scorer, with the released code's threshold sources.

    Kunz & Kuhlmann 2021, §3.5 and §4.2. ``scorer`` is one of :data:`SCORERS`; scores (N,) and
    (M,). Linguistic sentence length: 17/29; most frequent tag: the binary rule; modified arc
    length: m1 = 3 and the distributional m2; every other scorer: 50th/75th percentiles from the
    sets in :data:`RELEASED_THRESHOLD_SOURCES`. For tag proportion that is the evaluation
    scores: on the training tokens the tag frequencies are in-sample, so most score 0 and a
    training median would leave the easy set empty.
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
    return distributional_split_points(train_scores, eval_scores, m1_from, m2_from)


def easy_mask(scores: np.ndarray, points: SplitPoints) -> np.ndarray:
    """D_easy = {e | m(e) < m1}, bool (N,) (Kunz & Kuhlmann 2021, §3.5)."""
    return np.asarray(scores) < points.m1


def hard_mask(scores: np.ndarray, points: SplitPoints) -> np.ndarray:
    """D_hard = {e | m(e) > m2}, bool (M,) (Kunz & Kuhlmann 2021, §3.5)."""
    return np.asarray(scores) > points.m2


# --------------------------------------------------------------------------------------------
# Setups (§3.5-3.6)


@dataclass(frozen=True, eq=False)
class Setup:
    """One training/evaluation pairing: ``train`` bool (N,) and ``eval`` bool (M,) masks."""

    name: str
    train: np.ndarray
    eval: np.ndarray


def size_control_mask(n: int, seed: int) -> np.ndarray:
    """A seeded random half (n // 2) of n training examples, bool (n,) (§3.5 size control).

    Kunz & Kuhlmann 2021, §3.5. The released ``len_control.py`` took the first half of the
    example tensor instead (reference-repos.md §1.7).
    """
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
    control: a random half of N → N, drawn with ``seed``). ``train_scores`` (N,), ``eval_scores``
    (M,). Raises :class:`ParameterError` when the easy or hard set is empty (ties at a split point
    are in neither set, so heavily tied scores can empty a set).
    """
    unknown = [n for n in names if n not in SETUPS]
    if unknown:
        raise ParameterError("names", f"unknown setups {unknown}", hint=f"use {SETUPS}")
    train_scores, eval_scores = np.asarray(train_scores), np.asarray(eval_scores)
    every_train = np.ones(len(train_scores), dtype=bool)
    every_eval = np.ones(len(eval_scores), dtype=bool)
    easy, hard = easy_mask(train_scores, points), hard_mask(eval_scores, points)
    for mask, what, where in ((easy, "easy", "m1"), (hard, "hard", "m2")):
        if not mask.any() and ({"control", "extrapolation"} & set(names)):
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
        "size_control": (size_control_mask(len(train_scores), seed), every_eval),
    }
    return {name: Setup(name, *masks[name]) for name in names}


def probe_grid(
    setups_by_layer: Mapping[str, Setup] | Sequence[Mapping[str, Setup]],
    layers: Sequence[int],
    seeds: Sequence[int] = ENSEMBLE_SEEDS,
    order_seed: int | None = None,
) -> tuple[list[ProbeSpec], pd.DataFrame]:
    """ProbeSpecs for layers × seeds × setups, ready for :func:`train_batched`, and their index.

    Kunz & Kuhlmann 2021, §3.6 (10 seeds per setup and layer). ``setups_by_layer`` is one
    :func:`setups` dict for every layer (scores that do not depend on the layer) or one per layer
    (learning-based scores). View i of the trainer's input is ``layers[i]``. The index has one row
    per spec: ``layer``, ``seed``, ``setup``, ``n_train``, ``n_eval``. Standard and control probes
    train identically and are trained once by the batched trainer.
    """
    per_layer = (
        [setups_by_layer] * len(layers)
        if isinstance(setups_by_layer, Mapping)
        else list(setups_by_layer)
    )
    if len(per_layer) != len(layers):
        raise ParameterError(
            "setups_by_layer", f"has {len(per_layer)} entries for {len(layers)} layers"
        )
    specs, rows = [], []
    for view, (layer, layer_setups) in enumerate(zip(layers, per_layer, strict=True)):
        for seed in seeds:
            for name, setup in layer_setups.items():
                specs.append(ProbeSpec(int(seed), view, order_seed, setup.train, setup.eval))
                rows.append(
                    (int(layer), int(seed), name, int(setup.train.sum()), int(setup.eval.sum()))
                )
    index = pd.DataFrame(rows, columns=["layer", "seed", "setup", "n_train", "n_eval"])
    return specs, index


def ensemble_specs(n_layers: int, seeds: Sequence[int] = ENSEMBLE_SEEDS) -> list[ProbeSpec]:
    """The §3.4.3 ensemble: one standard probe per (layer, seed), layer-major, (L * S,) specs.

    Kunz & Kuhlmann 2021, §3.4.3. Train them with ``checkpoints=SPEED_CHECKPOINTS`` and
    ``record_loss=True``; reshape the recorded arrays to (L, S, ...) for per-layer scores.
    """
    return [ProbeSpec(int(seed), view) for view in range(n_layers) for seed in seeds]


def summarise(result: TrainResult, index: pd.DataFrame) -> pd.DataFrame:
    """Mean and SD (n - 1) over seeds of the best-epoch accuracy, per layer and setup (§3.6).

    Kunz & Kuhlmann 2021, §3.6 ("the mean over 10 random seeds of the best accuracy").
    ``index`` is :func:`probe_grid`'s; accuracies are fractions. Columns: layer, setup, acc_mean,
    acc_sd, n_seeds, n_train, n_eval.
    """
    if len(index) != len(result.specs):
        raise ParameterError("index", f"has {len(index)} rows for {len(result.specs)} probes")
    table = index.assign(acc=result.best_acc)
    out = table.groupby(["layer", "setup"], sort=False).agg(
        acc_mean=("acc", "mean"),
        acc_sd=("acc", "std"),
        n_seeds=("acc", "size"),
        n_train=("n_train", "first"),
        n_eval=("n_eval", "first"),
    )
    return out.reset_index()
