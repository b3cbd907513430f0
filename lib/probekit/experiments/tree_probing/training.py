"""Training the structural probe and the perceptron parser (Hall Maudslay et al. 2020).

§3-4 and App. A of the paper: the random search of (rank, lr, dropout) per model and per layer
group, training both on every layer and seed, and their per-sentence test scores; chapters 12
and 22 both train this way. Every search and every set of seeds is one stack
(:func:`probekit.probes.structural_stack.train_distance_probes`).

Tuning parity. Both models draw the same configurations (same budget), on the same layers, and
each is early-stopped and selected on its own yardstick (:func:`selection_rules`): the
structural probe on its dev loss (eqs. 2-3, the paper's rule: the probe fits distances, so its
loss is a fair measure of fit), the parser on its dev UUAS by default, because eq. 4 has no
margin: its loss scales with B and falls when the distances shrink while the trees stay the
same. ``parser_selection="loss"`` restores the paper's rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.deviations import MAX_CAP_SHARE, cap_share
from probekit.probes.structural import DistanceProbe, SearchSpace, predict_distances, sample_trials
from probekit.probes.structural_stack import (
    SELECTIONS,
    DistanceData,
    DistanceTrial,
    best_trial,
    train_distance_probes,
    trial_record,
)
from probekit.probes.threads import torch_threads
from probekit.representations.layers import layer_vectors
from probekit.trees.evaluation import EvalSet, corpus_scores, score_distances

KINDS = ("structural", "perceptron")
# Names used in the book's tables, figures and verdicts.
LABELS = {"structural": "probe", "perceptron": "parser"}
HYPERPARAMETERS = ("rank", "lr", "dropout")


def selection_rules(parser_selection: str) -> dict[str, str]:
    """What each model is early-stopped and selected on: {kind: "loss" or "uuas"}.

    The structural probe always on its dev loss (the paper's rule, scale-aware and fair for a
    model that fits distances); the parser on ``parser_selection``.
    """
    if parser_selection not in SELECTIONS:
        raise ParameterError(
            "parser_selection", f"must be one of {SELECTIONS}, got {parser_selection!r}"
        )
    return {"structural": "loss", "perceptron": parser_selection}


def selection_phrase(selection: str) -> str:
    """A selection rule in words, for the prose ("its dev loss" or "its dev UUAS")."""
    if selection not in SELECTIONS:
        raise ParameterError("selection", f"must be one of {SELECTIONS}, got {selection!r}")
    return "its dev loss" if selection == "loss" else "its dev UUAS"


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


def search_groups(layers: Sequence[int], n_layers: int, search_every: int) -> dict[int, int]:
    """The layer whose search each trained layer takes its configuration from.

    Hall Maudslay & Cotterell 2021 (App. B) search at every fourth layer of a 24-layer encoder.
    The searched layers are 0, k, 2k, ... and the last (k = ``search_every``; for 7 layers and
    k = 3: 0, 3, 6), and each of ``layers`` maps to the nearest one (ties: the lower). Only
    searched layers some trained layer maps to are returned as values; k = 1 searches every
    trained layer.
    """
    if search_every < 1:
        raise ParameterError("search_every", f"must be >= 1, got {search_every}")
    if not layers:
        raise ParameterError("layers", "needs at least one layer")
    grid = sorted(set(range(0, n_layers, search_every)) | {n_layers - 1})
    return {int(k): min(grid, key=lambda g: (abs(g - k), g)) for k in layers}


def layer_data(emb, heads: Sequence[np.ndarray], layers: Sequence[int], keep=None) -> DistanceData:
    """The :class:`~probekit.probes.structural_stack.DistanceData` of ``layers`` of ``emb``.

    One feature set per layer (keys: the layer indices), built once and shared by every stack.
    ``keep``: optional per-sentence masks of the words UUAS counts.
    """
    return DistanceData.build(
        {int(k): layer_vectors(emb, int(k)) for k in sorted(set(layers))}, heads, keep
    )


@dataclass(frozen=True, eq=False)
class Features:
    """The train and dev splits as :class:`~probekit.probes.structural_stack.DistanceData`.

    Every layer either split is trained or searched on, built once (:func:`prepare_features`).
    """

    train: DistanceData
    dev: DistanceData


def prepare_features(
    embs: Mapping[str, object], gold: Mapping[str, EvalSet], layers: Sequence[int]
) -> Features:
    """:class:`Features` of ``layers`` from the "train" and "dev" embeddings and gold trees.

    The dev split keeps the UUAS word masks of its :class:`~probekit.trees.evaluation.EvalSet`
    (punctuation left out when the chapter says so), so that a model selected on dev UUAS is
    selected on the UUAS the chapter reports.
    """
    return Features(
        layer_data(embs["train"], gold["train"].heads, layers),
        layer_data(embs["dev"], gold["dev"].heads, layers, gold["dev"].keep),
    )


def search_by_layer(
    features: Features,
    layers: Sequence[int],
    space: SearchSpace,
    n_trials: int,
    seed: int,
    selections: Mapping[str, str],
    threads: int | None = 1,
    progress: bool = False,
    **train_kwargs,
) -> tuple[dict[str, dict[int, dict[str, float]]], pd.DataFrame]:
    """Random search of (rank, lr, dropout) for each kind on each of ``layers`` (App. A).

    Every kind and layer gets the same ``n_trials`` configurations
    (:func:`~probekit.probes.structural.sample_trials` with ``seed``), so the two models get the
    same budget; all trials of a kind, on every layer, are one stack (minibatch order from
    ``seed``), and each layer's winner is the best trial on that layer by the kind's own
    selection rule (``selections``, :func:`selection_rules`). ``train_kwargs`` go to
    :func:`~probekit.probes.structural_stack.train_distance_probes` (``max_epochs``, ``patience``, ...).

    Returns the chosen {rank, lr, dropout} per kind and layer, and one row per trial: ``kind``,
    ``layer``, ``trial``, ``rank``, ``lr``, ``dropout``, ``seed``, ``selection``, ``dev_loss``,
    ``dev_score`` (the selection quantity), ``epochs``, ``best_epoch``, ``stopped_at_cap`` and
    ``chosen``.
    """
    layers = [int(k) for k in dict.fromkeys(layers)]
    drawn = sample_trials(space, n_trials, seed, features.train.dim)
    configs: dict[str, dict[int, dict[str, float]]] = {}
    rows = []
    with torch_threads(threads):
        for kind, selection in selections.items():
            trials = [
                DistanceTrial(c["rank"], c["lr"], c["dropout"], c["seed"], layer)
                for layer in layers
                for c in drawn
            ]
            results = train_distance_probes(
                kind,
                trials,
                features.train,
                features.dev,
                selection=selection,
                order_seed=seed,
                progress=progress,
                **train_kwargs,
            )
            configs[kind] = {}
            for i, layer in enumerate(layers):
                block = results[i * n_trials : (i + 1) * n_trials]
                best = best_trial(block)
                configs[kind][layer] = {k: block[best].config[k] for k in HYPERPARAMETERS}
                for t, result in enumerate(block):
                    rows.append(
                        {
                            "kind": kind,
                            "layer": layer,
                            "trial": t,
                            **trial_record(result),
                            "selection": selection,
                            "chosen": t == best,
                        }
                    )
    return configs, pd.DataFrame(rows)


def _config_at(configs: Mapping, layer: int) -> Mapping[str, float]:
    """One kind's configuration at ``layer``: a {rank, lr, dropout} or a {layer: ...} map."""
    if "rank" in configs:
        return configs
    if layer not in configs:
        raise ParameterError("configs", f"no configuration for layer {layer}")
    return configs[layer]


