"""Making and checking recorded measurements (:mod:`probekit.io.records`).

A record carries the digest of the library code its script runs, found from the same import
graph as a chapter's (:func:`probekit.book.imports.library_digest`). When that code changes, the
record no longer describes what the library would measure: :func:`is_stale` says so, and the
chapter that shows it says so too.
"""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import Any

import torch

from probekit.book.imports import library_digest
from probekit.io.project import project_root
from probekit.io.records import Record, write_record


def machine() -> dict[str, Any]:
    """The machine a measurement ran on: processor, cores, torch threads, torch version."""
    return {
        "processor": platform.processor() or platform.machine(),
        "system": platform.system(),
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }


def code_digest(script: str, root: Path | None = None) -> str:
    """The digest of the library code ``script`` (relative to the project root) runs."""
    return library_digest((root or project_root()) / script)


def record_measurement(
    name: str,
    script: str,
    parameters: dict[str, Any],
    result: dict[str, Any],
    seconds: float,
    digest: str | None = None,
    root: Path | None = None,
) -> Path:
    """Write the record ``name`` of a measurement ``script`` just made; returns its path.

    ``digest``: the code digest taken when the measurement started (:func:`code_digest`), so
    that an edit made while it ran is not credited to it; default: taken now.
    """
    record = Record(
        name=name,
        script=script,
        parameters=parameters,
        result=result,
        digest=digest or code_digest(script, root),
        machine=machine(),
        seconds=round(float(seconds), 1),
        recorded=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    return write_record(record, root)


def printed_measurements(text: str) -> dict[str, Any]:
    """The ``name: value`` lines a benchmark prints, as a record's result.

    Values that read as numbers become numbers; a name printed several times keeps every value,
    in order, as a list. Other lines (headers, progress) are ignored.
    """
    out: dict[str, Any] = {}
    for line in text.splitlines():
        name, sep, raw = line.partition(": ")
        if not sep or not name.isidentifier():
            continue
        try:
            value: Any = float(raw)
        except ValueError:
            value = raw.strip()
        if name in out:
            out[name] = [*(out[name] if isinstance(out[name], list) else [out[name]]), value]
        else:
            out[name] = value
    return out


def is_stale(record: Record, root: Path | None = None) -> bool:
    """Whether the library code the record's script runs has changed since it was made.

    A record whose script is not in the project (a copy without ``benchmarks/``) cannot be
    checked against the code, so it counts as stale too.
    """
    if not ((root or project_root()) / record.script).is_file():
        return True
    return code_digest(record.script, root) != record.digest
