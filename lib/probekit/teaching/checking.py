"""Grading one submission: its code in the sandbox, the checks in the grader's own process.

:func:`grade_submission` reads the submission (here: a file that cannot be read is
``malformed``), flags the tasks whose reference implementation it names
(:func:`probekit.teaching.references.static_check`), and starts its worker in a sandbox
(:mod:`.sandbox`, :mod:`.worker`), which runs the cells and reports which ran and which task
functions exist. Then, for every task, it runs the task's ``check_*`` right here, on a
:class:`RemoteFunction`: a stand-in that sends each case's inputs into the sandbox and returns
what the student's function returned there. The check draws its cases from the student's seed,
computes the expected values with the library and compares; none of that enters the sandbox,
and nothing the sandbox says is taken as a verdict.

A worker that stops answering is killed, and one that dies is replaced by a fresh sandbox
(whose cells run again) for the tasks left, so one task's crash costs only that task.
"""

from __future__ import annotations

import functools
import keyword
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probekit.teaching.catalogue import tasks_of
from probekit.teaching.cells import task_cells
from probekit.teaching.codec import CodecError
from probekit.teaching.grades import RunInfo, TaskGrade, make_grade, signal_reason
from probekit.teaching.references import static_check
from probekit.teaching.runner import PRINT_SUCCESS, FunctionRaised, GradedTask
from probekit.teaching.sandbox import SandboxProcess, SandboxSetup
from probekit.teaching.submissions import Submission, read_notebook

#: Seconds a worker may take to start and import the modules the cells import.
STARTUP_SECONDS = 120.0
#: Seconds the grader waits beyond a time limit before it kills a worker that ignores its alarm.
GRACE_SECONDS = 2.0
_OUTPUT_TAIL = 1500


@dataclass(frozen=True)
class Limits:
    """The limits of a grading run (see :func:`probekit.teaching.grading.grade_submissions`)."""

    time_limit: float
    memory_limit: int
    file_limit: int
    n_cases: int | None
    max_bytes: int


class Stop(BaseException):
    """A call that ends its task's check with a status other than a verdict.

    A BaseException, so that a check's ``except Exception`` lets it through.
    """

    def __init__(self, status: str, message: str):
        """A stop with the task's ``status`` and the ``message`` the student reads."""
        super().__init__(message)
        self.status = status
        self.message = message


class StudentError(Exception):
    """What the student's function raised in the sandbox, with its type's name and lines."""

    where = ""


def _student_error(kind: Any, text: Any, where: Any) -> StudentError:
    name = str(kind)
    if not (name.isidentifier() and not keyword.iskeyword(name)) or len(name) > 80:
        name = "StudentError"
    error = type(name, (StudentError,), {})(str(text)[:2000])
    error.where = str(where)[:4000]
    return error


