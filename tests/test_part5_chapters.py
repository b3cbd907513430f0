"""Tests of the chapter wiring of Part V (Zhu et al. 2022): typed configurations, the chapters'
steps on a small synthetic treebank, their summaries and verdicts."""

from __future__ import annotations

import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from probekit.book.params import effective_parameters, read_parameters
from probekit.errors import ParameterError
from probekit.experiments.part5_datasize import claims
from probekit.experiments.part5_datasize.assessment import ProblemsAssessment, assess_problems
from probekit.experiments.part5_datasize.bound_tables import (
    BoundSummary,
    bound_table,
    bounds_against_spread,
    run_bound_experiment,
)
from probekit.experiments.part5_datasize.collapse_checks import (
    CollapseChecks,
    run_collapse_checks,
)
from probekit.experiments.part5_datasize.comparison_problems import run_comparison_problems
from probekit.experiments.part5_datasize.comparisons import (
    comparison_table,
    largest_subset_comparison,
    power_test_sizes,
    prospective_power,
)
from probekit.experiments.part5_datasize.config import (
    TYPE_VECTOR_NAMES,
    BoundsConfig,
    ComparisonProblemsConfig,
    DataSizeConfig,
    PowerNoiseConfig,
)
from probekit.experiments.part5_datasize.data import (
    TASK_NAMES,
    TASK_SHORT_NAMES,
    ProbedTreebank,
    tense_task_summary,
)
from probekit.experiments.part5_datasize.encoders import REPS, ExampleEncoder
from probekit.experiments.part5_datasize.figures import (
    bound_curves_figure,
    bounds_figure,
    comparisons_figure,
    noise_power_figure,
)
from probekit.experiments.part5_datasize.noise import (
    NoiseSummary,
    feature_scale,
    run_noise_experiment,
    summarise_noise,
)
from probekit.experiments.part5_datasize.requirements import n_params, requirements_at
from probekit.experiments.part5_datasize.runs import TaskRuns
from probekit.experiments.part5_datasize.training import CLASSIFIERS, CLF_NAMES, ProbingConfig
from probekit.io.embeddings import POOLINGS
from probekit.io.treebanks import load_treebank
from probekit.methods.datasize.pools import TASKS, main_verb_tense
from probekit.stats.bounds import finite_class_bound, n_for_bound
from probekit.stats.comparison import compare

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
CHAPTERS = {
    "51_generalisation_bounds": BoundsConfig,
    "52_power_and_noise": PowerNoiseConfig,
    "53_comparison_problems": ComparisonProblemsConfig,
}
# Small runs: subsets of 4 and 8 examples per class, two seeds, a few updates.
SMALL = {
    "sizes": [4, 8],
    "seeds": [0, 1],
    "epochs": 2,
    "min_updates": 20,
    "lr": 0.05,
    "max_train": 0,
    "layer": 1,
    "n_sim": 50,
    "max_test": 256,
    "sigmas": [0.5, 5.0],
    "type_vectors": "random",
    "type_dim": 4,
    "n_folds": 3,
    "pilot_repeats": 2,
    "pilot_size": 4,
}


def _parameters(slug: str, **overrides) -> dict:
    """The chapter's declared defaults, with ``overrides`` (and SMALL where declared)."""
    declared = read_parameters(NOTEBOOKS / f"{slug}.py")
    values = {name: p.default for name, p in declared.items()}
    values |= {k: v for k, v in SMALL.items() if k in declared}
    return values | overrides


def _config(slug: str, **overrides):
    return CHAPTERS[slug].from_parameters(_parameters(slug, **overrides))


# --------------------------------------------------------------------------------------------
# Typed configurations


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_config_reads_exactly_the_declared_parameters(slug):
    declared = read_parameters(NOTEBOOKS / f"{slug}.py")
    fields = {f.name: f.type for f in CHAPTERS[slug].__dataclass_fields__.values()}
    assert list(fields) != [] and set(fields) == set(declared)
    for name, p in declared.items():
        assert fields[name] == p.type, name


