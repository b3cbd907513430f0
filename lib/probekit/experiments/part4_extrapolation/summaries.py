"""The descriptive numbers of chapters 42-44, from a chapter's run (Kunz & Kuhlmann 2021, §4).

Each function returns the chapter's glue values: the set-up and summaries of the gap table,
keyed as the chapter's prose reads them. Gaps are in points: ``difficulty`` = standard - control,
``extrapolation_gap`` = control - extrapolation, averaged over seeds per layer. They describe;
the paper's claims are judged by the rules of
:mod:`~probekit.experiments.part4_extrapolation.claims`.
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


def _setup_values(chapter: ChapterRun, skipped: dict[str, str]) -> dict[str, object]:
    """Sample sizes, seeds, layers, epochs and compared layer of a run, and its skipped splits."""
    return {
        "n_train_sentences": len(chapter.sample.train),
        "n_eval_sentences": len(chapter.sample.eval),
        "n_seeds": len(chapter.config.seeds),
        "n_layers": len(chapter.layers),
        "epochs": chapter.config.epochs,
        "compare_layer": int(chapter.compare_layer),
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


def _easy_pct(probes: pd.DataFrame, split: str) -> float:
    """Share (%) of the training examples in a split's easy set, NaN if the split was skipped.

    Read off the probe table: the extrapolation probes train on the easy set, the standard ones
    on every training example.
    """
    if probes.empty:
        return NAN
    rows = probes[probes["split"] == split]
    n_easy = rows.loc[rows["setup"] == "extrapolation", "n_train"]
    n_all = rows.loc[rows["setup"] == "standard", "n_train"]
    if not (len(n_easy) and len(n_all)):
        return NAN
    return 100 * float(n_easy.iloc[0]) / float(n_all.iloc[0])


def length_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 42's values: sentence-length and arc-length splits (Kunz & Kuhlmann 2021, §4.1-4.2).

    Per split of :data:`LENGTH_KEYS`: mean and max gap over layers, mean difficulty, the
    standard - extrapolation distance, best extrapolation and control accuracy (%); the split
    points; and the share of training words in the easy set of each T1 sentence-length split
    (``t1_ling_easy_pct``, ``t1_dist_easy_pct``; NaN if skipped).
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
    v["t1_ling_easy_pct"] = _easy_pct(chapter.probes, LENGTH_KEYS["t1_ling"])
    v["t1_dist_easy_pct"] = _easy_pct(chapter.probes, LENGTH_KEYS["t1_dist"])
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
    (control - extrapolation) / control, and the mean gap and control accuracy of both splits
    (NaN for a skipped tag-proportion split). ``widened`` lists the splits whose hard set is the
    examples tied at the top score.
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
    v["mft_gap_mean"] = float(_t1_column(chapter, "most_frequent_tag", "extrapolation_gap").mean())
    v["mft_ctrl_mean"] = float(mft_ctrl.mean())
    if tp_points is None:
        # Keys of a skipped split still exist, so the page renders; the skipped list says why.
        for key in ("tp_hard_share", "tp_hard_is_mft", "tp_m1", "tp_m2", "tp_gap_mean"):
            v[key] = NAN
        v["tp_ctrl_mean"] = NAN
        return v
    v["tp_gap_mean"] = float(_t1_column(chapter, "tag_proportion", "extrapolation_gap").mean())
    v["tp_ctrl_mean"] = float(_t1_column(chapter, "tag_proportion", "control").mean())
    return v


def learning_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 44's values: speed-of-learning and sample-loss splits (Kunz & Kuhlmann §4.4-4.5).

    Per split of :data:`LEARNING_KEYS`: mean gap, difficulty and control accuracy over layers,
    extrapolation accuracy at the middle and last probed layer and its best layer; the layers
    where the T2 speed-of-learning control lies above the standard setup. ``widened`` lists the
    task, split and layer of every hard set that is the examples tied at the top score.
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
    v["mid_layer"] = int(chapter.layers[len(chapter.layers) // 2])
    v["last_layer"] = int(chapter.layers[-1])
    return v


def ranking_values(table: pd.DataFrame, stale: list[str]) -> dict[str, object]:
    """Chapter 44's ranking of the scoring functions by their gap across Part IV (§5.1).

    ``table`` and ``stale`` are those of
    :func:`~probekit.experiments.part4_extrapolation.part_gaps.gap_ledger` (rows: task, scoring
    function, gap). Per task ("t1", "t2"): the scoring functions with the smallest and largest
    mean gap, and how many were compared.
    """
    v: dict[str, object] = {"stale": ", ".join(stale) or "none"}
    for task in ("T1", "T2"):
        part = table[table["task"] == task].set_index("scoring function")["gap"]
        key = task.lower()
        v[f"{key}_smallest"] = part.idxmin() if len(part) else "none"
        v[f"{key}_largest"] = part.idxmax() if len(part) else "none"
        v[f"{key}_n_functions"] = len(part)
    return v
