"""The claims of Pimentel et al. 2020 that Part III judges, their rules, and their intervals.

Each claim (:class:`~probekit.experiments.claims.Claim`) has one rule
(:class:`~probekit.stats.verdicts.Rule`), declared here before any result is read, and one
function that computes its interval from the part's runs. The test sentence is the unit of
every interval (the items of one sentence, words or arcs, are not independent), and where trained
probes are compared every training seed enters it. Chapters judge a claim with
:meth:`Glue.claim <probekit.book.glue.Glue.claim>`; the claims ledger reads the saved
intervals back and judges them with the same rule (:data:`CLAIMS`).

- III.1, III.2 (§7.1, Table 1): the lookup baseline's accuracy equals the paper's "about 86 %"
  (POSL) and "68 %" (DAL): :func:`lookup_interval`, one sample against the paper's figure.
- III.3 (§6.1, §2.3): one-hot vectors are Pareto-best among simple linear probes under the
  nuclear norm, on POSL and on DAL: :func:`onehot_simple_intervals`.
- III.4 (§6.2): MLPs that memorise little are as accurate as those that memorise a lot, for
  every task and representation: :func:`simple_as_good_intervals`.
- III.5 (§7.2): parsing separates contextual from non-contextual representations better than
  POSL and DAL: :func:`contextual_lead_interval` per task (chapters 33 and 34 save theirs),
  read back by :func:`saved_leads` and set against each other by :func:`separation_intervals`
  in chapter 35.
- III.6 (§7.2): the contextual parser beats the best non-contextual one on UAS, over test
  sentences and training seeds: :func:`uas_interval`.

A part of a claim that a run cannot measure (a task or representation it did not run) is left
out of the claim's intervals, and the claim is judged on the parts measured; a chapter that
measured no part saves the claim as not tested
(:meth:`Glue.untested <probekit.book.glue.Glue.untested>`).

Claims the chapters no longer judge: "one-hot wins for simple probes" under memorisation
complexity (the paper makes it under the nuclear norm only, §6.1) and for linear parsers
(appendix C, the same claim as III.3 on another task); "parsing separates..." in chapters 32
and 33 (it is chapter 35's claim).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.claims import Claim, format_interval
from probekit.experiments.part3_pareto.frontiers import complexity_halves
from probekit.experiments.part3_pareto.memorisation_experiment import MemorisationRuns
from probekit.experiments.part3_pareto.paper import PAPER, paper_leads
from probekit.experiments.part3_pareto.parametric_experiment import ParametricRuns
from probekit.experiments.part3_pareto.representations import (
    LABELS,
    NON_CONTEXTUAL,
    REPRESENTATIONS,
    TASK_TITLES,
    TASKS,
)
from probekit.experiments.part3_pareto.resampling import (
    frontier_lead,
    half_gap,
    seeded_bootstrap,
)
from probekit.experiments.part3_pareto.runs import ParetoRun
from probekit.stats.intervals import Interval, crossed_interval, t_quantile
from probekit.stats.verdicts import Rule

PAPER_KEY = "pimentel2020pareto"
LOOKUP_LABELS = {"posl": "majority-tag", "dal": "majority-label"}

# --------------------------------------------------------------------------------------------
# The rules, fixed before any result is read
# --------------------------------------------------------------------------------------------


def _lookup_rule(task: str) -> Rule:
    return Rule(
        "equivalence",
        f"accuracy of the {LOOKUP_LABELS[task]} lookup on the test split − the paper's "
        f"Table 1 figure ({100 * PAPER['table1'][task]:.0f} %)",
        "test sentences (the lookup is deterministic: one 'seed')",
        0.02,
        "convention: the paper gives a rounded figure ('about')",
        "one-sample cluster-robust interval over test sentences, on the logit scale",
        scale=100,
        units="points",
        digits=1,
    )


ONEHOT_SIMPLE_RULE = Rule(
    "directional",
    "one-hot − best other representation: hypervolume of the nuclear-norm frontier over the "
    "simple range, normalised by the range (the mean, over budgets from 0 to the simple "
    "budget, of the best test accuracy within the budget)",
    "test sentences (every probe's per-sentence counts resampled together) and training seeds "
    "(the lead computed per seed from its own probes)",
    0.01,
    "convention: accuracies are reported in whole points, as in Table 1; a smaller lead, "
    "averaged over the simple range, would not show in them",
    "mean over seeds; sentence bootstrap with the variance between seeds added, t interval "
    "with Satterthwaite's degrees of freedom",
    scale=100,
    units="points",
    digits=1,
)

SIMPLE_AS_GOOD_RULE = Rule(
    "equivalence",
    "best test accuracy of the half of the MLPs that memorises more − best of the half that "
    "memorises less (halves of equal size, the median architecture left out when their number "
    "is odd)",
    "test sentences (every MLP's per-sentence counts resampled together) and training seeds "
    "(the gap computed per seed among its own architectures)",
    0.01,
    "convention: the paper gives no number for 'as high an accuracy'; one point is the "
    "precision of its accuracy tables, such as Table 1",
    "mean over seeds; sentence bootstrap with the variance between seeds added, t interval "
    "with Satterthwaite's degrees of freedom",
    scale=100,
    units="points",
    digits=1,
)


def _separation_sesoi() -> float:
    """Half the paper's smaller effect: Table 2's parsing gap minus Table 3's larger toy gap."""
    leads = paper_leads()
    return round(0.5 * min(leads["parse"] - leads[t] for t in TASKS), 4)


