"""Benchmark: power by simulation (Zhu et al. 2022, §3.5), 5 seeds x 1000 simulations.

Ours: ``probekit.stats.power.power``, which draws all simulated 2x2 tables of a seed in one
``Generator.multinomial`` call and computes every exact McNemar p-value with one vectorised
``scipy.stats.binom.cdf``.

Baseline: the naive loop of the released code (after Card et al. 2020), one multinomial draw
and one ``scipy.stats.binomtest`` call per simulated table. A second baseline loops over
statsmodels' ``mcnemar(table)`` (exact=True), which is literally what the released code runs.

Prints absolute times and the ratios baseline / ours as plain lines. ``--quick`` times the
baselines on 200 simulations of one seed and scales their per-simulation time to 5 x 1000
(it says so in its output); ours always runs the full 5 x 1000.

Run: ``python benchmarks/bench_power.py [--quick]`` (with probekit installed, or
``PYTHONPATH=lib``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from probekit.stats.power import power

PROPS = np.array([[0.10, 0.08], [0.12, 0.70]])  # effect acc_a - acc_b = 0.04
SEEDS = (0, 1, 2, 3, 4)
N_SIM = 1000
ALPHA = 0.05


def naive_power(props: np.ndarray, n: int, n_sim: int, seeds, test: str) -> float:
    """Per-table loop: the baseline. ``test`` is 'binomtest' or 'statsmodels'."""
    effect = props[1, 0] - props[0, 1]
    powers = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        hits = 0
        for _ in range(n_sim):
            n00, n01, n10, n11 = rng.multinomial(n, props.ravel())
            if n01 + n10 == 0:
                continue
            if test == "binomtest":
                p = stats.binomtest(int(n01), int(n01 + n10), 0.5).pvalue
            else:
                p = mcnemar(np.array([[n00, n01], [n10, n11]])).pvalue
            hits += p <= ALPHA and np.sign(n10 - n01) == np.sign(effect)
        powers.append(hits / n_sim)
    return float(np.mean(powers))


def time_ours(n: int, repeats: int = 5) -> tuple[float, float]:
    """Best wall time of ``repeats`` runs (seconds) and the power estimate."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = power(PROPS, n, alpha=ALPHA, n_sim=N_SIM, seeds=SEEDS)
        best = min(best, time.perf_counter() - t0)
    return best, result.power


def time_naive(n: int, test: str, quick: bool) -> tuple[float, float]:
    """Wall time (seconds, scaled to 5 x 1000 under --quick) and the power estimate."""
    n_sim, seeds = (200, SEEDS[:1]) if quick else (N_SIM, SEEDS)
    t0 = time.perf_counter()
    estimate = naive_power(PROPS, n, n_sim, seeds, test)
    elapsed = time.perf_counter() - t0
    return elapsed * (N_SIM * len(SEEDS)) / (n_sim * len(seeds)), estimate


def main() -> None:
    """Time ours and both baselines at each test size and print times, powers and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    args = parser.parse_args()
    sizes = (1024,) if args.quick else (1024, 16384)
    scaled = " (scaled from 1 seed x 200 simulations)" if args.quick else ""
    print(f"power by simulation, {len(SEEDS)} seeds x {N_SIM} simulations, alpha = {ALPHA}")
    for n in sizes:
        ours, ours_power = time_ours(n)
        print(f"n = {n}: ours (vectorised) {ours * 1e3:.1f} ms, power {ours_power:.3f}")
        for test in ("binomtest", "statsmodels"):
            base, base_power = time_naive(n, test, args.quick)
            print(
                f"n = {n}: baseline loop over {test} {base:.2f} s{scaled}, power {base_power:.3f}"
            )
            print(f"n = {n}: ratio {test} loop / ours = {base / ours:.0f}")


if __name__ == "__main__":
    main()
