"""Seeds: checking them, turning them into generators, and deriving independent ones.

Every random choice in the book is seeded explicitly; these are the only helpers that accept a
seed, so a bad one is always reported the same way, naming the parameter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import ParameterError


def check_seed(seed: Any, name: str = "seed") -> int:
    """``seed`` as an int, checked.

    Raises :class:`ParameterError` naming ``name`` unless it is a non-negative int.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(name, f"must be a non-negative int, got {seed!r}")
    return int(seed)


def as_generator(seed: int | np.random.Generator, name: str = "seed") -> np.random.Generator:
    """``seed`` as a NumPy Generator.

    A Generator is used as is (so callers can share a stream), a non-negative int seeds a new one;
    anything else raises :class:`ParameterError` naming ``name``.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(name, f"expected a non-negative int or numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def derived_seeds(seed: int, n: int = 3) -> list[int]:
    """``n`` independent 31-bit seeds derived from one ``seed``.

    One seed per use (e.g. init, batch order, dropout), derived through NumPy's ``SeedSequence``.
    """
    state = np.random.SeedSequence(check_seed(seed)).generate_state(n)
    return [int(s) & 0x7FFFFFFF for s in state]
