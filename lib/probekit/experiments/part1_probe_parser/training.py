"""Training the structural probe and the perceptron parser (Hall Maudslay et al. 2020).

§3-4 and App. A of the paper: the random search of (rank, lr, dropout) per model and the layer
it tunes on, training both on every layer and seed, and their per-sentence test scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.config import ProbeParserConfig
from probekit.probes.structural import (
    DistanceProbe,
    SearchSpace,
    predict_distances,
    random_search,
    train_distance_probe,
)
from probekit.probes.threads import torch_threads
from probekit.representations.layers import layer_vectors, middle_layer, resolve_layer
from probekit.trees.evaluation import EvalSet, corpus_scores, score_distances

KINDS = ("structural", "perceptron")
# Names used in the book's tables, figures and verdicts.
LABELS = {"structural": "probe", "perceptron": "parser"}


def search_space(
    ranks: Sequence[int], d: int, lr_min: float, lr_max: float, dropout_max: float
) -> SearchSpace:
    """The random-search space (Hall Maudslay et al. 2020, App. A) for input dimension ``d``.

    ``ranks`` lists the rank choices; 0 means full rank (d), larger values are capped at d.
    """
    if not ranks:
        raise ParameterError("ranks", "needs at least one rank", "e.g. [32, 64, 0]")
    if any(r < 0 for r in ranks):
        raise ParameterError("ranks", f"ranks must be >= 0 (0 means full rank), got {ranks}")
    choices = tuple(sorted({d if r == 0 else min(int(r), d) for r in ranks}))
    return SearchSpace(
        ranks=choices, lr_min=lr_min, lr_max=lr_max, dropout_min=0.0, dropout_max=dropout_max
    )


def search(
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    space: SearchSpace,
    n_trials: int,
    seed: int,
    kinds: Sequence[str] = KINDS,
    threads: int = 1,
    **train_kwargs,
) -> tuple[dict[str, dict[str, float]], pd.DataFrame]:
    """Random search of (rank, lr, dropout) by dev loss for each kind (App. A of the paper).

    Both kinds draw the same ``n_trials`` configurations (same ``seed``), so they get the same
    chances. Returns the chosen {rank, lr, dropout} per kind and a table of every trial
    (``kind``, ``trial``, ``rank``, ``lr``, ``dropout``, ``seed``, ``dev_loss``, ``epochs``,
    ``chosen``). Inputs as :func:`probekit.probes.structural.random_search`.
    """
    configs, rows = {}, []
    with torch_threads(threads):
        for kind in kinds:
            result = random_search(
                kind,
                train_embs,
                train_heads,
                dev_embs,
                dev_heads,
                space,
                n_trials=n_trials,
                seed=seed,
                **train_kwargs,
            )
            best = result.best.config
            configs[kind] = {k: best[k] for k in ("rank", "lr", "dropout")}
            for t, trial in enumerate(result.trials):
                chosen = all(trial[k] == best[k] for k in ("rank", "lr", "dropout", "seed"))
                rows.append({"kind": kind, "trial": t, **trial, "chosen": chosen})
    return configs, pd.DataFrame(rows)


def tuning_layer(search_layer: int | None, n_layers: int) -> int:
    """The layer the random search tunes on.

    ``search_layer`` (negative counts from the last layer) or, with None, the middle layer
    (:func:`probekit.representations.layers.middle_layer`).
    """
    if search_layer is None:
        return middle_layer(n_layers)
    return resolve_layer(search_layer, n_layers, "search_layer")


def describe_space(space: SearchSpace) -> str:
    """The search space in one sentence, for the chapter's output."""
    return (
        f"Search space: rank one of {list(space.ranks)}; learning rate log-uniform on "
        f"[{space.lr_min:g}, {space.lr_max:g}]; dropout uniform on [0, {space.dropout_max:g}]."
    )


