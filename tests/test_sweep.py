"""probekit.book.sweep: parameter sweeps as one Dask task graph, their table and report page."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO
from probekit.book import graph, runner, sweep, sweep_report
from probekit.errors import DataNotFoundError, ParameterError, ProbekitError
from test_book_graph import _graph_project

CH01, CH12 = "01_data_and_representations", "12_probe_vs_parser"


def _sweep_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.yml"
    path.write_text(text)
    return path


def _project_copy(root: Path) -> runner.Paths:
    """The project's notebooks, profiles, pages and sweeps copied into ``root`` (its library
    linked), so that a sweep writes its cells and data there, not into the repository."""
    for name in ("_config.yml", "_toc.yml", "constraints.txt"):
        shutil.copy(REPO / name, root / name)
    for name in ("notebooks", "params", "book", "sweeps"):
        shutil.copytree(
            REPO / name, root / name, ignore=shutil.ignore_patterns("chapters", "_generated")
        )
    (root / "lib").mkdir()
    (root / "lib" / "probekit").symlink_to(REPO / "lib" / "probekit")
    return runner.Paths(root)


# --------------------------------------------------------------------------------------------
# The grid and its cells


def test_the_grid_expands_to_every_combination_with_stable_content_named_cells(tmp_path):
    path = _sweep_file(
        tmp_path,
        f"name: s\nprofile: quick\nchapters: [{CH12}, '01']\n"
        "grid:\n  treebank: [UD_English-EWT, ./elsewhere]\n  seeds: [[1, 2], [3, 4], [5, 6]]\n",
    )
    s = sweep.load_sweep(path)
    assert s.chapters == [CH01, CH12]  # the book's order, whatever the file's
    cells = s.cells()
    assert [c.values for c in cells[:2]] == [
        {"treebank": "UD_English-EWT", "seeds": [1, 2]},
        {"treebank": "UD_English-EWT", "seeds": [3, 4]},
    ]
    assert len(cells) == 6 == len({c.id for c in cells})
    assert cells[0].id.startswith("1-2_UD_English-EWT-")
    # The id is the content: the same values in another grid order name the same directory.
    assert sweep.cell_id({"seeds": [1, 2], "treebank": "UD_English-EWT"}) == cells[0].id
    assert sweep.cell_id({"seeds": [1, 3], "treebank": "UD_English-EWT"}) != cells[0].id


def test_each_chapter_receives_the_grid_parameters_it_declares(tmp_path):
    paths = _project_copy(tmp_path)
    (tmp_path / "data" / "tb").mkdir(parents=True)
    path = _sweep_file(
        tmp_path,
        f"name: s\nprofile: quick\nchapters: [{CH01}, {CH12}]\n"
        "grid:\n  epochs: [2, 3]\n  treebank: [data/tb]\n",
    )
    s = sweep.load_sweep(path, paths)
    cell = s.cells()[0]
    # Chapter 12 has max_epochs, not epochs. A path relative to the project becomes absolute,
    # since the cell's kernels run in the cell's directory.
    absolute = str((tmp_path / "data" / "tb").resolve())
    assert sweep.cell_overrides(s, cell, paths) == {
        CH01: {"epochs": 2, "treebank": absolute},
        CH12: {"treebank": absolute},
    }
    # Where no such directory is, the value stays as written (a UD name, or an error later).
    assert sweep.cell_overrides(s, cell, runner.Paths(REPO))[CH12] == {"treebank": "data/tb"}


def test_a_cell_has_its_own_tree_but_the_project_s_notebooks_and_profiles(tmp_path):
    paths = _graph_project(tmp_path, {"90_a": []})
    s = sweep.load_sweep(
        _sweep_file(tmp_path, "name: s\nprofile: quick\nchapters: [90_a]\ngrid: {x: [4]}\n"),
        paths,
    )
    cell = s.cells()[0]
    tree = sweep.cell_paths(s, cell, paths)
    assert tree.root == tmp_path / "build" / "sweeps" / "s" / cell.id
    assert tree.notebooks == paths.notebooks and tree.profiles == paths.profiles
    assert tree.chapters == tree.root / "book" / "chapters"
    assert (tree.root / "constraints.txt").read_text() == "pinned==1\n"
    assert json.loads((tree.root / "cell.json").read_text())["values"] == {"x": 4}
    plan = runner.plan_chapter("90_a", "quick", {"x": 4}, tree)
    assert plan.params["x"] == 4 and not plan.up_to_date


# --------------------------------------------------------------------------------------------
# Everything is checked before anything runs


# fmt: off
@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\nsteps: 2\n",
         ProbekitError, "unknown field.*steps"),
        ("profile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n", ProbekitError,
         "missing field 'name'"),
        ("name: a/b\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n", ProbekitError,
         "name must be"),
        ("name: s\nprofile: fast\nchapters: ['01']\ngrid: {seeds: [[1]]}\n", ParameterError,
         "parameter 'profile'"),
        ("name: s\nprofile: quick\nchapters: ['09']\ngrid: {seeds: [[1]]}\n", ProbekitError,
         "no single chapter matches '09'"),
        ("name: s\nprofile: quick\nchapters: [22_jabberwocky_probes]\ngrid: {seeds: [[1, 2]]}\n",
         ProbekitError, "reads the results of 12_probe_vs_parser"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {n_layers: [1]}\n", ParameterError,
         "parameter 'n_layers': no chapter of the sweep declares it"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {n_train: [100, ten]}\n",
         ParameterError, r"parameter 'n_train': 'ten' is not of type int \(in 01_data"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1], [1]]}\n",
         ParameterError, "lists a value twice"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: []}\n", ParameterError,
         "non-empty list"),
        # Chapter 12's configuration needs two seeds: caught here, not after chapter 01 ran.
        ("name: s\nprofile: quick\nchapters: ['01', '12']\ngrid: {seeds: [[1, 2], [3]]}\n",
         ParameterError, r"parameter 'seeds'.*in 12_probe_vs_parser, sweep cell seeds=\[3\]"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n"
         "report: [{chapter: '12', key: uuas, label: gap}]\n", ProbekitError,
         "report chapter '12' is not a chapter of the sweep"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n"
         "report: [{chapter: '01', key: best_acc, label: acc, x: model}]\n", ProbekitError,
         "report x 'model' is not a grid parameter"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n"
         "prepare: [{jabberwocky: {seed: 1}}]\n", ParameterError, "parameter 'name'"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n"
         "prepare: [{jabberwocky: {seed: '1', name: j}}]\n", ParameterError,
         "parameter 'seed': jabberwocky expects int"),
        ("name: s\nprofile: quick\nchapters: ['01']\ngrid: {seeds: [[1]]}\n"
         "prepare: [{jabberwocky: {seed: 1, name: j, treebank: ./nowhere}}]\n",
         DataNotFoundError, "treebank directory nowhere does not exist"),
    ],
)
# fmt: on
def test_bad_sweep_files_are_named_before_anything_runs(tmp_path, text, error, match):
    with pytest.raises(error, match=match):
        sweep.load_sweep(_sweep_file(tmp_path, text))


def test_a_missing_treebank_stops_the_sweep_before_any_chapter_runs(tmp_path):
    paths = _project_copy(tmp_path)
    path = _sweep_file(
        tmp_path, "name: s\nprofile: quick\nchapters: ['01']\ngrid: {treebank: [./nowhere]}\n"
    )
    with pytest.raises(DataNotFoundError, match="treebank directory nowhere does not exist"):
        sweep.run_sweep(path, workers=1, paths=paths, log=lambda m: None)
    assert not list((tmp_path / "build" / "sweeps" / "s").glob("*/book"))


def test_the_cli_prints_a_bad_sweep_as_one_line_and_exits_2(tmp_path, capsys):
    from probekit.cli import main

    path = _sweep_file(tmp_path, "name: s\nprofile: quick\nchapters: ['01']\ngrid: {x: [1]}\n")
    assert main(["sweep", str(path)]) == 2
    assert "parameter 'x': no chapter of the sweep declares it" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# The table and the report


def _saved(tmp_path: Path, s: sweep.Sweep, cell: sweep.Cell, slug: str, values: dict) -> None:
    results = tmp_path / "build" / "sweeps" / s.name / cell.id / "build" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{slug}.json").write_text(json.dumps(values))


@pytest.fixture
def two_cells(tmp_path):
    """A sweep of chapter 12 over two seed sets, with hand-written saved results."""
    path = _sweep_file(
        tmp_path,
        f"name: s\nprofile: quick\nchapters: [{CH12}]\ngrid: {{seeds: [[1, 2], [3, 4]]}}\n"
        f"report: [{{chapter: '12', key: uuas, label: gap (points), scale: 100}},\n"
        f"         {{chapter: '12', key: n_runs, label: runs}}]\n",
    )
    s = sweep.load_sweep(path)
    for k, cell in enumerate(s.cells()):
        values = {"uuas_estimate": 0.1 * (k + 1), "uuas_low": 0.05, "uuas_high": 0.3}
        _saved(tmp_path, s, cell, CH12, {**values, "uuas_level": 0.9, "n_runs": 4 + k})
    return s


def test_the_table_has_a_row_per_cell_chapter_and_key_from_chapters_that_finished(
    tmp_path, two_cells
):
    s = two_cells
    cells = s.cells()
    paths = runner.Paths(tmp_path)
    table = sweep.collate(s, cells, {(c.id, CH12): True for c in cells}, paths)
    assert list(table.columns) == ["sweep", "profile", "cell", "seeds", "chapter", "key", "value"]
    assert len(table) == 2 * 5
    first = table[(table["cell"] == cells[0].id) & (table["key"] == "n_runs")].iloc[0]
    assert (first["seeds"], first["chapter"], first["value"]) == ("[1, 2]", CH12, 4)
    # A chapter that failed in this run keeps its older results out of the table.
    partial = sweep.collate(s, cells, {(cells[0].id, CH12): True}, paths)
    assert set(partial["cell"]) == {cells[0].id}


def test_the_report_plots_intervals_and_plain_values_and_names_unknown_keys(tmp_path, two_cells):
    s = two_cells
    cells = s.cells()
    paths = runner.Paths(tmp_path)
    table = sweep.collate(s, cells, {(c.id, CH12): True for c in cells}, paths)
    gap = sweep_report.report_values(s, table, s.report[0])
    assert list(gap["seeds"]) == ["[1, 2]", "[3, 4]"]
    assert gap["estimate"].tolist() == pytest.approx([10.0, 20.0])
    assert gap["high"].tolist() == pytest.approx([30.0, 30.0])
    runs = sweep_report.report_values(s, table, s.report[1])
    assert runs["estimate"].tolist() == [4.0, 5.0] and runs["low"].isna().all()
    bad = sweep_report.ReportKey(CH12, "uuass", "gap")
    with pytest.raises(ProbekitError, match="'uuass'.*saved no such result") as info:
        sweep_report.report_values(s, table, bad)
    assert "did you mean uuas," in str(info.value)  # the interval's name first

    out = tmp_path / "build" / "sweeps" / "s"
    fragment = sweep_report.write_report(s, table, out, paths)
    assert (out / "report.png").stat().st_size > 0
    text = fragment.read_text()
    assert "```{figure} /build/sweeps/s/report.png" in text
    assert "bars are the chapters' 90 % intervals" in text
    assert "| `[3, 4]` | 20 (5 to 30) |" in text
    assert "| `[1, 2]` | 4 |" in text
    page = (tmp_path / "book" / "_generated" / "sweeps.md").read_text()
    assert page.startswith("(sec-sweep-s)=")
    # Without its figure the fragment would break the build: the page falls back.
    (out / "report.png").unlink()
    assert sweep_report.book_page(tmp_path) == sweep_report.NO_SWEEP


def test_without_a_reported_sweep_the_page_says_so(tmp_path):
    assert "No sweep has been reported" in sweep_report.book_page(tmp_path)


# --------------------------------------------------------------------------------------------
# Running sweeps on a local Dask cluster


@pytest.mark.slow
def test_the_example_sweep_writes_its_table_and_a_report_page_that_builds(
    tmp_path, ewt, monkeypatch
):
    """sweeps/example.yml under `quick` on a LocalCluster of 2 workers, in a copy of the project:
    the Jabberwocky treebank is prepared, 4 cells x 2 chapters run, and `--report` writes a page
    that Jupyter Book renders with warnings as errors."""
    paths = _project_copy(tmp_path)
    # The copy finds EWT where the repository did, and its own data/ (it runs there) receives
    # the Jabberwocky treebank.
    monkeypatch.setenv("PROBEKIT_DATA_MIRROR", str(ewt.files.directory.parent))
    monkeypatch.chdir(tmp_path)
    lines: list[str] = []
    run = sweep.run_sweep(
        tmp_path / "sweeps" / "example.yml", workers=2, report=True, paths=paths, log=lines.append
    )
    assert (tmp_path / "data" / "UD_English-EWT-jabberwocky" / "jabberwocky-report.json").is_file()
    assert len(run.cells) == 4 and set(run.status.values()) == {"ran"}
    table = pd.read_csv(tmp_path / "build" / "sweeps" / "example" / "results.csv")
    assert len(table) == len(run.table) > 0
    assert set(table.groupby(["cell", "chapter"]).size().index) == {
        (c.id, slug) for c in run.cells for slug in (CH01, CH12)
    }
    for cell in run.cells:
        # Each cell's chapters ran with its values: the manifest records their parameters ...
        tree = tmp_path / "build" / "sweeps" / "example" / cell.id
        manifest = json.loads((tree / "book" / "chapters" / ".manifest.json").read_text())
        for slug in (CH01, CH12):
            assert manifest[slug]["parameters"]["seeds"] == cell.values["seeds"]
            assert manifest[slug]["parameters"]["treebank"] == cell.values["treebank"]
        # ... and chapter 12 says which treebank it read.
        mine = table[(table["cell"] == cell.id) & (table["chapter"] == CH12)]
        assert mine.set_index("key").loc["treebank", "value"] == cell.values["treebank"]
    # Nothing reaches the book's own chapters or results.
    assert not (tmp_path / "book" / "chapters").exists()
    assert not (tmp_path / "build" / "results").exists()

    page = (tmp_path / "book" / "_generated" / "sweeps.md").read_text()
    assert "## Sweep `example`" in page and "parser − probe UUAS (points)" in page
    gap = sweep_report.report_values(run.sweep, run.table, run.sweep.report[0])
    assert all(gap["low"] <= gap["estimate"]) and all(gap["estimate"] <= gap["high"])

    # A second run finds every chapter up to date and starts no cluster.
    again: list[str] = []
    rerun = sweep.run_sweep(tmp_path / "sweeps" / "example.yml", paths=paths, log=again.append)
    assert set(rerun.status.values()) == {"up to date"}
    assert "sweep example: 4 cells x 2 chapters, 0 to run" in again
    assert not any("Dask" in line for line in again)

    # The generated page renders without warnings: a one-page book that includes it.
    (tmp_path / "book" / "mini.md").write_text(
        "# Mini\n\n```{include} _generated/sweeps.md\n```\n"
    )
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/mini\n")
    from probekit.book.build import render_book

    html = render_book(paths, log=lambda m: None)
    assert list((html / "_images").glob("report*.png"))
    rendered = (html / "book" / "mini.html").read_text()
    assert 'id="fig-sweep-example"' in rendered and 'src="../_images/report.png"' in rendered


@pytest.mark.slow
def test_a_killed_sweep_resumes_running_only_the_chapters_it_had_not_finished(tmp_path):
    """`probekit sweep` is killed (SIGKILL to its process group: client, scheduler and workers)
    once the first chapter is promoted; the re-run runs exactly the chapters without a manifest
    entry and leaves the finished ones as they were."""
    _graph_project(tmp_path, {"90_a": [], "91_b": ["90_a"]})
    path = _sweep_file(
        tmp_path, "name: s\nprofile: quick\nchapters: [90_a, 91_b]\ngrid: {x: [1, 2]}\n"
    )
    manifests = tmp_path / "build" / "sweeps" / "s"
    proc = subprocess.Popen(
        [sys.executable, "-m", "probekit.cli", "sweep", str(path), "--workers", "1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not list(manifests.glob("*/book/chapters/.manifest.json")):
            assert proc.poll() is None, "the sweep ended before a chapter was promoted"
            assert time.monotonic() < deadline, "no chapter was promoted in 300 s"
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def entries() -> dict[tuple[str, str], dict]:
        return {
            (f.parents[2].name, slug): entry
            for f in manifests.glob("*/book/chapters/.manifest.json")
            for slug, entry in json.loads(f.read_text()).items()
        }

    before = entries()
    every = {(c, s) for c in (p.name for p in manifests.iterdir() if p.is_dir()) for s in ("90_a", "91_b")}
    assert len(every) == 4 and 0 < len(before) < 4

    lines: list[str] = []
    run = sweep.run_sweep(path, workers=2, paths=runner.Paths(tmp_path), log=lines.append)
    ran = {key for key, status in run.status.items() if status == "ran"}
    assert ran == every - set(before)
    assert lines[0] == f"sweep s: 2 cells x 2 chapters, {len(ran)} to run"
    after = entries()
    assert set(after) == every
    assert {key: after[key] for key in before} == before  # finished chapters were not re-run
    doubles = run.table[(run.table["chapter"] == "91_b") & (run.table["key"] == "double")]
    assert sorted(doubles["value"]) == [2, 4]


def _two_cell_sweep(tmp_path: Path) -> tuple[sweep.Sweep, dict[str, runner.Paths], runner.Paths]:
    """Chapters 90_a (600 s under quick) and 91_b (300 s, reads 90_a), in two cells."""
    paths = _graph_project(tmp_path, {"90_a": [], "91_b": ["90_a"]})
    (paths.profiles / "run_times.yml").write_text(
        "quick: {90_a: 600, 91_b: 300}\nthreads: {quick: 1}\n"
    )
    path = _sweep_file(
        tmp_path, "name: s\nprofile: quick\nchapters: [90_a, 91_b]\ngrid: {x: [1, 2]}\n"
    )
    s = sweep.load_sweep(path, paths)
    trees = {c.id: sweep.cell_paths(s, c, paths) for c in s.cells()}
    return s, trees, paths


def test_run_sweep_starts_one_worker_per_core_unless_told(tmp_path, monkeypatch):
    """The default, 'auto', is one worker per core; a number is taken as is; a scheduler starts
    no local cluster. (The cluster is replaced by a stand-in that records what it was asked.)"""
    s, _, paths = _two_cell_sweep(tmp_path)
    asked = []

    class Started(Exception):
        pass

    def fake_client(workers, scheduler, log=print):
        asked.append((workers, scheduler))
        raise Started

    monkeypatch.setattr(graph, "dask_client", fake_client)
    for workers, scheduler in ((None, None), ("auto", None), (2, None), (None, "tcp://x:1")):
        with pytest.raises(Started):
            sweep.run_sweep(s.source, workers=workers, scheduler=scheduler, paths=paths)
    cores = graph.available_cores()
    assert asked == [(cores, None), (cores, None), (2, None), (None, "tcp://x:1")]


def test_prepare_never_overwrites_a_directory_it_did_not_make(tmp_path, ewt, monkeypatch):
    monkeypatch.setenv("PROBEKIT_DATA", str(tmp_path))
    (tmp_path / "UD_Mine").mkdir()
    (tmp_path / "UD_Mine" / "notes.txt").write_text("mine")
    path = _sweep_file(
        tmp_path,
        "name: s\nprofile: quick\nchapters: ['01']\ngrid: {treebank: [UD_Mine]}\n"
        "prepare: [{jabberwocky: {seed: 1, name: UD_Mine}}]\n",
    )
    with pytest.raises(ProbekitError, match="UD_Mine exists but is not the Jabberwocky treebank"):
        sweep.prepare(sweep.load_sweep(path), log=lambda m: None)
    assert (tmp_path / "UD_Mine" / "notes.txt").read_text() == "mine"
