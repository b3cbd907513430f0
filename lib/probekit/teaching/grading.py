"""Batch grading of a class's submissions (``probekit assignments --grade SUBMISSIONS --out R``).

:func:`grade_submissions` collects the submissions and gives every student their own seed
(:mod:`.submissions`), grades each submission in a child process of its own (:mod:`.zygote`,
:mod:`.sandbox`), turns what the child reported into grades (:mod:`.grades`) and writes the
result files and every student's feedback (:mod:`.reports`).

**Isolation.** Student code never runs in the grading process. Each submission runs in its own
child process, with a wall-clock limit per task and for the whole submission, CPU-time and
memory limits, a fresh temporary working directory, an environment without proxies, and an
audit hook that refuses writing outside that directory, the network and starting processes
(:mod:`.guard`). A submission that loops forever, exhausts its memory, raises, cannot be read,
or tries what the hook refuses gets zero for the tasks it affects and says why in its
feedback; the other submissions are graded as usual. This protects a grading run against
mistakes and casual misuse, not against an adversary: a course facing adversarial students
should also run the grader in a container without network access. The grader runs on Linux
(it forks its children and reads their memory use from /proc).
"""

from __future__ import annotations

import queue
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm.auto import tqdm

import probekit
from probekit.errors import ParameterError, ProbekitError
from probekit.stats.checks import positive_int
from probekit.teaching.catalogue import max_points, tasks_of
from probekit.teaching.grades import RunInfo, TaskGrade, run_outcome, task_grades
from probekit.teaching.guard import SUPPORTED
from probekit.teaching.reports import GradingResult, summarise, write_results
from probekit.teaching.submissions import Submission, find_submissions, read_seeds, student_seed
from probekit.teaching.zygote import Zygote

#: Seconds a grading process may take to load its libraries.
_STARTUP_SECONDS = 300.0


