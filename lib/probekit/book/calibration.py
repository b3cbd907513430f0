"""Each claim of the ledger simulated in its own design (Morris, White & Crowther 2019).

A rule is calibrated when, where its claim is false, it says "reproduced" at most alpha of the
time. What that rate is depends on the design the rule reads: how many test sentences, how
many seeds a side and whether they are paired, how much the estimate moves with the sentences
and with the seeds, the statistic (a difference of corpus accuracies, a maximum, two bootstraps
combined) and the SESOI. So each claim is simulated here from its own saved intervals
(:func:`claim_calibration`), at its least favourable null: an effect of 0 for a directional
claim, of +SESOI and -SESOI for an equivalence claim. A claim of several parts that must all
hold is false when one part is; its least favourable case is one part at its null and the rest
clearly true, so the claim's rate is its worst part's. The largest of several noisy rates
overstates the worst part's (with 14 parts at one rate, by about 1.7 Monte Carlo standard errors),
so the worst part is found on one simulation and its rate estimated on a second, independent one
(:func:`claim_calibration`).

- Differences of corpus accuracies (variance components over sentences and seeds, or the
  cluster-robust interval of deterministic predictors): the logit simulator of
  :mod:`probekit.stats.calibration` with the claim's sentences and seeds, its nuisance SDs set
  so that the simulated intervals have the saved sentence and seed components
  (:func:`~probekit.stats.calibration.match_design`), judged by the claim's rule on
  :func:`~probekit.stats.intervals.crossed_interval` (seeds paired where the claim pairs them).
  A contrast of several metrics (IV.5's difference of two gaps) is simulated as a difference of
  two with the same components.
- One accuracy against a paper's figure (the logit-scale one-sample interval): the same, with
  accuracies centred on the figure.
- The best of the more complex half of the MLPs minus the best of the less complex half (III.4,
  maxima): each seed trains its own probes, the more complex half better (or worse) by the
  SESOI, every probe's per-sentence counts drawn from the logit simulator; the seeds' statistics
  go through
  :func:`~probekit.experiments.part3_pareto.resampling.seeded_bootstrap`.
- Two chapters' bootstrapped leads set against each other (III.5): each side's per-seed
  statistics drawn with the saved sentence and seed components, its interval built as
  :func:`~probekit.experiments.part3_pareto.resampling.seeded_interval` does, the two combined
  by :func:`~probekit.experiments.part3_pareto.claims.separation_intervals`.

Consistency checks are not simulated: they are outside the tally and the expected count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special
from tqdm.auto import tqdm

from probekit.book.ledger import CLAIMS, Results
from probekit.errors import ParameterError
from probekit.experiments.claims import Claim
from probekit.experiments.part3_pareto import claims as part3
from probekit.experiments.part3_pareto.frontiers import complexity_halves
from probekit.experiments.part3_pareto.resampling import (
    half_gap,
    resample_weights,
    seeded_bootstrap,
    seeded_interval,
)
from probekit.stats.calibration import (
    Design,
    accuracy_of,
    beta_for,
    calibrate,
    coupled_counts,
    match_design,
    match_discordance,
    rescaled,
)
from probekit.stats.intervals import Interval, crossed_interval
from probekit.stats.verdicts import REPRODUCED, Rule, judge

# Resamples of each simulated sentence bootstrap: it enters through its variance only (a t
# interval), which 299 resamples estimate to about 8 %.
SIM_RESAMPLES = 299
# The largest false "reproduced" rate that is still alpha within Monte Carlo error at 1,000
# simulations (0.05 + 2 x 0.0069).
TOLERANCE = 0.065
# Rounds of matching a design's copula to the measured discordance, each followed by the
# variance components (which the copula moves).
MATCH_ROUNDS = 2
# Offset of the seed that re-estimates a claim's deciding part, beyond any claim's part count.
REESTIMATE = 997

Simulated = dict[str, Any]


def _nulls(rule: Rule) -> tuple[float, ...]:
    return (0.0,) if rule.kind == "directional" else (-rule.sesoi, rule.sesoi)


def _design(iv: Interval) -> Design:
    k_a = int(iv.n_seeds[0])
    k_b = int(iv.n_seeds[1]) if len(iv.n_seeds) > 1 else 0
    fixed = iv.se_seeds == 0
    return Design(
        n_sentences=int(iv.n_sentences), k_a=k_a, k_b=max(k_b, 1), shared_units=True,
        sd_seed=0.0 if fixed else Design.sd_seed,
        sd_seed_sentence=0.0 if fixed else Design.sd_seed_sentence,
    )  # fmt: skip


def _with_accuracy(design: Design, accuracy: float) -> Design:
    """``design`` with its base logit moved so that a probe's expected accuracy is ``accuracy``."""
    mu = optimize.brentq(lambda x: accuracy_of(replace(design, mu=x), 0.0) - accuracy, -8, 8)
    return replace(design, mu=float(mu))