SEPARATION_RULE = Rule(
    "directional",
    "contextual − best other representation's hypervolume under memorisation complexity "
    "(label-shuffled unless only the fully-shuffled control runs; cap 1) on parsing, minus the "
    "same gap on the toy task",
    "test sentences, each chapter's bootstrapped on its own (the two draw from the same test "
    "split, so a joint resample would be narrower), and each chapter's training seeds",
    _separation_sesoi(),
    "half the paper's smaller effect, its parsing gap of 0.17 in Table 2 minus its DAL gap of "
    "0.11 in Table 3",
    "per chapter, the mean lead over seeds with a sentence bootstrap and the seed variance; "
    "variances added (conservative where the leads covary), t interval of the difference with "
    "Satterthwaite's degrees of freedom",
    digits=3,
)

UAS_RULE = Rule(
    "directional",
    "test UAS of the best contextual MLP parser − the best non-contextual one (architectures "
    "chosen by development UAS)",
    "test sentences and training seeds",
    0.02,
    "convention: the paper prints no UAS difference for this comparison",
    "variance components over sentences and seeds, Welch-Satterthwaite degrees of freedom",
    scale=100,
    units="points",
    digits=1,
)

SIMPLE_AS_GOOD_PARTS = tuple(f"{task}_{name}" for task in TASKS for name in REPRESENTATIONS)
# The parts in the prose and the ledger: "posl" -> "POSL", "posl_onehot" -> "POSL, one-hot".
TASK_LABELS = {task: TASK_TITLES[task] for task in TASKS}
SIMPLE_AS_GOOD_LABELS = {
    f"{task}_{name}": f"{TASK_TITLES[task]}, {LABELS.get(name, name)}"
    for task in TASKS
    for name in REPRESENTATIONS
}

