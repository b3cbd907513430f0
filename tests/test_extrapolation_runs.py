"""Tests of the Part IV experiments (probekit.experiments.part4_extrapolation) on fixture
sentences and fake vectors: sample, scores, splits, runs, tables, figures and paired tests."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation import (
    comparisons,
    criteria,
    figures,
    part_gaps,
    runs,
    survey,
    tables,
)
from probekit.experiments.part4_extrapolation import scoring as part4_scoring
from probekit.experiments.part4_extrapolation.config import (
    CriteriaConfig,
    LearningCriteriaConfig,
    ScoringFunctionsConfig,
)
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.sample import Sample, layer_inputs, task_examples
from probekit.experiments.part4_extrapolation.splits import (
    EXPERIMENT_SETUPS,
    SPLIT_SETUPS,
    TASK_SPLITS,
    build_splits,
    split_setups,
)
from probekit.io.cache import Cache
from probekit.io.tasks import pos_examples
from probekit.io.treebanks import UPOS_TAGS, read_conllu
from probekit.methods.extrapolation import scores as scoring
from probekit.methods.extrapolation import splits as extrapolation_splits

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_tagging.conllu"


@dataclass
class FakeEntry:
    key: dict


@dataclass
class FakeEmbeddings:
    """Stands in for probekit.io.embeddings.Embeddings: per-layer (N_words, d) arrays and
    offsets."""

    arrays: list[np.ndarray]
    offsets: np.ndarray
    entry: FakeEntry

    @property
    def n_layers(self) -> int:
        return len(self.arrays)

    def layer(self, k: int) -> np.ndarray:
        return self.arrays[k]


def fake_embeddings(sentences, name: str, seed: int, d: int = 24) -> FakeEmbeddings:
    """Layer 0 is noise; layer 1 adds the word's UPOS one-hot, so it 'knows' POS."""
    lengths = [len(s) for s in sentences]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    y = pos_examples(sentences).y
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=(2, offsets[-1], d)).astype(np.float32)
    noise[1, :, : len(UPOS_TAGS)] += 2 * np.eye(len(UPOS_TAGS), dtype=np.float32)[y]
    return FakeEmbeddings(list(noise), offsets, FakeEntry({"fake": name, "seed": seed}))


@pytest.fixture(scope="module")
def sample():
    sents = read_conllu(FIXTURE)
    train, dev = sents * 30, sents[::-1] * 15
    return Sample(train, dev, fake_embeddings(train, "t", 0), fake_embeddings(dev, "e", 1))


def test_task_examples_and_inputs(sample):
    pos_train, pos_eval = task_examples("pos", sample)
    assert len(pos_train) == sample.emb_train.offsets[-1]
    dep_train, dep_eval = task_examples("deprel", sample)
    assert dep_train.labels == dep_eval.labels  # inventory from the training sentences
    Xt, Xe = layer_inputs(sample, dep_train, dep_eval, [1])
    assert Xt.shape == (1, len(dep_train), 48) and Xe.shape == (1, len(dep_eval), 48)
    with pytest.raises(ParameterError, match="task"):
        task_examples("ner", sample)


def test_static_scores_match_the_scoring_functions(sample):
    train, evaluation = task_examples("pos", sample)
    ts, es = part4_scoring.static_scores("most_frequent_tag", train, evaluation)
    np.testing.assert_array_equal(es, scoring.most_frequent_tag(train, evaluation))
    ts, es = part4_scoring.static_scores("tag_proportion", train, evaluation)
    np.testing.assert_array_equal(ts, scoring.tag_proportion(train, train))
    assert part4_scoring.static_scores("sentence_length", train, evaluation)[1].shape == (
        len(evaluation),
    )
    with pytest.raises(ParameterError, match="scorer"):
        part4_scoring.static_scores("loss", train, evaluation)


@pytest.fixture(scope="module")
def pos_run(sample, tmp_path_factory):
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    train, evaluation = task_examples("pos", sample)
    Xt, Xe = layer_inputs(sample, train, evaluation, [0, 1])
    splits, points = {}, {}
    ts, es = part4_scoring.static_scores("sentence_length", train, evaluation)
    # the fixture's sentences have 2-5 words, so the split points are set by hand
    for name, m1, m2 in (("short", 3, 3), ("shortest", 4, 4)):
        points[name] = extrapolation_splits.SplitPoints(m1, m2, "constant", "constant", name)
        splits[name] = extrapolation_splits.setups(ts, es, points[name], seed=0, names=SPLIT_SETUPS)
    cache = Cache(tmp_path_factory.mktemp("pos-run-cache"))
    shared = runs.shared_probes(sample, "pos", [0, 1], [1, 2], 2, None, size_seed=0, cache=cache)
    run = runs.run_splits(Xt, Xe, train, evaluation, splits, [0, 1], [1, 2], shared, epochs=2)
    torch.set_num_threads(before)
    return run, points, evaluation


