"""Training the probes of Part IV (Kunz & Kuhlmann 2021, §3.6) in one batched pass per task.

:func:`run_splits` trains the standard, control and extrapolation probes of several splits of
the same task together, so probes that several splits share (the standard/control probes on all
training examples) are trained once; :func:`run_task` does it for one task of the sample, from
its examples to the probes. A task can also score the control setup alone on further splits'
hard sets ("reference controls"): those probes are the shared standard probes, so they cost an
evaluation, not a training.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.sample import Sample, layer_inputs, task_examples
from probekit.experiments.part4_extrapolation.scoring import LearnedScores
from probekit.experiments.part4_extrapolation.splits import SplitSetups, build_splits
from probekit.io import tasks
from probekit.methods.extrapolation import grid
from probekit.probes.mlp import MLPTrainResult
from probekit.probes.mlp_batched import train_batched


@dataclass(frozen=True, eq=False)
class SplitRun:
    """Probes of several splits of one task: the trainer's result and one index row per probe.

    ``index`` columns: split, layer, seed, setup, n_train, n_eval. ``y_eval`` (M,) gold labels;
    ``sent_eval`` (M,) the sentence of each evaluation item (an index into the evaluation
    sentences); ``eval_masks`` maps (split, layer) to the split's hard evaluation set, bool (M,).
    """

    result: MLPTrainResult
    index: pd.DataFrame
    y_eval: np.ndarray
    eval_masks: dict[tuple[str, int], np.ndarray]
    sent_eval: np.ndarray


def run_splits(
    X_train: np.ndarray,
    X_eval: np.ndarray,
    train: tasks.Examples,
    eval_: tasks.Examples,
    splits: Mapping[str, SplitSetups],
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int = 5,
    order_seed: int | None = None,
) -> SplitRun:
    """Train every split's setups for every layer and seed in one batched pass (§3.6).

    Kunz & Kuhlmann 2021, §3.6. ``splits`` maps a split name to one setups dict for all layers,
    or a list with one per layer (learning-based scores), as
    :func:`~probekit.experiments.part4_extrapolation.splits.build_splits` gives them.
    ``X_train`` (L, N, d) and ``X_eval`` (L, M, d), view i being ``layers[i]``. Probes that
    several splits share are trained once by the batched trainer.
    """
    if not splits:
        raise ParameterError("splits", "is empty: give at least one split")
    all_specs, frames, masks = [], [], {}
    for name, setups_ in splits.items():
        specs, index = grid.probe_grid(setups_, layers, seeds, order_seed)
        all_specs += specs
        frames.append(index.assign(split=name))
        per_layer = [setups_] * len(layers) if isinstance(setups_, Mapping) else list(setups_)
        for layer, layer_setups in zip(layers, per_layer, strict=True):
            masks[(name, int(layer))] = np.asarray(layer_setups["control"].eval)
    result = train_batched(
        X_train, train.y, X_eval, eval_.y, len(train.labels), all_specs, epochs=epochs
    )
    index = pd.concat(frames, ignore_index=True)
    index = index[["split", "layer", "seed", "setup", "n_train", "n_eval"]]
    return SplitRun(result, index, np.asarray(eval_.y), masks, np.asarray(eval_.sent))


@dataclass(frozen=True, eq=False)
class TaskRun:
    """Everything a chapter shows for one task: examples, split points, skipped splits, probes.

    ``points`` maps a split to its split points (a list, one per layer, for learning-based
    splits); ``skipped`` maps a split that could not be made to the reason; ``run`` is None
    when every split was skipped. ``controls`` maps each reference-control split (control setup
    only, see :func:`run_task`) to its split points; they are in ``run`` but not in ``points``.
    """

    task: str
    train: tasks.Examples
    eval: tasks.Examples
    points: dict
    skipped: dict[str, str]
    run: SplitRun | None
    controls: dict = field(default_factory=dict)


def run_task(
    sample: Sample,
    task: str,
    names: Sequence[str],
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int = 5,
    order_seed: int | None = None,
    learned: LearnedScores | None = None,
    controls: Sequence[str] = (),
) -> TaskRun:
    """Examples, splits and the three setups of every split ``names`` of ``task`` (§3.3-3.6).

    Kunz & Kuhlmann 2021, §3.6: per split, layer and seed one probe per setup; all probes of
    the task train in one batched pass. ``learned`` (from
    :func:`~probekit.experiments.part4_extrapolation.scoring.ensemble_scores` over the same
    ``layers``) is needed for learning-based splits. Empty hard sets caused by ties at the top
    score are widened to those tied examples (``include_top_ties``).

    ``controls`` names further splits whose control setup alone is scored (§4.5 compares the
    control accuracies of all scoring functions): their probes train on all examples like the
    standard ones, so the trainer shares them and they add evaluations only. A split skipped
    there is reported in ``skipped`` too.
    """
    train, eval_ = task_examples(task, sample)
    splits, points, skipped = build_splits(names, train, eval_, len(layers), learned)
    extra = [c for c in controls if c not in names]
    control_splits, control_points, control_skipped = build_splits(
        extra, train, eval_, len(layers), learned, setup_names=("control",)
    )
    skipped = skipped | control_skipped
    run = None
    if splits or control_splits:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
        every = splits | control_splits
        run = run_splits(Xt, Xe, train, eval_, every, layers, seeds, epochs, order_seed)
    return TaskRun(task, train, eval_, points, skipped, run, control_points)
