"""Tests of the Part II experiments (probekit.experiments.part2_jabberwocky) on a hand-written
fixture treebank."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_heads
from probekit.cli import main
from probekit.errors import ParameterError, ProbekitError
from probekit.experiments.part1_probe_parser.syntactic_distance import tree_path
from probekit.experiments.part2_jabberwocky import probe_runs
from probekit.experiments.part2_jabberwocky.baselines import (
    BASELINES,
    baseline_scores,
    best_baseline,
)
from probekit.experiments.part2_jabberwocky.claims import CLAIMS, jabberwocky_intervals
from probekit.experiments.part2_jabberwocky.comparisons import drops_table, leads_table
from probekit.experiments.part2_jabberwocky.config import (
    JabberwockyCorpusConfig,
    JabberwockyProbesConfig,
)
from probekit.experiments.part2_jabberwocky.corpus import (
    aligned_pairs,
    corpus_dir,
    ensure_corpus,
    load_corpus_pairs,
    substituted,
)
from probekit.experiments.part2_jabberwocky.corpus_figures import (
    coverage_figure,
    length_figure,
    parse_figure,
    pick_parse_example,
)
from probekit.experiments.part2_jabberwocky.corpus_tables import (
    coverage_table,
    example_table,
    part_table,
    stem_table,
    upos_coverage,
)
from probekit.experiments.part2_jabberwocky.probe_runs import probe_representations
from probekit.experiments.part2_jabberwocky.probes import (
    chapter12_configs,
    choose_layer,
    run_representation,
)
from probekit.experiments.part2_jabberwocky.representations import (
    TYPE_LEVEL,
    VectorSet,
    fasttext_position_vectors,
    short_model_name,
)
from probekit.experiments.part2_jabberwocky.results import (
    bars_figure,
    jabberwocky_prose_values,
    jabberwocky_results,
    jabberwocky_summary,
    relative_change,
    scores_table,
)
from probekit.experiments.part2_jabberwocky.test_sets import load_test_sets
from probekit.experiments.tree_probing.intervals import tree_metric_interval
from probekit.experiments.tree_probing.training import KINDS
from probekit.io.treebanks import load_treebank, read_conllu
from probekit.representations.positions import sinusoidal_positions, with_positions
from probekit.stats.verdicts import VERDICTS
from probekit.trees import baselines as tree_baselines
from probekit.trees import distances, metrics
from probekit.trees.evaluation import EvalSet, corpus_scores, edge_outcomes

matplotlib.use("Agg")

FIXTURE = Path(__file__).parent / "fixtures" / "jabberwocky_src.conllu"


@pytest.fixture(scope="module")
def source_dir(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for split in ("train", "dev", "test"):
        shutil.copyfile(FIXTURE, src / f"xx_fix-ud-{split}.conllu")
    return src


@pytest.fixture(scope="module")
def corpus(source_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("jab") / "corpus"
    path, report = ensure_corpus(str(source_dir), seed=5, out_dir=out, n_pseudowords=200)
    original = load_treebank(source_dir, splits=("test",))["test"]
    jabber = load_treebank(path, splits=("test",))["test"]
    return path, report, aligned_pairs(original, jabber)


def eval_set(heads_list, upos_list=None) -> EvalSet:
    sents = [
        SimpleNamespace(
            heads=np.asarray(h, dtype=np.int64),
            upos=np.array(u if u is not None else ["NOUN"] * len(h)),
        )
        for h, u in zip(heads_list, upos_list or [None] * len(heads_list), strict=True)
    ]
    return EvalSet.build(sents, exclude_punct=True)


# --------------------------------------------------------------------------------------------
# Corpus


def test_corpus_pairs_keep_trees_and_counts_agree(corpus):
    _, report, pairs = corpus
    replaced = sum(int(substituted(o, j).sum()) for o, j in pairs)
    assert replaced == report["replaced"] > 0
    coverage = coverage_table(report)
    assert coverage["replaced"].sum() == replaced
    by_upos = upos_coverage(pairs)
    assert by_upos["replaced"].sum() == replaced
    assert by_upos.loc["PUNCT", "replaced"] == 0
    stems = stem_table(pairs)
    assert stems["tokens"].sum() == replaced
    assert (stems["onset"] + stems["nucleus"] + stems["coda"] == stems["stem"]).all()


def test_ensure_corpus_reuses_and_rebuilds(source_dir, tmp_path):
    out = tmp_path / "c"
    path, first = ensure_corpus(str(source_dir), seed=1, out_dir=out, n_pseudowords=200)
    written = path / first["files"]["output"]["file"]
    stamp = written.stat().st_mtime_ns
    _, again = ensure_corpus(str(source_dir), seed=1, out_dir=out, n_pseudowords=200)
    assert written.stat().st_mtime_ns == stamp and again == first
    # A tampered output no longer matches its report and is rebuilt, byte for byte the same.
    original = written.read_bytes()
    written.write_bytes(original.replace(b"\t", b"\t", 1) + b"\n# tampered\n")
    ensure_corpus(str(source_dir), seed=1, out_dir=out, n_pseudowords=200)
    assert written.read_bytes() == original
    _, other = ensure_corpus(str(source_dir), seed=2, out_dir=out, n_pseudowords=200)
    assert other["seed"] == 2


def test_ensure_corpus_refuses_a_treebank_without_english_feature_sets(tmp_path):
    src = tmp_path / "de"
    src.mkdir()
    rows = [
        "# sent_id = de-1",
        "# text = Der Hund schläft.",
        "1\tDer\tder\tDET\t_\tCase=Nom|Gender=Masc|Number=Sing\t2\tdet\t_\t_",
        "2\tHund\tHund\tNOUN\t_\tCase=Nom|Gender=Masc|Number=Sing\t3\tnsubj\t_\t_",
        "3\tschläft\tschlafen\tVERB\t_\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
        "|Voice=Act\t0\troot\t_\tSpaceAfter=No",
        "4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_",
    ]
    for split in ("train", "dev", "test"):
        (src / f"de_x-ud-{split}.conllu").write_text("\n".join(rows) + "\n\n")
    with pytest.raises(ProbekitError, match="English"):
        ensure_corpus(str(src), seed=0, out_dir=tmp_path / "out", n_pseudowords=50)


def test_corpus_dir_names_settings(source_dir, tmp_path):
    words = tmp_path / "w.txt"
    words.write_text("blick\nfrop\n")
    base = corpus_dir("UD_English-EWT", 3, root=tmp_path)
    assert base == tmp_path / "UD_English-EWT-seed3"
    assert corpus_dir(str(source_dir), 3, root=tmp_path).name == f"{source_dir.name}-seed3"
    assert "rate0.5" in corpus_dir("x", 3, rate=0.5, root=tmp_path).name
    assert "-list" in corpus_dir("x", 3, pseudowords=str(words), root=tmp_path).name


def test_aligned_pairs_rejects_other_sentences(corpus, source_dir):
    _, _, pairs = corpus
    original = [o for o, _ in pairs]
    jabber = [j for _, j in pairs]
    with pytest.raises(ProbekitError):
        aligned_pairs(original, jabber[::-1])
    with pytest.raises(ProbekitError):
        aligned_pairs(original, jabber[:-1])


def test_examples_and_parse_pick(corpus):
    _, _, pairs = corpus
    table = example_table(pairs, n=2, seed=0, min_len=2, max_len=50)
    assert len(table) == 2 and set(table.columns) >= {"original", "Jabberwocky"}
    assert (table["original"] != table["Jabberwocky"]).all()
    o, j = pick_parse_example(pairs, pairs[1][0].sent_id)
    assert o.sent_id == pairs[1][0].sent_id
    with pytest.raises(ParameterError):
        pick_parse_example(pairs, "no-such-id")
    # With no sentence in the length range, the examples come from all sentences.
    assert len(example_table(pairs, n=2, seed=0, min_len=200, max_len=300)) == 2


def test_part_table(corpus):
    _, _, pairs = corpus
    stems = stem_table(pairs)
    table = part_table(stems, "nucleus", top=3)
    assert len(table) <= 3
    assert table["stems"].is_monotonic_decreasing
    with pytest.raises(ParameterError):
        part_table(stems, "rhyme")


def test_figures_render(corpus):
    import matplotlib.pyplot as plt

    _, report, pairs = corpus
    stems = stem_table(pairs)
    for fig in (
        coverage_figure(coverage_table(report), upos_coverage(pairs)),
        length_figure(stems, pairs),
        parse_figure(*pairs[0]),
    ):
        assert fig.axes
        plt.close(fig)


def test_cli_writes_conllu_that_reads_back(source_dir, tmp_path, capsys):
    out = tmp_path / "cli"
    args = ["jabberwocky", "--treebank", str(source_dir), "--seed", "4", "--out", str(out)]
    assert main([*args, "--n-pseudowords", "150"]) == 0
    written = read_conllu(out / "xx_fix-ud-test.conllu")
    assert len(written) == len(read_conllu(FIXTURE))
    assert "words replaced" in capsys.readouterr().out
    assert json.loads((out / "jabberwocky-report.json").read_text())["seed"] == 4
    assert main([*args, "--rate", "1.5"]) == 2
    assert "rate" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Baselines: identical on both datasets


def test_simple_baselines_score_identically_on_jabberwocky(corpus, source_dir):
    _, _, pairs = corpus
    train = load_treebank(source_dir, splits=("train",))["train"]
    majority = tree_baselines.MajorityTree(min_count=1).fit([s.heads for s in train])
    normal = baseline_scores(majority, EvalSet.build([o for o, _ in pairs]))
    jabber = baseline_scores(majority, EvalSet.build([j for _, j in pairs]))
    pd.testing.assert_frame_equal(normal, jabber)
    # The majority tree of a length seen once is that very tree: it recovers every edge.
    lengths = pd.Series([len(s) for s in train]).value_counts()
    once = normal["length"].map(lengths).eq(1) & normal["baseline"].eq("majority tree")
    assert once.any()
    assert np.allclose(normal.loc[once, "uuas"].dropna(), 1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 12), min_size=2, max_size=6), st.integers(0, 10_000))
def test_linear_chain_baseline_matches_trees(lengths, seed):
    rng = np.random.default_rng(seed)
    heads = [random_heads(rng, n) for n in lengths]
    gold = eval_set(heads)
    scores = baseline_scores(tree_baselines.MajorityTree().fit(heads), gold)
    chain = scores[scores["baseline"] == "linear chain"]
    dists = [distances.tree_distances(tree_baselines.linear_chain_heads(n)) for n in lengths]
    assert corpus_scores(chain)["uuas"] == pytest.approx(metrics.uuas(dists, heads))
    assert best_baseline(scores, "uuas") in BASELINES


# --------------------------------------------------------------------------------------------
# Edge outcomes and paired differences


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(2, 10), min_size=1, max_size=5), st.integers(0, 10_000))
def test_edge_outcomes_agree_with_uuas_counts(lengths, seed):
    rng = np.random.default_rng(seed)
    heads = [random_heads(rng, n) for n in lengths]
    upos = [np.where(rng.random(n) < 0.2, "PUNCT", "NOUN") for n in lengths]
    gold = eval_set(heads, upos)
    preds = []
    for n in lengths:
        m = rng.random((n, n))
        preds.append(m + m.T)
    outcomes = edge_outcomes(preds, gold)
    correct, total = metrics.uuas_counts(preds, gold.heads, gold.keep)
    assert outcomes.size == total.sum()
    assert outcomes.sum() == correct.sum()
    assert edge_outcomes(gold.gold, gold).all()


def per_sentence(values, lengths, totals, metric):
    return pd.DataFrame(
        {
            "sentence": np.arange(len(values)),
            "length": lengths,
            "uuas_total": totals,
            "uuas_correct": np.round(np.asarray(values) * totals),
            metric: values,
            "seed": 1,
        }
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_interval_estimate_is_the_corpus_level_difference(seed):
    rng = np.random.default_rng(seed)
    n = 30
    lengths = rng.integers(2, 40, size=n)
    totals = lengths - 1
    a_correct = rng.integers(0, totals + 1)
    b_correct = rng.integers(0, totals + 1)
    a = per_sentence(a_correct / totals, lengths, totals, "uuas").assign(uuas_correct=a_correct)
    b = per_sentence(b_correct / totals, lengths, totals, "uuas").assign(uuas_correct=b_correct)
    res = tree_metric_interval(a, b, "uuas", 0.90)
    expected = a_correct.sum() / totals.sum() - b_correct.sum() / totals.sum()
    assert res.estimate == pytest.approx(expected)
    da, db = rng.random(n), rng.random(n)
    a = a.assign(dspr=da, dspr_pfw=da)
    b = b.assign(dspr=db, dspr_pfw=db)
    res = tree_metric_interval(a, b, "dspr", 0.90)
    assert res.estimate == pytest.approx(corpus_scores(a)["dspr"] - corpus_scores(b)["dspr"])
    assert res.n_sentences == int(((lengths >= 5) & (lengths <= 50)).sum())


def test_interval_of_identical_rows_is_zero():
    lengths = np.arange(5, 25)
    values = np.linspace(0.2, 0.9, lengths.size)
    a = per_sentence(values, lengths, lengths - 1, "dspr")
    res = tree_metric_interval(a, a.copy(), "dspr", 0.90, paired_seeds=True)
    assert res.estimate == 0.0 and res.low == 0.0 and res.high == 0.0
    with pytest.raises(ParameterError, match="metric"):
        tree_metric_interval(a, a, "accuracy", 0.90)
    with pytest.raises(ParameterError, match="seeds"):
        tree_metric_interval(a, a.assign(seed=2), "dspr", 0.90, paired_seeds=True)


# --------------------------------------------------------------------------------------------
# Layers, hyperparameters, representations


def test_choose_layer_rules():
    scores = pd.DataFrame(
        {
            "kind": ["perceptron"] * 3 + ["structural"] * 3,
            "layer": [0, 1, 2, 0, 1, 2],
            "dev_loss": [3.0, 2.0, 1.0, 0.5, 0.4, 0.4],
            "uuas": [0.5, 0.7, 0.3, 0.4, 0.4, 0.4],
            "dspr": [0.1, 0.2, 0.3, 0.6, 0.8, 0.7],
        }
    )
    assert choose_layer(scores, "perceptron", "loss") == 2
    assert choose_layer(scores, "perceptron", "metric") == 1
    assert choose_layer(scores, "structural", "loss") == 1  # tie: the lower layer
    assert choose_layer(scores, "structural", "metric") == 1
    with pytest.raises(ParameterError):
        choose_layer(scores, "perceptron", "median")


def test_chapter12_configs(tmp_path):
    path = tmp_path / "12.json"
    rules = {"structural": "loss", "perceptron": "uuas"}
    args = ("m", "t", "mean", [0, 3], 3, rules)
    assert chapter12_configs(path, *args) is None
    path.write_text(json.dumps(chapter12_saved("m", "t", [0, 3, 6]) | {"search_every": 3}))
    configs = chapter12_configs(path, *args)
    assert set(configs) == {"structural", "perceptron"} and set(configs["structural"]) == {0, 3}
    assert configs["structural"][3] == {"rank": 4, "lr": 0.05, "dropout": 0.0}
    # Reused only when encoder, treebank, pooling, layer groups and selection rules all match.
    assert chapter12_configs(path, "other-model", *args[1:]) is None
    assert chapter12_configs(path, "m", "t", "first", *args[3:]) is None
    assert chapter12_configs(path, "m", "t", "mean", [0, 4], 3, rules) is None
    assert chapter12_configs(path, "m", "t", "mean", [0, 3], 1, rules) is None
    loss = {"structural": "loss", "perceptron": "loss"}
    assert chapter12_configs(path, "m", "t", "mean", [0, 3], 3, loss) is None
    path.write_text('{"model": "m",')
    with pytest.raises(ProbekitError, match=r"12\.json:1: not valid JSON"):
        chapter12_configs(path, *args)


def test_sinusoidal_positions():
    pe = sinusoidal_positions(50, 16)
    assert pe.shape == (50, 16) and pe.dtype == np.float32
    assert np.allclose(pe[0, 0::2], 0.0) and np.allclose(pe[0, 1::2], 1.0)
    assert np.allclose(pe[7, 2], np.sin(7 / 10000 ** (2 / 16)), atol=1e-6)
    assert np.abs(pe).max() <= 1.0
    assert len({row.tobytes() for row in pe}) == 50  # every position is distinguishable
    with pytest.raises(ParameterError):
        sinusoidal_positions(3, 0)


def test_with_positions_and_vector_set():
    vectors = [np.ones((3, 4)), np.zeros((5, 4))]
    out = with_positions(vectors, 6)
    assert [v.shape for v in out] == [(3, 10), (5, 10)]
    assert np.array_equal(out[1][:, 4:], sinusoidal_positions(5, 6))
    assert with_positions(vectors, 0)[0].shape == (3, 4)
    vs = VectorSet(out)
    assert vs.n_layers == 1 and vs.dim == 10
    assert vs.offsets.tolist() == [0, 3, 8]
    assert np.array_equal(vs.layer(0)[3:], out[1])
    with pytest.raises(ParameterError):
        vs.layer(1)
    with pytest.raises(ParameterError):
        VectorSet([np.ones((2, 3)), np.ones((2, 4))])


def test_fasttext_position_vectors_cover_pseudowords(corpus, source_dir):
    _, _, pairs = corpus
    train = load_treebank(source_dir, splits=("train",))["train"]
    sets = {"normal": [o for o, _ in pairs], "Jabberwocky": [j for _, j in pairs]}
    out = fasttext_position_vectors(train, sets, dim=8, seed=0, position_dim=4, epochs=1)
    again = fasttext_position_vectors(train, sets, dim=8, seed=0, position_dim=4, epochs=1)
    for name, sents in sets.items():
        assert [len(v) for v in out[name].vectors] == [len(s) for s in sents]
        assert out[name].dim == 12
        assert np.array_equal(out[name].layer(0), again[name].layer(0))
    o, j = pairs[0]
    changed = np.flatnonzero(substituted(o, j))
    same = np.flatnonzero(~substituted(o, j))
    assert not np.allclose(
        out["normal"].vectors[0][changed], out["Jabberwocky"].vectors[0][changed]
    )
    assert np.array_equal(out["normal"].vectors[0][same], out["Jabberwocky"].vectors[0][same])


class TwoLayers:
    """Embeddings stand-in: layer 0 is noise, layer 1 encodes each word's depth and position."""

    def __init__(self, sentences, seed: int):
        rng = np.random.default_rng(seed)
        self.offsets = np.concatenate([[0], np.cumsum([len(s) for s in sentences])])
        rows0, rows1 = [], []
        for s in sentences:
            n = len(s)
            rows0.append(rng.normal(size=(n, 6)))
            depth = np.array(
                [len(tree_path(s.heads, k, int(np.argmin(s.heads)))) for k in range(n)]
            )
            rows1.append(np.column_stack([np.arange(n), depth, rng.normal(size=(n, 4)) * 0.01]))
        self._layers = [np.concatenate(rows0), np.concatenate(rows1)]
        self.n_layers, self.dim = 2, 6

    def layer(self, k: int) -> np.ndarray:
        return self._layers[k].astype(np.float32)


