"""The numbers and claims of chapters 42-44, from a chapter's run (Kunz & Kuhlmann 2021, §4).

Each function returns the chapter's glue values: the set-up, summaries of the gap table and the
verdict on each of the paper's claims ("holds" or "does not hold"), keyed as the chapter's prose
and the claims ledger read them. Gaps are in points: ``difficulty`` = standard - control,
``extrapolation_gap`` = control - extrapolation, averaged over seeds per layer.
"""

from __future__ import annotations

import pandas as pd

from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.sample import TASK_LABEL
from probekit.experiments.part4_extrapolation.scoring import split_scores
from probekit.methods.extrapolation import splits as extrapolation_splits

NAN = float("nan")
# Glue key prefix -> split of the length criteria (§4.1-4.2).
LENGTH_KEYS: dict[str, str] = {
    "t1_ling": "T1 sentence_length_linguistic",
    "t2_ling": "T2 sentence_length_linguistic",
    "t1_dist": "T1 sentence_length_pos",
    "t2_dist": "T2 sentence_length_deprel",
    "t2_arc": "T2 arc_length",
    "t2_arcmod": "T2 arc_length_modified",
}
# Glue key prefix -> split of the learning criteria (§4.4-4.5).
LEARNING_KEYS: dict[str, str] = {
    "t1_speed": "T1 speed_of_learning",
    "t2_speed": "T2 speed_of_learning",
    "t1_loss": "T1 sample_loss",
    "t2_loss": "T2 sample_loss",
}


def _holds(ok: bool) -> str:
    return "holds" if ok else "does not hold"


def _setup_values(chapter: ChapterRun, skipped: dict[str, str]) -> dict[str, object]:
    """Sample sizes, seeds, layers and epochs of a run, and the splits it skipped."""
    return {
        "n_train_sentences": len(chapter.sample.train),
        "n_eval_sentences": len(chapter.sample.eval),
        "n_seeds": len(chapter.config.seeds),
        "n_layers": len(chapter.layers),
        "epochs": chapter.config.epochs,
        "skipped": "; ".join(f"{k}: {v}" for k, v in skipped.items()) or "none",
    }


def _labelled_skips(chapter: ChapterRun) -> dict[str, str]:
    """Skipped splits of every task, named e.g. "T2 arc_length", with the reason."""
    return {
        f"{TASK_LABEL[task]} {name}": reason
        for task, run in chapter.tasks.items()
        for name, reason in run.skipped.items()
    }


def _point(chapter: ChapterRun, task: str, split: str, which: str) -> float:
    """Split point m1 or m2 of a static split, NaN if it was skipped."""
    points = chapter.tasks[task].points.get(split)
    return float(getattr(points, which)) if points is not None else NAN


def _gap(gaps: pd.DataFrame, split: str, column: str, how: str = "mean") -> float:
    """Mean or max over layers of one column of the gap table, NaN if the split was skipped."""
    values = gaps.loc[gaps["split"] == split, column]
    return float(getattr(values, how)()) if len(values) else NAN


