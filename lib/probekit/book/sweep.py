"""Parameter sweeps: chapters run over a grid of parameter values, as one Dask task graph.

A sweep file is YAML (read with ``yaml.safe_load``)::

    name: example                   # its directory: build/sweeps/<name>/
    profile: quick                  # the parameter profile every cell starts from
    chapters: [01_data_and_representations, 12_probe_vs_parser]
    prepare:                        # optional: treebanks made before the cells run
      - jabberwocky: {treebank: UD_English-EWT, seed: 1, name: UD_English-EWT-jabberwocky}
    grid:                           # parameter -> values; a cell takes one value of each
      treebank: [UD_English-EWT, UD_English-EWT-jabberwocky]
      seeds: [[1, 2], [3, 4]]
    report:                         # optional: saved results the report page plots
      - {chapter: 12_probe_vs_parser, key: uuas, label: "parser - probe UUAS (points)",
         scale: 100}

Every cell of the grid (the Cartesian product of its values) runs the chapters with its values
as parameter overrides, each chapter receiving the grid parameters it declares. A cell is a tree
of its own, ``build/sweeps/<name>/<cell>/`` (:class:`CellPaths`): its promoted notebooks and
manifest under ``book/chapters/``, its saved results under ``build/results/``. Cells are never
promoted into the book. The cell's directory name is a content hash of its values with a
readable prefix, so an interrupted or edited sweep resumes: the runner's digests skip every
chapter of every cell whose inputs did not change (:func:`probekit.book.runner.plan_chapter`).

All cells' chapters are submitted to one Dask client (:mod:`probekit.book.graph`): a local
cluster by default, or an existing scheduler; within a cell a chapter waits for the chapters whose
results it reads. Everything is checked before anything runs: the file's fields, the chapters,
every cell's parameters against every chapter's declared types and typed configuration, the
``prepare`` steps, and (after those made their treebanks) every cell's treebanks and models.

The saved results of every cell are collated into one tidy table,
``build/sweeps/<name>/results.csv``: one row per cell x chapter x result key, the cell's values
as columns. ``--report`` adds a page plotting the ``report`` keys across the grid to the book
(:mod:`probekit.book.sweep_report`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from probekit.book import graph, sweep_report
from probekit.book.build import stale_chapters
from probekit.book.params import (
    check_config,
    effective_parameters,
    load_profile,
    read_parameters,
)
from probekit.book.runner import LOCK_FILE, Paths, chapter_path, declared_reads, toc_chapters
from probekit.book.sweep_report import ReportKey
from probekit.errors import ParameterError, ProbekitError
from probekit.io.project import project_root
from probekit.io.results import load_results
from probekit.io.treebanks import SPLITS, data_dir, file_sha256, resolve_treebank
from probekit.methods.jabberwocky.substitution import check_rate
from probekit.methods.jabberwocky.treebank import make_jabberwocky

FIELDS = ("name", "profile", "chapters", "grid", "prepare", "report")
# Columns of the results table that a grid parameter may not shadow.
RESERVED = ("sweep", "profile", "cell", "chapter", "key", "value")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_JABBERWOCKY = {"treebank": str, "seed": int, "name": str, "split": str, "rate": float}


@dataclass
class CellPaths(Paths):
    """Where one sweep cell's chapters read and write.

    ``root`` is the cell's directory: promoted notebooks and manifest, staging, failed runs and
    (the kernels run there) saved results live under it. Notebooks and profiles come from the
    ``project``.
    """

    project: Path = field(default_factory=project_root)

    @property
    def notebooks(self) -> Path:
        """The project's ``notebooks/``."""
        return self.project / "notebooks"

    @property
    def profiles(self) -> Path:
        """The project's ``params/``."""
        return self.project / "params"


