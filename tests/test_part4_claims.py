"""The claims Part IV judges (probekit.experiments.part4_extrapolation.claims) and the
per-sentence comparisons they read (probekit.experiments.part4_extrapolation.comparisons), on
hand-built runs whose answers are known: the counts, the intervals, the claims whose parts must
all hold, and for every claim a single change to one realistic run that turns its verdict into
each verdict it can reach."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import jupytext
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probekit.errors import ParameterError
from probekit.experiments.claims import NOT_TESTED, Claim
from probekit.experiments.part4_extrapolation import claims, comparisons, paper
from probekit.experiments.part4_extrapolation.comparisons import HardCounts
from probekit.experiments.part4_extrapolation.config import LearningCriteriaConfig
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.runs import SplitRun, TaskRun
from probekit.experiments.part4_extrapolation.sample import Sample
from probekit.experiments.part4_extrapolation.splits import (
    GAP_REFERENCE_SPLITS,
    LOSS_REFERENCE_SPLITS,
)
from probekit.methods.extrapolation.splits import SplitPoints
from probekit.probes.mlp import MLPTrainResult
from probekit.stats.intervals import Term, crossed_contrast, crossed_interval
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, judge

SEEDS = (1, 2, 3)
POINTS = SplitPoints(1.0, 2.0, "train", "eval", "distributional")
CONFIG = LearningCriteriaConfig.from_parameters(
    {
        "treebank": "UD_English-EWT",
        "model": "default",
        "pooling": "last",
        "layers": [],
        "n_train": 0,
        "n_eval": 0,
        "sample_seed": 42,
        "order_seed": -1,
        "epochs": 3,
        "widen_top_ties": True,
        "seeds": list(SEEDS),
        "size_seed": 0,
        "compare_layer": -1,
        "epoch_folds": 2,
        "ensemble_seeds": [11, 12, 13],
        "ensemble_folds": 2,
        "fold_seed": 0,
    }
)
# Accuracy of each setup's probes on the hard items unless a test says otherwise.
BASE = {"standard": 0.9, "control": 0.8, "extrapolation": 0.6, "size_control_hard": 0.75}
LEARNING = {
    "pos": ("speed_of_learning", "sample_loss"),
    "deprel": ("speed_of_learning", "sample_loss"),
}


def fake_chapter(
    splits, controls=None, accuracy=None, layers=(0, 6), n_sentences=300, items=9, compared=None
):
    """A chapter whose probes get each hard item right with a set probability.

    Every evaluation sentence has ``items`` items; split j of a task takes the items whose
    position is j modulo 3, so the splits' hard sets differ. ``controls`` are reference splits
    with control probes only; ``compared`` reference splits that also have every other setup at
    the last layer (chapter 44's run_criteria). ``accuracy`` maps (task, split,
    layer, setup, seed), (task, split, layer, setup) or (task, split, setup) to the probability
    (most specific first, else :data:`BASE`). Draws are fixed in order, so changing one
    probability changes only that probe's predictions; the size-control probes draw from their
    own stream, so that the paper's three setups draw as they did before the size control.
    """
    controls, accuracy, compared = controls or {}, accuracy or {}, compared or {}
    rng, size_rng = np.random.default_rng(0), np.random.default_rng(1)
    sent = np.repeat(np.arange(n_sentences), items)
    m = len(sent)
    tasks = {}
    for task, names in splits.items():
        masks, rows, preds = {}, [], []
        others = dict.fromkeys([*controls.get(task, ()), *compared.get(task, ())])
        for j, split in enumerate([*names, *(s for s in others if s not in names)]):
            hard = (np.arange(m) + j) % 3 == 0
            every = ("standard", "control", "extrapolation", "size_control_hard")
            for layer in layers:
                full = split in names or (split in compared.get(task, ()) and layer == layers[-1])
                setups = every if full else ("control",)
                masks[(split, layer)] = hard
                for seed in SEEDS:
                    for setup in setups:
                        p = accuracy.get(
                            (task, split, layer, setup, seed),
                            accuracy.get(
                                (task, split, layer, setup),
                                accuracy.get((task, split, setup), BASE[setup]),
                            ),
                        )
                        draw = size_rng if setup == "size_control_hard" else rng
                        right = draw.random(m) < p
                        pred = np.full(m, -1, dtype=np.int16)
                        pred[hard] = np.where(right[hard], 0, 1)
                        rows.append((split, layer, seed, setup, 0, int(hard.sum())))
                        preds.append(pred)
        k = len(rows)
        result = MLPTrainResult((), np.zeros((k, 1)), np.stack(preds), np.zeros(k, dtype=int))
        index = pd.DataFrame(rows, columns=["split", "layer", "seed", "setup", "n_train", "n_eval"])
        run = SplitRun(result, index, np.zeros(m, dtype=np.int64), masks, sent)
        points = {name: POINTS for name in names}
        reference = {name: POINTS for name in others if name not in names}
        tasks[task] = TaskRun(task, None, None, points, {}, run, reference)
    sample = Sample([None] * n_sentences, [None] * n_sentences, None, None)
    layers = list(layers)
    return ChapterRun(CONFIG, sample, layers, layers[-1], tasks, pd.DataFrame(), pd.DataFrame())


def per_seed(chapter, task, split, layer, setup) -> np.ndarray:
    """A setup's accuracy on the hard items per seed, from the predictions directly."""
    run = chapter.tasks[task].run
    hard = run.eval_masks[(split, layer)]
    idx = run.index
    rows = idx[(idx["split"] == split) & (idx["layer"] == layer) & (idx["setup"] == setup)]
    return np.array([np.mean(run.result.pred_best[i][hard] == 0) for i in rows.index])


