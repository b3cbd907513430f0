"""Tests for the stacked parser trainer (Pimentel et al. 2020, §7.2): a probe trains the same
alone or stacked with other configs, controls and seeds; each stops on its own criterion or
its set's cap; the cached sentences pad and gather as the sentences say."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from probekit.errors import ParameterError
from probekit.methods.pareto.controls import shuffle_heads
from probekit.probes import biaffine as B
from probekit.probes import biaffine_stack as BS
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions
from test_linear_biaffine import star_trees

pytestmark = pytest.mark.usefixtures("one_thread")

OPTS = TrainOptions(batch_size=16, lr=0.01, eval_every=5, patience=3, max_steps=60)


@pytest.fixture(scope="module")
def sets():
    (x, h), dev = star_trees(80, 0), star_trees(30, 1)
    y = shuffle_heads(h, seed=0)
    return [BS.ParseSet("normal", x, h, *dev), BS.ParseSet("label_shuffled", x, y, x, y)]


def test_parse_data_pads_and_gathers_the_sentences():
    x = [np.full((n, 2), float(n), dtype=np.float32) for n in (3, 1, 2)]
    h = [np.array([0, 1, 1]), np.array([0]), np.array([2, 0])]
    data = BS.ParseData.build(x, h)
    rows, mask = data.positions(np.array([2, 0]))
    assert mask.tolist() == [[True, True, False], [True, True, True]]
    assert data.gather(rows)[:, :, 0].tolist() == [[2, 2, 0], [3, 3, 3]]  # padding reads zeros
    assert data.gold(rows).tolist() == [[2, 0, -1], [0, 1, 1]]
    assert [b.tolist() for b in data.eval_batches(2)] == [[1, 2], [0]]  # sorted by length


def test_dropout_masks_depend_on_the_probe_alone():
    ones = torch.ones(1, 50, 40)
    both = BS.DropoutStreams([0.3, 0.0, 0.5], [0, 0, 1], [7, 8])
    out = both(ones, np.arange(3))
    alone = BS.DropoutStreams([0.3], [0], [7])(ones, np.arange(1))
    torch.testing.assert_close(out[0], alone[0])
    assert torch.equal(out[1], ones[0])  # rate 0: nothing dropped
    for p, rate in ((0, 0.3), (2, 0.5)):
        dropped = float((out[p] == 0).float().mean())
        assert dropped == pytest.approx(rate, abs=0.05)
        assert float(out[p].mean()) == pytest.approx(1.0, abs=0.1)  # inverted: expectation kept
    # A stream draws only for its probes that drop units: a rate-0 probe leaves it untouched.
    quiet = BS.DropoutStreams([0.0, 0.3], [0, 1], [7, 9])
    quiet(ones, np.arange(2))
    assert quiet.generators[0].bit_generator.random_raw() == np.random.SFC64(7).random_raw()


def test_stacked_runs_train_as_each_alone(sets):
    """Configs of one shape, the gold heads and a control, and a second seed in one stack: each
    run ends where it ends alone, within float rounding. Dropout is on, so the masks must be
    each probe's own."""
    mlp = B.BiaffineConfig(mlp=MLPConfig(n_layers=2, hidden_size=8, dropout=0.2))
    other = B.BiaffineConfig(mlp=MLPConfig(n_layers=2, hidden_size=8, dropout=0.4))
    runs = [
        BS.ParseRun(mlp, 0),
        BS.ParseRun(other, 0),
        BS.ParseRun(mlp, 1),
        BS.ParseRun(mlp, 0, seed=5),
    ]
    stacked = BS.train_parsers(runs, sets, seed=0, options=OPTS)
    assert len(stacked.stacks) == 1
    for k, run in enumerate(runs):
        alone = BS.train_parsers([run], sets, seed=0, options=OPTS)
        assert alone.best_step[0] == stacked.best_step[k]
        assert alone.dev_loss[0] == pytest.approx(stacked.dev_loss[k], rel=1e-3, abs=1e-4)
        assert alone.dev_uas[0] == pytest.approx(stacked.dev_uas[k], abs=0.01)
    # The runs really are different probes (seed, set and dropout matter) ...
    assert len({round(float(v), 4) for v in stacked.dev_loss}) == len(runs)
    # ... and they do not all stop together, so stopped probes left the stack mid-run.
    assert len(set(stacked.best_step.tolist())) > 1


