"""An estimate of the ``full`` profile's CPU-hours per chapter.

From the timed ``quick`` and ``book`` runs. Each chapter declares in ``params/cost_model.yml`` (:data:`COST_MODEL`) which parameter measures
its data (``size``, mostly training sentences) and which parameters multiply its work linearly
(``counts``: seeds, probes, configurations, layers, epochs). With ``c`` the product of the counts
and ``n`` the size under a profile, and ``T`` a run's CPU-seconds (wall seconds times the
kernel's threads, an upper bound on the CPU it used):

    b = log((T_book / c_book) / (T_quick / c_quick)) / log(n_book / n_quick),  clipped to [0.5, 2]

    T_full = T_book * (c_full / c_book) * (n_full / n_book) ** b

``b = 1`` where the quick and book runs have the same size (nothing to fit). A chapter whose
``full`` parameters equal its ``book`` ones costs ``T_book``. Whatever else differs between the
profiles is not modelled: between ``quick`` and ``book`` the fitted ``b`` absorbs it, between
``book`` and ``full`` it is listed beside the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from probekit.book import graph
from probekit.book.params import effective_parameters
from probekit.book.runner import Paths, toc_chapters

COST_MODEL = "cost_model.yml"
"""The chapters' declared size and count parameters, in the profiles' directory."""

EXPONENT_RANGE = (0.5, 2.0)
"""Fitted size exponents are clipped to this range: two timed sizes, with fixed overheads and
parameters the counts do not cover, can suggest growth slower than square-root or faster than
quadratic, which no chapter's algorithms have."""


def load_cost_model(paths: Paths) -> dict[str, Any]:
    """:data:`COST_MODEL` as a dict (``whole``, ``empty``, ``chapters``); empty where missing."""
    f = paths.profiles / COST_MODEL
    data = (yaml.safe_load(f.read_text()) or {}) if f.is_file() else {}
    return {
        "whole": data.get("whole") or {},
        "empty": data.get("empty") or {},
        "chapters": data.get("chapters") or {},
    }


def size_of(value: Any, zero: str | None, model: dict[str, Any]) -> float:
    """A size parameter's value as a number.

    An int counts itself, 0 the sentences of the split ``zero`` names; a list sums its entries
    that way; a string names a split (its sentences).
    """
    whole = model["whole"]
    if isinstance(value, str):
        return float(whole[value])
    if isinstance(value, (list, tuple)):
        return float(sum(size_of(v, zero, model) for v in value))
    if value == 0 and zero is not None:
        return float(whole[zero])
    return float(value)


def count_of(names: list[Any], params: dict[str, Any], model: dict[str, Any]) -> float:
    """The product of the count parameters ``names`` under ``params``.

    An int counts its value and a list its length (an empty list what ``empty`` declares for
    that name); a nested list of names adds its members' counts.
    """
    total = 1.0
    for name in names:
        if isinstance(name, list):
            total *= sum(count_of([n], params, model) for n in name)
            continue
        value = params[name]
        if isinstance(value, (list, tuple)):
            total *= len(value) or model["empty"].get(name, 1)
        else:
            total *= float(value)
    return total


def fit_exponent(
    t_quick: float,
    t_book: float,
    counts: tuple[float, float],
    sizes: tuple[float, float],
    bounds: tuple[float, float] = EXPONENT_RANGE,
) -> tuple[float, str]:
    """The size exponent ``b`` from two timed runs, and how it was found.

    ``t_quick`` and ``t_book`` are CPU-seconds, ``counts`` and ``sizes`` the (quick, book)
    count products and sizes. ``b`` solves ``t_book / c_book = (t_quick / c_quick) *
    (n_book / n_quick) ** b``, clipped to ``bounds``. Returns ``(b, note)``, the note being
    "fitted", "clipped from <b>" or "same size: 1".
    """
    (c_quick, c_book), (n_quick, n_book) = counts, sizes
    if n_quick == n_book:
        return 1.0, "same size: 1"
    b = math.log((t_book / c_book) / (t_quick / c_quick)) / math.log(n_book / n_quick)
    lo, hi = bounds
    if b < lo or b > hi:
        return min(max(b, lo), hi), f"clipped from {b:.2f}"
    return b, "fitted"


