"""Tests for the protocol of chapters 32 and 33 (Pimentel et al. 2020, §5, §6.1 and §6.2): the
shuffled controls memorise the whole training split and stop at their plateau or their cap,
every probe records whether it ended at its cap, the cap-share tables, the deviation tables,
the rank frontiers (complete ones, and their stacks) and the stability check's reading."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import blobs
from probekit.experiments.deviations import (
    MAX_CAP_SHARE,
    cap_share_numbers,
    cap_share_table,
    deviation_table,
)
from probekit.experiments.part3_pareto import (
    experimental_setup,
    frontiers,
    memorisation,
    memorisation_experiment,
    parametric,
    parametric_experiment,
    representations,
)
from probekit.experiments.part3_pareto.config import MemorisationConfig, ParametricConfig
from probekit.experiments.part3_pareto.protocol import PROTOCOL_32, PROTOCOL_33
from probekit.probes import linear as L
from probekit.probes import mlp_stack
from probekit.probes.training import TrainOptions
from test_part3_config import memorisation_params, parametric_params

pytestmark = pytest.mark.usefixtures("one_thread")

OPTS = TrainOptions(batch_size=16, lr=0.02, eval_every=2, patience=2, max_steps=8)
CONFIGS = [mlp_stack.MLPConfig(0, 0, 0.0), mlp_stack.MLPConfig(1, 16, 0.1)]


@pytest.fixture(scope="module")
def splits(tiny):
    return representations.Splits(list(tiny["train"]), list(tiny["dev"]), list(tiny["test"]))


def spied_run(monkeypatch, rep, data, **kwargs):
    """mlp_pareto with every call of train_mlps recorded as (sets, options, result)."""
    calls = []
    train = mlp_stack.train_mlps

    def spy(configs, sets, **kw):
        res = train(configs, sets, **kw)
        calls.append((sets, kw["options"], res))
        return res

    monkeypatch.setattr(memorisation, "train_mlps", spy)
    run = memorisation.mlp_pareto(rep, data, CONFIGS, seed=0, options=OPTS, **kwargs)
    return calls, run


def test_controls_memorise_every_training_example(monkeypatch, splits):
    data = representations.task_data("posl", splits)
    rep = representations.type_representation("random", splits, dim=6, seed=0)
    X, y = rep.inputs("train", data.examples["train"].rows), data.y("train")
    calls, run = spied_run(monkeypatch, rep, data, memorise_steps=6)
    (normal,), _, _ = calls[0]
    (control,), options, res = calls[1]
    assert normal.name == "normal" and control.name == "label_shuffled"
    # Every training example, in order, with its label permuted across the whole split.
    np.testing.assert_array_equal(control.X, X)
    assert control.X_stop is control.X and control.y_stop is control.y
    assert sorted(control.y.tolist()) == sorted(y.tolist())
    assert (run.table["n_memorise"] == len(y)).all()
    # Memorisation is the accuracy on all of them.
    np.testing.assert_allclose(run.table["label_shuffled"], res.accuracy(X, control.y, 0))
    # The controls stop at their plateau (the released 0.02-bit gain), memorise_steps the cap.
    assert options == memorisation.memorisation_options(OPTS, 6)
    # A positive n_memorise is a subset: the departure the deviation table reports.
    calls, run = spied_run(monkeypatch, rep, data, n_memorise=5, memorise_steps=6)
    assert len(calls[1][0][0].y) == 5 and (run.table["n_memorise"] == 5).all()


def test_controls_stop_at_their_plateau_counted_from_their_start():
    released = memorisation.RELEASED_STOPPING
    assert (released.eval_every, released.patience, released.min_delta) == (100, 10, 0.02)
    opts = memorisation.memorisation_options(OPTS, 5000)
    assert (opts.batch_size, opts.lr) == (OPTS.batch_size, OPTS.lr)  # the probes' optimiser
    # The probes' own checks and patience, the released gain, patience counted from the start.
    assert (opts.eval_every, opts.patience, opts.max_steps) == (
        min(OPTS.eval_every, 5000), OPTS.patience, 5000)  # fmt: skip
    assert opts.min_delta == released.min_delta and opts.wait_for_start
    assert memorisation.memorisation_options(OPTS, 1).eval_every == 1  # checked at the cap


def test_probes_and_controls_record_whether_they_ended_at_the_cap(splits):
    data = representations.task_data("posl", splits)
    rep = representations.type_representation("random", splits, dim=6, seed=0)
    # Patience far beyond the cap: no run can stop before it.
    capped = TrainOptions(batch_size=16, lr=0.02, eval_every=2, patience=50, max_steps=4)
    run = memorisation.mlp_pareto(rep, data, CONFIGS, seed=0, options=capped, memorise_steps=4)
    assert run.table["at_cap"].all() and run.table["label_shuffled_at_cap"].all()
    assert run.table["fully_shuffled_at_cap"].isna().all()  # not run for a type-level vector
    nuc = parametric.linear_pareto(rep, data, "nuclear", n_probes=2, seed=0, options=capped)
    assert nuc.table["at_cap"].all()
    # Patience 1 and a far cap: every run stops on its own.
    early = TrainOptions(batch_size=16, lr=0.02, eval_every=1, patience=1, max_steps=5000)
    run = memorisation.mlp_pareto(rep, data, CONFIGS, seed=0, options=early, memorise_steps=5000)
    assert not run.table["at_cap"].any() and not run.table["label_shuffled_at_cap"].any()
    nuc = parametric.linear_pareto(rep, data, "nuclear", n_probes=2, seed=0, options=early)
    assert not nuc.table["at_cap"].any()


def test_cap_share_table_and_numbers_by_hand():
    table = cap_share_table({"probes": [True, False, False, False], "controls": [True, True]})
    assert table.index.tolist() == ["probes", "controls", "all"]
    assert table["runs"].tolist() == [4, 2, 6]
    np.testing.assert_allclose(table["cap share"], [0.25, 1.0, 0.5])
    numbers = cap_share_numbers(table)
    assert numbers["cap_share"] == pytest.approx(50.0)
    assert numbers["cap_share_worst"] == pytest.approx(100.0)
    assert numbers["cap_share_target"] == pytest.approx(100 * MAX_CAP_SHARE)
    assert "probes, controls" in numbers["cap_share_text"]
    fine = cap_share_numbers(cap_share_table({"probes": [False] * 9 + [True]}))
    assert fine["cap_share_text"].startswith("below")
    # A kind just at the target is not below it.
    edge = cap_share_numbers(cap_share_table({"a": [True] + [False] * 4, "b": [False] * 20}))
    assert "for a," in edge["cap_share_text"]


def test_chapter_cap_shares_count_every_run():
    config = MemorisationConfig.from_parameters(memorisation_params(n_configs=2, n_memorise=0))
    setup = experimental_setup.build_pareto_setup(config)
    runs = memorisation_experiment.run_memorisation(setup, config)
    caps = memorisation_experiment.memorisation_cap_shares(runs)
    n = len(runs.table)  # both tasks, the tiny setup's type-level representations
    assert caps.loc["MLP probes", "runs"] == n
    assert caps.loc["label-shuffled controls", "runs"] == n
    assert caps.loc["fully-shuffled controls", "runs"] == 0  # no contextual representation
    assert caps.loc["all", "runs"] == 2 * n
    numbers = memorisation_experiment.memorisation_set_numbers(runs)
    assert runs.whole_split and numbers["memorise_set"].startswith("every example")
    n_words = len(representations.task_data("posl", setup.splits).y("train"))
    assert numbers["n_memorise_posl"] == runs.n_train["posl"] == n_words
    config = ParametricConfig.from_parameters(parametric_params(n_probes=2))
    setup = experimental_setup.build_pareto_setup(config)
    prun = parametric_experiment.run_parametric(setup, config)
    caps = parametric_experiment.parametric_cap_shares(prun)
    for family, kind in parametric_experiment.FAMILY_RUNS.items():
        assert caps.loc[kind, "runs"] == int((prun.table["family"] == family).sum())
    assert caps.loc["all", "runs"] == len(prun.table)


def test_a_subset_is_named_as_such():
    table = pd.DataFrame({"task": ["posl", "dal"], "n_memorise": [5, 5]})
    runs = memorisation_experiment.MemorisationRuns(
        {}, table, {}, ["label_shuffled"], "label_shuffled", {"posl": 9, "dal": 5}
    )
    numbers = memorisation_experiment.memorisation_set_numbers(runs)
    assert not runs.whole_split and numbers["memorise_set"].startswith("a random subset")
    assert numbers["n_memorise_dal"] == 5


@pytest.mark.parametrize(
    ("cls", "params", "protocol"),
    [
        (ParametricConfig, parametric_params, PROTOCOL_32),
        (MemorisationConfig, memorisation_params, PROTOCOL_33),
    ],
)
def test_protocol_rows_follow_the_parameters(cls, params, protocol):
    paper = dict(
        model="bert-base-multilingual-cased",
        layer=-1,
        pooling="mean",
        n_train=0,
        n_dev=0,
        n_test=0,
        batch_size=2048,
        lr=0.001,
        eval_every=100,
        patience=10,
    )
    table = deviation_table(cls.from_parameters(params(**paper)), protocol).set_index("setting")
    assert table.index.tolist() == [s.parameter for s in protocol]
    assert not table.loc[list(paper), "deviates"].any()
    # Settings no parameter can reproduce always deviate.
    assert table.loc[["type_dim", "max_steps"], "deviates"].all()
    ours = deviation_table(cls.from_parameters(params(layer=2, n_train=7)), protocol)
    ours = ours.set_index("setting")
    assert ours.loc["layer", "deviates"] and ours.loc["n_train", "ours"] == "7 sentences"


def test_protocol_33_asks_for_the_whole_training_split():
    whole = MemorisationConfig.from_parameters(memorisation_params(n_memorise=0))
    row = deviation_table(whole, PROTOCOL_33).set_index("setting").loc["n_memorise"]
    assert not row["deviates"] and row["ours"] == "all"
    subset = MemorisationConfig.from_parameters(memorisation_params(n_memorise=3))
    row = deviation_table(subset, PROTOCOL_33).set_index("setting").loc["n_memorise"]
    assert row["deviates"] and row["ours"] == "3 training examples"


def test_rank_frontiers_with_every_rank_are_complete():
    config = ParametricConfig.from_parameters(parametric_params(families=["rank"], n_probes=60))
    setup = experimental_setup.build_pareto_setup(config)
    runs = parametric_experiment.run_parametric(setup, config)
    stability = parametric_experiment.parametric_stability(runs, seed=0)
    assert stability["complete"].all()
    # Every rank under each of the two training seeds.
    assert (stability["n_probes"] == 2 * stability["task"].map(runs.n_classes)).all()
    fewer = ParametricConfig.from_parameters(parametric_params(n_probes=3))
    runs = parametric_experiment.run_parametric(setup, fewer)
    assert not parametric_experiment.parametric_stability(runs, seed=0)["complete"].any()


def test_stability_text_separates_complete_frontiers_from_sparse_ones():
    table = pd.DataFrame(
        {
            "difference": [0.0, 0.1, 0.2, 0.3],
            "stable": [True, False, False, False],
            "complete": [False, True, False, False],
            "n_halves": 200,
        }
    )
    text = frontiers.stability_numbers(table)["stability_text"]
    assert text.startswith("3 of 4 frontiers") and "for 1 of them every complexity" in text
    assert "the other 2 rest on too few probes" in text
    only = frontiers.stability_numbers(table.iloc[:2])["stability_text"]
    assert "for all of them every complexity value" in only and "too few" not in only
    sparse = frontiers.stability_numbers(table.drop(columns="complete"))["stability_text"]
    assert "3 of 4" in sparse and "every complexity value" not in sparse


def test_rank_probes_stack_by_power_of_two_and_train_as_alone():
    X, y = blobs(200, 0, C=6, d=8)
    Xd, yd = blobs(80, 1, C=6, d=8)
    configs = [L.LinearProbeConfig(rank=r) for r in (1, 2, 3, 4, 5, 6)]
    fast = TrainOptions(batch_size=32, lr=0.02, eval_every=5, patience=3, max_steps=60)
    together = L.train_linear_probes(configs, X, y, Xd, yd, seed=0, n_classes=6, options=fast)
    # Ranks 1, 2, 3-4 and 5-6 (up to 8): four stacks, none computing more than twice its ranks.
    assert [m.tolist() for m, _ in together.stacks] == [[0], [1], [2, 3], [4, 5]]
    alone = L.train_linear_probes(configs[4:5], X, y, Xd, yd, seed=0, n_classes=6, options=fast)
    assert alone.dev_loss[0] == pytest.approx(together.dev_loss[4], rel=1e-4, abs=1e-6)
    assert alone.best_step[0] == together.best_step[4]