def accuracy_of(chapter, task, split, layer, setup) -> float:
    """Mean over seeds of a setup's accuracy on the hard items."""
    return float(per_seed(chapter, task, split, layer, setup).mean())


def verdict(measured: claims.MeasuredClaim) -> str:
    return measured.claim.judge(measured.intervals).verdict


# --- counts and the interval over sentences and seeds ------------------------------------------


def test_hard_counts_count_correct_hard_items_per_seed_and_sentence():
    # items:   0  1  2  3  4  5   (sentences 0 0 1 2 2 2); hard: items 0, 1, 3, 4, 5
    sent = np.array([0, 0, 1, 2, 2, 2])
    hard = np.array([True, True, False, True, True, True])
    y = np.array([1, 2, 0, 1, 1, 0])
    preds = np.array(
        [
            [1, 0, -1, 1, 1, 1],  # seed 7, control: right 0; wrong 1; right 3, 4; wrong 5
            [1, 2, -1, 0, 1, 0],  # seed 8, control: right 0, 1; wrong 3; right 4, 5
        ]
    )
    index = pd.DataFrame(
        [("s", 3, 7, "control", 6, 5), ("s", 3, 8, "control", 6, 5)],
        columns=["split", "layer", "seed", "setup", "n_train", "n_eval"],
    )
    result = MLPTrainResult((), np.zeros((2, 1)), preds, np.zeros(2, dtype=int))
    run = SplitRun(result, index, y, {("s", 3): hard}, sent)
    counts = comparisons.hard_counts(run, "s", 3, "control", n_sentences=4)
    np.testing.assert_array_equal(counts.units, [2, 0, 3, 0])
    np.testing.assert_array_equal(counts.correct, [[1, 0, 2, 0], [2, 0, 2, 0]])
    assert counts.seeds == (7, 8)
    assert counts.accuracy == pytest.approx((3 / 5 + 4 / 5) / 2)
    np.testing.assert_array_equal(
        comparisons.hard_correct(run, "s", 3, 8, "control"), [True, True, False, True, True]
    )
    with pytest.raises(ParameterError):
        comparisons.hard_counts(run, "s", 3, "extrapolation", n_sentences=4)
    # the hard items' outcomes are kept; the two seeds disagree on 3 of the 5
    np.testing.assert_array_equal(counts.right, [[1, 0, 1, 1, 0], [1, 1, 0, 1, 1]])
    across, within = comparisons.unit_discordance(counts, counts)
    assert within == pytest.approx(3 / 5) and across == pytest.approx((0 + 3 / 5 + 3 / 5 + 0) / 4)
    kept_none = dataclasses.replace(counts, right=None)
    assert comparisons.unit_discordance(counts, kept_none) is None


def test_hard_difference_drops_empty_sentences_and_keeps_every_seed():
    units = np.array([2.0, 0.0, 3.0, 1.0, 4.0])
    a = HardCounts(np.array([[2, 0, 3, 1, 3], [1, 0, 2, 1, 4.0]]), units, (1, 2))
    b = HardCounts(np.array([[1, 0, 1, 0, 2], [1, 0, 2, 1, 1.0]]), units, (1, 2))
    out = comparisons.hard_difference(a, b)
    # accuracies 9/10 and 8/10 against 4/10 and 5/10: 0.85 - 0.45
    assert out.estimate == pytest.approx(0.40)
    keep = units > 0
    expected = crossed_interval(a.correct[:, keep], b.correct[:, keep], units[keep], 0.90)
    assert (out.low, out.high, out.se) == pytest.approx((expected.low, expected.high, expected.se))
    assert out.n_sentences == 4 and out.n_seeds == (2, 2) and out.se_seeds > 0
    # B scored on other items of the same sentences: B keeps its own units
    other = HardCounts(np.array([[0, 1, 0, 0, 2], [0, 1, 1, 0, 1.0]]), units[::-1], (1, 2))
    out = comparisons.hard_difference(a, other, paired_seeds=True)
    assert out.estimate == pytest.approx(0.85 - 3 / 10) and out.n_sentences == 5
    paired = crossed_interval(a.correct, other.correct, units, 0.9, paired_seeds=True,
                              units_b=units[::-1])  # fmt: skip
    assert out.se == pytest.approx(paired.se)


