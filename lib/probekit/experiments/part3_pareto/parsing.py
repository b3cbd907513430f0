"""Dependency parsing as a probing task (Pimentel et al. 2020, §7.2 and appendices A and C).

Biaffine parsing probes read one sentence at a time and pick every word's head
(:mod:`probekit.probes.biaffine`). :func:`parse_linear_pareto` trains linear parsers under the
nuclear norm (Figs. 7 and 8); :func:`parse_mlp_pareto` trains MLP parsers under memorisation
complexity (Figs. 1, 5 and 6, Table 2); :func:`parse_mlp_seeds` trains one MLP parser again under
several seeds, for a comparison that must include training variance. Items are test words;
accuracy is UAS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.part3_pareto.memorisation import (
    CONDITIONS,
    memorisation_rows,
    memorisation_table,
    run_conditions,
)
from probekit.experiments.part3_pareto.parametric import alpha_values
from probekit.experiments.part3_pareto.representations import SPLITS, Representation, Splits
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.io import treebanks as pkdata
from probekit.methods.pareto import controls
from probekit.probes import biaffine, biaffine_stack, mlp_stack
from probekit.probes.biaffine_stack import ParseRun, ParseSet
from probekit.probes.threads import torch_threads
from probekit.probes.training import TrainOptions


def _heads(sentences: Sequence[pkdata.Sentence]) -> list[np.ndarray]:
    """Gold heads per sentence, int64 (n_s,) (0 = root, else 1-based word position)."""
    return [np.asarray(s.heads, dtype=np.int64) for s in sentences]


def _parse_correct(pred: list[list[np.ndarray]], gold: list[np.ndarray]) -> np.ndarray:
    """Which test words each probe attached right, the items of UAS (§7.2).

    P lists of (n_s,) heads -> bool (P, N_words).
    """
    gold_flat = np.concatenate(gold)
    return np.stack([np.concatenate(p) == gold_flat for p in pred])


def _sentence_index(sentences: Sequence[pkdata.Sentence]) -> np.ndarray:
    """Each word's sentence, int64 (N_words,): the groups of sentence-level bootstraps."""
    return np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])


def parse_linear_pareto(
    rep: Representation,
    splits: Splits,
    *,
    n_probes: int,
    seed: int,
    options: TrainOptions = biaffine.PARSE_OPTIONS,
    alpha_max: float = 8.0,
    threads: int | None = 1,
    device: str = "cpu",
) -> ParetoRun:
    """Linear biaffine parsing probes with nuclear-norm complexity (Pimentel et al. 2020, §7.2).

    Appendix C, Figs. 7 and 8: l(i, j) = x_i^T U x_j, trained with alpha * ||U||_* for the weights
    of :func:`~.parametric.alpha_values`; heads decoded by argmax; the parsers train on
    ``device``.

    Returns:
        :class:`~.runs.ParetoRun` (items = test words: ``correct`` (P, N_test_words)) with
        columns representation, task ("parse"), family ("nuclear"), probe, alpha, complexity
        (||U||_*), dev_accuracy, accuracy (UAS), best_step, at_cap (ended at ``max_steps``),
        init_norm (||U||_* at initialisation).
    """
    alphas = alpha_values(n_probes, high=alpha_max)
    configs = [biaffine.BiaffineConfig(alpha=float(a)) for a in alphas]
    inputs = {k: rep.sentences(k) for k in SPLITS}
    heads = {k: _heads(splits[k]) for k in SPLITS}
    with torch_threads(threads):
        res = biaffine_stack.train_biaffine_probes(
            configs,
            inputs["train"],
            heads["train"],
            inputs["dev"],
            heads["dev"],
            seed=seed,
            onehot_dim=rep.onehot_dim,
            vocab_size=rep.vocab_size,
            onehot_trainable=rep.n_trainable,
            options=options,
            device=device,
        )
        correct = _parse_correct(res.predict(inputs["test"]), heads["test"])
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": "parse",
            "family": "nuclear",
            "probe": np.arange(len(configs)),
            "alpha": [c.alpha for c in configs],
            "complexity": res.complexity,
            "dev_accuracy": res.dev_uas,
            "accuracy": correct.mean(axis=1),
            "best_step": res.best_step,
            "at_cap": res.at_cap,
            "init_norm": res.init_complexity,
        }
    )
    return ParetoRun(table, correct, _sentence_index(splits.test))


