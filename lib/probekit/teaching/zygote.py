"""The zygote: the process that loads the libraries once and forks one child per submission.

The grader (:mod:`.grading`) starts this module as a separate Python process
(``python -m probekit.teaching.zygote --serve``), through a :class:`Zygote`, its handle on
it. The process imports the libraries the hand-outs use once (:data:`PRELOAD`), which takes
seconds, and then, for every submission it is sent, forks a fresh child, which starts with
those libraries loaded and grades the submission
(:func:`probekit.teaching.sandbox.grade_in_child`). It waits for each child with a
wall-clock deadline and kills it when the deadline passes; the grader, in turn, gives up on a
zygote that stops answering. ``benchmarks/bench_grading.py`` measures what the fork saves
against a fresh interpreter per submission.

The two talk over a pair of pipes, one JSON object per line each way: a request per
submission, a reply when its child has ended (see :func:`serve`). The zygote and its
children run with few environment variables and no proxies (:func:`zygote_env`).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import probekit
from probekit.errors import ProbekitError
from probekit.teaching.sandbox import grade_in_child

#: Modules the hand-outs' task cells import, loaded by the zygote before any student code runs
#: (imported later, under the guard, they would be slow, and a library that writes a cache on
#: its first import would be refused). ``tests/test_grading.py`` keeps it in step with the
#: notebooks.
PRELOAD = (
    "numpy",
    "pandas",
    "scipy.spatial.distance",
    "scipy.stats",
    "matplotlib",
    "matplotlib.pyplot",
    "IPython.display",
    "torch",
    "probekit.teaching",
    "probekit.book.glue",
    "probekit.experiments.plots",
    "probekit.io.embeddings",
    "probekit.io.treebanks",
    "probekit.trees.distances",
    "probekit.methods.jabberwocky.graphotactics",
    "probekit.methods.pareto.frontier",
    "probekit.methods.pareto.lookups",
    "probekit.stats.comparison",
    "probekit.stats.mcnemar",
    "probekit.stats.power",
)

#: Environment variables the child processes keep; everything else, proxies included, is dropped.
_KEEP_ENV = {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "VIRTUAL_ENV", "MPLCONFIGDIR"}
_KEEP_ENV_PREFIXES = ("LC_", "PROBEKIT_", "OPENBLAS_")
_CHILD_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "MPLBACKEND": "Agg",
}


# --------------------------------------------------------------------------------------------
# The zygote process: preload once, fork one child per submission, enforce the deadline.


def _wait(pid: int, deadline: float) -> tuple[int, bool, Any]:
    """Wait for ``pid`` until the monotonic ``deadline``; kill it then. (status, killed, rusage)."""
    pause = 0.001
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, False, usage
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return status, True, usage
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.02)


def _fork_child(request: dict, protocol_fds: tuple[int, ...]) -> int:
    """Fork the child of one submission; in the child this never returns."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        for fd in protocol_fds:
            os.close(fd)
        out = Path(request["outdir"])
        result_fd = os.open(out / "result.jsonl", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        log_fd = os.open(out / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.close(log_fd)
        stdin = os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.close(stdin)
        grade_in_child(request, result_fd)
        sys.stdout.flush()
    except BaseException:  # report the grader's own failure, never let the child return
        code = 70
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # nothing left to report to
            pass
    os._exit(code)


def serve(request_fd: int, reply_fd: int) -> None:
    """The zygote's loop: preload, then one forked child per request line, until EOF.

    Each request is one JSON object per line (see :func:`grade_in_child`, plus ``id``,
    ``outdir`` and ``deadline``, the wall-clock seconds after which the child is killed). Each
    reply is one JSON line: ``id``, the child's exit ``code`` or killing ``signal``, whether it
    was ``killed`` at the deadline, its wall ``seconds`` and its ``max_rss_mib``.
    """
    start = time.perf_counter()
    for name in PRELOAD:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    requests = os.fdopen(request_fd, "rb", buffering=0)

    def reply(record: dict) -> None:
        os.write(reply_fd, (json.dumps(record) + "\n").encode())

    reply({"ready": True, "pid": os.getpid(), "preload_seconds": time.perf_counter() - start})
    buffer = b""
    while True:
        chunk = requests.read(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            request = json.loads(line)
            began = time.monotonic()
            pid = _fork_child(request, (request_fd, reply_fd))
            status, killed, usage = _wait(pid, began + float(request["deadline"]))
            reply(
                {
                    "id": request["id"],
                    "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                    "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                    "killed": killed,
                    "seconds": time.monotonic() - began,
                    "max_rss_mib": usage.ru_maxrss / 1024,
                }
            )


def zygote_main(argv: list[str] | None = None) -> int:
    """Entry point of the zygote process: ``--serve REQUEST_FD REPLY_FD``."""
    parser = argparse.ArgumentParser(prog="python -m probekit.teaching.zygote")
    parser.add_argument("--serve", nargs=2, type=int, metavar=("REQUEST_FD", "REPLY_FD"))
    args = parser.parse_args(argv)
    if not args.serve:
        parser.error("--serve REQUEST_FD REPLY_FD is required (the grader starts this process)")
    serve(*args.serve)
    return 0


# --------------------------------------------------------------------------------------------
# The grader's handle on a zygote


def zygote_env(workspace: Path) -> dict[str, str]:
    """The environment of a zygote and its children: a few variables kept, no proxies."""
    env = {
        k: v for k, v in os.environ.items() if k in _KEEP_ENV or k.startswith(_KEEP_ENV_PREFIXES)
    }
    env |= _CHILD_ENV
    env["TMPDIR"] = str(workspace)
    # The children import this very probekit, wherever it was imported from.
    here = str(Path(probekit.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    return env


class Zygote:
    """A ``python -m probekit.teaching.zygote --serve`` process that forks one child per job."""

    def __init__(self, workspace: Path, number: int, startup: float):
        """Start the zygote and wait until it has loaded its libraries.

        Args:
            workspace: the grading run's temporary directory: the zygote's working directory,
                where its log ``zygote-<number>.log`` goes.
            number: the zygote's number in this run (names its log).
            startup: seconds it may take to load its libraries.

        Raises:
            ProbekitError: when it does not report ready within ``startup`` seconds.
        """
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        self.log = workspace / f"zygote-{number}.log"
        command = [
            sys.executable,
            "-P",
            "-m",
            "probekit.teaching.zygote",
            "--serve",
            str(request_r),
            str(reply_w),
        ]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command,
                pass_fds=(request_r, reply_w),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=zygote_env(workspace),
                cwd=workspace,
                start_new_session=True,
            )
        os.close(request_r)
        os.close(reply_w)
        self._buffer = b""
        ready = self._read(startup)
        if not ready or not ready.get("ready"):
            self.close()
            raise ProbekitError(
                "the grading process did not start",
                hint="its log ends with: " + self.log.read_text(errors="replace")[-800:],
            )
        self.preload_seconds = float(ready["preload_seconds"])

    def _read(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            readable, _, _ = select.select([self._reply_r], [], [], left)
            if not readable:
                return None
            chunk = os.read(self._reply_r, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, request: dict, timeout: float) -> dict | None:
        """Send one job; its reply, or None when the zygote died or stopped answering."""
        try:
            os.write(self._request_w, (json.dumps(request) + "\n").encode())
        except OSError:
            return None
        return self._read(timeout)

    def close(self) -> None:
        """End the zygote and any child it still has (they share its process group)."""
        for fd in (self._request_w, self._reply_r):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()


if __name__ == "__main__":
    sys.exit(zygote_main())
