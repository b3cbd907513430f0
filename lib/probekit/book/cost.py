"""An estimate of the ``full`` profile's CPU-hours per chapter.

From the timed ``quick`` and ``book`` runs. Each chapter declares in ``params/cost_model.yml``
(:data:`COST_MODEL`) which parameter measures its data (``size``, mostly training sentences; for
the data-size chapters 51-53 ``subsets``, the training examples over all their subsets,
:func:`subsets_size`), which parameters multiply its work linearly (``counts``: seeds, probes,
configurations, layers, epochs) and which bound the updates of each run (``caps``: step caps
such as ``max_steps``). With ``c`` the product of the counts and ``n``
the size under a profile, a run's time is modelled as a fixed start-up ``s`` plus work,
``T = s + W``. The work is what the counts and the size scale:

    b = log((W_book / c_book) / (W_quick / c_quick)) / log(n_book / n_quick),  clipped to [0.5, 2]

    T_full = s_book + W_book * (c_full / c_book) * (n_full / n_book) ** b

    T_bound = s_book + W_book * (c_full / c_book) * (n_full / n_book) ** b * g_caps

Times are CPU-seconds: a run's wall seconds times its kernel's threads, an upper bound on the
CPU it used (the start-up too is counted at the run's threads).

The start-up ``s`` of a profile is measured, not assumed: the smallest chapter time recorded
under that profile (:func:`startup_seconds`). Every chapter pays at least that much (starting the
kernel, importing the library, reading the parameters) and the smallest chapter (an appendix
with almost no work) pays little more, so ``s`` is a lower bound on each chapter's fixed cost;
loading a chapter's own encoder or treebank beyond it still counts as work. Without the
subtraction a short ``quick`` run, mostly start-up, pulls ``b`` down. A run no longer than the
start-up has no measured work: a ``quick`` run that short gives no fit (``b = 1``, said on its
row), a ``book`` run that short no estimate.

``b = 1`` where the quick and book runs have the same size (nothing to fit). ``T_full`` is the
declared growth alone: runs that stop on their own (early stopping) do as many more updates as
the data's growth asks for, which ``b`` measures. Where ``full`` raises a cap on updates, runs
that reach their cap do more, so the row gets a second figure, ``T_bound``: ``g_caps`` is the
largest ``full / book`` ratio among the declared caps that ``full`` raises above ``book``
(:func:`cap_growth`; 1 if none). No run does more than that many times its book updates, so
``T_bound`` bounds the growth in updates from above (up to the fitted ``b``, which may itself
include some update growth: the bound leans high). The largest ratio, not their product: caps
such as ``memorise_steps`` and ``max_steps`` bound different runs. A cap that ``full`` leaves or
lowers is no growth. A chapter whose ``full`` parameters equal its ``book`` ones costs
``T_book``. Whatever else differs between the profiles is not modelled: between ``quick`` and
``book`` the fitted ``b`` absorbs it (caps included), between ``book`` and ``full`` it is listed
beside the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import yaml

from probekit.book import graph
from probekit.book.params import effective_parameters
from probekit.book.runner import Paths, toc_chapters
from probekit.methods.datasize.subsets import sizes_for_labels

COST_MODEL = "cost_model.yml"
"""The chapters' declared size, count and cap parameters (and the split and pool sizes they
resolve to), in the profiles' directory."""

EXPONENT_RANGE = (0.5, 2.0)
"""Fitted size exponents are clipped to this range: two timed sizes, with fixed overheads and
parameters the counts do not cover, can suggest growth slower than square-root or faster than
quadratic, which no chapter's algorithms have."""


def load_cost_model(paths: Paths) -> dict[str, Any]:
    """:data:`COST_MODEL` as a dict (``whole``, ``empty``, ``pools``, ``chapters``).

    Each empty where missing.
    """
    f = paths.profiles / COST_MODEL
    data = (yaml.safe_load(f.read_text()) or {}) if f.is_file() else {}
    return {key: data.get(key) or {} for key in ("whole", "empty", "pools", "chapters")}


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


def subsets_size(names: dict[str, str], params: dict[str, Any], model: dict[str, Any]) -> float:
    """Training examples over every subset of every task a data-size chapter (51-53) trains on.

    ``names`` maps ``tasks``, ``sizes``, ``eta`` and ``max_train`` to the chapter's parameters
    (``tasks`` a list or one task). Each task's pool has the examples per class that ``pools``
    declares; its subset sizes (training examples per class) are the chapter's own, from
    :func:`probekit.methods.datasize.subsets.sizes_for_labels`; a subset trains on its size times
    the classes present (what ``max_train`` caps).
    """
    tasks = params[names["tasks"]]
    total = 0.0
    for task in [tasks] if isinstance(tasks, str) else tasks:
        counts = model["pools"][task]
        y = np.repeat(np.arange(len(counts)), counts)
        sizes = sizes_for_labels(
            task,
            y,
            [str(k) for k in range(len(counts))],
            params[names["sizes"]],
            params[names["eta"]],
            params[names["max_train"]],
        )
        total += sum(sizes) * sum(c > 0 for c in counts)
    return total


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


