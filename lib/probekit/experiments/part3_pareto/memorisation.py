"""Memorisation complexity (Pimentel et al. 2020, §5 and §6.2).

A probe is as complex as the shuffled labels it can memorise.

Every architecture trains under up to three ``CONDITIONS``: ``normal`` (gold labels; its test
accuracy is the accuracy axis), ``label_shuffled`` (labels permuted across the training set) and
``fully_shuffled`` (also reading word-order-shuffled sentences, contextual representations only).
A control's complexity is its accuracy on its own shuffled training set. :func:`mlp_pareto`
runs this for POSL and DAL; :mod:`.parsing` reuses the controls for dependency parsing.
:func:`compares_controls` and :func:`control_shift` set the two controls side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.representations import Representation, TaskData, check_names
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.methods.pareto import controls as pareto_controls
from probekit.probes import mlp_stack
from probekit.probes.mlp_stack import TrainingSet, train_mlps
from probekit.probes.threads import torch_threads
from probekit.probes.training import TrainOptions

CONDITIONS = ("normal", "label_shuffled", "fully_shuffled")


def memorisation_rows(n: int, n_memorise: int, seed: int) -> np.ndarray:
    """Sorted indices of the training items the shuffled controls train and are scored on.

    Int64, shape (min(n_memorise, n),): the training items (examples or sentences) on which the
    shuffled controls of Pimentel et al. 2020, §5 are trained and scored; all ``n`` when
    ``n_memorise`` is 0 or >= n. (The paper uses the whole split.)
    """
    if n_memorise < 0:
        raise ParameterError("n_memorise", f"must be >= 0 (0 means all), got {n_memorise}")
    if n_memorise == 0 or n_memorise >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=n_memorise, replace=False))


def control_options(
    options: TrainOptions | None, steps: int, *, until_plateau: bool = False
) -> TrainOptions:
    """Training options of the shuffled controls (Pimentel et al. 2020, §5).

    With ``until_plateau`` (chapters 33 and 34), the released criterion: a control trains on
    its shuffled training set, is checked on that same set (its memorisation), and stops once
    its loss there has not improved by ``options.min_delta`` bits for ``options.patience``
    checks, with ``steps`` as the cap on its updates; a control that reaches the cap was still
    memorising and counts in the chapter's cap share.

    Without it, exactly ``steps`` updates and no early stop: every architecture's memorisation
    after the same amount of training, for budgets too small to reach a plateau.
    """
    if steps < 1:
        raise ParameterError("memorise_steps", f"must be >= 1, got {steps}")
    base = options or TrainOptions()
    return replace(
        base,
        max_steps=steps,
        patience=base.patience if until_plateau else steps + 1,
        eval_every=min(base.eval_every, steps),
    )


RELEASED_STOPPING = TrainOptions()
"""The released code's stopping rule (a check every 100 updates, stop after 10 checks without a
0.02-bit gain); the controls of :func:`mlp_pareto` keep its 0.02-bit gain."""


def memorisation_options(options: TrainOptions | None, steps: int) -> TrainOptions:
    """Training options of the POSL and DAL controls (Pimentel et al. 2020, §5).

    The probes' own settings (``options``: batch size, learning rate, schedule, checks and
    patience) with the released 0.02-bit gain (:data:`RELEASED_STOPPING`), until the plateau
    with ``steps`` as the cap (:func:`control_options`). On shuffled labels the loss stays near
    the label entropy for hundreds of updates before a probe starts to memorise; the released
    code waits 1,000 updates so as not to stop on that first plateau. Here the patience counts
    only from the control's first gain (``wait_for_start``), so a control stops once its
    memorising levels off, however long it took to start.
    """
    base = options or TrainOptions()
    released = replace(base, min_delta=RELEASED_STOPPING.min_delta, wait_for_start=True)
    return control_options(released, steps, until_plateau=True)


def control_labels(y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Shuffled training labels of the two controls (Pimentel et al. 2020, §5).

    Independent corpus-wide token-level permutations for ``label_shuffled`` and ``fully_shuffled``.
    """
    a, b = np.random.SeedSequence(seed).spawn(2)
    return {
        "label_shuffled": pareto_controls.shuffle_labels(y, np.random.default_rng(a)),
        "fully_shuffled": pareto_controls.shuffle_labels(y, np.random.default_rng(b)),
    }