LOOKUP_POSL = Claim(
    "III.1",
    PAPER_KEY,
    "§7.1",
    "31_lookup_and_toy_tasks",
    "sec-ch31",
    "A type-level lookup table already reaches about 86 % on POSL",
    _lookup_rule("posl"),
    "posl_vs_paper",
)
LOOKUP_DAL = Claim(
    "III.2",
    PAPER_KEY,
    "§7.1",
    "31_lookup_and_toy_tasks",
    "sec-ch31",
    "A type-level lookup table already reaches about 68 % on DAL",
    _lookup_rule("dal"),
    "dal_vs_paper",
)
ONEHOT_SIMPLE = Claim(
    "III.3",
    PAPER_KEY,
    "§6.1",
    "32_parametric_complexity",
    "sec-ch32",
    "Under the nuclear norm, one-hot vectors are Pareto-best among simple linear probes",
    ONEHOT_SIMPLE_RULE,
    "onehot_simple",
    TASKS,
    TASK_LABELS,
    consistency=(
        "the nuclear norm counts the probe and not the trainable one-hot table beneath it, so "
        "one-hot vectors place every word type freely at any budget and are simple for nothing; "
        "the paper itself calls this result trivial (§2.3)"
    ),
)
SIMPLE_AS_GOOD = Claim(
    "III.4",
    PAPER_KEY,
    "§6.2",
    "33_memorisation_complexity",
    "sec-ch33",
    "MLPs that memorise little are as accurate as those that memorise a lot",
    SIMPLE_AS_GOOD_RULE,
    "simple_as_good",
    SIMPLE_AS_GOOD_PARTS,
    SIMPLE_AS_GOOD_LABELS,
)
SEPARATION = Claim(
    "III.5",
    PAPER_KEY,
    "§7.2",
    "35_parsing_against_toy_tasks",
    "sec-ch35",
    "Dependency parsing separates contextual from non-contextual representations better "
    "than the toy tasks do",
    SEPARATION_RULE,
    "separation",
    TASKS,
    TASK_LABELS,
)
UAS_GAP = Claim(
    "III.6",
    PAPER_KEY,
    "§7.2",
    "34_dependency_parsing",
    "sec-ch34",
    "The contextual parser beats the best non-contextual one on UAS",
    UAS_RULE,
    "uas_gap",
)

CLAIMS: tuple[Claim, ...] = (LOOKUP_POSL, LOOKUP_DAL, ONEHOT_SIMPLE, SIMPLE_AS_GOOD, SEPARATION,
                             UAS_GAP)  # fmt: skip
LOOKUP_CLAIMS = {"posl": LOOKUP_POSL, "dal": LOOKUP_DAL}
# The accuracy each one-sample claim is read against, by claim id: where a simulation of the
# claim centres its accuracies (the logit scale of its interval depends on it).
REFERENCE_ACCURACY = {LOOKUP_CLAIMS[t].id: PAPER["table1"][t] for t in LOOKUP_CLAIMS}


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------


def lookup_interval(counts: np.ndarray, units: np.ndarray, task: str) -> Interval:
    """III.1 and III.2: the lookup's test accuracy minus the paper's Table 1 figure.

    ``counts`` (n,) are the lookup's correct items (words for POSL, arcs for DAL) in each test
    sentence and ``units`` (n,) the sentence's items
    (:func:`~.toy_tasks.lookup_baselines`). A one-sample cluster-robust interval on the logit
    scale (:func:`~probekit.stats.intervals.crossed_interval`); the lookup is deterministic, so
    it has no seed variance.
    """
    rule = LOOKUP_CLAIMS[task].rule
    return crossed_interval(counts, None, units, rule.level, reference=PAPER["table1"][task],
                            logit=True)  # fmt: skip


