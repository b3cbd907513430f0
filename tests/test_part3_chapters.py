"""Tests for the experiments of Part III's probing chapters (Pimentel et al. 2020): chapter 32
(parametric_experiment), 33 (memorisation_experiment) and 34 (parsing_experiment). The runs are
trained on the tiny treebank; their readings are checked on hand-built runs with known
answers."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from probekit.experiments.part3_pareto import (
    claims,
    experimental_setup,
    memorisation_experiment,
    parametric_experiment,
    parsing_experiment,
    representations,
)
from probekit.experiments.part3_pareto.config import (
    MemorisationConfig,
    ParametricConfig,
    ParsingConfig,
)
from probekit.experiments.part3_pareto.frontiers import hypervolume_table, simple_vs_best
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.methods.pareto import frontier
from test_part3_config import memorisation_params, parametric_params, parsing_params

pytestmark = pytest.mark.usefixtures("one_thread")

LABELS = {"contextual": "ctx", "fasttext": "fastText", "onehot": "one-hot", "random": "random"}


def probes(representation, task, family, points, n_test=4):
    """A ParetoRun of probes at (complexity, accuracy, dev accuracy) ``points``; probe k is
    right on the first round(accuracy * n_test) test items."""
    table = pd.DataFrame(points, columns=["complexity", "accuracy", "dev_accuracy"]).assign(
        representation=representation, task=task, family=family
    )
    table["probe"] = np.arange(len(table))
    correct = np.stack([np.arange(n_test) < round(a * n_test) for a in table["accuracy"]])
    return ParetoRun(table, correct, np.arange(n_test) // 2)


# --------------------------------------------------------------------------------------------
# Chapter 32: parametric complexity
# --------------------------------------------------------------------------------------------


def test_run_parametric_on_the_tiny_treebank():
    config = ParametricConfig.from_parameters(parametric_params(n_probes=2))
    setup = experimental_setup.build_pareto_setup(config)
    runs = parametric_experiment.run_parametric(setup, config)
    assert list(runs.runs) == [
        (task, name, family)
        for task in ("posl", "dal")
        for name in ("onehot", "random")
        for family in ("nuclear", "rank")
    ]
    assert len(runs.table) == sum(len(r.table) for r in runs.runs.values())
    dal = representations.task_data("dal", setup.splits)
    assert runs.n_classes["dal"] == dal.n_classes and runs.tasks == ["posl", "dal"]
    assert runs.cap("dal", "rank") == dal.n_classes and runs.cap("dal", "nuclear") == 400.0


def parametric_runs():
    """POSL only, contextual and one-hot, both families; the rank's cap C is 10."""
    nuclear = {
        "contextual": [(10.0, 0.5, 0.5), (60.0, 0.9, 0.9)],
        "onehot": [(5.0, 0.75, 0.7), (300.0, 0.8, 0.8)],
    }
    rank = {"contextual": [(2.0, 0.5, 0.5), (8.0, 1.0, 1.0)], "onehot": [(1.0, 0.5, 0.4)]}
    runs = {}
    for family, points in (("nuclear", nuclear), ("rank", rank)):
        for name, p in points.items():
            run = probes(name, "posl", family, p)
            run.table["max_complexity"] = 10.0 if family == "rank" else np.inf
            runs[("posl", name, family)] = run
    table = pd.concat([r.table for r in runs.values()], ignore_index=True)
    return parametric_experiment.ParametricRuns(
        runs, table, {"posl": 10}, ["nuclear", "rank"], 400.0
    )


def test_parametric_hypervolumes_cap_each_family():
    hv = parametric_experiment.parametric_hypervolumes(parametric_runs()).set_index(
        ["family", "representation"]
    )
    expected = frontier.hypervolume([5.0, 300.0], [0.75, 0.8], 400.0)
    assert hv.loc[("nuclear", "onehot"), "hypervolume"] == pytest.approx(expected)
    # The rank is capped at C = 10: (8 - 2) * 0.5 + (10 - 8) * 1.0 over 10.
    assert hv.loc[("rank", "contextual"), "hypervolume"] == pytest.approx(0.5)
    assert hv.loc[("rank", "contextual"), "paper"] == 0.80  # Table 3, POSL, rank, BERT
    shown = parametric_experiment.parametric_hypervolume_table(hv.reset_index(), LABELS)
    assert shown.index.names == ["task", "family", "representation"]
    assert ("POSL", "rank", "ctx") in shown.index


