"""probekit.book.graph: the book as a task graph on a local Dask cluster."""

from __future__ import annotations

import json

import pytest

from probekit.book import build, graph, runner
from probekit.errors import ParameterError, ProbekitError
from test_book import DUMMY, _copy_library

SAVE = "\n# %%\ng.save('build/results/{slug}.json')\n"
READS = "# jupyter:\n#   probekit:\n#     reads: [{parents}]\n"


def _graph_project(tmp_path, chapters: dict[str, list[str]], profile: str = "defaults: {}\n"):
    """A project of dummy chapters, ``slug -> the slugs it reads``, in that (toc) order."""
    (tmp_path / "notebooks").mkdir(parents=True)
    for slug, parents in chapters.items():
        text = DUMMY + SAVE.format(slug=slug)
        if parents:
            text = text.replace("# jupyter:\n", READS.format(parents=", ".join(parents)))
        (tmp_path / "notebooks" / f"{slug}.py").write_text(text)
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n"
        + "".join(f"  - file: book/chapters/{s}\n" for s in chapters)
    )
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "quick.yml").write_text(profile)
    (tmp_path / "constraints.txt").write_text("pinned==1\n")
    return runner.Paths(tmp_path, library=_copy_library(tmp_path))


def test_graph_edges_come_from_declared_reads(tmp_path):
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": ["90_a"], "92_c": [], "93_d": ["91_b"]})
    assert graph.chapter_graph(["90_a", "91_b", "92_c", "93_d"], paths) == {
        "90_a": [],
        "91_b": ["90_a"],
        "92_c": [],
        "93_d": ["91_b"],
    }
    # Reads of chapters outside the build are not edges: their results are already on disk.
    assert graph.chapter_graph(["91_b", "93_d"], paths) == {"91_b": [], "93_d": ["91_b"]}


@pytest.mark.parametrize("bad", [0, "0", "two", -1])
def test_bad_worker_counts_are_named_before_anything_runs(tmp_path, bad):
    paths = _graph_project(tmp_path, {"90_a": []})
    with pytest.raises(ParameterError, match="parameter 'workers'"):
        build.build_book("quick", paths=paths, render=False, log=lambda m: None, workers=bad)
    assert not paths.chapters.exists()


def test_auto_is_one_worker_per_core():
    assert graph.resolve_workers("auto") == graph.available_cores() >= 1
    assert graph.resolve_workers("3") == 3 == graph.resolve_workers(3)


@pytest.mark.slow
def test_failed_chapter_leaves_independent_ones_promoted_and_readers_not_run(tmp_path):
    """90 fails; 91 reads it and must not run; 92 and 93 (reading 92) are independent of it."""
    paths = _graph_project(
        tmp_path,
        {"90_a": [], "91_b": ["90_a"], "92_c": [], "93_d": ["92_c"]},
        profile="defaults: {}\nchapters:\n  90_a: {fail: true}\n",
    )
    lines: list[str] = []
    with pytest.raises(ProbekitError) as info:
        build.build_book("quick", paths=paths, render=False, log=lines.append, workers=2)
    message = str(info.value)
    assert "90_a failed" in message and "asked to fail" in message
    assert "91_b not run: it reads 90_a" in message
    assert "92_c" not in message and "93_d" not in message
    assert (paths.failed / "90_a.ipynb").is_file()
    promoted = sorted(p.stem for p in paths.chapters.glob("*.ipynb"))
    assert promoted == ["92_c", "93_d"]
    assert sorted(json.loads((paths.chapters / ".manifest.json").read_text())) == promoted
    assert any(line.startswith("book: on a local Dask cluster of 2 workers") for line in lines)


