"""The cells of an assignment notebook: finding its tasks, compiling what is graded.

An assignment notebook (``notebooks/A<k>_<slug>.py``, a student copy, or a submission) is a
sequence of cells in which a markdown heading ``## Task N`` opens each graded task and a
markdown cell that introduces the "run and interpret" task ends them. :func:`task_number` and
:func:`opens_run_and_interpret` say which cell does what; the grader (:func:`task_cells`,
:func:`compile_cell`), the otter export and the student copies read a notebook's tasks
through them, so the three agree on where a task begins and ends. The grader's sandbox
imports this module, so it needs nothing heavier than the standard library
(:func:`probekit.teaching.submissions.read_notebook` reads the files).
"""

from __future__ import annotations

import ast
import linecache
import re
from dataclasses import dataclass
from typing import Any

_TASK_HEADING = re.compile(r"^\s*#{1,4}\s*Task\s+(\d+)", re.MULTILINE)
_RUN_AND_INTERPRET = re.compile(r"run\s+and\s+interpret", re.IGNORECASE)
_MAGIC = re.compile(r"^\s*[%!]")


@dataclass(frozen=True)
class TaskCell:
    """A code cell of a submission that the grader runs.

    Attributes:
        index: the cell's position in the notebook (0-based, all cells counted).
        section: the task whose ``## Task N`` heading the cell follows; 0 before Task 1.
        source: the cell's code.
    """

    index: int
    section: int
    source: str


def task_number(markdown: str) -> int | None:
    """The number of the last ``## Task N`` heading in a markdown cell's text, else None."""
    found = _TASK_HEADING.findall(markdown)
    return int(found[-1]) if found else None


def opens_run_and_interpret(markdown: str) -> bool:
    """Whether a markdown cell introduces the run-and-interpret task, where grading stops."""
    return bool(_RUN_AND_INTERPRET.search(markdown))


def task_cells(notebook: Any) -> list[TaskCell]:
    """The code cells the grader runs: every code cell before the run-and-interpret task.

    The same selection as the assignment tests use: code cells, in order, until the markdown
    cell that introduces the "run and interpret" task (which loads the treebank and runs the
    experiments). Each cell carries the number of the ``## Task N`` section it belongs to.
    """
    cells, section = [], 0
    for index, cell in enumerate(notebook.cells):
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if cell.cell_type == "markdown":
            if opens_run_and_interpret(source):
                break
            number = task_number(source)
            if number is not None:
                section = number
        elif cell.cell_type == "code":
            cells.append(TaskCell(index, section, source))
    return cells


def called_function(statement: ast.stmt) -> str:
    """The name a statement ``f(...)`` or ``module.f(...)`` calls; ``""`` for any other one."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return ""
    func = statement.value.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def compile_cell(cell: TaskCell, label: str) -> Any:
    """Compile a cell without its top-level ``check_*`` calls (the grader calls the checks).

    Lines that are IPython magics (``%matplotlib``, ``!pip``) are blanked when the cell does
    not parse with them; a cell magic (``%%time``) blanks the whole cell. The source is kept in
    :mod:`linecache` under ``label``, so that tracebacks show the student's lines.

    Raises:
        SyntaxError: when the cell is not valid Python.
    """
    source = cell.source
    if source.lstrip().startswith("%%"):
        source = ""
    try:
        tree = ast.parse(source, filename=label)
    except SyntaxError:
        lines = source.splitlines()
        if not any(_MAGIC.match(line) for line in lines):
            raise
        source = "\n".join("" if _MAGIC.match(line) else line for line in lines)
        tree = ast.parse(source, filename=label)
    linecache.cache[label] = (len(source), None, source.splitlines(True), label)
    tree.body = [node for node in tree.body if not called_function(node).startswith("check_")]
    return compile(tree, label, "exec")
