"""The claims of Hall Maudslay et al. 2020 that chapter 12 judges, and their intervals.

Three claims of §5, each with the one rule (:class:`~probekit.stats.verdicts.Rule`) that judges
it in the chapter and in the claims ledger:

- I.2, the parser beats the structural probe on UUAS (directional; SESOI half the paper's
  English effect);
- I.3, the probe beats the parser on DSpr (directional; SESOI the margin of I.4);
- I.4, after Prim and Floyd–Warshall the two hardly differ on DSpr (equivalence; margin
  Cohen's small difference between two correlations,
  :data:`~probekit.experiments.tree_probing.rules.DSPR_MARGIN`).

Proposition 1 (§2) is a theorem, not an empirical claim: chapter 11 checks our implementation
against it, and it is not judged here.

Every interval is over test sentences and seeds: both models are trained probes, so each is
trained with at least two seeds, every seed is scored on every test sentence, and the
variance-components interval (:func:`probekit.stats.intervals.crossed_interval`) adds the
variation between sentences (the unit: the edges and word pairs of one sentence stand or fall
together) to the variation between training runs.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.claims import Claim
from probekit.experiments.config import require_seeds
from probekit.experiments.part1_probe_parser.paper import PAPER
from probekit.experiments.tree_probing.intervals import tree_metric_interval
from probekit.experiments.tree_probing.rules import (
    CROSSED_TEST,
    DSPR_COHEN_Q,
    DSPR_LEVEL,
    DSPR_MARGIN,
)
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import REPRODUCED, Judgement, Rule

CHAPTER, ANCHOR, PAPER_KEY = "12_probe_vs_parser", "sec-ch12-verdicts", "hallmaudslay2020tale"

UUAS_GAP = Claim(
    id="I.2",
    paper=PAPER_KEY,
    section="§5",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text="The parser beats the structural probe on UUAS (English: +11.1 points)",
    rule=Rule(
        kind="directional",
        quantity="parser − probe UUAS at the compared layer",
        unit=(
            "test sentences and seeds (gold edges of each model's tree per sentence and seed, "
            "over the gold edges UUAS counts)"
        ),
        sesoi=PAPER["uuas_gap"] / 2 / 100,
        sesoi_reason=f"half the paper's English effect of {PAPER['uuas_gap']:g} points",
        test=CROSSED_TEST,
        scale=100.0,
        units="points",
        digits=1,
    ),
    key="uuas",
)

DSPR_GAP = Claim(
    id="I.3",
    paper=PAPER_KEY,
    section="§5",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text="The structural probe beats the parser on DSpr",
    rule=Rule(
        kind="directional",
        quantity="probe − parser DSpr at the compared layer",
        unit=(
            "test sentences of 5 to 50 words and seeds (per-sentence Spearman correlations "
            "with the length weights of DSpr)"
        ),
        sesoi=DSPR_MARGIN,
        sesoi_reason=(
            "the margin within which claim I.4 counts DSpr differences as none, which a win "
            "must at least exceed"
        ),
        test=CROSSED_TEST,
    ),
    key="dspr",
)

PFW_SAME = Claim(
    id="I.4",
    paper=PAPER_KEY,
    section="§5",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text=(
        f"After Prim and Floyd–Warshall the two hardly differ on DSpr (mean {PAPER['pfw_diff']:g})"
    ),
    rule=Rule(
        kind="equivalence",
        quantity="parser − probe DSpr P+FW at the compared layer",
        unit=(
            "test sentences of 5 to 50 words and seeds (per-sentence Spearman correlations "
            "of the decoded trees' distances with the length weights of DSpr)"
        ),
        sesoi=DSPR_MARGIN,
        sesoi_reason=(
            f"Cohen's small difference between two correlations, q = {DSPR_COHEN_Q:g} in "
            f"Fisher's z, at a DSpr of {DSPR_LEVEL:g} (less than it at any lower DSpr); the "
            f"paper's {PAPER['pfw_diff']:g} is a mean of nine signed per-language differences, "
            "which can cancel, and bounds no single language"
        ),
        test=CROSSED_TEST,
    ),
    key="dspr_pfw",
)

CLAIMS: tuple[Claim, ...] = (UUAS_GAP, DSPR_GAP, PFW_SAME)

# Per claim key: the metric and the two kinds compared, in the claimed direction (A − B).
COMPARED: dict[str, tuple[str, str, str]] = {
    UUAS_GAP.key: ("uuas", "perceptron", "structural"),
    DSPR_GAP.key: ("dspr", "structural", "perceptron"),
    PFW_SAME.key: ("dspr_pfw", "perceptron", "structural"),
}


def probe_parser_interval(claim: Claim, per_sentence: pd.DataFrame) -> Interval:
    """The interval ``claim``'s rule reads, from both models' per-sentence test scores.

    ``per_sentence``: rows of
    :func:`~probekit.experiments.tree_probing.training.per_sentence_scores` at the
    compared layer, every seed of both kinds. The difference of :data:`COMPARED` in the claimed
    direction, over sentences and seeds
    (:func:`~probekit.experiments.tree_probing.intervals.tree_metric_interval`) at the
    rule's level; fractions for UUAS (the rule shows points), correlation units for DSpr. Each
    kind needs at least two distinct seeds (``ParameterError`` naming ``seeds``).
    """
    if claim.key not in COMPARED:
        raise ParameterError("claim", f"{claim.id} is not one of {[c.id for c in CLAIMS]}")
    metric, a, b = COMPARED[claim.key]
    rows = {kind: per_sentence[per_sentence["kind"] == kind] for kind in (a, b)}
    for kind, df in rows.items():
        if df.empty:
            raise ParameterError("per_sentence", f"has no rows of kind {kind!r}")
        require_seeds(sorted(set(df["seed"])), f"claim {claim.id}")
    return tree_metric_interval(rows[a], rows[b], metric, claim.rule.level)


def probe_parser_intervals(per_sentence: pd.DataFrame) -> dict[str, Interval]:
    """:func:`probe_parser_interval` of every claim of :data:`CLAIMS`, keyed by claim ``key``."""
    return {claim.key: probe_parser_interval(claim, per_sentence) for claim in CLAIMS}


# --------------------------------------------------------------------------------------------
# The paper's reading of the verdicts together, for the prose


def probe_parser_overall(judgements: Mapping[str, Judgement]) -> str:
    """The paper's main point from the verdicts of I.2 and I.3, in one clause.

    Hall Maudslay et al. 2020 read the two directional claims together: the parser ahead on
    UUAS and the probe ahead on DSpr means that the metric decides which model looks better.
    ``judgements``: keyed by claim key (at least :data:`UUAS_GAP` and :data:`DSPR_GAP`).
    """
    uuas, dspr = judgements[UUAS_GAP.key], judgements[DSPR_GAP.key]
    if uuas.verdict == dspr.verdict == REPRODUCED:
        return (
            "both directional claims are reproduced, so the metric decides which model looks "
            "better, as in the paper"
        )
    return (
        f"the UUAS claim is {uuas.verdict} and the DSpr claim {dspr.verdict}, so this build "
        "does not show both of the paper's opposite trends"
    )