def _sentence_data(runs: Mapping[str, ParetoRun]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per-sentence counts of every run, on the test sentences they share, and the units."""
    n = max(int(np.max(run.groups)) + 1 for run in runs.values())
    counts, units = {}, None
    for name, run in runs.items():
        c, u = run.sentence_scores(n)
        if units is not None and not np.array_equal(u, units):
            raise ParameterError("runs", f"'{name}' was scored on other test items")
        counts[name], units = c, u
    return counts, units


def _seed_rows(runs: Mapping[str, ParetoRun]) -> list[dict[str, np.ndarray]]:
    """Each training seed's probes: per seed, a row mask of every run's table.

    The seeds every run has (:meth:`~.runs.ParetoRun.seeds`), in the first run's order; runs
    without seeds count as one seed with all their rows.
    """
    tagged = [run.seeds for run in runs.values()]
    if not all(tagged):
        return [{name: np.ones(len(run.table), dtype=bool) for name, run in runs.items()}]
    seeds = [s for s in tagged[0] if all(s in t for t in tagged[1:])]
    return [
        {name: (run.table["seed"] == s).to_numpy() for name, run in runs.items()} for s in seeds
    ]


def lead_interval(
    runs: Mapping[str, ParetoRun],
    x: str,
    leader: str,
    cap: float,
    rule: Rule,
    *,
    n_boot: int,
    seed: int,
) -> Interval:
    """Interval of ``leader``'s hypervolume up to ``cap`` minus the best other's (§3).

    ``runs`` maps each representation to its probes (one task, the same test sentences) and
    ``x`` names the complexity column of their tables. The lead is computed per training seed
    from that seed's probes alone (:func:`~.resampling.frontier_lead`), and its mean over the
    seeds is bootstrapped over test sentences with the seed variance added
    (:func:`~.resampling.seeded_bootstrap`; ``seed`` draws the resamples).
    """
    counts, units = _sentence_data(runs)
    statistics = [
        frontier_lead(
            {
                name: (run.table[x].to_numpy(dtype=float)[rows[name]], counts[name][rows[name]])
                for name, run in runs.items()
            },
            units,
            leader,
            cap,
        )
        for rows in _seed_rows(runs)
    ]
    return seeded_bootstrap(statistics, len(units), rule.level, n_resamples=n_boot, seed=seed)


def onehot_simple_intervals(
    runs: ParametricRuns, simple_fraction: float, *, n_boot: int, seed: int
) -> dict[str, Interval]:
    """III.3: one-hot's hypervolume over the simple range minus the best other's, per task.

    ``runs`` is chapter 32's :class:`~.parametric_experiment.ParametricRuns`; the simple range is
    nuclear norms up to ``simple_fraction`` of its cap (``max_norm``). A task lacking the one-hot
    or every other representation under the nuclear norm is not measured: it is left out.
    """
    out = {}
    for task in TASKS:
        found = {
            name: runs.runs[(task, name, "nuclear")]
            for name in REPRESENTATIONS
            if (task, name, "nuclear") in runs.runs
        }
        if "onehot" not in found or len(found) < 2:
            continue
        cap = simple_fraction * runs.max_norm
        out[task] = lead_interval(found, "complexity", "onehot", cap, ONEHOT_SIMPLE_RULE,
                                  n_boot=n_boot, seed=seed)  # fmt: skip
    return out


#: The simple ranges :func:`simple_range_readings` reads, as multiples of the chapter's own.
RANGE_FACTORS = (0.5, 1.0, 2.0)


def simple_range_readings(
    runs: ParametricRuns,
    simple_fraction: float,
    own: Mapping[str, Interval],
    *,
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    """III.3 read again over other simple ranges, with the same rule (a robustness reading).

    The paper reads "one-hot wins for simple probes" off its figures without saying where
    "simple" ends, so the range is the book's choice (chapter 32's ``simple_fraction`` of the
    cap). One row per multiple of it in :data:`RANGE_FACTORS` (half, the same, twice; at most
    the whole cap): the share of the cap, the budget (nuclear norm), the lead per measured task
    as text, and the rule's verdict on the measured tasks together; a range where no task can
    be measured is left out. The claim's own verdict is the chapter's, at its parameter: ``own``
    is the chapter's :func:`onehot_simple_intervals` at ``simple_fraction``, read as it is.
    """
    fractions = dict.fromkeys(min(1.0, f * simple_fraction) for f in RANGE_FACTORS)
    rows = []
    for fraction in fractions:
        intervals = (
            own
            if fraction == simple_fraction
            else onehot_simple_intervals(runs, fraction, n_boot=n_boot, seed=seed)
        )
        if not intervals:
            continue
        rows.append(
            {"share of the cap": fraction, "budget (nuclear norm)": fraction * runs.max_norm}
            | {TASK_TITLES.get(t, t): format_interval(iv, ONEHOT_SIMPLE_RULE)
               for t, iv in intervals.items()}
            | {"verdict": ONEHOT_SIMPLE.judge(intervals).verdict}
        )  # fmt: skip
    return pd.DataFrame(rows)


def readings_agree(readings: pd.DataFrame) -> str:
    """The text "the same" when every row of a robustness reading has one verdict, else "not"."""
    return "the same" if readings["verdict"].nunique() <= 1 else "not the same"


def simple_as_good_intervals(
    runs: MemorisationRuns, *, n_boot: int, seed: int
) -> dict[str, Interval]:
    """III.4: best accuracy of the more-memorising half of the MLPs minus the less-memorising.

    One interval per ``<task>_<representation>`` of :data:`SIMPLE_AS_GOOD_PARTS`, from chapter
    33's :class:`~.memorisation_experiment.MemorisationRuns` (complexity: its control ``x``). The
    gap is computed per training seed from that seed's architectures
    (:func:`~.resampling.half_gap`, equal halves), and its mean over the seeds is bootstrapped
    over test sentences with the seed variance added (:func:`~.resampling.seeded_bootstrap`).
    Not "best of all minus best of the simpler half": that gap is 0 whenever a seed's best
    probe is simple, and with a few seeds all at 0 the seed variance vanishes and the interval
    with it (in simulation such a rule said "reproduced" many times more often than alpha where
    the more complex architectures were better by the SESOI). A setting not run, or where a seed has no halves
    (:func:`~.frontiers.complexity_halves`), is not measured: it is left out.
    """
    out = {}
    for task in TASKS:
        for name in REPRESENTATIONS:
            run = runs.runs.get((task, name))
            if run is None:
                continue
            complexity = run.table[runs.x].to_numpy(dtype=float)
            per_seed = []
            for rows in _seed_rows({name: run}):
                c = complexity[rows[name]]
                if complexity_halves(c[np.isfinite(c)]) is None:
                    break
                per_seed.append(rows[name])
            else:
                counts, units = run.sentence_scores()
                statistics = [half_gap(complexity[r], counts[r], units) for r in per_seed]
                out[f"{task}_{name}"] = seeded_bootstrap(
                    statistics, len(units), SIMPLE_AS_GOOD_RULE.level, n_resamples=n_boot,
                    seed=seed,
                )  # fmt: skip
    return out


def contextual_lead_interval(
    runs: Mapping[str, ParetoRun], x: str, *, n_boot: int, seed: int
) -> Interval | None:
    """The contextual representation's hypervolume lead over the best other one, one task.

    Under memorisation complexity ``x`` (cap 1), as in Tables 2 and 3 (§7.2): the two sides of
    III.5 (chapter 33 for POSL and DAL, chapter 34 for parsing). ``runs`` maps representations
    to their MLPs on the task; None (not measured) without the contextual or any other
    representation with a complexity.
    """
    usable = {
        name: run
        for name, run in runs.items()
        if np.isfinite(run.table[x].to_numpy(dtype=float)).any()
    }
    if "contextual" not in usable or not any(n in usable for n in NON_CONTEXTUAL):
        return None
    return lead_interval(usable, x, "contextual", 1.0, SEPARATION_RULE, n_boot=n_boot, seed=seed)


def separation_intervals(
    parse: Interval | None, toy: Mapping[str, Interval | None]
) -> dict[str, Interval]:
    """III.5: the contextual lead on parsing minus the lead on each toy task.

    The parsing lead comes from chapter 34's run and the toy tasks' from chapter 33's
    (:func:`saved_leads`), each bootstrapped over its own test sentences with its seed variance
    (:func:`~.resampling.seeded_bootstrap`) and saved as an interval only; their variances add,
    and the interval is t at the rule's level with Satterthwaite's degrees of freedom. Both
    chapters score the same test split, so the leads may covary; a positive covariance, the
    likely sign, makes this interval wider than a joint resample's. A toy task
    without a saved lead is not measured, and none is without the parsing lead (``parse``
    None): they are left out.
    """
    out = {}
    if parse is None or not math.isfinite(parse.estimate):
        return out
    for task in TASKS:
        other = toy.get(task)
        if other is None or not math.isfinite(other.estimate):
            continue
        theta = parse.estimate - other.estimate
        se = math.hypot(parse.se, other.se)
        # Satterthwaite over the four components; a sentence part counts as infinite df.
        seed_parts = [(iv.se_seeds**2, iv.n_seeds[0] - 1) for iv in (parse, other)]
        denom = sum(v**2 / k for v, k in seed_parts if v > 0 and k > 0)
        df = se**4 / denom if denom > 0 else math.inf
        q = t_quantile(SEPARATION_RULE.level, df)
        out[task] = Interval(theta, theta - q * se, theta + q * se, SEPARATION_RULE.level, se,
                             df, math.hypot(parse.se_sentences, other.se_sentences),
                             math.hypot(parse.se_seeds, other.se_seeds), parse.n_sentences,
                             (parse.n_seeds[0], other.n_seeds[0]),
                             "a sentence bootstrap and the seeds per chapter, variances added"
                             )  # fmt: skip
    return out


def uas_interval(scores_a: np.ndarray, scores_b: np.ndarray, units: np.ndarray) -> Interval:
    """III.6: UAS of the contextual parser minus its non-contextual rival's.

    ``scores_a`` and ``scores_b`` (k, n) are the words each parser attached right in each test
    sentence under each of its k training seeds, ``units`` (n,) the sentence's words.
    Variance components over sentences and seeds
    (:func:`~probekit.stats.intervals.crossed_interval`): two parsers each trained once would
    hide the seed variance, hence at least two seeds a side.
    """
    for name, scores in (("scores_a", scores_a), ("scores_b", scores_b)):
        if np.ndim(scores) != 2 or np.shape(scores)[0] < 2:
            raise ParameterError(name, "needs (seeds, sentences) scores of >= 2 seeds")
    return crossed_interval(scores_a, scores_b, units, UAS_RULE.level)


# --------------------------------------------------------------------------------------------
# Saved intervals, for the chapters
# --------------------------------------------------------------------------------------------


def interval_values(prefix: str, interval: Interval) -> dict[str, Any]:
    """An interval as flat values ``<prefix>_<field>``, to save with a chapter's results."""
    return {f"{prefix}_{name}": value for name, value in interval.as_dict().items()}