def test_hard_difference_refuses_what_would_hide_seed_or_sentence_variance():
    units = np.array([2.0, 3.0, 1.0])
    two = HardCounts(np.array([[1, 2, 1], [2, 2, 0.0]]), units, (1, 2))
    one = HardCounts(np.array([[1, 2, 1.0]]), units, (1,))
    with pytest.raises(ParameterError) as info:
        comparisons.hard_difference(two, one)
    assert info.value.name == "seeds"
    with pytest.raises(ParameterError, match="paired_seeds"):
        comparisons.hard_difference(two, dataclasses.replace(two, seeds=(3, 4)), paired_seeds=True)
    lonely = np.array([0.0, 3.0, 0.0])
    few = HardCounts(np.array([[0, 2, 0], [0, 3, 0.0]]), lonely, (1, 2))
    with pytest.raises(ParameterError, match="units"):
        comparisons.hard_difference(few, few)
    with pytest.raises(ParameterError, match="correct"):
        HardCounts(np.array([[3, 2, 1.0]]), units, (1,))  # 3 right of 2 items


def test_gap_difference_pairs_the_shared_probes_only():
    """(control - extrapolation on A's hard set) - (the same on B's): the controls are the same
    probes per seed, the two extrapolation probes independent runs; empty sentences drop."""
    units_a = np.array([2.0, 0.0, 3.0, 1.0, 0.0])
    units_b = np.array([1.0, 0.0, 2.0, 0.0, 2.0])  # sentence 1 has no hard item of either
    control_a = HardCounts(np.array([[2, 0, 3, 1, 0], [1, 0, 3, 1, 0.0]]), units_a, (1, 2))
    extra_a = HardCounts(np.array([[1, 0, 1, 0, 0], [0, 0, 2, 0, 0.0]]), units_a, (1, 2))
    control_b = HardCounts(np.array([[1, 0, 2, 0, 2], [1, 0, 1, 0, 2.0]]), units_b, (1, 2))
    extra_b = HardCounts(np.array([[1, 0, 1, 0, 1], [0, 0, 2, 0, 2.0]]), units_b, (1, 2))
    out = comparisons.gap_difference((control_a, extra_a), (control_b, extra_b))
    # A: control 6/6 and 5/6, extrapolation 2/6 and 2/6; B: control 5/5 and 4/5, extrap. 3/5, 4/5
    assert out.estimate == pytest.approx((5.5 - 2) / 6 - (4.5 - 3.5) / 5)
    assert out.n_sentences == 4 and out.n_seeds == (2, 2, 2)
    keep = [0, 2, 3, 4]
    by_hand = crossed_contrast(
        [
            Term(1.0, control_a.correct[:, keep], units_a[keep], "control"),
            Term(-1.0, extra_a.correct[:, keep], units_a[keep], "A"),
            Term(-1.0, control_b.correct[:, keep], units_b[keep], "control"),
            Term(1.0, extra_b.correct[:, keep], units_b[keep], "B"),
        ]
    )
    assert (out.low, out.high, out.se, out.df) == pytest.approx(
        (by_hand.low, by_hand.high, by_hand.se, by_hand.df)
    )
    # the seed part: the controls' per-seed differences, and each extrapolation side alone
    control = [1 - 1, 5 / 6 - 4 / 5]
    var_seeds = (np.var(control, ddof=1) + np.var([2 / 6, 2 / 6], ddof=1)
                 + np.var([3 / 5, 4 / 5], ddof=1)) / 2  # fmt: skip
    assert out.se_seeds == pytest.approx(math.sqrt(var_seeds))
    with pytest.raises(ParameterError, match="gap_b"):  # controls of other seeds are no pair
        comparisons.gap_difference(
            (control_a, extra_a), (dataclasses.replace(control_b, seeds=(3, 4)), extra_b)
        )
    one = HardCounts(extra_b.correct[:1], units_b, (1,))
    with pytest.raises(ParameterError, match="seeds"):
        comparisons.gap_difference((control_a, extra_a), (control_b, one))


def test_gap_intervals_show_every_split_at_the_compared_layer():
    chapter = fake_chapter({"pos": ("most_frequent_tag", "tag_proportion")})
    table = comparisons.gap_intervals(chapter)
    assert list(table.index) == ["T1 most_frequent_tag", "T1 tag_proportion"]
    row = table.loc["T1 most_frequent_tag"]
    control = accuracy_of(chapter, "pos", "most_frequent_tag", 6, "control")
    extrapolation = accuracy_of(chapter, "pos", "most_frequent_tag", 6, "extrapolation")
    assert row["control (%)"] == pytest.approx(100 * control)
    assert row["control − extrapolation (points)"] == pytest.approx(100 * (control - extrapolation))
    assert row["90% CI low"] < row["control − extrapolation (points)"] < row["90% CI high"]
    assert row["sentences"] == 300 and row["hard items"] == 900


# --- each claim's interval, on hand-built runs ------------------------------------------------


