"""Running one chapter.

A chapter is ``notebooks/NN_slug.py`` (Jupytext percent). :func:`run_chapter`:

1. computes the effective parameters (defaults < profile < overrides) and checks them;
2. resolves the data and model the parameters name, so a bad treebank or model fails here;
3. hashes (notebook source, the library modules it imports found from the static import graph
   of :mod:`probekit.book.imports`, parameters, lock file, data hashes, model revision, declared
   upstream results) and skips the run when the promoted chapter already has that hash
   (:func:`plan_chapter`);
4. converts the notebook with jupytext to ``build/staging/NN_slug.ipynb`` with kernel python3,
   executes it with papermill, and on success removes the parameters cells from view, adds a
   collapsed parameters-and-provenance box, and promotes it atomically to ``book/chapters/``;
   a failed run is moved to ``build/failed/`` and its path reported.

The kernel talks to papermill over local IPC sockets in a private temporary directory, not TCP:
nothing listens on a network port, and ipykernel (7.x) has no reason to warn "Kernel is running
over TCP without encryption" on every chapter.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import papermill
import yaml
from traitlets.config import Config

from probekit.book.imports import installed_library, library_digest
from probekit.book.params import check_config, effective_parameters, read_parameters
from probekit.book.provenance import provenance, provenance_markdown
from probekit.errors import ProbekitError
from probekit.io.embeddings import resolve_model
from probekit.io.project import project_root
from probekit.io.treebanks import resolve_treebank

LOCK_FILE = "constraints.txt"
MANIFEST = ".manifest.json"
# The layout of a promoted notebook (hidden cells, provenance box; see _finish). It is part of
# every digest: raise it when that layout changes, so that every chapter is re-run once.
PROMOTED_LAYOUT = 1


@dataclass
class Paths:
    """Where the runner reads and writes; tests point it at a temporary tree.

    ``library`` is the ``probekit`` package the chapters' kernels import (by default the one this
    process imports); only its modules that a chapter imports enter that chapter's digest.
    """

    root: Path = field(default_factory=project_root)
    library: Path = field(default_factory=installed_library)

    @property
    def notebooks(self) -> Path:
        """The chapters' Jupytext sources, ``notebooks/``."""
        return self.root / "notebooks"

    @property
    def profiles(self) -> Path:
        """Parameter profiles, ``params/``."""
        return self.root / "params"

    @property
    def chapters(self) -> Path:
        """Promoted (executed) chapters and the manifest, ``book/chapters/``."""
        return self.root / "book" / "chapters"

    @property
    def staging(self) -> Path:
        """Converted and executing notebooks, ``build/staging/``."""
        return self.root / "build" / "staging"

    @property
    def failed(self) -> Path:
        """Partly executed notebooks of failed runs, ``build/failed/``."""
        return self.root / "build" / "failed"

    @property
    def generated(self) -> Path:
        """Pages generated at build time, ``book/_generated/``."""
        return self.root / "book" / "_generated"


@dataclass
class RunResult:
    """What :func:`run_chapter` did: ``status`` is "ran" or "up to date"."""

    chapter: str
    status: str
    output: Path
    seconds: float
    digest: str


@dataclass
class ChapterPlan:
    """A chapter ready to run.

    Its checked parameters, resolved inputs and digest, and whether the promoted notebook already
    has that digest (``up_to_date``).
    """

    slug: str
    notebook: Path
    params: dict[str, Any]
    inputs: dict[str, Any]
    digest: str
    output: Path
    up_to_date: bool


def inputs_provenance(params: dict[str, Any]) -> dict[str, Any]:
    """Resolve the treebanks and models that ``params`` name: hashes and revisions.

    Parameters whose name contains ``treebank`` name treebanks; ``model`` and ``models`` name
    models. Errors (unknown treebank, unreachable model) surface here, before execution.
    """
    out: dict[str, Any] = {"treebanks": {}, "models": {}}
    for name, value in params.items():
        if "treebank" in name and value:
            files = resolve_treebank(value)
            out["treebanks"][name] = {
                "name": files.name,
                "source": files.source,
                "directory": str(files.directory),
                "sha256": {s: files.sha256()[s] for s in files.files},
            }
        if name in ("model", "models") and value:
            for m in value if isinstance(value, list) else [value]:
                spec = resolve_model(m)
                out["models"][m] = {
                    "name": spec.name,
                    "revision": spec.revision,
                    "source": spec.source,
                }
    return out


