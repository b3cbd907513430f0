"""Small statistics helpers shared by the chapters.

:func:`paired_bootstrap` compares two configurations on the same test items when the per-item
outcome is continuous (a per-sentence UUAS or DSpr), where McNemar's test
(:func:`probekit.stats.comparison.compare`) does not apply. Sentences are the resampling unit
because the edges and word pairs inside one sentence are not independent of each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError

# Resamples drawn per vectorised step: bounds memory at CHUNK x n item indices.
CHUNK = 512


@dataclass(frozen=True)
class PairedBootstrap:
    """Result of :func:`paired_bootstrap`: the (weighted) mean of ``a - b`` and its CI.

    ``low`` and ``high`` are the percentile interval at level ``ci``; ``p_value`` is the
    two-sided bootstrap p-value (twice the share of resampled differences on the far side of
    0, capped at 1; its resolution is 1 / n_boot).
    """

    name_a: str
    name_b: str
    diff: float
    low: float
    high: float
    ci: float
    n: int
    n_boot: int
    p_value: float

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0

    @property
    def verdict(self) -> str:
        """``"<name_a> better"``, ``"<name_b> better"`` or ``"no significant difference"``."""
        if self.low > 0:
            return f"{self.name_a} better"
        if self.high < 0:
            return f"{self.name_b} better"
        return "no significant difference"

    def supports(self, better: str) -> str:
        """Verdict on the claim "``better`` beats the other".

        One of "holds", "reversed" or "not shown (the interval includes 0)".
        """
        if better not in (self.name_a, self.name_b):
            raise ParameterError("better", f"must be {self.name_a!r} or {self.name_b!r}")
        sign = 1.0 if better == self.name_a else -1.0
        low, high = sorted((sign * self.low, sign * self.high))
        if low > 0:
            return "holds"
        if high < 0:
            return "reversed"
        return "not shown (the interval includes 0)"

    def supports_no_difference(self) -> str:
        """Verdict on the claim "the two do not differ": consistent or not with the interval.

        A non-significant difference is only *consistent* with the claim; it does not prove it.
        """
        if self.significant:
            return f"not consistent ({self.verdict})"
        return "consistent (the interval includes 0)"

    def summary(self, scale: float = 1.0, unit: str = "", digits: int = 3) -> str:
        """One sentence, e.g. "A − B = +0.042 (95 % CI 0.031 to 0.053, n = 2,000 sentences)".

        ``scale`` multiplies the numbers (100 for percentage points), ``unit`` follows them.
        """
        f = f"{{:+.{digits}f}}"
        g = f"{{:.{digits}f}}"
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        return (
            f"{self.name_a} − {self.name_b} = {f.format(self.diff * scale)}{unit} "
            f"({self.ci * 100:.0f} % CI {g.format(self.low * scale)} to "
            f"{g.format(self.high * scale)}{unit}, bootstrap {p}, n = {self.n:,}): "
            f"{self.verdict}."
        )

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-able values, plus ``significant`` and ``verdict``."""
        out: dict[str, object] = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return out | {"significant": self.significant, "verdict": self.verdict}


def _vector(x: object, name: str) -> np.ndarray:
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1:
        raise ParameterError(name, f"expected a 1-D array of per-item values, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ParameterError(
            name,
            "contains NaN or infinite values",
            "drop the items that are undefined for either configuration",
        )
    return v


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    n_boot: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
    *,
    weights: np.ndarray | None = None,
    name_a: str = "A",
    name_b: str = "B",
) -> PairedBootstrap:
    """Paired bootstrap CI of the mean per-item difference ``a - b`` (Efron & Tibshirani 1993).

    Items (test sentences) are resampled with replacement, the same draw for both
    configurations, so what is shared between them cancels. The statistic is the weighted mean
    Σ w_i (a_i − b_i) / Σ w_i of the resample. Weights reproduce corpus-level metrics exactly:
    per-sentence UUAS weighted by the number of gold edges gives the micro-averaged UUAS of
    Hall Maudslay et al. 2020, §4.2; per-sentence DSpr weighted by one over the number of
    sentences of its length gives the length-averaged DSpr of Hewitt & Manning 2019, §3.1.

    Args:
        a: float (n,) per-item outcomes of the first configuration, finite, n >= 2.
        b: float (n,) per-item outcomes of the second configuration, finite, same shape.
        n_boot: number of resamples.
        seed: seed of the resampling (numpy Generator).
        ci: level of the percentile interval, in (0, 1).
        weights: float (n,), >= 0 with a positive sum; None means equal weights.
        name_a: name of the first configuration, used in the verdict and summary.
        name_b: name of the second configuration, used in the verdict and summary.
    """
    if not (
        isinstance(name_a, str)
        and isinstance(name_b, str)
        and name_a
        and name_b
        and name_a != name_b
    ):
        raise ParameterError(
            "name_b",
            f"names must be two different non-empty strings, got {name_a!r} and {name_b!r}",
        )
    a, b = _vector(a, "a"), _vector(b, "b")
    if a.shape != b.shape:
        raise ParameterError("b", f"has {b.size} items but a has {a.size}; the pairs must match")
    n = a.size
    if n < 2:
        raise ParameterError("a", f"needs at least 2 paired items, got {n}")
    w = np.ones(n) if weights is None else _vector(weights, "weights")
    if w.shape != a.shape:
        raise ParameterError("weights", f"has {w.size} entries for {n} items")
    if np.any(w < 0) or w.sum() <= 0:
        raise ParameterError("weights", "must be >= 0 with a positive sum")
    if not (isinstance(n_boot, int | np.integer) and n_boot >= 1):
        raise ParameterError("n_boot", f"must be a positive integer, got {n_boot!r}")
    if not 0.0 < ci < 1.0:
        raise ParameterError("ci", f"must lie in (0, 1), got {ci!r}")
    wd = w * (a - b)
    diff = float(wd.sum() / w.sum())
    rng = np.random.default_rng(seed)
    stats = np.empty(n_boot)
    for start in range(0, n_boot, CHUNK):
        idx = rng.integers(0, n, size=(min(CHUNK, n_boot - start), n))
        den = w[idx].sum(axis=1)
        # A resample of zero-weight items only has no defined mean; it counts as no difference.
        with np.errstate(invalid="ignore", divide="ignore"):
            stats[start : start + idx.shape[0]] = np.where(den > 0, wd[idx].sum(axis=1) / den, 0.0)
    alpha = (1.0 - ci) / 2.0
    low, high = np.quantile(stats, [alpha, 1.0 - alpha])
    p_value = min(1.0, 2.0 * min(np.mean(stats <= 0.0), np.mean(stats >= 0.0)))
    return PairedBootstrap(
        name_a,
        name_b,
        diff,
        float(low),
        float(high),
        float(ci),
        int(n),
        int(n_boot),
        float(p_value),
    )
