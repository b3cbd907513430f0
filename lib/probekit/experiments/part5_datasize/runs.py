"""Probes over many subset sizes x seeds x configurations (Zhu et al. 2022, §4.1-4.6).

For each subset size and seed one stratified subset is drawn, and every configuration trains
on it (:func:`~probekit.experiments.part5_datasize.training.train_subsets`), so that the
configurations of a comparison are paired on the same test items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.config import DataSizeConfig
from probekit.experiments.part5_datasize.data import ProbedTreebank
from probekit.experiments.part5_datasize.encoders import ExampleEncoder, layer_encoder
from probekit.experiments.part5_datasize.training import (
    ProbingConfig,
    Training,
    check_probing_configs,
    train_subsets,
)
from probekit.io.treebanks import Sentence
from probekit.methods.datasize.pools import Pool, build_pool
from probekit.methods.datasize.subsets import Split, choose_sizes, stratified_split


@dataclass(eq=False)
class Runs:
    """Results of :func:`run_sizes`.

    ``scores``: one row per (config, size, seed) with ``n_train``, ``n_val``, ``n_test``
    (examples), ``acc_val`` and ``acc_test`` at the selected checkpoint, and that
    ``checkpoint``'s index.
    ``correct[(config, size, seed)]``: bool (n_test,) test correctness, items in the order of
    ``splits[(size, seed)].test``. ``dims``: input dimension per config.
    """

    n_classes: int
    configs: tuple[ProbingConfig, ...]
    seeds: tuple[int, ...]
    sizes: tuple[int, ...]
    scores: pd.DataFrame
    correct: dict[tuple[str, int, int], np.ndarray]
    splits: dict[tuple[int, int], Split]
    dims: dict[str, int] = field(default_factory=dict)

    def config(self, name: str) -> ProbingConfig:
        """The configuration called ``name``."""
        for c in self.configs:
            if c.name == name:
                return c
        raise ParameterError("config", f"'{name}' is not one of {[c.name for c in self.configs]}")

    @property
    def sizes_text(self) -> str:
        """The subset sizes as the chapters print them, e.g. ``"128, 256, 1,024"``."""
        return ", ".join(f"{s:,}" for s in self.sizes)

    @property
    def top_n_train(self) -> int:
        """Training examples of the largest subsets."""
        return self.n_train(max(self.sizes))

    @property
    def top_n_test(self) -> int:
        """Test examples of the largest subsets."""
        return self.n_test(max(self.sizes))

    def n_train(self, size: int) -> int:
        """Training examples (all classes) of the subsets of ``size``."""
        return int(self.scores.loc[self.scores["size"] == size, "n_train"].iloc[0])

    def n_test(self, size: int) -> int:
        """Test examples of the subsets of ``size``."""
        return int(self.scores.loc[self.scores["size"] == size, "n_test"].iloc[0])

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


def run_sizes(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    configs: Sequence[ProbingConfig],
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    eta: float = 4.0,
    balanced: bool | None = None,
    training: Training | None = None,
) -> Runs:
    """Train every config on stratified subsets of every size, once per seed.

    As in Zhu et al. 2022, §4.2-4.6: for each ``size`` (training examples per class) and ``seed``
    one subset is drawn with :func:`stratified_split` (seeded by ``[seed, size]``); every config
    trains on it with init and data order from ``seed``, so the configs of a comparison are paired
    on the same test items, as in the released code. Noisy configs (``sigma > 0``) get noise drawn
    once per subset (seeded by ``[seed, size, 7919]``) and scaled by each sigma. ``balanced``
    defaults to True for ``past_present`` and False (proportional strata) for ``pos``. Probes of
    one size, classifier and input dimension train together in batched passes. Returns
    :class:`Runs`.
    """
    check_probing_configs(configs, encoders)
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

    @property
    def head(self) -> Runs:
        """The runs of the first task."""
        return next(iter(self.runs.values()))


def run_tasks(
    sentences: Mapping[str, Sequence[Sentence]],
    tasks: Sequence[str],
    encoders: Callable[[Pool, str], Mapping[str, ExampleEncoder]],
    configs: Sequence[ProbingConfig],
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    rep: str = "root",
    eta: float = 4.0,
    max_train: int = 0,
    training: Training | None = None,
) -> TaskRuns:
    """Every config on subsets of every task's pool, for each size and seed.

    As in Zhu et al. 2022, §4.1-4.6. Per task:
    :func:`~probekit.methods.datasize.pools.build_pool` over ``sentences`` (a treebank),
    ``encoders(pool, rep)`` for the encoders the ``configs`` name, the sizes
    :func:`~probekit.methods.datasize.subsets.choose_sizes` allows (``sizes`` empty: powers of
    two, at most ``max_train`` training examples) and :func:`run_sizes`. ``rep`` is the input of
    the sentence-level tense task; ``pos`` always takes the word's own vector (``"root"``).
    """
    pools, encs, runs = {}, {}, {}
    for task in tasks:
        pool = build_pool(sentences, task)
        enc = dict(encoders(pool, rep if task == "past_present" else "root"))
        task_sizes = choose_sizes(pool, sizes, eta, max_train)
        pools[task], encs[task] = pool, enc
        runs[task] = run_sizes(pool, enc, configs, task_sizes, seeds, eta=eta, training=training)
    return TaskRuns(pools, encs, runs)


def run_on_layer(
    config: DataSizeConfig,
    data: ProbedTreebank,
    tasks: Sequence[str],
    configs: Sequence[ProbingConfig],
) -> TaskRuns:
    """:func:`run_tasks` with one encoder, ``"enc"``: layer ``config.layer`` of ``data``.

    On the subsets and with the training that ``config`` sets (chapters 51 and 52).
    """
    k = data.layer_index(config.layer)
    return run_tasks(
        data.treebank,
        tasks,
        lambda pool, rep: {"enc": layer_encoder(pool, data.embeddings, k, rep)},
        configs,
        config.sizes,
        config.seeds,
        rep=config.rep,
        eta=config.eta,
        max_train=config.max_train,
        training=config.training(),
    )
