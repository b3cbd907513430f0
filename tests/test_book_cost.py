"""probekit.book.cost: the estimate of the full profile's CPU-hours per chapter."""

from __future__ import annotations

import pytest

from probekit.book import build, cost, runner
from test_book_graph import _graph_project

MODEL = {"whole": {"train": 1000, "dev": 100}, "empty": {"layers": 7}, "chapters": {}}


def test_the_exponent_fit_recovers_a_power_law_exactly():
    """Times that follow c * n**1.5 exactly give b = 1.5, after dividing out the counts."""
    for b in (0.7, 1.0, 1.5, 1.9):
        t_quick, t_book = 3 * 2.0 * 200**b, 3 * 5.0 * 2000**b
        fitted, how = cost.fit_exponent(t_quick, t_book, (2.0, 5.0), (200, 2000))
        assert how == "fitted" and fitted == pytest.approx(b, rel=1e-12)
        # The projection then hits the same law at the full size and counts.
        full = cost.project_full(t_book, 8.0 / 5.0, 12544 / 2000, fitted)
        assert full == pytest.approx(3 * 8.0 * 12544**b, rel=1e-12)


def test_exponents_are_clipped_and_equal_sizes_give_one():
    # Quick slower than book per unit of count: a negative exponent, clipped up to 0.5.
    b, how = cost.fit_exponent(20.0, 10.0, (1, 1), (100, 1000))
    assert b == 0.5 and how == "clipped from -0.30"
    b, how = cost.fit_exponent(1.0, 1000.0, (1, 1), (10, 100))  # cubic: clipped down to 2
    assert b == 2.0 and how == "clipped from 3.00"
    assert cost.fit_exponent(5.0, 50.0, (1, 10), (300, 300)) == (1.0, "same size: 1")


def test_sizes_and_counts_of_parameter_values():
    assert cost.size_of(0, "train", MODEL) == 1000  # 0 means the whole split
    assert cost.size_of(250, "train", MODEL) == 250
    assert cost.size_of("dev", None, MODEL) == 100  # a split by name
    assert cost.size_of([10, 0], "train", MODEL) == 1010  # a list sums its entries
    params = {"seeds": [1, 2, 3], "layers": [], "epochs": 4, "n_trials": 10}
    assert cost.count_of(["seeds", "layers", "epochs"], params, MODEL) == 3 * 7 * 4
    # A nested list adds: ten search trials plus three seeded runs, on each of 7 layers.
    assert cost.count_of([["n_trials", "seeds"], "layers"], params, MODEL) == 13 * 7


def _params(**changes):
    base = {"n_train": 1000, "seeds": [1, 2], "epochs": 5, "batch": 64, "device": "auto"}
    return {**base, **changes}


def test_full_time_scales_with_the_count_ratio_and_the_fitted_size_law():
    model = {**MODEL, "chapters": {"90_a": {"size": "n_train", "zero": "train",
                                            "counts": ["seeds", "epochs"]}}}  # fmt: skip
    params = {
        "quick": _params(n_train=100, epochs=2),
        "book": _params(n_train=400),
        "full": _params(n_train=0, seeds=[1, 2, 3, 4], epochs=10, batch=128, device="cpu"),
    }
    # Two seeds either way; epochs 2 -> 5; size 100 -> 400 with b = 1.5 (ratio 8).
    quick, book = 10.0, 10.0 * (5 / 2) * 8
    row = cost.chapter_cost(
        "90_a", params, {"quick": quick, "book": book}, {"quick": 1, "book": 1}, model
    )
    assert row.how == "fitted" and row.exponent == pytest.approx(1.5)
    # Full: seeds x2 and epochs x2 (count ratio 4), size 400 -> 1000 (the whole split).
    assert row.full_seconds == pytest.approx(book * 4 * (1000 / 400) ** 1.5)
    assert row.sizes == {"quick": 100, "book": 400, "full": 1000}
    assert row.unmodelled == ["batch"]  # the device is where it runs, not how much
    # Times of a kernel with two threads count twice the CPU-seconds.
    two = cost.chapter_cost(
        "90_a", params, {"quick": quick, "book": book}, {"quick": 2, "book": 2}, model
    )
    assert two.full_seconds == pytest.approx(2 * row.full_seconds)


