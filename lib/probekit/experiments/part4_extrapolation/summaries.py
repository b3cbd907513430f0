"""The descriptive numbers of chapters 42-44, from a chapter's run (Kunz & Kuhlmann 2021, §4).

Each function returns the chapter's glue values: the set-up and summaries of the gap table,
keyed as the chapter's prose reads them. Gaps are in points: ``difficulty`` = standard - control,
``extrapolation_gap`` = control - extrapolation, ``size_cost`` = standard - size control and
``size_gap`` = size control on the hard set - extrapolation, averaged over seeds per layer.
They describe; the paper's claims are judged by the rules of
:mod:`~probekit.experiments.part4_extrapolation.claims`. :func:`convergence_values` gives the
share of probes whose evaluation loss was still falling at their last epoch, per chapter and
setup, and :func:`convergence_table` the same as a table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from probekit.experiments.deviations import MAX_CAP_SHARE, cap_share
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
# Glue key prefix -> split of the tag criteria (§4.3).
TAG_KEYS: dict[str, str] = {"mft": "T1 most_frequent_tag", "tp": "T1 tag_proportion"}
# Glue key prefix -> split of the learning criteria (§4.4-4.5).
LEARNING_KEYS: dict[str, str] = {
    "t1_speed": "T1 speed_of_learning",
    "t2_speed": "T2 speed_of_learning",
    "t1_loss": "T1 sample_loss",
    "t2_loss": "T2 sample_loss",
}


def _setup_values(chapter: ChapterRun, skipped: dict[str, str]) -> dict[str, object]:
    """Sample sizes, seeds, layers, epochs and compared layer of a run, and its skipped splits.

    Also the size control's half (``size_half_pct``, % of the T1 or else T2 training examples;
    NaN when no task ran), the convergence values of :func:`convergence_values` and the epoch
    choice's of :func:`epoch_choice_values`.
    """
    halves = [t.half for t in chapter.tasks.values() if t.half is not None]
    return (
        {
            "n_train_sentences": len(chapter.sample.train),
            "n_eval_sentences": len(chapter.sample.eval),
            "n_seeds": len(chapter.config.seeds),
            "n_layers": len(chapter.layers),
            "epochs": chapter.config.epochs,
            "epoch_folds": int(chapter.config.epoch_folds),
            "compare_layer": int(chapter.compare_layer),
            "skipped": "; ".join(f"{k}: {v}" for k, v in skipped.items()) or "none",
            "size_half_pct": 100 * float(halves[0].mean()) if halves else NAN,
        }
        | convergence_values(chapter.probes)
        | epoch_choice_values(chapter.gaps)
    )


# The setups in the convergence table and their glue-key suffixes.
_CONVERGENCE_SETUPS: dict[str, str] = {
    "standard": "standard",
    "control": "control",
    "extrapolation": "extra",
    "size_control": "size",
    "size_control_hard": "size_hard",
}


def convergence_values(probes: pd.DataFrame) -> dict[str, object]:
    """Share of probes whose evaluation loss was still falling at their last epoch (%).

    Kunz & Kuhlmann 2021 train every probe for a fixed number of epochs and report the best
    (§3.2, §3.6); a probe whose loss on its evaluation examples was lowest at the last epoch
    had not converged (:func:`~probekit.probes.mlp.loss_still_falling`). ``probes`` is the
    chapter's probe table. ``cap_share`` over every probe of the table (%), ``cap_share_<setup>``
    per setup, ``cap_max`` the limit (%) the book profile keeps under, ``cap_ok`` whether it
    did, and ``n_runs``.
    """
    flags = probes["still_falling"].astype(bool) if len(probes) else pd.Series([], dtype=bool)
    share = 100 * cap_share(list(flags))
    v: dict[str, object] = {
        "cap_share": share,
        "cap_max": 100 * MAX_CAP_SHARE,
        "cap_ok": "below" if share < 100 * MAX_CAP_SHARE else "not below",
        "n_runs": len(flags),
    }
    for setup, suffix in _CONVERGENCE_SETUPS.items():
        rows = flags[probes["setup"] == setup] if len(probes) else flags
        v[f"cap_share_{suffix}"] = 100 * cap_share(list(rows))
    return v


def convergence_table(probes: pd.DataFrame) -> pd.DataFrame:
    """Per split and setup: probes, and the share (%) still falling at their last epoch.

    One row per split and setup of the chapter's probe table, plus an "all" row; columns
    ``probes`` and ``still falling (%)`` (see :func:`convergence_values`).
    """
    columns = ["probes", "still falling (%)"]
    if probes.empty:
        return pd.DataFrame(columns=columns)
    flags = probes.assign(still_falling=probes["still_falling"].astype(float))
    table = flags.groupby(["split", "setup"], sort=False)["still_falling"].agg(["size", "mean"])
    table.columns = columns
    table[columns[1]] *= 100
    total = pd.DataFrame(
        [[len(flags), 100 * flags["still_falling"].mean()]],
        columns=columns,
        index=pd.MultiIndex.from_tuples([("all", "all")], names=["split", "setup"]),
    )
    return pd.concat([table, total])


def epoch_choice_table(chapter: ChapterRun) -> pd.DataFrame:
    """Control - extrapolation gaps (points) at the compared layer, by how the epoch is chosen.

    Kunz & Kuhlmann 2021, §3.6 report each probe's best epoch on the items it is scored on;
    the book chooses it on the other fold of evaluation sentences
    (:func:`~probekit.experiments.part4_extrapolation.runs.sentence_folds`). One row per split:
    ``own items`` (the paper's choice), ``other fold`` (the book's) and ``change``.
    """
    gaps = chapter.gaps[chapter.gaps["layer"] == chapter.compare_layer]
    table = pd.DataFrame({
        "split": gaps["split"],
        "own items": gaps["same_set_gap"],
        "other fold": gaps["extrapolation_gap"],
    })  # fmt: skip
    return table.assign(change=table["other fold"] - table["own items"]).set_index("split")


def epoch_choice_values(gaps: pd.DataFrame) -> dict[str, object]:
    """How choosing the epoch on the other fold moves the extrapolation gaps (points).

    Over every split and layer of a chapter's gap table: ``epoch_change_mean``,
    ``epoch_change_min`` and ``epoch_change_max`` (NaN without gaps).
    """
    change = (gaps["extrapolation_gap"] - gaps["same_set_gap"]).dropna() if len(gaps) else []
    if not len(change):
        return {"epoch_change_mean": NAN, "epoch_change_min": NAN, "epoch_change_max": NAN}
    return {
        "epoch_change_mean": float(np.mean(change)),
        "epoch_change_min": float(np.min(change)),
        "epoch_change_max": float(np.max(change)),
    }


def size_values(chapter: ChapterRun, keys: dict[str, str]) -> dict[str, object]:
    """The size control of each split of ``keys`` (glue prefix -> split), means over layers.

    Kunz & Kuhlmann 2021, §3.5: ``<key>_size_cost_mean``/``_max`` = standard - size control (the
    paper: at most 1 point); ``<key>_size_gap_mean`` = size control on the hard set -
    extrapolation, beside ``<key>_gap_mean`` = control - extrapolation; ``<key>_size_share``
    = the part of the gap that the size control does not explain, size gap / gap (%; NaN for
    a gap of 0 or a skipped split).
    """
    gaps = chapter.gaps
    v: dict[str, object] = {}
    for key, split in keys.items():
        gap = _gap(gaps, split, "extrapolation_gap")
        size_gap = _gap(gaps, split, "size_gap")
        v[f"{key}_size_cost_mean"] = _gap(gaps, split, "size_cost")
        v[f"{key}_size_cost_max"] = _gap(gaps, split, "size_cost", "max")
        v[f"{key}_size_gap_mean"] = size_gap
        v[f"{key}_size_hard_mean"] = _gap(gaps, split, "size_control_hard")
        v[f"{key}_size_share"] = 100 * size_gap / gap if np.isfinite(gap) and gap else NAN
    return v


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
    v["t2_arc_easy_pct"] = _easy_pct(chapter.probes, LENGTH_KEYS["t2_arc"])
    v["t2_arc_easy_vs_half"] = _against_half(v["t2_arc_easy_pct"], v["size_half_pct"])
    return v | size_values(chapter, LENGTH_KEYS) | _size_cost(chapter)


def _against_half(easy_pct: float, half_pct: float) -> str:
    """How an easy set's share compares with the size control's half, in words."""
    if not (np.isfinite(easy_pct) and np.isfinite(half_pct)):
        return "not comparable with"
    if round(easy_pct) == round(half_pct):
        return "about as many as"
    return "fewer than" if easy_pct < half_pct else "more than"


def _size_cost(chapter: ChapterRun) -> dict[str, object]:
    """Standard - size control (points) over every task and layer: mean and max (§3.5)."""
    costs = chapter.gaps["size_cost"].astype(float) if len(chapter.gaps) else pd.Series([NAN])
    return {"size_cost_mean": float(costs.mean()), "size_cost_max": float(costs.max())}


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

    Shares of easy training words (and how they compare with the size control's half) and of
    hard evaluation words, split points, standard - control and standard - extrapolation ranges
    over layers, extrapolation accuracy per layer and the relative loss
    (control - extrapolation) / control, and the mean gap and control accuracy of both splits
    (NaN for a skipped tag-proportion split). ``widened`` lists the splits whose hard set is the
    examples tied at the top score.
    """
    t1 = chapter.tasks["pos"]
    v = _setup_values(chapter, t1.skipped)
    for key, split in TAG_KEYS.items():
        v[f"{key}_easy_pct"] = _easy_pct(chapter.probes, split)
        v[f"{key}_easy_vs_half"] = _against_half(v[f"{key}_easy_pct"], v["size_half_pct"])
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
        return v | size_values(chapter, TAG_KEYS) | _size_cost(chapter)
    v["tp_gap_mean"] = float(_t1_column(chapter, "tag_proportion", "extrapolation_gap").mean())
    v["tp_ctrl_mean"] = float(_t1_column(chapter, "tag_proportion", "control").mean())
    return v | size_values(chapter, TAG_KEYS) | _size_cost(chapter)


