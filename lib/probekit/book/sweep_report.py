"""The "Sweep reports" page: chosen saved results of a sweep plotted across its grid.

``probekit sweep FILE --report`` writes ``build/sweeps/<name>/report.md`` (a MyST fragment: the
grid, a figure, one table per plotted key) and ``report.png`` beside it, and refreshes
``book/_generated/sweeps.md``, which the hand-written page ``book/sweeps.md`` includes. Every
book build rewrites that page too (:func:`book_page`, called by
:func:`probekit.book.build.write_generated`): the fragments of every reported sweep, or a line
saying that no sweep has been reported, so the page builds without warnings either way.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import matplotlib.pyplot as plt
import pandas as pd

from probekit.book.provenance import code_cell, text_cell
from probekit.errors import ProbekitError
from probekit.experiments import plots

if TYPE_CHECKING:
    from probekit.book.runner import Paths


class ReportedSweep(Protocol):
    """What a report reads of a sweep (:class:`probekit.book.sweep.Sweep`)."""

    name: str
    profile: str
    chapters: list[str]
    grid: dict[str, list[Any]]
    prepare: list[Any]

    def cells(self) -> list[Any]:
        """The grid's points, each with its ``id`` and ``values``."""


@dataclass(frozen=True)
class ReportKey:
    """A saved result the report plots across the grid.

    ``key`` is a key of the chapter's saved results, or the prefix of an interval saved as
    ``<key>_estimate``, ``<key>_low`` and ``<key>_high``; values are multiplied by ``scale``.
    ``x`` is the grid parameter on the horizontal axis (default: the first).
    """

    chapter: str
    key: str
    label: str
    scale: float = 1.0
    x: str | None = None


REPORT = "report.md"
FIGURE = "report.png"
NO_SWEEP = (
    "No sweep has been reported in this build.\n"
    "`probekit sweep FILE --report` adds one here ({ref}`sec-rerun-sweeps`)."
)


def is_reported(out: Path) -> bool:
    """Whether the sweep whose directory is ``out`` has been added to the book."""
    return (out / REPORT).is_file()


def shown(value: Any) -> str:
    """A grid value as the report shows it: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def report_values(sweep: ReportedSweep, table: pd.DataFrame, entry: ReportKey) -> pd.DataFrame:
    """One row per cell (grid order): the grid values shown, ``estimate``, ``low``, ``high``.

    From the results table of :func:`probekit.book.sweep.collate`. The values are the saved
    ``<key>_estimate/_low/_high`` of an interval, or the saved ``<key>`` (``low`` and ``high``
    NaN), times ``entry.scale``. A key no cell saved, or a value that is not a number, is an error
    naming it.
    """
    rows = table[table["chapter"] == entry.chapter]
    saved = set(rows["key"])
    if f"{entry.key}_estimate" in saved:
        parts = {"estimate": "_estimate", "low": "_low", "high": "_high"}
    elif entry.key in saved:
        parts = {"estimate": ""}
    else:
        intervals = {k.removesuffix("_estimate") for k in saved if k.endswith("_estimate")}
        near = difflib.get_close_matches(entry.key, sorted(saved | intervals), n=3)
        raise ProbekitError(
            f"report key '{entry.key}': {entry.chapter} saved no such result in sweep {sweep.name}",
            hint=f"did you mean {', '.join(near)}?"
            if near
            else "see build/sweeps/<name>/results.csv",
        )
    out = []
    for cell in sweep.cells():
        mine = rows[rows["cell"] == cell.id].set_index("key")["value"]
        row: dict[str, Any] = {p: shown(v) for p, v in cell.values.items()}
        for part, suffix in parts.items():
            raw = mine.get(entry.key + suffix)
            try:
                row[part] = float(raw) * entry.scale
            except (TypeError, ValueError):
                raise ProbekitError(
                    f"report key '{entry.key + suffix}' of {entry.chapter} is not a number in the "
                    f"cell {cell.id}: {raw!r}"
                ) from None
        out.append(row)
    frame = pd.DataFrame(out)
    for part in ("low", "high"):
        if part not in frame:
            frame[part] = math.nan
    return frame


def _level(table: pd.DataFrame, entry: ReportKey) -> str:
    """The interval's level in words ("90 % interval"), from the saved ``<key>_level``."""
    levels = table[(table["chapter"] == entry.chapter) & (table["key"] == f"{entry.key}_level")]
    values = {float(v) for v in levels["value"]}
    return f"{100 * values.pop():.0f} % interval" if len(values) == 1 else "interval"


def report_figure(sweep: ReportedSweep, frames: list[tuple[ReportKey, pd.DataFrame]]):
    """One panel per plotted key: the estimate of every cell with its interval.

    The ``x`` grid parameter (default: the first) runs along the horizontal axis; the other grid
    parameters' combinations are the colours, side by side at each x value.
    """
    plots.use_style()
    fig, axes = plt.subplots(
        len(frames), 1, figsize=(plots.WIDTH, 2.8 * len(frames)), squeeze=False
    )
    for ax, (entry, frame) in zip(axes[:, 0], frames, strict=True):
        x = entry.x or next(iter(sweep.grid))
        others = [p for p in sweep.grid if p != x]
        hue = (
            frame[others].apply(lambda r: ", ".join(r), axis=1)
            if others
            else pd.Series([""] * len(frame))
        )
        xs = [shown(v) for v in sweep.grid[x]]
        groups = list(dict.fromkeys(hue))
        width = 0.6 / len(groups)
        for j, (group, color) in enumerate(zip(groups, plots.colors(len(groups)), strict=True)):
            sub = frame[hue == group]
            at = [xs.index(v) + (j - (len(groups) - 1) / 2) * width for v in sub[x]]
            err = [sub["estimate"] - sub["low"], sub["high"] - sub["estimate"]]
            has_err = not sub["low"].isna().all()
            ax.errorbar(
                at,
                sub["estimate"],
                yerr=err if has_err else None,
                fmt="o",
                color=color,
                capsize=3,
                label=group or None,
            )
        ax.set_xticks(range(len(xs)), xs)
        ax.set_xlim(-0.5, len(xs) - 0.5)
        ax.set(xlabel=x, ylabel=entry.label, title=entry.chapter)
        low, high = ax.get_ylim()
        if low < 0 < high:
            ax.axhline(0, color="0.5", linewidth=0.8, zorder=0)
        if others:
            ax.legend(title=", ".join(others), fontsize="small")
    return fig


