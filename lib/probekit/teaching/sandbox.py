"""Grading one submission inside its own child process.

The grader never imports or executes student code. The zygote (:mod:`.zygote`) forks a fresh
child for every submission, which calls :func:`grade_in_child`. The child

1. moves into a fresh temporary working directory (its printed output already goes to a file
   beside it, read back for the feedback when the child dies);
2. lowers its OS limits and installs the audit hook that confines it (:mod:`.guard`);
3. reads the submission (a Jupytext percent ``.py`` or an ``.ipynb``), runs its code cells up to
   the run-and-interpret task (:func:`probekit.teaching.cells.task_cells`; the student's own
   ``check_*`` calls are left out, IPython magics are skipped), each under a per-task
   wall-clock alarm;
4. calls each task's check (:data:`probekit.teaching.catalogue.ASSIGNMENT_TASKS`) on the
   function the task defines, with the student's seed, under the same alarm; and
5. reports every step as one JSON object per line in a result file opened before the student's
   code ran (:mod:`.grades` turns them into grades). Nothing is pickled.
"""

from __future__ import annotations

import builtins
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from probekit.teaching.catalogue import tasks_of
from probekit.teaching.cells import TaskCell, compile_cell, read_notebook, task_cells
from probekit.teaching.guard import Guard, install_guard, set_limits
from probekit.teaching.runner import GradedTask


class TaskTimeout(BaseException):
    """Raised in the child when a cell or a check runs past the per-task time limit.

    A ``BaseException``, so that a student's ``except Exception`` does not swallow it.
    """


def _on_alarm(signum: int, frame: Any) -> None:
    raise TaskTimeout


