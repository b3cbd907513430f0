"""Chapter 01's experiments (probekit.experiments.foundations) and the typed chapter config
(probekit.experiments.config)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import pytest

from probekit.errors import ParameterError
from probekit.experiments.config import ChapterConfig
from probekit.experiments.foundations import corpus
from probekit.experiments.foundations.config import FoundationsConfig
from probekit.experiments.foundations.layerwise import LayerwiseRun

PARAMETERS = {
    "treebank": "UD_English-EWT",
    "model": "default",
    "pooling": "last",
    "layers": [],
    "seeds": [1, 2],
    "n_train": 10,
    "n_eval": 0,
    "sample_seed": 42,
    "order_seed": 0,
    "epochs": 2,
}


def test_config_reads_exactly_its_fields_from_a_namespace():
    namespace = {**PARAMETERS, "unrelated": object(), "g": None}
    config = FoundationsConfig.from_parameters(namespace)
    assert config.seeds == [1, 2] and config.layers == [] and config.epochs == 2


@pytest.mark.parametrize(
    ("name", "value"),
    [("epochs", "2"), ("epochs", 2.0), ("seeds", [1, "2"]), ("model", 3), ("n_train", True)],
)
def test_config_names_a_mistyped_parameter(name, value):
    with pytest.raises(ParameterError, match=f"'{name}'"):
        FoundationsConfig.from_parameters({**PARAMETERS, name: value})


def test_config_names_a_missing_parameter():
    namespace = dict(PARAMETERS)
    del namespace["order_seed"]
    with pytest.raises(ParameterError, match="'order_seed'.*not set"):
        FoundationsConfig.from_parameters(namespace)


def test_config_optional_and_float_fields():
    @dataclass(frozen=True)
    class Example(ChapterConfig):
        rate: float
        layer: Optional[int]  # noqa: UP045 (the spelling chapters use for papermill)

    assert Example.from_parameters({"rate": 1, "layer": None}).layer is None
    assert Example.from_parameters({"rate": 0.5, "layer": -1}).layer == -1
    with pytest.raises(ParameterError, match="'layer'"):
        Example.from_parameters({"rate": 0.5, "layer": "middle"})


def test_lengths_and_labels_of_the_tiny_treebank(tiny):
    sentences = tiny["train"]
    lengths = corpus.lengths(sentences)
    assert lengths.sentences.tolist() == [len(s) for s in sentences]
    assert len(lengths.arcs) == sum(len(s) - 1 for s in sentences)  # one root per sentence
    expected = np.mean(np.concatenate([s.arc_lengths() for s in sentences]) == 1)
    assert lengths.adjacent_share == pytest.approx(expected)
    labels = corpus.labels(sentences)
    assert labels.upos.sum() == sum(len(s) for s in sentences)
    assert labels.relations.sum() == sum(len(s) for s in sentences)
    assert all(":" not in r for r in labels.relations.index)
    assert list(labels.upos) == sorted(labels.upos, reverse=True)


def test_layerwise_summary_by_hand():
    scores = pd.DataFrame(
        {
            "layer": [0, 0, 3, 3, 6, 6],
            "seed": [1, 2] * 3,
            "accuracy": [0.5, 0.7, 0.8, 0.9, 0.9, 0.8],
            "best_epoch": [1] * 6,
        }
    )
    run = LayerwiseRun([], [], scores, majority=0.2)
    table = run.per_layer()
    assert table.loc[3, "mean"] == pytest.approx(85.0)
    assert table.loc[0, "std"] == pytest.approx(100 * np.std([0.5, 0.7], ddof=1))
    assert run.best_layer() == 3  # tie between layers 3 and 6 goes to the lower
    one_seed = LayerwiseRun([], [], scores[scores["seed"] == 1], majority=0.2)
    assert (one_seed.per_layer()["std"] == 0).all()
