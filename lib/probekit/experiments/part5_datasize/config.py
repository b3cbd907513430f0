"""Typed configurations of the Part V chapters (Zhu et al. 2022), one per chapter.

The three chapters share one set-up, :class:`DataSizeConfig` (treebank, model and layer, the
subsets of §4.1 and how probes are trained); each chapter's class adds what its own
experiments read. A chapter builds its configuration once from its parameters::

    config = BoundsConfig.from_parameters(globals())

A missing parameter, a value of the wrong type or an invalid value (an unknown task, a
negative size, ...) is a :class:`~probekit.errors.ParameterError` naming it, before anything
runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from probekit.errors import ParameterError
from probekit.experiments.config import ChapterConfig
from probekit.experiments.part5_datasize.encoders import REPS
from probekit.experiments.part5_datasize.training import CLASSIFIERS, Training
from probekit.io.embeddings import POOLINGS
from probekit.methods.datasize.pools import TASKS
from probekit.seeds import check_seed
from probekit.stats.checks import open_unit, positive_float, positive_int

#: Type-level vectors of the second comparison of chapter 53, as the chapter names them.
TYPE_VECTOR_NAMES = {"fasttext": "fastText", "random": "random"}
#: Seeds (subsets) per probe that a chapter whose claims compare trained probes needs.
MIN_CLAIM_SEEDS = 2


def _one_of(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ParameterError(name, f"'{value}' is not one of {', '.join(choices)}")


def _distinct(name: str, values: Sequence, choices: Sequence | None = None) -> None:
    if not values:
        raise ParameterError(name, "needs at least one value")
    if len(set(values)) != len(values):
        raise ParameterError(name, f"{list(values)} names a value twice")
    if choices is not None:
        for value in values:
            _one_of(name, value, choices)


@dataclass(frozen=True)
class DataSizeConfig(ChapterConfig):
    """What the three chapters of Part V share.

    The data, the layer and the subsets of Zhu et al. 2022, §4.1 (``size`` training examples per
    class, ``train : val : test = eta : 1 : 1``, one subset per seed), and how every probe is
    trained.
    """

    treebank: str
    model: str
    pooling: str
    layer: int
    rep: str
    sizes: list[int]
    max_train: int
    seeds: list[int]
    eta: float
    epochs: int
    min_updates: int
    lr: float
    batch_size: int

    def __post_init__(self) -> None:
        """Check the values (the types are checked by ``from_parameters``)."""
        _one_of("pooling", self.pooling, POOLINGS)
        _one_of("rep", self.rep, REPS)
        for size in self.sizes:
            positive_int("sizes", size)
        positive_int("max_train", self.max_train, minimum=0)
        _distinct("seeds", self.seeds)
        for seed in self.seeds:
            check_seed(seed, "seeds")
        positive_float("eta", self.eta)
        positive_int("epochs", self.epochs)
        positive_int("min_updates", self.min_updates, minimum=0)
        positive_float("lr", self.lr)
        positive_int("batch_size", self.batch_size)

    def training(self) -> Training:
        """How every probe of the chapter is trained (one Adam setting for both classifiers).

        On the chapter's ``device``.
        """
        return Training(
            epochs=self.epochs,
            min_updates=self.min_updates,
            lr=self.lr,
            lr_mlp=self.lr,
            batch_size=self.batch_size,
            device=self.device,
        )


def _check_claim_seeds(seeds: Sequence[int]) -> None:
    """Reject fewer than :data:`MIN_CLAIM_SEEDS` seeds for claims that compare trained probes.

    With one seed per probe the training randomness is invisible and the interval of a
    difference is too narrow (Reimers & Gurevych 2017).
    """
    if len(seeds) < MIN_CLAIM_SEEDS:
        raise ParameterError(
            "seeds",
            f"the chapter's claims compare trained probes over seeds and need at least "
            f"{MIN_CLAIM_SEEDS} of them, got {list(seeds)}",
            "give two or more seeds, e.g. -p seeds=0,1,2",
        )


def _check_power(config: PowerNoiseConfig | ComparisonProblemsConfig) -> None:
    open_unit("alpha", config.alpha)
    positive_int("n_sim", config.n_sim)
    # The prospective power analysis starts at 64 test items.
    positive_int("max_test", config.max_test, minimum=64)


@dataclass(frozen=True)
class BoundsConfig(DataSizeConfig):
    """Chapter 51: the generalisation bound against probes on growing subsets (§3.4, §4.2).

    Claim V.1 compares trained probes over seeds, so it needs at least
    :data:`MIN_CLAIM_SEEDS` seeds.
    """

    tasks: list[str]
    classifiers: list[str]
    delta: float

    def __post_init__(self) -> None:
        """Check the values of the shared and the chapter's own parameters."""
        super().__post_init__()
        _check_claim_seeds(self.seeds)
        _distinct("tasks", self.tasks, TASKS)
        _distinct("classifiers", self.classifiers, CLASSIFIERS)
        open_unit("delta", self.delta)


@dataclass(frozen=True)
class PowerNoiseConfig(DataSizeConfig):
    """Chapter 52: the power of McNemar's test against noisy representations (§3.5, §4.3).

    Claims V.3 and V.4 take the seeds as the replications of the study (each draws its own
    subsets), so they need at least :data:`MIN_CLAIM_SEEDS` seeds.
    """

    task: str
    sigmas: list[float]
    alpha: float
    n_sim: int
    max_test: int

    def __post_init__(self) -> None:
        """Check the values of the shared and the chapter's own parameters."""
        super().__post_init__()
        _check_claim_seeds(self.seeds)
        _one_of("task", self.task, TASKS)
        _distinct("sigmas", self.sigmas)
        for sigma in self.sigmas:
            positive_float("sigmas", sigma)
        _check_power(self)


@dataclass(frozen=True)
class ComparisonProblemsConfig(DataSizeConfig):
    """Chapter 53: three comparison problems, their recommendations, power and collapse checks.

    See §3.2, §3.5-3.6 and §4.4-4.6. Claim V.6 compares trained probes over seeds, so it needs
    at least :data:`MIN_CLAIM_SEEDS` seeds.
    """

    layer_b: int
    type_vectors: str
    type_dim: int
    fasttext_epochs: int
    tasks: list[str]
    delta: float
    divisor: float
    alpha: float
    n_sim: int
    max_test: int
    collapse_gap: float
    n_folds: int
    pilot_repeats: int
    pilot_size: int

    def __post_init__(self) -> None:
        """Check the values of the shared and the chapter's own parameters."""
        super().__post_init__()
        _check_claim_seeds(self.seeds)
        _one_of("type_vectors", self.type_vectors, tuple(TYPE_VECTOR_NAMES))
        positive_int("type_dim", self.type_dim)
        positive_int("fasttext_epochs", self.fasttext_epochs)
        _distinct("tasks", self.tasks, TASKS)
        open_unit("delta", self.delta)
        positive_float("divisor", self.divisor)
        _check_power(self)
        if not (math.isfinite(self.collapse_gap) and self.collapse_gap >= 0):
            raise ParameterError("collapse_gap", f"must be >= 0, got {self.collapse_gap!r}")
        positive_int("n_folds", self.n_folds, minimum=3)
        positive_int("pilot_repeats", self.pilot_repeats)
        positive_int("pilot_size", self.pilot_size)