def declared_reads(notebook: Path, root: Path | None = None) -> list[str]:
    """Slugs of the chapters whose saved results ``notebook`` reads, as declared.

    The results are ``build/results/<slug>.json``; the Jupytext header declares them::

        # jupyter:
        #   probekit:
        #     reads: [12_probe_vs_parser]     (or: reads: all, every chapter before it)
    """
    meta = jupytext.read(notebook).metadata.get("probekit", {})
    reads = meta.get("reads", []) if isinstance(meta, dict) else []
    if reads == "all":
        order = toc_chapters(root)
        return order[: order.index(notebook.stem)] if notebook.stem in order else order
    if not (isinstance(reads, list) and all(isinstance(r, str) for r in reads)):
        raise ProbekitError(
            f"{notebook}: probekit.reads must be 'all' or a list of chapter slugs, got {reads!r}"
        )
    return reads


def run_digest(
    notebook: Path,
    params: dict[str, Any],
    inputs: dict[str, Any],
    root: Path | None = None,
    library: Path | None = None,
) -> str:
    """Hash (sha256, hex) of everything a chapter's output depends on.

    That is: the notebook; the library modules it imports, transitively, and their package data
    (:func:`probekit.book.imports.library_digest` over ``library``, by default the installed
    package); the effective parameters; the lock file; the resolved inputs (data hashes, model
    revisions); the saved results of the chapters it declares it reads (:func:`declared_reads`);
    and the layout of promoted notebooks.
    """
    root = root or project_root()
    digest = hashlib.sha256()
    digest.update(f"layout {PROMOTED_LAYOUT}".encode())
    digest.update(notebook.read_bytes())
    for slug in declared_reads(notebook, root):
        saved = root / "build" / "results" / f"{slug}.json"
        digest.update(slug.encode() + (saved.read_bytes() if saved.is_file() else b"missing"))
    digest.update(library_digest(notebook, library).encode())
    digest.update(json.dumps(params, sort_keys=True).encode())
    lock = root / LOCK_FILE
    digest.update(lock.read_bytes() if lock.is_file() else b"")
    digest.update(json.dumps(inputs, sort_keys=True).encode())
    return digest.hexdigest()


def load_manifest(paths: Paths) -> dict[str, Any]:
    """The manifest of promoted chapters: slug -> digest, profile, seconds, threads, parameters."""
    f = paths.chapters / MANIFEST
    return json.loads(f.read_text()) if f.is_file() else {}


def kernel_threads() -> int:
    """The torch/BLAS threads a chapter's kernel gets.

    ``OMP_NUM_THREADS`` where it is set (a Dask worker sets it,
    :func:`probekit.book.graph.local_cluster`), else torch's default, one per core this process
    may use. The manifest records it beside each run's seconds, so that times measured with
    different thread counts can be told apart.
    """
    value = os.environ.get("OMP_NUM_THREADS", "")
    if value.isdigit() and int(value) >= 1:
        return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity mask
        return os.cpu_count() or 1


def _record_run(paths: Paths, slug: str, entry: dict[str, Any]) -> None:
    """Set one chapter's manifest entry.

    Chapters may run concurrently, so the read-modify-write happens under an exclusive lock and the
    file is replaced atomically.
    """
    f = paths.chapters / MANIFEST
    with open(f.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = load_manifest(paths)
        manifest[slug] = entry
        tmp = f.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(manifest, sort_keys=True, indent=1))
        os.replace(tmp, f)


def chapter_path(chapter: str | Path, paths: Paths | None = None) -> Path:
    """Accept ``notebooks/01_x.py``, ``01_x.py``, ``01_x`` or ``01``."""
    paths = paths or Paths()
    p = Path(chapter)
    if p.suffix == ".py" and p.is_file():
        return p.resolve()
    stem = p.stem
    matches = sorted(paths.notebooks.glob(f"{stem}*.py"))
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(m.stem for m in sorted(paths.notebooks.glob("[0-9]*.py")))
    raise ProbekitError(f"no single chapter matches '{chapter}'", hint=f"chapters: {known}")


def plan_chapter(
    chapter: str | Path,
    profile: str | None = "book",
    overrides: dict[str, Any] | None = None,
    paths: Paths | None = None,
) -> ChapterPlan:
    """Plan a chapter: steps 1-3 of the module docstring.

    Parameters checked, inputs resolved, digest compared with the manifest. Nothing runs; bad
    parameters or data raise here.
    """
    paths = paths or Paths()
    notebook = chapter_path(chapter, paths)
    slug = notebook.stem
    params = effective_parameters(notebook, profile, overrides, paths.profiles)
    check_config(notebook, params)
    inputs = inputs_provenance(params)
    digest = run_digest(notebook, params, inputs, paths.root, paths.library)
    output = paths.chapters / f"{slug}.ipynb"
    up_to_date = output.is_file() and load_manifest(paths).get(slug, {}).get("digest") == digest
    return ChapterPlan(slug, notebook, params, inputs, digest, output, up_to_date)


