"""Tables of Part IV (Kunz & Kuhlmann 2021).

Probe accuracies, setup gaps, split points and set sizes, and example items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.experiments.part4_extrapolation.runs import SplitRun, TaskRun
from probekit.experiments.part4_extrapolation.sample import TASK_LABEL
from probekit.experiments.part4_extrapolation.splits import EXPERIMENT_SETUPS
from probekit.io import tasks
from probekit.io.treebanks import Sentence
from probekit.methods.extrapolation import splits as extrapolation_splits

_PROBE_COLUMNS = [
    "split", "layer", "seed", "setup", "n_train", "n_eval", "accuracy", "same_set_best",
    "still_falling", "task",
]  # fmt: skip
# The gaps of each split and layer, in points: what the paper compares and the size control;
# the last is the extrapolation gap with every epoch chosen on the items it is scored on.
GAPS: tuple[str, ...] = (
    "difficulty", "extrapolation_gap", "size_cost", "size_gap", "same_set_gap",
)  # fmt: skip
_GAP_COLUMNS = ["split", "layer", *EXPERIMENT_SETUPS, *GAPS, "task"]
_POINT_COLUMNS = ["split", "rule", "m1", "m1 from", "m2", "m2 from"]
_SIZE_COLUMNS = [*_POINT_COLUMNS, "easy", "easy %", "hard", "hard %"]


def probe_table(run: SplitRun) -> pd.DataFrame:
    """One row per probe: its accuracy in percent and whether it converged.

    Columns of the run's index; ``accuracy``, at the epoch chosen on the other fold of
    evaluation sentences (:func:`~probekit.experiments.part4_extrapolation.runs.sentence_folds`),
    scored on the probe's evaluation items (what every comparison reads); ``same_set_best``,
    the best epoch's accuracy on those same items, as the paper reports it (§3.6); and
    ``still_falling`` (the probe's loss on its evaluation items was lowest at its last epoch,
    :func:`~probekit.probes.mlp.loss_still_falling`).
    """
    pred, y = run.result.pred_best, run.y_eval
    scored = pred >= 0
    chosen = ((pred == y) & scored).sum(axis=1) / scored.sum(axis=1)
    return run.index.assign(
        accuracy=100 * chosen,
        same_set_best=100 * run.result.best_acc,
        still_falling=run.result.still_falling,
    )


def setup_summary(run: SplitRun) -> pd.DataFrame:
    """Mean and SD over seeds of accuracy (%) per split, layer and setup (§3.6).

    Kunz & Kuhlmann 2021, §3.6 ("the mean over 10 random seeds of the best accuracy").
    """
    return (
        probe_table(run)
        .groupby(["split", "layer", "setup"], sort=False)
        .agg(
            accuracy=("accuracy", "mean"),
            sd=("accuracy", "std"),
            n_train=("n_train", "first"),
            n_eval=("n_eval", "first"),
        )
        .reset_index()
    )


def gap_table(run: SplitRun) -> pd.DataFrame:
    """Per split and layer: mean accuracy (%) of each setup and the gaps (points) that matter.

    Kunz & Kuhlmann 2021, §4: ``difficulty`` = standard - control (how much harder the hard set
    is) and ``extrapolation_gap`` = control - extrapolation (what training on easy data only
    costs on the same hard items). §3.5: ``size_cost`` = standard - size_control (what halving
    the training set costs; the paper saw at most 1 point). Ours: ``size_gap`` =
    size_control_hard - extrapolation, the extrapolation gap against probes trained on a random
    half instead of all training examples, so that it does not count the smaller training set.
    Every accuracy is read at the epoch chosen on the other fold of sentences;
    ``same_set_gap`` is the extrapolation gap with each probe's best epoch on its own
    evaluation items instead, as the paper chooses it.
    """
    probes = probe_table(run)

    def means(accuracy: str) -> pd.DataFrame:
        table = probes.pivot_table(
            index=["split", "layer"], columns="setup", values=accuracy, aggfunc="mean", sort=False
        )
        return table.reindex(columns=list(EXPERIMENT_SETUPS))

    wide, same = means("accuracy"), means("same_set_best")
    wide["difficulty"] = wide["standard"] - wide["control"]
    wide["extrapolation_gap"] = wide["control"] - wide["extrapolation"]
    wide["size_cost"] = wide["standard"] - wide["size_control"]
    wide["size_gap"] = wide["size_control_hard"] - wide["extrapolation"]
    wide["same_set_gap"] = same["control"] - same["extrapolation"]
    wide.columns.name = None
    return wide.reset_index()


def _main(table: pd.DataFrame, task_run: TaskRun) -> pd.DataFrame:
    """The rows of a task's main splits (its reference splits left out)."""
    return table[table["split"].isin(list(task_run.points))].reset_index(drop=True)


