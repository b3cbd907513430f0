"""Tests for what Part III's chapters read out of their runs (Pimentel et al. 2020): frontier
summaries and paired tests at a budget, the paper's numbers beside ours, the claims' verdicts,
the toy tasks' tables and the figures. Inputs are built by hand, with known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from probekit.experiments.part3_pareto import (
    claims,
    figures,
    frontiers,
    memorisation,
    paper,
    representations,
    toy_tasks,
)
from probekit.experiments.part3_pareto.memorisation import CONDITIONS
from probekit.experiments.part3_pareto.parsing_experiment import RivalComparison
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.methods.pareto import entropy, frontier
from probekit.stats.bootstrap import paired_bootstrap
from probekit.stats.comparison import compare


def toy_table():
    """Two representations' probes: a at (1, .5) and (10, .6); b at (3, .55), (5, .9) and one
    with a NaN complexity (a control not run)."""
    return pd.DataFrame(
        {
            "task": "posl",
            "family": "nuclear",
            "representation": ["a", "a", "b", "b", "b"],
            "complexity": [1.0, 10.0, 3.0, 5.0, np.nan],
            "accuracy": [0.5, 0.6, 0.55, 0.9, 0.99],
            "dev_accuracy": [0.5, 0.7, 0.6, 0.8, 0.99],
        }
    )


# --------------------------------------------------------------------------------------------
# Frontiers
# --------------------------------------------------------------------------------------------


def test_summarise_frontier_by_hand():
    s = frontiers.summarise_frontier(toy_table(), "complexity", 10.0, 3.0, {"a": "A"}, "{:.1f}")
    # a leads from its first probe at 1 until b's at 3; b from there to the cap.
    assert s.leaders == "A (1.0 to 3.0), then b (3.0 to 10.0)"
    # Up to 3 only a has area (0.5 over [1, 3]); b's first probe sits at the budget.
    assert s.winner == "a" and s.simple == "A"
    none = frontiers.summarise_frontier(toy_table(), "complexity", 10.0, 0.5, {}, "{:.0f}")
    assert none.winner is None and none.simple == "none"


def test_summarise_frontier_drops_slivers_of_the_cap():
    t = toy_table()
    t.loc[2, "complexity"] = 1.01  # b now takes the lead 0.01 after a: a sliver of the cap
    s = frontiers.summarise_frontier(t, "complexity", 10.0, 10.0, {}, "{:.0f}")
    assert s.leaders == "b (1 to 10)"


def run_of(complexity, dev, correct):
    table = pd.DataFrame({"complexity": complexity, "dev_accuracy": dev})
    return ParetoRun(table, np.asarray(correct, dtype=bool))


def test_compare_within_budget_takes_the_best_dev_probe_within_it():
    a = run_of([1.0, 5.0], [0.9, 0.95], [[1, 1, 1, 0], [1, 1, 1, 1]])
    b = run_of([2.0, 4.0], [0.4, 0.6], [[0, 0, 1, 0], [1, 0, 0, 0]])
    c = frontiers.compare_within_budget(a, b, "complexity", 4.5, "A", "B")
    # Within 4.5: a's probe 0 (its only one) and b's probe 1 (better dev than probe 0).
    assert (c.name_a, c.name_b) == ("A", "B")
    assert c.acc_a == pytest.approx(0.75) and c.acc_b == pytest.approx(0.25)
    expected = compare(a.correct[0], b.correct[1], "A", "B")
    assert c.p_value == pytest.approx(expected.p_value)
    assert frontiers.compare_within_budget(a, b, "complexity", 1.5, "A", "B") is None


def test_with_display_names():
    t = pd.DataFrame({"task": ["posl", "parse"], "representation": ["onehot", "x"]})
    shown = frontiers.with_display_names(t, {"onehot": "one-hot", "x": "X"})
    assert shown["task"].tolist() == ["POSL", "Dependency parsing"]
    assert shown["representation"].tolist() == ["one-hot", "X"]
    no_task = frontiers.with_display_names(t.drop(columns="task"), {"onehot": "1h", "x": "X"})
    assert no_task.columns.tolist() == ["representation"]


# --------------------------------------------------------------------------------------------
# The paper's numbers
# --------------------------------------------------------------------------------------------


def test_table3_numbers_set_ours_beside_the_paper():
    hv = pd.DataFrame(
        {
            "task": ["posl", "dal"],
            "family": ["nuclear", "fully_shuffled"],
            "representation": ["onehot", "contextual"],
            "hypervolume": [0.5, 0.25],
        }
    )
    numbers = paper.table3_numbers(hv, ("nuclear", "rank"))
    assert len(numbers) == 2 * 2 * 2 * len(representations.REPRESENTATIONS)
    assert numbers["hv_posl_nuclear_onehot"] == 0.5
    assert math.isnan(numbers["hv_dal_nuclear_onehot"])  # not run
    assert numbers["paper_dal_rank_random"] == paper.PAPER["table3"][("dal", "rank")]["random"]
    controls = paper.table3_numbers(hv, CONDITIONS[1:])
    # The paper reports the fully-shuffled control for the contextual representation only.
    assert len(controls) == 2 * 2 * (len(representations.REPRESENTATIONS) + 1)
    assert controls["hv_dal_fully_shuffled_contextual"] == 0.25
    assert "hv_dal_fully_shuffled_onehot" not in controls


def test_paper_gap_numbers_follow_tables_2_and_3():
    gaps = paper.paper_gap_numbers()
    t2 = paper.PAPER["table2"]
    assert gaps["paper_gap_parse"] == pytest.approx(t2["contextual"] - t2["fasttext"])
    for task in representations.TASKS:
        t3 = paper.PAPER["table3"][(task, "label_shuffled")]
        assert gaps[f"paper_gap_{task}"] == pytest.approx(t3["contextual"] - t3["fasttext"])


# --------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------


def test_verdict_words():
    assert claims.verdict(True) == "holds"
    assert claims.verdict(False, "x") == "does not hold (x)"
    assert claims.verdict(None, "y") == "cannot be tested (y)"
    assert claims.NO_PARSING_VERDICT.startswith("cannot be tested (")


def leaders_frame(rows):
    return pd.DataFrame(rows, columns=["task", "family", "winner"])


def test_parametric_onehot_verdict():
    reps = ["contextual", "onehot"]
    both = leaders_frame(
        [("posl", "nuclear", "onehot"), ("dal", "nuclear", "onehot"), ("posl", "rank", None)]
    )
    assert claims.parametric_onehot_verdict(both, reps) == (
        "holds (under the nuclear norm one-hot wins the simple range in 2 of 2 tasks; "
        "under the rank in 0 of 1)"
    )
    one = leaders_frame([("posl", "nuclear", "onehot"), ("dal", "nuclear", "contextual")])
    assert claims.parametric_onehot_verdict(one, reps).startswith("does not hold (")
    assert claims.parametric_onehot_verdict(one, ["contextual"]).startswith("cannot be tested")
    rank_only = leaders_frame([("posl", "rank", "onehot")])
    assert claims.parametric_onehot_verdict(rank_only, reps).startswith("cannot be tested")


def test_simple_as_good_verdict():
    gaps = pd.DataFrame({"gap": [0.0, 0.01, 0.005]})
    assert claims.simple_as_good_verdict(gaps) == (
        "holds (the simpler half of the architectures loses at most 1.0 points of accuracy, "
        "0.5 on average)"
    )
    assert claims.simple_as_good_verdict(gaps.assign(gap=[0.0, 0.02, 0.01])).startswith(
        "does not hold"
    )


def test_memorisation_onehot_verdict():
    reps = ["onehot", "random"]
    assert claims.memorisation_onehot_verdict(["onehot", "onehot"], reps, 0.5) == (
        "holds (one-hot has the largest hypervolume below a memorisation of 0.50 in 2 of 2 tasks)"
    )
    assert claims.memorisation_onehot_verdict(["onehot", None], reps, 0.5).startswith(
        "does not hold"
    )
    assert claims.memorisation_onehot_verdict(["random"], ["random"], 0.5).startswith(
        "cannot be tested"
    )


def test_parsing_onehot_verdict():
    labels = {"contextual": "ctx", "onehot": "one-hot"}
    text = claims.parsing_onehot_verdict(
        "contextual", labels, simple_budget=0.5, simple_norm=70.0, simple_nuclear="one-hot"
    )
    assert text == (
        "does not hold (among MLP parsers that memorise at most 0.50 of the shuffled heads the "
        "largest hypervolume goes to ctx; among linear parsers with a nuclear norm of at most "
        "70, to one-hot)"
    )
    assert claims.parsing_onehot_verdict(
        "onehot", labels, simple_budget=0.5, simple_norm=70.0, simple_nuclear="not run"
    ).startswith("holds")
    assert "goes to none" in claims.parsing_onehot_verdict(
        None, labels, simple_budget=0.5, simple_norm=70.0, simple_nuclear="none"
    )
    assert claims.parsing_onehot_verdict(
        None, {"contextual": "ctx"}, simple_budget=0.5, simple_norm=70.0, simple_nuclear="none"
    ).startswith("cannot be tested")


def rival(better: bool) -> RivalComparison:
    """A contextual parser right on every word of 60 sentences of 4 words, against a rival
    right on half of them (or the other way round)."""
    a = np.ones(240)
    b = np.tile([1.0, 0.0], 120)
    if not better:
        a, b = b, a
    groups = np.repeat(np.arange(60), 4)
    lengths = np.bincount(groups)
    boot = paired_bootstrap(
        np.bincount(groups, weights=a) / lengths,
        np.bincount(groups, weights=b) / lengths,
        n_boot=200,
        seed=0,
        weights=lengths,
    )
    return RivalComparison("onehot", compare(a, b, "ctx", "one-hot"), boot)


def test_parsing_verdict():
    win = rival(True)
    assert claims.parsing_verdict(win, 0.1, {"posl": 0.0, "dal": 0.05}).startswith(
        "holds (hypervolume gap on parsing +0.10, at most +0.05 on POSL and DAL; best contextual"
    )
    # The parsing gap must exceed both toy-task gaps, and be positive.
    assert claims.parsing_verdict(win, 0.03, {"posl": 0.0, "dal": 0.05}).startswith("does not")
    assert claims.parsing_verdict(win, -0.1, {}).startswith("does not hold")
    no_toys = claims.parsing_verdict(win, 0.1, {})
    assert no_toys.startswith("holds") and no_toys.endswith("were not available)")
    assert claims.parsing_verdict(rival(False), 0.1, {"posl": 0.0}).startswith("does not hold")
    assert claims.parsing_verdict(None, 0.1, {}) == (
        "cannot be tested (needs the contextual and a type-level representation)"
    )


# --------------------------------------------------------------------------------------------
# The two memorisation controls
# --------------------------------------------------------------------------------------------


def test_compares_controls_and_control_shift():
    both = ["label_shuffled", "fully_shuffled"]
    assert memorisation.compares_controls(["contextual", "onehot"], both)
    assert not memorisation.compares_controls(["onehot"], both)
    assert not memorisation.compares_controls(["contextual"], both[:1])
    table = pd.DataFrame(
        {
            "representation": ["contextual", "contextual", "onehot"],
            "label_shuffled": [0.5, 0.7, 0.1],
            "fully_shuffled": [0.4, 0.9, np.nan],
        }
    )
    assert memorisation.control_shift(table) == pytest.approx((-0.1 + 0.2) / 2)


# --------------------------------------------------------------------------------------------
# Toy tasks
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sentences(tiny):
    return list(tiny["train"]), list(tiny["test"])


def test_lookup_table_and_backoff_table(sentences):
    train, test = sentences
    lookup = toy_tasks.lookup_baselines(train, test)
    table = toy_tasks.lookup_table(lookup)
    assert table.index.tolist() == ["POSL", "DAL"]
    assert table.loc["DAL", "lookup accuracy, this run (%)"] == pytest.approx(100 * lookup["dal"])
    assert table.loc["POSL", "Table 1 of the paper, English (%)"] == pytest.approx(86.0)
    backoff = toy_tasks.backoff_table(lookup)
    assert backoff.index.tolist() == [1, 2, 3, 4]
    assert backoff["share of test arcs (%)"].sum() == pytest.approx(100.0)
    levels = lookup["dal_levels"].set_index("level")
    np.testing.assert_allclose(backoff["accuracy (%)"], 100 * levels["accuracy"])


def test_lookup_by_size(sentences):
    train, test = sentences
    sizes = toy_tasks.lookup_by_size(train, test, [0, 1, 0], seed=0)
    # 0 means all three sentences; its duplicate is dropped; rows go by training words.
    assert sizes["sentences"].tolist() == [1, 3]
    assert sizes["words"].is_monotonic_increasing
    whole = toy_tasks.lookup_baselines(train, test)
    assert sizes["POSL"].iloc[-1] == whole["posl"] and sizes["DAL"].iloc[-1] == whole["dal"]
    assert sizes["words"].iloc[-1] == sum(len(s) for s in train)


def test_entropy_numbers(sentences):
    train, test = sentences
    ent = toy_tasks.label_entropies(train + test)
    numbers = toy_tasks.entropy_numbers(ent)
    assert len(numbers) == 7 * 2
    upos = np.concatenate([s.upos for s in train + test])
    assert numbers["h_posl"] == pytest.approx(entropy.entropy(upos))
    assert numbers["classes_posl"] == len(set(upos))
    h, hc = numbers["h_dal"], numbers["hc_dal"]
    assert numbers["explained_dal"] == pytest.approx(100 * (1 - hc / h))
    assert numbers["classes_dal_paper"] == paper.PAPER["classes"]["dal"]
    assert numbers["hc_posl_paper"] == paper.PAPER["entropy"]["posl"][1]


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------


def test_placeholder_figure():
    fig = figures.placeholder_figure("not run")
    assert fig.axes[0].texts[0].get_text() == "not run"


def test_plot_frontiers_one_panel_per_task_titled_by_task():
    t = pd.concat([toy_table(), toy_table().assign(task="dal")], ignore_index=True)
    fig = figures.plot_frontiers(t, "complexity", {"posl": 10.0, "dal": 5.0}, "nuclear norm")
    assert len(fig.axes) == 2 and fig.axes[1].get_xlim() == (0.0, 5.0)
    assert [ax.get_title() for ax in fig.axes] == ["POSL", "DAL"]
    # One staircase per representation, ending at the cap: a's best within 10 is 0.6.
    xs, ys = fig.axes[0].lines[0].get_data()
    assert xs[-1] == 10.0 and ys[-1] == 0.6


def test_plot_control_frontiers_draws_one_frontier_per_control():
    table = pd.DataFrame(
        {
            "task": "parse",
            "representation": ["contextual", "contextual", "onehot"],
            "label_shuffled": [0.2, 0.6, 0.1],
            "fully_shuffled": [0.1, 0.3, np.nan],
            "accuracy": [0.5, 0.7, 0.4],
        }
    )
    fig = figures.plot_control_frontiers(table, "memorisation", titles={"parse": "ctx"})
    (ax,) = fig.axes
    assert ax.get_title() == "ctx"
    assert [line.get_label() for line in ax.lines] == ["label-shuffled", "fully shuffled"]
    xs, ys = ax.lines[1].get_data()
    staircase = frontier.frontier_staircase([0.1, 0.3], [0.5, 0.7], 1.0)
    np.testing.assert_allclose(xs[: len(staircase[0])], staircase[0])


def test_toy_task_figures():
    sizes = pd.DataFrame({"words": [10, 100], "POSL": [0.5, 0.8], "DAL": [0.3, 0.6]})
    fig = figures.plot_lookup_sizes(sizes)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [50.0, 80.0])
    ent = pd.DataFrame(
        {"task": ["dal", "posl"], "H(label)": [4.0, 3.0], "H(label | word)": [1.0, 0.5]}
    )
    fig = figures.plot_label_entropies(ent)
    (ax,) = fig.axes
    widths = [p.get_width() for p in ax.patches]
    assert widths == [3.0, 4.0, 0.5, 1.0]  # POSL then DAL, H(label) bars first
    assert [t.get_text() for t in ax.get_yticklabels()] == ["POSL", "DAL"]
