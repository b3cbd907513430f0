"""The two probes of chapter 22 (Hall Maudslay & Cotterell 2021, §4 and §5.1).

The metric each is judged by, its (rank, lr, dropout) per layer group (a random search of App.
B, or chapter 12's when it was made on the same encoder, treebank, pooling, layer groups and
selection rules), and training it on one representation, with the layer chosen on dev, for its
per-sentence test scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.tree_probing.training import (
    LABELS,
    Features,
    per_sentence_scores,
    search_by_layer,
    train_layers,
)
from probekit.io.results import load_results
from probekit.probes.structural import SearchSpace
from probekit.trees.evaluation import EvalSet

# The metric each probe is judged by (§5.1, "Metrics").
METRIC = {"structural": "dspr", "perceptron": "uuas"}
# How a probe's layer is chosen on dev: the paper's lowest loss, or its own metric.
LAYER_RULES = ("loss", "metric")
# Where the probes' (rank, lr, dropout) come from: chapter 12's search when it matches, or a
# new search.
HYPERPARAMETER_SOURCES = ("chapter12", "search")
# The two variants of an encoder: its dev-chosen layer and layer 0, the uncontextualised one.
BEST, LAYER0 = "best layer", "layer 0"
PROBE_LABELS = {"structural": "structural probe", "perceptron": "perceptron probe"}
METRIC_LABELS = {"dspr": "DSpr", "uuas": "UUAS (%)"}


def chapter12_configs(
    path: str | Path,
    model: str,
    treebank: str,
    pooling: str,
    searched: Sequence[int],
    search_every: int,
    selections: Mapping[str, str],
) -> dict[str, dict[int, dict[str, float]]] | None:
    """The (rank, lr, dropout) chapter 12's searches chose, if they fit this run.

    Reads chapter 12's saved results (``build/results/12_probe_vs_parser.json``). Returns
    ``{kind: {searched layer: {rank, lr, dropout}}}`` for the layers ``searched`` when the file
    exists and was made with the same resolved ``model`` name, ``treebank`` name, ``pooling``,
    ``search_every`` and selection rules, and searched every layer of ``searched``; else None
    (search again). A file that is not valid JSON is an error naming it
    (:func:`probekit.io.results.load_results`).
    """
    p = Path(path)
    saved = load_results(p.parent, [p.stem]).get(p.stem)
    if saved is None:
        return None
    same = (saved.get("model"), saved.get("treebank"), saved.get("pooling")) == (
        model,
        treebank,
        pooling,
    )
    same &= saved.get("search_every") == search_every
    same &= all(
        saved.get(f"{LABELS[kind]}_selection_rule") == rule for kind, rule in selections.items()
    )
    if not same or not set(searched) <= set(saved.get("searched_layer_list") or []):
        return None
    out: dict[str, dict[int, dict[str, float]]] = {}
    for kind in selections:
        label = LABELS[kind]
        try:
            out[kind] = {
                int(layer): {
                    "rank": int(saved[f"{label}_L{layer}_rank"]),
                    "lr": float(saved[f"{label}_L{layer}_lr"]),
                    "dropout": float(saved[f"{label}_L{layer}_dropout"]),
                }
                for layer in searched
            }
        except (KeyError, TypeError, ValueError):
            return None
    return out


@dataclass(frozen=True, eq=False)
class ProbeSettings:
    """Both probes' settings on one representation: per kind and trained layer, and the search.

    ``configs``: {kind: {trained layer: {rank, lr, dropout}}}; ``searched``:
    {kind: {searched layer: {rank, lr, dropout}}}; ``source``: where they came from, in words;
    ``trials``: every trial of the search (empty when chapter 12's were reused).
    """

    configs: dict[str, dict[int, dict[str, float]]]
    searched: dict[str, dict[int, dict[str, float]]]
    source: str
    trials: pd.DataFrame


def probe_settings(
    source: str,
    results_path: str | Path,
    model: str,
    treebank: str,
    pooling: str,
    features: Features,
    groups: Mapping[int, int],
    search_every: int,
    space: SearchSpace,
    n_trials: int,
    seed: int,
    selections: Mapping[str, str],
    **train_kwargs,
) -> ProbeSettings:
    """(rank, lr, dropout) per probe and trained layer for one representation.

    ``groups`` maps every trained layer to its searched layer
    (:func:`~probekit.experiments.tree_probing.training.search_groups`).
    ``source="chapter12"`` reuses chapter 12's searches (:func:`chapter12_configs`) when they
    fit; otherwise, and with ``source="search"``, runs
    :func:`~probekit.experiments.tree_probing.training.search_by_layer` (App. B of the
    paper: a random search per probe, ``n_trials`` trials on each searched layer, each probe
    selected by ``selections``). ``train_kwargs`` go to the trainer.
    """
    if source not in HYPERPARAMETER_SOURCES:
        raise ParameterError(
            "hyperparameters", f"must be one of {HYPERPARAMETER_SOURCES}, got {source!r}"
        )
    searched_layers = sorted(set(groups.values()))
    searched = None
    if source == "chapter12":
        searched = chapter12_configs(
            results_path, model, treebank, pooling, searched_layers, search_every, selections
        )
        trials, text = pd.DataFrame(), "chapter 12's random searches"
    if searched is None:
        searched, trials = search_by_layer(
            features, searched_layers, space, n_trials, seed, selections, **train_kwargs
        )
        where = ", ".join(map(str, searched_layers))
        plural = "s" if len(searched_layers) > 1 else ""
        text = f"a random search of {n_trials} trials per probe on layer{plural} {where}"
    configs = {
        kind: {layer: by_layer[g] for layer, g in groups.items()}
        for kind, by_layer in searched.items()
    }
    return ProbeSettings(configs, searched, text, trials)


def choose_layer(scores: pd.DataFrame, kind: str, rule: str = "loss") -> int:
    """The dev-chosen layer of one probe.

    It is read from the scores of
    :func:`probekit.experiments.tree_probing.training.train_layers`.

    ``rule="loss"``: the lowest mean dev loss (App. B of the paper: "choose the best layer
    based on loss on the development set"); ``"metric"``: the highest mean dev score on the
    probe's own metric (DSpr for the structural probe, UUAS for the perceptron). Ties: the
    lowest layer.
    """
    if rule not in LAYER_RULES:
        raise ParameterError("layer_rule", f"must be one of {LAYER_RULES}, got {rule!r}")
    rows = scores[scores["kind"] == kind]
    if rows.empty:
        raise ParameterError("kind", f"no dev scores for {kind!r}")
    if rule == "loss":
        means = rows.groupby("layer")["dev_loss"].mean()
        return int(means.index[int(np.argmin(means.to_numpy()))])
    means = rows.groupby("layer")[METRIC[kind]].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


def layer_rule_phrase(rule: str) -> str:
    """What :func:`choose_layer`'s ``rule`` picks, in words for the prose."""
    if rule not in LAYER_RULES:
        raise ParameterError("layer_rule", f"must be one of {LAYER_RULES}, got {rule!r}")
    return "the lowest dev loss" if rule == "loss" else "the best score on its metric"


def variant_label(name: str, variant: str) -> str:
    """The table and figure label of one variant of the encoder ``name``.

    The variant is :data:`BEST` or :data:`LAYER0`; the label is short, e.g.
    "all-MiniLM-L6-v2 · best layer".
    """
    if variant not in (BEST, LAYER0):
        raise ParameterError("variant", f"must be {BEST!r} or {LAYER0!r}, got {variant!r}")
    return f"{name} · {variant}"


@dataclass
class RepresentationRun:
    """What :func:`run_representation` returns for one representation (a model or fastText).

    ``dev``: the :func:`probekit.experiments.tree_probing.training.train_layers` table of
    every (kind, layer, seed) trained; ``chosen``: the dev-chosen layer per kind;
    ``per_sentence``: test scores, one row per (representation, kind, dataset, seed, sentence),
    where representation is "<name> · best layer" (the chosen layer) or "<name> · layer 0"
    (:func:`variant_label`), or just "<name>" when layer 0 is the only layer; ``probes``: the
    trained probes keyed (kind, layer, seed).
    """

    name: str
    dev: pd.DataFrame
    chosen: dict[str, int]
    per_sentence: pd.DataFrame
    probes: dict = field(repr=False)


def run_representation(
    name: str,
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev: EvalSet,
    test_embs: Mapping[str, object],
    test: EvalSet,
    configs: Mapping[str, Mapping],
    layers: Sequence[int],
    seeds: Sequence[int],
    layer_rule: str = "loss",
    selections: Mapping[str, str] | None = None,
    features: Features | None = None,
    **train_kwargs,
) -> RepresentationRun:
    """Train both probes on normal sentences, choose the layer on dev, score on each test set.

    Hall Maudslay & Cotterell 2021, §5.1: every layer of ``layers`` (and layer 0) is trained
    with the first seed and the layer is chosen per probe on dev (:func:`choose_layer`); the
    other seeds are trained only at the chosen layer and at layer 0, the uncontextualised
    baseline. ``configs[kind]``: one {rank, lr, dropout} or a map layer -> {rank, lr, dropout}.
    Each probe is early-stopped on ``selections[kind]`` (default: dev loss). Each probe is then
    scored (:func:`probekit.experiments.tree_probing.training.per_sentence_scores`) on
    every entry of ``test_embs`` (dataset name -> embeddings of the same sentences in the same
    order, scored against the same trees ``test``). ``features``: the prebuilt train and dev
    data of every layer; ``train_kwargs`` go to
    :func:`~probekit.probes.structural_stack.train_distance_probes`.
    """
    if not seeds:
        raise ParameterError("seeds", "needs at least one seed")
    if layer_rule not in LAYER_RULES:
        raise ParameterError("layer_rule", f"must be one of {LAYER_RULES}, got {layer_rule!r}")
    layers = sorted(set(layers) | {0})
    first, rest = seeds[0], list(seeds[1:])
    common = {"selections": selections, "features": features, **train_kwargs}
    dev_scores, probes = train_layers(
        train_emb, train_heads, dev_emb, dev, configs, layers, [first], **common
    )
    chosen = {kind: choose_layer(dev_scores, kind, layer_rule) for kind in configs}
    frames = [dev_scores]
    if rest:
        for kind, config in configs.items():
            more, more_probes = train_layers(
                train_emb,
                train_heads,
                dev_emb,
                dev,
                {kind: config},
                sorted({chosen[kind], 0}),
                rest,
                **common,
            )
            frames.append(more)
            probes |= more_probes
    # A representation with layer 0 only (fastText) has no separate uncontextualised variant.
    variants = (BEST, LAYER0) if layers != [0] else ("",)
    rows = []
    for kind in configs:
        kind_probes = {k: p for k, p in probes.items() if k[0] == kind}
        for variant in variants:
            layer = chosen[kind] if variant == BEST else 0
            label = variant_label(name, variant) if variant else name
            for dataset, emb in test_embs.items():
                df = per_sentence_scores(
                    kind_probes, emb, test, layer, train_kwargs.get("device", "cpu")
                )
                rows.append(df.assign(representation=label, layer=layer, dataset=dataset))
    per_sentence = pd.concat(rows, ignore_index=True)
    return RepresentationRun(
        name, pd.concat(frames, ignore_index=True), chosen, per_sentence, probes
    )