def test_claim_intervals_are_the_differences_of_the_setups_accuracies():
    length = fake_chapter(
        {"pos": ("sentence_length_linguistic", "sentence_length_pos"), "deprel": ("arc_length",)}
    )
    parts = claims.t1_length_intervals(length)
    assert list(parts) == ["ling_L0", "ling_L6", "dist_L0", "dist_L6"]
    for part, split in (
        ("ling_L0", "sentence_length_linguistic"),
        ("dist_L6", "sentence_length_pos"),
    ):
        layer = int(part[-1])
        gap = accuracy_of(length, "pos", split, layer, "control") - accuracy_of(
            length, "pos", split, layer, "extrapolation"
        )
        assert parts[part].estimate == pytest.approx(gap)
    arc = claims.arc_gap_interval(length)
    assert arc.estimate == pytest.approx(
        accuracy_of(length, "deprel", "arc_length", 6, "control")
        - accuracy_of(length, "deprel", "arc_length", 6, "extrapolation")
    )
    assert arc.n_seeds == (3, 3)  # every seed, not the first only

    tag = fake_chapter({"pos": ("most_frequent_tag",)}, layers=(0, 3, 6))
    layers = claims.mft_layers_interval(tag)
    assert layers.estimate == pytest.approx(
        accuracy_of(tag, "pos", "most_frequent_tag", 6, "extrapolation")
        - accuracy_of(tag, "pos", "most_frequent_tag", 0, "extrapolation")
    )
    assert claims.mft_gap_interval(tag).estimate == pytest.approx(
        accuracy_of(tag, "pos", "most_frequent_tag", 6, "control")
        - accuracy_of(tag, "pos", "most_frequent_tag", 6, "extrapolation")
    )

    learning = fake_chapter(LEARNING, LOSS_REFERENCE_SPLITS, compared=GAP_REFERENCE_SPLITS)
    leads = claims.speed_lead_intervals(learning)
    assert list(leads) == list(claims.LEAD_PARTS)
    for part, (task, split) in claims.LEAD_PARTS.items():
        gaps = [
            accuracy_of(learning, task, s, 6, "control")
            - accuracy_of(learning, task, s, 6, "extrapolation")
            for s in ("speed_of_learning", split)
        ]
        assert leads[part].estimate == pytest.approx(gaps[0] - gaps[1]), part
    # the control is one probe per seed on both hard sets (paired); the extrapolation probes of
    # the two splits are independent runs
    control = [
        per_seed(learning, "pos", s, 6, "control") for s in ("speed_of_learning", "tag_proportion")
    ]
    extra = [
        per_seed(learning, "pos", s, 6, "extrapolation")
        for s in ("speed_of_learning", "tag_proportion")
    ]
    var_seeds = (np.var(control[0] - control[1], ddof=1) + np.var(extra[0], ddof=1)
                 + np.var(extra[1], ddof=1)) / 3  # fmt: skip
    assert leads["t1_tp"].se_seeds == pytest.approx(math.sqrt(var_seeds))
    assert leads["t1_tp"].n_seeds == (3, 3, 3)
    # a reference split without extrapolation probes at the compared layer has no lead
    controls_only = fake_chapter(LEARNING, LOSS_REFERENCE_SPLITS)
    assert list(claims.speed_lead_intervals(controls_only)) == ["t1_loss", "t2_loss"]
    loss = claims.loss_control_intervals(learning)
    assert list(loss) == list(claims.LOSS_PARTS)
    assert loss["t2_arc"].estimate == pytest.approx(
        accuracy_of(learning, "deprel", "arc_length", 6, "control")
        - accuracy_of(learning, "deprel", "sample_loss", 6, "control")
    )
    # the same control probe per seed on both hard sets: the seed part is that of the differences
    arc = per_seed(learning, "deprel", "arc_length", 6, "control")
    lossy = per_seed(learning, "deprel", "sample_loss", 6, "control")
    assert loss["t2_arc"].se_seeds == pytest.approx(math.sqrt(np.var(arc - lossy, ddof=1) / 3))


def test_gap_intervals_also_compare_the_size_control_on_the_same_hard_items():
    chapter = fake_chapter({"deprel": ("arc_length",)})
    row = comparisons.gap_intervals(chapter).loc["T2 arc_length"]
    size = accuracy_of(chapter, "deprel", "arc_length", 6, "size_control_hard")
    extrapolation = accuracy_of(chapter, "deprel", "arc_length", 6, "extrapolation")
    assert row["size control (%)"] == pytest.approx(100 * size)
    assert row[comparisons.SIZE_GAP] == pytest.approx(100 * (size - extrapolation))
    assert row["size 90% CI low"] < row[comparisons.SIZE_GAP] < row["size 90% CI high"]