def combined_tables(task_runs: Sequence[TaskRun]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`probe_table` and :func:`gap_table` of several tasks, split names prefixed.

    Split names become e.g. "T1 sentence_length_pos" (Kunz & Kuhlmann's task names). Tasks whose
    splits were all skipped contribute nothing; with nothing at all the frames are empty but
    keep their columns, so a chapter on a tiny treebank still renders. Reference splits
    (``TaskRun.controls``) are left out: they have a control alone, or every setup at the
    compared layer only.
    """
    done = [t for t in task_runs if t.run is not None]
    probes = [_main(probe_table(t.run), t).assign(task=t.task) for t in done]
    gaps = [_main(gap_table(t.run), t).assign(task=t.task) for t in done]
    out = []
    for frames, columns in ((probes, _PROBE_COLUMNS), (gaps, _GAP_COLUMNS)):
        table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
        table["split"] = table["task"].map(TASK_LABEL) + " " + table["split"]
        out.append(table)
    return out[0], out[1]


def _points_row(name: str, p: extrapolation_splits.SplitPoints) -> dict:
    """One split's points and the data that supplied each, as a table row (§3.5)."""
    return {
        "split": name,
        "rule": p.label,
        "m1": p.m1,
        "m1 from": p.m1_from,
        "m2": p.m2,
        "m2 from": p.m2_from,
    }


def points_table(points: Mapping[str, extrapolation_splits.SplitPoints]) -> pd.DataFrame:
    """Split points per split, with the data that supplied each (Kunz & Kuhlmann §3.5)."""
    rows = [_points_row(name, p) for name, p in points.items()]
    return pd.DataFrame(rows, columns=_POINT_COLUMNS).set_index("split")


def layer_points_table(task_runs: Mapping[str, TaskRun], layers: Sequence[int]) -> pd.DataFrame:
    """:func:`points_table` of learning-based splits, one row per task, split and layer (§3.4.3).

    Each layer has its own ensemble and so its own split points; rows are named e.g.
    "T1 speed_of_learning L6". ``task_runs`` maps a task to its run; ``layers`` are the probed
    layers, in the order of the per-layer points.
    """
    rows = {
        f"{TASK_LABEL[task]} {name} L{layer}": p
        for task, run in task_runs.items()
        for name, per_layer in run.points.items()
        for layer, p in zip(layers, per_layer, strict=True)
    }
    return points_table(rows)


def split_sizes(
    entries: Mapping[str, tuple[extrapolation_splits.SplitPoints, np.ndarray, np.ndarray]],
) -> pd.DataFrame:
    """Split points, their sources and the easy/hard set sizes per split (§3.5).

    ``entries`` maps a split name to (points, train scores (N,), eval scores (M,)). Columns:
    rule, m1, m1 from, m2, m2 from, easy (count), easy % (of N), hard (count), hard % (of M).
    """
    rows = []
    for name, (p, ts, es) in entries.items():
        easy = int(extrapolation_splits.easy_mask(ts, p).sum())
        hard = int(extrapolation_splits.hard_mask(es, p).sum())
        rows.append(
            _points_row(name, p)
            | {
                "easy": easy,
                "easy %": 100 * easy / max(len(ts), 1),
                "hard": hard,
                "hard %": 100 * hard / max(len(es), 1),
            }
        )
    return pd.DataFrame(rows, columns=_SIZE_COLUMNS).set_index("split")


def example_items(
    sentences: Sequence[Sentence],
    examples: tasks.Examples,
    scores: np.ndarray,
    mask: np.ndarray,
    k: int = 5,
    *,
    seed: int,
) -> pd.DataFrame:
    """``k`` seeded random examples from ``mask`` with word, label, score and sentence context.

    For showing easy and hard items (Kunz & Kuhlmann 2021, §3.5). ``scores`` and ``mask`` (N,).
    The word is in brackets in its context; a T2 example is written dependent → head.
    """
    picked = np.flatnonzero(mask)
    if len(picked) == 0:
        return pd.DataFrame(columns=["word", "label", "score", "context"])
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(picked, size=min(k, len(picked)), replace=False))
    rows = []
    for i in picked:
        forms = sentences[examples.sent[i]].forms
        j = int(examples.word[i])
        word = str(forms[j])
        if examples.head is not None:
            word = f"{word} → {forms[examples.head[i]]}"
        lo, hi = max(0, j - 4), min(len(forms), j + 5)
        context = " ".join(f"[{w}]" if lo + n == j else str(w) for n, w in enumerate(forms[lo:hi]))
        rows.append(
            {
                "word": word,
                "label": examples.labels[examples.y[i]],
                "score": float(scores[i]),
                "context": context,
            }
        )
    return pd.DataFrame(rows)