@dataclass(frozen=True)
class Jabberwocky:
    """A ``prepare`` step: the Jabberwocky version of ``treebank`` written to ``data/<name>/``.

    Hall Maudslay & Cotterell 2021, §3: the ``split`` with eligible words replaced by
    pseudowords, the other splits unchanged
    (:func:`probekit.methods.jabberwocky.treebank.make_jabberwocky`).
    """

    treebank: str
    seed: int
    name: str
    split: str = "test"
    rate: float = 1.0


@dataclass(frozen=True)
class Cell:
    """One point of the grid: ``values`` (grid parameter -> value as written) and its ``id``."""

    id: str
    values: dict[str, Any]

    def label(self) -> str:
        """``name=value, ...`` for messages."""
        return ", ".join(f"{k}={json.dumps(v)}" for k, v in self.values.items())


@dataclass(frozen=True)
class Sweep:
    """A checked sweep file."""

    name: str
    profile: str
    chapters: list[str]
    grid: dict[str, list[Any]]
    prepare: list[Jabberwocky]
    report: list[ReportKey]
    source: Path

    def cells(self) -> list[Cell]:
        """Every combination of the grid's values, the last parameter varying fastest."""
        cells = []
        for combo in itertools.product(*self.grid.values()):
            values = dict(zip(self.grid, combo, strict=True))
            cells.append(Cell(cell_id(values), values))
        return cells


@dataclass
class SweepRun:
    """What :func:`run_sweep` did.

    ``status``: (cell id, chapter) -> "ran", "up to date", "failed" or "not run"; ``table``: the
    results table as written to ``table_path``; ``report``: the report fragment, if written.
    """

    sweep: Sweep
    cells: list[Cell]
    status: dict[tuple[str, str], str]
    table: pd.DataFrame
    table_path: Path
    seconds: float
    report: Path | None = None


def cell_id(values: dict[str, Any]) -> str:
    """A cell's directory name: its values, readable, then 10 hex digits of their sha256.

    Both follow the parameters' names in sorted order and the values as written in the sweep
    file, so the same values always name the same directory, whatever the order of the grid.
    """
    digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:10]
    readable = "_".join(
        "-".join(map(str, v)) if isinstance(v, list) else str(v) for _, v in sorted(values.items())
    )
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", readable).strip("-._")[:40].rstrip("-._")
    return f"{readable}-{digest}" if readable else digest


def sweep_dir(name: str, root: Path) -> Path:
    """``build/sweeps/<name>/`` of the project at ``root``."""
    return root / "build" / "sweeps" / name


def _fail(source: Path, what: str, hint: str | None = None) -> ProbekitError:
    return ProbekitError(f"{source}: {what}", hint=hint)


def load_sweep(path: str | Path, paths: Paths | None = None) -> Sweep:
    """Read and check a sweep file; raises naming the first problem (see the module docstring).

    Checks everything that needs no data: the fields and their types, the chapters (in the book's
    table of contents, and every chapter a sweep chapter reads is in the sweep), the ``prepare``
    steps (their source treebank resolves), the report keys, and every cell's parameters: each
    grid parameter is declared by a chapter, and each chapter's effective parameters in each cell
    pass :func:`~probekit.book.params.effective_parameters` and its typed configuration.
    """
    paths = paths or Paths()
    source = Path(path)
    if not source.is_file():
        raise ProbekitError(f"no sweep file {source}", hint="see sweeps/example.yml")
    try:
        spec = yaml.safe_load(source.read_text())
    except yaml.YAMLError as exc:
        raise _fail(source, f"not valid YAML ({exc})") from None
    if not isinstance(spec, dict):
        raise _fail(source, "expected a mapping of name, profile, chapters, grid")
    unknown = sorted(set(map(str, spec)) - set(FIELDS))
    if unknown:
        raise _fail(
            source, f"unknown field(s) {', '.join(unknown)}", f"fields: {', '.join(FIELDS)}"
        )
    for required in ("name", "profile", "chapters", "grid"):
        if required not in spec:
            raise _fail(source, f"missing field '{required}'", "see sweeps/example.yml")
    name = spec["name"]
    if not (isinstance(name, str) and _NAME.fullmatch(name)):
        raise _fail(
            source,
            f"name must be letters, digits, '-' or '_', got {name!r}",
            "it names a directory",
        )
    profile = spec["profile"]
    if not isinstance(profile, str):
        raise _fail(source, f"profile must be a profile name, got {profile!r}")
    load_profile(profile, paths.profiles)
    chapters = _check_chapters(spec["chapters"], source, paths)
    grid = _check_grid(spec["grid"], source)
    sweep = Sweep(
        name=name,
        profile=profile,
        chapters=chapters,
        grid=grid,
        prepare=_check_prepare(spec.get("prepare") or [], source),
        report=_check_report(spec.get("report") or [], chapters, grid, source),
        source=source,
    )
    _check_cells(sweep, paths)
    return sweep


