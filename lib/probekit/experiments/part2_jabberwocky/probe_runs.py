"""Chapter 22's probe runs (Hall Maudslay & Cotterell 2021, §5.1 and App. B).

Both probes on every encoder, at its dev-chosen layer and at layer 0, and on the type-level
fastText + position baseline, each scored on the normal and the Jabberwocky test sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.baselines import BASELINES
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.part2_jabberwocky.probes import (
    BEST,
    HYPERPARAMETER_SOURCES,
    LAYER0,
    LAYER_RULES,
    PROBE_LABELS,
    ProbeSettings,
    RepresentationRun,
    probe_settings,
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
from probekit.experiments.tree_probing.samples import embed_samples
from probekit.experiments.tree_probing.training import (
    cap_shares,
    prepare_features,
    search_groups,
    search_space,
    selection_rules,
)
from probekit.representations.layers import resolve_layers


@dataclass(frozen=True, eq=False)
class JabberwockyRuns:
    """What :func:`probe_representations` returns.

    ``runs``: one :class:`~.probes.RepresentationRun` per encoder (by resolved name) and
    :data:`~.representations.TYPE_LEVEL`; ``main``: the resolved name of the encoder the prose
    discusses; ``settings``: each representation's :class:`~.probes.ProbeSettings` (its
    searches, by the same keys as ``runs``); ``pieces``: the main encoder's mean wordpieces per
    substituted word on the normal and on the Jabberwocky sentences; ``test_embs``: its
    embeddings of the two test sets ("normal", "Jabberwocky"); ``order``: the representation
    labels in the order of the tables and figures, baselines last.
    """

    runs: dict[str, RepresentationRun]
    main: str
    settings: dict[str, ProbeSettings]
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
    def source(self) -> str:
        """Where the main encoder's probe settings came from, in words."""
        return self.settings[self.main].source

    def chosen_configs(self) -> dict[str, dict[str, float]]:
        """The main encoder's {rank, lr, dropout} per kind at each probe's chosen layer."""
        run, configs = self.main_run, self.settings[self.main].configs
        return {kind: configs[kind][run.chosen[kind]] for kind in configs}

    @property
    def per_sentence(self) -> pd.DataFrame:
        """All runs' per-sentence test scores, stacked (:class:`~.probes.RepresentationRun`)."""
        return pd.concat([r.per_sentence for r in self.runs.values()], ignore_index=True)

    @property
    def all_runs(self) -> pd.DataFrame:
        """Every training run of the chapter, search trials included, one row each.

        Columns ``representation``, ``stage`` ("search" or "trained"), ``kind``, ``layer``,
        ``epochs``, ``best_epoch`` and ``stopped_at_cap``.
        """
        cols = ["kind", "layer", "epochs", "best_epoch", "stopped_at_cap"]
        frames = []
        for name, run in self.runs.items():
            frames.append(run.dev[cols].assign(representation=name, stage="trained"))
            trials = self.settings[name].trials
            if not trials.empty:
                frames.append(trials[cols].assign(representation=name, stage="search"))
        return pd.concat(frames, ignore_index=True)

    def cap_shares(self) -> dict[str, float]:
        """Share of all the chapter's runs ended by the epoch cap, per kind and "all"."""
        return cap_shares(self.all_runs)


def settings_table(runs: JabberwockyRuns) -> pd.DataFrame:
    """Each probe's chosen {rank, lr, dropout} per searched layer of every representation.

    Indexed by (``representation``, ``probe``, ``searched layer``); columns ``rank``, ``lr``,
    ``dropout`` and ``trained layers`` (the layers of the run that use it).
    """
    rows = []
    for name, setting in runs.settings.items():
        trained = sorted(set(runs.runs[name].dev["layer"]))
        for kind, by_layer in setting.searched.items():
            for layer, chosen in sorted(by_layer.items()):
                users = [k for k in trained if setting.configs[kind].get(k) is chosen]
                rows.append(
                    {
                        "representation": short_model_name(name),
                        "probe": PROBE_LABELS[kind],
                        "searched layer": layer,
                        **{k: chosen[k] for k in ("rank", "lr", "dropout")},
                        "trained layers": ", ".join(map(str, users)),
                    }
                )
    return pd.DataFrame(rows).set_index(["representation", "probe", "searched layer"])


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
    selection_rules(config.parser_selection)


