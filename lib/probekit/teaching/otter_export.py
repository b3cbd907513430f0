"""The assignments in otter-grader's format (``probekit assignments --otter OUT``).

`otter-grader <https://otter-grader.readthedocs.io>`_ grades notebooks locally (``otter run``,
``otter grade``) and on Gradescope from one autograder zip. Its *Otter Assign* takes a master
notebook, with questions, solutions and tests marked by raw cells, and writes the student
notebook, the tests and the autograder zip. :func:`otter_master` writes that master notebook
from an assignment notebook ``notebooks/A<k>_<slug>.py`` and its module's ``POINTS`` and
``TASKS`` (:mod:`.catalogue`), so the checks are never written twice:

- every graded task becomes a question named after the function it asks for, worth its
  ``POINTS``; its text and hints are the question's prompt;
- its solution cell becomes the question's solution, the solution block replaced in the
  student notebook by the same ``raise NotImplementedError("Task N: your code here")`` as in
  the student copies (Otter's ``BEGIN SOLUTION NO PROMPT`` and ``BEGIN PROMPT``);
- its check cell becomes two exception-based test cases that call the same
  ``teaching.check_*``: a public one with seed 0 (what ``grader.check`` shows students, worth
  0 points) and a hidden one with a seed derived from the course seed, worth the task's points;
- the cells before Task 1 stay as they are (parameters and imports); the run-and-interpret
  task stays in the student notebook but is tagged ``otter_ignore``, so grading does not load
  the treebank or the encoder; its model answer becomes an empty answer cell (the model answers
  are on the book's instructor pages; written answers are graded by hand).

:func:`export_otter` writes one master per assignment and runs ``otter assign`` on it (the
``otter`` extra: ``pip install "probekit[otter]"``).
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import yaml

from probekit.errors import ProbekitError
from probekit.teaching.catalogue import ASSIGNMENT_TASKS, tasks_of
from probekit.teaching.cells import (
    called_function,
    opens_run_and_interpret,
    task_cells,
    task_number,
)
from probekit.teaching.runner import GradedTask
from probekit.teaching.student_copy import (
    ANSWER_PLACEHOLDER,
    SOLUTION_BEGIN,
    SOLUTION_END,
    assignment_notebooks,
    solution_placeholder,
)
from probekit.teaching.submissions import read_notebook, student_seed

#: The tag with which otter's grading skips a cell.
OTTER_IGNORE = "otter_ignore"


def hidden_seed(course_seed: int, assignment: str) -> int:
    """The seed of an assignment's hidden otter tests, derived from the course seed.

    One autograder zip grades the whole class, so every student meets the same hidden cases;
    they differ from the public ones (seed 0) that students see.
    """
    return student_seed(course_seed, f"otter hidden tests of {assignment}")


def _raw(text: str) -> Any:
    return nbformat.v4.new_raw_cell(text)


def _config(head: str, config: dict) -> Any:
    return _raw(f"# {head}\n" + yaml.safe_dump(config, sort_keys=False).rstrip())


def _otter_solution(source: str, number: int) -> str:
    """A solution cell with Otter's markers: the solution, then the student's placeholder."""
    out = []
    for line in source.splitlines():
        marker = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if marker == SOLUTION_BEGIN:
            out.append(f"{indent}# BEGIN SOLUTION NO PROMPT")
        elif marker == SOLUTION_END:
            out += [
                f"{indent}# END SOLUTION",
                f'{indent}""" # BEGIN PROMPT',
                indent + solution_placeholder(number),
                f'{indent}"""; # END PROMPT',
            ]
        else:
            out.append(line)
    return "\n".join(out)


def _test_cell(task: GradedTask, seed: int, hidden: bool) -> Any:
    config = {"hidden": True, "points": task.points} if hidden else {"points": 0}
    head = yaml.safe_dump(config, sort_keys=False).rstrip()
    kind = "hidden" if hidden else "public"
    what = (
        f"Hidden test: the check on the course's cases (seed {seed})."
        if hidden
        else "The check the notebook runs (seed 0): what grader.check shows."
    )
    source = "\n".join(
        [
            '""" # BEGIN TEST CONFIG',
            head,
            '""" # END TEST CONFIG',
            f"def test_{task.function}_{kind}({task.function}):",
            f'    """{what}"""',
            "    from probekit import teaching",
            "",
            f"    teaching.{task.check.__name__}({task.function}, seed={seed})",
        ]
    )
    return nbformat.v4.new_code_cell(source)


def _is_check_cell(source: str, task: GradedTask) -> bool:
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return any(called_function(node) == task.check.__name__ for node in body)


