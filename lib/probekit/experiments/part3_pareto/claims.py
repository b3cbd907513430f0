"""The claims of Pimentel et al. 2020 that chapters 32 to 34 check, one rule each.

Each verdict is in the book's wording (:func:`verdict`: "holds", "does not hold" or "cannot be
tested", then the numbers):

- "one-hot wins for simple probes" (§6.1, §6.2): :func:`parametric_onehot_verdict`,
  :func:`memorisation_onehot_verdict`, :func:`parsing_onehot_verdict`;
- "simple architectures are as accurate as complex ones" (§6.2): :func:`simple_as_good_verdict`;
- "parsing separates contextual from non-contextual representations" (§7.2):
  :func:`parsing_verdict`, and :data:`NO_PARSING_VERDICT` in the chapters without parsers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from probekit.experiments.part3_pareto.parsing_experiment import RivalComparison


def verdict(holds: bool | None, detail: str = "") -> str:
    """The book's wording of a check of one of the paper's claims.

    "holds", "does not hold" or "cannot be tested", followed by ``detail`` in parentheses when
    given.
    """
    word = {True: "holds", False: "does not hold", None: "cannot be tested"}[holds]
    return f"{word} ({detail})" if detail else word


NO_PARSING_VERDICT = verdict(None, "this chapter has no parsing probes; see the parsing chapter")


def parametric_onehot_verdict(leaders: pd.DataFrame, representations: Sequence[str]) -> str:
    """Verdict on "one-hot wins for simple probes" under the nuclear norm and the rank.

    "One-hot wins for simple probes" under the nuclear norm (Pimentel et al. 2020, §2.3 and §6.1):
    holds when one-hot has the largest hypervolume over the simple range in every task run under the
    nuclear norm; the rank is reported alongside. ``leaders``: one row per (task, family) run, with
    the simple-range ``winner`` (:func:`~.parametric_experiment.parametric_leaders`).
    """
    counts = {}
    for family in ("nuclear", "rank"):
        rows = leaders[leaders["family"] == family]
        counts[family] = (int((rows["winner"] == "onehot").sum()), len(rows))
    (wins, n_tasks), (wins_rank, n_rank) = counts["nuclear"], counts["rank"]
    testable = "onehot" in representations and n_tasks > 0
    return verdict(
        (wins == n_tasks) if testable else None,
        f"under the nuclear norm one-hot wins the simple range in {wins} of {n_tasks} tasks; "
        f"under the rank in {wins_rank} of {n_rank}",
    )


def simple_as_good_verdict(gaps: pd.DataFrame) -> str:
    """Verdict on "simple architectures are as accurate as complex ones" (Pimentel et al. 2020).

    "Simple architectures are as accurate as complex ones" (Pimentel et al. 2020, §6.2): holds when
    the simpler half of the architectures loses at most 1 point of accuracy in every task and
    representation. ``gaps``: :func:`~.frontiers.simple_vs_best`'s table.
    """
    return verdict(
        bool(gaps["gap"].max() <= 0.01),
        f"the simpler half of the architectures loses at most {100 * gaps['gap'].max():.1f} "
        f"points of accuracy, {100 * gaps['gap'].mean():.1f} on average",
    )


def memorisation_onehot_verdict(
    winners: Sequence[str | None], representations: Sequence[str], simple_budget: float
) -> str:
    """Verdict on "one-hot wins for simple probes" under memorisation complexity.

    "One-hot wins for simple probes" under memorisation complexity (Pimentel et al. 2020, §6.2):
    holds when one-hot has the largest hypervolume below a memorisation of ``simple_budget`` in
    every task; ``winners``: that representation per task run.
    """
    wins = sum(w == "onehot" for w in winners)
    return verdict(
        (wins == len(winners)) if "onehot" in representations else None,
        f"one-hot has the largest hypervolume below a memorisation of {simple_budget:.2f} "
        f"in {wins} of {len(winners)} tasks",
    )


def parsing_onehot_verdict(
    winner: str | None,
    labels: Mapping[str, str],
    *,
    simple_budget: float,
    simple_norm: float,
    simple_nuclear: str,
) -> str:
    """Verdict on "one-hot wins for simple probes" on parsing.

    "One-hot wins for simple probes" on parsing (Pimentel et al. 2020, §7.2 and appendix C): holds
    when one-hot has the largest hypervolume among the MLP parsers that memorise at most
    ``simple_budget`` of the shuffled heads; ``winner`` is that representation (None when no parser
    is that simple), ``simple_nuclear`` the linear parsers' one up to a nuclear norm of
    ``simple_norm``, reported alongside.
    """
    return verdict(
        None if "onehot" not in labels else winner == "onehot",
        f"among MLP parsers that memorise at most {simple_budget:.2f} of the shuffled heads "
        f"the largest hypervolume goes to {labels.get(winner, 'none') if winner else 'none'}; "
        f"among linear parsers with a nuclear norm of at most {simple_norm:.0f}, "
        f"to {simple_nuclear}",
    )


def parsing_verdict(
    rival: RivalComparison | None, parse_gap: float, toy_gaps: Mapping[str, float]
) -> str:
    """Verdict on "parsing separates contextual from non-contextual representations".

    "Parsing separates contextual from non-contextual representations" better than the toy tasks
    (Pimentel et al. 2020, §7.2): holds when the best contextual parser beats the best type-level
    one (``rival``: McNemar's test significant, the paired bootstrap's interval above 0), the
    contextual parsers' hypervolume lead ``parse_gap`` is positive, and it exceeds the leads on POSL
    and DAL (``toy_gaps``, when the memorisation chapter's are available). ``rival`` is None when
    the chapter lacks the contextual or every type-level representation.
    """
    if rival is None:
        return verdict(None, "needs the contextual and a type-level representation")
    comparison, boot = rival.comparison, rival.boot
    better = comparison.significant and comparison.diff > 0 and boot.low > 0
    wider = parse_gap > max(toy_gaps.values()) if toy_gaps else None
    detail = f"hypervolume gap on parsing {parse_gap:+.2f}"
    detail += f", at most {max(toy_gaps.values()):+.2f} on POSL and DAL" if toy_gaps else ""
    detail += f"; best contextual against best type-level parser: {comparison.verdict}"
    if not toy_gaps:
        detail += "; the toy-task gaps of the memorisation chapter were not available"
    return verdict(bool(better and parse_gap > 0 and wider is not False), detail)
