"""Argument checks shared by the modules of :mod:`probekit.stats`.

Each raises :class:`~probekit.errors.ParameterError` naming the argument, so that a bad call
fails where it is made rather than as a NaN several steps later.
"""

from __future__ import annotations

import math

import numpy as np

from probekit.errors import ParameterError


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int, checked to be an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ParameterError(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(value)


def positive_float(name: str, value: object) -> float:
    """``value`` as a float, checked to be finite and > 0."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(name, f"must be a positive number, got {value!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise ParameterError(name, f"must be a positive finite number, got {value!r}")
    return x


def open_unit(name: str, value: object) -> float:
    """``value`` as a float, checked to lie in (0, 1): a probability such as delta or alpha."""
    x = positive_float(name, value)
    if x >= 1:
        raise ParameterError(name, f"must lie in (0, 1), got {value!r}")
    return x


def sample_sizes(name: str, n: object) -> np.ndarray:
    """``n`` (a scalar or an array of any shape) as a float array of the same shape.

    Raises :class:`ParameterError` naming ``name`` unless every value is finite and > 0.
    """
    arr = np.asarray(n, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ParameterError(name, f"must be positive and finite, got {n!r}")
    return arr


def scalar_or_array(arr: np.ndarray) -> float | np.ndarray:
    """A 0-d array as a float, so that a scalar ``n`` gives a scalar bound; others unchanged."""
    return float(arr) if arr.ndim == 0 else arr
