"""Glue for the Part IV chapters: Kunz & Kuhlmann 2021 runs on one cached sample.

The chapters share one sample (S_train, S_test), embedded once with all layers
(:func:`load_sample`); a task's examples index that sample's flat embedding arrays
(:func:`task_examples`). Scores come from :mod:`probekit.methods.extrapolation`, either directly
(:func:`static_scores`) or from a probe ensemble (:func:`ensemble_scores`, cached on disk so two
chapters pay for it once). :func:`run_splits` trains the standard, control and extrapolation
probes of several splits of the same task in one batched pass, so probes that several splits
share (the standard/control probes on all training examples) are trained once. The remaining
functions turn a run into tables, figures and paired comparisons; :func:`run_criteria` does the
setup every chapter shares, from the chapter parameters to the combined tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments import plots
from probekit.io import embeddings, tasks, treebanks
from probekit.io.cache import Cache
from probekit.io.treebanks import Sentence
from probekit.methods.extrapolation import grid
from probekit.methods.extrapolation import scores as scoring
from probekit.methods.extrapolation import splits as extrapolation_splits
from probekit.probes.mlp import BATCH_SIZE, MLPTrainResult, ProbeSpec, train_batched
from probekit.representations.layers import resolve_layers
from probekit.stats.comparison import Comparison, compare

STATIC_SCORERS: tuple[str, ...] = (
    "sentence_length",
    "arc_length",
    "tag_proportion",
    "most_frequent_tag",
)
LEARNING_SCORERS: tuple[str, ...] = ("sample_loss", "speed_of_learning")
EXPERIMENT_SETUPS: tuple[str, ...] = ("standard", "control", "extrapolation")


@dataclass(frozen=True, eq=False)
class Sample:
    """S_train and S_test (Kunz & Kuhlmann 2021, §3.3) and their all-layer embeddings."""

    train: list[Sentence]
    eval: list[Sentence]
    emb_train: embeddings.Embeddings
    emb_eval: embeddings.Embeddings

    @property
    def n_layers(self) -> int:
        return self.emb_train.n_layers


def load_sample(
    treebank: str, model: str, pooling: str, n_train: int, n_eval: int, seed: int
) -> Sample:
    """Sample ``n_train`` train and ``n_eval`` dev sentences (0 = all) and embed both.

    Kunz & Kuhlmann 2021, §3.3 (1,000 + 1,000 sentences of EWT). One sample serves every layer
    (the released code drew a new one per layer); the embedding cache makes repeated calls free.
    """
    tb = treebanks.load_treebank(treebank)
    train = extrapolation_splits.sample_split(tb["train"], n_train or None, seed=seed)
    dev = extrapolation_splits.sample_split(tb["dev"], n_eval or None, seed=seed)
    return Sample(
        train,
        dev,
        embeddings.embed(train, model, pooling, progress=False),
        embeddings.embed(dev, model, pooling, progress=False),
    )


def task_examples(task: str, sample: Sample) -> tuple[tasks.Examples, tasks.Examples]:
    """Training and evaluation :class:`~probekit.io.tasks.Examples` of T1 ("pos") or T2 ("deprel").

    Kunz & Kuhlmann 2021, §3.3. The T2 label inventory comes from the training sentences.
    """
    if task == "pos":
        return (
            tasks.pos_examples(sample.train, sample.emb_train.offsets),
            tasks.pos_examples(sample.eval, sample.emb_eval.offsets),
        )
    if task == "deprel":
        inventory = tasks.deprel_inventory(sample.train)
        return (
            tasks.deprel_examples(sample.train, inventory, sample.emb_train.offsets),
            tasks.deprel_examples(sample.eval, inventory, sample.emb_eval.offsets),
        )
    raise ParameterError("task", f"'{task}' is not one of 'pos', 'deprel'")


def layer_inputs(
    sample: Sample, train: tasks.Examples, eval_: tasks.Examples, layers: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Stacked probe inputs, (L, N, d) and (L, M, d) (2d for T2), for :func:`run_splits`."""
    return (
        tasks.gather_layers([sample.emb_train.layer(k) for k in layers], train.rows),
        tasks.gather_layers([sample.emb_eval.layer(k) for k in layers], eval_.rows),
    )


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
    examples, recorded at :data:`~probekit.methods.extrapolation.scores.SPEED_CHECKPOINTS` updates and at the
    end. Returns ``{"sample_loss": (train (L, N), eval (L, M)), "speed_of_learning": ...}``.
    Both sets are scored by the same ensemble (trained on S_train only). Checkpoints beyond
    the probes' last update are left out (tiny samples only; 1,000 sentences give hundreds of
    updates per epoch). Cached on disk under the sample's embedding keys, so a second chapter
    reads the scores back.
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


