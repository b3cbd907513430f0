"""Workers x threads of the local Dask cluster, chosen by measurement (``--workers auto``).

On C cores the book can run as w workers of C // w torch threads each, for every w dividing C.
More workers run more chapters side by side; more threads speed up each chapter, by however much
this machine's torch gains from a second (third, ...) thread, which is far from C-fold. So
:func:`calibrate_threads` times a short training-like workload (forward and backward passes of a small
MLP on a fixed, seeded batch, with an optimiser step) at one thread and at each candidate
thread count, and caches the speedups in ``build/`` per CPU model, core count and torch version.
:func:`choose_layout` projects every layout's wall time with
:func:`probekit.book.graph.projected_wall` from the chapters' one-thread times divided by the
speedup of the layout's threads, and takes the fastest (the fewer workers among equals: less
memory for the same time).

The calibration speeds up one workload; chapters differ (some train with one thread whatever
the kernel has), so the projection is as good as that workload is typical.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from probekit.book import graph

CACHE = "thread_scaling.json"
"""The calibration cache in ``build/``: machine key -> measured speedups."""


@dataclass(frozen=True)
class Layout:
    """``workers`` processes of ``threads`` torch threads each; ``wall``: projected seconds."""

    workers: int
    threads: int
    wall: float


def layouts(cores: int) -> list[tuple[int, int]]:
    """Every ``(workers, cores // workers)`` with workers dividing ``cores``, fewest first."""
    return [(w, cores // w) for w in range(1, cores + 1) if cores % w == 0]


def one_thread_seconds(
    seconds: dict[str, float], threads: dict[str, int | None], speedup: dict[int, float]
) -> dict[str, float]:
    """Chapter times as if run with one thread.

    A time recorded with t threads is multiplied by ``speedup[t]``; an unknown thread count (or
    one not measured) is taken as one thread.
    """
    return {s: t * speedup.get(threads.get(s) or 1, 1.0) for s, t in seconds.items()}


def choose_layout(
    candidates: list[tuple[int, int]],
    speedup: dict[int, float],
    seconds: dict[str, float],
    parents: dict[str, list[str]],
) -> tuple[Layout, list[Layout]]:
    """The fastest layout and every candidate's projection (in ``candidates``' order).

    ``seconds`` are one-thread times; a chapter on a layout of t threads takes
    ``seconds / speedup[t]``; :func:`probekit.book.graph.projected_wall` schedules them on the
    layout's workers. Ties go to the candidate listed first (fewest workers, from
    :func:`layouts`).
    """
    projected = []
    for workers, threads in candidates:
        scaled = {s: t / speedup[threads] for s, t in seconds.items()}
        projected.append(Layout(workers, threads, graph.projected_wall(scaled, parents, workers)))
    best = min(projected, key=lambda lay: lay.wall)  # min keeps the first of equals
    return best, projected


def machine_key() -> str:
    """CPU model, cores this process may use and torch version: what the speedups depend on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model} | {graph.available_cores()} cores | torch {torch.__version__}"


def _workload_seconds(threads: int, steps: int, width: int, repeats: int = 3) -> float:
    """Best of ``repeats`` timings of ``steps`` training steps of a seeded MLP.

    On ``threads`` torch threads; the caller restores the thread count.
    """
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(512, width, generator=gen)
    y = torch.randint(0, 32, (512,), generator=gen)
    best = float("inf")
    for _ in range(repeats):
        torch.manual_seed(0)
        net = torch.nn.Sequential(
            torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 32)
        )
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        start = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        best = min(best, time.perf_counter() - start)
    return best


def measure_speedups(
    thread_counts: list[int], steps: int = 40, width: int = 384, rounds: int = 3
) -> dict[int, float]:
    """Speedup of the workload at each thread count over one thread (1 -> 1.0).

    Runs in this process with torch's thread count restored afterwards. The thread counts take
    turns for ``rounds`` rounds, each keeping its best time, so that a passing disturbance does
    not land on one count only. ``steps`` and ``width`` (384: the default encoder's hidden size)
    set its length: a few seconds by default.
    """
    before = torch.get_num_threads()
    counts = sorted(set(thread_counts) | {1})
    best = dict.fromkeys(counts, float("inf"))
    try:
        for _ in range(rounds):
            for k in counts:
                best[k] = min(best[k], _workload_seconds(k, steps, width, repeats=1))
    finally:
        torch.set_num_threads(before)
    return {k: best[1] / best[k] for k in counts}


BUSY_CORES = 0.5
"""Cores' worth of CPU that other processes may use while :func:`calibrate_threads` measures and still
have the result cached. More threads than free cores make torch's threads wait on each other
(on a 2-core machine with one core busy, a measured "speedup" of 0.03 at 2 threads), which says
nothing about a build that has the machine to itself."""


def busy_cores(window: float = 0.5) -> float | None:
    """Cores' worth of CPU that all processes used over the next ``window`` seconds.

    From ``/proc/stat``, while this process sleeps; None where there is no ``/proc/stat``.
    """

    def sample() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # all jiffies, idle + iowait

    try:
        total0, idle0 = sample()
        time.sleep(window)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    if total1 == total0:
        return 0.0
    return (1 - (idle1 - idle0) / (total1 - total0)) * (os.cpu_count() or 1)


def calibrate_threads(
    thread_counts: list[int],
    build_dir: Path,
    steps: int = 40,
    width: int = 384,
    log: Any = print,
) -> dict[int, float]:
    """This machine's speedups at ``thread_counts`` (:func:`measure_speedups`), cached.

    The cache, ``build_dir / CACHE`` (JSON, written atomically), holds one entry per
    :func:`machine_key`; only thread counts it lacks are measured. A measurement taken while
    other processes kept more than :data:`BUSY_CORES` busy is used for this build but not cached
    (and ``log`` says so), so that the next build on a quiet machine measures again.
    """
    f = Path(build_dir) / CACHE
    cache: dict[str, Any] = {}
    if f.is_file():
        try:
            cache = json.loads(f.read_text())
        except ValueError:  # a damaged cache is measured again
            cache = {}
    key = machine_key()
    known = {int(k): float(v) for k, v in (cache.get(key) or {}).get("speedup", {}).items()}
    wanted = set(thread_counts) | {1}
    if wanted <= set(known):
        return {k: known[k] for k in sorted(wanted)}
    busy = busy_cores()
    measured = measure_speedups(sorted(wanted - set(known)), steps, width)
    if busy is not None and busy > BUSY_CORES:
        log(
            f"thread speedup measured while other processes used {busy:.1f} cores: "
            f"used for this build, not cached in {f}"
        )
        return {k: {**known, **measured}[k] for k in sorted(wanted)}
    known.update(measured)
    cache[key] = {"speedup": {str(k): v for k, v in sorted(known.items())}}
    f.parent.mkdir(parents=True, exist_ok=True)
    tmp = f.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True))
    os.replace(tmp, f)
    return {k: known[k] for k in sorted(wanted)}


def fastest_layout(
    seconds: dict[str, float],
    threads: dict[str, int | None],
    parents: dict[str, list[str]],
    build_dir: Path,
    log: Any = print,
    cores: int | None = None,
) -> Layout:
    """The measured-fastest layout on this machine for tasks of recorded wall ``seconds``.

    ``threads`` are the threads each task's time was recorded with, ``parents`` the task graph
    (task -> the tasks it waits for). The speedups are :func:`calibrate_threads`' (cached in
    ``build_dir``), the projections :func:`choose_layout`'s; logs one line with the speedups and
    every projection.
    """
    cores = cores or graph.available_cores()
    candidates = layouts(cores)
    counts = {t for _, t in candidates} | {t for t in threads.values() if t and t <= cores}
    speedup = calibrate_threads(sorted(counts), build_dir, log=log)
    base = one_thread_seconds(seconds, threads, speedup)
    best, projected = choose_layout(candidates, speedup, base, parents)
    shown = ", ".join(f"{k} threads {v:.2f}x" for k, v in speedup.items() if k > 1)
    options = ", ".join(f"{p.workers}x{p.threads} {p.wall / 60:.1f} min" for p in projected)
    log(
        f"workers auto: {best.workers} workers x {best.threads} threads (measured speedup "
        f"{shown or 'none: one core'}; projected {options})"
    )
    return best


def auto_layout(
    slugs: list[str], profile: str, paths: Any, log: Any = print, cores: int | None = None
) -> Layout:
    """``--workers auto``: the measured-fastest layout for building ``slugs`` on this machine.

    :func:`fastest_layout` of the chapter graph, from the chapters' expected times under
    ``profile`` (:func:`probekit.book.graph.expected_seconds`) and the threads they were
    recorded with.
    """
    return fastest_layout(
        graph.expected_seconds(slugs, profile, paths),
        graph.recorded_threads(slugs, profile, paths),
        graph.chapter_graph(slugs, paths),
        paths.root / "build",
        log,
        cores,
    )