@pytest.mark.parametrize("slug", list(CHAPTERS))
@pytest.mark.parametrize("profile", ["quick", "book", "full"])
def test_config_accepts_every_profile(slug, profile):
    values = effective_parameters(NOTEBOOKS / f"{slug}.py", profile)
    config = CHAPTERS[slug].from_parameters(values)
    assert config.seeds == list(values["seeds"])


def test_notebook_choices_are_the_library_tables():
    """The choices the runner checks (from the help text) are the library's own tables."""
    tables = {"pooling": POOLINGS, "rep": REPS, "tasks": TASKS, "task": TASKS,
              "classifiers": CLASSIFIERS, "type_vectors": tuple(TYPE_VECTOR_NAMES)}  # fmt: skip
    for slug in CHAPTERS:
        for name, p in read_parameters(NOTEBOOKS / f"{slug}.py").items():
            if name in tables:
                assert tuple(p.choices) == tuple(tables[name]), (slug, name)


@pytest.mark.parametrize("slug", list(CHAPTERS))
def test_config_names_a_missing_parameter(slug):
    values = _parameters(slug)
    del values["eta"]
    with pytest.raises(ParameterError, match="'eta'") as err:
        CHAPTERS[slug].from_parameters(values)
    assert err.value.name == "eta"


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("51_generalisation_bounds", "seeds", 3),
        ("51_generalisation_bounds", "delta", "1e-8"),
        ("52_power_and_noise", "sigmas", [0.1, "big"]),
        ("52_power_and_noise", "n_sim", 10.5),
        ("53_comparison_problems", "layer_b", True),
        ("53_comparison_problems", "type_vectors", 3),
    ],
)
def test_config_names_a_wrong_type(slug, name, value):
    with pytest.raises(ParameterError) as err:
        _config(slug, **{name: value})
    assert err.value.name == name


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("51_generalisation_bounds", "tasks", ["past_present", "bigram_shift"]),
        ("51_generalisation_bounds", "tasks", []),
        ("51_generalisation_bounds", "classifiers", ["logreg", "logreg"]),
        ("51_generalisation_bounds", "delta", 1.0),
        ("51_generalisation_bounds", "sizes", [64, 0]),
        ("51_generalisation_bounds", "seeds", [1, 1]),
        ("51_generalisation_bounds", "seeds", [-1]),
        ("51_generalisation_bounds", "rep", "cls"),
        ("51_generalisation_bounds", "pooling", "max"),
        ("51_generalisation_bounds", "eta", 0.0),
        ("51_generalisation_bounds", "max_train", -1),
        ("52_power_and_noise", "task", "bigram_shift"),
        ("52_power_and_noise", "sigmas", [0.1, 0.0]),
        ("52_power_and_noise", "alpha", 0.0),
        ("52_power_and_noise", "max_test", 32),
        ("53_comparison_problems", "type_vectors", "glove"),
        ("53_comparison_problems", "divisor", -2.0),
        ("53_comparison_problems", "collapse_gap", -0.1),
        ("53_comparison_problems", "n_folds", 2),
        ("53_comparison_problems", "pilot_size", 0),
    ],
)
def test_config_names_an_invalid_value(slug, name, value):
    with pytest.raises(ParameterError) as err:
        _config(slug, **{name: value})
    assert err.value.name == name


def test_config_training_uses_one_adam_setting():
    config = _config("53_comparison_problems", lr=0.01, batch_size=32)
    training = config.training()
    assert (training.lr, training.lr_mlp, training.batch_size) == (0.01, 0.01, 32)
    assert (training.epochs, training.min_updates) == (2, 20)
    assert isinstance(config, DataSizeConfig)


# --------------------------------------------------------------------------------------------
# A small synthetic treebank and its word vectors