def crossed_rate(
    rule: Rule,
    iv: Interval,
    *,
    paired: bool,
    n_sim: int,
    seed: int,
    discordance: tuple[float, float] | None = None,
    units: int | None = None,
    accuracy: float | None = None,
) -> Simulated:
    """False "reproduced" rate of a difference of corpus accuracies in ``iv``'s design.

    ``units``: the comparison's units in all (the sentences then have ``units / n_sentences``
    on average; EWT's sentence length otherwise). ``discordance`` (across the sides, within a
    side), when the chapter measured it: how often the compared probes disagree unit by unit
    (:func:`~probekit.stats.calibration.discordance`). The design's copula is then matched to
    it at the measured effect and B's measured ``accuracy``, alternating with the variance
    components (:data:`MATCH_ROUNDS` times); without it every probe sees one uniform per unit,
    which makes two probes' disagreements within a sentence all one way.
    """
    design = _design(iv)
    if units is not None:
        design = replace(design, mean_units=units / design.n_sentences)
    if discordance is not None and accuracy is None:
        raise ParameterError("accuracy", "matching a discordance needs B's measured accuracy")
    paired = paired and design.k_a == design.k_b and design.k_a > 1

    def method(a, b, m):
        return crossed_interval(a, b, m, rule.level, paired_seeds=paired)

    words = f"{design.n_sentences:,} sentences, seeds {design.k_a} and {design.k_b}"
    for k in range(MATCH_ROUNDS if discordance is not None else 1):
        if discordance is not None:
            design = _with_accuracy(design, accuracy)
            beta = beta_for(design, iv.estimate)
            design = match_discordance(design, discordance, beta, seed=seed + 2 + k)
        design, sent, seeds = match_design(
            design, method, iv.se_sentences, iv.se_seeds, seed=seed + 3 * k
        )
    if discordance is not None:
        words += (f", units disagree {100 * discordance[0]:.1f} % across and "
                  f"{100 * discordance[1]:.1f} % within sides")  # fmt: skip
    rates = calibrate(rule, method, design, _nulls(rule), n_sim, seed + 1)
    return {
        "design": words + (", paired" if paired else ""),
        "rate": float(rates[REPRODUCED].max()),
        "se_sentences": sent, "se_seeds": seeds,
    }  # fmt: skip


def one_sample_rate(
    rule: Rule, iv: Interval, *, accuracy: float, n_sim: int, seed: int
) -> Simulated:
    """False "reproduced" rate of one deterministic predictor's accuracy against a figure."""
    design = _with_accuracy(replace(_design(iv), k_a=1, k_b=1), accuracy)
    reference = accuracy_of(design, 0.0)

    def method(a, b, m):
        return crossed_interval(a, None, m, rule.level, reference=reference, logit=True)

    design, sent, _ = match_design(design, method, iv.se_sentences, 0.0, seed=seed)
    design = _with_accuracy(design, accuracy)
    reference = accuracy_of(design, 0.0)
    rates = calibrate(rule, method, design, _nulls(rule), n_sim, seed + 1)
    return {
        "design": f"{design.n_sentences:,} sentences, one deterministic predictor, "
        f"accuracy {accuracy:.2f}",
        "rate": float(rates[REPRODUCED].max()),
        "se_sentences": sent, "se_seeds": 0.0,
    }  # fmt: skip


def _probe_counts(
    design: Design, betas: np.ndarray, k: int, rng: np.random.Generator, m: np.ndarray
) -> np.ndarray:
    """Correct units (k, J, n) of J probes per seed, each seed its own probes (its own draws).

    Every probe sees the same uniform per unit (:func:`~probekit.stats.calibration.coupled_counts`).
    """
    n, j = len(m), len(betas)
    eta = (
        design.mu
        + betas[None, :, None]
        + rng.normal(0.0, design.sd_sentence, (1, 1, n))
        + rng.normal(0.0, design.sd_probe_sentence, (k, j, n))
        + rng.normal(0.0, design.sd_seed, (k, j, 1))
    )
    return coupled_counts(m, special.expit(eta), rng)