class SandboxSession:
    """The submission's worker, started on demand and replaced when it dies."""

    def __init__(self, setup: SandboxSetup, sub: Submission, job: dict, job_dir: Path):
        """A handle that has not started a sandbox yet."""
        self.setup, self.sub, self.job, self.job_dir = setup, sub, job, job_dir
        self.process: SandboxProcess | None = None
        self.started = 0
        self.calls = 0
        self.cell_events: list[dict] = []
        self.functions: dict[str, str] = {}
        self.outcomes: list[str] = []
        self.seconds = 0.0
        self.max_rss_mib = 0.0

    @property
    def max_bytes(self) -> int:
        """The longest message the grader reads from the sandbox, in bytes."""
        return int(self.job["max_bytes"])

    def output(self) -> str:
        """The end of what the submission printed."""
        path = self.job_dir / "output.txt"
        return path.read_text(errors="replace")[-_OUTPUT_TAIL:] if path.exists() else ""

    def start(self) -> Stop | None:
        """Start a sandbox and run the cells; a Stop when it dies or hangs before it is ready."""
        self.started += 1
        workdir = self.job_dir / f"work{self.started}"
        workdir.mkdir()
        self.began = time.monotonic()
        self.process = SandboxProcess(
            self.setup, self.sub.path, self.job_dir / "output.txt", workdir
        )
        self.process.send({k: v for k, v in self.job.items() if k != "max_bytes"})
        started = self._receive(STARTUP_SECONDS, "started")
        if isinstance(started, Stop):
            return started
        events = []
        for _ in self.job["cells"]:
            event = self._receive(self.job["time_limit"] + GRACE_SECONDS, "cell")
            if isinstance(event, Stop):
                return event
            events.append(event)
        ready = self._receive(GRACE_SECONDS + 10.0, "ready")
        if isinstance(ready, Stop):
            return ready
        self.cell_events = events
        self.functions = ready.get("functions", {}) if isinstance(ready, dict) else {}
        return None

    def _receive(self, timeout: float, event: str, ident: int | None = None) -> Any:
        assert self.process is not None
        try:
            message = self.process.receive(timeout, self.max_bytes)
        except CodecError as exc:
            return self.stop(
                "refused",
                f"the submission sent the grader something it cannot read ({exc}); "
                "the sandbox was stopped",
            )
        if message is None:
            return self.stop("timeout" if self.process.ended(0.5) is None else "crashed", "")
        if (
            not isinstance(message, dict)
            or (event != "call" and message.get("event") != event)
            or (ident is not None and message.get("id") != ident)
        ):
            return self.stop(
                "refused",
                "the submission wrote to the grader's channel (a message out of turn); "
                "the sandbox was stopped",
            )
        return message

    def stop(self, status: str, message: str) -> Stop:
        """End the sandbox; the Stop that says why (from how it ended, when ``message`` is "")."""
        assert self.process is not None
        self.process.close()
        signal = self.process.signal()
        self.seconds += time.monotonic() - self.began
        self.max_rss_mib = max(self.max_rss_mib, self.process.max_rss_mib)
        if message:
            self.outcomes.append(f"stopped ({status})")
        elif status == "timeout":
            self.outcomes.append("killed at the deadline")
            message = "the submission stopped answering and was killed at the time limit"
        else:
            self.outcomes.append(f"died of {signal}" if signal else "exited early")
            status, message = signal_reason(signal, self.job["memory_limit"], self.output())
        self.process = None
        return Stop(status, message)

    def finish(self) -> None:
        """Close the pipe to a live worker, let it exit, and kill it if it does not."""
        if self.process is None:
            return
        process = self.process
        if not process.finish(5.0):
            self.outcomes.append("killed after grading")
        else:
            ok = os.WIFEXITED(process.status) and os.WEXITSTATUS(process.status) == 0
            self.outcomes.append("finished" if ok else "exited early")
        self.seconds += time.monotonic() - self.began
        self.max_rss_mib = max(self.max_rss_mib, process.max_rss_mib)
        self.process = None

    def call(self, function: str, args: tuple, limit: float) -> dict:
        """Call ``function`` in the sandbox; its reply. Raises Stop when the sandbox fails."""
        assert self.process is not None
        self.calls += 1
        ident = self.calls
        if not self.process.send(
            {"id": ident, "function": function, "args": list(args), "limit": limit}
        ):
            raise self._died()
        reply = self._receive(limit + GRACE_SECONDS, "call", ident)
        if isinstance(reply, Stop):
            raise reply
        return reply

    def _died(self) -> Stop:
        return self.stop("crashed", "")


class RemoteFunction:
    """The student's function as a check sees it: each call goes into the sandbox."""

    def __init__(self, worker: SandboxSession, function: str, budget: float):
        """Calls of ``function`` that may take ``budget`` seconds in all."""
        self.worker, self.function = worker, function
        self.left = budget
        self.budget = budget

    def __call__(self, *args: Any) -> Any:
        """What the student's function returns on ``args``; raises what it raised there."""
        if self.left <= 0:
            raise Stop("timeout", self._timeout_message())
        start = time.monotonic()
        try:
            reply = self.worker.call(self.function, args, self.left)
        except Stop as stop:
            if stop.status == "timeout":
                stop.message = self._timeout_message()
            raise
        finally:
            self.left -= time.monotonic() - start
        event = reply.get("event")
        if event == "result":
            return reply.get("value")
        if event == "unsolved":
            raise NotImplementedError
        if event == "raised":
            raise _student_error(reply.get("kind"), reply.get("text"), reply.get("where", ""))
        if event == "timeout":
            raise Stop("timeout", self._timeout_message())
        if event == "memory":
            raise Stop(
                "memory",
                f"{self.function} ran out of memory (limit {self.worker.job['memory_limit']} MiB); "
                "look for a list or array that grows without bound",
            )
        if event == "unsendable":
            raise Stop(
                "failed",
                f"{self.function} returned a value the grader cannot read back: "
                f"{str(reply.get('text'))[:300]}; return numbers, strings, lists or arrays",
            )
        raise Stop("refused", "the submission wrote to the grader's channel (an unknown reply)")

    def _timeout_message(self) -> str:
        return (
            f"{self.function} did not finish within {self.budget:g} s on the check's cases; "
            "look for a loop that never ends"
        )


