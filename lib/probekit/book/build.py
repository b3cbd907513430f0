"""Building the whole book.

Run every chapter of ``_toc.yml``, write the generated pages (parameter tables, build summary, the
claims ledger's verdicts), and render the HTML with ``jb build -n -W --keep-going``.

Before running anything, :func:`build_book` plans every chapter (parameters checked, inputs
resolved, digests compared: :func:`stale_chapters`) and estimates the time left from the run
times the manifest recorded for the last build; it reports progress one chapter per line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from probekit.book import graph, ledger, sweep_report, timing
from probekit.book.params import effective_parameters, read_parameters
from probekit.book.provenance import code_cell, text_cell
from probekit.book.runner import (
    Paths,
    RunResult,
    declared_reads,
    load_manifest,
    plan_chapter,
    run_chapter,
    toc_chapters,
)
from probekit.errors import ProbekitError
from probekit.io.results import load_results


def parameter_tables(paths: Paths | None = None, profile: str = "book") -> str:
    """Markdown: one table per chapter of its parameters (name, type, default, profile value)."""
    paths = paths or Paths()
    parts = []
    for slug in toc_chapters(paths.root):
        nb = paths.notebooks / f"{slug}.py"
        declared = read_parameters(nb)
        values = effective_parameters(nb, profile, profiles_dir=paths.profiles)
        parts += [
            f"### `{slug}`",
            "",
            f"| parameter | type | default | `{profile}` profile | help |",
            "|---|---|---|---|---|",
        ]
        for name, p in declared.items():
            parts.append(
                f"| `{name}` | `{p.type}` | {code_cell(p.default)} | {code_cell(values[name])} | "
                f"{text_cell(p.help)} |"
            )
        parts.append("")
    return "\n".join(parts)


def build_summary(paths: Paths, profile: str) -> str:
    """Markdown: which profile built the book, and each chapter's run time (from the manifest)."""
    manifest = load_manifest(paths)
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
            f"Its chapters took {total / 60:.1f} minutes to run (a chapter whose inputs had not "
            "changed was not run again and shows the time of the run that made it):",
            "",
            *rows,
            "",
        ]
    )


PROJECTED_WORKERS = (1, 2, 4, 8)


def workers_projection(paths: Paths) -> str:
    """Markdown: the chapter graph's critical path and the projected wall time of the book.

    On 1, 2, 4 and 8 workers, from the run times the manifest recorded
    (:mod:`probekit.book.graph`).
    """
    slugs = toc_chapters(paths.root)
    manifest = load_manifest(paths)
    seconds = {s: manifest[s]["seconds"] for s in slugs if s in manifest}
    if len(seconds) < len(slugs):
        return "No projection: some chapters have no recorded run time yet.\n"
    parents = graph.chapter_graph(slugs, paths)
    chain = graph.critical_path(seconds, parents)
    rows = ["| workers | projected wall time (min) | share of one worker's time |", "|---|---|---|"]
    one = graph.projected_wall(seconds, parents, 1)
    for n in PROJECTED_WORKERS:
        wall = graph.projected_wall(seconds, parents, n)
        rows.append(f"| {n} | {wall / 60:.1f} | {wall / one:.2f} |")
    path = " → ".join(f"`{s}` ({seconds[s]:.0f} s)" for s in chain)
    return "\n".join(
        [
            "Chapters that do not read each other's results can run side by side "
            "(`probekit book --workers N`, {ref}`sec-rerun`). The chapters' run times above, "
            "measured in the build that last ran each chapter (beside other chapters when it "
            f"used several workers), add up to {one / 60:.1f} minutes. The longest chain of chapters "
            f"that must run one after another, the critical path, takes "
            f"{sum(seconds[s] for s in chain) / 60:.1f} minutes: {path}. No number of workers "
            "builds the book faster.",
            "",
            "Projected from the same run times, with the longest remaining chain started first "
            "(the priority the build gives the Dask scheduler); each worker is assumed to have "
            "its own cores, so on a machine with fewer cores than workers these are lower "
            "bounds:",
            "",
            *rows,
            "",
        ]
    )


