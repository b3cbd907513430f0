"""Tests for what Part III's chapters read out of their runs (Pimentel et al. 2020): frontier
summaries, the paper's numbers beside ours, the toy tasks' tables and the figures. Inputs are
built by hand, with known answers. The claims are tested in test_part3_claims.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from probekit.experiments.part3_pareto import (
    figures,
    frontiers,
    memorisation,
    paper,
    representations,
    toy_tasks,
)
from probekit.experiments.part3_pareto.memorisation import CONDITIONS
from probekit.methods.pareto import entropy, frontier


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


def test_paper_leads_follow_tables_2_and_3():
    leads = paper.paper_leads()
    t2 = paper.PAPER["table2"]
    assert leads["parse"] == pytest.approx(t2["contextual"] - t2["fasttext"])
    for task in representations.TASKS:
        t3 = paper.PAPER["table3"][(task, "label_shuffled")]
        assert leads[task] == pytest.approx(t3["contextual"] - t3["fasttext"])


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