def _kernel_config(sockets: Path) -> Config:
    """Kernel manager settings: IPC sockets named ``<sockets>/kernel-<n>``.

    A short path, as a Unix socket's path is limited to about 100 bytes.
    """
    return Config({"KernelManager": {"transport": "ipc", "ip": str(sockets / "kernel")}})


def run_chapter(
    chapter: str | Path,
    profile: str | None = "book",
    overrides: dict[str, Any] | None = None,
    force: bool = False,
    paths: Paths | None = None,
    timeout: int = 3600,
    log: Any = print,
    progress: bool | str = False,
) -> RunResult:
    """Run one chapter (see module docstring); returns what happened.

    ``progress``: show papermill's progress bar on stderr (cells done, elapsed time), labelled
    with the chapter's slug, or with ``progress`` when it is a string.
    """
    paths = paths or Paths()
    plan = plan_chapter(chapter, profile, overrides, paths)
    slug, notebook, params, output = plan.slug, plan.notebook, plan.params, plan.output
    if not force and plan.up_to_date:
        log(f"{slug}: up to date")
        return RunResult(slug, "up to date", output, 0.0, plan.digest)

    for d in (paths.staging, paths.chapters, paths.failed):
        d.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(notebook)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    staging = paths.staging / f"{slug}.ipynb"
    executed = paths.staging / f"{slug}.out.ipynb"
    jupytext.write(nb, staging, fmt="ipynb")
    last = load_manifest(paths).get(slug, {}).get("seconds")
    log(
        f"{slug}: running (profile {profile}"
        + (f"; the last run took {last:.0f} s" if last is not None else "")
        + ") ..."
    )
    bar: bool | dict[str, Any] = False
    if progress:
        label = progress if isinstance(progress, str) else slug
        # One line per chapter; where stderr is a log file rather than a terminal, redraw it
        # rarely so the log keeps a few lines per chapter instead of one per cell.
        bar = {"desc": label, "file": sys.stderr, "mininterval": 0.5 if sys.stderr.isatty() else 60}
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="probekit-kernel-") as sockets:
            papermill.execute_notebook(
                str(staging),
                str(executed),
                parameters=params,
                kernel_name="python3",
                cwd=str(paths.root),
                progress_bar=bar,
                log_output=False,
                execution_timeout=timeout,
                report_mode=False,
                config=_kernel_config(Path(sockets)),
            )
    except papermill.PapermillExecutionError as exc:
        failed = paths.failed / f"{slug}.ipynb"
        shutil.move(executed, failed)
        raise ProbekitError(
            f"{slug} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}",
            hint=f"the partly executed notebook is kept at {failed}",
        ) from None
    seconds = time.perf_counter() - start

    done = nbformat.read(executed, as_version=4)
    info = provenance(slug, profile, params, plan.inputs, seconds, notebook)
    _finish(done, read_parameters(notebook), params, info)
    tmp = output.with_suffix(".ipynb.tmp")
    nbformat.write(done, tmp)
    os.replace(tmp, output)
    executed.unlink(missing_ok=True)
    _record_run(
        paths,
        slug,
        {
            "digest": plan.digest,
            "profile": profile,
            "seconds": round(seconds, 1),
            "threads": kernel_threads(),
            "parameters": params,
            "overrides": sorted(overrides or {}),
        },
    )
    log(f"{slug}: done in {seconds:.0f} s -> {output}")
    return RunResult(slug, "ran", output, seconds, plan.digest)


def _finish(nb, declared: dict, params: dict[str, Any], info: dict[str, Any]) -> None:
    """Hide the parameters cells, add the provenance box after the title, record provenance."""
    for cell in nb.cells:
        tags = cell.metadata.setdefault("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "remove-cell" not in tags:
            tags.append("remove-cell")
        if cell.cell_type == "code":
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    raise ProbekitError(f"{info['chapter']}: an error output survived execution")
    box = nbformat.v4.new_markdown_cell(provenance_markdown(info, declared, params))
    box.metadata["tags"] = ["provenance"]
    first_md = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), -1)
    nb.cells.insert(first_md + 1, box)
    nb.metadata["probekit"] = info


def toc_chapters(root: Path | None = None) -> list[str]:
    """Slugs of the executed chapters that ``_toc.yml`` lists (``book/chapters/<slug>``)."""
    root = root or project_root()
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/chapters/"):
                found.append(Path(f).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return found
