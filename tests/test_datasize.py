"""Tests of the data-size method and its runs (Zhu et al. 2022): the tense task, encoders,
stratified subsets, batched probes, bounds, comparisons and collapse checks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.bound_tables import bound_table
from probekit.experiments.part5_datasize.collapse_checks import check_collapse, collapse_verdict
from probekit.experiments.part5_datasize.comparisons import (
    comparison_table,
    needed_test_size,
    prospective_power,
    simulation_seeds,
)
from probekit.experiments.part5_datasize.encoders import (
    ExampleEncoder,
    contextual_encoder,
    type_encoder,
    type_level_vectors,
)
from probekit.experiments.part5_datasize.figures import plot_accuracies, plot_bound, plot_power
from probekit.experiments.part5_datasize.paper_numbers import paper_examples, paper_recommendations
from probekit.experiments.part5_datasize.requirements import n_params, requirement_grid
from probekit.experiments.part5_datasize.runs import run_sizes
from probekit.experiments.part5_datasize.training import ProbingConfig, Training
from probekit.io.treebanks import UPOS_TAGS, read_conllu, upos_index
from probekit.methods.datasize.collapse import CollapseReport
from probekit.methods.datasize.pools import (
    TENSE_LABELS,
    Pool,
    build_pool,
    main_verb_tense,
    tense_carrier,
    tense_overview,
)
from probekit.methods.datasize.recommendation import recommend
from probekit.methods.datasize.subsets import (
    choose_sizes,
    default_sizes,
    fold_splits,
    max_size,
    pilot_splits,
    stratified_split,
)
from probekit.representations.fasttext import fasttext_table
from probekit.representations.types import random_type_vectors
from probekit.stats.bounds import finite_class_bound

FAST = settings(max_examples=60, deadline=None)

# One sentence per rule of `tense_carrier`, with the expected (carrier, tense).
TENSE_CASES = """\
# sent_id = finite-root
1	She	she	PRON	PRP	Case=Nom	2	nsubj	_	_
2	left	leave	VERB	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	0	root	_	_
3	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = copula
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	is	be	AUX	VBZ	Mood=Ind|Tense=Pres|VerbForm=Fin	3	cop	_	_
3	happy	happy	ADJ	JJ	Degree=Pos	0	root	_	_

# sent_id = perfect
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	has	have	AUX	VBZ	Mood=Ind|Tense=Pres|VerbForm=Fin	3	aux	_	_
3	left	leave	VERB	VBN	Tense=Past|VerbForm=Part	0	root	_	_

# sent_id = passive
1	It	it	PRON	PRP	Case=Nom	3	nsubj:pass	_	_
2	was	be	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	3	aux:pass	_	_
3	taken	take	VERB	VBN	Tense=Past|VerbForm=Part|Voice=Pass	0	root	_	_

# sent_id = modal
1	She	she	PRON	PRP	Case=Nom	3	nsubj	_	_
2	will	will	AUX	MD	VerbForm=Fin	3	aux	_	_
3	leave	leave	VERB	VB	VerbForm=Inf	0	root	_	_

# sent_id = fragment
1	Great	great	ADJ	JJ	Degree=Pos	2	amod	_	_
2	food	food	NOUN	NN	Number=Sing	0	root	_	_

# sent_id = imperative
1	Leave	leave	VERB	VB	Mood=Imp|VerbForm=Fin	0	root	_	_
2	now	now	ADV	RB	_	1	advmod	_	_

# sent_id = embedded-aux
1	Glad	glad	ADJ	JJ	Degree=Pos	0	root	_	_
2	you	you	PRON	PRP	Case=Nom	4	nsubj	_	_
3	were	be	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	4	aux	_	_
4	coming	come	VERB	VBG	VerbForm=Ger	1	ccomp	_	_