def test_linear_stacks_split_by_max_parallel(sets):
    runs = [BS.ParseRun(B.BiaffineConfig(alpha=a)) for a in (0.0, 0.01, 0.1)]
    one = BS.train_parsers(runs, sets[:1], seed=0, options=OPTS)
    split = BS.train_parsers(runs, sets[:1], seed=0, options=OPTS, max_parallel=1)
    assert len(one.stacks) == 1 and len(split.stacks) == 3
    np.testing.assert_allclose(one.init_complexity, B.INIT_NUCLEAR_NORM, rtol=1e-4)
    assert one.dev_loss[0] == pytest.approx(split.dev_loss[0], rel=1e-3, abs=1e-4)


def test_a_set_caps_its_own_runs(sets):
    """A control capped below the other runs stops at its cap (rounded up to the next check) and
    counts as ended at its cap; the uncapped control in its stack (memorising, so still gaining
    past that cap) trains on."""
    capped = [sets[1], replace(sets[1], max_steps=7)]
    mlp = B.BiaffineConfig(mlp=MLPConfig(n_layers=1, hidden_size=8, dropout=0.0))
    slow = replace(OPTS, lr=0.002, patience=100, max_steps=30)
    res = BS.train_parsers([BS.ParseRun(mlp, 0), BS.ParseRun(mlp, 1)], capped, seed=0, options=slow)
    assert res.at_cap.all()  # patience 100: neither could stop on its own
    assert res.best_step[1] <= 10 and res.best_step[0] > 10


def test_selection_follows_the_criterion_it_is_given(sets):
    """With select_on='uas' the restored state is the best dev UAS seen; with 'loss' the best
    dev loss. Each run's reported score is its own set's (dev for gold heads, the shuffled
    training heads for the control)."""
    mlp = B.BiaffineConfig(mlp=MLPConfig(n_layers=1, hidden_size=8, dropout=0.0))
    runs = [BS.ParseRun(mlp, 0), BS.ParseRun(mlp, 1)]
    seen = []
    original = BS.StackedEarlyStopping.update

    def spy(self, criterion, step):
        seen.append(criterion.copy())
        original(self, criterion, step)

    for select_on in ("uas", "loss"):
        seen.clear()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(BS.StackedEarlyStopping, "update", spy)
            res = BS.train_parsers(runs, sets, seed=0, options=OPTS, select_on=select_on)
        history = np.stack(seen)  # (checks, P), inf once a run has stopped
        reported = 1 - res.dev_uas if select_on == "uas" else res.dev_loss
        delta = B.UAS_MIN_DELTA if select_on == "uas" else OPTS.min_delta
        for k in range(len(runs)):
            # The restored state is one the criterion saw, and within min_delta of its best.
            assert np.isclose(history[:, k], reported[k], rtol=1e-4, atol=1e-6).any()
            assert reported[k] <= history[:, k].min() + delta + 1e-6
    for k, s in enumerate(sets):
        own = res.uas(s.stop_inputs, s.stop_heads, which=[k])[0]
        assert own == pytest.approx(res.dev_uas[k], abs=1e-9)


def test_train_parsers_rejects_bad_sets(sets):
    run = [BS.ParseRun(B.BiaffineConfig())]
    other = BS.ParseSet("fewer", sets[0].inputs[:5], sets[0].heads[:5], *star_trees(3, 2))
    with pytest.raises(ParameterError, match="sets"):
        BS.train_parsers(run, [sets[0], other], seed=0, options=OPTS)
    with pytest.raises(ParameterError, match="max_steps"):
        BS.train_parsers(run, [replace(sets[0], max_steps=0)], seed=0, options=OPTS)
    with pytest.raises(ParameterError, match="runs"):
        BS.train_parsers([BS.ParseRun(B.BiaffineConfig(), 3)], sets, seed=0, options=OPTS)
    with pytest.raises(ParameterError, match="max_parallel"):
        BS.train_parsers(run, sets, seed=0, options=OPTS, max_parallel=0)