# Two past and two present sentences, and four without a label (as in test_datasize.py).
CASES = """\
# sent_id = finite-root-{k}
1	She	she	PRON	PRP	Case=Nom	2	nsubj	_	_
2	left	leave	VERB	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	0	root	_	_
3	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = copula-{k}
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	is	be	AUX	VBZ	Mood=Ind|Tense=Pres|VerbForm=Fin	3	cop	_	_
3	happy	happy	ADJ	JJ	Degree=Pos	0	root	_	_

# sent_id = perfect-{k}
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	has	have	AUX	VBZ	Mood=Ind|Tense=Pres|VerbForm=Fin	3	aux	_	_
3	left	leave	VERB	VBN	Tense=Past|VerbForm=Part	0	root	_	_

# sent_id = passive-{k}
1	It	it	PRON	PRP	Case=Nom	3	nsubj:pass	_	_
2	was	be	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	3	aux:pass	_	_
3	taken	take	VERB	VBN	Tense=Past|VerbForm=Part|Voice=Pass	0	root	_	_

# sent_id = modal-{k}
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	will	will	AUX	MD	VerbForm=Fin	3	aux	_	_
3	leave	leave	VERB	VB	VerbForm=Inf	0	root	_	_

# sent_id = fragment-{k}
1	Great	great	ADJ	JJ	Degree=Pos	2	amod	_	_
2	food	food	NOUN	NN	Number=Sing	0	root	_	_

"""
COPIES = 10  # per split: 20 past and 20 present sentences, 40 unlabelled


class FakeEmbeddings:
    """Word vectors of a sentence list with the interface chapters use: ``n_layers``, ``dim``
    and ``layer(k)`` (N_words, dim) float16. Layer k adds k to every word of a past
    sentence, so higher layers separate the tenses better."""

    def __init__(self, sentences, seed: int, n_layers: int = 3, dim: int = 6):
        n = sum(len(s) for s in sentences)
        past = np.concatenate([np.full(len(s), main_verb_tense(s) == "past") for s in sentences])
        rng = np.random.default_rng(seed)
        noise = rng.standard_normal((n_layers, n, dim))
        self._layers = [(noise[k] + k * past[:, None]).astype(np.float16) for k in range(n_layers)]
        self.n_layers, self.dim = n_layers, dim

    def layer(self, k: int) -> np.ndarray:
        return self._layers[k]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("cases")
    for split in ("train", "dev", "test"):
        text = "".join(CASES.format(k=f"{split}-{k}") for k in range(COPIES))
        (root / f"cases-ud-{split}.conllu").write_text(text)
    tb = load_treebank(root)
    embeddings = {k: FakeEmbeddings(tb[k], seed=i) for i, k in enumerate(("train", "dev", "test"))}
    return ProbedTreebank(tb, embeddings)


def test_probed_treebank_resolves_layers(data):
    assert (data.n_layers, data.dim) == (3, 6)
    assert data.layer_index(-1) == 2 and data.layer_index(0) == 0
    with pytest.raises(ParameterError, match="'layer_b'"):
        data.layer_index(3, "layer_b")


def test_tense_task_summary(data):
    summary = tense_task_summary(data.treebank, eta=4.0)
    assert (summary.past, summary.present, summary.unlabelled) == (60, 60, 60)
    # The root carries the tense of "She left" only: one of four labelled sentences.
    assert summary.root_share == pytest.approx(0.25)
    # 60 examples per class: size * (1 + 2 / 4) <= 60 gives 40; at eta 1, 3 * size <= 60.
    assert summary.max_size == 40
    assert tense_task_summary(data.treebank, eta=1.0).max_size == 20
    assert "carrier is root" in summary.styled().to_html()


# --------------------------------------------------------------------------------------------
# Chapter 51: requirements and the bound against the runs


