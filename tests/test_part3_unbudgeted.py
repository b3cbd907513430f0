"""Chapters 33 and 34 beside their recorded runs without the book's budget (issue 14)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from probekit.book.params import effective_parameters
from probekit.experiments.part3_pareto import unbudgeted
from probekit.experiments.part3_pareto.config import MemorisationConfig, ParsingConfig

NOTEBOOKS = Path(__file__).parents[1] / "notebooks"
CONFIGS = {"33_memorisation_complexity": MemorisationConfig, "34_dependency_parsing": ParsingConfig}


@pytest.mark.parametrize("slug", sorted(unbudgeted.RUNS))
def test_a_recorded_run_is_shown_for_the_book_set_up_and_only_there(slug):
    run = unbudgeted.RUNS[slug]
    book = effective_parameters(NOTEBOOKS / f"{slug}.py", "book")
    config = CONFIGS[slug].from_parameters(book)
    # The recorded set-up is the book's, all of it but where the work runs and how many
    # bootstrap resamples: a changed default would hide the table from the book.
    assert run.setup == {k: v for k, v in book.items() if k not in ("device", "n_boot")}
    assert unbudgeted.unbudgeted_run(slug, config) is run
    # It lifts the budget: every override is a parameter the book sets otherwise.
    for name, value in run.overrides.items():
        assert name in book and book[name] != value, name
    lifted = CONFIGS[slug].from_parameters(
        effective_parameters(NOTEBOOKS / f"{slug}.py", "book", dict(run.overrides))
    )
    assert unbudgeted.unbudgeted_run(slug, lifted) is None
    quick = CONFIGS[slug].from_parameters(effective_parameters(NOTEBOOKS / f"{slug}.py", "quick"))
    assert unbudgeted.unbudgeted_run(slug, quick) is None
    # Every value the table shows was recorded.
    assert {key for _, key, *_ in unbudgeted.ROWS[slug]} <= set(run.values)
    assert run.command.startswith(f"probekit run {slug[:2]} -p ")


def _run(values):
    return unbudgeted.UnbudgetedRun(
        slug="34_dependency_parsing",
        overrides={"n_train": 0, "lr": 0.002},
        setup={"n_train": 2000},
        seconds=1200.0,
        book_seconds=600.0,
        values=values,
    )


def test_the_table_sets_the_chapters_values_beside_the_run_without_the_budget():
    run = _run({"best_ctx_uas": 55.41, "hv_gap_parse": 0.194496, "uas_gap_estimate": 0.251})
    table = unbudgeted.budget_table(run, {"best_ctx_uas": 43.8, "hv_gap_parse": 0.088})
    assert list(table.columns) == ["this run", "without the budget"]
    row = table.loc["best contextual parser, test UAS (%)"]
    assert (row["this run"], row["without the budget"]) == ("43.8", "55.4")
    lead = table.loc["UAS lead over the best type-level rival (points)"]
    # A value missing on one side shows as a dash; shares are shown in points.
    assert (lead["this run"], lead["without the budget"]) == ("–", "+25.1")
    assert table.loc["contextual lead in parsing hypervolume", "this run"] == "+0.088"
    assert run.command == "probekit run 34 -p n_train=0 -p lr=0.002"
    assert run.matches(SimpleNamespace(n_train=2000))
    assert not run.matches(SimpleNamespace(n_train=0))


def test_the_prose_compares_each_lead_and_says_when_one_changes_sign():
    run = _run({"hv_gap_parse": 0.194496, "uas_gap_estimate": 0.251})
    same = unbudgeted.budget_numbers(
        "34_dependency_parsing", run, {"hv_gap_parse": 0.088, "uas_gap_estimate": 0.105}
    )
    assert same["unbudgeted_time"] == (
        "it took 1,200 s, 2.0 times this chapter's 600 s in the book build"
    )
    assert same["unbudgeted_leads"] == (
        "the contextual lead in parsing hypervolume is +0.088 here and +0.194 without the "
        "budget (larger); the UAS lead over the best type-level rival is +10.5 here and +25.1 "
        "without the budget (larger): every lead keeps its sign"
    )
    flipped = unbudgeted.budget_numbers(
        "34_dependency_parsing", run, {"hv_gap_parse": -0.01, "uas_gap_estimate": 0.105}
    )
    assert flipped["unbudgeted_leads"] == (
        "the contextual lead in parsing hypervolume is -0.010 here and +0.194 without the "
        "budget (larger); the UAS lead over the best type-level rival is +10.5 here and +25.1 "
        "without the budget (larger): a lead changes sign"
    )
    shrunk = unbudgeted.budget_numbers(
        "34_dependency_parsing", run, {"hv_gap_parse": 0.3, "uas_gap_estimate": 0.250897}
    )
    assert "+0.300 here and +0.194 without the budget (smaller)" in shrunk["unbudgeted_leads"]
    assert "+25.1 here and +25.1 without the budget (the same)" in shrunk["unbudgeted_leads"]
    missing = unbudgeted.budget_numbers("34_dependency_parsing", run, {"uas_gap_estimate": 0.1})
    assert "– here and +0.194 without the budget (–)" in missing["unbudgeted_leads"]
    assert missing["unbudgeted_leads"].endswith(": not every lead was measured in this run")
    other = unbudgeted.budget_numbers("34_dependency_parsing", None, {})
    assert set(other) == set(same) and "book's set-up only" in other["unbudgeted_leads"]


def test_the_chapters_and_the_rerun_page_give_the_recorded_commands():
    page = (NOTEBOOKS.parent / "book" / "rerun.md").read_text()
    for slug, run in unbudgeted.RUNS.items():
        assert run.command in page
        assert run.command in (NOTEBOOKS / f"{slug}.py").read_text()