def split_setups(
    scorer: str, train_scores: np.ndarray, eval_scores: np.ndarray, seed: int = 0
) -> tuple[extrapolation_splits.SplitPoints, dict[str, extrapolation_splits.Setup]]:
    """Split points (§3.5 rule of ``scorer``) and the standard/control/extrapolation setups.

    Kunz & Kuhlmann 2021, §3.5-3.6. ``scorer`` is one of
    :data:`probekit.methods.extrapolation.splits.SCORERS`; scores (N,) and (M,).
    """
    points = extrapolation_splits.split_points(scorer, train_scores, eval_scores)
    return points, extrapolation_splits.setups(
        train_scores, eval_scores, points, seed=seed, names=EXPERIMENT_SETUPS
    )


@dataclass(frozen=True, eq=False)
class SplitRun:
    """Probes of several splits of one task: the trainer's result and one index row per probe.

    ``index`` columns: split, layer, seed, setup, n_train, n_eval. ``y_eval`` (M,) gold labels.
    """

    result: MLPTrainResult
    index: pd.DataFrame
    y_eval: np.ndarray
    eval_masks: dict[tuple[str, int], np.ndarray]


def run_splits(
    X_train: np.ndarray,
    X_eval: np.ndarray,
    train: tasks.Examples,
    eval_: tasks.Examples,
    splits: Mapping[str, Mapping[str, extrapolation_splits.Setup] | Sequence[Mapping]],
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int = 5,
    order_seed: int | None = None,
) -> SplitRun:
    """Train every split's setups for every layer and seed in one batched pass (§3.6).

    Kunz & Kuhlmann 2021, §3.6. ``splits`` maps a split name to one :func:`split_setups` dict
    for all layers, or a list with one per layer (learning-based scores). ``X_train`` (L, N, d)
    and ``X_eval`` (L, M, d) from :func:`layer_inputs`, view i being ``layers[i]``. Probes that
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
    return SplitRun(result, index, np.asarray(eval_.y), masks)


def probe_table(run: SplitRun) -> pd.DataFrame:
    """One row per probe with its best-epoch accuracy in percent (§3.6), column ``accuracy``."""
    return run.index.assign(accuracy=100 * run.result.best_acc)


def setup_summary(run: SplitRun) -> pd.DataFrame:
    """Mean and SD over seeds of best-epoch accuracy (%) per split, layer and setup (§3.6)."""
    return (
        probe_table(run)
        .groupby(["split", "layer", "setup"], sort=False)
        .agg(
            accuracy=("accuracy", "mean"),
            sd=("accuracy", "std"),
            n_train=("n_train", "first"),
            n_eval=("n_eval", "first"),
        )
        .reset_index()
    )


def gap_table(run: SplitRun) -> pd.DataFrame:
    """Per split and layer: mean accuracy (%) of each setup and the two gaps that matter.

    Kunz & Kuhlmann 2021, §4: ``difficulty`` = standard - control (how much harder the hard set
    is) and ``extrapolation_gap`` = control - extrapolation (what training on easy data only
    costs on the same hard items).
    """
    wide = setup_summary(run).pivot_table(
        index=["split", "layer"], columns="setup", values="accuracy", sort=False
    )
    wide = wide.reindex(columns=list(EXPERIMENT_SETUPS))
    wide["difficulty"] = wide["standard"] - wide["control"]
    wide["extrapolation_gap"] = wide["control"] - wide["extrapolation"]
    wide.columns.name = None
    return wide.reset_index()


def hard_correct(run: SplitRun, split: str, layer: int, seed: int, setup: str) -> np.ndarray:
    """Per-item correctness, bool (H,), of one probe on its split's hard evaluation set."""
    idx = run.index
    hit = np.flatnonzero(
        (idx["split"] == split)
        & (idx["layer"] == layer)
        & (idx["seed"] == seed)
        & (idx["setup"] == setup)
    )
    if len(hit) != 1:
        raise ParameterError(
            "split/layer/seed", f"no single probe for {(split, layer, seed, setup)}"
        )
    hard = run.eval_masks[(split, int(layer))]
    return run.result.pred_best[hit[0]][hard] == run.y_eval[hard]