def parse_mlp_pareto(
    rep: Representation,
    splits: Splits,
    configs: Sequence[mlp_stack.MLPConfig],
    *,
    conditions: Sequence[str] = CONDITIONS,
    shuffled_words: Any = None,
    seed: int,
    options: TrainOptions = biaffine.PARSE_OPTIONS,
    n_memorise: int = 0,
    memorise_steps: int = 500,
    threads: int | None = 1,
    device: str = "cpu",
) -> ParetoRun:
    """MLP biaffine parsers with memorisation complexity (Pimentel et al. 2020, §7.2).

    Appendix A; Figs. 1, 5 and 6, Table 2.

    Conditions as in :func:`~.memorisation.mlp_pareto`. The label-shuffled control permutes the
    heads within each training sentence
    (:func:`probekit.methods.pareto.controls.shuffle_heads`); the fully-shuffled one also reads
    its inputs from word-order-shuffled sentences (``shuffled_words`` (N_train_words, d)).
    Memorisation = UAS on the shuffled heads of the ``n_memorise`` training sentences (0 = all,
    the paper's whole training split) the control trains on. It trains with the parsers' options
    and selection rule: its own UAS, checked on a seeded sample of those sentences as large as
    the dev split (a check costs a control what it costs a parser), stopping at its plateau or
    after ``memorise_steps`` updates. Every config and its controls train as stacks
    (:func:`probekit.probes.biaffine_stack.train_parsers`), all with the same batch order; on
    the whole training split a config's parser and controls share one stack and every
    minibatch.

    Returns:
        :class:`~.runs.ParetoRun` (items = test words: ``correct`` (K, N_test_words) for the
        K configs) with columns as :func:`~.memorisation.mlp_pareto`, plus ``at_cap`` (the
        parser on the gold heads ended at ``max_steps``) and ``<control>_at_cap`` (the control
        ended at its cap).
    """
    conditions = run_conditions(conditions, rep, shuffled_words)
    bconfigs = [biaffine.BiaffineConfig(mlp=c) for c in configs]
    heads = {k: _heads(splits[k]) for k in SPLITS}
    train_in = rep.sentences("train")
    rows = memorisation_rows(len(train_in), n_memorise, seed)
    everything = len(rows) == len(train_in)
    streams = np.random.SeedSequence(seed).spawn(3)
    dev_in = rep.sentences("dev")
    sets = [ParseSet("normal", train_in, heads["train"], dev_in, heads["dev"])]
    # A control's checks read as many of its sentences as a parser's read dev sentences, so that
    # both pay the same for a check; its memorisation is then measured on all of them.
    check = np.sort(np.random.default_rng(streams[2]).permutation(len(rows))[: max(len(dev_in), 1)])
    memorise: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for name in conditions[1:]:
        source = train_in if name == "label_shuffled" else rep.sentences("train", shuffled_words)
        # The whole split keeps the very list, so that the stack reads its inputs once.
        X = source if everything else [source[i] for i in rows]
        rng = np.random.default_rng(streams[CONDITIONS.index(name) - 1])
        y = controls.shuffle_heads([heads["train"][i] for i in rows], rng)
        memorise[name] = (X, y)
        stop_x, stop_y = [X[i] for i in check], [y[i] for i in check]
        sets.append(ParseSet(name, X, y, stop_x, stop_y, max_steps=memorise_steps))
    common = dict(
        seed=seed,
        onehot_dim=rep.onehot_dim,
        vocab_size=rep.vocab_size,
        onehot_trainable=rep.n_trainable,
        options=options,
        device=device,
    )
    K = len(bconfigs)
    # Controls on a subset of the sentences cannot share the parsers' minibatches.
    groups = [sets] if everything else [sets[:1], sets[1:]]
    per_set: list[tuple[biaffine_stack.BiaffineResult, slice]] = []
    with torch_threads(threads):
        for group in filter(None, groups):
            runs = [ParseRun(c, k) for k in range(len(group)) for c in bconfigs]
            res = biaffine_stack.train_parsers(runs, group, **common)
            per_set += [(res, slice(k * K, (k + 1) * K)) for k in range(len(group))]
        normal, sl = per_set[0]
        which = range(sl.start, sl.stop)
        pred = normal.predict(rep.sentences("test"), which=which)
        correct = _parse_correct([pred[i] for i in which], heads["test"])
        memorised = {
            s.name: r.uas(*memorise[s.name], which=range(k.start, k.stop))
            for s, (r, k) in zip(sets[1:], per_set[1:], strict=True)
        }
    ctrl_cap = {s.name: r.at_cap[k] for s, (r, k) in zip(sets[1:], per_set[1:], strict=True)}
    table = memorisation_table(
        rep,
        "parse",
        configs,
        dev_accuracy=normal.dev_uas[sl],
        correct=correct,
        memorised=memorised,
        best_step=normal.best_step[sl],
        n_memorise=len(rows),
    ).assign(at_cap=normal.at_cap[sl])
    for name in CONDITIONS[1:]:
        table[f"{name}_at_cap"] = ctrl_cap.get(name, np.full(len(configs), np.nan))
    return ParetoRun(table, correct, _sentence_index(splits.test))