def test_parametric_leaders_numbers_and_table():
    leaders = parametric_experiment.parametric_leaders(parametric_runs(), 0.1, LABELS)
    assert leaders[["task", "family"]].values.tolist() == [["posl", "nuclear"], ["posl", "rank"]]
    nuclear, rank = leaders.to_dict("records")
    # Up to 40 (10 % of 400) one-hot's 0.75 from 5 beats the contextual 0.5 from 10.
    assert nuclear["winner"] == "onehot" and nuclear["simple"] == "one-hot"
    assert nuclear["leaders"] == "one-hot (5.0 to 60.0), then ctx (60.0 to 400.0)"
    # Up to 1 (10 % of C = 10) no frontier has any area yet; from 2 the contextual one ties
    # one-hot (the first in table order leads) and then beats it.
    assert pd.isna(rank["winner"]) and rank["simple"] == "none"
    assert rank["leaders"] == "one-hot (1 to 2), then ctx (2 to 10)"
    numbers = parametric_experiment.parametric_leader_numbers(leaders)
    assert numbers["simple_posl_nuclear"] == "one-hot"
    assert numbers["leaders_dal_rank"] == numbers["simple_dal_nuclear"] == "not run"
    assert len(numbers) == 8
    table = parametric_experiment.parametric_leader_table(leaders)
    assert table.index.tolist() == [("POSL", "nuclear"), ("POSL", "rank")]
    assert table.columns.tolist() == ["simple-probe winner", "frontier held by"]


def test_parametric_accuracy_numbers():
    numbers = parametric_experiment.parametric_accuracy_numbers(parametric_runs())
    assert numbers["best_posl_contextual"] == pytest.approx(100.0)
    assert numbers["best_posl_onehot"] == pytest.approx(80.0)
    assert numbers["ctx_gap_posl"] == pytest.approx(20.0)
    assert math.isnan(numbers["best_dal_onehot"]) and math.isnan(numbers["ctx_gap_dal"])
    assert numbers["best_paper_dal_random"] == pytest.approx(57.6)


def test_plot_parametric():
    runs = parametric_runs()
    fig = parametric_experiment.plot_parametric(runs, "rank", LABELS)
    assert fig.axes[0].get_xlim() == (0.0, 10.0) and fig.axes[0].get_title() == "POSL"
    nuclear_only = parametric_experiment.ParametricRuns(
        runs.runs, runs.table, runs.n_classes, ["nuclear"], 400.0
    )
    placeholder = parametric_experiment.plot_parametric(nuclear_only, "rank", LABELS)
    assert "rank family was not run" in placeholder.axes[0].texts[0].get_text()


# --------------------------------------------------------------------------------------------
# Chapter 33: memorisation complexity
# --------------------------------------------------------------------------------------------


def test_run_memorisation_on_the_tiny_treebank():
    config = MemorisationConfig.from_parameters(
        memorisation_params(n_configs=2, n_memorise=5, tasks=["posl"])
    )
    setup = experimental_setup.build_pareto_setup(config)
    runs = memorisation_experiment.run_memorisation(setup, config)
    assert list(runs.runs) == [("posl", "onehot"), ("posl", "random")]
    assert runs.tasks == ["posl"] and runs.x == "label_shuffled" and runs.n_memorise == 5
    upos = np.concatenate([s.upos for s in setup.splits.train])
    _, counts = np.unique(upos, return_counts=True)
    assert runs.majority_share("posl") == pytest.approx(counts.max() / len(upos))
    assert math.isnan(runs.majority_share("dal"))
    hv = memorisation_experiment.memorisation_hypervolumes(runs)
    # No fully-shuffled control for type-level representations: those groups are left out.
    assert set(hv["family"]) == {"label_shuffled"} and len(hv) == 2
    numbers = memorisation_experiment.control_numbers(runs, config.representations)
    assert math.isnan(numbers["full_minus_label_mean"])
    table = memorisation_experiment.architecture_table(setup.architectures)
    assert table.columns.tolist() == ["hidden layers", "hidden size", "dropout"]
    # Each training seed's own two draws.
    assert len(table) == 4 and table.index.names == ["seed", "architecture"]
    assert sorted(set(table.index.get_level_values("seed"))) == sorted(config.seeds)


