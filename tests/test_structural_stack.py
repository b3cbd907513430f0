"""Tests of the stacked trainer of structural probes and perceptron parsers
(probekit.probes.structural_stack): a probe trains the same alone or in any stack, ranks are
masked, each probe stops on its own, and the parser's selection does not move when B is
rescaled while the paper's loss rule does."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit.errors import ParameterError
from probekit.probes import perceptron as P
from probekit.probes import structural as S
from probekit.probes import structural_stack as T
from probekit.probes.training import StackAdam, StackedEarlyStopping
from test_structural import synthetic_corpus


@pytest.fixture(scope="module")
def data():
    (tr_e, tr_h), (dv_e, dv_h) = synthetic_corpus(60, seed=0), synthetic_corpus(24, seed=1)
    return T.DistanceData.build({0: tr_e}, tr_h), T.DistanceData.build({0: dv_e}, dv_h)


TRIALS = [
    T.DistanceTrial(rank=2, lr=0.02, dropout=0.2, seed=3),
    T.DistanceTrial(rank=12, lr=0.005, dropout=0.0, seed=4),
    T.DistanceTrial(rank=5, lr=0.01, dropout=0.1, seed=3),
]


def _close_histories(a: T.DistanceProbeResult, b: T.DistanceProbeResult) -> None:
    assert len(a.history) == len(b.history)
    for ha, hb in zip(a.history, b.history, strict=True):
        for key in ("train_loss", "dev_loss"):
            assert ha[key] == pytest.approx(hb[key], rel=1e-4, abs=1e-6), key
        if "dev_uuas" in ha:
            assert ha["dev_uuas"] == pytest.approx(hb["dev_uuas"], abs=0.02)


@pytest.mark.parametrize("kind", ["structural", "perceptron"])
@pytest.mark.parametrize("group_ranks", [False, True])
def test_a_probe_trains_the_same_alone_or_in_a_stack(data, kind, group_ranks):
    """Mixed ranks padded and masked in one stack (or grouped by rank): every probe follows the
    trajectory it follows alone with the same minibatch order, up to rounding."""
    train, dev = data
    selection = "uuas" if kind == "perceptron" else "loss"
    kwargs = {"selection": selection, "order_seed": 5, "max_epochs": 3, "patience": 10}
    stacked = T.train_distance_probes(kind, TRIALS, train, dev, group_ranks=group_ranks, **kwargs)
    for trial, result in zip(TRIALS, stacked, strict=True):
        (alone,) = T.train_distance_probes(kind, [trial], train, dev, **kwargs)
        _close_histories(result, alone)
        assert result.probe.B.shape == (trial.rank, train.dim)
        torch.testing.assert_close(result.probe.B, alone.probe.B, rtol=1e-3, atol=1e-5)
    # The stack did train: different probes, different weights and losses.
    assert stacked[0].history[-1]["train_loss"] != stacked[2].history[-1]["train_loss"]


def test_padded_rows_are_masked_and_never_updated():
    B, mask = T.init_stack(TRIALS, d=7)
    assert B.shape == (3, 12, 7) and mask.squeeze(-1).sum(1).tolist() == [2, 12, 5]
    assert torch.all(B[0, 2:] == 0) and torch.all(B[2, 5:] == 0)
    # The first two rows of probe 0 are DistanceProbe's draw from the same seed.
    alone = S.DistanceProbe(7, 2, torch.Generator().manual_seed(3))
    torch.testing.assert_close(B[0, :2], alone.B.detach())
    # A gradient through the masked B is zero on padding, and Adam leaves those rows at 0.
    B.requires_grad_(True)
    loss = ((B * mask) ** 2).sum() + (B * mask).sum()
    (grad,) = torch.autograd.grad(loss, B)
    assert torch.all(grad[0, 2:] == 0)
    B = B.detach()
    adam = StackAdam([B], np.array([0.1, 0.2, 0.3]), n_probes=3, grads=[grad])
    for _ in range(3):
        adam.step()
    assert torch.all(B[0, 2:] == 0) and torch.all(B[2, 5:] == 0)
    assert not torch.all(B[0, :2] == alone.B.detach())


def test_dropout_drops_its_rate_and_keeps_the_mean():
    assert T.dropout_threshold(0.0) == 0 and T.dropout_threshold(0.25) == 2**14
    assert T.dropout_threshold(0.9999999) == 2**16 - 1
    x = torch.ones(1, 2000, 8)
    data = T.DistanceData(
        {0: x[0]}, np.array([0, 2000]), np.array([2000]), None, None, None, None, 0, 8
    )
    rngs = [np.random.default_rng(0), np.random.default_rng(1)]
    words = torch.arange(2000)
    out = T._dropped_inputs(data, [0], torch.tensor([0, 0]), words, [2**14, 0], rngs)
    assert out.shape == (2, 2000, 8)
    assert torch.all(out[1] == 1)  # no dropout: the vectors as they are
    dropped = float((out[0] == 0).float().mean())
    assert 0.23 < dropped < 0.27
    assert float(out[0].mean()) == pytest.approx(1.0, abs=0.03)
    assert torch.all((out[0] == 0) | torch.isclose(out[0], torch.tensor(4 / 3)))


@pytest.mark.parametrize("kind", ["structural", "perceptron"])
def test_the_hand_written_gradient_is_autograds(data, kind):
    """The training step's losses and gradient are those autograd finds through the losses of
    eqs. 2-3 / eq. 4 (padded ranks masked, input dropout, several distance chunks)."""
    train, _ = data
    B, mask = T.init_stack(TRIALS, train.dim)
    B = B + 0.3 * torch.randn(B.shape, generator=torch.Generator().manual_seed(0))
    batch = train.batch(np.arange(40))
    assert len(batch.chunks) > 1
    rngs = [np.random.default_rng(t.seed) for t in TRIALS]
    thresholds = [T.dropout_threshold(t.dropout) for t in TRIALS]
    x = T._dropped_inputs(
        train, [0], torch.zeros(3, dtype=torch.long), batch.words, thresholds, rngs
    )
    loss, grad = T.batch_loss_and_grad(kind, x, B * mask, train, batch)
    B.requires_grad_(True)
    expected = T.batch_losses(kind, x, B * mask, train, batch).mean(dim=1)
    (expected_grad,) = torch.autograd.grad(expected.sum(), B)
    torch.testing.assert_close(loss, expected.detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(grad * mask, expected_grad, rtol=1e-4, atol=1e-5)
    assert float(expected_grad.abs().max()) > 1e-3  # a gradient that can be wrong


def test_each_probe_stops_on_its_own_and_keeps_its_best_epoch(data):
    train, dev = data
    # A learning rate far too high makes the dev loss jump about, so that probe stops early; a
    # sensible one keeps improving until the cap.
    trials = [
        T.DistanceTrial(rank=12, lr=3.0, dropout=0.0, seed=1),
        T.DistanceTrial(rank=12, lr=0.01, dropout=0.0, seed=2),
    ]
    wild, steady = T.train_distance_probes(
        "structural", trials, train, dev, order_seed=0, max_epochs=12, patience=2
    )
    assert not wild.stopped_at_cap and wild.epochs == wild.best_epoch + 3 < 12
    assert steady.stopped_at_cap and steady.epochs == 12
    # Alone, the wild probe stops at the same epoch: the other probe does not keep it going.
    (alone,) = T.train_distance_probes(
        "structural", trials[:1], train, dev, max_epochs=12, patience=2
    )
    assert alone.epochs == wild.epochs and alone.best_epoch == wild.best_epoch
    # The returned weights are those of the best epoch.
    for result in (wild, steady):
        scores = T.evaluate_stack("structural", result.probe.B.detach()[None], [0], dev, False)
        assert scores.loss[0] == pytest.approx(result.best_dev_loss, rel=1e-4)
        assert result.best_dev_loss == min(h["dev_loss"] for h in result.history)


def test_bad_settings_are_refused_before_any_work(data):
    train, dev = data
    trial = TRIALS[0]
    for kwargs, name in (
        ({"selection": "margin"}, "selection"),
        ({"kind": "depth"}, "kind"),
        ({"max_epochs": 0}, "max_epochs"),
        ({"patience": 0}, "patience"),
        ({"min_delta": -1.0}, "min_delta"),
        ({"trials": [T.DistanceTrial(0, 0.01, 0.0, 1)]}, "rank"),
        ({"trials": [T.DistanceTrial(2, 0.01, 1.0, 1)]}, "dropout"),
        ({"trials": [T.DistanceTrial(2, 0.01, 0.0, 1, source=9)]}, "source"),
        ({"trials": []}, "trials"),
    ):
        args = {"kind": "structural", "trials": [trial], "train": train, "dev": dev} | kwargs
        with pytest.raises(ParameterError) as info:
            T.train_distance_probes(**args)
        assert info.value.name == name


# --------------------------------------------------------------------------------------------
# Selection: the parser's UUAS rule against the paper's loss rule under rescaling B


def _candidates(data):
    """Two parser candidates: a trained one, and a worse one scaled so that its loss lies
    between the trained one's loss and twice that loss."""
    train, dev = data
    (trained,) = T.train_distance_probes(
        "perceptron",
        [T.DistanceTrial(rank=12, lr=0.01, dropout=0.0, seed=0)],
        train,
        dev,
        selection="uuas",
        max_epochs=4,
    )
    good = trained.probe.B.detach()
    noisy = good + 0.3 * torch.randn(good.shape, generator=torch.Generator().manual_seed(1))
    scores = T.evaluate_stack("perceptron", torch.stack([good, noisy]), [0, 0], dev, True)
    assert scores.uuas[0] > scores.uuas[1]
    worse = noisy * float(1.5 * scores.loss[0] / scores.loss[1])
    return good, worse


