"""Student copies of the assignment notebooks (``probekit assignments --student OUT``).

:func:`student_source` and :func:`write_student_copies` follow the clean-copy idea of
fastbook's ``tools/clean.py``: the solution code between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (nbgrader's markers) becomes ``raise NotImplementedError("Task N: your
code here")`` at the marker's indentation, the ``hide-input`` tag that hides solutions in the
book is dropped from those cells, and markdown cells tagged ``solution`` (model answers of the
run-and-interpret tasks) become an empty answer cell. Everything else, hints included, is
copied unchanged.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext

from probekit.book.runner import Paths
from probekit.errors import ParameterError, ProbekitError
from probekit.teaching.cells import task_number

SOLUTION_BEGIN = "### BEGIN SOLUTION"
SOLUTION_END = "### END SOLUTION"
ANSWER_PLACEHOLDER = "*Your answer here.*"
_ASSIGNMENT_NAME = re.compile(r"^A\d+_[A-Za-z0-9_]+\.py$")
_CELL = re.compile(r"^# %%")
_TAGS = re.compile(r"tags=(\[[^\]]*\])")
_COMMENT = re.compile(r"^#\s?")


def assignment_notebooks(notebooks_dir: str | Path | None = None) -> list[Path]:
    """The assignment notebooks ``A<k>_<slug>.py`` in a directory, sorted by name.

    Args:
        notebooks_dir: the directory; None for the repository's ``notebooks/``.

    Raises:
        ProbekitError: when the directory holds no assignment notebook.
    """
    source_dir = Path(notebooks_dir) if notebooks_dir is not None else Paths().notebooks
    found = sorted(p for p in source_dir.glob("A*.py") if _ASSIGNMENT_NAME.match(p.name))
    if not found:
        raise ProbekitError(
            f"no assignment notebooks (A<k>_<slug>.py) in {source_dir}",
            hint="run from the repository, or pass the notebooks directory",
        )
    return found


def solution_placeholder(task: int | str | None) -> str:
    """The line that stands for Task ``task``'s solution in a student copy (no indentation)."""
    label = "your code here" if task is None else f"Task {task}: your code here"
    return f'raise NotImplementedError("{label}")'


def _split_cells(lines: list[str]) -> list[tuple[int, list[str]]]:
    """(first line number, lines) per cell; the part before the first ``# %%`` is cell 0."""
    cells: list[tuple[int, list[str]]] = [(1, [])]
    for number, line in enumerate(lines, start=1):
        if _CELL.match(line):
            cells.append((number, []))
        cells[-1][1].append(line)
    return cells


def _tags(header: str) -> list[str] | None:
    m = _TAGS.search(header)
    return ast.literal_eval(m.group(1)) if m else None


def _with_tags(header: str, tags: list[str]) -> str:
    m = _TAGS.search(header)
    if m is None:
        return header
    if tags:
        return (
            header[: m.start(1)]
            + "["
            + ", ".join(f'"{t}"' for t in tags)
            + "]"
            + header[m.end(1) :]
        )
    return (header[: m.start()].rstrip() + " " + header[m.end() :].lstrip()).rstrip()


def _marker(line: str) -> str:
    """A line as a marker would read, in code or in a markdown comment line."""
    return re.sub(r"^#\s?(?=###)", "", line.strip()).strip()


def _strip_solutions(cell: list[str], start: int, task: int | None, where: str) -> list[str]:
    out: list[str] = []
    inside_at: int | None = None
    for offset, line in enumerate(cell):
        marker = line.strip()
        number = start + offset
        if marker == SOLUTION_BEGIN:
            if inside_at is not None:
                raise ProbekitError(
                    f"{where}:{number}: '{SOLUTION_BEGIN}' inside another solution block",
                    hint=f"close the block opened on line {inside_at} first",
                )
            inside_at = number
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + solution_placeholder(task))
        elif marker == SOLUTION_END:
            if inside_at is None:
                raise ProbekitError(f"{where}:{number}: '{SOLUTION_END}' without a BEGIN")
            inside_at = None
        elif inside_at is None:
            out.append(line)
    if inside_at is not None:
        raise ProbekitError(
            f"{where}:{inside_at}: solution block is never closed",
            hint=f"add a '{SOLUTION_END}' line at the end of the solution",
        )
    return out


def student_source(text: str, where: str = "<notebook>") -> str:
    """The student copy of an assignment notebook's Jupytext percent source.

    Solution blocks (the lines from ``### BEGIN SOLUTION`` to ``### END SOLUTION``) become
    ``raise NotImplementedError("Task N: your code here")`` at the marker's indentation, where N
    comes from the last ``## Task N`` heading above; such cells lose their ``hide-input`` tag.
    Markdown cells tagged ``solution`` become a cell with an empty answer. All other lines are
    copied as they are. ``where`` names the file in error messages (unbalanced markers, markers
    in markdown).
    """
    lines = text.splitlines()
    out: list[str] = []
    task: int | None = None
    for start, cell in _split_cells(lines):
        header = cell[0] if cell and _CELL.match(cell[0]) else None
        is_markdown = header is not None and "[markdown]" in header
        tags = _tags(header) if header else None
        has_solution = any(_marker(line) in (SOLUTION_BEGIN, SOLUTION_END) for line in cell)
        if is_markdown:
            number = task_number("\n".join(_COMMENT.sub("", line) for line in cell[1:]))
            task = task if number is None else number
            if has_solution:
                raise ProbekitError(
                    f"{where}:{start}: solution markers in a markdown cell",
                    hint="put solution code in a code cell; tag model answers 'solution'",
                )
            if tags and "solution" in tags:
                kept = _with_tags(header, [t for t in tags if t != "solution"])
                out += [kept, f"# {ANSWER_PLACEHOLDER}", ""]
                continue
            out += cell
            continue
        if not has_solution:
            out += cell
            continue
        if header is not None and tags and "hide-input" in tags:
            cell = [_with_tags(header, [t for t in tags if t != "hide-input"]), *cell[1:]]
        out += _strip_solutions(cell, start, task, where)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def write_student_copies(
    out_dir: str | Path, fmt: str = "py", notebooks_dir: str | Path | None = None
) -> list[Path]:
    """Write the student copy of every ``A<k>_*.py`` assignment into ``out_dir``.

    ``fmt="py"`` writes Jupytext percent scripts, ``fmt="ipynb"`` notebooks (via jupytext, with
    the python3 kernel of the header). ``notebooks_dir`` defaults to the repository's
    ``notebooks/``. Returns the written paths. Raises :class:`ProbekitError` for a bad format,
    an output path that is a file, or no assignments found.
    """
    if fmt not in ("py", "ipynb"):
        raise ParameterError("format", f"'{fmt}' is not one of py, ipynb")
    notebooks = assignment_notebooks(notebooks_dir)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ProbekitError(f"{out} exists and is not a directory", hint="choose another --student")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        text = student_source(path.read_text(), str(path))
        target = out / (path.stem + "." + fmt)
        if fmt == "py":
            target.write_text(text)
        else:
            jupytext.write(jupytext.reads(text, fmt="py:percent"), target, fmt="ipynb")
        written.append(target)
    return written
