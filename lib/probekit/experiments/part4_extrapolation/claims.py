"""The claims of Kunz & Kuhlmann 2021 that Part IV judges, their rules, and their intervals.

Each claim (:class:`~probekit.experiments.claims.Claim`) has one rule
(:class:`~probekit.stats.verdicts.Rule`), declared here before any result is read, and one
function that computes its interval from a chapter's run. Accuracies are corpus accuracies on
a split's hard evaluation items; the evaluation sentence is the unit of every interval (the
items of one sentence are not independent) and every probe seed enters it
(:func:`~probekit.experiments.part4_extrapolation.comparisons.hard_difference`). Chapters judge a
claim with :meth:`Glue.claim <probekit.book.glue.Glue.claim>`; the claims ledger reads the saved
intervals back and judges them with the same rule (:data:`CLAIMS`).

- IV.1 (§4.1, chapter 42): for T1 the control - extrapolation gap of both sentence-length splits
  stays within 3 points at every layer: :func:`t1_length_intervals`.
- IV.2 (§4.2, chapter 42): arc length gives a clear gap for T2: :func:`arc_gap_interval`.
- IV.3 (§4.3, chapter 43): the most-frequent-tag split gives a clear gap: :func:`mft_gap_interval`.
- IV.4 (§4.3, chapter 43): under that split the last layer extrapolates better than the first:
  :func:`mft_layers_interval`.
- IV.5 (§4.4, chapter 44): speed of learning leaves the largest gap of all scoring functions,
  for T1 and T2, a conjunction of its lead over every other function's gap:
  :func:`speed_lead_intervals`.
- IV.6 (§4.5, chapter 44): sample loss gives the lowest control accuracy of all scoring
  functions, for T1 and T2: :func:`loss_control_intervals`.

The parts of IV.1 (splits x layers), IV.5 and IV.6 (scoring functions x tasks) depend on the
run (the probed layers, the splits a sample allows): a chapter judges the parts its run
measured, and :class:`~probekit.experiments.claims.Claim` saves their names so that the ledger
reads them back. :func:`length_claims`, :func:`tag_claims` and :func:`learning_claims` give each
chapter its claims as measured (:class:`MeasuredClaim`), with the reason when the run could not
measure one.
The chapters' other conclusions of the paper are shown as numbers
(:mod:`~probekit.experiments.part4_extrapolation.summaries`), not judged; each chapter says why
in one sentence.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from probekit.experiments.claims import Claim, MeasuredClaim
from probekit.experiments.part4_extrapolation.comparisons import (
    LEVEL,
    HardCounts,
    gap_difference,
    hard_counts,
    hard_difference,
    has_probes,
    unit_discordance,
)
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.paper import (
    MFT_CONTROL_GAP,
    MFT_EXTRAPOLATION_GAP,
    mft_gap_sesoi,
)
from probekit.experiments.part4_extrapolation.sample import TASK_LABEL
from probekit.stats.intervals import SMALL_SAMPLE_SENTENCES, Interval
from probekit.stats.verdicts import Kind, Rule, judge

PAPER_KEY = "kunz2021test"
UNIT = "evaluation sentences (their hard items together) and probe seeds"
TEST = (
    "variance components over sentences and seeds, Welch-Satterthwaite degrees of freedom; "
    f"over fewer than {SMALL_SAMPLE_SENTENCES} sentences (a small hard set) the interval inverts a "
    "robust score test, its sentence part centred at each tested value"
)
# The layers the book's default model (all-MiniLM-L6-v2) has: the embeddings and 6 layers.
DEFAULT_LAYERS: tuple[int, ...] = tuple(range(7))
# The layers IV.1's parts have readable names for: the embeddings and up to 48 layers (a deeper
# model's parts are shown by their names, e.g. "ling_L60").
LABELLED_LAYERS: tuple[int, ...] = tuple(range(49))
# Short names of IV.1's splits, and of IV.6's scoring functions per task (task, split).
LENGTH_PARTS: dict[str, str] = {
    "ling": "sentence_length_linguistic",
    "dist": "sentence_length_pos",
}
LOSS_PARTS: dict[str, tuple[str, str]] = {
    "t1_ling": ("pos", "sentence_length_linguistic"),
    "t1_dist": ("pos", "sentence_length_pos"),
    "t1_mft": ("pos", "most_frequent_tag"),
    "t1_tp": ("pos", "tag_proportion"),
    "t1_speed": ("pos", "speed_of_learning"),
    "t2_ling": ("deprel", "sentence_length_linguistic"),
    "t2_dist": ("deprel", "sentence_length_deprel"),
    "t2_arc": ("deprel", "arc_length"),
    "t2_speed": ("deprel", "speed_of_learning"),
}
# IV.5's comparisons: speed of learning's gap against another scoring function's, within one
# task, part -> (task, the other split); every split chapter 44 compares
# (:data:`~probekit.experiments.part4_extrapolation.splits.GAP_REFERENCE_SPLITS`) and sample loss.
LEAD_PARTS: dict[str, tuple[str, str]] = {
    "t1_ling": ("pos", "sentence_length_linguistic"),
    "t1_dist": ("pos", "sentence_length_pos"),
    "t1_mft": ("pos", "most_frequent_tag"),
    "t1_tp": ("pos", "tag_proportion"),
    "t1_loss": ("pos", "sample_loss"),
    "t2_ling": ("deprel", "sentence_length_linguistic"),
    "t2_dist": ("deprel", "sentence_length_deprel"),
    "t2_arc": ("deprel", "arc_length"),
    "t2_arcmod": ("deprel", "arc_length_modified"),
    "t2_loss": ("deprel", "sample_loss"),
}
_SPLIT_LABELS = {"ling": "linguistic split", "dist": "distributional split"}
# The parts in the prose and the ledger: "ling_L3" -> "linguistic split, layer 3".
LENGTH_LABELS: dict[str, str] = {
    f"{short}_L{layer}": f"{_SPLIT_LABELS[short]}, layer {layer}"
    for short in LENGTH_PARTS
    for layer in LABELLED_LAYERS
}
LOSS_LABELS: dict[str, str] = {
    "t1_ling": "T1 sentence length (linguistic)",
    "t1_dist": "T1 sentence length (distributional)",
    "t1_mft": "T1 most frequent tag",
    "t1_tp": "T1 tag proportion",
    "t1_speed": "T1 speed of learning",
    "t2_ling": "T2 sentence length (linguistic)",
    "t2_dist": "T2 sentence length (distributional)",
    "t2_arc": "T2 arc length",
    "t2_speed": "T2 speed of learning",
}
LEAD_LABELS: dict[str, str] = {
    "t1_ling": "T1 against sentence length (linguistic)",
    "t1_dist": "T1 against sentence length (distributional)",
    "t1_mft": "T1 against most frequent tag",
    "t1_tp": "T1 against tag proportion",
    "t1_loss": "T1 against sample loss",
    "t2_ling": "T2 against sentence length (linguistic)",
    "t2_dist": "T2 against sentence length (distributional)",
    "t2_arc": "T2 against arc length",
    "t2_arcmod": "T2 against arc length (modified)",
    "t2_loss": "T2 against sample loss",
}


# --------------------------------------------------------------------------------------------
# The rules, fixed before any result is read
# --------------------------------------------------------------------------------------------


def _rule(kind: Kind, quantity: str, sesoi: float, reason: str, unit: str = UNIT) -> Rule:
    """A rule on a difference of accuracies stored as fractions, shown in points."""
    return Rule(kind, quantity, unit, sesoi, reason, TEST, scale=100, units="points", digits=1)


T1_LENGTH_RULE = _rule(
    "equivalence",
    "control − extrapolation accuracy of T1 (part of speech) on a sentence-length split's hard "
    "words, at one layer",
    0.03,
    "the paper's own bound, for T1 the difference 'never exceeds 3 points' (§4.1)",
)
ARC_RULE = _rule(
    "directional",
    "control − extrapolation accuracy of T2 (dependency labels) on the hard arcs of the "
    "arc-length split, at the compared layer",
    0.115,
    "half the smallest arc-length gap the paper reports, 23 points between the control's 85 % "
    "and the extrapolation's 62 % with m1 = 3 (§4.2)",
)
MFT_RULE = _rule(
    "directional",
    "control − extrapolation accuracy of T1 on the words whose gold tag is not their most "
    "frequent training tag, at the compared layer",
    mft_gap_sesoi(),
    "half the paper's gap at its weakest layer, read per layer off its ranges of the gaps to the "
    f"standard setup ({MFT_CONTROL_GAP[0]:g}–{MFT_CONTROL_GAP[1]:g} points for the control, "
    f"{MFT_EXTRAPOLATION_GAP[0]:g}–{MFT_EXTRAPOLATION_GAP[1]:g} for extrapolation, §4.3): where "
    f"the control is {MFT_CONTROL_GAP[1]:g} points below the standard, extrapolation is at most "
    f"{MFT_EXTRAPOLATION_GAP[1]:g}, a gap of at most "
    f"{MFT_EXTRAPOLATION_GAP[1] - MFT_CONTROL_GAP[1]:g} points at that layer",
)
MFT_LAYERS_RULE = _rule(
    "directional",
    "extrapolation accuracy of T1 under the most-frequent-tag split at the last probed layer − "
    "at the first, on the same hard words",
    0.05,
    "a convention, the threshold the book used before it had rules; the paper gives no number "
    "for 'significantly more predictive' (§4.3)",
)
SPEED_RULE = _rule(
    "directional",
    "control − extrapolation gap of speed of learning − that of another scoring function, each "
    "on its own hard set, for the same task (T1 or T2) at the compared layer",
    0.03,
    "the paper calls T1 gaps of up to 3 points 'no considerable difference' (§4.1, §5.1), so a "
    "lead below that is not one it would read as a larger gap; it gives no number for 'the "
    "largest among all settings' (§4.4)",
    UNIT + "; the control probes paired by seed (one standard probe per seed scores every hard "
    "set), the two extrapolation probes independent",
)
LOSS_CONTROL_RULE = _rule(
    "directional",
    "control accuracy of another scoring function on its own hard set − control accuracy of "
    "sample loss on its hard set, at the compared layer",
    0.02,
    "a convention; the paper reads 'lowest' off its figures (§4.5) and gives no number",
    UNIT + "; seeds paired: one control probe per seed is scored on both hard sets",
)

T1_LENGTH = Claim(
    "IV.1",
    PAPER_KEY,
    "§4.1",
    "42_length_criteria",
    "sec-ch42",
    "For part of speech (T1), sentence-length splits hardly hurt: the control − extrapolation "
    "gap stays small",
    T1_LENGTH_RULE,
    "claim_t1_length",
    tuple(f"{short}_L{layer}" for short in LENGTH_PARTS for layer in DEFAULT_LAYERS),
    LENGTH_LABELS,
)
ARC = Claim(
    "IV.2",
    PAPER_KEY,
    "§4.2",
    "42_length_criteria",
    "sec-ch42",
    "Arc length gives a clear extrapolation gap for dependency labels (T2)",
    ARC_RULE,
    "claim_arc",
)
MFT = Claim(
    "IV.3",
    PAPER_KEY,
    "§4.3",
    "43_tag_criteria",
    "sec-ch43",
    "Training only on words with their most frequent tag makes the other words clearly harder",
    MFT_RULE,
    "claim_mft",
)
MFT_LAYERS = Claim(
    "IV.4",
    PAPER_KEY,
    "§4.3",
    "43_tag_criteria",
    "sec-ch43",
    "Under the MFT split, higher layers extrapolate better than the first",
    MFT_LAYERS_RULE,
    "claim_mft_layers",
    consistency=(
        "layer 0 sees only a word's form, and the MFT split's hard words are exactly those whose "
        "usual tag is wrong, so any layer that sees context beats it on them"
    ),
)
SPEED = Claim(
    "IV.5",
    PAPER_KEY,
    "§4.4",
    "44_learning_criteria",
    "sec-ch44",
    "Training only on quickly learnt examples leaves the largest gap of all scoring functions",
    SPEED_RULE,
    "claim_speed",
    tuple(LEAD_PARTS),
    LEAD_LABELS,
)
LOSS_CONTROL = Claim(
    "IV.6",
    PAPER_KEY,
    "§4.5",
    "44_learning_criteria",
    "sec-ch44",
    "Sample loss picks the hardest hard set: its control accuracy is the lowest",
    LOSS_CONTROL_RULE,
    "claim_loss_control",
    tuple(LOSS_PARTS),
    LOSS_LABELS,
    consistency=(
        "the hard set is chosen by the loss of the same kind of probe that is then scored on it, "
        "so the result holds largely by construction, as the paper notes"
    ),
)
CLAIMS: tuple[Claim, ...] = (T1_LENGTH, ARC, MFT, MFT_LAYERS, SPEED, LOSS_CONTROL)


# --------------------------------------------------------------------------------------------
# The intervals, from a chapter's run
# --------------------------------------------------------------------------------------------


Pair = tuple[HardCounts, HardCounts]


def _gap_pair(chapter: ChapterRun, task: str, split: str, layer: int) -> Pair | None:
    """(control, extrapolation) counts on a split's hard items at ``layer``; None if skipped."""
    task_run = chapter.tasks.get(task)
    if task_run is None or split not in task_run.points:
        return None
    n = len(chapter.sample.eval)
    return (
        hard_counts(task_run.run, split, layer, "control", n),
        hard_counts(task_run.run, split, layer, "extrapolation", n),
    )


