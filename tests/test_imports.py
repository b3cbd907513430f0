"""probekit.book.imports: the library modules a chapter imports, from the static import graph."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from probekit.book import imports

HEADER = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---
"""

# A package `pkg` with every kind of import the graph must follow, and modules nobody imports.
PACKAGE = {
    "__init__.py": '"""The package."""\n',
    "a.py": "from pkg import b\nfrom pkg.sub import helper\n",
    "b.py": "from . import c\n",
    "c.py": "def f():\n    import importlib\n    return importlib.import_module('pkg.lazy')\n",
    "lazy.py": "X = 1\n",
    "sub/__init__.py": "from ..c import f as helper\n",
    "sub/deep.py": "Y = 2\n",
    "typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.unused\n",
    "unused.py": "Z = 3\n",
    "other/__init__.py": "",
    "other/words.txt": "a word list\n",
    "sub/tables/ratios.csv": "1,2\n",
}


@pytest.fixture
def package(tmp_path) -> Path:
    root = tmp_path / "pkg"
    for name, text in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _notebook(tmp_path: Path, *cells: str) -> Path:
    path = tmp_path / "90_nb.py"
    path.write_text(HEADER + "".join(f"\n# %%\n{textwrap.dedent(c)}" for c in cells))
    return path


def _relative(paths: list[Path], root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in paths}


def test_module_names_follow_the_directory_tree(package):
    modules = imports.library_modules(package)
    assert modules["pkg"] == package / "__init__.py"
    assert modules["pkg.sub"] == package / "sub" / "__init__.py"
    assert modules["pkg.sub.deep"] == package / "sub" / "deep.py"
    assert len(modules) == len([n for n in PACKAGE if n.endswith(".py")])


def test_closure_follows_absolute_relative_lazy_and_package_imports(package, tmp_path):
    """`import pkg.a` runs pkg and pkg.a; a imports b (a submodule named in `from pkg import`),
    and pkg.sub by `from pkg.sub import helper` (an attribute: the package, not its deep
    module); b imports c relatively; c imports lazy through importlib; sub's __init__ imports c
    with `..`."""
    nb = _notebook(tmp_path, "import pkg.a\n")
    found = _relative(imports.chapter_modules(nb, package), package)
    assert found == {"__init__.py", "a.py", "b.py", "c.py", "lazy.py", "sub/__init__.py"}


def test_from_import_of_a_submodule_counts_it_and_its_packages(package, tmp_path):
    nb = _notebook(tmp_path, "from pkg.sub import deep\n")
    found = _relative(imports.chapter_modules(nb, package), package)
    # sub's __init__ runs too, and pulls in c and lazy.
    assert found == {"__init__.py", "sub/__init__.py", "sub/deep.py", "c.py", "lazy.py"}


def test_type_checking_imports_count_and_magics_do_not_break_parsing(package, tmp_path):
    nb = _notebook(tmp_path, "%matplotlib inline\nimport os\n", "!echo hi\nfrom pkg import typed\n")
    found = _relative(imports.chapter_modules(nb, package), package)
    assert found == {"__init__.py", "typed.py", "unused.py"}


def test_an_unparsable_cell_counts_the_whole_library(package, tmp_path):
    nb = _notebook(tmp_path, "import pkg.lazy\n", "def broken(:\n")
    found = imports.chapter_modules(nb, package)
    assert found == sorted(imports.library_modules(package).values())


def test_package_data_counts_beside_imported_modules_only(package, tmp_path):
    """other/words.txt belongs to a package nobody imports; sub/tables/ (no __init__.py) is data
    of pkg.sub."""
    assert _relative(imports.package_data(package / "sub"), package) == {"sub/tables/ratios.csv"}
    nb = _notebook(tmp_path, "import pkg.lazy\n")
    before = imports.library_digest(nb, package)
    (package / "other" / "words.txt").write_text("another word list\n")
    (package / "unused.py").write_text("Z = 4\n")
    assert imports.library_digest(nb, package) == before
    (package / "lazy.py").write_text("X = 2\n")
    edited = imports.library_digest(nb, package)
    assert edited != before
    (package / "notes.txt").write_text("data of the top package\n")
    assert imports.library_digest(nb, package) != edited


def test_a_renamed_module_changes_the_digest(package, tmp_path):
    nb = _notebook(tmp_path, "import pkg.sub\n")
    before = imports.library_digest(nb, package)
    (package / "sub" / "tables" / "ratios.csv").rename(package / "sub" / "tables" / "r.csv")
    assert imports.library_digest(nb, package) != before


def test_the_installed_library_is_the_imported_package():
    import probekit

    assert imports.installed_library() == Path(probekit.__file__).resolve().parent
