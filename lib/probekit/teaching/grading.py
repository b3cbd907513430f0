"""Batch grading of a class's submissions (``probekit assignments --grade SUBMISSIONS --out R``).

:func:`grade_submissions` collects the submissions and gives every student their own seed
(:mod:`.submissions`), grades each submission with its code in a sandbox of its own and the
checks in this process (:mod:`.checking`, :mod:`.sandbox`, :mod:`.worker`), and writes the
result files and every student's feedback (:mod:`.reports`).

**Isolation.** Student code never runs in the grading process. Each submission runs under
bubblewrap (``bwrap``): a read-only view of the Python environment, a private temporary
directory holding only its own file, no project tree and no other submission, no network, its
own PID namespace, an unprivileged user, and resource limits (:mod:`.sandbox`). The sandbox
only computes the student's functions on the inputs the checks send it and returns plain data
(:mod:`.codec`); the checks, the expected values and the verdicts stay here, and the library's
reference implementations are not in the sandbox at all (:mod:`.references`). Without
bubblewrap, grading refuses to run and says how to install it; ``sandbox=False``
(``--no-sandbox``) runs the submissions as plain child processes instead, with a warning in
every feedback file. The grader runs on Linux.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm.auto import tqdm

import probekit
from probekit.errors import ParameterError, ProbekitError
from probekit.stats.checks import positive_int
from probekit.teaching.catalogue import max_points
from probekit.teaching.checking import Limits, grade_submission
from probekit.teaching.grades import STATUSES, RunInfo, TaskGrade
from probekit.teaching.reports import GradingResult, summarise, write_results
from probekit.teaching.sandbox import prepare_sandbox
from probekit.teaching.submissions import (
    FileProblem,
    Submission,
    find_submissions,
    read_seeds,
    student_seed,
)


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
    sandbox: bool = True,
    result_limit: int = 16,
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
        time_limit: wall-clock seconds per task: for each cell, and for all the calls of a
            task's check together.
        memory_limit: MiB of address space a submission may add to what the modules its cells
            import take (every mapping counts).
        file_limit: MiB of the largest file a submission may write (its printed output included).
        n_cases: cases per check; None keeps each check's default.
        jobs: submissions graded at the same time (one sandbox each).
        sandbox: run each submission under bubblewrap (the default); False (``--no-sandbox``)
            runs it as a plain child process, with a warning in every feedback file.
        result_limit: MiB of one value a student's function may return.
        progress: show a progress bar over the submissions (tqdm, on stderr).
        log: where to report files not graded and the set-up (default: print).

    Returns:
        The :class:`GradingResult`, also written to ``out``.

    Raises:
        ProbekitError: for a bad submissions directory or seeds file, or when bubblewrap is
            missing or cannot start a sandbox (with how to install it); ParameterError for a
            bad limit, seed or ``jobs``.
    """
    say = log or print
    start = time.perf_counter()
    if not sys.platform.startswith("linux"):
        raise ProbekitError(
            "batch grading needs Linux (bubblewrap sandboxes, resource limits, /proc)",
            hint="run the grader on Linux, for instance in a container",
        )
    positive_int("course_seed", course_seed, minimum=0)
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or time_limit < 0.1:
        raise ParameterError("time_limit", f"must be a number >= 0.1, got {time_limit!r}")
    positive_int("memory_limit", memory_limit, minimum=16)
    positive_int("file_limit", file_limit)
    positive_int("result_limit", result_limit)
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
    found, problems, skipped = find_submissions(root)
    for path in skipped:
        say(f"skipped {path.relative_to(root)}: not a notebook (.py or .ipynb)")
    for problem in problems:
        mean = f"; did you mean {problem.suggestion}?" if problem.suggestion else ""
        say(f"{problem.status} {problem.path.relative_to(root)}: {problem.reason}{mean}")
    recorded = dict(read_seeds(seeds) if isinstance(seeds, str | Path) else (seeds or {}))
    for student, value in recorded.items():
        positive_int(f"seeds[{student}]", value, minimum=0)
    students = sorted({s.student for s in found} | {p.student for p in problems if p.student})
    seed_of = {s: recorded.get(s, student_seed(course_seed, s)) for s in students}
    new = [s for s in students if s not in recorded]
    if recorded and new:
        say(f"no recorded seed for {len(new)} students, derived from course seed {course_seed}")
    if not sandbox:
        say("warning: --no-sandbox: student code runs without isolation; every feedback says so")
    limits = Limits(
        float(time_limit), int(memory_limit), int(file_limit), n_cases, result_limit << 20
    )
    workspace = Path(tempfile.mkdtemp(prefix="probekit-grading-"))
    grades: list[TaskGrade] = [_problem_row(p, root, seed_of) for p in problems]
    runs: list[RunInfo] = []
    try:
        setup = prepare_sandbox(workspace, sandbox=sandbox, file_mib=int(file_limit))
        startup = time.perf_counter() - start

        def grade_one(job: tuple[int, Submission]) -> tuple[list[TaskGrade], RunInfo]:
            number, sub = job
            job_dir = workspace / f"{number:05d}"
            job_dir.mkdir()
            try:
                name = str(sub.path.relative_to(root))
                return grade_submission(sub, seed_of[sub.student], setup, limits, job_dir, name)
            finally:
                shutil.rmtree(job_dir, ignore_errors=True)

        bar = tqdm(total=len(found), desc="grading", unit="submission", disable=not progress)
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(found)))) as pool:
            for graded, run in pool.map(grade_one, enumerate(found)):
                grades += graded
                runs.append(run)
                bar.update(1)
        bar.close()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    grades.sort(key=lambda g: (g.student, g.assignment, g.number, g.task))
    result = GradingResult(
        out=out,
        grades=grades,
        runs=runs,
        summary=summarise(grades),
        seeds=seed_of,
        skipped=skipped,
        problems=problems,
        sandboxed=sandbox,
        seconds=time.perf_counter() - start,
        startup_seconds=startup,
    )
    settings = {
        "course_seed": course_seed,
        "seeds": "recorded" if recorded else "derived from the course seed",
        "time_limit": float(time_limit),
        "memory_limit": int(memory_limit),
        "file_limit": int(file_limit),
        "result_limit": int(result_limit),
        "n_cases": n_cases,
        "sandbox": "bubblewrap" if sandbox else "none (--no-sandbox)",
        "probekit": probekit.__version__,
        "points": {a: max_points(a) for a in sorted({s.assignment for s in found})},
    }
    write_results(result, settings)
    return result


def _problem_row(problem: FileProblem, root: Path, seed_of: Mapping[str, int]) -> TaskGrade:
    """The ``grades.csv`` row of a file that was not graded."""
    name = str(problem.path.relative_to(root))
    mean = f"; did you mean {problem.suggestion}?" if problem.suggestion else ""
    return TaskGrade(
        student=problem.student or name,
        assignment=problem.assignment,
        number=0,
        task=name,
        points=0,
        max_points=0,
        status=problem.status,
        seed=seed_of.get(problem.student, 0),
        hint=STATUSES[problem.status],
        message=f"{name}: {problem.reason}{mean}",
    )
