"""probekit.book.timing: measured run times per profile and the full profile's magnitude."""

from __future__ import annotations

import pytest

from probekit.book import build, timing
from test_book_graph import _graph_project


def test_the_run_factor_is_the_largest_count_ratio_with_its_parameter():
    book = {"seeds": [0, 1, 2], "n_configs": 3, "n_train": 2000, "max_steps": 3000}
    full = {"seeds": [0, 1, 2, 3, 4, 5], "n_configs": 50, "n_train": 0, "max_steps": 20000}
    # Sizes and caps are not counts of runs; seeds count as a list's length.
    assert timing.run_factor(book, full) == (pytest.approx(50 / 3), "n_configs")
    assert timing.run_factor(book, {**full, "n_configs": 3}) == (2.0, "seeds")
    assert timing.run_factor(book, {**book, "n_train": 0}) == (1.0, "")
    # A count that full lowers is no factor, and a count of 0 in the book is skipped.
    assert timing.run_factor({"n_cases": 0, "n_sim": 100}, {"n_cases": 5, "n_sim": 50}) == (
        1.0,
        "",
    )


def test_the_cap_factor_is_the_largest_raise_of_a_step_cap():
    book = {"max_steps": 3000, "memorise_steps": 1500, "min_updates": 1000, "n_train": 2000}
    full = {"max_steps": 20000, "memorise_steps": 20000, "min_updates": 3000, "n_train": 0}
    assert timing.cap_factor(book, full) == pytest.approx(20000 / 1500)
    assert timing.cap_factor({"max_steps": 3000}, {"max_steps": 1000}) == 1.0  # lowered
    assert timing.cap_factor({"n_train": 10}, {"n_train": 20}) == 1.0  # no cap at all


def test_the_page_shows_the_recorded_times_and_the_full_profiles_magnitude(tmp_path):
    """From the project's files only: profiles and params/run_times.yml."""
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": []})
    nb = paths.notebooks / "90_a.py"
    nb.write_text(nb.read_text().replace("x: int = 1", "x: int = 1\nseeds: list[int] = [0]"))
    nb.write_text(nb.read_text().replace("seeds: list", "max_steps: int = 100\nseeds: list"))
    (paths.profiles / "book.yml").write_text("chapters:\n  90_a: {x: 4}\n")
    (paths.profiles / "full.yml").write_text(
        "chapters:\n  90_a: {x: 8, seeds: [0, 1, 2, 3], max_steps: 250}\n"
    )
    (paths.profiles / "run_times.yml").write_text(
        "book: {90_a: 7200, 91_b: 20}\nquick: {90_a: 900}\nthreads: {book: 1, quick: 1}\n"
    )
    text = build.run_times_section(paths)
    assert "| `90_a` | 900 | 7200 | 4 (`seeds`) |" in text
    assert "| `91_b` | – | 20 | 1 |" in text  # never timed under quick
    # 4 x 7200 s + 20 s: some 8 CPU-hours, and full raises max_steps 2.5 times.
    assert "come to some 8 CPU-hours for the extra runs alone" in text
    assert "raises step caps up to 2.5 times the book's" in text
    assert "the book's 2.0 hours of chapter time," in text
    (paths.profiles / "full.yml").unlink()
    assert "No table: no profile full" in build.run_times_section(paths)