def saved_interval(values: Mapping[str, Any] | None, prefix: str) -> Interval | None:
    """The interval :func:`interval_values` saved under ``prefix``; None when it is missing."""
    if values is None:
        return None
    fields = {}
    for name in ("estimate", "low", "high", "level", "se", "df", "se_sentences", "se_seeds",
                 "n_sentences", "n_seeds", "method"):  # fmt: skip
        if f"{prefix}_{name}" not in values:
            return None
        fields[name] = values[f"{prefix}_{name}"]
    return Interval.from_dict(fields)


LEAD_SETTINGS = (
    "model",
    "layer",
    "pooling",
    "type_dim",
    "fasttext_dim",
    "fasttext_epochs",
    "fasttext_path",
)
"""The configuration fields a contextual lead in hypervolume depends on (:func:`lead_settings`)."""


def lead_settings(config: Any) -> dict[str, Any]:
    """What a contextual lead in hypervolume depends on besides the task (claim III.5).

    The contextual model, layer and pooling (:data:`LEAD_SETTINGS`), and the type-level rivals:
    which representations ran and how the type-level ones were built (their size, fastText's
    training). Chapters 33 and 34 save these with their leads, and chapter 35 sets two leads
    against each other only where they agree, so that, for instance, a lead measured under the
    ``quick`` profile's 32-dimensional vectors is never set against one from ``book``.
    """
    settings = {key: getattr(config, key) for key in LEAD_SETTINGS}
    return settings | {"lead_representations": ",".join(config.representations)}