def run_conditions(
    conditions: Sequence[str], rep: Representation, shuffled_words: Any
) -> list[str]:
    """The conditions of :data:`CONDITIONS` that ``rep`` trains under (Pimentel et al. 2020, §5).

    In that order, so ``normal`` is always training set 0.

    The fully-shuffled control is dropped for type-level representations: shuffling the words of a
    sentence does not change a type's vector (footnote 10). Where it stays it needs
    ``shuffled_words``
    (:func:`~probekit.experiments.part3_pareto.representations.shuffled_contextual`).
    """
    check_names("conditions", conditions, CONDITIONS)
    if "normal" not in conditions:
        raise ParameterError("conditions", "must include 'normal' (the accuracy axis)")
    kept = [
        c
        for c in CONDITIONS
        if c in conditions and (c != "fully_shuffled" or rep.name == "contextual")
    ]
    if "fully_shuffled" in kept and shuffled_words is None:
        raise ParameterError("shuffled_words", "is needed for the fully-shuffled control")
    return kept


def mlp_pareto(
    rep: Representation,
    data: TaskData,
    configs: Sequence[mlp_stack.MLPConfig],
    *,
    conditions: Sequence[str] = CONDITIONS,
    shuffled_words: Any = None,
    seed: int,
    options: TrainOptions | None = None,
    n_memorise: int = 0,
    memorise_steps: int = 2000,
    threads: int | None = 1,
    device: str = "cpu",
) -> ParetoRun:
    """Random MLPs with memorisation complexity, for one representation and task.

    Pimentel et al. 2020, §5 and §6.2.

    Every config trains under each of ``conditions``:

    - ``normal``: gold labels, early stopping on dev (``options``); its test accuracy is the
      y-axis;
    - ``label_shuffled``: the training labels permuted at the token level;
    - ``fully_shuffled``: permuted labels, and inputs read from word-order-shuffled sentences
      (``shuffled_words`` (N_train_words, d), from
      :func:`~.representations.shuffled_contextual`); contextual representations only, since
      shuffling words does not change a type-level vector (footnote 10).

    A control's complexity is its *memorisation accuracy*: its accuracy on its own shuffled
    training set. As in the paper, the controls train on the whole training split (``n_memorise``
    = 0; a positive value draws that many training examples instead, a departure from §5) until
    their loss on it stops falling by the released rule, for at most ``memorise_steps``
    updates (:func:`memorisation_options`). Both controls of all configs of one shape train in
    one stack; every stack trains on ``device``.

    Returns:
        :class:`~.runs.ParetoRun` (``correct`` (K, N_test) for the K configs) with columns
        representation, task, family ("mlp"), probe, n_layers, hidden_size, dropout,
        dev_accuracy, accuracy, label_shuffled, fully_shuffled (NaN for controls not run),
        best_step, n_memorise, at_cap (the probe on the gold labels ended at ``max_steps``) and
        ``<control>_at_cap`` (the control ended at ``memorise_steps``; NaN when not run).
    """
    conditions = run_conditions(conditions, rep, shuffled_words)
    ex = data.examples
    X_train, y_train = rep.inputs("train", ex["train"].rows), ex["train"].y
    normal = TrainingSet("normal", X_train, y_train, rep.inputs("dev", ex["dev"].rows), ex["dev"].y)
    common = dict(
        n_classes=data.n_classes,
        seed=seed,
        onehot_dim=rep.onehot_dim,
        vocab_size=rep.vocab_size,
        onehot_trainable=rep.n_trainable,
        device=device,
    )
    rows = memorisation_rows(len(y_train), n_memorise, seed)
    shuffled = control_labels(y_train[rows], seed)
    controls = []
    for name in conditions[1:]:
        if name == "label_shuffled":
            X = X_train[rows]
        else:
            X = rep.inputs("train", ex["train"].rows[rows], shuffled_words)
        controls.append(TrainingSet(name, X, shuffled[name], X, shuffled[name]))
    memorised: dict[str, np.ndarray] = {}
    ctrl_cap: dict[str, np.ndarray] = {}
    with torch_threads(threads):
        res = train_mlps(configs, [normal], options=options, **common)
        pred = res.predict(rep.inputs("test", ex["test"].rows), 0)
        if controls:
            ctrl_options = memorisation_options(options, memorise_steps)
            ctrl = train_mlps(configs, controls, options=ctrl_options, **common)
            memorised = {c.name: ctrl.accuracy(c.X, c.y, k) for k, c in enumerate(controls)}
            ctrl_cap = {c.name: ctrl.at_cap[:, k] for k, c in enumerate(controls)}
    correct = pred == ex["test"].y[None, :]
    table = memorisation_table(
        rep,
        data.task,
        configs,
        dev_accuracy=res.stop_accuracy[:, 0],
        correct=correct,
        memorised=memorised,
        best_step=res.best_step[:, 0],
        n_memorise=len(rows),
        at_cap=res.at_cap[:, 0],
        control_at_cap=ctrl_cap,
    )
    return ParetoRun(table, correct, ex["test"].sent)


