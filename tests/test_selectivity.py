"""Control tasks and selectivity (Hewitt & Liang 2019): probekit.methods.selectivity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import hand_sentence
from probekit.errors import ParameterError
from probekit.methods.selectivity import (
    ARC_BEHAVIOURS,
    FIRST,
    LAST,
    SELF,
    arc_behaviours,
    arc_control,
    label_control,
    selectivity,
    selectivity_table,
)
from probekit.probes.mlp import ProbeSpec
from probekit.probes.softmax import train_softmax_probes

pytestmark = pytest.mark.usefixtures("one_thread")


def _skewed_corpus(n_types: int = 5000, seed: int = 0):
    """Tokens of ``n_types`` types (1 to 6 tokens each, shuffled), labels drawn per token from
    a skewed distribution over 5 labels, and a random 80% training mask."""
    rng = np.random.default_rng(seed)
    types = np.repeat(np.arange(n_types), rng.integers(1, 7, n_types))
    types = types[rng.permutation(types.shape[0])]
    labels = rng.choice(5, size=types.shape[0], p=[0.5, 0.25, 0.12, 0.08, 0.05])
    train = rng.random(types.shape[0]) < 0.8
    return types, labels, train


# --------------------------------------------------------------------------------------------
# The part-of-speech control task


def test_label_control_keeps_one_label_per_type():
    types, labels, train = _skewed_corpus()
    control = label_control(types, labels, seed=7, train_mask=train)
    assert control.shape == types.shape and control.dtype == np.int64
    per_type = pd.Series(control).groupby(types).nunique()
    assert per_type.shape[0] == 5000
    assert (per_type == 1).all(), per_type[per_type > 1]


def test_label_control_draws_from_the_training_label_distribution():
    """The share of types per control label matches the empirical distribution q of the
    training labels. Each type's label is an independent draw from q, so the share of label c
    over V types is binomial with standard error sqrt(q_c (1 - q_c) / V) (below 0.0071 for
    V = 5000); 3 standard errors per label bound it at about 0.3% per label for a random seed.
    A uniform draw (0.2 for label 0 instead of about 0.5) or a per-token draw weighted by
    token counts would miss by many standard errors."""
    types, labels, train = _skewed_corpus()
    control = label_control(types, labels, seed=7, train_mask=train)
    _, first = np.unique(types, return_index=True)
    per_type = control[first]
    q = np.bincount(labels[train], minlength=5) / train.sum()
    share = np.bincount(per_type, minlength=5) / per_type.shape[0]
    se = np.sqrt(q * (1 - q) / per_type.shape[0])
    assert np.all(np.abs(share - q) <= 3 * se), (share, q, se)


def test_label_control_uses_only_training_labels_and_covers_unseen_types():
    """A label seen only outside the training tokens is never drawn; a type seen only outside
    them still gets one label for all its tokens."""
    types = np.array(["a", "b", "a", "c", "d", "d", "e"])
    labels = np.array([0, 1, 0, 1, 9, 9, 9])
    train = np.array([True, True, True, True, False, False, False])
    for seed in range(20):
        control = label_control(types, labels, seed=seed, train_mask=train)
        assert set(control.tolist()) <= {0, 1}
        assert control[4] == control[5]


def test_label_control_is_seeded_and_independent_of_token_order():
    types, labels, train = _skewed_corpus(n_types=500)
    control = label_control(types, labels, seed=3, train_mask=train)
    assert np.array_equal(control, label_control(types, labels, seed=3, train_mask=train))
    again = label_control(types, labels, np.random.default_rng(3), train_mask=train)
    assert np.array_equal(control, again)
    assert not np.array_equal(control, label_control(types, labels, seed=4, train_mask=train))
    # One draw per sorted unique type: shuffling the tokens leaves every type's label alone.
    perm = np.random.default_rng(0).permutation(types.shape[0])
    shuffled = label_control(types[perm], labels[perm], seed=3, train_mask=train[perm])
    assert np.array_equal(shuffled, control[perm])


def test_label_control_default_mask_is_all_tokens():
    types, labels, _ = _skewed_corpus(n_types=300)
    everything = np.ones(types.shape[0], dtype=bool)
    assert np.array_equal(
        label_control(types, labels, seed=1),
        label_control(types, labels, seed=1, train_mask=everything),
    )


# --------------------------------------------------------------------------------------------
# The dependency-arc control task


def _zipf_sentences(n_sentences: int = 400, vocabulary: int = 300, seed: int = 0):
    """Sentences of 1 to 12 words whose types repeat across sentences (Zipf-like draws)."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, vocabulary + 1)
    p /= p.sum()
    return [
        [f"w{t}" for t in rng.choice(vocabulary, size=rng.integers(1, 13), p=p)]
        for _ in range(n_sentences)
    ]