def test_the_perceptron_loss_scales_with_B_and_its_trees_do_not(data):
    _, dev = data
    good, _ = _candidates(data)
    scores = T.evaluate_stack("perceptron", torch.stack([good, 2 * good]), [0, 0], dev, True)
    assert scores.loss[1] == pytest.approx(2 * scores.loss[0], rel=1e-4)
    assert scores.uuas[1] == pytest.approx(scores.uuas[0], abs=1e-9)


def _choice(stack: torch.Tensor, dev, selection: str) -> int:
    scores = T.evaluate_stack("perceptron", stack, [0] * len(stack), dev, True)
    return int(np.argmax(T.selection_score(scores, selection)))


def test_parser_selection_is_invariant_to_rescaling_B_under_uuas_not_under_loss(data):
    """The same choice for B and 2B under the UUAS rule; the loss rule flips."""
    _, dev = data
    good, worse = _candidates(data)
    assert _choice(torch.stack([good, worse]), dev, "uuas") == 0
    assert _choice(torch.stack([2 * good, worse]), dev, "uuas") == 0
    assert _choice(torch.stack([good, worse]), dev, "loss") == 0
    assert _choice(torch.stack([2 * good, worse]), dev, "loss") == 1
    # The search's choice (best_trial) reads the same scores.
    for rule, expected in (("uuas", [0, 0]), ("loss", [0, 1])):
        picked = []
        for first in (good, 2 * good):
            scores = T.evaluate_stack("perceptron", torch.stack([first, worse]), [0, 0], dev, True)
            best = scores.loss if rule == "loss" else scores.uuas
            results = [
                T.DistanceProbeResult(None, "perceptron", {}, rule, float(b), 0.0, 0, False)
                for b in best
            ]
            picked.append(T.best_trial(results))
        assert picked == expected, rule