def memorisation_table(
    rep: Representation,
    task: str,
    configs: Sequence[mlp_stack.MLPConfig],
    *,
    dev_accuracy: np.ndarray,
    correct: np.ndarray,
    memorised: dict[str, np.ndarray],
    best_step: np.ndarray,
    n_memorise: int,
    at_cap: np.ndarray | None = None,
    control_at_cap: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The table of a memorisation run (Pimentel et al. 2020, §5 and §6.2), one row per config.

    Shared by :func:`mlp_pareto` and :func:`~.parsing.parse_mlp_pareto`.

    ``dev_accuracy`` and ``best_step`` (K,) come from the normal training, ``correct``
    (K, N_test) bool gives the test accuracy, and ``memorised`` maps each control that was run
    to its memorisation accuracy (K,); the others are NaN. When ``at_cap`` (K,) bool is given
    (the normal training ended at its step cap), the table has an ``at_cap`` column and one
    ``<control>_at_cap`` column per control of :data:`CONDITIONS`, from ``control_at_cap``
    (NaN for the controls not run).
    """
    nan = np.full(len(configs), np.nan)
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": task,
            "family": "mlp",
            "probe": np.arange(len(configs)),
            "n_layers": [c.n_layers for c in configs],
            "hidden_size": [c.hidden_size for c in configs],
            "dropout": [c.dropout for c in configs],
            "dev_accuracy": dev_accuracy,
            "accuracy": correct.mean(axis=1),
            "label_shuffled": memorised.get("label_shuffled", nan),
            "fully_shuffled": memorised.get("fully_shuffled", nan),
            "best_step": best_step,
            "n_memorise": n_memorise,
        }
    )
    if at_cap is not None:
        table["at_cap"] = np.asarray(at_cap, dtype=bool)
        for name in CONDITIONS[1:]:
            table[f"{name}_at_cap"] = (control_at_cap or {}).get(name, nan)
    return table


def compares_controls(representations: Sequence[str], controls: Sequence[str]) -> bool:
    """Whether a run can set the two controls of Pimentel et al. 2020, §5 side by side.

    True when both were run, and the contextual representation (the only one word order changes) is
    among ``representations``.
    """
    return "contextual" in representations and set(controls) == set(CONDITIONS[1:])


def control_shift(table: pd.DataFrame) -> float:
    """How much more a contextual probe memorises on word-shuffled sentences than on real ones.

    How much more of its shuffled labels it memorises on word-shuffled sentences than on the real
    ones (Pimentel et al. 2020, §5; their Fig. 6): the mean over the contextual rows of a
    :func:`memorisation_table` of ``fully_shuffled - label_shuffled`` (a share, negative when it
    memorises less).
    """
    ctx = table[table["representation"] == "contextual"]
    return float((ctx["fully_shuffled"] - ctx["label_shuffled"]).mean())
