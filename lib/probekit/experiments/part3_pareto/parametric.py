"""Parametric complexity (Pimentel et al. 2020, §4.1 and §6.1).

Linear probes whose complexity is the nuclear norm of [W | b] (trained on eq. 3) or the rank of W.

:func:`linear_pareto` trains one family's probes for one representation and task; the grids of
the two families are :func:`alpha_values` and :func:`rank_values`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.representations import SPLITS, Representation, TaskData
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.probes import linear
from probekit.probes.threads import torch_threads
from probekit.probes.training import TrainOptions

FAMILIES = ("nuclear", "rank")


def rank_values(n_classes: int, n_probes: int) -> np.ndarray:
    """Ranks of the rank-constrained probes (Pimentel et al. 2020, §4.1 and §6.1).

    Int64, shape (min(n_probes, C),): every rank 1..C when n_probes >= C; otherwise
    ``n_probes`` distinct ranks spread evenly in log scale over 1..C, so every small rank is
    trained, where a rank frontier rises fastest and each rank moves its hypervolume most. The
    released code uses int(linspace(1, C + 0.99, 50)), which with 50 probes repeats ranks.
    """
    if n_probes < 1:
        raise ParameterError("n_probes", f"must be >= 1, got {n_probes}")
    if n_probes >= n_classes:
        return linear.rank_grid(n_classes)
    if n_probes == 1:
        return np.ones(1, dtype=np.int64)
    # Rounding a log grid merges its first points; take more points until n distinct remain.
    k = n_probes
    while True:
        ranks = np.unique(np.rint(np.geomspace(1, n_classes, k)).astype(np.int64))
        if len(ranks) >= n_probes:
            # Should one more point add two ranks, keep the smallest ones and C.
            return np.append(ranks[: n_probes - 1], n_classes)
        k += 1


def alpha_values(n_probes: int, low: float = 2.0**-10, high: float = 8.0) -> np.ndarray:
    """The nuclear-norm weights α of eq. 3, float (n_probes,).

    0 and ``n_probes - 1`` values log-uniform on [low, high] (Pimentel et al. 2020, §6.1 and
    footnote 8: [2^-10, 8], 50 probes). On unit-length inputs weights above about 2^-3 already
    shrink a probe to a nuclear norm near 0, so with few probes a smaller ``high`` spends them where
    the frontier is drawn.
    """
    if n_probes < 2:
        raise ParameterError("n_probes", f"must be >= 2 for the alpha grid, got {n_probes}")
    if not 0 < low <= high:
        raise ParameterError("alpha_max", f"need 0 < alpha_min <= alpha_max, got {low}, {high}")
    return linear.alpha_grid(n_points=n_probes - 1, low=low, high=high)


def linear_pareto(
    rep: Representation,
    data: TaskData,
    family: str,
    *,
    n_probes: int,
    seed: int,
    options: TrainOptions | None = None,
    alpha_max: float = 8.0,
    threads: int | None = 1,
    device: str = "cpu",
) -> ParetoRun:
    """Linear probes of one family for one representation and task.

    Pimentel et al. 2020, §4.1 and §6.1.

    ``family="nuclear"``: probes trained on eq. 3 with the weights of :func:`alpha_values` (up to
    ``alpha_max``); complexity = ||[W | b]||_*. ``family="rank"``: rank-constrained probes with the
    ranks of :func:`rank_values`; complexity = r. All probes of a run train together in stacks
    (:func:`probekit.probes.linear.train_linear_probes`), stop early on the dev split and are scored
    on the test split. ``max_complexity`` in the table is the rank family's cap C (the nuclear norm
    has none of its own; the chapters cap it at 400). The probes train on ``device``.

    Returns:
        :class:`~.runs.ParetoRun` (``correct`` (P, N_test) for the P probes) with columns
        representation, task, family, probe, alpha, rank, complexity, nuclear_norm,
        numerical_rank, max_complexity, dev_accuracy, accuracy, best_step, at_cap (still
        improving on dev when training reached ``max_steps``).
    """
    C = data.n_classes
    if family == "nuclear":
        alphas = alpha_values(n_probes, high=alpha_max)
        configs = [linear.LinearProbeConfig(alpha=float(a)) for a in alphas]
    elif family == "rank":
        configs = [linear.LinearProbeConfig(rank=int(r)) for r in rank_values(C, n_probes)]
    else:
        raise ParameterError("family", f"'{family}' is not one of nuclear, rank")
    ex = data.examples
    X = {k: rep.inputs(k, ex[k].rows) for k in SPLITS}
    with torch_threads(threads):
        res = linear.train_linear_probes(
            configs,
            X["train"],
            ex["train"].y,
            X["dev"],
            ex["dev"].y,
            seed=seed,
            n_classes=C,
            onehot_dim=rep.onehot_dim,
            vocab_size=rep.vocab_size,
            onehot_trainable=rep.n_trainable,
            options=options,
            device=device,
        )
        pred = res.predict(X["test"])
    correct = pred == ex["test"].y[None, :]
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": data.task,
            "family": family,
            "probe": np.arange(len(configs)),
            "alpha": [c.alpha for c in configs],
            "rank": [c.rank if c.rank is not None else 0 for c in configs],
            "complexity": res.complexity,
            "nuclear_norm": res.nuclear_norm,
            "numerical_rank": res.rank,
            "max_complexity": float(C) if family == "rank" else np.inf,
            "dev_accuracy": res.dev_accuracy,
            "accuracy": correct.mean(axis=1),
            "best_step": res.best_step,
            "at_cap": res.at_cap,
        }
    )
    return ParetoRun(table, correct, ex["test"].sent)
