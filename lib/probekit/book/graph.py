"""The book as a task graph on Dask distributed.

Chapters are the nodes; a chapter depends on the chapters whose saved results it declares it
reads (:func:`~probekit.book.runner.declared_reads`). :func:`run_graph` runs every chapter that
a build must run on a Dask ``distributed`` client: whenever a worker is free, the ready chapter
with the longest chain of work behind it goes next (:func:`run_jobs`), so independent chapters
run side by side and the claims ledger (``reads: all``) runs last. Dask runs the tasks; the order
is kept here, on the client.

Each task is :func:`~probekit.book.runner.run_chapter` in a worker process: the same digest
check, staging, promotion and failed-run handling as the sequential path. Workers therefore need
the project, the data, the model and the embedding cache on a filesystem they share with the
client (one machine, or a cluster's shared home or scratch). A chapter that fails does not stop
the others: the chapters that read its results are reported as not run, and every chapter that
could run is promoted. A parameter sweep (:mod:`probekit.book.sweep`) submits the chapters of
every cell of its grid to one client the same way, each with the cell's tree and parameters.

Kernels inherit the worker's environment: ``threads`` sets ``OMP_NUM_THREADS`` and
``MKL_NUM_THREADS`` of the workers a local cluster starts, so N workers share the cores instead
of each assuming all of them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import yaml
from distributed import Client, LocalCluster, wait

from probekit.book.runner import Paths, RunResult, declared_reads, load_manifest, run_chapter
from probekit.errors import ParameterError, ProbekitError


@dataclass
class Outcome:
    """What happened to one chapter of the graph.

    ``status`` is "ran", "up to date", "failed" or "not run" (a chapter it reads failed or was
    not run); ``message`` says why for the last two, ``log`` holds the runner's lines from the
    worker.
    """

    chapter: str
    status: str
    result: RunResult | None = None
    message: str = ""
    log: tuple[str, ...] = ()


def chapter_graph(slugs: list[str], paths: Paths) -> dict[str, list[str]]:
    """Chapter -> the chapters of ``slugs`` it reads (its parents in the task graph)."""
    return {
        slug: [r for r in declared_reads(paths.notebooks / f"{slug}.py", paths.root) if r in slugs]
        for slug in slugs
    }


def path_lengths(seconds: dict[str, float], parents: dict[str, list[str]]) -> dict[str, float]:
    """Chapter -> its run time plus the longest chain of chapters that read it, transitively.

    The largest value is the critical path: no number of workers builds the book faster. These
    are the jobs' priorities (:func:`plan_chapters`), so the chapters that hold the most work
    behind them start first.
    """
    children: dict[str, list[str]] = {slug: [] for slug in parents}
    for slug, ps in parents.items():
        for p in ps:
            children[p].append(slug)
    length: dict[str, float] = {}
    for slug in reversed(list(parents)):  # toc order is topological: readers come later
        length[slug] = seconds.get(slug, 0.0) + max((length[c] for c in children[slug]), default=0)
    return length


def critical_path(seconds: dict[str, float], parents: dict[str, list[str]]) -> list[str]:
    """The chain of chapters, first to last, whose run times add up to the longest path."""
    if not parents:
        return []
    length = path_lengths(seconds, parents)
    children = {slug: [c for c in parents if slug in parents[c]] for slug in parents}
    chain = [max(parents, key=length.__getitem__)]  # the first of equals, in toc order
    while children[chain[-1]]:
        chain.append(max(children[chain[-1]], key=length.__getitem__))
    return chain


def projected_wall(seconds: dict[str, float], parents: dict[str, list[str]], workers: int) -> float:
    """Wall time of the graph on ``workers`` workers, each chapter taking its ``seconds``.

    A list schedule: whenever a worker is free it takes the ready chapter with the longest path
    (:func:`path_lengths`), as :func:`run_jobs` does. It assumes a chapter's time does not depend
    on what runs beside it, which holds when each worker has its own cores; on a machine with
    fewer cores than workers it is a lower bound.
    """
    length = path_lengths(seconds, parents)
    done: dict[str, float] = {}
    running: list[tuple[float, str]] = []
    now = 0.0
    waiting = list(parents)
    while waiting or running:
        ready = [s for s in waiting if all(p in done for p in parents[s])]
        ready.sort(key=lambda s: -length[s])
        while ready and len(running) < workers:
            slug = ready.pop(0)
            waiting.remove(slug)
            start = max([now] + [done[p] for p in parents[slug]])
            running.append((start + seconds.get(slug, 0.0), slug))
        running.sort()
        now, slug = running.pop(0)
        done[slug] = now
    return now


RUN_TIMES = "run_times.yml"
"""Seconds each chapter took in a measured build, per profile, in the profiles' directory: the
priorities of a build whose manifest has no time of its own for a chapter (a fresh clone).
Scheduling only: no result depends on it. ``probekit book --save-run-times`` refreshes it.
Its ``threads`` section says how many torch threads each profile's kernels had (one number, or
chapter -> number where they differed): the times are wall seconds of one kernel with that many
threads."""

THREADS = "threads"
"""The section of :data:`RUN_TIMES` that records the kernels' thread counts (not a profile)."""