def compare_hard(run: SplitRun, split: str, layer: int, seed: int) -> Comparison:
    """Control vs extrapolation on the same hard items, same layer and seed (exact McNemar).

    Kunz & Kuhlmann 2021, §3.6 setups; the test is Zhu et al. 2022, §3.5
    (:func:`probekit.stats.comparison.compare`).
    """
    return compare(
        hard_correct(run, split, layer, seed, "control"),
        hard_correct(run, split, layer, seed, "extrapolation"),
        "control",
        "extrapolation",
    )


def _points_row(name: str, p: extrapolation_splits.SplitPoints) -> dict:
    """One split's points and the data that supplied each, as a table row (§3.5)."""
    return {
        "split": name,
        "rule": p.rule,
        "m1": p.m1,
        "m1 from": p.m1_from,
        "m2": p.m2,
        "m2 from": p.m2_from,
    }


def points_table(points: Mapping[str, extrapolation_splits.SplitPoints]) -> pd.DataFrame:
    """Split points per split, with the data that supplied each (Kunz & Kuhlmann §3.5)."""
    rows = [_points_row(name, p) for name, p in points.items()]
    return pd.DataFrame(rows).set_index("split")


def _no_split_figure():
    """A small placeholder figure, so a chapter on a tiny sample still renders its panels."""

    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 1.5))
    ax.text(0.5, 0.5, "no split could be made on this sample", ha="center", va="center")
    ax.set_axis_off()
    return fig


def setup_panels(table: pd.DataFrame, titles: Mapping[str, str], ncols: int = 2):
    """One panel per split: best-epoch accuracy per layer, mean ± SD over seeds, per setup.

    ``table`` is :func:`probe_table` (or several concatenated); ``titles`` maps split names, in
    panel order, to panel titles; splits absent from ``table`` (skipped) get no panel.
    Reproduces the layout of Kunz & Kuhlmann 2021, Figs. 1-5.
    """

    plots.use_style()
    names = [name for name in titles if (table["split"] == name).any()]
    if not names:
        return _no_split_figure()
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(plots.WIDTH, 2.8 * nrows), squeeze=False, sharex=True
    )
    for ax, name in zip(axes.ravel(), names, strict=False):
        part = table[table["split"] == name]
        plots.layer_curves(part, "accuracy", "accuracy (%)", hue="setup", title=titles[name], ax=ax)
        if ax is not axes.ravel()[0]:
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    return fig


def example_items(
    sentences: Sequence[Sentence],
    examples: tasks.Examples,
    scores: np.ndarray,
    mask: np.ndarray,
    k: int = 5,
    *,
    seed: int,
) -> pd.DataFrame:
    """``k`` seeded random examples from ``mask`` with word, label, score and sentence context.

    For showing easy and hard items (Kunz & Kuhlmann 2021, §3.5). ``scores`` and ``mask`` (N,).
    """
    picked = np.flatnonzero(mask)
    if len(picked) == 0:
        return pd.DataFrame(columns=["word", "label", "score", "context"])
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(picked, size=min(k, len(picked)), replace=False))
    rows = []
    for i in picked:
        forms = sentences[examples.sent[i]].forms
        j = int(examples.word[i])
        word = str(forms[j])
        if examples.head is not None:
            word = f"{word} → {forms[examples.head[i]]}"
        lo, hi = max(0, j - 4), min(len(forms), j + 5)
        context = " ".join(f"[{w}]" if lo + n == j else str(w) for n, w in enumerate(forms[lo:hi]))
        rows.append(
            {
                "word": word,
                "label": examples.labels[examples.y[i]],
                "score": float(scores[i]),
                "context": context,
            }
        )
    return pd.DataFrame(rows)


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
TASK_SPLITS: dict[str, tuple[str, ...]] = {
    "pos": (
        "sentence_length_linguistic",
        "sentence_length_pos",
        "tag_proportion",
        "most_frequent_tag",
        "sample_loss",
        "speed_of_learning",
    ),
    "deprel": (
        "sentence_length_linguistic",
        "sentence_length_deprel",
        "arc_length",
        "arc_length_modified",
        "sample_loss",
        "speed_of_learning",
    ),
}


