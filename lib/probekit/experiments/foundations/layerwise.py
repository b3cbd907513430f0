"""A first layer-wise picture (chapter 01): a linear softmax probe of UPOS tags per layer and
seed, scored on held-out sentences at its best epoch, as Kunz & Kuhlmann 2021 (§3.6) report
probes, beside the majority baseline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from probekit.io import embeddings
from probekit.io.treebanks import UPOS_TAGS, Sentence, upos_index
from probekit.probes.mlp import ProbeSpec
from probekit.probes.softmax import train_softmax_probes
from probekit.representations.layers import resolve_layers

BATCH_SIZE = 64


def layerwise_pos(
    train_sentences: Sequence[Sentence],
    eval_sentences: Sequence[Sentence],
    model: str,
    pooling: str,
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int = 5,
    lr: float = 1e-3,
    order_seed: int = 0,
    progress: bool = True,
) -> tuple[pd.DataFrame, float]:
    """Linear POS probe accuracy per (layer, seed) on ``eval_sentences``, and the majority
    baseline (the training set's most frequent tag, scored on ``eval_sentences``).

    One probe per layer (``layers``; empty means all) and seed, every probe seeing the training
    words in the order drawn from ``order_seed``, trained together
    (:func:`probekit.probes.softmax.train_softmax_probes`). Embeddings come from the cache.
    Returns a table with one row per (layer, seed): ``accuracy`` (fraction, best epoch) and
    ``best_epoch`` (1-based), and the majority accuracy (fraction).
    """
    e_tr = embeddings.embed(train_sentences, model, pooling, progress=progress)
    e_ev = embeddings.embed(eval_sentences, model, pooling, progress=progress)
    layer_list = resolve_layers(layers, e_tr.n_layers)
    y_tr, y_ev = upos_index(train_sentences), upos_index(eval_sentences)
    specs = [
        ProbeSpec(int(seed), view, order_seed) for view in range(len(layer_list)) for seed in seeds
    ]
    steps = math.ceil(len(y_tr) / BATCH_SIZE)
    correct = train_softmax_probes(
        np.stack([e_tr.layer(k) for k in layer_list]),
        y_tr,
        np.stack([e_ev.layer(k) for k in layer_list]),
        y_ev,
        len(UPOS_TAGS),
        specs,
        epochs=epochs,
        checkpoints=[steps * (e + 1) for e in range(epochs)],
        batch_size=BATCH_SIZE,
        lr=lr,
    )
    accuracy = correct.mean(axis=2)  # (K, epochs)
    table = pd.DataFrame(
        {
            "layer": [layer for layer in layer_list for _ in seeds],
            "seed": [int(seed) for _ in layer_list for seed in seeds],
            "accuracy": accuracy.max(axis=1),
            "best_epoch": accuracy.argmax(axis=1) + 1,
        }
    )
    majority = float((y_ev == np.bincount(y_tr, minlength=len(UPOS_TAGS)).argmax()).mean())
    return table, majority