def memorisation_runs(controls=("label_shuffled", "fully_shuffled")):
    """POSL only: contextual MLPs memorising (0.2, 0.6) of the shuffled labels on the real
    sentences and (0.3, 0.4) on shuffled ones; one-hot MLPs memorising (0.1, 0.9)."""
    ctx = probes("contextual", "posl", "mlp", [(0.2, 0.5, 0.5), (0.6, 1.0, 1.0)])
    ctx.table["label_shuffled"], ctx.table["fully_shuffled"] = [0.2, 0.6], [0.3, 0.4]
    onehot = probes("onehot", "posl", "mlp", [(0.1, 0.75, 0.75), (0.9, 0.75, 0.7)])
    onehot.table["label_shuffled"], onehot.table["fully_shuffled"] = [0.1, 0.9], np.nan
    runs = {("posl", "contextual"): ctx, ("posl", "onehot"): onehot}
    table = pd.concat([r.table for r in runs.values()], ignore_index=True)
    return memorisation_experiment.MemorisationRuns(
        runs, table, {"posl": 0.25}, list(controls), "label_shuffled"
    )


def test_memorisation_hypervolumes_and_numbers():
    runs = memorisation_runs()
    assert runs.least_memorised("posl") == pytest.approx(0.1)
    assert math.isnan(runs.least_memorised("dal"))
    hv = memorisation_experiment.memorisation_hypervolumes(runs)
    assert hv[["family", "representation"]].values.tolist() == [
        ["label_shuffled", "contextual"],
        ["label_shuffled", "onehot"],
        ["fully_shuffled", "contextual"],
    ]
    # Label-shuffled contextual frontier: 0.5 over [0.2, 0.6), 1.0 over [0.6, 1].
    assert hv["hypervolume"].iloc[0] == pytest.approx(0.4 * 0.5 + 0.4 * 1.0)
    numbers = memorisation_experiment.control_numbers(runs, ["contextual", "onehot"])
    assert numbers["full_minus_label_mean"] == pytest.approx(100 * (0.1 - 0.2) / 2)
    full = frontier.hypervolume([0.3, 0.4], [0.5, 1.0], 1.0)
    assert numbers["hv_full_minus_label_posl"] == pytest.approx(full - 0.6)
    assert math.isnan(numbers["hv_full_minus_label_dal"])
    # The contextual lead that chapter 34 reads (claim III.5), from the same frontiers.
    lead = claims.contextual_lead_interval(
        {name: runs.runs[("posl", name)] for name in ("contextual", "onehot")},
        "label_shuffled",
        n_boot=100,
        seed=0,
    )
    onehot_hv = 0.9 * 0.75  # 0.75 from 0.1 to the cap
    assert lead.estimate == pytest.approx(0.6 - onehot_hv)
    shown = memorisation_experiment.memorisation_hypervolume_table(hv, LABELS)
    assert shown.index.names == ["task", "complexity", "representation"]
    assert shown.columns.tolist() == [
        "hypervolume (ours)",
        "Table 3 (paper, English)",
        "best accuracy",
    ]


def test_memorisation_figures():
    runs = memorisation_runs()
    fig = memorisation_experiment.plot_memorisation(runs, LABELS)
    assert fig.axes[0].get_title() == "POSL"
    both = memorisation_experiment.plot_memorisation_controls(runs, ["contextual", "onehot"])
    assert len(both.axes[0].lines) == 2
    one = memorisation_runs(controls=("fully_shuffled",))
    assert "label-shuffled control was not run" in (
        memorisation_experiment.plot_memorisation(one, LABELS).axes[0].texts[0].get_text()
    )
    assert "both controls" in (
        memorisation_experiment.plot_memorisation_controls(one, ["contextual"])
        .axes[0]
        .texts[0]
        .get_text()
    )


def test_simple_vs_best_numbers_and_table():
    runs = memorisation_runs()
    gaps = simple_vs_best(runs.table, runs.x)
    numbers = memorisation_experiment.simple_vs_best_numbers(gaps)
    # Contextual: the simpler half (memorisation 0.2) reaches 0.5 of the best 1.0.
    assert numbers["gap_posl_contextual"] == pytest.approx(50.0)
    assert numbers["gap_posl_onehot"] == pytest.approx(0.0)
    assert math.isnan(numbers["gap_dal_random"])
    assert numbers["max_gap"] == pytest.approx(50.0) and numbers["mean_gap"] == pytest.approx(25)
    table = memorisation_experiment.simple_vs_best_table(gaps, LABELS)
    assert table.loc[("POSL", "ctx"), "best of the simpler half (%)"] == pytest.approx(50.0)


