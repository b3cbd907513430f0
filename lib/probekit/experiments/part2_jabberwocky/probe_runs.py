"""Chapter 22's probe runs (Hall Maudslay & Cotterell 2021, §5.1 and App. B).

Both probes on every encoder, at its dev-chosen layer and at layer 0, and on the type-level
fastText + position baseline, each scored on the normal and the Jabberwocky test sentences.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.samples import embed_samples
from probekit.experiments.part1_probe_parser.training import search_space
from probekit.experiments.part2_jabberwocky.baselines import BASELINES
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.part2_jabberwocky.probes import (
    BEST,
    HYPERPARAMETER_SOURCES,
    LAYER0,
    LAYER_RULES,
    RepresentationRun,
    model_configs,
    run_representation,
    variant_label,
)
from probekit.experiments.part2_jabberwocky.representations import (
    TYPE_LEVEL,
    encoder_names,
    fasttext_position_vectors,
    pieces_of_substituted,
    short_model_name,
)
from probekit.experiments.part2_jabberwocky.test_sets import JabberwockyTestSets
from probekit.representations.layers import middle_layer, resolve_layers


@dataclass(frozen=True, eq=False)
class JabberwockyRuns:
    """What :func:`probe_representations` returns.

    ``runs``: one :class:`~.probes.RepresentationRun` per encoder (by resolved name) and
    :data:`~.representations.TYPE_LEVEL`; ``main``: the resolved name of the encoder the prose
    discusses; ``configs``: its probes' {rank, lr, dropout} per kind (also used by the
    type-level baseline) and ``source``, where they came from; ``pieces``: its mean wordpieces
    per substituted word on the normal and on the Jabberwocky sentences; ``test_embs``: its
    embeddings of the two test sets ("normal", "Jabberwocky"); ``order``: the representation
    labels in the order of the tables and figures, baselines last.
    """

    runs: dict[str, RepresentationRun]
    main: str
    configs: dict[str, dict[str, float]]
    source: str
    pieces: tuple[float, float]
    test_embs: dict[str, object]
    order: list[str]

    @property
    def encoders(self) -> list[str]:
        """The resolved names of the encoders probed, the main one first."""
        return [name for name in self.runs if name != TYPE_LEVEL]

    @property
    def main_run(self) -> RepresentationRun:
        """The run of the encoder the prose discusses."""
        return self.runs[self.main]

    @property
    def main_short(self) -> str:
        """The short name of that encoder (:func:`~.representations.short_model_name`)."""
        return short_model_name(self.main)

    @property
    def per_sentence(self) -> pd.DataFrame:
        """All runs' per-sentence test scores, stacked (:class:`~.probes.RepresentationRun`)."""
        return pd.concat([r.per_sentence for r in self.runs.values()], ignore_index=True)


def _check(config: JabberwockyProbesConfig) -> None:
    if not config.seeds:
        raise ParameterError("seeds", "needs at least one seed")
    if config.layer_rule not in LAYER_RULES:
        raise ParameterError(
            "layer_rule", f"must be one of {LAYER_RULES}, got {config.layer_rule!r}"
        )
    if config.hyperparameters not in HYPERPARAMETER_SOURCES:
        raise ParameterError(
            "hyperparameters",
            f"must be one of {HYPERPARAMETER_SOURCES}, got {config.hyperparameters!r}",
        )


def _probe_encoder(
    name: str, config: JabberwockyProbesConfig, sets: JabberwockyTestSets, results_path: Path
) -> tuple[RepresentationRun, dict, str, dict, tuple[float, float]]:
    """Both probes on one encoder: (run, configs, their source, test embeddings, pieces)."""
    gold = sets.data.gold
    train_kwargs = {"max_epochs": config.max_epochs, "patience": config.patience}
    embs = embed_samples(
        {**sets.data.samples, "Jabberwocky": sets.jabberwocky}, name, config.pooling
    )
    n_layers = embs["train"].n_layers
    space = search_space(
        config.ranks, embs["train"].dim, config.lr_min, config.lr_max, config.dropout_max
    )
    configs, source = model_configs(
        config.hyperparameters,
        results_path,
        name,
        sets.data.treebank.name,
        config.pooling,
        embs["train"],
        gold["train"].heads,
        embs["dev"],
        gold["dev"].heads,
        space,
        config.n_trials,
        config.search_seed,
        middle_layer(n_layers),
        **train_kwargs,
    )
    test_embs = {"normal": embs["test"], "Jabberwocky": embs["Jabberwocky"]}
    run = run_representation(
        short_model_name(name),
        embs["train"],
        gold["train"].heads,
        embs["dev"],
        gold["dev"],
        test_embs,
        gold["test"],
        configs,
        resolve_layers(config.layers, n_layers),
        config.seeds,
        config.layer_rule,
        **train_kwargs,
    )
    pieces = pieces_of_substituted(embs["test"], embs["Jabberwocky"], sets.pairs)
    return run, configs, source, test_embs, pieces


def _probe_type_level(
    config: JabberwockyProbesConfig, sets: JabberwockyTestSets, configs: Mapping
) -> RepresentationRun:
    """Both probes on fastText + position vectors (§5.1, App. B), with ``configs``."""
    samples, gold = sets.data.samples, sets.data.gold
    vectors = fasttext_position_vectors(
        sets.data.treebank["train"],
        {
            "train": samples["train"],
            "dev": samples["dev"],
            "normal": samples["test"],
            "Jabberwocky": sets.jabberwocky,
        },
        config.fasttext_dim,
        config.seeds[0],
        config.position_dim,
        config.fasttext_path,
        config.fasttext_epochs,
    )
    return run_representation(
        TYPE_LEVEL,
        vectors["train"],
        gold["train"].heads,
        vectors["dev"],
        gold["dev"],
        {"normal": vectors["normal"], "Jabberwocky": vectors["Jabberwocky"]},
        gold["test"],
        configs,
        [0],
        config.seeds,
        config.layer_rule,
        max_epochs=config.max_epochs,
        patience=config.patience,
    )


def probe_representations(
    config: JabberwockyProbesConfig, sets: JabberwockyTestSets, results_path: str | Path
) -> JabberwockyRuns:
    """Train and score both probes on every representation of chapter 22 (§5.1).

    For each encoder of :func:`~.representations.encoder_names` (``config.model`` first), the
    probes' {rank, lr, dropout} come from chapter 12's saved results at ``results_path`` or a
    new search (:func:`~.probes.model_configs`, on the middle layer), and
    :func:`~.probes.run_representation` trains them on ``config.layers``, chooses a layer per
    probe on dev by ``config.layer_rule`` and scores it, and layer 0, on both test sets. The
    type-level baseline (:func:`~.representations.fasttext_position_vectors`, seeded with the
    first seed) is then probed with the main encoder's settings.
    """
    _check(config)
    names = encoder_names(config.model, config.models)
    runs, found = {}, {}
    for name in names:
        run, configs, source, test_embs, pieces = _probe_encoder(
            name, config, sets, Path(results_path)
        )
        runs[name] = run
        found[name] = (configs, source, test_embs, pieces)
    main = names[0]
    configs, source, test_embs, pieces = found[main]
    runs[TYPE_LEVEL] = _probe_type_level(config, sets, configs)
    order = [
        variant_label(short_model_name(name), variant)
        for name in names
        for variant in (BEST, LAYER0)
    ] + [TYPE_LEVEL, *BASELINES]
    return JabberwockyRuns(runs, main, configs, source, pieces, test_embs, order)
