"""Hardness scores of the sample's examples (Kunz & Kuhlmann 2021, §3.4), per split.

Scores come from :mod:`probekit.methods.extrapolation.scores`, either directly
(:func:`static_scores`) or from a probe ensemble (:func:`ensemble_scores`, cached on disk so two
chapters pay for it once); :func:`split_scores` gives the scores a split of §3.5/§4 is made on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.sample import Sample, layer_inputs, task_examples
from probekit.io import tasks
from probekit.io.cache import Cache
from probekit.methods.extrapolation import grid
from probekit.methods.extrapolation import scores as scoring
from probekit.probes.mlp import BATCH_SIZE
from probekit.probes.mlp_batched import train_batched

STATIC_SCORERS: tuple[str, ...] = (
    "sentence_length",
    "arc_length",
    "tag_proportion",
    "most_frequent_tag",
)
LEARNING_SCORERS: tuple[str, ...] = ("sample_loss", "speed_of_learning")

# Which scoring function each split of §3.5/§4 uses; the split name is also the rule's name in
# :func:`probekit.methods.extrapolation.splits.split_points`.
SPLIT_SCORER: dict[str, str] = {
    "sentence_length_linguistic": "sentence_length",
    "sentence_length_pos": "sentence_length",
    "sentence_length_deprel": "sentence_length",
    "arc_length": "arc_length",
    "arc_length_modified": "arc_length",
    "tag_proportion": "tag_proportion",
    "most_frequent_tag": "most_frequent_tag",
    "sample_loss": "sample_loss",
    "speed_of_learning": "speed_of_learning",
}


def static_scores(
    scorer: str, train: tasks.Examples, eval_: tasks.Examples
) -> tuple[np.ndarray, np.ndarray]:
    """Hardness scores (N,) and (M,) of a scorer that needs no probe (Kunz & Kuhlmann §3.4.1-2).

    ``scorer`` is one of :data:`STATIC_SCORERS`. Tag statistics are counted on ``train`` for
    both sets.
    """
    if scorer == "sentence_length":
        return scoring.sentence_length(train), scoring.sentence_length(eval_)
    if scorer == "arc_length":
        return scoring.arc_length(train), scoring.arc_length(eval_)
    if scorer == "tag_proportion":
        return (
            scoring.tag_proportion(train, train),
            scoring.tag_proportion(train, eval_),
        )
    if scorer == "most_frequent_tag":
        return (
            scoring.most_frequent_tag(train, train),
            scoring.most_frequent_tag(train, eval_),
        )
    raise ParameterError("scorer", f"'{scorer}' is not one of {STATIC_SCORERS}")


@dataclass(frozen=True, eq=False)
class EnsembleScores:
    """The learning-based scores of every layer and how the ensemble's probes ended.

    ``scores`` maps "sample_loss" and "speed_of_learning" to (train (L, N), eval (L, M));
    ``still_falling`` (L, F, S) bool says, per layer, fold and seed, whether the ensemble
    probe's loss on the examples it scores was still falling at its last epoch
    (:func:`~probekit.probes.mlp.loss_still_falling`); ``folds`` is the number of folds (1: the
    paper's ensemble, trained on every training example). Indexing by scorer reads ``scores``.
    """

    scores: dict[str, tuple[np.ndarray, np.ndarray]]
    still_falling: np.ndarray
    folds: int

    def __getitem__(self, scorer: str) -> tuple[np.ndarray, np.ndarray]:
        """(train (L, N), eval (L, M)) scores of ``scorer``."""
        return self.scores[scorer]


# The learning-based scores of every layer: scorer -> (train (L, N), eval (L, M)), as a mapping
# or as the EnsembleScores of ensemble_scores.
LearnedScores = Mapping[str, tuple[np.ndarray, np.ndarray]] | EnsembleScores

# Bump when the ensemble's training or scoring changes, so that cached scores are rebuilt.
_ENSEMBLE_VERSION = 2


def probes_key(
    kind: str,
    version: int,
    sample: Sample,
    task: str,
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int,
    order_seed: int | None,
    **settings: object,
) -> dict[str, object]:
    """The disk-cache key of probes trained on ``task`` of ``sample``.

    A :class:`~probekit.io.cache.Cache` key: what they are (``kind``, ``version``), the
    sample's embedding keys, the training settings every such set of probes has, and its own
    ``settings``.

    The shared probes (:func:`~probekit.experiments.part4_extrapolation.runs.shared_probes`)
    and the scoring ensembles (:func:`ensemble_scores`) are keyed by it.
    """
    return {
        "kind": kind,
        "version": version,
        "train": sample.emb_train.entry.key,
        "eval": sample.emb_eval.entry.key,
        "task": task,
        "layers": [int(k) for k in layers],
        "seeds": [int(s) for s in seeds],
        "epochs": int(epochs),
        "order_seed": order_seed,
        **settings,
    }


def _per_example(values: np.ndarray, folds: list[grid.EnsembleFold]) -> np.ndarray:
    """Each example's value from the fold that scores it: (L, F, N + M) -> (L, N + M)."""
    which = np.stack([np.concatenate([f.score_train, f.score_eval]) for f in folds])  # (F, N+M)
    return np.where(which[None], values, 0.0).sum(axis=1)


def ensemble_scores(
    sample: Sample,
    task: str,
    layers: Sequence[int],
    seeds: Sequence[int] = grid.ENSEMBLE_SEEDS,
    epochs: int = 5,
    order_seed: int | None = None,
    folds: int = 1,
    fold_seed: int = 0,
    cache: Cache | None = None,
    device: str = "cpu",
) -> EnsembleScores:
    """Sample-loss and speed-of-learning scores per layer from a probe ensemble (§3.4.3).

    Kunz & Kuhlmann 2021, §3.4.3: ``len(seeds)`` probes per layer, recorded at
    :data:`~probekit.methods.extrapolation.scores.SPEED_CHECKPOINTS` updates and at the end.
    ``folds`` 1 trains them on every training example and scores every example with all of
    them, as the paper does (a training example's loss is then in-sample); ``folds`` >= 2
    cross-fits them (:func:`~probekit.methods.extrapolation.grid.ensemble_folds`, sentences
    dealt with ``fold_seed``): every example, training or evaluation, is scored by the
    ``len(seeds)`` probes of the one fold that did not train on it. Checkpoints beyond the
    probes' last update are left out (tiny samples only). Cached on disk under the sample's
    embedding keys, so a second chapter reads the scores back. The probes train on ``device``,
    which is not part of the key: every device draws the same weights and orders.
    """
    store = cache or Cache()
    train, eval_ = task_examples(task, sample)
    plan = grid.ensemble_folds(train.sent, eval_.sent, folds, fold_seed)
    smallest = min(int(f.train.sum()) for f in plan)
    updates = epochs * -(-smallest // BATCH_SIZE)
    ckpts = tuple(c for c in scoring.SPEED_CHECKPOINTS if c <= updates)
    key = probes_key(
        "extrapolation_ensemble",
        _ENSEMBLE_VERSION,
        sample,
        task,
        layers,
        seeds,
        epochs,
        order_seed,
        folds=int(folds),
        fold_seed=int(fold_seed) if folds > 1 else None,
        checkpoints=list(ckpts),
    )

    def build(writer) -> None:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
        X_scored = np.concatenate([Xt, Xe], axis=1)  # every example is scored as an eval row
        y_scored = np.concatenate([train.y, eval_.y])
        specs = grid.ensemble_specs(len(layers), seeds, plan, order_seed)
        result = train_batched(
            Xt, train.y, X_scored, y_scored, len(train.labels), specs, epochs=epochs,
            checkpoints=ckpts, record_loss=True, record_train=False, device=device,
        )  # fmt: skip
        L, F, S, n = len(layers), len(plan), len(seeds), len(train)
        loss = scoring.sample_loss(result.loss_eval.reshape(L, F, S, -1))  # (L, F, N + M)
        correct = result.ckpt_correct_eval.reshape(L, F, S, len(ckpts), -1)
        speed = scoring.speed_of_learning(correct)  # (L, F, N + M)
        for name, values in (
            ("loss", _per_example(loss, plan)),
            ("speed", _per_example(speed, plan)),
        ):
            writer.array(f"{name}_train", values[:, :n])
            writer.array(f"{name}_eval", values[:, n:])
        writer.array("still_falling", result.still_falling.reshape(L, F, S))

    entry = store.get_or_create(key, build)
    scores = {
        "sample_loss": (entry.array("loss_train", False), entry.array("loss_eval", False)),
        "speed_of_learning": (entry.array("speed_train", False), entry.array("speed_eval", False)),
    }
    return EnsembleScores(scores, entry.array("still_falling", False), int(folds))


def is_learning_split(split: str) -> bool:
    """Whether a split's scores come from the §3.4.3 probe ensemble (one set per layer)."""
    return SPLIT_SCORER.get(split) in LEARNING_SCORERS


def split_scores(
    split: str,
    train: tasks.Examples,
    eval_: tasks.Examples,
    learned: LearnedScores | None = None,
    layer_pos: int = -1,
) -> tuple[np.ndarray, np.ndarray]:
    """Train (N,) and eval (M,) scores of a split (Kunz & Kuhlmann 2021, §3.4).

    ``split`` is a key of :data:`SPLIT_SCORER`. Learning-based splits read row ``layer_pos`` of
    ``learned`` (the output of :func:`ensemble_scores`).
    """
    if split not in SPLIT_SCORER:
        raise ParameterError("split", f"unknown split '{split}'", hint=f"use {list(SPLIT_SCORER)}")
    scorer = SPLIT_SCORER[split]
    if scorer in LEARNING_SCORERS:
        if learned is None:
            raise ParameterError("learned", f"'{split}' needs ensemble scores")
        ts, es = learned[scorer]
        return np.asarray(ts[layer_pos]), np.asarray(es[layer_pos])
    return static_scores(scorer, train, eval_)