def half_gap_rate(
    rule: Rule, iv: Interval, *, n_probes: int, n_sim: int, seed: int, rounds: int = 4
) -> Simulated:
    """False "reproduced" rate of III.4's best-of-one-half-minus-best-of-the-other, at ±SESOI.

    Each of k seeds trains ``n_probes`` probes of distinct complexity; the more complex half is
    better than the rest by the SESOI (or worse by it), its probes and the others' each tied, so
    that each half's best is a maximum over equals. The SDs are rescaled step by step
    (:func:`~probekit.stats.calibration.rescaled`, as in ``match_design``) until the simulated
    intervals have the saved components.
    """
    if n_probes < 2:
        raise ParameterError("n_probes", f"halves need >= 2 probes, got {n_probes}")
    k, n = int(iv.n_seeds[0]), int(iv.n_sentences)
    design = replace(Design(n_sentences=n, k_a=k, k_b=k), sd_seed_sentence=0.0)
    m = design.units(0)
    complexity = np.arange(n_probes, dtype=np.float64)
    upper = complexity_halves(complexity)[1]

    def run(d: Design, effect: float, count: int, s: int) -> list[Interval]:
        rng = np.random.default_rng(s)
        betas = np.where(upper, beta_for(d, effect), 0.0)
        weights = resample_weights(n, SIM_RESAMPLES, s)
        out = []
        for _ in range(count):
            counts = _probe_counts(d, betas, k, rng, m)
            stats_ = [half_gap(complexity, counts[s_], m) for s_ in range(k)]
            out.append(seeded_bootstrap(stats_, n, rule.level, n_resamples=SIM_RESAMPLES,
                                        weights=weights))  # fmt: skip
        return out

    for r in range(rounds):
        pilot = run(design, 0.0, 40, seed + 97 * r)
        simulated = (
            float(np.mean([iv_.se_sentences for iv_ in pilot])),
            float(np.mean([iv_.se_seeds for iv_ in pilot])),
        )
        design = rescaled(design, (iv.se_sentences, iv.se_seeds), simulated)
    rates, simulated = [], []
    for j, effect in enumerate(_nulls(rule)):
        found = run(design, effect, n_sim, seed + 1 + 7919 * j)
        rates.append(float(np.mean([judge(rule, s_).verdict == REPRODUCED for s_ in found])))
        simulated += found
    return {
        "design": f"{n:,} sentences, {k} seeds of {n_probes} probes each, the more complex "
        "half better (or worse) by the SESOI",
        "rate": max(rates),
        "se_sentences": float(np.mean([s_.se_sentences for s_ in simulated])),
        "se_seeds": float(np.mean([s_.se_seeds for s_ in simulated])),
    }


def _side(iv: Interval, theta: float, rng: np.random.Generator, method: str) -> Interval:
    """One chapter's lead as :func:`seeded_interval` builds it, its parts drawn from ``iv``."""
    k = int(iv.n_seeds[0])
    shift = rng.normal(0.0, iv.se_sentences)
    per_seed = theta + shift + rng.normal(0.0, iv.se_seeds * math.sqrt(k), k)
    return seeded_interval(per_seed, iv.se_sentences**2, iv.n_sentences, iv.level, method)


def combined_rate(
    rule: Rule, parse: Interval, toy: Interval, task: str, *, n_sim: int, seed: int
) -> Simulated:
    """False "reproduced" rate of III.5's parsing lead minus a toy task's, at no difference.

    Each side's per-seed leads are drawn with its saved sentence part (shared by its seeds, the
    bootstrap's variance taken as known) and seed part, and combined by
    :func:`~probekit.experiments.part3_pareto.claims.separation_intervals`.
    """
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sim):
        a = _side(parse, 0.0, rng, parse.method)
        b = _side(toy, 0.0, rng, toy.method)
        combined = part3.separation_intervals(a, {task: b})[task]
        hits += judge(rule, combined).verdict == REPRODUCED
    return {
        "design": f"seeds {parse.n_seeds[0]} and {toy.n_seeds[0]}, each side's sentence and "
        "seed parts as saved",
        "rate": hits / n_sim,
        "se_sentences": math.hypot(parse.se_sentences, toy.se_sentences),
        "se_seeds": math.hypot(parse.se_seeds, toy.se_seeds),
    }


def _paired(claim: Claim) -> bool:
    """Whether the claim's two sides are the same trained probes (or subsets) per seed."""
    return "paired" in claim.rule.test or "shared by both" in claim.rule.unit


