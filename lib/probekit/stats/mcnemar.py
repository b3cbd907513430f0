"""McNemar's test on paired predictions (Zhu et al. 2022, §3.5, Table 1), exact and chi-squared.

A 2x2 table follows the paper's Table 1: rows are A (incorrect, correct), columns are B
(incorrect, correct), so ``table[0, 1] = n01`` counts items only B gets right and
``table[1, 0] = n10`` items only A gets right. An *effect* is ``acc_a - acc_b = (n10 - n01) /
n``; the released code uses the opposite sign (``acc_b - acc_a``), which changes neither the
p-values nor power, Type-M and Type-S.

:func:`p_values` is the vectorised form over many tables that
:mod:`probekit.stats.power` uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from probekit.errors import ParameterError

Test = Literal["exact", "chi2"]


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test on one 2x2 table. ``n01``: only B right; ``n10``: only A right.

    For the exact test ``statistic = min(n01, n10)`` (as statsmodels reports it); for the
    chi-squared test it is the chi-squared statistic.
    """

    statistic: float
    p_value: float
    n01: int
    n10: int
    exact: bool

    @property
    def n_discordant(self) -> int:
        """Items on which exactly one configuration is right."""
        return self.n01 + self.n10


def _correctness(name: str, x: object) -> np.ndarray:
    """``x`` as a boolean correctness vector of shape (n,), accepting 0/1 as well."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ParameterError(name, f"must be a 1-D correctness vector, got shape {arr.shape}")
    if arr.dtype != bool:
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ParameterError(name, "must hold booleans (or 0/1): True where a probe is right")
        arr = arr.astype(bool)
    return arr


def mcnemar_table(correct_a: np.ndarray, correct_b: np.ndarray) -> np.ndarray:
    """2x2 contingency table of paired correctness (Zhu et al. 2022, §3.5, Table 1).

    ``correct_a`` and ``correct_b``: boolean arrays of shape (n,), True where configuration A
    (resp. B) is right on test item i. Returns an int64 array of shape (2, 2): rows A
    (incorrect, correct), columns B (incorrect, correct). Unlike the released code, the table
    is always 2x2, also when a configuration is right (or wrong) on every item.
    """
    a = _correctness("correct_a", correct_a)
    b = _correctness("correct_b", correct_b)
    if a.shape != b.shape:
        raise ParameterError(
            "correct_b",
            f"has {b.size} items but correct_a has {a.size}",
            "McNemar's test needs both configurations' results on the same test items",
        )
    # Cell index 2*a + b enumerates (00, 01, 10, 11) in Table 1's order.
    return np.bincount(2 * a.astype(np.int64) + b, minlength=4).reshape(2, 2)


def _count_table(table: object) -> np.ndarray:
    """``table`` as an int64 (2, 2) array of counts, checked non-negative and integral."""
    arr = np.asarray(table, dtype=float)
    if arr.shape != (2, 2):
        raise ParameterError("table", f"must have shape (2, 2), got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ParameterError(
            "table", "must hold non-negative integer counts", "build it with mcnemar_table"
        )
    return arr.astype(np.int64)


def _exact_p(n01: np.ndarray, n10: np.ndarray) -> np.ndarray:
    """Two-sided exact McNemar p-values, vectorised over arrays of discordant counts."""
    d = n01 + n10
    # Binomial(d, 1/2) is symmetric, so the two-sided p-value is twice the smaller tail.
    p = 2.0 * stats.binom.cdf(np.minimum(n01, n10), d, 0.5)
    return np.where(d == 0, 1.0, np.minimum(p, 1.0))


def _chi2_stat(n01: np.ndarray, n10: np.ndarray, correction: bool) -> np.ndarray:
    """McNemar chi-squared statistics, vectorised; 0 where there are no discordant pairs."""
    d = n01 + n10
    gap = np.abs(n01 - n10).astype(float)
    if correction:
        # Edwards' correction, skipped when n01 == n10 as in R's mcnemar.test, so that
        # a zero gap never yields a positive statistic.
        gap = np.where(gap > 0, gap - 1.0, 0.0)
    return np.divide(gap**2, d, out=np.zeros_like(gap), where=d > 0)


def mcnemar_exact(table: object) -> McNemarResult:
    """Exact McNemar test: two-sided binomial test of ``n01`` out of ``n01 + n10`` at 1/2.

    This is the test the released code of Zhu et al. 2022 (§3.5) runs (statsmodels'
    ``mcnemar`` with ``exact=True``). ``table``: (2, 2) counts as from :func:`mcnemar_table`.
    With no discordant pairs the two configurations are indistinguishable on these items:
    the p-value is 1.0 and the statistic 0 (scipy's ``binomtest`` refuses ``n = 0``).
    """
    t = _count_table(table)
    n01, n10 = t[0, 1], t[1, 0]
    return McNemarResult(
        statistic=float(min(n01, n10)),
        p_value=float(_exact_p(n01, n10)),
        n01=int(n01),
        n10=int(n10),
        exact=True,
    )


def mcnemar_chi2(table: object, correction: bool = True) -> McNemarResult:
    """Chi-squared McNemar test, ``(|n01 - n10| - c)**2 / (n01 + n10)`` on 1 df.

    Zhu et al. 2022, §3.5 (the chi-squared form; ``c = 1`` with ``correction``, Edwards'
    continuity correction). ``table``: (2, 2) counts. Equals statsmodels' ``mcnemar(table,
    exact=False, correction=...)`` except in two degenerate cases where statsmodels returns
    NaN or a spurious positive statistic: with no discordant pairs, and (with correction)
    when ``n01 == n10``. There the statistic is 0 and the p-value 1.0.
    """
    t = _count_table(table)
    n01, n10 = t[0, 1], t[1, 0]
    stat = float(_chi2_stat(n01, n10, correction))
    return McNemarResult(
        statistic=stat,
        p_value=float(stats.chi2.sf(stat, 1)),
        n01=int(n01),
        n10=int(n10),
        exact=False,
    )


def p_values(n01: np.ndarray, n10: np.ndarray, test: Test) -> np.ndarray:
    """McNemar p-values from discordant counts ``n01`` and ``n10`` (same shape).

    ``test`` is ``"exact"`` (binomial) or ``"chi2"`` (with continuity correction).
    """
    if test == "exact":
        return _exact_p(n01, n10)
    if test == "chi2":
        return stats.chi2.sf(_chi2_stat(n01, n10, correction=True), 1)
    raise ParameterError("test", f"must be 'exact' or 'chi2', got {test!r}")