def grade_submissions(
    submissions: str | Path,
    out: str | Path,
    *,
    course_seed: int = 0,
    seeds: str | Path | Mapping[str, int] | None = None,
    time_limit: float = 10.0,
    memory_limit: int = 1024,
    file_limit: int = 64,
    n_cases: int | None = None,
    jobs: int = 1,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> GradingResult:
    """Grade every submission in ``submissions`` and write the results into ``out``.

    Args:
        submissions: the directory of submissions (named as :mod:`.submissions` says).
        out: the results directory; created, its result files replaced. It must not lie inside
            ``submissions``.
        course_seed: the seed from which every student's seed is derived
            (:func:`probekit.teaching.submissions.student_seed`).
        seeds: recorded seeds (a ``seeds.csv`` of an earlier run, or student -> seed); they take
            precedence over the course seed, so a re-grade draws the same cases.
        time_limit: wall-clock seconds per task: for the cells of each task and for its check.
            The whole submission is stopped after ``time_limit * (tasks + 1) + 2`` seconds.
        memory_limit: MiB a submission may allocate (the child's data segment above what the
            preloaded libraries use).
        file_limit: MiB of the largest file a submission may write (its printed output included).
        n_cases: cases per check; None keeps each check's default.
        jobs: submissions graded at the same time (one grading process each).
        progress: show a progress bar over the submissions (tqdm, on stderr).
        log: where to report skipped files and the set-up (default: print).

    Returns:
        The :class:`GradingResult`, also written to ``out``.

    Raises:
        ProbekitError: for a bad submissions directory or seeds file, or when the grading
            processes cannot start; ParameterError for a bad limit, seed or ``jobs``.
    """
    say = log or print
    start = time.perf_counter()
    if not SUPPORTED:
        raise ProbekitError(
            "batch grading needs Linux (it forks one process per submission and sets its "
            "resource limits)",
            hint="run the grader on Linux, for instance in a container",
        )
    positive_int("course_seed", course_seed, minimum=0)
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or time_limit < 0.1:
        raise ParameterError("time_limit", f"must be a number >= 0.1, got {time_limit!r}")
    positive_int("memory_limit", memory_limit, minimum=16)
    positive_int("file_limit", file_limit)
    positive_int("jobs", jobs)
    if n_cases is not None:
        positive_int("n_cases", n_cases)
    root = Path(submissions).resolve()
    out = Path(out).resolve()
    if out == root or root in out.parents:
        raise ProbekitError(
            f"the results directory {out} lies inside the submissions {root}",
            hint="choose an --out outside the submissions directory",
        )
    if out.exists() and not out.is_dir():
        raise ProbekitError(f"{out} exists and is not a directory", hint="choose another --out")
    found, skipped = find_submissions(root)
    for path in skipped:
        say(f"skipped {path.relative_to(root)}: not a submission (<student>/A<k>_<slug>.py|.ipynb)")
    recorded = dict(read_seeds(seeds) if isinstance(seeds, str | Path) else (seeds or {}))
    for student, value in recorded.items():
        positive_int(f"seeds[{student}]", value, minimum=0)
    students = sorted({s.student for s in found})
    seed_of = {s: recorded.get(s, student_seed(course_seed, s)) for s in students}
    new = [s for s in students if s not in recorded]
    if recorded and new:
        say(f"no recorded seed for {len(new)} students, derived from course seed {course_seed}")
    workspace = Path(tempfile.mkdtemp(prefix="probekit-grading-"))
    zygotes: queue.Queue[Zygote] = queue.Queue()
    started: list[Zygote] = []
    grades: list[TaskGrade] = []
    runs: list[RunInfo] = []
    try:
        n_zygotes = min(jobs, len(found))
        with ThreadPoolExecutor(max_workers=n_zygotes) as pool:
            for z in pool.map(lambda k: Zygote(workspace, k, _STARTUP_SECONDS), range(n_zygotes)):
                started.append(z)
                zygotes.put(z)
        startup = time.perf_counter() - start
        limits = {
            "time_limit": float(time_limit),
            "memory_limit": int(memory_limit),
            "file_limit": int(file_limit),
            "n_cases": n_cases,
            "seeds": seed_of,
            "root": root,
        }

        def grade_one(job: tuple[int, Submission]) -> tuple[list[TaskGrade], RunInfo]:
            number, sub = job
            zygote = zygotes.get()
            return _grade_one(number, sub, zygote, zygotes, started, workspace, limits)

        bar = tqdm(total=len(found), desc="grading", unit="submission", disable=not progress)
        with ThreadPoolExecutor(max_workers=n_zygotes) as pool:
            for graded, run in pool.map(grade_one, enumerate(found)):
                grades += graded
                runs.append(run)
                bar.update(1)
        bar.close()
    finally:
        for z in started:
            z.close()
        shutil.rmtree(workspace, ignore_errors=True)
    grades.sort(key=lambda g: (g.student, g.assignment, g.number))
    result = GradingResult(
        out=out,
        grades=grades,
        runs=runs,
        summary=summarise(grades),
        seeds=seed_of,
        skipped=skipped,
        seconds=time.perf_counter() - start,
        startup_seconds=startup,
    )
    settings = {
        "course_seed": course_seed,
        "seeds": "recorded" if recorded else "derived from the course seed",
        "time_limit": float(time_limit),
        "memory_limit": int(memory_limit),
        "file_limit": int(file_limit),
        "n_cases": n_cases,
        "probekit": probekit.__version__,
        "points": {a: max_points(a) for a in sorted({s.assignment for s in found})},
    }
    write_results(result, settings)
    return result


def _grade_one(
    number: int,
    sub: Submission,
    zygote: Zygote,
    zygotes: queue.Queue,
    started: list[Zygote],
    workspace: Path,
    limits: dict,
) -> tuple[list[TaskGrade], RunInfo]:
    """Grade one submission on ``zygote``; put a working zygote back into ``zygotes``."""
    seed = limits["seeds"][sub.student]
    n_tasks = len(tasks_of(sub.assignment))
    deadline = limits["time_limit"] * (n_tasks + 1) + 2.0
    job = workspace / f"{number:05d}"
    (job / "work").mkdir(parents=True)
    (job / "out").mkdir()
    request = {
        "id": number,
        "submission": str(sub.path),
        "assignment": sub.assignment,
        "workdir": str(job / "work"),
        "outdir": str(job / "out"),
        "seed": seed,
        "time_limit": limits["time_limit"],
        "memory_limit": limits["memory_limit"],
        "file_limit": limits["file_limit"],
        "cpu_limit": deadline + 1.0,
        "n_cases": limits["n_cases"],
        "deadline": deadline,
    }
    reply = zygote.run(request, deadline + 30.0)
    if reply is None:
        # The zygote died or hangs: end it (and its child) and start another for the next job.
        zygote.close()
        zygote = Zygote(workspace, len(started), _STARTUP_SECONDS)
        started.append(zygote)
    zygotes.put(zygote)
    grades = task_grades(sub, seed, reply, request)
    shutil.rmtree(job, ignore_errors=True)
    run = RunInfo(
        student=sub.student,
        assignment=sub.assignment,
        file=str(sub.path.relative_to(limits["root"])),
        seed=seed,
        outcome=run_outcome(reply),
        seconds=float(reply["seconds"]) if reply else float("nan"),
        max_rss_mib=float(reply["max_rss_mib"]) if reply else float("nan"),
    )
    return grades, run