def _length_pairs(chapter: ChapterRun) -> dict[str, Pair]:
    """IV.1's counts by part, ``<split>_L<layer>``.

    The linguistic (``ling``) and distributional (``dist``) splits at every probed layer; a
    skipped split has no parts.
    """
    pairs = {}
    for short, split in LENGTH_PARTS.items():
        for layer in chapter.layers:
            pair = _gap_pair(chapter, "pos", split, layer)
            if pair is not None:
                pairs[f"{short}_L{layer}"] = pair
    return pairs


def _arc_pair(chapter: ChapterRun) -> Pair | None:
    return _gap_pair(chapter, "deprel", "arc_length", chapter.compare_layer)


def _mft_pair(chapter: ChapterRun) -> Pair | None:
    return _gap_pair(chapter, "pos", "most_frequent_tag", chapter.compare_layer)


def t1_length_intervals(chapter: ChapterRun) -> dict[str, Interval]:
    """IV.1: T1 control - extrapolation per sentence-length split and probed layer (§4.1)."""
    return {part: hard_difference(*pair) for part, pair in _length_pairs(chapter).items()}


def arc_gap_interval(chapter: ChapterRun) -> Interval | None:
    """IV.2: T2 control - extrapolation on the hard arcs of the arc-length split (§4.2)."""
    pair = _arc_pair(chapter)
    return None if pair is None else hard_difference(*pair)