def test_chapters_without_an_estimate_say_why():
    model = {**MODEL, "chapters": {"90_a": {"size": "n_train", "zero": "train"},
                                   "91_b": {"unknown_size": "the pool is unknown"}}}  # fmt: skip
    params = {
        "quick": _params(n_train=100),
        "book": _params(n_train=400),
        "full": _params(n_train=0),
    }
    rows = [
        cost.chapter_cost("90_a", params, {"quick": None, "book": 60.0}, {}, model),
        cost.chapter_cost("91_b", params, {"quick": 5.0, "book": 60.0}, {}, model),
        cost.chapter_cost("92_c", params, {"quick": 5.0, "book": 60.0}, {}, model),
        cost.chapter_cost("93_d", params, {"quick": 5.0, "book": None}, {}, model),
        # Full equal to book: the book run's time, no fit needed (nor a quick time).
        cost.chapter_cost("94_e", {p: _params() for p in params}, {"book": 90.0}, {}, model),
    ]
    assert [r.full_seconds for r in rows] == [None, None, None, None, 90.0]
    assert rows[0].reason == "no timed `quick` run to fit the size exponent"
    assert rows[1].reason == "data size not declared: the pool is unknown"
    assert "no declaration" in rows[2].reason and rows[3].reason == "no timed `book` run"
    page = cost.cost_markdown(rows)
    assert "No estimate (not in the total): `90_a` (no timed `quick` run" in page
    assert "`93_d` (no timed `book` run)" in page and "`94_e`" not in page.split("No estimate")[1]
    assert "| **total** | | | | | | **0.0** | **0.0** | |" in page  # 90 s


def test_the_workers_page_carries_the_estimate_from_the_recorded_times(tmp_path):
    """From the project's files only: profiles, params/run_times.yml and params/cost_model.yml."""
    paths = _graph_project(tmp_path, {"90_a": []})
    for profile, x in (("quick", 2), ("book", 4), ("full", 8)):
        (paths.profiles / f"{profile}.yml").write_text(f"chapters:\n  90_a: {{x: {x}}}\n")
    (paths.profiles / "run_times.yml").write_text(
        "book: {90_a: 3600}\nquick: {90_a: 900}\nthreads: {book: 1, quick: 1}\n"
    )
    (paths.profiles / cost.COST_MODEL).write_text("chapters:\n  90_a: {size: x}\n")
    text = build.full_profile_section(paths)
    # Size 2 -> 4 quadruples the time: b = 2; size 8 then takes 4 x 3600 s.
    assert "| `90_a` | 900 | 3600 | 2 / 4 / 8 | 2.00 | fitted | 4.00 | – |  |" in text
    assert "| **total** | | | | | | **4.0** | **4.0** | |" in text
    assert "No estimate" not in text
    # One chapter: its smallest time is its own run, so no start-up is measured or subtracted.
    assert "No start-up measured for `quick`, `book` (fewer than two timed chapters)" in text
    # Without the quick time the page names the chapter instead of failing.
    (paths.profiles / "run_times.yml").write_text("book: {90_a: 3600}\n")
    text = build.full_profile_section(paths)
    assert "No estimate (not in the total): `90_a` (no timed `quick` run" in text
    (paths.profiles / "full.yml").unlink()
    assert "No estimate: no profile full" in build.full_profile_section(paths)


def test_the_declared_whole_splits_match_the_treebank(ewt):
    """params/cost_model.yml's sentence counts against UD English EWT (required in CI)."""
    from conftest import REPO

    model = cost.load_cost_model(runner.Paths(REPO))
    for split, sentences in ewt.splits.items():
        assert model["whole"][split] == len(sentences), split


