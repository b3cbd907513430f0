"""The sample set-up and the training checks chapters 12 and 22 share.

:class:`SampleConfig` is the set-up chapters 12 and 22 share (Hall Maudslay et al. 2020, §4.1;
Hall Maudslay & Cotterell 2021, §5.1); both chapters' configurations extend it and check their
search and training parameters with :func:`check_training_parameters`.
"""

from __future__ import annotations

from dataclasses import dataclass

from probekit.errors import ParameterError
from probekit.experiments.config import ChapterConfig
from probekit.probes.structural_stack import SELECTIONS


@dataclass(frozen=True)
class SampleConfig(ChapterConfig):
    """The sentence samples chapters 12 and 22 probe (§4.1 of the paper).

    ``n_train`` and ``n_dev`` sentences of 2 to 50 words and ``n_test`` test sentences (0 keeps
    them all) drawn with ``sample_seed`` from ``treebank``; the test sentences are of 2 to 50
    words too when ``filter_test`` is set, else of any length. ``exclude_punct`` leaves
    punctuation out of UUAS.
    """

    treebank: str
    n_train: int
    n_dev: int
    n_test: int
    filter_test: bool
    sample_seed: int
    exclude_punct: bool


def check_training_parameters(config) -> None:
    """Check the search and training parameters chapters 12 and 22 share.

    ``n_trials``, ``search_every``, ``max_epochs`` and ``patience`` at least 1, a learning-rate
    range 0 < ``lr_min`` <= ``lr_max``, ``dropout_max`` in [0, 1) and ``parser_selection`` one
    of :data:`~probekit.probes.structural_stack.SELECTIONS`; a :class:`ParameterError` naming the
    first bad one, before any computation.
    """
    for name in ("n_trials", "search_every", "max_epochs", "patience"):
        if getattr(config, name) < 1:
            raise ParameterError(name, f"must be >= 1, got {getattr(config, name)}")
    if not 0 < config.lr_min <= config.lr_max:
        raise ParameterError("lr_min", f"needs 0 < lr_min <= lr_max, got {config.lr_min}")
    if not 0 <= config.dropout_max < 1:
        raise ParameterError("dropout_max", f"must lie in [0, 1), got {config.dropout_max}")
    if config.parser_selection not in SELECTIONS:
        raise ParameterError(
            "parser_selection", f"must be one of {SELECTIONS}, got {config.parser_selection!r}"
        )
