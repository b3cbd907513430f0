"""The process inside the sandbox: runs a submission's cells, then calls its functions on request.

The grader (:mod:`.checking`) starts ``python -m probekit.teaching.worker REQUEST_FD REPLY_FD``
inside a bubblewrap sandbox (:mod:`.sandbox`) and talks to it over two pipes, one message per
line in the plain-data format of :mod:`.codec`:

1. The grader sends the job: the cells to run, the student's seed and the limits.
2. The worker drops root (when it runs as root, to the unprivileged ``uid``), lowers its
   resource limits (CPU time, file size, processes, no core dumps), imports the modules the
   cells import, then limits its address space (``RLIMIT_AS``, every mapping counted) to the
   memory limit above what it uses by then. It replies ``started``.
3. It runs the cells in order, each under a wall-clock alarm, and replies one ``cell`` event
   per cell (``ok``, or why not), then ``ready`` with which of the task functions exist.
4. For each ``call`` request it calls the named function on the given arguments under an alarm
   and replies with the returned value (``result``) or what went wrong (``raised``,
   ``unsolved``, ``timeout``, ``memory``, ``unsendable``). It never sees expected values and
   never judges: the grader compares.

Nothing here is a security boundary, and nothing needs to be: student code runs in this
process and may change anything in it, but it can only change what this process reports, and
the sandbox's walls and the grader's checks do not depend on it. The limits are set here, before
any student code runs, with equal soft and hard values, so the kernel enforces them afterwards.
"""

from __future__ import annotations

import ast
import builtins
import errno
import importlib
import os
import random
import resource
import signal
import socket
import sys
import time
import traceback
from typing import Any

import numpy as np

from probekit.teaching.cells import TaskCell, compile_cell
from probekit.teaching.codec import CodecError, dumps, loads

#: errno values of an action the sandbox does not allow (a read-only file system, no network,
#: no permission, too many processes); a cell that fails with one of them is ``refused``.
_REFUSED_ERRNOS = {
    errno.EROFS,
    errno.EACCES,
    errno.EPERM,
    errno.ENETUNREACH,
    errno.ENETDOWN,
    errno.EHOSTUNREACH,
    errno.EADDRNOTAVAIL,
    errno.EAGAIN,
}


class TaskTimeout(BaseException):
    """The alarm of a cell or a call went off (a BaseException: ``except Exception`` misses it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise TaskTimeout


def _timed(limit: float, step: Any) -> Any:
    signal.setitimer(signal.ITIMER_REAL, max(limit, 0.001))
    try:
        return step()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def where(exc: BaseException) -> str:
    """The student's lines a traceback ran through (frames of the submission's cells)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<cell ")]
    return "".join(traceback.format_list(frames[-3:])).rstrip() if frames else ""


def _refused(exc: BaseException) -> bool:
    return isinstance(exc, socket.gaierror) or (
        isinstance(exc, OSError) and exc.errno in _REFUSED_ERRNOS
    )


def error_text(exc: BaseException, what: str) -> tuple[str, str]:
    """``(status, message)`` of an exception raised by a cell."""
    if isinstance(exc, SystemExit):
        head = f"{what} called exit() ({exc.code!r})"
    elif isinstance(exc, SyntaxError):
        head = f"{what} is not valid Python: {exc.msg} (line {exc.lineno})"
    else:
        head = f"{what} raised {type(exc).__name__}: {exc}"
    status = "error"
    if _refused(exc):
        status, head = "refused", f"{head}; the sandbox does not allow it"
    place = where(exc)
    return status, head + ("\n" + place if place else "")


def imported_modules(cells: list[TaskCell]) -> list[str]:
    """The modules the cells import at their top level, in order (for loading before the limits)."""
    names: list[str] = []
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # ``from package import module`` imports a submodule: try each name as one.
                names.append(node.module)
                names += [f"{node.module}.{alias.name}" for alias in node.names]
    return list(dict.fromkeys(names))