def _check_chapters(chapters: Any, source: Path, paths: Paths) -> list[str]:
    """Slugs of the sweep's chapters, in the book's order (a topological order of reads)."""
    if not (isinstance(chapters, list) and chapters and all(isinstance(c, str) for c in chapters)):
        raise _fail(source, f"chapters must be a non-empty list of slugs, got {chapters!r}")
    order = toc_chapters(paths.root)
    slugs = [chapter_path(c, paths).stem for c in chapters]
    for given, slug in zip(chapters, slugs, strict=True):
        if slug not in order:
            raise _fail(
                source, f"chapter {given!r} is not in the book", f"chapters: {', '.join(order)}"
            )
    if len(set(slugs)) < len(slugs):
        raise _fail(source, "a chapter is listed twice")
    slugs.sort(key=order.index)
    for slug in slugs:
        missing = [
            r for r in declared_reads(paths.notebooks / f"{slug}.py", paths.root) if r not in slugs
        ]
        if missing:
            raise _fail(
                source,
                f"{slug} reads the results of {', '.join(missing)}, which the sweep does not run",
                "add them to chapters: each cell runs the chapters a chapter reads",
            )
    return slugs


def _check_grid(grid: Any, source: Path) -> dict[str, list[Any]]:
    if not (isinstance(grid, dict) and grid):
        raise _fail(source, "grid must map parameter names to lists of values")
    for name, values in grid.items():
        if not isinstance(name, str) or name in RESERVED:
            raise ParameterError(
                str(name), f"cannot be a grid parameter of {source}", f"reserved: {RESERVED}"
            )
        if not (isinstance(values, list) and values):
            raise ParameterError(
                name, f"the grid needs a non-empty list of values, got {values!r}", "e.g. [1, 2]"
            )
        written = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(written)) < len(written):
            raise ParameterError(name, f"the grid lists a value twice: {values!r}")
    return grid


def _check_prepare(steps: Any, source: Path) -> list[Jabberwocky]:
    if not isinstance(steps, list):
        raise _fail(source, "prepare must be a list of steps such as {jabberwocky: {...}}")
    out = []
    for step in steps:
        if not (isinstance(step, dict) and list(step) == ["jabberwocky"]):
            raise _fail(source, f"unknown prepare step {step!r}", "the one step is jabberwocky")
        args = step["jabberwocky"]
        if not isinstance(args, dict):
            raise _fail(source, f"jabberwocky takes a mapping of {', '.join(_JABBERWOCKY)}")
        for key, value in args.items():
            kind = _JABBERWOCKY.get(key)
            if kind is None:
                raise ParameterError(
                    key, "unknown argument of jabberwocky", f"use {', '.join(_JABBERWOCKY)}"
                )
            ok = isinstance(value, int | float) if kind is float else isinstance(value, kind)
            if not ok or isinstance(value, bool):
                raise ParameterError(key, f"jabberwocky expects {kind.__name__}, got {value!r}")
        for key in ("seed", "name"):
            if key not in args:
                raise ParameterError(key, "jabberwocky needs it", "e.g. {seed: 1, name: X}")
        made = Jabberwocky(**{"treebank": "UD_English-EWT", **args})
        if not _NAME.fullmatch(made.name):
            raise ParameterError("name", f"must be a directory name under data/, got {made.name!r}")
        if made.split not in SPLITS:
            raise ParameterError("split", f"unknown split {made.split!r}", f"use one of {SPLITS}")
        check_rate(made.rate)
        resolve_treebank(made.treebank, splits=(made.split,))
        out.append(made)
    return out