def test_requirements_at_a_run_dimension():
    needs = requirements_at(4096, 1e-8)
    # §3.4: about 40k examples for a bound of 0.05 on InferSent's 4,096 dimensions.
    assert round(needs.need_logreg, -3) == 40_000
    assert needs.need_logreg == n_for_bound(0.05, 4097, 1e-8)
    assert needs.params_logreg == 4097 and needs.params_mlp == n_params("mlp20", 4096, 2)
    assert needs.d_ratio == n_for_bound(0.05, 4097, 1e-8) / n_for_bound(0.05, 301, 1e-8)
    assert needs.delta_ratio > 1 and needs.need_mlp > needs.need_logreg
    assert needs.mlp_ratio == needs.need_mlp / needs.need_logreg
    # n grows with the square of 1 / bound, so the bound is sqrt(ratio) times wider.
    assert needs.mlp_wider == pytest.approx(100 * (math.sqrt(needs.mlp_ratio) - 1))
    assert needs.paper_bound == pytest.approx(finite_class_bound(65_536, 4097, 1e-8))
    assert needs.honest_bound > 10 * needs.paper_bound
    assert needs.honest_need > 100 * needs.need_logreg
    table = needs.styled().data
    assert list(table.columns) == ["ε = 0.01", "ε = 0.05", "ε = 0.1"]
    assert set(table.index.get_level_values(0)) == {"LogReg", "MLP-20"}
    assert set(table.index.get_level_values(1)) == {300, 768, 4096}


def test_bound_summary_on_hand_built_tables():
    head = pd.DataFrame({"n_train": [100, 400], "acc": [0.8, 0.9], "sd": [0.02, 0.01],
                         "bound": [0.4, 0.2]})  # fmt: skip
    summary = pd.DataFrame({"task": ["pos", "pos"], "probe": ["LogReg", "LogReg"],
                            "n_train": [100, 400], "sd": [0.02, 0.01], "bound": [0.4, 0.2],
                            "inside": [1.0, 0.5]})  # fmt: skip
    bounds = BoundSummary({("pos", "LogReg"): head}, summary)
    assert bounds.inside_share == 75.0
    assert (bounds.ratio_min, bounds.ratio_median) == (20.0, 20.0)
    # SD halves while n quadruples: slope log(1/2) / log(4) = -0.5.
    assert bounds.sd_slope == pytest.approx(-0.5)
    assert (bounds.head_task, bounds.head_probe, bounds.head_n) == ("part of speech", "LogReg", 400)
    assert (bounds.head_acc, bounds.head_sd, bounds.head_bound) == pytest.approx((90, 1, 20))
    shown = bounds.styled().data
    assert shown["runs inside (%)"].tolist() == [100.0, 50.0]


def test_bound_experiment_and_summary(data):
    config = _config("51_generalisation_bounds", classifiers=["mlp20", "logreg"])
    experiment = run_bound_experiment(config, data)
    assert list(experiment.runs) == ["past_present", "pos"]
    assert experiment.head is experiment.runs["past_present"]
    assert experiment.head.sizes_text == "4, 8"
    assert (experiment.head.top_n_train, experiment.head.top_n_test) == (16, 4)
    assert [c.name for c in experiment.head.configs] == ["MLP-20", "LogReg"]
    bounds = bounds_against_spread(experiment, config.delta)
    assert list(bounds.tables) == [
        ("past_present", "MLP-20"), ("past_present", "LogReg"), ("pos", "MLP-20"), ("pos", "LogReg")
    ]  # fmt: skip
    assert bounds.head_task == TASK_NAMES["past_present"] and bounds.head_probe == "MLP-20"
    expected = bound_table(experiment.runs["pos"], "LogReg", delta=config.delta)
    pd.testing.assert_frame_equal(bounds.tables[("pos", "LogReg")], expected)
    assert len(bounds.summary) == 4 * 2
    # Margins of +-bound at a few dozen examples are wider than any accuracy range.
    assert bounds.inside_share == 100.0
    fig = bounds_figure(bounds)
    assert len(fig.axes) == 2 and fig.axes[0].get_title() == TASK_NAMES["past_present"]


def test_bound_curves_figure():
    fig = bound_curves_figure(384, 1e-8)
    (ax,) = fig.axes
    assert len(ax.lines) == 3 + 3  # three bounds and three epsilons
    assert ax.get_legend_handles_labels()[1][0] == "LogReg, D = 384"


# --------------------------------------------------------------------------------------------
# Chapter 52: noise


