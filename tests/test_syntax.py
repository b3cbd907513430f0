"""Tests of the Part I experiments (probekit.experiments.part1_probe_parser)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_heads
from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.claims import CLAIMS, probe_parser_intervals
from probekit.experiments.part1_probe_parser.comparison import (
    best_layer,
    comparison_layer,
    held_out_scores,
    results_table,
    seed_scores,
)
from probekit.experiments.part1_probe_parser.config import ProbeParserConfig
from probekit.experiments.part1_probe_parser.distance_figures import (
    example_figure,
    linear_vs_syntactic_figure,
)
from probekit.experiments.part1_probe_parser.syntactic_distance import (
    distance_pairs,
    distance_summary,
    farthest_pair,
    monotone_transform,
    pick_example,
    round_trip_counts,
    tree_path,
)
from probekit.experiments.part1_probe_parser.tuning import search, tune
from probekit.experiments.tree_probing.intervals import tree_metric_arrays, tree_metric_interval
from probekit.experiments.tree_probing.training import (
    KINDS,
    per_sentence_scores,
    prepare_features,
    search_space,
    train_layers,
)
from probekit.probes.threads import torch_threads
from probekit.representations.layers import layer_vectors
from probekit.trees import baselines, distances, metrics, spanning, structure
from probekit.trees.evaluation import (
    METRICS,
    EvalSet,
    corpus_scores,
    length_weights,
    linear_baselines,
    score_distances,
)

matplotlib.use("Agg")


class Sent(SimpleNamespace):
    def __len__(self) -> int:
        return len(self.heads)


def sent(heads, upos=None, sent_id="s") -> Sent:
    heads = np.asarray(heads, dtype=np.int64)
    n = heads.size
    return Sent(
        sent_id=sent_id,
        heads=heads,
        upos=np.array(upos if upos is not None else ["NOUN"] * n),
        forms=np.array([f"w{i}" for i in range(n)]),
        deprel=np.array(["dep"] * n),
    )


trees_st = st.integers(2, 14).flatmap(
    lambda n: st.integers(0, 2**31 - 1).map(
        lambda seed: random_heads(np.random.default_rng(seed), n)
    )
)


class FakeEmbeddings:
    """Duck-typed :class:`probekit.io.embeddings.Embeddings`: ``offsets`` and ``layer(k)``."""

    def __init__(self, layers: list[list[np.ndarray]]):
        self.offsets = np.concatenate([[0], np.cumsum([len(x) for x in layers[0]])])
        self._layers = [np.concatenate(per_sentence).astype(np.float16) for per_sentence in layers]
        self.n_layers, self.dim = len(layers), layers[0][0].shape[1]

    def layer(self, k: int) -> np.ndarray:
        return self._layers[k]


def path_embeddings(heads: np.ndarray, n_max: int) -> np.ndarray:
    """One-hot ancestors: squared Euclidean distance between rows = tree distance."""
    parents = heads - 1
    x = np.zeros((heads.size, n_max))
    for v in range(heads.size):
        u = v
        while parents[u] >= 0:
            x[v, u] = 1.0
            u = parents[u]
    return x


def two_layer_corpus(n_sent: int, seed: int, n_max: int = 8):
    """Layer 0: noise only; layer 1: tree-encoding vectors plus a little noise."""
    rng = np.random.default_rng(seed)
    heads = [random_heads(rng, int(rng.integers(5, n_max + 1))) for _ in range(n_sent)]
    noise = [rng.normal(0, 1.0, (h.size, n_max)) for h in heads]
    signal = [path_embeddings(h, n_max) + rng.normal(0, 0.05, (h.size, n_max)) for h in heads]
    return FakeEmbeddings([noise, signal]), [sent(h, sent_id=f"s{i}") for i, h in enumerate(heads)]


# --------------------------------------------------------------------------------------------
# Chapter 11


def test_pick_example(tiny):
    dev = tiny["dev"]
    assert pick_example(dev, "tiny-dev-2").sent_id == "tiny-dev-2"
    assert len(pick_example(dev, "", 7)) == 7
    # No sentence of 100 words: the nearest length wins.
    assert pick_example(dev, "", 100) is max(dev, key=len)
    with pytest.raises(ParameterError, match="example_id"):
        pick_example(dev, "nope")
    with pytest.raises(ParameterError, match="example_length"):
        pick_example(dev, "", 1)
    with pytest.raises(ParameterError):
        pick_example([], "", 5)


@settings(max_examples=60, deadline=None)
@given(trees_st, st.data())
def test_tree_path_has_distance_plus_one_words(heads, data):
    n = heads.size
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    path = tree_path(heads, i, j)
    dist = distances.tree_distances(heads)
    assert path[0] == i and path[-1] == j
    assert path.size == dist[i, j] + 1
    assert len(set(path.tolist())) == path.size
    edges = structure.edge_set(structure.edges_from_heads(heads))
    for u, v in zip(path[:-1], path[1:], strict=True):
        assert (min(u, v), max(u, v)) in edges


def test_tree_path_and_farthest_pair_on_a_chain():
    heads = np.array([0, 1, 2, 3])
    assert tree_path(heads, 3, 0).tolist() == [3, 2, 1, 0]
    assert farthest_pair(distances.tree_distances(heads)) == (0, 3)
    with pytest.raises(ParameterError):
        tree_path(heads, 0, 4)
    with pytest.raises(ParameterError):
        farthest_pair(np.zeros((1, 1)))


@settings(max_examples=60, deadline=None)
@given(trees_st, st.integers(0, 1000))
def test_monotone_transform_keeps_the_order_and_prim_recovers_the_tree(heads, seed):
    dist = distances.tree_distances(heads)
    out = monotone_transform(dist, np.random.default_rng(seed))
    assert np.all(np.diag(out) == 0)
    a, b = dist.ravel(), out.ravel()
    assert np.array_equal(np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :]))
    assert np.array_equal(
        structure.edges_from_parents(spanning.prim_mst(out)), structure.edges_from_heads(heads)
    )


def test_round_trip_counts_on_random_trees():
    rng = np.random.default_rng(0)
    sentences = [sent(random_heads(rng, int(n))) for n in rng.integers(1, 30, size=40)]
    counts = round_trip_counts(sentences, seed=1)
    assert counts == {"trees": 40, "round_trip": 40, "ordering_only": 40, "floyd_warshall": 40}


def test_distance_pairs_by_hand():
    chain = sent([0, 1, 2])  # w0 - w1 - w2
    star = sent([2, 0, 2])  # w1 is the head of w0 and w2
    df = distance_pairs([chain, star])
    got = {(r.linear, r.syntactic): r.pairs for r in df.itertuples()}
    assert got == {(1, 1): 4, (2, 2): 2}
    assert df["pairs"].sum() == 6
    summary = distance_summary(df, far=2)
    assert summary["adjacent_arc_share"] == 100.0
    assert summary["mean_syntactic_far"] == 2.0
    assert np.isnan(distance_summary(df, far=5)["mean_syntactic_far"])


def test_figures_draw_every_arc(tiny):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc

    s = pick_example(tiny["dev"], "", 7)
    dist = distances.tree_distances(s.heads)
    path = tree_path(s.heads, *farthest_pair(dist))
    fig = example_figure(s, dist, path)
    arcs = [p for p in fig.axes[0].patches if isinstance(p, Arc)]
    assert len(arcs) == len(s) - 1
    plt.close(fig)
    fig = linear_vs_syntactic_figure(distance_pairs(tiny["dev"]))
    assert fig.axes[0].get_xlabel().startswith("linear distance")
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# Chapter 12: data and metrics


def test_torch_threads_restores():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ParameterError), torch_threads(0):
        pass


def test_layer_vectors():
    emb, sentences = two_layer_corpus(5, seed=0)
    vecs = layer_vectors(emb, 1)
    assert [v.shape[0] for v in vecs] == [len(s) for s in sentences]
    assert all(v.dtype == np.float32 for v in vecs)


def test_evalset_punctuation_mask(tiny):
    s = pick_example(tiny["dev"], "tiny-dev-1")
    with_punct = EvalSet.build([s], exclude_punct=False)
    without = EvalSet.build([s], exclude_punct=True)
    assert with_punct.keep[0].all()
    assert without.keep[0].tolist() == (s.upos != "PUNCT").tolist()
    assert np.array_equal(without.gold[0], distances.tree_distances(s.heads))


def test_gold_distances_score_perfectly():
    rng = np.random.default_rng(1)
    sentences = [sent(random_heads(rng, int(n))) for n in rng.integers(2, 20, size=30)]
    gold = EvalSet.build(sentences)
    scores = corpus_scores(score_distances([g.astype(float) for g in gold.gold], gold))
    assert scores == pytest.approx({"uuas": 1.0, "dspr": 1.0, "dspr_pfw": 1.0})


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_summarise_matches_the_trees_metrics(seed):
    rng = np.random.default_rng(seed)
    sentences = [
        sent(random_heads(rng, int(n)), upos=rng.choice(["NOUN", "PUNCT"], size=int(n)))
        for n in rng.integers(1, 14, size=12)
    ]
    gold = EvalSet.build(sentences, exclude_punct=True)
    preds = []
    for n in gold.lengths:
        a = rng.random((n, n))
        p = a + a.T
        np.fill_diagonal(p, 0)
        preds.append(p)
    per_sentence = score_distances(preds, gold)
    got = corpus_scores(per_sentence)
    assert got["uuas"] == pytest.approx(metrics.uuas(preds, gold.heads, gold.keep), nan_ok=True)
    assert got["dspr"] == pytest.approx(metrics.dspr(preds, gold.gold), nan_ok=True)
    assert got["dspr_pfw"] == pytest.approx(metrics.dspr_prim_fw(preds, gold.gold), nan_ok=True)


def test_length_weights():
    lengths = np.array([3, 5, 5, 7, 60, 7, 7])
    w = length_weights(lengths)
    assert w.tolist() == [0, 0.5, 0.5, 1 / 3, 0, 1 / 3, 1 / 3]
    values = np.array([9.0, 0.2, 0.4, 0.1, 9.0, 0.2, 0.3])
    by_len = metrics.dspr_by_length(values, lengths)
    assert np.sum(w * values) / w.sum() == pytest.approx(np.mean(list(by_len.values())))


def test_linear_baseline_is_the_chain():
    rng = np.random.default_rng(3)
    sentences = [sent(random_heads(rng, int(n))) for n in rng.integers(2, 15, size=20)]
    gold = EvalSet.build(sentences, exclude_punct=False)
    chain = [
        distances.tree_distances(baselines.linear_chain_heads(n)).astype(float)
        for n in gold.lengths
    ]
    base = linear_baselines(gold)
    assert base["uuas"] == pytest.approx(metrics.uuas(chain, gold.heads))
    assert base["dspr"] == pytest.approx(metrics.dspr(chain, gold.gold))
    assert base["dspr"] == pytest.approx(base["dspr_pfw"])


def test_search_space():
    space = search_space([0, 16, 999], d=64, lr_min=1e-4, lr_max=1e-2, dropout_max=0.3)
    assert space.ranks == (16, 64)
    assert space.dropout_max == 0.3
    with pytest.raises(ParameterError, match="ranks"):
        search_space([], 64, 1e-4, 1e-2, 0.3)
    with pytest.raises(ParameterError, match="ranks"):
        search_space([-1], 64, 1e-4, 1e-2, 0.3)


# --------------------------------------------------------------------------------------------
# Chapter 12: search, training, comparison


@pytest.fixture(scope="module")
def trained():
    train_emb, train_s = two_layer_corpus(48, seed=10)
    dev_emb, dev_s = two_layer_corpus(16, seed=11)
    test_emb, test_s = two_layer_corpus(24, seed=12)
    train_heads = [s.heads for s in train_s]
    dev, test = EvalSet.build(dev_s), EvalSet.build(test_s)
    space = search_space([4, 0], train_emb.dim, 1e-2, 5e-2, 0.1)
    configs, trials = search(
        layer_vectors(train_emb, 1), train_heads, layer_vectors(dev_emb, 1), dev.heads,
        space, n_trials=2, seed=0, max_epochs=4, patience=2,
    )  # fmt: skip
    scores, probes = train_layers(
        train_emb, train_heads, dev_emb, dev, configs, [0, 1], [1, 2], max_epochs=6, patience=3
    )
    return configs, trials, scores, probes, test_emb, test


def test_search_table(trained):
    configs, trials, *_ = trained
    assert set(configs) == set(KINDS)
    assert len(trials) == 4 and trials.groupby("kind")["chosen"].sum().tolist() == [1, 1]
    for kind, config in configs.items():
        chosen = trials[(trials["kind"] == kind) & trials["chosen"]].iloc[0]
        assert chosen["dev_loss"] == trials[trials["kind"] == kind]["dev_loss"].min()
        assert config == {k: chosen[k] for k in ("rank", "lr", "dropout")}
    # Both kinds draw the same configurations.
    a, b = (trials[trials["kind"] == k][["rank", "lr", "dropout"]] for k in KINDS)
    assert a.to_numpy().tolist() == b.to_numpy().tolist()


def test_train_layers_finds_the_tree_layer(trained):
    _, _, scores, probes, *_ = trained
    assert len(scores) == 2 * 2 * 2 and set(probes) == {
        (k, layer, s) for k in KINDS for layer in (0, 1) for s in (1, 2)
    }
    means = scores.groupby("layer")["uuas"].mean()
    assert means[1] > means[0] + 0.2
    assert best_layer(scores) == 1
    assert comparison_layer(None, scores, 2) == 1
    assert comparison_layer(-1, scores, 2) == 1
    assert comparison_layer(0, scores, 2) == 0
    with pytest.raises(ParameterError, match="compare_layer"):
        comparison_layer(2, scores, 3)


def test_tune_searches_every_layer_group_with_equal_budgets():
    train_emb, train_s = two_layer_corpus(48, seed=10)
    dev_emb, dev_s = two_layer_corpus(16, seed=11)
    gold = {"train": EvalSet.build(train_s), "dev": EvalSet.build(dev_s)}
    config = ProbeParserConfig(
        treebank="t", n_train=0, n_dev=0, n_test=0, filter_test=False, sample_seed=0,
        exclude_punct=True, model="m", pooling="mean", layers=[], seeds=[1, 2], n_trials=2,
        search_every=1, search_seed=0, ranks=[4, 0], lr_min=1e-2, lr_max=5e-2,
        dropout_max=0.1, max_epochs=4, patience=2, parser_selection="uuas", compare_layer=None,
    )  # fmt: skip
    embs = {"train": train_emb, "dev": dev_emb}
    tuning = tune(config, prepare_features(embs, gold, [0, 1]), [0, 1], 2, progress=False)
    # search_every=1: each trained layer is searched on itself.
    assert tuning.groups == {0: 0, 1: 1} and tuning.searched == [0, 1]
    assert tuning.space.ranks == (4, train_emb.dim)
    assert tuning.selections == {"structural": "loss", "perceptron": "uuas"}
    trials = tuning.trials
    assert len(trials) == 2 * 2 * config.n_trials
    # Equal budgets: both kinds draw the same configurations on every searched layer.
    a, b = (trials[trials["kind"] == k][["layer", "rank", "lr", "dropout"]] for k in KINDS)
    assert a.to_numpy().tolist() == b.to_numpy().tolist()
    for (kind, layer), block in trials.groupby(["kind", "layer"]):
        chosen = block[block["chosen"]]
        assert len(chosen) == 1
        # Each kind is selected on its own yardstick: the lowest loss, or the highest UUAS.
        if kind == "structural":
            assert chosen["dev_loss"].iloc[0] == block["dev_loss"].min()
        else:
            assert chosen["dev_score"].iloc[0] == block["dev_score"].max()
        row = chosen.iloc[0]
        assert tuning.configs[kind][layer] == {k: row[k] for k in ("rank", "lr", "dropout")}
    assert tuning.layer_configs()["perceptron"][1] == tuning.configs["perceptron"][1]


def test_held_out_scores_at_the_best_dev_layer(trained):
    *_, scores, probes, test_emb, test = trained
    held = held_out_scores(probes, scores, test_emb, test, None)
    assert held.layer == best_layer(scores) == 1
    pd.testing.assert_frame_equal(
        held.per_sentence, per_sentence_scores(probes, test_emb, test, layer=1)
    )
    pd.testing.assert_frame_equal(held.per_seed, seed_scores(held.per_sentence))
    assert held.table.index.tolist() == ["parser", "probe", "linear-chain baseline"]
    assert held_out_scores(probes, scores, test_emb, test, 0).layer == 0
    with pytest.raises(ParameterError, match="compare_layer"):
        held_out_scores(probes, scores, test_emb, test, 5)


def test_per_sentence_scores_and_claim_intervals(trained):
    *_, probes, test_emb, test = trained
    per_sentence = per_sentence_scores(probes, test_emb, test, layer=1)
    assert len(per_sentence) == 2 * 2 * len(test)
    per_seed = seed_scores(per_sentence)
    mean = per_seed.groupby("kind")[list(METRICS)].mean()
    intervals = probe_parser_intervals(per_sentence)
    assert list(intervals) == [c.key for c in CLAIMS] == ["uuas", "dspr", "dspr_pfw"]
    # Seeds share the sentences, so the estimate is the difference of the seed-averaged corpus
    # metrics, in the claimed direction.
    for metric, sign in (("uuas", 1), ("dspr", -1), ("dspr_pfw", 1)):
        expected = sign * (mean.loc["perceptron", metric] - mean.loc["structural", metric])
        assert intervals[metric].estimate == pytest.approx(expected)
        assert intervals[metric].n_seeds == (2, 2) and intervals[metric].level == 0.90
    table = results_table(per_seed, linear_baselines(test))
    assert table.index.tolist() == ["parser", "probe", "linear-chain baseline"]
    assert table.loc["probe", "UUAS (%)"] == pytest.approx(100 * mean.loc["structural", "uuas"])
    with pytest.raises(ParameterError):
        per_sentence_scores(probes, test_emb, test, layer=5)


def test_tree_metric_intervals_weight_by_hand():
    """Three sentences, one seed: UUAS weighted by edges; DSpr by length bins in 5..50."""
    rows = [
        # kind, seed, sentence, length, correct, total, dspr
        ("perceptron", 1, 0, 5, 4, 4, 0.9),
        ("perceptron", 1, 1, 9, 2, 8, 0.5),
        ("perceptron", 1, 2, 9, 4, 8, 0.7),
        ("structural", 1, 0, 5, 2, 4, 0.8),
        ("structural", 1, 1, 9, 4, 8, 0.6),
        ("structural", 1, 2, 9, 3, 8, 0.6),
    ]
    df = pd.DataFrame(
        rows, columns=["kind", "seed", "sentence", "length", "uuas_correct", "uuas_total", "dspr"]
    )
    a, b = (df[df["kind"] == k] for k in ("perceptron", "structural"))
    assert tree_metric_interval(a, b, "uuas", 0.9).estimate == pytest.approx(10 / 20 - 9 / 20)
    # Length 5: 0.9 vs 0.8; length 9: mean 0.6 vs 0.6; mean over lengths: 0.75 vs 0.7.
    assert tree_metric_interval(a, b, "dspr", 0.9).estimate == pytest.approx(0.05)
    arrays = tree_metric_arrays([a, b], "dspr")
    assert arrays.units.tolist() == [1.0, 0.5, 0.5]
    assert arrays.scores[0].tolist() == [[0.9, 0.25, 0.35]]
    with pytest.raises(ParameterError, match="metric"):
        tree_metric_interval(a, b, "las", 0.9)