def _check_report(
    entries: Any, chapters: list[str], grid: dict[str, list[Any]], source: Path
) -> list[ReportKey]:
    if not isinstance(entries, list):
        raise _fail(source, "report must be a list of {chapter, key, label}")
    fields = {f.name: f for f in dataclasses.fields(ReportKey)}
    out = []
    for entry in entries:
        if not (isinstance(entry, dict) and {"chapter", "key", "label"} <= set(entry)):
            raise _fail(source, f"a report entry needs chapter, key and label, got {entry!r}")
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise _fail(
                source, f"unknown report field(s) {', '.join(unknown)}", f"use {', '.join(fields)}"
            )
        for key in ("key", "label"):
            if not (isinstance(entry[key], str) and entry[key]):
                raise _fail(source, f"report {key} must be a non-empty string, got {entry[key]!r}")
        scale = entry.get("scale", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, int | float):
            raise _fail(source, f"report scale must be a number, got {scale!r}")
        if entry.get("x") is not None and entry["x"] not in grid:
            raise _fail(
                source,
                f"report x {entry['x']!r} is not a grid parameter",
                f"grid: {', '.join(grid)}",
            )
        slug = entry["chapter"]
        match = [c for c in chapters if c == slug or c.split("_")[0] == str(slug)]
        if len(match) != 1:
            raise _fail(
                source,
                f"report chapter {slug!r} is not a chapter of the sweep",
                f"chapters: {', '.join(chapters)}",
            )
        out.append(ReportKey(**{**entry, "chapter": match[0], "scale": float(scale)}))
    return out


def cell_overrides(sweep: Sweep, cell: Cell, paths: Paths) -> dict[str, dict[str, Any]]:
    """Each chapter's overrides in ``cell``: the grid parameters it declares.

    A treebank or model given as a path relative to the project (``data/x``) is made absolute,
    since a cell's kernels run in the cell's directory.
    """
    out: dict[str, dict[str, Any]] = {}
    for slug in sweep.chapters:
        declared = read_parameters(paths.notebooks / f"{slug}.py")
        out[slug] = {
            name: _absolute(name, value, paths.root)
            for name, value in cell.values.items()
            if name in declared
        }
    return out


def _absolute(name: str, value: Any, root: Path) -> Any:
    if not ("treebank" in name or name in ("model", "models")) or not isinstance(value, str):
        return value
    looks_like_path = os.sep in value or value.startswith(".")
    if not looks_like_path or Path(value).is_absolute() or not (root / value).exists():
        return value  # a UD or Hugging Face name, or an absolute path
    return str((root / value).resolve())


def _check_cells(sweep: Sweep, paths: Paths) -> None:
    """Every grid parameter declared by a chapter; every cell's parameters valid in each chapter."""
    declared = {s: read_parameters(paths.notebooks / f"{s}.py") for s in sweep.chapters}
    for name in sweep.grid:
        if not any(name in d for d in declared.values()):
            raise ParameterError(
                name,
                f"no chapter of the sweep declares it ({', '.join(sweep.chapters)})",
                "see `probekit params <chapter>`",
            )
    for cell in sweep.cells():
        for slug, overrides in cell_overrides(sweep, cell, paths).items():
            notebook = paths.notebooks / f"{slug}.py"
            try:
                params = effective_parameters(notebook, sweep.profile, overrides, paths.profiles)
                check_config(notebook, params)
            except ParameterError as exc:
                what = str(exc.args[0]).split(": ", 1)[-1]
                raise ParameterError(
                    exc.name, f"{what} (in {slug}, sweep cell {cell.label()})", exc.hint
                ) from None


