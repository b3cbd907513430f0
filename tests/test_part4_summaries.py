"""The descriptive numbers of chapters 42-44 (probekit.experiments.part4_extrapolation.summaries),
the gap ledger across Part IV and the per-layer points table, on hand-built runs whose answers
are worked out by hand."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from conftest import hand_sentence as sentence
from probekit.experiments.part4_extrapolation import part_gaps, summaries, tables
from probekit.experiments.part4_extrapolation.config import CriteriaConfig, LearningCriteriaConfig
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.runs import TaskRun
from probekit.experiments.part4_extrapolation.sample import Sample
from probekit.io.results import save_results
from probekit.io.tasks import pos_examples
from probekit.methods.extrapolation.splits import SplitPoints

PARAMETERS = {
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
    "seeds": [1, 2],
    "size_seed": 0,
    "compare_layer": -1,
    "epoch_folds": 2,
}
# Accuracy values are exact in binary or compared with a tolerance of a few ulps of 100.
TOL = 1e-9


def gap_rows(split: str, task: str, layers, standard, control, extrapolation) -> list[dict]:
    """Rows of a combined gap table: mean accuracy (%) per setup and layer, and the gaps.

    The size control loses 1 point against the standard setup on all items and 2 points
    against the control on the hard items; with each epoch chosen on its own items the gap is
    half a point smaller.
    """
    return [
        {
            "split": split,
            "layer": layer,
            "standard": float(s),
            "control": float(c),
            "extrapolation": float(e),
            "size_control": float(s - 1),
            "size_control_hard": float(c - 2),
            "difficulty": float(s - c),
            "extrapolation_gap": float(c - e),
            "size_cost": 1.0,
            "size_gap": float(c - 2 - e),
            "same_set_gap": float(c - e) - 0.5,
            "task": task,
        }
        for layer, s, c, e in zip(layers, standard, control, extrapolation, strict=True)
    ]


def chapter_run(config, layers, tasks, rows, n_sentences=(7, 5)) -> ChapterRun:
    sample = Sample([None] * n_sentences[0], [None] * n_sentences[1], None, None)
    gaps = pd.DataFrame([r for block in rows for r in block])
    return ChapterRun(config, sample, list(layers), layers[-1], tasks, pd.DataFrame(), gaps)


def test_epoch_choice_shows_both_gaps_at_the_compared_layer_and_their_change():
    layers = [0, 6]
    run = chapter_run(
        None, layers, {}, [gap_rows("T1 a", "pos", layers, [90, 92], [88, 90], [86, 87])]
    )
    table = summaries.epoch_choice_table(run)
    assert list(table.index) == ["T1 a"]  # layer 6 only
    assert table.loc["T1 a"].tolist() == [2.5, 3.0, 0.5]
    v = summaries.epoch_choice_values(run.gaps)
    assert v == {"epoch_change_mean": 0.5, "epoch_change_min": 0.5, "epoch_change_max": 0.5}
    assert all(math.isnan(x) for x in summaries.epoch_choice_values(pd.DataFrame()).values())


def points(m1, m2, top_ties=False) -> SplitPoints:
    return SplitPoints(m1, m2, "train", "eval", "distributional", top_ties)


# --- chapter 42 -------------------------------------------------------------------------------


def length_run(with_arcmod: bool) -> ChapterRun:
    layers = [0, 6]
    rows = [
        gap_rows("T1 sentence_length_linguistic", "pos", layers, [90, 92], [88, 90], [86, 87]),
        gap_rows("T1 sentence_length_pos", "pos", layers, [90, 92], [89, 91], [88, 90]),
        gap_rows("T2 sentence_length_linguistic", "deprel", layers, [80, 80], [70, 70], [60, 60]),
        gap_rows("T2 sentence_length_deprel", "deprel", layers, [80, 80], [75, 75], [70, 70]),
        gap_rows("T2 arc_length", "deprel", layers, [80, 80], [60, 62], [40, 42]),
    ]
    t2_points = {"sentence_length_deprel": points(23, 31), "arc_length": points(2, 3)}
    t2_skipped = {}
    if with_arcmod:
        rows.append(
            gap_rows("T2 arc_length_modified", "deprel", layers, [80, 80], [60, 62], [50, 45])
        )
        t2_points["arc_length_modified"] = points(3, 4)
    else:
        t2_skipped["arc_length_modified"] = "parameter 'points': the hard set is empty"
    tasks = {
        "pos": TaskRun("pos", None, None, {"sentence_length_pos": points(23, 33)}, {}, None),
        "deprel": TaskRun("deprel", None, None, t2_points, t2_skipped, None),
    }
    return chapter_run(CriteriaConfig.from_parameters(PARAMETERS), layers, tasks, rows)


def test_length_values_summarise_the_gap_table():
    v = summaries.length_values(length_run(with_arcmod=True))
    assert (v["n_train_sentences"], v["n_eval_sentences"], v["n_seeds"], v["n_layers"]) == (
        7,
        5,
        2,
        2,
    )
    assert (v["epochs"], v["n_skipped"], v["skipped"]) == (3, 0, "none")
    # T1 linguistic: gaps 2 and 3, difficulty 2 and 2
    assert v["t1_ling_gap_mean"] == pytest.approx(2.5, abs=TOL)
    assert v["t1_ling_gap_max"] == pytest.approx(3, abs=TOL)
    assert v["t1_ling_difficulty_mean"] == pytest.approx(2, abs=TOL)
    assert v["t1_ling_std_extra_mean"] == pytest.approx(4.5, abs=TOL)
    assert v["t1_ling_extra_max"] == 87 and v["t1_ling_control_max"] == 90
    assert v["t2_arc_difficulty_mean"] == pytest.approx(19, abs=TOL)
    assert v["t2_arcmod_extra_max"] == 50 and v["t2_arcmod_control_max"] == 62
    assert (v["t1_m1"], v["t1_m2"], v["t2_m1"], v["t2_m2"]) == (23, 33, 23, 31)
    assert (v["arc_m1"], v["arc_m2"], v["arcmod_m2"]) == (2, 3, 4)
    assert v["compare_layer"] == 6
    assert not any(k.startswith("claim_") for k in v)  # the claims are judged by their rules


def test_length_values_of_a_skipped_split_are_nan():
    v = summaries.length_values(length_run(with_arcmod=False))
    assert v["n_skipped"] == 1
    assert v["skipped"] == "T2 arc_length_modified: parameter 'points': the hard set is empty"
    assert all(math.isnan(v[f"t2_arcmod_{k}"]) for k in ("gap_mean", "gap_max", "extra_max"))
    assert math.isnan(v["arcmod_m2"])


def test_length_values_follow_the_gap_table():
    run = length_run(with_arcmod=True)
    gaps = run.gaps.copy()
    t1 = gaps["split"] == "T1 sentence_length_pos"
    gaps.loc[t1, "extrapolation_gap"] = [1.0, 3.5]
    v = summaries.length_values(dataclasses.replace(run, gaps=gaps))
    assert v["t1_dist_gap_max"] == 3.5 and v["t1_dist_gap_mean"] == pytest.approx(2.25)


def test_easy_share_is_read_off_the_probe_table():
    """The extrapolation probes train on the easy set, the standard ones on all examples."""
    run = length_run(with_arcmod=True)
    probes = pd.DataFrame(
        [
            ("T1 sentence_length_pos", 0, 1, "standard", 200, False),
            ("T1 sentence_length_pos", 0, 1, "extrapolation", 90, True),
            ("T1 sentence_length_linguistic", 0, 1, "standard", 200, False),
            ("T2 arc_length", 0, 1, "standard", 200, False),
            ("T2 arc_length", 0, 1, "extrapolation", 60, False),
        ],
        columns=["split", "layer", "seed", "setup", "n_train", "still_falling"],
    )
    v = summaries.length_values(dataclasses.replace(run, probes=probes))
    assert v["t1_dist_easy_pct"] == pytest.approx(45)
    assert v["t2_arc_easy_pct"] == pytest.approx(30)
    # one of the five probes was still falling at its last epoch: 20 %, not below the limit
    assert v["cap_share"] == pytest.approx(20) and v["cap_ok"] == "not below"
    assert v["cap_share_extra"] == pytest.approx(50) and v["cap_share_standard"] == 0
    assert math.isnan(v["cap_share_size"])  # no size-control probe in this table
    assert math.isnan(v["t1_ling_easy_pct"])  # no extrapolation probe: nothing to read
    assert math.isnan(summaries.length_values(run)["t1_dist_easy_pct"])  # no probe table


# --- chapter 43 -------------------------------------------------------------------------------


def tagged_examples():
    """Train: 'run' VERB x3, NOUN x1; 'saw' NOUN then VERB; 'the' DET x2. Eval: run/NOUN,
    run/VERB, saw/VERB, blorp/VERB, blorp/NOUN: MFT scores 1 0 1 0 1 (unseen 'blorp' against
    the global VERB), tag-proportion scores 0.75 0.25 0.5 1 1."""
    train = pos_examples(
        [
            sentence([("run", "VERB"), ("saw", "NOUN"), ("the", "DET")], "t1"),
            sentence([("run", "VERB"), ("run", "NOUN"), ("saw", "VERB")], "t2"),
            sentence([("run", "VERB"), ("the", "DET")], "t3"),
        ]
    )
    evaluation = pos_examples(
        [
            sentence(
                [("run", "NOUN"), ("run", "VERB"), ("saw", "VERB"), ("blorp", "VERB")]
                + [("blorp", "NOUN")],
                "e1",
            )
        ]
    )
    return train, evaluation


def tag_run(with_tp: bool) -> ChapterRun:
    layers = [0, 3, 6]
    train, evaluation = tagged_examples()
    rows = [
        gap_rows("T1 most_frequent_tag", "pos", layers, [90, 92, 94], [60, 70, 80], [50, 62, 75])
    ]
    pts = {"most_frequent_tag": SplitPoints(1.0, 0.0, "constant", "constant", "mft")}
    skipped = {}
    if with_tp:
        rows.append(
            gap_rows("T1 tag_proportion", "pos", layers, [90, 92, 94], [75, 80, 85], [72, 78, 84])
        )
        pts["tag_proportion"] = SplitPoints(0.3, 0.6, "eval", "eval", "distributional", True)
    else:
        skipped["tag_proportion"] = "parameter 'points': the easy set is empty"
    tasks = {"pos": TaskRun("pos", train, evaluation, pts, skipped, None)}
    return chapter_run(CriteriaConfig.from_parameters(PARAMETERS), layers, tasks, rows)


def test_tag_values_read_the_tag_statistics_and_the_gaps():
    v = summaries.tag_values(tag_run(with_tp=True))
    assert v["skipped"] == "none" and v["widened"] == "tag_proportion"
    assert v["mft_hard_share"] == pytest.approx(60)  # 3 of 5 words carry another tag
    assert v["tp_hard_share"] == pytest.approx(60)  # scores 0.75, 1, 1 lie above m2 = 0.6
    assert v["tp_hard_is_mft"] == pytest.approx(100 / 3)  # of those, blorp/VERB is the mft
    assert (v["tp_m1"], v["tp_m2"]) == (0.3, 0.6)
    # difficulty 30, 22, 14; standard - extrapolation 40, 30, 19
    assert (v["mft_std_ctrl_min"], v["mft_std_ctrl_max"]) == (14, 30)
    assert (v["mft_std_extra_min"], v["mft_std_extra_max"]) == (19, 40)
    assert (v["mft_extra_first"], v["mft_extra_last"], v["mft_extra_best"]) == (50, 75, 75)
    assert (v["first_layer"], v["last_layer"]) == (0, 6)
    assert v["mft_rel_first"] == pytest.approx(100 * 10 / 60)
    assert v["mft_rel_last"] == pytest.approx(100 * 5 / 80)
    assert v["mft_gap_mean"] == pytest.approx(23 / 3) and v["mft_ctrl_mean"] == pytest.approx(70)
    assert v["tp_gap_mean"] == pytest.approx(2) and v["tp_ctrl_mean"] == pytest.approx(80)
    assert not any(k.startswith("claim_") for k in v)


def test_tag_values_of_a_skipped_tag_proportion_split_keep_their_keys():
    v = summaries.tag_values(tag_run(with_tp=False))
    assert v["skipped"] == "tag_proportion: parameter 'points': the easy set is empty"
    assert v["widened"] == "none"
    for key in ("tp_hard_share", "tp_hard_is_mft", "tp_m1", "tp_m2", "tp_gap_mean", "tp_ctrl_mean"):
        assert math.isnan(v[key]), key
    assert (v["mft_extra_first"], v["mft_extra_last"]) == (50, 75)


# --- chapter 44 -------------------------------------------------------------------------------


def learning_run() -> ChapterRun:
    layers = [0, 3, 6]
    rows = [
        gap_rows("T1 speed_of_learning", "pos", layers, [90] * 3, [88, 89, 90], [40, 30, 20]),
        gap_rows("T2 speed_of_learning", "deprel", layers, [80] * 3, [82, 81, 79], [50, 45, 40]),
        gap_rows("T1 sample_loss", "pos", layers, [90] * 3, [50, 55, 60], [48, 53, 59]),
        gap_rows("T2 sample_loss", "deprel", layers, [80] * 3, [40, 45, 50], [30, 38, 47]),
    ]
    p, tied = points(0.2, 0.5), points(0.2, 0.4, top_ties=True)
    tasks = {
        "pos": TaskRun(
            "pos", None, None, {"speed_of_learning": [p, tied, p], "sample_loss": [p] * 3}, {}, None
        ),
        "deprel": TaskRun(
            "deprel", None, None, {"speed_of_learning": [p] * 3, "sample_loss": [p] * 3}, {}, None
        ),
    }
    config = LearningCriteriaConfig.from_parameters(
        PARAMETERS | {"ensemble_seeds": [11, 12, 13], "ensemble_folds": 2, "fold_seed": 0}
    )
    return chapter_run(config, layers, tasks, rows)


def test_learning_values_summarise_both_scores_per_task():
    v = summaries.learning_values(learning_run())
    assert v["n_ensemble"] == 3 and v["skipped"] == "none"
    assert v["widened"] == "T1 speed_of_learning layer 3"
    assert v["t1_speed_gap_mean"] == pytest.approx(59)  # gaps 48, 59, 70
    assert v["t1_speed_difficulty_mean"] == pytest.approx(1)
    assert v["t1_speed_control_mean"] == pytest.approx(89)
    assert (v["t1_speed_extra_mid"], v["t1_speed_extra_last"]) == (30, 20)
    assert v["t1_speed_extra_best_layer"] == 0 and v["t1_loss_extra_best_layer"] == 6
    assert v["t2_speed_difficulty_mean"] == pytest.approx(-2 / 3)
    assert v["t2_speed_above_layers"] == 2  # control above standard at layers 0 and 3
    assert (v["mid_layer"], v["last_layer"]) == (3, 6)
    assert v["t1_loss_gap_mean"] == pytest.approx(5 / 3)
    assert v["t2_loss_gap_mean"] == pytest.approx(20 / 3)
    assert v["t1_loss_control_mean"] == pytest.approx(55)
    # the size control: 1 point below standard on all items, 2 below the control on hard ones
    assert v["t1_speed_size_gap_mean"] == pytest.approx(57)
    assert v["t1_speed_size_share"] == pytest.approx(100 * 57 / 59)
    assert (v["size_cost_mean"], v["size_cost_max"]) == (1.0, 1.0)
    assert v["ensemble_folds"] == 2 and math.isnan(v["ensemble_cap_share"])  # no ensemble run
    assert not any(k.startswith("claim_") for k in v)


def test_ranking_values_name_the_smallest_and_largest_gap():
    table = pd.DataFrame(
        {
            "task": ["T1", "T1", "T1", "T2"],
            "scoring function": [
                "speed of learning",
                "sentence length",
                "most frequent tag",
                "arc length",
            ],
            "gap": [40.0, 1.0, 5.0, 20.0],
            "chapter": ["44", "42", "43", "42"],
        }
    )
    v = summaries.ranking_values(table, ["43_tag_criteria"])
    assert v["stale"] == "43_tag_criteria"
    assert (v["t1_smallest"], v["t1_largest"], v["t1_n_functions"]) == (
        "sentence length",
        "speed of learning",
        3,
    )
    assert (v["t2_smallest"], v["t2_n_functions"]) == ("arc length", 1)
    assert not any(k.startswith("claim_") for k in v)
    v = summaries.ranking_values(table[table["task"] == "T1"], [])
    assert (v["stale"], v["t2_smallest"], v["t2_largest"], v["t2_n_functions"]) == (
        "none",
        "none",
        "none",
        0,
    )


def test_ranking_by_the_gap_against_the_size_control():
    table = pd.DataFrame(
        {
            "task": ["T1"] * 4,
            "scoring function": ["speed", "length", "mft", "loss"],
            "gap": [40.0, 1.0, 5.0, 3.0],
            "size gap": [35.0, -1.0, 4.0, 8.0],
            "chapter": ["44", "42", "43", "44"],
        }
    )
    v = summaries.ranking_values(table, [])
    assert (v["t1_size_smallest"], v["t1_size_largest"]) == ("length", "speed")
    assert v["t1_rank_agreement"] == pytest.approx(0.8)  # loss and mft swap places
    assert math.isnan(v["t2_rank_agreement"]) and v["t2_size_smallest"] == "none"


def test_convergence_table_counts_probes_still_falling_per_split_and_setup():
    probes = pd.DataFrame(
        {
            "split": ["a", "a", "a", "b"],
            "setup": ["standard", "standard", "extrapolation", "standard"],
            "still_falling": [True, False, True, False],
        }
    )
    table = summaries.convergence_table(probes)
    assert table.loc[("a", "standard"), "still falling (%)"] == 50
    assert table.loc[("a", "extrapolation"), "probes"] == 1
    assert table.loc[("all", "all"), "still falling (%)"] == 50
    assert len(summaries.convergence_table(probes.iloc[:0])) == 0


def test_collect_gaps_reads_the_earlier_chapters(tmp_path):
    same = {"n_train_sentences": 10, "n_eval_sentences": 10, "n_seeds": 2, "epochs": 1}
    own = {**same, "t1_speed_gap_mean": 30.0, "t2_speed_gap_mean": 12.0}
    table, stale = part_gaps.collect_gaps(own, tmp_path)  # nothing saved yet
    assert stale == [] and set(table["chapter"]) == {"44_learning_criteria"}
    save_results(tmp_path / "42_length_criteria.json", {**same, "t1_dist_gap_mean": 1.5})
    save_results(tmp_path / "43_tag_criteria.json", {**same, "epochs": 5, "mft_gap_mean": 2.0})
    table, stale = part_gaps.collect_gaps(own, tmp_path)
    assert stale == ["43_tag_criteria"]
    t1 = table[table["task"] == "T1"].set_index("scoring function")["gap"]
    assert t1.to_dict() == {"sentence length": 1.5, "speed of learning": 30.0}


def test_layer_points_table_names_task_split_and_layer():
    p, tied = points(0.2, 0.5), points(0.2, 0.4, top_ties=True)
    tasks = {"deprel": TaskRun("deprel", None, None, {"sample_loss": [p, tied]}, {}, None)}
    table = tables.layer_points_table(tasks, [0, 6])
    assert list(table.index) == ["T2 sample_loss L0", "T2 sample_loss L6"]
    assert list(table["rule"]) == ["distributional", "distributional + ties at m2"]
    assert list(table["m2"]) == [0.5, 0.4]
    assert len(tables.points_table({})) == 0 and "m2 from" in tables.points_table({}).columns
