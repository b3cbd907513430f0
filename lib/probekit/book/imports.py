"""The library modules a chapter runs, found from the static import graph.

A chapter's content hash (:func:`probekit.book.runner.run_digest`) covers only the modules its
notebook imports, directly or through other modules, so that an edit of one part's code re-runs
that part's chapters and no others.

The graph is read with :mod:`ast`, never by importing anything:

- ``import a.b.c`` runs the packages ``a`` and ``a.b`` and the module ``a.b.c``: all three count
  (a package counts as its ``__init__.py``);
- ``from a.b import c`` counts ``a``, ``a.b`` and, when ``c`` is a submodule, ``a.b.c``;
- relative imports are resolved against the importing module's package;
- imports anywhere count, inside functions and ``if TYPE_CHECKING:`` blocks too (a superset of
  what runs is safe: at worst a chapter re-runs that need not);
- ``importlib.import_module("a.b")`` with a literal name counts; a computed name cannot be seen;
- data files beside a counted module (``*.txt``, ``*.yml``, ... in its package directory and its
  non-package subdirectories) count with it.

A notebook cell that is not valid Python even after IPython's own transformation of magics makes
the graph unknowable; the chapter then counts every module of the library.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import jupytext
from IPython.core.inputtransformer2 import TransformerManager

import probekit

_SOURCE_SUFFIXES = {".py", ".pyc", ".pyo"}


def installed_library() -> Path:
    """The directory of the ``probekit`` package this process imports.

    It is the one a chapter's kernel runs (``lib/probekit`` in a development install,
    site-packages after ``pip install .``).
    """
    return Path(probekit.__file__).resolve().parent


def library_modules(library: Path) -> dict[str, Path]:
    """Every module of the package directory ``library``: dotted name -> file.

    ``<library>/io/cache.py`` is ``probekit.io.cache`` (the prefix is the directory's name); a
    package is its ``__init__.py`` under the package's name.
    """
    library = Path(library)
    out = {}
    for path in sorted(library.rglob("*.py")):
        parts = list(path.relative_to(library).with_suffix("").parts)
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([library.name, *parts])] = path
    return out


@lru_cache(maxsize=4096)
def _imported_names(source: str, module: str, is_package: bool) -> frozenset[str]:
    """Dotted names that ``source`` imports, relative imports made absolute.

    Each ``from a import b`` gives both ``a`` and ``a.b`` (which of them is a module is decided
    later). Raises SyntaxError.
    """
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names.add(prefix)
            names.update(f"{prefix}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if called in ("import_module", "__import__") and isinstance(first, ast.Constant):
                if isinstance(first.value, str):
                    names.add(first.value)
    return frozenset(names)


def _with_parents(name: str, modules: dict[str, Path]) -> list[str]:
    """``name`` and the packages above it, those of them that are library modules."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in modules]


def _notebook_sources(notebook: Path) -> list[str]:
    """The code cells of a Jupytext notebook as plain Python (IPython magics transformed)."""
    transform = TransformerManager().transform_cell
    nb = jupytext.read(notebook)
    return [transform(cell.source) for cell in nb.cells if cell.cell_type == "code"]


def chapter_modules(notebook: Path, library: Path) -> list[Path]:
    """The files of the library modules ``notebook`` imports, transitively (module docstring).

    ``library`` is the package directory (its name is the import name, ``probekit``). Returns the
    files sorted; every module of the library when a notebook cell cannot be parsed.
    """
    modules = library_modules(library)
    files = {path: name for name, path in modules.items()}
    try:
        todo = {
            name
            for source in _notebook_sources(Path(notebook))
            for name in _imported_names(source, "__main__", False)
        }
    except SyntaxError:
        return sorted(modules.values())
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        for found in _with_parents(name, modules):
            if found in seen:
                continue
            seen.add(found)
            path = modules[found]
            try:
                todo |= _imported_names(path.read_text(), found, path.name == "__init__.py")
            except SyntaxError:
                return sorted(modules.values())
    return sorted(p for p in files if files[p] in seen)


def package_data(directory: Path) -> list[Path]:
    """Data files of a package directory.

    Files that are not Python sources, in it and in its subdirectories that are not packages
    themselves (no ``__init__.py``), hidden files and ``__pycache__`` left out.
    """
    out = []
    for path in sorted(Path(directory).iterdir()):
        if path.name.startswith(".") or path.name == "__pycache__":
            continue
        if path.is_dir():
            if not (path / "__init__.py").exists():
                out += package_data(path)
        elif path.suffix not in _SOURCE_SUFFIXES:
            out.append(path)
    return out


def library_digest(notebook: Path, library: Path | None = None) -> str:
    """sha256 (hex) over the library files ``notebook`` runs.

    The modules of :func:`chapter_modules` and the package data beside them, each with its path
    relative to ``library`` (default: :func:`installed_library`), so a renamed module changes it
    too.
    """
    library = Path(library) if library is not None else installed_library()
    modules = chapter_modules(notebook, library)
    data: Iterable[Path] = (
        f for directory in sorted({m.parent for m in modules}) for f in package_data(directory)
    )
    digest = hashlib.sha256()
    for path in [*modules, *sorted(set(data))]:
        digest.update(str(path.relative_to(library)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