def startup_seconds(seconds: dict[str, float | None]) -> tuple[float, str] | None:
    """A profile's measured start-up: its smallest chapter time (wall seconds) and that chapter.

    ``seconds`` are the profile's recorded chapter times (None or 0: not timed). None with fewer
    than two timed chapters: the smallest of one time is that chapter's whole run, work included.
    """
    timed = {slug: t for slug, t in seconds.items() if t}
    if len(timed) < 2:
        return None
    slug = min(timed, key=timed.__getitem__)
    return timed[slug], slug


def cap_growth(caps: list[str], book: dict[str, Any], full: dict[str, Any]) -> dict[str, float]:
    """Each of the ``caps`` that ``full`` raises above ``book`` -> the ratio ``full / book``.

    A cap that ``full`` keeps or lowers is left out: it allows no more updates than in the book
    run. Caps are positive counts of updates (a ``ValueError`` otherwise).
    """
    bad = [c for c in caps if not (book[c] > 0 and full[c] > 0)]
    if bad:
        raise ValueError(f"caps must be positive counts of updates: {bad}")
    return {c: full[c] / book[c] for c in caps if full[c] > book[c]}


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
    bound_seconds: float | None = None  # with raised caps (an upper bound); None if none raised
    reason: str = ""
    unmodelled: list[str] = field(default_factory=list)  # book vs full differences
    caps: dict[str, float] = field(default_factory=dict)  # raised caps -> full / book


def _declared(decl: dict[str, Any]) -> set[str]:
    names = {decl["size"]} if decl.get("size") else set()
    names |= set((decl.get("subsets") or {}).values())
    for c in decl.get("counts") or []:
        names |= set(c) if isinstance(c, list) else {c}
    return names | set(decl.get("caps") or [])


def chapter_cost(
    slug: str,
    params: dict[str, dict[str, Any]],
    seconds: dict[str, float | None],
    threads: dict[str, int | None],
    model: dict[str, Any],
    startup: dict[str, float | None] | None = None,
) -> ChapterCost:
    """The estimate for one chapter (module docstring).

    ``params``, ``seconds`` (wall) and ``threads`` are keyed by profile (quick, book, full);
    ``startup`` is the quick and book profiles' start-up in wall seconds
    (:func:`startup_seconds`; missing or None: no start-up subtracted).
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
    t_book, t_quick = threads.get("book") or 1, threads.get("quick") or 1
    if not differ:
        row.full_seconds, row.how = book * t_book, "same parameters as `book`"
        return row
    if decl is None:
        row.reason = f"no declaration in params/{COST_MODEL}"
        return row
    row.unmodelled = [k for k in differ if k not in _declared(decl)]
    counts = {p: count_of(decl.get("counts") or [], params[p], model) for p in params}
    if decl.get("size"):
        row.sizes = {p: size_of(params[p][decl["size"]], decl.get("zero"), model) for p in params}
    elif decl.get("subsets"):
        row.sizes = {p: subsets_size(decl["subsets"], params[p], model) for p in params}
    elif decl.get("unknown_size"):
        row.reason = f"data size not declared: {decl['unknown_size']}"
        return row
    s = {p: (startup or {}).get(p) or 0.0 for p in ("quick", "book")}
    if book <= s["book"]:
        row.reason = (
            f"start-up dominated: the `book` run took no longer than the start-up "
            f"({s['book']:.0f} s), so its work is not measured"
        )
        return row
    work_book = (book - s["book"]) * t_book
    # No size parameter: the work is the counts alone.
    n = row.sizes or dict.fromkeys(params, 1.0)
    if n["full"] == n["book"]:
        row.exponent, row.how = None, "same size as `book`"
    elif quick is None:
        row.reason = "no timed `quick` run to fit the size exponent"
        return row
    elif quick <= s["quick"]:
        row.exponent = 1.0
        row.how = (
            f"start-up dominated: no fit (quick run within the {s['quick']:.0f} s start-up), b = 1"
        )
    else:
        row.exponent, row.how = fit_exponent(
            (quick - s["quick"]) * t_quick,
            work_book,
            (counts["quick"], counts["book"]),
            (n["quick"], n["book"]),
        )
    row.caps = caps = cap_growth(decl.get("caps") or [], params["book"], params["full"])
    work_full = project_full(
        work_book, counts["full"] / counts["book"], n["full"] / n["book"], row.exponent or 1.0
    )
    row.full_seconds = s["book"] * t_book + work_full
    if caps:
        row.how += "; caps raised: " + ", ".join(f"`{c}` x{r:.3g}" for c, r in caps.items())
        row.bound_seconds = s["book"] * t_book + work_full * max(caps.values())
    return row


Startup = dict[str, tuple[float, str] | None]
"""Profile -> its measured start-up and the chapter that set it (:func:`startup_seconds`)."""


def full_profile_costs(paths: Paths) -> tuple[list[ChapterCost], Startup]:
    """Every toc chapter's estimate, and the quick and book profiles' start-up.

    From the recorded times (:mod:`probekit.book.graph`) and the profiles' parameters.
    """
    slugs = toc_chapters(paths.root)
    model = load_cost_model(paths)
    profiles = ("quick", "book", "full")
    seconds = {p: graph.recorded_seconds(slugs, p, paths) for p in profiles}
    threads = {p: graph.recorded_threads(slugs, p, paths) for p in profiles}
    startup = {p: startup_seconds(seconds[p]) for p in ("quick", "book")}
    wall = {p: v[0] if v else None for p, v in startup.items()}
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
                wall,
            )
        )
    return rows, startup


def _num(x: float | None, fmt: str = "{:.0f}") -> str:
    return "–" if x is None else fmt.format(x)


def _startup_text(startup: Startup | None) -> str:
    """The sentence stating each profile's measured start-up."""
    measured = [
        f"`{p}` {v[0]:.0f} s (`{v[1]}`)" for p, v in (startup or {}).items() if v is not None
    ]
    unknown = [f"`{p}`" for p, v in (startup or {}).items() if v is None]
    text = f"The start-up subtracted: {', '.join(measured)}." if measured else ""
    if unknown:
        text += (
            f" No start-up measured for {', '.join(unknown)} (fewer than two timed chapters): "
            "nothing subtracted there."
        )
    return text.strip()