def learning_values(chapter: ChapterRun) -> dict[str, object]:
    """Chapter 44's values: speed-of-learning and sample-loss splits (Kunz & Kuhlmann §4.4-4.5).

    Per split of :data:`LEARNING_KEYS`: mean gap, difficulty and control accuracy over layers,
    extrapolation accuracy at the middle and last probed layer and its best layer; the layers
    where the T2 speed-of-learning control lies above the standard setup. ``widened`` lists the
    task, split and layer of every hard set that is the examples tied at the top score. The
    scoring ensemble: its size, folds and the share (%) of its probes still falling at their
    last epoch (``ensemble_cap_share``).
    """
    skipped = _labelled_skips(chapter)
    v = _setup_values(chapter, skipped)
    v["n_ensemble"] = len(chapter.config.ensemble_seeds)
    v["ensemble_folds"] = int(chapter.config.ensemble_folds)
    falling = [np.asarray(e.still_falling).ravel() for e in chapter.ensembles.values()]
    v["ensemble_cap_share"] = 100 * cap_share(list(np.concatenate(falling))) if falling else NAN
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
    return v | size_values(chapter, LEARNING_KEYS) | _size_cost(chapter)


def ranking_values(table: pd.DataFrame, stale: list[str]) -> dict[str, object]:
    """Chapter 44's ranking of the scoring functions by their gap across Part IV (§5.1).

    ``table`` and ``stale`` are those of
    :func:`~probekit.experiments.part4_extrapolation.part_gaps.gap_ledger` (rows: task, scoring
    function, gap, size gap). Per task ("t1", "t2"): the scoring functions with the smallest
    and largest mean gap, and how many were compared; the same for the gap against the size
    control, and the Spearman rank correlation of the two rankings (NaN for fewer than three
    functions).
    """
    v: dict[str, object] = {"stale": ", ".join(stale) or "none"}
    for task in ("T1", "T2"):
        rows = table[table["task"] == task].set_index("scoring function")
        part = rows["gap"]
        key = task.lower()
        v[f"{key}_smallest"] = part.idxmin() if len(part) else "none"
        v[f"{key}_largest"] = part.idxmax() if len(part) else "none"
        v[f"{key}_n_functions"] = len(part)
        sized = rows["size gap"].dropna() if "size gap" in rows else pd.Series(dtype=float)
        v[f"{key}_size_smallest"] = sized.idxmin() if len(sized) else "none"
        v[f"{key}_size_largest"] = sized.idxmax() if len(sized) else "none"
        both = rows.loc[sized.index]
        v[f"{key}_rank_agreement"] = (
            float(both["gap"].corr(both["size gap"], method="spearman")) if len(both) > 2 else NAN
        )
    return v
