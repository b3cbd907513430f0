"""Keeping the library's answers out of reach: the sandbox's copy of probekit, and a static check.

Every assignment module lists, per task, the library functions that compute what the task asks
the student to write (``REFERENCES``: ``probekit.trees.spanning.prim_mst`` for ``prim`` ...).

- :func:`write_sandbox_library` writes the copy of probekit that the sandbox sees: every module
  as it is, except that each listed function raises instead of computing, and
  ``probekit.teaching`` is a stub whose ``check_*`` say that the grader runs the checks (the
  real checks, and the cases they draw, stay in the grader). The sandbox mounts this copy over
  the real package, so the reference code is not there to import or to read.
- :func:`static_check` flags a submission whose task cells name a listed function (an import,
  or an attribute of an imported module): that task earns nothing, whatever it returns.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import probekit
from probekit.teaching import (
    a1_tree_metrics,
    a2_jabberwocky_inflection,
    a3_pareto_hypervolume,
    a4_extrapolation_split,
    a5_mcnemar_power,
    a6_online_code,
)
from probekit.teaching.catalogue import ASSIGNMENT_TASKS, tasks_of
from probekit.teaching.cells import TaskCell

#: Assignment -> task function -> the dotted names of its reference implementations.
REFERENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "A1_tree_metrics": a1_tree_metrics.REFERENCES,
    "A2_jabberwocky_inflection": a2_jabberwocky_inflection.REFERENCES,
    "A3_pareto_hypervolume": a3_pareto_hypervolume.REFERENCES,
    "A4_extrapolation_split": a4_extrapolation_split.REFERENCES,
    "A5_mcnemar_power": a5_mcnemar_power.REFERENCES,
    "A6_online_code": a6_online_code.REFERENCES,
}

_BLANKED = (
    "raise RuntimeError('probekit grader: {name} is the reference implementation of a task; "
    "it is not available while grading')"
)


def _stub_teaching() -> str:
    checks = sorted({t.check.__name__ for tasks in ASSIGNMENT_TASKS.values() for t in tasks})
    lines = [
        '"""probekit.teaching inside the grading sandbox: the grader runs the checks itself."""',
        "",
        "",
        "def _run_by_the_grader(*args, **kwargs):",
        "    raise RuntimeError(",
        "        'probekit grader: the checks run outside the sandbox; a submission cannot call them'",
        "    )",
        "",
        "",
    ]
    lines += [f"{name} = _run_by_the_grader" for name in checks]
    return "\n".join(lines) + "\n"


def _blank(source: str, names: set[str]) -> str:
    """``source`` with the body of each top-level function in ``names`` replaced by a raise."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    # From the bottom up, so that earlier line numbers stay valid.
    defs = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names
    ]
    for node in sorted(defs, key=lambda n: n.lineno, reverse=True):
        first, last = node.body[0].lineno, node.end_lineno
        indent = " " * node.body[0].col_offset
        lines[first - 1 : last] = [indent + _BLANKED.format(name=node.name) + "\n"]
    return "".join(lines)


def write_sandbox_library(dest: Path) -> Path:
    """Write the sandbox's copy of the probekit package into ``dest/probekit``; returns it.

    The copy is the imported package without ``__pycache__``, with every function of
    :data:`REFERENCES` made to raise and ``probekit/teaching/__init__.py`` replaced by a stub.

    Raises:
        RuntimeError: when a listed reference is not defined where it is listed (a renamed
            library function must be renamed in its assignment's ``REFERENCES`` too).
    """
    source = Path(probekit.__file__).resolve().parent
    target = dest / "probekit"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    by_module: dict[str, set[str]] = {}
    for tasks in REFERENCES.values():
        for names in tasks.values():
            for dotted in names:
                module, _, name = dotted.rpartition(".")
                by_module.setdefault(module, set()).add(name)
    for module, names in sorted(by_module.items()):
        if module == "probekit.teaching":
            continue  # re-exports of the assignment modules' functions; the stub has none
        path = target.joinpath(*module.split(".")[1:]).with_suffix(".py")
        text = path.read_text(encoding="utf-8")
        defined = {
            n.name
            for n in ast.parse(text).body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        if names - defined:
            raise RuntimeError(
                f"{module} defines no {sorted(names - defined)}, listed as references"
            )
        path.write_text(_blank(text, names), encoding="utf-8")
    (target / "teaching" / "__init__.py").write_text(_stub_teaching(), encoding="utf-8")
    return target


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The dotted name an expression ``a.b.c`` stands for, through the cell's imports."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def static_check(cells: list[TaskCell], assignment: str) -> dict[int, str]:
    """Task number -> why it earns nothing, for each task whose reference the cells name.

    Follows ``import``, ``from ... import`` and attribute access on imported names through all
    the cells in order; a name is flagged when it is a reference or lies inside one.
    """
    owner = {}
    numbers = {t.function: t.number for t in tasks_of(assignment)}
    for function, names in REFERENCES[assignment].items():
        for name in names:
            owner[name] = function
    aliases: dict[str, str] = {}
    found: dict[int, str] = {}

    def flag(name: str | None) -> None:
        if name is None:
            return
        for ref, function in owner.items():
            if name == ref or name.startswith(ref + "."):
                number = numbers[function]
                found.setdefault(
                    number,
                    f"the submission uses {ref}, the library's own implementation of what Task "
                    f"{number} asks for; write {function} yourself",
                )

    trees = []
    for cell in cells:
        try:
            trees.append(ast.parse(cell.source))
        except SyntaxError:
            continue
    # Imports first, wherever they are, so that a name used above its import is followed too.
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        aliases[top] = top
                    flag(alias.name)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    aliases[alias.asname or alias.name] = full
                    flag(full)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                flag(_dotted(node, aliases))
    return found
