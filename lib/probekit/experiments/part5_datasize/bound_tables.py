"""The generalisation bound against the spread of probe accuracies over seeds (Zhu et al. 2022).

Following §4.2 and Fig. 2: the runs of chapter 51, one table per (task, probe), and their
summary, which describe the paper's figure. The claim of §4.2, that the bound holds, is judged
on the gap to the largest subset (:func:`~probekit.experiments.part5_datasize.claims.bound_gaps`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.config import BoundsConfig
from probekit.experiments.part5_datasize.data import TASK_NAMES, ProbedTreebank
from probekit.experiments.part5_datasize.requirements import config_params
from probekit.experiments.part5_datasize.runs import Runs, TaskRuns, run_on_layer
from probekit.experiments.part5_datasize.training import CLF_NAMES, ProbingConfig
from probekit.stats.bounds import Count, finite_class_bound


def run_bound_experiment(config: BoundsConfig, data: ProbedTreebank) -> TaskRuns:
    """Every classifier of ``config.classifiers`` on layer ``config.layer``.

    Trained for every task, subset size and seed (Zhu et al. 2022, §4.2); configs are named as in
    :data:`CLF_NAMES`.
    """
    configs = [ProbingConfig(CLF_NAMES[c], "enc", c) for c in config.classifiers]
    return run_on_layer(config, data, config.tasks, configs)


def bound_table(
    runs: Runs, config: str, *, delta: float = 1e-8, count: Count = "paper"
) -> pd.DataFrame:
    """The empirical accuracy spread against the generalisation bound, one row per subset size.

    As in Zhu et al. 2022, §4.2, Fig. 2.

    Columns: ``size``, ``n_train`` (training examples, all classes), ``acc`` and ``sd`` (mean
    and SD of test accuracy over seeds), ``bound`` = ``B(n_train, delta)`` of eq. 1 with the
    config's parameter count, ``lo``/``hi`` = ``acc -/+ bound`` (the paper's green lines; the
    released notebook draws ``bound / 2``) and ``runs_inside`` (share of the seeds' accuracies
    in [lo, hi]).
    """
    scores = runs.scores[runs.scores["config"] == config]
    if scores.empty:
        raise ParameterError("config", f"'{config}' has no runs")
    means = runs.mean_accuracy()
    table = means.loc[means["config"] == config, ["size", "n_train", "acc", "sd"]]
    table = table.sort_values("size").reset_index(drop=True)
    k = config_params(runs, config)
    table["bound"] = finite_class_bound(table["n_train"].to_numpy(float), k, delta, count=count)
    table["lo"] = table["acc"] - table["bound"]
    table["hi"] = table["acc"] + table["bound"]
    merged = scores.merge(table[["size", "lo", "hi"]], on="size")
    inside = (merged["acc_test"] >= merged["lo"]) & (merged["acc_test"] <= merged["hi"])
    table["runs_inside"] = inside.groupby(merged["size"]).mean().to_numpy()
    return table


@dataclass(frozen=True, eq=False)
class BoundSummary:
    """The bound against the runs of every (task, probe) (:func:`bounds_against_spread`).

    ``tables[(task, probe)]``: :func:`bound_table`; ``summary``: one row per (task, probe,
    size) with ``n_train``, ``sd``, ``bound`` and ``inside`` (share of runs inside the margins).
    The ``head_*`` numbers are those of the first task and probe at its largest size.
    """

    tables: dict[tuple[str, str], pd.DataFrame]
    summary: pd.DataFrame

    @property
    def inside_share(self) -> float:
        """Share (%) of (task, probe, size) cells' runs inside the margins, averaged."""
        return 100 * float(self.summary["inside"].mean())

    @property
    def ratio_min(self) -> float:
        """Smallest ratio of the bound to the SD over seeds."""
        return float((self.summary["bound"] / self.summary["sd"]).min())

    @property
    def ratio_median(self) -> float:
        """Median ratio of the bound to the SD over seeds."""
        return float((self.summary["bound"] / self.summary["sd"]).median())

    @property
    def head(self) -> pd.DataFrame:
        """:func:`bound_table` of the first task and probe."""
        return next(iter(self.tables.values()))

    @property
    def head_task(self) -> str:
        """The first task, as :data:`TASK_NAMES` names it."""
        return TASK_NAMES[next(iter(self.tables))[0]]

    @property
    def head_probe(self) -> str:
        """The first probe."""
        return next(iter(self.tables))[1]

    @property
    def head_n(self) -> int:
        """Training examples of the head's largest subsets."""
        return int(self.head.iloc[-1]["n_train"])

    @property
    def head_acc(self) -> float:
        """Mean test accuracy (%) of the head's largest subsets."""
        return 100 * float(self.head.iloc[-1]["acc"])

    @property
    def head_sd(self) -> float:
        """SD over seeds (points) of the head's largest subsets."""
        return 100 * float(self.head.iloc[-1]["sd"])

    @property
    def head_bound(self) -> float:
        """The bound (points) at the head's largest subsets."""
        return 100 * float(self.head.iloc[-1]["bound"])

    @property
    def sd_slope(self) -> float:
        """Slope of log SD against log n_train of the head table (the bound's is -0.5)."""
        head = self.head
        log_sd = np.log(head["sd"].clip(lower=1e-6))
        return float(np.polyfit(np.log(head["n_train"]), log_sd, 1)[0])

    def styled(self):
        """The summary in points and percent, by task, probe and training size."""
        s = self.summary
        table = s.assign(
            task=s["task"].map(TASK_NAMES),
            sd=100 * s["sd"],
            bound=100 * s["bound"],
            inside=100 * s["inside"],
        ).rename(columns={"n_train": "training examples", "sd": "SD (points)",
                          "bound": "bound (points)", "inside": "runs inside (%)"})  # fmt: skip
        return table.set_index(["task", "probe", "training examples"]).style.format(
            {"SD (points)": "{:.2f}", "bound (points)": "{:.1f}", "runs inside (%)": "{:.0f}"}
        )


def bounds_against_spread(experiment: TaskRuns, delta: float) -> BoundSummary:
    """:func:`bound_table` of every task and probe of ``experiment``, and their summary.

    Each at ``delta``, as in Zhu et al. 2022, §4.2, Fig. 2.
    """
    tables = {
        (task, c.name): bound_table(r, c.name, delta=delta)
        for task, r in experiment.runs.items()
        for c in r.configs
    }
    rows = []
    for (task, clf), t in tables.items():
        for rec in t.itertuples():
            rows.append({"task": task, "probe": clf, "n_train": rec.n_train, "sd": rec.sd,
                         "bound": rec.bound, "inside": rec.runs_inside})  # fmt: skip
    return BoundSummary(tables, pd.DataFrame(rows))
