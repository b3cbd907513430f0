"""Chapter 33's experiment (Pimentel et al. 2020, §5 and §6.2).

Random MLPs on POSL and DAL with memorisation of shuffled labels as complexity, and what their
frontiers show.

- :func:`architecture_table` (the architectures of §6.2) and :func:`run_memorisation`, which
  trains them (:class:`MemorisationRuns`);
- :func:`plot_memorisation` (Fig. 2, right), :func:`memorisation_hypervolumes` (Table 3) with
  :func:`memorisation_hypervolume_table`;
- :func:`plot_memorisation_controls` and :func:`control_numbers`: the two controls side by side;
- :func:`simple_vs_best_numbers` with :func:`simple_vs_best_table`: are simple probes enough;
- :func:`memorisation_leaders` with :func:`memorisation_leader_numbers`: who leads each
  frontier, and who wins the simple range;
- :func:`memorisation_cap_shares`: how many probes and controls ended at their step cap.

The intervals of claims III.4 and III.5 (the toy tasks' side) are in :mod:`.claims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.experiments.deviations import cap_share_table
from probekit.experiments.part3_pareto.config import MemorisationConfig
from probekit.experiments.part3_pareto.experimental_setup import ParetoSetup, seed_arguments
from probekit.experiments.part3_pareto.figures import (
    placeholder_figure,
    plot_control_frontiers,
    plot_frontiers,
)
from probekit.experiments.part3_pareto.frontiers import (
    hypervolume_stability,
    hypervolume_table,
    summarise_frontier,
    with_display_names,
)
from probekit.experiments.part3_pareto.memorisation import (
    compares_controls,
    control_shift,
    mlp_pareto,
)
from probekit.experiments.part3_pareto.paper import paper_comparison
from probekit.experiments.part3_pareto.representations import (
    REPRESENTATIONS,
    TASKS,
    task_data,
)
from probekit.experiments.part3_pareto.runs import ParetoRun, combine, pool_seeds
from probekit.methods.pareto.frontier import hypervolume
from probekit.probes.mlp_stack import MLPConfig


@dataclass(frozen=True, eq=False)
class MemorisationRuns:
    """Chapter 33's MLPs (Pimentel et al. 2020, §5 and §6.2).

    ``runs`` by (task, representation), their rows stacked in ``table``, the share of the most
    frequent training label of each task run (``majority``), the ``controls`` run, the control
    whose memorisation is the complexity axis (``x``) and the number of training examples of
    each task run (``n_train``).
    """

    runs: dict[tuple[str, str], ParetoRun]
    table: pd.DataFrame
    majority: dict[str, float]
    controls: list[str]
    x: str
    n_train: dict[str, int] = field(default_factory=dict)

    @property
    def tasks(self) -> list[str]:
        """The tasks run, in the order asked for."""
        return list(dict.fromkeys(task for task, _ in self.runs))

    @property
    def n_memorise(self) -> int:
        """How many training examples each control of the first task run memorised."""
        return int(self.table["n_memorise"].iloc[0])

    def n_memorised(self, task: str) -> int:
        """How many training examples each control of ``task`` memorised, 0 when not run."""
        rows = self.table.loc[self.table["task"] == task, "n_memorise"]
        return int(rows.iloc[0]) if len(rows) else 0

    @property
    def whole_split(self) -> bool:
        """Whether every control memorised every training example of its task, as in §5.

        False when the training sizes are unknown (``n_train`` empty).
        """
        known = bool(self.n_train)
        return known and all(self.n_memorised(task) == n for task, n in self.n_train.items())

    def least_memorised(self, task: str) -> float:
        """The smallest memorisation (share of shuffled labels) of ``task``'s MLPs, NaN if none."""
        values = self.table.loc[self.table["task"] == task, self.x].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        return float(values.min()) if values.size else float("nan")

    def majority_share(self, task: str) -> float:
        """The share of ``task``'s most frequent training label, NaN when not run.

        No probe memorises less.
        """
        return self.majority.get(task, float("nan"))


def architecture_table(architectures: Mapping[int, Sequence[MLPConfig]]) -> pd.DataFrame:
    """The random MLP architectures of Pimentel et al. 2020, §6.2, one row each.

    ``architectures``: each training seed's draws. Index: seed and architecture; columns: hidden
    layers, hidden size and dropout.
    """
    rows = [
        {"seed": seed, "architecture": k} | vars(c)
        for seed, configs in architectures.items()
        for k, c in enumerate(configs)
    ]
    return (
        pd.DataFrame(rows, columns=["seed", "architecture", "n_layers", "hidden_size", "dropout"])
        .rename(columns={"n_layers": "hidden layers", "hidden_size": "hidden size"})
        .set_index(["seed", "architecture"])
    )