def train_layers(
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev: EvalSet,
    configs: Mapping[str, Mapping],
    layers: Sequence[int],
    seeds: Sequence[int],
    threads: int | None = 1,
    selections: Mapping[str, str] | None = None,
    features: Features | None = None,
    progress: bool = False,
    **train_kwargs,
) -> tuple[pd.DataFrame, dict[tuple[str, int, int], DistanceProbe]]:
    """Train every kind of ``configs`` on every layer and seed; score each on the dev set.

    Hall Maudslay et al. 2020, §3–4: both models get the same representations (layer by layer,
    extending the paper's final-layer study). ``configs[kind]`` is one {rank, lr, dropout} for
    every layer, or a map layer -> {rank, lr, dropout}
    (:meth:`~probekit.experiments.part1_probe_parser.tuning.Tuning.layer_configs`). Each kind
    is one stack over layers and seeds (minibatch order from the first seed; the seeds differ
    in initialisation and dropout), early-stopped per run on ``selections[kind]`` (default: dev
    loss, the paper's rule). ``features``: the prebuilt train and dev data
    (:func:`prepare_features`), else built here. ``train_kwargs`` go to
    :func:`~probekit.probes.structural_stack.train_distance_probes` (e.g. ``max_epochs``, ``patience``).

    Returns a table with one row per (kind, layer, seed): the run's ``rank``, ``lr``,
    ``dropout``, ``selection``, ``epochs``, ``best_epoch``, ``stopped_at_cap``, ``dev_loss``,
    ``dev_score`` and the :func:`~probekit.trees.evaluation.corpus_scores` on ``dev``; and the
    trained probes keyed by (kind, layer, seed).
    """
    if not seeds:
        raise ParameterError("seeds", "needs at least one seed")
    selections = dict(selections or dict.fromkeys(configs, "loss"))
    if features is None:
        features = Features(
            layer_data(train_emb, train_heads, layers),
            layer_data(dev_emb, dev.heads, layers, dev.keep),
        )
    rows, probes = [], {}
    x_dev = {int(k): layer_vectors(dev_emb, int(k)) for k in layers}
    # The dev distances are computed where the probes trained.
    device = train_kwargs.get("device", "cpu")
    with torch_threads(threads):
        for kind, kind_configs in configs.items():
            runs = [(int(layer), int(seed)) for layer in layers for seed in seeds]
            trials = [
                DistanceTrial(
                    int(_config_at(kind_configs, layer)["rank"]),
                    float(_config_at(kind_configs, layer)["lr"]),
                    float(_config_at(kind_configs, layer)["dropout"]),
                    seed,
                    layer,
                )
                for layer, seed in runs
            ]
            results = train_distance_probes(
                kind,
                trials,
                features.train,
                features.dev,
                selection=selections[kind],
                order_seed=int(seeds[0]),
                progress=progress,
                **train_kwargs,
            )
            for (layer, seed), result in zip(runs, results, strict=True):
                scores = corpus_scores(
                    score_distances(
                        predict_distances(result.probe, x_dev[layer], device=device), dev
                    )
                )
                record = trial_record(result)
                rows.append(
                    {
                        "kind": kind,
                        "layer": layer,
                        **record,
                        "selection": result.selection,
                        **scores,
                    }
                )
                probes[(kind, layer, seed)] = result.probe
    return pd.DataFrame(rows), probes