def parse_mlp_seeds(
    rep: Representation,
    splits: Splits,
    config: mlp_stack.MLPConfig,
    index: int,
    seeds: Sequence[int],
    *,
    seed: int,
    options: TrainOptions = biaffine.PARSE_OPTIONS,
    min_gain: float = biaffine.UAS_MIN_DELTA,
    threads: int | None = 1,
    device: str = "cpu",
) -> ParetoRun:
    """One MLP parser architecture trained on the gold heads once per seed (§7.2).

    Each of ``seeds`` drives one run's initialisation and dropout; data, representation,
    architecture (``config``, number ``index`` of the chapter's architectures) and the
    minibatch order (drawn from ``seed``) stay fixed, so the runs differ by training randomness
    alone, which a comparison of two parsers must include (Reimers & Gurevych 2017). The runs
    train as one stack (:func:`probekit.probes.biaffine_stack.train_parsers`; type-level one-hot
    runs one after another, as their tables are drawn per seed). ``min_gain`` is the smallest
    dev-UAS gain that counts as an improvement.

    Returns:
        :class:`~.runs.ParetoRun` with one row per seed (columns representation, task
        ("parse"), family ("mlp"), probe (``index``), seed, dev_accuracy, accuracy (UAS),
        best_step, at_cap) and ``correct`` (k, N_test_words).
    """
    heads = {k: _heads(splits[k]) for k in SPLITS}
    train = ParseSet(
        "normal", rep.sentences("train"), heads["train"], rep.sentences("dev"), heads["dev"]
    )
    runs = [ParseRun(biaffine.BiaffineConfig(mlp=config), 0, int(s)) for s in seeds]
    with torch_threads(threads):
        res = biaffine_stack.train_parsers(
            runs,
            [train],
            seed=seed,
            onehot_dim=rep.onehot_dim,
            vocab_size=rep.vocab_size,
            onehot_trainable=rep.n_trainable,
            options=options,
            min_gain=min_gain,
            device=device,
        )
        hits = _parse_correct(res.predict(rep.sentences("test")), heads["test"])
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": "parse",
            "family": "mlp",
            "probe": index,
            "seed": [int(s) for s in seeds],
            "dev_accuracy": res.dev_uas,
            "accuracy": hits.mean(axis=1),
            "best_step": res.best_step,
            "at_cap": res.at_cap,
        }
    )
    return ParetoRun(table, hits, _sentence_index(splits.test))