NEVER_RUN_SECONDS = 60.0
"""A chapter with no recorded time counts as one minute: it still goes before short leaves."""


def _recorded_run_times(paths: Paths) -> dict[str, Any]:
    """:data:`RUN_TIMES` as profile -> chapter -> seconds, and its :data:`THREADS` section.

    Empty where there is no such file.
    """
    f = paths.profiles / RUN_TIMES
    return (yaml.safe_load(f.read_text()) or {}) if f.is_file() else {}


def recorded_seconds(slugs: list[str], profile: str, paths: Paths) -> dict[str, float | None]:
    """Each chapter's last run time under ``profile``, or None where none was recorded.

    Its last run under that profile in the manifest; else the time recorded in :data:`RUN_TIMES`.
    """
    last = load_manifest(paths)
    recorded = _recorded_run_times(paths).get(profile) or {}
    out: dict[str, float | None] = {}
    for slug in slugs:
        entry = last.get(slug, {})
        if entry.get("profile") == profile and "seconds" in entry:
            out[slug] = float(entry["seconds"])
        else:
            out[slug] = float(recorded[slug]) if slug in recorded else None
    return out


def expected_seconds(slugs: list[str], profile: str, paths: Paths) -> dict[str, float]:
    """Each chapter's expected run time under ``profile``.

    Its last run under that profile in the manifest; else the time recorded in
    :data:`RUN_TIMES`; else :data:`NEVER_RUN_SECONDS`.
    """
    recorded = recorded_seconds(slugs, profile, paths)
    return {s: NEVER_RUN_SECONDS if t is None else t for s, t in recorded.items()}


def save_run_times(paths: Paths) -> dict[str, dict[str, Any]]:
    """Write the manifest's run times into :data:`RUN_TIMES`, under each chapter's profile.

    Times of other profiles and of chapters the manifest lacks are kept. The kernels' thread
    counts go to its :data:`THREADS` section, per profile: one number when the profile's chapters
    agree, else chapter -> number. Returns what was written.
    """
    times = _recorded_run_times(paths)
    threads = times.pop(THREADS, None) or {}
    per_chapter = {
        p: dict(t) if isinstance(t, dict) else {s: t for s in times.get(p, {})}
        for p, t in threads.items()
    }
    for slug, entry in load_manifest(paths).items():
        if "seconds" in entry and entry.get("profile"):
            times.setdefault(entry["profile"], {})[slug] = round(float(entry["seconds"]))
            known = per_chapter.setdefault(entry["profile"], {})
            if "threads" in entry:
                known[slug] = int(entry["threads"])
            else:  # a new time of unknown threads: the old count no longer describes it
                known.pop(slug, None)
    times = {p: dict(sorted(t.items())) for p, t in sorted(times.items())}
    threads = {}
    for p, t in sorted(per_chapter.items()):
        if not t:
            continue
        counts = set(t.values())
        threads[p] = counts.pop() if len(counts) == 1 else dict(sorted(t.items()))
    if threads:
        times[THREADS] = threads
    header = "".join(
        f"# {line}\n"
        for line in (
            "Seconds each chapter ran in a measured build, per profile (written by",
            "`probekit book --save-run-times` from the build's manifest). The Dask build uses them",
            "as priorities where this checkout's manifest has no time of its own (a fresh clone),",
            "so that the longest chains start first. Scheduling only: no result depends on them.",
            "`threads`: the torch threads of each profile's kernels (wall seconds of one kernel",
            "with that many threads; CPU-seconds are at most seconds x threads).",
        )
    )
    f = paths.profiles / RUN_TIMES
    tmp = f.with_suffix(".tmp")
    tmp.write_text(header + yaml.safe_dump(times, sort_keys=False))
    os.replace(tmp, f)
    return times


