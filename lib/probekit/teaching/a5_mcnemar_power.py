"""Assignment A5 · McNemar's test and power (Zhu et al. 2022, §3.5).

Checks of the exact McNemar p-value against :mod:`probekit.stats` and of a simulated power
against :func:`exact_power`, its exact value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from probekit.errors import ParameterError
from probekit.stats.checks import positive_int
from probekit.stats.mcnemar import mcnemar_chi2, mcnemar_exact, mcnemar_table
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    as_float,
    check_options,
    fmt_value,
    graded_tasks,
    judge_float,
    matching_hint,
    pick,
    run_check,
)

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"mcnemar_p": 4, "simulated_power": 6}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "mcnemar_p": (
        "probekit.stats.mcnemar.mcnemar_exact",
        "probekit.stats.mcnemar.mcnemar_chi2",
        "probekit.stats.mcnemar.p_values",
        "probekit.stats.mcnemar._exact_p",
        "probekit.teaching.a5_mcnemar_power._mcnemar_reference",
    ),
    "simulated_power": (
        "probekit.stats.power.power",
        "probekit.stats.power.power_curve",
        "probekit.stats.power._simulate_seed",
        "probekit.teaching.a5_mcnemar_power.exact_power",
        "probekit.teaching.a5_mcnemar_power._exact_rates",
        "probekit.teaching.exact_power",
    ),
}


def _mcnemar_reference(correct_a: np.ndarray, correct_b: np.ndarray) -> float:

    return mcnemar_exact(mcnemar_table(correct_a, correct_b)).p_value


def _mcnemar_variants(correct_a: np.ndarray, correct_b: np.ndarray) -> dict[str, tuple]:

    table = mcnemar_table(correct_a, correct_b)
    n01, n10 = int(table[0, 1]), int(table[1, 0])
    d, n = n01 + n10, int(table.sum())
    low = min(n01, n10)
    out: dict[str, tuple] = {
        "chi2": (
            mcnemar_chi2(table).p_value,
            "use the exact binomial test on the discordant pairs, not the chi-squared "
            "approximation (Zhu et al.'s code runs the exact test).",
        ),
        "chi2_plain": (
            mcnemar_chi2(table, correction=False).p_value,
            "use the exact binomial test on the discordant pairs, not the chi-squared "
            "approximation.",
        ),
    }
    if d:
        one = float(stats.binom.cdf(low, d, 0.5))
        out["one_sided"] = (
            one,
            "the test is two-sided: double the smaller tail, 2 * P(X <= min(n01, n10)), capped "
            "at 1.",
        )
        out["uncapped"] = (
            2 * one,
            "a p-value is at most 1: cap 2 * P(X <= min(n01, n10)) at 1.",
        )
        out["upper_tail"] = (
            float(stats.binom.sf(low, d, 0.5)) * 2,
            "the smaller tail is P(X <= min(n01, n10)); binom.sf(k) is P(X > k).",
        )
        out["all_items"] = (
            min(1.0, 2 * float(stats.binom.cdf(low, n, 0.5))),
            "only the discordant pairs count: X ~ Binomial(n01 + n10, 1/2), not Binomial(n, 1/2).",
        )
    else:
        out["no_discordant"] = (
            0.0,
            "with no discordant pairs the two configurations cannot be told apart: p = 1.",
        )
    return out


def check_mcnemar(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check McNemar's exact test against :func:`probekit.stats.mcnemar.mcnemar_exact`.

    Zhu et al. 2022, §3.5 and Table 1: the two-sided binomial test of n01 out of the n01 + n10
    discordant items at 1/2. ``student_fn(correct_a, correct_b)`` takes two bool arrays (n,)
    (True where configuration A, resp. B, is right on item i) and returns the p-value.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 40))
        props = rng.dirichlet(np.ones(4) * 0.8)
        cell = rng.choice(4, size=n, p=props)
        a, b = cell >= 2, cell % 2 == 1
        table = f"n00 = {np.sum(~a & ~b)}, n01 = {np.sum(~a & b)}, n10 = {np.sum(a & ~b)}, " + (
            f"n11 = {np.sum(a & b)}"
        )
        cases.append(
            Case(n, (a, b), f"correct_a = {fmt_value(a)}, correct_b = {fmt_value(b)}  ({table})")
        )

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        default = (
            "count n01 (only B right) and n10 (only A right); p = min(1, 2 * P(X <= min(n01, "
            "n10))) with X ~ Binomial(n01 + n10, 1/2); p = 1 when there is no discordant item."
        )
        return judge_float(
            expected,
            got,
            1e-9,
            "return the p-value as a float",
            lambda value: matching_hint(value, _mcnemar_variants(*case.args), default),
        )

    run_check("mcnemar", student_fn, cases, _mcnemar_reference, judge)


def _exact_rates(joint_props: Any, n: int, alpha: float, two_sided: bool = True):
    """(power, rejection rate) of McNemar's exact test, by enumeration (see exact_power)."""
    p = np.asarray(joint_props, dtype=np.float64).reshape(2, 2)
    p = p / p.sum()
    p01, p10 = p[0, 1], p[1, 0]
    effect = p10 - p01
    disc = p01 + p10
    power = rejection = 0.0
    if disc <= 0:
        return 0.0, 0.0
    share10 = p10 / disc
    for d in range(1, n + 1):
        weight = stats.binom.pmf(d, n, disc)
        if weight < 1e-300:
            continue
        k = np.arange(d + 1)  # n10
        tail = stats.binom.cdf(np.minimum(k, d - k), d, 0.5)
        p_value = np.minimum(1.0, 2 * tail) if two_sided else tail
        significant = p_value <= alpha
        pk = stats.binom.pmf(k, d, share10)
        rejection += weight * float(np.sum(pk[significant]))
        right_sign = np.sign(k - (d - k)) == np.sign(effect)
        power += weight * float(np.sum(pk[significant & right_sign]))
    # Sums of many probabilities can round a hair above 1 (a certain rejection).
    return (0.0 if effect == 0 else min(power, 1.0)), min(rejection, 1.0)


