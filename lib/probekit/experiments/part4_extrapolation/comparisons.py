"""Setups compared on hard items, sentence by sentence and seed by seed (Part IV).

Kunz & Kuhlmann 2021 (§3.6) compare mean accuracies over 10 seeds. The control and
extrapolation probes are scored on the same hard items, and the items of one sentence stand or
fall together, so a comparison here counts each probe's correct hard items per evaluation
sentence (:func:`hard_counts`, every seed) and takes the interval of the difference of the two
corpus accuracies over sentences and seeds (:func:`hard_difference`, the variance-components
interval of :func:`~probekit.stats.intervals.crossed_interval`). Two gaps are compared the same
way (:func:`gap_difference`, :func:`~probekit.stats.intervals.crossed_contrast`). Tokens are never
the unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.runs import SplitRun
from probekit.experiments.part4_extrapolation.sample import TASK_LABEL
from probekit.stats.calibration import discordance
from probekit.stats.intervals import Interval, Term, crossed_contrast, crossed_interval

LEVEL = 0.90  # the interval every Part IV rule reads: one-sided alpha = 0.05
_COLUMNS = [
    "split",
    "hard items",
    "sentences",
    "control (%)",
    "extrapolation (%)",
    "size control (%)",
]
GAP = "control − extrapolation (points)"
SIZE_GAP = "size control − extrapolation (points)"


@dataclass(frozen=True, eq=False)
class HardCounts:
    """One setup's correct hard items per seed and evaluation sentence.

    ``correct`` (k, n): hard items probe seed s got right in sentence i; ``units`` (n,): the
    hard items of sentence i (0 for a sentence without any); ``seeds`` the k seeds, in the
    order of the rows. The setup's corpus accuracy under seed s is
    ``correct[s].sum() / units.sum()``. ``right`` (k, M), when kept: which of the M hard items
    each seed got right, in evaluation order (:func:`unit_discordance` reads it).
    """

    correct: np.ndarray
    units: np.ndarray
    seeds: tuple[int, ...]
    right: np.ndarray | None = None

    def __post_init__(self) -> None:
        """Check the shapes: (k, n) correct counts, (n,) units, k seeds, counts <= units."""
        correct, units = np.asarray(self.correct), np.asarray(self.units)
        if correct.ndim != 2 or units.shape != (correct.shape[1],):
            raise ParameterError(
                "correct", f"must be (seeds, sentences) with (sentences,) units, got "
                f"{correct.shape} and {units.shape}",
            )  # fmt: skip
        if len(self.seeds) != correct.shape[0]:
            raise ParameterError("seeds", f"{len(self.seeds)} seeds for {correct.shape[0]} rows")
        if np.any(correct < 0) or np.any(correct > units):
            raise ParameterError("correct", "counts must lie between 0 and the sentence's units")
        if self.right is not None and np.shape(self.right) != (len(self.seeds), units.sum()):
            raise ParameterError(
                "right", f"must be (seeds, hard items), got {np.shape(self.right)}"
            )

    @property
    def accuracy(self) -> float:
        """Seed-averaged corpus accuracy, a fraction (NaN without hard items)."""
        total = float(np.sum(self.units))
        return float(np.mean(self.correct.sum(axis=1)) / total) if total else float("nan")


def _probe_rows(run: SplitRun, split: str, layer: int, setup: str) -> pd.DataFrame:
    """Index rows of one split, layer and setup, one per seed, in the run's seed order."""
    idx = run.index
    rows = idx[(idx["split"] == split) & (idx["layer"] == layer) & (idx["setup"] == setup)]
    if len(rows) == 0 or rows["seed"].duplicated().any():
        raise ParameterError(
            "split/layer/setup", f"no single probe per seed for {(split, layer, setup)}"
        )
    return rows


def has_probes(run: SplitRun, split: str, layer: int, setup: str) -> bool:
    """Whether ``run`` scored ``setup`` probes of ``split`` at ``layer``."""
    idx = run.index
    rows = (idx["split"] == split) & (idx["layer"] == layer) & (idx["setup"] == setup)
    return bool(rows.any())


