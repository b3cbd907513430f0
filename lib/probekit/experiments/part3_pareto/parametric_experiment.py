"""Chapter 32's experiment (Pimentel et al. 2020, §4.1 and §6.1).

Linear probes of every task, representation and family, and what their Pareto frontiers show.

- :func:`run_parametric` trains them (:class:`ParametricRuns`);
- :func:`parametric_hypervolumes` (Table 3) with :func:`parametric_hypervolume_table`, and
  :func:`plot_parametric` (Fig. 2, left);
- :func:`parametric_leaders` with :func:`parametric_leader_numbers` and
  :func:`parametric_leader_table`: who holds each frontier, and who wins the simple range;
- :func:`parametric_accuracy_numbers`: the best accuracies, without a budget;
- :func:`parametric_cap_shares`: how many probes ended at their step cap.

Claim III.3's interval (one-hot against the best other representation over the simple range) is
:func:`~.claims.onehot_simple_intervals`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.experiments.deviations import cap_share_table
from probekit.experiments.part3_pareto.config import ParametricConfig
from probekit.experiments.part3_pareto.experimental_setup import ParetoSetup
from probekit.experiments.part3_pareto.figures import placeholder_figure, plot_frontiers
from probekit.experiments.part3_pareto.frontiers import (
    hypervolume_stability,
    hypervolume_table,
    summarise_frontier,
    with_display_names,
)
from probekit.experiments.part3_pareto.paper import PAPER, paper_comparison
from probekit.experiments.part3_pareto.parametric import FAMILIES, linear_pareto
from probekit.experiments.part3_pareto.representations import (
    NON_CONTEXTUAL,
    REPRESENTATIONS,
    TASK_TITLES,
    TASKS,
    task_data,
)
from probekit.experiments.part3_pareto.runs import ParetoRun, combine, pool_seeds

AXIS_LABELS = {"nuclear": "nuclear norm of [W | b]", "rank": "rank of W"}


@dataclass(frozen=True, eq=False)
class ParametricRuns:
    """Chapter 32's linear probes (Pimentel et al. 2020, §4.1 and §6.1).

    ``runs`` by (task, representation, family), their rows stacked in ``table``, the number of
    labels of each task run (``n_classes``), the ``families`` run and the nuclear norm's cap
    ``max_norm``.
    """

    runs: dict[tuple[str, str, str], ParetoRun]
    table: pd.DataFrame
    n_classes: dict[str, int]
    families: list[str]
    max_norm: float

    @property
    def tasks(self) -> list[str]:
        """The tasks run, in the order asked for."""
        return list(self.n_classes)

    def cap(self, task: str, family: str) -> float:
        """The hypervolume's cap (§3) for one task and family.

        ``max_norm`` for the nuclear norm, the number of labels C for the rank (beyond which the
        constraint no longer binds).
        """
        return self.max_norm if family == "nuclear" else float(self.n_classes[task])


def run_parametric(setup: ParetoSetup, config: ParametricConfig) -> ParametricRuns:
    """Train chapter 32's linear probes (Pimentel et al. 2020, §4.1 and §6.1).

    For every task, representation and family of ``config``, ``n_probes`` probes with
    :func:`~.parametric.linear_pareto` under each training seed (the same penalty weights or
    ranks: every seed replicates the protocol), pooled (:func:`~.runs.pool_seeds`).
    """
    datasets = {task: task_data(task, setup.splits) for task in config.tasks}
    runs = {}
    for task, data in datasets.items():
        for name, rep in setup.representations.items():
            for family in config.families:
                runs[(task, name, family)] = pool_seeds(
                    {
                        seed: linear_pareto(
                            rep,
                            data,
                            family,
                            n_probes=config.n_probes,
                            seed=seed,
                            options=setup.options,
                            alpha_max=config.alpha_max,
                            device=config.device,
                        )
                        for seed in config.seeds
                    }
                )
    return ParametricRuns(
        runs=runs,
        table=combine(list(runs.values())),
        n_classes={task: data.n_classes for task, data in datasets.items()},
        families=list(config.families),
        max_norm=config.max_norm,
    )


def _frontier_inputs(runs: ParametricRuns) -> list[tuple[pd.DataFrame, str, float | str]]:
    """(probes, complexity column, cap) of each family's frontiers.

    The nuclear norm is capped at ``max_norm``, the rank at C (§3).
    """
    table = runs.table
    return [
        (table[table["family"] == family], "complexity", cap)
        for family, cap in (("nuclear", runs.max_norm), ("rank", "max_complexity"))
        if family in runs.families
    ]


def parametric_hypervolumes(runs: ParametricRuns) -> pd.DataFrame:
    """Hypervolumes of every frontier (Pimentel et al. 2020, §3, Table 3).

    The nuclear norm capped at ``max_norm`` and the rank at C, with the paper's English values in
    ``paper`` (:func:`~.frontiers.hypervolume_table`, :func:`~.paper.paper_comparison`).
    """
    return paper_comparison(
        pd.concat(
            [hypervolume_table(*frontier) for frontier in _frontier_inputs(runs)],
            ignore_index=True,
        )
    )


def parametric_stability(runs: ParametricRuns, seed: int) -> pd.DataFrame:
    """Whether each frontier of :func:`parametric_hypervolumes` has enough probes (§3).

    :func:`~.frontiers.hypervolume_stability` with the same caps, halves drawn with ``seed``,
    and ``complete``: a rank frontier with a probe for every rank 1..C under every training
    seed, to which no probe can be added.
    """
    stability = pd.concat(
        [hypervolume_stability(*frontier, seed=seed) for frontier in _frontier_inputs(runs)],
        ignore_index=True,
    )
    n_seeds = runs.table["seed"].nunique() if "seed" in runs.table else 1
    n_ranks = stability["task"].map(runs.n_classes) * n_seeds
    stability["complete"] = (stability["family"] == "rank") & (stability["n_probes"] == n_ranks)
    return stability


def parametric_hypervolume_table(hv: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """:func:`parametric_hypervolumes` for display.

    Ours, the paper's, the best accuracy within the cap and the number of probes there, indexed by
    task, family and representation.
    """
    columns = {
        "hypervolume": "hypervolume (ours)",
        "paper": "Table 3 (paper, English)",
        "best_accuracy": "best accuracy within cap",
        "n_within_cap": "probes within cap",
    }
    return (
        with_display_names(hv, labels)
        .rename(columns=columns)
        .set_index(["task", "family", "representation"])[list(columns.values())]
    )


def plot_parametric(runs: ParametricRuns, family: str, labels: Mapping[str, str]):
    """The Pareto curves of one family, one panel per task (Pimentel et al. 2020, Fig. 2, left).

    Also Fig. 9; a placeholder when the family was not run.
    """
    if family not in runs.families:
        return placeholder_figure(f"the {family} family was not run with these parameters")
    caps = {task: runs.cap(task, family) for task in runs.tasks}
    table = runs.table[runs.table["family"] == family]
    return plot_frontiers(table, "complexity", caps, AXIS_LABELS[family], labels=dict(labels))


def parametric_leaders(
    runs: ParametricRuns, simple_fraction: float, labels: Mapping[str, str]
) -> pd.DataFrame:
    """Each frontier in words (Pimentel et al. 2020, §3 and §6.1).

    With :func:`~.frontiers.summarise_frontier`: one row per (task, family) run, in the order of
    TASKS and FAMILIES, with the ``leaders`` phrase (bounds to one decimal for the nuclear norm,
    whole ranks for the rank), the representation with the largest hypervolume up to
    ``simple_fraction`` of the cap (``winner``, None when no probe is that simple) and its display
    name (``simple``).
    """
    rows = []
    for task in TASKS:
        for family in FAMILIES:
            if task not in runs.n_classes or family not in runs.families:
                continue
            table = runs.table
            sub = table[(table["task"] == task) & (table["family"] == family)]
            cap = runs.cap(task, family)
            fmt = "{:.0f}" if family == "rank" else "{:.1f}"
            s = summarise_frontier(sub, "complexity", cap, simple_fraction * cap, labels, fmt)
            rows.append(
                {
                    "task": task,
                    "family": family,
                    "winner": s.winner,
                    "simple": s.simple,
                    "leaders": s.leaders,
                }
            )
    return pd.DataFrame(rows, columns=["task", "family", "winner", "simple", "leaders"])


def parametric_leader_numbers(leaders: pd.DataFrame) -> dict[str, str]:
    """The chapter's glued phrases from :func:`parametric_leaders`.

    ``leaders_<task>_<family>`` and ``simple_<task>_<family>`` for every task and family, "not run"
    where not run.
    """
    numbers = {}
    found = {(r.task, r.family): r for r in leaders.itertuples()}
    for task in TASKS:
        for family in FAMILIES:
            row = found.get((task, family))
            numbers[f"leaders_{task}_{family}"] = row.leaders if row else "not run"
            numbers[f"simple_{task}_{family}"] = row.simple if row else "not run"
    return numbers


def parametric_leader_table(leaders: pd.DataFrame) -> pd.DataFrame:
    """:func:`parametric_leaders` for display, indexed by task and family."""
    return (
        leaders.assign(task=leaders["task"].map(TASK_TITLES))
        .rename(columns={"simple": "simple-probe winner", "leaders": "frontier held by"})
        .drop(columns="winner")
        .set_index(["task", "family"])
    )


def parametric_accuracy_numbers(runs: ParametricRuns) -> dict[str, float]:
    """The best test accuracies (%) of the linear probes, without a budget, and the paper's.

    The best test accuracy (%) of each task's and representation's linear probes, without a budget
    (``best_<task>_<rep>``, NaN where not run), the paper's released runs'
    (``best_paper_<task>_<rep>``), and the contextual representation's lead over the best type-level
    one (``ctx_gap_<task>``, points).
    """
    best = runs.table.groupby(["task", "representation"])["accuracy"].max()
    numbers = {}
    for task in TASKS:
        for name in REPRESENTATIONS:
            numbers[f"best_{task}_{name}"] = 100 * float(best.get((task, name), np.nan))
            numbers[f"best_paper_{task}_{name}"] = 100 * PAPER["best_linear"][task][name]
        others = [best[(task, n)] for n in NON_CONTEXTUAL if (task, n) in best]
        gap = (
            best[(task, "contextual")] - max(others)
            if (task, "contextual") in best and others
            else np.nan
        )
        numbers[f"ctx_gap_{task}"] = 100 * float(gap)
    return numbers


FAMILY_RUNS = {"nuclear": "nuclear-norm probes", "rank": "rank probes"}


def parametric_cap_shares(runs: ParametricRuns) -> pd.DataFrame:
    """The share of linear probes that ended at their step cap, by family (§6.1).

    Over every task and representation, and all together:
    :func:`~probekit.experiments.deviations.cap_share_table`.
    """
    t = runs.table
    return cap_share_table(
        {
            FAMILY_RUNS[family]: t.loc[t["family"] == family, "at_cap"].astype(bool).tolist()
            for family in runs.families
        }
    )