def lead_values(leads: Mapping[str, Interval | None], config: Any) -> dict[str, Any]:
    """What a chapter saves of its contextual leads for III.5, read back by :func:`saved_leads`.

    Each measured lead of ``leads`` (task -> interval, None where not measured) as
    ``hv_gap_<task>`` (:func:`interval_values`), with the chapter's :func:`lead_settings`.
    """
    values = lead_settings(config)
    for task, lead in leads.items():
        if lead is not None:
            values |= interval_values(f"hv_gap_{task}", lead)
    return values


def _finite(interval: Interval | None) -> Interval | None:
    return interval if interval is not None and math.isfinite(interval.estimate) else None


def saved_leads(
    parsing: Mapping[str, Any] | None, toy: Mapping[str, Any] | None
) -> tuple[Interval | None, dict[str, Interval]]:
    """The contextual leads that chapters 34 (parsing) and 33 (POSL, DAL) saved, for III.5.

    ``parsing`` and ``toy`` are those chapters' saved results (or None): their
    :func:`lead_values` and their ``treebank`` (name). Returns the parsing lead (None when missing
    or not finite) and the finite toy leads by task; the toy leads only when both chapters saved
    the same settings and treebank (a setting neither saved does not count as agreeing).
    """
    parse = _finite(saved_interval(parsing, "hv_gap_parse"))
    if parsing is None or toy is None:
        return parse, {}
    keys = (*LEAD_SETTINGS, "lead_representations", "treebank")
    if not all(key in parsing and key in toy and parsing[key] == toy[key] for key in keys):
        return parse, {}
    leads = {task: _finite(saved_interval(toy, f"hv_gap_{task}")) for task in TASKS}
    return parse, {task: lead for task, lead in leads.items() if lead is not None}