def part_rate(
    claim: Claim,
    part: str,
    iv: Interval,
    results: Results,
    *,
    n_sim: int,
    seed: int,
) -> Simulated:
    """The simulated false "reproduced" rate of one part of ``claim`` in its saved design."""
    method = iv.method
    if not (math.isfinite(iv.se_sentences) and math.isfinite(iv.se_seeds)):
        raise ParameterError("results", f"{claim.id} {part}: its interval has no finite parts")
    if method.endswith("logit scale"):
        accuracy = part3.REFERENCE_ACCURACY.get(claim.id)
        if accuracy is None:
            raise ParameterError("claim", f"{claim.id}: no reference accuracy to centre on")
        return one_sample_rate(claim.rule, iv, accuracy=accuracy, n_sim=n_sim, seed=seed)
    if method.startswith(("variance components", "cluster-robust")):
        if len(iv.n_seeds) < 2 or iv.n_seeds[1] == 0:
            raise ParameterError("claim", f"{claim.id}: a one-sample interval needs a reference")
        prefix = claim.prefix(part)
        values = results.get(claim.chapter, {})
        saved = values.get(f"{prefix}_discordance")
        units = values.get(f"{prefix}_units")
        return crossed_rate(claim.rule, iv, paired=_paired(claim), n_sim=n_sim, seed=seed,
                            discordance=None if saved is None else tuple(saved),
                            units=None if units is None else int(units),
                            accuracy=values.get(f"{prefix}_accuracy"))  # fmt: skip
    if claim is part3.SIMPLE_AS_GOOD:
        n_probes = int(results.get(claim.chapter, {}).get("n_configs", 0))
        return half_gap_rate(claim.rule, iv, n_probes=n_probes, n_sim=n_sim, seed=seed)
    if claim is part3.SEPARATION:
        parse, toy = part3.saved_leads(
            results.get(part3.UAS_GAP.chapter), results.get(part3.SIMPLE_AS_GOOD.chapter)
        )
        if parse is None or part not in toy:
            raise ParameterError("results", f"{claim.id} {part}: the chapters' leads are missing")
        return combined_rate(claim.rule, parse, toy[part], part, n_sim=n_sim, seed=seed)
    raise ParameterError("claim", f"{claim.id}: no simulation for an interval by {method!r}")


def claim_calibration(
    results: Results,
    *,
    n_sim: int = 1000,
    seed: int = 0,
    claims: tuple[Claim, ...] = CLAIMS,
    progress: bool = True,
) -> pd.DataFrame:
    """One row per claim of the papers that this build measured: its simulated false rate.

    Columns: ``id``, ``design`` (of the part that decides, in words), ``parts`` (simulated),
    ``deciding part`` (the part with the largest rate), ``screening`` (that largest rate, for
    a claim of several parts), ``false reproduced`` (the deciding part's rate on independent
    draws, or the one part's; its Monte Carlo SE is ``mc_se``), ``se sentences`` and
    ``se seeds`` (the saved components of the deciding part, in the claim's units),
    ``simulated se`` (the simulated components, "sentences / seeds") and ``within`` (rate <=
    :data:`TOLERANCE`). Consistency checks, findings and claims the build
    did not measure are left out.
    """
    rows = []
    todo = [c for c in claims if c.counted]
    for i, claim in enumerate(tqdm(todo, desc="calibration", disable=not progress)):
        try:
            intervals = claim.read(results.get(claim.chapter, {}))
        except KeyError:
            continue
        parts: Mapping[str, Interval] = intervals if claim.parts else {"": intervals}
        base = seed + 1009 * i
        simulated = {
            part: part_rate(claim, part, iv, results, n_sim=n_sim, seed=base + j)
            for j, (part, iv) in enumerate(parts.items())
        }
        worst = max(simulated, key=lambda p: simulated[p]["rate"])
        top, iv = simulated[worst], parts[worst]
        if len(parts) > 1:  # the worst part's rate on draws that did not choose it
            top = part_rate(claim, worst, iv, results, n_sim=n_sim, seed=base + REESTIMATE)
        scale = claim.rule.scale
        rows.append({
            "id": claim.id,
            "design": top["design"],
            "parts": len(parts),
            "deciding part": claim.label(worst) if worst else "",
            "screening": simulated[worst]["rate"] if len(parts) > 1 else math.nan,
            "false reproduced": top["rate"],
            "mc_se": math.sqrt(max(top["rate"] * (1 - top["rate"]), 1e-12) / n_sim),
            "se sentences": scale * iv.se_sentences,
            "se seeds": scale * iv.se_seeds,
            "simulated se": f"{scale * top['se_sentences']:.3g} / {scale * top['se_seeds']:.3g}",
            "within": top["rate"] <= TOLERANCE,
        })  # fmt: skip
    return pd.DataFrame(rows)


def expected_false(calibration: pd.DataFrame) -> float:
    """Reproduced verdicts expected by chance were every claim false: the sum of the rates."""
    return float(calibration["false reproduced"].sum()) if len(calibration) else 0.0


def over_text(calibration: pd.DataFrame) -> str:
    """One sentence on the claims whose simulated rate exceeds :data:`TOLERANCE`."""
    over = calibration[~calibration["within"]] if len(calibration) else calibration
    if not len(over):
        return "None exceeds it."
    listed = "; ".join(
        f"{r['id']} ({r['false reproduced']:.3f}"
        + (f", {r['deciding part']})" if r["deciding part"] else ")")
        for r in over.to_dict("records")
    )
    return (
        f'Above it: {listed}. On this design such a rule says "reproduced" by chance more '
        "often than alpha, so its verdict there is weaker evidence than its level says."
    )