def available_cores() -> int:
    """CPU cores this process may use (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity mask
        return os.cpu_count() or 1


def resolve_workers(workers: int | str) -> int:
    """``workers`` as a number >= 1; "auto" is one worker per core."""
    if workers == "auto":
        return available_cores()
    if isinstance(workers, str):
        if not workers.isdigit():
            raise ParameterError("workers", f"must be 'auto' or a number >= 1, got {workers!r}")
        workers = int(workers)
    if workers < 1:
        raise ParameterError("workers", f"must be 'auto' or a number >= 1, got {workers!r}")
    return workers


@dataclass(frozen=True)
class Job:
    """One chapter a build or sweep runs: what :func:`run_chapter` needs and where it stands.

    ``paths`` says where it reads and writes (the book's tree, or a sweep cell's,
    :class:`probekit.book.sweep.CellPaths`); ``overrides`` are its parameters beyond the
    profile; ``parents`` the names (in the same plan) of the jobs whose results it reads;
    ``priority`` its longest chain of work in seconds (:func:`path_lengths`); ``key`` its Dask
    task key, unique when several trees (sweep cells) share one client.
    """

    slug: str
    profile: str
    paths: Paths
    key: str
    parents: tuple[str, ...] = ()
    priority: float = 0.0
    force: bool = False
    overrides: dict[str, Any] | None = None


def _run_job(job: Job) -> Outcome:
    """One chapter, in a worker: :func:`~probekit.book.runner.run_chapter` on ``job``."""
    # Dask's nanny starts workers with MALLOC_TRIM_THRESHOLD_=65536
    # (``distributed.nanny.pre-spawn-environ``), so that they hand freed memory back to the OS.
    # A chapter's kernel would inherit it and fault in fresh pages for the tensors of every
    # training step: 9x the page faults of chapter 43 run alone, and a quarter of the book's CPU
    # time spent in the kernel. Kernels get glibc's own adaptive threshold, as on the sequential path.
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    lines: list[str] = []
    try:
        result = run_chapter(
            job.paths.notebooks / f"{job.slug}.py",
            job.profile,
            job.overrides,
            force=job.force,
            paths=job.paths,
            log=lines.append,
        )
    except ProbekitError as exc:
        # Returned, not raised: the client reports it and Dask does not retry a chapter whose
        # failure is in its code or data.
        return Outcome(job.slug, "failed", message=str(exc), log=tuple(lines))
    return Outcome(job.slug, result.status, result, log=tuple(lines))


def local_cluster(workers: int) -> Any:
    """A ``distributed.LocalCluster`` of ``workers`` processes (a context manager).

    One task slot per worker (a chapter is one task) and an equal share of the cores as its
    torch/BLAS threads. Everything listens on 127.0.0.1 only, the scheduler's HTTP endpoint on a
    free port (a fixed 8787 would clash with a second build).
    """
    threads = max(1, available_cores() // workers)
    env = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        host="127.0.0.1",
        env=env,
    )


@contextmanager
def dask_client(workers: int | None, scheduler: str | None, log: Any = print) -> Iterator[Any]:
    """A client of the Dask scheduler at ``scheduler``, or of a new local cluster of ``workers``.

    The local cluster (:func:`local_cluster`) is shut down on leaving the block.
    """
    if scheduler is not None:
        log(f"on the Dask scheduler at {scheduler}")
        with Client(scheduler) as client:
            yield client
        return
    workers = workers or available_cores()
    log(
        f"on a local Dask cluster of {workers} workers x {max(1, available_cores() // workers)} threads"
    )
    with local_cluster(workers) as cluster, Client(cluster) as client:
        yield client


def plan_chapters(
    stale: list[str],
    slugs: list[str],
    profile: str,
    force: bool = False,
    paths: Paths | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    prefix: str = "chapter",
    name: str = "{slug}",
) -> dict[str, Job]:
    """The :class:`Job` of each ``stale`` chapter of ``slugs``, most urgent first.

    Each is keyed by ``name`` formatted with its slug. A job's parents are the stale chapters it
    reads; chapters it reads that are up to date already have their results on disk. As in the
    sequential path, a reader re-plans once its parents are done, so it is skipped when their
    results came out unchanged. ``overrides``: each chapter's parameters beyond the profile
    (slug -> name -> value). ``prefix`` makes the task keys unique when several trees (sweep
    cells) share one client.
    """
    paths = paths or Paths()
    parents = chapter_graph(slugs, paths)
    priority = path_lengths(expected_seconds(slugs, profile, paths), parents)
    # Longest chain first; that order is also topological (a chapter's chain is longer than any
    # of its readers'), and the toc's order breaks ties.
    return {
        name.format(slug=slug): Job(
            slug,
            profile,
            paths,
            key=f"{prefix}-{slug}",
            parents=tuple(name.format(slug=p) for p in parents[slug] if p in stale),
            priority=priority[slug],
            force=force,
            overrides=(overrides or {}).get(slug),
        )
        for slug in sorted(stale, key=lambda s: (-priority[s], slugs.index(s)))
    }


HEARTBEAT = 60.0
"""Longest silence, in seconds, of :func:`run_jobs` while chapters run."""


_BLOCKING = ("failed", "not run")


def _slots(client: Any) -> int:
    """How many chapters the client's workers run at once (one per worker thread)."""
    return max(1, sum(client.nthreads().values()))