def _train_kwargs(config: JabberwockyProbesConfig) -> dict:
    return {
        "max_epochs": config.max_epochs,
        "patience": config.patience,
        "progress": True,
        "device": config.device,
    }


def _probe_encoder(
    name: str, config: JabberwockyProbesConfig, sets: JabberwockyTestSets, results_path: Path
) -> tuple[RepresentationRun, ProbeSettings, dict, tuple[float, float]]:
    """Both probes on one encoder: (run, settings, test embeddings, pieces)."""
    gold = sets.data.gold
    embs = embed_samples(
        {**sets.data.samples, "Jabberwocky": sets.jabberwocky}, name, config.pooling, config.device
    )
    n_layers = embs["train"].n_layers
    layers = sorted(set(resolve_layers(config.layers, n_layers)) | {0})
    groups = search_groups(layers, n_layers, config.search_every)
    features = prepare_features(embs, gold, sorted(set(layers) | set(groups.values())))
    selections = selection_rules(config.parser_selection)
    space = search_space(
        config.ranks, embs["train"].dim, config.lr_min, config.lr_max, config.dropout_max
    )
    settings = probe_settings(
        config.hyperparameters,
        results_path,
        name,
        sets.data.treebank.name,
        config.pooling,
        features,
        groups,
        config.search_every,
        space,
        config.n_trials,
        config.search_seed,
        selections,
        **_train_kwargs(config),
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
        settings.configs,
        layers,
        config.seeds,
        config.layer_rule,
        selections,
        features,
        **_train_kwargs(config),
    )
    pieces = pieces_of_substituted(embs["test"], embs["Jabberwocky"], sets.pairs)
    return run, settings, test_embs, pieces


def _probe_type_level(
    config: JabberwockyProbesConfig, sets: JabberwockyTestSets
) -> tuple[RepresentationRun, ProbeSettings]:
    """Both probes on fastText + position vectors (§5.1, App. B), with their own search."""
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
    features = prepare_features(vectors, gold, [0])
    selections = selection_rules(config.parser_selection)
    space = search_space(
        config.ranks, vectors["train"].dim, config.lr_min, config.lr_max, config.dropout_max
    )
    settings = probe_settings(
        "search",
        "",
        TYPE_LEVEL,
        sets.data.treebank.name,
        "",
        features,
        {0: 0},
        config.search_every,
        space,
        config.n_trials,
        config.search_seed,
        selections,
        **_train_kwargs(config),
    )
    run = run_representation(
        TYPE_LEVEL,
        vectors["train"],
        gold["train"].heads,
        vectors["dev"],
        gold["dev"],
        {"normal": vectors["normal"], "Jabberwocky": vectors["Jabberwocky"]},
        gold["test"],
        settings.configs,
        [0],
        config.seeds,
        config.layer_rule,
        selections,
        features,
        **_train_kwargs(config),
    )
    return run, settings


def probe_representations(
    config: JabberwockyProbesConfig, sets: JabberwockyTestSets, results_path: str | Path
) -> JabberwockyRuns:
    """Train and score both probes on every representation of chapter 22 (§5.1).

    For each encoder of :func:`~.representations.encoder_names` (``config.model`` first), the
    probes' {rank, lr, dropout} per layer group come from chapter 12's saved searches at
    ``results_path`` when they fit, or from a new search (:func:`~.probes.probe_settings`), and
    :func:`~.probes.run_representation` trains them on ``config.layers``, chooses a layer per
    probe on dev by ``config.layer_rule`` and scores it, and layer 0, on both test sets. The
    type-level baseline (:func:`~.representations.fasttext_position_vectors`, seeded with the
    first seed) gets its own search and is probed the same way. All parameters are checked
    first.
    """
    _check(config)
    names = encoder_names(config.model, config.models)
    runs, settings, found = {}, {}, {}
    for name in names:
        run, setting, test_embs, pieces = _probe_encoder(name, config, sets, Path(results_path))
        runs[name], settings[name] = run, setting
        found[name] = (test_embs, pieces)
    main = names[0]
    test_embs, pieces = found[main]
    runs[TYPE_LEVEL], settings[TYPE_LEVEL] = _probe_type_level(config, sets)
    order = [
        variant_label(short_model_name(name), variant)
        for name in names
        for variant in (BEST, LAYER0)
    ] + [TYPE_LEVEL, *BASELINES]
    return JabberwockyRuns(runs, main, settings, pieces, test_embs, order)
