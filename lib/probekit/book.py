"""Running chapters and building the book.

A chapter is ``notebooks/NN_slug.py`` (Jupytext percent). ``run_chapter``:

1. computes the effective parameters (defaults < profile < overrides) and checks them;
2. resolves the data and model the parameters name, so a bad treebank or model fails here;
3. hashes (notebook source, ``lib/`` tree, parameters, lock file, data hashes, model revision)
   and skips the run when the promoted chapter already has that hash;
4. converts the notebook with jupytext to ``build/staging/NN_slug.ipynb`` with kernel python3,
   executes it with papermill, and on success removes the parameters cells from view, adds a
   collapsed parameters-and-provenance box, and promotes it atomically to ``book/chapters/``;
   a failed run is moved to ``build/failed/`` and its path reported.

``build_book`` runs every chapter of ``_toc.yml`` this way, writes the generated pages, and runs
``jb build -n -W --keep-going``. ``Glue`` is the one way chapters put numbers and figures into
prose.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from probekit.errors import ProbekitError
from probekit.params import effective_parameters, read_parameters

REPO = Path(__file__).resolve().parents[2]
LOCK_FILE = "constraints.txt"
MANIFEST = ".manifest.json"


@dataclass
class Paths:
    """Where the runner reads and writes; tests point it at a temporary tree."""

    root: Path = REPO

    @property
    def notebooks(self) -> Path:
        return self.root / "notebooks"

    @property
    def chapters(self) -> Path:
        return self.root / "book" / "chapters"

    @property
    def staging(self) -> Path:
        return self.root / "build" / "staging"

    @property
    def failed(self) -> Path:
        return self.root / "build" / "failed"

    @property
    def generated(self) -> Path:
        return self.root / "book" / "_generated"


@dataclass
class RunResult:
    chapter: str
    status: str  # "ran" or "up to date"
    output: Path
    seconds: float
    digest: str


# --------------------------------------------------------------------------------------------
# Content hash


def _tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for p in sorted(directory.rglob("*.py")):
        digest.update(str(p.relative_to(directory)).encode())
        digest.update(p.read_bytes())
    return digest.hexdigest()


def inputs_provenance(params: dict[str, Any]) -> dict[str, Any]:
    """Resolve the treebanks and models that ``params`` name: hashes and revisions.

    Parameters whose name contains ``treebank`` name treebanks; ``model`` and ``models`` name
    models. Errors (unknown treebank, unreachable model) surface here, before execution.
    """
    from probekit.data import resolve_treebank
    from probekit.embed import resolve_model

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


def declared_reads(notebook: Path, root: Path = REPO) -> list[str]:
    """Slugs of the chapters whose saved results (``build/results/<slug>.json``) ``notebook``
    reads, as its Jupytext header declares them::

        # jupyter:
        #   probekit:
        #     reads: [12_probe_vs_parser]     (or: reads: all, every chapter before it)
    """
    import jupytext

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
    notebook: Path, params: dict[str, Any], inputs: dict[str, Any], root: Path = REPO
) -> str:
    """Hash of everything a chapter's output depends on, including the saved results of the
    chapters it declares it reads (:func:`declared_reads`), so it re-runs when they change."""
    digest = hashlib.sha256()
    digest.update(notebook.read_bytes())
    for slug in declared_reads(notebook, root):
        saved = root / "build" / "results" / f"{slug}.json"
        digest.update(slug.encode() + (saved.read_bytes() if saved.is_file() else b"missing"))
    digest.update(_tree_digest(root / "lib" / "probekit").encode())
    digest.update(json.dumps(params, sort_keys=True).encode())
    lock = root / LOCK_FILE
    digest.update(lock.read_bytes() if lock.is_file() else b"")
    digest.update(json.dumps(inputs, sort_keys=True).encode())
    return digest.hexdigest()


def _load_manifest(paths: Paths) -> dict[str, Any]:
    f = paths.chapters / MANIFEST
    return json.loads(f.read_text()) if f.is_file() else {}


def _record_run(paths: Paths, slug: str, entry: dict[str, Any]) -> None:
    """Set one chapter's manifest entry. Chapters may run concurrently, so the read-modify-write
    happens under an exclusive lock and the file is replaced atomically."""
    import fcntl

    f = paths.chapters / MANIFEST
    with open(f.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = _load_manifest(paths)
        manifest[slug] = entry
        tmp = f.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(manifest, sort_keys=True, indent=1))
        os.replace(tmp, f)


# --------------------------------------------------------------------------------------------
# Running one chapter


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


def run_chapter(
    chapter: str | Path,
    profile: str | None = "book",
    overrides: dict[str, Any] | None = None,
    force: bool = False,
    paths: Paths | None = None,
    timeout: int = 3600,
    log: Any = print,
) -> RunResult:
    """Run one chapter (see module docstring); returns what happened."""
    import jupytext
    import papermill

    paths = paths or Paths()
    notebook = chapter_path(chapter, paths)
    slug = notebook.stem
    params = effective_parameters(notebook, profile, overrides)
    inputs = inputs_provenance(params)
    digest = run_digest(notebook, params, inputs, paths.root)
    output = paths.chapters / f"{slug}.ipynb"
    manifest = _load_manifest(paths)
    if not force and output.is_file() and manifest.get(slug, {}).get("digest") == digest:
        log(f"{slug}: up to date")
        return RunResult(slug, "up to date", output, 0.0, digest)

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
    log(f"{slug}: running (profile {profile}) ...")
    start = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(staging),
            str(executed),
            parameters=params,
            kernel_name="python3",
            cwd=str(paths.root),
            progress_bar=False,
            log_output=False,
            execution_timeout=timeout,
            report_mode=False,
        )
    except papermill.PapermillExecutionError as exc:
        failed = paths.failed / f"{slug}.ipynb"
        shutil.move(executed, failed)
        raise ProbekitError(
            f"{slug} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}",
            hint=f"the partly executed notebook is kept at {failed}",
        ) from None
    seconds = time.perf_counter() - start
    import nbformat

    done = nbformat.read(executed, as_version=4)
    info = provenance(slug, profile, params, inputs, seconds, notebook)
    _finish(done, read_parameters(notebook), params, info)
    tmp = output.with_suffix(".ipynb.tmp")
    nbformat.write(done, tmp)
    os.replace(tmp, output)
    executed.unlink(missing_ok=True)
    _record_run(
        paths,
        slug,
        {
            "digest": digest,
            "profile": profile,
            "seconds": round(seconds, 1),
            "parameters": params,
            "overrides": sorted(overrides or {}),
        },
    )
    log(f"{slug}: done in {seconds:.0f} s -> {output}")
    return RunResult(slug, "ran", output, seconds, digest)


def provenance(
    slug: str,
    profile: str | None,
    params: dict[str, Any],
    inputs: dict[str, Any],
    seconds: float,
    notebook: Path,
) -> dict[str, Any]:
    import torch
    import transformers

    import probekit

    commit = None
    try:
        commit = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                cwd=notebook.parent,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "chapter": slug,
        "profile": profile,
        "parameters": params,
        "seeds": {k: v for k, v in params.items() if "seed" in k},
        "inputs": inputs,
        "wall_time_s": round(seconds, 1),
        "versions": {
            "probekit": probekit.__version__,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "python": platform.python_version(),
        },
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
    }


def _code(value: Any) -> str:
    """A value as a table cell's code span (a pipe would end the cell)."""
    text = json.dumps(value) if not isinstance(value, str) else value
    return "`" + text.replace("|", "\\|").replace("\n", " ") + "`"


