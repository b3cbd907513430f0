"""The package's declared dependencies match what the library and the chapters import.

`pip install .` installs only the core dependencies of pyproject.toml; a chapter then runs on
them alone (CI checks that by running chapter 01 in a fresh environment). These tests keep the
declaration honest from the source: every third-party module imported by the library or by a
notebook comes from a core dependency, and the test-only ones (networkx, statsmodels) stay out.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_canonical(re.match(r"[A-Za-z0-9._-]+", r).group(0)) for r in requirements}


CORE = _requirement_names(PYPROJECT["project"]["dependencies"])
EXTRAS = {
    k: _requirement_names(v) for k, v in PYPROJECT["project"]["optional-dependencies"].items()
}


def _third_party_imports(paths: list[Path]) -> dict[str, set[str]]:
    """Top-level module name -> the files importing it, for modules outside the standard
    library and probekit."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("probekit", "__future__"):
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def _distributions(module: str) -> set[str]:
    return {_canonical(d) for d in importlib.metadata.packages_distributions().get(module, [])}


def test_library_and_chapters_import_only_core_dependencies():
    sources = sorted((REPO / "lib" / "probekit").rglob("*.py"))
    sources += sorted((REPO / "notebooks").glob("*.py"))
    missing = {
        module: sorted(files)
        for module, files in _third_party_imports(sources).items()
        if not _distributions(module) & CORE
    }
    assert not missing, f"imported but not core dependencies of pyproject.toml: {missing}"


def test_test_only_and_render_only_packages_are_extras():
    """networkx and statsmodels are the tests' and benchmarks' reference implementations;
    Jupyter Book only renders. None of them is a core dependency, and safetensors (pulled in
    by transformers) is not declared at all."""
    assert {"networkx", "statsmodels"} <= EXTRAS["test"] & EXTRAS["bench"]
    assert "jupyter-book" in EXTRAS["book"]
    assert not {"networkx", "statsmodels", "jupyter-book", "safetensors"} & CORE
    for runtime in ("papermill", "jupytext", "nbformat", "ipykernel", "myst-nb"):
        assert runtime in CORE, runtime
    library = _third_party_imports(sorted((REPO / "lib" / "probekit").rglob("*.py")))
    assert not {"networkx", "statsmodels", "safetensors"} & set(library)


def test_torch_is_pinned_exactly_and_the_build_backend_reads_the_licence_expression():
    assert "torch==2.13.0" in PYPROJECT["project"]["dependencies"]
    assert PYPROJECT["project"]["license"] == "MIT"
    (backend,) = PYPROJECT["build-system"]["requires"]
    floor = re.fullmatch(r"setuptools>=(\d+)", backend)
    assert floor and int(floor.group(1)) >= 77  # PEP 639 licence expressions: setuptools 77
