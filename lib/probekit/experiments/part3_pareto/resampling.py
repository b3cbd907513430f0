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
- :func:`seeded_bootstrap`: the interval of its mean over training seeds, with the seed variance
  (:func:`seeded_interval` builds it from its parts);
- :func:`resampled_accuracies`: probes' accuracies under sentence weights;
- :func:`frontier_lead`: one representation's hypervolume minus the best other's (§3, §6.1,
  §7.2);
- :func:`half_gap`: the best accuracy of the more complex half of the probes minus the best of
  the less complex half (§6.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.frontiers import complexity_halves
from probekit.methods.pareto.frontier import hypervolume_many
from probekit.stats.intervals import Interval, cluster_bootstrap, t_quantile

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
        return np.asarray(statistic(_weights(idx.reshape(-1, n), n))).reshape(idx.shape[:-1])

    return cluster_bootstrap(of_draws, (np.arange(n),), level, n_resamples=n_resamples, seed=seed)


def resample_weights(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Sentence weights (n_resamples, n) of resamples of n sentences with replacement."""
    draws = np.random.default_rng(seed).integers(0, n, size=(int(n_resamples), n))
    return _weights(draws, n)


def _weights(draws: np.ndarray, n: int) -> np.ndarray:
    """How often each of R resamples (R, n) of sentence indices draws each sentence: (R, n)."""
    r = draws.shape[0]
    offsets = n * np.arange(r)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=r * n)
    return counts.reshape(r, n).astype(np.float64)


def seeded_bootstrap(
    statistics: Sequence[WeightStatistic],
    n_sentences: int,
    level: float,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    weights: np.ndarray | None = None,
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
    interval of :func:`bootstrap_sentences`, and the method says so. ``weights`` (n_resamples,
    n) are the resamples as sentence weights (:func:`resample_weights`), drawn from ``seed``
    when None; a simulation of many data sets on the same sentences draws them once.
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
    if weights is None:
        weights = resample_weights(n, n_resamples, seed)
    elif weights.shape != (n_resamples, n):
        raise ParameterError("weights", f"need shape {(n_resamples, n)}, got {weights.shape}")
    mean = np.mean([np.asarray(f(weights), dtype=np.float64) for f in statistics], axis=0)
    return seeded_interval(
        per_seed,
        float(np.var(mean, ddof=1)),
        n,
        level,
        f"sentence bootstrap ({n_resamples} resamples) and {k} training seeds",
    )


def seeded_interval(
    per_seed: np.ndarray, var_sent: float, n_sentences: int, level: float, method: str
) -> Interval:
    """The t interval of :func:`seeded_bootstrap` from its parts.

    ``per_seed`` (k,) the statistic of each seed at the test set itself, k >= 2; ``var_sent``
    the sentence part of the variance of their mean (the bootstrap's). The seed part is
    var(per_seed) / k with k - 1 degrees of freedom, the sentence part's taken as infinite
    (Satterthwaite).
    """
    per_seed = np.asarray(per_seed, dtype=np.float64)
    k = len(per_seed)
    if k < 2:
        raise ParameterError("per_seed", f"needs >= 2 seeds, got {k}")
    var_seed = float(np.var(per_seed, ddof=1)) / k
    var = var_sent + var_seed
    df = var**2 / (var_seed**2 / (k - 1)) if var_seed > 0 else math.inf
    q = t_quantile(level, df)
    theta, se = float(per_seed.mean()), math.sqrt(var)
    return Interval(theta, theta - q * se, theta + q * se, float(level), se, float(df),
                    math.sqrt(var_sent), math.sqrt(var_seed), int(n_sentences), (k, k),
                    method)  # fmt: skip


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


def half_gap(complexity: np.ndarray, counts: np.ndarray, units: np.ndarray) -> WeightStatistic:
    """Statistic: best accuracy of the more complex half minus the best of the less complex (§6.2).

    The halves are :func:`~.frontiers.complexity_halves` of the complexities, fixed by the
    training runs (equal in size, so neither best is a maximum over more probes); probes with
    a NaN complexity are left out. Negative where the simpler half has the better probe.
    """
    c, k = _finite(complexity, counts)
    halves = complexity_halves(c)
    if halves is None:
        raise ParameterError("complexity", "needs >= 2 probes whose complexities are not all tied")
    simple, complex_ = halves
    units = np.asarray(units, dtype=np.float64)

    def statistic(weights: np.ndarray) -> np.ndarray:
        acc = resampled_accuracies(k, units, weights)
        return acc[:, complex_].max(axis=1) - acc[:, simple].max(axis=1)

    return statistic