def hard_correct(run: SplitRun, split: str, layer: int, seed: int, setup: str) -> np.ndarray:
    """Per-item correctness, bool (H,), of one probe on its split's hard evaluation set."""
    rows = _probe_rows(run, split, layer, setup)
    hit = rows.index[rows["seed"] == seed]
    if len(hit) != 1:
        raise ParameterError("seed", f"no probe of seed {seed} for {(split, layer, setup)}")
    hard = run.eval_masks[(split, int(layer))]
    return run.result.pred_best[hit[0]][hard] == run.y_eval[hard]


def hard_counts(run: SplitRun, split: str, layer: int, setup: str, n_sentences: int) -> HardCounts:
    """Correct hard items per seed and sentence of one setup (Kunz & Kuhlmann 2021, §3.6).

    Every seed of the run enters, in the run's seed order. The sentence axis covers all
    ``n_sentences`` evaluation sentences, so that counts of other setups and splits line up;
    sentences without hard items have 0 units.
    """
    rows = _probe_rows(run, split, layer, setup)
    hard = run.eval_masks[(split, int(layer))]
    sent = np.asarray(run.sent_eval)[hard]
    units = np.bincount(sent, minlength=n_sentences).astype(np.float64)
    right = np.stack([run.result.pred_best[i][hard] == run.y_eval[hard] for i in rows.index])
    correct = np.stack([np.bincount(sent, weights=r, minlength=n_sentences) for r in right])
    return HardCounts(correct, units, tuple(int(s) for s in rows["seed"]), right)


def unit_discordance(a: HardCounts, b: HardCounts) -> tuple[float, float] | None:
    """How often two setups' probes disagree on a hard item: (across setups, within a setup).

    :func:`~probekit.stats.calibration.discordance` of the per-item outcomes, when both sides
    kept them for the same hard items (None otherwise). The claims ledger's simulation of a
    claim matches it, so that its probes disagree unit by unit as the measured ones do.
    """
    if a.right is None or b.right is None or not np.array_equal(a.units, b.units):
        return None
    return discordance(a.right, b.right)


def hard_difference(
    a: HardCounts, b: HardCounts, level: float = LEVEL, *, paired_seeds: bool = False
) -> Interval:
    """Interval of accuracy(A) - accuracy(B), over evaluation sentences and seeds.

    The variance-components interval of :func:`~probekit.stats.intervals.crossed_interval`:
    sentences are resampled as clusters of hard items and the seeds of both sides enter. When
    A and B are scored on different hard items of the same sentences (two splits' hard sets, or
    one learning-based split at two layers), B keeps its own units. ``paired_seeds``: A's and
    B's seed s are one trained probe scored twice (the shared control probe on two splits' hard
    sets). Sentences without a hard item on either side are left out. Both sides are trained
    probes, so each needs at least two seeds.
    """
    for name, side in (("a", a), ("b", b)):
        if side.correct.shape[0] < 2:
            raise ParameterError(
                "seeds", f"side {name} has {side.correct.shape[0]} seed; trained probes need >= 2"
            )
    if paired_seeds and a.seeds != b.seeds:
        raise ParameterError("paired_seeds", f"needs the same seeds, got {a.seeds} and {b.seeds}")
    if a.units.shape != b.units.shape:
        raise ParameterError("b", "A and B must count over the same evaluation sentences")
    keep = (a.units > 0) | (b.units > 0)
    if keep.sum() < 2:
        raise ParameterError("units", "fewer than 2 sentences have a hard item")
    same = np.array_equal(a.units, b.units)
    return crossed_interval(
        a.correct[:, keep],
        b.correct[:, keep],
        a.units[keep],
        level,
        paired_seeds=paired_seeds,
        units_b=None if same else b.units[keep],
    )