def _timed(limit: float, step: Callable[[], Any]) -> Any:
    """Run ``step`` under a wall-clock alarm of ``limit`` seconds; TaskTimeout when it expires."""
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return step()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _where(exc: BaseException) -> str:
    """The student's lines a traceback ran through (frames of the submission's cells)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<cell ")]
    if not frames:
        return ""
    return "".join(traceback.format_list(frames[-3:])).rstrip()


def _error_text(exc: BaseException, what: str) -> str:
    if isinstance(exc, SystemExit):
        head = f"{what} called exit() ({exc.code!r})"
    elif isinstance(exc, SyntaxError):
        head = f"{what} is not valid Python: {exc.msg} (line {exc.lineno})"
    else:
        head = f"{what} raised {type(exc).__name__}: {exc}"
    where = _where(exc)
    return head + ("\n" + where if where else "")


class _Child:
    """The state of one graded submission inside the child process."""

    def __init__(self, request: dict, result_fd: int, guard: Guard | None):
        self.request = request
        self.result_fd = result_fd
        self.guard = guard
        self.limit = float(request["time_limit"])
        self.section_errors: dict[int, dict] = {}

    def emit(self, **record: Any) -> None:
        os.write(self.result_fd, (json.dumps(record) + "\n").encode())

    def refused_since(self, mark: int) -> list[str]:
        return [] if self.guard is None else self.guard.refused[mark:]

    def mark(self) -> int:
        return 0 if self.guard is None else len(self.guard.refused)

    def run_cells(self, cells: list[TaskCell], namespace: dict) -> None:
        for cell in cells:
            label = f"<cell {cell.index + 1}>"
            what = f"cell {cell.index + 1}" + (f" (Task {cell.section})" if cell.section else "")
            mark, status, message = self.mark(), "ok", ""
            try:
                code = compile_cell(cell, label)
                _timed(self.limit, lambda code=code: exec(code, namespace))
            except TaskTimeout:
                status = "timeout"
                message = f"{what} did not finish within {self.limit:g} s"
            except MemoryError:
                limit = self.request["memory_limit"]
                status, message = "memory", f"{what} ran out of memory (limit {limit} MiB)"
            except BaseException as exc:  # the student's code may raise anything
                status, message = "error", _error_text(exc, what)
            refused = self.refused_since(mark)
            if refused:
                status = "refused"
                message = f"{what} tried {refused[0]}; the grader refused it" + (
                    f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
                )
            self.emit(event="cell", index=cell.index, section=cell.section, status=status)
            if status != "ok" and cell.section not in self.section_errors:
                self.section_errors[cell.section] = {"status": status, "message": message}

    def grade_task(self, task: GradedTask, namespace: dict, tampered: list[str]) -> dict:
        record = {"number": task.number, "function": task.function}
        problem = self.section_errors.get(0) or self.section_errors.get(task.number)
        if tampered:
            return record | {
                "status": "refused",
                "message": "the submission replaced part of the grader's library: "
                + ", ".join(tampered[:5]),
            }
        if problem is not None:
            return record | problem
        fn = namespace.get(task.function)
        if fn is None:
            return record | {
                "status": "missing",
                "message": f"no function named {task.function} is defined (Task {task.number} "
                "asks for it, under this name)",
            }
        kwargs: dict[str, Any] = {"seed": int(self.request["seed"])}
        if self.request.get("n_cases"):
            kwargs["n_cases"] = int(self.request["n_cases"])
        mark, start = self.mark(), time.perf_counter()
        try:
            _timed(self.limit, lambda: task.check(fn, **kwargs))
            status, message = "passed", ""
        except TaskTimeout:
            status = "timeout"
            message = (
                f"{task.function} did not finish within {self.limit:g} s on the check's cases; "
                "look for a loop that never ends"
            )
        except NotImplementedError:
            status = "unsolved"
            message = f"{task.function} still raises NotImplementedError: replace the placeholder"
        except AssertionError as exc:
            status, message = "failed", str(exc)
            if isinstance(exc.__cause__, MemoryError):
                status = "memory"
            where = _where(exc.__cause__) if exc.__cause__ is not None else ""
            if where:
                message += "\n  where:\n" + where
        except MemoryError:
            status, message = "memory", f"{task.function} ran out of memory"
        except BaseException as exc:  # a broken return value or exit() in the student's code
            status, message = "error", _error_text(exc, f"checking {task.function}")
        if status == "memory":
            message = (
                f"{task.function} ran out of memory (limit {self.request['memory_limit']} MiB); "
                "look for a list or array that grows without bound\n" + message
            )
        refused = self.refused_since(mark)
        if refused:
            status = "refused"
            message = f"{task.function} tried {refused[0]}; the grader refused it"
        record |= {"status": status, "message": message, "seconds": time.perf_counter() - start}
        return record


def _snapshot() -> dict[str, dict]:
    """The functions, classes and submodules of every loaded probekit module.

    Taken before the student's code runs, to notice a submission that replaces a check or a
    reference implementation (module-level data such as caches may change and is not kept).
    """
    return {
        name: {
            key: value
            for key, value in vars(module).items()
            if callable(value) or isinstance(value, type(sys))
        }
        for name, module in list(sys.modules.items())
        if name.startswith("probekit") and module is not None
    }


def _restore(before: dict[str, dict]) -> list[str]:
    """Put back replaced or deleted functions of the probekit modules; returns their names."""
    changed = []
    for name, saved in before.items():
        module = sys.modules.get(name)
        if module is None:
            continue
        now = vars(module)
        for key, value in saved.items():
            if now.get(key, _restore) is not value:
                changed.append(f"{name}.{key}")
                now[key] = value
    return changed


def grade_in_child(request: dict, result_fd: int) -> None:
    """Grade one submission in the current (child) process and report on ``result_fd``.

    ``request`` holds ``submission``, ``assignment``, ``workdir``, ``seed``, ``time_limit``
    (seconds per task), ``memory_limit`` (MiB), ``file_limit`` (MiB), ``cpu_limit`` (seconds)
    and ``n_cases`` (None for each check's default). Installs the limits and the guard first;
    call it only in a process made for this one submission.
    """
    workdir = Path(request["workdir"])
    os.chdir(workdir)
    os.environ["TMPDIR"] = str(workdir)
    tempfile.tempdir = str(workdir)
    sys.dont_write_bytecode = True
    seed = int(request["seed"])
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)
    signal.signal(signal.SIGALRM, _on_alarm)
    note = set_limits(
        float(request["cpu_limit"]), int(request["memory_limit"]), int(request["file_limit"])
    )
    tasks = tasks_of(request["assignment"])
    before = _snapshot()
    guard = install_guard(workdir)
    child = _Child(request, result_fd, guard)
    child.emit(event="start", pid=os.getpid(), note=note)
    try:
        notebook = read_notebook(request["submission"])
    except Exception as exc:  # any reader failure means the file cannot be graded
        child.emit(event="malformed", message=f"{Path(request['submission']).name}: {exc}")
        child.emit(event="done")
        return
    namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
    child.run_cells(task_cells(notebook), namespace)
    tampered = _restore(before)
    for task in tasks:
        child.emit(event="task", **child.grade_task(task, namespace, tampered))
    child.emit(event="done")
