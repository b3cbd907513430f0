"""Chapter 12's random searches (Hall Maudslay et al. 2020, App. A), and how the book shows them.

The search of (rank, lr, dropout) per model and per layer group, on top of
:func:`probekit.experiments.tree_probing.training.search_by_layer`, with the tables of its
trials and of the configurations it chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.experiments.part1_probe_parser.config import ProbeParserConfig
from probekit.experiments.tree_probing.training import (
    HYPERPARAMETERS,
    KINDS,
    LABELS,
    Features,
    search_by_layer,
    search_groups,
    search_space,
    selection_rules,
)
from probekit.probes.structural import SearchSpace
from probekit.probes.structural_stack import DistanceData


def search(
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    space: SearchSpace,
    n_trials: int,
    seed: int,
    kinds: Sequence[str] = KINDS,
    threads: int | None = 1,
    selections: Mapping[str, str] | None = None,
    dev_keep: Sequence[np.ndarray] | None = None,
    **train_kwargs,
) -> tuple[dict[str, dict[str, float]], pd.DataFrame]:
    """The random search of both models on one representation: per-sentence vectors of one layer.

    :func:`~probekit.experiments.tree_probing.training.search_by_layer` on that layer alone.
    ``selections`` defaults to the paper's rule, dev loss, for every kind. Returns the chosen
    {rank, lr, dropout} per kind and the trials table (its ``layer`` column is 0).
    """
    selections = dict(selections or dict.fromkeys(kinds, "loss"))
    features = Features(
        DistanceData.build({0: train_embs}, train_heads, name="train_embs"),
        DistanceData.build({0: dev_embs}, dev_heads, dev_keep, name="dev_embs"),
    )
    configs, trials = search_by_layer(
        features,
        [0],
        space,
        n_trials,
        seed,
        {k: selections[k] for k in kinds},
        threads,
        **train_kwargs,
    )
    return {kind: by_layer[0] for kind, by_layer in configs.items()}, trials


def describe_space(space: SearchSpace) -> str:
    """The search space in one sentence, for the chapter's output."""
    return (
        f"Search space: rank one of {list(space.ranks)}; learning rate log-uniform on "
        f"[{space.lr_min:g}, {space.lr_max:g}]; dropout uniform on [0, {space.dropout_max:g}]."
    )


def trials_table(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials of a search as the book shows them.

    ``trials``: those of :func:`~probekit.experiments.tree_probing.training.search_by_layer`.
    The models by their book names
    (:data:`~probekit.experiments.tree_probing.training.LABELS`), indexed by (``model``,
    ``layer``, ``trial``) when there is a ``layer`` column, without the training seed and the
    selection rule (stated in the prose). ``dev_score`` is the selection quantity (UUAS in %).
    """
    shown = trials.assign(model=trials["kind"].map(LABELS)).drop(columns=["kind", "seed"])
    if "selection" in shown.columns:
        uuas = shown["selection"] == "uuas"
        shown["dev_score"] = np.where(uuas, 100 * shown["dev_score"], shown["dev_score"])
        shown = shown.drop(columns=["selection"])
    index = ["model", "layer", "trial"] if "layer" in shown.columns else ["model", "trial"]
    return shown.set_index(index)


@dataclass(frozen=True, eq=False)
class Tuning:
    """The random searches of chapter 12 (App. A of the paper), one per layer group.

    ``groups`` maps every trained layer to the layer it takes its configuration from
    (:func:`~probekit.experiments.tree_probing.training.search_groups`); ``configs`` the chosen
    {rank, lr, dropout} per kind and searched layer; ``trials`` every trial
    (:func:`~probekit.experiments.tree_probing.training.search_by_layer`); ``selections`` what
    each kind was selected on.
    """

    groups: dict[int, int]
    space: SearchSpace
    configs: dict[str, dict[int, dict[str, float]]]
    trials: pd.DataFrame
    selections: dict[str, str]

    @property
    def searched(self) -> list[int]:
        """The searched layers."""
        return sorted(set(self.groups.values()))

    def layer_configs(self) -> dict[str, dict[int, dict[str, float]]]:
        """{kind: {trained layer: {rank, lr, dropout}}}: each layer's group's configuration."""
        return {
            kind: {layer: by_layer[g] for layer, g in self.groups.items()}
            for kind, by_layer in self.configs.items()
        }


def tune(
    config: ProbeParserConfig,
    features: Features,
    layers: Sequence[int],
    n_layers: int,
    progress: bool = True,
) -> Tuning:
    """Chapter 12's random searches (App. A of the paper) for both models.

    One search per layer group
    (:func:`~probekit.experiments.tree_probing.training.search_groups` of
    ``config.search_every``) with ``config.n_trials`` trials and ``config.search_seed``, over
    :func:`~probekit.experiments.tree_probing.training.search_space`, each model selected by
    :func:`~probekit.experiments.tree_probing.training.selection_rules` of
    ``config.parser_selection``. ``features`` must hold every searched layer
    (:func:`~probekit.experiments.tree_probing.training.prepare_features`).
    """
    groups = search_groups(layers, n_layers, config.search_every)
    space = search_space(
        config.ranks, features.train.dim, config.lr_min, config.lr_max, config.dropout_max
    )
    selections = selection_rules(config.parser_selection)
    configs, trials = search_by_layer(
        features,
        sorted(set(groups.values())),
        space,
        config.n_trials,
        config.search_seed,
        selections,
        progress=progress,
        max_epochs=config.max_epochs,
        patience=config.patience,
        device=config.device,
    )
    return Tuning(groups, space, configs, trials, selections)


def chosen_table(tuning: Tuning) -> pd.DataFrame:
    """Each model's chosen configuration per searched layer, as the book shows it.

    Indexed by (``model``, ``searched layer``); columns ``rank``, ``lr``, ``dropout``,
    ``selected on`` and ``trained layers`` (the layers that use it).
    """
    rows = []
    for kind, by_layer in tuning.configs.items():
        for layer, chosen in sorted(by_layer.items()):
            users = [k for k, g in sorted(tuning.groups.items()) if g == layer]
            rows.append(
                {
                    "model": LABELS.get(kind, kind),
                    "searched layer": layer,
                    **{k: chosen[k] for k in HYPERPARAMETERS},
                    "selected on": f"dev {tuning.selections[kind]}".replace("uuas", "UUAS"),
                    "trained layers": ", ".join(map(str, users)),
                }
            )
    return pd.DataFrame(rows).set_index(["model", "searched layer"])