def _text(help_text: str) -> str:
    """Help text as a table cell: pipes and asterisks are literal."""
    return help_text.replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def provenance_markdown(info: dict[str, Any], declared: dict, params: dict[str, Any]) -> str:
    """A collapsed MyST admonition: parameter table, then inputs, seeds, versions, wall time."""
    rows = ["| parameter | type | value in this build | default | help |", "|---|---|---|---|---|"]
    for name, p in declared.items():
        rows.append(
            f"| `{name}` | `{p.type}` | {_code(params[name])} | {_code(p.default)} | "
            f"{_text(p.help)} |"
        )
    lines = [
        "```{admonition} Parameters and provenance of this page",
        ":class: dropdown",
        "",
        f"Built with profile **{info['profile']}** in {info['wall_time_s']:.0f} s "
        f"on {info['machine']}.",
        "",
        *rows,
        "",
    ]
    for key, m in info["inputs"]["models"].items():
        shown = m["name"] if key in (m["name"], "default") else f"{key} ({m['name']})"
        lines.append(f"- Model: `{shown}`, revision `{m['revision']}`, from the {m['source']}.")
    for key, t in info["inputs"]["treebanks"].items():
        hashes = ", ".join(f"{s} `{h[:12]}`" for s, h in t["sha256"].items())
        lines.append(
            f"- Treebank `{key}`: {t['name']} from the {t['source']} dir; sha256 {hashes}."
        )
    if info["seeds"]:
        lines.append(
            "- Seeds: " + ", ".join(f"`{k}` = {v}" for k, v in info["seeds"].items()) + "."
        )
    v = info["versions"]
    lines.append(
        f"- Software: probekit {v['probekit']}, torch {v['torch']}, transformers "
        f"{v['transformers']}, Python {v['python']}"
        + (f"; commit `{info['commit']}`." if info["commit"] else ".")
    )
    lines.append("```")
    return "\n".join(lines)


