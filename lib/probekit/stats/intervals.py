"""Intervals for probe comparisons whose units cluster in sentences and whose training is seeded.

A probe's corpus metric is a ratio over sentences: for seed s it is
``sum_i c[s, i] / sum_i m[i]``, with ``c[s, i]`` what it scores in sentence i (correct edges,
correct tokens, or a weighted per-sentence score) and ``m[i]`` the sentence's units (gold edges,
tokens, or its weight). Edges and tokens of one sentence stand or fall together, so the sentence
is the unit of resampling, and every seed is scored on every sentence, so seeds and sentences are
crossed factors that both enter the interval.

:func:`crossed_interval` is the variance-components interval (Reimers & Gurevych 2017 for seed
variance; Owen 2007 on crossed designs): the estimate ``theta`` is the difference of the
seed-averaged metrics; its variance is the sentence part (the linearised variance of a ratio
estimator over sentences, i.e. a cluster-robust variance, Field & Welsh 2007) plus the seed part
(the variance of the per-seed metrics over seeds, divided by the number of seeds), with
Welch-Satterthwaite degrees of freedom. The seed-by-sentence noise enters both parts, so the
interval errs on the wide side; the calibration tests show how much.

Over few sentences the linearised ratio is skewed and its standard error moves with the
estimate (two probes mostly right on the same units disagree more the larger their gap), so a
symmetric t interval undercovers on one side. Below :data:`SMALL_SAMPLE_SENTENCES` sentences
the interval is instead the set of values that a robust score test does not reject (Boos 1992;
as Wilson's interval inverts the binomial score test): the test of theta = theta_0 takes its
sentence part from residuals centred at theta_0 rather than at the estimate, so a data set
whose estimate lies far from theta_0 is judged with the variance theta_0 would give. Its
critical values are the t quantiles or, where wider, a bootstrap's quantiles of the same score
statistic over sentences (Efron & Tibshirani 1993, ch. 12), the seed part held at its estimate:
the interval is the union of the two score intervals. In simulation at an equivalence margin
over 52 sentences, the t quantiles alone undercover where the probes' disagreements within a
sentence all go one way, the bootstrap's alone where they go both ways as measured probes'
do; the union keeps the one-sided error near alpha in both. The bounds solve a quadratic; the
standard error and degrees of freedom stay those of the variance components.

With one seed per side it is the cluster-robust interval of a difference of corpus metrics,
which for binary token outcomes is the clustered McNemar comparison (Obuchowski 1998):
:func:`clustered_mcnemar` gives its p-value.

:func:`crossed_contrast` is the same interval for any weighted sum of such metrics on the same
sentences (:class:`Term`), e.g. a difference of two gaps; :func:`crossed_interval` is its
two-metric case.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

from probekit.errors import ParameterError

# Below this many sentences an interval inverts a score test over sentences: at 52 to 88
# sentences (chapter 42's hard sets) the symmetric interval's one-sided error was 0.06-0.09 at
# an equivalence margin in simulation, the score interval's 0.04-0.055; from about 200
# sentences on they agree, and the resampling is not worth its cost.
SMALL_SAMPLE_SENTENCES = 200
# Resamples of the bootstrap that calibrates the score test, drawn from this fixed seed, so that
# an interval is a function of its data alone.
SCORE_RESAMPLES = 999
SCORE_SEED = 0


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, standard error and degrees of freedom.

    The interval has coverage ``level`` under a t reference distribution (normal when ``df`` is
    infinite) with standard error ``se``. ``se_sentences`` and ``se_seeds`` are the two variance
    components (their squares add up to ``se ** 2``); ``n_sentences`` and ``n_seeds`` describe the
    design (``n_seeds``: the seeds of each side, or of each set of trained probes in a contrast).
    """

    estimate: float
    low: float
    high: float
    level: float
    se: float
    df: float
    se_sentences: float
    se_seeds: float
    n_sentences: int
    n_seeds: tuple[int, ...]
    method: str

    def _half_se(self, half: float) -> float:
        """The standard error that one half-width of the interval implies at its level."""
        return half / t_quantile(self.level, self.df)

    def p_greater(self, value: float = 0.0) -> float:
        """One-sided p-value of H0: theta <= ``value``, from the interval's lower half.

        The t (or normal) test whose standard error is the one the lower half-width implies,
        (estimate - low) / q, so that the p-value is below (1 - level) / 2 exactly when ``low``
        is above ``value``: a verdict read off the interval and one read off the p-value always
        agree, for a symmetric t interval (where this is its own standard error) and for an
        asymmetric one (logit scale, percentile bootstrap) alike.
        """
        return self._p(self.estimate - value, self.estimate - self.low)

    def p_less(self, value: float = 0.0) -> float:
        """One-sided p-value of H0: theta >= ``value``, from the interval's upper half."""
        return self._p(value - self.estimate, self.high - self.estimate)

    def _p(self, distance: float, half: float) -> float:
        if self.se == 0 or half <= 0:
            return 0.0 if distance > 0 else 1.0
        z = distance / self._half_se(half)
        return float(stats.norm.sf(z) if math.isinf(self.df) else stats.t.sf(z, self.df))

    def scaled(self, factor: float) -> Interval:
        """The same interval in other units (e.g. ``100`` for percentage points)."""
        return Interval(
            self.estimate * factor,
            self.low * factor,
            self.high * factor,
            self.level,
            self.se * abs(factor),
            self.df,
            self.se_sentences * abs(factor),
            self.se_seeds * abs(factor),
            self.n_sentences,
            self.n_seeds,
            self.method,
        )

    def as_dict(self) -> dict[str, object]:
        """Plain values, for saving with a chapter's results."""
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "se": self.se,
            "df": self.df if math.isfinite(self.df) else None,
            "se_sentences": self.se_sentences,
            "se_seeds": self.se_seeds,
            "n_sentences": self.n_sentences,
            "n_seeds": list(self.n_seeds),
            "method": self.method,
        }

    @classmethod
    def from_dict(cls, values: dict) -> Interval:
        """The inverse of :meth:`as_dict`."""
        return cls(
            float(values["estimate"]),
            float(values["low"]),
            float(values["high"]),
            float(values["level"]),
            float(values["se"]),
            math.inf if values["df"] is None else float(values["df"]),
            float(values["se_sentences"]),
            float(values["se_seeds"]),
            int(values["n_sentences"]),
            tuple(int(k) for k in values["n_seeds"]),
            str(values["method"]),
        )