def test_arc_control_heads_are_valid_positions_of_three_kinds():
    sentences = _zipf_sentences()
    heads = arc_control(sentences, seed=5)
    assert len(heads) == len(sentences)
    for words, h in zip(sentences, heads, strict=True):
        n = len(words)
        own = np.arange(1, n + 1)
        assert h.shape == (n,) and h.dtype == np.int64
        assert np.all((h >= 1) & (h <= n))
        assert np.all((h == own) | (h == 1) | (h == n))


def test_arc_control_keeps_one_behaviour_per_type_across_sentences():
    """The behaviour read off the heads (where self, first and last are distinct positions)
    is the same for every token of a type, and is the type's drawn behaviour."""
    sentences = _zipf_sentences()
    heads = arc_control(sentences, seed=5)
    seen: dict[str, set[int]] = {}
    for words, h in zip(sentences, heads, strict=True):
        n = len(words)
        for i in range(1, n - 1):  # positions 2..n-1 (1-based): all three heads differ
            kind = SELF if h[i] == i + 1 else FIRST if h[i] == 1 else LAST
            seen.setdefault(words[i], set()).add(kind)
    assert sum(len(words) for words in sentences) > 2000
    assert len(seen) > 100 and all(len(kinds) == 1 for kinds in seen.values())
    types, behaviours = arc_behaviours(np.concatenate(sentences), seed=5)
    drawn = dict(zip(types.tolist(), behaviours.tolist(), strict=True))
    assert all(drawn[word] == next(iter(kinds)) for word, kinds in seen.items())


def test_arc_control_follows_the_drawn_behaviour_in_each_sentence():
    """Self is the token's own 1-based position, first is 1, last is the sentence length."""
    sentences = [["a", "b", "c", "d"], ["d", "c", "b", "a", "b"], ["c"], []]
    types, behaviours = arc_behaviours(["a", "b", "c", "d"], seed=11)
    drawn = dict(zip(types.tolist(), behaviours.tolist(), strict=True))
    heads = arc_control(sentences, seed=11)
    for words, h in zip(sentences, heads, strict=True):
        n = len(words)
        target = {SELF: lambda i: i, FIRST: lambda i: 1, LAST: lambda i: n}  # noqa: B023
        expected = [target[drawn[w]](i) for i, w in enumerate(words, start=1)]
        assert h.tolist() == expected
    # A one-word sentence attaches to its only word whatever the behaviour.
    assert heads[2].tolist() == [1] and heads[3].shape == (0,)


def test_arc_behaviours_are_uniform_over_the_three():
    """Shares of the 3 behaviours over V = 6000 types: each is binomial(V, 1/3) / V, standard
    error sqrt((1/3)(2/3)/V) = 0.0061; 3 standard errors bound it at 0.3% per behaviour."""
    types, behaviours = arc_behaviours([f"t{i}" for i in range(6000)], seed=2)
    assert types.shape == (6000,) and len(ARC_BEHAVIOURS) == 3
    share = np.bincount(behaviours, minlength=3) / 6000
    se = np.sqrt((1 / 3) * (2 / 3) / 6000)
    assert share.shape == (3,) and np.all(np.abs(share - 1 / 3) <= 3 * se), share


def test_arc_control_is_seeded_and_takes_sentences():
    sentences = _zipf_sentences(n_sentences=100)
    first = arc_control(sentences, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, arc_control(sentences, 1), strict=True))
    other = arc_control(sentences, seed=2)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    as_sentences = [hand_sentence([(w, "X") for w in words]) for words in sentences]
    from_objects = arc_control(as_sentences, seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, from_objects, strict=True))
    assert arc_control([], seed=1) == []


# --------------------------------------------------------------------------------------------
# Selectivity


def test_selectivity_is_the_difference_and_broadcasts():
    assert selectivity(0.9, 0.6) == pytest.approx(0.3)
    out = selectivity(np.array([[0.9], [0.8]]), np.array([0.5, 0.7, 0.8]))
    assert out.shape == (2, 3)
    assert np.allclose(out, [[0.4, 0.2, 0.1], [0.3, 0.1, 0.0]])


def test_selectivity_table_adds_a_column():
    rows = [
        {"representation": "bert", "layer": 4, "probe": "linear", "task_accuracy": 0.97,
         "control_accuracy": 0.71, "seed": 0},
        {"representation": "bert", "layer": 4, "probe": "mlp", "task_accuracy": 0.98,
         "control_accuracy": 0.92, "seed": 0},
    ]  # fmt: skip
    table = selectivity_table(rows)
    assert list(table.columns) == [*rows[0], "selectivity"]
    assert np.allclose(table["selectivity"], [0.26, 0.06])
    frame = pd.DataFrame(rows)
    assert selectivity_table(frame).equals(table) and "selectivity" not in frame