def _finish(nb, declared: dict, params: dict[str, Any], info: dict[str, Any]) -> None:
    """Hide the parameters cells, add the provenance box after the title, record provenance."""
    import nbformat

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


# --------------------------------------------------------------------------------------------
# The book


def toc_chapters(root: Path = REPO) -> list[str]:
    """Slugs of the executed chapters that ``_toc.yml`` lists (``book/chapters/<slug>``)."""
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


def parameter_tables(paths: Paths | None = None, profile: str = "book") -> str:
    """Markdown: one table per chapter of its parameters (name, type, default, profile value)."""
    paths = paths or Paths()
    parts = []
    for slug in toc_chapters(paths.root):
        nb = paths.notebooks / f"{slug}.py"
        declared = read_parameters(nb)
        values = effective_parameters(nb, profile)
        parts += [
            f"### `{slug}`",
            "",
            f"| parameter | type | default | `{profile}` profile | help |",
            "|---|---|---|---|---|",
        ]
        for name, p in declared.items():
            parts.append(
                f"| `{name}` | `{p.type}` | {_code(p.default)} | {_code(values[name])} | "
                f"{_text(p.help)} |"
            )
        parts.append("")
    return "\n".join(parts)


def build_summary(paths: Paths, profile: str) -> str:
    """Markdown: which profile built the book, and each chapter's run time (from the manifest)."""
    manifest = _load_manifest(paths)
    rows = ["| chapter | profile | run time (s) |", "|---|---|---|"]
    total = 0.0
    for slug in toc_chapters(paths.root):
        entry = manifest.get(slug, {})
        total += entry.get("seconds", 0.0)
        shown = str(entry.get("profile", "?"))
        if entry.get("overrides"):
            shown += " with " + ", ".join(f"`{name}`" for name in entry["overrides"])
        rows.append(
            f"| {{doc}}`{slug} <chapters/{slug}>` | {shown} | {entry.get('seconds', 0.0):.0f} |"
        )
    return "\n".join(
        [
            f"This build of the book used the parameter profile **{profile}**. "
            f"Its chapters took {total / 60:.1f} minutes to run:",
            "",
            *rows,
            "",
        ]
    )


def ledger_pages(paths: Paths) -> dict[str, str]:
    """Generated MyST from the claims ledger (:mod:`probekit.ledger`) on the saved results:
    ``overview_<part>.md`` for each part's overview page and ``answers.md``, the landing page's
    table of parts with this build's verdicts."""
    from probekit import ledger

    table = ledger.evaluate(load_results(paths.root / "build" / "results"))
    pages = {f"overview_{p.part}.md": ledger.overview_markdown(table, p.key) for p in ledger.PAPERS}
    rows = ["| part | paper | question | verdicts on this build |", "|---|---|---|---|"]
    for p in ledger.PAPERS:
        rows.append(
            f"| {{ref}}`{p.part} · {p.short} <sec-part-{p.part.lower()}>` | {{cite:t}}`{p.key}` | "
            f"{p.question} | {ledger.tally(table[table['paper'] == p.key])} |"
        )
    pages["answers.md"] = "\n".join(rows) + "\n"
    return pages


def write_generated(paths: Paths, profile: str) -> None:
    """The pages generated at build time: parameter tables, the build summary, and the claims
    ledger's verdicts for the landing page and the parts' overview pages."""
    paths.generated.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("parameters.md", parameter_tables(paths, profile)),
        ("build.md", build_summary(paths, profile)),
        (
            "profile.md",
            f"This build used the parameter profile **{profile}** ({{ref}}`sec-this-build`).",
        ),
        *ledger_pages(paths).items(),
    ):
        target = paths.generated / name
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        os.replace(tmp, target)


def build_book(
    profile: str = "book",
    force: bool = False,
    paths: Paths | None = None,
    chapters: list[str] | None = None,
    render: bool = True,
    log: Any = print,
) -> list[RunResult]:
    """Run the chapters (those of ``_toc.yml`` by default) and render the HTML book."""
    paths = paths or Paths()
    slugs = chapters or toc_chapters(paths.root)
    # Check every chapter's parameters before spending time on any of them.
    for slug in slugs:
        effective_parameters(paths.notebooks / f"{slug}.py", profile)
    results = [
        run_chapter(paths.notebooks / f"{slug}.py", profile, force=force, paths=paths, log=log)
        for slug in slugs
    ]
    write_generated(paths, profile)
    if render:
        render_book(paths, log=log)
    return results


