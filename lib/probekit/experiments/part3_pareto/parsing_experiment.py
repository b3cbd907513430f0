"""Chapter 34's experiment (Pimentel et al. 2020, §7.2 and appendices A and C).

Dependency parsing as a probing task, and whether it separates contextual from type-level
representations better than POSL and DAL.

- :func:`plot_layers` and :func:`layer_numbers`: the layer chapter 31 chose on development UAS
  (:mod:`.layer_choice`), with this chapter's ceiling and type-level rival;
- :func:`run_parsing` trains the parsers (:class:`ParsingRuns`);
- :func:`plot_parsing` (Figs. 1 and 5), :func:`parsing_hypervolumes` (Table 2),
  :func:`parsing_hypervolume_table` and :func:`parsing_numbers`;
- :func:`plot_parsing_controls`: the two controls side by side (Fig. 6);
- :func:`plot_linear_parsing` and :func:`linear_parsing_numbers`: linear parsers under the
  nuclear norm (Figs. 7 and 8);
- :func:`contextual_against_rival` with :func:`rival_numbers`: the best contextual parser and
  the best type-level one, trained again under several seeds for claim III.6.

The claims' intervals are in :mod:`.claims`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.deviations import cap_share_table
from probekit.experiments.part3_pareto.ceiling import (
    CEILING_MLP,
    CEILING_OPTIONS,
    measured_ceiling,
)
from probekit.experiments.part3_pareto.config import ParsingConfig
from probekit.experiments.part3_pareto.experimental_setup import ParetoSetup, seed_arguments
from probekit.experiments.part3_pareto.figures import (
    placeholder_figure,
    plot_control_frontiers,
    plot_frontiers,
    plot_layer_uas,
    plot_selection,
)
from probekit.experiments.part3_pareto.frontiers import (
    FrontierSummary,
    hypervolume_of,
    hypervolume_stability,
    hypervolume_table,
    summarise_frontier,
    with_display_names,
)
from probekit.experiments.part3_pareto.layer_choice import (
    SELECTION_MLP,
    LayerSelection,
    selection_text,
)
from probekit.experiments.part3_pareto.memorisation import compares_controls, control_shift
from probekit.experiments.part3_pareto.paper import PAPER, paper_comparison
from probekit.experiments.part3_pareto.parsing import (
    parse_linear_pareto,
    parse_mlp_pareto,
    parse_mlp_seeds,
)
from probekit.experiments.part3_pareto.representations import REPRESENTATIONS
from probekit.experiments.part3_pareto.runs import ParetoRun, combine, pool_seeds
from probekit.io.records import Record
from probekit.probes.mlp_stack import MLPConfig

MEMORISATION_AXIS = "memorisation: training UAS on shuffled heads"


def layer_numbers(
    selection: LayerSelection | None, runs: ParsingRuns, config: ParsingConfig
) -> dict[str, Any]:
    """The selection pass by glue name.

    ``layer_text`` (what the pass found: the chosen layer with its MLP parser's development and test UAS, and
    the last layer's test UAS; or that the layer was given) and ``lead_text`` (the contextual
    lead in test UAS over the best type-level MLP parser at the chosen and at the last layer).
    """
    if selection is None:
        return {
            "layer_text": selection_text(None, config.layer),
            "lead_text": "not measured without a selection pass",
        }
    mlp = selection.uas("MLP")
    k, last = selection.layer, selection.n_layers - 1
    rival = _best_type_level_uas(runs)
    lead = (
        "not measured without a type-level parser"
        if np.isnan(rival)
        else f"{100 * (mlp[k] - rival):+.1f} points at the chosen layer and "
        f"{100 * (mlp[last] - rival):+.1f} points at the last one"
    )
    return {
        "layer_text": selection_text(selection, config.layer),
        "lead_text": lead,
    }


def _best_type_level_uas(runs: ParsingRuns) -> float:
    """Test UAS of the type-level MLP parser with the best development UAS (NaN if none)."""
    table = runs.mlp_table[runs.mlp_table["representation"] != "contextual"]
    if table.empty:
        return float("nan")
    return float(table["accuracy"].iloc[int(np.argmax(table["dev_accuracy"].to_numpy()))])


def plot_layers(
    selection: LayerSelection | None,
    runs: ParsingRuns,
    ceiling: Record | None,
    config: ParsingConfig,
):
    """:func:`~.figures.plot_layer_uas` with the recorded ceiling where its set-up matches.

    Without a selection pass (the layer was given), a figure that says so.
    """
    if selection is None:
        return plot_selection(None, config.layer)
    c = measured_ceiling(config, ceiling)
    rival = _best_type_level_uas(runs)
    return plot_layer_uas(selection.table, selection.layer, c.uas if c else None,
                          None if np.isnan(rival) else rival)  # fmt: skip


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

    For every representation and training seed, the seed's MLP architectures on the gold heads and
    under its controls (:meth:`~.config.MemorisationSetupConfig.conditions`;
    :func:`~.parsing.parse_mlp_pareto`), each setting's seeds pooled
    (:func:`~.runs.pool_seeds`); then, when ``config.linear``, ``n_probes`` linear parsers under
    the first seed (:func:`~.parsing.parse_linear_pareto`).
    """
    mlp = {
        name: pool_seeds(
            {
                seed: parse_mlp_pareto(rep, setup.splits, **seed_arguments(setup, config, seed))
                for seed in config.seeds
            }
        )
        for name, rep in setup.representations.items()
    }
    linear = {}
    if config.linear:
        # The linear parsers (appendix C) feed no claim: they train under the first seed only.
        linear = {
            name: pool_seeds(
                {
                    config.seeds[0]: parse_linear_pareto(
                        rep,
                        setup.splits,
                        n_probes=config.n_probes,
                        seed=config.seeds[0],
                        options=setup.options,
                        alpha_max=config.alpha_max,
                        device=config.device,
                    )
                }
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


def parsing_cap_shares(runs: ParsingRuns, rivals: SeededRivals | None = None) -> pd.DataFrame:
    """The share of training runs that ended at their step cap, by kind of run.

    MLP parsers on the gold heads (``max_steps``), each control where it ran
    (``memorise_steps``), linear parsers (``max_steps``, when run), the seeded rivals of claim
    III.6 (when run) and all together:
    :func:`~probekit.experiments.deviations.cap_share_table`.
    """
    flags: dict[str, list[bool]] = {"MLP parsers": runs.mlp_table["at_cap"].astype(bool).tolist()}
    for name in runs.controls:
        # NaN marks a control that was not run (fully shuffled on a type-level representation).
        ran = runs.mlp_table[f"{name}_at_cap"].dropna()
        flags[f"{name.replace('_', '-')} controls"] = ran.astype(bool).tolist()
    if runs.linear_table is not None:
        flags["linear parsers"] = runs.linear_table["at_cap"].astype(bool).tolist()
    if rivals is not None:
        flags["seeded rivals (claim III.6)"] = [
            bool(f) for run in rivals.runs.values() for f in run.table["at_cap"]
        ]
    return cap_share_table(flags)


CEILING_POINTS = 5.0
"""UAS points within which the best contextual parser must come of the ceiling before the
chapter calls its parsers trained: further below, a frontier compares training budgets rather
than representations."""


def ceiling_numbers(
    runs: ParsingRuns,
    config: ParsingConfig,
    record: Record | None,
    stale: bool,
    best: tuple[MLPConfig | None, Record | None, bool] = (None, None, False),
) -> dict[str, Any]:
    """The best contextual parser against the parsing ceiling (:mod:`.ceiling`), by glue name.

    The contextual parser (MLP or linear) with the best dev UAS, so that the test set plays no
    part in the choice: its test UAS in % (``best_ctx_uas``) and kind (``best_ctx_kind``); the
    measured ceiling in % (``ceiling_uas``, NaN when this run's encoder, layer, pooling or
    treebank differ from the measured set-up), its probe and training (``ceiling_setup``), the
    updates to its best state (``ceiling_steps``, text), its training sentences
    (``ceiling_train``, text) and the gap in points
    (``ceiling_gap``), with ``ceiling_text`` saying whether the gap is within
    :data:`CEILING_POINTS` and ``ceiling_reading`` what that means for the chapter.
    ``record`` is the ceiling's record (:data:`~.ceiling.RECORD`), None when never made;
    ``stale`` says that the code it ran has changed since (``ceiling_stale``, text).

    ``best``: the chapter's best contextual MLP architecture (:func:`best_contextual_mlp`), the
    record of it trained on the whole split (:data:`~.ceiling.BEST_RECORD`) and whether that
    record is stale: its test UAS in % (``best_full_uas``, NaN unless the record measured this
    architecture on this set-up), its gap below the ceiling (``best_full_gap``), the
    architecture in words (``best_full_mlp``) and as JSON (``best_ctx_mlp``, which the script
    that makes the record reads from the saved results) and the record's state
    (``best_full_stale``).
    """
    best_full = best
    tables = [("MLP", runs.mlp_table)]
    if runs.linear_table is not None:
        tables.append(("linear", runs.linear_table))
    best = (np.nan, "not run", -np.inf)
    for kind, table in tables:
        ctx = table[table["representation"] == "contextual"]
        if len(ctx) and float(ctx["dev_accuracy"].max()) > best[2]:
            row = ctx.iloc[int(np.argmax(ctx["dev_accuracy"].to_numpy()))]
            best = (100 * float(row["accuracy"]), kind, float(row["dev_accuracy"]))
    ceiling = measured_ceiling(config, record)
    ceiling_uas = 100 * ceiling.uas if ceiling is not None else np.nan
    gap = ceiling_uas - best[0]
    if np.isnan(gap):
        text = "not measured for this set-up"
        reading = "Without a ceiling for this set-up, the chapter cannot say how close it comes."
    elif gap <= CEILING_POINTS:
        text = f"within {CEILING_POINTS:.0f} points"
        reading = (
            "Our best parser comes close to what the encoder allows, so the comparisons below "
            "set trained parsers against each other."
        )
    else:
        text = f"more than {CEILING_POINTS:.0f} points below it"
        reading = (
            "Our parsers stop short of what the encoder allows: they read a sample of the "
            "training split, and most of the chapter's architectures are smaller than the "
            "ceiling's. The comparisons below set representations against each other under the "
            "same sample and architectures, and absolute UAS says as much about those as about "
            "the representations."
        )
    opts = CEILING_OPTIONS
    setup = (
        f"{_architecture_text(CEILING_MLP)}, Adam at {opts.lr:g} in batches of "
        f"{opts.batch_size} sentences"
    )
    return _best_full_numbers(config, ceiling_uas, *best_full) | {
        "best_ctx_uas": best[0],
        "best_ctx_kind": best[1],
        "ceiling_uas": ceiling_uas,
        "ceiling_setup": setup,
        "ceiling_steps": f"{ceiling.best_step:,d}" if ceiling is not None else "not measured",
        "ceiling_train": f"all {ceiling.n_train:,d}" if ceiling is not None else "all the",
        "ceiling_gap": gap,
        "ceiling_text": text,
        "ceiling_reading": reading,
        "ceiling_stale": _record_state(ceiling is not None, stale, record),
    }


def _record_state(found: bool, stale: bool, record: Record | None) -> str:
    if not found or record is None:
        return "not recorded for this set-up"
    if stale:
        return (
            "stale: the code it ran has changed since it was recorded, so it may no longer be "
            "what this code reaches"
        )
    return f"current: recorded with the code this chapter runs ({record.recorded[:10]})"


def _architecture_text(mlp: MLPConfig) -> str:
    layers = f"{mlp.n_layers} hidden layer{'s' if mlp.n_layers != 1 else ''}"
    if mlp.n_layers == 0:
        return f"no hidden layer, dropout {mlp.dropout:.2f}"
    return f"{layers} of {mlp.hidden_size} units, dropout {mlp.dropout:.2f}"


def reference_text(config: ParsingConfig) -> str:
    """The sentence that says whether each seed trains the reference parser beside its draws."""
    if not config.reference_parser:
        return "As in the paper, every architecture is a random draw."
    return (
        "Each seed also trains, on every representation, the reference parser of chapter 31's "
        f"layer choice ({_architecture_text(SELECTION_MLP)}, the size of Dozat and Manning's arc "
        "MLPs): a few random draws seldom include one of that size, and without it no frontier "
        "would show what its representation allows. Its dropout was chosen on the contextual "
        "layer's development UAS, so it favours the contextual side of the comparisons: no "
        "parser was chosen for the type-level representations, which have only the random "
        "draws that every representation gets."
    )


def _best_full_numbers(
    config: ParsingConfig,
    ceiling_uas: float,
    mlp: MLPConfig | None,
    record: Record | None,
    stale: bool,
) -> dict[str, Any]:
    """The chapter's best contextual architecture trained on the whole split (see ceiling_numbers)."""
    full = None if mlp is None else measured_ceiling(config, record, mlp)
    uas = 100 * full.uas if full is not None else np.nan
    return {
        "best_full_uas": uas,
        "best_full_gap": ceiling_uas - uas,
        "best_full_mlp": _architecture_text(mlp) if mlp is not None else "not run",
        "best_full_stale": _record_state(full is not None, stale, record),
        # Read back by bench_parsing_ceiling.py --best.
        "best_ctx_mlp": json.dumps(asdict(mlp)) if mlp is not None else "",
    }


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


def _frontier_input(runs: ParsingRuns) -> tuple[pd.DataFrame, str, float]:
    """(parsers, complexity column, cap) of the MLP parsers' frontiers.

    The complexity is the control's memorisation, capped at 1 (§3).
    """
    return runs.mlp_table.assign(family=runs.x), runs.x, 1.0


def parsing_hypervolumes(runs: ParsingRuns) -> pd.DataFrame:
    """The MLP parsers' hypervolumes under the complexity control, capped at 1.

    With the paper's English values in ``paper`` (Pimentel et al. 2020, §3 and Table 2).
    """
    return paper_comparison(hypervolume_table(*_frontier_input(runs)), key="table2")


def parsing_stability(runs: ParsingRuns, seed: int) -> pd.DataFrame:
    """Whether each frontier of :func:`parsing_hypervolumes` has enough parsers (§3).

    :func:`~.frontiers.hypervolume_stability` of the MLP parsers, cap 1, halves drawn with
    ``seed``.
    """
    return hypervolume_stability(*_frontier_input(runs), seed=seed)


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
    ``simple_fraction`` of it, ``best_linear_max``, the best test UAS in %, and ``init_norm``,
    the largest ||U||_* at initialisation over the parsers; "not run" and NaN
    when the linear parsers were not run.
    """
    if runs.linear_table is None:
        return {
            "leaders_nuclear": "not run",
            "simple_nuclear": "not run",
            "best_linear_max": np.nan,
            "init_norm": np.nan,
        }
    table = runs.linear_table
    s = summarise_frontier(
        table, "complexity", max_norm, simple_fraction * max_norm, labels, "{:.0f}"
    )
    return {
        "leaders_nuclear": s.leaders,
        "simple_nuclear": s.simple,
        "best_linear_max": 100 * float(table["accuracy"].max()),
        "init_norm": float(table["init_norm"].max()) if "init_norm" in table else np.nan,
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
class SeededRivals:
    """The best contextual MLP parser and its best non-contextual rival, trained once per seed.

    Both architectures are chosen by development UAS in the chapter's runs (Pimentel et al. 2020,
    §7.2), then trained again under each of ``seeds`` (:func:`~.parsing.parse_mlp_seeds`):
    ``runs`` by representation ("contextual" and ``rival``), each with one row per seed and
    ``correct`` (k, N_test_words). ``architectures`` gives each one's training seed and index
    among that seed's architectures.
    """

    rival: str
    seeds: list[int]
    runs: dict[str, ParetoRun]
    architectures: dict[str, tuple[int, int]]

    def sentence_scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Words attached right per seed and test sentence, contextual (k, n) and rival (k, n).

        And the words of each test sentence (n,): the data of claim III.6's interval.
        """
        a, units = self.runs["contextual"].sentence_scores()
        b, _ = self.runs[self.rival].sentence_scores(len(units))
        return a, b, units


def _dev_best(run: ParetoRun) -> tuple[int, int]:
    """The training seed and architecture index of a run's MLP with the best development UAS."""
    best = run.table.iloc[int(np.argmax(run.table["dev_accuracy"].to_numpy()))]
    return int(best["seed"]), int(best["probe"])


def best_contextual_mlp(runs: ParsingRuns, setup: ParetoSetup) -> MLPConfig | None:
    """The contextual MLP architecture with the best development UAS (§7.2); None if not run.

    The architecture claim III.6 trains again, and the one ``bench_parsing_ceiling.py --best``
    trains on the whole split (:data:`~.ceiling.BEST_RECORD`).
    """
    if "contextual" not in runs.mlp:
        return None
    seed, index = _dev_best(runs.mlp["contextual"])
    return setup.architectures[seed][index]


def contextual_against_rival(
    runs: ParsingRuns, setup: ParetoSetup, config: ParsingConfig
) -> SeededRivals | None:
    """Train the best contextual MLP parser and its best non-contextual rival once per seed.

    The contextual architecture with the best development UAS, and the non-contextual
    representation whose best architecture has the best development UAS (Pimentel et al. 2020,
    §7.2; the test set plays no part in the choice), each trained again on the gold heads under
    every one of ``config.claim_seeds`` (:func:`~.parsing.parse_mlp_seeds`). None without the
    contextual or any non-contextual representation.
    """
    others = [name for name in runs.mlp if name != "contextual"]
    if "contextual" not in runs.mlp or not others:
        return None
    dev_best = {name: float(runs.mlp[name].table["dev_accuracy"].max()) for name in others}
    rival = max(dev_best, key=dev_best.get)
    seeded, chosen = {}, {}
    for name in ("contextual", rival):
        search_seed, index = _dev_best(runs.mlp[name])
        chosen[name] = (search_seed, index)
        seeded[name] = parse_mlp_seeds(
            setup.representations[name],
            setup.splits,
            setup.architectures[search_seed][index],
            index,
            config.claim_seeds,
            seed=search_seed,
            options=setup.options,
            device=config.device,
        )
    return SeededRivals(rival, list(config.claim_seeds), seeded, chosen)


def rival_numbers(result: SeededRivals | None, labels: Mapping[str, str]) -> dict[str, Any]:
    """:func:`contextual_against_rival` by glue name.

    The ``rival``'s display name, the number of seeds (``n_claim_seeds``), each parser's mean
    test UAS over the seeds in % (``uas_contextual``, ``uas_rival``) and its per-seed UAS as
    text (``uas_contextual_seeds``, ``uas_rival_seeds``); "not run" and NaN without a
    comparison.
    """
    if result is None:
        return {
            "rival": "not run",
            "n_claim_seeds": 0,
            "uas_contextual": np.nan,
            "uas_rival": np.nan,
            "uas_contextual_seeds": "not run",
            "uas_rival_seeds": "not run",
        }
    numbers: dict[str, Any] = {"rival": labels[result.rival], "n_claim_seeds": len(result.seeds)}
    for key, name in (("contextual", "contextual"), ("rival", result.rival)):
        uas = 100 * result.runs[name].table["accuracy"].to_numpy()
        numbers[f"uas_{key}"] = float(uas.mean())
        numbers[f"uas_{key}_seeds"] = ", ".join(f"{u:.1f}" for u in uas)
    return numbers