def project_full(t_book: float, count_ratio: float, size_ratio: float, b: float) -> float:
    """``T_full = T_book * (c_full / c_book) * (n_full / n_book) ** b``."""
    return t_book * count_ratio * size_ratio**b


@dataclass
class ChapterCost:
    """One chapter's row of the estimate.

    ``full_seconds`` (CPU-seconds) is None, with a ``reason``, when there is no estimate.
    """

    chapter: str
    quick_s: float | None
    book_s: float | None
    sizes: dict[str, float] = field(default_factory=dict)  # profile -> size
    exponent: float | None = None
    how: str = ""
    full_seconds: float | None = None
    reason: str = ""
    unmodelled: list[str] = field(default_factory=list)  # book vs full differences


def _declared(decl: dict[str, Any]) -> set[str]:
    names = {decl["size"]} if decl.get("size") else set()
    for c in decl.get("counts") or []:
        names |= set(c) if isinstance(c, list) else {c}
    return names


def chapter_cost(
    slug: str,
    params: dict[str, dict[str, Any]],
    seconds: dict[str, float | None],
    threads: dict[str, int | None],
    model: dict[str, Any],
) -> ChapterCost:
    """The estimate for one chapter.

    ``params``, ``seconds`` (wall) and ``threads`` are keyed by profile (quick, book, full).
    """
    quick, book = seconds.get("quick"), seconds.get("book")
    row = ChapterCost(slug, quick, book)
    decl = model["chapters"].get(slug)
    ignored = {"device"}  # where a chapter runs, not how much work it does
    differ = [
        k for k in params["book"] if k not in ignored and params["full"][k] != params["book"][k]
    ]
    if not book:  # None, or a time that rounded to 0 s
        row.reason = "no timed `book` run"
        return row
    if not quick:
        row.quick_s = quick = None
    cpu_book = book * (threads.get("book") or 1)
    if not differ:
        row.full_seconds, row.how = cpu_book, "same parameters as `book`"
        return row
    if decl is None:
        row.reason = f"no declaration in params/{COST_MODEL}"
        return row
    row.unmodelled = [k for k in differ if k not in _declared(decl)]
    counts = {p: count_of(decl.get("counts") or [], params[p], model) for p in params}
    if decl.get("size"):
        row.sizes = {p: size_of(params[p][decl["size"]], decl.get("zero"), model) for p in params}
    elif decl.get("unknown_size"):
        row.reason = f"data size not declared: {decl['unknown_size']}"
        return row
    # No size parameter: the work is the counts alone.
    n = row.sizes or dict.fromkeys(params, 1.0)
    if n["full"] == n["book"]:
        row.exponent, row.how = None, "same size as `book`"
    elif quick is None:
        row.reason = "no timed `quick` run to fit the size exponent"
        return row
    else:
        cpu_quick = quick * (threads.get("quick") or 1)
        row.exponent, row.how = fit_exponent(
            cpu_quick, cpu_book, (counts["quick"], counts["book"]), (n["quick"], n["book"])
        )
    row.full_seconds = project_full(
        cpu_book, counts["full"] / counts["book"], n["full"] / n["book"], row.exponent or 1.0
    )
    return row


def full_profile_costs(paths: Paths) -> list[ChapterCost]:
    """Every toc chapter's estimate.

    From the recorded times (:mod:`probekit.book.graph`) and the profiles' parameters.
    """
    slugs = toc_chapters(paths.root)
    model = load_cost_model(paths)
    profiles = ("quick", "book", "full")
    seconds = {p: graph.recorded_seconds(slugs, p, paths) for p in profiles}
    threads = {p: graph.recorded_threads(slugs, p, paths) for p in profiles}
    rows = []
    for slug in slugs:
        nb = paths.notebooks / f"{slug}.py"
        params = {p: effective_parameters(nb, p, profiles_dir=paths.profiles) for p in profiles}
        rows.append(
            chapter_cost(
                slug,
                params,
                {p: seconds[p][slug] for p in profiles},
                {p: threads[p][slug] for p in profiles},
                model,
            )
        )
    return rows


