"""Power of McNemar's test by parametric simulation, with Type-M and Type-S errors.

Zhu et al. 2022, §3.5, after Card et al. 2020; Type-M and Type-S errors after Gelman & Carlin
2014.

:func:`power` simulates test sets of one size from an observed 2x2 table of proportions;
:func:`power_curve` repeats it over test sizes. Tables follow Table 1 of the paper (see
:mod:`probekit.stats.mcnemar`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.stats.checks import open_unit, positive_int
from probekit.stats.mcnemar import Test, p_values

#: Power the paper (§3.5) asks of a reliable comparison.
POWER_THRESHOLD = 0.8
#: Total simulations per comparison in the released code; split evenly over seeds.
_PAPER_SIMULATIONS = 5000


@dataclass(frozen=True)
class PowerResult:
    """Result of :func:`power`, averaged over seeds.

    ``power``: share of simulated tests significant at ``alpha`` with the sign of the true
    effect. ``rejection_rate``: share significant regardless of sign (the size of the test
    when the effect is zero). ``type_m``: mean |simulated effect| among significant results
    over |true effect| (exaggeration ratio). ``type_s``: share of significant results with
    the wrong sign. Both are None where undefined (zero effect, or nothing significant).
    ``mean_effect``: mean simulated ``acc_a - acc_b``.
    """

    n: int
    alpha: float
    n_sim: int
    seeds: tuple[int, ...]
    effect: float
    power: float
    rejection_rate: float
    type_m: float | None
    type_s: float | None
    mean_effect: float
    power_per_seed: tuple[float, ...] = field(default=())

    def as_dict(self) -> dict[str, object]:
        """Plain-Python (JSON-serialisable) view; tuples become lists."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["seeds"] = list(self.seeds)
        out["power_per_seed"] = list(self.power_per_seed)
        return out


class _SeedPower(NamedTuple):
    """One seed's share of :class:`PowerResult` (see :func:`_simulate_seed`)."""

    power: float
    rejection_rate: float
    type_m: float | None
    type_s: float | None
    mean_effect: float


def _joint_props(joint_props: object) -> np.ndarray:
    """Validate joint proportions; return shape (k, 2, 2) normalised to sum 1 per table."""
    p = np.asarray(joint_props, dtype=float)
    if p.ndim == 2:
        p = p[None]
    if p.ndim != 3 or p.shape[1:] != (2, 2) or p.shape[0] == 0:
        raise ParameterError(
            "joint_props", f"must have shape (2, 2) or (k, 2, 2), got {np.shape(joint_props)}"
        )
    sums = p.sum(axis=(1, 2))
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.allclose(sums, 1.0, atol=1e-6):
        raise ParameterError(
            "joint_props",
            "must be non-negative proportions summing to 1 per table",
            "divide a count table by its total, e.g. mcnemar_table(a, b) / n",
        )
    # Renormalise so that numpy's multinomial never sees a sum slightly above 1.
    return p / sums[:, None, None]


def _simulate_seed(
    props: np.ndarray, n: int, n_sim: int, alpha: float, rng: np.random.Generator, test: Test
) -> _SeedPower:
    """Simulate ``n_sim`` test sets of size ``n`` from one (2, 2) table ``props``, all at once.

    Zhu et al. 2022, §3.5: one multinomial draw of shape (n_sim, 4).
    """
    counts = rng.multinomial(n, props.ravel(), size=n_sim)  # (n_sim, 4): n00, n01, n10, n11
    n01, n10 = counts[:, 1], counts[:, 2]
    sim_effect = (n10 - n01) / n
    significant = p_values(n01, n10, test) <= alpha
    rejection_rate = float(significant.mean())
    mean_effect = float(sim_effect.mean())
    effect = props[1, 0] - props[0, 1]
    if effect == 0:
        # Released code: power is undefined for a zero true effect and set to 0.
        return _SeedPower(0.0, rejection_rate, None, None, mean_effect)
    same_sign = np.sign(sim_effect) == np.sign(effect)
    power = float(np.mean(significant & same_sign))
    if not significant.any():
        return _SeedPower(power, rejection_rate, None, None, mean_effect)
    type_m = float(np.mean(np.abs(sim_effect[significant])) / abs(effect))
    type_s = float(np.mean(~same_sign[significant]))
    return _SeedPower(power, rejection_rate, type_m, type_s, mean_effect)


