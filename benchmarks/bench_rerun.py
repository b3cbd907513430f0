"""A warm-cache re-run of chapter 01 against its cold run.

Baseline: the cold run, ``probekit run 01 --force`` with an empty embedding cache (it embeds
every sentence it probes). Ours: the same command again with the cache left warm, which re-executes
the whole notebook but reads the embeddings from the memory-mapped cache. A third number shows the
runner's content-hash check: the same command without ``--force`` is skipped as up to date.

Prints ``warm / cold`` (aim <= 0.15) and ``up-to-date check / cold``. Profile ``book``
(``--quick``: profile ``quick``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    profile = "quick" if args.quick else "book"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from probekit.book.runner import run_chapter

    with tempfile.TemporaryDirectory() as cache:
        os.environ["PROBEKIT_CACHE"] = cache
        quiet = {"log": lambda message: None}
        times = {}
        for label, force in (("cold", True), ("warm", True), ("up to date", False)):
            start = time.perf_counter()
            run_chapter("01", profile, force=force, **quiet)
            times[label] = time.perf_counter() - start
    print(f"chapter 01, profile {profile}")
    for label, seconds in times.items():
        print(f"{label + ':':<12} {seconds:7.2f} s")
    print(f"warm re-run / cold run: {times['warm'] / times['cold']:.3f}")
    print(f"up-to-date check / cold run: {times['up to date'] / times['cold']:.4f}")


if __name__ == "__main__":
    main()