def cap_shares(runs: pd.DataFrame) -> dict[str, float]:
    """Share of runs that ended at the epoch cap, per kind and over all (key "all").

    ``runs``: rows with ``kind`` and ``stopped_at_cap`` (:func:`train_layers`' table, or
    :func:`search_by_layer`'s trials). Shares in [0, 1]
    (:func:`~probekit.experiments.deviations.cap_share`).
    """
    out = {kind: cap_share(df["stopped_at_cap"]) for kind, df in runs.groupby("kind", sort=False)}
    out["all"] = cap_share(runs["stopped_at_cap"])
    return out


def cap_reading(share: float) -> str:
    """What a share of runs ended at the epoch cap means for the comparison, for the prose.

    ``share`` in [0, 1] (:func:`~probekit.experiments.deviations.cap_share`); compared with
    :data:`~probekit.experiments.deviations.MAX_CAP_SHARE`.
    """
    if not 0.0 <= share <= 1.0:
        raise ParameterError("share", f"must lie in [0, 1], got {share}")
    limit = f"{100 * MAX_CAP_SHARE:.0f} %"
    if share < MAX_CAP_SHARE:
        return f"below the {limit} above which the book would call the comparison unconverged"
    return (
        f"at or above the {limit} at which the book calls the comparison unconverged, so part "
        "of either model's score may be left on the table"
    )


def per_sentence_scores(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    test_emb,
    test: EvalSet,
    layer: int,
    device: str = "cpu",
) -> pd.DataFrame:
    """Test scores of every probe trained on ``layer``, stacked.

    :func:`~probekit.trees.evaluation.score_distances` on the ``test`` trees: one row per
    (kind, seed, sentence) with a ``sentence`` index column. ``probes``: as
    :func:`train_layers` returns them; the distances are computed on ``device``.
    """
    chosen = {(kind, seed): p for (kind, lay, seed), p in probes.items() if lay == layer}
    if not chosen:
        raise ParameterError("layer", f"no probe was trained on layer {layer}")
    x_test = layer_vectors(test_emb, layer)
    frames = []
    for (kind, seed), probe in chosen.items():
        df = score_distances(predict_distances(probe, x_test, device=device), test)
        frames.append(df.assign(kind=kind, seed=seed, sentence=np.arange(len(df))))
    return pd.concat(frames, ignore_index=True)