def run_times_section(paths: Paths) -> str:
    """Markdown: a heading and the chapters' measured times per profile (:mod:`.timing`)."""
    head = "### Run times by profile\n\n"
    missing = [p for p in ("quick", "book", "full") if not (paths.profiles / f"{p}.yml").is_file()]
    if missing:
        return head + f"No table: no profile {', '.join(missing)} in this project.\n"
    return head + timing.timing_section(paths)


def ledger_pages(paths: Paths) -> dict[str, str]:
    """Generated MyST from the claims ledger (:mod:`probekit.book.ledger`) on the saved results.

    ``overview_<part>.md`` for each part's overview page and ``answers.md``, the landing page's
    table of parts with this build's verdicts.
    """
    table = ledger.evaluate(load_results(paths.root / "build" / "results"))
    pages = {f"overview_{p.part}.md": ledger.overview_markdown(table, p.key) for p in ledger.PAPERS}
    rows = ["| part | paper | question | verdicts on this build |", "|---|---|---|---|"]
    claims = ledger.claims_of_papers(table)
    for p in ledger.PAPERS:
        rows.append(
            f"| {{ref}}`{p.part} · {p.short} <sec-part-{p.part.lower()}>` | {{cite:t}}`{p.key}` | "
            f"{p.question} | {ledger.tally(claims[claims['paper'] == p.key])} |"
        )
    pages["answers.md"] = "\n".join(rows) + "\n"
    return pages


def write_generated(paths: Paths, profile: str) -> None:
    """Write the pages generated at build time.

    Parameter tables, the build summary, the claims ledger's verdicts for the landing page and
    the parts' overview pages, and the reports of the sweeps run with ``--report``.
    """
    paths.generated.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("parameters.md", parameter_tables(paths, profile)),
        ("build.md", build_summary(paths, profile)),
        ("workers.md", workers_projection(paths) + "\n" + run_times_section(paths)),
        (
            "profile.md",
            f"This build used the parameter profile **{profile}** ({{ref}}`sec-this-build`).",
        ),
        *ledger_pages(paths).items(),
        ("sweeps.md", sweep_report.book_page(paths.root)),
    ):
        target = paths.generated / name
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        os.replace(tmp, target)


def stale_chapters(
    slugs: list[str],
    profile: str,
    paths: Paths,
    force: bool = False,
    overrides: dict[str, dict[str, Any]] | None = None,
) -> list[str]:
    """The chapters of ``slugs`` that a build will run, in order.

    A chapter runs when its digest differs from the manifest's (or ``force``), and also when it
    reads the saved results of a chapter that runs before it, because those results will change.
    Every chapter's parameters and inputs are checked here, before anything runs.
    ``overrides``: each chapter's parameters beyond the profile (slug -> name -> value).
    """
    stale: list[str] = []
    for slug in slugs:
        plan = plan_chapter(
            paths.notebooks / f"{slug}.py", profile, (overrides or {}).get(slug), paths=paths
        )
        reads = declared_reads(plan.notebook, paths.root)
        if force or not plan.up_to_date or any(r in stale for r in reads):
            stale.append(slug)
    return stale


def time_left(seconds: list[float | None]) -> str:
    """The time left in words ("about 12 min left").

    From the last run times of the chapters still to run: "at least" when some of them never ran,
    "" when none has a time.
    """
    known = [s for s in seconds if s is not None]
    if not known:
        return ""
    total = sum(known)
    shown = f"{total / 60:.0f} min" if total >= 90 else f"{total:.0f} s"
    return f"{'about' if len(known) == len(seconds) else 'at least'} {shown} left"


