"""Tests of the paired bootstrap (probekit.stats.bootstrap)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from probekit.errors import ParameterError
from probekit.stats.bootstrap import paired_bootstrap

values = st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=40)


def test_point_estimate_is_mean_difference():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), rng.normal(size=50)
    res = paired_bootstrap(a, b, n_boot=200, seed=1)
    assert res.diff == pytest.approx(np.mean(a - b))
    assert res.low <= res.diff <= res.high
    assert res.n == 50 and res.n_boot == 200


def test_weights_give_the_micro_average():
    """Per-sentence UUAS weighted by edge counts equals Σ correct / Σ total."""
    correct_a, correct_b = np.array([3, 5, 0, 9]), np.array([2, 5, 1, 4])
    total = np.array([4, 6, 2, 10])
    res = paired_bootstrap(correct_a / total, correct_b / total, n_boot=100, seed=0, weights=total)
    expected = correct_a.sum() / total.sum() - correct_b.sum() / total.sum()
    assert res.diff == pytest.approx(expected)


def test_constant_difference_has_a_degenerate_interval():
    a = np.linspace(0, 1, 30)
    res = paired_bootstrap(a + 0.25, a, n_boot=300, seed=3)
    assert res.low == pytest.approx(0.25) and res.high == pytest.approx(0.25)
    assert res.significant and res.verdict == "A better" and res.p_value == 0.0


def test_identical_configurations():
    a = np.arange(10.0)
    res = paired_bootstrap(a, a, n_boot=100, seed=0, name_a="probe", name_b="parser")
    assert (res.diff, res.low, res.high, res.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert res.verdict == "no significant difference"
    assert res.supports("parser") == "not shown (the interval includes 0)"
    assert res.supports_no_difference() == "consistent (the interval includes 0)"


def test_seeded_and_deterministic():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=40), rng.normal(size=40)
    r1 = paired_bootstrap(a, b, n_boot=500, seed=7)
    r2 = paired_bootstrap(a, b, n_boot=500, seed=7)
    r3 = paired_bootstrap(a, b, n_boot=500, seed=8)
    assert r1 == r2
    assert (r1.low, r1.high) != (r3.low, r3.high)


def test_matches_scipy_percentile_bootstrap():
    """Same estimator as scipy.stats.bootstrap(paired=True, method='percentile')."""
    rng = np.random.default_rng(11)
    a = rng.normal(0.3, 1.0, size=300)
    b = a - rng.normal(0.1, 0.5, size=300)
    ours = paired_bootstrap(a, b, n_boot=20_000, seed=0)
    ref = sps.bootstrap(
        (a, b),
        lambda x, y: np.mean(x - y),
        paired=True,
        vectorized=False,
        n_resamples=20_000,
        method="percentile",
        random_state=1,
    )
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert abs(ours.low - ref.confidence_interval.low) < 0.05 * width
    assert abs(ours.high - ref.confidence_interval.high) < 0.05 * width


def test_coverage_of_a_known_mean():
    """The 90 % interval covers the true mean difference in roughly 90 % of samples."""
    rng = np.random.default_rng(2)
    hits = 0
    for rep in range(100):
        d = rng.normal(0.5, 1.0, size=60)
        res = paired_bootstrap(d, np.zeros(60), n_boot=400, seed=rep, ci=0.9)
        hits += res.low <= 0.5 <= res.high
    assert 80 <= hits <= 98


def test_verdicts_and_claims():
    a = np.full(20, 0.8) + np.linspace(0, 0.01, 20)
    b = np.full(20, 0.5)
    res = paired_bootstrap(a, b, n_boot=200, seed=0, name_a="parser", name_b="probe")
    assert res.verdict == "parser better"
    assert res.supports("parser") == "holds"
    assert res.supports("probe") == "reversed"
    flipped = paired_bootstrap(b, a, n_boot=200, seed=0, name_a="probe", name_b="parser")
    assert flipped.verdict == "parser better"
    assert flipped.supports("parser") == "holds"
    assert "parser better" in res.summary(scale=100, unit=" points")
    assert res.as_dict()["verdict"] == "parser better"
    assert res.supports_no_difference() == "not consistent (parser better)"
    with pytest.raises(ParameterError):
        res.supports("other")


@settings(max_examples=60, deadline=None)
@given(values, st.integers(0, 10_000))
def test_swapping_mirrors_the_interval(xs, seed):
    a = np.array(xs)
    b = np.roll(a, 1) * 0.5
    r = paired_bootstrap(a, b, n_boot=50, seed=seed)
    s = paired_bootstrap(b, a, n_boot=50, seed=seed)
    assert s.diff == pytest.approx(-r.diff, abs=1e-12)
    assert s.low == pytest.approx(-r.high, abs=1e-9)
    assert s.high == pytest.approx(-r.low, abs=1e-9)
    assert r.low - 1e-9 <= r.high


@settings(max_examples=60, deadline=None)
@given(values, st.integers(0, 10_000))
def test_interval_lies_within_the_range_of_differences(xs, seed):
    a = np.array(xs)
    b = a[::-1].copy()
    d = a - b
    r = paired_bootstrap(a, b, n_boot=50, seed=seed, weights=np.abs(a) + 1)
    assert d.min() - 1e-9 <= r.low <= r.high <= d.max() + 1e-9
    assert d.min() - 1e-9 <= r.diff <= d.max() + 1e-9


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"a": [1.0, 2.0], "b": [1.0]}, "b"),
        ({"a": [1.0], "b": [1.0]}, "a"),
        ({"a": [1.0, np.nan], "b": [1.0, 2.0]}, "a"),
        ({"a": [[1.0, 2.0]], "b": [[1.0, 2.0]]}, "a"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "n_boot": 0}, "n_boot"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "ci": 1.0}, "ci"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "weights": [1.0, -1.0]}, "weights"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "weights": [0.0, 0.0]}, "weights"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "weights": [1.0]}, "weights"),
        ({"a": [1.0, 2.0], "b": [1.0, 2.0], "name_a": "x", "name_b": "x"}, "name_b"),
    ],
)
def test_input_errors(kwargs, name):
    with pytest.raises(ParameterError) as info:
        paired_bootstrap(**kwargs)
    assert info.value.name == name
