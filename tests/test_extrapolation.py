"""Scoring functions, split points and setups of Kunz & Kuhlmann 2021
(probekit.methods.extrapolation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import hand_sentence as sentence
from probekit.errors import ParameterError
from probekit.io.tasks import deprel_examples, gather_layers, pos_examples
from probekit.io.treebanks import UPOS_TAGS, read_conllu
from probekit.methods.extrapolation import grid as extrapolation_grid
from probekit.methods.extrapolation import scores, splits
from probekit.probes.mlp_batched import train_batched

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_tagging.conllu"


def chain(n: int, sent_id: str = "s"):
    """n words, each headed by the next, the last is the root."""
    return sentence([(f"w{i}", "NOUN", i + 2 if i < n - 1 else 0) for i in range(n)], sent_id)


def tag(name: str) -> int:
    return UPOS_TAGS.index(name)


@pytest.fixture
def tagged():
    """Train: 'run' VERB x3, NOUN x1; 'saw' NOUN then VERB (a tie); 'the' DET. Eval: new words."""
    train = pos_examples(
        [
            sentence([("run", "VERB", 0), ("saw", "NOUN", 1), ("the", "DET", 1)], "t1"),
            sentence([("run", "VERB", 0), ("run", "NOUN", 1), ("saw", "VERB", 1)], "t2"),
            sentence([("run", "VERB", 0), ("the", "DET", 1)], "t3"),
        ]
    )
    evaluation = pos_examples(
        [
            sentence(
                [
                    ("run", "NOUN", 0),
                    ("run", "VERB", 1),
                    ("saw", "VERB", 1),
                    ("blorp", "VERB", 1),
                    ("blorp", "NOUN", 1),
                ],
                "e1",
            )
        ]
    )
    return train, evaluation


def test_sentence_and_arc_length():
    sents = [chain(3, "a"), sentence([("x", "NOUN", 3), ("y", "NOUN", 3), ("z", "VERB", 0)], "b")]
    pos, dep = pos_examples(sents), deprel_examples(sents)
    np.testing.assert_array_equal(scores.sentence_length(pos), [3, 3, 3, 3, 3, 3])
    np.testing.assert_array_equal(scores.sentence_length(dep), [3, 3, 3, 3])
    np.testing.assert_array_equal(scores.arc_length(dep), [1, 1, 2, 1])
    with pytest.raises(ParameterError, match="deprel"):
        scores.arc_length(pos)


def test_tag_proportion_is_one_minus_relative_frequency(tagged):
    train, evaluation = tagged
    # run/NOUN: 1 - 1/4; run/VERB: 1 - 3/4; saw/VERB: 1 - 1/2; blorp is unseen: 1 (hardest)
    np.testing.assert_allclose(scores.tag_proportion(train, evaluation), [0.75, 0.25, 0.5, 1, 1])
    np.testing.assert_allclose(
        scores.tag_proportion(train, train), [0.25, 0.5, 0, 0.25, 0.75, 0.5, 0.25, 0]
    )


def test_most_frequent_tag_counts_and_ties(tagged):
    train, evaluation = tagged
    vocab, mft, global_mft = scores.most_frequent_tags(train)
    table = dict(zip(vocab.tolist(), (UPOS_TAGS[t] for t in mft), strict=True))
    assert table == {"run": "VERB", "saw": "NOUN", "the": "DET"}  # saw: tie, NOUN seen first
    assert UPOS_TAGS[global_mft] == "VERB"  # VERB 4, NOUN 2, DET 2
    # Unseen 'blorp' compares with the global mft (VERB) by default, or is always hard.
    np.testing.assert_array_equal(scores.most_frequent_tag(train, evaluation), [1, 0, 1, 0, 1])
    np.testing.assert_array_equal(
        scores.most_frequent_tag(train, evaluation, oov="hard"), [1, 0, 1, 1, 1]
    )
    points = splits.mft_split_points()
    np.testing.assert_array_equal(splits.hard_mask([1, 0, 1, 0, 1], points), [1, 0, 1, 0, 1])
    np.testing.assert_array_equal(splits.easy_mask([1, 0, 1, 0, 1], points), [0, 1, 0, 1, 0])
    with pytest.raises(ParameterError, match="oov"):
        scores.most_frequent_tag(train, evaluation, oov="skip")


def test_tag_scores_need_pos_examples(tagged):
    train, _ = tagged
    dep = deprel_examples([chain(3)])
    with pytest.raises(ParameterError, match="pos"):
        scores.tag_proportion(train, dep)


def test_learning_based_scores():
    loss = np.array([[[0.1, 2.0, 1.0], [0.3, 4.0, 1.0]]])  # (layers=1, ensemble=2, N=3)
    np.testing.assert_allclose(scores.sample_loss(loss), [[0.2, 3.0, 1.0]])
    correct = np.zeros((2, 7, 3), dtype=bool)  # ensemble 2, 7 checkpoints, 3 examples
    correct[:, :, 0] = True  # always correct: c = 14
    correct[0, 3:, 1] = True  # c = 4
    np.testing.assert_allclose(scores.speed_of_learning(correct), [1 / 15, 1 / 5, 1.0])
    assert scores.SPEED_CHECKPOINTS == (1, 2, 4, 8, 16, 32, 64)
    with pytest.raises(ParameterError):
        scores.speed_of_learning(np.zeros((7, 3), bool))
    with pytest.raises(ParameterError):
        scores.sample_loss(np.zeros(3))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(-50, 50), min_size=1, max_size=40), st.sampled_from([0.0, 0.25, 0.5, 0.75])
)
def test_percentile_is_the_sorted_list_convention(values, q):
    assert splits.percentile(np.array(values), q) == sorted(values)[int(q * len(values))]


def test_percentile_errors():
    with pytest.raises(ParameterError, match="empty"):
        splits.percentile(np.array([]), 0.5)
    with pytest.raises(ParameterError, match="q"):
        splits.percentile(np.array([1.0]), 1.0)


def test_linguistic_split_is_strict():
    points = splits.linguistic_split_points()
    assert (points.m1, points.m2, points.m1_from, points.m2_from) == (
        17,
        29,
        "constant",
        "constant",
    )
    lengths = np.array([5, 16, 17, 18, 29, 30, 40])
    np.testing.assert_array_equal(splits.easy_mask(lengths, points), [1, 1, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(splits.hard_mask(lengths, points), [0, 0, 0, 0, 0, 1, 1])


def test_distributional_split_records_its_sources():
    train = np.array([1, 1, 2, 2, 3, 4, 5, 9])  # sorted()[4] = 3 at 50 %
    evaluation = np.array([1, 2, 3, 4, 5, 6, 7, 8])  # sorted()[6] = 7 at 75 %
    p = splits.distributional_split_points(train, evaluation)
    assert (p.m1, p.m2, p.m1_from, p.m2_from, p.rule) == (3, 7, "train", "eval", "distributional")
    np.testing.assert_array_equal(np.flatnonzero(splits.easy_mask(train, p)), [0, 1, 2, 3])
    np.testing.assert_array_equal(np.flatnonzero(splits.hard_mask(evaluation, p)), [7])
    q = splits.distributional_split_points(
        train, evaluation, *splits.RELEASED_THRESHOLD_SOURCES["sentence_length_pos"]
    )
    assert (q.m1, q.m2, q.m2_from) == (3, 5, "train")
    with pytest.raises(ParameterError, match="m1_from"):
        splits.distributional_split_points(train, evaluation, m1_from="dev")


def test_modified_arc_length_split():
    evaluation = np.array([1, 1, 1, 2, 2, 3, 4, 6])  # sorted()[6] = 4
    p = splits.modified_arc_length_split_points(np.array([1, 2]), evaluation)
    assert (p.m1, p.m2, p.m1_from, p.m2_from) == (3, 4, "constant", "eval")
    np.testing.assert_array_equal(splits.easy_mask(np.array([1, 2, 3, 4]), p), [1, 1, 0, 0])
    np.testing.assert_array_equal(np.flatnonzero(splits.hard_mask(evaluation, p)), [7])


def test_setups_masks_and_size_control():
    train_scores = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=float)
    eval_scores = np.array([1, 5, 9, 10], dtype=float)
    points = splits.SplitPoints(4, 8, "constant", "constant", "test")
    s = splits.setups(train_scores, eval_scores, points, seed=3)
    assert list(s) == list(splits.SETUPS)
    assert s["standard"].train.all() and s["standard"].eval.all()
    np.testing.assert_array_equal(s["control"].eval, [0, 0, 1, 1])
    assert s["control"].train.all()
    np.testing.assert_array_equal(np.flatnonzero(s["extrapolation"].train), [0, 1, 2])
    np.testing.assert_array_equal(s["extrapolation"].eval, s["control"].eval)
    half = s["size_control"]
    assert half.train.sum() == 5 and half.eval.all()
    again = splits.setups(train_scores, eval_scores, points, seed=3)["size_control"].train
    other = splits.setups(train_scores, eval_scores, points, seed=4)["size_control"].train
    np.testing.assert_array_equal(half.train, again)
    assert not np.array_equal(half.train, other)


def test_setups_refuse_an_empty_hard_set():
    points = splits.SplitPoints(2, 5, "constant", "constant", "test")
    with pytest.raises(ParameterError, match="hard set is empty"):
        splits.setups(np.array([1.0, 3.0]), np.array([5.0, 5.0]), points, seed=0)
    only = splits.setups(
        np.array([1.0, 3.0]), np.array([5.0, 5.0]), points, seed=0, names=["standard"]
    )
    assert list(only) == ["standard"]
    with pytest.raises(ParameterError, match="unknown"):
        splits.setups(np.array([1.0]), np.array([1.0]), points, seed=0, names=["interpolation"])


def test_probe_grid():
    s = splits.setups(
        np.arange(10.0), np.arange(8.0), splits.SplitPoints(5, 5, "c", "c", "t"), seed=0
    )
    specs, index = extrapolation_grid.probe_grid(s, layers=[0, 6], seeds=[1, 2, 3])
    n_setups = len(splits.SETUPS)
    assert len(specs) == 2 * 3 * n_setups and len(index) == len(specs)
    assert {sp.view for sp in specs} == {0, 1}
    assert index.loc[(index.layer == 6)].shape[0] == 3 * n_setups
    row = index[(index.layer == 6) & (index.seed == 2) & (index.setup == "extrapolation")]
    spec = specs[row.index[0]]
    assert spec.view == 1 and spec.seed == 2 and spec.train.sum() == 5 and spec.eval.sum() == 2
    with pytest.raises(ParameterError, match="entries"):
        extrapolation_grid.probe_grid([s], layers=[0, 6])


def test_sample_split_is_seeded():
    sents = read_conllu(FIXTURE) * 5
    a = splits.sample_split(sents, 6, seed=1)
    assert len(a) == 6 and a == splits.sample_split(sents, 6, seed=1)
    assert any(splits.sample_split(sents, 6, seed=k) != a for k in range(2, 6))
    assert len(splits.sample_split(sents, None, seed=0)) == len(sents)
    assert splits.sample_split(sents, 0, seed=0) == sents  # a chapter's "0 means all"
    with pytest.raises(ParameterError, match="n"):
        splits.sample_split(sents, -1, seed=0)


def test_learning_scores_end_to_end_on_the_fixture(one_thread):
    """Ensemble with recording → per-layer scores → splits → grid, on fixture sentences."""
    sents = read_conllu(FIXTURE) * 40  # 560 words
    train = pos_examples(sents)
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(2, len(train), 20))
    noise[1, :, : len(UPOS_TAGS)] += 2 * np.eye(len(UPOS_TAGS))[train.y]  # layer 1 knows POS
    X = gather_layers(list(noise.astype(np.float16)), train.rows)
    specs = extrapolation_grid.ensemble_specs(2, seeds=[1, 2])
    ckpts = scores.SPEED_CHECKPOINTS[:6]  # 9 batches per epoch x 8 epochs = 72 updates
    result = train_batched(
        X, train.y, X, train.y, len(UPOS_TAGS), specs, epochs=8, checkpoints=ckpts, record_loss=True
    )
    speed = scores.speed_of_learning(result.ckpt_correct_train.reshape(2, 2, len(ckpts), -1))
    loss = scores.sample_loss(result.loss_train.reshape(2, 2, -1))
    assert speed.shape == (2, len(train)) and loss.shape == (2, len(train))
    assert ((speed > 0) & (speed <= 1)).all() and (loss > 0).all()
    assert speed[1].mean() < speed[0].mean() and loss[1].mean() < loss[0].mean()
    per_layer = []
    for layer in range(2):
        points = splits.distributional_split_points(loss[layer], loss[layer])
        per_layer.append(splits.setups(loss[layer], loss[layer], points, seed=0))
    grid, index = extrapolation_grid.probe_grid(per_layer, layers=[0, 6], seeds=[1])
    assert len(grid) == 2 * len(splits.SETUPS) and set(index.layer) == {0, 6}
    extra = index.index[index.setup == "extrapolation"]
    assert not np.array_equal(grid[extra[0]].train, grid[extra[1]].train)  # differ by layer


def test_split_points_by_scorer_uses_the_released_sources():
    train = np.array([0.0, 0.0, 0.0, 0.0, 0.5])  # in-sample tag scores: mostly 0
    evaluation = np.array([0.0, 0.2, 0.4, 0.6, 1.0, 1.0, 1.0, 1.0])
    p = splits.split_points("tag_proportion", train, evaluation)
    assert (p.m1, p.m2, p.m1_from, p.m2_from) == (1.0, 1.0, "eval", "eval")
    assert splits.easy_mask(train, p).all()  # a train median (0) would have emptied the easy set
    assert splits.split_points("sentence_length_linguistic", train, evaluation).m1 == 17
    assert splits.split_points("most_frequent_tag", train, evaluation).rule == "mft"
    q = splits.split_points("arc_length", np.array([1, 1, 2, 3]), np.array([1, 2, 3, 4]))
    assert (q.m1, q.m2, q.m1_from, q.m2_from) == (2, 4, "train", "eval")
    fixed = splits.modified_arc_length_split_points(np.array([1]), np.array([1, 2, 3]), m2=4)
    assert (fixed.m1, fixed.m2, fixed.m2_from) == (3, 4, "constant")
    with pytest.raises(ParameterError, match="scorer"):
        splits.split_points("word_length", train, evaluation)


@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(st.sampled_from([0.1, 0.2, 0.5, 1.0]), min_size=4, max_size=40),
)
def test_include_top_ties_only_fills_an_empty_hard_set(scores):
    es = np.array(scores)
    strict = splits.distributional_split_points(es, es, "eval", "eval")
    widened = splits.distributional_split_points(es, es, "eval", "eval", include_top_ties=True)
    hard = splits.hard_mask(es, widened)
    if splits.hard_mask(es, strict).any():
        assert widened == strict and not widened.top_ties
    elif (es < es.max()).any():
        # exactly the examples tied at the top score, and the points say so
        np.testing.assert_array_equal(hard, es == es.max())
        assert widened.top_ties and widened.m1 == strict.m1 and widened.rule == strict.rule
        assert widened.m2 == es[es < es.max()].max()
    else:
        assert not hard.any() and not widened.top_ties


def test_include_top_ties_is_an_option_of_the_percentile_rules_only():
    # Over a quarter of the items tie at the top: the 75th percentile is the maximum.
    evaluation = np.array([0.1, 0.2, 0.3, 1.0, 1.0, 1.0])
    train = np.array([0.1, 0.2, 0.3, 0.4])
    strict = splits.split_points("speed_of_learning", train, evaluation)
    assert strict.m2 == 1.0 and not splits.hard_mask(evaluation, strict).any()
    assert strict.label == "distributional"
    widened = splits.split_points("speed_of_learning", train, evaluation, include_top_ties=True)
    assert widened.m2 == 0.3 and widened.top_ties
    assert widened.label == "distributional + ties at m2"
    np.testing.assert_array_equal(splits.hard_mask(evaluation, widened), [0, 0, 0, 1, 1, 1])
    # constant, binary and modified-arc points never move
    for scorer in ("sentence_length_linguistic", "most_frequent_tag", "arc_length_modified"):
        fixed = splits.split_points(scorer, train, evaluation)
        assert splits.split_points(scorer, train, evaluation, include_top_ties=True) == fixed


# --- the size control (§3.5) and the scoring ensemble's folds (§3.4.3) ------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 400), seed=st.integers(0, 10_000))
def test_size_control_is_a_seeded_random_half_of_the_standard_set(n, seed):
    half = splits.size_control_mask(n, seed)
    assert half.dtype == bool and half.shape == (n,)
    assert half.sum() == n // 2  # exactly half (rounded down)
    np.testing.assert_array_equal(half, splits.size_control_mask(n, seed))  # the seed decides
    standard = splits.setups(
        np.arange(n, dtype=float), np.arange(3.0), splits.SplitPoints(1, 0, "c", "c", "t"),
        seed=seed,
    )  # fmt: skip
    # every member of the half is in the standard training set, and it is the setups' half
    assert not (standard["size_control"].train & ~standard["standard"].train).any()
    np.testing.assert_array_equal(standard["size_control"].train, half)
    np.testing.assert_array_equal(standard["size_control_hard"].train, half)
    np.testing.assert_array_equal(standard["size_control_hard"].eval, standard["control"].eval)
    assert standard["size_control"].eval.all()


def test_different_seeds_draw_different_halves():
    halves = {splits.size_control_mask(100, seed).tobytes() for seed in range(20)}
    assert len(halves) == 20
    # not the released code's first half, nor any other fixed block
    assert any(not splits.size_control_mask(100, seed)[:50].all() for seed in range(20))
    with pytest.raises(ParameterError, match="n"):
        splits.size_control_mask(1, 0)


def test_one_fold_is_the_papers_ensemble():
    sent_t, sent_e = np.repeat(np.arange(4), 3), np.repeat(np.arange(2), 2)
    (fold,) = extrapolation_grid.ensemble_folds(sent_t, sent_e, folds=1, seed=0)
    assert fold.train.all() and fold.score_train.all() and fold.score_eval.all()
    specs = extrapolation_grid.ensemble_specs(2, [5, 6])
    assert [(s.view, s.seed) for s in specs] == [(0, 5), (0, 6), (1, 5), (1, 6)]
    assert all(s.train is None for s in specs)
    with pytest.raises(ParameterError, match="folds"):
        extrapolation_grid.ensemble_folds(sent_t, sent_e, folds=0, seed=0)
    with pytest.raises(ParameterError, match="folds"):
        extrapolation_grid.ensemble_folds(sent_t, sent_e, folds=5, seed=0)  # 4 sentences


@settings(max_examples=30, deadline=None)
@given(
    n_train=st.integers(2, 30),
    n_eval=st.integers(1, 30),
    folds=st.integers(2, 4),
    seed=st.integers(0, 1000),
)
def test_cross_fitted_folds_never_score_what_they_trained_on(n_train, n_eval, folds, seed):
    folds = min(folds, n_train)
    rng = np.random.default_rng(seed)
    sent_t = np.sort(rng.integers(0, n_train, 5 * n_train))
    sent_e = np.sort(rng.integers(0, n_eval, 3 * n_eval))
    sent_t = np.unique(sent_t, return_inverse=True)[1]  # sentences 0..k-1, all present
    if len(np.unique(sent_t)) < folds:
        return
    plan = extrapolation_grid.ensemble_folds(sent_t, sent_e, folds, seed)
    assert len(plan) == folds
    scored_t = np.sum([f.score_train for f in plan], axis=0)
    scored_e = np.sum([f.score_eval for f in plan], axis=0)
    assert (scored_t == 1).all() and (scored_e == 1).all()  # every example scored exactly once
    for f in plan:
        assert not (f.train & f.score_train).any()  # no example scored by a probe trained on it
        assert (f.train | f.score_train).all() and not f.train.all()
        for mask, sent in ((f.score_train, sent_t), (f.score_eval, sent_e)):
            # whole sentences: a sentence's examples share a fold
            inside = np.unique(sent[mask])
            assert mask[np.isin(sent, inside)].all()
    again = extrapolation_grid.ensemble_folds(sent_t, sent_e, folds, seed)
    assert all(np.array_equal(a.train, b.train) for a, b in zip(plan, again, strict=True))


def test_the_loss_ensemble_is_disjoint_from_the_evaluated_probes():
    """No evaluated probe's (seed, training set) is an ensemble probe's, and with cross-fitting
    no example is scored by an ensemble probe that trained on it."""
    sent_t = np.repeat(np.arange(40), 5)  # 200 training examples in 40 sentences
    sent_e = np.repeat(np.arange(20), 5)
    scores_t, scores_e = np.arange(200.0) % 17, np.arange(100.0) % 13
    points = splits.distributional_split_points(scores_t, scores_e)
    setups = splits.setups(scores_t, scores_e, points, seed=0)
    evaluated, _ = extrapolation_grid.probe_grid(setups, [0, 1], seeds=[1, 2, 3])
    n = len(sent_t)

    def training_set(spec):
        return (spec.seed, spec.view, np.ones(n, bool).tobytes() if spec.train is None
                else np.asarray(spec.train, bool).tobytes())  # fmt: skip

    trained = {training_set(s) for s in evaluated}
    plan = extrapolation_grid.ensemble_folds(sent_t, sent_e, folds=2, seed=7)
    ensemble = extrapolation_grid.ensemble_specs(2, [11, 12, 13], plan)
    assert len(ensemble) == 2 * 2 * 3
    assert not trained & {training_set(s) for s in ensemble}
    for spec in ensemble:
        scored = np.zeros(n + len(sent_e), bool)
        scored[spec.eval] = True
        assert not (scored[:n] & spec.train).any()
    # Even with the evaluated probes' own seeds, a cross-fitted ensemble trains on other data.
    same_seeds = extrapolation_grid.ensemble_specs(2, [1, 2, 3], plan)
    assert not trained & {training_set(s) for s in same_seeds}
    # The paper's ensemble (one fold) with the probes' seeds would be the standard probes.
    papers = extrapolation_grid.ensemble_specs(2, [1, 2, 3])
    assert trained & {training_set(s) for s in papers}
