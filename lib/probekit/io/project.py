"""Where the project lives: the directory that holds ``notebooks/``, ``params/`` and ``_toc.yml``.

The library is installed like any package (``pip install .`` copies it into site-packages), so
the project root cannot be derived from this file's location. It is ``$PROBEKIT_ROOT`` when set,
otherwise the nearest directory at or above the working directory that looks like the project.
"""

from __future__ import annotations

import os
from pathlib import Path

from probekit.errors import ProbekitError

ENV = "PROBEKIT_ROOT"
MARKERS = ("_toc.yml", "notebooks", "params")


def _is_project(path: Path) -> bool:
    return all((path / m).exists() for m in MARKERS)


def find_project_root(start: Path | None = None) -> Path | None:
    """The project's root directory, or None if there is none.

    ``$PROBEKIT_ROOT``, or the nearest directory at or above ``start`` (default: the working
    directory) that holds ``_toc.yml``, ``notebooks/`` and ``params/``; None if there is none.
    """
    env = os.environ.get(ENV)
    if env:
        return Path(env).expanduser().resolve()
    here = (start or Path.cwd()).resolve()
    for path in (here, *here.parents):
        if _is_project(path):
            return path
    return None


def project_root(start: Path | None = None) -> Path:
    """Like :func:`find_project_root`, but an error with a hint when there is no project."""
    root = find_project_root(start)
    if root is None:
        raise ProbekitError(
            f"no probekit project at or above {(start or Path.cwd()).resolve()}",
            hint=f"run from the repository (it holds {', '.join(MARKERS)}) or set ${ENV}",
        )
    if not _is_project(root):
        raise ProbekitError(
            f"${ENV}={root} is not a probekit project",
            hint=f"it must hold {', '.join(MARKERS)}",
        )
    return root