def prepare(sweep: Sweep, log: Any = print) -> None:
    """Make the ``prepare`` treebanks in the data dir, unless an identical one is there.

    Identical: the directory's ``jabberwocky-report.json`` has the same source file hash, seed,
    split and rate, and its output file still has the hash the report recorded. A directory
    holding anything else is an error, never overwritten.
    """
    for step in sweep.prepare:
        out = data_dir() / step.name
        source = resolve_treebank(step.treebank, splits=(step.split,)).files[step.split]
        report = out / "jabberwocky-report.json"
        if out.exists():
            try:
                made = json.loads(report.read_text()) if report.is_file() else {}
            except json.JSONDecodeError:
                made = {}
            files = made.get("files", {}) if isinstance(made, dict) else {}
            output = out / files.get("output", {}).get("file", "?")
            same = (
                files.get("input", {}).get("sha256") == file_sha256(source)
                and (made.get("seed"), made.get("split"), made.get("rate"))
                == (step.seed, step.split, step.rate)
                and output.is_file()
                and file_sha256(output) == files["output"].get("sha256")
            )
            if same:
                log(f"sweep {sweep.name}: {out} is up to date")
                continue
            raise ProbekitError(
                f"{out} exists but is not the Jabberwocky treebank that {sweep.source} asks for "
                f"(seed {step.seed}, {step.split} split of {step.treebank})",
                hint="remove it, or give the prepare step another name",
            )
        log(f"sweep {sweep.name}: writing the Jabberwocky treebank {out} (seed {step.seed}) ...")
        make_jabberwocky(step.treebank, out, seed=step.seed, split=step.split, rate=step.rate)


def cell_paths(sweep: Sweep, cell: Cell, paths: Paths) -> CellPaths:
    """The cell's tree, created.

    Its directory holds ``cell.json`` (its values) and copies of the project's lock file and
    table of contents, which its chapters' digests and declared reads use.
    """
    root = sweep_dir(sweep.name, paths.root) / cell.id
    root.mkdir(parents=True, exist_ok=True)
    for name in (LOCK_FILE, "_toc.yml"):
        src, dst = paths.root / name, root / name
        if src.is_file() and (not dst.is_file() or dst.read_bytes() != src.read_bytes()):
            shutil.copyfile(src, dst)
    record = json.dumps({"sweep": sweep.name, "cell": cell.id, "values": cell.values}, indent=1)
    if not (root / "cell.json").is_file() or (root / "cell.json").read_text() != record:
        (root / "cell.json").write_text(record)
    return CellPaths(root, library=paths.library, project=paths.root)


def collate(
    sweep: Sweep,
    cells: list[Cell],
    done: dict[tuple[str, str], bool],
    paths: Paths,
) -> pd.DataFrame:
    """The tidy table: one row per cell x chapter x saved result key.

    Columns ``sweep``, ``profile``, ``cell``, the grid parameters (lists written as JSON),
    ``chapter``, ``key``, ``value`` (lists and mappings as JSON). Only chapters ``done`` in this
    run (ran or up to date) contribute, so a failed chapter's older results are never collated.
    """
    rows = []
    for cell in cells:
        results_dir = sweep_dir(sweep.name, paths.root) / cell.id / "build" / "results"
        values = {k: _cell_value(v) for k, v in cell.values.items()}
        saved = load_results(results_dir, [s for s in sweep.chapters if done.get((cell.id, s))])
        for slug, result in saved.items():
            for key in sorted(result):
                rows.append(
                    {
                        "sweep": sweep.name,
                        "profile": sweep.profile,
                        "cell": cell.id,
                        **values,
                        "chapter": slug,
                        "key": key,
                        "value": _cell_value(result[key]),
                    }
                )
    columns = ["sweep", "profile", "cell", *sweep.grid, "chapter", "key", "value"]
    return pd.DataFrame(rows, columns=columns)


