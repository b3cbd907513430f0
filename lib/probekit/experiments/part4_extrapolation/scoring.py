"""Hardness scores of the sample's examples (Kunz & Kuhlmann 2021, §3.4), per split.

Scores come from :mod:`probekit.methods.extrapolation.scores`, either directly
(:func:`static_scores`) or from a probe ensemble (:func:`ensemble_scores`, cached on disk so two
chapters pay for it once); :func:`split_scores` gives the scores a split of §3.5/§4 is made on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.sample import Sample, layer_inputs, task_examples
from probekit.io import tasks
from probekit.io.cache import Cache
from probekit.methods.extrapolation import grid
from probekit.methods.extrapolation import scores as scoring
from probekit.probes.mlp import BATCH_SIZE, ProbeSpec
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

# The learning-based scores of every layer: scorer -> (train (L, N), eval (L, M)).
LearnedScores = Mapping[str, tuple[np.ndarray, np.ndarray]]


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


def ensemble_scores(
    sample: Sample,
    task: str,
    layers: Sequence[int],
    seeds: Sequence[int] = grid.ENSEMBLE_SEEDS,
    epochs: int = 5,
    order_seed: int | None = None,
    cache: Cache | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Sample-loss and speed-of-learning scores per layer from a probe ensemble (§3.4.3).

    Kunz & Kuhlmann 2021, §3.4.3: one standard probe per (layer, seed) on all training
    examples, recorded at :data:`~probekit.methods.extrapolation.scores.SPEED_CHECKPOINTS`
    updates and at the end. Returns ``{"sample_loss": (train (L, N), eval (L, M)),
    "speed_of_learning": ...}``. Both sets are scored by the same ensemble (trained on S_train
    only). Checkpoints beyond the probes' last update are left out (tiny samples only; 1,000
    sentences give hundreds of updates per epoch). Cached on disk under the sample's embedding
    keys, so a second chapter reads the scores back.
    """
    store = cache or Cache()
    train, eval_ = task_examples(task, sample)
    updates = epochs * -(-len(train) // BATCH_SIZE)
    ckpts = tuple(c for c in scoring.SPEED_CHECKPOINTS if c <= updates)
    key = {
        "kind": "extrapolation_ensemble",
        "train": sample.emb_train.entry.key,
        "eval": sample.emb_eval.entry.key,
        "task": task,
        "layers": [int(k) for k in layers],
        "seeds": [int(s) for s in seeds],
        "epochs": int(epochs),
        "order_seed": order_seed,
        "checkpoints": list(ckpts),
    }

    def build(writer) -> None:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
        specs = grid.ensemble_specs(len(layers), seeds)
        specs = [ProbeSpec(s.seed, s.view, order_seed) for s in specs]
        result = train_batched(
            Xt, train.y, Xe, eval_.y, len(train.labels), specs, epochs=epochs,
            checkpoints=ckpts, record_loss=True,
        )  # fmt: skip
        L, S = len(layers), len(seeds)
        for part, loss, correct in (
            ("train", result.loss_train, result.ckpt_correct_train),
            ("eval", result.loss_eval, result.ckpt_correct_eval),
        ):
            n = loss.shape[-1]
            writer.array(f"loss_{part}", scoring.sample_loss(loss.reshape(L, S, n)))
            speed = scoring.speed_of_learning(correct.reshape(L, S, -1, n))
            writer.array(f"speed_{part}", speed)

    entry = store.get_or_create(key, build)
    return {
        "sample_loss": (entry.array("loss_train", False), entry.array("loss_eval", False)),
        "speed_of_learning": (entry.array("speed_train", False), entry.array("speed_eval", False)),
    }


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