def _units(name: str, x: object, n: int | None) -> np.ndarray:
    m = np.asarray(x, dtype=np.float64)
    if m.ndim != 1 or len(m) < 2 or (n is not None and len(m) != n):
        raise ParameterError(name, f"must be a 1-D array over the >= 2 sentences, got {m.shape}")
    if np.any(m < 0) or not m.sum() > 0:
        raise ParameterError(name, "must be >= 0 with a positive sum")
    return m


def _scores(name: str, x: object, n: int | None) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] < 1 or (n is not None and a.shape[1] != n):
        want = f"(seeds, {n})" if n is not None else "(seeds, sentences)"
        raise ParameterError(name, f"must have shape {want}, got {np.shape(x)}")
    if not np.all(np.isfinite(a)):
        raise ParameterError(name, "contains NaN or infinite values")
    return a


@dataclass(frozen=True, eq=False)
class Term:
    """One corpus metric of a contrast: ``weight`` x sum_i mean_s scores[s, i] / sum_i units[i].

    ``scores`` (k, n): what each of k seeds scores in each of the n sentences; ``units`` (n,):
    the metric's denominator per sentence. ``probes`` names the trained probes that produced
    the scores: terms with the same name are the same k probes scored on other units (row s is
    seed s in each), so their seed variation is taken together, per seed; terms with different
    names are independent training runs.
    """

    weight: float
    scores: np.ndarray
    units: np.ndarray
    probes: str


def t_quantile(level: float, df: float) -> float:
    """The two-sided t (normal for infinite ``df``) quantile of coverage ``level``."""
    if math.isfinite(df):
        return float(stats.t.ppf(0.5 + level / 2.0, df))
    return float(stats.norm.ppf(0.5 + level / 2))