def test_run_representation_tables(source_dir):
    sents = [s for s in read_conllu(FIXTURE) if len(s) >= 2]
    gold = EvalSet.build(sents)
    emb = TwoLayers(sents, 0)
    configs = {kind: {"rank": 4, "lr": 0.01, "dropout": 0.0} for kind in KINDS}
    run = run_representation(
        "toy",
        emb,
        gold.heads,
        emb,
        gold,
        {"normal": emb, "Jabberwocky": TwoLayers(sents, 1)},
        gold,
        configs,
        [1],
        [1, 2],
        "metric",
        max_epochs=2,
        patience=1,
    )
    assert set(run.chosen) == set(KINDS) and set(run.chosen.values()) <= {0, 1}
    df = run.per_sentence
    assert set(df["representation"]) == {"toy · best layer", "toy · layer 0"}
    assert set(df["dataset"]) == {"normal", "Jabberwocky"} and set(df["seed"]) == {1, 2}
    assert len(df) == 2 * 2 * 2 * 2 * len(sents)
    majority = tree_baselines.MajorityTree(min_count=1).fit(gold.heads)
    baselines = baseline_scores(majority, gold)
    scores = scores_table(df, baselines)
    base = scores[scores["representation"].isin(BASELINES)]
    assert (base.groupby(["representation", "probe"])["score"].nunique() == 1).all()
    drops = drops_table(df)
    leads = leads_table(df, baselines)
    assert len(drops) == 4 and len(leads) == 8
    # Every interval has both seeds; a lead compares them with a baseline of one "seed".
    assert set(drops["seeds"]) == {2} and set(leads["seeds"]) == {2}
    assert all(iv.n_seeds == (2, 1) for iv in leads["interval"])
    assert (drops["low"] <= drops["estimate"]).all() and (drops["estimate"] <= drops["high"]).all()
    summary = jabberwocky_summary(scores, drops, leads)
    assert summary.loc[("perceptron probe", "linear chain"), "layer"] == "–"
    order = ["toy · best layer", "toy · layer 0", *BASELINES]
    import matplotlib.pyplot as plt

    plt.close(bars_figure(scores, order))