def test_the_startup_is_the_smallest_timed_chapter_of_a_profile():
    seconds = {"90_a": 12.0, "91_b": 6.0, "92_c": None, "93_d": 0.0, "94_e": 40.0}
    assert cost.startup_seconds(seconds) == (6.0, "91_b")  # untimed and 0 s runs are skipped
    # One timed chapter: its smallest time is its whole run, work included.
    assert cost.startup_seconds({"90_a": 12.0, "91_b": None}) is None


def test_subtracting_the_startup_recovers_the_work_law_that_fixed_costs_hide():
    """T = s + c * n**b: with s subtracted the fit is exact; with s left in, b comes out low."""
    model = {**MODEL, "chapters": {"90_a": {"size": "n_train", "zero": "train",
                                            "counts": ["epochs"]}}}  # fmt: skip
    params = {
        "quick": _params(n_train=100, epochs=2),
        "book": _params(n_train=400),
        "full": _params(n_train=0, epochs=10),
    }
    s = {"quick": 6.0, "book": 9.0}  # measured per profile, as from two builds

    def work(epochs, n):
        return 0.01 * epochs * n**1.5

    # CPU-seconds of work; the book kernel had two threads, so its wall work is half of them.
    seconds = {"quick": s["quick"] + work(2, 100), "book": s["book"] + work(5, 400) / 2}
    row = cost.chapter_cost("90_a", params, seconds, {"quick": 1, "book": 2}, model, s)
    assert row.how == "fitted" and row.exponent == pytest.approx(1.5)
    # The book run's start-up counts once (at its threads), plus the full run's work.
    assert row.full_seconds == pytest.approx(2 * s["book"] + work(10, 1000))
    blind = cost.chapter_cost("90_a", params, seconds, {"quick": 1, "book": 2}, model)
    assert blind.exponent < 1.4  # the quick run's start-up weighs more: growth looks slower


def test_runs_within_the_startup_give_no_fit_or_no_estimate_never_nan():
    model = {**MODEL, "chapters": {"90_a": {"size": "n_train", "zero": "train"}}}
    params = {
        "quick": _params(n_train=100),
        "book": _params(n_train=400),
        "full": _params(n_train=0),
    }
    s = {"quick": 8.0, "book": 9.0}
    # The quick run is all start-up (even shorter): no fit, b = 1, said on the row.
    row = cost.chapter_cost("90_a", params, {"quick": 7.0, "book": 49.0}, {}, model, s)
    assert row.exponent == 1.0 and row.how.startswith("start-up dominated: no fit")
    assert row.full_seconds == pytest.approx(9.0 + 40.0 * 1000 / 400)
    # The book run is all start-up: its work is not measured, so no estimate (not 0, not NaN).
    for book in (9.0, 5.0):
        row = cost.chapter_cost("90_a", params, {"quick": 20.0, "book": book}, {}, model, s)
        assert row.full_seconds is None and row.reason.startswith("start-up dominated")
    # Unless full changes nothing: then the book run is the estimate, start-up or not.
    same = {p: _params() for p in params}
    row = cost.chapter_cost("90_a", same, {"quick": 5.0, "book": 9.0}, {}, model, s)
    assert row.full_seconds == 9.0


def test_raised_caps_give_an_upper_bound_and_kept_or_lowered_ones_no_growth():
    assert cost.cap_growth(["a", "b", "c"], {"a": 100, "b": 50, "c": 10}, {"a": 400, "b": 50,
                                                                         "c": 5}) == {"a": 4.0}  # fmt: skip
    with pytest.raises(ValueError, match="positive"):
        cost.cap_growth(["a"], {"a": 0}, {"a": 10})
    model = {**MODEL, "chapters": {"90_a": {"size": "n_train", "zero": "train",
                                            "caps": ["max_steps", "memorise_steps"]}}}  # fmt: skip
    base = {"max_steps": 1000, "memorise_steps": 1000}
    params = {
        "quick": _params(n_train=400, **base),
        "book": _params(n_train=400, **base),
        "full": _params(n_train=400, max_steps=4000, memorise_steps=2000),
    }
    row = cost.chapter_cost("90_a", params, {"quick": 10.0, "book": 100.0}, {}, model)
    # The caps bound different runs: the largest ratio bounds the growth, not the product.
    assert row.caps == {"max_steps": 4.0, "memorise_steps": 2.0}
    assert row.full_seconds == pytest.approx(100.0)  # the declared growth: none
    assert row.bound_seconds == pytest.approx(400.0)
    assert "caps raised: `max_steps` x4, `memorise_steps` x2" in row.how
    assert row.unmodelled == []  # declared caps are modelled, not listed
    page = cost.cost_markdown([row])
    assert "| 0.03 | 0.11 |" in page and "| **0.0** | **0.1** |" in page
    # Full lowers one cap and keeps the other: no growth, no upper bound.
    params["full"] = _params(n_train=400, max_steps=500, memorise_steps=1000)
    row = cost.chapter_cost("90_a", params, {"quick": 10.0, "book": 100.0}, {}, model)
    assert row.caps == {} and row.full_seconds == 100.0 and row.bound_seconds is None
    assert "caps raised" not in row.how and "| 0.03 | – |" in cost.cost_markdown([row])