def test_feature_scale(monkeypatch):
    X = np.array([[0.0, 0.0], [2.0, 2.0]], dtype=np.float32)
    encoder = ExampleEncoder("x", 2, lambda idx: X[idx])
    sd, norm = feature_scale(encoder, 2)
    assert sd == pytest.approx(1.0) and norm == pytest.approx(math.sqrt(2))
    seen = []
    wide = ExampleEncoder("w", 2, lambda idx: seen.append(idx) or np.ones((len(idx), 2)))
    monkeypatch.setattr("probekit.experiments.part5_datasize.noise.SCALE_ROWS", 5)
    assert feature_scale(wide, 100) == (0.0, pytest.approx(math.sqrt(2)))
    assert len(seen[0]) == 5 and np.all(np.diff(seen[0]) > 0)


def test_noise_summary_on_a_hand_built_table():
    table = pd.DataFrame({"σ": [0.1, 1.0, 3.0], "projected n_test for 0.8": [0, 512, 64]})
    summary = NoiseSummary(table, ["small", "mid", "large"], pd.Series([0.2, 0.9, 1.0]),
                           rho=1.0, max_test=4096)  # fmt: skip
    assert summary.n_sigmas == 3 and summary.n_powered_top == 2
    assert summary.smallest_powered == "σ = 1" and summary.largest_unpowered == "σ = 0.1"
    assert summary.projected_need(1.0) == 512 and summary.projected_need(0.03) == -1
    assert summary.max_test_text == "4,096"


def test_noise_experiment_and_summary(data):
    config = _config("52_power_and_noise")
    noise = run_noise_experiment(config, data)
    assert list(noise.names.values()) == ["σ = 0.5", "σ = 5"]
    assert [c.name for c in noise.runs.configs] == ["clean", "σ = 0.5", "σ = 5"]
    assert noise.sizes == "4, 8" and (noise.small_test, noise.top_test) == (2, 4)
    assert noise.top_train == 16 and 0 <= noise.clean_acc <= 100
    assert noise.sd_ratio == pytest.approx(1 / noise.feature_sd)
    expected = comparison_table(noise.runs, "clean", "σ = 5", eta=config.eta,
                                alpha=config.alpha, n_sim=config.n_sim)  # fmt: skip
    pd.testing.assert_frame_equal(noise.tables[5.0], expected)
    summary = summarise_noise(noise, config)
    assert summary.table["σ"].tolist() == [0.5, 5.0] and len(summary.summaries) == 2
    top = noise.runs.sizes[-1]
    cmp = compare(noise.runs.correct[("clean", top, 0)], noise.runs.correct[("σ = 5", top, 0)],
                  "clean", "σ = 5", alpha=config.alpha, n_sim=config.n_sim)  # fmt: skip
    assert summary.summaries[-1] == cmp.summary()
    assert summary.power_top.tolist() == [t["power"].iloc[-1] for t in noise.tables.values()]
    assert not any(c.startswith("verdict") for c in summary.table.columns)
    # The claims of §4.3 read the same tables, seed by seed.
    growth = claims.power_growth_interval(noise.tables)
    top = np.mean([t["significant"].iloc[-1] for t in noise.tables.values()])
    small = np.mean([t["significant"].iloc[0] for t in noise.tables.values()])
    assert growth.estimate == pytest.approx(top - small)
    assert growth.n_sentences == 0 and growth.n_seeds[0] == len(noise.runs.seeds)
    sigma = claims.power_sigma_interval(noise.tables)
    assert sigma.estimate == pytest.approx(
        noise.tables[5.0]["power"].iloc[-1] - noise.tables[0.5]["power"].iloc[-1]
    )
    assert "σ" not in summary.styled().data.columns  # the index
    fig = noise_power_figure(noise)
    assert [ax.get_title() for ax in fig.axes] == ["Accuracy", "Power against the clean probe"]


# --------------------------------------------------------------------------------------------
# Chapter 53: comparison problems, their assessment and collapse checks


@pytest.fixture(scope="module")
def problems(data):
    config = _config("53_comparison_problems", layer=0, layer_b=-1)
    return config, run_comparison_problems(config, data)