def exact_power(joint_props: Any, n: int, alpha: float = 0.05) -> float:
    """Power of McNemar's exact test at test size n, computed exactly instead of simulated.

    Zhu et al. 2022, §3.5 define power as the probability that a test set of n items drawn from
    the joint proportions ``joint_props`` (2, 2) (Table 1 layout) gives p <= alpha *with the sign
    of the true effect* p10 - p01. :func:`probekit.stats.power.power` estimates it by simulation;
    here it is summed exactly: the discordant count D ~ Binomial(n, p01 + p10) and, given D = d,
    n10 ~ Binomial(d, p10 / (p01 + p10)). A zero effect has power 0, as in the released code.
    O(n^2) time; meant for n up to a few thousand.
    """
    positive_int("n", n)
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must lie in (0, 1), got {alpha!r}")
    p = np.asarray(joint_props, dtype=np.float64)
    if p.shape != (2, 2) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ParameterError("joint_props", "must be a (2, 2) table of proportions summing to 1")
    return _exact_rates(p, int(n), alpha)[0]


def _mc_tolerance(power: float, sims: int) -> float:
    """4.5 Monte Carlo standard errors of a simulated share ``power``, plus 0.002."""
    return 4.5 * math.sqrt(max(power * (1 - power), 0.0) / sims) + 0.002


def check_power(student_fn: Callable, seed: int = 0, n_cases: int = 20, n_sim: int = 2000) -> None:
    """Check a simulated power of McNemar's test against its exact value (:func:`exact_power`).

    Zhu et al. 2022, §3.5 (after Card et al. 2020; :func:`probekit.stats.power.power` is the
    library's simulation). ``student_fn(joint_props, n, alpha, n_sim, seed)`` takes a (2, 2) table
    of proportions, the test size, the level, the number of simulated test sets and a seed, and
    returns the share of simulated test sets whose exact McNemar test is significant with the sign
    of the true effect. A simulation is random, so the check accepts values within 4.5 Monte Carlo
    standard errors (plus 0.002) of the exact power. Some cases have no true effect (power 0).
    """
    seed, n_cases = check_options(seed, n_cases)
    if isinstance(n_sim, bool) or not isinstance(n_sim, int) or n_sim < 100:
        raise ParameterError("n_sim", f"must be an int >= 100, got {n_sim!r}")
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(20, 300))
        props = rng.dirichlet(np.ones(4) * 2)
        if k % 4 == 3:
            props[1] = props[2] = (props[1] + props[2]) / 2
        props = np.round(props / props.sum(), 4)
        props[3] = 1.0 - props[:3].sum()
        alpha = float(pick(rng, (0.05, 0.05, 0.01, 0.1)))
        table = props.reshape(2, 2)
        shown = f"joint_props = {fmt_value(table)}, n = {n}, alpha = {alpha:g}, n_sim = {n_sim}"
        cases.append(Case(n, (table, n, alpha, n_sim, seed + k), shown.replace("\n", " ")))

    def reference(table: np.ndarray, n: int, alpha: float, *_: Any) -> float:
        return exact_power(table, n, alpha)

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        table, n, alpha, sims, _ = case.args
        value = as_float(got)
        tolerance = _mc_tolerance(expected, sims)
        if value is not None and abs(value - expected) <= tolerance:
            return None
        want = f"{expected:.4f} (exact; accepted within ±{tolerance:.4f})"
        if value is None:
            return Mismatch(want, repr(got), "return the power as a float")
        _, rejection = _exact_rates(table, n, alpha)
        one_sided, _ = _exact_rates(table, n, alpha, two_sided=False)
        effect = table[1, 0] - table[0, 1]

        def near(target: float) -> bool:
            return abs(value - target) <= _mc_tolerance(target, sims)

        if near(rejection) and not near(expected):
            hint = (
                "count only significant results with the sign of the true effect p10 - p01 "
                + ("(there is none here, so the power is 0); " if effect == 0 else "; ")
                + "a significant result in the wrong direction is a Type-S error, not power."
            )
        elif near(one_sided):
            hint = "use the two-sided exact p-value, min(1, 2 * P(X <= min(n01, n10)))."
        elif value > 1 or value < 0:
            hint = "power is a share of simulations and lies in [0, 1]."
        else:
            hint = (
                "draw n_sim multinomial tables of n items from the proportions, test each with "
                "your two-sided exact McNemar test, and count p <= alpha with sign(n10 - n01) "
                "equal to sign(p10 - p01)."
            )
        return Mismatch(want, f"{value:.4f}", hint)

    run_check("power", student_fn, cases, reference, judge)


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(POINTS, check_mcnemar, check_power)
