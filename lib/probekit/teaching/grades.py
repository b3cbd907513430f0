"""Grades: what a submission earned per task, and why a task that earned nothing did not.

:mod:`.checking` grades each task of a submission into a :class:`TaskGrade` with one of the
:data:`STATUSES` (:func:`make_grade`); :func:`signal_reason` says why a sandbox that died
took its task with it. :class:`RunInfo` records how a submission's sandboxes ran
(``runs.csv``). Rows for files that were not graded (a name the grader does not recognise, a
bad student id, two files for one assignment) use the statuses ``unmatched`` and ``rejected``
(:mod:`.submissions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from probekit.teaching.runner import GradedTask
from probekit.teaching.submissions import Submission

#: The statuses of a graded task. Only ``passed`` earns the task's points.
STATUSES = {
    "passed": "passed its check",
    "failed": "gave a wrong result",
    "raised": "the function raised an error",
    "unsolved": "still raises NotImplementedError",
    "missing": "the function is not defined",
    "error": "a cell of the task raised an error",
    "timeout": "ran past the time limit",
    "memory": "ran out of memory",
    "refused": "tried something the grader does not allow",
    "malformed": "the file could not be read",
    "crashed": "the sandbox died",
    "unmatched": "the file name is not a submission's",
    "rejected": "the file was not graded",
}
#: Statuses of rows that are no task of a graded submission.
FILE_STATUSES = ("unmatched", "rejected")

# By name: some of these signals do not exist off POSIX, where the grader refuses to run.
_SIGNALS = {
    "SIGXCPU": "it used up its CPU time",
    "SIGXFSZ": "it wrote a file larger than the output limit",
    "SIGSEGV": "it crashed (SIGSEGV), which often means it ran out of memory",
    "SIGABRT": "it aborted (SIGABRT), which often means it ran out of memory",
    "SIGBUS": "it crashed (SIGBUS)",
    "SIGKILL": "it was killed (SIGKILL)",
}
_SIGNAL_STATUS = {"SIGXCPU": "timeout", "SIGXFSZ": "refused"}


@dataclass(frozen=True)
class TaskGrade:
    """The grade of one task of one submission: a row of ``grades.csv``.

    Attributes:
        student: the student id.
        assignment: the assignment's name.
        number: the task's number in the notebook.
        task: the function the task asks for.
        points: the points earned: ``max_points`` when the check passed, else 0.
        max_points: what the task is worth (the assignment module's ``POINTS``).
        status: one of :data:`STATUSES`.
        seed: the seed the check drew its cases from (the student's seed).
        hint: the check's hint for a failed task, else a short reason; empty when passed.
        message: the check's message (input, expected and returned value, hint) or the reason.
    """

    student: str
    assignment: str
    number: int
    task: str
    points: int
    max_points: int
    status: str
    seed: int
    hint: str
    message: str


@dataclass(frozen=True)
class RunInfo:
    """How one submission's process ran (``runs.csv``; wall time and memory vary by machine).

    Attributes:
        student: the student id.
        assignment: the assignment's name.
        file: the submission's path relative to the submissions directory.
        seed: the student's seed.
        outcome: how its sandboxes ended: ``finished``, ``killed at the deadline``, ``died of
            ...``, ``stopped (...)``, ``not started`` (several, ``;``-separated, when a
            sandbox that died was replaced).
        seconds: the sandboxes' wall time, from start to exit.
        max_rss_mib: their peak resident memory.
    """

    student: str
    assignment: str
    file: str
    seed: int
    outcome: str
    seconds: float
    max_rss_mib: float


def hint_of(message: str) -> str:
    """The hint line of a check's failure message (the last ``hint:`` line), or ``""``."""
    found = re.findall(r"^\s*hint:\s*(.*)$", message, flags=re.MULTILINE)
    return found[-1].strip() if found else ""


def signal_reason(signal: str | None, memory_limit: int, output: str) -> tuple[str, str]:
    """Status and message of a task whose sandbox died: of ``signal``, or by exiting (None)."""
    if signal is not None:
        why = _SIGNALS.get(signal, f"it was killed by {signal}")
        if signal in ("SIGSEGV", "SIGABRT"):
            why += f" (limit {memory_limit} MiB)"
        return _SIGNAL_STATUS.get(signal, "crashed"), f"the sandbox of this submission died: {why}"
    tail = output.strip()
    message = (
        "the sandbox of this submission ended before this task was graded; does the "
        "submission call os._exit() or exit the interpreter?"
    )
    return "crashed", message + (f"\nits last output:\n{tail}" if tail else "")


def make_grade(
    submission: Submission, seed: int, task: GradedTask, status: str, message: str
) -> TaskGrade:
    """The grade of one task: its points when it passed, else 0 and the hint or the reason."""
    if status == "failed":
        hint = hint_of(message) or (message.splitlines()[0] if message else STATUSES[status])
    elif status == "raised":  # its first line names the exception, which is the useful part
        hint = message.splitlines()[0].split(": ", 1)[-1] if message else STATUSES[status]
    else:
        hint = "" if status == "passed" else STATUSES[status]
    return TaskGrade(
        student=submission.student,
        assignment=submission.assignment,
        number=task.number,
        task=task.function,
        points=task.points if status == "passed" else 0,
        max_points=task.points,
        status=status,
        seed=seed,
        hint=hint,
        message=message,
    )
