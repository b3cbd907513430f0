"""The typed configurations of the Part IV chapters (Kunz & Kuhlmann 2021).

Each is built once from a chapter's parameters with ``from_parameters(globals())``.

All four chapters draw the same sentence sample, probe the same layers and make their splits
alike (:class:`ExtrapolationSampleConfig`); chapter 41 adds its scoring ensemble and what it
shows (:class:`ScoringFunctionsConfig`), chapters 42 and 43 their probe seeds, the size
control's seed and the layer the claims compare at (:class:`CriteriaConfig`), and chapter 44
also its scoring ensemble (:class:`LearningCriteriaConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass

from probekit.errors import ParameterError
from probekit.experiments.config import ChapterConfig


def _at_least(name: str, value: int, minimum: int) -> None:
    if value < minimum:
        raise ParameterError(name, f"must be >= {minimum}, got {value}")


def _not_empty(name: str, values: list[int]) -> None:
    if not values:
        raise ParameterError(name, "is empty: give at least one seed")


# The claims of chapters 42-44 compare trained probes over seeds: with one seed the seed
# variance is invisible and the interval too narrow (tests/test_verdicts.py shows it).
MIN_PROBE_SEEDS = 2


@dataclass(frozen=True)
class ExtrapolationSampleConfig(ChapterConfig):
    """The sample S_train, S_test of Kunz & Kuhlmann 2021, §3.3, its encoder and the training.

    ``n_train``/``n_eval`` 0 mean all sentences; ``layers`` empty means every layer (negative
    indices count from the last); ``order_seed`` -1 means corpus order, as released.
    ``widen_top_ties`` lowers m2 when ties at the top score leave a strict hard set empty (our
    choice; see :func:`~probekit.methods.extrapolation.splits.distributional_split_points`).
    """

    treebank: str
    model: str
    pooling: str
    layers: list[int]
    n_train: int
    n_eval: int
    sample_seed: int
    order_seed: int
    epochs: int
    widen_top_ties: bool

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        _at_least("n_train", self.n_train, 0)
        _at_least("n_eval", self.n_eval, 0)
        _at_least("epochs", self.epochs, 1)

    @property
    def order(self) -> int | None:
        """The trainer's data-order seed: None (corpus order) for a negative ``order_seed``."""
        return None if self.order_seed < 0 else self.order_seed


def _check_ensemble(config: ScoringFunctionsConfig | LearningCriteriaConfig) -> None:
    _not_empty("ensemble_seeds", config.ensemble_seeds)
    _at_least("ensemble_folds", config.ensemble_folds, 1)


@dataclass(frozen=True)
class ScoringFunctionsConfig(ExtrapolationSampleConfig):
    """Chapter 41: the §3.4.3 scoring ensemble, the layer shown, and the examples shown.

    ``ensemble_folds`` 1 trains the ensemble on every training example, as the paper does;
    2 or more cross-fit it, sentences dealt into folds with ``fold_seed``
    (:func:`~probekit.methods.extrapolation.grid.ensemble_folds`).
    """

    ensemble_seeds: list[int]
    ensemble_folds: int
    fold_seed: int
    score_layer: int
    n_examples: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _check_ensemble(self)
        _at_least("n_examples", self.n_examples, 0)


@dataclass(frozen=True)
class CriteriaConfig(ExtrapolationSampleConfig):
    """Chapters 42 and 43: the probe seeds of §3.6, the size control and the compared layer.

    The chapters' claims compare trained probes with seeds in their intervals, so ``seeds``
    needs at least :data:`MIN_PROBE_SEEDS` distinct seeds. ``size_seed`` draws the random half
    of the training examples that the size control (§3.5) trains on. ``epoch_folds`` 1 reads
    each probe at its best epoch on the items it is scored on, as the paper does; 2 or more
    choose the epoch on the other folds of evaluation sentences
    (:func:`~probekit.experiments.part4_extrapolation.runs.sentence_folds`).
    """

    seeds: list[int]
    size_seed: int
    compare_layer: int
    epoch_folds: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _at_least("epoch_folds", self.epoch_folds, 1)
        _not_empty("seeds", self.seeds)
        if len(set(self.seeds)) < MIN_PROBE_SEEDS:
            raise ParameterError(
                "seeds",
                f"has {len(set(self.seeds))} distinct seed(s); the claims compare trained probes "
                f"and need at least {MIN_PROBE_SEEDS}, so that seed variance enters the interval",
            )


@dataclass(frozen=True)
class LearningCriteriaConfig(CriteriaConfig):
    """Chapter 44: :class:`CriteriaConfig` and the §3.4.3 scoring ensemble.

    The ensemble's seeds must differ from the probes' ``seeds``: with the same seed, data, order
    and epochs an ensemble probe is the evaluated standard (and control) probe itself, so the
    hard set would be picked by the very probes it scores (Kunz & Kuhlmann 2021, §5.1, call the
    loss split circular; their released code scored losses in separate runs). Seeds alone only
    change the initialisation; ``ensemble_folds`` >= 2 also cross-fits the ensemble (see
    :class:`ScoringFunctionsConfig`), so that its probes train on other data than the evaluated
    ones and score only examples they did not train on.
    """

    ensemble_seeds: list[int]
    ensemble_folds: int
    fold_seed: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _check_ensemble(self)
        shared = sorted(set(self.ensemble_seeds) & set(self.seeds))
        if shared:
            raise ParameterError(
                "ensemble_seeds",
                f"shares seeds {shared} with the probes' seeds: the ensemble that picks the hard "
                "set would contain the probes it scores",
                "give the scoring ensemble seeds the probes do not use, e.g. 11-20",
            )