def test_comparison_problems(problems):
    config, p = problems
    assert p.pairs["layers"][:2] == ("LogReg on layer 0", "LogReg on layer 2")
    assert p.pairs["type"][1] == "LogReg on type-level vectors"
    assert p.pairs["classifiers"] == (
        "LogReg on layer 0", "MLP-20 on layer 0", "LogReg vs MLP-20 (layer 0)"
    )  # fmt: skip
    assert (p.head, p.head_task, p.head_sizes) == ("past_present", "tense", "4, 8")
    assert p.other_tasks == TASK_SHORT_NAMES["pos"]
    assert (p.params("logreg"), p.params("mlp20")) == (7, n_params("mlp20", 6, 2))
    a, b, _ = p.pairs["type"]
    expected = comparison_table(p.runs("pos"), a, b, delta=config.delta, eta=config.eta,
                                alpha=config.alpha, n_sim=config.n_sim,
                                divisor=config.divisor)  # fmt: skip
    pd.testing.assert_frame_equal(p.tables[("pos", "type")], expected)
    # The tense signal grows with the layer, so the last layer beats the first.
    assert p.tables[("past_present", "layers")]["gap"].iloc[-1] < 0
    assert list(p.per_size("pos", "layers").columns)[:2] == ["training examples", "test examples"]
    assert "comparison" in p.styled_task("pos").data.index.names
    assert "recommended N_train" in p.styled_per_size("pos", "type").to_html()
    fig = comparisons_figure(p)
    assert len(fig.axes) == 6


def test_assessment(problems):
    config, p = problems
    assessment = assess_problems(p, config)
    assert list(assessment.outcomes) == list(p.tables)
    outcome = assessment.outcomes[("pos", "type")]
    a, b, _ = p.pairs["type"]
    cmp, needed = largest_subset_comparison(
        p.runs("pos"), a, b, alpha=config.alpha, n_sim=config.n_sim, max_test=config.max_test
    )
    assert outcome.comparison.summary() == cmp.summary() and outcome.needed == needed
    values = assessment.glue_values()
    assert values["pos_type_summary"] == cmp.summary()
    assert values["head_layers_n_train"] == p.runs("past_present").top_n_train
    assert len(values) == 6 * 11 and not any(k.endswith("_verdict") for k in values)
    overview = assessment.overview
    assert overview["comparison"].tolist()[:3] == [p.pairs[k][2] for k in p.pairs]
    assert assessment.n_comparisons == 6
    assert assessment.rec_spread >= 1.0
    assert not any("verdict" in c for c in assessment.styled_overview().data.columns)
    # The least ratio of recommendation to McNemar's need: the pair with the fewest parameters.
    floors = {k: o.floor for k, o in assessment.outcomes.items()}
    assert assessment.floor_min == min(floors.values()) > 1


def test_every_glued_comparison_key_of_the_prose_exists(problems):
    config, p = problems
    values = assess_problems(p, config).glue_values()
    prose = (NOTEBOOKS / "53_comparison_problems.py").read_text()
    used = set(re.findall(r"ch53_((?:head|pos|past_present)_(?:layers|type|classifiers)_\w+?)[`:]",
                          prose))  # fmt: skip
    assert used and used <= set(values)


def test_assessment_numbers_on_a_hand_built_overview():
    overview = pd.DataFrame({
        "task": ["tense", "tense", "pos"],
        "comparison": ["x", "y", "z"],
        "training examples": [100, 100, 100],
        "recommended N_train": [50.0, 1000.0, np.nan],
        "power": [0.9, 0.5, 0.95],
        "first N_train with power ≥ 0.8": [20, 0, 200],
        "_rec_min": [40.0, 900.0, np.inf],
        "_abs_gap": [0.1, 0.004, 0.2],
    })  # fmt: skip
    assessment = ProblemsAssessment({}, overview, "past_present")
    assert assessment.n_well_powered == 2 and assessment.well_list == "x (tense); z (pos)"
    assert assessment.weak_list == "y (tense)"
    assert (assessment.n_reached, assessment.n_above) == (2, 1)
    assert assessment.factor_text.startswith(
        "For the 2 comparisons that reach a power of 0.8 on our subsets, the smallest "
        "recommendation is 2 to inf times"
    )
    assert "at most 0.4 points" in assessment.weak_text
    assert "at least 1,000 examples" in assessment.weak_text
    assert assessment.rec_spread == 1.0  # no outcomes
    assert math.isnan(assessment.floor_min)
    none = ProblemsAssessment({}, overview.assign(**{"first N_train with power ≥ 0.8": 0}), "x")
    assert none.factor_text == "No comparison reaches a power of 0.8 on our subsets"