def gap_difference(
    gap_a: tuple[HardCounts, HardCounts],
    gap_b: tuple[HardCounts, HardCounts],
    level: float = LEVEL,
) -> Interval:
    """Interval of (reference_A - probe_A) - (reference_B - probe_B), over sentences and seeds.

    Two gaps of one task on two splits' hard sets (Kunz & Kuhlmann 2021, §4.4 ranks the scoring
    functions by them), each gap a (reference, probe) pair of counts on its split's hard items:
    (control, extrapolation), or (size control, extrapolation). The reference probes of both
    gaps are the same shared probes, one per seed, scored on the two hard sets, so their seeds
    are paired; the two probes trained on the splits' easy sets are independent training runs.
    The variance-components interval of
    :func:`~probekit.stats.intervals.crossed_contrast`: the sentence part covers all four
    accuracies, each over its own hard items; sentences with a hard item of neither split are
    left out. Every side needs at least two seeds. Each :class:`HardCounts` is (k, n) over the
    same n evaluation sentences; the interval is in accuracy fractions.
    """
    (ref_a, probe_a), (ref_b, probe_b) = gap_a, gap_b
    sides = {"reference A": ref_a, "probe A": probe_a, "reference B": ref_b, "probe B": probe_b}
    for name, side in sides.items():
        if side.correct.shape[0] < 2:
            raise ParameterError(
                "seeds", f"{name} has {side.correct.shape[0]} seed; trained probes need >= 2"
            )
        if side.units.shape != ref_a.units.shape:
            raise ParameterError("gap_b", "all four must count over the same evaluation sentences")
    if ref_a.seeds != ref_b.seeds:
        raise ParameterError(
            "gap_b",
            f"the reference probes need the same seeds, got {ref_a.seeds} and {ref_b.seeds}",
        )
    keep = (ref_a.units > 0) | (ref_b.units > 0)
    if keep.sum() < 2:
        raise ParameterError("units", "fewer than 2 sentences have a hard item")
    terms = [
        Term(1.0, ref_a.correct[:, keep], ref_a.units[keep], "reference"),
        Term(-1.0, probe_a.correct[:, keep], probe_a.units[keep], "probe A"),
        Term(-1.0, ref_b.correct[:, keep], ref_b.units[keep], "reference"),
        Term(1.0, probe_b.correct[:, keep], probe_b.units[keep], "probe B"),
    ]
    return crossed_contrast(terms, level)


def setup_gap(
    run: SplitRun, split: str, layer: int, n_sentences: int, level: float = LEVEL
) -> Interval:
    """Control - extrapolation accuracy on one split's hard items at one layer (§3.6)."""
    return hard_difference(
        hard_counts(run, split, layer, "control", n_sentences),
        hard_counts(run, split, layer, "extrapolation", n_sentences),
        level,
    )


def size_gap(
    run: SplitRun, split: str, layer: int, n_sentences: int, level: float = LEVEL
) -> Interval:
    """Size control - extrapolation accuracy on one split's hard items at one layer (§3.5).

    The size-control probes train on a random half of the training examples, the extrapolation
    probes on the easy set, and both are scored on the same hard items, so the difference is
    the extrapolation gap without the part that a smaller training set explains.
    """
    return hard_difference(
        hard_counts(run, split, layer, "size_control_hard", n_sentences),
        hard_counts(run, split, layer, "extrapolation", n_sentences),
        level,
    )


def gap_intervals(chapter: ChapterRun, level: float = LEVEL) -> pd.DataFrame:
    """Control and size control against extrapolation at ``compare_layer``, one row per split.

    Every split the chapter made, task by task. Columns: hard items, sentences with a hard
    item, the accuracies (%) of the control, extrapolation and size-control probes on the hard
    items, and two gaps with their intervals (points) over sentences and every seed: control -
    extrapolation (:func:`setup_gap`, the paper's comparison) and size control - extrapolation
    (:func:`size_gap`, the same with the training-set size held about equal).
    """
    layer, n = chapter.compare_layer, len(chapter.sample.eval)
    ci = f"{level:.0%} CI"
    columns = [
        *_COLUMNS, GAP, f"{ci} low", f"{ci} high", SIZE_GAP, f"size {ci} low",
        f"size {ci} high",
    ]  # fmt: skip
    rows = []
    for task, task_run in chapter.tasks.items():
        for split in task_run.points:
            control = hard_counts(task_run.run, split, layer, "control", n)
            extrapolation = hard_counts(task_run.run, split, layer, "extrapolation", n)
            size = hard_counts(task_run.run, split, layer, "size_control_hard", n)
            gap = hard_difference(control, extrapolation, level)
            sized = hard_difference(size, extrapolation, level)
            rows.append(
                [
                    f"{TASK_LABEL[task]} {split}",
                    int(control.units.sum()),
                    int((control.units > 0).sum()),
                    100 * control.accuracy,
                    100 * extrapolation.accuracy,
                    100 * size.accuracy,
                    100 * gap.estimate,
                    100 * gap.low,
                    100 * gap.high,
                    100 * sized.estimate,
                    100 * sized.low,
                    100 * sized.high,
                ]
            )
    return pd.DataFrame(rows, columns=columns).set_index("split")