def otter_master(notebook: str | Path, assignment: str, course_seed: int = 0) -> Any:
    """The Otter Assign master notebook (format v1) of one assignment notebook.

    Args:
        notebook: the assignment's Jupytext notebook, ``notebooks/A<k>_<slug>.py``, with its
            solutions.
        assignment: its name, a key of :data:`probekit.teaching.catalogue.ASSIGNMENT_TASKS`.
        course_seed: the course seed, from which the hidden tests' seed is derived.

    Returns:
        An nbformat notebook; see the module docstring for what becomes what.

    Raises:
        ProbekitError: when a graded task has no solution cell or no check cell in the notebook.
    """
    notebook = Path(notebook)
    tasks = {t.number: t for t in ASSIGNMENT_TASKS[assignment]}
    seed = hidden_seed(course_seed, assignment)
    nb = read_notebook(notebook)
    graded_cells = {c.index for c in task_cells(nb)}
    assignment_config = {
        "name": assignment,
        "init_cell": True,
        "check_all_cell": True,
        "export_cell": {"pdf": False, "instructions": "Upload the zip file this cell writes."},
        "generate": {"pdf": False, "filtering": False, "show_stdout": True},
        "requirements": "requirements.txt",
        "tests": {"files": False, "ok_format": False},
        "run_tests": True,
    }
    cells: list = [_config("ASSIGNMENT CONFIG", assignment_config)]
    question: GradedTask | None = None
    seen: dict[int, set[str]] = {}
    for index, cell in enumerate(nb.cells):
        source = cell.source
        tags = list(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            number = task_number(source)
            if number in tasks:
                question = tasks[number]
                config = {"name": question.function, "points": question.points}
                cells.append(_config("BEGIN QUESTION", config))
            elif opens_run_and_interpret(source):
                question = None
            if "solution" in tags:
                cells.append(nbformat.v4.new_markdown_cell(ANSWER_PLACEHOLDER))
                continue
            cells.append(cell)
            continue
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        if index not in graded_cells:
            cell.metadata["tags"] = [*tags, OTTER_IGNORE]
            cells.append(cell)
            continue
        if question is not None and SOLUTION_BEGIN in source:
            cell.metadata["tags"] = [t for t in tags if t != "hide-input"]
            cell.source = _otter_solution(source, question.number)
            cells += [_raw("# BEGIN SOLUTION"), cell, _raw("# END SOLUTION")]
            seen.setdefault(question.number, set()).add("solution")
            continue
        if question is not None and _is_check_cell(source, question):
            cells += [
                _raw("# BEGIN TESTS"),
                _test_cell(question, 0, hidden=False),
                _test_cell(question, seed, hidden=True),
                _raw("# END TESTS"),
                _raw("# END QUESTION"),
            ]
            seen.setdefault(question.number, set()).add("check")
            question = None
            continue
        cells.append(cell)
    for number, task in tasks.items():
        missing = {"solution", "check"} - seen.get(number, set())
        if missing:
            raise ProbekitError(
                f"{notebook}: Task {number} ({task.function}) has no {' and no '.join(sorted(missing))} "
                "cell",
                hint=f"the cell after its '## Task {number}' heading defines {task.function} "
                f"between solution markers, and the next one calls teaching.{task.check.__name__}",
            )
    nb.cells = cells
    nb.metadata.pop("jupytext", None)
    return nb


_REQUIREMENTS = """\
# Packages the grading image installs on top of otter-grader's own (Gradescope, otter grade).
# The tests import probekit: add it here, for instance as the git URL of the course's copy of
# the book's repository, then export again (this file is kept). otter run needs none of this.
"""


def export_otter(
    out_dir: str | Path,
    *,
    course_seed: int = 0,
    notebooks_dir: str | Path | None = None,
    assignments: list[str] | None = None,
    assign: bool = True,
    run_tests: bool = True,
    timeout: float = 1800.0,
) -> list[Path]:
    """Write the otter-grader version of the assignments into ``out_dir``.

    For every assignment, ``out_dir/<assignment>/<assignment>.ipynb`` is its Otter Assign master
    notebook (:func:`otter_master`), with a ``requirements.txt`` beside it (written once, so that
    an instructor can add ``probekit`` for Gradescope and export again); with ``assign``,
    ``otter assign`` then writes ``out_dir/<assignment>/dist/student/`` (the student notebook,
    with the public tests) and ``out_dir/<assignment>/dist/autograder/`` (the solutions, all
    tests and the autograder zip for ``otter run`` and Gradescope).

    Args:
        out_dir: the export directory.
        course_seed: the seed from which the hidden tests' seeds are derived.
        notebooks_dir: the directory of the ``A<k>_<slug>.py`` notebooks (default: the repo's).
        assignments: only these assignments (names as ``A4_extrapolation_split``).
        assign: run ``otter assign`` on each master notebook.
        run_tests: let ``otter assign`` run the tests against the solutions (slower).
        timeout: seconds allowed for one ``otter assign``.

    Returns:
        The master notebooks written.

    Raises:
        ProbekitError: for an unknown assignment, a missing notebook, otter-grader not
            installed (with ``assign``), or ``otter assign`` failing (with its output).
    """
    found = assignment_notebooks(notebooks_dir)
    notebooks = {p.stem: p for p in found}
    names = assignments or [n for n in ASSIGNMENT_TASKS if n in notebooks]
    for name in names:
        tasks_of(name)  # an unknown name raises, listing the known ones
        if name not in notebooks:
            raise ProbekitError(f"no notebook {name}.py in {found[0].parent}")
    if assign and importlib.util.find_spec("otter") is None:
        raise ProbekitError(
            "otter-grader is not installed in this environment",
            hint='install the extra: pip install "probekit[otter]" (or pass --no-assign)',
        )
    out = Path(out_dir)
    written = []
    for name in names:
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        master = target / f"{name}.ipynb"
        nbformat.write(otter_master(notebooks[name], name, course_seed), master)
        requirements = target / "requirements.txt"
        if not requirements.exists():  # an instructor's edited one (probekit added) stays
            requirements.write_text(_REQUIREMENTS)
        written.append(master)
        if assign:
            dist = target / "dist"
            shutil.rmtree(dist, ignore_errors=True)
            command = [sys.executable, "-m", "otter", "assign", "--no-pdfs", master.name, "dist"]
            if not run_tests:
                command.insert(-2, "--no-run-tests")
            done = subprocess.run(
                command, cwd=target, capture_output=True, text=True, timeout=timeout
            )
            if done.returncode != 0:
                raise ProbekitError(
                    f"otter assign failed on {master} (exit code {done.returncode})",
                    hint=(done.stdout + done.stderr)[-2000:],
                )
    return written