def _mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None (Type-M or Type-S over seeds), None if none is."""
    defined = [v for v in values if v is not None]
    return float(np.mean(defined)) if defined else None


def power(
    joint_props: object,
    n: int,
    *,
    alpha: float = 0.05,
    n_sim: int | None = None,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    test: Test = "exact",
) -> PowerResult:
    """Power of McNemar's test by simulation (Zhu et al. 2022, §3.5, after Card et al. 2020).

    ``joint_props``: the observed 2x2 table of proportions (Table 1 layout), shape (2, 2),
    or one table per probe-training seed, shape (k, 2, 2) with ``k == len(seeds)``. For each
    seed, a ``numpy.random.Generator`` seeded with it draws ``n_sim`` multinomial count
    tables of ``n`` test items at once (a parametric bootstrap of a test set of size ``n``;
    nothing is subsampled), tests each and records the simulated effect
    ``(n10 - n01) / n``. The per-seed power, share significant (``p <= alpha``) with the sign
    of the true effect ``p10 - p01``, is averaged over seeds; with equal ``n_sim`` per seed
    this equals the paper's pooled count of significant simulations.

    As in the released code: ``n_sim`` defaults to ``5000 // len(seeds)`` (1000 for 5 seeds);
    the test is the exact McNemar test (``test="chi2"`` gives the corrected chi-squared test
    the paper's text describes); a seed whose table has zero effect (``p01 == p10``) gets
    power 0 while its ``rejection_rate`` is still simulated. ``type_m`` and ``type_s`` are
    averaged over the seeds where they are defined.
    """
    n = positive_int("n", n)
    alpha = open_unit("alpha", alpha)
    seeds = tuple(int(s) for s in seeds)
    if not seeds:
        raise ParameterError("seeds", "needs at least one seed")
    props = _joint_props(joint_props)
    if props.shape[0] == 1:
        props = np.repeat(props, len(seeds), axis=0)
    elif props.shape[0] != len(seeds):
        raise ParameterError(
            "seeds",
            f"has {len(seeds)} seeds for {props.shape[0]} tables",
            "pass one seed per table, or a single (2, 2) table",
        )
    n_sim = _PAPER_SIMULATIONS // len(seeds) if n_sim is None else n_sim
    n_sim = positive_int("n_sim", n_sim)
    per_seed = [
        _simulate_seed(p, n, n_sim, alpha, np.random.default_rng(s), test)
        for p, s in zip(props, seeds, strict=True)
    ]
    return PowerResult(
        n=n,
        alpha=alpha,
        n_sim=n_sim,
        seeds=seeds,
        effect=float(np.mean(props[:, 1, 0] - props[:, 0, 1])),
        power=float(np.mean([r.power for r in per_seed])),
        rejection_rate=float(np.mean([r.rejection_rate for r in per_seed])),
        type_m=_mean_defined(r.type_m for r in per_seed),
        type_s=_mean_defined(r.type_s for r in per_seed),
        mean_effect=float(np.mean([r.mean_effect for r in per_seed])),
        power_per_seed=tuple(r.power for r in per_seed),
    )


def power_curve(
    joint_props: object,
    test_sizes: Iterable[int],
    *,
    alpha: float = 0.05,
    n_sim: int | None = None,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    test: Test = "exact",
) -> pd.DataFrame:
    """Power of one comparison at several test-set sizes (Zhu et al. 2022, §3.5, Figs. 3-6).

    Calls :func:`power` for each size in ``test_sizes`` with the same ``joint_props`` (shape
    (2, 2) or (k, 2, 2)) and seeds. This is a prospective curve: how the power of the
    observed effect grows with the test set. The paper's curves instead join separate
    experiments, each with its own observed table at its own size.

    Returns a DataFrame with one row per size and the columns ``n, power, rejection_rate,
    type_m, type_s, mean_effect, effect`` (undefined Type-M/S are NaN here).
    """
    rows = []
    for size in test_sizes:
        res = power(joint_props, size, alpha=alpha, n_sim=n_sim, seeds=seeds, test=test)
        rows.append(
            {
                "n": res.n,
                "power": res.power,
                "rejection_rate": res.rejection_rate,
                "type_m": np.nan if res.type_m is None else res.type_m,
                "type_s": np.nan if res.type_s is None else res.type_s,
                "mean_effect": res.mean_effect,
                "effect": res.effect,
            }
        )
    if not rows:
        raise ParameterError("test_sizes", "needs at least one test size")
    return pd.DataFrame(rows)
