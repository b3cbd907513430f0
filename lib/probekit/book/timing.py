"""The chapters' measured run times per profile, and the ``full`` profile's order of magnitude.

Every number on this page is a measurement or a ratio of parameters, not a fitted forecast: each
chapter's last run time under the ``quick`` and ``book`` profiles
(:func:`probekit.book.graph.recorded_seconds`: this checkout's manifest, else
``params/run_times.yml``), and, for ``full``, which is not timed on a laptop, the factor by which
it multiplies the chapter's runs (:data:`COUNTS`) applied to the book's time: an order of
magnitude for the extra runs alone (a count may multiply most of a chapter's work but not all of
it), beside the largest factor by which ``full`` raises a step cap (:func:`cap_factor`). Whole
splits, larger batches and higher caps multiply the time again, by an amount early stopping
decides.
"""

from __future__ import annotations

from typing import Any

from probekit.book import graph
from probekit.book.params import effective_parameters
from probekit.book.runner import Paths, toc_chapters

PROFILES = ("quick", "book")
"""The profiles whose chapters are timed on the machines the book is built on."""

COUNTS = ("seeds", "n_configs", "n_probes", "n_trials", "n_cases", "pilot_repeats", "n_sim")
"""Parameters that count a chapter's independent runs (or simulated cases): its work grows
linearly in each, whatever the data size and stopping rule."""


def count_of(value: Any) -> int:
    """How many runs a count parameter asks for: a list's length, else the number."""
    return len(value) if isinstance(value, list | tuple) else int(value)


def run_factor(book: dict[str, Any], full: dict[str, Any]) -> tuple[float, str]:
    """The largest factor by which ``full`` multiplies a count of runs, and the parameter.

    ``book`` and ``full`` are a chapter's effective parameters; (1.0, "") where ``full`` raises
    no count. The largest factor alone, not the product: counts may multiply different runs.
    """
    factor, name = 1.0, ""
    for key in COUNTS:
        if key in book and count_of(book[key]) > 0:
            ratio = count_of(full[key]) / count_of(book[key])
            if ratio > factor:
                factor, name = ratio, key
    return factor, name


def cap_factor(book: dict[str, Any], full: dict[str, Any]) -> float:
    """The largest factor by which ``full`` raises a step cap; 1 if it raises none.

    Caps are the integer parameters named ``*_steps`` or ``*_updates``.
    """
    ratios = [
        full[key] / book[key]
        for key in book
        if key.endswith(("_steps", "_updates")) and isinstance(book[key], int) and book[key] > 0
    ]
    return max([1.0, *ratios])


def timing_section(paths: Paths) -> str:
    """Markdown: the measured times per chapter and profile, and the ``full`` profile's floor."""
    slugs = toc_chapters(paths.root)
    seconds = {p: graph.recorded_seconds(slugs, p, paths) for p in PROFILES}
    rows = [
        "| chapter | " + " | ".join(f"`{p}` (s)" for p in PROFILES) + " | `full`: runs x |",
        "|---|" + "---|" * len(PROFILES) + "---|",
    ]
    full_seconds, caps, unknown = 0.0, 1.0, []
    for slug in slugs:
        nb = paths.notebooks / f"{slug}.py"
        book = effective_parameters(nb, "book", profiles_dir=paths.profiles)
        full = effective_parameters(nb, "full", profiles_dir=paths.profiles)
        factor, name = run_factor(book, full)
        caps = max(caps, cap_factor(book, full))
        if seconds["book"][slug] is None:
            unknown.append(f"`{slug}`")
        else:
            full_seconds += seconds["book"][slug] * factor
        times = " | ".join(
            "–" if seconds[p][slug] is None else f"{seconds[p][slug]:.0f}" for p in PROFILES
        )
        shown = f"{factor:.3g} (`{name}`)" if name else "1"
        rows.append(f"| `{slug}` | {times} | {shown} |")
    book_total = sum(t for t in seconds["book"].values() if t is not None)
    missing = f" (without {', '.join(unknown)}, never timed under `book`)" if unknown else ""
    return "\n".join(
        [
            "Each chapter's last measured run time under the `quick` and `book` profiles, in "
            "wall seconds of one kernel (this checkout's runs, else those recorded in "
            "`params/run_times.yml`). The `full` profile is not timed here. Its last column "
            "is the largest factor by which it multiplies a chapter's runs (seeds, "
            "architectures, probes, trials or simulated cases); the book's "
            f"{book_total / 3600:.1f} hours of chapter time{missing}, each chapter's time "
            f"times that factor, come to some {full_seconds / 3600:,.0f} CPU-hours for the extra "
            "runs alone. "
            "`full` also trains on whole splits, with its own batch sizes, and raises step caps "
            f"up to {caps:.3g} times the book's, which multiply that again: run it on a GPU "
            "(`device=cuda`) or a Dask cluster (`--scheduler`).",
            "",
            *rows,
            "",
        ]
    )
