"""The papers' claims, each with the one rule that judges it in its chapter and in the ledger.

A :class:`Claim` names the paper, the section, the chapter that measures it and the rule
(:class:`~probekit.stats.verdicts.Rule`: direction, quantity and unit of analysis, SESOI with its
reason, test, alpha). Each part of the book declares its claims in its ``claims`` module, next
to the functions that compute their intervals from the part's runs. The chapter judges a claim
with :meth:`Claim.judge` and saves the intervals and the verdict under the claim's ``key``
(:meth:`Claim.saved_values`); the claims ledger reads the saved intervals back
(:meth:`Claim.read`) and judges them with the same rule, so the chapter's prose and the ledger
cannot disagree.

A claim of several parts ("for both T1 and T2", "at every layer") declares them in ``parts``;
every part must hold (:func:`~probekit.stats.verdicts.judge_all`, intersection-union). A run may
measure other parts than the declared ones (the layers of another model, the splits a sample
allows): it saves the names of the parts it measured under ``<key>_parts``, and :meth:`read`
finds them again. A claim the run could not measure at all is saved as "not tested"
(:meth:`Claim.untested_values`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Judgement,
    Rule,
    judge,
    judge_all,
)

NOT_TESTED = "not tested"
_UNMEASURED = "not measured on this run"
_INTERVAL_FIELDS = (
    "estimate",
    "low",
    "high",
    "level",
    "se",
    "df",
    "se_sentences",
    "se_seeds",
    "n_sentences",
    "n_seeds",
    "method",
)
# Most to least favourable, for the part that decides a claim of several parts.
_RANK = {REPRODUCED: 0, INCONCLUSIVE: 1, NOT_REPRODUCED: 2}

Intervals = Interval | Mapping[str, Interval]


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper and how this book judges it.

    ``id`` ("I.2"), ``paper`` (BibTeX key), ``section`` ("§5"), ``chapter`` (the slug of the
    chapter that measures it) and ``anchor`` (its section label) place it; ``text`` states it in
    our words; ``rule`` judges it; ``key`` prefixes its saved values; ``parts`` names the parts
    of a claim that must all hold on the book's default run (empty for a single interval), and
    ``labels`` gives parts readable names for the prose ("ling_L3" -> "linguistic split, layer
    3"; a part without a label is shown by its name). ``consistency``, when set, says why the
    claim is a *consistency check* rather than evidence about its paper (it checks a theorem,
    holds by construction, or could not come out otherwise on this design): it is judged and
    shown like a claim, but outside the ledger's tally, Holm's family and its expected count of
    false "reproduced" verdicts. ``finding``, when set, says why the claim as the book measures
    it is a *finding of this book* rather than a test of its paper (it is measured where the
    paper does not make it): it is kept out of the same three.
    """

    id: str
    paper: str
    section: str
    chapter: str
    anchor: str
    text: str
    rule: Rule
    key: str
    parts: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    consistency: str = field(default="", compare=False)
    finding: str = field(default="", compare=False)

    @property
    def counted(self) -> bool:
        """Whether the claim is a test of its paper, counted in the ledger's tally."""
        return not (self.consistency or self.finding)

    @property
    def role(self) -> str:
        """How the ledger counts the claim, in words, for the chapter's prose."""
        if self.consistency:
            return f"a consistency check, kept out of the ledger's tally: {self.consistency}"
        if self.finding:
            return f"a finding of this book, kept out of the ledger's tally: {self.finding}"
        return "a claim of its paper, counted in the ledger's tally"

    def prefix(self, part: str = "") -> str:
        """The saved-key prefix of ``part``: ``<key>_<part>``, or ``key`` for the claim itself."""
        return f"{self.key}_{part}" if part else self.key

    def _prefixed(self, intervals: Intervals) -> dict[str, Interval]:
        """The intervals by saved-key prefix: ``key`` alone, or ``<key>_<part>`` per part."""
        if isinstance(intervals, Interval):
            if self.parts:
                raise ParameterError("intervals", f"claim {self.id} has parts {self.parts}")
            return {self.key: intervals}
        if not self.parts:
            raise ParameterError("intervals", f"claim {self.id} has no parts; pass one interval")
        if not intervals or any("," in p for p in intervals):
            raise ParameterError(
                "intervals", f"claim {self.id} needs one interval per measured part"
            )
        return {self.prefix(p): iv for p, iv in intervals.items()}

    def judge(self, intervals: Intervals) -> Judgement:
        """The rule's verdict on the claim's interval, or on every measured part's (all must hold)."""
        judged = [judge(self.rule, iv) for iv in self._prefixed(intervals).values()]
        return judged[0] if not self.parts else judge_all(judged)

    def saved_values(self, intervals: Intervals) -> dict[str, Any]:
        """Flat values to save with the chapter's results.

        Each part's interval goes under ``<key>[_<part>]_<field>``; the verdict, power, p-value
        and note under ``<key>_<field>``; the measured parts under ``<key>_parts``.
        """
        out: dict[str, Any] = {}
        for prefix, iv in self._prefixed(intervals).items():
            for name, value in iv.as_dict().items():
                out[f"{prefix}_{name}"] = value
        if self.parts:
            out[f"{self.key}_parts"] = ",".join(intervals)
        for name, value in self.judge(intervals).as_dict().items():
            out[f"{self.key}_{name}"] = value
        return out

    def read(self, values: Mapping[str, Any]) -> Intervals:
        """The interval(s) saved by :meth:`saved_values`; KeyError names a missing value."""
        if self.parts:
            names = values.get(f"{self.key}_parts")
            if names is None:
                raise KeyError(f"{self.key}_parts")
            prefixes = {p: self.prefix(p) for p in str(names).split(",")}
        else:
            prefixes = {"": self.prefix()}
        read = {}
        for part, prefix in prefixes.items():
            fields = {}
            for name in _INTERVAL_FIELDS:
                if f"{prefix}_{name}" not in values:
                    raise KeyError(f"{prefix}_{name}")
                fields[name] = values[f"{prefix}_{name}"]
            read[part] = Interval.from_dict(fields)
        return read[""] if not self.parts else read

    def label(self, part: str) -> str:
        """The part's name in the prose."""
        return self.labels.get(part, part)

    def sesoi_text(self) -> str:
        """The SESOI in the rule's display units, e.g. "5.55 points" or "±2 points"."""
        sign = "±" if self.rule.kind == "equivalence" else ""
        return f"{sign}{self.rule.sesoi_text()}"

    def describe(self) -> str:
        """The rule in words: quantity, unit, SESOI and why, test and alpha."""
        r = self.rule
        kind = "at least " if r.kind == "directional" else "within "
        every = f"; every part must hold ({', '.join(self.parts)})" if self.parts else ""
        return (
            f"{r.quantity}, over {r.unit}; SESOI {kind}{self.sesoi_text()} ({r.sesoi_reason}); "
            f"{r.describe()}{every}"
        )

    def reading(self, judgement: Judgement) -> str:
        """Why the rule reached its verdict on one interval, in words, with its note."""
        sesoi = self.sesoi_text()
        note = f" ({judgement.note})" if judgement.note else ""
        if self.rule.kind == "directional":
            return {
                REPRODUCED: (
                    f"the interval lies above 0 and reaches the SESOI of {sesoi}: the effect is "
                    f"significant and compatible with at least {sesoi}{note}"
                ),
                NOT_REPRODUCED: f"the interval ends below the SESOI of {sesoi}{note}",
                INCONCLUSIVE: f"the interval includes 0 and reaches the SESOI of {sesoi}{note}",
            }[judgement.verdict]
        return {
            REPRODUCED: f"the interval lies inside {sesoi}{note}",
            NOT_REPRODUCED: f"the interval lies wholly beyond {sesoi}{note}",
            INCONCLUSIVE: f"the interval crosses the margin of {sesoi}{note}",
        }[judgement.verdict]

    def prose_values(self, intervals: Intervals) -> dict[str, Any]:
        """What a chapter's verdict paragraph quotes besides the saved values, by key.

        ``<key>_sesoi`` (:meth:`sesoi_text`), ``<key>_sesoi_reason``, ``<key>_role``
        (:attr:`role`), ``<key>_text`` (the estimate and interval, :func:`format_interval`) and
        ``<key>_reading`` (:meth:`reading`).
        For a claim of several parts, ``<key>_text`` and ``<key>_worst_reading`` are those of
        the least favourable part (the one that decides: not reproduced before inconclusive,
        then the largest p-value), ``<key>_reading`` counts the parts per verdict and names the
        declared parts the run did not measure, and each declared or measured part has its
        ``<key>_<part>_text`` ("not measured on this run" for a declared part left out).
        """
        out: dict[str, Any] = {
            f"{self.key}_sesoi": self.sesoi_text(),
            f"{self.key}_sesoi_reason": self.rule.sesoi_reason,
            f"{self.key}_role": self.role,
        }
        if isinstance(intervals, Interval):
            out[f"{self.key}_text"] = format_interval(intervals, self.rule)
            out[f"{self.key}_reading"] = self.reading(judge(self.rule, intervals))
            return out
        judged = {p: judge(self.rule, iv) for p, iv in intervals.items()}
        for part in self.parts:
            out[f"{self.key}_{part}_text"] = _UNMEASURED
        for part, interval in intervals.items():
            out[f"{self.key}_{part}_text"] = format_interval(interval, self.rule)
        worst = max(judged, key=lambda p: (_RANK[judged[p].verdict], judged[p].p_value))
        counts = {v: sum(j.verdict == v for j in judged.values()) for v in _RANK}
        present = [f"{n} {v}" for v, n in counts.items() if n]
        listed = (
            f"all {len(judged)} parts {judged[worst].verdict}"
            if len(present) == 1
            else f"of its {len(judged)} parts, " + ", ".join(present)
        )
        missing = [self.label(p) for p in self.parts if p not in intervals]
        if missing:
            listed += f"; not measured on this run: {', '.join(missing)}"
        out[f"{self.key}_reading"] = listed
        out[f"{self.key}_text"] = (
            f"{self.label(worst)}: {format_interval(intervals[worst], self.rule)}"
        )
        out[f"{self.key}_worst_reading"] = self.reading(judged[worst])
        return out

    def untested_values(self, reason: str) -> dict[str, Any]:
        """What a chapter saves for a claim its run could not measure.

        The verdict "not tested" and ``reason`` in place of the interval and readings, so that the
        prose renders and the ledger reads "not tested" too (no interval is saved).
        """
        why = f"{_UNMEASURED} ({reason})"
        parts = {f"{self.key}_{part}_text": why for part in self.parts}
        return parts | {
            f"{self.key}_verdict": NOT_TESTED,
            f"{self.key}_power": math.nan,
            f"{self.key}_p": math.nan,
            f"{self.key}_note": why,
            f"{self.key}_sesoi": self.sesoi_text(),
            f"{self.key}_sesoi_reason": self.rule.sesoi_reason,
            f"{self.key}_role": self.role,
            f"{self.key}_text": why,
            f"{self.key}_reading": why,
            f"{self.key}_worst_reading": why,
        }


@dataclass(frozen=True, eq=False)
class MeasuredClaim:
    """One claim as a chapter's run measured it.

    ``intervals`` is its interval (a dict, one per measured part, for a claim of several
    parts), or None when the run could not measure it, with ``reason`` saying why. A chapter
    judges it with :meth:`Glue.claim <probekit.book.glue.Glue.claim>`, or saves it as not
    tested with :meth:`Glue.untested <probekit.book.glue.Glue.untested>` and the reason.
    """

    claim: Claim
    intervals: Interval | dict[str, Interval] | None
    reason: str = ""


def format_interval(interval: Interval, rule: Rule) -> str:
    """The estimate and interval in the rule's units, e.g. "+5.2 points (90 % CI 3.1 to 7.4)"."""
    if not math.isfinite(interval.estimate):
        return "–"
    f = f"{{:+.{rule.digits}f}}"
    scale = rule.scale
    units = f" {rule.units}" if rule.units else ""
    return (
        f"{f.format(interval.estimate * scale)}{units} ({interval.level:.0%} CI "
        f"{f.format(interval.low * scale)} to {f.format(interval.high * scale)})"
    )
