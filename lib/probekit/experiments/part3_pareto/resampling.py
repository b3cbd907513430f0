"""Sentence bootstraps of the frontier statistics Part III's claims read (Pimentel et al. 2020).

A hypervolume (§3) or the best accuracy of a set of probes is not a ratio of per-sentence sums,
so its interval is a percentile bootstrap over test sentences
(:func:`probekit.stats.intervals.cluster_bootstrap`; Field & Welsh 2007 on resampling clusters).
A probe's complexity is fixed once it is trained (its nuclear norm, or what it memorised of
shuffled training labels); only its test accuracy moves with the test sentences. So every
statistic here is a function of *sentence weights*: ``W[r, i]``, how often resample r draws
test sentence i. Each probe's accuracy in a resample is then ``(W @ counts.T) / (W @ units)``,
one matrix product for all probes of all representations, which all see the same draw.

- :func:`bootstrap_sentences`: the interval of such a statistic;
- :func:`seeded_bootstrap`: the interval of its mean over training seeds, with the seed variance;
- :func:`resampled_accuracies`: probes' accuracies under sentence weights;
- :func:`frontier_lead`: one representation's hypervolume minus the best other's (§3, §6.1,
  §7.2);
- :func:`simple_half_gap`: the best accuracy of all probes minus the best of the half with the
  lower complexity (§6.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy import stats

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.frontiers import less_complex_half
from probekit.methods.pareto.frontier import hypervolume_many
from probekit.stats.intervals import Interval, cluster_bootstrap

WeightStatistic = Callable[[np.ndarray], np.ndarray]


def bootstrap_sentences(
    statistic: WeightStatistic,
    n_sentences: int,
    level: float,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """Percentile interval of ``statistic`` over resamples of ``n_sentences`` test sentences.

    ``statistic`` maps sentence weights (R, n) to R values; the estimate is its value at weights
    of 1 (the test set itself). The resamples are drawn by
    :func:`~probekit.stats.intervals.cluster_bootstrap` (sentences with replacement) and turned
    into weights, so that a statistic of many probes costs one matrix product per resample
    batch instead of copies of every probe's per-sentence counts.
    """
    n = int(n_sentences)
    if n < 2:
        raise ParameterError("n_sentences", f"a bootstrap needs >= 2 test sentences, got {n}")

    def of_draws(draws: np.ndarray, axis: int = -1) -> np.ndarray:
        idx = np.asarray(draws).astype(np.int64)
        if idx.ndim == 1:  # the test set itself: every sentence once
            return np.asarray(statistic(np.ones((1, n))))[0]
        flat = idx.reshape(-1, n)
        r = flat.shape[0]
        offsets = n * np.arange(r)[:, None]
        weights = np.bincount((flat + offsets).ravel(), minlength=r * n).reshape(r, n)
        return np.asarray(statistic(weights.astype(np.float64))).reshape(idx.shape[:-1])

    return cluster_bootstrap(of_draws, (np.arange(n),), level, n_resamples=n_resamples, seed=seed)


def seeded_bootstrap(
    statistics: Sequence[WeightStatistic],
    n_sentences: int,
    level: float,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> Interval:
    """Interval of a statistic's mean over k training seeds, crossing sentences and seeds.

    ``statistics[s]`` is the statistic of seed s's probes alone (its frontiers, its architectures),
    mapping sentence weights (R, n) to R values; each seed is one replicate of the whole
    training protocol on the same test sentences. The estimate is the mean over seeds at weights
    of 1. Its variance has two components, as in
    :func:`~probekit.stats.intervals.crossed_interval`: the sentence part is the bootstrap
    variance of the seed mean, every seed's statistic read under the same resample of test
    sentences; the seed part is the variance of the k per-seed estimates over k (k - 1 degrees
    of freedom). The interval is t with Satterthwaite's degrees of freedom (the sentence part's
    taken as infinite). With one seed there is no seed part: then it is the plain percentile
    interval of :func:`bootstrap_sentences`, and the method says so.
    """
    k = len(statistics)
    if k == 0:
        raise ParameterError("statistics", "needs one statistic per training seed, got none")
    if k == 1:
        return bootstrap_sentences(statistics[0], n_sentences, level, n_resamples=n_resamples,
                                   seed=seed)  # fmt: skip
    n = int(n_sentences)
    if n < 2:
        raise ParameterError("n_sentences", f"a bootstrap needs >= 2 test sentences, got {n}")
    per_seed = np.array([float(np.asarray(f(np.ones((1, n))))[0]) for f in statistics])
    draws = np.random.default_rng(seed).integers(0, n, size=(int(n_resamples), n))
    weights = np.stack([np.bincount(row, minlength=n) for row in draws]).astype(np.float64)
    mean = np.mean([np.asarray(f(weights), dtype=np.float64) for f in statistics], axis=0)
    var_sent = float(np.var(mean, ddof=1))
    var_seed = float(np.var(per_seed, ddof=1)) / k
    var = var_sent + var_seed
    df = var**2 / (var_seed**2 / (k - 1)) if var_seed > 0 else math.inf
    tail = 0.5 + level / 2
    q = float(stats.t.ppf(tail, df) if math.isfinite(df) else stats.norm.ppf(tail))
    theta, se = float(per_seed.mean()), math.sqrt(var)
    return Interval(theta, theta - q * se, theta + q * se, float(level), se, float(df),
                    math.sqrt(var_sent), math.sqrt(var_seed), n, (k, k),
                    f"sentence bootstrap ({n_resamples} resamples) and {k} training seeds")  # fmt: skip


def resampled_accuracies(counts: np.ndarray, units: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Corpus accuracies of P probes under sentence weights: (R, n) weights -> (R, P).

    ``counts`` (P, n) are each probe's correct items per sentence and ``units`` (n,) the
    sentence's items (:meth:`~.runs.ParetoRun.sentence_scores`).
    """
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    return (w @ np.asarray(counts, dtype=np.float64).T) / (w @ units)[:, None]