def mft_gap_interval(chapter: ChapterRun) -> Interval | None:
    """IV.3: T1 control - extrapolation on the words without their most frequent tag (§4.3)."""
    pair = _mft_pair(chapter)
    return None if pair is None else hard_difference(*pair)


def mft_layers_interval(chapter: ChapterRun) -> Interval | None:
    """IV.4: MFT extrapolation accuracy at the last probed layer - at the first (§4.3).

    The hard words are the same at every layer (the split does not depend on the layer) and
    every seed of both layers enters; None with fewer than two layers or a skipped split.
    """
    task_run = chapter.tasks.get("pos")
    split = "most_frequent_tag"
    if task_run is None or split not in task_run.points or len(chapter.layers) < 2:
        return None
    n = len(chapter.sample.eval)
    first, last = chapter.layers[0], chapter.layers[-1]
    return hard_difference(
        hard_counts(task_run.run, split, last, "extrapolation", n),
        hard_counts(task_run.run, split, first, "extrapolation", n),
    )


def _gap_counts(
    chapter: ChapterRun, task: str, split: str, reference: str
) -> tuple[HardCounts, HardCounts] | None:
    """(``reference``, extrapolation) counts on a split's hard items at the compared layer.

    None when the run has no extrapolation probes of the split there (skipped, or a reference
    split that chapter 44 scores for its control only).
    """
    task_run = chapter.tasks.get(task)
    layer = chapter.compare_layer
    if task_run is None or task_run.run is None:
        return None
    if not has_probes(task_run.run, split, layer, "extrapolation"):
        return None
    n = len(chapter.sample.eval)
    return (
        hard_counts(task_run.run, split, layer, reference, n),
        hard_counts(task_run.run, split, layer, "extrapolation", n),
    )


