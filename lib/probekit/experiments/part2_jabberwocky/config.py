"""The typed configurations of Part II's chapters, built from their parameters.

Each is built with :meth:`~probekit.experiments.config.ChapterConfig.from_parameters`.

Chapter 22 shares chapter 12's sentence samples, so :class:`JabberwockyProbesConfig` extends
:class:`~probekit.experiments.tree_probing.config.SampleConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass

from probekit.experiments.config import ChapterConfig, require_seeds
from probekit.experiments.tree_probing.config import (
    SampleConfig,
    check_training_parameters,
)


@dataclass(frozen=True)
class JabberwockyCorpusConfig(ChapterConfig):
    """Chapter 21 (Hall Maudslay & Cotterell 2021, §3): the Jabberwocky corpus and its examples.

    The Jabberwocky version of the test split of ``treebank`` built with ``seed`` at
    substitution ``rate``, from the pseudoword list file ``pseudowords`` or ``n_pseudowords``
    generated ones; ``n_examples`` sentences shown and ``example_id``, the sentence drawn as a
    tree ("" picks one).
    """

    treebank: str
    seed: int
    rate: float
    pseudowords: str
    n_pseudowords: int
    n_examples: int
    example_id: str


@dataclass(frozen=True)
class JabberwockyProbesConfig(SampleConfig):
    """Chapter 22 (§4-5 and App. B of the paper): encoders, layers, probes, corpus, baselines.

    On top of the shared samples, the encoders (``model``, the one the prose discusses, and
    ``models``), the layers and the rule that chooses one on dev, the seeds, the Jabberwocky
    corpus (``jabberwocky_seed``, ``rate``, ``pseudowords``), where the probes' (rank, lr,
    dropout) come from (``hyperparameters``: "search" or "chapter12", with the search's
    settings, per group of ``search_every`` layers), what the perceptron probe is stopped and
    selected on (``parser_selection``), the training budget, the fastText + position baseline
    and the majority-tree baseline. At least two distinct ``seeds``: the claims compare
    trained probes.
    """

    model: str
    models: list[str]
    pooling: str
    layers: list[int]
    layer_rule: str
    seeds: list[int]
    jabberwocky_seed: int
    rate: float
    pseudowords: str
    hyperparameters: str
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
    fasttext_path: str
    fasttext_dim: int
    fasttext_epochs: int
    position_dim: int
    majority_min_count: int

    def __post_init__(self) -> None:
        """Check the values the types do not (``ParameterError`` naming the parameter)."""
        require_seeds(self.seeds, "claims II.1 to II.3")
        check_training_parameters(self)
