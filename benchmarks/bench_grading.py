"""Batch grading: the cost of a submission's forked child, and a class against its time limits.

(a) Per-submission overhead. Baseline: starting a fresh Python process that imports the
libraries the hand-outs use (``probekit.teaching.zygote.PRELOAD``, torch and pandas among them),
which is what grading every submission in a new interpreter would cost before any student code
ran. Ours: the wall time of the child the zygote forks for a submission whose tasks are all
unsolved (the student copies as handed out, every check stopping at ``NotImplementedError``),
from fork to exit as ``runs.csv`` records it: setting the limits and the audit hook, reading
the notebook, running its cells, calling the checks and reporting. The zygote's own start (the
same imports, once per run) is printed beside them. Ratio: baseline / ours.

(b) The fixture class ``tests/fixtures/submissions`` (copied to a temporary directory; the
class of ``book/assignments.md``), graded with one grading process at a 2-second time limit
(the test suite's) and the default 10 seconds. Its floor is the time its timed-out tasks must
spend by their limits (the endless loop: two tasks, so two time limits). Ratio: the whole
run, start-up included, / that floor; and without the start-up.

Prints plain lines. ``--quick``: one student's copies of the five assignments, the baseline
timed once, the class at the 2-second limit only. Otherwise four students' copies, the
baseline the best of three, and the class at both limits.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probekit.book.runner import Paths
from probekit.teaching import grade_submissions, write_student_copies
from probekit.teaching.zygote import PRELOAD, zygote_env

MEMORY_LIMIT = 256  # MiB, as the test suite grades the fixture class
QUIET = {"progress": False, "log": lambda message: None}


def fresh_process_seconds(workspace: Path, repeats: int) -> float:
    """Best wall time of a new interpreter that imports :data:`PRELOAD`, as a zygote does."""
    command = [
        sys.executable,
        "-P",
        "-c",
        "import importlib, sys\nfor name in sys.argv[1:]: importlib.import_module(name)",
        *PRELOAD,
    ]
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, env=zygote_env(workspace), cwd=workspace, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def unsolved_class(root: Path, students: int) -> Path:
    """A class whose every student hands in the five student copies untouched."""
    for k in range(students):
        write_student_copies(root / f"student{k + 1}")
    return root


def main() -> None:
    """Time the fresh process, the forked children and the fixture class; print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="well under a minute, for CI")
    args = parser.parse_args()
    students, repeats, limits = (1, 1, (2.0,)) if args.quick else (4, 3, (2.0, 10.0))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        tmp = Path(tmp)
        baseline = fresh_process_seconds(tmp, repeats)
        blank = grade_submissions(
            unsolved_class(tmp / "unsolved", students),
            tmp / "unsolved-results",
            memory_limit=MEMORY_LIMIT,
            **QUIET,
        )
        child = [run.seconds for run in blank.runs]
        median = statistics.median(child)
        in_grader = (blank.seconds - blank.startup_seconds) / len(blank.runs)
        print(f"(a) {len(child)} unsolved submissions ({students} student(s) x 5 assignments)")
        print(f"fresh python importing {len(PRELOAD)} modules: {baseline:.2f} s, best of {repeats}")
        print(f"zygote start-up (the same imports), once per run: {blank.startup_seconds:.2f} s")
        print(f"forked child per submission: median {median:.3f} s, max {max(child):.3f} s")
        print(f"per submission in the grader (fork, wait, grades, files): {in_grader:.3f} s")
        print(f"ratio fresh process / forked child (median): {baseline / median:.1f}")
        print(f"ratio fresh process / per submission in the grader: {baseline / in_grader:.1f}")

        # The fixture class keeps its notebooks as Jupytext sources; the tests' helper writes them.
        sys.path.insert(0, str(Paths().root / "tests"))
        importlib.import_module("fixtures.submission_class").write_class(tmp / "class")
        for limit in limits:
            result = grade_submissions(
                tmp / "class",
                tmp / f"class-results-{limit:g}",
                course_seed=7,
                time_limit=limit,
                memory_limit=MEMORY_LIMIT,
                **QUIET,
            )
            timeouts = sum(g.status == "timeout" for g in result.grades)
            floor = timeouts * limit
            graded = result.seconds - result.startup_seconds
            print(
                f"(b) fixture class, {len(result.runs)} submissions, time limit {limit:g} s: "
                f"{result.seconds:.2f} s ({result.startup_seconds:.2f} s start-up); floor "
                f"{timeouts} timed-out tasks x {limit:g} s = {floor:g} s"
            )
            print(f"ratio class / floor at {limit:g} s: {result.seconds / floor:.2f}")
            print(f"ratio class without start-up / floor at {limit:g} s: {graded / floor:.2f}")


if __name__ == "__main__":
    main()