def _cell_value(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, list | dict) else value


def run_sweep(
    path: str | Path,
    workers: int | str | None = None,
    scheduler: str | None = None,
    report: bool = False,
    paths: Paths | None = None,
    log: Any = print,
) -> SweepRun:
    """Run a sweep file (module docstring) and write its results table; returns what happened.

    ``workers`` sizes the local Dask cluster: a number of workers, or "auto" (the default): one
    worker per core, each kernel on an equal share of the cores. ``scheduler``
    submits to an existing cluster instead. ``report`` writes the report page and adds
    it to the book; a sweep reported once is re-reported on every later run. After the table is
    written, raises naming the chapters that failed or did not run (re-running resumes).
    """
    paths = paths or Paths()
    if workers is not None and scheduler is not None:
        raise ProbekitError("give --workers or --scheduler, not both")
    n_workers = None if scheduler else graph.resolve_workers(workers or "auto")
    sweep = load_sweep(path, paths)
    prepare(sweep, log)
    cells = sweep.cells()
    trees = {cell.id: cell_paths(sweep, cell, paths) for cell in cells}
    overrides = {cell.id: cell_overrides(sweep, cell, paths) for cell in cells}
    # Plan every chapter of every cell (treebanks and models resolve here) before anything runs.
    stale = {
        cell.id: stale_chapters(
            sweep.chapters, sweep.profile, trees[cell.id], overrides=overrides[cell.id]
        )
        for cell in cells
    }
    n_stale = sum(map(len, stale.values()))
    log(
        f"sweep {sweep.name}: {len(cells)} cells x {len(sweep.chapters)} chapters, {n_stale} to run"
    )
    start = time.perf_counter()
    status = {(c.id, s): "up to date" for c in cells for s in sweep.chapters}
    failures: list[str] = []
    if n_stale:

        def say(message: str) -> None:
            log(f"sweep {sweep.name}: {message}")

        with graph.dask_client(n_workers, scheduler, log=say) as client:
            jobs = {}
            for cell in cells:
                jobs |= graph.plan_chapters(
                    stale[cell.id],
                    sweep.chapters,
                    sweep.profile,
                    paths=trees[cell.id],
                    overrides=overrides[cell.id],
                    prefix=f"sweep-{sweep.name}-{cell.id}",
                    name=f"{cell.id}/{{slug}}",
                )
            outcomes = graph.run_jobs(jobs, client, log)
        for label, outcome in outcomes.items():
            cell_name, slug = label.split("/")
            status[(cell_name, slug)] = outcome.status
            if outcome.status in ("failed", "not run"):
                failures.append(f"{label} {outcome.status}: {outcome.message}")
    seconds = time.perf_counter() - start
    done = {k: v in ("ran", "up to date") for k, v in status.items()}
    table = collate(sweep, cells, done, paths)
    out = sweep_dir(sweep.name, paths.root)
    table_path = out / "results.csv"
    tmp = table_path.with_suffix(f".{os.getpid()}.tmp")
    table.to_csv(tmp, index=False)
    os.replace(tmp, table_path)
    ran = sum(v == "ran" for v in status.values())
    log(
        f"sweep {sweep.name}: ran {ran} of {len(status)} chapter runs in {seconds / 60:.1f} min; "
        f"{table_path} ({len(table)} rows)"
    )
    if failures:
        raise ProbekitError(
            f"sweep {sweep.name}: " + "; ".join(failures),
            hint="the table holds the other cells; fix the failures and re-run the same command "
            "(finished chapters are skipped)",
        )
    written = None
    if report or sweep_report.is_reported(out):
        written = sweep_report.write_report(sweep, table, out, paths)
        log(f"sweep {sweep.name}: report {written}; `probekit book` renders it")
    return SweepRun(sweep, cells, status, table, table_path, seconds, written)
