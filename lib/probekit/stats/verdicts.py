"""One verdict vocabulary for the whole book, and the rules that reach it.

Every claim is judged by a :class:`Rule` fixed in code before the data: its direction (a
directional claim "A exceeds B", or an equivalence claim "A and B hardly differ"), the quantity
and its unit of analysis, the smallest effect size of interest (SESOI) with the reason for it,
the test and alpha. The rule reads one :class:`~probekit.stats.intervals.Interval`, the
(1 - 2 alpha) interval of the quantity, and says (Lakens, Scheel & Isager 2018; Simonsohn 2015):

- directional: *reproduced* when the interval excludes 0 on the claimed side (significant at
  alpha, one-sided) and reaches the SESOI; *not reproduced* when it lies below the SESOI (the
  effect is absent, reversed, or shown smaller than the SESOI); *inconclusive* otherwise;
- equivalence: *reproduced* when the interval lies inside (-SESOI, SESOI) (two one-sided tests at
  alpha); *not reproduced* when it lies wholly outside the margin on one side; *inconclusive*
  otherwise.

Power is the design's: the probability of *reproduced* when the true effect is the SESOI
(directional) or 0 (equivalence), from the interval's standard error and degrees of freedom,
never from the observed effect. "Underpowered" labels an inconclusive verdict whose design power
is below 0.8; it is a note, not a fourth verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scipy import stats

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
POWER_THRESHOLD = 0.8

Kind = Literal["directional", "equivalence"]


@dataclass(frozen=True)
class Rule:
    """How one claim is judged, declared before the data.

    ``quantity`` says what is measured in the claimed direction (e.g. "parser − probe UUAS at
    the compared layer") and ``unit`` what is resampled or tested ("sentences and seeds").
    ``sesoi`` is in the quantity's units, with ``sesoi_reason`` one line on where it comes from
    (half the paper's effect, a stated convention, ...). ``test`` names the interval method.
    ``alpha`` is the one-sided level; the interval the rule reads has coverage 1 - 2 alpha.
    """

    kind: Kind
    quantity: str
    unit: str
    sesoi: float
    sesoi_reason: str
    test: str
    alpha: float = 0.05
    scale: float = 1.0
    units: str = ""
    digits: int = 3

    def __post_init__(self) -> None:
        """Check the declaration: a known kind, a positive SESOI, alpha in (0, 0.5)."""
        if self.kind not in ("directional", "equivalence"):
            raise ParameterError(
                "kind", f"must be 'directional' or 'equivalence', not {self.kind!r}"
            )
        if not (self.sesoi > 0 and math.isfinite(self.sesoi)):
            raise ParameterError("sesoi", f"must be a positive number, got {self.sesoi!r}")
        if not 0 < self.alpha < 0.5:
            raise ParameterError("alpha", f"must lie in (0, 0.5), got {self.alpha!r}")

    @property
    def level(self) -> float:
        """Coverage of the interval the rule reads: 1 - 2 alpha."""
        return 1.0 - 2.0 * self.alpha

    def sesoi_text(self) -> str:
        """The SESOI in display units, e.g. "5.55 points" or "1 point"."""
        value = self.sesoi * self.scale
        units = self.units[:-1] if value == 1 and self.units.endswith("s") else self.units
        return f"{value:g} {units}".strip()

    def describe(self) -> str:
        """The rule in one line, for the ledger."""
        sesoi = self.sesoi_text()
        if self.kind == "directional":
            shape = f"{self.level:.0%} interval above 0 and reaching the SESOI {sesoi}"
        else:
            shape = f"{self.level:.0%} interval inside ±{sesoi} (TOST)"
        return f"{self.test}; {shape}; α = {self.alpha:g}"


def correlation_difference(q: float, rho: float) -> float:
    """The difference between two correlations centred on ``rho`` whose Fisher z differ by ``q``.

    Cohen (1988, ch. 4) measures a difference between two correlations by q = atanh(r1) -
    atanh(r2) and calls q = 0.1 small, 0.3 medium and 0.5 large; in correlation units the same q
    shrinks as ``rho`` nears 1. Returns tanh(atanh(rho) + q/2) - tanh(atanh(rho) - q/2), e.g.
    0.019 for q = 0.1 at rho = 0.9, 0.028 at rho = 0.85. For a SESOI on a difference of
    correlations (or of means of correlations) stated in correlation units.
    """
    if not (q > 0 and math.isfinite(q)):
        raise ParameterError("q", f"must be a positive number, got {q!r}")
    if not -1 < rho < 1:
        raise ParameterError("rho", f"must lie in (-1, 1), got {rho!r}")
    z = math.atanh(rho)
    return math.tanh(z + q / 2) - math.tanh(z - q / 2)


@dataclass(frozen=True)
class Judgement:
    """A rule's verdict on one interval, with its design power, p-value and a note.

    The power is the design's at the SESOI; the note says "underpowered", "significant but smaller
    than the SESOI", ...; the p-value is the deciding one-sided one (for Holm's procedure across a
    family of claims).
    """

    verdict: str
    power: float
    p_value: float
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        """Plain values, for saving with a chapter's results."""
        return {
            "verdict": self.verdict,
            "power": self.power,
            "p": self.p_value,
            "note": self.note,
        }


def _t_cdf(x: float, df: float) -> float:
    return float(stats.norm.cdf(x)) if math.isinf(df) else float(stats.t.cdf(x, df))


def _t_quantile(q: float, df: float) -> float:
    return float(stats.norm.ppf(q)) if math.isinf(df) else float(stats.t.ppf(q, df))


def design_power(rule: Rule, se: float, df: float = math.inf) -> float:
    """Power of ``rule`` for a design whose estimate has standard error ``se``.

    P(reproduced) at a true effect of the SESOI (directional) or of 0 (equivalence), by the normal
    (t with ``df`` degrees of freedom) approximation; Lakens et al. 2018 for the equivalence case.
    A directional verdict needs the interval above 0 *and* reaching the SESOI, that is an
    estimate above max(q·se, SESOI − q·se); at a true effect of the SESOI the second condition
    alone holds with probability 1 − alpha, so that is the most a design can have.
    """
    if not se > 0:
        return 1.0 if se == 0 else float("nan")
    crit = _t_quantile(1.0 - rule.alpha, df)
    if rule.kind == "directional":
        return 1.0 - _t_cdf(max(crit - rule.sesoi / se, -crit), df)
    one_side = 1.0 - _t_cdf(crit - rule.sesoi / se, df)
    return max(0.0, 2.0 * one_side - 1.0)


def judge(rule: Rule, interval: Interval) -> Judgement:
    """The verdict of ``rule`` on ``interval`` (see the module docstring)."""
    if not math.isclose(interval.level, rule.level, abs_tol=1e-9):
        raise ParameterError(
            "interval", f"has coverage {interval.level:g}; the rule reads {rule.level:g}"
        )
    low, high, delta = interval.low, interval.high, rule.sesoi
    power = design_power(rule, interval.se, interval.df)
    if rule.kind == "directional":
        p = interval.p_greater(0.0)
        if low > 0 and high >= delta:
            # Significant and compatible with an effect of at least the SESOI; not "at least".
            note = "the estimate itself is below the SESOI" if interval.estimate < delta else ""
            return Judgement(REPRODUCED, power, p, note)
        if high < delta:
            if low > 0:
                note = "significant but smaller than the SESOI"
            elif high < 0:
                note = "significant in the opposite direction"
            else:
                note = "smaller than the SESOI"
            return Judgement(NOT_REPRODUCED, power, p, note)
        note = "underpowered" if power < POWER_THRESHOLD else ""
        return Judgement(INCONCLUSIVE, power, p, note)
    p = max(interval.p_greater(-delta), interval.p_less(delta))  # TOST
    if -delta < low and high < delta:
        note = "significant but within the SESOI" if low > 0 or high < 0 else ""
        return Judgement(REPRODUCED, power, p, note)
    if low >= delta or high <= -delta:
        return Judgement(NOT_REPRODUCED, power, p, "a difference beyond the margin")
    note = "underpowered" if power < POWER_THRESHOLD else ""
    return Judgement(INCONCLUSIVE, power, p, note)


def judge_all(parts: Sequence[Judgement]) -> Judgement:
    """The verdict of a claim of several parts that must all hold ("for both T1 and T2").

    By the intersection-union principle (Berger 1982): reproduced when every part is, not reproduced
    when any part is not, inconclusive otherwise. Each part is tested at the claim's alpha; the
    deciding p-value is the largest, and the power the smallest of the parts' (an upper bound).
    """
    if not parts:
        raise ParameterError("parts", "a claim needs at least one part")
    verdicts = [p.verdict for p in parts]
    power = min(p.power for p in parts)
    p_value = max(p.p_value for p in parts)
    if all(v == REPRODUCED for v in verdicts):
        return Judgement(REPRODUCED, power, p_value)
    if any(v == NOT_REPRODUCED for v in verdicts):
        notes = "; ".join(
            dict.fromkeys(p.note for p in parts if p.verdict == NOT_REPRODUCED and p.note)
        )
        return Judgement(NOT_REPRODUCED, power, p_value, notes)
    return Judgement(
        INCONCLUSIVE, power, p_value, "underpowered" if power < POWER_THRESHOLD else ""
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the input's order.

    A verdict whose adjusted p-value is at most alpha survives family-wise control at alpha
    across the family of claims; NaN p-values (claims not tested) stay NaN and do not count.
    """
    values = [float(p) for p in p_values]
    index = [i for i, p in enumerate(values) if not math.isnan(p)]
    order = sorted(index, key=lambda i: values[i])
    m = len(order)
    adjusted = [math.nan] * len(values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[i]))
        adjusted[i] = running
    return adjusted