def trials_table(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials of :func:`search` as the book shows them.

    The models by their book names (:data:`LABELS`), indexed by (``model``, ``trial``), without
    the training seed.
    """
    shown = trials.assign(model=trials["kind"].map(LABELS)).drop(columns=["kind", "seed"])
    return shown.set_index(["model", "trial"])


@dataclass(frozen=True, eq=False)
class Tuning:
    """The random search of chapter 12 (App. A of the paper).

    The ``layer`` it tuned on, its ``space``, the chosen {rank, lr, dropout} per kind
    (``configs``) and every trial (``trials``, as :func:`search` returns them).
    """

    layer: int
    space: SearchSpace
    configs: dict[str, dict[str, float]]
    trials: pd.DataFrame


def tune(
    config: ProbeParserConfig, embs: Mapping[str, object], gold: Mapping[str, EvalSet]
) -> Tuning:
    """Chapter 12's random search (App. A of the paper) for both models.

    Both models draw the same ``config.n_trials`` configurations (:func:`search` with
    ``config.search_seed``) from :func:`search_space`, trained on the train split and judged by
    dev loss on the layer of :func:`tuning_layer`. ``embs`` and ``gold`` map "train" and "dev"
    to the embeddings and gold trees of
    :func:`~probekit.experiments.part1_probe_parser.samples.load_samples`.
    """
    train, dev = embs["train"], embs["dev"]
    layer = tuning_layer(config.search_layer, train.n_layers)
    space = search_space(config.ranks, train.dim, config.lr_min, config.lr_max, config.dropout_max)
    configs, trials = search(
        layer_vectors(train, layer),
        gold["train"].heads,
        layer_vectors(dev, layer),
        gold["dev"].heads,
        space,
        config.n_trials,
        config.search_seed,
        max_epochs=config.max_epochs,
        patience=config.patience,
    )
    return Tuning(layer, space, configs, trials)


def train_layers(
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev: EvalSet,
    configs: Mapping[str, Mapping[str, float]],
    layers: Sequence[int],
    seeds: Sequence[int],
    threads: int = 1,
    **train_kwargs,
) -> tuple[pd.DataFrame, dict[tuple[str, int, int], DistanceProbe]]:
    """Train every kind of ``configs`` on every layer and seed; score each on the dev set.

    Hall Maudslay et al. 2020, §3–4: both models get the same representations (layer by layer,
    extending the paper's final-layer study), each with its own searched {rank, lr, dropout}.
    ``train_kwargs`` go to :func:`probekit.probes.structural.train_distance_probe` (e.g.
    ``max_epochs``, ``patience``). Returns a table with one row per (kind, layer, seed):
    ``epochs``, ``best_epoch``, ``dev_loss`` and the
    :func:`~probekit.trees.evaluation.corpus_scores` on ``dev``; and the trained probes keyed
    by (kind, layer, seed).
    """
    rows, probes = [], {}
    with torch_threads(threads):
        for layer in layers:
            x_train, x_dev = layer_vectors(train_emb, layer), layer_vectors(dev_emb, layer)
            for kind, config in configs.items():
                for seed in seeds:
                    result = train_distance_probe(
                        kind,
                        x_train,
                        train_heads,
                        x_dev,
                        dev.heads,
                        rank=int(config["rank"]),
                        lr=float(config["lr"]),
                        dropout=float(config["dropout"]),
                        seed=seed,
                        **train_kwargs,
                    )
                    scores = corpus_scores(
                        score_distances(predict_distances(result.probe, x_dev), dev)
                    )
                    rows.append(
                        {
                            "kind": kind,
                            "layer": layer,
                            "seed": seed,
                            "epochs": len(result.history),
                            "best_epoch": result.best_epoch,
                            "dev_loss": result.best_dev_loss,
                            **scores,
                        }
                    )
                    probes[(kind, layer, seed)] = result.probe
    return pd.DataFrame(rows), probes


def per_sentence_scores(
    probes: Mapping[tuple[str, int, int], DistanceProbe], test_emb, test: EvalSet, layer: int
) -> pd.DataFrame:
    """Test scores of every probe trained on ``layer``, stacked.

    :func:`~probekit.trees.evaluation.score_distances` on the ``test`` trees: one row per
    (kind, seed, sentence) with a ``sentence`` index column. ``probes``: as
    :func:`train_layers` returns them.
    """
    chosen = {(kind, seed): p for (kind, lay, seed), p in probes.items() if lay == layer}
    if not chosen:
        raise ParameterError("layer", f"no probe was trained on layer {layer}")
    x_test = layer_vectors(test_emb, layer)
    frames = []
    for (kind, seed), probe in chosen.items():
        df = score_distances(predict_distances(probe, x_test), test)
        frames.append(df.assign(kind=kind, seed=seed, sentence=np.arange(len(df))))
    return pd.concat(frames, ignore_index=True)
