"""Tests for the probekit.experiments.part3_pareto package: the runs of Part III (Pimentel et al.
2020) and their reading. The configurations and the shared set-up are tested in
test_part3_config.py, the chapters' experiments in test_part3_chapters.py."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from conftest import blobs
from probekit.errors import ParameterError
from probekit.experiments.part3_pareto import (
    frontiers,
    memorisation,
    parametric,
    parsing,
    representations,
    toy_tasks,
)
from probekit.experiments.part3_pareto.resampling import bootstrap_sentences, seeded_bootstrap
from probekit.experiments.part3_pareto.runs import ParetoRun, pool_seeds
from probekit.methods.pareto import architectures, entropy, frontier
from probekit.probes import linear as L
from probekit.probes import mlp_stack
from probekit.probes.training import TrainOptions
from probekit.representations import types
from probekit.representations.fasttext import fasttext_table

pytestmark = pytest.mark.usefixtures("one_thread")


FAST = TrainOptions(batch_size=32, lr=0.02, eval_every=10, patience=3, min_delta=0.0, max_steps=60)


# --------------------------------------------------------------------------------------------
# Grids and configs
# --------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 80), st.integers(1, 100))
def test_rank_values_spread_without_repeats(C, n):
    ranks = parametric.rank_values(C, n)
    assert ranks[0] == 1 and (ranks[-1] == C or n == 1)
    assert np.all(np.diff(ranks) > 0)
    assert len(ranks) == C if n >= C else len(ranks) <= n


def test_alpha_values_follow_the_paper_grid():
    a = parametric.alpha_values(50)
    assert np.array_equal(a, L.alpha_grid())
    assert parametric.alpha_values(2).tolist() == [0.0, 2.0**-10]
    with pytest.raises(ParameterError):
        parametric.alpha_values(1)


def test_sample_configs_narrower_keeps_architecture_and_order():
    wide = architectures.sample_mlp_configs(40, seed=3)
    narrow = architectures.sample_mlp_configs(40, seed=3, max_hidden=128)
    for w, n in zip(wide, narrow, strict=True):
        assert (w.n_layers, w.dropout) == (n.n_layers, n.dropout)
        if w.n_layers == 0:
            assert w.hidden_size == n.hidden_size == 0
        else:
            assert 32 <= w.hidden_size <= 1024 and 32 <= n.hidden_size <= 128
    deep = [(w.hidden_size, n.hidden_size) for w, n in zip(wide, narrow, strict=True) if w.n_layers]
    for (w1, n1), (w2, n2) in zip(deep, deep[1:], strict=False):
        if w1 < w2:
            assert n1 <= n2  # a monotone map of the same draws
    with pytest.raises(ParameterError):
        architectures.sample_mlp_configs(3, seed=0, max_hidden=16)


def test_check_names():
    representations.check_names("x", ["onehot", "random"], representations.REPRESENTATIONS)
    for bad in ([], ["onehot", "onehot"], ["bert"]):
        with pytest.raises(ParameterError):
            representations.check_names("representations", bad, representations.REPRESENTATIONS)


def test_memorisation_rows_and_control_options():
    rows = memorisation.memorisation_rows(100, 10, seed=0)
    assert len(rows) == 10 and np.all(np.diff(rows) > 0)
    assert np.array_equal(rows, memorisation.memorisation_rows(100, 10, seed=0))
    assert np.array_equal(memorisation.memorisation_rows(5, 0, seed=0), np.arange(5))
    assert np.array_equal(memorisation.memorisation_rows(5, 9, seed=0), np.arange(5))
    opts = memorisation.control_options(FAST, 40)
    assert opts.max_steps == 40 and opts.patience > 40 and opts.lr == FAST.lr
    with pytest.raises(ParameterError):
        memorisation.memorisation_rows(5, -1, seed=0)
    with pytest.raises(ParameterError):
        memorisation.control_options(FAST, 0)


def test_control_labels_are_independent_permutations():
    y = np.repeat(np.arange(5), 40)
    a = memorisation.control_labels(y, seed=1)
    b = memorisation.control_labels(y, seed=1)
    for name in ("label_shuffled", "fully_shuffled"):
        assert np.array_equal(np.sort(a[name]), y)
        assert np.array_equal(a[name], b[name])
    assert not np.array_equal(a["label_shuffled"], a["fully_shuffled"])


# --------------------------------------------------------------------------------------------
# The MLP stack and trainer
# --------------------------------------------------------------------------------------------


def test_stack_shared_and_per_probe_inputs_agree_and_members_select():
    stack = mlp_stack.MLPStack(5, 3, (7, 7), [0.0, 0.2, 0.4], seed=0).eval()
    x = torch.randn(4, 5)
    shared = stack(x)
    per = stack(x.expand(3, -1, -1), per_probe=True)
    assert shared.shape == (3, 4, 3)
    assert torch.allclose(shared, per, atol=1e-6)
    assert torch.allclose(stack(x, members=torch.tensor([2]))[0], shared[2], atol=1e-6)


def test_stack_with_onehot_table():
    emb = types.OneHotEmbedding(10, 4, n_probes=2, seed=0)
    stack = mlp_stack.MLPStack(8, 3, (), [0.0, 0.0], seed=0, embedding=emb).eval()
    ids = torch.tensor([[1, 2], [3, 4], [5, 6]])  # DAL: (B, 2) shared
    out = stack(ids)
    assert out.shape == (2, 3, 3)
    per = stack(ids.expand(2, -1, -1), per_probe=True)
    assert torch.allclose(out, per, atol=1e-6)


def test_onehot_with_frozen_rows_matches_the_full_table():
    full = types.OneHotEmbedding(12, 3, n_probes=2, seed=5)
    part = types.OneHotEmbedding(12, 3, n_probes=2, seed=5, n_trainable=7)
    assert part.weight.shape == (2, 7, 3) and part.frozen.shape == (5, 3)
    ids = torch.tensor([[0, 6], [7, 11], [3, 9]])
    assert torch.equal(full(ids), part(ids))
    one = torch.tensor([1])
    assert torch.equal(part(ids, members=one), full(ids)[1:])
    per = ids.expand(2, -1, -1)
    assert torch.equal(part(per, per_probe=True), full(ids))
    with pytest.raises(ParameterError):
        types.OneHotEmbedding(12, 3, n_trainable=13)


def test_onehot_probes_with_frozen_rows_train_like_the_full_table():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 20, 300)
    y = ids % 3
    dev = np.arange(25)
    kw = dict(seed=0, onehot_dim=6, vocab_size=25, options=FAST)
    full = L.train_linear_probes([L.LinearProbeConfig()], ids, y, dev, dev % 3, **kw)
    part = L.train_linear_probes(
        [L.LinearProbeConfig()], ids, y, dev, dev % 3, onehot_trainable=20, **kw
    )
    # The frozen rows never get a gradient, so the two runs agree up to float rounding.
    assert (full.predict(dev) == part.predict(dev)).mean() >= 0.95
    assert part.complexity[0] == pytest.approx(full.complexity[0], rel=1e-4)
    with pytest.raises(ParameterError, match="onehot_trainable"):
        L.train_linear_probes(
            [L.LinearProbeConfig()], ids, y, dev, dev % 3, onehot_trainable=10, **kw
        )


def test_stacked_training_equals_training_alone():
    X, y = blobs(120, 0, C=3, d=6)
    Xd, yd = blobs(60, 1, C=3, d=6)
    y_shuf = np.random.default_rng(5).permutation(y)
    sets = [
        mlp_stack.TrainingSet("normal", X, y, Xd, yd),
        mlp_stack.TrainingSet("label_shuffled", X, y_shuf, X[:50], y_shuf[:50]),
    ]
    a = mlp_stack.MLPConfig(1, 16, 0.1)
    configs = [a, mlp_stack.MLPConfig(1, 16, 0.3), mlp_stack.MLPConfig(2, 8, 0.0)]
    together = mlp_stack.train_mlps(configs, sets, n_classes=3, seed=4, options=FAST)
    alone = mlp_stack.train_mlps([a], sets, n_classes=3, seed=4, options=FAST)
    assert together.stop_accuracy.shape == (3, 2)
    assert len(together.stacks) == 2  # the two 16-wide configs share a stack
    # Each probe of a stack gets its own gradient, so a stacked run is the run alone up to float
    # rounding (which differs between CPU families): compared with tolerances, not bit for bit.
    np.testing.assert_allclose(together.stop_loss[0], alone.stop_loss[0], atol=1e-4)
    assert np.abs(together.best_step[0] - alone.best_step[0]).max() <= FAST.eval_every
    assert (together.predict(Xd, 0)[0] == alone.predict(Xd, 0)[0]).mean() >= 0.95


def test_mlps_learn_blobs_and_wide_ones_memorise_more():
    X, y = blobs(200, 0, C=3, d=6)
    Xd, yd = blobs(100, 1, C=3, d=6)
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(48, 4)).astype(np.float32)
    yr = rng.integers(0, 4, 48)
    opts = TrainOptions(batch_size=48, lr=0.02, eval_every=50, patience=4, max_steps=600)
    configs = [mlp_stack.MLPConfig(0, 0, 0.0), mlp_stack.MLPConfig(2, 128, 0.0)]
    normal = mlp_stack.train_mlps(
        configs, [mlp_stack.TrainingSet("n", X, y, Xd, yd)], n_classes=3, seed=0
    )
    assert np.all(normal.accuracy(Xd, yd, 0) > 0.9)
    memo = mlp_stack.train_mlps(
        configs, [mlp_stack.TrainingSet("s", Xr, yr, Xr, yr)], n_classes=4, seed=0, options=opts
    )
    acc = memo.accuracy(Xr, yr, 0)
    assert acc[1] >= 0.9 and acc[1] > acc[0] + 0.2


def test_train_mlps_rejects_mismatched_sets():
    X, y = blobs(30, 0, C=3, d=6)
    sets = [
        mlp_stack.TrainingSet("a", X, y, X, y),
        mlp_stack.TrainingSet("b", X[:20], y[:20], X, y),
    ]
    with pytest.raises(ParameterError, match="sets"):
        mlp_stack.train_mlps([mlp_stack.MLPConfig(0, 0, 0.0)], sets, n_classes=3, seed=0)
    with pytest.raises(ParameterError, match="configs"):
        mlp_stack.train_mlps([], sets[:1], n_classes=3, seed=0)


# --------------------------------------------------------------------------------------------
# Representations and runs on the tiny treebank
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def splits(tiny):
    return representations.Splits(list(tiny["train"]), list(tiny["dev"]), list(tiny["test"]))


def test_task_data_and_inputs(splits):
    posl, dal = representations.task_data("posl", splits), representations.task_data("dal", splits)
    assert posl.n_classes == 17
    assert len(posl.y("test")) == splits.n_words("test")
    rep = representations.type_representation("random", splits, dim=5, seed=0)
    X = rep.inputs("train", dal.examples["train"].rows)
    rows = dal.examples["train"].rows
    assert X.shape == (len(rows), 10)
    np.testing.assert_array_equal(X[:, :5], rep.words["train"][rows[:, 0]])
    onehot = representations.type_representation("onehot", splits, dim=4, seed=0)
    ids = onehot.inputs("train", rows)
    assert ids.shape == (len(rows), 2) and ids.dtype == np.int64
    assert onehot.vocab_size == len(
        set(np.concatenate([s.forms for k in representations.SPLITS for s in splits[k]]))
    )
    with pytest.raises(ParameterError):
        representations.task_data("ner", splits)


def test_type_ids_put_training_types_first(splits):
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    k = rep.n_trainable
    assert rep.words["train"].max() == k - 1
    forms = {w for s in splits.train for w in s.forms}
    for split in ("dev", "test"):
        words = np.concatenate([s.forms for s in splits[split]])
        seen = np.asarray([w in forms for w in words])
        assert np.all(rep.words[split][seen] < k) and np.all(rep.words[split][~seen] >= k)
    # One id per word form, whatever the split.
    pairs = {
        (w, int(i))
        for split in representations.SPLITS
        for w, i in zip(
            np.concatenate([s.forms for s in splits[split]]), rep.words[split], strict=True
        )
    }
    assert len(pairs) == len({w for w, _ in pairs}) == rep.vocab_size


def test_linear_runs_give_tidy_tables(splits):
    data = representations.task_data("posl", splits)
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    nuc = parametric.linear_pareto(rep, data, "nuclear", n_probes=3, seed=0, options=FAST)
    rank = parametric.linear_pareto(rep, data, "rank", n_probes=4, seed=0, options=FAST)
    assert list(nuc.table["alpha"]) == list(parametric.alpha_values(3))
    assert nuc.correct.shape == (3, splits.n_words("test"))
    np.testing.assert_allclose(nuc.table["accuracy"], nuc.correct.mean(axis=1))
    assert list(rank.table["complexity"]) == list(parametric.rank_values(17, 4).astype(float))
    assert set(rank.table["max_complexity"]) == {17.0}
    assert np.all(rank.table["numerical_rank"] <= rank.table["rank"])


def test_mlp_run_controls(splits):
    data = representations.task_data("dal", splits)
    rep = representations.type_representation("random", splits, dim=6, seed=0)
    configs = [mlp_stack.MLPConfig(0, 0, 0.1), mlp_stack.MLPConfig(1, 32, 0.0)]
    # No shuffled words needed: word order cannot matter to a type-level representation.
    run = memorisation.mlp_pareto(rep, data, configs, seed=0, options=FAST, memorise_steps=20)
    t = run.table
    assert t["fully_shuffled"].isna().all()
    assert t["label_shuffled"].between(0, 1).all()
    assert run.correct.shape == (2, len(data.y("test")))
    assert (t["n_memorise"] == len(data.y("train"))).all()
    small = memorisation.mlp_pareto(
        rep, data, configs, seed=0, options=FAST, n_memorise=3, memorise_steps=5
    )
    assert (small.table["n_memorise"] == 3).all()
    # The normal condition does not depend on the controls.
    np.testing.assert_array_equal(small.correct, run.correct)
    ctx = representations.Representation("contextual", "ctx", rep.words, rep.offsets)
    with pytest.raises(ParameterError, match="shuffled_words"):
        memorisation.mlp_pareto(ctx, data, configs, seed=0, options=FAST)
    with pytest.raises(ParameterError, match="normal"):
        memorisation.mlp_pareto(
            rep, data, configs, conditions=["label_shuffled"], seed=0, options=FAST
        )
    run = memorisation.mlp_pareto(
        ctx,
        data,
        configs[:1],
        shuffled_words=rep.words["train"][::-1],
        seed=0,
        options=FAST,
        memorise_steps=5,
    )
    assert run.table["fully_shuffled"].notna().all()


def test_parse_runs(splits):
    rep = representations.type_representation("onehot", splits, dim=4, seed=0)
    opts = TrainOptions(batch_size=2, lr=0.05, eval_every=2, patience=2, max_steps=6)
    lin = parsing.parse_linear_pareto(rep, splits, n_probes=2, seed=0, options=opts)
    n_test = splits.n_words("test")
    assert lin.correct.shape == (2, n_test) and lin.groups.shape == (n_test,)
    assert (lin.table["task"] == "parse").all() and (lin.table["complexity"] >= 0).all()
    mlp = parsing.parse_mlp_pareto(
        rep,
        splits,
        [mlp_stack.MLPConfig(1, 8, 0.0)],
        seed=0,
        options=opts,
        n_memorise=2,
        memorise_steps=3,
    )
    assert (mlp.table["n_memorise"] == 2).all()
    assert mlp.table["label_shuffled"].between(0, 1).all()
    assert mlp.table["fully_shuffled"].isna().all()


def test_fasttext_table_is_cached_and_deterministic(splits):
    vocab = ["Cats", "dog", "unseenword"]
    a = fasttext_table(vocab, splits.train, dim=8, seed=0, epochs=1)
    b = fasttext_table(vocab, splits.train, dim=8, seed=0, epochs=1)
    assert a.shape == (3, 8) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert np.abs(a[2]).sum() > 0  # out-of-vocabulary words get n-gram vectors


@pytest.mark.model
def test_contextual_and_shuffled_embeddings(splits):
    rep = representations.contextual_representation(splits, "default", -1, "mean")
    shuffled = representations.shuffled_contextual(splits.train, "default", -1, "mean", seed=0)
    assert shuffled.shape == rep.words["train"].shape
    assert rep.label.endswith("(layer 6)")
    # The same words in another order give other (contextual) vectors.
    assert not np.array_equal(np.asarray(shuffled), np.asarray(rep.words["train"]))


# --------------------------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------------------------


def toy_table():
    return pd.DataFrame(
        {
            "task": "posl",
            "family": "nuclear",
            "representation": ["a", "a", "b", "b", "b"],
            "complexity": [1.0, 10.0, 3.0, 5.0, np.nan],
            "accuracy": [0.5, 0.6, 0.55, 0.9, 0.99],
            "dev_accuracy": [0.5, 0.7, 0.6, 0.8, 0.99],
        }
    )


def test_hypervolume_table_matches_pareto_and_skips_missing():
    t = toy_table()
    hv = frontiers.hypervolume_table(t, "complexity", 10.0).set_index("representation")
    assert hv.loc["a", "hypervolume"] == pytest.approx(
        frontier.hypervolume([1, 10], [0.5, 0.6], 10)
    )
    assert hv.loc["b", "hypervolume"] == pytest.approx((2 * 0.55 + 5 * 0.9) / 10)
    assert hv.loc["b", "n_probes"] == 2 and hv.loc["b", "best_accuracy"] == 0.9
    t["cap"] = 5.0
    hv5 = frontiers.hypervolume_table(t, "complexity", "cap").set_index("representation")
    assert hv5.loc["a", "n_within_cap"] == 1


def test_frontier_leaders_by_hand():
    lead = frontiers.frontier_leaders(toy_table(), "complexity", 10.0)
    assert lead["representation"].tolist() == ["a", "b"]
    assert lead[["start", "end"]].values.tolist() == [[1.0, 3.0], [3.0, 10.0]]
    assert lead["accuracy_end"].tolist() == [0.5, 0.9]


def test_main_leaders_drop_slivers_and_merge():
    lead = pd.DataFrame(
        {
            "representation": ["d", "a", "b", "a", "c", "b"],
            "start": [0.5, 0.7, 5.0, 5.5, 50.0, 99.5],
            "end": [0.7, 5.0, 5.5, 50.0, 99.5, 100.0],
            "accuracy_start": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
            "accuracy_end": [0.0, 0.1, 0.2, 0.35, 0.45, 0.5],
        }
    )
    main = frontiers.main_leaders(lead, 1.0)
    assert main["representation"].tolist() == ["a", "c"]
    assert main[["start", "end", "accuracy_end"]].values.tolist() == [
        [0.5, 50.0, 0.35],
        [50.0, 100.0, 0.45],
    ]
    text = frontiers.describe_leaders(main, {"a": "A"})
    assert text == "A (0 to 50), then c (50 to 100)"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("xyz"), st.floats(0, 10), st.floats(0, 1)),
        min_size=1,
        max_size=15,
    )
)
def test_frontier_leaders_lead_everywhere(points):
    t = pd.DataFrame(points, columns=["representation", "complexity", "accuracy"])
    lead = frontiers.frontier_leaders(t, "complexity", 10.0)
    if lead.empty:  # every probe sits at the cap: no budget below it has a leader
        assert t["complexity"].min() == 10.0
        return
    assert lead["start"].iloc[0] == t["complexity"].min()
    assert np.all(lead["start"].to_numpy()[1:] == lead["end"].to_numpy()[:-1])
    for _, row in lead.iterrows():
        within = t[t["complexity"] <= row["start"]]
        assert row["accuracy_start"] == pytest.approx(within["accuracy"].max())
        mine = within[within["representation"] == row["representation"]]
        assert mine["accuracy"].max() == pytest.approx(within["accuracy"].max())


def test_simple_winner():
    t = toy_table()
    winner, hv = frontiers.simple_winner(t, "complexity", 3.0)
    assert winner == "a" and hv["b"] == 0.0
    assert frontiers.simple_winner(t, "complexity", 0.5)[0] is None


def test_simple_vs_best():
    t = pd.DataFrame(
        {
            "task": "posl",
            "representation": "a",
            "memo": [0.2, 0.3, 0.6, 0.9, 0.5, np.nan],
            "accuracy": [0.70, 0.80, 0.85, 0.84, 0.95, 0.99],
        }
    )
    row = frontiers.simple_vs_best(t, "memo").iloc[0]
    # Halves of two: (0.2, 0.3) and (0.6, 0.9); the median probe (0.5) and the NaN sit out.
    assert row["best"] == 0.95 and row["best_simple"] == 0.80 and row["best_complex"] == 0.85
    assert row["gap"] == pytest.approx(0.05)
    assert row["spearman"] == pytest.approx(0.6)
    # A constant column has no rank correlation: NaN, without scipy's warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flat = frontiers.simple_vs_best(t.assign(accuracy=0.5), "memo").iloc[0]
    assert np.isnan(flat["spearman"]) and flat["gap"] == 0.0
    # A simpler half that does better gives a negative gap.
    better = frontiers.simple_vs_best(t.assign(accuracy=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4]), "memo")
    assert better["gap"].iloc[0] == pytest.approx(0.7 - 0.9)
    # Every complexity tied (controls all at the majority label): no halves, no gap.
    tied = frontiers.simple_vs_best(t.assign(memo=0.17), "memo").iloc[0]
    assert tied["best"] == 0.99 and np.isnan(tied["best_simple"]) and np.isnan(tied["gap"])


def test_complexity_halves_are_equal_and_need_a_probe_that_memorises_more():
    simple, complex_ = frontiers.complexity_halves(np.array([0.9, 0.1, 0.5, 0.3]))
    assert simple.tolist() == [False, True, False, True]
    assert complex_.tolist() == [True, False, True, False]
    # An odd number: the median probe is in neither half.
    simple, complex_ = frontiers.complexity_halves(np.array([0.9, 0.1, 0.5]))
    assert simple.tolist() == [False, True, False] and complex_.tolist() == [True, False, False]
    # Ties are split in a stable order, as long as some probe memorises more than another.
    simple, complex_ = frontiers.complexity_halves(np.array([0.2, 0.2, 0.2, 0.7]))
    assert simple.sum() == complex_.sum() == 2 and complex_[3]
    assert frontiers.complexity_halves(np.array([0.5, 0.5, 0.5, 0.5])) is None
    assert frontiers.complexity_halves(np.array([0.4])) is None


# --------------------------------------------------------------------------------------------
# Toy tasks
# --------------------------------------------------------------------------------------------


def test_lookup_on_its_own_training_data(splits):
    res = toy_tasks.lookup_baselines(splits.train, splits.train)
    assert res["posl_oov_share"] == 0.0
    levels = res["dal_levels"].set_index("level")
    assert levels.loc[1, "share"] == 1.0  # every arc was seen
    other = toy_tasks.lookup_baselines(splits.train, splits.test)
    train_words = {w for s in splits.train for w in s.forms}
    test_words = [w for s in splits.test for w in s.forms]
    expected = np.mean([w not in train_words for w in test_words])
    assert other["posl_oov_share"] == pytest.approx(expected)
    assert other["dal_levels"]["share"].sum() == pytest.approx(1.0)


def test_label_entropies(splits):
    sentences = splits.train + splits.dev + splits.test
    h = toy_tasks.label_entropies(sentences).set_index("task")
    assert (h["H(label | word)"] <= h["H(label)"] + 1e-12).all()
    assert h.loc["posl", "examples"] == sum(len(s) for s in sentences)
    assert h.loc["posl", "H(label)"] == pytest.approx(
        entropy.entropy(np.concatenate([s.upos for s in sentences]))
    )


# --------------------------------------------------------------------------------------------
# Training seeds: pooled runs and intervals that cross seeds and sentences
# --------------------------------------------------------------------------------------------


def _run(complexity, correct, groups):
    correct = np.asarray(correct, dtype=bool)
    table = pd.DataFrame({"probe": np.arange(len(complexity)), "complexity": complexity,
                          "accuracy": correct.mean(axis=1)})  # fmt: skip
    return ParetoRun(table, correct, np.asarray(groups))


def test_pooled_seeds_keep_every_probe_tagged_with_its_seed():
    groups = [0, 0, 1, 2]
    a = _run([1.0, 2.0], [[1, 0, 1, 1], [0, 0, 1, 1]], groups)
    b = _run([1.5], [[1, 1, 1, 0]], groups)
    pooled = pool_seeds({7: a, 3: b})
    assert pooled.seeds == [7, 3]
    assert pooled.table["seed"].tolist() == [7, 7, 3]
    assert pooled.correct.shape == (3, 4)
    assert pooled.table["complexity"].tolist() == [1.0, 2.0, 1.5]
    assert np.array_equal(pooled.correct[2], b.correct[0])
    other = _run([1.0], [[1, 0, 1]], [0, 1, 2])
    with pytest.raises(ParameterError):
        pool_seeds({1: a, 2: other})
    assert a.seeds == []


def test_seeded_bootstrap_splits_sentence_and_seed_variance():
    n = 40
    # Statistics that do not depend on the sentences: the whole variance is the seeds'.
    offsets = [0.1, 0.3, 0.2]
    constant = [lambda w, c=c: np.full(len(w), c) for c in offsets]
    iv = seeded_bootstrap(constant, n, 0.90, n_resamples=200, seed=0)
    assert iv.estimate == pytest.approx(0.2)
    assert iv.se_sentences == pytest.approx(0.0, abs=1e-12)
    assert iv.se_seeds == pytest.approx(np.std(offsets, ddof=1) / math.sqrt(3))
    assert iv.df == pytest.approx(2)
    q = stats.t.ppf(0.95, 2)
    assert (iv.low, iv.high) == pytest.approx((0.2 - q * iv.se, 0.2 + q * iv.se))
    assert iv.n_seeds == (3, 3)
    # The same statistic under every seed: no seed part, the sentence bootstrap's alone.
    x = np.random.default_rng(1).normal(size=n)

    def mean(w):
        return (w @ x) / w.sum(axis=1)

    same = seeded_bootstrap([mean, mean], n, 0.90, n_resamples=400, seed=0)
    assert same.se_seeds == 0 and math.isinf(same.df)
    assert same.se_sentences == pytest.approx(x.std() / math.sqrt(n), rel=0.2)
    # One seed: the sentence bootstrap of that seed, with no seed part.
    one = seeded_bootstrap([mean], n, 0.90, n_resamples=400, seed=0)
    assert one == bootstrap_sentences(mean, n, 0.90, n_resamples=400, seed=0)


def test_seeded_bootstrap_covers_the_mean_over_sentences_and_seeds():
    # Sentence effects and seed effects of realistic sizes: the interval must cover the true
    # mean about as often as it says (90 %), where a sentence bootstrap alone would not.
    rng = np.random.default_rng(0)
    n, k, reps = 60, 3, 300
    covered = narrow = 0
    for _ in range(reps):
        x = rng.normal(size=n)
        stats_ = []
        for _ in range(k):
            shift = rng.normal(scale=0.25)
            stats_.append(lambda w, s=shift, x=x: (w @ x) / w.sum(axis=1) + s)
        iv = seeded_bootstrap(stats_, n, 0.90, n_resamples=200, seed=int(rng.integers(1 << 30)))
        covered += iv.low <= 0 <= iv.high
        alone = bootstrap_sentences(stats_[0], n, 0.90, n_resamples=200, seed=0)
        narrow += alone.low <= 0 <= alone.high
    assert 0.84 <= covered / reps <= 0.96
    assert narrow / reps < 0.80
