"""What confines a grading child: its OS resource limits and its audit hook.

The child that runs one submission (:mod:`.sandbox`) first lowers its limits
(:func:`set_limits`: CPU time, memory, the size of a written file, no core dumps), then
installs a PEP 578 audit hook (:func:`install_guard`) that refuses opening a file for writing
(``os.devnull`` aside), or removing, renaming or linking one, outside its working directory,
every ``socket.*`` event (no network), starting processes (``subprocess.Popen``,
``os.system``, ``os.exec*``, ``os.fork``, ...), signalling other processes, raising its limits,
``ctypes`` and adding further audit hooks.

This protects a grading run against mistakes and casual misuse (a runaway allocation, a stray
file write, a forgotten download); it is not a security boundary. Audit hooks can be evaded by
determined code (for one, through an already open file descriptor or by tampering with the
interpreter), so a course facing adversarial students should also run the grader in a
container or a virtual machine without network access.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

try:  # POSIX only; the checks and the student copies must still import on Windows
    import resource
except ImportError:
    resource = None

#: Whether this system can run the grader's children (fork, resource limits, /proc).
SUPPORTED = resource is not None and hasattr(os, "fork") and sys.platform.startswith("linux")

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_BLOCKED_PREFIXES = ("socket.", "ctypes.")
_BLOCKED_EVENTS = {
    "subprocess.Popen": "starting a process",
    "os.system": "starting a process",
    "os.exec": "starting a process",
    "os.posix_spawn": "starting a process",
    "os.spawn": "starting a process",
    "os.fork": "starting a process",
    "os.forkpty": "starting a process",
    "os.startfile": "starting a process",
    "pty.spawn": "starting a process",
    "os.kill": "signalling a process",
    "os.killpg": "signalling a process",
    "signal.pthread_kill": "signalling a process",
    "resource.setrlimit": "changing the resource limits",
    "resource.prlimit": "changing the resource limits",
    "sys.addaudithook": "adding an audit hook",
}
# Events whose path arguments (by position) must lie inside the working directory. Copies may
# read from anywhere; moves and links touch both ends.
_PATH_EVENTS = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "os.truncate": (0,),
    "os.rename": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (0, 1),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.copytree": (1,),
    "shutil.move": (0, 1),
}


def _vm_data_kib() -> int | None:
    """The process's data segment (VmData of /proc/self/status) in KiB, None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmData:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def set_limits(cpu_seconds: float, memory_mib: int, file_mib: int) -> str | None:
    """Lower this process's limits: CPU time, data segment, written file size, no core dumps.

    The data-segment limit is ``memory_mib`` above the current data segment, so it counts what
    the submission allocates, not the libraries already loaded. Soft and hard limits are equal,
    so the process cannot raise them again. Returns a note when the memory limit cannot be
    enforced on this system, else None.
    """
    cpu = max(1, int(cpu_seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    size = file_mib * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    used = _vm_data_kib()
    if used is None:
        return "the memory limit is not enforced on this system (no /proc/self/status)"
    limit = (used + memory_mib * 1024) * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    return None


class Guard:
    """The audit hook of the child: refuses what a submission may not do, and records it."""

    def __init__(self, workdir: Path):
        """A guard that confines to ``workdir``; it refuses nothing until it is installed."""
        self.root = os.path.realpath(workdir)
        self.refused: list[str] = []
        self._busy = False

    def inside(self, path: Any) -> bool:
        """Whether ``path`` (str, bytes or path-like, relative to the cwd) is inside the root."""
        try:
            name = os.fsdecode(os.fspath(path))
        except TypeError:
            return False
        full = os.path.realpath(os.path.join(os.getcwd(), name))
        return full == self.root or full.startswith(self.root + os.sep)

    def refuse(self, what: str) -> None:
        """Record a refused action and raise the ``PermissionError`` the student's code sees."""
        self.refused.append(what)
        raise PermissionError(f"probekit grader: {what} is not allowed while grading")

    def __call__(self, event: str, args: tuple) -> None:
        """The audit hook (PEP 578): called by the interpreter for every audited event."""
        if self._busy:
            return
        self._busy = True
        try:
            self._check(event, args)
        finally:
            self._busy = False

    def _check(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = bool(isinstance(flags, int) and flags & _WRITE_FLAGS) or bool(
                isinstance(mode, str) and set(mode) & set("wax+")
            )
            if not writing:
                return
            if isinstance(path, int):
                if path not in (1, 2):
                    self.refuse(f"writing to file descriptor {path}")
            elif path in (os.devnull, os.fsencode(os.devnull)):
                return
            elif not self.inside(path):
                self.refuse(
                    f"writing {os.fsdecode(os.fspath(path))!r} outside the working directory"
                )
            return
        if event in _PATH_EVENTS:
            for position in _PATH_EVENTS[event]:
                path = args[position] if position < len(args) else None
                if isinstance(path, int) or path is None:
                    continue
                if not self.inside(path):
                    self.refuse(
                        f"{event} on {os.fsdecode(os.fspath(path))!r} outside the working directory"
                    )
            return
        if event.startswith(_BLOCKED_PREFIXES):
            what = "network access" if event.startswith("socket.") else "ctypes"
            self.refuse(f"{what} ({event})")
        for name, what in _BLOCKED_EVENTS.items():
            if event == name or event.startswith(name + "."):
                self.refuse(f"{what} ({event})")


def install_guard(workdir: str | Path) -> Guard:
    """Install the audit hook that confines this process to ``workdir``; returns it.

    An audit hook cannot be removed: call this only in a process that exists to run one
    submission. See the module docstring for what it refuses.
    """
    guard = Guard(Path(workdir))
    sys.addaudithook(guard)
    return guard
