"""The representations the probes of Part I read (Hall Maudslay et al. 2020, §4.1): one
layer's word vectors, split by sentence, and layer indices given as parameters.
"""

from __future__ import annotations

import numpy as np

from probekit.errors import ParameterError


def layer_vectors(emb, layer: int) -> list[np.ndarray]:
    """Per-sentence float32 (n_s, d) word vectors of one layer (one read of the whole layer)."""
    block = np.asarray(emb.layer(layer), dtype=np.float32)
    offsets = np.asarray(emb.offsets)
    return [block[offsets[s] : offsets[s + 1]] for s in range(offsets.size - 1)]


def resolve_layer(layer: int, n_layers: int, name: str = "layer") -> int:
    """``layer`` as an index in 0..n_layers − 1; −1 stands for the middle layer
    n_layers // 2."""
    if layer == -1:
        return n_layers // 2
    if not 0 <= layer < n_layers:
        raise ParameterError(
            name, f"layer {layer} outside 0..{n_layers - 1}", "use -1 for the middle layer"
        )
    return int(layer)