def run_memorisation(setup: ParetoSetup, config: MemorisationConfig) -> MemorisationRuns:
    """Train chapter 33's MLPs (Pimentel et al. 2020, §5 and §6.2).

    For every task and representation, each training seed's architectures on the gold labels and
    under its controls (:meth:`~.config.MemorisationSetupConfig.conditions`;
    :func:`~.memorisation.mlp_pareto`), pooled (:func:`~.runs.pool_seeds`).
    """
    datasets = {task: task_data(task, setup.splits) for task in config.tasks}
    runs = {}
    for task, data in datasets.items():
        for name, rep in setup.representations.items():
            runs[(task, name)] = pool_seeds(
                {
                    seed: mlp_pareto(rep, data, **seed_arguments(setup, config, seed))
                    for seed in config.seeds
                }
            )
    majority = {}
    for task, data in datasets.items():
        y = data.y("train")
        majority[task] = float(np.bincount(y).max() / len(y))
    return MemorisationRuns(
        runs=runs,
        table=combine(list(runs.values())),
        majority=majority,
        controls=list(config.controls),
        x=config.complexity_control,
        n_train={task: len(data.y("train")) for task, data in datasets.items()},
    )


def memorisation_set_numbers(runs: MemorisationRuns) -> dict[str, int | str]:
    """What the controls memorised (§5), as glue values.

    ``n_memorise_<task>`` (training examples each control of the task memorised, 0 when not
    run) and ``memorise_set``, a phrase: the whole training sample, as in the paper, or a
    random subset of it.
    """
    numbers: dict[str, int | str] = {f"n_memorise_{task}": runs.n_memorised(task) for task in TASKS}
    numbers["memorise_set"] = (
        "every example of the training sample, as the paper does with its whole training split"
        if runs.whole_split
        else "a random subset of the training sample (the paper uses the whole training split)"
    )
    return numbers


def plot_memorisation(runs: MemorisationRuns, labels: Mapping[str, str]):
    """Test accuracy against label-shuffled complexity, one panel per task.

    As in Pimentel et al. 2020, Fig. 2, right, or a placeholder when that control was not run.
    """
    if "label_shuffled" not in runs.controls:
        return placeholder_figure("the label-shuffled control was not run with these parameters")
    return plot_frontiers(
        runs.table,
        "label_shuffled",
        1.0,
        "memorisation: training accuracy on shuffled labels",
        labels=dict(labels),
    )


def _frontier_inputs(runs: MemorisationRuns) -> list[tuple[pd.DataFrame, str, float]]:
    """(probes, complexity column, cap) under each control, in column ``family``.

    The cap is 1, a probe that memorises every shuffled label (§3).
    """
    return [(runs.table.assign(family=control), control, 1.0) for control in runs.controls]


def memorisation_hypervolumes(runs: MemorisationRuns) -> pd.DataFrame:
    """Hypervolumes under each control (Pimentel et al. 2020, §3 and Table 3).

    The cap is 1, a probe that memorises every shuffled label. Controls are in column ``family``,
    with the paper's values in ``paper``; settings without a probe of finite complexity are left
    out.
    """
    hv = paper_comparison(
        pd.concat(
            [hypervolume_table(*frontier) for frontier in _frontier_inputs(runs)],
            ignore_index=True,
        )
    )
    return hv[hv["n_probes"] > 0]


def memorisation_stability(runs: MemorisationRuns, seed: int) -> pd.DataFrame:
    """Whether each frontier of :func:`memorisation_hypervolumes` has enough probes (§3).

    :func:`~.frontiers.hypervolume_stability` under each control, cap 1, halves drawn with
    ``seed``; settings without a probe of finite complexity are left out.
    """
    stability = pd.concat(
        [hypervolume_stability(*frontier, seed=seed) for frontier in _frontier_inputs(runs)],
        ignore_index=True,
    )
    return stability[stability["n_probes"] > 0]