def speed_lead_intervals(chapter: ChapterRun, reference: str = "control") -> dict[str, Interval]:
    """IV.5: speed of learning's control - extrapolation gap - another function's, per part (§4.4).

    Kunz & Kuhlmann 2021, §4.4: with speed of learning "the difference between the control and
    the extrapolation setup is the largest among all settings". At the compared layer, for each
    part of :data:`LEAD_PARTS`, the gap of speed of learning on its hard set minus the gap of
    the other scoring function of the same task on its own
    (:func:`~probekit.experiments.part4_extrapolation.comparisons.gap_difference`: over
    sentences and seeds, the control probes paired by seed). ``reference`` "size_control_hard"
    gives the same leads with the size control in place of the control. Gaps are compared
    within a task only: the two tasks' hard sets hold different items (words, arcs) with other
    labels and other base accuracies. A part whose split (or speed of learning) the run did not
    train is left out.
    """
    out = {}
    for part, (task, split) in LEAD_PARTS.items():
        speed = _gap_counts(chapter, task, "speed_of_learning", reference)
        other = _gap_counts(chapter, task, split, reference)
        if speed is not None and other is not None:
            out[part] = gap_difference(speed, other)
    return out


def loss_control_intervals(chapter: ChapterRun) -> dict[str, Interval]:
    """IV.6: another scoring function's control accuracy - sample loss's, per part (§4.5).

    At the compared layer, each on its own hard set: the control probes of every split
    (chapter 44 scores the other functions' hard sets as reference controls,
    :data:`~probekit.experiments.part4_extrapolation.splits.LOSS_REFERENCE_SPLITS`) are the same
    trained probes, one per seed, so the seeds are paired. Parts of :data:`LOSS_PARTS`; a part
    whose split (or sample loss's) was skipped is left out.
    """
    out = {}
    layer, n = chapter.compare_layer, len(chapter.sample.eval)
    for part, (task, split) in LOSS_PARTS.items():
        task_run = chapter.tasks.get(task)
        if task_run is None or "sample_loss" not in task_run.points:
            continue
        if split not in task_run.points and split not in task_run.controls:
            continue
        out[part] = hard_difference(
            hard_counts(task_run.run, split, layer, "control", n),
            hard_counts(task_run.run, "sample_loss", layer, "control", n),
            paired_seeds=True,
        )
    return out


