"""Position vectors: fixed sinusoids (Vaswani et al. 2017, §3.5).

They are appended to type-level word vectors, so that a probe reading them knows where each word
sits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError


def sinusoidal_positions(n: int, dim: int) -> np.ndarray:
    """Sinusoidal position embeddings (Vaswani et al. 2017, §3.5), float32 (n, dim).

    PE[p, 2i] = sin(p / 10000^(2i/dim)), PE[p, 2i+1] = cos(p / 10000^(2i/dim)) for the 0-based
    position p. The type-level baseline of Hall Maudslay & Cotterell 2021 (§5.1, App. B) appends
    BERT-base's learned position embeddings instead; fixed sinusoids carry the same kind of
    information (where a word sits) with no training.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    if dim < 1:
        raise ParameterError("position_dim", f"must be >= 1, got {dim}")
    pos = np.arange(n, dtype=np.float64)[:, None]
    rate = 1.0 / 10000.0 ** (2 * (np.arange(dim) // 2) / dim)
    angle = pos * rate[None, :]
    out = np.where(np.arange(dim) % 2 == 0, np.sin(angle), np.cos(angle))
    return out.astype(np.float32)


def with_positions(vectors: Sequence[np.ndarray], dim: int) -> list[np.ndarray]:
    """Append :func:`sinusoidal_positions` to per-sentence word vectors.

    S (n_s, d) -> S (n_s, d + dim) float32. ``dim = 0`` returns the vectors unchanged.
    """
    if dim == 0:
        return [np.asarray(v, dtype=np.float32) for v in vectors]
    return [
        np.concatenate([np.asarray(v, dtype=np.float32), sinusoidal_positions(len(v), dim)], axis=1)
        for v in vectors
    ]