def test_relative_change_and_names():
    assert relative_change(10.0, 7.5) == "shrinks by 25 % of its size"
    assert relative_change(10.0, 12.0) == "grows by 20 % of its size"
    assert relative_change(10.0, -1.0) == "turns into a deficit"
    assert "did not exist" in relative_change(-2.0, 1.0)
    assert short_model_name("sentence-transformers/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert short_model_name("bert-base-uncased") == "bert-base-uncased"


# --------------------------------------------------------------------------------------------
# Chapter entry points on the fixture treebank


class PiecedLayers(TwoLayers):
    """:class:`TwoLayers` that also counts wordpieces: ``pieces`` per word."""

    def __init__(self, sentences, seed: int, pieces: int):
        super().__init__(sentences, seed)
        self._pieces = np.full(int(self.offsets[-1]), pieces)

    def pieces_per_word(self) -> np.ndarray:
        return self._pieces


def chapter12_saved(model: str, treebank: str, layers: list[int]) -> dict:
    """What chapter 12 saves about its searches: every third layer, the parser on UUAS."""
    values = {
        "model": model,
        "treebank": treebank,
        "pooling": "mean",
        "search_every": 1,
        "searched_layer_list": layers,
        "probe_selection_rule": "loss",
        "parser_selection_rule": "uuas",
    }
    for label in ("probe", "parser"):
        for layer in layers:
            values |= {
                f"{label}_L{layer}_rank": 4,
                f"{label}_L{layer}_lr": 0.02 + layer / 100,
                f"{label}_L{layer}_dropout": 0.0,
            }
    return values


CHAPTER22 = {
    "n_train": 0,
    "n_dev": 0,
    "n_test": 0,
    "filter_test": False,
    "sample_seed": 42,
    "exclude_punct": True,
    "model": "toy",
    "models": [],
    "pooling": "mean",
    "layers": [1],
    "layer_rule": "metric",
    "seeds": [1, 2],
    "jabberwocky_seed": 5,
    "rate": 1.0,
    "pseudowords": "",
    "hyperparameters": "chapter12",
    "n_trials": 1,
    "search_every": 1,
    "search_seed": 0,
    "ranks": [4, 0],
    "lr_min": 0.01,
    "lr_max": 0.05,
    "dropout_max": 0.1,
    "max_epochs": 2,
    "patience": 1,
    "parser_selection": "uuas",
    "fasttext_path": "",
    "fasttext_dim": 8,
    "fasttext_epochs": 1,
    "position_dim": 4,
    "majority_min_count": 1,
}


@pytest.fixture(scope="module")
def chapter22(source_dir, tmp_path_factory):
    """Chapter 22's set-up and runs on the fixture, with a toy two-layer encoder in place of a
    transformer and chapter 12's saved settings in a temporary results file."""
    data = tmp_path_factory.mktemp("data")
    saved = tmp_path_factory.mktemp("results") / "12_probe_vs_parser.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PROBEKIT_DATA", str(data))
        mp.setattr(probe_runs, "encoder_names", lambda model, models: [model])
        mp.setattr(
            probe_runs,
            "embed_samples",
            lambda samples, model, pooling, device="cpu": {
                k: PiecedLayers(s, seed, 2 if k == "Jabberwocky" else 1)
                for seed, (k, s) in enumerate(samples.items())
            },
        )
        config = JabberwockyProbesConfig.from_parameters(CHAPTER22 | {"treebank": str(source_dir)})
        sets = load_test_sets(config)
        saved.write_text(json.dumps(chapter12_saved("toy", sets.data.treebank.name, [0, 1])))
        runs = probe_representations(config, sets, saved)
    return config, sets, runs, data