def crossed_contrast(
    terms: Sequence[Term], level: float = 0.90, *, reference: float = 0.0
) -> Interval:
    """Interval of ``sum_j weight_j * metric_j - reference`` over sentences and seeds.

    The variance-components interval of the module docstring for a weighted sum of corpus
    metrics on the same n sentences (each :class:`Term` with its own units): the sentence part
    is the linearised variance of the sum of ratio estimators, sum_i z_i^2 n / (n - 1) with
    z_i = sum_j weight_j (mean_s c_j[s, i] - metric_j m_j[i]) / sum_i m_j[i]; the seed part adds,
    for each set of probes (:attr:`Term.probes`), the variance over its seeds of its terms'
    weighted per-seed metrics, divided by its number of seeds; Welch-Satterthwaite degrees of
    freedom. ``n_seeds`` of the result lists the seeds of each set of probes, in order of first
    appearance.
    """
    if not terms:
        raise ParameterError("terms", "a contrast needs at least one term")
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level!r}")
    n = len(_units("terms[0].units", terms[0].units, None))
    theta = -float(reference)
    z = np.zeros(n)
    share = np.zeros(n)  # sum_j weight_j^2 m_j[i] / sum_i m_j[i]
    per_probes: dict[str, np.ndarray] = {}
    for j, term in enumerate(terms):
        m = _units(f"terms[{j}].units", term.units, n)
        c = _scores(f"terms[{j}].scores", term.scores, n)
        total = float(m.sum())
        mean = c.mean(axis=0)  # (n,) seed-averaged scores
        ratio = float(mean.sum() / total)
        weight = float(term.weight)
        theta += weight * ratio
        z += weight * ((mean - ratio * m) / total)
        share += weight**2 * m / total
        per_seed = weight * (c.sum(axis=1) / total)  # (k,)
        if term.probes in per_probes:
            if len(per_probes[term.probes]) != len(per_seed):
                raise ParameterError(
                    "terms", f"the terms of probes {term.probes!r} need the same seeds"
                )
            per_probes[term.probes] = per_probes[term.probes] + per_seed
        else:
            per_probes[term.probes] = per_seed
    var_sent = n / (n - 1) * float(np.sum(z**2))
    seeds = list(per_probes.values())
    score = quantiles = None
    if n < SMALL_SAMPLE_SENTENCES:
        g = share / share.sum()
        score = (n / (n - 1) * float(z @ g), n / (n - 1) * float(g @ g))
        var_seed = sum(v for v, _ in _seed_terms(seeds))
        quantiles = _score_bootstrap(terms, theta, reference, var_seed, level)
    return components_interval(theta, var_sent, n, seeds, level, score=score, t_quantiles=quantiles)


def _seed_terms(per_seed: Sequence[np.ndarray]) -> list[tuple[float, int]]:
    """Each set of k > 1 seeds' variance of the mean, var(ddof=1) / k, and its k - 1 df."""
    return [(float(np.var(d, ddof=1)) / len(d), len(d) - 1) for d in per_seed if len(d) > 1]


@lru_cache(maxsize=16)
def _resample_counts(n: int) -> np.ndarray:
    """How often each of n sentences is drawn in each resample, (B, n), read-only.

    A function of n alone (the seed is fixed), so it is drawn once per sample size.
    """
    rng = np.random.default_rng(SCORE_SEED)
    draws = rng.integers(0, n, (SCORE_RESAMPLES, n))
    rows = np.arange(SCORE_RESAMPLES)[:, None] * n
    counts = np.bincount((draws + rows).ravel(), minlength=SCORE_RESAMPLES * n)
    counts = counts.reshape(SCORE_RESAMPLES, n).astype(np.float64)
    counts.flags.writeable = False
    return counts


