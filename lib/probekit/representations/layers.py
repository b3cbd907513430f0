"""Layers of an encoder, given as parameters, and one layer's word vectors per sentence.

Layer 0 is the embedding output and layer k the output of the k-th transformer block, for every
model (the structural-probe code numbers from the first block instead). A layer index means the
same in every chapter: 0..n_layers - 1 as is, and a negative index counts from the last layer,
as in Python (-1 is the last layer, -2 the one before it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError


def resolve_layer(layer: int, n_layers: int, name: str = "layer") -> int:
    """``layer`` as an index in ``0..n_layers - 1``; negative counts from the end (-1 = last).

    A layer outside ``-n_layers..n_layers - 1`` raises :class:`ParameterError` naming ``name``.
    """
    k = int(layer) + n_layers if layer < 0 else int(layer)
    if not 0 <= k < n_layers:
        raise ParameterError(
            name,
            f"layer {layer} is outside 0..{n_layers - 1}",
            f"the model has {n_layers} layers; negative indices count from the last (-1)",
        )
    return k


def resolve_layers(layers: Sequence[int], n_layers: int, name: str = "layers") -> list[int]:
    """Each of ``layers`` through :func:`resolve_layer`, in order.

    An empty list means every layer ``0..n_layers - 1``. A layer named twice raises
    :class:`ParameterError`.
    """
    chosen = [resolve_layer(k, n_layers, name) for k in layers] or list(range(n_layers))
    if len(set(chosen)) != len(chosen):
        raise ParameterError(name, f"{list(layers)} names a layer twice")
    return chosen


def middle_layer(n_layers: int) -> int:
    """The middle layer ``n_layers // 2`` (3 of 0..6 for a 6-block encoder)."""
    return n_layers // 2


def layer_vectors(emb, layer: int) -> list[np.ndarray]:
    """Per-sentence float32 (n_s, d) word vectors of one layer (one read of the whole layer).

    ``emb`` is anything with ``offsets`` (S + 1,) and ``layer(k)`` (N_words, d), such as
    :class:`probekit.io.embeddings.Embeddings`.
    """
    block = np.asarray(emb.layer(layer), dtype=np.float32)
    offsets = np.asarray(emb.offsets)
    return [block[offsets[s] : offsets[s + 1]] for s in range(offsets.size - 1)]