#: How each side of III.5 was trained, as chapters 33 and 34 save it: (saved key, row label).
LEAD_DESIGN = (
    ("n_train_sentences", "training sentences"),
    ("n_train_words", "training words"),
    ("n_configs", "MLP architectures per representation"),
    ("max_hidden", "largest hidden layer"),
    ("lr", "learning rate"),
    ("memorise_steps", "most updates of a control"),
)


def lead_designs(parsing: Mapping[str, Any] | None, toy: Mapping[str, Any] | None) -> pd.DataFrame:
    """The training set-ups behind the two sides of III.5, side by side.

    One row per :data:`LEAD_DESIGN` setting (its label as index), columns ``toy tasks`` (chapter
    33's saved value) and ``parsing`` (chapter 34's), as text ("not saved" where a chapter did
    not save it), and ``same`` (saved by both, and equal). :func:`saved_leads` requires the same
    representations; these settings it does not require, because each chapter's ``book`` values
    are set for its own task and budget. A lead depends on them (fewer training examples are
    easier to memorise, chapter 33), so chapter 35 shows them beside its verdict.
    """
    rows = []
    for key, label in LEAD_DESIGN:
        a = None if toy is None else toy.get(key)
        b = None if parsing is None else parsing.get(key)
        rows.append({"setting": label, "toy tasks": _shown(a), "parsing": _shown(b),
                     "same": a is not None and a == b})  # fmt: skip
    return pd.DataFrame(rows).set_index("setting")


def _shown(value: Any) -> str:
    if value is None:
        return "not saved"
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"
