"""Tests for Part III's typed configurations and the set-up chapters 32 to 34 build from them
(probekit.experiments.part3_pareto.config and .experimental_setup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto import experimental_setup, representations
from probekit.experiments.part3_pareto.config import (
    LeadComparisonConfig,
    MemorisationConfig,
    ParametricConfig,
    ParetoSetupConfig,
    ParsingConfig,
    ToyTasksConfig,
)
from probekit.experiments.part3_pareto.layer_choice import SELECTION_MLP
from probekit.methods.pareto import architectures
from probekit.probes.biaffine import PARSE_OPTIONS, PARSER_BETAS, PARSER_CLIP
from probekit.probes.training import TrainOptions

TINY = str(Path(__file__).parent / "fixtures" / "tiny")


def setup_params(**changes):
    """Parameters every probing chapter declares, on the tiny treebank."""
    params = dict(
        treebank=TINY,
        model="default",
        layer=-1,
        pooling="mean",
        representations=["onehot", "random"],
        n_train=0,
        n_dev=0,
        n_test=0,
        sample_seed=42,
        type_dim=4,
        fasttext_dim=8,
        fasttext_epochs=1,
        fasttext_path="",
        seed=3,
        seeds=[3, 4],
        batch_size=16,
        lr=0.01,
        eval_every=5,
        patience=2,
        max_steps=20,
        schedule="constant",
        results_dir="build/results",
    )
    return params | changes


def parametric_params(**changes):
    extra = dict(
        tasks=["posl", "dal"],
        families=["nuclear", "rank"],
        n_probes=3,
        alpha_max=0.125,
        max_norm=400.0,
        simple_fraction=0.1,
        n_boot=100,
    )
    return setup_params(**extra) | changes


def memorisation_params(**changes):
    extra = dict(
        tasks=["posl", "dal"],
        controls=["label_shuffled", "fully_shuffled"],
        n_configs=4,
        max_hidden=64,
        n_memorise=16,
        memorise_steps=5,
        simple_budget=0.5,
        n_boot=100,
    )
    return setup_params(**extra) | changes


def parsing_params(**changes):
    extra = dict(
        controls=["label_shuffled", "fully_shuffled"],
        reference_parser=True,
        linear=True,
        n_configs=2,
        max_hidden=32,
        n_probes=2,
        alpha_max=0.0625,
        n_memorise=2,
        memorise_steps=3,
        max_norm=700.0,
        simple_budget=0.5,
        simple_fraction=0.1,
        n_boot=100,
        claim_seeds=[1, 2],
    )
    return setup_params(**extra) | changes


CONFIGS = [
    (ToyTasksConfig, lambda **c: dict(treebank=TINY, lookup_sizes=[1, 0], sample_seed=0) | c),
    (ParametricConfig, parametric_params),
    (MemorisationConfig, memorisation_params),
    (ParsingConfig, parsing_params),
    (LeadComparisonConfig, lambda **c: dict(results_dir="build/results") | c),
]


@pytest.mark.parametrize("cls, params", CONFIGS)
def test_configs_read_exactly_their_parameters(cls, params):
    namespace = params() | {"unrelated": object(), "g": None}
    config = cls.from_parameters(namespace)
    # ``device``, not set here, is the base class's (tests/test_devices.py).
    assert {f: getattr(config, f) for f in config.__dataclass_fields__} == params() | {
        "device": "auto"
    }


@pytest.mark.parametrize("cls, params", CONFIGS)
def test_a_missing_parameter_is_named(cls, params):
    for name in params():
        namespace = params()
        del namespace[name]
        with pytest.raises(ParameterError, match=f"'{name}'") as info:
            cls.from_parameters(namespace)
        assert info.value.name == name


@pytest.mark.parametrize(
    "cls, params, name, value",
    [
        (ToyTasksConfig, CONFIGS[0][1], "lookup_sizes", [1.5]),
        (ParametricConfig, parametric_params, "n_probes", "3"),
        (MemorisationConfig, memorisation_params, "controls", "label_shuffled"),
        (ParsingConfig, parsing_params, "linear", 1),
        (ParsingConfig, parsing_params, "lr", True),
        (ParsingConfig, parsing_params, "claim_seeds", 1),
    ],
)
def test_a_wrong_type_is_named(cls, params, name, value):
    with pytest.raises(ParameterError, match=f"'{name}'") as info:
        cls.from_parameters(params(**{name: value}))
    assert info.value.name == name


@pytest.mark.parametrize(
    "cls, params, name, value",
    [
        (ToyTasksConfig, CONFIGS[0][1], "lookup_sizes", []),
        (ToyTasksConfig, CONFIGS[0][1], "lookup_sizes", [100, -1]),
        (ParametricConfig, parametric_params, "representations", ["bert"]),
        (ParametricConfig, parametric_params, "representations", ["onehot", "onehot"]),
        (ParametricConfig, parametric_params, "n_train", -1),
        (ParametricConfig, parametric_params, "type_dim", 0),
        (ParametricConfig, parametric_params, "lr", 0.0),
        (ParametricConfig, parametric_params, "tasks", ["ner"]),
        (ParametricConfig, parametric_params, "families", ["nuclear", "mlp"]),
        (ParametricConfig, parametric_params, "n_probes", 1),
        (ParametricConfig, parametric_params, "alpha_max", 0.0),
        (ParametricConfig, parametric_params, "max_norm", 0.0),
        (ParametricConfig, parametric_params, "simple_fraction", 1.5),
        (MemorisationConfig, memorisation_params, "controls", ["normal"]),
        (MemorisationConfig, memorisation_params, "tasks", []),
        (MemorisationConfig, memorisation_params, "max_hidden", 16),
        (MemorisationConfig, memorisation_params, "n_configs", -1),
        (MemorisationConfig, memorisation_params, "n_memorise", -1),
        (MemorisationConfig, memorisation_params, "memorise_steps", 0),
        (MemorisationConfig, memorisation_params, "simple_budget", 0.0),
        (ParsingConfig, parsing_params, "n_probes", 1),
        (ParsingConfig, parsing_params, "n_boot", 0),
        (ParametricConfig, parametric_params, "n_boot", 99),
        (MemorisationConfig, memorisation_params, "n_boot", 10),
        (ParsingConfig, parsing_params, "claim_seeds", [1]),
        (ParsingConfig, parsing_params, "claim_seeds", [3, 3]),
        (ParametricConfig, parametric_params, "seeds", [1]),
        (MemorisationConfig, memorisation_params, "seeds", [2, 2]),
        (ParsingConfig, parsing_params, "seeds", [1, 2, 1]),
        (ParsingConfig, parsing_params, "patience", 0),
        (LeadComparisonConfig, CONFIGS[4][1], "results_dir", " "),
    ],
)
def test_bad_values_are_named_before_anything_loads(cls, params, name, value):
    with pytest.raises(ParameterError) as info:
        cls.from_parameters(params(**{name: value}))
    assert info.value.name == name


def test_rank_only_chapters_may_train_one_probe_and_linear_off_skips_the_grid():
    config = ParametricConfig.from_parameters(parametric_params(families=["rank"], n_probes=1))
    assert config.n_probes == 1
    config = ParsingConfig.from_parameters(parsing_params(linear=False, n_probes=1))
    assert not config.linear


def test_derived_settings():
    parametric = ParametricConfig.from_parameters(parametric_params())
    assert parametric.architectures(3) == [] and not parametric.fully_shuffled()
    assert parametric.train_options() == TrainOptions(
        batch_size=16, lr=0.01, eval_every=5, patience=2, max_steps=20
    )
    memo = MemorisationConfig.from_parameters(memorisation_params())
    # Every training seed replicates the random search with draws of its own.
    for seed in (3, 4):
        drawn = architectures.sample_mlp_configs(4, seed=seed, max_hidden=64)
        assert memo.architectures(seed) == drawn
    assert memo.architectures(3) != memo.architectures(4)
    assert memo.fully_shuffled() and memo.complexity_control == "label_shuffled"
    # Chapter 33 runs every control under every seed; chapter 34 its figure-only fully-shuffled
    # control under the first seed.
    assert memo.conditions(4) == ["normal", "label_shuffled", "fully_shuffled"]
    both = ParsingConfig.from_parameters(
        parsing_params(controls=["label_shuffled", "fully_shuffled"])
    )
    assert both.conditions(both.seeds[0]) == ["normal", "label_shuffled", "fully_shuffled"]
    assert both.conditions(both.seeds[1]) == ["normal", "label_shuffled"]
    only_full = MemorisationConfig.from_parameters(memorisation_params(controls=["fully_shuffled"]))
    assert only_full.complexity_control == "fully_shuffled"
    parsing = ParsingConfig.from_parameters(parsing_params(controls=["label_shuffled"]))
    assert not parsing.fully_shuffled()
    # Parsers score whole sentences, in the smaller evaluation batches of the parsing options.
    assert parsing.train_options().eval_batch_size == PARSE_OPTIONS.eval_batch_size
    assert parsing.train_options().batch_size == 16
    # Parsers train with Dozat & Manning's optimiser, under the chapter's schedule.
    assert parsing.train_options().betas == PARSER_BETAS
    assert parsing.train_options().clip == PARSER_CLIP
    plateau = ParsingConfig.from_parameters(parsing_params(schedule="plateau"))
    assert plateau.train_options().lr_decay == 0.5
    # Every seed of chapter 34 trains the reference parser after its own draws, unless told not to.
    for seed in (3, 4):
        drawn = architectures.sample_mlp_configs(2, seed=seed, max_hidden=32)
        assert parsing.architectures(seed) == [*drawn, SELECTION_MLP]
    paper = ParsingConfig.from_parameters(parsing_params(reference_parser=False))
    assert paper.architectures(3) == architectures.sample_mlp_configs(2, seed=3, max_hidden=32)


def test_bad_schedules_and_result_directories_are_named():
    with pytest.raises(ParameterError) as info:
        ParsingConfig.from_parameters(parsing_params(results_dir=" "))
    assert info.value.name == "results_dir"
    with pytest.raises(ParameterError) as info:
        ParsingConfig.from_parameters(parsing_params(schedule="cosine"))
    assert info.value.name == "schedule"


def test_setup_builds_what_the_configuration_asks_for():
    config = ParsingConfig.from_parameters(parsing_params())
    setup = experimental_setup.build_pareto_setup(config)
    splits = representations.load_splits(TINY, 0, 0, 0, seed=42)
    assert [len(setup.splits[k]) for k in representations.SPLITS] == [
        len(splits[k]) for k in representations.SPLITS
    ]
    assert setup.treebank.name == "tiny"
    assert list(setup.representations) == ["onehot", "random"]
    assert setup.labels == {"onehot": "one-hot", "random": "random"}
    assert setup.contextual_label == "not run"
    assert setup.representations["random"].dim == 4
    assert setup.architectures == {s: config.architectures(s) for s in (3, 4)}
    # Type-level representations only: the fully-shuffled inputs are not embedded.
    assert setup.shuffled_words is None
    assert setup.options == config.train_options()
    linear = experimental_setup.build_pareto_setup(
        ParametricConfig.from_parameters(parametric_params(representations=["random"]))
    )
    assert linear.architectures == {3: [], 4: []} and list(linear.representations) == ["random"]


def test_base_setup_config_is_a_chapter_config():
    config = ParetoSetupConfig.from_parameters(setup_params())
    assert config.representations == ["onehot", "random"]
    assert config.architectures(3) == [] and not config.fully_shuffled()