def split_scores(
    split: str,
    train: tasks.Examples,
    eval_: tasks.Examples,
    learned: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
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


def split_sizes(
    entries: Mapping[str, tuple[extrapolation_splits.SplitPoints, np.ndarray, np.ndarray]],
) -> pd.DataFrame:
    """Split points, their sources and the easy/hard set sizes per split (§3.5).

    ``entries`` maps a split name to (points, train scores (N,), eval scores (M,)). Columns:
    rule, m1, m1 from, m2, m2 from, easy (count), easy % (of N), hard (count), hard % (of M).
    """
    rows = []
    for name, (p, ts, es) in entries.items():
        easy = int(extrapolation_splits.easy_mask(ts, p).sum())
        hard = int(extrapolation_splits.hard_mask(es, p).sum())
        rows.append(
            _points_row(name, p)
            | {
                "easy": easy,
                "easy %": 100 * easy / max(len(ts), 1),
                "hard": hard,
                "hard %": 100 * hard / max(len(es), 1),
            }
        )
    columns = [
        "split",
        "rule",
        "m1",
        "m1 from",
        "m2",
        "m2 from",
        "easy",
        "easy %",
        "hard",
        "hard %",
    ]
    return pd.DataFrame(rows, columns=columns).set_index("split")


def score_histograms(
    panels: Mapping[str, tuple[np.ndarray, np.ndarray, extrapolation_splits.SplitPoints]],
    ncols: int = 3,
):
    """Train and eval score distributions, one panel per entry, with m1 and m2 marked (§3.4-3.5).

    ``panels`` maps a title to (train scores (N,), eval scores (M,), split points). Shares of
    examples (%) on the y axis, so the two sets are comparable.
    """

    plots.use_style()
    names = list(panels)
    if not names:
        return _no_split_figure()
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(plots.WIDTH, 2.4 * nrows), squeeze=False)
    train_color, eval_color = plots.colors(2)
    for ax, name in zip(axes.ravel(), names, strict=False):
        ts, es, p = panels[name]
        both = np.concatenate([ts, es])
        bins = np.histogram_bin_edges(both, bins=min(30, max(len(np.unique(both)), 2)))
        for scores, color, label in ((ts, train_color, "train"), (es, eval_color, "eval")):
            weights = np.full(len(scores), 100 / max(len(scores), 1))
            ax.hist(scores, bins=bins, weights=weights, alpha=0.5, color=color, label=label)
        ax.axvline(p.m1, color="black", linestyle="--", linewidth=1, label="m1 (easy below)")
        ax.axvline(p.m2, color="black", linestyle=":", linewidth=1, label="m2 (hard above)")
        ax.set_ylabel("examples (%)")
        ax.set_title(name, fontsize="small")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=4, fontsize="small")
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    return fig


TIES_SUFFIX = " + ties at m2"


def include_top_ties(
    points: extrapolation_splits.SplitPoints, eval_scores: np.ndarray
) -> extrapolation_splits.SplitPoints:
    """Move m2 just below the top score when the strict rule m > m2 leaves D_hard empty.

    Kunz & Kuhlmann 2021, §3.5 define D_hard = {m > m2} with m2 the 75th percentile. When over a
    quarter of the evaluation examples share the maximum score (e.g. never-correct examples under
    speed of learning, score 1), m2 is that maximum and the hard set is empty. We then take m2
    as the next lower observed score, so D_hard = the tied top examples, and mark the rule with
    :data:`TIES_SUFFIX`. This is our choice, not the paper's; the released code instead dropped
    never-correct examples. Only percentile (distributional) split points are moved; ``points``
    is returned unchanged when the hard set is not empty or the rule is another one.
    """
    scores = np.asarray(eval_scores, dtype=np.float64)
    if points.rule != "distributional" or extrapolation_splits.hard_mask(scores, points).any():
        return points
    below = scores[scores < points.m2]
    if len(below) == 0 or points.m2 != scores.max():
        return points
    return extrapolation_splits.SplitPoints(
        points.m1, float(below.max()), points.m1_from, points.m2_from, points.rule + TIES_SUFFIX
    )


def _setups_with_ties(
    name: str, train_scores: np.ndarray, eval_scores: np.ndarray, seed: int, widen: bool
) -> tuple[extrapolation_splits.SplitPoints, dict[str, extrapolation_splits.Setup]]:
    points = extrapolation_splits.split_points(name, train_scores, eval_scores)
    if widen:
        points = include_top_ties(points, eval_scores)
    return points, extrapolation_splits.setups(
        train_scores, eval_scores, points, seed=seed, names=EXPERIMENT_SETUPS
    )


