"""Probes over many subset sizes x seeds x configurations (Zhu et al. 2022, §4.1-4.6).

Logistic regression (:func:`probekit.probes.softmax.train_softmax_probes`) and an MLP with 20 hidden
units (:func:`probekit.probes.mlp.train_batched`) train in few batched passes. Each probe is
scored on its test set at the checkpoint with the best validation accuracy (the released code
logs the test predictions of the best trial's *last* epoch instead, reference repos §3.3).
Gaussian noise of standard deviation ``sigma`` may be added to every representation of a
configuration, train, validation and test alike (§4.3).

The paper's probes are tuned by a grid search over learning rate and batch size with up to 100
epochs (reference repos §3.3); ours use one Adam setting and a minimum number of updates, so
that small subsets are trained as long as large ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.encoders import ExampleEncoder
from probekit.io.treebanks import Sentence
from probekit.methods.datasize.pools import Pool, build_pool
from probekit.methods.datasize.subsets import Split, choose_sizes, stratified_split
from probekit.probes.mlp import ProbeSpec, train_batched
from probekit.probes.softmax import train_softmax_probes

CLASSIFIERS = ("logreg", "mlp20")
#: Hidden units of the paper's MLP probe (§4.1, §4.6).
MLP_HIDDEN = 20


@dataclass(frozen=True)
class Config:
    """One probing configuration {E, f} of Zhu et al. 2022, Definition 1 (T is the pool's task).

    ``encoder``: key of an :class:`Encoder`; ``classifier``: ``"logreg"`` or ``"mlp20"``;
    ``sigma``: standard deviation of the Gaussian noise added to the representations (§4.3).
    The paper's text writes the noise as N(0, sigma^2) with sigma^2 in {0.01, ..., 3}; its code
    passes those values as the standard deviation, and so do we.
    """

    name: str
    encoder: str
    classifier: str = "logreg"
    sigma: float = 0.0


@dataclass(frozen=True)
class Training:
    """How every probe is trained (one Adam setting; the paper grid-searches, §3.3 of the
    reference notes). A probe runs ``max(epochs, ceil(min_updates / steps_per_epoch))`` epochs
    and is evaluated at ``n_checks`` evenly spaced epoch ends; the checkpoint with the best
    validation accuracy gives its test predictions. ``max_bytes`` bounds the input views held
    at once (probes are trained in several passes beyond it)."""

    epochs: int = 20
    min_updates: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    lr_mlp: float = 1e-3
    n_checks: int = 10
    max_bytes: int = 400_000_000

    def schedule(self, n_train: int) -> tuple[int, list[int]]:
        """(epochs, checkpoint update counts) for a training set of ``n_train`` examples."""
        steps = math.ceil(n_train / self.batch_size)
        epochs = max(self.epochs, math.ceil(self.min_updates / steps))
        ends = np.unique(np.ceil(np.linspace(0, epochs, self.n_checks + 1)[1:]).astype(int))
        return epochs, [int(e) * steps for e in ends if e >= 1]


@dataclass(eq=False)
class Runs:
    """Results of :func:`run_sizes`.

    ``scores``: one row per (config, size, seed) with ``n_train``, ``n_val``, ``n_test``
    (examples), ``acc_val`` and ``acc_test`` at the selected checkpoint, and that
    ``checkpoint``'s index.
    ``correct[(config, size, seed)]``: bool (n_test,) test correctness, items in the order of
    ``splits[(size, seed)].test``. ``dims``: input dimension per config.
    """

    pool_task: str
    n_classes: int
    configs: tuple[Config, ...]
    seeds: tuple[int, ...]
    sizes: tuple[int, ...]
    scores: pd.DataFrame
    correct: dict[tuple[str, int, int], np.ndarray]
    splits: dict[tuple[int, int], Split]
    dims: dict[str, int] = field(default_factory=dict)

    def config(self, name: str) -> Config:
        for c in self.configs:
            if c.name == name:
                return c
        raise ParameterError("config", f"'{name}' is not one of {[c.name for c in self.configs]}")

    def mean_accuracy(self) -> pd.DataFrame:
        """Mean and SD of test accuracy over seeds, one row per (config, size)."""
        grouped = self.scores.groupby(["config", "size"], sort=False)
        out = grouped.agg(
            n_train=("n_train", "first"),
            n_test=("n_test", "first"),
            acc=("acc_test", "mean"),
            sd=("acc_test", "std"),
        )
        return out.reset_index()


def _check_configs(configs: Sequence[Config], encoders: Mapping[str, ExampleEncoder]) -> None:
    names = [c.name for c in configs]
    if not configs or len(set(names)) != len(names):
        raise ParameterError("configs", f"need distinct names, got {names}")
    for c in configs:
        if c.encoder not in encoders:
            raise ParameterError("configs", f"{c.name}: unknown encoder '{c.encoder}'")
        if c.classifier not in CLASSIFIERS:
            raise ParameterError("classifier", f"'{c.classifier}' is not one of {CLASSIFIERS}")
        if not (math.isfinite(c.sigma) and c.sigma >= 0):
            raise ParameterError("sigma", f"must be >= 0, got {c.sigma}")


def _view_key(config: Config, key: int) -> tuple:
    # Clean views are shared by all subsets; a noisy view belongs to one subset.
    return (config.encoder, config.sigma, key if config.sigma > 0 else None)


def _passes(probes: list[tuple[Config, int]], view_bytes: int, budget: int) -> list[list]:
    """Group probes (config, subset key) into passes whose distinct views fit ``budget``."""
    passes: list[list] = [[]]
    seen: set[tuple] = set()
    for probe in probes:
        view = _view_key(*probe)
        if view not in seen and passes[-1] and (len(seen) + 1) * view_bytes > budget:
            passes.append([])
            seen = set()
        seen.add(view)
        passes[-1].append(probe)
    return passes


def _train_pass(
    probes: list[tuple[Config, int]],
    splits: Mapping[int, Split],
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], np.ndarray]:
    """Train one pass of probes (config, subset key) of one classifier and input dimension.

    All subsets have equally many training rows. Returns, per probe, its correctness at each
    checkpoint on its subset's validation then test rows, bool (n_ckpt, n_val + n_test).
    """

    classifier = probes[0][0].classifier
    keys = sorted({key for _, key in probes})
    train_rows = np.unique(np.concatenate([splits[k].train for k in keys]))
    eval_rows = np.unique(np.concatenate([splits[k].eval for k in keys]))
    views = list(dict.fromkeys(_view_key(c, key) for c, key in probes))
    dim = encoders[probes[0][0].encoder].dim
    Xt = np.empty((len(views), len(train_rows), dim), dtype=np.float32)
    Xe = np.empty((len(views), len(eval_rows), dim), dtype=np.float32)
    clean: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for v, (enc, sigma, key) in enumerate(views):
        if enc not in clean:
            clean[enc] = (encoders[enc](train_rows), encoders[enc](eval_rows))
        Xt[v], Xe[v] = clean[enc]
        if sigma > 0:
            split = splits[key]
            n_tr, n_all = len(split.train), len(split.train) + len(split.eval)
            # One draw per subset, shared by every sigma, so noise levels differ only in scale.
            z = np.random.default_rng(noise_seed(key)).standard_normal((n_all, dim), np.float32)
            Xt[v, np.searchsorted(train_rows, split.train)] += sigma * z[:n_tr]
            Xe[v, np.searchsorted(eval_rows, split.eval)] += sigma * z[n_tr:]
    specs = [
        ProbeSpec(
            seed=init_seed(key),
            view=views.index(_view_key(c, key)),
            order_seed=init_seed(key),
            train=np.searchsorted(train_rows, splits[key].train),
        )
        for c, key in probes
    ]
    epochs, ckpts = training.schedule(len(splits[keys[0]].train))
    yt, ye = pool.y[train_rows], pool.y[eval_rows]
    if classifier == "logreg":
        correct = train_softmax_probes(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, lr=training.lr, checkpoints=ckpts,
        )  # fmt: skip
    else:
        result = train_batched(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, hidden=MLP_HIDDEN, lr=training.lr_mlp,
            checkpoints=ckpts,
        )  # fmt: skip
        correct = result.ckpt_correct_eval
    return {
        (c.name, key): correct[k][:, np.searchsorted(eval_rows, splits[key].eval)]
        for k, (c, key) in enumerate(probes)
    }


def _select(ckpt_correct: np.ndarray, n_val: int) -> tuple[int, float, np.ndarray]:
    """(checkpoint, validation accuracy, test correctness) at the best validation accuracy;
    ties go to the earliest checkpoint. ``ckpt_correct`` (n_ckpt, n_val + n_test)."""
    val_acc = ckpt_correct[:, :n_val].mean(axis=1)
    best = int(np.argmax(val_acc))
    return best, float(val_acc[best]), ckpt_correct[best, n_val:]


def train_subsets(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    configs: Sequence[Config],
    splits: Mapping[int, Split],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], tuple[int, float, np.ndarray]]:
    """Every config on every subset (equal training sizes), in batched passes grouped by
    classifier and input dimension (Zhu et al. 2022, §4.2-4.6 and §3.6); {(config, key):
    (checkpoint, acc_val, test correctness (n_test,))}."""
    keys = list(splits)
    groups: dict[tuple, list[tuple[Config, int]]] = {}
    for c in configs:
        for key in keys:
            groups.setdefault((c.classifier, encoders[c.encoder].dim), []).append((c, key))
    out = {}
    for (_, dim), probes in groups.items():
        view_bytes = sum(len(splits[k].train) + len(splits[k].eval) for k in keys) * dim * 4
        for part in _passes(probes, view_bytes, training.max_bytes):
            result = _train_pass(part, splits, pool, encoders, training, init_seed, noise_seed)
            for (name, key), cc in result.items():
                out[(name, key)] = _select(cc, len(splits[key].val))
    return out


def run_sizes(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    configs: Sequence[Config],
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    eta: float = 4.0,
    balanced: bool | None = None,
    training: Training | None = None,
) -> Runs:
    """Train every config on stratified subsets of every size, once per seed (Zhu et al. 2022,
    §4.2-4.6).

    For each ``size`` (training examples per class) and ``seed`` one subset is drawn with
    :func:`stratified_split` (seeded by ``[seed, size]``); every config trains on it with init
    and data order from ``seed``, so the configs of a comparison are paired on the same test
    items, as in the released code. Noisy configs (``sigma > 0``) get noise drawn once per
    subset (seeded by ``[seed, size, 7919]``) and scaled by each sigma. ``balanced`` defaults to
    True for ``past_present`` and False (proportional strata) for ``pos``. Probes of one size,
    classifier and input dimension train together in batched passes. Returns :class:`Runs`.
    """
    _check_configs(configs, encoders)
    training = training or Training()
    seeds = tuple(int(s) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ParameterError("seeds", f"need distinct seeds, got {list(seeds)}")
    if not sizes:
        raise ParameterError("sizes", "need at least one subset size")
    balanced = pool.task == "past_present" if balanced is None else balanced
    rows, correct, all_splits = [], {}, {}
    for size in (int(s) for s in sizes):
        splits = {s: stratified_split(pool.y, size, eta, [s, size], balanced) for s in seeds}
        all_splits.update({(size, s): sp for s, sp in splits.items()})
        results = train_subsets(
            pool, encoders, configs, splits, training,
            init_seed=lambda s: s, noise_seed=lambda s, size=size: [s, size, 7919],
        )  # fmt: skip
        for c in configs:
            for s in seeds:
                best, acc_val, test = results[(c.name, s)]
                correct[(c.name, size, s)] = test
                rows.append(
                    {
                        "config": c.name,
                        "size": size,
                        "seed": s,
                        "n_train": len(splits[s].train),
                        "n_val": len(splits[s].val),
                        "n_test": len(splits[s].test),
                        "acc_val": acc_val,
                        "acc_test": float(test.mean()),
                        "checkpoint": best,
                    }
                )
    return Runs(
        pool_task=pool.task,
        n_classes=pool.n_classes,
        configs=tuple(configs),
        seeds=seeds,
        sizes=tuple(int(s) for s in sizes),
        scores=pd.DataFrame(rows),
        correct=correct,
        splits=all_splits,
        dims={c.name: encoders[c.encoder].dim for c in configs},
    )


@dataclass(frozen=True, eq=False)
class TaskRuns:
    """A chapter's runs, by task: its example pool, its encoders by key and its :class:`Runs`."""

    pools: dict[str, Pool]
    encoders: dict[str, dict[str, ExampleEncoder]]
    runs: dict[str, Runs]


def run_tasks(
    sentences: Mapping[str, Sequence[Sentence]],
    tasks: Sequence[str],
    encoders: Callable[[Pool, str], Mapping[str, ExampleEncoder]],
    configs: Sequence[Config],
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    rep: str = "root",
    eta: float = 4.0,
    max_train: int = 0,
    training: Training | None = None,
) -> TaskRuns:
    """Every config on subsets of every task's pool, for each size and seed (Zhu et al. 2022,
    §4.1-4.6).

    Per task: :func:`~probekit.methods.datasize.pools.build_pool` over ``sentences`` (a treebank),
    ``encoders(pool, rep)`` for the encoders the ``configs`` name, the sizes
    :func:`~probekit.methods.datasize.subsets.choose_sizes` allows (``sizes`` empty: powers of two, at
    most ``max_train`` training examples) and :func:`run_sizes`. ``rep`` is the input of the
    sentence-level tense task; ``pos`` always takes the word's own vector (``"root"``).
    """
    pools, encs, runs = {}, {}, {}
    for task in tasks:
        pool = build_pool(sentences, task)
        enc = dict(encoders(pool, rep if task == "past_present" else "root"))
        task_sizes = choose_sizes(pool, sizes, eta, max_train)
        pools[task], encs[task] = pool, enc
        runs[task] = run_sizes(pool, enc, configs, task_sizes, seeds, eta=eta, training=training)
    return TaskRuns(pools, encs, runs)