def test_gap_claims_are_read_again_against_the_size_control():
    """IV.1, IV.2, IV.3 and IV.5 are gaps to the control; read against the size control with
    the same rule, a gap that the smaller training set explains no longer reaches the SESOI."""
    accuracy = {("deprel", "arc_length", "size_control_hard"): 0.62}  # 2 points above extrap.
    chapter = fake_chapter({"deprel": ("arc_length",)}, accuracy=accuracy)
    measured = [claims.MeasuredClaim(claims.ARC, claims.arc_gap_interval(chapter))]
    table, values = claims.size_control_readings(chapter, measured)
    assert list(table["claim"]) == ["IV.2"]
    row = table.iloc[0]
    size = accuracy_of(chapter, "deprel", "arc_length", 6, "size_control_hard")
    extrapolation = accuracy_of(chapter, "deprel", "arc_length", 6, "extrapolation")
    assert row["size-controlled gap (points)"] == pytest.approx(100 * (size - extrapolation))
    assert row["part"] == f"layer {chapter.compare_layer}"  # a claim without parts: its layer
    assert row["verdict"] == REPRODUCED and row["verdict against size control"] != REPRODUCED
    assert values["size_claim_arc_verdict"] == row["verdict against size control"]
    assert values["size_claim_arc_same"] == "not the same"
    assert (values["size_survives"], values["size_changes"]) == ("none", "IV.2")
    # with the size control as good as the control, the verdict stays
    same = fake_chapter(
        {"deprel": ("arc_length",)},
        accuracy={("deprel", "arc_length", "size_control_hard"): 0.8},
    )
    measured = [claims.MeasuredClaim(claims.ARC, claims.arc_gap_interval(same))]
    _, values = claims.size_control_readings(same, measured)
    assert values["size_claim_arc_same"] == "the same" and values["size_survives"] == "IV.2"


def test_only_gaps_to_the_control_have_a_size_controlled_reading():
    length = fake_chapter({"pos": ("sentence_length_linguistic", "sentence_length_pos")})
    parts = claims.size_controlled_intervals(length, claims.T1_LENGTH)
    assert list(parts) == ["ling_L0", "ling_L6", "dist_L0", "dist_L6"]
    learning = fake_chapter(LEARNING, LOSS_REFERENCE_SPLITS, compared=GAP_REFERENCE_SPLITS)
    leads = claims.size_controlled_intervals(learning, claims.SPEED)
    assert list(leads) == list(claims.LEAD_PARTS)
    # IV.5 compares two gaps: both against the size control
    size_gaps = [
        accuracy_of(learning, "deprel", s, 6, "size_control_hard")
        - accuracy_of(learning, "deprel", s, 6, "extrapolation")
        for s in ("speed_of_learning", "arc_length")
    ]
    assert leads["t2_arc"].estimate == pytest.approx(size_gaps[0] - size_gaps[1])
    # IV.4 compares layers of one setup and IV.6 control accuracies: no size confound
    assert claims.size_controlled_intervals(learning, claims.LOSS_CONTROL) is None
    tag = fake_chapter({"pos": ("most_frequent_tag",)})
    assert claims.size_controlled_intervals(tag, claims.MFT_LAYERS) is None
    measured = claims.learning_claims(learning)
    table, values = claims.size_control_readings(learning, measured)
    assert set(table["claim"]) == {"IV.5"} and "size_claim_loss_control_verdict" not in values


def test_claims_that_a_run_cannot_measure_are_not_tested():
    one_layer = fake_chapter({"pos": ("most_frequent_tag",)}, layers=(6,))
    mft, layers = claims.tag_claims(one_layer)
    assert mft.intervals is not None and layers.intervals is None
    assert "two probed layers" in layers.reason
    # the chapter glues it as not tested (Glue.untested), with the reason in place of the interval
    phrases = layers.claim.untested_values(layers.reason)
    assert phrases["claim_mft_layers_verdict"] == NOT_TESTED
    assert math.isnan(phrases["claim_mft_layers_power"])
    assert "two probed layers" in phrases["claim_mft_layers_text"]
    assert len(claims.claim_parts_table(layers)) == 0

    chapter = fake_chapter({"pos": ("sentence_length_pos",), "deprel": ("arc_length",)})
    empty = {"skipped": {"sentence_length_linguistic": "the hard set is empty"}}
    pos = dataclasses.replace(chapter.tasks["pos"], **empty)
    arc = {"points": {}, "skipped": {"arc_length": "the easy set is empty"}}
    deprel = dataclasses.replace(chapter.tasks["deprel"], **arc)
    chapter = dataclasses.replace(chapter, tasks={"pos": pos, "deprel": deprel})
    t1, arc = claims.length_claims(chapter)
    assert arc.intervals is None and arc.reason == "T2 arc_length: the easy set is empty"
    # the linguistic split was not made: IV.1 is judged on the parts the run measured
    assert t1.claim is claims.T1_LENGTH and list(t1.intervals) == ["dist_L0", "dist_L6"]
    assert "2 parts" in t1.claim.prose_values(t1.intervals)["claim_t1_length_reading"]
    # none of its parts measured: IV.1 is not tested
    pos = dataclasses.replace(
        pos, points={}, skipped={s: "empty" for s in claims.LENGTH_PARTS.values()}
    )
    t1 = claims.length_claims(dataclasses.replace(chapter, tasks={"pos": pos, "deprel": deprel}))[0]
    assert t1.intervals is None and t1.reason == (
        "T1 sentence_length_linguistic: empty; T1 sentence_length_pos: empty"
    )


# --- claims whose parts must all hold ---------------------------------------------------------


