"""The typed configurations of the Part IV chapters
(probekit.experiments.part4_extrapolation.config)."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from probekit.book.params import read_parameters
from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.config import (
    CriteriaConfig,
    LearningCriteriaConfig,
    ScoringFunctionsConfig,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = {
    "41_scoring_functions": ScoringFunctionsConfig,
    "42_length_criteria": CriteriaConfig,
    "43_tag_criteria": CriteriaConfig,
    "44_learning_criteria": LearningCriteriaConfig,
}
SAMPLE = {
    "treebank": "UD_English-EWT",
    "model": "default",
    "pooling": "last",
    "layers": [0, 3, 6],
    "n_train": 150,
    "n_eval": 150,
    "sample_seed": 42,
    "order_seed": -1,
    "epochs": 3,
    "widen_top_ties": True,
}
CRITERIA = SAMPLE | {"seeds": [1, 2], "size_seed": 0, "compare_layer": -1, "epoch_folds": 2}
ENSEMBLE = {"ensemble_seeds": [11, 12], "ensemble_folds": 2, "fold_seed": 0}


def _type_name(tp) -> str:
    """A type as a parameters cell spells it: "int", "list[int]"."""
    return tp.__name__ if isinstance(tp, type) else str(tp)


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_each_chapter_declares_exactly_what_its_config_reads(slug):
    """The config names every parameter of the chapter's parameters cell, with its type, and
    builds from the declared defaults."""
    declared = read_parameters(NOTEBOOKS / f"{slug}.py")
    config_class = CHAPTERS[slug]
    hints = typing.get_type_hints(config_class)
    fields = [f.name for f in dataclasses.fields(config_class)]
    assert sorted(fields) == sorted(declared)
    for name, parameter in declared.items():
        assert parameter.type == _type_name(hints[name]), name
    config = config_class.from_parameters({n: p.default for n, p in declared.items()})
    assert config.treebank == declared["treebank"].default


def test_a_missing_parameter_is_named():
    namespace = dict(CRITERIA)
    del namespace["seeds"]
    with pytest.raises(ParameterError, match="seeds") as info:
        CriteriaConfig.from_parameters(namespace)
    assert info.value.name == "seeds"
    with pytest.raises(ParameterError) as info:
        LearningCriteriaConfig.from_parameters(CRITERIA)
    assert info.value.name == "ensemble_seeds"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("epochs", "3"),
        ("layers", [0, "3"]),
        ("pooling", 1),
        ("compare_layer", 1.5),
        ("n_train", True),
        ("widen_top_ties", 1),
        ("size_seed", "0"),
    ],
)
def test_a_wrong_type_is_named(name, value):
    with pytest.raises(ParameterError) as info:
        CriteriaConfig.from_parameters(CRITERIA | {name: value})
    assert info.value.name == name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("epochs", 0),
        ("n_train", -1),
        ("n_eval", -5),
        ("seeds", []),
        ("seeds", [1]),
        ("seeds", [3, 3]),
    ],
)
def test_a_bad_value_is_named_before_anything_runs(name, value):
    with pytest.raises(ParameterError) as info:
        CriteriaConfig.from_parameters(CRITERIA | {name: value})
    assert info.value.name == name


def test_scoring_and_learning_configs_check_their_own_fields():
    scoring = SAMPLE | ENSEMBLE | {"score_layer": -1, "n_examples": 5}
    assert ScoringFunctionsConfig.from_parameters(scoring).n_examples == 5
    for name, value in (("ensemble_seeds", []), ("n_examples", -1), ("ensemble_folds", 0)):
        with pytest.raises(ParameterError) as info:
            ScoringFunctionsConfig.from_parameters(scoring | {name: value})
        assert info.value.name == name
    for name, value in (("ensemble_seeds", []), ("ensemble_folds", 0)):
        with pytest.raises(ParameterError) as info:
            LearningCriteriaConfig.from_parameters(CRITERIA | ENSEMBLE | {name: value})
        assert info.value.name == name


def test_order_seed_minus_one_means_corpus_order():
    assert CriteriaConfig.from_parameters(CRITERIA).order is None
    assert CriteriaConfig.from_parameters(CRITERIA | {"order_seed": 7}).order == 7
    config = CriteriaConfig.from_parameters(CRITERIA | {"other_global": object()})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.epochs = 5  # type: ignore[misc]


def test_claims_of_trained_probes_need_two_seeds():
    """One seed hides the seed variance the claims' intervals need, so it is refused by name."""
    with pytest.raises(ParameterError, match="at least 2") as info:
        CriteriaConfig.from_parameters(CRITERIA | {"seeds": [1]})
    assert info.value.name == "seeds"
    assert CriteriaConfig.from_parameters(CRITERIA | {"seeds": [4, 9]}).seeds == [4, 9]


def test_the_scoring_ensemble_shares_no_seed_with_the_probes():
    """An ensemble probe with a probe's seed would be that probe: it would pick its own hard set."""
    learning = CRITERIA | ENSEMBLE | {"seeds": [1, 2]}
    with pytest.raises(ParameterError, match=r"\[2\]") as info:
        LearningCriteriaConfig.from_parameters(learning | {"ensemble_seeds": [2, 3]})
    assert info.value.name == "ensemble_seeds"
    ok = LearningCriteriaConfig.from_parameters(learning | {"ensemble_seeds": [11, 12]})
    assert ok.ensemble_seeds == [11, 12]