def _synthetic_probing(n_types=120, n_labels=4, tokens=12, train_tokens=8, seed=0):
    """Every type has ``tokens`` tokens, the first ``train_tokens`` for training and the rest
    held out (seen types only); the task label is a fixed random function of the type. Two
    representations of width n_types: (a) the one-hot of the type; (b) the one-hot of the task
    label plus N(0, 0.1) noise on those n_labels dimensions, zeros elsewhere (zero columns
    carry nothing, so (b) encodes the task label and nothing about the type)."""
    rng = np.random.default_rng(seed)
    type_label = rng.integers(0, n_labels, n_types)
    types = np.repeat(np.arange(n_types), tokens)
    task = type_label[types]
    train = np.tile(np.arange(tokens) < train_tokens, n_types)
    one_hot_type = np.eye(n_types, dtype=np.float32)[types]
    label_only = np.zeros_like(one_hot_type)
    label_only[np.arange(types.shape[0]), task] = 1
    label_only[:, :n_labels] += rng.normal(0, 0.1, (types.shape[0], n_labels))
    return types, task, train, np.stack([one_hot_type, label_only])


def test_selectivity_separates_a_type_lookup_from_a_label_encoding():
    """(a) One-hot of the type: a linear probe memorises any type-level table, so task and
    control accuracy are both about 1 and selectivity about 0. (b) The task label only: the
    probe predicts the task perfectly, but for the control it can do no better than guessing,
    per task label, the control label most frequent among that label's training tokens; that
    accuracy is computed here from the data, and selectivity is 1 minus it."""
    n_labels = 4
    types, task, train, X = _synthetic_probing(n_labels=n_labels)
    control = label_control(types, task, seed=1, train_mask=train)
    held_out = ~train
    specs = [ProbeSpec(seed=0, view=0, order_seed=1), ProbeSpec(seed=0, view=1, order_seed=1)]
    epochs, batch_size = 20, 64
    steps = epochs * int(np.ceil(train.sum() / batch_size))
    accuracy = {}
    for name, y in (("task", task), ("control", control)):
        correct = train_softmax_probes(
            X[:, train], y[train], X[:, held_out], y[held_out], n_labels, specs,
            epochs=epochs, checkpoints=[steps], batch_size=batch_size, lr=0.05,
        )  # fmt: skip
        accuracy[name] = correct[:, -1].mean(axis=1)  # (2,): representation (a), (b)
    sel = selectivity(accuracy["task"], accuracy["control"])

    guess = np.zeros(n_labels, dtype=np.int64)
    for t in range(n_labels):
        guess[t] = np.bincount(control[train & (task == t)], minlength=n_labels).argmax()
    expected_control = np.mean(guess[task[held_out]] == control[held_out])
    assert expected_control < 0.5  # the setting leaves room for a selective probe

    assert accuracy["task"][0] >= 0.98 and accuracy["control"][0] >= 0.98, accuracy
    assert abs(sel[0]) <= 0.02, sel
    assert accuracy["task"][1] >= 0.98, accuracy
    # Within 0.04: near-ties between control labels can tip the probe to the runner-up.
    assert abs(accuracy["control"][1] - expected_control) <= 0.04, (accuracy, expected_control)
    assert abs(sel[1] - (1 - expected_control)) <= 0.05, (sel, expected_control)


# --------------------------------------------------------------------------------------------
# Bad parameters are named


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": "x"}, "seed"),
        ({"types": np.zeros((3, 2))}, "types"),
        ({"types": np.array([1, "a", 2], dtype=object)}, "types"),
        ({"labels": np.array([0, 1])}, "labels"),
        ({"labels": np.array([0.0, 1.0, 0.0])}, "labels"),
        ({"train_mask": np.array([1, 0, 1])}, "train_mask"),
        ({"train_mask": np.array([True, False])}, "train_mask"),
        ({"train_mask": np.zeros(3, dtype=bool)}, "train_mask"),
    ],
)
def test_label_control_names_bad_parameters(kwargs, name):
    args = {"types": np.array(["a", "b", "a"]), "labels": np.array([0, 1, 0]), "seed": 0}
    with pytest.raises(ParameterError, match=name):
        label_control(**{**args, **kwargs})


@pytest.mark.parametrize(
    ("sentences", "seed", "name"),
    [
        ("a b c", 0, "types_per_sentence"),
        ([["a", "b"], 3], 0, "types_per_sentence"),
        ([["a", "b"], "ab"], 0, "types_per_sentence"),
        ([["a", "b"]], -2, "seed"),
    ],
)
def test_arc_control_names_bad_parameters(sentences, seed, name):
    with pytest.raises(ParameterError, match=name):
        arc_control(sentences, seed)


def test_selectivity_names_bad_parameters():
    with pytest.raises(ParameterError, match="task_accuracy"):
        selectivity(1.5, 0.5)
    with pytest.raises(ParameterError, match="control_accuracy"):
        selectivity(0.5, np.array([0.2, np.nan]))
    with pytest.raises(ParameterError, match="control_accuracy"):
        selectivity(np.zeros(2), np.zeros(3))
    with pytest.raises(ParameterError, match="rows"):
        selectivity_table([{"representation": "x", "layer": 0, "task_accuracy": 0.5}])
