"""Example builders of probekit.io.tasks (Kunz & Kuhlmann 2021, §3.3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import hand_sentence
from probekit.errors import ParameterError
from probekit.io.tasks import (
    OOV_LABEL,
    deprel_examples,
    deprel_inventory,
    gather,
    gather_layers,
    pos_examples,
)
from probekit.io.treebanks import UPOS_TAGS, Sentence, offsets, read_conllu

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_tagging.conllu"


def sentence(forms, upos, heads, deprel, sent_id="s") -> Sentence:
    return hand_sentence(list(zip(forms, upos, heads, strict=True)), sent_id, deprel)


@pytest.fixture
def two() -> list[Sentence]:
    return [
        sentence(["I", "run"], ["PRON", "VERB"], [2, 0], ["nsubj", "root"], "a"),
        sentence(
            ["My", "dog", "runs", "."],
            ["PRON", "NOUN", "VERB", "PUNCT"],
            [2, 3, 0, 3],
            ["nmod:poss", "nsubj", "root", "punct"],
            "b",
        ),
    ]


def test_upos_inventory_is_the_17_ud_tags_alphabetical():
    assert len(UPOS_TAGS) == 17 and list(UPOS_TAGS) == sorted(UPOS_TAGS) and "X" in UPOS_TAGS


def test_pos_examples_rows_labels_and_metadata(two):
    ex = pos_examples(two)
    assert ex.task == "pos" and len(ex) == 6
    np.testing.assert_array_equal(ex.rows, np.arange(6))
    assert [UPOS_TAGS[i] for i in ex.y] == ["PRON", "VERB", "PRON", "NOUN", "VERB", "PUNCT"]
    np.testing.assert_array_equal(ex.sent, [0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(ex.word, [0, 1, 0, 1, 2, 3])
    np.testing.assert_array_equal(ex.sent_len, [2, 2, 4, 4, 4, 4])
    assert ex.form.tolist() == ["I", "run", "My", "dog", "runs", "."]
    assert ex.head is None and ex.arc_len is None


def test_pos_examples_reject_unknown_upos(two):
    bad = sentence(["x"], ["_"], [0], ["root"], "bad")
    with pytest.raises(ParameterError, match="bad word 1 has UPOS '_'"):
        pos_examples([*two, bad])


def test_offsets_must_match_the_sentences(two):
    with pytest.raises(ParameterError, match="offsets"):
        pos_examples(two, offsets=np.array([0, 2, 5]))
    shifted = pos_examples(two, offsets=offsets(two) + 10)
    np.testing.assert_array_equal(shifted.rows, np.arange(10, 16))


def test_deprel_examples_dependent_first_no_root(two):
    ex = deprel_examples(two)
    assert ex.task == "deprel" and len(ex) == 4  # 1 + 3 non-root arcs
    np.testing.assert_array_equal(ex.rows, [[0, 1], [2, 3], [3, 4], [5, 4]])
    assert [ex.labels[i] for i in ex.y] == ["nsubj", "nmod:poss", "nsubj", "punct"]
    np.testing.assert_array_equal(ex.arc_len, [1, 1, 1, 1])
    np.testing.assert_array_equal(ex.head, [1, 1, 2, 2])
    np.testing.assert_array_equal(ex.word, [0, 0, 1, 3])
    np.testing.assert_array_equal(ex.sent_len, [2, 4, 4, 4])


def test_deprel_inventory_keeps_subtypes_and_ends_with_oov(two):
    labels = deprel_inventory(two)
    assert labels == ("nmod:poss", "nsubj", "punct", OOV_LABEL)
    assert "root" not in labels


def test_unknown_eval_relations_map_to_oov_or_are_dropped(two):
    labels = deprel_inventory(two[:1])  # only nsubj
    ex = deprel_examples(two[1:], labels=labels)
    assert [ex.labels[i] for i in ex.y] == [OOV_LABEL, "nsubj", OOV_LABEL]
    dropped = deprel_examples(two[1:], labels=labels, oov="drop")
    assert len(dropped) == 1 and dropped.labels[dropped.y[0]] == "nsubj"
    with pytest.raises(ParameterError, match="oov"):
        deprel_examples(two, oov="ignore")
    with pytest.raises(ParameterError, match="OOV"):
        deprel_examples(two, labels=("nsubj",))


def test_min_arcs_reproduces_the_released_filter(two):
    assert len(deprel_examples(two, min_arcs=2)) == 3  # the 2-word sentence has one arc
    with pytest.raises(ParameterError, match="min_arcs"):
        deprel_examples(two, min_arcs=0)


def test_subset_keeps_fields_aligned(two):
    ex = deprel_examples(two).subset(np.array([False, True, False, True]))
    np.testing.assert_array_equal(ex.rows, [[2, 3], [5, 4]])
    assert ex.form.tolist() == ["My", "."]
    with pytest.raises(ParameterError, match="mask"):
        ex.subset(np.array([True]))


def test_fixture_file_round_trip():
    sents = read_conllu(FIXTURE)
    pos, dep = pos_examples(sents), deprel_examples(sents)
    assert len(pos) == sum(len(s) for s in sents)
    assert len(dep) == sum(len(s) - 1 for s in sents)
    assert "nmod:poss" in dep.labels


def test_gather_t1_and_t2_dependent_first():
    X = np.arange(12, dtype=np.float16).reshape(6, 2)
    np.testing.assert_array_equal(gather(X, np.array([4, 1])), [[8, 9], [2, 3]])
    out = gather(X, np.array([[0, 1], [5, 4]]))
    assert out.dtype == np.float32 and out.shape == (2, 4)
    np.testing.assert_array_equal(out, [[0, 1, 2, 3], [10, 11, 8, 9]])
    with pytest.raises(ParameterError, match="out of range"):
        gather(X, np.array([6]))
    with pytest.raises(ParameterError, match="shape"):
        gather(X, np.zeros((2, 3), dtype=np.int64))


def test_gather_layers_equals_gather_per_layer(two):
    rng = np.random.default_rng(0)
    layers = [rng.normal(size=(6, 3)).astype(np.float16) for _ in range(3)]
    for rows in (pos_examples(two).rows, deprel_examples(two).rows):
        stacked = gather_layers(layers, rows)
        assert stacked.dtype == np.float32
        for k, X in enumerate(layers):
            np.testing.assert_array_equal(stacked[k], gather(X, rows))
        np.testing.assert_array_equal(gather_layers(np.stack(layers), rows), stacked)
    with pytest.raises(ParameterError, match="layer 1"):
        gather_layers([layers[0], layers[1][:4]], pos_examples(two).rows)


@st.composite
def trees(draw):
    n = draw(st.integers(1, 12))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    for i, w in enumerate(order[1:], start=1):
        heads[w - 1] = order[draw(st.integers(0, i - 1))]  # attach to an earlier-placed word
    return heads


@settings(max_examples=60, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=4))
def test_deprel_examples_invariants(all_heads):
    sents = [
        sentence(
            [f"w{i}" for i in range(len(h))],
            ["NOUN"] * len(h),
            h,
            ["root" if x == 0 else "dep" for x in h],
            f"s{j}",
        )
        for j, h in enumerate(all_heads)
    ]
    off = offsets(sents)
    ex = deprel_examples(sents)
    assert len(ex) == sum(len(h) - 1 for h in all_heads)
    first = off[ex.sent]
    np.testing.assert_array_equal(ex.rows[:, 0] - first, ex.word)
    np.testing.assert_array_equal(ex.rows[:, 1] - first, ex.head)
    np.testing.assert_array_equal(ex.arc_len, np.abs(ex.rows[:, 0] - ex.rows[:, 1]))
    heads_flat = np.concatenate([np.array(h) for h in all_heads])
    np.testing.assert_array_equal(heads_flat[ex.rows[:, 0]] - 1, ex.head)