# --------------------------------------------------------------------------------------------
# The same gaps against the size control
# --------------------------------------------------------------------------------------------


def _size_gap(chapter: ChapterRun, task: str, split: str, layer: int) -> Interval | None:
    """Size control - extrapolation on a split's hard items at ``layer``; None if skipped."""
    task_run = chapter.tasks.get(task)
    if task_run is None or split not in task_run.points:
        return None
    n = len(chapter.sample.eval)
    return hard_difference(
        hard_counts(task_run.run, split, layer, "size_control_hard", n),
        hard_counts(task_run.run, split, layer, "extrapolation", n),
    )


def size_controlled_intervals(
    chapter: ChapterRun, claim: Claim
) -> Interval | dict[str, Interval] | None:
    """A gap claim's quantity with the size control in place of the control (§3.5).

    IV.1, IV.2, IV.3 and IV.5 compare the control (trained on every training example) with the
    extrapolation probe (trained on the easy set, at most about half of them), so their gap
    also counts the smaller training set. Here the same parts are measured against the size
    control (a random half of the training examples, scored on the same hard items); for IV.5
    both gaps of each lead. None for a claim that is not such a gap (IV.4 compares layers, IV.6
    control accuracies) or that the run could not measure.
    """
    layer = chapter.compare_layer
    if claim is T1_LENGTH:
        out = {}
        for short, split in LENGTH_PARTS.items():
            for probed in chapter.layers:
                interval = _size_gap(chapter, "pos", split, probed)
                if interval is not None:
                    out[f"{short}_L{probed}"] = interval
        return out or None
    if claim is SPEED:
        return speed_lead_intervals(chapter, "size_control_hard") or None
    for gap_claim, task, split in (
        (ARC, "deprel", "arc_length"),
        (MFT, "pos", "most_frequent_tag"),
    ):
        if claim is gap_claim:
            return _size_gap(chapter, task, split, layer)
    return None


