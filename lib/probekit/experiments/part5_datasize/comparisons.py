"""Comparison problems on the runs: recommendations, McNemar and power (Zhu et al. 2022).

Following §3.2, §3.5 and §4.4-4.6. The statistics live in :mod:`probekit.stats`; this module
applies them to pairs of configurations of
:class:`~probekit.experiments.part5_datasize.runs.Runs`, paired on the same test items.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from probekit.experiments.part5_datasize.requirements import config_params
from probekit.experiments.part5_datasize.runs import Runs
from probekit.methods.datasize.recommendation import recommend
from probekit.stats.comparison import Comparison, compare
from probekit.stats.mcnemar import mcnemar_exact, mcnemar_table
from probekit.stats.power import POWER_THRESHOLD, power, power_curve

#: The smallest test size of the prospective power analysis; the others double it.
SMALLEST_TEST = 64


def seed_tables(runs: Runs, a: str, b: str, size: int) -> np.ndarray:
    """McNemar count tables of configs ``a`` and ``b`` at one size, one per seed.

    An (S, 2, 2) int64 array in the layout of Zhu et al. 2022, Table 1 (rows a, columns b).
    """
    return np.stack(
        [mcnemar_table(runs.correct[(a, size, s)], runs.correct[(b, size, s)]) for s in runs.seeds]
    )


def simulation_seeds(seeds: Sequence[int], size: int, a: str, b: str) -> list[int]:
    """One random stream per (training seed, subset size, comparison) for the power simulation.

    Powers at different sizes, and of different comparisons, then come from independent
    simulations: no two cells of a table share their Monte Carlo error.
    """
    names = zlib.crc32(f"{a}\x00{b}".encode())
    return [
        int(np.random.SeedSequence([int(s), int(size), names]).generate_state(1)[0]) for s in seeds
    ]


def comparison_table(
    runs: Runs,
    a: str,
    b: str,
    *,
    delta: float = 1e-8,
    eta: float = 4.0,
    alpha: float = 0.05,
    n_sim: int = 1000,
    divisor: float = 2.0,
) -> pd.DataFrame:
    """One comparison problem across subset sizes (Zhu et al. 2022, §3.2, §3.5, §4.4-4.6).

    As the paper's Tables 2-4 and Figs. 4-6 report it.

    Per size: ``n_train`` and ``n_test`` (examples), mean test accuracies ``acc_a`` and
    ``acc_b``, ``gap`` = mean over seeds of ``acc_a - acc_b`` and ``abs_gap``; ``n_train_rec``,
    the training size :func:`probekit.methods.datasize.recommendation.recommend` derives from
    this pilot (``epsilon = |gap| / divisor``, the larger parameter count of the two configs;
    NaN when the gap is 0);
    ``power`` of McNemar's test at ``n_test``, averaged over the seeds' tables (§3.5,
    :func:`probekit.stats.power.power`, from :func:`simulation_seeds`), and each seed's own in
    ``power_per_seed``; ``significant``, the share of seeds whose exact McNemar test gives
    p <= alpha, and each seed's outcome (1 or 0) in ``significant_per_seed``. The per-seed
    columns hold tuples in the order of ``runs.seeds``: each seed is a replication of the whole
    study, with its own subsets (§4.1).
    """
    params = [config_params(runs, a), config_params(runs, b)]
    rows = []
    for size in runs.sizes:
        tables = seed_tables(runs, a, b, size)
        n_test = int(tables[0].sum())
        accs_a = tables[:, 1, :].sum(axis=1) / n_test
        accs_b = tables[:, :, 1].sum(axis=1) / n_test
        gap = float(np.mean(accs_a - accs_b))
        acc_a, acc_b = float(accs_a.mean()), float(accs_b.mean())
        rec = (
            recommend(acc_a, acc_b, params, delta=delta, eta=eta, divisor=divisor).n_train
            if acc_a != acc_b
            else np.nan
        )
        sim = power(tables / n_test, n_test, alpha=alpha, n_sim=n_sim,
                    seeds=simulation_seeds(runs.seeds, size, a, b))  # fmt: skip
        p_values = [mcnemar_exact(t).p_value for t in tables]
        n_train = runs.n_train(size)
        rows.append(
            {
                "size": size,
                "n_train": n_train,
                "n_test": n_test,
                "acc_a": acc_a,
                "acc_b": acc_b,
                "gap": gap,
                "abs_gap": abs(gap),
                "n_train_rec": rec,
                "power": sim.power,
                "power_per_seed": sim.power_per_seed,
                "significant": float(np.mean(np.array(p_values) <= alpha)),
                "significant_per_seed": tuple(float(p <= alpha) for p in p_values),
            }
        )
    return pd.DataFrame(rows)


def prospective_power(
    runs: Runs,
    a: str,
    b: str,
    size: int,
    test_sizes: Sequence[int],
    *,
    alpha: float = 0.05,
    n_sim: int = 1000,
) -> pd.DataFrame:
    """Power of the comparison at other test sizes (Zhu et al. 2022, §3.5).

    From the joint proportions observed at ``size`` (:func:`probekit.stats.power.power_curve`).
    Answers "how many test items would this gap need", which our treebank cannot test directly.
    Columns as :func:`probekit.stats.power.power_curve`.
    """
    tables = seed_tables(runs, a, b, size)
    props = tables / tables[0].sum()
    return power_curve(props, test_sizes, alpha=alpha, n_sim=n_sim, seeds=runs.seeds)


def needed_test_size(curve: pd.DataFrame, target: float = POWER_THRESHOLD) -> int:
    """The smallest test size ``n`` in a power curve with ``power >= target``; 0 if none."""
    hit = curve.loc[curve["power"] >= target, "n"]
    return int(hit.iloc[0]) if len(hit) else 0


def power_test_sizes(max_test: int) -> list[int]:
    """Test sizes of the prospective power analysis: 64, 128, ... up to ``max_test``."""
    return [SMALLEST_TEST * 2**k for k in range(20) if SMALLEST_TEST * 2**k <= max_test]


def largest_subset_comparison(
    runs: Runs, a: str, b: str, *, alpha: float, n_sim: int, max_test: int
) -> tuple[Comparison, int]:
    """Configs ``a`` and ``b`` on the first seed's largest subset (Zhu et al. 2022, §3.5).

    McNemar's test with its power (:func:`probekit.stats.comparison.compare`), and the test size a
    power of 0.8 needs at the joint proportions observed there (:func:`prospective_power` up to
    ``max_test``; 0 if not within it).
    """
    top, first = max(runs.sizes), runs.seeds[0]
    cmp = compare(runs.correct[(a, top, first)], runs.correct[(b, top, first)], a, b,
                  alpha=alpha, n_sim=n_sim)  # fmt: skip
    curve = prospective_power(runs, a, b, top, power_test_sizes(max_test), alpha=alpha, n_sim=n_sim)
    return cmp, needed_test_size(curve)
