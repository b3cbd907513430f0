"""The book on Dask workers against the sequential runner (issue 15).

Baseline: ``probekit book --profile quick`` without ``--workers``, every chapter one after another
in one process. Ours: the same chapters as a task graph on a local Dask cluster
(:mod:`probekit.book.graph`) with 1 worker, which prints the graph path's overhead
(``dask 1 worker / sequential``, target <= 1.10), and with 2 workers, which prints the speed-up of
running chapters side by side (``dask 2 workers / dask 1 worker``) on this machine.

Each timed build runs every chapter (a fresh copy of the project, nothing up to date) without
rendering, on an embedding cache that an untimed first build filled, so all three compare the
scheduling, not the embedding. CPU use is the children's CPU time over the wall time (2.0 = both
cores of a 2-core machine busy).

Full mode: every chapter of the table of contents under ``quick`` (about half an hour here).
``--quick``: two short independent chapters, which checks that the path works and prints the
ratios, dominated by kernel start-up.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from probekit.book.build import build_book
from probekit.book.runner import Paths, toc_chapters
from probekit.io.project import project_root
from probekit.io.treebanks import resolve_treebank

QUICK_CHAPTERS = ["11_syntactic_distance", "A1_tree_metrics"]


def _copy(root: Path, into: Path) -> Paths:
    """A project copy whose builds cannot touch the repository's chapters and results."""
    for name in ("_config.yml", "_toc.yml", "constraints.txt"):
        shutil.copy(root / name, into / name)
    for name in ("notebooks", "params", "book"):
        shutil.copytree(root / name, into / name, ignore=shutil.ignore_patterns("chapters"))
    return Paths(into)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Time the three builds and print their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    root = project_root()
    chapters = QUICK_CHAPTERS if args.quick else toc_chapters(root)
    # The copies live elsewhere: point them at the treebank mirror this checkout resolves.
    os.environ["PROBEKIT_DATA_MIRROR"] = str(resolve_treebank("UD_English-EWT").directory.parent)
    with tempfile.TemporaryDirectory() as work:
        os.environ["PROBEKIT_CACHE"] = str(Path(work) / "cache")
        quiet = {"chapters": chapters, "render": False, "log": lambda message: None}
        times, cpu = {}, {}
        for label, workers in (
            ("warm-up", None),
            ("sequential", None),
            ("dask 1 worker", 1),
            ("dask 2 workers", 2),
        ):
            (Path(work) / label).mkdir()
            paths = _copy(root, Path(work) / label)
            before, start = _children_cpu(), time.perf_counter()
            build_book("quick", paths=paths, workers=workers, **quiet)
            times[label] = time.perf_counter() - start
            # Workers' kernels are grandchildren: Dask's nanny reaps them, so their CPU time is
            # only counted where the worker processes have exited, i.e. after the build.
            cpu[label] = (_children_cpu() - before) / times[label]
    print(f"{len(chapters)} chapters, profile quick, {os.cpu_count()} cores")
    for label in ("sequential", "dask 1 worker", "dask 2 workers"):
        print(f"{label + ':':<16} {times[label]:7.1f} s   CPU use {cpu[label]:.2f}")
    print(f"dask 1 worker / sequential: {times['dask 1 worker'] / times['sequential']:.3f}")
    print(f"dask 2 workers / dask 1 worker: {times['dask 2 workers'] / times['dask 1 worker']:.3f}")


if __name__ == "__main__":
    main()
