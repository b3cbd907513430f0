"""The typed configurations of the Part IV chapters (Kunz & Kuhlmann 2021).

Each is built once from a chapter's parameters with ``from_parameters(globals())``.

All four chapters draw the same sentence sample and probe the same layers
(:class:`ExtrapolationSampleConfig`); chapter 41 adds its scoring ensemble and what it shows
(:class:`ScoringFunctionsConfig`), chapters 42 and 43 their probe seeds and the layer of the
paired test (:class:`CriteriaConfig`), and chapter 44 also its scoring ensemble
(:class:`LearningCriteriaConfig`).
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


@dataclass(frozen=True)
class ExtrapolationSampleConfig(ChapterConfig):
    """The sample S_train, S_test of Kunz & Kuhlmann 2021, §3.3, its encoder and the training.

    ``n_train``/``n_eval`` 0 mean all sentences; ``layers`` empty means every layer (negative
    indices count from the last); ``order_seed`` -1 means corpus order, as released.
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

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        _at_least("n_train", self.n_train, 0)
        _at_least("n_eval", self.n_eval, 0)
        _at_least("epochs", self.epochs, 1)

    @property
    def order(self) -> int | None:
        """The trainer's data-order seed: None (corpus order) for a negative ``order_seed``."""
        return None if self.order_seed < 0 else self.order_seed


@dataclass(frozen=True)
class ScoringFunctionsConfig(ExtrapolationSampleConfig):
    """Chapter 41: the §3.4.3 scoring ensemble, the layer shown, and the examples shown."""

    ensemble_seeds: list[int]
    score_layer: int
    n_examples: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _not_empty("ensemble_seeds", self.ensemble_seeds)
        _at_least("n_examples", self.n_examples, 0)


@dataclass(frozen=True)
class CriteriaConfig(ExtrapolationSampleConfig):
    """Chapters 42 and 43: the probe seeds of §3.6 and the layer of the paired test."""

    seeds: list[int]
    compare_layer: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _not_empty("seeds", self.seeds)


@dataclass(frozen=True)
class LearningCriteriaConfig(CriteriaConfig):
    """Chapter 44: :class:`CriteriaConfig` and the seeds of the §3.4.3 scoring ensemble."""

    ensemble_seeds: list[int]

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        super().__post_init__()
        _not_empty("ensemble_seeds", self.ensemble_seeds)
