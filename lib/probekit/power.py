"""Data requirements and statistical power of probing comparisons (Zhu et al. 2022).

Zhu, Wang, Rudzicz (2022), "On the data requirements of probing" gives a recipe for
*comparison problems*: two probing configurations A and B evaluated on the same items.

- Generalisation bounds (§3.3, eq. 1-3, Theorems 1 and 3) and their inverse, the
  training-set size needed for a given excess risk (§3.4).
- The recommendation procedure (§3.2): plug in ``epsilon = |R1 - R2| / 2`` and solve for
  ``n_train``; the total for a ``eta : 1 : 1`` split is ``(1 + 2 / eta) * n_train``.
- McNemar's test on paired predictions (§3.5, Table 1), exact and chi-squared.
- Power by parametric simulation (§3.5, after Card et al. 2020), with Type-M and Type-S errors.
- Collapse checks (§3.6): repeated subsampling and the rotation of 6 folds.
- :func:`compare`, the one call every chapter of the book uses to compare two configurations.

Conventions used throughout this module:

- A 2x2 table follows the paper's Table 1: rows are A (incorrect, correct), columns are B
  (incorrect, correct), so ``table[0, 1] = n01`` counts items only B gets right and
  ``table[1, 0] = n10`` items only A gets right.
- An *effect* or ``diff`` is ``acc_a - acc_b = (n10 - n01) / n``. The released code uses the
  opposite sign (``acc_b - acc_a``); power, Type-M and Type-S do not depend on the sign.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from probekit.errors import ParameterError

__all__ = [
    "CollapseReport",
    "Comparison",
    "McNemarResult",
    "PowerResult",
    "Recommendation",
    "Split",
    "collapse_check",
    "compare",
    "control_task_bound",
    "finite_class_bound",
    "fold_rotation",
    "log_class_size",
    "mcnemar_chi2",
    "mcnemar_exact",
    "mcnemar_table",
    "n_for_bound",
    "n_params_mlp",
    "power",
    "power_curve",
    "prequential_mdl_bound",
    "recommend",
    "repeated_subsampling",
    "rotation_splits",
    "subsample_splits",
]

Count = Literal["paper", "per_parameter"]
Test = Literal["exact", "chi2"]

#: Power the paper (§3.5) asks of a reliable comparison.
POWER_THRESHOLD = 0.8
#: Total simulations per comparison in the released code; split evenly over seeds.
_PAPER_SIMULATIONS = 5000


# --------------------------------------------------------------------------------------------
# Input checks


def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ParameterError(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _positive_float(name: str, value: object) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(name, f"must be a positive number, got {value!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise ParameterError(name, f"must be a positive finite number, got {value!r}")
    return x


def _open_unit(name: str, value: object) -> float:
    x = _positive_float(name, value)
    if x >= 1:
        raise ParameterError(name, f"must lie in (0, 1), got {value!r}")
    return x


def _sample_sizes(name: str, n: object) -> np.ndarray:
    arr = np.asarray(n, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ParameterError(name, f"must be positive and finite, got {n!r}")
    return arr


def _scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    return float(arr) if arr.ndim == 0 else arr


# --------------------------------------------------------------------------------------------
# Generalisation bounds (§3.3-3.4)


def log_class_size(n_params: int, bits: int = 32, count: Count = "paper") -> float:
    """Natural log of the size ``|F|`` of a finite class of probes (Zhu et al. 2022, §3.4).

    ``count="paper"`` counts as the paper's worked example and the released
    ``learning_theory.py`` do: ``|F| = 2**bits * n_params``, so
    ``ln|F| = bits * ln 2 + ln(n_params)``. Only this count reproduces the paper's numbers
    (0.039 at n = 65,536 and 40k samples for a bound of 0.05, D = 4,096).

    ``count="per_parameter"`` is what "each weight takes ``2**bits`` values" really gives,
    ``|F| = (2**bits) ** n_params`` and ``ln|F| = n_params * bits * ln 2``. It makes the bound
    vacuous (> 1) for any probe of realistic size; the book shows both.
    """
    n_params = _positive_int("n_params", n_params)
    bits = _positive_int("bits", bits)
    if count == "paper":
        return bits * math.log(2.0) + math.log(n_params)
    if count == "per_parameter":
        return n_params * bits * math.log(2.0)
    raise ParameterError("count", f"must be 'paper' or 'per_parameter', got {count!r}")


def finite_class_bound(
    n: float | np.ndarray,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Excess-risk bound of a finite probe class (Zhu et al. 2022, §3.4; eq. 1).

    ``B * sqrt(2 * ln(2|F| / delta) / n)``: with probability at least ``1 - delta`` the
    accuracy (or loss, with ``B`` its upper bound) of the empirically best probe trained on
    ``n`` examples is within this distance of the best probe in the class. ``B = 1`` for
    accuracy-like metrics. By Theorem 2 the same bound holds for variational MDL.
    ``|F|`` is counted as in :func:`log_class_size`.

    ``n`` may be a scalar or an array of any shape; the result has the same shape.
    """
    n_arr = _sample_sizes("n", n)
    delta = _open_unit("delta", delta)
    B = _positive_float("B", B)
    log_term = math.log(2.0) + log_class_size(n_params, bits, count) - math.log(delta)
    return _scalar_or_array(B * np.sqrt(2.0 * log_term / n_arr))