@pytest.mark.slow
def test_kernels_on_dask_get_their_share_of_threads_and_glibcs_own_trim_threshold(tmp_path):
    """Dask's nanny sets MALLOC_TRIM_THRESHOLD_=65536 for its workers; a kernel that inherited
    it would fault in fresh pages for every training step's tensors."""
    paths = _graph_project(tmp_path, {"90_a": []})
    notebook = paths.notebooks / "90_a.py"
    notebook.write_text(
        notebook.read_text().replace(
            'g("double", 2 * x)\n',
            'g("double", 2 * x)\nimport os\n'
            'g("trim", os.environ.get("MALLOC_TRIM_THRESHOLD_", "unset"))\n'
            'g("omp", os.environ.get("OMP_NUM_THREADS", "unset"))\n',
        )
    )
    build.build_book("quick", paths=paths, render=False, log=lambda m: None, workers=2)
    saved = json.loads((paths.root / "build" / "results" / "90_a.json").read_text())
    assert saved["trim"] == "unset"
    assert saved["omp"] == str(max(1, graph.available_cores() // 2))
    # The manifest records the threads beside the run time.
    assert runner.load_manifest(paths)["90_a"]["threads"] == max(1, graph.available_cores() // 2)


@pytest.mark.slow
def test_graph_build_matches_the_sequential_one_and_skips_what_is_up_to_date(tmp_path):
    chapters = {"90_a": [], "91_b": ["90_a"], "92_c": []}
    done = {}
    for how, workers in (("sequential", None), ("dask", 2)):
        paths = _graph_project(tmp_path / how, chapters)
        build.build_book("quick", paths=paths, render=False, log=lambda m: None, workers=workers)
        done[how] = {
            slug: (paths.root / "build" / "results" / f"{slug}.json").read_bytes()
            for slug in chapters
        }
    assert done["dask"] == done["sequential"]
    # A second build on Dask runs nothing: every digest matches.
    lines: list[str] = []
    build.build_book("quick", paths=paths, render=False, log=lines.append, workers=2)
    assert lines[0] == "book: 0 of 3 chapters to run"


def test_cli_names_a_bad_worker_count_and_refuses_both_workers_and_scheduler():
    import subprocess
    import sys

    from conftest import REPO

    def book(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "probekit.cli", "book", "--no-render", *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
        )

    bad = book("--workers", "none")
    assert bad.returncode == 2 and "parameter 'workers'" in bad.stderr + bad.stdout
    both = book("--workers", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_critical_path_and_projected_wall_time_of_a_small_graph():
    """a (10 s) is read by b (5 s); c (8 s) and d (1 s) stand alone."""
    parents = {"a": [], "b": ["a"], "c": [], "d": []}
    seconds = {"a": 10.0, "b": 5.0, "c": 8.0, "d": 1.0}
    assert graph.path_lengths(seconds, parents) == {"a": 15.0, "b": 5.0, "c": 8.0, "d": 1.0}
    assert graph.critical_path(seconds, parents) == ["a", "b"]
    assert graph.projected_wall(seconds, parents, 1) == 24.0
    # Two workers: a then b on one, c then d on the other; the path a-b bounds it.
    assert graph.projected_wall(seconds, parents, 2) == 15.0
    assert graph.projected_wall(seconds, parents, 8) == 15.0
    # Longest path first: in toc order (d before c) two workers would need 16 s.
    assert graph.projected_wall(seconds, {"d": [], "c": [], "a": [], "b": ["a"]}, 2) == 15.0
    assert graph.critical_path({}, {}) == []


def test_projection_page_from_the_recorded_run_times(tmp_path):
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": ["90_a"], "92_c": []})
    paths.chapters.mkdir(parents=True)
    assert build.workers_projection(paths).startswith("No projection")
    for slug, seconds in (("90_a", 600.0), ("91_b", 300.0), ("92_c", 360.0)):
        runner._record_run(paths, slug, {"seconds": seconds})
    text = build.workers_projection(paths)
    assert "add up to 21.0 minutes" in text and "takes 15.0 minutes" in text
    assert "`90_a` (600 s) → `91_b` (300 s)" in text
    assert "| 1 | 21.0 | 1.00 |" in text and "| 2 | 15.0 | 0.71 |" in text
    assert "| 8 | 15.0 | 0.71 |" in text


def test_chapters_are_planned_longest_chain_first(tmp_path):
    """The chain 92 -> 93 (the longest) goes before the short leaf 90, every chapter after the
    chapters it reads, and a job waits only for the stale chapters it reads."""
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": [], "92_c": [], "93_d": ["92_c"]})
    paths.chapters.mkdir(parents=True)
    for slug, seconds in (("90_a", 5.0), ("91_b", 50.0), ("92_c", 30.0), ("93_d", 30.0)):
        runner._record_run(paths, slug, {"seconds": seconds, "profile": "quick"})
    slugs = ["90_a", "91_b", "92_c", "93_d"]
    jobs = graph.plan_chapters(slugs, slugs, "quick", paths=paths)
    assert list(jobs) == ["92_c", "91_b", "93_d", "90_a"]
    assert {n: j.priority for n, j in jobs.items()} == {
        "92_c": 60,
        "91_b": 50,
        "93_d": 30,
        "90_a": 5,
    }
    assert jobs["93_d"].parents == ("92_c",) and jobs["92_c"].key == "chapter-92_c"
    # 92_c up to date: 93_d reads its results from disk and waits for nothing.
    cell = graph.plan_chapters(["93_d"], slugs, "quick", paths=paths, prefix="c1", name="c1/{slug}")
    assert list(cell) == ["c1/93_d"] and cell["c1/93_d"].parents == ()
    assert cell["c1/93_d"].key == "c1-93_d"


def test_a_fresh_clone_takes_its_priorities_from_the_recorded_run_times(tmp_path):
    """Without a manifest (a fresh clone) the priorities come from params/run_times.yml; a
    manifest time counts only under its own profile; a chapter with neither counts a minute."""
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": [], "92_c": ["91_b"]})
    slugs = ["90_a", "91_b", "92_c"]
    assert graph.expected_seconds(slugs, "quick", paths) == dict.fromkeys(slugs, 60.0)
    paths.chapters.mkdir(parents=True)
    for slug, seconds in (("90_a", 500.0), ("91_b", 20.0)):
        runner._record_run(paths, slug, {"seconds": seconds, "profile": "book"})
    saved = graph.save_run_times(paths)
    assert saved == {"book": {"90_a": 500, "91_b": 20}}
    # A later build of another profile keeps the book's times beside its own.
    runner._record_run(paths, "91_b", {"seconds": 7.0, "profile": "quick"})
    assert graph.save_run_times(paths) == {"book": {"90_a": 500, "91_b": 20}, "quick": {"91_b": 7}}
    assert graph.expected_seconds(slugs, "book", paths) == {"90_a": 500, "91_b": 20, "92_c": 60}
    assert graph.expected_seconds(slugs, "quick", paths) == {"90_a": 60, "91_b": 7, "92_c": 60}
    (paths.chapters / runner.MANIFEST).unlink()
    assert graph.expected_seconds(slugs, "book", paths) == {"90_a": 500, "91_b": 20, "92_c": 60}


def test_run_times_keep_the_threads_their_kernels_had(tmp_path):
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": []})
    paths.chapters.mkdir(parents=True)
    runner._record_run(paths, "90_a", {"seconds": 30.0, "profile": "book", "threads": 1})
    runner._record_run(paths, "91_b", {"seconds": 20.0, "profile": "book", "threads": 1})
    assert graph.save_run_times(paths)[graph.THREADS] == {"book": 1}
    runner._record_run(paths, "91_b", {"seconds": 12.0, "profile": "book", "threads": 2})
    assert graph.save_run_times(paths)[graph.THREADS] == {"book": {"90_a": 1, "91_b": 2}}
    # A fresh clone reads them from params/run_times.yml; the threads section is no profile.
    (paths.chapters / runner.MANIFEST).unlink()
    assert graph.recorded_seconds(["90_a", "91_b"], "quick", paths) == {"90_a": None, "91_b": None}
    assert graph.expected_seconds(["90_a", "91_b"], "book", paths) == {"90_a": 30, "91_b": 12}


@pytest.mark.slow
def test_auto_builds_on_one_worker_per_core(tmp_path):
    """`--workers auto`: one worker per core, each kernel on an equal share of the cores."""
    paths = _graph_project(tmp_path, {"90_a": []})
    cores = graph.available_cores()
    lines: list[str] = []
    build.build_book("quick", paths=paths, render=False, log=lines.append, workers="auto")
    assert f"book: on a local Dask cluster of {cores} workers x 1 threads" in lines
    assert runner.load_manifest(paths)["90_a"]["threads"] == 1


def _slow_chapter(job: graph.Job) -> graph.Outcome:
    import time

    time.sleep(job.overrides["seconds"])
    status = job.overrides.get("status", "up to date")
    return graph.Outcome(job.slug, status, message="broken" if status == "failed" else "")


def _jobs(spec: dict[str, tuple[float, float, tuple[str, ...]]], **extra) -> dict[str, graph.Job]:
    """name -> (priority, seconds, parents) as jobs of :func:`_slow_chapter`."""
    return {
        name: graph.Job(
            name,
            "quick",
            runner.Paths(),
            key=f"chapter-{name}",
            parents=parents,
            priority=priority,
            overrides={"seconds": seconds, **extra.get(name, {})},
        )
        for name, (priority, seconds, parents) in spec.items()
    }


def test_a_free_worker_takes_the_most_urgent_ready_chapter():
    """Two workers: "long" and "root" start; when "root" ends, its reader "urgent" goes before
    the less urgent "filler", which was ready from the start, and no more than two run at once."""
    from distributed import Client

    jobs = _jobs(
        {
            "long": (100.0, 1.2, ()),
            "root": (90.0, 0.2, ()),
            "urgent": (80.0, 0.4, ("root",)),
            "filler": (10.0, 0.2, ()),
        }
    )
    lines: list[str] = []
    with Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as c:
        outcomes = graph.run_jobs(jobs, c, lines.append, poll=0.05, task=_slow_chapter)
    assert {n: o.status for n, o in outcomes.items()} == dict.fromkeys(jobs, "up to date")
    starts = [line.removeprefix("started ") for line in lines if line.startswith("started ")]
    assert starts == ["long", "root", "urgent", "filler"], lines
    assert lines.index("[1/4] root: up to date") < lines.index("started urgent")
    assert lines.index("[2/4] urgent: up to date") < lines.index("started filler")


def test_a_failed_chapter_leaves_its_readers_not_run_and_the_others_running():
    from distributed import Client

    jobs = _jobs(
        {"bad": (30.0, 0.1, ()), "reader": (20.0, 0.1, ("bad",)), "other": (10.0, 0.1, ())},
        bad={"status": "failed"},
    )
    lines: list[str] = []
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
        outcomes = graph.run_jobs(jobs, c, lines.append, poll=0.05, task=_slow_chapter)
    assert {n: o.status for n, o in outcomes.items()} == {
        "bad": "failed",
        "reader": "not run",
        "other": "up to date",
    }
    assert outcomes["reader"].message == "it reads bad, which did not run"
    assert "started reader" not in lines


def test_the_dask_path_says_when_each_chapter_starts_and_keeps_a_heartbeat():
    """A build on Dask is never silent for longer than the heartbeat: a line when a worker starts
    a chapter, one when it finishes, and the running and waiting chapters in between."""
    from distributed import Client

    lines: list[str] = []
    jobs = _jobs({"a": (2.0, 1.0, ()), "b": (1.0, 1.0, ())})
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
        outcomes = graph.run_jobs(
            jobs,
            c,
            lines.append,
            heartbeat=0.3,
            poll=0.1,
            expected={"a": 60.0, "b": 60.0},
            task=_slow_chapter,
        )
    assert set(outcomes) == {"a", "b"}
    starts = [line for line in lines if line.startswith("started ")]
    assert starts == ["started a", "started b"]
    assert lines.index("started a") < lines.index("[1/2] a: up to date")
    # Two 60 s chapters one after another on the one worker: 2 minutes expected.
    beats = [line for line in lines if "min of about 2 min expected" in line]
    assert beats, lines
    # While one worker runs "a", "b" waits; the heartbeat says so.
    assert any("running a, 1 waiting" in line for line in beats), beats