def test_a_claim_of_several_parts_needs_every_part():
    chapter = fake_chapter(
        LEARNING,
        LOSS_REFERENCE_SPLITS,
        {("pos", "sample_loss", "control"): 0.4, ("deprel", "sample_loss", "control"): 0.4},
    )
    measured = claims.learning_claims(chapter)[1]
    assert verdict(measured) == REPRODUCED
    table = claims.claim_parts_table(measured)
    assert len(table) == 9 and set(table["verdict"]) == {REPRODUCED}
    assert table.index[0] == "T1 sentence length (linguistic)"  # the parts' labels
    phrases = measured.claim.prose_values(measured.intervals)
    assert phrases["claim_loss_control_reading"] == "all 9 parts reproduced"
    # one function's hard set as hard as sample loss's: that part fails, so the claim does
    worse = fake_chapter(
        LEARNING,
        LOSS_REFERENCE_SPLITS,
        {
            ("pos", "sample_loss", "control"): 0.4,
            ("deprel", "sample_loss", "control"): 0.4,
            ("deprel", "sentence_length_deprel", "control"): 0.35,
        },
    )
    measured = claims.learning_claims(worse)[1]
    judged = {p: judge(claims.LOSS_CONTROL_RULE, iv) for p, iv in measured.intervals.items()}
    assert [p for p, j in judged.items() if j.verdict != REPRODUCED] == ["t2_dist"]
    assert verdict(measured) == NOT_REPRODUCED
    phrases = measured.claim.prose_values(measured.intervals)
    assert phrases["claim_loss_control_text"].startswith("T2 sentence length (distributional): ")
    assert phrases["claim_loss_control_worst_reading"].startswith("the interval ends below")
    assert phrases["claim_loss_control_reading"] == (
        "of its 9 parts, 8 reproduced, 1 not reproduced"
    )


def test_run_dependent_parts_are_saved_and_read_back():
    chapter = fake_chapter({"pos": ("sentence_length_pos",)}, layers=(0, 3))
    measured = claims.length_claims(chapter)[0]
    assert measured.claim is claims.T1_LENGTH and list(measured.intervals) == ["dist_L0", "dist_L3"]
    values = measured.claim.saved_values(measured.intervals)
    assert values["claim_t1_length_parts"] == "dist_L0,dist_L3"
    # the ledger holds the declared claim (the default model's layers) and reads the run's parts
    declared = claims.T1_LENGTH
    assert len(declared.parts) == 14 and "ling_L6" in declared.parts
    read = declared.read(values)
    assert set(read) == {"dist_L0", "dist_L3"}
    assert declared.judge(read) == declared.judge(measured.intervals)
    assert declared.judge(read).verdict == values["claim_t1_length_verdict"]
    assert read["dist_L3"].estimate == pytest.approx(measured.intervals["dist_L3"].estimate)


def test_gap_claims_save_how_often_their_probes_disagree_item_by_item():
    chapter = fake_chapter({"pos": ("sentence_length_pos",)}, layers=(0, 3))
    measured = claims.length_claims(chapter)
    values = claims.discordance_values(chapter, measured)
    assert set(values) == {f"claim_t1_length_dist_L{k}_{field}" for k in (0, 3)
                           for field in ("discordance", "units", "accuracy")}  # fmt: skip
    across, within = values["claim_t1_length_dist_L3_discordance"]
    assert 0 <= within <= 1 and 0 < across <= 1
    hard = measured[0].intervals["dist_L3"]
    assert values["claim_t1_length_dist_L3_units"] >= hard.n_sentences


def test_the_claims_are_declared_once_with_their_rules():
    ids = [c.id for c in claims.CLAIMS]
    assert ids == ["IV.1", "IV.2", "IV.3", "IV.4", "IV.5", "IV.6"]
    assert len({c.key for c in claims.CLAIMS}) == 6
    sesoi = {c.id: round(c.rule.sesoi * c.rule.scale, 3) for c in claims.CLAIMS}
    assert sesoi == {"IV.1": 3, "IV.2": 11.5, "IV.3": 3.5, "IV.4": 5, "IV.5": 3, "IV.6": 2}
    kinds = {c.id: c.rule.kind for c in claims.CLAIMS}
    assert kinds["IV.1"] == "equivalence" and {kinds[i] for i in ids[1:]} == {"directional"}
    for c in claims.CLAIMS:
        assert isinstance(c, Claim) and c.paper == "kunz2021test"
        assert c.chapter in ("42_length_criteria", "43_tag_criteria", "44_learning_criteria")
        assert c.rule.level == pytest.approx(0.90) and c.rule.units == "points"
        assert c.rule.sesoi_reason and "sentences" in c.rule.unit and "seeds" in c.rule.unit
    assert claims.ARC.sesoi_text() == "11.5 points" and claims.T1_LENGTH.sesoi_text() == "±3 points"
    assert claims.T1_LENGTH.label("ling_L3") == "linguistic split, layer 3"
    assert claims.T1_LENGTH.label("dist_L24") == "distributional split, layer 24"
    assert set(claims.T1_LENGTH.parts) <= set(claims.T1_LENGTH.labels)
    assert claims.LOSS_CONTROL.label("t1_mft") == "T1 most frequent tag"
    assert set(claims.LOSS_CONTROL.labels) == set(claims.LOSS_PARTS)
    assert set(claims.SPEED.parts) == set(claims.SPEED.labels) == set(claims.LEAD_PARTS)
    # every reference control of chapter 44 and speed of learning are parts of IV.6; every split
    # whose gap chapter 44 compares and sample loss are parts of IV.5
    for task in ("pos", "deprel"):
        own = {s for t, s in claims.LOSS_PARTS.values() if t == task}
        assert own == {*LOSS_REFERENCE_SPLITS[task], "speed_of_learning"}
        compared = {s for t, s in claims.LEAD_PARTS.values() if t == task}
        assert compared == {*GAP_REFERENCE_SPLITS[task], "sample_loss"}