def _finite(complexity: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(complexity, dtype=np.float64)
    keep = np.isfinite(c)
    return c[keep], np.asarray(counts, dtype=np.float64)[keep]


def frontier_lead(
    frontiers: Mapping[str, tuple[np.ndarray, np.ndarray]],
    units: np.ndarray,
    leader: str,
    cap: float,
) -> WeightStatistic:
    """Statistic: ``leader``'s hypervolume up to ``cap`` minus the best other representation's.

    ``frontiers`` maps each representation to its probes' complexities (K,) and per-sentence
    correct counts (K, n); probes with a NaN complexity (a control not run) are left out. The
    hypervolume is :func:`~probekit.methods.pareto.frontier.hypervolume_many`, normalised by
    ``cap`` (for accuracies in [0, 1] it is the mean, over budgets from 0 to ``cap``, of the best
    accuracy within the budget). In every resample each frontier is rebuilt from its probes'
    resampled accuracies, and the best other representation is chosen again.
    """
    if leader not in frontiers or len(frontiers) < 2:
        raise ParameterError(
            "frontiers", f"needs '{leader}' and another representation, got {list(frontiers)}"
        )
    units = np.asarray(units, dtype=np.float64)
    probes = {name: _finite(c, k) for name, (c, k) in frontiers.items()}

    def statistic(weights: np.ndarray) -> np.ndarray:
        hv = {
            name: hypervolume_many(c, resampled_accuracies(k, units, weights), cap)
            for name, (c, k) in probes.items()
        }
        others = np.stack([v for name, v in hv.items() if name != leader])
        return hv[leader] - others.max(axis=0)

    return statistic


def simple_half_gap(
    complexity: np.ndarray, counts: np.ndarray, units: np.ndarray
) -> WeightStatistic:
    """Statistic: best accuracy of all probes minus the best of the less complex half (§6.2).

    The less complex half are the probes whose complexity is at most the median (fixed by the
    training runs; :func:`~.frontiers.less_complex_half`, which
    :func:`~.frontiers.simple_vs_best` reads too); probes with a NaN complexity are left out. The
    value is >= 0, and 0 when the most accurate probe is in the less complex half.
    """
    c, k = _finite(complexity, counts)
    if len(c) < 2:
        raise ParameterError("complexity", f"needs >= 2 probes with a complexity, got {len(c)}")
    simple = less_complex_half(c)
    if simple is None:
        raise ParameterError(
            "complexity", "every probe has the same complexity: there is no simpler half"
        )
    units = np.asarray(units, dtype=np.float64)

    def statistic(weights: np.ndarray) -> np.ndarray:
        acc = resampled_accuracies(k, units, weights)
        return acc.max(axis=1) - acc[:, simple].max(axis=1)

    return statistic
