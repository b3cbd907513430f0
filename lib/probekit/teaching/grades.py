"""Grades: what a submission earned per task, and how a child's report becomes them.

The child that grades a submission (:mod:`.sandbox`) reports every step as one JSON line
(``start``, one ``cell`` per cell run, ``malformed``, one ``task`` per check, ``done``), and
the zygote replies how the child ended. :func:`task_grades` turns the two into one
:class:`TaskGrade` per task of the assignment, with one of the :data:`STATUSES`; a task the
child never reported (it was killed, or died) gets the reason from the reply: ``timeout`` at
the submission's deadline or past its CPU time, ``refused`` past the file-size limit,
``crashed`` for any other fatal signal or an early exit. :func:`run_outcome` says how the
child's process ended (``runs.csv``).
"""

from __future__ import annotations

import json
import re
import signal
from dataclasses import dataclass
from pathlib import Path

from probekit.teaching.catalogue import tasks_of
from probekit.teaching.submissions import Submission

#: The statuses of a graded task. Only ``passed`` earns the task's points.
STATUSES = {
    "passed": "passed its check",
    "failed": "gave a wrong result",
    "unsolved": "still raises NotImplementedError",
    "missing": "the function is not defined",
    "error": "a cell of the task raised an error",
    "timeout": "ran past the time limit",
    "memory": "ran out of memory",
    "refused": "tried something the grader does not allow",
    "malformed": "the file could not be read",
    "crashed": "the grading process died",
}

_OUTPUT_TAIL = 1500
# By name: some of these signals do not exist off POSIX, where the grader refuses to run.
_SIGNALS = {
    "SIGXCPU": "it used up its CPU time",
    "SIGXFSZ": "it wrote a file larger than the output limit",
    "SIGSEGV": "it crashed (SIGSEGV), which often means it ran out of memory",
    "SIGABRT": "it aborted (SIGABRT), which often means it ran out of memory",
    "SIGBUS": "it crashed (SIGBUS)",
    "SIGKILL": "it was killed (SIGKILL), which often means it ran out of memory",
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
        outcome: ``finished``, ``killed at the deadline``, ``died ...`` or ``not started``.
        seconds: the child's wall time, from fork to exit.
        max_rss_mib: its peak resident memory.
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


def _read_events(path: Path) -> list[dict]:
    events = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut off when the child was killed
    return events


def run_outcome(reply: dict | None) -> str:
    """How a child's process ended, from the zygote's reply (None: the zygote was lost)."""
    if reply is None:
        return "the grader lost the process"
    if reply["killed"]:
        return "killed at the deadline"
    if reply["signal"] is not None:
        return f"died of signal {signal.Signals(reply['signal']).name}"
    return "finished" if reply["code"] == 0 else f"exited with code {reply['code']}"


def _unreported(reply: dict | None, request: dict, output: str) -> tuple[str, str]:
    """Status and message of a task the child never reported (it was killed or died)."""
    if reply is None:
        return "crashed", "the grading process stopped answering; the task was not graded"
    if reply["killed"]:
        return "timeout", (
            f"the submission was stopped after {request['deadline']:g} s, the time limit of the "
            f"whole submission ({request['time_limit']:g} s per task); this task was not graded. "
            "Look for a loop that never ends."
        )
    if reply["signal"] is not None:
        name = signal.Signals(reply["signal"]).name
        why = _SIGNALS.get(name, f"it was killed by {name}")
        if name in ("SIGSEGV", "SIGABRT", "SIGKILL"):
            why += f" (limit {request['memory_limit']} MiB)"
        status = _SIGNAL_STATUS.get(name, "crashed")
        return status, f"the grading process of this submission stopped: {why}"
    tail = output.strip()[-_OUTPUT_TAIL:]
    message = (
        f"the grading process ended (exit code {reply['code']}) before this task was graded; "
        "does the submission call os._exit() or exit the interpreter?"
    )
    return "crashed", message + (f"\nits last output:\n{tail}" if tail else "")


def task_grades(
    submission: Submission, seed: int, reply: dict | None, request: dict
) -> list[TaskGrade]:
    """The grade of every task of a submission, from what its child reported.

    Args:
        submission: the graded submission.
        seed: the student's seed.
        reply: the zygote's reply on the child (exit code or signal, killed at the deadline),
            or None when the zygote was lost.
        request: the request the child was given; its ``outdir`` holds the child's
            ``result.jsonl`` and ``output.txt``.

    Returns:
        One :class:`TaskGrade` per task of the assignment, Task 1 first.
    """
    events = _read_events(Path(request["outdir"]) / "result.jsonl")
    output_path = Path(request["outdir"]) / "output.txt"
    output = output_path.read_text(errors="replace")[-_OUTPUT_TAIL:] if output_path.exists() else ""
    malformed = next((e for e in events if e.get("event") == "malformed"), None)
    reported = {e["number"]: e for e in events if e.get("event") == "task"}
    grades = []
    for task in tasks_of(submission.assignment):
        if malformed is not None:
            status, message = "malformed", malformed["message"]
        elif task.number in reported:
            status, message = reported[task.number]["status"], reported[task.number]["message"]
        else:
            status, message = _unreported(reply, request, output)
        if status == "failed":
            hint = hint_of(message) or message.splitlines()[0]
        else:
            hint = "" if status == "passed" else STATUSES[status]
        grades.append(
            TaskGrade(
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
        )
    return grades
