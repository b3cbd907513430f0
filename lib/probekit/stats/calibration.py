"""Calibration of verdict rules by simulation (Morris, White & Crowther 2019).

:func:`simulate_scores` draws data sets with the structure of a probe comparison: sentences of
varying length, units (edges or tokens) whose errors are correlated within a sentence, and seeds.
The logit of a unit of sentence i being right for probe g under seed s is

    mu + beta * [g = A] + u_i + a_gi + v_gs + e_gsi,

with sentence difficulty u (shared by both probes), a probe-by-sentence part a, a seed part v and
a seed-by-sentence part e, all independent normals; the units of a sentence are independent given
the logit. :func:`accuracy_of` and :func:`effect_of` map beta to the true corpus accuracy and
the true difference of corpus accuracies, and
:func:`beta_for` inverts it. :func:`calibrate` judges many simulated data sets at several true
effects and tabulates how often each verdict comes out, so that a rule can be shown to say
"reproduced" under a null about alpha of the time, and "not reproduced" at twice its SESOI
rarely.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import optimize, special

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import VERDICTS, Rule, judge


@dataclass(frozen=True)
class Design:
    """A simulated comparison design: sentences, their units, seeds and the random parts.

    ``n_sentences`` sentences whose units per sentence are drawn once (negative binomial, mean
    ``mean_units``, at least ``min_units``; EWT's test sentences average about 17 words),
    ``k_a`` and ``k_b`` seeds, and the normal SDs of the logit parts (``sd_sentence`` u,
    ``sd_probe_sentence`` a, ``sd_seed`` v, ``sd_seed_sentence`` e) around the base logit ``mu``.
    """

    n_sentences: int = 500
    k_a: int = 3
    k_b: int = 3
    mean_units: float = 16.0
    dispersion: float = 2.5
    min_units: int = 1
    mu: float = 1.5
    sd_sentence: float = 1.0
    sd_probe_sentence: float = 0.5
    sd_seed: float = 0.15
    sd_seed_sentence: float = 0.2

    def units(self, seed: int = 0) -> np.ndarray:
        """Units per sentence, (n_sentences,) int, fixed by ``seed``."""
        rng = np.random.default_rng(seed)
        p = self.dispersion / (self.dispersion + self.mean_units)
        m = rng.negative_binomial(self.dispersion, p, size=self.n_sentences)
        return np.maximum(m, self.min_units).astype(np.int64)


def simulate_scores(
    design: Design, beta: float, n_datasets: int, seed: int, units: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n_datasets`` simulated comparisons at effect ``beta`` on the logit scale.

    Returns correct units per sentence, A (R, k_a, n) and B (R, k_b, n), and the units (n,).
    """
    m = design.units(0) if units is None else np.asarray(units, dtype=np.int64)
    n, rng = len(m), np.random.default_rng(seed)
    R = n_datasets
    u = rng.normal(0.0, design.sd_sentence, (R, 1, n))

    def side(k: int, shift: float) -> np.ndarray:
        eta = (
            design.mu
            + shift
            + u
            + rng.normal(0.0, design.sd_probe_sentence, (R, 1, n))
            + rng.normal(0.0, design.sd_seed, (R, k, 1))
            + rng.normal(0.0, design.sd_seed_sentence, (R, k, n))
        )
        return rng.binomial(np.broadcast_to(m, (R, k, n)), special.expit(eta)).astype(np.float64)

    return side(design.k_a, beta), side(design.k_b, 0.0), m.astype(np.float64)


def accuracy_of(design: Design, beta: float) -> float:
    """Expected corpus accuracy of a probe at logit effect ``beta``.

    The logit is normal with mean ``mu + beta`` and the summed variance of its random parts,
    independent of the units, so the expectation is one Gauss-Hermite integral (exact to rounding).
    """
    sd = np.sqrt(
        design.sd_sentence**2
        + design.sd_probe_sentence**2
        + design.sd_seed**2
        + design.sd_seed_sentence**2
    )
    nodes, weights = np.polynomial.hermite_e.hermegauss(101)
    values = special.expit(design.mu + beta + sd * nodes)
    return float(np.sum(weights * values) / np.sum(weights))


def effect_of(design: Design, beta: float) -> float:
    """True difference of expected corpus accuracies, A - B, at logit effect ``beta``."""
    return accuracy_of(design, beta) - accuracy_of(design, 0.0) if beta else 0.0


def beta_for(design: Design, effect: float) -> float:
    """The logit effect whose true accuracy difference is ``effect`` (:func:`effect_of`)."""
    if effect == 0:
        return 0.0
    return float(optimize.brentq(lambda b: effect_of(design, b) - effect, -8.0, 8.0, xtol=1e-6))


Method = Callable[[np.ndarray, np.ndarray, np.ndarray], Interval]


def calibrate(
    rule: Rule,
    method: Method,
    design: Design,
    effects: Sequence[float],
    n_datasets: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Verdict rates of ``rule`` per true effect, on simulated data sets.

    Intervals come from ``method(scores_a, scores_b, units)``; the effects are true accuracy
    differences A - B. Returns one row per effect with columns ``effect``, ``beta`` and the share of
    each verdict.
    """
    if n_datasets < 1:
        raise ParameterError("n_datasets", f"must be >= 1, got {n_datasets}")
    rows = []
    for i, effect in enumerate(effects):
        beta = beta_for(design, effect)
        a, b, m = simulate_scores(design, beta, n_datasets, seed + 7919 * i)
        verdicts = [judge(rule, method(a[r], b[r], m)).verdict for r in range(n_datasets)]
        shares = pd.Series(verdicts).value_counts(normalize=True)
        rows.append(
            {"effect": effect, "beta": beta, **{v: float(shares.get(v, 0.0)) for v in VERDICTS}}
        )
    return pd.DataFrame(rows)


def with_seeds(design: Design, k_a: int, k_b: int) -> Design:
    """``design`` with other seed counts."""
    return replace(design, k_a=k_a, k_b=k_b)
