"""Command line: ``probekit run|book|sweep|params|data|cache|bench|assignments|jabberwocky``.

Input errors (``ProbekitError``) print as one line plus a hint and exit with status 2; there is
no traceback for them. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict

from probekit.book import graph
from probekit.book.build import build_book
from probekit.book.params import effective_parameters, parse_overrides, read_parameters
from probekit.book.records import code_digest, printed_measurements, record_measurement
from probekit.book.runner import Paths, chapter_path, run_chapter
from probekit.book.sweep import run_sweep
from probekit.errors import ParameterError, ProbekitError
from probekit.io.cache import Cache, human_size
from probekit.io.embeddings import DEFAULT_ALIASES, DEFAULT_MODEL
from probekit.io.project import project_root
from probekit.io.treebanks import data_dir, load_treebank, mirror_dir, resolve_treebank
from probekit.methods.jabberwocky.treebank import make_jabberwocky
from probekit.teaching import export_otter, grade_submissions, summary_table, write_student_copies


def _cmd_run(args: argparse.Namespace) -> None:
    overrides = parse_overrides(args.param or [])
    run_chapter(
        args.notebook,
        args.profile,
        overrides,
        force=args.force,
        timeout=args.timeout,
        log=_say,
        progress=True,
    )


def _cmd_book(args: argparse.Namespace) -> None:
    build_book(
        args.profile,
        force=args.force,
        chapters=args.chapter or None,
        render=not args.no_render,
        log=_say,
        progress=True,
        workers=args.workers,
        scheduler=args.scheduler,
    )
    if args.save_run_times:
        times = graph.save_run_times(Paths())
        _say(f"run times of {', '.join(times)} saved in params/{graph.RUN_TIMES}")


def _cmd_sweep(args: argparse.Namespace) -> None:
    run_sweep(
        args.file,
        workers=args.workers,
        scheduler=args.scheduler,
        report=args.report,
        log=_say,
    )


def _say(message: str) -> None:
    # Flushed at once, so that these lines and the progress bars on stderr keep their order.
    print(message, flush=True)


def _cmd_params(args: argparse.Namespace) -> None:
    nb = chapter_path(args.notebook)
    declared = read_parameters(nb)
    values = effective_parameters(nb, args.profile) if args.profile else None
    width = max(len(n) for n in declared)
    print(
        f"{nb.stem}: {len(declared)} parameters"
        + (f" (values under profile '{args.profile}')" if values else "")
    )
    for name, p in declared.items():
        shown = values[name] if values else p.default
        print(f"  {name:<{width}}  {p.type:<16} = {shown!r:<24} {p.help}")


def _cmd_data(args: argparse.Namespace) -> None:
    print(f"data dir:   {data_dir()}")
    print(f"mirror dir: {mirror_dir() or '(none)'}")
    for name in args.treebank or ["UD_English-EWT"]:
        files = resolve_treebank(name, download=args.download)
        print(f"{name}: {files.source} -> {files.directory}")
        for split, path in files.files.items():
            print(f"  {split:<5} {path.name}  sha256 {files.sha256()[split]}")


def _cmd_cache(args: argparse.Namespace) -> None:
    cache = Cache()
    if args.action == "clean":
        # Only safe while nothing else uses the cache: a running build's directory looks the same.
        removed = cache.clean_partial()
        print(f"removed {_entries(removed)} left partial by killed runs, from {cache.root}")
        return
    if args.action == "remove" and not (args.all or args.kind or args.model):
        raise ParameterError(
            "remove", "needs --kind, --model or --all", hint="`probekit cache` lists what is stored"
        )
    model = DEFAULT_MODEL if args.model in DEFAULT_ALIASES else args.model
    entries = cache.entries(kind=args.kind, model=model)
    if args.action == "remove":
        if not entries and (args.kind or args.model):
            stored = sorted({f"{e.kind}/{e.key.get('model', '-')}" for e in cache.entries()})
            print(f"nothing stored matches; kind/model stored: {', '.join(stored) or 'none'}")
            return
        if args.dry_run:
            total = sum(e.size for e in entries)
            print(f"would remove {_entries(len(entries))} ({human_size(total)}) from {cache.root}")
        else:
            freed = cache.remove(entries)
            print(f"removed {_entries(len(entries))} ({human_size(freed)}) from {cache.root}")
        return
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for e in entries:
        groups[(e.kind, str(e.key.get("model", "-")))].append(e.size)
    print(f"cache: {cache.root}")
    if groups:
        width = max(len(kind) for kind, _ in groups)
        for (kind, model), sizes in sorted(groups.items()):
            size = human_size(sum(sizes))
            print(f"  {kind:<{width}}  {_entries(len(sizes)):>12}  {size:>9}  {model}")
    total = sum(e.size for e in entries)
    print(f"  total {_entries(len(entries))}, {human_size(total)}")
    if cache.root.is_dir():
        print(f"  free on its disk: {human_size(shutil.disk_usage(cache.root).free)}")


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


def _cmd_bench(args: argparse.Namespace) -> None:
    """Run the benchmarks; a full run of each is recorded as data (``params/records/``)."""
    root = project_root()
    scripts = sorted((root / "benchmarks").glob("bench_*.py"))
    if args.only:
        scripts = [s for s in scripts if any(o in s.stem for o in args.only)]
    for script in scripts:
        print(f"== {script.stem}", flush=True)
        relative = str(script.relative_to(root))
        digest = code_digest(relative, root)  # the code as the run starts
        cmd = [sys.executable, str(script)] + (["--quick"] if args.quick else [])
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=os.environ.copy(), stdout=subprocess.PIPE, text=True)
        lines = []
        for line in proc.stdout or []:
            print(line, end="", flush=True)
            lines.append(line)
        if proc.wait() != 0:
            raise ProbekitError(f"benchmark {script.name} failed")
        if not args.quick:
            path = record_measurement(
                script.stem,
                relative,
                {"argv": cmd[2:]},
                printed_measurements("".join(lines)),
                time.perf_counter() - start,
                digest,
                root,
            )
            print(f"recorded in {path.relative_to(root)}", flush=True)


def _cmd_assignments(args: argparse.Namespace) -> None:
    if args.student:
        written = write_student_copies(args.student, fmt=args.format, notebooks_dir=args.notebooks)
        for path in written:
            print(path)
        print(f"{len(written)} student copies in {args.student} (solutions removed)")
        return
    if args.otter:
        masters = export_otter(
            args.otter,
            course_seed=args.course_seed,
            notebooks_dir=args.notebooks,
            assignments=args.assignment,
            assign=not args.no_assign,
        )
        for path in masters:
            print(path)
        done = "Otter Assign masters" + ("" if args.no_assign else ", student and autograder")
        print(f"{len(masters)} assignment(s) exported to {args.otter} ({done})")
        return
    if not args.out:
        raise ProbekitError("--grade needs --out RESULTS", hint="the directory for grades.csv")
    result = grade_submissions(
        args.grade,
        args.out,
        course_seed=args.course_seed,
        seeds=args.seeds,
        time_limit=args.time_limit,
        memory_limit=args.memory_limit,
        n_cases=args.n_cases,
        jobs=args.jobs,
        sandbox=not args.no_sandbox,
        log=_say,
    )
    print(summary_table(result.summary))
    students = len(result.seeds)
    print(
        f"graded {len(result.runs)} submissions of {students} students in {result.seconds:.1f} s "
        f"({result.startup_seconds:.1f} s preparing the sandbox); results in {result.out}"
    )


def _cmd_jabberwocky(args: argparse.Namespace) -> None:
    report = make_jabberwocky(
        args.treebank,
        args.out,
        seed=args.seed,
        split=args.split,
        pseudowords=args.pseudowords,
        rate=args.rate,
        n_pseudowords=args.n_pseudowords,
    )
    # Reading the result back validates every written sentence (ids, heads, columns).
    written = load_treebank(args.out, splits=(args.split,))[args.split]
    output = report["files"]["output"]["file"]  # type: ignore[index]
    print(
        f"{args.out}/{output}: {len(written):,} sentences, {report['replaced']:,} of "
        f"{report['n_words']:,} words replaced (seed {args.seed}, rate {args.rate:g})"
    )
    print(f"report: {args.out}/jabberwocky-report.json")


def build_parser() -> argparse.ArgumentParser:
    """The ``probekit`` argument parser, one subcommand per ``_cmd_*`` function."""
    parser = argparse.ArgumentParser(prog="probekit", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run one chapter notebook and promote it into the book")
    run.add_argument("notebook", help="notebooks/NN_slug.py, NN_slug or NN")
    run.add_argument(
        "-p",
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="override a parameter (repeatable); lists as a,b,c",
    )
    run.add_argument("--profile", default="book", help="quick, book or full (default: book)")
    run.add_argument("--force", action="store_true", help="run even when up to date")
    run.add_argument("--timeout", type=int, default=7200, help="seconds per cell")
    run.set_defaults(func=_cmd_run)

    book = sub.add_parser("book", help="run every chapter and render the HTML book")
    book.add_argument("--profile", default="book", choices=["quick", "book", "full"])
    book.add_argument("--force", action="store_true")
    book.add_argument("--chapter", action="append", help="only these chapters (slugs)")
    book.add_argument("--no-render", action="store_true", help="run chapters only")
    book.add_argument(
        "--save-run-times",
        action="store_true",
        help=f"after the build, record its chapters' run times in params/{graph.RUN_TIMES}, "
        "the Dask build's priorities on a fresh clone",
    )
    where = book.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        metavar="N",
        help="run independent chapters side by side on a local Dask cluster of N worker "
        "processes ('auto': one per core); default: one chapter at a time in this process",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the chapters on an existing Dask cluster (e.g. tcp://host:8786); its workers "
        "need the project, data and cache on a shared filesystem",
    )
    book.set_defaults(func=_cmd_book)

    sweep = sub.add_parser(
        "sweep",
        help="run chapters over a grid of parameters into build/sweeps/<name>/ (on Dask)",
    )
    sweep.add_argument("file", help="the sweep file (YAML), e.g. sweeps/example.yml")
    sweep.add_argument(
        "--report", action="store_true", help="add the sweep's report page to the book"
    )
    where = sweep.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        metavar="N",
        help="worker processes of the local Dask cluster (default 'auto': one per core)",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run the cells on an existing Dask cluster (e.g. tcp://host:8786); its workers "
        "need the project, data and cache on a shared filesystem",
    )
    sweep.set_defaults(func=_cmd_sweep)

    params = sub.add_parser("params", help="list a chapter's parameters")
    params.add_argument("notebook")
    params.add_argument("--profile", default=None, help="also show a profile's values")
    params.set_defaults(func=_cmd_params)

    data = sub.add_parser("data", help="show where treebanks resolve from")
    data.add_argument("treebank", nargs="*")
    data.add_argument("--download", action="store_true", help="allow the UD download")
    data.set_defaults(func=_cmd_data)

    cache = sub.add_parser(
        "cache", help="list the embedding cache by kind and model, or remove entries from it"
    )
    cache.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=["list", "remove", "clean"],
        help="list (default); remove the entries chosen by --kind/--model/--all; clean the "
        "partial entries of killed runs (only while nothing else uses the cache)",
    )
    cache.add_argument("--kind", help="only entries of this kind (embeddings, fasttext, ...)")
    cache.add_argument("--model", help="only entries of this model name")
    cache.add_argument("--all", action="store_true", help="remove: every entry")
    cache.add_argument("--dry-run", action="store_true", help="remove: say what would go")
    cache.set_defaults(func=_cmd_cache)

    bench = sub.add_parser(
        "bench",
        help="run the benchmarks in benchmarks/; each full run is recorded in params/records/",
    )
    bench.add_argument("--quick", action="store_true")
    bench.add_argument("--only", action="append", help="substring of benchmark names")
    bench.set_defaults(func=_cmd_bench)

    assignments = sub.add_parser(
        "assignments",
        help="student copies of the assignments, batch grading, and the otter-grader export",
    )
    mode = assignments.add_mutually_exclusive_group(required=True)
    mode.add_argument("--student", metavar="OUT", help="write student copies (solutions removed)")
    mode.add_argument(
        "--grade", metavar="SUBMISSIONS", help="grade a directory of submissions (needs --out)"
    )
    mode.add_argument(
        "--otter", metavar="OUT", help="export the assignments for otter-grader (otter assign)"
    )
    assignments.add_argument(
        "--format", default="py", choices=["py", "ipynb"], help="py (Jupytext percent) or ipynb"
    )
    assignments.add_argument(
        "--notebooks",
        default=None,
        help="directory of the A<k>_*.py notebooks (default: the repo's)",
    )
    assignments.add_argument("--out", metavar="RESULTS", help="results directory of --grade")
    assignments.add_argument(
        "--course-seed",
        type=int,
        default=0,
        help="seed the students' seeds (--grade) or the hidden tests' (--otter) derive from",
    )
    assignments.add_argument(
        "--seeds", metavar="SEEDS_CSV", help="recorded seeds of an earlier run (re-grade)"
    )
    assignments.add_argument(
        "--time-limit", type=float, default=10.0, help="wall-clock seconds per task (10)"
    )
    assignments.add_argument(
        "--memory-limit", type=int, default=1024, metavar="MIB", help="MiB per submission (1024)"
    )
    assignments.add_argument("--n-cases", type=int, default=None, help="cases per check")
    assignments.add_argument("--jobs", type=int, default=1, help="submissions at a time (1)")
    assignments.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without the bubblewrap sandbox (unsafe with untrusted code; every feedback "
        "file warns)",
    )
    assignments.add_argument(
        "--assignment", action="append", help="only this assignment (--otter; repeatable)"
    )
    assignments.add_argument(
        "--no-assign", action="store_true", help="write the masters only (--otter)"
    )
    assignments.set_defaults(func=_cmd_assignments)
    jabber = sub.add_parser(
        "jabberwocky", help="write a Jabberwocky version of a treebank split (pseudowords)"
    )
    jabber.add_argument("--treebank", default="UD_English-EWT", help="UD name or directory")
    jabber.add_argument("--seed", type=int, required=True, help="seed of pseudowords and draws")
    jabber.add_argument("--out", required=True, help="output treebank directory")
    jabber.add_argument(
        "--pseudowords", default=None, metavar="FILE", help="pseudoword list, one per line"
    )
    jabber.add_argument(
        "--rate", type=float, default=1.0, help="share of eligible words replaced (paper: 1)"
    )
    jabber.add_argument("--split", default="test", choices=["train", "dev", "test"])
    jabber.add_argument(
        "--n-pseudowords", type=int, default=2000, help="pseudowords to generate without a list"
    )
    jabber.set_defaults(func=_cmd_jabberwocky)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: 0 on success, 2 on an input error (one line and a hint), 130 on Ctrl-C."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except ProbekitError as exc:
        print(f"probekit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
