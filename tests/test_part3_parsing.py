"""Tests for chapter 34's parsing runs (Pimentel et al. 2020, §7.2): the controls memorise the
whole training split in the parsers' stacks, seeds share a stack, every run records whether it
ended at its cap, and the protocol table."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from probekit.errors import ParameterError
from probekit.experiments.deviations import deviation_table
from probekit.experiments.part3_pareto import (
    ceiling,
    experimental_setup,
    layer_choice,
    parsing,
    parsing_experiment,
    representations,
)
from probekit.experiments.part3_pareto.config import ParsingConfig
from probekit.experiments.part3_pareto.protocol import PROTOCOL_34
from probekit.io.records import Record
from probekit.probes import biaffine, biaffine_stack, mlp_stack
from probekit.probes.training import TrainOptions
from test_part3_config import parsing_params

pytestmark = pytest.mark.usefixtures("one_thread")

OPTS = TrainOptions(batch_size=2, lr=0.05, eval_every=2, patience=2, max_steps=6)


@pytest.fixture(scope="module")
def splits(tiny):
    return representations.Splits(list(tiny["train"]), list(tiny["dev"]), list(tiny["test"]))


def trained_sets(monkeypatch, rep, splits, **kwargs):
    """The sets of every train_parsers call parse_mlp_pareto makes, by call."""
    seen = []
    train = biaffine_stack.train_parsers

    def spy(runs, sets, **kw):
        seen.append(sets)
        return train(runs, sets, **kw)

    monkeypatch.setattr(biaffine_stack, "train_parsers", spy)
    run = parsing.parse_mlp_pareto(
        rep, splits, [mlp_stack.MLPConfig(1, 8, 0.0)], seed=0, options=OPTS, **kwargs
    )
    return seen, run


def test_controls_memorise_the_whole_training_split(monkeypatch, splits):
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    scored = []
    uas = biaffine_stack.BiaffineResult.uas

    def spy(self, inputs, heads, which=None):
        scored.append(len(inputs))
        return uas(self, inputs, heads, which)

    monkeypatch.setattr(biaffine_stack.BiaffineResult, "uas", spy)
    seen, run = trained_sets(monkeypatch, rep, splits, memorise_steps=4)
    everything = [np.asarray(s).tolist() for s in rep.sentences("train")]
    # One call: the parser and its control (label-shuffled) share a stack and its minibatches.
    ((normal, control),) = seen
    assert [np.asarray(s).tolist() for s in control.inputs] == everything
    assert control.inputs is normal.inputs
    assert control.max_steps == 4 and normal.max_steps is None
    # Its checks read a sample of its sentences as large as the dev split; its memorisation is
    # measured on all of them.
    checked = [np.asarray(s).tolist() for s in control.stop_inputs]
    assert len(checked) == min(len(splits.dev), len(splits.train))
    assert all(s in everything for s in checked)
    assert scored == [len(splits.train)]
    assert (run.table["n_memorise"] == len(splits.train)).all()
    # A subset parameter changes it, and the control then trains on its own.
    seen, run = trained_sets(monkeypatch, rep, splits, n_memorise=2, memorise_steps=4)
    assert [len(call) for call in seen] == [1, 1] and len(seen[1][0].inputs) == 2
    assert (run.table["n_memorise"] == 2).all()


def test_runs_record_whether_they_ended_at_the_cap(splits):
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    # patience far beyond the cap: no run can stop before it.
    capped = TrainOptions(batch_size=2, lr=0.05, eval_every=2, patience=50, max_steps=4)
    run = parsing.parse_mlp_pareto(
        rep, splits, [mlp_stack.MLPConfig(1, 8, 0.0)], seed=0, options=capped, memorise_steps=4
    )
    assert run.table["at_cap"].all() and run.table["label_shuffled_at_cap"].all()
    assert run.table["fully_shuffled_at_cap"].isna().all()
    lin = parsing.parse_linear_pareto(rep, splits, n_probes=2, seed=0, options=capped)
    assert lin.table["at_cap"].all()
    # With patience 1 and a cap far away, every run stops on its own.
    early = TrainOptions(batch_size=2, lr=0.05, eval_every=1, patience=1, max_steps=500)
    lin = parsing.parse_linear_pareto(rep, splits, n_probes=2, seed=0, options=early)
    assert not lin.table["at_cap"].any()


def test_seeded_parsers_share_a_stack(monkeypatch, splits):
    rep = representations.type_representation("random", splits, dim=4, seed=0)
    calls = []
    train = biaffine_stack.train_parsers

    def spy(runs, sets, **kw):
        calls.append((runs, kw["seed"]))
        return train(runs, sets, **kw)

    monkeypatch.setattr(biaffine_stack, "train_parsers", spy)
    run = parsing.parse_mlp_seeds(
        rep, splits, mlp_stack.MLPConfig(1, 8, 0.2), 3, [1, 2, 3], seed=0, options=OPTS
    )
    ((runs, order_seed),) = calls  # one call, one stack: the seeds train together
    assert [r.seed for r in runs] == [1, 2, 3] and order_seed == 0
    assert run.table["seed"].tolist() == [1, 2, 3] and (run.table["probe"] == 3).all()
    assert run.correct.shape == (3, splits.n_words("test"))


def test_protocol_34_rows_follow_the_parameters():
    config = ParsingConfig.from_parameters(parsing_params(n_memorise=0))
    table = deviation_table(config, PROTOCOL_34)
    assert list(table["setting"]) == [s.parameter for s in PROTOCOL_34]
    row = table.set_index("setting").loc["n_memorise"]
    assert not row["deviates"]  # the whole split, as the paper
    subset = ParsingConfig.from_parameters(parsing_params(n_memorise=3))
    assert deviation_table(subset, PROTOCOL_34).set_index("setting").loc["n_memorise", "deviates"]
    # Settings no parameter can reproduce always deviate.
    assert table.set_index("setting").loc["max_steps", "deviates"]


def test_cap_shares_count_every_kind_of_run(splits):
    config = ParsingConfig.from_parameters(
        parsing_params(n_configs=1, max_steps=4, eval_every=2, batch_size=2)
    )
    setup = experimental_setup.build_pareto_setup(config)
    runs = parsing_experiment.run_parsing(setup, config)
    caps = parsing_experiment.parsing_cap_shares(runs)
    n_mlp = len(runs.mlp_table)
    assert caps.loc["MLP parsers", "runs"] == caps.loc["label-shuffled controls", "runs"] == n_mlp
    # The tiny treebank has type-level representations only: no fully-shuffled control ran, and
    # a control that did not run is not a run that ended at its cap.
    assert caps.loc["fully-shuffled controls", "runs"] == 0
    assert caps.loc["all", "runs"] == 2 * n_mlp + len(runs.linear_table)
    assert caps["cap share"].dropna().between(0, 1).all()
    numbers = parsing_experiment.linear_parsing_numbers(runs, 700.0, 0.1, {})
    assert numbers["init_norm"] == pytest.approx(biaffine.INIT_NUCLEAR_NORM, rel=1e-4)


def test_parsing_ceiling_trains_one_probe_to_its_stop(splits):
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    c = ceiling.parsing_ceiling(rep, splits, config=mlp_stack.MLPConfig(1, 8, 0.0), options=OPTS)
    assert 0 <= c.uas <= 1 and 0 <= c.dev_uas <= 1 and c.best_step <= OPTS.max_steps


def test_ceiling_numbers_pick_the_contextual_parser_on_dev():
    mlp = pd.DataFrame(
        {
            "representation": ["contextual", "contextual", "onehot"],
            "dev_accuracy": [0.5, 0.7, 0.9],
            "accuracy": [0.6, 0.55, 0.9],
        }
    )
    runs = parsing_experiment.ParsingRuns({}, mlp, {}, None, ["label_shuffled"], "label_shuffled")
    config = ParsingConfig.from_parameters(parsing_params())
    numbers = parsing_experiment.ceiling_numbers(runs, config, None, False)
    assert numbers["best_ctx_uas"] == pytest.approx(55.0) and numbers["best_ctx_kind"] == "MLP"
    # No record for this set-up: no ceiling, and the chapter says so.
    assert np.isnan(numbers["ceiling_uas"]) and numbers["ceiling_text"].startswith("not")
    assert numbers["ceiling_stale"] == "not recorded for this set-up"
    record = _record(config, uas=0.58)
    current = parsing_experiment.ceiling_numbers(runs, config, record, False)
    assert current["ceiling_uas"] == pytest.approx(58.0)
    assert current["ceiling_gap"] == pytest.approx(3.0)
    assert current["ceiling_text"] == "within 5 points"
    assert current["ceiling_stale"].startswith("current")
    stale = parsing_experiment.ceiling_numbers(runs, config, record, True)
    assert stale["ceiling_stale"].startswith("stale") and stale["ceiling_uas"] == pytest.approx(
        58.0
    )
    other = parsing_experiment.ceiling_numbers(runs, replace(config, layer=2), record, False)
    assert np.isnan(other["ceiling_uas"])
    # The chapter's best architecture on the whole split: read only for that architecture.
    best = mlp_stack.MLPConfig(2, 64, 0.25)
    c = ceiling.Ceiling(uas=0.57, dev_uas=0.57, best_step=10, at_cap=False, n_train=50)
    parameters, result = ceiling.ceiling_record(c, config, best)
    full = Record("parsing_best_full", "b.py", parameters, result, "0" * 64, {}, 1.0, "2026-01-02")
    numbers = parsing_experiment.ceiling_numbers(runs, config, record, False, (best, full, False))
    assert numbers["best_full_uas"] == pytest.approx(57.0)
    assert numbers["best_full_gap"] == pytest.approx(1.0)
    assert numbers["best_full_mlp"] == "2 hidden layers of 64 units, dropout 0.25"
    assert json.loads(numbers["best_ctx_mlp"]) == {
        "n_layers": 2,
        "hidden_size": 64,
        "dropout": 0.25,
    }
    assert numbers["best_full_stale"].startswith("current")
    wider = mlp_stack.MLPConfig(2, 128, 0.25)
    numbers = parsing_experiment.ceiling_numbers(runs, config, record, False, (wider, full, True))
    assert np.isnan(numbers["best_full_uas"])
    assert numbers["best_full_stale"] == "not recorded for this set-up"


def _record(config, uas):
    c = ceiling.Ceiling(uas=uas, dev_uas=uas, best_step=100, at_cap=False, n_train=50)
    parameters, result = ceiling.ceiling_record(c, config)
    return Record("parsing_ceiling", "b.py", parameters, result, "0" * 64, {}, 1.0, "2026-01-01")


def test_layer_numbers_say_what_the_pass_chose_and_the_lead_at_each_layer():
    table = pd.DataFrame(
        {
            "layer": [0, 1, 2, 0, 1, 2],
            "kind": ["MLP"] * 3 + ["linear"] * 3,
            "dev_uas": [0.4, 0.8, 0.6, 0.3, 0.5, 0.4],
            "uas": [0.42, 0.78, 0.55, 0.3, 0.5, 0.4],
        }
    )
    selection = layer_choice.LayerSelection(table, 1, 3, 100, 50)
    mlp = pd.DataFrame(
        {"representation": ["contextual", "onehot", "random"], "dev_accuracy": [0.8, 0.6, 0.7],
         "accuracy": [0.79, 0.65, 0.5]}
    )  # fmt: skip
    runs = parsing_experiment.ParsingRuns({}, mlp, {}, None, ["label_shuffled"], "label_shuffled")
    config = ParsingConfig.from_parameters(parsing_params(layer=None))
    numbers = parsing_experiment.layer_numbers(selection, runs, config)
    assert numbers["layer_text"] == (
        "The pass chooses layer 1, where its MLP parser reaches 80.0 % development UAS and "
        "78.0 % on the test set; on the last layer (2) it reaches 55.0 %."
    )
    # The rival is the type-level parser with the best dev UAS (random), read on test (50 %).
    assert numbers["lead_text"] == (
        "+28.0 points at the chosen layer and +5.0 points at the last one"
    )
    given = parsing_experiment.layer_numbers(None, runs, replace(config, layer=6))
    assert "given (6)" in given["layer_text"]
    fig = parsing_experiment.plot_layers(selection, runs, None, config)
    assert len(fig.axes[0].lines) >= 3  # two kinds, the chosen layer and the rival


def test_controls_cannot_outlast_their_parsers_stack():
    """The controls train in their parsers' stacks, which stop at max_steps: a longer control
    budget is refused before anything runs."""
    with pytest.raises(ParameterError) as info:
        ParsingConfig.from_parameters(parsing_params(memorise_steps=21, max_steps=20))
    assert info.value.name == "memorise_steps"
    config = ParsingConfig.from_parameters(parsing_params(memorise_steps=20, max_steps=20))
    assert config.memorise_steps == config.max_steps
