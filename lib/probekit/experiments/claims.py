"""The papers' claims, each with the one rule that judges it in its chapter and in the ledger.

A :class:`Claim` names the paper, the section, the chapter that measures it and the rule
(:class:`~probekit.stats.verdicts.Rule`: direction, quantity and unit of analysis, SESOI with its
reason, test, alpha). Each part of the book declares its claims in its ``claims`` module, next
to the functions that compute their intervals from the part's runs. The chapter judges a claim
with :meth:`Claim.judge` and saves the intervals and the verdict under the claim's ``key``
(:meth:`Claim.saved_values`); the claims ledger reads the saved intervals back
(:meth:`Claim.read`) and judges them with the same rule, so the chapter's prose and the ledger
cannot disagree.

A claim of several parts ("for both T1 and T2", "at every layer") lists them in ``parts``; every
part must hold (:func:`~probekit.stats.verdicts.judge_all`, intersection-union).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import Judgement, Rule, judge, judge_all

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


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper and how this book judges it.

    ``id`` ("I.2"), ``paper`` (BibTeX key), ``section`` ("§5"), ``chapter`` (the slug of the
    chapter that measures it) and ``anchor`` (its section label) place it; ``text`` states it in
    our words; ``rule`` judges it; ``key`` prefixes its saved values; ``parts`` names the parts
    of a claim that must all hold (empty for a single interval).
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

    def _part_keys(self) -> list[str]:
        return [f"{self.key}_{p}" for p in self.parts] if self.parts else [self.key]

    def _intervals(self, intervals: Interval | Mapping[str, Interval]) -> dict[str, Interval]:
        if isinstance(intervals, Interval):
            if self.parts:
                raise ParameterError("intervals", f"claim {self.id} has parts {self.parts}")
            return {self.key: intervals}
        missing = set(self.parts) - set(intervals)
        if not self.parts or missing or set(intervals) - set(self.parts):
            raise ParameterError(
                "intervals", f"claim {self.id} needs one interval per part {self.parts}"
            )
        return {f"{self.key}_{p}": intervals[p] for p in self.parts}

    def judge(self, intervals: Interval | Mapping[str, Interval]) -> Judgement:
        """The rule's verdict on the claim's interval (or on every part's, all must hold)."""
        judged = [judge(self.rule, iv) for iv in self._intervals(intervals).values()]
        return judged[0] if not self.parts else judge_all(judged)

    def saved_values(self, intervals: Interval | Mapping[str, Interval]) -> dict[str, Any]:
        """Flat values to save with the chapter's results.

        Each part's interval goes under ``<key>[_<part>]_<field>``, and the verdict, power, p-value and
        note under ``<key>_<field>``.
        """
        out: dict[str, Any] = {}
        for prefix, iv in self._intervals(intervals).items():
            for name, value in iv.as_dict().items():
                out[f"{prefix}_{name}"] = value
        for name, value in self.judge(intervals).as_dict().items():
            out[f"{self.key}_{name}"] = value
        return out

    def read(self, values: Mapping[str, Any]) -> Interval | dict[str, Interval]:
        """The interval(s) saved by :meth:`saved_values`; KeyError names a missing value."""
        read = {}
        for prefix in self._part_keys():
            fields = {}
            for name in _INTERVAL_FIELDS:
                key = f"{prefix}_{name}"
                if key not in values:
                    raise KeyError(key)
                fields[name] = values[key]
            read[prefix] = Interval.from_dict(fields)
        if not self.parts:
            return read[self.key]
        return {p: read[f"{self.key}_{p}"] for p in self.parts}

    def describe(self) -> str:
        """The rule in words: quantity, unit, SESOI and why, test and alpha."""
        r = self.rule
        sesoi = f"{r.sesoi * r.scale:g}{(' ' + r.units) if r.units else ''}"
        kind = "at least" if r.kind == "directional" else "within ±"
        every = f"; every one of {', '.join(self.parts)} must hold" if self.parts else ""
        return (
            f"{r.quantity}, over {r.unit}; SESOI {kind}{sesoi} ({r.sesoi_reason}); "
            f"{r.describe()}{every}"
        )


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
