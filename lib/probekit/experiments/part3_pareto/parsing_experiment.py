"""Chapter 34's experiment (Pimentel et al. 2020, §7.2 and appendices A and C).

Dependency parsing as a probing task, and whether it separates contextual from type-level
representations better than POSL and DAL.

- :func:`run_parsing` trains the parsers (:class:`ParsingRuns`);
- :func:`plot_parsing` (Figs. 1 and 5), :func:`parsing_hypervolumes` (Table 2),
  :func:`parsing_hypervolume_table` and :func:`parsing_numbers`;
- :func:`plot_parsing_controls`: the two controls side by side (Fig. 6);
- :func:`plot_linear_parsing` and :func:`linear_parsing_numbers`: linear parsers under the
  nuclear norm (Figs. 7 and 8);
- :func:`contextual_against_rival` with :func:`rival_numbers`: the best contextual parser
  against the best type-level one;
- :func:`hypervolume_gap`, :func:`toy_task_gaps`: the contextual lead on parsing and on the
  toy tasks (the latter from chapter 33's saved results).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.part3_pareto.config import ParsingConfig
from probekit.experiments.part3_pareto.experimental_setup import ParetoSetup
from probekit.experiments.part3_pareto.figures import (
    placeholder_figure,
    plot_control_frontiers,
    plot_frontiers,
)
from probekit.experiments.part3_pareto.frontiers import (
    FrontierSummary,
    hypervolume_of,
    hypervolume_table,
    summarise_frontier,
    with_display_names,
)
from probekit.experiments.part3_pareto.memorisation import compares_controls, control_shift
from probekit.experiments.part3_pareto.paper import PAPER, paper_comparison
from probekit.experiments.part3_pareto.parsing import parse_linear_pareto, parse_mlp_pareto
from probekit.experiments.part3_pareto.representations import REPRESENTATIONS, TASKS
from probekit.experiments.part3_pareto.runs import ParetoRun, combine
from probekit.stats.bootstrap import PairedBootstrap, paired_bootstrap
from probekit.stats.comparison import Comparison, compare

MEMORISATION_AXIS = "memorisation: training UAS on shuffled heads"


@dataclass(frozen=True, eq=False)
class ParsingRuns:
    """Chapter 34's parsers (Pimentel et al. 2020, §7.2).

    The MLP parsers by representation (``mlp``, rows stacked in ``mlp_table``), the linear parsers
    (``linear``, empty when not run; rows in ``linear_table``, None then), the ``controls`` run and
    the control whose memorisation is the complexity axis (``x``).
    """

    mlp: dict[str, ParetoRun]
    mlp_table: pd.DataFrame
    linear: dict[str, ParetoRun]
    linear_table: pd.DataFrame | None
    controls: list[str]
    x: str

    @property
    def n_memorise(self) -> int:
        """How many training sentences each control memorised."""
        return int(self.mlp_table["n_memorise"].iloc[0])


def run_parsing(setup: ParetoSetup, config: ParsingConfig) -> ParsingRuns:
    """Train chapter 34's parsers (Pimentel et al. 2020, §7.2).

    For every representation, the set-up's MLP architectures on the gold heads and under each
    control (:func:`~.parsing.parse_mlp_pareto`), then, when ``config.linear``, ``n_probes`` linear
    parsers (:func:`~.parsing.parse_linear_pareto`).
    """
    mlp = {
        name: parse_mlp_pareto(
            rep,
            setup.splits,
            setup.architectures,
            conditions=["normal", *config.controls],
            shuffled_words=setup.shuffled_words,
            seed=config.seed,
            options=setup.options,
            n_memorise=config.n_memorise,
            memorise_steps=config.memorise_steps,
        )
        for name, rep in setup.representations.items()
    }
    linear = {}
    if config.linear:
        linear = {
            name: parse_linear_pareto(
                rep,
                setup.splits,
                n_probes=config.n_probes,
                seed=config.seed,
                options=setup.options,
                alpha_max=config.alpha_max,
            )
            for name, rep in setup.representations.items()
        }
    return ParsingRuns(
        mlp=mlp,
        mlp_table=combine(list(mlp.values())),
        linear=linear,
        linear_table=combine(list(linear.values())) if linear else None,
        controls=list(config.controls),
        x=config.complexity_control,
    )


def plot_parsing(runs: ParsingRuns, labels: Mapping[str, str]):
    """Test UAS of the MLP parsers against memorisation (Pimentel et al. 2020, Figs. 1 and 5)."""
    return plot_frontiers(
        runs.mlp_table,
        runs.x,
        1.0,
        MEMORISATION_AXIS,
        ylabel="test UAS",
        labels=dict(labels),
        height=3.4,
    )


def parsing_hypervolumes(runs: ParsingRuns) -> pd.DataFrame:
    """The MLP parsers' hypervolumes under the complexity control, capped at 1.

    With the paper's English values in ``paper`` (Pimentel et al. 2020, §3 and Table 2).
    """
    table = runs.mlp_table.assign(family=runs.x)
    return paper_comparison(hypervolume_table(table, runs.x, 1.0), key="table2")


def parsing_hypervolume_table(hv: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """:func:`parsing_hypervolumes` for display.

    Ours, the paper's and the best UAS, indexed by representation.
    """
    columns = ["hypervolume (ours)", "Table 2 (paper, English)", "best UAS"]
    return (
        with_display_names(hv, labels)
        .rename(
            columns={"hypervolume": columns[0], "paper": columns[1], "best_accuracy": columns[2]}
        )
        .set_index("representation")[columns]
    )


def parsing_numbers(runs: ParsingRuns, hv: pd.DataFrame) -> dict[str, float]:
    """The MLP parsers' hypervolumes and best UAS beside the paper's, by glue name.

    Per representation: the MLP parsers' hypervolume (``hv_<rep>``) and the paper's
    (``paper_<rep>``, Table 2), and their best test UAS in % (``best_<rep>``) and the paper's
    released runs' (``best_paper_<rep>``), NaN where not run; and the best UAS of all MLP parsers
    (``best_mlp_max``).
    """
    best = runs.mlp_table.groupby("representation")["accuracy"].max()
    numbers = {}
    for name in REPRESENTATIONS:
        numbers[f"hv_{name}"] = hypervolume_of(hv, representation=name)
        numbers[f"paper_{name}"] = PAPER["table2"][name]
        numbers[f"best_{name}"] = 100 * float(best.get(name, np.nan))
        numbers[f"best_paper_{name}"] = 100 * PAPER["best_mlp"]["parse"][name]
    numbers["best_mlp_max"] = 100 * float(runs.mlp_table["accuracy"].max())
    return numbers


def plot_parsing_controls(runs: ParsingRuns, labels: Mapping[str, str]):
    """The contextual MLP parsers under both controls (Pimentel et al. 2020, Fig. 6).

    Or a placeholder unless both controls and the contextual representation were run.
    """
    if not compares_controls(list(runs.mlp), runs.controls):
        return placeholder_figure("needs the contextual model and both controls")
    return plot_control_frontiers(
        runs.mlp_table,
        MEMORISATION_AXIS,
        ylabel="test UAS",
        titles={"parse": labels["contextual"]},
        height=3.0,
    )


def control_shift_points(runs: ParsingRuns) -> float:
    """How many points more a contextual parser memorises on word-shuffled sentences.

    How many points more of the shuffled heads a contextual parser memorises on word-shuffled
    sentences than on the real ones, on average (Pimentel et al. 2020, §7.2 and Fig. 6;
    :func:`~.memorisation.control_shift`); NaN unless both controls were run.
    """
    both = compares_controls(list(runs.mlp), runs.controls)
    return 100 * (control_shift(runs.mlp_table) if both else float("nan"))


def plot_linear_parsing(runs: ParsingRuns, max_norm: float, labels: Mapping[str, str]):
    """Test UAS of the linear parsers against the nuclear norm of U, up to ``max_norm``.

    As in Pimentel et al. 2020, Figs. 7 and 8, or a placeholder when they were not run.
    """
    if runs.linear_table is None:
        return placeholder_figure("linear parsers were not run with these parameters")
    return plot_frontiers(
        runs.linear_table,
        "complexity",
        max_norm,
        "nuclear norm of U",
        ylabel="test UAS",
        labels=dict(labels),
        height=3.4,
    )


def linear_parsing_numbers(
    runs: ParsingRuns, max_norm: float, simple_fraction: float, labels: Mapping[str, str]
) -> dict[str, Any]:
    """The linear parsers' frontier in words (Pimentel et al. 2020, appendix C).

    With :func:`~.frontiers.summarise_frontier`, by glue name: ``leaders_nuclear`` up to
    ``max_norm``, ``simple_nuclear``, the representation with the largest hypervolume up to
    ``simple_fraction`` of it, and ``best_linear_max``, the best test UAS in %; "not run" and NaN
    when the linear parsers were not run.
    """
    if runs.linear_table is None:
        return {
            "leaders_nuclear": "not run",
            "simple_nuclear": "not run",
            "best_linear_max": np.nan,
        }
    table = runs.linear_table
    s = summarise_frontier(
        table, "complexity", max_norm, simple_fraction * max_norm, labels, "{:.0f}"
    )
    return {
        "leaders_nuclear": s.leaders,
        "simple_nuclear": s.simple,
        "best_linear_max": 100 * float(table["accuracy"].max()),
    }


def mlp_parsing_summary(
    runs: ParsingRuns, simple_budget: float, labels: Mapping[str, str]
) -> FrontierSummary:
    """The MLP parsers' frontier in words (Pimentel et al. 2020, §3 and §7.2).

    With :func:`~.frontiers.summarise_frontier`, cap 1, simple up to a memorisation of
    ``simple_budget``.
    """
    return summarise_frontier(runs.mlp_table, runs.x, 1.0, simple_budget, labels, "{:.2f}")


@dataclass(frozen=True, eq=False)
class RivalComparison:
    """The best contextual MLP parser against the best type-level one (``rival``, by dev UAS).

    McNemar's test on test words (``comparison``) and a paired bootstrap of corpus UAS over test
    sentences (``boot``).
    """

    rival: str
    comparison: Comparison
    boot: PairedBootstrap


def contextual_against_rival(
    runs: ParsingRuns, labels: Mapping[str, str], *, n_boot: int, seed: int
) -> RivalComparison | None:
    """Compare the best contextual MLP parser with the best type-level one (by development UAS).

    The contextual MLP parser with the best development UAS against the best type-level one by the
    same criterion (Pimentel et al. 2020, §7.2): McNemar's exact test on the same test words, and a
    paired bootstrap (``n_boot`` resamples, ``seed``) of test sentences weighted by their length, so
    that the statistic is the corpus UAS (words of one sentence are not independent, which McNemar's
    test assumes). None without the contextual or any type-level representation.
    """
    others = [name for name in runs.mlp if name != "contextual"]
    if "contextual" not in runs.mlp or not others:
        return None
    dev_best = {name: float(runs.mlp[name].table["dev_accuracy"].max()) for name in others}
    rival = max(dev_best, key=dev_best.get)
    picks = {}
    for name in ("contextual", rival):
        run = runs.mlp[name]
        picks[name] = run.correct[int(run.table["dev_accuracy"].idxmax())]
    a, b = picks["contextual"], picks[rival]
    comparison = compare(a, b, labels["contextual"], labels[rival])
    groups = runs.mlp["contextual"].groups
    lengths = np.bincount(groups)
    boot = paired_bootstrap(
        np.bincount(groups, weights=a) / lengths,
        np.bincount(groups, weights=b) / lengths,
        n_boot=n_boot,
        seed=seed,
        weights=lengths,
        name_a=labels["contextual"],
        name_b=labels[rival],
    )
    return RivalComparison(rival, comparison, boot)


def rival_numbers(result: RivalComparison | None, labels: Mapping[str, str]) -> dict[str, Any]:
    """:func:`contextual_against_rival` by glue name.

    The ``rival``'s display name, McNemar's summary (``compare``) and the bootstrap's UAS difference
    with its 95 % interval in points (``uas_gap``, ``uas_gap_low``, ``uas_gap_high``); "not run" and
    NaN without a comparison.
    """
    if result is None:
        return {
            "rival": "not run",
            "compare": "Not run (needs the contextual and a type-level representation).",
            "uas_gap": np.nan,
            "uas_gap_low": np.nan,
            "uas_gap_high": np.nan,
        }
    return {
        "rival": labels[result.rival],
        "compare": result.comparison.summary(),
        "uas_gap": 100 * result.boot.diff,
        "uas_gap_low": 100 * result.boot.low,
        "uas_gap_high": 100 * result.boot.high,
    }


def hypervolume_gap(hv: pd.DataFrame, runs: ParsingRuns) -> float:
    """The contextual MLP parsers' hypervolume minus the best type-level one.

    Pimentel et al. 2020, Table 2 and §7.2; NaN without the contextual or any type-level
    representation.
    """
    others = [hypervolume_of(hv, representation=n) for n in runs.mlp if n != "contextual"]
    contextual = hypervolume_of(hv, representation="contextual")
    return contextual - max(others) if others else float("nan")


def toy_task_gaps(
    saved: Mapping[str, Any] | None, config: ParsingConfig, treebank: str
) -> dict[str, float]:
    """The contextual lead in label-shuffled hypervolume on POSL and DAL that chapter 33 saved.

    ``hv_gap_<task>``, by task: only when ``saved`` (that chapter's saved results, or None) was run
    with this chapter's model, layer, pooling and ``treebank`` (its name), and only the finite ones.
    """
    if saved is None:
        return {}
    settings = {
        "model": config.model,
        "layer": config.layer,
        "pooling": config.pooling,
        "treebank": treebank,
    }
    if not all(saved.get(key) == value for key, value in settings.items()):
        return {}
    gaps = {}
    for task in TASKS:
        value = saved.get(f"hv_gap_{task}")
        if isinstance(value, int | float) and np.isfinite(value):
            gaps[task] = float(value)
    return gaps
