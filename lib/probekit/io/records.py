"""Recorded measurements: runs too long for the book, kept as data with what they depend on.

A measurement that takes longer than a chapter may spend (a parser trained on the whole
training split, say) is made once by a script in ``benchmarks/`` and written as JSON to
``params/records/<name>.json`` with its parameters, its result, the digest of the library code
the script runs, the machine, the time it took and when it was made. A chapter reads the record
and, when the code it depends on has changed since, shows it as stale
(:func:`probekit.book.records.is_stale`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from probekit.errors import ProbekitError
from probekit.io.project import project_root
from probekit.io.results import save_results

RECORDS_DIR = Path("params") / "records"


@dataclass(frozen=True)
class Record:
    """One recorded measurement.

    ``script``: the file that made it, relative to the project root; ``parameters`` and
    ``result``: plain JSON values; ``digest``: sha256 of the library code the script runs;
    ``machine``: processor, cores and threads; ``seconds``: its wall time; ``recorded``: an ISO
    8601 time stamp.
    """

    name: str
    script: str
    parameters: dict[str, Any]
    result: dict[str, Any]
    digest: str
    machine: dict[str, Any]
    seconds: float
    recorded: str


def record_path(name: str, root: Path | None = None) -> Path:
    """Where the record ``name`` lives."""
    return (root or project_root()) / RECORDS_DIR / f"{name}.json"


def write_record(record: Record, root: Path | None = None) -> Path:
    """Write ``record`` atomically (:func:`probekit.io.results.save_results`); returns its path."""
    path = record_path(record.name, root)
    save_results(path, asdict(record))
    return path


def read_record(name: str, root: Path | None = None) -> Record | None:
    """The record ``name``, or None when it was never made; a malformed file is an error."""
    path = record_path(name, root)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        expected = {f.name for f in fields(Record)}
        if not isinstance(data, dict) or set(data) != expected:
            raise ValueError(f"fields {sorted(data) if isinstance(data, dict) else data}")
        return Record(**data)
    except (ValueError, TypeError) as err:
        raise ProbekitError(
            f"{path}: not a measurement record ({err})",
            hint="re-run the script named in it, or restore the file from git",
        ) from err