def n_for_bound(
    epsilon: float,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> int:
    """Training-set size needed for a bound of ``epsilon`` (Zhu et al. 2022, §3.4).

    The inverse of :func:`finite_class_bound`: the smallest integer ``n`` with
    ``finite_class_bound(n) <= epsilon``, i.e. ``ceil(2 * B**2 * ln(2|F| / delta) / epsilon**2)``.
    The released code truncates (``int(n)``), which is one less whenever the real-valued
    solution is not an integer. For a control task (Theorem 1) use ``epsilon / 2``.
    """
    epsilon = _positive_float("epsilon", epsilon)
    B = _positive_float("B", B)
    delta = _open_unit("delta", delta)
    log_term = math.log(2.0) + log_class_size(n_params, bits, count) - math.log(delta)
    n = max(1, math.ceil(2.0 * B**2 * log_term / epsilon**2))
    # The ceiling of a rounded float can overshoot by one; the bound itself decides.
    if n > 1 and finite_class_bound(n - 1, n_params, delta, B, bits, count) <= epsilon:
        n -= 1
    return n


def control_task_bound(
    n: float | np.ndarray,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Bound on a control-task difference, ``2 B(n, delta)`` (Zhu et al. 2022, Theorem 1, eq. 2).

    The task score minus the control score deviates by at most twice the bound of
    :func:`finite_class_bound`. The proof (App. B) gives probability ``(1 - delta)**2``,
    not the ``1 - delta`` the theorem states; by the union bound that is at least
    ``1 - 2 delta``. ``n`` may be a scalar or an array.
    """
    return 2.0 * finite_class_bound(n, n_params, delta, B, bits, count)


def prequential_mdl_bound(
    n: float | np.ndarray,
    t1: float,
    n_params: int,
    delta: float = 1e-8,
    C: float = 1.0,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Bound on prequential MDL, ``(C n / t1) B(n, delta)`` (Zhu et al. 2022, Theorem 3, eq. 3).

    ``n`` is the size of the whole transmitted dataset and ``t1`` that of its first block
    (sent with the uniform code). The paper leaves the constant ``C`` unspecified, so only
    the shape of this bound (how it scales with ``n`` and ``t1``) is meaningful; ``C = 1`` by
    default. ``n`` may be a scalar or an array.
    """
    n_arr = _sample_sizes("n", n)
    t1 = _positive_float("t1", t1)
    if np.any(t1 > n_arr):
        raise ParameterError("t1", f"the first block ({t1}) cannot exceed n ({n!r})")
    C = _positive_float("C", C)
    scale = C * n_arr / t1
    return _scalar_or_array(scale * finite_class_bound(n_arr, n_params, delta, B, bits, count))


def n_params_mlp(d_in: int, hidden: Sequence[int] = (), n_classes: int = 2) -> int:
    """Number of weights and biases of an MLP probe (Zhu et al. 2022, §3.4 and footnote 6).

    ``hidden=()`` is logistic regression. A binary task has a single output unit, as the
    paper counts it: ``D + 1`` for logistic regression and ``(D + 1) H + H + 1`` for one
    hidden layer of ``H`` units: 769 and 15,401 at D = 768, H = 20 (footnote 6 prints 799
    for the former, a typo). With ``n_classes > 2`` there are ``n_classes`` outputs.
    The released code uses ``D + 1`` for every comparison, including MLPs and the 6-class
    sentence_length task (Tables 4 and 7); pass ``n_params`` explicitly to reproduce that.
    """
    d_in = _positive_int("d_in", d_in)
    n_classes = _positive_int("n_classes", n_classes, minimum=2)
    widths = [d_in, *(_positive_int("hidden", h) for h in hidden)]
    widths.append(1 if n_classes == 2 else n_classes)
    return sum((w_in + 1) * w_out for w_in, w_out in zip(widths[:-1], widths[1:], strict=True))


# --------------------------------------------------------------------------------------------
# Recommendation procedure (§3.2)


@dataclass(frozen=True)
class Recommendation:
    """Result of :func:`recommend`. Sizes are numbers of examples."""

    r1: float
    r2: float
    epsilon: float
    n_params: int
    eta: float
    delta: float
    n_train: int
    n_val: int
    n_test: int
    n_total: int

    def as_dict(self) -> dict[str, float | int]:
        """Plain-Python (JSON-serialisable) view."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def recommend(
    r1: float,
    r2: float,
    n_params: int | Sequence[int],
    *,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    eta: float = 4.0,
    divisor: float = 2.0,
    count: Count = "paper",
) -> Recommendation:
    """Recommend a probing-dataset size from a pilot study (Zhu et al. 2022, §3.2 and §3.4).

    Steps 3-4 of §3.2: with pilot scores ``r1`` and ``r2``, set ``epsilon = |r1 - r2| /
    divisor`` (``divisor = 2`` is the paper's "balanced choice"; 10 is its tighter example),
    get ``n_train = n_for_bound(epsilon, n_params)``, and size validation and test sets for a
    ``eta : 1 : 1`` split: ``n_val = n_test = ceil(n_train / eta)``, so that
    ``n_total >= (1 + 2 / eta) n_train``. ``eta = 4`` is the paper's ratio (§4.1, fn. 4).

    ``n_params`` may hold one count per configuration; the larger requirement is taken
    (§4.6). Equal scores raise :class:`ParameterError`: the comparison may have collapsed
    (§3.6) and no size is meaningful.
    """
    r1, r2 = float(r1), float(r2)
    if not (math.isfinite(r1) and math.isfinite(r2)):
        raise ParameterError("r1/r2", f"must be finite, got {r1!r} and {r2!r}")
    if r1 == r2:
        raise ParameterError(
            "r1/r2",
            f"the two scores are equal ({r1!r}); no data size separates them",
            "the comparison may have collapsed; check with repeated_subsampling or "
            "fold_rotation (Zhu et al. 2022, §3.6)",
        )
    counts = [n_params] if isinstance(n_params, int | np.integer) else list(n_params)
    if not counts:
        raise ParameterError("n_params", "needs at least one parameter count")
    n_params_max = max(_positive_int("n_params", c) for c in counts)
    eta = _positive_float("eta", eta)
    epsilon = abs(r1 - r2) / _positive_float("divisor", divisor)
    n_train = n_for_bound(epsilon, n_params_max, delta, B, bits, count)
    n_eval = math.ceil(n_train / eta)
    return Recommendation(
        r1=r1,
        r2=r2,
        epsilon=epsilon,
        n_params=n_params_max,
        eta=eta,
        delta=float(delta),
        n_train=n_train,
        n_val=n_eval,
        n_test=n_eval,
        n_total=n_train + 2 * n_eval,
    )


# --------------------------------------------------------------------------------------------
# McNemar's test (§3.5)


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


def _p_values(n01: np.ndarray, n10: np.ndarray, test: Test) -> np.ndarray:
    if test == "exact":
        return _exact_p(n01, n10)
    if test == "chi2":
        return stats.chi2.sf(_chi2_stat(n01, n10, correction=True), 1)
    raise ParameterError("test", f"must be 'exact' or 'chi2', got {test!r}")


# --------------------------------------------------------------------------------------------
# Power by simulation (§3.5)


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
    """Simulate ``n_sim`` test sets of size ``n`` from one (2, 2) table, all at once."""
    counts = rng.multinomial(n, props.ravel(), size=n_sim)  # (n_sim, 4): n00, n01, n10, n11
    n01, n10 = counts[:, 1], counts[:, 2]
    sim_effect = (n10 - n01) / n
    significant = _p_values(n01, n10, test) <= alpha
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
    n = _positive_int("n", n)
    alpha = _open_unit("alpha", alpha)
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
    n_sim = _positive_int("n_sim", n_sim)
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


# --------------------------------------------------------------------------------------------
# Collapsed comparison problems (§3.6)


class Split(NamedTuple):
    """Index arrays (int64, sorted) of one train/test(/validation) split of ``n_items``."""

    train: np.ndarray
    test: np.ndarray
    val: np.ndarray


FitPredict = Callable[..., tuple[np.ndarray, np.ndarray]]


def subsample_splits(
    n_items: int, n_train: int, n_test: int, *, n_repeats: int, seed: int, n_val: int = 0
) -> list[Split]:
    """Random disjoint subsamples of ``n_items`` items (Zhu et al. 2022, §3.6, "repeated pilots").

    Each of ``n_repeats`` splits draws ``n_train + n_val + n_test`` distinct items without
    replacement from one ``numpy.random.Generator(seed)`` stream. Not stratified: pass
    your own splits to :func:`collapse_check` for that.
    """
    n_items = _positive_int("n_items", n_items)
    n_train = _positive_int("n_train", n_train)
    n_test = _positive_int("n_test", n_test)
    n_val = _positive_int("n_val", n_val, minimum=0)
    n_repeats = _positive_int("n_repeats", n_repeats)
    if n_train + n_val + n_test > n_items:
        raise ParameterError(
            "n_train", f"n_train + n_val + n_test = {n_train + n_val + n_test} > {n_items} items"
        )
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(n_repeats):
        perm = rng.permutation(n_items)
        cut = np.cumsum([n_train, n_test, n_val])
        train, test, val = perm[: cut[0]], perm[cut[0] : cut[1]], perm[cut[1] : cut[2]]
        splits.append(Split(np.sort(train), np.sort(test), np.sort(val)))
    return splits


def rotation_splits(n_items: int, n_folds: int = 6, *, seed: int) -> list[Split]:
    """Rotating cross-validation folds (Zhu et al. 2022, §3.6).

    Items are shuffled with ``numpy.random.Generator(seed)`` and cut into ``n_folds``
    near-equal folds. Run i (0-based) validates on fold i, tests on fold ``(i + 1) mod
    n_folds`` and trains on the rest, so each item is tested exactly once.
    """
    n_folds = _positive_int("n_folds", n_folds, minimum=3)
    n_items = _positive_int("n_items", n_items, minimum=n_folds)
    folds = np.array_split(np.random.default_rng(seed).permutation(n_items), n_folds)
    splits = []
    for i in range(n_folds):
        j = (i + 1) % n_folds
        train = np.concatenate([f for k, f in enumerate(folds) if k not in (i, j)])
        splits.append(Split(np.sort(train), np.sort(folds[j]), np.sort(folds[i])))
    return splits


@dataclass(frozen=True, eq=False)
class CollapseReport:
    """Outcome of a comparison over many splits (:func:`collapse_check`).

    ``diffs`` (k,): ``acc_a - acc_b`` per split; ``p_values`` (k,): exact McNemar per split;
    ``n_test`` (k,): test items per split.
    """

    diffs: np.ndarray
    p_values: np.ndarray
    n_test: np.ndarray
    alpha: float

    @property
    def sign_flip_rate(self) -> float:
        """Share of splits not agreeing with the majority sign (zero differences count as
        disagreeing): 0 for a stable comparison, about 0.5 for a collapsed one."""
        pos, neg = np.mean(self.diffs > 0), np.mean(self.diffs < 0)
        return float(1.0 - max(pos, neg))

    @property
    def significant_rate(self) -> float:
        """Share of splits where McNemar's test is significant at ``alpha``. For a collapsed
        comparison it stays near ``alpha`` however large the splits are."""
        return float(np.mean(self.p_values <= self.alpha))

    @property
    def mean_diff(self) -> float:
        """Mean of ``acc_a - acc_b`` over splits."""
        return float(np.mean(self.diffs))

    def as_dict(self) -> dict[str, object]:
        """Plain-Python (JSON-serialisable) view."""
        return {
            "diffs": [float(x) for x in self.diffs],
            "p_values": [float(x) for x in self.p_values],
            "n_test": [int(x) for x in self.n_test],
            "alpha": self.alpha,
            "sign_flip_rate": self.sign_flip_rate,
            "significant_rate": self.significant_rate,
            "mean_diff": self.mean_diff,
        }


def collapse_check(
    fit_predict: FitPredict, splits: Iterable[Split], *, alpha: float = 0.05
) -> CollapseReport:
    """Run a comparison on many splits and test each (Zhu et al. 2022, §3.6).

    For every split, ``fit_predict(train_idx, test_idx)`` (with a third keyword argument
    ``val_idx=`` when the split has a validation part) trains both configurations and returns
    their boolean correctness vectors ``(correct_a, correct_b)``, each of shape
    ``(len(test_idx),)``. Each split gets ``acc_a - acc_b`` and an exact McNemar p-value.
    """
    alpha = _open_unit("alpha", alpha)
    diffs, p_values, n_test = [], [], []
    for split in splits:
        if len(split.val):
            out = fit_predict(split.train, split.test, val_idx=split.val)
        else:
            out = fit_predict(split.train, split.test)
        correct_a, correct_b = out
        table = mcnemar_table(correct_a, correct_b)
        if table.sum() != len(split.test):
            raise ParameterError(
                "fit_predict",
                f"returned {table.sum()} results for {len(split.test)} test items",
            )
        diffs.append((table[1, 0] - table[0, 1]) / max(1, table.sum()))
        p_values.append(mcnemar_exact(table).p_value)
        n_test.append(int(table.sum()))
    if not diffs:
        raise ParameterError("splits", "needs at least one split")
    return CollapseReport(np.array(diffs), np.array(p_values), np.array(n_test), alpha)


def repeated_subsampling(
    fit_predict: FitPredict,
    n_items: int,
    n_train: int,
    n_test: int,
    *,
    n_repeats: int = 10,
    seed: int,
    alpha: float = 0.05,
    n_val: int = 0,
) -> CollapseReport:
    """Repeated pilot studies on random subsamples (Zhu et al. 2022, §3.6).

    :func:`subsample_splits` followed by :func:`collapse_check`. If the configurations give
    almost indistinguishable results (frequent sign flips, significance near ``alpha``),
    the comparison has likely collapsed.
    """
    splits = subsample_splits(n_items, n_train, n_test, n_repeats=n_repeats, seed=seed, n_val=n_val)
    return collapse_check(fit_predict, splits, alpha=alpha)


def fold_rotation(
    fit_predict: FitPredict,
    n_items: int,
    *,
    n_folds: int = 6,
    seed: int,
    alpha: float = 0.05,
) -> CollapseReport:
    """The rotating 6-fold augmentation (Zhu et al. 2022, §3.6).

    :func:`rotation_splits` followed by :func:`collapse_check`; ``fit_predict`` is called as
    ``fit_predict(train_idx, test_idx, val_idx=val_idx)``.
    """
    return collapse_check(fit_predict, rotation_splits(n_items, n_folds, seed=seed), alpha=alpha)


# --------------------------------------------------------------------------------------------
# One comparison, as every chapter reports it


@dataclass(frozen=True, eq=False)
class Comparison:
    """Comparison of configurations A and B on the same test items (:func:`compare`).

    ``diff = acc_a - acc_b``; ``table`` (2, 2) int64 in the layout of Table 1 (Zhu et al.
    2022); ``p_value``: exact McNemar; ``power``, ``type_m``, ``type_s``: simulated at the
    observed effect and the current test size ``n`` (None where undefined).
    """

    name_a: str
    name_b: str
    n: int
    acc_a: float
    acc_b: float
    diff: float
    table: np.ndarray
    p_value: float
    power: float
    type_m: float | None
    type_s: float | None
    alpha: float
    significant: bool
    well_powered: bool
    verdict: str

    def as_dict(self) -> dict[str, object]:
        """Plain Python str/int/float/bool/None values and lists only (JSON-serialisable)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["table"] = [[int(x) for x in row] for row in self.table]
        return out

    def summary(self) -> str:
        """One sentence, e.g. "A beats B by 2.3 points (McNemar p = 0.004, power 0.91 at n =
        1,000)."."""
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        stats_text = f"McNemar {p}, power {self.power:.2f} at n = {self.n:,}"
        a, b = self.name_a, self.name_b
        if self.table[0, 1] + self.table[1, 0] == 0:
            return f"{a} and {b} are right on exactly the same {self.n:,} items (McNemar p = 1)."
        if self.significant:
            win, lose = (a, b) if self.diff > 0 else (b, a)
            caveat = "" if self.well_powered else "; under-powered, so the gap is likely inflated"
            return (
                f"{win} beats {lose} by {abs(self.diff) * 100:.1f} points ({stats_text}){caveat}."
            )
        return (
            f"{a} and {b} do not differ significantly "
            f"({a} - {b} = {self.diff * 100:+.1f} points, {stats_text})."
        )


def _verdict(name_a: str, name_b: str, diff: float, n_disc: int, sig: bool, powered: bool) -> str:
    if n_disc == 0:
        return "identical: both right on the same items"
    if diff == 0:
        return "no difference observed"
    winner = name_a if diff > 0 else name_b
    if sig:
        return f"{winner} better" if powered else f"{winner} better, but under-powered"
    return "no significant difference" if powered else "inconclusive: under-powered"


def compare(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    name_a: str = "A",
    name_b: str = "B",
    *,
    alpha: float = 0.05,
    n_sim: int = 1000,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
) -> Comparison:
    """Compare two probing configurations on the same test items (Zhu et al. 2022, §3.5).

    ``correct_a``, ``correct_b``: boolean arrays of shape (n,), True where each configuration
    is right on test item i. Runs the exact McNemar test and simulates its power at the
    current ``n`` from the observed joint proportions (``n_sim`` tables for each of
    ``seeds``), with Type-M and Type-S errors. ``well_powered`` means power >= 0.8 (§3.5).

    The power is computed at the *observed* effect, as the paper does; such post-hoc power
    is a function of the p-value, so read it as "how reliably would a test set of this size
    detect a gap this large", not as evidence for the null.

    ``verdict`` is one of: "identical: both right on the same items", "no difference
    observed", "<name> better", "<name> better, but under-powered", "no significant
    difference", "inconclusive: under-powered".
    """
    for label, name in (("name_a", name_a), ("name_b", name_b)):
        if not isinstance(name, str) or not name:
            raise ParameterError(label, f"must be a non-empty string, got {name!r}")
    table = mcnemar_table(correct_a, correct_b)
    n = int(table.sum())
    if n == 0:
        raise ParameterError("correct_a", "is empty; there is nothing to compare")
    acc_a, acc_b = table[1].sum() / n, table[:, 1].sum() / n
    diff = (table[1, 0] - table[0, 1]) / n
    p_value = mcnemar_exact(table).p_value
    sim = power(table / n, n, alpha=alpha, n_sim=n_sim, seeds=seeds)
    significant = p_value <= alpha
    well_powered = sim.power >= POWER_THRESHOLD
    n_disc = int(table[0, 1] + table[1, 0])
    return Comparison(
        name_a=name_a,
        name_b=name_b,
        n=n,
        acc_a=float(acc_a),
        acc_b=float(acc_b),
        diff=float(diff),
        table=table,
        p_value=p_value,
        power=sim.power,
        type_m=sim.type_m,
        type_s=sim.type_s,
        alpha=sim.alpha,
        significant=bool(significant),
        well_powered=bool(well_powered),
        verdict=_verdict(name_a, name_b, float(diff), n_disc, significant, well_powered),
    )
