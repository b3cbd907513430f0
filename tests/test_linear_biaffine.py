"""Tests for the linear (nuclear-norm, rank) and biaffine parsing probes of Pimentel et al. 2020."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from conftest import blobs
from probekit.errors import ParameterError
from probekit.methods.pareto.controls import shuffle_heads
from probekit.probes import biaffine as B
from probekit.probes import biaffine_stack as BS
from probekit.probes import linear as L
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions
from probekit.representations.types import OneHotEmbedding
from probekit.seeds import derived_seeds

pytestmark = pytest.mark.usefixtures("one_thread")


FAST = TrainOptions(batch_size=64, lr=0.05, eval_every=10, patience=5, min_delta=0.0, max_steps=300)


@pytest.fixture(scope="module")
def toy():
    return (*blobs(300, 0), *blobs(150, 1))


@pytest.fixture(scope="module")
def alpha_run(toy):
    configs = [L.LinearProbeConfig(alpha=a) for a in (0.0, 0.03, 0.3)]
    return L.train_linear_probes(configs, *toy, seed=0, options=FAST)


# --------------------------------------------------------------------------------------------
# Grids
# --------------------------------------------------------------------------------------------


def test_alpha_grid():
    grid = L.alpha_grid()
    assert grid.shape == (50,)
    assert grid[0] == 0 and grid[1] == pytest.approx(2.0**-10) and grid[-1] == pytest.approx(8)
    ratios = grid[2:] / grid[1:-1]
    assert np.allclose(ratios, ratios[0])  # log-uniform spacing
    assert L.alpha_grid(n_points=5, include_zero=False).shape == (5,)
    with pytest.raises(ParameterError):
        L.alpha_grid(n_points=0)


def test_rank_grid():
    assert L.rank_grid(4).tolist() == [1, 2, 3, 4]


# --------------------------------------------------------------------------------------------
# Linear probes
# --------------------------------------------------------------------------------------------


def test_unpenalised_probe_fits_separable_data(alpha_run, toy):
    X, y = toy[0], toy[1]
    assert alpha_run.accuracy(X, y)[0] == 1.0
    assert alpha_run.dev_accuracy[0] > 0.97


def test_larger_alpha_gives_smaller_nuclear_norm(alpha_run):
    norms = alpha_run.complexity
    assert norms[0] > norms[1] > norms[2] > 0
    assert np.allclose(alpha_run.complexity, alpha_run.nuclear_norm)


def test_complexity_is_nuclear_norm_of_trained_weights(alpha_run):
    ((members, stack),) = alpha_run.stacks
    W = stack.probes.weight.detach().numpy()
    b = stack.probes.bias.detach().numpy()
    for k, i in enumerate(members):
        expected = np.linalg.svd(np.c_[W[k], b[k]], compute_uv=False).sum()
        assert alpha_run.complexity[i] == pytest.approx(expected, rel=1e-5)


def test_rank_constraint_bounds_rank(toy):
    configs = [L.LinearProbeConfig(rank=r) for r in (1, 2, 3)]
    res = L.train_linear_probes(configs, *toy, seed=0, options=FAST)
    assert res.complexity.tolist() == [1.0, 2.0, 3.0]
    assert len(res.stacks) == 3  # ranks share a stack only within a power of two
    for members, stack in res.stacks:
        W, b = stack.probes.weight_and_bias()
        for k, i in enumerate(members.tolist()):
            M = np.c_[W[k].detach().numpy(), b[k].detach().numpy()]
            assert np.linalg.matrix_rank(M, tol=1e-6) <= configs[i].rank
    assert np.all(res.rank <= np.array([1, 2, 3]))
    assert res.dev_accuracy[2] > res.dev_accuracy[0]  # 4 classes need more than rank 1


def test_stacked_linear_probes_get_their_own_loss_and_gradient(toy):
    """What stacking guarantees (Pimentel et al. 2020, eq. 3 per probe): on one minibatch every
    probe of a stack gets the loss and gradient it would get alone, up to float rounding."""
    X, y = torch.as_tensor(toy[0][:64]), torch.as_tensor(toy[1][:64])
    alphas = (0.0, 0.03, 0.3)
    group = [L.LinearProbeConfig(alpha=a) for a in alphas]
    stacked = L._build_stack(group, toy[0], 4, None, None, toy[2], True, seed=0)
    loss = L.cross_entropy_bits(stacked(X), y).mean(1) + stacked.probes.penalty()
    loss.sum().backward()
    grads = {n: p.grad for n, p in stacked.named_parameters()}
    for k, alpha in enumerate(alphas):
        one = L._build_stack([L.LinearProbeConfig(alpha=alpha)], toy[0], 4, None, None, toy[2],
                             True, seed=0)  # fmt: skip
        alone = L.cross_entropy_bits(one(X), y).mean(1) + one.probes.penalty()
        alone.sum().backward()
        assert float(alone.detach()[0]) == pytest.approx(float(loss.detach()[k]), rel=1e-5)
        for name, p in one.named_parameters():
            torch.testing.assert_close(grads[name][k], p.grad[0], rtol=1e-4, atol=1e-6)


def test_stacked_training_equals_training_alone_on_a_smooth_objective(alpha_run, toy):
    """Without the non-smooth nuclear-norm penalty (alpha = 0) a whole stacked run stays within
    rounding of the probe trained alone; with it, Adam amplifies rounding differently on
    different CPUs, so the penalised probes are checked step by step above instead."""
    alone = L.train_linear_probes([L.LinearProbeConfig(alpha=0.0)], *toy, seed=0, options=FAST)
    assert alone.complexity[0] == pytest.approx(alpha_run.complexity[0], rel=1e-4)
    assert alone.dev_loss[0] == pytest.approx(alpha_run.dev_loss[0], rel=1e-4, abs=1e-6)
    assert alone.dev_accuracy[0] == pytest.approx(alpha_run.dev_accuracy[0], abs=1 / 150)


def test_training_is_deterministic_per_seed(toy):
    cfg = [L.LinearProbeConfig(alpha=0.01, dropout=0.2)]
    a = L.train_linear_probes(cfg, *toy, seed=4, options=FAST)
    b = L.train_linear_probes(cfg, *toy, seed=4, options=FAST)
    c = L.train_linear_probes(cfg, *toy, seed=5, options=FAST)
    assert a.complexity[0] == b.complexity[0]
    assert a.complexity[0] != c.complexity[0]


def test_onehot_probe_learns_and_leaves_unseen_types_untrained():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 20, 400)  # types 20..24 never occur in training
    y = ids % 3
    dev_ids = np.arange(25)
    res = L.train_linear_probes(
        [L.LinearProbeConfig()], ids, y, dev_ids, dev_ids % 3, seed=0, onehot_dim=6, options=FAST
    )
    assert res.accuracy(ids, y)[0] == 1.0
    ((_, stack),) = res.stacks
    start = OneHotEmbedding(25, 6, n_probes=1, seed=derived_seeds(0)[0]).weight
    trained = stack.embedding.weight.detach()
    assert torch.equal(trained[0, 20:], start[0, 20:].detach())
    assert not torch.equal(trained[0, :20], start[0, :20].detach())


def test_onehot_pairs_for_dependency_labels():
    rng = np.random.default_rng(1)
    pairs = rng.integers(0, 10, size=(300, 2))
    y = (pairs[:, 0] + pairs[:, 1]) % 2
    res = L.train_linear_probes(
        [L.LinearProbeConfig(alpha=0.0)],
        pairs,
        y,
        pairs[:50],
        y[:50],
        seed=0,
        onehot_dim=8,
        options=FAST,
    )
    assert res.predict(pairs[:7]).shape == (1, 7)


@pytest.mark.parametrize(
    "kwargs, configs",
    [
        ({}, [L.LinearProbeConfig(alpha=0.1, rank=2)]),
        ({}, [L.LinearProbeConfig(alpha=-1.0)]),
        ({}, []),
        ({"onehot_dim": 4}, [L.LinearProbeConfig()]),
    ],
)
def test_linear_rejects_bad_input(toy, kwargs, configs):
    with pytest.raises(ParameterError):
        L.train_linear_probes(configs, *toy, seed=0, options=FAST, **kwargs)


def test_linear_rejects_misaligned_labels(toy):
    X, y, Xd, yd = toy
    with pytest.raises(ParameterError):
        L.train_linear_probes([L.LinearProbeConfig()], X, y[:-1], Xd, yd, seed=0)


# --------------------------------------------------------------------------------------------
# Biaffine parsing probe
# --------------------------------------------------------------------------------------------


def star_trees(m: int, seed: int, d: int = 12):
    """Toy parsing task: one 'verb' per sentence is the root and the head of every other word;
    the representation marks the verb, so the head is recoverable from word pairs."""
    rng = np.random.default_rng(seed)
    inputs, heads = [], []
    for _ in range(m):
        n = int(rng.integers(2, 9))
        verb = int(rng.integers(0, n))
        x = rng.normal(size=(n, d)).astype(np.float32) * 0.5
        x[:, 0] += 3.0
        x[verb, 0] -= 3.0
        x[verb, 1] += 3.0
        h = np.full(n, verb + 1)
        h[verb] = 0
        inputs.append(x)
        heads.append(h)
    return inputs, heads


PARSE_FAST = TrainOptions(
    batch_size=16,
    lr=0.05,
    eval_every=10,
    patience=4,
    min_delta=0.0,
    max_steps=200,
    eval_batch_size=64,
)


@pytest.fixture(scope="module")
def parse_run():
    train, dev = star_trees(150, 0), star_trees(40, 1)
    configs = [B.BiaffineConfig(alpha=a) for a in (0.0, 0.02)]
    configs.append(B.BiaffineConfig(mlp=MLPConfig(n_layers=1, hidden_size=16, dropout=0.0)))
    return BS.train_biaffine_probes(configs, *train, *dev, seed=0, options=PARSE_FAST), dev


def test_biaffine_learns_recoverable_heads(parse_run):
    res, dev = parse_run
    assert res.dev_uas[0] > 0.95 and res.dev_uas[2] > 0.95
    assert np.allclose(res.uas(*dev), res.dev_uas)


def test_biaffine_complexity(parse_run):
    res, _ = parse_run
    assert res.complexity[0] > res.complexity[1] > 0
    assert np.isnan(res.complexity[2])
    ((members, stack),) = [s for s in res.stacks if 0 in s[0]]
    U = stack.scorer.U.detach().numpy()
    assert res.complexity[0] == pytest.approx(np.linalg.svd(U[0], compute_uv=False).sum(), rel=1e-5)


def test_biaffine_scores_ignore_padding(parse_run):
    res, (inputs, _) = parse_run
    for members, stack in res.stacks:  # the linear stack and each MLP
        short, long_ = inputs[0][:3], inputs[1]
        data = BS.ParseData.build([short, np.vstack([long_, long_])])
        rows, mask = data.positions(np.arange(2))
        alone = BS.ParseData.build([short])
        with torch.no_grad():
            batched = stack(data.gather(rows), mask)
            single = stack(alone.gather(alone.positions(np.arange(1))[0]), mask[:1, :3])
        n = rows.shape[1]
        assert batched.shape == (len(members), 2, n, n + 1)
        assert torch.isinf(batched[:, 0, :, 4:]).all()  # padded head columns of the short one
        assert torch.allclose(batched[:, 0, :3, :4], single[:, 0], atol=1e-5)


def test_decode_loss_and_uas_by_hand():
    scores = torch.tensor([[[[0.0, 5.0, 1.0], [9.0, 0.0, 0.0]]]])  # P=1, B=1, n=2
    assert B.decode_heads(scores)[0, 0].tolist() == [1, 0]
    uniform = torch.zeros(1, 1, 2, 3)
    gold = torch.tensor([[2, 0]])
    assert float(B.parse_loss(uniform, gold)[0]) == pytest.approx(np.log2(3))
    pred = [np.array([2, 0]), np.array([0, 1, 1])]
    gold_ = [np.array([2, 0]), np.array([0, 3, 1])]
    assert B.uas(pred, gold_) == pytest.approx(4 / 5)
    assert B.uas(pred, gold_, average="sentence") == pytest.approx((1 + 2 / 3) / 2)


def test_biaffine_trains_on_shuffled_heads():
    # Label-shuffled parsing targets are not trees (self-heads allowed); training must cope.
    inputs, heads = star_trees(30, 2)
    shuffled = shuffle_heads(heads, seed=0)
    opts = TrainOptions(batch_size=8, lr=0.05, eval_every=5, patience=2, max_steps=20)
    res = BS.train_biaffine_probes(
        [B.BiaffineConfig()], inputs, shuffled, inputs, shuffled, seed=0, options=opts
    )
    assert np.isfinite(res.dev_loss).all() and 0 <= res.dev_uas[0] <= 1


def test_biaffine_onehot_inputs():
    rng = np.random.default_rng(3)
    inputs = [rng.integers(0, 5, size=int(rng.integers(2, 6))) for _ in range(20)]
    heads = [np.r_[0, np.ones(len(s) - 1, dtype=np.int64)] for s in inputs]
    opts = TrainOptions(batch_size=8, lr=0.05, eval_every=5, patience=2, max_steps=20)
    res = BS.train_biaffine_probes(
        [B.BiaffineConfig(alpha=0.0), B.BiaffineConfig(alpha=0.1)],
        inputs,
        heads,
        inputs,
        heads,
        seed=0,
        onehot_dim=4,
        options=opts,
    )
    assert res.complexity.shape == (2,)
    assert [p.shape for p in res.predict(inputs[:2])[1]] == [s.shape for s in inputs[:2]]


def test_biaffine_rejects_bad_heads():
    inputs, heads = star_trees(3, 0)
    heads[0] = heads[0] + 20
    with pytest.raises(ParameterError):
        BS.train_biaffine_probes([B.BiaffineConfig()], inputs, heads, inputs, heads, seed=0)
    with pytest.raises(ParameterError):
        BS.train_biaffine_probes(
            [B.BiaffineConfig(alpha=1.0, mlp=MLPConfig(1, 8, 0.0))],
            *star_trees(3, 0),
            *star_trees(3, 1),
            seed=0,
        )


def test_biaffine_stacked_gradients_are_each_probes_own():
    """What stacking guarantees: on the same minibatch, each probe of a stack gets exactly the
    loss and the gradient it would get alone (the summed loss keeps the probes apart), so one
    step of the stack is one step of each probe. Compared with a tolerance of float rounding; a
    whole training run is not compared bit for bit, because Adam amplifies rounding under the
    non-smooth nuclear-norm penalty and rounding differs between CPU families."""
    inputs, heads = star_trees(12, 0)
    data = BS.ParseData.build(inputs, heads)
    rows, mask = data.positions(np.arange(12))
    x, gold = data.gather(rows), data.gold(rows)
    mlp = MLPConfig(n_layers=2, hidden_size=8, dropout=0.0)
    for group, seeds in (
        ([B.BiaffineConfig(alpha=a) for a in (0.0, 0.02)], [0, 0]),
        ([B.BiaffineConfig(mlp=mlp)] * 3, [0, 1, 2]),  # one architecture under three seeds
    ):
        runs = [BS.ParseRun(c) for c in group]
        stacked = BS._build(runs, seeds, 12, None, 0, True, None)
        loss_stacked = B.parse_loss(stacked(x, mask), gold) + stacked.penalty()
        loss_stacked.sum().backward()
        for k, (run, seed) in enumerate(zip(runs, seeds, strict=True)):
            alone = BS._build([run], [seed], 12, None, 0, True, None)
            loss = B.parse_loss(alone(x, mask), gold) + alone.penalty()
            loss.sum().backward()
            assert float(loss.detach()[0]) == pytest.approx(
                float(loss_stacked.detach()[k]), rel=1e-5
            )
            for name, p in alone.named_parameters():
                stacked_grad = dict(stacked.named_parameters())[name].grad[k]
                torch.testing.assert_close(stacked_grad, p.grad[0], rtol=1e-4, atol=1e-6)


def test_biaffine_stacked_training_equals_alone_on_a_smooth_objective(parse_run):
    """Without the penalty (alpha = 0) the objective is smooth and a stacked training run stays
    within rounding of the same probe trained alone."""
    res, _ = parse_run
    train, dev = star_trees(150, 0), star_trees(40, 1)
    configs = [B.BiaffineConfig(alpha=0.0), B.BiaffineConfig(alpha=0.0, dropout=0.0)]
    stacked = BS.train_biaffine_probes(
        configs, *train, *dev, seed=0, options=PARSE_FAST, max_parallel=2
    )
    assert len(stacked.stacks) == 1
    for k in range(2):
        assert stacked.complexity[k] == pytest.approx(res.complexity[0], rel=1e-3)
        assert stacked.dev_loss[k] == pytest.approx(res.dev_loss[0], rel=1e-3, abs=1e-4)


def test_penalty_takes_an_svd_of_the_penalised_probes_only(monkeypatch):
    """Alpha * ||U||_* per probe, in value and gradient, whichever probes are unpenalised."""
    probes = B.LinearBiaffineProbes(6, [0.0, 0.5, 0.0, 2.0], seed=1)
    with torch.no_grad():
        probes.U.add_(torch.randn(probes.U.shape, generator=torch.Generator().manual_seed(0)))
    expected = probes.alpha * B.nuclear_norm(probes.U)
    (grad_expected,) = torch.autograd.grad(expected.sum(), probes.U)
    seen = []
    real = B.nuclear_norm
    monkeypatch.setattr(B, "nuclear_norm", lambda U: seen.append(U.shape[0]) or real(U))
    penalty = probes.penalty()
    (grad,) = torch.autograd.grad(penalty.sum(), probes.U)
    torch.testing.assert_close(penalty, expected)
    torch.testing.assert_close(grad, grad_expected)
    assert seen == [2]
    assert probes.penalty(torch.tensor([0, 2])).tolist() == [0.0, 0.0]
    assert seen == [2]