def test_load_corpus_pairs(chapter22, source_dir, monkeypatch):
    *_, data = chapter22
    monkeypatch.setenv("PROBEKIT_DATA", str(data))
    config = JabberwockyCorpusConfig.from_parameters(
        {
            "treebank": str(source_dir),
            "seed": 5,
            "rate": 1.0,
            "pseudowords": "",
            "n_pseudowords": 2000,
            "n_examples": 2,
            "example_id": "",
        }
    )
    corpus = load_corpus_pairs(config)
    assert corpus.directory == corpus_dir(str(source_dir), 5)
    assert corpus.directory.parent == data.resolve() / "jabberwocky"
    assert corpus.treebank == load_treebank(source_dir, splits=("test",)).name
    assert len(corpus.pairs) == corpus.report["n_sentences"]
    replaced = sum(int(substituted(o, j).sum()) for o, j in corpus.pairs)
    assert replaced == corpus.report["replaced"] > 0


def test_load_test_sets(chapter22):
    config, sets, *_ = chapter22
    test = sets.data.samples["test"]
    assert [o.sent_id for o, _ in sets.pairs] == [s.sent_id for s in test]
    assert [j.sent_id for j in sets.jabberwocky] == [s.sent_id for s in test]
    assert sets.n_words == sum(len(s) for s in test)
    assert sets.n_replaced == sum(int(substituted(o, j).sum()) for o, j in sets.pairs) > 0
    assert len(sets.baselines) == len(BASELINES) * len(test)
    assert sets.report["seed"] == config.jabberwocky_seed
    bad = dataclasses.replace(config, majority_min_count=0)
    with pytest.raises(ParameterError, match="majority_min_count"):
        load_test_sets(bad)