def build_splits(
    names: Sequence[str],
    train: tasks.Examples,
    eval_: tasks.Examples,
    n_layers: int,
    learned: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    seed: int = 0,
    widen_ties: bool = True,
) -> tuple[dict, dict, dict[str, str]]:
    """Setups for :func:`run_splits`, split points, and the splits that could not be made (§3.5).

    Kunz & Kuhlmann 2021, §3.5-3.6. Static splits give one setups dict and one
    :class:`~probekit.methods.extrapolation.splits.SplitPoints`; learning-based ones a list per layer (the
    ensemble scores every layer separately, §3.4.3). A split whose easy or hard set is empty
    (possible on small samples, since ties at a split point belong to neither set) is reported
    in the third dict, name → reason, instead of stopping the chapter. With ``widen_ties``, an
    empty hard set caused by ties at the top score is first widened by
    :func:`include_top_ties` (the rule name then ends with :data:`TIES_SUFFIX`).
    """
    splits: dict = {}
    points: dict = {}
    skipped: dict[str, str] = {}
    for name in names:
        try:
            if SPLIT_SCORER.get(name) in LEARNING_SCORERS:
                per = [
                    _setups_with_ties(
                        name, *split_scores(name, train, eval_, learned, i), seed, widen_ties
                    )
                    for i in range(n_layers)
                ]
                points[name] = [p for p, _ in per]
                splits[name] = [s for _, s in per]
            else:
                points[name], splits[name] = _setups_with_ties(
                    name, *split_scores(name, train, eval_), seed, widen_ties
                )
        except ParameterError as exc:
            if exc.name == "points":
                skipped[name] = str(exc).splitlines()[0]
            else:
                raise
    return splits, points, skipped


@dataclass(frozen=True, eq=False)
class TaskRun:
    """Everything a chapter shows for one task: examples, split points, skipped splits, probes."""

    task: str
    train: tasks.Examples
    eval: tasks.Examples
    points: dict
    skipped: dict[str, str]
    run: SplitRun | None


