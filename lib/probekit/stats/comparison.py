"""One comparison of two probing configurations, as every chapter of the book reports it.

Zhu et al. 2022, §3.5: :func:`compare` runs McNemar's exact test
(:mod:`probekit.stats.mcnemar`) and simulates its power at the observed effect
(:mod:`probekit.stats.power`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.mcnemar import mcnemar_exact, mcnemar_table
from probekit.stats.power import POWER_THRESHOLD, power


@dataclass(frozen=True, eq=False)
class Comparison:
    """Comparison of configurations A and B on the same test items (:func:`compare`).

    ``diff = acc_a - acc_b``; ``table`` (2, 2) int64 in the layout of Table 1 (Zhu et al.
    2022); ``p_value``: exact McNemar; ``power``, ``type_m``, ``type_s``: simulated at the
    observed effect and the current test size ``n`` (None where undefined).
    """

    name_a: str
    name_b: str
    n: int
    acc_a: float
    acc_b: float
    diff: float
    table: np.ndarray
    p_value: float
    power: float
    type_m: float | None
    type_s: float | None
    alpha: float
    significant: bool
    well_powered: bool
    verdict: str

    def as_dict(self) -> dict[str, object]:
        """Plain Python str/int/float/bool/None values and lists only (JSON-serialisable)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["table"] = [[int(x) for x in row] for row in self.table]
        return out

    def summary(self) -> str:
        """The comparison in one sentence.

        E.g. "A beats B by 2.3 points (McNemar p = 0.004, power 0.91 at n = 1,000).".
        """
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        stats_text = f"McNemar {p}, power {self.power:.2f} at n = {self.n:,}"
        a, b = self.name_a, self.name_b
        if self.table[0, 1] + self.table[1, 0] == 0:
            return f"{a} and {b} are right on exactly the same {self.n:,} items (McNemar p = 1)."
        if self.significant:
            win, lose = (a, b) if self.diff > 0 else (b, a)
            caveat = "" if self.well_powered else "; under-powered, so the gap is likely inflated"
            return (
                f"{win} beats {lose} by {abs(self.diff) * 100:.1f} points ({stats_text}){caveat}."
            )
        return (
            f"{a} and {b} do not differ significantly "
            f"({a} - {b} = {self.diff * 100:+.1f} points, {stats_text})."
        )


def _verdict(name_a: str, name_b: str, diff: float, n_disc: int, sig: bool, powered: bool) -> str:
    """The verdict of :class:`Comparison`.

    It follows from the effect, the number of discordant items, significance and power (see
    :func:`compare`).
    """
    if n_disc == 0:
        return "identical: both right on the same items"
    if diff == 0:
        return "no difference observed"
    winner = name_a if diff > 0 else name_b
    if sig:
        return f"{winner} better" if powered else f"{winner} better, but under-powered"
    return "no significant difference" if powered else "inconclusive: under-powered"


def compare(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    name_a: str = "A",
    name_b: str = "B",
    *,
    alpha: float = 0.05,
    n_sim: int = 1000,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
) -> Comparison:
    """Compare two probing configurations on the same test items (Zhu et al. 2022, §3.5).

    ``correct_a``, ``correct_b``: boolean arrays of shape (n,), True where each configuration
    is right on test item i. Runs the exact McNemar test and simulates its power at the
    current ``n`` from the observed joint proportions (``n_sim`` tables for each of
    ``seeds``), with Type-M and Type-S errors. ``well_powered`` means power >= 0.8 (§3.5).

    The power is computed at the *observed* effect, as the paper does; such post-hoc power
    is a function of the p-value, so read it as "how reliably would a test set of this size
    detect a gap this large", not as evidence for the null.

    ``verdict`` is one of: "identical: both right on the same items", "no difference
    observed", "<name> better", "<name> better, but under-powered", "no significant
    difference", "inconclusive: under-powered".
    """
    for label, name in (("name_a", name_a), ("name_b", name_b)):
        if not isinstance(name, str) or not name:
            raise ParameterError(label, f"must be a non-empty string, got {name!r}")
    table = mcnemar_table(correct_a, correct_b)
    n = int(table.sum())
    if n == 0:
        raise ParameterError("correct_a", "is empty; there is nothing to compare")
    acc_a, acc_b = table[1].sum() / n, table[:, 1].sum() / n
    diff = (table[1, 0] - table[0, 1]) / n
    p_value = mcnemar_exact(table).p_value
    sim = power(table / n, n, alpha=alpha, n_sim=n_sim, seeds=seeds)
    significant = p_value <= alpha
    well_powered = sim.power >= POWER_THRESHOLD
    n_disc = int(table[0, 1] + table[1, 0])
    return Comparison(
        name_a=name_a,
        name_b=name_b,
        n=n,
        acc_a=float(acc_a),
        acc_b=float(acc_b),
        diff=float(diff),
        table=table,
        p_value=p_value,
        power=sim.power,
        type_m=sim.type_m,
        type_s=sim.type_s,
        alpha=sim.alpha,
        significant=bool(significant),
        well_powered=bool(well_powered),
        verdict=_verdict(name_a, name_b, float(diff), n_disc, significant, well_powered),
    )
