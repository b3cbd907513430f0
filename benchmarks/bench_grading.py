"""Batch grading: what the sandbox costs per submission, and a class against its time limits.

(a) Per-submission overhead. Each of the five student copies, as handed out (every task
unsolved, every check stopping at ``NotImplementedError``), is graded twice: in the bubblewrap
sandbox (the default) and with ``--no-sandbox`` (the same worker as a plain child process). The
wall time of a submission (``runs.csv``) covers starting the worker, importing the modules its
cells import, running the cells, and a call per task. Ratio: sandbox / no sandbox, per
submission (median); the difference is what the sandbox adds. Printed beside them: a bare
sandbox (``bwrap`` starting ``python -c pass``) against a bare ``python -c pass``, and how long
the worker spends importing the notebook's modules (which no fork server amortises any more).

(b) The fixture class ``tests/fixtures/submissions`` (copied to a temporary directory; the
class of ``book/assignments.md``), graded at a 2-second time limit (the test suite's) and the
default 10 seconds. Its floor is the time its timed-out tasks must spend by their limits (the
endless loop: two tasks, so two time limits). Ratio: the whole run / that floor.

Prints plain lines. ``--quick``: one student's copies, the bare starts timed once, the class
at the 2-second limit only. Otherwise three students' copies, the bare starts the best of five,
and the class at both limits.
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
from probekit.teaching.sandbox import prepare_sandbox

MEMORY_LIMIT = 256  # MiB, as the test suite grades the fixture class
QUIET = {"progress": False, "log": lambda message: None}


def bare_seconds(command: list[str], repeats: int) -> float:
    """Best wall time of ``command``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdin=subprocess.DEVNULL, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def bare_sandbox_command(workspace: Path) -> list[str]:
    """``bwrap ... python -c pass``, with the mounts and namespaces a submission gets."""
    setup = prepare_sandbox(workspace, sandbox=True, file_mib=64)
    read_fd, write_fd = os.pipe()
    os.close(write_fd)
    command = setup.command(0, 0, read_fd, "empty.py")
    os.close(read_fd)
    # --file needs a descriptor; an empty file in place of the submission.
    empty = workspace / "empty.py"
    empty.write_text("")
    index = command.index("--file")
    command[index - 2 : index + 3] = ["--ro-bind", str(empty), "/tmp/empty.py"]
    return command[: command.index(sys.executable) + 1] + ["-c", "pass"]


def unsolved_class(root: Path, students: int) -> Path:
    """A class whose every student hands in the five student copies untouched."""
    for k in range(students):
        write_student_copies(root / f"student{k + 1}")
    return root


def main() -> None:
    """Time the submissions with and without the sandbox, and the fixture class; print ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a minute or two, for CI")
    args = parser.parse_args()
    students, repeats, limits = (1, 1, (2.0,)) if args.quick else (3, 5, (2.0, 10.0))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        tmp = Path(tmp)
        python = bare_seconds([sys.executable, "-c", "pass"], repeats)
        (tmp / "bare").mkdir()
        sandboxed = bare_seconds(bare_sandbox_command(tmp / "bare"), repeats)
        print(
            f"bare python -c pass: {python:.3f} s; in a sandbox: {sandboxed:.3f} s (best of {repeats})"
        )
        klass = unsolved_class(tmp / "unsolved", students)
        seconds = {}
        for mode in (True, False):
            result = grade_submissions(
                klass, tmp / f"unsolved-{mode}", memory_limit=MEMORY_LIMIT, sandbox=mode, **QUIET
            )
            seconds[mode] = {(r.student, r.assignment): r.seconds for r in result.runs}
        print(
            f"(a) {len(seconds[True])} unsolved submissions ({students} student(s) x 5 assignments)"
        )
        for key in sorted(seconds[True]):
            box, plain = seconds[True][key], seconds[False][key]
            print(
                f"{key[1]:<28} sandbox {box:.2f} s, no sandbox {plain:.2f} s, adds {box - plain:+.2f} s"
            )
        box = statistics.median(seconds[True].values())
        plain = statistics.median(seconds[False].values())
        added = statistics.median(seconds[True][k] - seconds[False][k] for k in seconds[True])
        print(f"per submission, median: sandbox {box:.2f} s, no sandbox {plain:.2f} s")
        print(f"sandbox overhead per submission, median: {added:+.2f} s")
        print(f"ratio sandbox / no sandbox (medians): {box / plain:.2f}")

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
            print(
                f"(b) fixture class, {len(result.runs)} submissions, time limit {limit:g} s: "
                f"{result.seconds:.2f} s; floor {timeouts} timed-out tasks x {limit:g} s = "
                f"{floor:g} s"
            )
            print(f"ratio class / floor at {limit:g} s: {result.seconds / floor:.2f}")


if __name__ == "__main__":
    main()
