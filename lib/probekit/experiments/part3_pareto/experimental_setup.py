"""The set-up that chapters 32 to 34 share (Pimentel et al. 2020, §6): sentence samples, the
four representations, the random MLP architectures of §6.2, the fully-shuffled control's inputs
of §5 and the training options, built from a chapter's parameters by :func:`prepare`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from probekit.book.params import require
from probekit.experiments.part3_pareto.memorisation import CONDITIONS
from probekit.experiments.part3_pareto.parametric import FAMILIES
from probekit.experiments.part3_pareto.representations import (
    REPRESENTATIONS,
    TASKS,
    Representation,
    Splits,
    build_representations,
    check_names,
    load_splits,
    shuffled_contextual,
)
from probekit.io import treebanks as pkdata
from probekit.methods.pareto.architectures import sample_mlp_configs
from probekit.probes import mlp_stack
from probekit.probes.training import TrainOptions

# Parameters every chapter declares; "tasks", "families", "controls", "n_configs" and
# "max_hidden" are read only where a chapter declares them.
REQUIRED = (
    "treebank",
    "model",
    "layer",
    "pooling",
    "representations",
    "n_train",
    "n_dev",
    "n_test",
    "sample_seed",
    "type_dim",
    "fasttext_dim",
    "fasttext_epochs",
    "fasttext_path",
    "seed",
    "batch_size",
    "lr",
    "eval_every",
    "patience",
    "max_steps",
)


@dataclass(frozen=True, eq=False)
class ExperimentalSetup:
    """What a Part III chapter trains its probes on (Pimentel et al. 2020, §6).

    ``treebank``: the whole treebank (fastText trains on its training split); ``splits``: the
    sentence samples; ``representations``: by name, in the order asked for, with ``labels``
    their display names; ``configs``: the random MLP architectures (§6.2; empty when the
    chapter draws none); ``shuffled_words``: float16 (N_train_words, d) inputs of the
    fully-shuffled control (§5), or None when that control or the contextual representation is
    not run; ``options``: the probes' training options.
    """

    treebank: pkdata.Treebank
    splits: Splits
    representations: dict[str, Representation]
    labels: dict[str, str]
    configs: list[mlp_stack.MLPConfig]
    shuffled_words: np.ndarray | None
    options: TrainOptions


def prepare(params: Mapping[str, Any], *, eval_batch_size: int | None = None) -> ExperimentalSetup:
    """Build a chapter's :class:`ExperimentalSetup` from its parameters (Pimentel et al. 2020,
    §6; the MLP architectures of §6.2 and the fully-shuffled inputs of §5 where asked for).

    Papermill injects a chapter's parameters as the notebook's globals, so the chapters pass
    ``globals()``; reading the names listed in ``REQUIRED`` here keeps one copy of this set-up
    instead of one per chapter. Optional: ``tasks`` (checked against POSL and DAL),
    ``families`` (nuclear, rank), ``controls`` (the shuffled conditions of §5; with
    ``fully_shuffled`` and the contextual representation the shuffled inputs are embedded) and
    ``n_configs`` with ``max_hidden`` (:func:`~probekit.methods.pareto.architectures.sample_mlp_configs`).
    ``eval_batch_size`` overrides the training options' default (parsing scores whole
    sentences, so it needs smaller batches).
    """
    require(params, REQUIRED)
    p = params
    # Checked before anything is loaded, so a bad list fails at once.
    check_names("representations", p["representations"], REPRESENTATIONS)
    if "tasks" in p:
        check_names("tasks", p["tasks"], TASKS)
    if "families" in p:
        check_names("families", p["families"], FAMILIES)
    controls = p.get("controls", [])
    if "controls" in p:
        check_names("controls", controls, CONDITIONS[1:])
    tb = pkdata.load_treebank(p["treebank"])
    splits = load_splits(
        p["treebank"], p["n_train"], p["n_dev"], p["n_test"], seed=p["sample_seed"]
    )
    reps = build_representations(
        p["representations"],
        splits,
        model=p["model"],
        layer=p["layer"],
        pooling=p["pooling"],
        type_dim=p["type_dim"],
        fasttext_dim=p["fasttext_dim"],
        fasttext_text=tb["train"],
        fasttext_epochs=p["fasttext_epochs"],
        fasttext_path=p["fasttext_path"],
        seed=p["seed"],
    )
    shuffled_words = None
    if "contextual" in reps and "fully_shuffled" in controls:
        shuffled_words = shuffled_contextual(
            splits.train, p["model"], p["layer"], p["pooling"], seed=p["seed"]
        )
    configs = []
    if "n_configs" in p:
        configs = sample_mlp_configs(
            p["n_configs"], seed=p["seed"], max_hidden=p.get("max_hidden", 1024)
        )
    training = {k: p[k] for k in ("batch_size", "lr", "eval_every", "patience", "max_steps")}
    if eval_batch_size is not None:
        training["eval_batch_size"] = eval_batch_size
    return ExperimentalSetup(
        treebank=tb,
        splits=splits,
        representations=reps,
        labels={name: rep.label for name, rep in reps.items()},
        configs=configs,
        shuffled_words=shuffled_words,
        options=TrainOptions(**training),
    )