def run_task(
    sample: Sample,
    task: str,
    names: Sequence[str],
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int = 5,
    order_seed: int | None = None,
    learned: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> TaskRun:
    """Examples, splits and the three setups of every split ``names`` of ``task`` (§3.3-3.6).

    Kunz & Kuhlmann 2021, §3.6: per split, layer and seed one probe per setup; all probes of
    the task train in one batched pass. ``learned`` (from :func:`ensemble_scores` over the same
    ``layers``) is needed for learning-based splits. ``run`` is None if every split was skipped.
    """
    train, eval_ = task_examples(task, sample)
    splits, points, skipped = build_splits(names, train, eval_, len(layers), learned)
    run = None
    if splits:
        Xt, Xe = layer_inputs(sample, train, eval_, layers)
        run = run_splits(Xt, Xe, train, eval_, splits, layers, seeds, epochs, order_seed)
    return TaskRun(task, train, eval_, points, skipped, run)


TASK_LABEL: dict[str, str] = {"pos": "T1", "deprel": "T2"}
_PROBE_COLUMNS = ["split", "layer", "seed", "setup", "n_train", "n_eval", "accuracy", "task"]
_GAP_COLUMNS = ["split", "layer", *EXPERIMENT_SETUPS, "difficulty", "extrapolation_gap", "task"]


def combined_tables(task_runs: Sequence[TaskRun]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`probe_table` and :func:`gap_table` of several tasks, split names prefixed.

    Split names become e.g. "T1 sentence_length_pos" (Kunz & Kuhlmann's task names). Tasks whose
    splits were all skipped contribute nothing; with nothing at all the frames are empty but
    keep their columns, so a chapter on a tiny treebank still renders.
    """
    probes = [probe_table(t.run).assign(task=t.task) for t in task_runs if t.run is not None]
    gaps = [gap_table(t.run).assign(task=t.task) for t in task_runs if t.run is not None]
    out = []
    for frames, columns in ((probes, _PROBE_COLUMNS), (gaps, _GAP_COLUMNS)):
        table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
        table["split"] = table["task"].map(TASK_LABEL) + " " + table["split"]
        out.append(table)
    return out[0], out[1]


@dataclass(frozen=True, eq=False)
class ChapterRun:
    """What a Part IV chapter shows: its sample, probed layers, task runs and combined tables.

    ``tasks`` maps "pos" (T1) or "deprel" (T2) to its :class:`TaskRun`; ``probes`` and ``gaps``
    are :func:`combined_tables` of those runs (Kunz & Kuhlmann 2021, §3.3-3.6, §4).
    """

    sample: Sample
    layers: list[int]
    tasks: dict[str, TaskRun]
    probes: pd.DataFrame
    gaps: pd.DataFrame


def run_criteria(
    treebank: str,
    model: str,
    pooling: str,
    n_train: int,
    n_eval: int,
    sample_seed: int,
    layers: Sequence[int],
    seeds: Sequence[int],
    epochs: int,
    order_seed: int,
    splits: Mapping[str, Sequence[str]],
    ensemble_seeds: Sequence[int] | None = None,
) -> ChapterRun:
    """Sample, embed and run the splits ``splits[task]`` of each task (Kunz & Kuhlmann 2021, §3).

    The chapter parameters go through unchanged: ``n_train``/``n_eval`` 0 mean all sentences
    (:func:`load_sample`), ``layers`` empty means all (:func:`resolve_layers`), ``order_seed``
    -1 means corpus order, as released. With ``ensemble_seeds``, each task first gets its
    learning-based scores from :func:`ensemble_scores` (§3.4.3), needed by the splits
    ``sample_loss`` and ``speed_of_learning``.
    """
    sample = load_sample(treebank, model, pooling, n_train, n_eval, sample_seed)
    layer_list = resolve_layers(layers, sample.n_layers)
    order = None if order_seed < 0 else order_seed
    runs = {}
    for task, names in splits.items():
        learned = None
        if ensemble_seeds is not None:
            learned = ensemble_scores(sample, task, layer_list, ensemble_seeds, epochs, order)
        runs[task] = run_task(sample, task, names, layer_list, seeds, epochs, order, learned)
    probes, gaps = combined_tables(list(runs.values()))
    return ChapterRun(sample, layer_list, runs, probes, gaps)


# Where each chapter of Part IV saves its mean control - extrapolation gap per scoring function:
# (results slug, glued key) -> (task, scoring function).
LEDGER_KEYS: dict[tuple[str, str], tuple[str, str]] = {
    ("42_length_criteria", "t1_dist_gap_mean"): ("T1", "sentence length"),
    ("42_length_criteria", "t2_dist_gap_mean"): ("T2", "sentence length"),
    ("42_length_criteria", "t2_arc_gap_mean"): ("T2", "arc length"),
    ("42_length_criteria", "t2_arcmod_gap_mean"): ("T2", "arc length (modified)"),
    ("43_tag_criteria", "mft_gap_mean"): ("T1", "most frequent tag"),
    ("43_tag_criteria", "tp_gap_mean"): ("T1", "tag proportion"),
    ("44_learning_criteria", "t1_speed_gap_mean"): ("T1", "speed of learning"),
    ("44_learning_criteria", "t2_speed_gap_mean"): ("T2", "speed of learning"),
    ("44_learning_criteria", "t1_loss_gap_mean"): ("T1", "sample loss"),
    ("44_learning_criteria", "t2_loss_gap_mean"): ("T2", "sample loss"),
}
LEDGER_MATCH: tuple[str, ...] = ("n_train_sentences", "n_eval_sentences", "n_seeds", "epochs")


def gap_ledger(
    results: Mapping[str, Mapping[str, object]], reference: str
) -> tuple[pd.DataFrame, list[str]]:
    """Mean control - extrapolation gap per task and scoring function across Part IV (§4-5).

    Kunz & Kuhlmann 2021, §5.1 compare the scoring functions by this gap. ``results`` maps a
    chapter slug to its saved glue values (``build/results/<slug>.json``); chapters whose
    :data:`LEDGER_MATCH` values differ from those of ``reference`` (another profile's run) are
    left out and returned as the second value. Rows: task, scoring function, gap (points),
    chapter; NaN gaps (skipped splits) are dropped.
    """
    if reference not in results:
        raise ParameterError("reference", f"'{reference}' is not among {list(results)}")
    ref = results[reference]
    stale = [
        slug
        for slug, values in results.items()
        if any(values.get(k) != ref.get(k) for k in LEDGER_MATCH)
    ]
    rows = [
        {"task": task, "scoring function": name, "gap": float(results[slug][key]), "chapter": slug}
        for (slug, key), (task, name) in LEDGER_KEYS.items()
        if slug in results and slug not in stale and key in results[slug]
    ]
    table = pd.DataFrame(rows, columns=["task", "scoring function", "gap", "chapter"])
    table = table[np.isfinite(table["gap"].astype(float))].reset_index(drop=True)
    return table, stale