def _score_bootstrap(
    terms: Sequence[Term], theta: float, reference: float, var_seed: float, level: float
) -> tuple[float, float] | None:
    """The (lower, upper) quantiles at ``level`` of the score statistic, over sentences.

    On each resample of the sentences the statistic is (theta_b - theta) / se_b(theta): the
    resampled world's true value is ``theta``, so its sentence part is centred there, as the
    test of theta_0 centres its own at theta_0; ``var_seed`` is held fixed. Resamples in which a
    term has no units are left out; None if fewer than half remain.
    """
    n = len(terms[0].units)
    W = _resample_counts(n)
    theta_b = np.full(len(W), -float(reference))
    z = np.zeros(W.shape)
    share = np.zeros(W.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for term in terms:
            w = float(term.weight)
            m = np.asarray(term.units, dtype=np.float64)
            mean = np.atleast_2d(np.asarray(term.scores, dtype=np.float64)).mean(axis=0)
            total = (W @ m)[:, None]  # (B, 1)
            ratio = (W @ mean)[:, None] / total
            theta_b += w * ratio[:, 0]
            z += w * (mean[None, :] - ratio * m[None, :]) / total
            share += w**2 * m[None, :] / total
        g = share / np.sum(W * share, axis=1, keepdims=True)
        centred = z + (theta_b - theta)[:, None] * g
        var_b = n / (n - 1) * np.sum(W * centred**2, axis=1)
        t = (theta_b - theta) / np.sqrt(var_b + var_seed)
    t = t[np.isfinite(t)]
    if len(t) < len(W) / 2:
        return None
    low, high = np.quantile(t, [0.5 - level / 2, 0.5 + level / 2])
    return float(low), float(high)


def _score_bounds(
    theta: float, var: float, score: tuple[float, float], q_low: float, q_high: float
) -> tuple[float, float] | None:
    """The values theta_0 with q_low <= (theta - theta_0) / se(theta_0) <= q_high, (low, high).

    se(theta_0)^2 = var + 2 b d + a d^2 with d = theta - theta_0 and ``score`` = (b, a);
    ``q_low`` < 0 < ``q_high``. None when the set is not bounded (too few sentences).
    """
    b, a = score

    def end(q: float, sign: float) -> float | None:
        lead = 1.0 - q**2 * a
        if lead <= 0:
            return None
        return theta - (q**2 * b + sign * math.sqrt((q**2 * b) ** 2 + lead * q**2 * var)) / lead

    low, high = end(q_high, 1.0), end(q_low, -1.0)
    return None if low is None or high is None else (low, high)


def components_interval(
    theta: float,
    var_sent: float,
    n: int,
    per_seed: Sequence[np.ndarray],
    level: float,
    *,
    design: str = "",
    score: tuple[float, float] | None = None,
    t_quantiles: tuple[float, float] | None = None,
) -> Interval:
    """The variance-components interval of the module docstring, from its parts.

    ``theta`` the estimate, ``var_sent`` its linearised variance over the ``n`` sentences,
    ``per_seed`` one array (k,) per independent set of trained probes: that set's per-seed
    contribution to ``theta`` (its metric, or the paired difference). Each set with k > 1 adds
    var(ddof=1) / k with k - 1 degrees of freedom; Welch-Satterthwaite combines the parts.
    ``design`` is appended to the method's name (e.g. ", one subset per seed").
    ``score`` (b, a), when given, says how the sentence part moves when its residuals are
    centred at a tested value theta_0 instead of the estimate: var_sent + 2 b d + a d^2 with
    d = theta - theta_0. The interval is then the set of theta_0 whose t test with that variance
    (plus the seed part) does not reject, the score interval of the module docstring. Its
    critical values are the t quantiles -q and q or, each where wider, ``t_quantiles`` (lower,
    upper): a bootstrap's quantiles of the score statistic over sentences, widened by the ratio
    of the t quantile at the Welch-Satterthwaite df to the normal one, which the sentence
    resampling cannot see (the uncertainty of a seed part from few seeds).
    """
    seed_terms = _seed_terms(per_seed)
    var_seed = sum(v for v, _ in seed_terms)
    var = var_sent + var_seed
    se = math.sqrt(var)
    parts = [(var_sent, n - 1), *seed_terms]
    denom = sum(v**2 / k for v, k in parts if v > 0)
    df = var**2 / denom if denom > 0 else math.inf
    q = t_quantile(level, df)
    method = "variance components over sentences and seeds" if seed_terms else "cluster-robust"
    q_low, q_high = -q, q
    if t_quantiles is not None:
        widen = q / t_quantile(level, math.inf)
        q_low, q_high = min(-q, t_quantiles[0] * widen), max(q, t_quantiles[1] * widen)
    bounds = None
    if score is not None and se > 0:  # the t quantiles' score interval where the wider is unbounded
        bounds = _score_bounds(theta, var, score, q_low, q_high) or _score_bounds(
            theta, var, score, -q, q
        )
    if bounds is None:
        bounds = (theta - q * se, theta + q * se)
    else:
        method += ", score interval over sentences"
    return Interval(
        theta,
        bounds[0],
        bounds[1],
        float(level),
        se,
        float(df),
        math.sqrt(var_sent),
        math.sqrt(var_seed),
        n,
        tuple(len(d) for d in per_seed),
        method + design,
    )


def crossed_interval(
    scores_a: np.ndarray,
    scores_b: np.ndarray | None,
    units: np.ndarray,
    level: float = 0.90,
    *,
    reference: float = 0.0,
    paired_seeds: bool = False,
    logit: bool = False,
    units_b: np.ndarray | None = None,
) -> Interval:
    """Interval of ``metric_A - metric_B`` over sentences and seeds (see the module docstring).

    Args:
        scores_a: (k_a, n) what probe A scores in each sentence under each of its k_a seeds (a
            1-D (n,) array is one seed).
        scores_b: (k_b, n) the same for B on the same n sentences; None compares A with the
            fixed ``reference`` instead (a one-sample interval).
        units: (n,) the units of each sentence (the metric's denominator), >= 0, positive sum.
        level: coverage of the two-sided interval (0.90 for a one-sided alpha of 0.05).
        reference: the value of B when ``scores_b`` is None.
        paired_seeds: A's seed s and B's seed s are one trained model scored twice (e.g. one
            probe on normal and on Jabberwocky sentences); then the seed part is the variance of
            the per-seed differences over k = k_a = k_b seeds.
        units_b: (n,) B's units when B is scored on other units of the same sentences (e.g. each
            scoring function's own hard set); None means ``units``.
        logit: for a one-sample interval of an accuracy (``scores_b`` None): build the interval
            on the logit scale (delta method) and map it back, so that it is not symmetric near
            0 or 1, where the standard error moves with the estimate.

    Returns:
        :class:`Interval` in the metric's units (fractions for accuracies); the two-term case of
        :func:`crossed_contrast`.
    """
    m = _units("units", units, None)
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level!r}")
    n = len(m)
    m_b = m if units_b is None else _units("units_b", units_b, n)
    a = _scores("scores_a", scores_a, n)
    b = None if scores_b is None else _scores("scores_b", scores_b, n)
    if paired_seeds and (b is None or a.shape != b.shape):
        raise ParameterError("paired_seeds", "needs scores_a and scores_b of the same shape")
    terms = [Term(1.0, a, m, "a")]
    if b is not None:
        terms.append(Term(-1.0, b, m_b, "a" if paired_seeds else "b"))
    out = crossed_contrast(terms, level, reference=reference if b is None else 0.0)
    k_b = 0 if b is None else b.shape[0]
    theta, se, low, high = out.estimate, out.se, out.low, out.high
    method = out.method
    if logit:
        if b is not None:
            raise ParameterError("logit", "applies to a one-sample interval (scores_b None)")
        p = theta + reference
        if not 0 < p < 1:
            raise ParameterError("logit", f"needs an accuracy strictly inside (0, 1), got {p:g}")
        half = t_quantile(level, out.df) * se / (p * (1 - p))
        centre = math.log(p / (1 - p))
        low = 1 / (1 + math.exp(-(centre - half))) - reference
        high = 1 / (1 + math.exp(-(centre + half))) - reference
        method += ", logit scale"
    return Interval(
        theta,
        low,
        high,
        out.level,
        se,
        out.df,
        out.se_sentences,
        out.se_seeds,
        n,
        (a.shape[0], k_b),
        method,
    )