def _vm_size() -> int:
    """This process's address space in bytes (VmSize of /proc/self/status)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _limit(kind: int, value: int) -> None:
    resource.setrlimit(kind, (value, value))


class Worker:
    """The worker's side of the protocol: the pipes, the job and the student's namespace."""

    def __init__(self, request_fd: int, reply_fd: int):
        """A worker that reads requests from ``request_fd`` and replies on ``reply_fd``."""
        self.requests = os.fdopen(request_fd, "rb", buffering=0)
        self.reply_fd = reply_fd
        self.buffer = b""
        self.namespace: dict = {"__name__": "__main__", "__builtins__": builtins}

    def read(self) -> Any:
        """The grader's next message; EOFError when it closed the pipe."""
        while b"\n" not in self.buffer:
            chunk = self.requests.read(1 << 16)
            if not chunk:
                raise EOFError
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return loads(line, 1 << 30)

    def reply(self, **message: Any) -> None:
        """Send one message to the grader."""
        data = dumps(message)
        view = memoryview(data)
        while view:
            view = view[os.write(self.reply_fd, view) :]

    def setup(self, job: dict) -> None:
        """Drop root, set the limits, seed, load the cells' modules, cap the address space."""
        uid = job.get("uid")
        if uid is not None and os.getuid() == 0:
            os.setgroups([])
            os.setgid(int(uid))
            os.setuid(int(uid))
        _limit(resource.RLIMIT_CORE, 0)
        _limit(resource.RLIMIT_CPU, max(1, int(job["cpu_limit"] + 0.999)))
        _limit(resource.RLIMIT_FSIZE, int(job["file_limit"]) * 1024 * 1024)
        if job.get("nproc"):
            _limit(resource.RLIMIT_NPROC, int(job["nproc"]))
        seed = int(job["seed"])
        random.seed(seed)
        np.random.seed(seed % 2**32)
        sys.dont_write_bytecode = True
        cells = [TaskCell(*cell) for cell in job["cells"]]
        start = time.perf_counter()
        for name in imported_modules(cells):
            try:
                importlib.import_module(name)
            except BaseException:  # a name that is no module; or the cell reports the failure
                pass
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.manual_seed(seed)
        self.memory_limit = int(job["memory_limit"])
        _limit(resource.RLIMIT_AS, _vm_size() + self.memory_limit * 1024 * 1024)
        self.reply(event="started", preload_seconds=time.perf_counter() - start)
        self.run_cells(cells, float(job["time_limit"]))

    def run_cells(self, cells: list[TaskCell], limit: float) -> None:
        """Run the cells in order, each under an alarm of ``limit`` s; one event per cell."""
        for cell in cells:
            label = f"<cell {cell.index + 1}>"
            what = f"cell {cell.index + 1}" + (f" (Task {cell.section})" if cell.section else "")
            status, message = "ok", ""
            try:
                code = compile_cell(cell, label)
                _timed(limit, lambda code=code: exec(code, self.namespace))
            except TaskTimeout:
                status, message = "timeout", f"{what} did not finish within {limit:g} s"
            except MemoryError:
                status = "memory"
                message = f"{what} ran out of memory (limit {self.memory_limit} MiB)"
            except BaseException as exc:  # the student's code may raise anything
                status, message = error_text(exc, what)
            self.reply(
                event="cell", index=cell.index, section=cell.section, status=status, message=message
            )

    def functions(self, names: list[str]) -> dict[str, str]:
        """Whether each task function exists: ``ok``, ``missing`` or ``not callable``."""
        out = {}
        for name in names:
            value = self.namespace.get(name)
            out[name] = "missing" if value is None else "ok" if callable(value) else "not callable"
        return out

    def call(self, request: dict) -> None:
        """Call the requested function under an alarm and reply with what happened."""
        ident, name = request["id"], request["function"]
        try:
            value = _timed(float(request["limit"]), lambda: self.namespace[name](*request["args"]))
        except TaskTimeout:
            self.reply(event="timeout", id=ident)
            return
        except NotImplementedError:
            self.reply(event="unsolved", id=ident)
            return
        except MemoryError:
            self.reply(event="memory", id=ident, limit=self.memory_limit)
            return
        except BaseException as exc:  # whatever the student's function raises is reported
            try:
                text = str(exc)[:2000]
            except BaseException:  # a student's __str__ may raise too
                text = "(no message)"
            self.reply(
                event="raised", id=ident, kind=type(exc).__name__, text=text, where=where(exc)
            )
            return
        try:
            self.reply(event="result", id=ident, value=value)
        except (CodecError, RecursionError, MemoryError) as exc:
            self.reply(event="unsendable", id=ident, text=f"{type(exc).__name__}: {exc}")

    def serve(self) -> None:
        """Read the job, run the cells, then answer calls until the grader closes the pipe."""
        signal.signal(signal.SIGALRM, _on_alarm)
        job = self.read()
        self.setup(job)
        self.reply(event="ready", functions=self.functions(list(job["functions"])))
        while True:
            try:
                request = self.read()
            except EOFError:
                return
            self.call(request)


def worker_main(argv: list[str] | None = None) -> int:
    """``python -m probekit.teaching.worker REQUEST_FD REPLY_FD`` (the grader starts it)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not all(a.isdigit() for a in args):
        print("usage: python -m probekit.teaching.worker REQUEST_FD REPLY_FD", file=sys.stderr)
        return 2
    Worker(int(args[0]), int(args[1])).serve()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(worker_main())