def _num(x: float | None, fmt: str = "{:.0f}") -> str:
    return "–" if x is None else fmt.format(x)


def cost_markdown(rows: list[ChapterCost], encoder_note: str = "") -> str:
    """Markdown: the rows as a table, their total and the chapters without an estimate."""
    lines = [
        "| chapter | quick (s) | book (s) | size quick / book / full | b | how | "
        "full (CPU-h) | not modelled |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total, missing = 0.0, {}  # reason -> chapters
    for r in rows:
        sizes = " / ".join(_num(r.sizes.get(p)) for p in ("quick", "book", "full"))
        cell = _num(None if r.full_seconds is None else r.full_seconds / 3600, "{:.2f}")
        if r.full_seconds is None:
            missing.setdefault(r.reason, []).append(f"`{r.chapter}`")
        else:
            total += r.full_seconds
        lines.append(
            f"| `{r.chapter}` | {_num(r.quick_s)} | {_num(r.book_s)} | "
            f"{sizes if r.sizes else '–'} | {_num(r.exponent, '{:.2f}')} | "
            f"{r.how or 'no estimate'} | "
            f"{cell} | {', '.join(f'`{k}`' for k in r.unmodelled)} |"
        )
    lines.append(f"| **total** | | | | | | **{total / 3600:.1f}** | |")
    text = [
        "An estimate of the `full` profile's cost, chapter by chapter, from each chapter's last "
        "timed runs under the `quick` and `book` profiles (this checkout's, else those recorded "
        "in `params/run_times.yml`). The times are wall seconds of one kernel; CPU-seconds are "
        "those times the threads the kernel had, an upper bound. Each chapter "
        f"declares in `params/{COST_MODEL}` the parameter that measures its data (its size: "
        "training sentences, mostly, with 0 resolved to the whole split) and the parameters that "
        "multiply its work (seeds, probes, configurations, layers, epochs). The full run's time "
        "is the book run's, times the ratio of those counts, times the ratio of the sizes to the "
        "power *b*; *b* comes from the quick and book runs after dividing out their counts, "
        f"clipped to [{EXPONENT_RANGE[0]:g}, {EXPONENT_RANGE[1]:g}], and is 1 where the two runs "
        "had the same size. Parameters that `full` changes but the model does not cover (caps "
        "on training steps, batch sizes, patience) are listed in the last column: those "
        "estimates are of the declared growth only. Where counts add rather than multiply, the "
        "estimate leans high. A quick run is short, so fixed costs (starting the kernel, "
        "loading the encoder and the treebank) weigh more in it than in the book run and pull "
        "*b* down: where *b* sits at the lower clip the estimate may be low.",
        "",
        *lines,
        "",
    ]
    if missing:
        groups = [f"{', '.join(slugs)} ({reason})" for reason, slugs in missing.items()]
        text += ["No estimate (not in the total): " + "; ".join(groups) + ".", ""]
    if encoder_note:
        text += [encoder_note, ""]
    return "\n".join(text)


def encoder_note(paths: Paths) -> str:
    """A sentence on the encoder the ``full`` profile uses, from the profiles."""
    changed = []
    for slug in toc_chapters(paths.root):
        nb = paths.notebooks / f"{slug}.py"
        book = effective_parameters(nb, "book", profiles_dir=paths.profiles)
        full = effective_parameters(nb, "full", profiles_dir=paths.profiles)
        for key in ("model", "models"):
            if key in book and full[key] != book[key]:
                changed.append(f"`{slug}` (`{key}`: {full[key]})")
    if not changed:
        return (
            "The `full` profile keeps every chapter's encoder, so the times above and the "
            "estimate share one encoder's cost."
        )
    return (
        "The `full` profile changes the encoder of " + ", ".join(changed) + ". The estimate is "
        "for the cost structure of the encoder the timed runs used; a larger encoder's forward "
        "passes cost more, by an amount these runs do not measure."
    )


def full_cost_page(paths: Paths) -> str:
    """The estimate's section of the workers page (:func:`probekit.book.build.workers_projection`)."""
    return cost_markdown(full_profile_costs(paths), encoder_note(paths))