def test_the_page_subtracts_the_startup_measured_in_the_recorded_times(tmp_path):
    """Two chapters: the appendix-like 91_b sets each profile's start-up."""
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": []})
    for profile, x in (("quick", 2), ("book", 4), ("full", 8)):
        (paths.profiles / f"{profile}.yml").write_text(
            f"chapters:\n  90_a: {{x: {x}}}\n  91_b: {{x: {x}}}\n"
        )
    (paths.profiles / "run_times.yml").write_text(
        "book: {90_a: 3610, 91_b: 10}\nquick: {90_a: 906, 91_b: 6}\nthreads: {book: 1, quick: 1}\n"
    )
    (paths.profiles / cost.COST_MODEL).write_text(
        "chapters:\n  90_a: {size: x}\n  91_b: {size: x}\n"
    )
    text = build.full_profile_section(paths)
    assert "The start-up subtracted: `quick` 6 s (`91_b`), `book` 10 s (`91_b`)." in text
    # Work 900 s -> 3600 s for size 2 -> 4: b = 2, and full = 10 s + 4 x 3600 s.
    assert "| `90_a` | 906 | 3610 | 2 / 4 / 8 | 2.00 | fitted | 4.00 | – |  |" in text
    # 91_b's book run is its start-up: no estimate, said so.
    assert "`91_b` (start-up dominated: the `book` run took no longer than the start-up" in text


def test_the_data_size_chapters_size_is_their_own_subsets_over_every_task():
    """Subset sizes as the chapters choose them, on pools of the declared class counts."""
    model = {**MODEL, "pools": {"past_present": [300, 600], "pos": [1000, 0, 500]}}
    names = {"tasks": "tasks", "sizes": "sizes", "eta": "eta", "max_train": "max_train"}
    params = {"tasks": ["past_present", "pos"], "sizes": [], "eta": 4.0, "max_train": 0}
    # past_present (balanced): 200 + 2 x 200 / 4 = 300 fits the smaller class, so sizes 128 and
    # 200 of 2 classes. pos (in proportion, 2 classes present): 128, 256 and its largest, 500.
    assert cost.subsets_size(names, params, model) == (128 + 200) * 2 + (128 + 256 + 500) * 2
    # max_train caps a subset's examples over all classes: pos stops at 600 // 2 = 300.
    capped = {**params, "max_train": 600}
    assert cost.subsets_size(names, capped, model) == (128 + 200) * 2 + (128 + 256 + 300) * 2
    # One task by name; given sizes that the pool does not allow are dropped, as in the chapter.
    one = {**params, "tasks": "past_present", "sizes": [64, 256]}
    assert cost.subsets_size(names, one, model) == 64 * 2


def test_the_declared_pools_match_the_treebank(ewt):
    """params/cost_model.yml's examples per class of the data-size tasks, against UD English EWT."""
    from conftest import REPO
    from probekit.methods.datasize.pools import build_pool

    model = cost.load_cost_model(runner.Paths(REPO))
    for task, counts in model["pools"].items():
        assert build_pool(ewt, task).class_counts().tolist() == counts, task
