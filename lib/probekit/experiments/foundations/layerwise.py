"""A first layer-wise picture (chapter 01): linear UPOS probes per layer and seed.

A linear softmax probe of UPOS tags per layer and seed, scored on held-out sentences at its best
epoch, as Kunz & Kuhlmann 2021 (§3.6) report probes, beside the majority baseline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.experiments import plots
from probekit.experiments.foundations.config import FoundationsConfig
from probekit.io import embeddings
from probekit.io.treebanks import UPOS_TAGS, Sentence, Treebank, sample_sentences, upos_index
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
    device: str = "cpu",
) -> tuple[pd.DataFrame, float]:
    """Linear POS probe accuracy per (layer, seed), and the majority baseline.

    Both are scored on ``eval_sentences``; the majority baseline is the training set's most
    frequent tag, scored on ``eval_sentences``.

    One probe per layer (``layers``; empty means all) and seed, every probe seeing the training
    words in the order drawn from ``order_seed``, trained together
    (:func:`probekit.probes.softmax.train_softmax_probes`). Embeddings come from the cache.
    Returns a table with one row per (layer, seed): ``accuracy`` (fraction, best epoch) and
    ``best_epoch`` (1-based), and the majority accuracy (fraction). ``device``: where the
    encoder (on a cache miss) and the probes run (:func:`probekit.devices.resolve_device`).
    """
    e_tr = embeddings.embed(train_sentences, model, pooling, progress=progress, device=device)
    e_ev = embeddings.embed(eval_sentences, model, pooling, progress=progress, device=device)
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
        device=device,
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


@dataclass(frozen=True)
class LayerwiseRun:
    """Chapter 01's probes: the sentence samples, the probe scores and the majority baseline.

    The sentence samples, one row per (layer, seed) of :func:`layerwise_pos`, and the majority
    baseline (fraction).
    """

    train: list[Sentence]
    eval: list[Sentence]
    scores: pd.DataFrame
    majority: float

    def per_layer(self) -> pd.DataFrame:
        """Mean and SD over seeds of the best-epoch accuracy per layer, in points.

        The SD divides by n - 1; it is 0 for one seed.
        """
        stats = self.scores.groupby("layer")["accuracy"].agg(["mean", "std"])
        return 100 * stats.fillna({"std": 0.0})  # one seed has no spread

    def best_layer(self) -> int:
        """The layer of the highest mean accuracy (ties: the lowest)."""
        means = self.per_layer()["mean"]
        return int(means.index[int(np.argmax(means.to_numpy()))])

    def figure(self):
        """Accuracy per layer (mean ± SD over seeds) beside the majority baseline."""
        return plots.layer_curves(
            self.scores.assign(accuracy=100 * self.scores["accuracy"]),
            "accuracy",
            "POS accuracy (%)",
            chance=100 * self.majority,
            title="Linear POS probe by layer",
        )


def run_layerwise(config: FoundationsConfig, treebank: Treebank) -> LayerwiseRun:
    """Sample chapter 01's sentences and train its layer-wise POS probes.

    The training (train split) and evaluation (dev split) sentences are sampled with
    ``config.sample_seed``; the probes are those of :func:`layerwise_pos`.
    """
    train = sample_sentences(treebank["train"], config.n_train, seed=config.sample_seed)
    evaluation = sample_sentences(treebank["dev"], config.n_eval, seed=config.sample_seed)
    scores, majority = layerwise_pos(
        train,
        evaluation,
        config.model,
        config.pooling,
        config.layers,
        config.seeds,
        epochs=config.epochs,
        order_seed=config.order_seed,
        device=config.device,
    )
    return LayerwiseRun(list(train), list(evaluation), scores, majority)
