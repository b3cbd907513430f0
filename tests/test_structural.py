"""Tests of the structural probe, the perceptron parser and their shared trainer."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_heads
from probekit.errors import ParameterError
from probekit.probes import perceptron as P
from probekit.probes import structural as S
from probekit.probes import structural_stack as T
from probekit.trees import baselines, distances, metrics, spanning, structure


def path_embeddings(heads: np.ndarray, n_max: int) -> np.ndarray:
    """x_v = Σ of one-hot e_a over the non-root ancestors-or-self a of v.

    Then ||x_u - x_v||^2 = |anc(u) Δ anc(v)| = tree distance, so a linear B recovers the tree.
    """
    parents = heads - 1
    x = np.zeros((heads.size, n_max))
    for v in range(heads.size):
        u = v
        while parents[u] >= 0:
            x[v, u] = 1.0
            u = parents[u]
    return x


def synthetic_corpus(n_sent: int, seed: int, n_max: int = 12, noise_dims: int = 12):
    """Tree-encoding vectors plus Gaussian noise dimensions, mixed by a fixed rotation."""
    rng = np.random.default_rng(seed)
    d = n_max + noise_dims
    rotation, _ = np.linalg.qr(np.random.default_rng(123).normal(size=(d, d)))
    embs, heads = [], []
    for _ in range(n_sent):
        h = random_heads(rng, int(rng.integers(2, n_max + 1)))
        x = np.concatenate([path_embeddings(h, n_max), rng.normal(0, 0.3, (h.size, noise_dims))], 1)
        embs.append((x @ rotation).astype(np.float32))
        heads.append(h)
    return embs, heads


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(300, seed=0), synthetic_corpus(80, seed=1)


# --------------------------------------------------------------------------------------------
# Distances and losses on hand-computed examples


def test_squared_distances_match_direct_computation():
    g = torch.Generator().manual_seed(0)
    h = torch.randn(3, 5, 7, generator=g)
    B = torch.randn(4, 7, generator=g)
    sq = S.squared_distances(h, B)
    direct = ((h[:, :, None, :] - h[:, None, :, :]) @ B.T).pow(2).sum(-1)
    torch.testing.assert_close(sq, direct, rtol=1e-4, atol=1e-4)
    assert torch.equal(sq, sq.transpose(1, 2))
    assert torch.all(torch.diagonal(sq, dim1=1, dim2=2) == 0)


def hand_batch():
    """Two sentences, 1-D embeddings, B = [[1]]: a chain of 3 words and a pair (padded)."""
    h = torch.tensor([[[0.0], [1.0], [3.0]], [[0.0], [2.0], [0.0]]])
    lengths = torch.tensor([3, 2])
    return h, lengths


def test_structural_loss_hand_computed():
    h, lengths = hand_batch()
    pred = S.squared_distances(h, torch.ones(1, 1))
    # Sentence 1: d^2 = 1, 9, 4 for pairs 01, 02, 12; gold 1, 2, 1 -> (0 + 7 + 3) / 9.
    # Sentence 2: d^2 = 4, gold 1 -> 3 / 4. Padding (the third row) must not count.
    gold = torch.tensor(
        [[[0.0, 1, 2], [1, 0, 1], [2, 1, 0]], [[0.0, 1, 99], [1, 0, 99], [99, 99, 99]]]
    )
    losses = S.structural_loss(pred, gold, lengths)
    torch.testing.assert_close(losses, torch.tensor([10 / 9, 3 / 4]))


def test_perceptron_loss_hand_computed():
    h, lengths = hand_batch()
    pred = S.squared_distances(h, torch.ones(1, 1))
    # Sentence 1: d_B = 1 (01), 3 (02), 2 (12); the MST is {01, 12} with weight 3.
    chain = np.array([0, 1, 2])  # gold = MST -> 0
    star = np.array([0, 1, 1])  # gold {01, 02}, weight 1 + 3 = 4 -> 4 - 3 = 1
    pair = np.array([0, 1])  # one edge, always the MST -> 0
    for heads, expected in ((chain, 0.0), (star, 1.0)):
        masks = [P.gold_edge_mask(heads), np.pad(P.gold_edge_mask(pair), (0, 1))]
        gold = torch.from_numpy(np.stack(masks))
        losses = P.perceptron_loss(pred, gold, lengths)
        torch.testing.assert_close(losses, torch.tensor([expected, 0.0]))


def test_perceptron_loss_zero_iff_mst_is_gold():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(2, 12))
        heads = random_heads(rng, n)
        h = torch.randn(1, n, 5, generator=torch.Generator().manual_seed(int(rng.integers(1000))))
        pred = S.squared_distances(h, torch.eye(5))
        mst = structure.edge_set(
            structure.edges_from_parents(spanning.prim_mst(pred[0].double().numpy()))
        )
        gold = torch.from_numpy(P.gold_edge_mask(heads))[None]
        loss = float(P.perceptron_loss(pred, gold, torch.tensor([n]))[0])
        if mst == structure.edge_set(structure.edges_from_heads(heads)):
            assert loss == pytest.approx(0.0, abs=1e-5)
        else:
            assert loss > 1e-6


def test_perceptron_loss_zero_on_gold_distances_and_has_gradient():
    heads = np.array([2, 0, 2, 3, 3])
    gold_sq = torch.from_numpy(distances.tree_distances(heads).astype(np.float32))[None]
    mask = torch.from_numpy(P.gold_edge_mask(heads))[None]
    assert float(P.perceptron_loss(gold_sq, mask, torch.tensor([5]))[0]) == pytest.approx(0.0)
    # A wrong prediction: its subgradient moves B.
    B = torch.nn.Parameter(torch.eye(3))
    h = torch.tensor([[[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]])
    loss = P.perceptron_loss(S.squared_distances(h, B), mask, torch.tensor([5])).sum()
    assert float(loss.detach()) > 0
    loss.backward()
    assert B.grad is not None and torch.any(B.grad != 0)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 15), st.integers(0, 2**32 - 1))
def test_structural_loss_zero_iff_exact(n, seed):
    heads = random_heads(np.random.default_rng(seed), n)
    gold = torch.from_numpy(distances.tree_distances(heads).astype(np.float32))[None]
    lengths = torch.tensor([n])
    assert float(S.structural_loss(gold, gold, lengths)[0]) == 0.0
    assert float(S.structural_loss(gold + 1.0 - torch.eye(n), gold, lengths)[0]) == pytest.approx(
        (n * (n - 1) / 2) / n**2
    )


# --------------------------------------------------------------------------------------------
# Training


def test_structural_probe_learns_synthetic_trees(corpus):
    (tr_e, tr_h), (dv_e, dv_h) = corpus
    result = T.train_distance_probe(
        "structural", tr_e, tr_h, dv_e, dv_h, rank=12, lr=0.01, dropout=0.0, seed=0, max_epochs=25
    )
    pred = S.predict_distances(result.probe, dv_e)
    gold = distances.tree_distances_all(dv_h)
    assert metrics.uuas(pred, dv_h) > 0.95
    assert metrics.dspr(pred, gold) > 0.9
    assert result.history[result.best_epoch]["dev_loss"] == result.best_dev_loss
    assert result.history[0]["dev_loss"] > result.best_dev_loss


def test_perceptron_learns_synthetic_trees(corpus):
    (tr_e, tr_h), (dv_e, dv_h) = corpus
    result = T.train_distance_probe(
        "perceptron", tr_e, tr_h, dv_e, dv_h, rank=12, lr=0.01, dropout=0.1, seed=0, max_epochs=15
    )
    pred = S.predict_distances(result.probe, dv_e, squared=False)
    assert metrics.uuas(pred, dv_h) > 0.9


def test_training_is_reproducible_and_seed_dependent(corpus):
    (tr_e, tr_h), (dv_e, dv_h) = corpus
    args = ("structural", tr_e[:60], tr_h[:60], dv_e[:20], dv_h[:20])
    kwargs = {"rank": 4, "lr": 0.01, "dropout": 0.2, "max_epochs": 3, "batch_size": 16}
    a = T.train_distance_probe(*args, seed=7, **kwargs)
    b = T.train_distance_probe(*args, seed=7, **kwargs)
    c = T.train_distance_probe(*args, seed=8, **kwargs)
    assert torch.equal(a.probe.B, b.probe.B)
    assert a.history == b.history
    assert not torch.equal(a.probe.B, c.probe.B)


def test_early_stopping_and_length_filter(corpus):
    (tr_e, tr_h), (dv_e, _) = corpus
    # Dev trees unrelated to the dev vectors: once the probe has learnt the scale of tree
    # distances, fitting the training trees only hurts the dev loss, so training stops early.
    rng = np.random.default_rng(5)
    dv_h = [random_heads(rng, e.shape[0]) for e in dv_e[:30]]
    d = tr_e[0].shape[1]
    long_e, long_h = np.zeros((51, d), np.float32), baselines.linear_chain_heads(51)
    one_e, one_h = np.zeros((1, d), np.float32), np.array([0])
    result = T.train_distance_probe(
        "structural",
        [*tr_e[:100], long_e, one_e],
        [*tr_h[:100], long_h, one_h],
        [*dv_e[:30], one_e],
        [*dv_h, one_h],
        rank=12,
        lr=0.05,
        dropout=0.0,
        seed=0,
        max_epochs=40,
        patience=2,
    )
    assert (result.n_dropped_train, result.n_dropped_dev) == (2, 1)
    assert len(result.history) == result.best_epoch + 3 < 40
    later = [h["dev_loss"] for h in result.history[result.best_epoch + 1 :]]
    assert min(later) >= result.best_dev_loss


def test_distance_data_keeps_two_to_fifty_words_and_the_uuas_words():
    lengths = (1, 2, 50, 51, 4)
    embs = [np.full((n, 2), n, np.float32) for n in lengths]
    heads = [baselines.linear_chain_heads(n) for n in lengths]
    keep = [np.ones(n, bool) for n in lengths]
    keep[4][2] = False
    data = T.DistanceData.build({0: embs, 7: [e + 1 for e in embs]}, heads, keep)
    assert data.lengths.tolist() == [2, 50, 4] and data.n_dropped == 2 and len(data) == 3
    assert set(data.sources) == {0, 7} and data.sources[7].shape == (56, 2)
    assert float(data.sources[7][0, 0]) == 3.0  # the first kept sentence (2 words), plus 1
    # The chain of 4 words without its third word: the gold edges among the kept words 0, 1, 3
    # are those of the restricted tree distances' MST, (0, 1) and (1, 3) at positions (0,1), (1,2).
    assert data.kept_lengths.tolist() == [2, 50, 3]
    assert data.kept[2, :3].tolist() == [0, 1, 3]
    assert np.argwhere(data.kept_gold[2].numpy()).tolist() == [[0, 1], [1, 2]]
    assert torch.equal(data.gold[0, :2, :2], torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(ParameterError, match="features"):
        T.DistanceData.build({0: embs, 1: [e[:, :1] for e in embs]}, heads)
    with pytest.raises(ParameterError, match="keep"):
        T.DistanceData.build({0: embs}, heads, keep[:2])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"kind": "depth"}, "kind"),
        ({"rank": 0}, "rank"),
        ({"lr": 0.0}, "lr"),
        ({"dropout": 1.0}, "dropout"),
        ({"patience": 0}, "patience"),
    ],
)
def test_train_rejects_bad_parameters(corpus, kwargs, name):
    (tr_e, tr_h), (dv_e, dv_h) = corpus
    base = {"kind": "structural", "rank": 2, "lr": 0.01, "dropout": 0.0, "seed": 0}
    with pytest.raises(ParameterError) as info:
        T.train_distance_probe(
            train_embs=tr_e[:5],
            train_heads=tr_h[:5],
            dev_embs=dv_e[:5],
            dev_heads=dv_h[:5],
            **(base | kwargs),
        )
    assert info.value.name == name


def test_train_rejects_mismatched_data(corpus):
    (tr_e, tr_h), _ = corpus
    with pytest.raises(ParameterError, match="heads"):
        T.train_distance_probe("structural", tr_e[:3], tr_h[1:4], tr_e[:3], tr_h[:3], 2, 0.1, 0, 0)


def test_predict_keeps_input_order(corpus):
    _, (dv_e, _) = corpus
    probe = S.DistanceProbe(dv_e[0].shape[1], 3, torch.Generator().manual_seed(0))
    pred = S.predict_distances(probe, dv_e[:9], batch_size=4)
    assert [p.shape[0] for p in pred] == [e.shape[0] for e in dv_e[:9]]
    one = S.predict_distances(probe, dv_e[5:6])[0]
    np.testing.assert_allclose(pred[5], one, rtol=1e-5, atol=1e-6)
    root = S.predict_distances(probe, dv_e[5:6], squared=False)[0]
    np.testing.assert_allclose(root**2, one, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------------------------
# Random search


def test_sample_configs_are_seeded_and_in_range():
    space = S.SearchSpace()
    a = S.sample_trials(space, 20, seed=3, d=384)
    assert a == S.sample_trials(space, 20, seed=3, d=384)
    assert a != S.sample_trials(space, 20, seed=4, d=384)
    for c in a:
        assert c["rank"] in (1, 2, 4, 8, 16, 32, 64, 128, 256, 384)
        assert 1e-4 <= c["lr"] <= 1e-2 and 0.0 <= c["dropout"] <= 0.5
    with pytest.raises(ParameterError, match="n_trials"):
        S.sample_trials(space, 0, seed=0, d=8)


def test_random_search_selects_lowest_dev_loss(corpus):
    (tr_e, tr_h), (dv_e, dv_h) = corpus
    space = S.SearchSpace(ranks=(1, 12), lr_min=1e-3, lr_max=3e-2)
    result = T.random_search(
        "structural",
        tr_e[:80],
        tr_h[:80],
        dv_e[:20],
        dv_h[:20],
        space,
        n_trials=3,
        seed=0,
        max_epochs=3,
    )
    losses = [t["dev_loss"] for t in result.trials]
    assert len(losses) == 3
    assert result.best.best_dev_loss == min(losses)
    assert result.best.config["rank"] == result.trials[int(np.argmin(losses))]["rank"]