def seed_interval(per_seed_a: np.ndarray, per_seed_b: np.ndarray | None, level: float = 0.90,
                  *, reference: float = 0.0) -> Interval:  # fmt: skip
    """Welch interval of ``mean(A) - mean(B)`` over per-seed scores on a fixed test set.

    Reimers & Gurevych 2017: it asks whether the difference holds over training randomness, and
    ignores the sampling of test items, so it is valid where the two probes do not differ sentence
    by sentence (see the calibration tests). ``per_seed_b`` None compares with ``reference``.
    """
    a = np.asarray(per_seed_a, dtype=np.float64)
    if a.ndim != 1 or len(a) < 2:
        raise ParameterError("per_seed_a", "needs >= 2 seeds")
    terms = [(float(np.var(a, ddof=1)) / len(a), len(a) - 1)]
    theta = float(a.mean())
    k_b = 0
    if per_seed_b is not None:
        b = np.asarray(per_seed_b, dtype=np.float64)
        if b.ndim != 1 or len(b) < 2:
            raise ParameterError("per_seed_b", "needs >= 2 seeds")
        terms.append((float(np.var(b, ddof=1)) / len(b), len(b) - 1))
        theta -= float(b.mean())
        k_b = len(b)
    else:
        theta -= reference
    var = sum(v for v, _ in terms)
    denom = sum(v**2 / k for v, k in terms if v > 0)
    df = var**2 / denom if denom > 0 else math.inf
    se = math.sqrt(var)
    q = t_quantile(level, df)
    return Interval(theta, theta - q * se, theta + q * se, float(level), se, float(df), 0.0, se,
                    0, (len(a), k_b), "Welch over seeds")  # fmt: skip