def test_memorisation_leaders():
    runs = memorisation_runs()
    leaders = memorisation_experiment.memorisation_leaders(runs, 0.5, LABELS)
    assert leaders["task"].tolist() == ["posl"]
    # Up to 0.5 one-hot's 0.75 from 0.1 beats the contextual 0.5 from 0.2.
    assert leaders["winner"].tolist() == ["onehot"]
    assert leaders["leaders"].iloc[0] == "one-hot (0.10 to 0.60), then ctx (0.60 to 1.00)"
    numbers = memorisation_experiment.memorisation_leader_numbers(leaders)
    assert numbers == {
        "leaders_posl": leaders["leaders"].iloc[0],
        "simple_posl": "one-hot",
        "leaders_dal": "not run",
        "simple_dal": "not run",
    }


# --------------------------------------------------------------------------------------------
# Chapter 34: dependency parsing
# --------------------------------------------------------------------------------------------


def test_run_parsing_on_the_tiny_treebank():
    config = ParsingConfig.from_parameters(
        parsing_params(n_configs=1, max_steps=4, eval_every=2, batch_size=2)
    )
    setup = experimental_setup.build_pareto_setup(config)
    runs = parsing_experiment.run_parsing(setup, config)
    assert list(runs.mlp) == list(runs.linear) == ["onehot", "random"]
    assert runs.n_memorise == 2 and runs.x == "label_shuffled"
    assert set(runs.linear_table["family"]) == {"nuclear"}
    off = ParsingConfig.from_parameters(
        parsing_params(n_configs=1, max_steps=4, eval_every=2, batch_size=2, linear=False)
    )
    without = parsing_experiment.run_parsing(setup, off)
    assert without.linear == {} and without.linear_table is None
    numbers = parsing_experiment.linear_parsing_numbers(without, 700.0, 0.1, LABELS)
    assert numbers["leaders_nuclear"] == numbers["simple_nuclear"] == "not run"
    assert math.isnan(numbers["best_linear_max"])


def parsing_runs(linear=True):
    """MLP parsers of three representations over 3 test sentences of 2, 1 and 3 words."""
    points = {
        "contextual": [(0.2, 5 / 6, 0.9), (0.5, 0.5, 0.5)],
        "onehot": [(0.1, 0.5, 0.6)],
        "random": [(0.3, 2 / 6, 0.7)],
    }
    groups = np.array([0, 0, 1, 2, 2, 2])
    mlp = {}
    for name, p in points.items():
        run = probes(name, "parse", "mlp", p, n_test=6)
        run.table["label_shuffled"] = run.table["complexity"]
        run.table["fully_shuffled"] = run.table["complexity"] + 0.1
        run.table["n_memorise"] = 2
        mlp[name] = ParetoRun(run.table, run.correct, groups)
    lin = {"onehot": probes("onehot", "parse", "nuclear", [(50.0, 0.5, 0.5), (600.0, 0.8, 0.8)])}
    return parsing_experiment.ParsingRuns(
        mlp,
        pd.concat([r.table for r in mlp.values()], ignore_index=True),
        lin if linear else {},
        lin["onehot"].table if linear else None,
        ["label_shuffled", "fully_shuffled"],
        "label_shuffled",
    )


def test_parsing_hypervolumes_and_numbers():
    runs = parsing_runs()
    hv = parsing_experiment.parsing_hypervolumes(runs)
    assert hv["representation"].tolist() == ["contextual", "onehot", "random"]
    assert hv["paper"].tolist() == [0.57, 0.32, 0.39]  # Table 2
    numbers = parsing_experiment.parsing_numbers(runs, hv)
    contextual = frontier.hypervolume([0.2, 0.5], [5 / 6, 0.5], 1.0)
    assert numbers["hv_contextual"] == pytest.approx(contextual)
    assert numbers["best_contextual"] == pytest.approx(100 * 5 / 6)
    assert math.isnan(numbers["hv_fasttext"]) and math.isnan(numbers["best_fasttext"])
    assert numbers["best_mlp_max"] == pytest.approx(100 * 5 / 6)
    onehot = frontier.hypervolume([0.1], [0.5], 1.0)
    lead = claims.contextual_lead_interval(runs.mlp, runs.x, n_boot=100, seed=0)
    assert lead.estimate == pytest.approx(contextual - onehot)
    shown = parsing_experiment.parsing_hypervolume_table(hv, LABELS)
    assert shown.index.tolist() == ["ctx", "one-hot", "random"]


