"""Part III's layer choice: one selection pass over the layers, decided on development UAS."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto import layer_choice
from probekit.experiments.part3_pareto.representations import Representation, Splits
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions

pytestmark = pytest.mark.usefixtures("one_thread")


def test_the_layer_is_chosen_on_dev_never_on_test():
    table = pd.DataFrame(
        {
            "layer": [0, 1, 2, 0, 1, 2],
            "kind": ["MLP"] * 3 + ["linear"] * 3,
            "dev_uas": [0.50, 0.70, 0.60, 0.90, 0.10, 0.10],
            "uas": [0.95, 0.60, 0.99, 0.10, 0.10, 0.10],
        }
    )
    assert layer_choice.dev_best_layer(table) == 1  # test UAS would say 2, the linear parser 0
    assert layer_choice.dev_best_layer(table, "linear") == 0
    tied = table.assign(dev_uas=[0.7, 0.7, 0.6, 0.1, 0.1, 0.1])
    assert layer_choice.dev_best_layer(tied) == 0
    with pytest.raises(ParameterError, match="kind"):
        layer_choice.dev_best_layer(table, "rnn")


def _sentences(n: int, rng: np.random.Generator) -> list[SimpleNamespace]:
    out = []
    for _ in range(n):
        length = int(rng.integers(3, 7))
        heads = np.zeros(length, dtype=np.int64)
        root = int(rng.integers(length))
        for j in range(length):
            if j != root:
                heads[j] = int(rng.choice([i for i in range(length) if i != j])) + 1
        out.append(SimpleNamespace(heads=heads))
    return out


def _layers(splits: Splits, noise: list[float], seed: int) -> list[Representation]:
    """Word j of a sentence: a code of its position and a code of its head's position, blurred
    by each layer's noise; the least noisy layer is the one that knows the heads."""
    rng = np.random.default_rng(seed)
    codes = rng.normal(size=(8, 8))
    reps = []
    for k, sigma in enumerate(noise):
        words, offsets = {}, {}
        for split in ("train", "dev", "test"):
            rows = []
            for s in splits[split]:
                for j, h in enumerate(s.heads):
                    head_code = codes[h - 1] if h else np.zeros(8)
                    rows.append(np.concatenate([codes[j], head_code]))
            x = np.asarray(rows, dtype=np.float32)
            words[split] = x + sigma * rng.normal(size=x.shape).astype(np.float32)
            lengths = [len(s.heads) for s in splits[split]]
            offsets[split] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        reps.append(Representation("contextual", f"layer {k}", words, offsets))
    return reps


def test_the_selection_pass_picks_the_layer_that_knows_the_heads():
    rng = np.random.default_rng(0)
    splits = Splits(_sentences(80, rng), _sentences(30, rng), _sentences(30, rng))
    layers = _layers(splits, noise=[3.0, 0.1, 3.0, 3.0], seed=1)
    options = TrainOptions(
        batch_size=8, lr=0.01, eval_every=10, patience=3, max_steps=400, schedule="plateau",
        eval_batch_size=64,
    )  # fmt: skip
    selection = layer_choice.layer_selection(
        layers, splits, seed=0, options=options, config=MLPConfig(1, 16, 0.0)
    )
    assert selection.layer == 1
    assert selection.n_layers == 4
    assert sorted(selection.table["kind"].unique()) == ["MLP", "linear"]
    mlp = selection.uas("MLP", "dev")
    assert mlp[1] > mlp.drop(1).max() + 0.2
    assert selection.uas("MLP").index.tolist() == [0, 1, 2, 3]


def _selection() -> layer_choice.LayerSelection:
    table = pd.DataFrame(
        {"layer": [0, 1, 0, 1], "kind": ["MLP", "MLP", "linear", "linear"],
         "dev_uas": [0.5, 0.7, 0.4, 0.6], "uas": [0.52, 0.69, 0.41, 0.58],
         "best_step": [10, 20, 10, 20], "at_cap": [False] * 4}
    )  # fmt: skip
    return layer_choice.LayerSelection(table, 1, 2, 80, 30)


@dataclass(frozen=True)
class _Config:
    treebank: str = "UD_English-EWT"
    model: str = "default"
    pooling: str = "mean"
    layer: int | None = None


def _config(**changes):
    return _Config(**changes)


def test_chapters_read_the_layer_chapter_31_chose_for_their_set_up():
    saved = layer_choice.layer_values(_selection(), _config())
    config, selection = layer_choice.with_layer(_config(), saved)
    assert config.layer == 1
    assert selection.layer == 1 and (selection.n_layers, selection.n_train) == (2, 80)
    pd.testing.assert_frame_equal(selection.table, _selection().table)
    # A given layer needs no pass and reads nothing.
    given, none = layer_choice.with_layer(_config(layer=-1), None)
    assert given.layer == -1 and none is None
    with pytest.raises(ParameterError, match="saved none") as info:
        layer_choice.with_layer(_config(), None)
    assert info.value.name == "layer"
    with pytest.raises(ParameterError, match="another pooling 'mean'"):
        layer_choice.with_layer(_config(pooling="first"), saved)


def test_the_selection_text_says_what_was_chosen_or_that_the_layer_was_given():
    assert layer_choice.selection_text(_selection(), None) == (
        "The pass chooses layer 1, where its MLP parser reaches 70.0 % development UAS and "
        "69.0 % on the test set; on the last layer (1) it reaches 69.0 %."
    )
    assert layer_choice.selection_text(None, 4) == (
        "The layer was given (4), so no selection pass ran."
    )