def memorisation_hypervolume_table(hv: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """:func:`memorisation_hypervolumes` for display.

    Ours, the paper's and the best accuracy, indexed by task, complexity and representation.
    """
    columns = ["hypervolume (ours)", "Table 3 (paper, English)", "best accuracy"]
    return (
        with_display_names(hv, labels)
        .rename(
            columns={
                "family": "complexity",
                "hypervolume": columns[0],
                "paper": columns[1],
                "best_accuracy": columns[2],
            }
        )
        .set_index(["task", "complexity", "representation"])[columns]
    )


def plot_memorisation_controls(runs: MemorisationRuns, representations: Sequence[str]):
    """The contextual MLPs under both controls, one panel per task (Pimentel et al. 2020, §5).

    Or a placeholder unless both controls and the contextual representation were run.
    """
    if not compares_controls(representations, runs.controls):
        return placeholder_figure("needs the contextual model and both controls")
    return plot_control_frontiers(runs.table, "memorisation accuracy")


def control_numbers(runs: MemorisationRuns, representations: Sequence[str]) -> dict[str, float]:
    """The two controls side by side (Pimentel et al. 2020, §5).

    ``full_minus_label_mean``, the mean change in points of what a contextual MLP memorises when its
    sentences are shuffled too (NaN unless both were run), and ``hv_full_minus_label_<task>``, the
    change in the contextual hypervolume; both over the probes that ran both controls.
    """
    both = compares_controls(representations, runs.controls)
    shift = control_shift(runs.table) if both else float("nan")
    numbers = {"full_minus_label_mean": 100 * shift}
    paired = runs.table[runs.table[["label_shuffled", "fully_shuffled"]].notna().all(axis=1)]
    for task in TASKS:
        ctx = paired[(paired["task"] == task) & (paired["representation"] == "contextual")]
        full, label = (
            hypervolume(ctx[c], ctx["accuracy"], 1.0) if len(ctx) else np.nan
            for c in ("fully_shuffled", "label_shuffled")
        )
        numbers[f"hv_full_minus_label_{task}"] = full - label
    return numbers


def simple_vs_best_numbers(gaps: pd.DataFrame) -> dict[str, float]:
    """How the more complex half of the architectures compares with the simpler, as glue numbers.

    From :func:`~.frontiers.simple_vs_best`'s table (Pimentel et al. 2020, §6.2): the best
    accuracy of the more complex half minus that of the simpler half, in points, per task and
    representation (``gap_<task>_<rep>``, NaN where not run), at most (``max_gap``) and on
    average (``mean_gap``); negative where the simpler half does better.
    """
    numbers = {}
    for task in TASKS:
        for name in REPRESENTATIONS:
            row = gaps[(gaps["task"] == task) & (gaps["representation"] == name)]
            numbers[f"gap_{task}_{name}"] = 100 * float(row["gap"].iloc[0]) if len(row) else np.nan
    numbers["max_gap"] = 100 * float(gaps["gap"].max())
    numbers["mean_gap"] = 100 * float(gaps["gap"].mean())
    return numbers


def simple_vs_best_table(gaps: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """:func:`~.frontiers.simple_vs_best`'s table for display, accuracies in %."""
    return (
        with_display_names(gaps, labels)
        .assign(
            best=100 * gaps["best"],
            best_simple=100 * gaps["best_simple"],
            best_complex=100 * gaps["best_complex"],
            gap=100 * gaps["gap"],
        )
        .rename(
            columns={
                "best": "best accuracy (%)",
                "best_simple": "best of the simpler half (%)",
                "best_complex": "best of the more complex half (%)",
                "gap": "more complex − simpler (points)",
                "spearman": "Spearman ρ (memorisation, accuracy)",
            }
        )
        .set_index(["task", "representation"])
    )


def memorisation_leaders(
    runs: MemorisationRuns, simple_budget: float, labels: Mapping[str, str]
) -> pd.DataFrame:
    """Each task's frontier in words (Pimentel et al. 2020, §3 and §6.2).

    With :func:`~.frontiers.summarise_frontier`, cap 1: one row per task run, with the ``leaders``
    phrase, the representation with the largest hypervolume up to a memorisation of
    ``simple_budget`` (``winner``) and its display name (``simple``).
    """
    rows = []
    for task in TASKS:
        if task not in runs.tasks:
            continue
        sub = runs.table[runs.table["task"] == task]
        s = summarise_frontier(sub, runs.x, 1.0, simple_budget, labels, "{:.2f}")
        rows.append({"task": task, "winner": s.winner, "simple": s.simple, "leaders": s.leaders})
    return pd.DataFrame(rows, columns=["task", "winner", "simple", "leaders"])


def memorisation_cap_shares(runs: MemorisationRuns) -> pd.DataFrame:
    """The share of training runs that ended at their step cap, by kind of run (§5 and §6.2).

    The MLPs on the gold labels (``max_steps``) and each control run (``memorise_steps``; the
    fully-shuffled control runs for the contextual representation only), over every task and
    representation, and all together: :func:`~probekit.experiments.deviations.cap_share_table`.
    """
    t = runs.table
    flags = {"MLP probes": t["at_cap"].astype(bool).tolist()}
    for name in runs.controls:
        ran = t[f"{name}_at_cap"].dropna()
        flags[f"{name.replace('_', '-')} controls"] = ran.astype(bool).tolist()
    return cap_share_table(flags)


def memorisation_leader_numbers(leaders: pd.DataFrame) -> dict[str, str]:
    """The chapter's glued phrases from :func:`memorisation_leaders`.

    ``leaders_<task>`` and ``simple_<task>`` for every task, "not run" where not run.
    """
    found = {r.task: r for r in leaders.itertuples()}
    numbers = {}
    for task in TASKS:
        row = found.get(task)
        numbers[f"leaders_{task}"] = row.leaders if row else "not run"
        numbers[f"simple_{task}"] = row.simple if row else "not run"
    return numbers