def _fmt(value: float) -> str:
    return f"{value:.3g}"


def report_markdown(
    sweep: ReportedSweep,
    table: pd.DataFrame,
    frames: list[tuple[ReportKey, pd.DataFrame]],
    figure: str,
) -> str:
    """The sweep's section of the "Sweep reports" page (MyST; one sentence per line).

    ``figure``: the figure's path from the project root (Sphinx reads ``/path`` from there).
    """
    n_cells = len(sweep.cells())
    chapters = ", ".join(f"`{c}`" for c in sweep.chapters)
    lines = [
        f"(sec-sweep-{sweep.name})=",
        f"## Sweep `{sweep.name}`",
        "",
        f"The sweep `{sweep.name}` ran the chapters {chapters} under the profile "
        f"**{sweep.profile}** on every combination of the values below, {n_cells} cells in all.",
        "Its cells are not the chapters of this book: each ran in its own directory under "
        f"`build/sweeps/{sweep.name}/`.",
        "",
        "| parameter | values |",
        "|---|---|",
        *(
            f"| `{p}` | {', '.join(code_cell(shown(v)) for v in values)} |"
            for p, values in sweep.grid.items()
        ),
        "",
    ]
    for step in sweep.prepare:
        lines.append(
            f"The treebank `{step.name}` is the Jabberwocky version of `{step.treebank}` "
            f"(its {step.split} split with {100 * step.rate:g} % of the eligible words replaced "
            f"by pseudowords, seed {step.seed}), made before the cells ran."
        )
    if sweep.prepare:
        lines.append("")
    n_rows = len(table)
    lines += [
        f"The table `build/sweeps/{sweep.name}/results.csv` holds every saved result of every "
        f"cell, {n_rows:,d} rows (cell, chapter and key).",
        "",
    ]
    if not frames:
        return "\n".join(lines)
    levels = {_level(table, e) for e, f in frames if not f["low"].isna().all()}
    bars = f"bars are the chapters' {levels.pop()}s" if len(levels) == 1 else "bars are intervals"
    lines += [
        f"```{{figure}} {figure}",
        f":name: fig-sweep-{sweep.name}",
        f":alt: {', '.join(text_cell(e.label) for e, _ in frames)} for each cell of the sweep",
        "",
        f"Saved results of the sweep `{sweep.name}`, one point per cell; {bars}, where the "
        "chapter saved one.",
        "```",
        "",
    ]
    for entry, frame in frames:
        lines += [
            f"{text_cell(entry.label)}, from the saved `{entry.key}` of `{entry.chapter}`"
            + (f" (times {entry.scale:g})" if entry.scale != 1 else "")
            + ":",
            "",
            "| " + " | ".join(f"`{p}`" for p in sweep.grid) + f" | {text_cell(entry.label)} |",
            "|" + "---|" * (len(sweep.grid) + 1),
        ]
        for _, row in frame.iterrows():
            value = _fmt(row["estimate"])
            if not math.isnan(row["low"]):
                value += f" ({_fmt(row['low'])} to {_fmt(row['high'])})"
            cells = " | ".join(code_cell(row[p]) for p in sweep.grid)
            lines.append(f"| {cells} | {value} |")
        lines.append("")
    return "\n".join(lines)


def write_report(sweep: ReportedSweep, table: pd.DataFrame, out: Path, paths: Paths) -> Path:
    """Write the sweep's ``report.md`` and ``report.png`` into ``out`` and refresh the page.

    Returns the fragment's path.
    """
    frames = [(entry, report_values(sweep, table, entry)) for entry in sweep.report]
    figure = out / FIGURE
    if frames:
        fig = report_figure(sweep, frames)
        tmp = figure.with_suffix(f".{os.getpid()}.png")
        fig.savefig(tmp)
        plt.close(fig)
        os.replace(tmp, figure)
    else:
        figure.unlink(missing_ok=True)
    text = report_markdown(sweep, table, frames, "/" + figure.relative_to(paths.root).as_posix())
    _write(out / REPORT, text)
    write_book_page(paths)
    return out / REPORT


def book_page(root: Path) -> str:
    """The included part of the "Sweep reports" page: every reported sweep, by name."""
    parts = []
    for fragment in sorted((root / "build" / "sweeps").glob(f"*/{REPORT}")):
        text = fragment.read_text()
        # A fragment whose figure is gone would break the build (warnings are errors): skip it.
        if "```{figure}" in text and not (fragment.parent / FIGURE).is_file():
            continue
        parts.append(text)
    return "\n".join(parts) if parts else NO_SWEEP


def write_book_page(paths: Paths) -> Path:
    """Write ``book/_generated/sweeps.md`` (:func:`book_page`)."""
    target = paths.generated / "sweeps.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    _write(target, book_page(paths.root))
    return target


def _write(target: Path, text: str) -> None:
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text.rstrip("\n") + "\n")
    os.replace(tmp, target)