def test_probe_representations(chapter22):
    config, sets, runs, _ = chapter22
    assert runs.encoders == ["toy"] and runs.main == "toy" and runs.main_short == "toy"
    assert set(runs.runs) == {"toy", TYPE_LEVEL}
    assert runs.order == ["toy · best layer", "toy · layer 0", TYPE_LEVEL, *BASELINES]
    assert runs.source == "chapter 12's random searches"
    # The encoder reuses chapter 12's searches layer by layer; fastText searches for itself.
    assert runs.settings["toy"].configs["perceptron"][1] == {"rank": 4, "lr": 0.03, "dropout": 0.0}
    assert runs.settings["toy"].trials.empty
    assert runs.settings[TYPE_LEVEL].source.startswith("a random search of 1 trials")
    assert len(runs.settings[TYPE_LEVEL].trials) == 2
    chosen = runs.main_run.chosen["perceptron"]
    assert runs.chosen_configs()["perceptron"]["lr"] == pytest.approx(0.02 + chosen / 100)
    assert runs.pieces == (1.0, 2.0)
    assert set(runs.test_embs) == {"normal", "Jabberwocky"}
    per_sentence = runs.per_sentence
    assert set(per_sentence["representation"]) == set(runs.order[:3])
    assert set(per_sentence["seed"]) == set(config.seeds)
    n = len(sets.pairs)
    # 2 encoder variants + fastText, 2 probes, 2 datasets, 2 seeds.
    assert len(per_sentence) == 3 * 2 * 2 * 2 * n