def test_collapse_checks(problems):
    config, p = problems
    assessment = assess_problems(p, config)
    checks = run_collapse_checks(p, assessment, config)
    smallest = assessment.overview.nsmallest(1, "_abs_gap")["comparison"].iloc[0]
    assert smallest in set(checks.table["comparison"])
    assert set(checks.table["check"]) == {"rotating folds", "repeated pilots"}
    folds = checks.table[checks.table["check"] == "rotating folds"]
    assert set(folds["splits"]) == {config.n_folds}
    pilots = checks.table[checks.table["check"] == "repeated pilots"]
    assert set(pilots["splits"]) == {config.pilot_repeats}
    assert checks.n_checked == len(checks.candidates) >= 1
    assert "sign flips" in checks.styled().to_html()


def test_collapse_check_numbers_on_a_hand_built_table():
    table = pd.DataFrame({
        "task": ["tense", "tense", "pos"],
        "comparison": ["clf", "clf", "layers"],
        "check": ["rotating folds", "repeated pilots", "rotating folds"],
        "reading": ["likely collapsed", "stable", "unclear"],
    })  # fmt: skip
    candidates = pd.DataFrame({"task": ["tense", "pos"], "comparison": ["clf", "layers"]})
    checks = CollapseChecks(candidates, table, "clf")
    assert checks.n_checked == 2 and checks.checked_list == "clf (tense); layers (pos)"
    assert checks.readings == "layers (pos): unclear; clf (tense): likely collapsed / stable"
    assert (checks.clf_checks, checks.clf_collapsed, checks.clf_stable) == (2, 1, 1)


# --------------------------------------------------------------------------------------------
# Power of one comparison, and the verdicts


def test_power_test_sizes():
    assert power_test_sizes(64) == [64]
    assert power_test_sizes(1000) == [64, 128, 256, 512]
    assert power_test_sizes(4096)[-1] == 4096 and power_test_sizes(63) == []


def test_largest_subset_comparison_on_hand_built_runs():
    # Seed 0's largest subset: A right on all 40 items, B on the first 10 only.
    correct = {("A", 8, 0): np.ones(40, bool), ("B", 8, 0): np.arange(40) < 10,
               ("A", 8, 1): np.ones(40, bool), ("B", 8, 1): np.arange(40) < 20,
               ("A", 4, 0): np.ones(40, bool), ("B", 4, 0): np.zeros(40, bool)}  # fmt: skip
    runs = SimpleNamespace(sizes=(4, 8), seeds=(0, 1), correct=correct)
    cmp, needed = largest_subset_comparison(runs, "A", "B", alpha=0.05, n_sim=200, max_test=256)
    assert (cmp.n, cmp.diff) == (40, pytest.approx(0.75))
    assert cmp.verdict == "A better"
    curve = prospective_power(runs, "A", "B", 8, power_test_sizes(256), n_sim=200)
    assert needed == curve.loc[curve["power"] >= 0.8, "n"].iloc[0] == 64


def test_task_runs_head_is_the_first_task():
    first, second = SimpleNamespace(name="a"), SimpleNamespace(name="b")
    runs = TaskRuns({}, {}, {"pos": first, "past_present": second})
    assert runs.head is first


def test_classifier_names_cover_the_classifiers():
    assert set(CLF_NAMES) == set(CLASSIFIERS)
    assert ProbingConfig("x", "enc").classifier in CLASSIFIERS
