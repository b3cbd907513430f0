"""Tests for probekit.methods.pareto (Pimentel et al. 2020): frontier, hypervolume, complexity,
controls, lookup baselines, entropies and non-contextual representations."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from probekit.errors import DataNotFoundError, ParameterError
from probekit.methods.pareto import architectures, controls, entropy, frontier, lookups
from probekit.probes import norms as matrix_norms
from probekit.representations import fasttext, types

# --------------------------------------------------------------------------------------------
# Frontier
# --------------------------------------------------------------------------------------------


def brute_frontier(c, a):
    keep = []
    for i in range(len(c)):
        dominated = any(
            c[j] <= c[i] and a[j] >= a[i] and (c[j] < c[i] or a[j] > a[i])
            for j in range(len(c))
            if j != i
        )
        if not dominated:
            keep.append(i)
    return sorted(keep, key=lambda i: (c[i], i))


def test_frontier_single_point():
    assert frontier.pareto_frontier([3.0], [0.5]).tolist() == [0]


def test_frontier_drops_dominated_points_and_sorts_by_complexity():
    c = [5.0, 1.0, 3.0, 4.0, 2.0]
    a = [0.9, 0.2, 0.6, 0.5, 0.7]
    # (4, .5) is dominated by (3, .6); (3, .6) is dominated by (2, .7).
    assert frontier.pareto_frontier(c, a).tolist() == [1, 4, 0]


def test_frontier_ties():
    c = [1.0, 1.0, 1.0, 2.0, 3.0]
    a = [0.5, 0.5, 0.4, 0.5, 0.8]
    # Exact copies (0, 1) are both kept; same complexity and lower accuracy (2) is dominated;
    # same accuracy and higher complexity (3) is dominated.
    assert frontier.pareto_frontier(c, a).tolist() == [0, 1, 4]


def test_frontier_empty():
    assert frontier.pareto_frontier([], []).tolist() == []


coords = st.integers(0, 6).map(float)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(coords, st.integers(0, 6).map(lambda v: v / 6)), max_size=12))
def test_frontier_matches_brute_force(points):
    c = [p[0] for p in points]
    a = [p[1] for p in points]
    assert frontier.pareto_frontier(c, a).tolist() == brute_frontier(c, a)


@pytest.mark.parametrize(
    "c, a",
    [([1.0, 2.0], [0.5]), ([1.0, np.nan], [0.5, 0.6]), ([-1.0], [0.5])],
)
def test_frontier_rejects_bad_input(c, a):
    with pytest.raises(ParameterError):
        frontier.pareto_frontier(c, a)


# --------------------------------------------------------------------------------------------
# Hypervolume
# --------------------------------------------------------------------------------------------


def brute_hypervolume(c, a, cap):
    """Area of the union of rectangles [c, cap] x [0, a], by coordinate compression."""
    inside = [(ci, ai) for ci, ai in zip(c, a, strict=True) if ci <= cap]
    xs = sorted({ci for ci, _ in inside} | {0.0, cap})
    ys = sorted({ai for _, ai in inside} | {0.0})
    area = 0.0
    for (x0, x1), (y0, y1) in itertools.product(itertools.pairwise(xs), itertools.pairwise(ys)):
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(ci <= cx and cy <= ai for ci, ai in inside):
            area += (x1 - x0) * (y1 - y0)
    return area


def test_hypervolume_one_point():
    # Nothing fits a budget below 100; from 100 to the cap the best accuracy is 0.8.
    assert frontier.hypervolume([100.0], [0.8], 400.0) == pytest.approx(300 * 0.8 / 400)
    assert frontier.hypervolume([100.0], [0.8], 400.0, normalise=False) == pytest.approx(240.0)


def test_hypervolume_staircase():
    c, a = [0.0, 100.0, 200.0], [0.2, 0.5, 0.9]
    expected = (100 * 0.2 + 100 * 0.5 + 200 * 0.9) / 400
    assert frontier.hypervolume(c, a, 400.0) == pytest.approx(expected)


def test_hypervolume_ignores_dominated_points():
    c, a = [0.0, 100.0, 200.0], [0.2, 0.5, 0.9]
    base = frontier.hypervolume(c, a, 400.0)
    assert frontier.hypervolume([*c, 150.0, 300.0], [*a, 0.4, 0.85], 400.0) == pytest.approx(base)


def test_hypervolume_points_beyond_cap_add_nothing():
    assert frontier.hypervolume([500.0], [0.99], 400.0) == 0.0
    assert frontier.hypervolume([400.0], [0.99], 400.0) == 0.0
    with_far = frontier.hypervolume([100.0, 1131.0], [0.5, 0.94], 400.0)
    assert with_far == pytest.approx(frontier.hypervolume([100.0], [0.5], 400.0))


def test_hypervolume_reference_accuracy_and_shuffled_scale():
    # Memorisation complexity lives in [0, 1]: cap 1, no further normalisation needed.
    assert frontier.hypervolume([0.25], [0.8], 1.0) == pytest.approx(0.75 * 0.8)
    # Reference accuracy 0.5: only the part above 0.5 counts, normalised by the box 1 x 0.5.
    assert frontier.hypervolume([0.0], [0.8], 1.0, min_accuracy=0.5) == pytest.approx(0.6)
    assert frontier.hypervolume([0.0], [0.3], 1.0, min_accuracy=0.5) == 0.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12).map(float), st.integers(0, 10).map(lambda v: v / 10)),
        max_size=10,
    )
)
def test_hypervolume_matches_union_of_rectangles(points):
    c = [p[0] for p in points]
    a = [p[1] for p in points]
    cap = 10.0
    hv = frontier.hypervolume(c, a, cap, normalise=False)
    assert hv == pytest.approx(brute_hypervolume(c, a, cap), abs=1e-9)
    norm = frontier.hypervolume(c, a, cap)
    assert 0.0 <= norm <= max([ai for ci, ai in points if ci <= cap], default=0.0) + 1e-12


def test_hypervolume_bad_cap():
    with pytest.raises(ParameterError):
        frontier.hypervolume([1.0], [0.5], 0.0)


def test_staircase_shape():
    x, h = frontier.frontier_staircase([0.0, 100.0, 100.0, 500.0], [0.2, 0.5, 0.5, 0.9], 400.0)
    assert x.tolist() == [0.0, 100.0, 400.0]
    assert h.tolist() == [0.2, 0.5, 0.5]


# --------------------------------------------------------------------------------------------
# Nuclear norm and rank
# --------------------------------------------------------------------------------------------


def test_nuclear_norm_matches_numpy_svd():
    rng = np.random.default_rng(0)
    W, b = rng.normal(size=(5, 8)), rng.normal(size=5)
    expected = np.linalg.svd(np.c_[W, b], compute_uv=False).sum()
    assert matrix_norms.nuclear_norm(W, b) == pytest.approx(expected)
    assert matrix_norms.nuclear_norm(W) == pytest.approx(np.linalg.svd(W, compute_uv=False).sum())
    t = matrix_norms.nuclear_norm(torch.tensor(W), torch.tensor(b))
    assert isinstance(t, torch.Tensor) and float(t) == pytest.approx(expected)


@pytest.mark.parametrize("shape", [(3, 4, 6), (3, 6, 4), (2, 5, 5)])
def test_nuclear_norm_stacked_and_differentiable(shape):
    rng = np.random.default_rng(1)
    W = torch.tensor(rng.normal(size=shape), requires_grad=True)
    b = torch.tensor(rng.normal(size=shape[:-1]), requires_grad=True)
    norms = matrix_norms.nuclear_norm(W, b)
    assert norms.shape == (shape[0],)
    for p in range(shape[0]):
        M = np.c_[W[p].detach().numpy(), b[p].detach().numpy()]
        assert float(norms[p].detach()) == pytest.approx(np.linalg.svd(M, compute_uv=False).sum())
    norms.sum().backward()
    # The gradient U V^T must equal torch's own nuclear-norm gradient.
    W2, b2 = W.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    torch.linalg.matrix_norm(torch.cat([W2, b2[..., None]], -1), ord="nuc").sum().backward()
    assert torch.allclose(W.grad, W2.grad) and torch.allclose(b.grad, b2.grad)


def test_nuclear_norm_subgradient_at_low_rank():
    # Rank-1 matrix: zero singular values, the gradient must stay finite.
    u, v = torch.randn(4, 1, dtype=torch.float64), torch.randn(1, 7, dtype=torch.float64)
    M = (u @ v).requires_grad_()
    matrix_norms.nuclear_norm(M).backward()
    assert torch.isfinite(M.grad).all()
    assert float(torch.linalg.matrix_norm(M.grad, ord=2)) == pytest.approx(1.0)


def test_numerical_rank():
    rng = np.random.default_rng(2)
    W = rng.normal(size=(6, 2)) @ rng.normal(size=(2, 9))
    assert int(matrix_norms.numerical_rank(W)) == 2
    assert int(matrix_norms.numerical_rank(W, np.ones(6))) == 3


# --------------------------------------------------------------------------------------------
# Controls
# --------------------------------------------------------------------------------------------


def test_shuffle_labels_is_a_true_permutation():
    labels = np.arange(50)
    out = controls.shuffle_labels(labels, seed=3)
    # The released code's np.random.shuffle on a tensor duplicated labels; this must not.
    assert sorted(out.tolist()) == labels.tolist()
    assert not np.array_equal(out, labels)
    assert np.array_equal(out, controls.shuffle_labels(labels, seed=3))
    assert not np.array_equal(out, controls.shuffle_labels(labels, seed=4))
    assert labels.tolist() == list(range(50))  # input untouched


def test_shuffle_labels_keeps_string_multiset():
    tags = np.array(["NOUN"] * 5 + ["VERB"] * 3 + ["DET"] * 2)
    out = controls.shuffle_labels(tags, seed=0)
    assert sorted(out.tolist()) == sorted(tags.tolist())


def test_shuffle_heads_permutes_within_each_sentence():
    heads = [np.array([2, 0, 2, 3]), np.array([0, 1]), np.array([3, 3, 0, 3, 4, 4])]
    out = controls.shuffle_heads(heads, seed=5)
    for h, o in zip(heads, out, strict=True):
        assert sorted(o.tolist()) == sorted(h.tolist())
    again = controls.shuffle_heads(heads, seed=5)
    assert all(np.array_equal(o, g) for o, g in zip(out, again, strict=True))
    other = controls.shuffle_heads(heads, seed=6)
    assert any(not np.array_equal(o, g) for o, g in zip(out, other, strict=True))


def test_shuffle_word_order():
    sentences = [
        ["the", "cat", "sat", "on", "the", "mat"],
        SimpleNamespace(forms=np.array(["a", "b", "c"])),
    ]
    tokens, orders = controls.shuffle_word_order(sentences, seed=1)
    originals = [sentences[0], ["a", "b", "c"]]
    for t, o, orig in zip(tokens, orders, originals, strict=True):
        assert sorted(o.tolist()) == list(range(len(orig)))
        assert t == [orig[i] for i in o]
        # argsort of the order realigns the shuffled sentence with the original.
        assert [t[i] for i in np.argsort(o)] == list(orig)
    again, _ = controls.shuffle_word_order(sentences, seed=1)
    assert again == tokens
    long = [[str(i) for i in range(30)]]
    assert controls.shuffle_word_order(long, 1)[0] != controls.shuffle_word_order(long, 2)[0]


@pytest.mark.parametrize("seed", [-1, 1.5, True, "0"])
def test_shuffles_reject_bad_seeds(seed):
    with pytest.raises(ParameterError):
        controls.shuffle_labels(np.arange(3), seed)


# --------------------------------------------------------------------------------------------
# Lookup baselines (appendix B)
# --------------------------------------------------------------------------------------------


def test_posl_lookup():
    words = ["run", "run", "run", "dog", "dog", "the", "the", "the", "the"]
    tags = ["VERB", "VERB", "NOUN", "NOUN", "VERB", "DET", "DET", "DET", "PRON"]
    lookup = lookups.fit_posl_lookup(words, tags)
    # run: VERB by majority; dog: tie NOUN/VERB -> smallest in sorted order; global: DET.
    pred = lookups.predict_posl_lookup(lookup, ["run", "dog", "the", "unseen"])
    assert pred.tolist() == ["VERB", "NOUN", "DET", "DET"]
    shuffled = lookups.fit_posl_lookup(words[::-1], tags[::-1])
    assert shuffled == lookup  # tie-breaking does not depend on data order


def test_dal_lookup_each_backoff_step():
    dependents = ["cat", "cat", "cat", "dog", "big", "big", "the"]
    heads = ["sat", "sat", "saw", "saw", "dog", "dog", "cat"]
    labels = ["nsubj", "nsubj", "obj", "obj", "amod", "amod", "det"]
    lookup = lookups.fit_dal_lookup(dependents, heads, labels)
    test_dep = ["cat", "cat", "zebra", "zebra", "cat"]
    test_head = ["saw", "ran", "dog", "nowhere", "sat"]
    levels = lookups.dal_backoff_level(lookup, test_dep, test_head)
    pred = lookups.predict_dal_lookup(lookup, test_dep, test_head)
    # 1: seen arc (cat, saw) -> obj. 2: unseen arc, tail "cat" -> its most frequent label,
    # nsubj (2 of 3). 3: tail unseen, head "dog" seen as head -> amod. 4: global: the labels
    # amod, nsubj and obj tie at 2, so the smallest in sorted order, amod.
    assert levels.tolist() == [1, 2, 3, 4, 1]
    assert pred.tolist() == ["obj", "nsubj", "amod", "amod", "nsubj"]


def test_dal_lookup_roles_are_separate():
    # "dog" only occurs as a head, so as a tail it is unknown: step 3 on the head word.
    lookup = lookups.fit_dal_lookup(["big"], ["dog"], ["amod"])
    assert lookups.dal_backoff_level(lookup, ["dog"], ["dog"]).tolist() == [3]


def test_lookup_rejects_mismatched_lengths():
    with pytest.raises(ParameterError):
        lookups.fit_posl_lookup(["a", "b"], ["X"])
    with pytest.raises(ParameterError):
        lookups.fit_dal_lookup([], [], [])


# --------------------------------------------------------------------------------------------
# Entropies
# --------------------------------------------------------------------------------------------


def test_entropy_known_distributions():
    assert entropy.entropy(["a", "b", "c", "d"]) == pytest.approx(2.0)
    assert entropy.entropy([1, 1, 1]) == pytest.approx(0.0)
    assert entropy.entropy(["x", "y", "z", "z"]) == pytest.approx(1.5)


def test_conditional_entropy_known_distribution():
    # p(word a) = 1/2 with labels x, y equally likely (1 bit); word b always z (0 bits).
    labels = ["x", "y", "z", "z"]
    words = ["a", "a", "b", "b"]
    assert entropy.conditional_entropy(labels, words) == pytest.approx(0.5)
    assert entropy.conditional_entropy(labels, labels) == pytest.approx(0.0)
    assert entropy.conditional_entropy(labels, ["w"] * 4) == pytest.approx(entropy.entropy(labels))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=40))
def test_conditional_entropy_bounds(pairs):
    labels = [p[0] for p in pairs]
    words = [p[1] for p in pairs]
    h, hc = entropy.entropy(labels), entropy.conditional_entropy(labels, words)
    assert -1e-12 <= hc <= h + 1e-12


# --------------------------------------------------------------------------------------------
# Representations
# --------------------------------------------------------------------------------------------


def test_random_type_vectors_fixed_per_type():
    a = types.random_type_vectors(["dog", "cat", "the"], 16, seed=7)
    b = types.random_type_vectors(["the", "zebra", "dog"], 16, seed=7)
    assert a.shape == (3, 16) and a.dtype == np.float32
    assert np.array_equal(a[0], b[2]) and np.array_equal(a[2], b[0])
    c = types.random_type_vectors(["dog"], 16, seed=8)
    assert not np.array_equal(a[0], c[0])
    many = types.random_type_vectors([f"w{i}" for i in range(200)], 50, seed=0)
    assert abs(many.mean()) < 0.05 and abs(many.std() - 1) < 0.05


def test_embed_types_layout():
    sentences = [["a", "b", "a"], SimpleNamespace(forms=np.array(["c"]))]
    out = types.embed_types(sentences, lambda ws: types.random_type_vectors(ws, 4, seed=0))
    assert [o.shape for o in out] == [(3, 4), (1, 4)]
    assert np.array_equal(out[0][0], out[0][2])
    assert np.array_equal(out[1][0], types.random_type_vectors(["c"], 4, seed=0)[0])


def test_fasttext_trained_is_deterministic_and_covers_oov(tmp_path):
    corpus = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat"]] * 20
    kv1 = fasttext.fasttext_vectors(corpus, dim=8, seed=3, epochs=2)
    kv2 = fasttext.fasttext_vectors(corpus, dim=8, seed=3, epochs=2)
    assert np.array_equal(kv1["cat"], kv2["cat"])
    out = types.embed_types([["the", "cats"]], kv1)  # "cats" is out of vocabulary
    assert out[0].shape == (2, 8) and np.all(np.isfinite(out[0]))
    assert np.abs(out[0][1]).sum() > 0

    from gensim.models.fasttext import FastText, save_facebook_model

    model = FastText(sentences=corpus, vector_size=8, min_count=1, epochs=1, seed=0, workers=1)
    path = tmp_path / "tiny.bin"
    save_facebook_model(model, str(path))
    kv = fasttext.fasttext_vectors([], dim=8, seed=0, pretrained_path=path)
    assert np.allclose(kv["cat"], model.wv["cat"])
    with pytest.raises(ParameterError):
        fasttext.fasttext_vectors([], dim=300, seed=0, pretrained_path=path)
    with pytest.raises(DataNotFoundError):
        fasttext.fasttext_vectors([], dim=8, seed=0, pretrained_path=tmp_path / "missing.bin")


def test_vocab_and_type_ids():
    train, dev = [["b", "a"]], [["c", "a"]]
    vocab = types.build_vocab(train, dev)
    assert vocab == {"a": 0, "b": 1, "c": 2}
    assert [i.tolist() for i in types.type_ids(dev, vocab)] == [[2, 0]]
    with pytest.raises(ParameterError):
        types.type_ids([["zzz"]], vocab)


def test_onehot_embedding_shapes():
    emb = types.OneHotEmbedding(10, 4, n_probes=3, seed=0)
    out = emb(torch.tensor([[1, 2], [3, 4], [5, 6]]))
    assert out.shape == (3, 3, 2, 4)
    assert torch.equal(emb.weight[0], emb.weight[2])  # same start for every stacked probe


# --------------------------------------------------------------------------------------------
# MLP configurations
# --------------------------------------------------------------------------------------------


def test_sample_mlp_configs():
    configs = architectures.sample_mlp_configs(400, seed=0)
    assert configs == architectures.sample_mlp_configs(400, seed=0)
    assert configs != architectures.sample_mlp_configs(400, seed=1)
    layers = [c.n_layers for c in configs]
    assert all(c.hidden_size == 0 for c in configs if c.n_layers == 0)
    sizes = np.array([c.hidden_size for c in configs if c.n_layers])
    dropouts = np.array([c.dropout for c in configs])
    assert set(layers) == set(range(6))
    assert sizes.min() >= 32 and sizes.max() <= 1024
    assert dropouts.min() >= 0 and dropouts.max() <= 0.5
    # Log-uniform: about half the sizes fall below the geometric midpoint sqrt(32 * 1024).
    assert 0.4 < np.mean(sizes < np.sqrt(32 * 1024)) < 0.6
    deep = next(c for c in configs if c.n_layers > 1)
    assert deep.layer_sizes(halve=True) == tuple(
        deep.hidden_size // 2**k for k in range(deep.n_layers)
    )