def build_book(
    profile: str = "book",
    force: bool = False,
    paths: Paths | None = None,
    chapters: list[str] | None = None,
    render: bool = True,
    log: Any = print,
    progress: bool = False,
    workers: int | str | None = None,
    scheduler: str | None = None,
) -> list[RunResult]:
    """Run the chapters (those of ``_toc.yml`` by default) and render the HTML book.

    Logs one line per chapter, ``[k/n, <time left>] <slug>: ...``, where the time left is the
    sum of the last build's run times of the chapters still to run; ``progress`` adds
    papermill's progress bar (cells done, elapsed time) on stderr for each chapter that runs.

    ``workers`` (a number, or "auto": one worker per core, each kernel on an equal share of the
    cores) runs the chapters as a task graph on a local Dask cluster, ``scheduler`` (an address
    such as ``tcp://host:8786``) on an existing one (:mod:`probekit.book.graph`); without
    either, chapters run one after another in this process. On Dask a failed chapter does not stop the chapters that do not read it; the build
    then raises, naming the failed chapters and those not run, without rendering.
    """
    paths = paths or Paths()
    slugs = chapters or toc_chapters(paths.root)
    if workers is not None and scheduler is not None:
        raise ProbekitError("give --workers or --scheduler, not both")
    n_workers = graph.resolve_workers(workers) if workers is not None else None
    # Check every chapter's parameters and inputs before spending time on any of them.
    stale = stale_chapters(slugs, profile, paths, force)
    last = {s: load_manifest(paths).get(s, {}).get("seconds") for s in slugs}
    estimate = time_left([last[s] for s in stale])
    log(
        f"book: {len(stale)} of {len(slugs)} chapters to run"
        + (f", {estimate.removesuffix(' left')} by the last build's times" if estimate else "")
    )
    start = time.perf_counter()
    if n_workers is not None or scheduler is not None:
        results = _run_on_dask(stale, slugs, profile, force, paths, n_workers, scheduler, log)
    else:
        results = _run_in_order(stale, slugs, last, profile, force, paths, log, progress)
    ran = [r for r in results if r.status == "ran"]
    minutes = (time.perf_counter() - start) / 60
    log(f"book: ran {len(ran)} of {len(slugs)} chapters in {minutes:.1f} min")
    write_generated(paths, profile)
    if render:
        render_book(paths, log=log)
    return results


def _run_in_order(
    stale: list[str],
    slugs: list[str],
    last: dict[str, float | None],
    profile: str,
    force: bool,
    paths: Paths,
    log: Any,
    progress: bool,
) -> list[RunResult]:
    """The sequential path: every chapter in the toc's order, in this process."""
    results = []
    for k, slug in enumerate(slugs, start=1):
        left = time_left([last[s] for s in stale if slugs.index(s) >= k - 1])
        prefix = f"[{k:>{len(str(len(slugs)))}}/{len(slugs)}" + (f", {left}" if left else "")
        results.append(
            run_chapter(
                paths.notebooks / f"{slug}.py",
                profile,
                force=force,
                paths=paths,
                log=lambda message, prefix=prefix: log(f"{prefix}] {message}"),
                progress=f"[{k}/{len(slugs)}] {slug}" if progress else False,
            )
        )
    return results


def _run_on_dask(
    stale: list[str],
    slugs: list[str],
    profile: str,
    force: bool,
    paths: Paths,
    workers: int | None,
    scheduler: str | None,
    log: Any,
) -> list[RunResult]:
    """The task-graph path (:mod:`probekit.book.graph`).

    Raises after the graph when a chapter failed, once every chapter that could run has
    been promoted.
    """
    say = lambda message: log(f"book: {message}")  # noqa: E731
    with graph.dask_client(workers, scheduler, log=say) as c:
        outcomes = graph.run_graph(stale, slugs, profile, c, force, paths, log)
    bad = {o.chapter: o for o in outcomes.values() if o.status in ("failed", "not run")}
    if bad:
        raise ProbekitError(
            "; ".join(f"{slug} {o.status}: {o.message}" for slug, o in bad.items()),
            hint="the other chapters were run and promoted; fix the failed ones and re-run",
        )
    return [outcomes[s].result for s in slugs if s in outcomes and outcomes[s].result]


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