# --- IV.3's SESOI, read per layer off the paper's ranges ---------------------------------------


def test_iv3_sesoi_is_half_the_papers_gap_at_its_weakest_layer():
    """§4.3: control 11-35 and extrapolation 23-42 points below the standard setup, over layers.
    Where the control is 35 below, the gap is at most 42 - 35 = 7 points; half of it, 3.5."""
    bounds = paper.layer_gap_bounds(paper.MFT_CONTROL_GAP, paper.MFT_EXTRAPOLATION_GAP)
    assert bounds["control largest"] == (23 - 35, 42 - 35)
    assert bounds["extrapolation largest"] == (42 - 35, 42 - 11)
    assert bounds["control smallest"][0] == 23 - 11  # the old, mixed reading: one layer only
    assert paper.mft_gap_sesoi() == pytest.approx(0.035)
    assert claims.MFT_RULE.sesoi == pytest.approx(paper.mft_gap_sesoi())
    assert "at most 7 points" in claims.MFT_RULE.sesoi_reason


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 60, allow_nan=False), st.floats(0, 60, allow_nan=False)),
        min_size=1,
        max_size=13,
    )
)
def test_layer_gap_bounds_hold_at_the_layers_they_name(layers):
    """Any per-layer profile of the two gaps: each bound holds at the layer it names."""
    control = np.array([c for c, _ in layers])
    extrapolation = np.array([e for _, e in layers])
    gap = extrapolation - control  # control - extrapolation accuracy, per layer
    bounds = paper.layer_gap_bounds(
        (control.min(), control.max()), (extrapolation.min(), extrapolation.max())
    )
    at = {
        "control largest": control.argmax(),
        "control smallest": control.argmin(),
        "extrapolation largest": extrapolation.argmax(),
        "extrapolation smallest": extrapolation.argmin(),
    }
    for name, layer in at.items():
        low, high = bounds[name]
        assert low - 1e-9 <= gap[layer] <= high + 1e-9, name


# --- a single change to one realistic run reaches every verdict -------------------------------

T1_LENGTH = {"pos": ("sentence_length_linguistic", "sentence_length_pos")}
T1_SAME = {("pos", s, setup): p for s in T1_LENGTH["pos"] for setup, p in
           (("control", 0.90), ("extrapolation", 0.89))}  # fmt: skip
LOSS_LOW = {("pos", "sample_loss", "control"): 0.4, ("deprel", "sample_loss", "control"): 0.4}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        ({("pos", "sentence_length_pos", 6, "extrapolation"): 0.80}, NOT_REPRODUCED),
        ({("pos", "sentence_length_pos", 6, "extrapolation"): 0.87}, INCONCLUSIVE),
    ],
)
def test_iv1_reaches_every_verdict(change, expected):
    """Control 90 %, extrapolation 89 % everywhere; then a 10-point or 3-point gap at one layer."""
    chapter = fake_chapter(T1_LENGTH, accuracy=T1_SAME | change, n_sentences=1500)
    assert verdict(claims.length_claims(chapter)[0]) == expected


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        ({("deprel", "arc_length", 6, "extrapolation"): 0.78}, NOT_REPRODUCED),
        ({("deprel", "arc_length", 6, "extrapolation", 3): 0.99}, INCONCLUSIVE),
    ],
)
def test_iv2_reaches_every_verdict(change, expected):
    """A 25-point gap; then a 2-point one, or one extrapolation seed far off the others."""
    base = {("deprel", "arc_length", "extrapolation"): 0.55}
    chapter = fake_chapter({"deprel": ("arc_length",)}, accuracy=base | change)
    assert verdict(claims.length_claims(chapter)[1]) == expected


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "extrapolation"): 0.80}, NOT_REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "extrapolation", 3): 0.95}, INCONCLUSIVE),
    ],
)
def test_iv3_reaches_every_verdict(change, expected):
    chapter = fake_chapter({"pos": ("most_frequent_tag",)}, accuracy=change)
    assert verdict(claims.tag_claims(chapter)[0]) == expected


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "extrapolation"): 0.38}, NOT_REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "extrapolation", 3): 0.30}, INCONCLUSIVE),
    ],
)
def test_iv4_reaches_every_verdict(change, expected):
    """Extrapolation 40 % at layer 0 and 70 % at layer 6; then 38 %, or one seed at 30 %."""
    base = {
        ("pos", "most_frequent_tag", 0, "extrapolation"): 0.40,
        ("pos", "most_frequent_tag", 6, "extrapolation"): 0.70,
    }
    chapter = fake_chapter({"pos": ("most_frequent_tag",)}, accuracy=base | change)
    assert verdict(claims.tag_claims(chapter)[1]) == expected


