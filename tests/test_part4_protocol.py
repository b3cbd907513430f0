"""The deviation tables of chapters 41-44 (probekit.experiments.part4_extrapolation.protocol):
generated from each chapter's parameters, every departure from Kunz & Kuhlmann 2021 named."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from probekit.book.params import read_parameters
from probekit.experiments.deviations import AS_IN_PAPER, deviation_table
from probekit.experiments.part4_extrapolation import protocol
from probekit.experiments.part4_extrapolation.config import (
    CriteriaConfig,
    LearningCriteriaConfig,
    ScoringFunctionsConfig,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = {
    "41_scoring_functions": (ScoringFunctionsConfig, protocol.PROTOCOL_41),
    "42_length_criteria": (CriteriaConfig, protocol.PROTOCOL_42),
    "43_tag_criteria": (CriteriaConfig, protocol.PROTOCOL_43),
    "44_learning_criteria": (LearningCriteriaConfig, protocol.PROTOCOL_44),
}
# What the paper did, in each chapter's parameters (the treebank release cannot be named).
PAPER = {
    "model": "bert-base-uncased",
    "pooling": "last",
    "layers": [],
    "n_train": 1000,
    "n_eval": 1000,
    "epochs": 5,
    "order_seed": -1,
    "widen_top_ties": False,
    "seeds": list(range(1, 11)),
    "ensemble_seeds": list(range(11, 21)),
    "ensemble_folds": 1,
    "epoch_folds": 1,
}


def defaults(slug: str):
    cls, _ = CHAPTERS[slug]
    return cls.from_parameters(
        {n: p.default for n, p in read_parameters(NOTEBOOKS / f"{slug}.py").items()}
    )


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_the_book_default_departs_where_the_table_says_and_why(slug):
    _, settings = CHAPTERS[slug]
    table = deviation_table(defaults(slug), settings).set_index("setting")
    # the book's defaults: another encoder and treebank release, 10 epochs, widened ties, the
    # epoch chosen on the other fold, and (where there is one) a cross-fitted ensemble
    expected = {"model", "treebank", "epochs", "widen_top_ties"}
    expected |= {"epoch_folds", "ensemble_folds"} & set(table.index)
    assert set(table.index[table["deviates"]]) == expected
    assert (table.loc[~table["deviates"], "why"] == AS_IN_PAPER).all()
    assert (table.loc[table["deviates"], "why"] != AS_IN_PAPER).all()
    assert table.loc["epochs", "ours"] == "10" and "5 epochs" in table.loc["epochs", "paper"]


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_a_run_with_the_papers_values_reads_as_in_the_paper(slug):
    _, settings = CHAPTERS[slug]
    config = defaults(slug)
    paper = {k: v for k, v in PAPER.items() if hasattr(config, k)}
    table = deviation_table(dataclasses.replace(config, **paper), settings).set_index("setting")
    assert list(table.index[table["deviates"]]) == ["treebank"]  # v2.5 cannot be named


def test_every_setting_is_a_parameter_of_its_chapter():
    for slug, (_, settings) in CHAPTERS.items():
        declared = read_parameters(NOTEBOOKS / f"{slug}.py")
        assert {s.parameter for s in settings} <= set(declared), slug
    assert protocol.SEEDS.follows_paper(list(range(10)))  # ten seeds, whichever
    assert not protocol.SEEDS.follows_paper([1, 2])
