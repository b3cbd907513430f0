"""The set-up that chapters 32 to 34 share (Pimentel et al. 2020, §6).

Sentence samples, the four representations, the random MLP architectures of §6.2, the fully-shuffled
control's inputs of §5 and the training options, built from a chapter's configuration by
:func:`build_pareto_setup`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from probekit.experiments.part3_pareto.config import MemorisationSetupConfig, ParetoSetupConfig
from probekit.experiments.part3_pareto.representations import (
    Representation,
    Splits,
    build_representations,
    load_splits,
    shuffled_contextual,
)
from probekit.io import treebanks as pkdata
from probekit.probes import mlp_stack
from probekit.probes.training import TrainOptions


@dataclass(frozen=True, eq=False)
class ParetoSetup:
    """What a Part III probing chapter trains its probes on (Pimentel et al. 2020, §6).

    ``treebank``: the whole treebank (fastText trains on its training split); ``splits``: the
    sentence samples; ``representations``: by name, in the order asked for, with ``labels``
    their display names; ``architectures``: the random MLP architectures (§6.2) of each training
    seed (empty lists when the chapter trains none); ``shuffled_words``: float16 (N_train_words, d) inputs of the
    fully-shuffled control (§5), or None when that control or the contextual representation is
    not run; ``options``: the probes' training options.
    """

    treebank: pkdata.Treebank
    splits: Splits
    representations: dict[str, Representation]
    labels: dict[str, str]
    architectures: dict[int, list[mlp_stack.MLPConfig]]
    shuffled_words: np.ndarray | None
    options: TrainOptions

    @property
    def contextual_label(self) -> str:
        """The contextual model's display name, or "not run"."""
        return self.labels.get("contextual", "not run")


def build_pareto_setup(config: ParetoSetupConfig) -> ParetoSetup:
    """Build a chapter's :class:`ParetoSetup` (Pimentel et al. 2020, §6) from its configuration.

    With the MLP architectures of §6.2 and the fully-shuffled inputs of §5 where the chapter's
    configuration asks for them.

    The configuration has checked its names and values when it was made, so this only loads:
    the treebank, its seeded samples, the representations (the contextual model's embeddings
    come from the cache), and, with the fully-shuffled control and the contextual
    representation, the embeddings of the word-shuffled training sentences.
    """
    c = config
    tb = pkdata.load_treebank(c.treebank)
    splits = load_splits(c.treebank, c.n_train, c.n_dev, c.n_test, seed=c.sample_seed)
    reps = build_representations(
        c.representations,
        splits,
        model=c.model,
        layer=c.layer,
        pooling=c.pooling,
        type_dim=c.type_dim,
        fasttext_dim=c.fasttext_dim,
        fasttext_text=tb["train"],
        fasttext_epochs=c.fasttext_epochs,
        fasttext_path=c.fasttext_path,
        seed=c.seed,
        device=c.device,
    )
    shuffled_words = None
    if "contextual" in reps and c.fully_shuffled():
        shuffled_words = shuffled_contextual(
            splits.train, c.model, c.layer, c.pooling, seed=c.seed, device=c.device
        )
    return ParetoSetup(
        treebank=tb,
        splits=splits,
        representations=reps,
        labels={name: rep.label for name, rep in reps.items()},
        architectures={seed: config.architectures(seed) for seed in config.seeds},
        shuffled_words=shuffled_words,
        options=config.train_options(),
    )


def seed_arguments(
    setup: ParetoSetup, config: MemorisationSetupConfig, seed: int
) -> dict[str, Any]:
    """What one training seed's MLPs or MLP parsers and their controls train with (§5, §6.2).

    The keyword arguments that :func:`~.memorisation.mlp_pareto` and
    :func:`~.parsing.parse_mlp_pareto` share: the seed's architectures and conditions, the
    fully-shuffled inputs, the training options and the controls' budget.
    """
    return dict(
        configs=setup.architectures[seed],
        conditions=config.conditions(seed),
        shuffled_words=setup.shuffled_words,
        seed=seed,
        options=setup.options,
        n_memorise=config.n_memorise,
        memorise_steps=config.memorise_steps,
        device=config.device,
    )