def test_run_splits_trains_shared_probes_once(pos_run):
    run, _, _ = pos_run
    n_setups = len(EXPERIMENT_SETUPS)
    assert len(run.index) == 2 * 2 * 2 * n_setups  # splits x layers x seeds x setups
    # the standard (and control) and the size-control probes are one probe each per (layer,
    # seed) for every split; the extrapolation probes one per split, layer and seed
    assert run.result.n_trained == 2 * 2 * 2 + 2 * 2 * 2
    assert list(run.index.columns) == ["split", "layer", "seed", "setup", "n_train", "n_eval"]
    standard = run.index[run.index["setup"] == "standard"]
    half = run.index[run.index["setup"].str.startswith("size_control")]
    assert (half["n_train"] == standard["n_train"].iloc[0] // 2).all()
    assert run.result.eval_loss.shape == run.result.acc.shape


def test_tables_agree_with_the_probes(pos_run):
    run, _, _ = pos_run
    table = tables.probe_table(run)
    summary = tables.setup_summary(run)
    gaps = tables.gap_table(run)
    assert len(summary) == 2 * 2 * len(EXPERIMENT_SETUPS) and len(gaps) == 2 * 2
    row = gaps.iloc[0]
    assert row["extrapolation_gap"] == pytest.approx(row["control"] - row["extrapolation"])
    assert row["size_gap"] == pytest.approx(row["size_control_hard"] - row["extrapolation"])
    assert row["size_cost"] == pytest.approx(row["standard"] - row["size_control"])
    assert table["still_falling"].dtype == bool
    mine = table[(table.split == row["split"]) & (table.layer == row["layer"])]
    mean = mine[mine.setup == "standard"]["accuracy"].mean()
    assert row["standard"] == pytest.approx(mean)


def test_each_epoch_is_chosen_on_the_other_fold_of_sentences(pos_run, sample, tmp_path):
    """By default a probe is read, on each fold of evaluation sentences, at the epoch that is
    best on the other fold, which never beats its best epoch on the scored items (the paper's
    choice, ``same_set_best``); with one fold it is that best epoch."""
    run, points, evaluation = pos_run
    table = tables.probe_table(run)
    assert (table["accuracy"] <= table["same_set_best"] + 1e-9).all()
    assert set(np.unique(runs.sentence_folds(evaluation.sent))) == {0, 1}
    np.testing.assert_array_equal(runs.sentence_folds(np.array([0, 0, 1, 2, 3, 4]), 3),
                                  [0, 0, 1, 2, 0, 1])  # fmt: skip
    with pytest.raises(ParameterError, match="folds"):
        runs.sentence_folds(evaluation.sent, 0)
    train, _ = task_examples("pos", sample)
    Xt, Xe = layer_inputs(sample, train, evaluation, [0, 1])
    ts, es = part4_scoring.static_scores("sentence_length", train, evaluation)
    splits = {"short": extrapolation_splits.setups(ts, es, points["short"], seed=0,
                                                   names=SPLIT_SETUPS)}  # fmt: skip
    shared = runs.shared_probes(
        sample, "pos", [0, 1], [1, 2], 2, None, size_seed=0, cache=Cache(tmp_path)
    )
    one = runs.run_splits(
        Xt, Xe, train, evaluation, splits, [0, 1], [1, 2], shared, epochs=2, epoch_folds=1
    )
    same = tables.probe_table(one)
    np.testing.assert_allclose(same["accuracy"], same["same_set_best"])


def test_hard_correctness_reproduces_the_control_accuracy(pos_run):
    """The control probe's accuracy is its accuracy on exactly the hard set."""
    run, points, evaluation = pos_run
    table = tables.probe_table(run)
    for split in points:
        for setup in ("control", "extrapolation"):
            correct = comparisons.hard_correct(run, split, 1, 2, setup)
            scores = scoring.sentence_length(evaluation)
            assert len(correct) == int(extrapolation_splits.hard_mask(scores, points[split]).sum())
            acc = table.query("split == @split and layer == 1 and seed == 2 and setup == @setup")
            assert 100 * correct.mean() == pytest.approx(float(acc["accuracy"].iloc[0]))
    # the per-sentence counts of every seed add up to the same accuracies
    n_sentences = int(evaluation.sent.max()) + 1
    counts = comparisons.hard_counts(run, "short", 1, "control", n_sentences)
    assert counts.seeds == (1, 2)
    per_seed = table.query("split == 'short' and layer == 1 and setup == 'control'")["accuracy"]
    assert 100 * counts.correct.sum(axis=1) / counts.units.sum() == pytest.approx(list(per_seed))
    np.testing.assert_array_equal(
        counts.units,
        np.bincount(evaluation.sent[run.eval_masks[("short", 1)]], minlength=n_sentences),
    )
    with pytest.raises(ParameterError):
        comparisons.hard_correct(run, "nope", 1, 1, "control")


def test_points_table_and_panels(pos_run, sample):
    run, points, _ = pos_run
    pts = tables.points_table(points)
    assert pts.loc["shortest", "m2"] == 4 and pts.loc["short", "rule"] == "short"
    tp, te = part4_scoring.static_scores("sentence_length", *task_examples("pos", sample))
    with pytest.raises(ParameterError, match="hard set is empty"):
        split_setups("sentence_length_linguistic", tp, te)  # no sentence has 30 words
    p, setups = split_setups("sentence_length_pos", tp, te + 1)
    assert (p.m1_from, p.m2_from) == ("train", "train") and set(setups) == set(SPLIT_SETUPS)
    fig = figures.setup_panels(tables.probe_table(run), {name: name for name in points}, ncols=2)
    assert sum(ax.get_visible() for ax in fig.axes) == 2
    plt.close(fig)


def test_ensemble_scores_are_cached(sample, tmp_path, monkeypatch, one_thread):
    cache = Cache(tmp_path)
    out = part4_scoring.ensemble_scores(sample, "pos", [0, 1], seeds=[1, 2], epochs=8, cache=cache)
    loss_t, loss_e = out["sample_loss"]
    speed_t, speed_e = out["speed_of_learning"]
    n, m = sample.emb_train.offsets[-1], sample.emb_eval.offsets[-1]
    assert loss_t.shape == (2, n) and loss_e.shape == (2, m) and speed_e.shape == (2, m)
    assert ((speed_t > 0) & (speed_t <= 1)).all()
    # layer 1 holds the tags: its examples are learnt faster and with less loss
    assert speed_t[1].mean() < speed_t[0].mean() and loss_e[1].mean() < loss_e[0].mean()

    def boom(*args, **kwargs):
        raise AssertionError("the cached ensemble was retrained")

    monkeypatch.setattr(part4_scoring, "train_batched", boom)
    again = part4_scoring.ensemble_scores(
        sample, "pos", [0, 1], seeds=[1, 2], epochs=8, cache=cache
    )
    np.testing.assert_array_equal(again["speed_of_learning"][0], speed_t)


def test_a_cross_fitted_ensemble_scores_every_example_out_of_fold(sample, tmp_path, one_thread):
    cache = Cache(tmp_path)
    papers = part4_scoring.ensemble_scores(sample, "pos", [0, 1], [1, 2], epochs=4, cache=cache)
    crossed = part4_scoring.ensemble_scores(
        sample, "pos", [0, 1], [1, 2], epochs=4, folds=2, fold_seed=3, cache=cache
    )
    assert (papers.folds, crossed.folds) == (1, 2)
    assert papers.still_falling.shape == (2, 1, 2) and crossed.still_falling.shape == (2, 2, 2)
    n = sample.emb_train.offsets[-1]
    loss_t, loss_e = crossed["sample_loss"]
    assert loss_t.shape == (2, n) and (loss_t > 0).all() and (loss_e > 0).all()
    speed_t, _ = crossed["speed_of_learning"]
    assert ((speed_t > 0) & (speed_t <= 1)).all()
    # out of fold, a training example's loss is that of probes that never saw it: higher on
    # average than the in-sample loss of the paper's ensemble
    assert loss_t.mean() > papers["sample_loss"][0].mean()
    other = part4_scoring.ensemble_scores(
        sample, "pos", [0, 1], [1, 2], epochs=4, folds=2, fold_seed=4, cache=cache
    )
    assert not np.array_equal(other["sample_loss"][0], loss_t)  # the folds' seed is recorded


@settings(max_examples=50, deadline=None)
@given(k=st.integers(1, 8), seed=st.integers(0, 100))
def test_example_items_come_from_the_mask(sample, k, seed):
    train, _ = task_examples("deprel", sample)
    scores = scoring.arc_length(train)
    mask = scores > 2
    items = tables.example_items(sample.train, train, scores, mask, k, seed=seed)
    assert len(items) == min(k, int(mask.sum()))
    assert (items["score"] > 2).all()
    assert all("[" in c and "]" in c for c in items["context"])
    assert all(" → " in w for w in items["word"])
    empty = tables.example_items(sample.train, train, scores, scores < 0, k, seed=seed)
    assert len(empty) == 0


def test_split_scores_sizes_and_histograms(sample):
    train, evaluation = task_examples("deprel", sample)
    ts, es = part4_scoring.split_scores("arc_length_modified", train, evaluation)
    np.testing.assert_array_equal(ts, scoring.arc_length(train))
    learned = {"sample_loss": (np.arange(6.0).reshape(2, 3), np.ones((2, 4)))}
    lt, le = part4_scoring.split_scores("sample_loss", train, evaluation, learned, layer_pos=1)
    np.testing.assert_array_equal(lt, [3.0, 4.0, 5.0])
    with pytest.raises(ParameterError, match="learned"):
        part4_scoring.split_scores("speed_of_learning", train, evaluation)
    with pytest.raises(ParameterError, match="split"):
        part4_scoring.split_scores("loss", train, evaluation)
    p = extrapolation_splits.SplitPoints(2.0, 1.0, "constant", "constant", "hand")
    sizes = tables.split_sizes({"arc": (p, ts, es)})
    assert sizes.loc["arc", "easy"] == int((ts < 2).sum())
    assert sizes.loc["arc", "hard %"] == pytest.approx(100 * (es > 1).mean())
    fig = figures.score_histograms({"a": (ts, es, p), "b": (ts, es, p)}, ncols=3)
    assert sum(ax.get_visible() for ax in fig.axes) == 2
    plt.close(fig)


def test_build_splits_reports_empty_sets(sample):
    train, evaluation = task_examples("pos", sample)
    n, m = len(train), len(evaluation)
    rng = np.random.default_rng(0)
    learned = {"sample_loss": (rng.random((2, n)), rng.random((2, m)))}
    names = ["sentence_length_linguistic", "most_frequent_tag", "sample_loss"]
    splits, points, skipped = build_splits(names, train, evaluation, 2, learned)
    assert (
        "sentence_length_linguistic" in skipped and "empty" in skipped["sentence_length_linguistic"]
    )
    assert isinstance(splits["sample_loss"], list) and len(points["sample_loss"]) == 2
    assert points["sample_loss"][0].m1 != points["sample_loss"][1].m1
    with pytest.raises(ParameterError, match="learned"):
        build_splits(["speed_of_learning"], train, evaluation, 2)


def test_run_task_skips_empty_splits(sample, one_thread):
    nothing = runs.run_task(sample, "pos", ["sentence_length_linguistic"], [0, 1], [1], epochs=1)
    assert nothing.run is None and "sentence_length_linguistic" in nothing.skipped
    n, m = sample.emb_train.offsets[-1], sample.emb_eval.offsets[-1]
    rng = np.random.default_rng(1)
    learned = {"sample_loss": (rng.random((2, n)), rng.random((2, m)))}
    out = runs.run_task(sample, "pos", ["sample_loss"], [0, 1], [1], epochs=1, learned=learned)
    assert set(out.run.index["split"]) == {"sample_loss"}
    assert len(out.run.index) == 2 * len(EXPERIMENT_SETUPS)


def test_build_splits_widens_or_keeps_strict(sample):
    train, evaluation = task_examples("pos", sample)
    n, m = len(train), len(evaluation)
    speed = (np.linspace(0.01, 0.5, n)[None].repeat(2, 0), np.ones((2, m)))
    speed[1][:, : m // 2] = 0.2  # half the items never correct: 75th percentile is the max
    learned = {"speed_of_learning": speed}
    _, points, skipped = build_splits(["speed_of_learning"], train, evaluation, 2, learned)
    assert not skipped and points["speed_of_learning"][0].m2 == 0.2
    assert points["speed_of_learning"][0].top_ties
    _, _, skipped = build_splits(
        ["speed_of_learning"], train, evaluation, 2, learned, include_top_ties=False
    )
    assert "speed_of_learning" in skipped


def test_combined_tables_prefix_tasks_and_survive_nothing(pos_run, sample):
    run, points, _ = pos_run
    train, evaluation = task_examples("pos", sample)
    done = runs.TaskRun("pos", train, evaluation, points, {}, run)
    skipped = runs.TaskRun("deprel", train, evaluation, {}, {"x": "empty"}, None)
    probes, gaps = tables.combined_tables([done, skipped])
    assert set(probes["split"]) == {"T1 short", "T1 shortest"} and len(gaps) == 4
    probes, gaps = tables.combined_tables([skipped])
    assert len(probes) == 0 and "extrapolation_gap" in gaps.columns
    fig = figures.setup_panels(probes, {"T1 short": "a"})
    assert len(fig.axes) == 1
    plt.close(fig)


def test_empty_inputs_still_give_a_table_and_a_figure():
    assert len(tables.split_sizes({})) == 0 and "hard %" in tables.split_sizes({}).columns
    fig = figures.score_histograms({})
    assert len(fig.axes) == 1
    plt.close(fig)


def test_gap_ledger_keeps_matching_runs_only():
    same = {"n_train_sentences": 10, "n_eval_sentences": 10, "n_seeds": 2, "epochs": 1}
    results = {
        "44_learning_criteria": {
            **same,
            "t1_speed_gap_mean": 30.0,
            "t1_speed_size_gap_mean": 25.0,
            "t2_loss_gap_mean": np.nan,
        },
        "42_length_criteria": {**same, "t1_dist_gap_mean": 1.5, "t2_arc_gap_mean": 20.0},
        "43_tag_criteria": {**same, "n_seeds": 10, "mft_gap_mean": 5.0},
    }
    table, stale = part_gaps.gap_ledger(results, "44_learning_criteria")
    assert stale == ["43_tag_criteria"]
    assert set(table["scoring function"]) == {"speed of learning", "sentence length", "arc length"}
    t1 = table[table.task == "T1"].set_index("scoring function")["gap"]
    assert t1.idxmin() == "sentence length" and t1.idxmax() == "speed of learning"
    sized = table.set_index("scoring function")["size gap"]
    assert sized["speed of learning"] == 25.0 and math.isnan(sized["sentence length"])
    assert part_gaps.size_key("mft_gap_mean") == "mft_size_gap_mean"
    with pytest.raises(ParameterError, match="reference"):
        part_gaps.gap_ledger(results, "41_scoring_functions")


# --- chapter entries: paired tests, chapters 42-44 and 41 on the fake sample -------------------

CONFIG = {
    "treebank": "fixture",
    "model": "fake",
    "pooling": "last",
    "layers": [0, 1],
    "n_train": 0,
    "n_eval": 0,
    "sample_seed": 3,
    "order_seed": -1,
    "epochs": 2,
    "widen_top_ties": True,
}
ENSEMBLE = {"ensemble_folds": 2, "fold_seed": 0}


def test_gap_intervals_compare_each_split_that_ran(pos_run, sample):
    run, points, _ = pos_run
    train, evaluation = task_examples("pos", sample)
    config = CriteriaConfig.from_parameters(
        CONFIG | {"seeds": [2, 1], "size_seed": 0, "compare_layer": 1, "epoch_folds": 2}
    )
    tasks = {"pos": runs.TaskRun("pos", train, evaluation, points, {}, run)}
    chapter = ChapterRun(config, sample, [0, 1], 1, tasks, None, None)
    table = comparisons.gap_intervals(chapter)
    assert list(table.index) == ["T1 short", "T1 shortest"]
    n = len(sample.eval)
    expected = comparisons.setup_gap(run, "short", 1, n)
    row = table.loc["T1 short"]
    assert row["control − extrapolation (points)"] == pytest.approx(100 * expected.estimate)
    assert (row["90% CI low"], row["90% CI high"]) == pytest.approx(
        (100 * expected.low, 100 * expected.high)
    )
    assert expected.n_seeds == (2, 2)  # both seeds, not the first one only
    assert row["hard items"] == int(run.eval_masks[("short", 1)].sum())
    empty = dataclasses.replace(
        chapter, tasks={"pos": dataclasses.replace(tasks["pos"], points={})}
    )
    assert len(comparisons.gap_intervals(empty)) == 0


def test_run_criteria_resolves_layers_and_skips_empty_splits(sample, monkeypatch, one_thread):
    calls = []

    def fake_load(*args):
        calls.append(args)
        return sample

    monkeypatch.setattr(criteria, "load_sample", fake_load)
    config = CriteriaConfig.from_parameters(
        CONFIG | {"seeds": [1, 2], "size_seed": 0, "compare_layer": -1, "epoch_folds": 2}
    )
    splits = {"pos": ["sentence_length_linguistic", "sentence_length_pos"]}
    chapter = criteria.run_criteria(config, splits)
    assert calls == [(config,)]
    assert chapter.layers == [0, 1] and chapter.compare_layer == 1  # -1 is the last layer
    assert "sentence_length_linguistic" in chapter.tasks["pos"].skipped  # no 30-word sentence
    assert set(chapter.probes["split"]) == {"T1 sentence_length_pos"}
    # over a quarter of the words sit in the longest sentences: the hard set is those words
    assert chapter.tasks["pos"].points["sentence_length_pos"].top_ties
    assert list(chapter.gaps["layer"]) == [0, 1]
    with pytest.raises(ParameterError) as info:
        criteria.run_criteria(dataclasses.replace(config, layers=[1], compare_layer=0), splits)
    assert info.value.name == "compare_layer"
    calls.clear()
    with pytest.raises(ParameterError) as info:
        criteria.run_criteria(config, {"pos": ["sample_loss"]})
    assert info.value.name == "ensemble_seeds" and calls == []  # refused before loading


def test_run_criteria_scores_learning_splits_with_the_ensemble(
    sample, monkeypatch, one_thread, tmp_path
):
    monkeypatch.setattr(criteria, "load_sample", lambda *args: sample)
    monkeypatch.setenv("PROBEKIT_CACHE", str(tmp_path))  # nothing trained yet
    config = LearningCriteriaConfig.from_parameters(
        CONFIG
        | ENSEMBLE
        | {
            "seeds": [1, 2],
            "size_seed": 0,
            "compare_layer": 1,
            "epoch_folds": 2,
            "ensemble_seeds": [3, 4],
        }
    )
    controls = {"pos": ["sentence_length_pos", "sample_loss"]}
    chapter = criteria.run_criteria(config, {"pos": ["sample_loss"]}, controls)
    task_run = chapter.tasks["pos"]
    per_layer = task_run.points["sample_loss"]
    assert len(per_layer) == 2  # one set of split points per layer's ensemble
    # a reference control: its control probes only, scored but kept out of the tables
    assert list(task_run.controls) == ["sentence_length_pos"]
    index = task_run.run.index
    assert set(index.loc[index["split"] == "sentence_length_pos", "setup"]) == {"control"}
    # ... and the probes' training: per layer and seed, one standard, one size-control and one
    # extrapolation probe are trained
    assert task_run.run.result.n_trained == 2 * 2 * 3
    assert set(chapter.probes["split"]) == {"T1 sample_loss"}
    assert set(chapter.gaps["split"]) == {"T1 sample_loss"}
    learned = part4_scoring.ensemble_scores(sample, "pos", [0, 1], [3, 4], 2, None, 2, 0)
    assert chapter.ensembles["pos"].folds == 2
    for i, p in enumerate(per_layer):
        ts, es = learned["sample_loss"][0][i], learned["sample_loss"][1][i]
        assert p == extrapolation_splits.split_points("sample_loss", ts, es, include_top_ties=True)
    # Another chapter on the same task reads the shared probes back: it trains only its own
    # extrapolation probes, and its standard and size-control results are the same.
    length = CriteriaConfig.from_parameters(
        CONFIG | {"seeds": [1, 2], "size_seed": 0, "compare_layer": 1, "epoch_folds": 2}
    )
    other = criteria.run_criteria(length, {"pos": ["sentence_length_pos"]})
    assert other.tasks["pos"].run.result.n_trained == 2 * 2
    shared = ["standard", "size_control"]
    mine = chapter.probes[chapter.probes["setup"].isin(shared)]
    theirs = other.probes[other.probes["setup"].isin(shared)]
    np.testing.assert_array_equal(mine["accuracy"].to_numpy(), theirs["accuracy"].to_numpy())


def test_compared_splits_train_extrapolation_probes_at_the_compared_layer_only(
    sample, monkeypatch, one_thread, tmp_path
):
    """Chapter 44 compares other functions' gaps with speed of learning's at one layer: their
    extrapolation probes train there alone, and are the probes their own chapter trains."""
    monkeypatch.setattr(criteria, "load_sample", lambda *args: sample)
    monkeypatch.setenv("PROBEKIT_CACHE", str(tmp_path))  # nothing trained yet
    config = CriteriaConfig.from_parameters(
        CONFIG | {"seeds": [1, 2], "size_seed": 0, "compare_layer": 1, "epoch_folds": 2}
    )
    # a split among both the reference controls and the compared splits, as in chapter 44
    split = "arc_length_modified"
    chapter = criteria.run_criteria(
        config, {"deprel": ["sentence_length_deprel"]}, {"deprel": [split]}, {"deprel": [split]}
    )
    task_run = chapter.tasks["deprel"]
    assert list(task_run.controls) == [split] and list(task_run.points) == [
        "sentence_length_deprel"
    ]
    index = task_run.run.index
    rows = index[index["split"] == split]
    assert set(rows.loc[rows["layer"] == 0, "setup"]) == {"control"}
    assert set(rows.loc[rows["layer"] == 1, "setup"]) == set(EXPERIMENT_SETUPS)
    # shared probes (2 layers x 2 seeds x 2 kinds), the main split's extrapolation probes
    # (2 x 2) and the compared split's at layer 1 (2 seeds)
    assert task_run.run.result.n_trained == 8 + 4 + 2
    assert set(chapter.probes["split"]) == {"T2 sentence_length_deprel"}  # not in the tables
    own = criteria.run_criteria(config, {"deprel": [split]})
    n = len(sample.eval)
    for setup in ("control", "extrapolation", "size_control_hard"):
        mine = comparisons.hard_counts(task_run.run, split, 1, setup, n)
        theirs = comparisons.hard_counts(own.tasks["deprel"].run, split, 1, setup, n)
        np.testing.assert_array_equal(mine.correct, theirs.correct)
        np.testing.assert_array_equal(mine.units, theirs.units)
    with pytest.raises(ParameterError) as info:
        runs.run_task(sample, "deprel", [], [0], [1, 2], compared=[split], compare_layer=1)
    assert info.value.name == "compare_layer"


def test_survey_splits_shows_one_layer_of_every_split(sample, monkeypatch, one_thread):
    monkeypatch.setattr(survey, "load_sample", lambda *args: sample)
    config = ScoringFunctionsConfig.from_parameters(
        CONFIG | ENSEMBLE | {"ensemble_seeds": [1, 2], "score_layer": -1, "n_examples": 2}
    )
    result = survey.survey_splits(config)
    assert result.layers == [0, 1] and result.score_layer == 1
    made = set(result.entries) | set(result.skipped)
    assert made == {f"T1 {n}" for n in TASK_SPLITS["pos"]} | {
        f"T2 {n}" for n in TASK_SPLITS["deprel"]
    }
    learned = part4_scoring.ensemble_scores(sample, "pos", [0, 1], [1, 2], 2, None, 2, 0)
    if "T1 sample_loss" in result.entries:  # the shown layer's scores, not another's
        np.testing.assert_array_equal(
            result.entries["T1 sample_loss"][1], learned["sample_loss"][0][1]
        )
    values = survey.survey_values(result)
    assert values["n_train_words"] == len(task_examples("pos", sample)[0])
    assert values["n_ensemble"] == 2 and values["score_layer"] == 1 and values["pooling"] == "last"
    assert values["ensemble_folds"] == 2 and values["n_ensemble_probes"] == 2 * 2 * 2 * 2
    assert 0 <= values["cap_share"] <= 100
    for key, split in survey.SIZE_KEYS.items():
        have = split in result.entries
        assert have != math.isnan(values[f"{key}_hard_pct"]), key
    panels = survey.score_panels(result)
    assert set(panels) <= set(figures.SCORE_PANELS.values())
    examples = survey.easy_hard_examples(result)
    assert examples.index.names == ["split", "set", "word"]
    assert (examples.groupby(level=["split", "set"]).size() <= 2).all()
    with pytest.raises(ParameterError) as info:
        survey.survey_splits(dataclasses.replace(config, layers=[0]))
    assert info.value.name == "score_layer"
