"""The chapters' saved results (``build/results/<slug>.json``).

They are written atomically when a chapter finishes, and read back by the claims ledger and by
chapters that build on earlier ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from probekit.errors import ProbekitError


def load_results(
    directory: str | Path, slugs: list[str] | None = None
) -> dict[str, dict[str, Any]]:
    """The chapters' saved glue values, by slug.

    Reads ``<directory>/<slug>.json`` (written by :func:`save_results`): those of ``slugs`` that
    exist, or every file when None.

    A file that is not a JSON object is an error naming the file, not a silently empty chapter.
    """
    d = Path(directory)
    files = (
        [d / f"{slug}.json" for slug in slugs] if slugs is not None else sorted(d.glob("*.json"))
    )
    out: dict[str, dict[str, Any]] = {}
    for f in files:
        if not f.is_file():
            continue
        try:
            values = json.loads(f.read_text())
        except json.JSONDecodeError as exc:
            raise ProbekitError(f"{f}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(values, dict):
            raise ProbekitError(f"{f}: expected a JSON object of saved values")
        out[f.stem] = values
    return out


def save_results(path: str | Path, values: dict[str, Any]) -> None:
    """Write one chapter's saved values as a JSON object, atomically.

    It writes a temporary file, then renames it, so a reader never sees a partial file.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(values, sort_keys=True, indent=1, default=str))
    os.replace(tmp, p)