def _check_task(
    task: GradedTask, worker: SandboxSession, seed: int, limits: Limits
) -> tuple[str, str]:
    """Run one task's check here on the student's function in the sandbox; (status, message)."""
    kwargs: dict[str, Any] = {"seed": seed}
    if limits.n_cases:
        kwargs["n_cases"] = limits.n_cases
    remote = RemoteFunction(worker, task.function, limits.time_limit)
    try:
        task.check(remote, **kwargs)
    except Stop as stop:
        return stop.status, stop.message
    except NotImplementedError:
        return "unsolved", f"{task.function} still raises NotImplementedError: replace it"
    except FunctionRaised as exc:
        message = str(exc)
        where = getattr(exc.__cause__, "where", "")
        return "raised", message + ("\n  where:\n" + where if where else "")
    except AssertionError as exc:
        return "failed", str(exc)
    except Exception as exc:  # a check that cannot handle what the function returned
        return "failed", f"checking {task.function}: its result could not be checked: {exc}"
    return "passed", ""


def _section_problems(events: list[dict]) -> dict[int, dict]:
    problems: dict[int, dict] = {}
    for event in events:
        status = event.get("status")
        if status != "ok" and event.get("section") not in problems:
            allowed = {"error", "timeout", "memory", "refused"}
            problems[event.get("section")] = {
                "status": status if status in allowed else "error",
                "message": str(event.get("message", ""))[:4000],
            }
    return problems


def grade_submission(
    sub: Submission,
    seed: int,
    setup: SandboxSetup,
    limits: Limits,
    job_dir: Path,
    file_name: str,
) -> tuple[list[TaskGrade], RunInfo]:
    """Grade one submission; one grade per task and how its sandboxes ran."""
    PRINT_SUCCESS.set(False)  # this thread's checks report through the grades, not stdout
    tasks = tasks_of(sub.assignment)
    grade = functools.partial(make_grade, sub, seed)
    try:
        cells = task_cells(read_notebook(sub.path))
    except Exception as exc:  # any reader failure means the file cannot be graded
        message = f"{sub.path.name}: {exc}"
        run = RunInfo(sub.student, sub.assignment, file_name, seed, "not started", 0.0, 0.0)
        return [grade(t, "malformed", message) for t in tasks], run
    flagged = static_check(cells, sub.assignment)
    job = {
        "cells": [[c.index, c.section, c.source] for c in cells],
        "functions": [t.function for t in tasks],
        "seed": seed,
        "time_limit": limits.time_limit,
        "memory_limit": limits.memory_limit,
        "file_limit": limits.file_limit,
        "cpu_limit": STARTUP_SECONDS + limits.time_limit * (len(cells) + len(tasks) + 1),
        "nproc": setup.nproc,
        "uid": setup.uid,
        "max_bytes": limits.max_bytes,
    }
    worker = SandboxSession(setup, sub, job, job_dir)
    results: list[TaskGrade] = []
    died: Stop | None = None
    try:
        for task in tasks:
            if task.number in flagged:
                results.append(grade(task, "refused", flagged[task.number]))
                continue
            if worker.process is None and died is None:
                # A fresh sandbox for the first task, and after one died in a task's check.
                stop = worker.start()
                if stop is not None and not worker.cell_events:
                    died = stop  # it dies before its cells finish: every task left shares that
            if died is not None:
                results.append(grade(task, died.status, died.message))
                continue
            problems = _section_problems(worker.cell_events)
            problem = problems.get(0) or problems.get(task.number)
            if problem is not None:
                results.append(grade(task, problem["status"], problem["message"]))
                continue
            state = worker.functions.get(task.function, "missing")
            if state != "ok":
                why = "is not defined" if state == "missing" else "is not a function"
                results.append(
                    grade(
                        task,
                        "missing",
                        f"{task.function} {why} (Task {task.number} asks for a function of "
                        "this name)",
                    )
                )
                continue
            status, message = _check_task(task, worker, seed, limits)
            results.append(grade(task, status, message))
    finally:
        worker.finish()
    outcome = "; ".join(dict.fromkeys(worker.outcomes)) or "not started"
    run = RunInfo(
        sub.student,
        sub.assignment,
        file_name,
        seed,
        outcome,
        worker.seconds,
        worker.max_rss_mib,
    )
    return results, run