def size_control_readings(
    chapter: ChapterRun, measured: Iterable[MeasuredClaim]
) -> tuple[pd.DataFrame, dict[str, object]]:
    """The chapter's gap claims read again against the size control, with the same rules.

    For every measured claim that :func:`size_controlled_intervals` applies to: one row per
    part with the gap as judged (control - extrapolation) and the size-controlled gap (size
    control - extrapolation), each with its interval and what the claim's rule reads from it.
    This is a robustness reading, not the claim's verdict (which the ledger keeps). Also the
    glue values ``size_<key>_verdict`` (the rule's verdict on the size-controlled parts
    together) and ``size_<key>_same`` ("the same" or "not the same" as the claim's verdict)
    per claim, and ``size_survives``: the claims whose verdict the size control leaves as it is.
    """
    ci = f"{LEVEL:.0%} CI"
    columns = [
        "claim", "part", "gap (points)", f"gap {ci}", "verdict",
        "size-controlled gap (points)", f"size-controlled {ci}", "verdict against size control",
    ]  # fmt: skip
    rows, values, same, changed = [], {}, [], []
    for item in measured:
        if item.intervals is None:
            continue
        sized = size_controlled_intervals(chapter, item.claim)
        if sized is None:
            continue
        claim, rule = item.claim, item.claim.rule
        original = item.intervals if claim.parts else {claim.key: item.intervals}
        resized = sized if claim.parts else {claim.key: sized}
        for part, iv in original.items():
            if part not in resized:
                continue
            sv = resized[part]
            label = claim.label(part) if claim.parts else f"layer {chapter.compare_layer}"
            rows.append(
                [claim.id, label, iv.estimate * rule.scale,
                 f"[{iv.low * rule.scale:.1f}, {iv.high * rule.scale:.1f}]",
                 judge(rule, iv).verdict, sv.estimate * rule.scale,
                 f"[{sv.low * rule.scale:.1f}, {sv.high * rule.scale:.1f}]",
                 judge(rule, sv).verdict]
            )  # fmt: skip
        kept = {p: resized[p] for p in original if p in resized}
        verdict = claim.judge(kept if claim.parts else kept[claim.key]).verdict
        values[f"size_{claim.key}_verdict"] = verdict
        is_same = verdict == claim.judge(item.intervals).verdict
        values[f"size_{claim.key}_same"] = "the same" if is_same else "not the same"
        (same if is_same else changed).append(claim.id)
    values["size_survives"] = ", ".join(same) or "none"
    values["size_changes"] = ", ".join(changed) or "none"
    return pd.DataFrame(rows, columns=columns), values


def discordance_values(chapter: ChapterRun, measured: Iterable[MeasuredClaim]) -> dict[str, list]:
    """How often the compared probes disagree item by item, for each measured gap claim's parts.

    For IV.1, IV.2 and IV.3 (control against extrapolation on the same hard items):
    :func:`~probekit.experiments.part4_extrapolation.comparisons.unit_discordance` under
    ``<key>[_<part>]_discordance`` as [across setups, within a setup], the number of hard
    items under ``<key>[_<part>]_units`` and the extrapolation probes' accuracy on them under
    ``<key>[_<part>]_accuracy``, which the claims ledger's calibration matches
    (:mod:`probekit.book.calibration`).
    """
    pairs_of = {
        T1_LENGTH.key: lambda: _length_pairs(chapter),
        ARC.key: lambda: {"": _arc_pair(chapter)},
        MFT.key: lambda: {"": _mft_pair(chapter)},
    }
    values: dict[str, list] = {}
    for item in measured:
        if item.intervals is None or item.claim.key not in pairs_of:
            continue
        for part, pair in pairs_of[item.claim.key]().items():
            shares = None if pair is None else unit_discordance(*pair)
            if shares is not None:
                key = item.claim.prefix(part)
                values[f"{key}_discordance"] = [float(x) for x in shares]
                values[f"{key}_units"] = int(pair[0].units.sum())
                values[f"{key}_accuracy"] = pair[1].accuracy
    return values


