"""Training the probes of Part IV (Kunz & Kuhlmann 2021, §3.5-3.6), task by task.

A task's probes fall into two kinds. The *shared* probes train on the same examples whatever
the split: the standard probes on every training example (the standard and control setups of
every split, and the reference controls) and the size-control probes on a seeded random half
(§3.5; scored on all evaluation examples and on each split's hard set).
:func:`shared_probes` trains them once per task, layer and seed, keeps every epoch's predictions
and losses on all evaluation examples, and caches them on disk, so the chapters of the part that
probe the same task read them back instead of training them again; any evaluation subset is then
scored after the fact (:func:`~probekit.probes.mlp.epoch_results`). The *extrapolation* probes
train on one split's easy set and are trained per split in one batched pass
(:func:`run_splits`). :func:`run_task` does both for one task of the sample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.sample import Sample, layer_inputs, task_examples
from probekit.experiments.part4_extrapolation.scoring import LearnedScores, probes_key
from probekit.experiments.part4_extrapolation.splits import (
    EXPERIMENT_SETUPS,
    SplitSetups,
    build_splits,
)
from probekit.io import tasks
from probekit.io.cache import Cache
from probekit.methods.extrapolation.splits import size_control_mask
from probekit.probes.mlp import BATCH_SIZE, MLPTrainResult, ProbeSpec, epoch_results
from probekit.probes.mlp_batched import train_batched

# The two kinds of shared probe, in the order of the cached arrays' kind axis.
SHARED_KINDS: tuple[str, ...] = ("all", "half")
# Which shared probe, scored on which evaluation set, gives each setup; "extrapolation" is
# trained per split.
SHARED_SETUPS: dict[str, tuple[str, str]] = {
    "standard": ("all", "every"),
    "control": ("all", "hard"),
    "size_control": ("half", "every"),
    "size_control_hard": ("half", "hard"),
}
# Each probe's epoch is chosen on the other fold of evaluation sentences than the one it is
# scored on (:func:`~probekit.probes.mlp.epoch_results`); sentences alternate between folds.
EPOCH_FOLDS = 2
# Bump when the shared probes' training changes, so that cached probes are retrained.
_SHARED_VERSION = 1


@dataclass(frozen=True, eq=False)
class SharedProbes:
    """The standard and size-control probes of one task, per layer and seed (§3.5-3.6).

    ``epoch_pred`` (L, S, 2, E, M) int16 and ``epoch_loss`` (L, S, 2, E, M) float32: every
    epoch's predictions and cross-entropies on all M evaluation examples, kind "all" (every
    training example) then "half" (the size control's half, ``half`` bool (N,)). ``n_updates``
    (2,): batch updates of each kind; ``n_trained``: probes trained by this call (0 when read
    from the cache).
    """

    epoch_pred: np.ndarray
    epoch_loss: np.ndarray
    half: np.ndarray
    n_updates: np.ndarray
    n_trained: int


def shared_probes(
    sample: Sample,
    task: str,
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int,
    order_seed: int | None,
    size_seed: int,
    cache: Cache | None = None,
    device: str = "cpu",
) -> SharedProbes:
    """Train (or read back) the shared probes of ``task``: standard and size control (§3.5-3.6).

    Kunz & Kuhlmann 2021, §3.6 (standard: all training examples) and §3.5 (size control: the
    standard training set randomly halved, :func:`~probekit.methods.extrapolation.splits.
    size_control_mask` with ``size_seed``, one half for every seed so that its probes share
    every minibatch). Cached on disk under the sample's embedding keys and every training
    setting, so chapters 42-44 train them once per task. The probes train on ``device``, which
    is not part of the key: every device draws the same weights and orders.
    """
    store = cache or Cache()
    train, eval_ = task_examples(task, sample)
    half = size_control_mask(len(train), size_seed)
    key = probes_key(
        "extrapolation_shared",
        _SHARED_VERSION,
        sample,
        task,
        layers,
        seeds,
        epochs,
        order_seed,
        size_seed=int(size_seed),
    )
    trained = []

    def build(writer) -> None:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
        specs = [
            ProbeSpec(int(seed), view, order_seed, rows)
            for view in range(len(layers))
            for seed in seeds
            for rows in (None, half)
        ]
        result = train_batched(
            Xt, train.y, Xe, eval_.y, len(train.labels), specs, epochs=epochs, record_epochs=True,
            device=device,
        )  # fmt: skip
        shape = (len(layers), len(seeds), len(SHARED_KINDS), epochs, len(eval_))
        writer.array("epoch_pred", result.epoch_pred.reshape(shape))
        # Half precision is plenty for losses that are only ever averaged over many examples.
        writer.array("epoch_loss", result.epoch_loss.reshape(shape).astype(np.float16))
        trained.append(result.n_trained)

    entry = store.get_or_create(key, build)
    n_updates = np.array([epochs * -(-int(n) // BATCH_SIZE) for n in (len(train), half.sum())])
    return SharedProbes(
        entry.array("epoch_pred"),
        entry.array("epoch_loss"),
        half,
        n_updates,
        sum(trained),
    )


@dataclass(frozen=True, eq=False)
class SplitRun:
    """Probes of several splits of one task: their results and one index row per probe.

    ``index`` columns: split, layer, seed, setup, n_train, n_eval; row k describes row k of
    ``result`` (``acc``, ``eval_loss``, ``pred_best``, ``n_updates``). ``y_eval`` (M,) gold
    labels; ``sent_eval`` (M,) the sentence of each evaluation item (an index into the
    evaluation sentences); ``eval_masks`` maps (split, layer) to the split's hard evaluation
    set, bool (M,).
    """

    result: MLPTrainResult
    index: pd.DataFrame
    y_eval: np.ndarray
    eval_masks: dict[tuple[str, int], np.ndarray]
    sent_eval: np.ndarray


def sentence_folds(sent: np.ndarray, folds: int = EPOCH_FOLDS) -> np.ndarray:
    """The fold (M,) int of each evaluation example: its sentence's index modulo ``folds``.

    Kunz & Kuhlmann 2021, §3.6 report each probe's best epoch on the items it is scored on; a
    chapter here chooses it on the other fold's hard items instead (cross-fitting), so that the
    gaps are not compressed by each probe's luckiest epoch. Folds are whole sentences, the unit
    every interval resamples.
    """
    if folds < 1:
        raise ParameterError("folds", f"must be >= 1, got {folds}")
    return np.asarray(sent, dtype=np.int64) % folds


def _per_layer(setups_: SplitSetups, n_layers: int) -> list:
    """One setups dict per layer, whether a split has one for all layers or one per layer."""
    return [setups_] * n_layers if isinstance(setups_, Mapping) else list(setups_)


def run_splits(
    X_train: np.ndarray | None,
    X_eval: np.ndarray | None,
    train: tasks.Examples,
    eval_: tasks.Examples,
    splits: Mapping[str, SplitSetups],
    layers: Sequence[int],
    seeds: Sequence[int],
    shared: SharedProbes,
    epochs: int = 5,
    order_seed: int | None = None,
    device: str = "cpu",
    *,
    epoch_folds: int = EPOCH_FOLDS,
) -> SplitRun:
    """Every setup of every split, layer and seed: extrapolation probes trained, the rest read.

    Kunz & Kuhlmann 2021, §3.5-3.6. ``splits`` maps a split name to one setups dict for all
    layers, or a list with one per layer (learning-based scores), as :func:`build_splits` gives
    them; a split whose setups include "extrapolation" gets every setup of
    :data:`~probekit.experiments.part4_extrapolation.splits.EXPERIMENT_SETUPS`, one with
    "control" only (a reference control) just that. ``X_train`` (L, N, d) and ``X_eval``
    (L, M, d), view i being ``layers[i]``, are needed only when a split trains extrapolation
    probes, which all train in one batched pass; ``shared`` (:func:`shared_probes`) gives the
    other setups, scored on each split's hard set. Every probe's epoch is chosen on the other
    ``epoch_folds`` - 1 folds of evaluation sentences than the one it is scored on
    (:func:`sentence_folds`); 1 chooses it on the scored items themselves, as the paper does.
    """
    if not splits:
        raise ParameterError("splits", "is empty: give at least one split")
    y = np.asarray(eval_.y)
    specs, masks, rows = [], {}, []
    for name, setups_ in splits.items():
        per_layer = _per_layer(setups_, len(layers))
        for view, (layer, layer_setups) in enumerate(zip(layers, per_layer, strict=True)):
            hard = np.asarray(layer_setups["control"].eval)
            masks[(name, int(layer))] = hard
            names = EXPERIMENT_SETUPS if "extrapolation" in layer_setups else ("control",)
            for seed in seeds:
                for setup in names:
                    if setup == "extrapolation":
                        easy = layer_setups["extrapolation"].train
                        specs.append(ProbeSpec(int(seed), view, order_seed, easy, hard))
                    rows.append((name, int(layer), int(seed), setup, view))
    trained = None
    if specs:
        if X_train is None or X_eval is None:
            raise ParameterError("X_train", "is needed to train the extrapolation probes")
        trained = train_batched(
            X_train, train.y, X_eval, y, len(train.labels), specs, epochs=epochs,
            record_epochs=True, device=device,
        )  # fmt: skip
    folds = sentence_folds(eval_.sent, epoch_folds) if epoch_folds > 1 else None
    # Scores of the shared probes on every evaluation set in use: (layer, kind, set) -> arrays.
    scored: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    acc, loss, pred, n_upd, n_tr, n_ev = [], [], [], [], [], []
    k_extra = 0
    for name, layer, seed, setup, view in rows:
        hard = masks[(name, layer)]
        if setup == "extrapolation":
            k = k_extra
            k_extra += 1
            a, p, lo = epoch_results(
                trained.epoch_pred[k : k + 1], trained.epoch_loss[k : k + 1], y, hard, folds
            )
            acc.append(a[0])
            loss.append(lo[0])
            pred.append(p[0])
            n_upd.append(trained.n_updates[k])
            n_tr.append(int(specs[k].train.sum()))
            n_ev.append(int(hard.sum()))
            continue
        kind, on = SHARED_SETUPS[setup]
        where = None if on == "every" else hard
        cache_key = (view, kind, None if where is None else name)
        if cache_key not in scored:
            i = SHARED_KINDS.index(kind)
            scored[cache_key] = epoch_results(
                shared.epoch_pred[view, :, i], shared.epoch_loss[view, :, i], y, where, folds
            )
        a, p, lo = scored[cache_key]
        s = list(seeds).index(seed)
        acc.append(a[s])
        loss.append(lo[s])
        pred.append(p[s])
        n_upd.append(shared.n_updates[SHARED_KINDS.index(kind)])
        n_tr.append(len(train) if kind == "all" else int(shared.half.sum()))
        n_ev.append(len(y) if where is None else int(hard.sum()))
    index = pd.DataFrame([r[:4] for r in rows], columns=["split", "layer", "seed", "setup"]).assign(
        n_train=n_tr, n_eval=n_ev
    )
    result = MLPTrainResult(
        specs=tuple(specs),
        acc=np.asarray(acc),
        pred_best=np.asarray(pred, dtype=np.int16),
        n_updates=np.asarray(n_upd),
        n_trained=shared.n_trained + (trained.n_trained if trained is not None else 0),
        flops=trained.flops if trained is not None else 0.0,
        eval_loss=np.asarray(loss),
    )
    return SplitRun(result, index, y, masks, np.asarray(eval_.sent))


@dataclass(frozen=True, eq=False)
class TaskRun:
    """Everything a chapter shows for one task: examples, split points, skipped splits, probes.

    ``points`` maps a split to its split points (a list, one per layer, for learning-based
    splits); ``skipped`` maps a split that could not be made to the reason; ``run`` is None
    when every split was skipped. ``controls`` maps each reference split (its control setup
    only, or every setup at the compared layer, see :func:`run_task`) to its split points; they
    are in ``run`` but not in ``points``.
    ``half`` (N,) bool is the size control's training half.
    """

    task: str
    train: tasks.Examples
    eval: tasks.Examples
    points: dict
    skipped: dict[str, str]
    run: SplitRun | None
    controls: dict = field(default_factory=dict)
    half: np.ndarray | None = None


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
    size_seed: int = 0,
    widen_top_ties: bool = True,
    cache: Cache | None = None,
    device: str = "cpu",
    compared: Sequence[str] = (),
    compare_layer: int | None = None,
    epoch_folds: int = EPOCH_FOLDS,
) -> TaskRun:
    """Examples, splits and every setup of every split ``names`` of ``task`` (§3.3-3.6).

    Kunz & Kuhlmann 2021, §3.5-3.6: per split, layer and seed the standard, control,
    extrapolation and size-control setups (:data:`~probekit.experiments.part4_extrapolation.
    splits.EXPERIMENT_SETUPS`); the shared probes come from :func:`shared_probes` (trained once
    per task, cached), the extrapolation probes of all splits train in one batched pass.
    ``learned`` (from :func:`~probekit.experiments.part4_extrapolation.scoring.ensemble_scores`
    over the same ``layers``) is needed for learning-based splits. With ``widen_top_ties``,
    empty hard sets caused by ties at the top score are widened to those tied examples.

    ``controls`` names further splits whose control setup alone is scored (§4.5 compares the
    control accuracies of all scoring functions): their probes are the shared standard ones,
    so they cost an evaluation, not a training. ``compared`` names further reference splits
    whose extrapolation probes also train, at ``compare_layer`` only (one of ``layers``), so
    that their gaps can be compared there with a main split's (§4.4 calls speed of learning's
    gap "the largest among all settings"): at that layer they get every setup, at the others
    the control alone, so they cost one layer's extrapolation probes. A split skipped there is
    reported in ``skipped`` too. Every probe trains on ``device``; the cached probe records do
    not depend on it (the same draws on every device, up to floating-point rounding).
    ``epoch_folds``: how each probe's epoch is chosen (:func:`run_splits`).
    """
    train, eval_ = task_examples(task, sample)
    splits, points, skipped = build_splits(
        names, train, eval_, len(layers), learned, include_top_ties=widen_top_ties,
        setup_names=("control", "extrapolation"),
    )  # fmt: skip
    extra = [c for c in dict.fromkeys([*controls, *compared]) if c not in names]
    gap_names = [c for c in extra if c in compared]
    if gap_names and compare_layer not in layers:
        raise ParameterError(
            "compare_layer", f"layer {compare_layer} is not among the probed layers {layers}"
        )
    control_splits, control_points, control_skipped = build_splits(
        [c for c in extra if c not in compared], train, eval_, len(layers), learned,
        include_top_ties=widen_top_ties, setup_names=("control",),
    )  # fmt: skip
    gap_splits, gap_points, gap_skipped = build_splits(
        gap_names, train, eval_, len(layers), learned, include_top_ties=widen_top_ties,
        setup_names=("control", "extrapolation"),
    )  # fmt: skip
    # Their extrapolation probes are needed at the compared layer only; elsewhere the control.
    gap_splits = {
        name: [
            setups_ if layer == compare_layer else {"control": setups_["control"]}
            for layer, setups_ in zip(layers, _per_layer(per, len(layers)), strict=True)
        ]
        for name, per in gap_splits.items()
    }
    skipped = skipped | control_skipped | gap_skipped
    found = control_points | gap_points
    control_points = {c: found[c] for c in extra if c in found}
    if not (splits or control_splits or gap_splits):
        return TaskRun(task, train, eval_, points, skipped, None, control_points)
    shared = shared_probes(
        sample, task, layers, seeds, epochs, order_seed, size_seed, cache, device
    )
    Xt = Xe = None
    if splits or gap_splits:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
    every = splits | control_splits | gap_splits
    run = run_splits(
        Xt, Xe, train, eval_, every, layers, seeds, shared, epochs, order_seed, device,
        epoch_folds=epoch_folds,
    )  # fmt: skip
    return TaskRun(task, train, eval_, points, skipped, run, control_points, shared.half)