def test_parser_early_stopping_epoch_is_invariant_to_rescaling_B_under_uuas(data):
    """Checkpoints of a run, in order: the worse weights, then the good ones; a run that
    also rescaled its weights by 2 at the second checkpoint keeps the same best epoch under
    UUAS and not under the loss rule."""
    _, dev = data
    good, worse = _candidates(data)
    for rule, same in (("uuas", True), ("loss", False)):
        best = []
        for second in (good, 2 * good):
            stopper = StackedEarlyStopping({"B": torch.zeros(1, *good.shape)}, 1, 5, 0.0)
            for epoch, B in enumerate((worse, second)):
                scores = T.evaluate_stack("perceptron", B[None], [0], dev, True)
                stopper.update(-T.selection_score(scores, rule), epoch)
            best.append(int(stopper.best_step[0]))
        assert (best[0] == best[1]) == same, (rule, best)
        assert best[0] == 1


def test_perceptron_loss_over_a_probe_axis_is_the_loss_of_each_probe():
    g = torch.Generator().manual_seed(0)
    h = torch.randn(3, 6, 4, generator=g)
    lengths = torch.tensor([6, 4, 2])
    heads = [np.array([2, 0, 2, 3, 4, 4]), np.array([0, 1, 1, 3]), np.array([0, 1])]
    gold = np.zeros((3, 6, 6), bool)
    for b, hh in enumerate(heads):
        gold[b, : hh.size, : hh.size] = P.gold_edge_mask(hh)
    gold = torch.from_numpy(gold)
    Bs = torch.randn(2, 3, 4, generator=g)
    sq = torch.stack([S.squared_distances(h, B) for B in Bs])
    stacked = P.perceptron_loss(sq, gold, lengths)
    assert stacked.shape == (2, 3)
    for p in range(2):
        torch.testing.assert_close(stacked[p], P.perceptron_loss(sq[p], gold, lengths))