SPEED_LARGEST = {(t, "speed_of_learning", "extrapolation"): 0.45 for t in ("pos", "deprel")}


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        # another split's gap larger than speed of learning's, for T1 or for T2
        ({("pos", "most_frequent_tag", 6, "extrapolation"): 0.30}, NOT_REPRODUCED),
        ({("deprel", "arc_length", 6, "extrapolation"): 0.35}, NOT_REPRODUCED),
        # as large: which is larger, these sentences and seeds cannot tell
        ({("pos", "tag_proportion", 6, "extrapolation"): 0.45}, INCONCLUSIVE),
        # one extrapolation seed of another split far off the others: the seeds cannot tell
        ({("pos", "tag_proportion", 6, "extrapolation", 3): 0.05}, INCONCLUSIVE),
    ],
)
def test_iv5_reaches_every_verdict(change, expected):
    """Speed of learning's gaps 35 points, every other function's 20; then one gap larger."""
    chapter = fake_chapter(
        LEARNING, LOSS_REFERENCE_SPLITS, SPEED_LARGEST | change, compared=GAP_REFERENCE_SPLITS
    )
    measured = claims.learning_claims(chapter)[0]
    assert len(measured.intervals) == len(claims.LEAD_PARTS)
    assert verdict(measured) == expected


def test_iv5_fails_on_the_part_whose_gap_is_larger():
    """The rule is a conjunction: one other function with a larger gap decides it."""
    change = {("deprel", "sentence_length_deprel", 6, "extrapolation"): 0.30}
    chapter = fake_chapter(
        LEARNING, LOSS_REFERENCE_SPLITS, SPEED_LARGEST | change, compared=GAP_REFERENCE_SPLITS
    )
    measured = claims.learning_claims(chapter)[0]
    judged = {p: judge(claims.SPEED_RULE, iv) for p, iv in measured.intervals.items()}
    assert [p for p, j in judged.items() if j.verdict != REPRODUCED] == ["t2_dist"]
    assert judged["t2_dist"].note == "significant in the opposite direction"
    phrases = measured.claim.prose_values(measured.intervals)
    assert phrases["claim_speed_text"].startswith("T2 against sentence length (distributional): ")
    assert phrases["claim_speed_reading"] == "of its 10 parts, 9 reproduced, 1 not reproduced"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "control"): 0.35}, NOT_REPRODUCED),
        ({("pos", "most_frequent_tag", 6, "control"): 0.41}, INCONCLUSIVE),
    ],
)
def test_iv6_reaches_every_verdict(change, expected):
    """Sample loss's control at 40 %, the others' at 80 %; then one function's near 40 %."""
    chapter = fake_chapter(LEARNING, LOSS_REFERENCE_SPLITS, LOSS_LOW | change)
    assert verdict(claims.learning_claims(chapter)[1]) == expected


def test_the_verdict_paragraphs_read_the_rule():
    chapter = fake_chapter({"pos": ("most_frequent_tag",)})
    mft = claims.tag_claims(chapter)[0]
    phrases = mft.claim.prose_values(mft.intervals)
    assert phrases["claim_mft_reading"].startswith("the interval lies above 0 and reaches")
    assert phrases["claim_mft_sesoi"] == "3.5 points"
    assert phrases["claim_mft_sesoi_reason"].startswith("half the paper's gap at its weakest layer")
    flat = fake_chapter(
        {"pos": ("most_frequent_tag",)},
        accuracy={("pos", "most_frequent_tag", 6, "extrapolation", 3): 0.95},
    )
    mft = claims.tag_claims(flat)[0]
    assert mft.claim.prose_values(mft.intervals)["claim_mft_reading"] == (
        "the interval includes 0 and reaches the SESOI of 3.5 points (underpowered)"
    )


# --- the chapters -----------------------------------------------------------------------------

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.mark.parametrize("claim", claims.CLAIMS, ids=lambda c: c.id)
def test_every_claim_is_judged_and_shown_in_its_chapter(claim):
    """The verdict paragraph quotes Glue.claims' values (judged, or glued untested)."""
    nb = jupytext.read(NOTEBOOKS / f"{claim.chapter}.py")
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert re.search(
        r"g\.claims\(measured, (size_glue|\{\*\*size_glue, \*\*claims\.discordance_values\(chapter, measured\)\})\)",
        code,
    )
    verdicts = " ".join(prose.split("## Verdicts")[-1].split())
    prefix = f"ch{claim.chapter[:2]}_{claim.key}"
    assert f"**{claim.text}: {{glue:text}}`{prefix}_verdict`.**" in verdicts
    fields = ["text", "power:.2f", "sesoi", "sesoi_reason", "reading"]
    for field in fields + (["worst_reading"] if claim.parts else []):
        assert f"{{glue:text}}`{prefix}_{field}`" in verdicts, field
