"""The random MLP architectures of Pimentel et al. 2020, §6.2.

Layers uniform on 0..5, dropout uniform on [0, 0.5], hidden size log-uniform on [32, 1024].
"""

from __future__ import annotations

import math

import numpy as np

from probekit.errors import ParameterError
from probekit.probes.mlp_stack import MLPConfig
from probekit.seeds import as_generator


def sample_mlp_configs(n: int, seed: int, max_hidden: int = 1024) -> list[MLPConfig]:
    """Random MLP architectures as in Pimentel et al. 2020, §6.2, optionally narrower.

    Number of layers uniform on {0, ..., 5}; dropout uniform on [0, 0.5]; hidden size
    log-uniform on [2^5, 2^10] = [32, 1024], rounded to an int. (The released code instead
    draws the size uniformly from the set {int(2^x): x in 5, 5.01, ..., 9.99}, and dropout on a
    0.01 grid.) When ``max_hidden`` < 1024 the hidden size is mapped monotonically onto a
    log-uniform draw on [32, max_hidden] (log2 h rescaled from [5, 10] to
    [5, log2 max_hidden]), so the same seed gives the same architectures, only narrower.
    Zero-layer configurations (linear probes) have no hidden size; theirs is 0.

    Args:
        n: number of configurations.
        seed: non-negative int.
        max_hidden: in 32..1024.

    Returns:
        n :class:`~probekit.probes.mlp_stack.MLPConfig`.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    if not 32 <= max_hidden <= 1024:
        raise ParameterError("max_hidden", f"must lie in 32..1024, got {max_hidden}")
    rng = as_generator(seed)
    n_layers = rng.integers(0, 6, size=n)
    dropout = rng.uniform(0.0, 0.5, size=n)
    log_h = rng.uniform(5.0, 10.0, size=n)
    top = math.log2(max_hidden)
    # Rescaling log2 h from [5, 10] to [5, top] is the identity when max_hidden = 1024.
    hidden = np.clip(np.rint(2.0 ** (5 + (log_h - 5) * (top - 5) / 5)), 32, max_hidden)
    return [
        MLPConfig(int(layers), int(h) if layers else 0, float(p))
        for layers, h, p in zip(n_layers, hidden, dropout, strict=True)
    ]
