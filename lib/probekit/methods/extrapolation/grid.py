"""The probes of Kunz & Kuhlmann 2021, §3.6, and the §3.4.3 scoring ensemble.

One MLP probe per layer x seed x setup and their specifications for the batched trainer; the
scoring ensemble, either trained on every training example as in the paper or cross-fitted
(:func:`ensemble_folds`), so that no example is scored by a probe that trained on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.methods.extrapolation.splits import Setup
from probekit.probes.mlp import ProbeSpec

ENSEMBLE_SEEDS: tuple[int, ...] = tuple(range(1, 11))  # 10 classifiers, seeds 1..10 as released


def probe_grid(
    setups_by_layer: Mapping[str, Setup] | Sequence[Mapping[str, Setup]],
    layers: Sequence[int],
    seeds: Sequence[int] = ENSEMBLE_SEEDS,
    order_seed: int | None = None,
) -> tuple[list[ProbeSpec], pd.DataFrame]:
    """ProbeSpecs for layers × seeds × setups, ready for :func:`train_batched`, and their index.

    Kunz & Kuhlmann 2021, §3.6 (10 seeds per setup and layer). ``setups_by_layer`` is one
    :func:`setups` dict for every layer (scores that do not depend on the layer) or one per layer
    (learning-based scores). View i of the trainer's input is ``layers[i]``. The index has one row
    per spec: ``layer``, ``seed``, ``setup``, ``n_train``, ``n_eval``. Standard and control probes
    train identically and are trained once by the batched trainer.
    """
    per_layer = (
        [setups_by_layer] * len(layers)
        if isinstance(setups_by_layer, Mapping)
        else list(setups_by_layer)
    )
    if len(per_layer) != len(layers):
        raise ParameterError(
            "setups_by_layer", f"has {len(per_layer)} entries for {len(layers)} layers"
        )
    specs, rows = [], []
    for view, (layer, layer_setups) in enumerate(zip(layers, per_layer, strict=True)):
        for seed in seeds:
            for name, setup in layer_setups.items():
                specs.append(ProbeSpec(int(seed), view, order_seed, setup.train, setup.eval))
                rows.append(
                    (int(layer), int(seed), name, int(setup.train.sum()), int(setup.eval.sum()))
                )
    index = pd.DataFrame(rows, columns=["layer", "seed", "setup", "n_train", "n_eval"])
    return specs, index


@dataclass(frozen=True, eq=False)
class EnsembleFold:
    """One fold of the scoring ensemble: what its probes train on and which examples they score.

    ``train`` bool (N,) selects the training examples its probes learn from; ``score_train``
    bool (N,) and ``score_eval`` bool (M,) the training and evaluation examples they score.
    """

    train: np.ndarray
    score_train: np.ndarray
    score_eval: np.ndarray


def _deal(sentences: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold of each example (n,): its sentence's place in a seeded shuffle, modulo ``folds``."""
    ids = np.unique(sentences)
    fold_of = np.empty(int(ids.max()) + 1 if len(ids) else 0, dtype=np.int64)
    fold_of[rng.permutation(ids)] = np.arange(len(ids)) % folds
    return fold_of[sentences]


def ensemble_folds(
    train_sent: np.ndarray, eval_sent: np.ndarray, folds: int, seed: int
) -> list[EnsembleFold]:
    """The folds of the §3.4.3 scoring ensemble, whole sentences at a time.

    Kunz & Kuhlmann 2021, §3.4.3 train the ensemble on every training example and score the
    training examples with it, so a training example's score is that of probes that learnt it,
    and the ensemble trains exactly as the evaluated standard probes do. ``folds=1`` is that
    protocol: one fold that trains on everything and scores everything. With ``folds >= 2``
    the ensemble is cross-fitted: the training sentences are dealt into ``folds`` folds in a
    random order drawn with ``seed``; fold j's probes train on the other folds' examples and
    score fold j's, so no example is scored by a probe that trained on it, and no ensemble probe
    trains on the evaluated probes' training set. The evaluation sentences are dealt the same
    way, so every example, training or evaluation, is scored by the probes of one fold, which
    did not see it. ``train_sent`` (N,) and ``eval_sent`` (M,) give each example's sentence;
    the examples of one sentence share a fold, as their contexts overlap.
    """
    if int(folds) < 1:
        raise ParameterError("folds", f"must be >= 1, got {folds}")
    train_sent, eval_sent = np.asarray(train_sent), np.asarray(eval_sent)
    if folds == 1:
        every_train = np.ones(len(train_sent), dtype=bool)
        return [EnsembleFold(every_train, every_train, np.ones(len(eval_sent), dtype=bool))]
    if len(np.unique(train_sent)) < folds:
        raise ParameterError(
            "folds", f"{folds} folds need at least {folds} training sentences, got "
            f"{len(np.unique(train_sent))}",
        )  # fmt: skip
    rng = np.random.default_rng(int(seed))
    train_fold, eval_fold = _deal(train_sent, folds, rng), _deal(eval_sent, folds, rng)
    return [EnsembleFold(train_fold != j, train_fold == j, eval_fold == j) for j in range(folds)]


def ensemble_specs(
    n_layers: int,
    seeds: Sequence[int] = ENSEMBLE_SEEDS,
    folds: Sequence[EnsembleFold] | None = None,
    order_seed: int | None = None,
) -> list[ProbeSpec]:
    """The §3.4.3 ensemble: one probe per (layer, fold, seed), in that order, (L * F * S,) specs.

    Kunz & Kuhlmann 2021, §3.4.3. Without ``folds``, one standard probe per (layer, seed) on
    every training example, evaluated on every evaluation example. With ``folds``
    (:func:`ensemble_folds`), each fold's probes train on ``fold.train`` and are evaluated on
    the rows they score, indexed into the concatenation of the training and evaluation examples
    (N + M rows: pass that concatenation as the trainer's evaluation set). Train them with
    ``checkpoints=SPEED_CHECKPOINTS`` and ``record_loss=True``; reshape the recorded arrays to
    (L, F, S, ...) for per-layer scores.
    """
    if folds is None:
        return [
            ProbeSpec(int(seed), view, order_seed) for view in range(n_layers) for seed in seeds
        ]
    scored = [np.concatenate([f.score_train, f.score_eval]) for f in folds]
    return [
        ProbeSpec(int(seed), view, order_seed, fold.train, rows)
        for view in range(n_layers)
        for fold, rows in zip(folds, scored, strict=True)
        for seed in seeds
    ]