def clustered_mcnemar(correct_a: np.ndarray, correct_b: np.ndarray, units: np.ndarray,
                      method: str = "obuchowski") -> tuple[float, float]:  # fmt: skip
    """McNemar's test for paired binary outcomes clustered in sentences: (chi-squared, p).

    ``correct_a``, ``correct_b``: (n,) correct units per sentence of one seed each; ``units``
    (n,) the units per sentence. With d_i = correct_a - correct_b (the per-sentence discordance
    n10_i - n01_i), Obuchowski (1998) in Yang, Sun & Hardin's (2010) form weights units:
    X2 = (K - 1) / K (sum d)^2 / sum d^2; Durkalski et al. (2003) weights sentences:
    X2 = (sum d/m)^2 / sum (d/m)^2. Both against chi-squared with 1 df; at one unit per sentence
    Durkalski's equals the uncorrected McNemar statistic.
    """
    d = np.asarray(correct_a, dtype=np.float64) - np.asarray(correct_b, dtype=np.float64)
    m = np.asarray(units, dtype=np.float64)
    if d.shape != m.shape or d.ndim != 1:
        raise ParameterError("units", "correct_a, correct_b and units must be (n,) alike")
    keep = m > 0
    d, m = d[keep], m[keep]
    if method == "obuchowski":
        k = len(d)
        den = float(np.sum(d**2))
        x2 = (k - 1) / k * float(d.sum()) ** 2 / den if den > 0 else 0.0
    elif method == "durkalski":
        r = d / m
        den = float(np.sum(r**2))
        x2 = float(r.sum()) ** 2 / den if den > 0 else 0.0
    else:
        raise ParameterError("method", f"must be 'obuchowski' or 'durkalski', not {method!r}")
    return x2, float(stats.chi2.sf(x2, 1))


def cluster_bootstrap(
    statistic,
    data: tuple[np.ndarray, ...],
    level: float = 0.90,
    *,
    n_resamples: int = 999,
    seed: int = 0,
) -> Interval:
    """Percentile interval of a statistic of per-sentence data, resampling sentences.

    For quantities that are not a ratio of per-sentence sums (a hypervolume under a Pareto
    frontier built from many probes' accuracies, a maximum over layers), where
    :func:`crossed_interval` does not apply. ``data`` holds arrays whose last axis is the n
    sentences; ``statistic(*data, axis=-1)`` must accept a leading resample axis (vectorised, as
    :func:`scipy.stats.bootstrap` calls it). Sentences are resampled with replacement, the same
    draw for every array (Field & Welsh 2007). The standard error is the bootstrap's; the
    reference distribution is normal (``df`` infinite).
    """
    arrays = tuple(np.asarray(x, dtype=np.float64) for x in data)
    n = arrays[0].shape[-1]
    if n < 2 or any(x.shape[-1] != n for x in arrays):
        raise ParameterError("data", "every array needs the same >= 2 sentences on its last axis")
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level!r}")
    estimate = float(statistic(*arrays, axis=-1))
    result = stats.bootstrap(
        arrays,
        statistic,
        paired=True,
        vectorized=True,
        n_resamples=int(n_resamples),
        confidence_level=level,
        method="percentile",
        axis=-1,
        rng=np.random.default_rng(seed),
    )
    se = float(result.standard_error)
    return Interval(
        estimate,
        float(result.confidence_interval.low),
        float(result.confidence_interval.high),
        float(level),
        se,
        math.inf,
        se,
        0.0,
        n,
        (1, 1),
        f"sentence bootstrap ({n_resamples} resamples)",
    )


def proportion_difference(
    hits_a: int, n_a: int, hits_b: int, n_b: int, level: float = 0.90
) -> Interval:
    """Wald interval of ``hits_a / n_a - hits_b / n_b`` for independent binomial counts.

    For Monte-Carlo estimates, e.g. a simulated power at two test-set sizes from independent
    simulations (Zhu et al. 2022, §3.5): the runs are independent, so the normal approximation
    of the difference of two proportions applies.
    """
    for name, value in (("n_a", n_a), ("n_b", n_b)):
        if int(value) < 1:
            raise ParameterError(name, f"must be >= 1, got {value}")
    pa, pb = hits_a / n_a, hits_b / n_b
    se = math.sqrt(pa * (1 - pa) / n_a + pb * (1 - pb) / n_b)
    q = float(stats.norm.ppf(0.5 + level / 2))
    theta = pa - pb
    return Interval(
        theta, theta - q * se, theta + q * se, float(level), se, math.inf, se, 0.0,
        0, (int(n_a), int(n_b)), "two binomial proportions (Monte Carlo runs)",
    )  # fmt: skip
