"""A warm-cache re-run of chapter 01 against its cold run, and the cost of the up-to-date check.

Baseline: the cold run, ``probekit run 01 --force`` with an empty embedding cache (it embeds
every sentence it probes). Ours: the same command again with the cache left warm, which re-executes
the whole notebook but reads the embeddings from the memory-mapped cache. A third number shows the
runner's content-hash check: the same command without ``--force`` is skipped as up to date. A
fourth is what ``probekit book`` spends before running anything: planning every chapter of the
table of contents (parameters checked, inputs resolved, each chapter's import graph read and
hashed).

Prints ``warm / cold`` (aim <= 0.15) and ``up-to-date check / cold``. Profile ``book``
(``--quick``: profile ``quick``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from probekit.book.build import stale_chapters
from probekit.book.runner import Paths, run_chapter, toc_chapters


def main() -> None:
    """Time the three runs of chapter 01 and the plan of the whole book; print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    profile = "quick" if args.quick else "book"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory() as cache:
        os.environ["PROBEKIT_CACHE"] = cache
        quiet = {"log": lambda message: None}
        times = {}
        for label, force in (("cold", True), ("warm", True), ("up to date", False)):
            start = time.perf_counter()
            run_chapter("01", profile, force=force, **quiet)
            times[label] = time.perf_counter() - start
        paths = Paths()
        slugs = toc_chapters(paths.root)
        start = time.perf_counter()
        stale_chapters(slugs, profile, paths)
        plan = time.perf_counter() - start
    print(f"chapter 01, profile {profile}")
    for label, seconds in times.items():
        print(f"{label + ':':<12} {seconds:7.2f} s")
    print(f"warm re-run / cold run: {times['warm'] / times['cold']:.3f}")
    print(f"up-to-date check / cold run: {times['up to date'] / times['cold']:.4f}")
    print(f"planning the book ({len(slugs)} chapters): {plan:.2f} s")


if __name__ == "__main__":
    main()
