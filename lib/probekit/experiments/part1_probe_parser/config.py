"""The typed configurations of Part I's chapters, built from their parameters.

Each is built with :meth:`~probekit.experiments.config.ChapterConfig.from_parameters`.

Chapter 12's :class:`ProbeParserConfig` extends the set-up it shares with chapter 22,
:class:`~probekit.experiments.tree_probing.config.SampleConfig` (Hall Maudslay et al. 2020,
§4.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from probekit.experiments.config import ChapterConfig, require_seeds
from probekit.experiments.tree_probing.config import SampleConfig, check_training_parameters


@dataclass(frozen=True)
class SyntacticDistanceConfig(ChapterConfig):
    """Chapter 11 (§2 of the paper): the split checked and drawn, the example and the seed.

    The treebank ``split`` whose trees are checked and drawn, the example sentence
    (``example_id``, else the first of ``example_length`` words) and the seed of the random
    order-preserving transforms (Prop. 1's remark).
    """

    treebank: str
    split: str
    example_id: str
    example_length: int
    transform_seed: int


@dataclass(frozen=True)
class ProbeParserConfig(SampleConfig):
    """Chapter 12 (§3-5 and App. A of the paper): encoder, layers, seeds, search and budget.

    The encoder, the layers and seeds trained (at least two distinct seeds: the claims compare
    trained models), the random search of (rank, lr, dropout) per layer group
    (``search_every``), the training budget, what the parser is early-stopped and selected on
    (``parser_selection``: "uuas" or the paper's "loss") and the layer of the test comparison
    (``None``: the best dev layer by UUAS).
    """

    model: str
    pooling: str
    layers: list[int]
    seeds: list[int]
    n_trials: int
    search_every: int
    search_seed: int
    ranks: list[int]
    lr_min: float
    lr_max: float
    dropout_max: float
    max_epochs: int
    patience: int
    parser_selection: str
    compare_layer: int | None

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        require_seeds(self.seeds, "claims I.2 to I.4")
        check_training_parameters(self)