# --------------------------------------------------------------------------------------------
# What a chapter judges
# --------------------------------------------------------------------------------------------


def _measure(claim: Claim, intervals: Any, skipped: str) -> MeasuredClaim:
    """A claim with what the run measured; ``skipped`` the reasons of its skipped splits.

    A claim of several parts is judged on the parts measured and is not tested only when the
    run measured none of them.
    """
    if intervals is None or (claim.parts and not intervals):
        return MeasuredClaim(claim, None, skipped or "its split could not be made on this sample")
    return MeasuredClaim(claim, dict(intervals) if claim.parts else intervals)


def _skip_reason(chapter: ChapterRun, task: str, splits: Iterable[str]) -> str:
    """The reasons why ``splits`` of ``task`` were skipped, "" if none was."""
    task_run = chapter.tasks.get(task)
    skipped = {} if task_run is None else task_run.skipped
    return "; ".join(f"{TASK_LABEL[task]} {s}: {skipped[s]}" for s in splits if s in skipped)


def _skip_reasons(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)


def length_claims(chapter: ChapterRun) -> list[MeasuredClaim]:
    """Chapter 42's claims, IV.1 and IV.2, measured on its run."""
    return [
        _measure(
            T1_LENGTH,
            t1_length_intervals(chapter),
            _skip_reason(chapter, "pos", LENGTH_PARTS.values()),
        ),
        _measure(ARC, arc_gap_interval(chapter), _skip_reason(chapter, "deprel", ["arc_length"])),
    ]


def tag_claims(chapter: ChapterRun) -> list[MeasuredClaim]:
    """Chapter 43's claims, IV.3 and IV.4, measured on its run."""
    mft_reason = _skip_reason(chapter, "pos", ["most_frequent_tag"])
    layers_reason = mft_reason if len(chapter.layers) > 1 else "it needs two probed layers"
    return [
        _measure(MFT, mft_gap_interval(chapter), mft_reason),
        _measure(MFT_LAYERS, mft_layers_interval(chapter), layers_reason),
    ]


def learning_claims(chapter: ChapterRun) -> list[MeasuredClaim]:
    """Chapter 44's claims, IV.5 and IV.6, measured on its run."""
    return [
        _measure(
            SPEED,
            speed_lead_intervals(chapter),
            _skip_reasons(
                *(_skip_reason(chapter, task, [split]) for task, split in LEAD_PARTS.values()),
                _skip_reason(chapter, "pos", ["speed_of_learning"]),
                _skip_reason(chapter, "deprel", ["speed_of_learning"]),
            ),
        ),
        _measure(
            LOSS_CONTROL,
            loss_control_intervals(chapter),
            _skip_reasons(
                *(_skip_reason(chapter, task, [split]) for task, split in LOSS_PARTS.values()),
                _skip_reason(chapter, "pos", ["sample_loss"]),
                _skip_reason(chapter, "deprel", ["sample_loss"]),
            ),
        ),
    ]


def claim_parts_table(measured: MeasuredClaim) -> pd.DataFrame:
    """One row per part of a claim: estimate and interval (in the rule's units), verdict, power.

    Parts by their names in the prose (:meth:`Claim.label
    <probekit.experiments.claims.Claim.label>`); empty (with its columns) for a claim the run
    could not measure.
    """
    claim = measured.claim
    rule = claim.rule
    ci = f"{rule.level:.0%} CI"
    columns = ["part", f"estimate ({rule.units})", f"{ci} low", f"{ci} high", "verdict", "power"]
    intervals = measured.intervals
    if intervals is None:
        return pd.DataFrame(columns=columns).set_index("part")
    if isinstance(intervals, Interval):
        intervals = {claim.key: intervals}
    rows = []
    for part, iv in intervals.items():
        j = judge(rule, iv)
        rows.append(
            [claim.label(part), iv.estimate * rule.scale, iv.low * rule.scale,
             iv.high * rule.scale, j.verdict, j.power]
        )  # fmt: skip
    return pd.DataFrame(rows, columns=columns).set_index("part")