"""
EXPECTED = {
    "finite-root": (1, "past"),
    "copula": (1, "present"),
    "perfect": (1, "present"),
    "passive": (1, "past"),
    "modal": (1, None),
    "fragment": (None, None),
    "imperative": (0, None),
    "embedded-aux": (None, None),
}


@pytest.fixture(scope="module")
def tense_sentences(tmp_path_factory):
    path = tmp_path_factory.mktemp("tense") / "cases-ud-train.conllu"
    path.write_text(TENSE_CASES)
    return read_conllu(path)


def _split(sentences):
    """A fake treebank: the same sentences as train, dev and test."""
    return {"train": sentences, "dev": sentences, "test": sentences}


# --------------------------------------------------------------------------------------------
# The tense task


def test_tense_rules_on_hand_written_cases(tense_sentences):
    for s in tense_sentences:
        assert (tense_carrier(s), main_verb_tense(s)) == EXPECTED[s.sent_id], s.sent_id


def _random_sentence(draw_heads, feats, rels):
    from pathlib import Path

    from probekit.io.treebanks import Sentence

    n = len(draw_heads)
    arr = np.array
    return Sentence(
        "x", None, arr(["w"] * n), arr(["w"] * n), arr(["VERB"] * n), arr(["_"] * n),
        tuple(feats), arr(draw_heads, dtype=np.int64), arr(rels), Path("x"), 1,
    )  # fmt: skip


@st.composite
def trees(draw):
    n = draw(st.integers(1, 7))
    root = draw(st.integers(0, n - 1))
    heads = [0 if i == root else draw(st.integers(1, n)) for i in range(n)]
    heads = [h if h != i + 1 else root + 1 for i, h in enumerate(heads)]
    fin = st.sampled_from([{}, {"VerbForm": "Fin"}, {"VerbForm": "Fin", "Tense": "Past"},
                           {"VerbForm": "Fin", "Tense": "Pres"}, {"VerbForm": "Part",
                                                                  "Tense": "Past"}])  # fmt: skip
    feats = [draw(fin) for _ in range(n)]
    rels = [draw(st.sampled_from(["aux", "aux:pass", "cop", "nsubj", "obj"])) for _ in range(n)]
    return _random_sentence(heads, feats, rels)


@given(trees())
@FAST
def test_carrier_is_the_finite_root_or_its_first_finite_aux_or_cop(s):
    j = tense_carrier(s)
    root = int(np.flatnonzero(s.heads == 0)[0])
    finite = [f.get("VerbForm") == "Fin" for f in s.feats]
    candidates = [
        i
        for i in range(len(s))
        if s.heads[i] == root + 1 and s.deprel[i].split(":")[0] in ("aux", "cop") and finite[i]
    ]
    if finite[root]:
        assert j == root
    else:
        assert j == (candidates[0] if candidates else None)
    tense = main_verb_tense(s)
    if tense is not None:
        assert s.feats[j]["Tense"] == {"past": "Past", "present": "Pres"}[tense]


def test_tense_pool_and_overview(tense_sentences):
    splits = _split(tense_sentences)
    pool = build_pool(splits, "past_present")
    assert pool.labels == TENSE_LABELS
    assert len(pool) == 3 * 4  # four labelled sentences per split
    assert pool.class_counts().tolist() == [6, 6]
    # The example word is the root, whatever carries the tense.
    assert set(pool.form.tolist()) == {"left", "happy", "taken"}
    overview = tense_overview(splits)
    assert overview.loc["train", "past"] == 2 and overview.loc["train", "no label"] == 4
    assert overview.loc["train", "carrier is root"] == pytest.approx(0.25)


def test_pos_pool_matches_upos_index(tiny):
    pool = build_pool(tiny, "pos")
    assert pool.labels == UPOS_TAGS
    expected = np.concatenate([upos_index(tiny[k]) for k in ("train", "dev", "test")])
    assert np.array_equal(pool.y, expected)
    assert pool.form[0] == tiny["train"][0].forms[0]


def test_pool_errors(tense_sentences):
    with pytest.raises(ParameterError, match="task"):
        build_pool(_split(tense_sentences), "bigram_shift")
    past_only = [s for s in tense_sentences if main_verb_tense(s) != "present"]
    with pytest.raises(ParameterError, match="fewer than two classes"):
        build_pool(_split(past_only), "past_present")


# --------------------------------------------------------------------------------------------
# Encoders


def test_contextual_encoder_root_and_mean(tense_sentences):
    splits = _split(tense_sentences)
    pool = build_pool(splits, "past_present")
    n_words = sum(len(s) for s in tense_sentences)
    rng = np.random.default_rng(0)
    layers = {k: rng.standard_normal((n_words, 3)).astype(np.float16) for k in splits}
    root = contextual_encoder(pool, layers, "root")
    mean = contextual_encoder(pool, layers, "mean")
    off = np.concatenate([[0], np.cumsum([len(s) for s in tense_sentences])])
    for i in range(len(pool)):
        words = layers[pool.splits[pool.split[i]]]
        start = off[pool.sent[i]]
        assert np.array_equal(root([i])[0], words[start + pool.word[i]].astype(np.float32))
        expected = words[start : off[pool.sent[i] + 1]].astype(np.float32).mean(0)
        assert np.allclose(mean([i])[0], expected, atol=1e-6)
    with pytest.raises(ParameterError, match="rep"):
        contextual_encoder(pool, layers, "cls")


def test_type_encoder_root_and_mean(tense_sentences):
    pool = build_pool(_split(tense_sentences), "past_present")

    def vectors(words):
        return np.array([[len(w), w.count("e")] for w in words], dtype=np.float32)

    root = type_encoder(pool, vectors, "root")
    assert root.dim == 2
    assert np.array_equal(root(np.arange(len(pool))), vectors(pool.form.tolist()))
    mean = type_encoder(pool, vectors, "mean")
    s = pool.sentences["train"][pool.sent[0]]
    assert np.allclose(mean([0])[0], vectors(s.forms.tolist()).mean(0))


def test_type_encoder_rejects_mean_for_pos(tiny):
    with pytest.raises(ParameterError, match="sentence"):
        type_encoder(build_pool(tiny, "pos"), lambda w: np.zeros((len(w), 2)), "mean")


# --------------------------------------------------------------------------------------------
# Stratified subsets


@given(
    counts=st.lists(st.integers(0, 60), min_size=2, max_size=5),
    eta=st.sampled_from([1.0, 2.0, 4.0]),
    balanced=st.booleans(),
    seed=st.integers(0, 10),
)
@FAST
def test_stratified_split_properties(counts, eta, balanced, seed):
    y = np.repeat(np.arange(len(counts)), counts)
    top = max_size(y, eta, balanced)
    if top == 0:
        with pytest.raises(ParameterError):
            stratified_split(y, 1, eta, seed, balanced)
        return
    size = top
    a = stratified_split(y, size, eta, seed, balanced)
    b = stratified_split(y, size, eta, seed + 1, balanced)
    parts = np.concatenate([a.train, a.val, a.test])
    assert len(np.unique(parts)) == len(parts)  # disjoint, no repeats
    for part_a, part_b in ((a.train, b.train), (a.val, b.val), (a.test, b.test)):
        # Sorted by class, and the same label sequence whatever the seed.
        assert np.all(np.diff(y[part_a]) >= 0)
        assert np.array_equal(y[part_a], y[part_b])
    n_train = np.bincount(y[a.train], minlength=len(counts))
    if balanced:
        assert set(n_train[np.array(counts) > 0].tolist()) == {size}
    assert np.array_equal(np.bincount(y[a.val], minlength=len(counts)), n_train // eta)
    assert np.array_equal(np.bincount(y[a.test], minlength=len(counts)), n_train // eta)
    # max_size is the largest feasible size.
    stratified_split(y, top, eta, seed, balanced)
    with pytest.raises(ParameterError, match="max_size"):
        stratified_split(y, top + 1, eta, seed, balanced)


def test_paper_footnote_4_split_sizes():
    # 2^7 training examples per class and eta 4: 256 train, 64 dev and 64 test examples.
    y = np.repeat([0, 1], 500)
    split = stratified_split(y, 128, 4.0, seed=0)
    assert (len(split.train), len(split.val), len(split.test)) == (256, 64, 64)
    again = stratified_split(y, 128, 4.0, seed=0)
    assert np.array_equal(split.test, again.test)


def test_small_pools_get_small_sizes():
    # Too few examples for 128 per class: every feasible power of two, then the maximum.
    y = np.repeat([0, 1], [30, 50])
    assert max_size(y, 4.0) == 20
    assert default_sizes(y) == [4, 8, 16, 20]  # 1 and 2 would leave no test example
    assert max_size(np.repeat([0, 1], [3, 50]), 4.0) == 0


def test_default_and_chosen_sizes(tense_sentences):
    y = np.repeat([0, 1], [2870, 6184])
    assert max_size(y, 4.0) == 1914
    assert default_sizes(y) == [128, 256, 512, 1024, 1914]
    assert default_sizes(y, max_train=1000) == [128, 256, 500]
    assert default_sizes(y, include_max=False) == [128, 256, 512, 1024]
    pool = build_pool(_split(tense_sentences), "past_present")
    assert choose_sizes(pool, [1, 2, 100], eta=1.0) == [1, 2]
    with pytest.raises(ParameterError, match="sizes"):
        choose_sizes(pool, [100])


# --------------------------------------------------------------------------------------------
# Batched logistic regression


# --------------------------------------------------------------------------------------------
# Runs over sizes and seeds


def _synthetic_pool(n_per_class=400, d=8, C=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(C), n_per_class)
    centres = rng.standard_normal((C, d))
    X = (centres[y] + rng.standard_normal((len(y), d))).astype(np.float32)
    zeros = np.zeros(len(y), dtype=np.int64)
    pool = Pool("past_present", ("a", "b", "c")[:C], y, zeros, np.arange(len(y)), zeros,
                   np.array(["w"] * len(y)), {"train": []}, ("train",))  # fmt: skip
    weak = X * np.array([1.0] + [0.0] * (d - 1), dtype=np.float32)
    encoders = {"strong": ExampleEncoder("strong", d, lambda i: X[i]),
                "weak": ExampleEncoder("weak", d, lambda i: weak[i])}  # fmt: skip
    return pool, encoders


TRAIN = Training(epochs=2, min_updates=60, lr=0.01, n_checks=4)


@pytest.fixture(scope="module")
def runs():
    pool, encoders = _synthetic_pool()
    configs = [
        ProbingConfig("strong", "strong"),
        ProbingConfig("strong again", "strong", sigma=0.0),
        ProbingConfig("noisy", "strong", sigma=30.0),
        ProbingConfig("weak", "weak"),
        ProbingConfig("mlp", "strong", "mlp20"),
    ]
    return run_sizes(pool, encoders, configs, [32, 96], [0, 1, 2], training=TRAIN)


def test_run_sizes_scores_and_pairing(runs):
    assert len(runs.scores) == 5 * 2 * 3
    assert set(runs.scores.columns) >= {"config", "size", "seed", "acc_test", "n_test"}
    first = runs.scores.query("size == 96").iloc[0]
    assert (first["n_train"], first["n_val"], first["n_test"]) == (192, 48, 48)
    for (_, size, seed), correct in runs.correct.items():
        assert correct.shape == (len(runs.splits[(size, seed)].test),)
    # Same config under another name: identical predictions, item by item.
    for size in runs.sizes:
        for s in runs.seeds:
            agree = runs.correct[("strong", size, s)] == runs.correct[("strong again", size, s)]
            assert agree.mean() >= 0.98  # equal up to float rounding, not bit for bit
    means = runs.mean_accuracy().set_index(["config", "size"])["acc"]
    assert means[("strong", 96)] > 0.85 and means[("mlp", 96)] > 0.85
    assert means[("noisy", 96)] < 0.75  # sigma 30 drowns a unit-scale signal


def test_run_sizes_does_not_depend_on_the_memory_budget(runs):
    pool, encoders = _synthetic_pool()
    configs = [ProbingConfig("strong", "strong"), ProbingConfig("noisy", "strong", sigma=30.0)]
    small = Training(**{**TRAIN.__dict__, "max_bytes": 1})  # one view per pass
    again = run_sizes(pool, encoders, configs, [96], [0, 1, 2], training=small)
    for key, correct in again.correct.items():
        # Other passes stack other probes together: equal up to float rounding.
        assert (correct == runs.correct[key]).mean() >= 0.98


def test_run_sizes_errors():
    pool, encoders = _synthetic_pool()
    with pytest.raises(ParameterError, match="encoder"):
        run_sizes(pool, encoders, [ProbingConfig("x", "nope")], [32], [0])
    with pytest.raises(ParameterError, match="classifier"):
        run_sizes(pool, encoders, [ProbingConfig("x", "strong", "svm")], [32], [0])
    with pytest.raises(ParameterError, match="seeds"):
        run_sizes(pool, encoders, [ProbingConfig("x", "strong")], [32], [1, 1])


def test_training_schedule():
    t = Training(epochs=3, min_updates=100, batch_size=10, n_checks=4)
    epochs, ckpts = t.schedule(50)  # 5 steps per epoch: 20 epochs for 100 updates
    assert epochs == 20 and ckpts == [25, 50, 75, 100]
    epochs, ckpts = t.schedule(1000)
    assert epochs == 3 and ckpts == [100, 200, 300]


# --------------------------------------------------------------------------------------------
# Bounds, comparisons, power


def test_bound_table(runs):
    table = bound_table(runs, "strong", delta=1e-8)
    k = n_params("logreg", 8, 2)
    assert k == 9
    assert np.allclose(table["bound"], finite_class_bound(table["n_train"].to_numpy(float), k))
    assert table["bound"].is_monotonic_decreasing
    assert table["runs_inside"].between(0, 1).all()
    assert "gap_to_largest" not in table  # the gap is V.1's, judged in claims.bound_gaps


def test_comparison_table(runs):
    strong_weak = comparison_table(runs, "strong", "weak", n_sim=200)
    same = comparison_table(runs, "strong", "strong again", n_sim=200)
    assert list(strong_weak["size"]) == [32, 96]
    row = strong_weak.iloc[-1]
    expected = recommend(row["acc_a"], row["acc_b"], [9, 9]).n_train
    assert row["n_train_rec"] == expected
    assert row["power"] > same.iloc[-1]["power"]
    assert same["n_train_rec"].isna().all() and (same["power"] == 0).all()
    # Each seed's own power and test outcome, whose means are the table's.
    per_seed = np.array(strong_weak["power_per_seed"].tolist())
    assert per_seed.shape == (2, 3) and np.allclose(per_seed.mean(axis=1), strong_weak["power"])
    outcomes = np.array(strong_weak["significant_per_seed"].tolist())
    assert set(outcomes.ravel()) <= {0.0, 1.0}
    assert np.allclose(outcomes.mean(axis=1), strong_weak["significant"])
    mlp = comparison_table(runs, "strong", "mlp", n_sim=200).iloc[-1]
    # The larger parameter count (the MLP's) sets the recommendation (§4.6).
    assert mlp["n_train_rec"] == recommend(mlp["acc_a"], mlp["acc_b"], 201).n_train or (
        mlp["acc_a"] == mlp["acc_b"]
    )


def test_simulation_seeds_are_one_stream_per_seed_size_and_comparison():
    seeds = simulation_seeds([0, 1], 32, "a", "b")
    assert len(set(seeds)) == 2 and seeds == simulation_seeds([0, 1], 32, "a", "b")
    others = [simulation_seeds([0, 1], 64, "a", "b"), simulation_seeds([0, 1], 32, "a", "c")]
    assert all(not set(seeds) & set(o) for o in others)


def test_prospective_power_and_needed_size(runs):
    curve = prospective_power(runs, "strong", "noisy", 96, [16, 64, 1024], n_sim=200)
    assert curve["power"].is_monotonic_increasing
    assert needed_test_size(curve) in (16, 64, 1024)
    flat = pd.DataFrame({"n": [10, 20], "power": [0.1, 0.2]})
    assert needed_test_size(flat) == 0


# --------------------------------------------------------------------------------------------
# Collapse checks


def test_fold_and_pilot_splits():
    y = np.repeat([0, 1], [50, 80])
    folds = fold_splits(y, 100, n_folds=6, seed=0)
    assert len(folds) == 6
    assert {len(f.train) for f in folds} == {64} and {len(f.test) for f in folds} == {16}
    tested = np.concatenate([f.test for f in folds])
    assert len(np.unique(tested)) == 96  # every item tested once
    assert np.bincount(y[tested]).tolist() == [48, 48]  # balanced sample
    pilots = pilot_splits(y, 8, 3, eta=4.0, seed=1)
    assert len(pilots) == 3 and not np.array_equal(pilots[0].train, pilots[1].train)
    with pytest.raises(ParameterError, match="n_items"):
        fold_splits(y, 1000)


def test_check_collapse_tells_identical_from_different():
    pool, encoders = _synthetic_pool()
    folds = fold_splits(pool.y, 600, n_folds=6, seed=0)
    a, b = ProbingConfig("a", "strong"), ProbingConfig("b", "strong")
    same = check_collapse(pool, encoders, a, b, folds, seed=0, training=TRAIN)
    assert np.all(same.diffs == 0)
    assert collapse_verdict(same) == "likely collapsed"
    noisy = ProbingConfig("noisy", "strong", sigma=30.0)
    apart = check_collapse(pool, encoders, a, noisy, folds, seed=0, training=TRAIN)
    assert apart.mean_diff > 0.2
    assert collapse_verdict(apart) == "stable"


def test_collapse_verdict_unclear():
    report = CollapseReport(np.array([0.1, 0.1, -0.1]), np.array([0.5, 0.01, 0.5]),
                               np.array([10, 10, 10]), 0.05)  # fmt: skip
    assert collapse_verdict(report) == "unclear"


# --------------------------------------------------------------------------------------------
# The paper's numbers and the requirement grid


def test_paper_examples_and_tables():
    examples = paper_examples()
    assert examples.table["agrees"].all() and examples.n_agree == 2
    # §3.4: "0.039" at 65,536 examples and "40k" examples for a bound of 0.05.
    assert round(examples.bound, 3) == 0.039 and round(examples.n_train, -3) == 40_000
    shown = examples.styled()
    assert shown["paper"].tolist() == ["0.039", "40k"]
    recs = paper_recommendations()
    assert recs.n_rows == 15 and recs.n_consistent == 14
    bad = recs.table[~recs.table["consistent"]].iloc[0]
    assert bad["source"].startswith("Table 4") and bad["paper"] == 2_912_787
    assert recs.inconsistent == "Table 4 (LogReg vs MLP), gap 0.012"
    assert not hasattr(recs, "claim")  # a table of arithmetic, not a claim of the ledger
    worst = max(abs(r.ours / r.paper - 1) for r in recs.table.itertuples())
    assert recs.max_rel_diff == pytest.approx(100 * worst)
    assert "our N_train" in recs.styled().to_html()


def test_requirement_grid():
    grid = requirement_grid([300, 4096], [0.1, 0.05], [1e-2, 1e-8])
    assert len(grid) == 2 * 2 * 2 * 2
    for _, part in grid.groupby(["classifier", "D", "delta"]):
        assert part.sort_values("epsilon")["n_train"].is_monotonic_decreasing
    lr = grid.query("classifier == 'logreg'")["n_train"].to_numpy()
    mlp = grid.query("classifier == 'mlp20'")["n_train"].to_numpy()
    assert np.all(mlp > lr)
    assert n_params("mlp20", 768, 2) == 15_401  # footnote 6


# --------------------------------------------------------------------------------------------
# fastText cache and figures


def test_fasttext_table_is_cached(tiny):
    vocab = ["cats", "dog", "unseen"]
    first = fasttext_table(vocab, tiny["train"], dim=8, seed=0, epochs=1)
    again = fasttext_table(vocab, tiny["train"], dim=8, seed=0, epochs=1)
    assert first.shape == (3, 8) and np.array_equal(first, again)
    assert math.isfinite(float(first.sum()))


def test_type_level_vectors(tiny):
    words = sorted({w for s in tiny["train"] for w in s.forms.tolist()})[:3]
    random = type_level_vectors("random", tiny, 5, epochs=1)
    assert np.array_equal(random(words), random_type_vectors(words, 5, 0))
    fasttext = type_level_vectors("fasttext", tiny, 8, epochs=1)
    vocab = sorted({w for k in ("train", "dev", "test") for s in tiny[k] for w in s.forms})
    table = fasttext_table(vocab, tiny["train"], 8, 0, 1)
    assert np.array_equal(fasttext(words), table[[vocab.index(w) for w in words]])
    with pytest.raises(ParameterError, match="type_vectors"):
        type_level_vectors("glove", tiny, 5, epochs=1)


def test_figures(runs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    plot_bound(axes[0], bound_table(runs, "strong"), "strong", "C0")
    assert len(axes[0].lines) == 3  # mean and the two margins
    table = comparison_table(runs, "strong", "weak", n_sim=50)
    plot_power(axes[1], {"strong vs weak": table}, ["C1"])
    assert axes[1].get_ylabel() == "power"
    plot_accuracies(axes[2], runs, ["strong", "weak"], ["C0", "C1"])
    assert len(axes[2].lines) == 2
    plt.close(fig)