def cost_markdown(
    rows: list[ChapterCost], encoder_note: str = "", startup: Startup | None = None
) -> str:
    """Markdown: the rows as a table, their total and the chapters without an estimate.

    ``startup``: the profiles' measured start-up (:func:`full_profile_costs`), stated in the text.
    """
    lines = [
        "| chapter | quick (s) | book (s) | size quick / book / full | b | how | "
        "full (CPU-h) | bound with caps (CPU-h) | not modelled |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total, bound, missing = 0.0, 0.0, {}  # reason -> chapters
    for r in rows:
        sizes = " / ".join(_num(r.sizes.get(p)) for p in ("quick", "book", "full"))
        hours = [
            _num(None if x is None else x / 3600, "{:.2f}")
            for x in (r.full_seconds, r.bound_seconds)
        ]
        if r.full_seconds is None:
            missing.setdefault(r.reason, []).append(f"`{r.chapter}`")
        else:
            total += r.full_seconds
            bound += r.bound_seconds or r.full_seconds
        lines.append(
            f"| `{r.chapter}` | {_num(r.quick_s)} | {_num(r.book_s)} | "
            f"{sizes if r.sizes else '–'} | {_num(r.exponent, '{:.2f}')} | "
            f"{r.how or 'no estimate'} | {hours[0]} | {hours[1]} | "
            f"{', '.join(f'`{k}`' for k in r.unmodelled)} |"
        )
    lines.append(f"| **total** | | | | | | **{total / 3600:.1f}** | **{bound / 3600:.1f}** | |")
    text = [
        "An estimate of the `full` profile's cost, chapter by chapter, from each chapter's last "
        "timed runs under the `quick` and `book` profiles (this checkout's, else those recorded "
        "in `params/run_times.yml`). The times are wall seconds of one kernel; CPU-seconds are "
        "those times the threads the kernel had, an upper bound. A run's time is a fixed "
        "start-up plus its work. The start-up is measured per profile as the smallest chapter "
        "time of that profile: every chapter pays at least that (starting the kernel, importing "
        "the library), and the smallest chapter little more, so it is a lower bound on each "
        "chapter's fixed cost (loading a chapter's encoder or treebank beyond it counts as "
        f"work). {_startup_text(startup)} Each chapter "
        f"declares in `params/{COST_MODEL}` the parameter that measures its data (its size: "
        "training sentences, mostly, with 0 resolved to the whole split; for chapters 51-53 "
        "the training examples of all their subsets, from the treebank's example counts), "
        "the parameters that "
        "multiply its work (seeds, probes, configurations, layers, epochs) and those that bound "
        "the updates of its runs (caps on training steps). The full run's time is the book run's start-up plus its work, times "
        "the ratio of those counts, times the ratio of the sizes to the power *b*; *b* comes "
        "from the work of the quick and book runs after dividing out their counts, clipped to "
        f"[{EXPONENT_RANGE[0]:g}, {EXPONENT_RANGE[1]:g}], and is 1 where the two runs had the "
        'same size or the quick run was no longer than the start-up ("start-up dominated: no '
        'fit"). That estimate assumes that runs stop on their own, after as many more updates as '
        "the data's growth asks for. Where `full` raises declared caps, a run that reaches its "
        "cap can do more: the next column multiplies the work by the largest of the raised "
        "caps' ratios, an upper bound (a run stopped early does fewer updates than its cap "
        "allows), and its total takes that bound where a row has one. "
        "Parameters that `full` changes but the model "
        "does not cover (batch sizes, patience, learning rates) are listed in the last column: "
        "those estimates are of the declared growth only. Where counts add rather than "
        "multiply, the estimate leans high. A chapter's own loading (its encoder, its "
        "treebank) stays in its work and weighs more in the short quick run, so where *b* "
        "sits at the lower clip the estimate may still be low.",
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
    rows, startup = full_profile_costs(paths)
    return cost_markdown(rows, encoder_note(paths), startup)