def render_book(paths: Paths | None = None, log: Any = print) -> Path:
    """``jb build . -n -W --keep-going``; raises with the warnings when the build fails."""
    paths = paths or Paths()
    jb = Path(sys.executable).parent / "jb"
    cmd = [str(jb) if jb.exists() else "jb", "build", str(paths.root), "-n", "-W", "--keep-going"]
    log("rendering: " + " ".join(cmd[1:]))
    proc = subprocess.run(cmd, cwd=paths.root, capture_output=True, text=True)
    if proc.returncode != 0:
        warnings = [
            ln
            for ln in (proc.stdout + proc.stderr).splitlines()
            if re.search(r"WARNING|ERROR|Error", ln)
        ]
        raise ProbekitError(
            "jupyter-book build failed:\n" + "\n".join(warnings[-30:]),
            hint="fix the warnings above (the build treats warnings as errors)",
        )
    html = paths.root / "_build" / "html"
    log(f"book: {html / 'index.html'}")
    return html


# --------------------------------------------------------------------------------------------
# Saved results


def load_results(
    directory: str | Path, slugs: list[str] | None = None
) -> dict[str, dict[str, Any]]:
    """The chapters' saved glue values (``<directory>/<slug>.json``, written by
    :meth:`Glue.save`), by slug: those of ``slugs`` that exist, or every file when None.

    A file that is not a JSON object is an error naming the file, not a silently empty chapter.
    """
    d = Path(directory)
    files = (
        [d / f"{slug}.json" for slug in slugs] if slugs is not None else sorted(d.glob("*.json"))
    )
    out: dict[str, dict[str, Any]] = {}
    for f in files:
        if not f.is_file():
            continue
        try:
            values = json.loads(f.read_text())
        except json.JSONDecodeError as exc:
            raise ProbekitError(f"{f}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(values, dict):
            raise ProbekitError(f"{f}: expected a JSON object of saved values")
        out[f.stem] = values
    return out


# --------------------------------------------------------------------------------------------
# Glue


def _plain(value: Any) -> Any:
    """NumPy scalars and 0-d arrays to Python numbers, so glue's text/plain is a plain literal."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    return value


class Glue:
    """Glue values and figures into the prose under namespaced keys (``<prefix>_<key>``).

    Numbers are cast to Python types (NumPy 2 scalars break ``{glue:text}`` formatting); figures
    are glued without display and closed, so each appears once. In the prose::

        {glue:text}`ch01_n_sentences:,d`      (format spec: always give one)
        ```{glue:figure} ch01_fig_layers
        :name: fig-ch01-layers
        Caption.
        ```
    """

    def __init__(self, prefix: str):
        if not re.fullmatch(r"[a-z][a-z0-9]*", prefix):
            raise ValueError("glue prefix must be lowercase letters and digits, e.g. 'ch01'")
        self.prefix = prefix
        self.values: dict[str, Any] = {}

    def key(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def __call__(self, name: str, value: Any) -> Any:
        from myst_nb import glue

        value = _plain(value)
        self.values[name] = value
        glue(self.key(name), value, display=False)
        return value

    def comparison(self, name: str, cmp: Any) -> Any:
        """Glue a :class:`probekit.power.comparison.Comparison` as ``<name>_summary``, ``_verdict``,
        ``_diff`` (A - B, points), ``_p``, ``_power``, ``_n`` and ``_alpha``; the claims ledger
        judges McNemar claims from these saved values."""
        self(f"{name}_summary", cmp.summary())
        self(f"{name}_verdict", cmp.verdict)
        self(f"{name}_diff", 100 * cmp.diff)
        self(f"{name}_p", cmp.p_value)
        self(f"{name}_power", cmp.power)
        self(f"{name}_n", cmp.n)
        self(f"{name}_alpha", cmp.alpha)
        return cmp

    def figure(self, name: str, fig: Any) -> None:
        """Glue a matplotlib figure as PNG (whatever the backend) and close it."""
        import io

        import matplotlib.pyplot as plt
        from IPython.display import Image
        from myst_nb import glue

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        plt.close(fig)
        glue(self.key(name), Image(data=buffer.getvalue(), format="png"), display=False)

    def save(self, path: str | Path) -> None:
        """Write the glued scalars as JSON (for the claims ledger and tests)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.values, sort_keys=True, indent=1, default=str))
        os.replace(tmp, p)
