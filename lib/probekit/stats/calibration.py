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
from probekit.stats.intervals import (
    Interval,
    cluster_bootstrap,
    crossed_interval,
    seed_interval,
)
from probekit.stats.verdicts import NOT_REPRODUCED, REPRODUCED, VERDICTS, Rule, judge


@dataclass(frozen=True)
class Design:
    """A simulated comparison design: sentences, their units, seeds and the random parts.

    ``n_sentences`` sentences whose units per sentence are drawn once (negative binomial, mean
    ``mean_units``, at least ``min_units``; EWT's test sentences average about 17 words),
    ``k_a`` and ``k_b`` seeds, and the normal SDs of the logit parts (``sd_sentence`` u,
    ``sd_probe_sentence`` a, ``sd_seed`` v, ``sd_seed_sentence`` e) around the base logit ``mu``.
    ``paired_seeds``: A's seed s and B's seed s are one trained probe scored twice (chapter 22's
    normal and Jabberwocky sentences), so they share the seed part v; needs ``k_a == k_b``.
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
    paired_seeds: bool = False

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
    if design.paired_seeds and design.k_a != design.k_b:
        raise ParameterError("paired_seeds", f"needs k_a == k_b, got {design.k_a}, {design.k_b}")
    shared = rng.normal(0.0, design.sd_seed, (R, design.k_a, 1)) if design.paired_seeds else None

    def side(k: int, shift: float) -> np.ndarray:
        seed_part = shared if shared is not None else rng.normal(0.0, design.sd_seed, (R, k, 1))
        eta = (
            design.mu
            + shift
            + u
            + rng.normal(0.0, design.sd_probe_sentence, (R, 1, n))
            + seed_part
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


@dataclass(frozen=True)
class ClaimType:
    """A kind of claim in the book, with its simulated design and interval method.

    ``effects`` are the true effects simulated; the rule must rarely say "reproduced" at the
    ``null_effects`` and rarely "not reproduced" at ``true_effect``.
    """

    name: str
    rule: Rule
    design: Design
    method: Method
    effects: tuple[float, ...]
    null_effects: tuple[float, ...]
    true_effect: float


def claim_types() -> list[ClaimType]:
    """The claim types of the book's ledger, each on a realistic simulated design.

    Sentences of varying length with correlated unit errors, three seeds per trained probe
    (deterministic predictors have none), SESOI 2 points: "bootstrap" (the variance-components
    interval over sentences and seeds of a difference of two trained probes), "equivalence"
    (TOST on the same interval), "clustered McNemar" (two deterministic predictors, the
    cluster-robust interval), "per-seed" (Welch over per-seed scores, on a design where the probes
    do not differ sentence by sentence), "threshold" (one deterministic predictor against a fixed
    reference value, logit-scale interval) and "sentence bootstrap" (percentile bootstrap of a
    statistic over sentences).
    """
    sesoi = 0.02
    trained = Design(n_sentences=400, k_a=3, k_b=3)
    fixed = Design(n_sentences=400, k_a=1, k_b=1, sd_seed=0.0, sd_seed_sentence=0.0)
    per_seed = Design(n_sentences=400, k_a=10, k_b=10, sd_seed=0.2, sd_probe_sentence=0.0,
                      sd_seed_sentence=0.05)  # fmt: skip
    reference = accuracy_of(fixed, 0.0)

    def rule(kind: str, test: str) -> Rule:
        return Rule(kind, "A − B accuracy", "sentences and seeds", sesoi, "simulation", test,
                    scale=100, units="points", digits=1)  # fmt: skip

    def crossed(a, b, m):
        return crossed_interval(a, b, m, 0.90)

    def welch(a, b, m):
        return seed_interval(a.sum(-1) / m.sum(), b.sum(-1) / m.sum(), 0.90)

    def one_sample(a, b, m):
        return crossed_interval(a, None, m, 0.90, reference=reference, logit=True)

    def boot(a, b, m):
        def stat(x, y, u, axis=-1):
            return (x.sum(axis) - y.sum(axis)) / u.sum(axis)

        return cluster_bootstrap(stat, (a[0], b[0], m), 0.90, n_resamples=299, seed=1)

    directional = (0.0, sesoi, 2 * sesoi)
    return [
        ClaimType("bootstrap", rule("directional", "variance components"), trained, crossed,
                  directional, (0.0,), 2 * sesoi),
        ClaimType("equivalence", rule("equivalence", "TOST, variance components"),
                  replace(trained, n_sentences=1500, k_a=5, k_b=5, sd_seed=0.05), crossed,
                  (-sesoi, 0.0, sesoi, 2 * sesoi), (-sesoi, sesoi), 0.0),
        ClaimType("clustered McNemar", rule("directional", "cluster-robust"), fixed, crossed,
                  directional, (0.0,), 2 * sesoi),
        ClaimType("per-seed", rule("directional", "Welch over seeds"), per_seed, welch,
                  directional, (0.0,), 2 * sesoi),
        ClaimType("threshold", rule("equivalence", "one-sample, logit"),
                  replace(fixed, n_sentences=800), one_sample, (-sesoi, 0.0, sesoi, 2 * sesoi),
                  (-sesoi, sesoi), 0.0),
        ClaimType("sentence bootstrap", rule("directional", "percentile bootstrap"),
                  replace(fixed, n_sentences=300), boot, (0.0, 2 * sesoi), (0.0,), 2 * sesoi),
    ]  # fmt: skip


def calibration_table(n_datasets: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Verdict rates of every claim type (:func:`claim_types`) at its true effects.

    One row per (claim type, true effect in points) with the share of each verdict, ``null``
    (the effect is one where the claim is false: 0 for a directional claim, the margin for an
    equivalence claim), and ``error``: the share of wrong verdicts where the claim is false
    ("reproduced" at a null effect) or clearly true ("not reproduced" at the effect it must
    reach), empty elsewhere.
    """
    tables = []
    for k, ct in enumerate(claim_types()):
        t = calibrate(ct.rule, ct.method, ct.design, ct.effects, n_datasets, seed + 104729 * k)
        t.insert(0, "claim type", ct.name)
        t["null"] = [e in ct.null_effects for e in t["effect"]]
        t["error"] = [
            t.loc[i, REPRODUCED] if e in ct.null_effects
            else t.loc[i, NOT_REPRODUCED] if e == ct.true_effect else float("nan")
            for i, e in enumerate(t["effect"])
        ]  # fmt: skip
        tables.append(t)
    out = pd.concat(tables, ignore_index=True)
    out["effect"] = 100 * out["effect"]
    return out.drop(columns=["beta"])