def test_probe_representations_checks_its_parameters_first(chapter22):
    config, *_ = chapter22
    for name, value in (
        ("layer_rule", "median"),
        ("hyperparameters", "paper"),
        ("seeds", []),
        ("parser_selection", "margin"),
    ):
        with pytest.raises(ParameterError, match=name):
            probe_representations(dataclasses.replace(config, **{name: value}), None, "x.json")


def test_results_claims_and_prose_values(chapter22):
    config, sets, runs, _ = chapter22
    res = jabberwocky_results(runs.per_sentence, sets.baselines)
    pd.testing.assert_frame_equal(
        res.drops.drop(columns="interval"), drops_table(runs.per_sentence).drop(columns="interval")
    )
    assert set(res.summary.index.get_level_values("representation")) == {
        *runs.order[:3],
        *BASELINES,
    }
    import matplotlib.pyplot as plt

    plt.close(bars_figure(res.scores, runs.order))
    values = jabberwocky_prose_values(res, sets.baselines, runs.main_short)
    per_probe = {
        "normal", "jabberwocky", "baseline", "lead_change", "lead_n", "lead_j",
        "lead_normal_text", "lead_jab_text", "l0_drop_text", "ft_drop_text",
    }  # fmt: skip
    shared = {
        "chain_uuas", "majority_uuas", "chain_dspr", "majority_dspr",
        "n_model_probes", "n_drop_above_zero",
    }  # fmt: skip
    assert set(values) == {f"{k}_{v}" for k in ("st", "pc") for v in per_probe} | shared
    drop = res.drops.set_index(["representation", "probe"])
    assert values["pc_baseline"] == best_baseline(sets.baselines, "uuas")
    chain = sets.baselines[sets.baselines["baseline"] == "linear chain"]
    assert values["chain_uuas"] == pytest.approx(100 * corpus_scores(chain)["uuas"])
    assert values["n_model_probes"] == 2
    assert values["n_drop_above_zero"] == int((drop.loc["toy · best layer", "low"] > 0).sum())
    assert values["st_l0_drop_text"].endswith(")") and "90% CI" in values["st_l0_drop_text"]
    # The claims read the same intervals as the tables, at the chosen layer of the encoder.
    intervals = jabberwocky_intervals(runs.per_sentence, sets.baselines, runs.main_short)
    assert set(intervals) == {c.key for c in CLAIMS}
    st = drop.loc[("toy · best layer", "structural probe")]
    assert intervals["st_drop"].estimate == pytest.approx(st["estimate"])
    pc = drop.loc[("toy · best layer", "perceptron probe")]
    assert 100 * intervals["pc_drop"].estimate == pytest.approx(pc["estimate"])
    lead = res.leads.set_index(["representation", "probe", "dataset"])
    pc_lead = lead.loc[("toy · best layer", "perceptron probe", "Jabberwocky"), "estimate"]
    assert 100 * intervals["pc_lead_j"].estimate == pytest.approx(pc_lead)
    for claim in CLAIMS:
        assert claim.judge(intervals[claim.key]).verdict in VERDICTS
