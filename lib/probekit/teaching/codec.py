"""Plain data across the sandbox's wall: values as JSON, arrays as ``.npy`` without pickle.

The grader sends a check's inputs into the sandbox and gets the student's return values back
(:mod:`.sandbox`, :mod:`.worker`). Both directions use :func:`dumps` and :func:`loads`: JSON
for ``None``, booleans, numbers (NaN and infinities included), strings, lists and dicts with
string keys; tagged objects for what JSON lacks (tuples, sets, dicts with other keys, bytes,
NumPy arrays and scalars). A numeric or string array travels as base64 of its ``.npy`` bytes
and is read back with ``allow_pickle=False``, so no object is ever unpickled; an array of
Python objects travels as the nested list of its items. Anything else (a class instance, a
function) becomes an :class:`Unsupported` placeholder that says what it was, so the check
reports a wrong type instead of the grader running the student's code. Objects that offer
``__array__`` (pandas, torch) are converted to arrays in the sandbox, as a check's
``np.asarray`` would convert them.

This module is imported inside the sandbox: it must stay light (json, base64, NumPy).
"""

from __future__ import annotations

import base64
import io
import json
import math
from typing import Any

import numpy as np

_TAG = "__probekit__"
_MAX_DEPTH = 64


class CodecError(ValueError):
    """A message that is not plain data, too large or too deeply nested."""


class Unsupported:
    """A returned value of a type that does not cross the sandbox: its type and a short repr."""

    def __init__(self, kind: str, shown: str):
        """A placeholder for a value of type ``kind`` that printed as ``shown``."""
        self.kind = kind
        self.shown = shown

    def __repr__(self) -> str:
        """The type and the repr, as a failure message shows the returned value."""
        return f"<{self.kind} {self.shown}>"

    def __eq__(self, other: object) -> bool:
        """Equal to a placeholder of the same type and repr (never to a real value)."""
        return isinstance(other, Unsupported) and (self.kind, self.shown) == (
            other.kind,
            other.shown,
        )

    def __hash__(self) -> int:
        """The hash of the type and the repr."""
        return hash((self.kind, self.shown))


def _npy(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _encode(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise CodecError(f"a value nested deeper than {_MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {_TAG: "float", "v": repr(value)}
    if isinstance(value, np.generic):
        if value.dtype.kind == "O":
            return _encode(value.item(), depth + 1)
        return {_TAG: "scalar", "v": _npy(np.asarray(value))}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OV":
            items = [_encode(v, depth + 1) for v in value.ravel().tolist()]
            return {_TAG: "objects", "shape": list(value.shape), "v": items}
        return {_TAG: "array", "v": _npy(value)}
    if isinstance(value, list):
        return [_encode(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {_TAG: "tuple", "v": [_encode(v, depth + 1) for v in value]}
    if isinstance(value, set | frozenset):
        items = sorted((_encode(v, depth + 1) for v in value), key=repr)
        return {_TAG: "frozenset" if isinstance(value, frozenset) else "set", "v": items}
    if isinstance(value, dict):
        if all(isinstance(k, str) and k != _TAG for k in value):
            return {k: _encode(v, depth + 1) for k, v in value.items()}
        pairs = [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in value.items()]
        return {_TAG: "dict", "v": pairs}
    if isinstance(value, bytes | bytearray):
        return {_TAG: "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    if hasattr(value, "__array__"):
        try:
            array = np.asarray(value)
        except Exception:  # a broken __array__ of the student's object
            array = None
        if array is not None:
            return _encode(array, depth + 1)
    try:
        shown = repr(value)[:200]
    except Exception:  # a student's __repr__ may raise
        shown = "(no repr)"
    return {_TAG: "unsupported", "kind": type(value).__name__, "v": shown}


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    tag = value.get(_TAG)
    if tag is None:
        return {k: _decode(v) for k, v in value.items()}
    data = value.get("v")
    if tag == "float":
        return float(data)
    if tag in ("array", "scalar"):
        array = np.load(io.BytesIO(base64.b64decode(data, validate=True)), allow_pickle=False)
        return array[()] if tag == "scalar" else array
    if tag == "objects":
        items = [_decode(v) for v in data]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape([int(n) for n in value["shape"]])
    if tag == "tuple":
        return tuple(_decode(v) for v in data)
    if tag in ("set", "frozenset"):
        items = (_decode(v) for v in data)
        return set(items) if tag == "set" else frozenset(items)
    if tag == "dict":
        return {_decode(k): _decode(v) for k, v in data}
    if tag == "bytes":
        return base64.b64decode(data, validate=True)
    if tag == "unsupported":
        return Unsupported(str(value.get("kind")), str(data))
    raise CodecError(f"unknown tag {tag!r}")


def dumps(value: Any) -> bytes:
    """``value`` as one line of JSON (no newline inside), ending in a newline."""
    return json.dumps(_encode(value, 0), separators=(",", ":")).encode() + b"\n"


def loads(line: bytes, max_bytes: int) -> Any:
    """The value of one line written by :func:`dumps`.

    Raises:
        CodecError: when the line is longer than ``max_bytes``, is not JSON, or holds a value
            that cannot be read back (an unknown tag, a malformed array, a pickled array).
    """
    if len(line) > max_bytes:
        raise CodecError(f"a message of {len(line)} bytes, more than the {max_bytes} allowed")
    try:
        return _decode(json.loads(line))
    except CodecError:
        raise
    except (ValueError, TypeError, KeyError, RecursionError, AttributeError) as exc:
        raise CodecError(f"not plain data: {type(exc).__name__}: {exc}") from None
