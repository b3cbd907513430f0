"""The contextual layer Part III probes, chosen on development data.

Pimentel et al. 2020 probe BERT's last layer. Our encoder was distilled and then trained for
sentence similarity, and its last layer is not where its syntax is, so a chapter that probes
"the last layer" would measure that training objective more than the representation. Parts I and
II choose their layer on development data; Part III does the same with one cheap selection pass
(:func:`select_parsing_layer`, run by chapter 31): on every layer, one MLP parser
(:data:`SELECTION_MLP`) and one unpenalised linear parser train on a sample of the training
split with chapter 34's optimiser, every layer in one stacked call, and the layer whose MLP
parser has the best development UAS is chosen (:func:`dev_best_layer`). Test UAS is measured too,
for the figure, and never read by the choice. Chapters 32 to 34 read the chosen layer from
chapter 31's saved results (:func:`with_layer`), so the whole Part probes one layer and the
contextual leads of its tasks can be set side by side (claim III.5).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.representations import (
    SPLITS,
    Representation,
    Splits,
    contextual_representation,
    load_splits,
)
from probekit.io import embeddings
from probekit.probes import biaffine, biaffine_stack
from probekit.probes.biaffine_stack import ParseRun, ParseSet
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.threads import torch_threads
from probekit.probes.training import TrainOptions

SELECTION_MLP = MLPConfig(n_layers=1, hidden_size=256, dropout=0.2)
"""The selection pass's MLP parser, chapter 34's reference parser: one hidden layer of 256 units
per view (the size of Dozat & Manning's arc MLPs), dropout 0.2 (the best mean development UAS
among 0, 0.1, 0.2 and 0.33 over training seeds 0 to 2, on layer 3 at the book's 2,000 training
sentences: 76.5, 77.9, 78.1 and 76.0)."""


@dataclass(frozen=True, eq=False)
class LayerSelection:
    """The outcome of a selection pass.

    ``table``: one row per layer and kind of parser (columns layer, kind, dev_uas, uas (test),
    best_step, at_cap); ``layer``: the chosen layer; ``n_layers``: how many the encoder has;
    ``n_train`` and ``n_dev``: the sentences the parsers trained and were chosen on.
    """

    table: pd.DataFrame
    layer: int
    n_layers: int
    n_train: int
    n_dev: int

    def uas(self, kind: str, split: str = "test") -> pd.Series:
        """UAS by layer of one kind of parser on ``split`` ("dev" or "test")."""
        rows = self.table[self.table["kind"] == kind].set_index("layer")
        return rows["dev_uas" if split == "dev" else "uas"]


def dev_best_layer(table: pd.DataFrame, kind: str = "MLP") -> int:
    """The layer whose ``kind`` parser has the best development UAS; ties go to the lower layer.

    Reads the ``dev_uas`` column only, so the test set plays no part in the choice.
    """
    rows = table[table["kind"] == kind].sort_values("layer")
    if rows.empty:
        raise ParameterError("kind", f"no {kind} parser in the selection table")
    return int(rows["layer"].iloc[int(np.argmax(rows["dev_uas"].to_numpy()))])


def layer_selection(
    layers: Sequence[Representation],
    splits: Splits,
    *,
    seed: int,
    options: TrainOptions,
    config: MLPConfig = SELECTION_MLP,
    threads: int | None = 1,
    device: str = "cpu",
) -> LayerSelection:
    """Train one MLP and one linear parser per layer and choose the layer on dev UAS.

    ``layers``: the contextual representation at layers 0..L-1, in order. Every layer's parsers
    read the same sentences, so each kind trains as one stack over the layers
    (:func:`probekit.probes.biaffine_stack.train_parsers`, one set per layer).
    """
    heads = {k: [np.asarray(s.heads, dtype=np.int64) for s in splits[k]] for k in SPLITS}
    sets = [
        ParseSet(
            f"layer {k}", rep.sentences("train"), heads["train"], rep.sentences("dev"), heads["dev"]
        )
        for k, rep in enumerate(layers)
    ]
    kinds = {"MLP": biaffine.BiaffineConfig(mlp=config), "linear": biaffine.BiaffineConfig()}
    runs = [ParseRun(c, k) for c in kinds.values() for k in range(len(layers))]
    test = np.zeros(len(runs))
    with torch_threads(threads):
        res = biaffine_stack.train_parsers(runs, sets, seed=seed, options=options, device=device)
        for k, rep in enumerate(layers):
            on_layer = [i for i, r in enumerate(runs) if r.set == k]
            test[on_layer] = res.uas(rep.sentences("test"), heads["test"], which=on_layer)
    table = pd.DataFrame(
        {
            "layer": [r.set for r in runs],
            "kind": [kind for kind in kinds for _ in layers],
            "dev_uas": res.dev_uas,
            "uas": test,
            "best_step": res.best_step,
            "at_cap": res.at_cap,
        }
    )
    return LayerSelection(
        table, dev_best_layer(table), len(layers), len(splits.train), len(splits.dev)
    )


def select_parsing_layer(
    splits: Splits,
    *,
    model: str,
    pooling: str,
    seed: int,
    options: TrainOptions,
    device: str = "cpu",
) -> LayerSelection:
    """:func:`layer_selection` over every layer of ``model`` (embeddings from the cache)."""
    # The training split's entry is the one the representations read: a cache hit.
    n_layers = embeddings.embed(
        splits.train, model, pooling, progress=False, device=device
    ).n_layers
    reps = [
        contextual_representation(splits, model, k, pooling, device=device) for k in range(n_layers)
    ]
    return layer_selection(reps, splits, seed=seed, options=options, device=device)


CHAPTER = "31_lookup_and_toy_tasks"
"""The chapter that runs the selection pass and saves the chosen layer."""

SETTINGS = ("treebank", "model", "pooling")
"""What a chosen layer holds for: a chapter reads it only when these agree with its own."""


def run_layer_choice(config: Any) -> LayerSelection | None:
    """The selection pass of chapter 31's ``config`` (a ``LayerChoiceConfig``).

    None when the configuration gives its layer (no pass runs).
    """
    if config.layer is not None:
        return None
    splits = load_splits(config.treebank, config.n_train, config.n_dev, 0, seed=config.sample_seed)
    return select_parsing_layer(
        splits,
        model=config.model,
        pooling=config.pooling,
        seed=config.seed,
        options=config.train_options(),
        device=config.device,
    )


def layer_values(selection: LayerSelection | None, config: Any) -> dict[str, Any]:
    """What chapter 31 saves for chapters 32 to 34: the layer, what it holds for, the table.

    ``part3_layer`` (the chosen layer, or the given one without a pass), ``part3_<setting>`` for
    each of :data:`SETTINGS`, ``part3_layer_table`` (the selection table as JSON records, empty
    without a pass) and ``part3_n_layers`` (0 without a pass).
    """
    values: dict[str, Any] = {f"part3_{k}": getattr(config, k) for k in SETTINGS}
    values["part3_layer"] = config.layer if selection is None else selection.layer
    values["part3_layer_table"] = (
        "" if selection is None else selection.table.to_json(orient="records")
    )
    for key in ("n_layers", "n_train", "n_dev"):
        values[f"part3_{key}"] = 0 if selection is None else getattr(selection, key)
    return values


def selection_text(selection: LayerSelection | None, layer: int | None) -> str:
    """What the selection pass found, in a sentence (or that ``layer`` was given)."""
    if selection is None:
        return f"The layer was given ({layer}), so no selection pass ran."
    mlp, dev = selection.uas("MLP"), selection.uas("MLP", "dev")
    k, last = selection.layer, selection.n_layers - 1
    return (
        f"The pass chooses layer {k}, where its MLP parser reaches {100 * dev[k]:.1f} % "
        f"development UAS and {100 * mlp[k]:.1f} % on the test set; on the last layer ({last}) "
        f"it reaches {100 * mlp[last]:.1f} %."
    )


Config = TypeVar("Config")


def with_layer(
    config: Config, saved: Mapping[str, Any] | None
) -> tuple[Config, LayerSelection | None]:
    """A Part III chapter's configuration with its layer, and the selection pass behind it.

    A given ``config.layer`` is kept (no selection). ``None`` reads the layer chapter 31 chose
    (its saved values ``saved``, from :func:`layer_values`); it must have been chosen for the same
    treebank, model and pooling, else the error names the parameter and says what to run.
    """
    if config.layer is not None:
        return config, None
    hint = "run chapter 31 with the same treebank, model and pooling first, or give -p layer=N"
    if not saved or saved.get("part3_layer") is None:
        raise ParameterError(
            "layer", "None reads the layer chapter 31 chose, and it saved none", hint
        )
    differs = [k for k in SETTINGS if saved.get(f"part3_{k}") != getattr(config, k)]
    if differs:
        shown = ", ".join(f"{k} {saved.get(f'part3_{k}')!r}" for k in differs)
        raise ParameterError("layer", f"chapter 31 chose its layer for another {shown}", hint)
    selection = None
    if saved.get("part3_layer_table"):
        table = pd.DataFrame(json.loads(saved["part3_layer_table"]))
        counts = (int(saved[f"part3_{k}"]) for k in ("layer", "n_layers", "n_train", "n_dev"))
        selection = LayerSelection(table, *counts)
    return replace(config, layer=int(saved["part3_layer"])), selection
