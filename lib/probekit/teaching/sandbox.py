"""The bubblewrap sandbox a submission runs in, and the grader's handle on its process.

Every submission runs in a sandbox of its own, started with ``bwrap`` (bubblewrap, the Debian
package ``bubblewrap``): :func:`prepare_sandbox` checks that it works once per grading run, and
:class:`SandboxProcess` starts one worker (:mod:`.worker`) in it. What the sandbox sees:

- the system's ``/usr`` (and the ``/bin``, ``/lib`` ... beside it) and the Python environment
  (``sys.prefix``, ``sys.base_prefix``), read-only; a few files of ``/etc`` the dynamic loader
  and the fonts need;
- the sandbox's copy of probekit (:func:`probekit.teaching.references.write_sandbox_library`),
  read-only, mounted where the real package lies, so no reference implementation is there;
- a private ``/tmp`` (a size-limited tmpfs) holding only a copy of the submission's file; its
  working directory. Nothing it writes outlives it;
- its own ``/proc`` and a minimal ``/dev``; no project tree, no notebooks, no other submission,
  no home directory.

It runs in new PID, network (no interface but loopback), IPC, UTS and cgroup namespaces and a
new session, dies with the grader (``--die-with-parent``), and, when the grader runs as root,
as the unprivileged user ``nobody`` (the worker drops to it before any student code runs);
otherwise in a user namespace of the grader's user. When the sandbox's first process ends, the
kernel ends every process inside it. The worker sets the rlimits (address space, processes,
file size, CPU time) before the student's code runs.

With ``--no-sandbox`` (:func:`prepare_sandbox` with ``sandbox=False``) the worker runs as a plain
child process in its own session, with the same limits and the real library: for machines
without bubblewrap, and unsafe with untrusted code.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import probekit
from probekit.errors import ProbekitError
from probekit.teaching.codec import CodecError, dumps, loads
from probekit.teaching.references import write_sandbox_library

#: What the grader says when bubblewrap is missing or cannot start a sandbox.
INSTALL_HINT = (
    "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap), or grade with --no-sandbox, which runs student code without isolation"
)
#: The unprivileged user a sandbox runs as when the grader runs as root.
NOBODY = 65534
#: Processes (threads included) a submission may run at once, above those of its user.
EXTRA_PROCESSES = 256

_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/fonts", "/etc/mime.types")
_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "MPLBACKEND": "Agg",
    "MPLCONFIGDIR": "/tmp/.matplotlib",
}


def find_bwrap() -> str | None:
    """The path of ``bwrap``, or None when it is not installed."""
    return shutil.which("bwrap")


def _tasks_of_user(uid: int) -> int:
    """How many processes and threads the user ``uid`` runs now (RLIMIT_NPROC counts them)."""
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
            )
        except OSError:
            continue  # the process ended meanwhile
        if int(fields.get("Uid", "-1 0").split()[0]) == uid:
            count += int(fields.get("Threads", "1").strip())
    return count


@dataclass(frozen=True)
class SandboxSetup:
    """How this grading run starts its sandboxes (see :func:`prepare_sandbox`).

    Attributes:
        bwrap: the ``bwrap`` executable, or None with ``--no-sandbox``.
        library: the directory whose ``probekit`` the workers import (the sandbox's copy, or
            the real package's parent with ``--no-sandbox``).
        package: where the real probekit package lies (the copy is mounted there).
        uid: the user the worker drops to (when the grader runs as root), else None.
        nproc: the processes limit of a worker (RLIMIT_NPROC).
        tmp_mib: the size of a sandbox's ``/tmp``.
    """

    bwrap: str | None
    library: Path
    package: Path
    uid: int | None
    nproc: int
    tmp_mib: int

    def command(self, request_fd: int, reply_fd: int, file_fd: int, name: str) -> list[str]:
        """The command line that starts a worker (in a sandbox unless ``bwrap`` is None)."""
        python = [sys.executable, "-P", "-s", "-m", "probekit.teaching.worker"]
        python += [str(request_fd), str(reply_fd)]
        if self.bwrap is None:
            return python
        args = [self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if os.getuid() == 0:
            # Root needs no user namespace; the worker keeps setuid/setgid to drop to nobody
            # (losing every capability with them) before it runs student code.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        args += _system_mounts()
        targets = [*_python_roots(), self.package]
        # bwrap creates missing parents of a mount point readable by root only; the worker's
        # user must be able to pass them.
        parents = sorted({p for t in targets for p in t.parents if p != Path("/")}, key=str)
        for parent in parents:
            args += ["--perms", "0755", "--dir", str(parent)]
        for root in targets[:-1]:
            args += ["--ro-bind", str(root), str(root)]
        args += ["--ro-bind", str(self.library / "probekit"), str(self.package)]
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--size", str(self.tmp_mib * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp"]
        args += ["--perms", "0644", "--file", str(file_fd), f"/tmp/{name}"]
        args += ["--chdir", "/tmp", "--clearenv"]
        for key, value in sorted(self.environment().items()):
            args += ["--setenv", key, value]
        return args + python

    def environment(self) -> dict[str, str]:
        """The worker's environment: no proxies, one thread, offline, its library first."""
        env = dict(_ENV)
        env["PYTHONPATH"] = str(self.package.parent if self.bwrap else self.library)
        if self.bwrap is None:
            env["PATH"] = os.environ.get("PATH", _ENV["PATH"])
        return env


def _plain_environment(setup: SandboxSetup, workdir: Path) -> dict[str, str]:
    """The environment of a worker without the sandbox: its temporary files in ``workdir``."""
    home = str(workdir)
    return setup.environment() | {"HOME": home, "TMPDIR": home, "MPLCONFIGDIR": home + "/.mpl"}


def _system_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in _ETC:
        args += ["--ro-bind-try", name, name]
    return args


def _python_roots() -> list[Path]:
    """The directories of the Python environment, outermost first, none inside another."""
    roots = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    roots.add(Path(os.path.realpath(sys.executable)).parent.parent)
    roots = {r for r in roots if not (r == Path("/usr") or Path("/usr") in r.parents)}
    kept: list[Path] = []
    for root in sorted(roots, key=lambda p: len(p.parts)):
        if not any(k == root or k in root.parents for k in kept):
            kept.append(root)
    return kept


def prepare_sandbox(workspace: Path, *, sandbox: bool, file_mib: int) -> SandboxSetup:
    """The sandbox set-up of a grading run, its library copy written into ``workspace``.

    Raises:
        ProbekitError: with ``sandbox`` when bubblewrap is missing or cannot start a sandbox
            here, saying how to install it (or to pass ``--no-sandbox``).
    """
    package = Path(probekit.__file__).resolve().parent
    if not sandbox:
        return SandboxSetup(None, package.parent, package, None, 0, 0)
    bwrap = find_bwrap()
    if bwrap is None:
        raise ProbekitError(
            "grading needs bubblewrap (bwrap), which is not installed", INSTALL_HINT
        )
    library = workspace / "library"
    write_sandbox_library(library)
    # The sandbox's user must be able to read the copy.
    os.chmod(workspace, 0o711)
    for path in [library, *library.rglob("*")]:
        mode = path.stat().st_mode
        os.chmod(
            path,
            mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | (0o111 if path.is_dir() else 0),
        )
    uid = NOBODY if os.getuid() == 0 else None
    nproc = _tasks_of_user(uid if uid is not None else os.getuid()) + EXTRA_PROCESSES
    setup = SandboxSetup(bwrap, library, package, uid, nproc, max(64, 2 * file_mib))
    _probe(setup)
    return setup


def _probe(setup: SandboxSetup) -> None:
    """Start one sandbox that only says hello; a ProbekitError with bwrap's reason otherwise."""
    assert setup.bwrap is not None
    read_fd, write_fd = os.pipe()
    try:
        command = setup.command(0, 0, read_fd, "probe")
        command = command[: command.index(sys.executable) + 1] + ["-c", "print('ok')"]
        os.write(write_fd, b"")
        os.close(write_fd)
        write_fd = -1
        done = subprocess.run(
            command, pass_fds=(read_fd,), capture_output=True, timeout=120, stdin=subprocess.DEVNULL
        )
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
    if done.returncode != 0 or done.stdout.strip() != b"ok":
        reason = (done.stderr or done.stdout).decode(errors="replace").strip()[-600:]
        raise ProbekitError(
            f"bubblewrap cannot start a sandbox here: {reason or 'exit code ' + str(done.returncode)}",
            "bwrap needs user namespaces (sysctl kernel.unprivileged_userns_clone=1, or an "
            "AppArmor profile that allows them) or root; in a container, run it with "
            "--security-opt seccomp=unconfined or as a privileged container. " + INSTALL_HINT,
        )


class SandboxProcess:
    """One worker in its sandbox, and the two pipes to it."""

    def __init__(self, setup: SandboxSetup, submission: Path, output: Path, workdir: Path):
        """Start a worker for ``submission``; its printed output goes to ``output``.

        ``workdir`` is the worker's working directory with ``--no-sandbox`` (in the sandbox, its
        private ``/tmp``).
        """
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        file_fd = os.open(submission, os.O_RDONLY)
        command = setup.command(request_r, reply_w, file_fd, submission.name)
        if setup.bwrap is None:
            shutil.copy(submission, workdir / submission.name)
        self._buffer = b""
        try:
            with open(output, "wb") as log:
                self.process = subprocess.Popen(
                    command,
                    pass_fds=(request_r, reply_w, file_fd),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=_plain_environment(setup, workdir) if setup.bwrap is None else {},
                    cwd=workdir,
                    start_new_session=True,
                )
        finally:
            for fd in (request_r, reply_w, file_fd):
                os.close(fd)
        self.status: int | None = None
        self.max_rss_mib = float("nan")

    def send(self, message: Any) -> bool:
        """Send one message; False when the worker is gone."""
        data = memoryview(dumps(message))
        if self._request_w < 0:
            return False
        try:
            while data:
                data = data[os.write(self._request_w, data) :]
        except OSError:
            return False
        return True

    def receive(self, timeout: float, max_bytes: int) -> Any:
        """The next message, or None when none came within ``timeout`` s or the worker ended.

        Raises:
            CodecError: for a message longer than ``max_bytes`` or not plain data.
        """
        deadline = _now() + timeout
        while b"\n" not in self._buffer:
            if self._reply_r < 0:
                return None
            if len(self._buffer) > max_bytes:
                raise CodecError(f"a message of more than {max_bytes} bytes")
            left = deadline - _now()
            if left <= 0:
                return None
            readable, _, _ = select.select([self._reply_r], [], [], left)
            if not readable:
                return None
            chunk = os.read(self._reply_r, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return loads(line, max_bytes)

    def _close_request(self) -> None:
        # Each descriptor is closed once: another thread may reuse its number right after.
        if self._request_w >= 0:
            os.close(self._request_w)
            self._request_w = -1

    def _close_pipes(self) -> None:
        self._close_request()
        if self._reply_r >= 0:
            os.close(self._reply_r)
            self._reply_r = -1

    def close(self) -> int:
        """End the worker and everything it started; its wait status (see :meth:`signal`)."""
        self._close_pipes()
        if self.status is not None:
            return self.status
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _, status, usage = os.wait4(self.process.pid, 0)
        self._ended(status, usage)
        return self.status

    def _ended(self, status: int, usage: Any) -> None:
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.status, self.max_rss_mib = status, usage.ru_maxrss / 1024

    def ended(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` s for the worker to end by itself; its wait status, or None."""
        deadline = _now() + timeout
        while self.status is None:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self._ended(status, usage)
                break
            if _now() >= deadline:
                return None
            time.sleep(0.01)
        return self.status

    def finish(self, timeout: float) -> bool:
        """Close the request pipe so that the worker exits; kill it after ``timeout`` s.

        Returns whether it ended by itself.
        """
        self._close_request()
        by_itself = self.ended(timeout) is not None
        self.close()
        return by_itself

    def signal(self) -> str | None:
        """The name of the signal that ended the worker, None when it exited or still runs.

        bwrap reports a sandboxed process killed by signal N as exit code 128 + N.
        """
        if self.status is None:
            return None
        if os.WIFSIGNALED(self.status):
            number = os.WTERMSIG(self.status)
        elif os.WIFEXITED(self.status) and os.WEXITSTATUS(self.status) > 128:
            number = os.WEXITSTATUS(self.status) - 128
        else:
            return None
        try:
            return signal.Signals(number).name
        except ValueError:
            return f"signal {number}"


def _now() -> float:
    return time.monotonic()
