"""The claims of Hall Maudslay & Cotterell 2021 that chapter 22 judges, and their intervals.

Three claims of §5.2, each with the one rule (:class:`~probekit.stats.verdicts.Rule`) that judges
it in the chapter and in the claims ledger, all at each probe's dev-chosen layer of the encoder
the chapter discusses:

- II.1, the structural probe does worse (DSpr) on Jabberwocky sentences than on the originals;
- II.2, the perceptron probe does worse (UUAS) on Jabberwocky sentences;
- II.3, on Jabberwocky the perceptron probe still beats the word-blind baselines.

The paper's further reading, that the probes' lead over the baselines shrinks on Jabberwocky,
restates II.1 and II.2: the word-blind baselines score the same on both versions of a sentence,
so the lead shrinks by exactly the drop. It is not judged twice.

Drops pair seeds (one trained probe scored on both versions of the same sentences); the lead
compares a trained probe (every seed) with a deterministic baseline. Either way a probe needs at
least two seeds: with one, the variation between training runs is invisible to the interval.
The extracted text of the paper lost its numbers, so the SESOIs are stated conventions.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from probekit.experiments.claims import Claim
from probekit.experiments.config import require_seeds
from probekit.experiments.part2_jabberwocky.baselines import best_baseline
from probekit.experiments.part2_jabberwocky.comparisons import (
    baseline_lead_interval,
    jabberwocky_drop_interval,
    probe_rows,
)
from probekit.experiments.part2_jabberwocky.probes import BEST, METRIC, variant_label
from probekit.experiments.tree_probing.rules import CROSSED_TEST, DSPR_MARGIN
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    VERDICTS,
    Judgement,
    Rule,
)

CHAPTER, ANCHOR = "22_jabberwocky_probes", "sec-ch22-verdicts"
PAPER_KEY = "hallmaudslay2021jabberwocky"
# A stated convention for UUAS differences of Part II (the paper's numbers are lost in the
# extracted text): 2 points, a difference the paper's bar charts would show.
UUAS_MARGIN = 0.02

ST_DROP = Claim(
    id="II.1",
    paper=PAPER_KEY,
    section="§5.2",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text="The structural probe does worse on Jabberwocky sentences than on the originals",
    rule=Rule(
        kind="directional",
        quantity="normal − Jabberwocky DSpr of the structural probe at its dev-chosen layer",
        unit=(
            "test sentences of 5 to 50 words and paired seeds (the same trained probes scored "
            "on both versions of each sentence)"
        ),
        sesoi=DSPR_MARGIN,
        sesoi_reason=(
            "Part I's margin for DSpr, Cohen's small difference between two correlations at a "
            "DSpr of 0.9, since the extracted text of this paper lost its numbers"
        ),
        test=CROSSED_TEST + ", seeds paired",
    ),
    key="st_drop",
)

PC_DROP = Claim(
    id="II.2",
    paper=PAPER_KEY,
    section="§5.2",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text="The perceptron probe does worse on Jabberwocky sentences",
    rule=Rule(
        kind="directional",
        quantity="normal − Jabberwocky UUAS of the perceptron probe at its dev-chosen layer",
        unit=(
            "test sentences and paired seeds (the same trained probes scored on both versions "
            "of each sentence; units: the gold edges UUAS counts)"
        ),
        sesoi=UUAS_MARGIN,
        sesoi_reason="a stated convention, since the extracted text of the paper lost its numbers",
        test=CROSSED_TEST + ", seeds paired",
        scale=100.0,
        units="points",
        digits=1,
    ),
    key="pc_drop",
)

PC_LEAD = Claim(
    id="II.3",
    paper=PAPER_KEY,
    section="§5.2",
    chapter=CHAPTER,
    anchor=ANCHOR,
    text="On Jabberwocky the perceptron probe still beats the word-blind baselines",
    rule=Rule(
        kind="directional",
        quantity=(
            "perceptron probe − the better word-blind baseline (linear chain or majority tree) "
            "UUAS on the Jabberwocky sentences"
        ),
        unit=(
            "test sentences and the probe's seeds (the baseline is deterministic: one seed; "
            "units: the gold edges UUAS counts)"
        ),
        sesoi=UUAS_MARGIN,
        sesoi_reason="a stated convention, since the extracted text of the paper lost its numbers",
        test=CROSSED_TEST,
        scale=100.0,
        units="points",
        digits=1,
    ),
    key="pc_lead_j",
)

CLAIMS: tuple[Claim, ...] = (ST_DROP, PC_DROP, PC_LEAD)


def _seeds(rows: pd.DataFrame, claim: Claim) -> None:
    require_seeds(sorted(set(rows["seed"])), f"claim {claim.id}")


def jabberwocky_intervals(
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, encoder: str
) -> dict[str, Interval]:
    """The intervals the rules of :data:`CLAIMS` read, keyed by claim ``key``.

    ``per_sentence``: the stacked per-sentence test scores of chapter 22's runs
    (:attr:`~probekit.experiments.part2_jabberwocky.probe_runs.JabberwockyRuns.per_sentence`);
    ``baselines``: the word-blind baselines' per-sentence scores
    (:func:`~probekit.experiments.part2_jabberwocky.baselines.baseline_scores`); ``encoder``:
    the short name of the encoder the chapter discusses, whose dev-chosen layer is judged. Each
    probe needs at least two distinct seeds (``ParameterError`` naming ``seeds``).
    """
    best = variant_label(encoder, BEST)
    st = probe_rows(per_sentence, best, "structural")
    pc = probe_rows(per_sentence, best, "perceptron")
    for claim, rows in ((ST_DROP, st), (PC_DROP, pc), (PC_LEAD, pc)):
        _seeds(rows, claim)
    metric = METRIC["perceptron"]
    base = best_baseline(baselines, metric)
    return {
        ST_DROP.key: jabberwocky_drop_interval(st, METRIC["structural"], ST_DROP.rule.level),
        PC_DROP.key: jabberwocky_drop_interval(pc, metric, PC_DROP.rule.level),
        PC_LEAD.key: baseline_lead_interval(
            pc[pc["dataset"] == "Jabberwocky"],
            baselines[baselines["baseline"] == base],
            metric,
            PC_LEAD.rule.level,
        ),
    }


def jabberwocky_overall(judgements: Mapping[str, Judgement]) -> str:
    """How the claims of :data:`CLAIMS` came out, counted, in one clause for the prose.

    E.g. "of the paper's 3 claims judged here, 2 are reproduced, 0 not reproduced and 1
    inconclusive". ``judgements``: keyed by claim key.
    """
    n = {v: sum(j.verdict == v for j in judgements.values()) for v in VERDICTS}
    verb = "is" if n[REPRODUCED] == 1 else "are"
    return (
        f"of the paper's {len(judgements)} claims judged here, {n[REPRODUCED]} {verb} "
        f"{REPRODUCED}, {n[NOT_REPRODUCED]} {NOT_REPRODUCED} and {n[INCONCLUSIVE]} {INCONCLUSIVE}"
    )
