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
rarely. :func:`match_design` sets a design's nuisance SDs so that an interval method sees the
sentence and seed components of a measured interval, and :func:`match_discordance` its copula
so that the simulated probes disagree unit by unit as often as measured ones: the claims ledger
simulates each claim in its own design with them (:mod:`probekit.book.calibration`); :func:`claim_types` are the generic
kinds of claim the library's tests calibrate.
"""

from __future__ import annotations

import math
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
from probekit.stats.verdicts import VERDICTS, Rule, judge


@dataclass(frozen=True)
class Design:
    """A simulated comparison design: sentences, their units, seeds and the random parts.

    ``n_sentences`` sentences whose units per sentence are drawn once (negative binomial, mean
    ``mean_units``, at least ``min_units``; EWT's test sentences average about 17 words),
    ``k_a`` and ``k_b`` seeds, and the normal SDs of the logit parts (``sd_sentence`` u,
    ``sd_probe_sentence`` a, ``sd_seed`` v, ``sd_seed_sentence`` e) around the base logit ``mu``.
    ``paired_seeds``: A's seed s and B's seed s are one trained probe scored twice (chapter 22's
    normal and Jabberwocky sentences), so they share the seed part v; needs ``k_a == k_b``.
    ``shared_units``: every probe and seed sees the same uniform per unit
    (:func:`coupled_counts`), as two probes, or one retrained, mostly get the same words right;
    independent draws otherwise, which put a floor of binomial noise under both variance
    components. ``corr_sides`` and ``corr_seeds`` (with ``shared_units``) loosen that coupling:
    each probe's draw for a unit is a normal correlated ``corr_sides`` with the other side's and
    ``corr_seeds`` with another seed of its own side (a Gaussian copula, :func:`unit_outcomes`),
    so that two probes with the same chance on a sentence can each get units right that the other
    gets wrong, as measured probes do; 1 and 1 is one uniform per unit for all.
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
    shared_units: bool = False
    corr_sides: float = 1.0
    corr_seeds: float = 1.0

    def __post_init__(self) -> None:
        """Check that the copula's correlations are a valid nested structure."""
        if not 0 <= self.corr_sides <= self.corr_seeds <= 1:
            raise ParameterError(
                "corr_sides/corr_seeds",
                f"need 0 <= corr_sides <= corr_seeds <= 1, got {self.corr_sides}, {self.corr_seeds}",
            )

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
    rng = np.random.default_rng(seed)
    p_a, p_b = _chances(design, beta, n_datasets, len(m), rng)
    if design.shared_units:
        both = np.stack([coupled_counts(m, np.concatenate([pa, pb]), rng, **_copula(design))
                         for pa, pb in zip(p_a, p_b, strict=True)])  # fmt: skip
        return both[:, : design.k_a], both[:, design.k_a :], m.astype(np.float64)
    a = rng.binomial(np.broadcast_to(m, p_a.shape), p_a).astype(np.float64)
    b = rng.binomial(np.broadcast_to(m, p_b.shape), p_b).astype(np.float64)
    return a, b, m.astype(np.float64)


def _copula(design: Design) -> dict:
    return {"k_a": design.k_a, "corr_sides": design.corr_sides, "corr_seeds": design.corr_seeds}


def _chances(
    design: Design, beta: float, R: int, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Each probe's chance on each sentence, A (R, k_a, n) and B (R, k_b, n), from the logit."""
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
        return special.expit(eta)

    return side(design.k_a, beta), side(design.k_b, 0.0)


def coupled_counts(
    units: np.ndarray,
    p: np.ndarray,
    rng: np.random.Generator,
    *,
    k_a: int = 0,
    corr_sides: float = 1.0,
    corr_seeds: float = 1.0,
) -> np.ndarray:
    """Correct units per sentence of several probes that see the same units, (..., n) -> (..., n).

    ``units`` (n,) the units of each sentence, ``p`` (..., n) each probe's chance on each
    sentence. Every unit draws one uniform for all probes, and a probe gets it right when the
    uniform is below its chance: each count is binomial(units, p), and two probes (or seeds)
    with the same chance on a sentence get the same units right. With correlations below 1, ``p``
    is (K, n), its first ``k_a`` rows side A, and each probe draws its own correlated uniform
    (:func:`unit_outcomes`).
    """
    m = np.asarray(units, dtype=np.int64)
    n = len(m)
    if corr_sides < 1 or corr_seeds < 1:
        right = unit_outcomes(m, p, rng, k_a, corr_sides, corr_seeds)
        running = np.zeros((right.shape[0], right.shape[1] + 1), dtype=np.int64)
        np.cumsum(right, axis=1, out=running[:, 1:])
        return np.diff(running[:, np.concatenate([[0], np.cumsum(m)])], axis=1).astype(np.float64)
    # Sentence i's uniforms lie in [i, i + 1), so one sorted array answers every query.
    keys = np.sort(np.repeat(np.arange(n), m) + rng.random(int(m.sum())))
    start = np.concatenate([[0], np.cumsum(m)[:-1]])
    return (np.searchsorted(keys, np.arange(n) + np.asarray(p)) - start).astype(np.float64)


def unit_outcomes(
    units: np.ndarray,
    p: np.ndarray,
    rng: np.random.Generator,
    k_a: int,
    corr_sides: float,
    corr_seeds: float,
) -> np.ndarray:
    """Which units each probe gets right, (K, n) chances -> (K, sum(units)) bool.

    Probe k's draw for a unit is z = sqrt(corr_sides) z_unit + sqrt(corr_seeds - corr_sides)
    z_side + sqrt(1 - corr_seeds) z_probe, a standard normal correlated ``corr_sides`` across the
    two sides (rows ``:k_a`` and ``k_a:``) and ``corr_seeds`` within one; the probe gets the unit
    right when Phi(z) is below its chance on the unit's sentence, so each count stays
    binomial(units, p).
    """
    m = np.asarray(units, dtype=np.int64)
    # Phi(z) < p is z < Phi^-1(p): one quantile per probe and sentence, not one per unit.
    threshold = special.ndtri(np.asarray(p, dtype=np.float64)).astype(np.float32)
    threshold = threshold[:, np.repeat(np.arange(len(m)), m)]
    K, M = threshold.shape
    side = (np.arange(K) >= k_a).astype(np.int64)

    def normal(shape: tuple[int, ...], scale: float) -> np.ndarray:
        return np.float32(math.sqrt(scale)) * rng.standard_normal(shape, dtype=np.float32)

    z = (normal((M,), corr_sides) + normal((2, M), corr_seeds - corr_sides)[side]
         + normal((K, M), 1.0 - corr_seeds))  # fmt: skip
    return z < threshold


def discordance(right_a: np.ndarray, right_b: np.ndarray) -> tuple[float, float]:
    """How often two probes disagree on a unit: (across the sides, within a side).

    ``right_a`` (k_a, M) and ``right_b`` (k_b, M) bool, which of the same M units each seed of
    A and of B gets right. Across: the mean over every pair of an A seed and a B seed of the
    share of units exactly one of them gets right. Within: the same over pairs of two seeds of
    one side, both sides pooled (NaN with one seed a side).
    """
    a = np.asarray(right_a, dtype=np.float64)
    b = np.asarray(right_b, dtype=np.float64)
    M = a.shape[1]

    def disagree(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # (k_x, k_y) shares
        return (x.sum(1)[:, None] + y.sum(1)[None, :] - 2 * x @ y.T) / M

    across = float(disagree(a, b).mean())
    pairs = [d[np.triu_indices(len(d), 1)] for d in (disagree(a, a), disagree(b, b))]
    within = np.concatenate(pairs)
    return across, float(within.mean()) if len(within) else math.nan


def simulated_discordance(
    design: Design, beta: float, n_datasets: int, seed: int
) -> tuple[float, float]:
    """Mean :func:`discordance` of ``n_datasets`` simulated comparisons at logit effect ``beta``."""
    m = design.units(0)
    rng = np.random.default_rng(seed)
    p_a, p_b = _chances(design, beta, n_datasets, len(m), rng)
    out = []
    for pa, pb in zip(p_a, p_b, strict=True):
        right = unit_outcomes(m, np.concatenate([pa, pb]), rng, **_copula(design))
        out.append(discordance(right[: design.k_a], right[design.k_a :]))
    across, within = np.mean(out, axis=0)
    return float(across), float(within)


def match_discordance(
    design: Design,
    target: tuple[float, float],
    beta: float,
    *,
    n_pilot: int = 20,
    steps: int = 12,
    seed: int = 0,
) -> Design:
    """``design`` with ``corr_seeds`` and ``corr_sides`` set to give the measured discordance.

    ``target`` (across, within) is :func:`discordance` of the measured probes at their measured
    effect ``beta`` (logit scale). Disagreement falls as a correlation rises, so each is found
    by bisection on pilot simulations that share their draws (``n_pilot`` data sets,
    ``steps`` halvings): first ``corr_seeds`` for the within-side share (which ``corr_sides``
    does not move), then ``corr_sides`` in [0, corr_seeds] for the share across. A target below
    what full coupling gives (the sentences' chances alone make probes disagree) leaves the
    correlation at its top.
    """
    across, within = target

    def solve(name: str, top: float, index: int, goal: float, d: Design) -> Design:
        low, high = 0.0, top
        for _ in range(steps):
            mid = (low + high) / 2
            if simulated_discordance(nested(d, name, mid), beta, n_pilot, seed)[index] > goal:
                low = mid
            else:
                high = mid
        return nested(d, name, high)

    def nested(d: Design, name: str, value: float) -> Design:
        if name == "corr_seeds":
            return replace(d, corr_seeds=value, corr_sides=min(d.corr_sides, value))
        return replace(d, corr_sides=value)

    d = design
    if math.isfinite(within):
        d = solve("corr_seeds", 1.0, 1, within, d)
    return solve("corr_sides", d.corr_seeds, 0, across, d)


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


def components(design: Design, method: Method, n_datasets: int, seed: int) -> tuple[float, float]:
    """Mean ``se_sentences`` and ``se_seeds`` of ``method``'s intervals on ``design`` at no effect."""
    a, b, m = simulate_scores(design, 0.0, n_datasets, seed)
    intervals = [method(a[r], b[r], m) for r in range(n_datasets)]
    return (
        float(np.mean([iv.se_sentences for iv in intervals])),
        float(np.mean([iv.se_seeds for iv in intervals])),
    )


def match_design(
    design: Design,
    method: Method,
    se_sentences: float,
    se_seeds: float,
    *,
    n_pilot: int = 100,
    rounds: int = 6,
    seed: int = 0,
) -> tuple[Design, float, float]:
    """``design`` with its nuisance SDs set so that ``method`` sees the given variance components.

    A measured interval says how much its estimate moves with the test sentences
    (``se_sentences``) and with the training seeds (``se_seeds``); a simulation of that claim
    should have the same. Over ``rounds`` pilot simulations of ``n_pilot`` data sets each, the
    two sentence SDs (the sentence part: the probe-by-sentence SD for a difference, both for one
    accuracy) and the two seed SDs (the seed part) are rescaled by the ratio of target to
    simulated component (they drop to 0 where there is no seed part). A sentence part below the
    binomial noise of the units themselves cannot be reached. Returns the design and the components it reaches on fresh pilot data, so that a
    reader sees how close the match is.
    """
    if se_sentences < 0 or se_seeds < 0:
        raise ParameterError("se", f"components must be >= 0, got {se_sentences}, {se_seeds}")
    d = design if se_seeds > 0 else replace(design, sd_seed=0.0, sd_seed_sentence=0.0)
    for k in range(rounds):
        d = rescaled(d, (se_sentences, se_seeds), components(d, method, n_pilot, seed + 31 * k))
    got_sent, got_seed = components(d, method, n_pilot, seed + 31 * rounds)
    return d, got_sent, got_seed


def rescaled(design: Design, target: tuple[float, float], simulated: tuple[float, float]) -> Design:
    """One step of :func:`match_design`: the SDs scaled by target over simulated component.

    ``target`` and ``simulated`` are (sentence part, seed part) standard errors. Both sentence
    SDs scale with the sentence ratio, both seed SDs with the seed ratio (to 0 where nothing was
    simulated), each ratio clipped to [0.25, 4] so that one noisy pilot cannot overshoot.
    """
    ratio = float(np.clip(target[0] / max(simulated[0], 1e-12), 0.25, 4))
    seed_ratio = float(np.clip(target[1] / simulated[1], 0.25, 4)) if simulated[1] > 0 else 0.0
    return replace(design, sd_sentence=design.sd_sentence * ratio,
                   sd_probe_sentence=design.sd_probe_sentence * ratio,
                   sd_seed=design.sd_seed * seed_ratio,
                   sd_seed_sentence=design.sd_seed_sentence * seed_ratio)  # fmt: skip


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