def run_jobs(
    jobs: dict[str, Job],
    client: Any,
    log: Any = print,
    heartbeat: float = HEARTBEAT,
    poll: float = 5.0,
    expected: dict[str, float] | None = None,
    task: Any = _run_job,
) -> dict[str, Outcome]:
    """Run ``jobs`` on a Dask ``client``; returns each one's :class:`Outcome` under its name.

    A list schedule kept on the client: whenever a worker thread is free, the ready job (all its
    parents done) of highest priority goes to the scheduler, and no more jobs are in flight than
    the workers have threads. Submitting each job only when it can start keeps the order global;
    with every task submitted up front, Dask places a reader beside the result it reads and
    queues it behind that worker's other tasks, while another worker runs less urgent ones. A job
    whose parent failed or did not run is "not run", and the jobs that do not read it go on.

    Logs one line per job as it starts (``started <name>``) and as it finishes
    (``[k/n] <name>: <what happened>``), and at least every ``heartbeat`` seconds a line with the
    jobs running, done and waiting and the time elapsed, against the wall time that the jobs'
    recorded times (``expected``, seconds by name) give on these workers
    (:func:`projected_wall`) where known. Plain lines, so that a log file shows them as a
    terminal does. ``task`` runs one job in a worker (tests replace it).
    """
    outcomes: dict[str, Outcome] = {}
    # Several plans (a sweep's cells) merge into one order; the sort is stable, so ties keep the
    # plans' own order.
    waiting = sorted(jobs, key=lambda n: -jobs[n].priority)
    running: dict[Any, str] = {}
    slots = _slots(client)
    start = last = time.monotonic()
    # The wall time the recorded run times give on these workers, scheduled as below (not
    # their sum, which counts chapters that run side by side twice).
    budget = projected_wall(
        {name: (expected or {}).get(name, 0.0) for name in jobs},
        {name: [p for p in jobs[name].parents if p in jobs] for name in jobs},
        slots,
    )

    def finish(name: str, outcome: Outcome, detail: str) -> None:
        outcomes[name] = outcome
        log(f"[{len(outcomes)}/{len(jobs)}] {name}: {detail}")

    while waiting or running:
        for name in list(waiting):
            parents = jobs[name].parents
            blocked = [p for p in parents if p in outcomes and outcomes[p].status in _BLOCKING]
            if blocked:
                waiting.remove(name)
                message = f"it reads {', '.join(blocked)}, which did not run"
                outcome = Outcome(jobs[name].slug, "not run", message=message)
                finish(name, outcome, f"not run: {message}")
        ready = [n for n in waiting if all(p in outcomes for p in jobs[n].parents)]
        for name in ready[: slots - len(running)]:
            waiting.remove(name)
            future = client.submit(task, jobs[name], key=jobs[name].key, pure=False)
            running[future] = name
            log(f"started {name}")
        if not running:
            if waiting:  # nothing runs and nothing can start: a parent that is not planned
                raise ParameterError("jobs", f"{', '.join(waiting)} wait for jobs not in the plan")
            break
        try:
            done, _ = wait(list(running), timeout=poll, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        for future in sorted(done, key=lambda f: list(jobs).index(running[f])):
            name = running.pop(future)
            outcome = future.result()
            detail = {
                "ran": f"done in {outcome.result.seconds:.0f} s" if outcome.result else "",
                "up to date": "up to date",
            }.get(outcome.status, f"{outcome.status}: {outcome.message}")
            finish(name, outcome, detail)
            last = time.monotonic()
        now = time.monotonic()
        if (waiting or running) and now - last >= heartbeat:
            minutes = (now - start) / 60
            against = f" of about {budget / 60:.0f} min expected" if budget else ""
            log(
                f"{minutes:.1f} min{against}: {len(outcomes)} done, running "
                f"{', '.join(sorted(running.values())) or 'none'}, {len(waiting)} waiting"
            )
            last = now
    return outcomes


def run_graph(
    stale: list[str],
    slugs: list[str],
    profile: str,
    client: Any,
    force: bool = False,
    paths: Paths | None = None,
    log: Any = print,
) -> dict[str, Outcome]:
    """Run the ``stale`` chapters of ``slugs`` on a Dask ``client`` (:func:`run_jobs`).

    Returns every stale chapter's :class:`Outcome` by slug and logs one line per chapter as it
    starts and finishes.
    """
    jobs = plan_chapters(stale, slugs, profile, force, paths)
    return run_jobs(jobs, client, log, expected=expected_seconds(stale, profile, paths or Paths()))