def length_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 42's values: sentence-length and arc-length splits (Kunz & Kuhlmann 2021, §4.1-4.2).

    Per split of :data:`LENGTH_KEYS`: mean and max gap over layers, mean difficulty, the
    standard - extrapolation distance, best extrapolation and control accuracy (%). Claims:
    ``claim_t1_small`` (T1 gap never above 3 points), ``claim_ling_larger`` (the linguistic
    split separates standard and extrapolation more, both tasks), ``claim_arc_harder`` (arc
    length: hard set harder and a larger gap than sentence length), ``claim_arcmod`` (the
    modified split raises extrapolation but stays below control), ``claim_t2_smallest``
    (sentence length gives T2's smallest gap).
    """
    skipped = _labelled_skips(chapter)
    v: dict[str, object] = _setup_values(chapter, skipped) | {"n_skipped": len(skipped)}
    gaps = chapter.gaps
    for key, split in LENGTH_KEYS.items():
        v[f"{key}_gap_mean"] = _gap(gaps, split, "extrapolation_gap")
        v[f"{key}_gap_max"] = _gap(gaps, split, "extrapolation_gap", "max")
        v[f"{key}_difficulty_mean"] = _gap(gaps, split, "difficulty")
        v[f"{key}_std_extra_mean"] = _gap(gaps, split, "difficulty") + _gap(
            gaps, split, "extrapolation_gap"
        )
        v[f"{key}_extra_max"] = _gap(gaps, split, "extrapolation", "max")
        v[f"{key}_control_max"] = _gap(gaps, split, "control", "max")
    for key, task, split, which in (
        ("t1_m1", "pos", "sentence_length_pos", "m1"),
        ("t1_m2", "pos", "sentence_length_pos", "m2"),
        ("t2_m1", "deprel", "sentence_length_deprel", "m1"),
        ("t2_m2", "deprel", "sentence_length_deprel", "m2"),
        ("arc_m1", "deprel", "arc_length", "m1"),
        ("arc_m2", "deprel", "arc_length", "m2"),
        ("arcmod_m2", "deprel", "arc_length_modified", "m2"),
    ):
        v[key] = _point(chapter, task, split, which)
    v["claim_t1_small"] = _holds(v["t1_ling_gap_max"] <= 3 and v["t1_dist_gap_max"] <= 3)
    v["claim_t2_smallest"] = _holds(
        max(v["t2_ling_gap_mean"], v["t2_dist_gap_mean"]) < v["t2_arc_gap_mean"]
    )
    v["claim_ling_larger"] = _holds(
        v["t1_ling_std_extra_mean"] > v["t1_dist_std_extra_mean"]
        and v["t2_ling_std_extra_mean"] > v["t2_dist_std_extra_mean"]
    )
    v["claim_arc_harder"] = _holds(
        v["t2_arc_difficulty_mean"] > 0 and v["t2_arc_gap_mean"] > v["t2_dist_gap_mean"]
    )
    v["claim_arcmod"] = _holds(
        v["t2_arcmod_extra_max"] > v["t2_arc_extra_max"]
        and v["t2_arcmod_extra_max"] < v["t2_arcmod_control_max"]
    )
    return v


def _column(gaps: pd.DataFrame, split: str, name: str) -> pd.Series:
    """One column of the gap table for one split, indexed by layer (empty if skipped)."""
    return gaps.loc[gaps["split"] == split].set_index("layer")[name]


def _t1_column(chapter: ChapterRun, split: str, name: str) -> pd.Series:
    """One column of the gap table for a T1 split, indexed by layer; NaN if it was skipped."""
    gaps = chapter.gaps
    values = gaps.loc[gaps["split"] == f"T1 {split}"].set_index("layer")[name].astype(float)
    return values if len(values) else pd.Series([NAN], index=[chapter.layers[0]])


def tag_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 43's values: most-frequent-tag and tag-proportion splits (Kunz & Kuhlmann §4.3).

    Shares of hard evaluation words, split points, standard - control and standard -
    extrapolation ranges over layers, extrapolation accuracy per layer and the relative loss
    (control - extrapolation) / control. Claims: ``claim_mft_below`` (MFT extrapolation below
    standard in every layer), ``claim_mft_layers`` (the last layer extrapolates more than 5
    points better than the first), ``claim_mft_relative`` (the relative loss is larger in the
    first layer), ``claim_tp_easier`` and ``claim_tp_shrinks`` (the tag-proportion hard set is
    easier and its gap smaller); the last two "cannot be tested" if that split was skipped.
    ``widened`` lists the splits whose hard set is the examples tied at the top score.
    """
    t1 = chapter.tasks["pos"]
    v = _setup_values(chapter, t1.skipped)
    v["widened"] = ", ".join(k for k, p in t1.points.items() if p.top_ties) or "none"
    _, mft_eval = split_scores("most_frequent_tag", t1.train, t1.eval)
    _, tp_eval = split_scores("tag_proportion", t1.train, t1.eval)
    v["mft_hard_share"] = 100 * float((mft_eval > 0).mean())
    tp_points = t1.points.get("tag_proportion")
    if tp_points is not None:
        tp_hard = extrapolation_splits.hard_mask(tp_eval, tp_points)
        v["tp_hard_share"] = 100 * float(tp_hard.mean())
        v["tp_hard_is_mft"] = 100 * float((mft_eval[tp_hard] == 0).mean())
        v["tp_m1"], v["tp_m2"] = tp_points.m1, tp_points.m2
    std_ctrl = _t1_column(chapter, "most_frequent_tag", "difficulty")
    std_extra = std_ctrl + _t1_column(chapter, "most_frequent_tag", "extrapolation_gap")
    v["mft_std_ctrl_min"], v["mft_std_ctrl_max"] = float(std_ctrl.min()), float(std_ctrl.max())
    v["mft_std_extra_min"], v["mft_std_extra_max"] = float(std_extra.min()), float(std_extra.max())
    mft_extra = _t1_column(chapter, "most_frequent_tag", "extrapolation")
    mft_ctrl = _t1_column(chapter, "most_frequent_tag", "control")
    v["mft_extra_first"], v["mft_extra_last"] = float(mft_extra.iloc[0]), float(mft_extra.iloc[-1])
    v["mft_extra_best"] = float(mft_extra.max())
    v["first_layer"], v["last_layer"] = int(mft_extra.index[0]), int(mft_extra.index[-1])
    relative = (mft_ctrl - mft_extra) / mft_ctrl
    v["mft_rel_first"] = float(100 * relative.iloc[0])
    v["mft_rel_last"] = float(100 * relative.iloc[-1])
    v["claim_mft_below"] = _holds(bool((std_extra > 0).all()))
    v["claim_mft_layers"] = _holds(mft_extra.iloc[-1] > mft_extra.iloc[0] + 5)
    v["claim_mft_relative"] = _holds(relative.iloc[0] > relative.iloc[-1])
    v["mft_gap_mean"] = float(_t1_column(chapter, "most_frequent_tag", "extrapolation_gap").mean())
    v["mft_ctrl_mean"] = float(mft_ctrl.mean())
    if tp_points is None:
        # Keys of a skipped split still exist, so the page renders; the skipped list says why.
        for key in ("tp_hard_share", "tp_hard_is_mft", "tp_m1", "tp_m2", "tp_gap_mean"):
            v[key] = NAN
        v["tp_ctrl_mean"] = NAN
        v["claim_tp_easier"] = v["claim_tp_shrinks"] = "cannot be tested (split skipped)"
        return v
    v["tp_gap_mean"] = float(_t1_column(chapter, "tag_proportion", "extrapolation_gap").mean())
    v["tp_ctrl_mean"] = float(_t1_column(chapter, "tag_proportion", "control").mean())
    v["claim_tp_easier"] = _holds(v["tp_ctrl_mean"] > v["mft_ctrl_mean"])
    v["claim_tp_shrinks"] = _holds(v["tp_gap_mean"] < v["mft_gap_mean"])
    return v


def learning_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 44's values: speed-of-learning and sample-loss splits (Kunz & Kuhlmann §4.4-4.5).

    Per split of :data:`LEARNING_KEYS`: mean gap, difficulty and control accuracy over layers,
    extrapolation accuracy at the middle and last probed layer and its best layer. Claims:
    ``claim_speed_not_harder`` (speed-of-learning difficulty within 3 points, both tasks),
    ``claim_t2_exceeds`` (T2 control above standard in every layer but the first),
    ``claim_speed_largest`` (speed of learning gives a larger gap than sample loss),
    ``claim_speed_decreases`` (extrapolation falls from the middle to the last layer),
    ``claim_loss_control_lowest`` (sample loss gives the lower control accuracy),
    ``claim_t1_close`` (T1 sample-loss gap below 3 points), ``claim_t2_wider`` (T2's gap is
    wider than T1's). ``widened`` lists the task, split and layer of every hard set that is
    the examples tied at the top score.
    """
    skipped = _labelled_skips(chapter)
    v = _setup_values(chapter, skipped)
    v["n_ensemble"] = len(chapter.config.ensemble_seeds)
    v["widened"] = (
        ", ".join(
            f"{TASK_LABEL[task]} {name} layer {layer}"
            for task, run in chapter.tasks.items()
            for name, per_layer in run.points.items()
            for layer, p in zip(chapter.layers, per_layer, strict=True)
            if p.top_ties
        )
        or "none"
    )
    gaps = chapter.gaps
    for key, split in LEARNING_KEYS.items():
        extra = _column(gaps, split, "extrapolation")
        v[f"{key}_gap_mean"] = float(_column(gaps, split, "extrapolation_gap").mean())
        v[f"{key}_difficulty_mean"] = float(_column(gaps, split, "difficulty").mean())
        v[f"{key}_control_mean"] = float(_column(gaps, split, "control").mean())
        v[f"{key}_extra_mid"] = float(extra.iloc[len(extra) // 2]) if len(extra) else NAN
        v[f"{key}_extra_last"] = float(extra.iloc[-1]) if len(extra) else NAN
        v[f"{key}_extra_best_layer"] = int(extra.idxmax()) if len(extra) else -1
    t2_above = _column(gaps, "T2 speed_of_learning", "difficulty") < 0
    v["t2_speed_above_layers"] = int(t2_above.sum())
    v["claim_speed_largest"] = _holds(
        v["t1_speed_gap_mean"] > v["t1_loss_gap_mean"]
        and v["t2_speed_gap_mean"] > v["t2_loss_gap_mean"]
    )
    v["claim_speed_not_harder"] = _holds(
        abs(v["t1_speed_difficulty_mean"]) < 3 and abs(v["t2_speed_difficulty_mean"]) < 3
    )
    v["claim_t2_exceeds"] = _holds(bool(t2_above.iloc[1:].all()) if len(t2_above) > 1 else False)
    v["claim_speed_decreases"] = _holds(
        v["t1_speed_extra_last"] < v["t1_speed_extra_mid"]
        and v["t2_speed_extra_last"] < v["t2_speed_extra_mid"]
    )
    v["mid_layer"] = int(chapter.layers[len(chapter.layers) // 2])
    v["last_layer"] = int(chapter.layers[-1])
    v["claim_loss_control_lowest"] = _holds(
        v["t1_loss_control_mean"] < v["t1_speed_control_mean"]
        and v["t2_loss_control_mean"] < v["t2_speed_control_mean"]
    )
    v["claim_t1_close"] = _holds(v["t1_loss_gap_mean"] < 3)
    v["claim_t2_wider"] = _holds(v["t2_loss_gap_mean"] > v["t1_loss_gap_mean"])
    return v


def ranking_values(table: pd.DataFrame, stale: list[str]) -> dict[str, object]:
    """Chapter 44's ranking of the scoring functions by their gap across Part IV (§5.1).

    ``table`` and ``stale`` are those of
    :func:`~probekit.experiments.part4_extrapolation.part_gaps.gap_ledger` (rows: task, scoring
    function, gap). Per task ("t1", "t2"): the scoring functions with the
    smallest and largest gap, how many were compared, and ``claim_<task>_length_smallest``,
    the paper's conclusion that sentence length gives the smallest gap.
    """
    v: dict[str, object] = {"stale": ", ".join(stale) or "none"}
    for task in ("T1", "T2"):
        part = table[table["task"] == task].set_index("scoring function")["gap"]
        key = task.lower()
        v[f"{key}_smallest"] = part.idxmin() if len(part) else "none"
        v[f"{key}_largest"] = part.idxmax() if len(part) else "none"
        v[f"{key}_n_functions"] = len(part)
        v[f"claim_{key}_length_smallest"] = _holds(
            len(part) > 1 and part.idxmin() == "sentence length"
        )
    return v
