"""The parameters chapter 01 reads, typed (:class:`FoundationsConfig`)."""

from __future__ import annotations

from dataclasses import dataclass

from probekit.experiments.config import ChapterConfig


@dataclass(frozen=True)
class FoundationsConfig(ChapterConfig):
    """Chapter 01: the treebank and model described, and the layer-wise POS probes.

    ``layers`` empty means every layer; ``n_train``/``n_eval`` 0 mean the whole train / dev
    split.
    """

    treebank: str
    model: str
    pooling: str
    layers: list[int]
    seeds: list[int]
    n_train: int
    n_eval: int
    sample_seed: int
    order_seed: int
    epochs: int