def test_parsing_summaries_and_figures():
    runs = parsing_runs()
    mlp = parsing_experiment.mlp_parsing_summary(runs, 0.15, LABELS)
    assert mlp.winner == "onehot"
    assert mlp.leaders == "one-hot (0.10 to 0.20), then ctx (0.20 to 1.00)"
    numbers = parsing_experiment.linear_parsing_numbers(runs, 700.0, 0.1, LABELS)
    assert numbers["leaders_nuclear"] == "one-hot (50 to 700)"
    assert numbers["simple_nuclear"] == "one-hot"
    assert numbers["best_linear_max"] == pytest.approx(80.0)
    assert parsing_experiment.control_shift_points(runs) == pytest.approx(10.0)
    assert parsing_experiment.plot_parsing(runs, LABELS).axes[0].get_title() == (
        "Dependency parsing"
    )
    controls = parsing_experiment.plot_parsing_controls(runs, LABELS)
    assert controls.axes[0].get_title() == "ctx"
    assert parsing_experiment.plot_linear_parsing(runs, 700.0, LABELS).axes[0].get_xlim() == (
        0.0,
        700.0,
    )
    none = parsing_runs(linear=False)
    text = parsing_experiment.plot_linear_parsing(none, 700.0, LABELS).axes[0].texts[0]
    assert "linear parsers were not run" in text.get_text()


def test_contextual_against_the_best_type_level_rival_over_seeds():
    config = ParsingConfig.from_parameters(
        parsing_params(n_configs=2, max_steps=4, eval_every=2, batch_size=2, claim_seeds=[5, 6])
    )
    setup = experimental_setup.build_pareto_setup(config)
    # Random vectors stand in for the contextual representation on the tiny treebank.
    reps = setup.representations
    setup = dataclasses.replace(
        setup, representations={"contextual": reps["random"], "onehot": reps["onehot"]}
    )
    groups = np.zeros(3, dtype=np.int64)
    # Two architectures of training seed 4 (the configuration's seeds are 3 and 4).
    table = pd.DataFrame({"probe": [0, 1], "seed": [4, 4], "dev_accuracy": [0.2, 0.6]})
    runs = parsing_experiment.ParsingRuns(
        {
            "contextual": ParetoRun(table, np.zeros((2, 3), bool), groups),
            "onehot": ParetoRun(table.assign(dev_accuracy=[0.5, 0.1]), np.zeros((2, 3)), groups),
        },
        table,
        {},
        None,
        ["label_shuffled"],
        "label_shuffled",
    )
    result = parsing_experiment.contextual_against_rival(runs, setup, config)
    # Each side's architecture is its best by development UAS; both train once per seed.
    assert result.rival == "onehot"
    assert result.architectures == {"contextual": (4, 1), "onehot": (4, 0)}
    n_words = setup.splits.n_words("test")
    for name in ("contextual", "onehot"):
        assert result.runs[name].table["seed"].tolist() == [5, 6]
        assert result.runs[name].correct.shape == (2, n_words)
    a, b, units = result.sentence_scores()
    assert a.shape == b.shape == (2, len(setup.splits.test))
    assert units.tolist() == [len(s) for s in setup.splits.test]
    np.testing.assert_allclose(a.sum(1) / units.sum(), result.runs["contextual"].table["accuracy"])
    numbers = parsing_experiment.rival_numbers(result, LABELS)
    assert numbers["rival"] == "one-hot" and numbers["n_claim_seeds"] == 2
    uas = 100 * result.runs["contextual"].table["accuracy"]
    assert numbers["uas_contextual"] == pytest.approx(uas.mean())
    assert numbers["uas_contextual_seeds"] == ", ".join(f"{u:.1f}" for u in uas)
    only_ctx = dataclasses.replace(runs, mlp={"contextual": runs.mlp["contextual"]})
    assert parsing_experiment.contextual_against_rival(only_ctx, setup, config) is None
    missing = parsing_experiment.rival_numbers(None, LABELS)
    assert missing["rival"] == "not run" and math.isnan(missing["uas_contextual"])


def test_hypervolume_table_reads_the_parsing_control():
    # The parsing hypervolume is the one hypervolume_table gives under the complexity control.
    runs = parsing_runs()
    direct = hypervolume_table(runs.mlp_table.assign(family="label_shuffled"), "label_shuffled", 1)
    hv = parsing_experiment.parsing_hypervolumes(runs)
    np.testing.assert_allclose(hv["hypervolume"], direct["hypervolume"])
