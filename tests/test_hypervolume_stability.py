"""The half-versus-all hypervolume check of chapters 32-34 (issue 14), and the cap flags."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from conftest import blobs
from probekit.errors import ParameterError
from probekit.experiments.part3_pareto import frontiers
from probekit.probes import linear as L
from probekit.probes.training import TrainOptions

pytestmark = pytest.mark.usefixtures("one_thread")


def _frontier(x: np.ndarray, acc: np.ndarray, representation: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "task": "posl",
            "family": "nuclear",
            "representation": representation,
            "complexity": x,
            "accuracy": acc,
        }
    )


def _dense_and_sparse() -> pd.DataFrame:
    x = np.linspace(0.0, 1.0, 101)
    dense = _frontier(x, np.sqrt(x), "dense")
    # Two probes, each carrying the frontier over half the budgets: dropping either loses 0.2 or more.
    sparse = _frontier(np.array([0.0, 0.5]), np.array([0.5, 0.9]), "sparse")
    return pd.concat([dense, sparse], ignore_index=True)


def test_dense_frontier_is_stable_and_two_probes_are_not():
    table = _dense_and_sparse()
    out = frontiers.hypervolume_stability(table, "complexity", 1.0, seed=3).set_index(
        "representation"
    )
    assert out.loc["dense", "n_probes"] == 101
    assert out.loc["dense", "n_half"] == 50
    assert out.loc["dense", "stable"]
    assert out.loc["dense", "difference"] <= frontiers.HYPERVOLUME_TOLERANCE
    assert out.loc["sparse", "hypervolume"] == pytest.approx(0.7)
    assert out.loc["sparse", "difference"] >= 0.19
    assert not out.loc["sparse", "stable"]
    # The whole table's hypervolumes are hypervolume_table's.
    hv = frontiers.hypervolume_table(table, "complexity", 1.0).set_index("representation")
    assert np.allclose(out["hypervolume"], hv.loc[out.index, "hypervolume"])


def test_half_never_beats_all_and_is_seeded():
    rng = np.random.default_rng(0)
    table = _frontier(rng.uniform(0, 1, 30), rng.uniform(0, 1, 30), "random")
    diffs = [
        frontiers.hypervolume_stability(table, "complexity", 1.0, seed=s)["difference"].iloc[0]
        for s in range(20)
    ]
    assert min(diffs) >= 0.0
    assert len(set(np.round(diffs, 12))) > 1
    again = frontiers.hypervolume_stability(table, "complexity", 1.0, seed=5)
    assert again["difference"].iloc[0] == pytest.approx(diffs[5])


def test_one_lucky_half_does_not_make_a_frontier_stable():
    """A frontier carried by one simple probe: half the halves keep it and lose nothing, the other
    half lose most of the hypervolume. The mean loss says unstable whatever the seed."""
    x = np.concatenate([[0.0], np.linspace(0.6, 1.0, 9)])
    acc = np.concatenate([[0.9], np.full(9, 0.5)])
    carried = _frontier(x, acc, "carried")
    for seed in range(5):
        out = frontiers.hypervolume_stability(carried, "complexity", 1.0, seed=seed).iloc[0]
        assert 0.3 <= out["share_within"] <= 0.7
        assert out["difference"] > 0.1 and not out["stable"]
    with pytest.raises(ParameterError, match="n_halves"):
        frontiers.hypervolume_stability(carried, "complexity", 1.0, seed=0, n_halves=0)


def test_a_frontier_s_halves_do_not_depend_on_the_other_groups():
    rng = np.random.default_rng(1)
    a = _frontier(rng.uniform(0, 1, 12), rng.uniform(0, 1, 12), "a")
    b = _frontier(rng.uniform(0, 1, 12), rng.uniform(0, 1, 12), "b")
    alone = frontiers.hypervolume_stability(b, "complexity", 1.0, seed=2)
    both = frontiers.hypervolume_stability(pd.concat([a, b]), "complexity", 1.0, seed=2)
    assert both.set_index("representation").loc["b", "difference"] == pytest.approx(
        alone["difference"].iloc[0]
    )


def test_stability_numbers_say_which_frontiers_fail():
    out = frontiers.hypervolume_stability(_dense_and_sparse(), "complexity", 1.0, seed=3)
    numbers = frontiers.stability_numbers(out)
    assert numbers["stability_n_stable"] == 1
    assert numbers["stability_n_frontiers"] == 2
    assert numbers["stability_worst_difference"] >= 0.19
    assert numbers["stability_text"].startswith("1 of 2 frontiers")
    dense = out[out["representation"] == "dense"]
    assert frontiers.stability_numbers(dense)["stability_text"].startswith("every frontier")


def test_at_cap_marks_probes_stopped_by_max_steps():
    toy = (*blobs(300, 0), *blobs(150, 1))
    configs = [L.LinearProbeConfig(alpha=0.0)]
    fast = TrainOptions(batch_size=64, lr=0.05, eval_every=10, patience=5, min_delta=0.0)
    capped = L.train_linear_probes(
        configs, *toy, seed=0, options=dataclasses.replace(fast, max_steps=10)
    )
    free = L.train_linear_probes(
        configs, *toy, seed=0, options=dataclasses.replace(fast, max_steps=20_000, min_delta=0.05)
    )
    assert capped.at_cap.tolist() == [True]
    assert free.at_cap.tolist() == [False]
