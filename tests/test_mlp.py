"""The §3.2 MLP probe and its reference and batched trainers (probekit.probes.mlp,
probekit.probes.mlp_batched)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from probekit.errors import ParameterError
from probekit.probes import mlp_batched
from probekit.probes.mlp import (
    ProbeSpec,
    epoch_orders,
    epoch_results,
    init_params,
    loss_still_falling,
    make_probe,
    train_reference,
)
from probekit.probes.mlp_batched import train_batched

pytestmark = pytest.mark.usefixtures("one_thread")

N, M, D, C = 640, 300, 12, 4


@pytest.fixture(scope="module")
def task():
    """Two views of a synthetic separable task: Gaussian clusters, view 1 noisier."""
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(C, D)) * 3.0

    def draw(n, noise):
        y = rng.integers(0, C, n)
        return (centers[y] + noise * rng.normal(size=(n, D))).astype(np.float32), y

    (Xt0, yt), (Xe0, ye) = draw(N, 1.0), draw(M, 1.0)
    Xt = np.stack([Xt0, Xt0 + 0.8 * rng.normal(size=Xt0.shape).astype(np.float32)])
    Xe = np.stack([Xe0, Xe0 + 0.8 * rng.normal(size=Xe0.shape).astype(np.float32)])
    sub = rng.random(N) < 0.45
    ev = rng.random(M) < 0.4
    return Xt, yt, Xe, ye, sub, ev


def mixed_specs(sub, ev):
    return [
        ProbeSpec(seed=1),
        ProbeSpec(seed=2),  # same minibatches as seed 1
        ProbeSpec(seed=1, eval=ev),  # trained once with the first spec
        ProbeSpec(seed=3, order_seed=11),
        ProbeSpec(seed=4, view=1, train=sub),
        ProbeSpec(seed=5, view=1, train=np.flatnonzero(sub), order_seed=2, eval=ev),
    ]


def test_init_params_layout_bounds_and_seed():
    W1, b1, W2, b2 = init_params(10, 3, seed=7, hidden=8)
    assert W1.shape == (8, 10) and b1.shape == (8,) and W2.shape == (3, 8) and b2.shape == (3,)
    assert W1.abs().max() <= 10**-0.5 and W2.abs().max() <= 8**-0.5
    again = init_params(10, 3, seed=7, hidden=8)
    other = init_params(10, 3, seed=8, hidden=8)
    assert all(torch.equal(a, b) for a, b in zip((W1, b1, W2, b2), again, strict=True))
    assert not torch.equal(W1, other[0])
    probe = make_probe(10, 3, seed=7, hidden=8)
    assert torch.equal(probe[0].weight, W1) and torch.equal(probe[2].bias, b2)


def test_init_does_not_touch_the_global_rng():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    init_params(5, 2, seed=1)
    assert torch.equal(torch.rand(3), expected)


def test_epoch_orders_fixed_and_seeded():
    np.testing.assert_array_equal(epoch_orders(5, 2, None), [[0, 1, 2, 3, 4]] * 2)
    seeded = epoch_orders(50, 2, 3)
    assert sorted(seeded[0]) == list(range(50)) and not np.array_equal(seeded[0], seeded[1])
    np.testing.assert_array_equal(seeded, epoch_orders(50, 2, 3))
    g = torch.Generator().manual_seed(3)
    for epoch in range(2):
        np.testing.assert_array_equal(torch.randperm(50, generator=g).numpy(), seeded[epoch])


def test_reference_learns_the_fixture_task(task):
    Xt, yt, Xe, ye, _, _ = task
    r = train_reference(Xt[0], yt, Xe[0], ye, C, ProbeSpec(seed=1), epochs=3)
    assert r.acc.shape == (1, 3) and r.best_acc[0] > 0.7  # chance is 0.25
    assert (np.diff(r.acc[0]) > 0).all()
    assert r.n_updates[0] == 3 * 10  # 640 / 64 batches per epoch
    assert (r.pred_best >= 0).all()


@pytest.mark.parametrize("workers", [1, 2])
def test_batched_reproduces_reference(task, workers):
    Xt, yt, Xe, ye, sub, ev = task
    specs = mixed_specs(sub, ev)
    ckpts = (1, 2, 4, 8)
    rb = train_batched(
        Xt, yt, Xe, ye, C, specs, epochs=3, checkpoints=ckpts, record_loss=True, workers=workers
    )
    assert torch.get_num_threads() == 1  # restored after the workers ran single-threaded
    assert rb.n_trained == 5 and rb.acc.shape == (6, 3)
    for k, spec in enumerate(specs):
        rr = train_reference(Xt, yt, Xe, ye, C, spec, epochs=3, checkpoints=ckpts, record_loss=True)
        assert rb.n_updates[k] == rr.n_updates[0]
        np.testing.assert_allclose(rb.acc[k], rr.acc[0], atol=0.005)
        assert (rb.pred_best[k] == rr.pred_best[0]).mean() >= 0.99
        assert (rb.ckpt_correct_train[k] == rr.ckpt_correct_train[0]).mean() >= 0.99
        assert (rb.ckpt_correct_eval[k] == rr.ckpt_correct_eval[0]).mean() >= 0.99
        np.testing.assert_allclose(rb.ckpt_loss_train[k], rr.ckpt_loss_train[0], atol=1e-4)
        np.testing.assert_allclose(rb.loss_eval[k], rr.loss_eval[0], atol=1e-4)
        np.testing.assert_allclose(rb.loss_train[k], rr.loss_train[0], atol=1e-4)
    # Predictions outside a probe's eval subset are not made.
    assert (rb.pred_best[2][~ev] == -1).all() and (rb.pred_best[2][ev] >= 0).all()


def test_probes_are_independent_of_their_batch_mates(task):
    Xt, yt, Xe, ye, sub, ev = task
    alone = train_batched(Xt, yt, Xe, ye, C, [ProbeSpec(seed=4, view=1, train=sub)], epochs=2)
    crowd = train_batched(Xt, yt, Xe, ye, C, mixed_specs(sub, ev), epochs=2)
    np.testing.assert_allclose(crowd.acc[4], alone.acc[0], atol=0.005)


def test_grouping_shares_minibatches(task):
    Xt, yt, Xe, ye, sub, ev = task
    specs = mixed_specs(sub, ev) + [ProbeSpec(seed=9, view=1, train=sub)]
    distinct, of_spec, _, groups = mlp_batched._plan(specs, N, M, 2)
    assert len(distinct) == 6 and of_spec[2] == of_spec[0]
    sizes = sorted(len(ids) for ids in groups.values())
    assert sizes == [1, 1, 2, 2]  # {seed 1, 2}, {order 11}, {view 1 sub: seeds 4, 9}, {order 2}
    chunks = mlp_batched._chunks(
        distinct, groups, mlp_batched._chunk_width([len(v) for v in groups.values()]), 64
    )
    flat, labels, weight = mlp_batched._schedule(chunks, 2, 64, N, torch.as_tensor(yt))
    for g, chunk in enumerate(chunks):
        order = chunk.rows[epoch_orders(len(chunk.rows), 2, chunk.order_seed)].ravel()
        n_steps = 2 * chunk.steps
        real = weight[:n_steps, g] > 0
        got = (flat[:n_steps, g] - chunk.view * N)[real].numpy()
        np.testing.assert_array_equal(got, order)  # every batch, in order, no row twice
        np.testing.assert_allclose(weight[:n_steps, g].sum(1).numpy(), 1.0, rtol=1e-6)
        assert (weight[n_steps:, g] == 0).all()
        np.testing.assert_array_equal(labels[:n_steps, g][real].numpy(), yt[order])


def test_chunk_width_prefers_little_padding():
    assert mlp_batched._chunk_width([10, 10, 10]) == 10
    assert mlp_batched._chunk_width([10, 5, 5]) == 5  # 4 chunks of 5 beat 3 chunks of 10
    assert mlp_batched._chunk_width([4, 4, 2]) == 4  # tie (15 = 15): the wider
    assert mlp_batched._chunk_width([8, 1, 1, 1]) == 1


def test_manual_backward_equals_autograd():
    torch.manual_seed(0)
    G, c, h, d, Cn, B = 2, 3, 5, 7, 4, 6
    stack = mlp_batched._Stack(G, c, h, d, Cn, B)
    for g in range(G):
        for j in range(c if g == 0 else 2):  # chunk 1 has a padding slot
            stack.place(g, j, *init_params(d, Cn, seed=10 * g + j, hidden=h))
    X = torch.randn(20, d)
    rows = torch.randint(0, 20, (G, B))
    labels = torch.randint(0, Cn, (G, B))
    weight = torch.tensor([[1 / B] * B, [0.25] * 4 + [0.0] * 2])  # chunk 1: partial batch
    mlp_batched._train_step(stack, G, X, rows, labels, weight)
    for g in range(G):
        for j in range(c if g == 0 else 2):
            W1, b1, W2, b2 = (p.clone().requires_grad_() for p in init_params(d, Cn, 10 * g + j, h))
            keep = weight[g] > 0
            Z = F.relu(X[rows[g][keep]] @ W1.T + b1) @ W2.T + b2
            F.cross_entropy(Z, labels[g][keep]).backward()
            dW1, db1, dW2, db2 = stack.grads
            s = g * c + j
            torch.testing.assert_close(dW1[g, j * h : (j + 1) * h], W1.grad)
            torch.testing.assert_close(db1[g, j * h : (j + 1) * h, 0], b1.grad)
            torch.testing.assert_close(dW2[s], W2.grad)
            torch.testing.assert_close(db2[s, :, 0], b2.grad)
    assert stack.grads[2][G * c - 1].abs().sum() == 0  # the padding slot gets no gradient


def test_checkpoints_are_counted_in_updates(task):
    """The record at checkpoint u equals a probe trained on exactly the first u batches."""
    Xt, yt, Xe, ye, _, _ = task
    ckpts = (1, 2, 4, 8, 16)  # 10 batches per epoch: 16 lies in the second epoch
    rb = train_batched(Xt[0], yt, Xe[0], ye, C, [ProbeSpec(seed=3)], epochs=2, checkpoints=ckpts)
    for i, u in enumerate(ckpts[:4]):
        spec = ProbeSpec(seed=3, train=np.arange(u * 64))
        rr = train_reference(Xt[0], yt, Xe[0], ye, C, spec, epochs=1, record_loss=True)
        assert rr.n_updates[0] == u
        np.testing.assert_allclose(rb.ckpt_loss_train[0, i], rr.loss_train[0], atol=1e-5)
        np.testing.assert_allclose(rb.ckpt_loss_eval[0, i], rr.loss_eval[0], atol=1e-5)
    rr = train_reference(Xt[0], yt, Xe[0], ye, C, ProbeSpec(seed=3), epochs=2, checkpoints=ckpts)
    np.testing.assert_allclose(rb.ckpt_loss_train[0, 4], rr.ckpt_loss_train[0, 4], atol=1e-5)
    assert not np.allclose(rb.ckpt_loss_train[0, 3], rb.ckpt_loss_train[0, 4], atol=1e-3)


@pytest.mark.parametrize("workers", [1, 2])
def test_two_runs_are_identical(task, workers):
    Xt, yt, Xe, ye, sub, ev = task
    runs = [
        train_batched(
            Xt,
            yt,
            Xe,
            ye,
            C,
            mixed_specs(sub, ev),
            epochs=2,
            checkpoints=(1, 4),
            record_loss=True,
            workers=workers,
        )
        for _ in range(2)
    ]
    a, b = runs
    for name in ("acc", "pred_best", "ckpt_correct_train", "ckpt_loss_eval", "loss_train"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_input_errors(task):
    Xt, yt, Xe, ye, sub, _ = task
    with pytest.raises(ParameterError, match="view"):
        train_batched(Xt, yt, Xe, ye, C, [ProbeSpec(seed=1, view=2)], epochs=1)
    with pytest.raises(ParameterError, match="selects no example"):
        train_batched(Xt, yt, Xe, ye, C, [ProbeSpec(seed=1, train=np.zeros(N, bool))], epochs=1)
    with pytest.raises(ParameterError, match="checkpoint"):
        train_batched(Xt, yt, Xe, ye, C, [ProbeSpec(seed=1)], epochs=1, checkpoints=(64,))
    with pytest.raises(ParameterError, match="y_train"):
        train_batched(Xt, yt + C, Xe, ye, C, [ProbeSpec(seed=1)], epochs=1)
    with pytest.raises(ParameterError, match="X_eval"):
        train_batched(Xt, yt, Xe[:, :, :3], ye, C, [ProbeSpec(seed=1)], epochs=1)
    with pytest.raises(ParameterError, match="specs"):
        train_batched(Xt, yt, Xe, ye, C, [], epochs=1)
    with pytest.raises(ParameterError, match="workers"):
        train_batched(Xt, yt, Xe, ye, C, [ProbeSpec(seed=1)], epochs=1, workers=0)
    with pytest.raises(ParameterError, match="spec.view"):
        train_reference(Xt, yt, Xe, ye, C, ProbeSpec(seed=1, view=5), epochs=1)


def test_best_epoch_and_flops(task):
    Xt, yt, Xe, ye, _, _ = task
    r = train_batched(Xt[0], yt, Xe[0], ye, C, [ProbeSpec(seed=1)], epochs=3)
    assert r.best_acc[0] == r.acc[0].max() and r.acc[0, r.best_epoch[0]] == r.best_acc[0]
    expected = 30 * (4 * 64 * D * 64 + 6 * 64 * 64 * C) + 3 * M * 2 * (D * 64 + 64 * C)
    assert r.flops == pytest.approx(expected)


def test_thread_count_is_restored(task):
    Xt, yt, Xe, ye, sub, ev = task
    torch.set_num_threads(2)
    try:
        train_batched(Xt, yt, Xe, ye, C, mixed_specs(sub, ev), epochs=1)  # workers default: 2
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(1)


def test_eval_loss_matches_the_reference_and_reads_convergence(task):
    Xt, yt, Xe, ye, sub, ev = task
    specs = mixed_specs(sub, ev)
    rb = train_batched(Xt, yt, Xe, ye, C, specs, epochs=3)
    assert rb.eval_loss.shape == (len(specs), 3)
    for k, spec in enumerate(specs):
        rr = train_reference(Xt, yt, Xe, ye, C, spec, epochs=3)
        np.testing.assert_allclose(rb.eval_loss[k], rr.eval_loss[0], rtol=1e-3, atol=1e-4)
    np.testing.assert_array_equal(rb.still_falling, loss_still_falling(rb.eval_loss))


def test_loss_still_falling_means_the_last_epoch_is_the_lowest():
    loss = np.array(
        [
            [3.0, 2.0, 1.0],  # falling to the end
            [3.0, 1.0, 2.0],  # turned before the end
            [3.0, 1.0, 1.0],  # flat at the end: not lower than before
            [1.0, 2.0, 0.5],  # lowest at the end again
        ]
    )
    np.testing.assert_array_equal(loss_still_falling(loss), [True, False, False, True])
    assert loss_still_falling(np.array([[2.0], [1.0]])).all()  # one epoch: never converged
    with pytest.raises(ParameterError, match="eval_loss"):
        loss_still_falling(np.ones(3))


def test_recorded_epochs_score_any_subset_like_a_probe_trained_for_it(task):
    """Every epoch on all rows, scored after the fact on a subset, equals a probe evaluated on
    that subset while it trained: accuracy, loss, best epoch and its predictions."""
    Xt, yt, Xe, ye, sub, ev = task
    specs = [ProbeSpec(seed=1), ProbeSpec(seed=4, view=1, train=sub)]
    recorded = train_batched(Xt, yt, Xe, ye, C, specs, epochs=3, record_epochs=True)
    assert recorded.epoch_pred.shape == (2, 3, M) and recorded.epoch_loss.shape == (2, 3, M)
    for rows in (None, ev, np.flatnonzero(ev)[:7]):
        direct = train_batched(
            Xt, yt, Xe, ye, C, [ProbeSpec(s.seed, s.view, None, s.train, rows) for s in specs],
            epochs=3,
        )  # fmt: skip
        acc, pred, loss = epoch_results(recorded.epoch_pred, recorded.epoch_loss, ye, rows)
        np.testing.assert_allclose(acc, direct.acc, atol=1e-12)
        np.testing.assert_allclose(loss, direct.eval_loss, rtol=1e-5)
        np.testing.assert_array_equal(pred, direct.pred_best)
    reference = train_reference(Xt, yt, Xe, ye, C, specs[1], epochs=3, record_epochs=True)
    assert (reference.epoch_pred[0] == recorded.epoch_pred[1]).mean() >= 0.99
    with pytest.raises(ParameterError, match="epoch_pred"):
        epoch_results(recorded.epoch_pred[0], recorded.epoch_loss[0], ye, None)


def test_cross_fitted_epoch_is_chosen_on_the_other_fold():
    """With folds, each fold is scored at the epoch that is best on the other fold, never at
    its own best; a subset inside one fold keeps its own best epoch."""
    y = np.zeros(4, dtype=np.int16)
    # Rows 0-1 (fold 0) are right only at epoch 0, rows 2-3 (fold 1) only at epoch 1.
    right = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    epoch_pred = np.where(right, 0, 1).astype(np.int16)[None]  # (1, 2, 4)
    epoch_loss = np.zeros(epoch_pred.shape, np.float32)
    folds = np.array([0, 0, 1, 1])
    acc, same, _ = epoch_results(epoch_pred, epoch_loss, y, None)
    np.testing.assert_array_equal(same[0], [0, 0, 1, 1])  # its own best: epoch 0
    _, held, _ = epoch_results(epoch_pred, epoch_loss, y, None, folds)
    # Fold 0 read at epoch 1 (fold 1's best) and fold 1 at epoch 0: every row wrong.
    np.testing.assert_array_equal(held[0], [1, 1, 1, 1])
    assert (held[0] == y).mean() == 0.0 and acc.max() == 0.5
    _, inside, _ = epoch_results(epoch_pred, epoch_loss, y, np.array([2, 3]), folds)
    np.testing.assert_array_equal(inside[0], [-1, -1, 0, 0])
    with pytest.raises(ParameterError, match="folds"):
        epoch_results(epoch_pred, epoch_loss, y, None, folds[:3])


def test_recording_only_the_scored_rows_matches_recording_everything(task):
    """record_train=False scores each probe on its own evaluation rows only, with the same
    values there as a full record, and zeros elsewhere."""
    Xt, yt, Xe, ye, sub, ev = task
    specs = [ProbeSpec(seed=2, train=sub, eval=~sub[:M]), ProbeSpec(seed=3, train=~sub, eval=ev)]
    ckpts = (1, 2, 4)
    full = train_batched(Xt, yt, Xe, ye, C, specs, epochs=2, checkpoints=ckpts, record_loss=True)
    lean = train_batched(
        Xt, yt, Xe, ye, C, specs, epochs=2, checkpoints=ckpts, record_loss=True, record_train=False
    )
    assert lean.ckpt_correct_train is None and lean.loss_train is None
    assert lean.flops < full.flops
    np.testing.assert_allclose(lean.acc, full.acc, atol=1e-12)
    for k, spec in enumerate(specs):
        rows = np.flatnonzero(spec.eval)
        np.testing.assert_array_equal(
            lean.ckpt_correct_eval[k][:, rows], full.ckpt_correct_eval[k][:, rows]
        )
        np.testing.assert_allclose(lean.loss_eval[k][rows], full.loss_eval[k][rows], rtol=1e-5)
    # each chunk scores the union of its probes' rows; rows of no probe stay zero
    neither = ~(~sub[:M] | ev)
    assert (lean.loss_eval[:, neither] == 0).all() and not lean.ckpt_correct_eval[
        :, :, neither
    ].any()
