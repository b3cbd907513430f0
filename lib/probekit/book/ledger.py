"""The claims ledger: the five papers' headline claims, judged on the results the chapters saved.

Every chapter writes its glued values to ``build/results/<slug>.json`` (:meth:`Glue.save
<probekit.book.glue.Glue.save>`). A :class:`LedgerClaim` names the chapter and the saved values it reads
and one of four tests, each fixed before any result was seen:

- ``bootstrap``: a 95 % paired-bootstrap interval over test sentences
  (:mod:`probekit.stats.bootstrap`); reproduced when it lies wholly on the claimed side of zero
  (a directional claim: a smaller effect than the paper's still reproduces it), not reproduced
  when it lies wholly on the other side, or covers zero but excludes the paper's own effect size;
  otherwise underpowered;
- ``equivalence``: the same interval against a margin around zero, stated with the claim;
- ``mcnemar``: the exact McNemar test and its power at the observed effect (Zhu et al. 2022,
  §3.5; :func:`probekit.stats.comparison.compare`); reproduced when significant in the claimed
  direction with power >= 0.8, underpowered when the power is below 0.8, otherwise not
  reproduced;
- ``threshold``: a rule on a saved quantity, stated with the claim.

A claim whose chapter has not saved the values it needs is "not tested", never guessed.
Verdicts are computed here, never typed; the ledger chapter and the parts' overview pages show
them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from probekit.errors import ParameterError

Results = Mapping[str, Mapping[str, Any]]
REPRODUCED, NOT_REPRODUCED, UNDERPOWERED, NOT_TESTED = (
    "reproduced",
    "not reproduced",
    "underpowered",
    "not tested",
)
VERDICTS = (REPRODUCED, NOT_REPRODUCED, UNDERPOWERED, NOT_TESTED)
POWER_THRESHOLD = 0.8


@dataclass(frozen=True)
class Paper:
    """One of the five papers the book reproduces: its key, part, short name and question."""

    key: str  # BibTeX key
    part: str  # "I" ... "V"
    short: str
    question: str


PAPERS: tuple[Paper, ...] = (
    Paper(
        "hallmaudslay2020tale",
        "I",
        "A probe and a parser",
        "Is a structural probe better than a parser with the same parameters?",
    ),
    Paper(
        "hallmaudslay2021jabberwocky",
        "II",
        "Jabberwocky probing",
        "Do syntactic probes still find syntax when the words are nonsense?",
    ),
    Paper(
        "pimentel2020pareto",
        "III",
        "Pareto probing",
        "How should a probe's accuracy be weighed against its complexity?",
    ),
    Paper(
        "kunz2021test",
        "IV",
        "Extrapolation splits",
        "Do probes trained on easy examples still work on hard ones?",
    ),
    Paper(
        "zhu2022data",
        "V",
        "Data requirements",
        "How much data does a probing comparison need?",
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What one claim's test found: the measured quantity as text, and the verdict."""

    measured: str
    verdict: str


class _Missing(KeyError):
    """A claim's chapter has not saved a value the claim needs."""


class _Reader:
    """Saved values of one chapter; a missing chapter or key raises :class:`_Missing`."""

    def __init__(self, results: Results, slug: str):
        if slug not in results:
            raise _Missing(f"chapter {slug} has saved no results")
        self.slug, self.values = slug, results[slug]

    def __getitem__(self, key: str) -> Any:
        if key not in self.values:
            raise _Missing(f"chapter {self.slug} has not saved '{key}'")
        value = self.values[key]
        if isinstance(value, float) and math.isnan(value):
            raise _Missing(f"chapter {self.slug} saved '{key}' as NaN (the run skipped it)")
        return value


Judge = Callable[[_Reader], Outcome]


@dataclass(frozen=True)
class LedgerClaim:
    """One headline claim of a paper, where the book measures it, and how it is judged."""

    id: str  # "I.1"
    paper: str  # BibTeX key of :data:`PAPERS`
    section: str  # "§5"
    chapter: str  # slug of the chapter that measures it
    anchor: str  # the chapter's section label, for links
    claim: str  # the claim, in our words
    quantity: str  # what our run measures
    test: str  # "bootstrap", "equivalence", "mcnemar" or "threshold"
    rule: str  # the test's rule, stated in advance
    judge: Judge

    def evaluate(self, results: Results) -> Outcome:
        """Judge the claim on the saved ``results``; "not tested" when a value is missing."""
        try:
            return self.judge(_Reader(results, self.chapter))
        except _Missing as exc:
            return Outcome(f"– ({exc.args[0]})", NOT_TESTED)


# --------------------------------------------------------------------------------------------
# The four tests


def _fmt(x: float, digits: int) -> str:
    return f"{x:+.{digits}f}"


def bootstrap(prefix: str, *, estimate: str = "estimate", sign: int = 1,
              paper_effect: float | None = None, unit: str = "points", digits: int = 1,
              n_key: str | None = None) -> Judge:  # fmt: skip
    """Judge a directional claim on a saved paired-bootstrap interval.

    Reads ``<prefix>_<estimate>`` (``<prefix>`` itself when ``estimate`` is empty), ``_low`` and
    ``_high`` (the 95 % interval). ``sign`` +1 claims a positive difference, -1 a negative one;
    ``paper_effect`` is the paper's difference in the same orientation and units, when it
    reports one.
    """
    keys = (f"{prefix}_{estimate}" if estimate else prefix, f"{prefix}_low", f"{prefix}_high")

    def judge(r: _Reader) -> Outcome:
        est, low, high = (sign * float(r[k]) for k in keys)
        low, high = min(low, high), max(low, high)
        n = f", {int(r[n_key]):,} sentences" if n_key else ""
        unit_text = f" {unit}" if unit else ""
        measured = (
            f"{_fmt(est, digits)}{unit_text} (95 % CI {_fmt(low, digits)} to "
            f"{_fmt(high, digits)}{n})"
        )
        if low > 0:
            return Outcome(measured, REPRODUCED)
        if high < 0 or (paper_effect is not None and not low <= paper_effect <= high):
            return Outcome(measured, NOT_REPRODUCED)
        return Outcome(measured, UNDERPOWERED)

    return judge


def equivalence(prefix: str, margin: float, *, unit: str = "", digits: int = 3) -> Judge:
    """Judge a claim of no difference: the saved 95 % interval against ``±margin``."""

    def judge(r: _Reader) -> Outcome:
        est, low, high = (float(r[f"{prefix}_{k}"]) for k in ("estimate", "low", "high"))
        measured = (
            f"{_fmt(est, digits)}{unit} (95 % CI {_fmt(low, digits)} to {_fmt(high, digits)}; "
            f"margin ±{margin:g})"
        )
        if -margin < low and high < margin:
            return Outcome(measured, REPRODUCED)
        if low >= margin or high <= -margin:
            return Outcome(measured, NOT_REPRODUCED)
        return Outcome(measured, UNDERPOWERED)

    return judge


def mcnemar(prefix: str, *, sign: int = 1) -> Judge:
    """Judge a directional claim on a saved :class:`~probekit.stats.comparison.Comparison`.

    Reads ``<prefix>_diff`` (A - B, points), ``_p``, ``_power``, ``_n`` and ``_alpha`` as
    :meth:`Glue.comparison <probekit.book.glue.Glue.comparison>` saves them.
    """

    def judge(r: _Reader) -> Outcome:
        diff, p, power = (
            sign * float(r[f"{prefix}_diff"]),
            float(r[f"{prefix}_p"]),
            float(r[f"{prefix}_power"]),
        )
        alpha, n = float(r[f"{prefix}_alpha"]), int(r[f"{prefix}_n"])
        p_text = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
        measured = f"{_fmt(diff, 1)} points ({p_text}, power {power:.2f} at n = {n:,})"
        if power < POWER_THRESHOLD:
            return Outcome(measured, UNDERPOWERED)
        if p <= alpha and diff > 0:
            return Outcome(measured, REPRODUCED)
        return Outcome(measured, NOT_REPRODUCED)

    return judge


def threshold(measure: Callable[[_Reader], tuple[str, bool | None]]) -> Judge:
    """Judge a claim by a rule on saved values.

    ``measure`` returns the measured text and whether the rule holds (None: the rule cannot
    decide at this size, i.e. underpowered).
    """

    def judge(r: _Reader) -> Outcome:
        measured, holds = measure(r)
        verdict = {True: REPRODUCED, False: NOT_REPRODUCED, None: UNDERPOWERED}[holds]
        return Outcome(measured, verdict)

    return judge


def intervals_apart(prefix_a: str, prefix_b: str, *, labels: tuple[str, str], unit: str = "",
                    digits: int = 1) -> Judge:  # fmt: skip
    """Claim: quantity A exceeds quantity B, judged by their saved 95 % intervals.

    Reproduced when A's lies wholly above B's, not reproduced when wholly below, else
    underpowered.
    """

    def judge(r: _Reader) -> Outcome:
        a, a_lo, a_hi = (float(r[f"{prefix_a}{k}"]) for k in ("", "_low", "_high"))
        b, b_lo, b_hi = (float(r[f"{prefix_b}{k}"]) for k in ("", "_low", "_high"))
        unit_text = f" {unit}" if unit else ""
        measured = (
            f"{a:.{digits}f}{unit_text} (CI {a_lo:.{digits}f} to {a_hi:.{digits}f}) {labels[0]}, "
            f"{b:.{digits}f} (CI {b_lo:.{digits}f} to {b_hi:.{digits}f}) {labels[1]}"
        )
        if a_lo > b_hi:
            return Outcome(measured, REPRODUCED)
        if a_hi < b_lo:
            return Outcome(measured, NOT_REPRODUCED)
        return Outcome(measured, UNDERPOWERED)

    return judge


# --------------------------------------------------------------------------------------------
# Threshold rules (each states its rule in the claim's ``rule`` field)


def _round_trip(r: _Reader) -> tuple[str, bool]:
    rate, n = float(r["round_trip_rate"]), int(r["round_trip_n"])
    return f"{rate:.1f} % of {n:,} dev trees recovered", rate == 100.0


def _lookup(task: str) -> Callable[[_Reader], tuple[str, bool]]:
    def measure(r: _Reader) -> tuple[str, bool]:
        ours, paper = float(r[f"{task}_lookup"]), float(r[f"{task}_paper"])
        return f"{ours:.1f} % (paper {paper:.1f} %)", abs(ours - paper) <= 2.0

    return measure


def _onehot_simple(family: str, key: str) -> Callable[[_Reader], tuple[str, bool]]:
    def measure(r: _Reader) -> tuple[str, bool]:
        winners = {task: str(r[key.format(task=task, family=family)]) for task in ("posl", "dal")}
        wins = sum(w == "one-hot" for w in winners.values())
        shown = ", ".join(f"{t.upper()} {w}" for t, w in winners.items())
        return f"one-hot leads in {wins} of 2 tasks ({shown})", wins == 2

    return measure


def _simple_as_good(r: _Reader) -> tuple[str, bool]:
    worst, mean = float(r["max_gap"]), float(r["mean_gap"])
    return f"simpler half loses at most {worst:.1f} points ({mean:.1f} on average)", worst <= 1.0


def _parsing_separates(r: _Reader) -> tuple[str, bool]:
    parse, posl, dal = (float(r[f"hv_gap_{t}"]) for t in ("parse", "posl", "dal"))
    return (
        f"hypervolume gap {parse:+.3f} on parsing, {posl:+.3f} on POSL, {dal:+.3f} on DAL",
        parse > 0 and parse > max(posl, dal),
    )


def _t1_length_small(r: _Reader) -> tuple[str, bool]:
    ling, dist = float(r["t1_ling_gap_max"]), float(r["t1_dist_gap_max"])
    return (
        f"largest gap {ling:.1f} points (linguistic), {dist:.1f} (distributional)",
        max(ling, dist) <= 3.0,
    )


def _mft_layers(r: _Reader) -> tuple[str, bool]:
    first, last = float(r["mft_extra_first"]), float(r["mft_extra_last"])
    return (
        f"extrapolation accuracy {first:.1f} % at layer {int(r['first_layer'])}, {last:.1f} % at "
        f"layer {int(r['last_layer'])}",
        last > first + 5.0,
    )


def _loss_control_lowest(r: _Reader) -> tuple[str, bool]:
    pairs = [
        (float(r[f"{t}_loss_control_mean"]), float(r[f"{t}_speed_control_mean"]))
        for t in ("t1", "t2")
    ]
    shown = "; ".join(
        f"{t} {loss:.1f} against {speed:.1f}"
        for t, (loss, speed) in zip(("T1", "T2"), pairs, strict=True)
    )
    return f"control accuracy, sample loss against speed of learning: {shown} %", all(
        loss < speed for loss, speed in pairs
    )


def _bound_holds(r: _Reader) -> tuple[str, bool]:
    share = float(r["inside_share"])
    return f"{share:.0f} % of runs inside the bound's margins", share == 100.0


def _recommendations(r: _Reader) -> tuple[str, bool]:
    ok, rows = int(r["rec_consistent"]), int(r["rec_rows"])
    return f"{ok} of {rows} printed recommendations recomputed", ok == rows


def _power_grows(r: _Reader) -> tuple[str, bool]:
    share = float(r["grow_share"])
    return f"power grows with the test set for {share:.0f} % of noise levels", share == 100.0


def _noise_power(r: _Reader) -> tuple[str, bool | None]:
    rho, n = float(r["rho"]), int(r["n_sigmas"])
    if math.isnan(rho):
        return f"power equal at all {n} noise levels", None
    return f"Spearman ρ(σ, power) = {rho:+.2f} over {n} noise levels", rho > 0


def _recommendation_suffices(r: _Reader) -> tuple[str, bool | None]:
    reached, ok = int(r["n_reached"]), int(r["n_sufficient"])
    if reached == 0:
        return "no comparison reached power 0.8 on our subsets", None
    return f"{ok} of {reached} comparisons reach 0.8 within the recommendation", ok == reached


def _collapse(r: _Reader) -> tuple[str, bool | None]:
    checks, collapsed, stable = (int(r[k]) for k in ("clf_checks", "clf_collapsed", "clf_stable"))
    if checks == 0:
        raise _Missing("the classifier comparison was not the one checked for collapse")
    text = f"{collapsed} of {checks} checks read 'likely collapsed', {stable} 'stable'"
    if collapsed == checks:
        return text, True
    if stable == checks:
        return text, False
    return text, None


# --------------------------------------------------------------------------------------------
# The claims

_SETS = ("on normal sentences", "on Jabberwocky")
_BOOT = "95 % interval over test sentences on the claimed side of 0"
_MCN = "p ≤ α in the claimed direction with power ≥ 0.8; power < 0.8 is underpowered"

CLAIMS: tuple[LedgerClaim, ...] = (
    # Part I: Hall Maudslay et al. 2020
    LedgerClaim("I.1", "hallmaudslay2020tale", "§2, Prop. 1", "11_syntactic_distance", "sec-ch11",
          "Syntactic distance determines the tree: the minimum spanning tree of the gold "
          "distances is the gold tree.",
          "share of dev trees recovered from their distance matrix", "threshold",
          "every tree recovered (100 %)", threshold(_round_trip)),
    LedgerClaim("I.2", "hallmaudslay2020tale", "§5", "12_probe_vs_parser", "sec-ch12",
          "The parser beats the structural probe on UUAS (English: +11.1 points).",
          "parser − probe UUAS at the compared layer", "bootstrap", _BOOT,
          bootstrap("uuas", paper_effect=11.1, n_key="uuas_sentences")),
    LedgerClaim("I.3", "hallmaudslay2020tale", "§5", "12_probe_vs_parser", "sec-ch12",
          "The structural probe beats the parser on DSpr.",
          "probe − parser DSpr at the compared layer", "bootstrap", _BOOT,
          bootstrap("dspr", unit="", digits=3, n_key="dspr_sentences")),
    LedgerClaim("I.4", "hallmaudslay2020tale", "§5", "12_probe_vs_parser", "sec-ch12",
          "After Prim and Floyd–Warshall the two hardly differ on DSpr (mean 0.0006).",
          "parser − probe DSpr(P+FW)", "equivalence",
          "95 % interval within ±0.02", equivalence("dspr_pfw", 0.02)),
    # Part II: Hall Maudslay & Cotterell 2021
    LedgerClaim("II.1", "hallmaudslay2021jabberwocky", "§5.2", "22_jabberwocky_probes", "sec-ch22",
          "The structural probe does worse on Jabberwocky sentences than on the originals.",
          "normal − Jabberwocky DSpr, best layer", "bootstrap", _BOOT,
          bootstrap("st", unit="", digits=3)),
    LedgerClaim("II.2", "hallmaudslay2021jabberwocky", "§5.2", "22_jabberwocky_probes", "sec-ch22",
          "The perceptron probe does worse on Jabberwocky sentences than on the originals.",
          "normal − Jabberwocky UUAS, best layer", "bootstrap", _BOOT, bootstrap("pc")),
    LedgerClaim("II.3", "hallmaudslay2021jabberwocky", "§5.2", "22_jabberwocky_probes", "sec-ch22",
          "On Jabberwocky the perceptron probe still beats the word-blind baselines.",
          "probe − better baseline UUAS on Jabberwocky", "bootstrap", _BOOT,
          bootstrap("pc_lead_j", estimate="")),
    LedgerClaim("II.4", "hallmaudslay2021jabberwocky", "§5.2", "22_jabberwocky_probes", "sec-ch22",
          "The perceptron probe's lead over the baselines shrinks on Jabberwocky.",
          "probe − baseline UUAS lead, normal against Jabberwocky", "threshold",
          "the two 95 % intervals do not overlap; overlap is underpowered",
          intervals_apart("pc_lead_n", "pc_lead_j", labels=_SETS, unit="points")),
    LedgerClaim("II.5", "hallmaudslay2021jabberwocky", "§5.2", "22_jabberwocky_probes", "sec-ch22",
          "The structural probe's lead over the baselines shrinks on Jabberwocky.",
          "probe − baseline DSpr lead, normal against Jabberwocky", "threshold",
          "the two 95 % intervals do not overlap; overlap is underpowered",
          intervals_apart("st_lead_n", "st_lead_j", labels=_SETS, digits=3)),
    # Part III: Pimentel et al. 2020
    LedgerClaim("III.1", "pimentel2020pareto", "§7.1", "31_lookup_and_toy_tasks", "sec-ch31",
          "A type-level lookup table already reaches about 86 % on POSL.",
          "accuracy of the majority-tag lookup on EWT test", "threshold",
          "within 2 points of the paper's figure", threshold(_lookup("posl"))),
    LedgerClaim("III.2", "pimentel2020pareto", "§7.1", "31_lookup_and_toy_tasks", "sec-ch31",
          "A type-level lookup table already reaches about 68 % on DAL.",
          "accuracy of the majority-label lookup on EWT test", "threshold",
          "within 2 points of the paper's figure", threshold(_lookup("dal"))),
    LedgerClaim("III.3", "pimentel2020pareto", "§6.1", "32_parametric_complexity", "sec-ch32",
          "Under the nuclear norm, one-hot vectors are Pareto-best among simple linear probes.",
          "representation leading the simple range, per task", "threshold",
          "one-hot leads on both POSL and DAL",
          threshold(_onehot_simple("nuclear", "simple_{task}_{family}"))),
    LedgerClaim("III.4", "pimentel2020pareto", "§6.2", "33_memorisation_complexity", "sec-ch33",
          "MLPs that memorise little are as accurate as those that memorise a lot.",
          "best accuracy overall − best of the less-memorising half", "threshold",
          "at most 1 point in every task and representation", threshold(_simple_as_good)),
    LedgerClaim("III.5", "pimentel2020pareto", "§7.2", "34_dependency_parsing", "sec-ch34",
          "Dependency parsing separates contextual from non-contextual representations "
          "better than the toy tasks do.",
          "contextual − best other hypervolume, parsing against POSL and DAL", "threshold",
          "the parsing gap is positive and larger than both toy-task gaps",
          threshold(_parsing_separates)),
    LedgerClaim("III.6", "pimentel2020pareto", "§7.2", "34_dependency_parsing", "sec-ch34",
          "The contextual parser beats the best non-contextual one on UAS.",
          "contextual − best non-contextual UAS", "bootstrap", _BOOT,
          bootstrap("uas_gap", estimate="", n_key="n_test_sentences")),
    # Part IV: Kunz & Kuhlmann 2021
    LedgerClaim("IV.1", "kunz2021test", "§4.1", "42_length_criteria", "sec-ch42",
          "For part of speech (T1), sentence-length splits hardly hurt: the control − "
          "extrapolation gap stays small.",
          "largest gap over layers, T1", "threshold", "at most 3 points at every layer",
          threshold(_t1_length_small)),
    LedgerClaim("IV.2", "kunz2021test", "§4.2", "42_length_criteria", "sec-ch42",
          "Arc length gives a clear extrapolation gap for dependency labels (T2).",
          "control − extrapolation accuracy on the hard arcs", "mcnemar", _MCN,
          mcnemar("t2_arc_cmp")),
    LedgerClaim("IV.3", "kunz2021test", "§4.3", "43_tag_criteria", "sec-ch43",
          "Training only on words with their most frequent tag makes the other words clearly "
          "harder.",
          "control − extrapolation accuracy on the non-MFT words", "mcnemar", _MCN,
          mcnemar("mft_cmp")),
    LedgerClaim("IV.4", "kunz2021test", "§4.3", "43_tag_criteria", "sec-ch43",
          "Under the MFT split, higher layers extrapolate much better than the first.",
          "extrapolation accuracy, last layer against first", "threshold",
          "more than 5 points higher at the last layer", threshold(_mft_layers)),
    LedgerClaim("IV.5", "kunz2021test", "§4.4", "44_learning_criteria", "sec-ch44",
          "Training only on quickly learnt examples leaves a large gap on the slow ones.",
          "control − extrapolation accuracy on the hard words (T1)", "mcnemar", _MCN,
          mcnemar("t1_speed_cmp")),
    LedgerClaim("IV.6", "kunz2021test", "§4.5", "44_learning_criteria", "sec-ch44",
          "Sample loss picks the hardest hard set: its control accuracy is the lowest.",
          "control accuracy, sample loss against speed of learning", "threshold",
          "lower for both T1 and T2", threshold(_loss_control_lowest)),
    # Part V: Zhu et al. 2022
    LedgerClaim("V.1", "zhu2022data", "§4.2", "51_generalisation_bounds", "sec-ch51",
          "Accuracies measured on training sets of growing size stay within the bound.",
          "share of runs inside the bound's margins", "threshold", "every run (100 %)",
          threshold(_bound_holds)),
    LedgerClaim("V.2", "zhu2022data", "§3.4", "51_generalisation_bounds", "sec-ch51",
          "The printed training-size recommendations follow from the bound and the printed "
          "gaps.",
          "printed recommendations that our implementation recomputes", "threshold",
          "all of them", threshold(_recommendations)),
    LedgerClaim("V.3", "zhu2022data", "§4.3", "52_power_and_noise", "sec-ch52",
          "Larger test sets give a comparison more power.",
          "noise levels whose power grows from the smallest to the largest test set",
          "threshold", "all of them", threshold(_power_grows)),
    LedgerClaim("V.4", "zhu2022data", "§4.4", "52_power_and_noise", "sec-ch52",
          "The more an encoder is corrupted, the easier the corruption is to detect.",
          "rank correlation of noise σ with power at the largest test set", "threshold",
          "ρ > 0; equal powers cannot decide", threshold(_noise_power)),
    LedgerClaim("V.5", "zhu2022data", "§4.5", "53_comparison_problems", "sec-ch53",
          "The recommended training size is enough for 0.8 power.",
          "comparisons reaching 0.8 power no later than their recommendation", "threshold",
          "all that reach 0.8; none reaching 0.8 is underpowered",
          threshold(_recommendation_suffices)),
    LedgerClaim("V.6", "zhu2022data", "§4.6", "53_comparison_problems", "sec-ch53",
          "Comparing a linear with an MLP classifier on the same layer can collapse.",
          "readings of the collapse checks on LogReg against MLP", "threshold",
          "all read 'likely collapsed'; all 'stable' is not reproduced; mixed is underpowered",
          threshold(_collapse)),
)  # fmt: skip


CLAIMS_BY_ID = {c.id: c for c in CLAIMS}
PAPERS_BY_KEY = {p.key: p for p in PAPERS}


# --------------------------------------------------------------------------------------------
# Reading results and showing the ledger


def evaluate(results: Results, claims: tuple[LedgerClaim, ...] = CLAIMS) -> pd.DataFrame:
    """Judge every claim on ``results``: one row per claim.

    Columns: id, part, paper, section, chapter, anchor, claim, quantity, test, rule, measured,
    verdict.
    """
    rows = []
    for c in claims:
        outcome = c.evaluate(results)
        rows.append({
            "id": c.id, "part": PAPERS_BY_KEY[c.paper].part, "paper": c.paper,
            "section": c.section, "chapter": c.chapter, "anchor": c.anchor, "claim": c.claim,
            "quantity": c.quantity, "test": c.test, "rule": c.rule,
            "measured": outcome.measured, "verdict": outcome.verdict,
        })  # fmt: skip
    return pd.DataFrame(rows)


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Claims per paper and verdict of an :func:`evaluate` table.

    Rows are papers (in :data:`PAPERS` order, by short name), columns verdicts (in
    :data:`VERDICTS` order).
    """
    return (
        table.assign(paper=table["paper"].map(lambda k: PAPERS_BY_KEY[k].short))
        .pivot_table(index="paper", columns="verdict", values="id", aggfunc="count", fill_value=0)
        .reindex(index=[p.short for p in PAPERS], fill_value=0)
        .reindex(columns=list(VERDICTS), fill_value=0)
    )


def sources_table(table: pd.DataFrame, results: Results) -> pd.DataFrame:
    """Per chapter that a claim reads: its number of claims and of saved values."""
    slugs = sorted(set(table["chapter"]))
    return pd.DataFrame(
        {
            "claims": [int((table["chapter"] == slug).sum()) for slug in slugs],
            "saved values": [len(results.get(slug, {})) for slug in slugs],
        },
        index=pd.Index(slugs, name="chapter"),
    )


def tally(table: pd.DataFrame) -> str:
    """Counts of verdicts, e.g. "3 reproduced, 1 not reproduced, 1 underpowered"."""
    counts = table["verdict"].value_counts()
    return ", ".join(f"{int(counts[v])} {v}" for v in VERDICTS if v in counts) or "no claims"


# Colour-blind-safe verdict colours (blue, vermilion, orange, grey: Okabe & Ito).
VERDICT_COLOURS = {
    REPRODUCED: "#0072B2",
    NOT_REPRODUCED: "#D55E00",
    UNDERPOWERED: "#B07000",
    NOT_TESTED: "#666666",
}
TEST_NAMES = {
    "bootstrap": "paired bootstrap",
    "equivalence": "equivalence",
    "mcnemar": "McNemar with power",
    "threshold": "threshold",
}


def describe_test(test: str, rule: str) -> str:
    """The test's name, with its rule where the ledger's page does not already state it."""
    return TEST_NAMES[test] if test in ("bootstrap", "mcnemar") else f"{TEST_NAMES[test]}: {rule}"


def html_table(table: pd.DataFrame, chapter_href: Callable[[str, str], str]) -> str:
    """The ledger as an HTML table, one row per claim.

    Each claim links to its chapter via ``chapter_href(slug, anchor)`` and each verdict is
    coloured by :data:`VERDICT_COLOURS`.
    """
    head = ("claim", "source", "measured on this build", "test", "verdict")
    out = ['<table class="table claims-ledger">', "<thead><tr>"]
    out += [f"<th>{h}</th>" for h in head] + ["</tr></thead>", "<tbody>"]
    for r in table.itertuples():
        link = html.escape(chapter_href(r.chapter, r.anchor))
        colour = VERDICT_COLOURS[r.verdict]
        out.append(
            "<tr>"
            f"<td><b>{html.escape(r.id)}</b> {html.escape(r.claim)}</td>"
            f"<td>{html.escape(PAPERS_BY_KEY[r.paper].short)}, {html.escape(r.section)}; "
            f'<a href="{link}">chapter {html.escape(r.chapter[:2])}</a></td>'
            f"<td>{html.escape(r.quantity)}: {html.escape(r.measured)}</td>"
            f"<td>{html.escape(describe_test(r.test, r.rule))}</td>"
            f'<td style="color: {colour}; font-weight: bold">{html.escape(r.verdict)}</td>'
            "</tr>"
        )
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def overview_markdown(table: pd.DataFrame, paper: str) -> str:
    """MyST for a part's overview page.

    Its claims, what this run measured, and the verdicts, each linked to its chapter.
    """
    if paper not in PAPERS_BY_KEY:
        raise ParameterError("paper", f"'{paper}' is not one of {sorted(PAPERS_BY_KEY)}")
    rows = table[table["paper"] == paper]
    lines = [
        f"Of the paper's {len(rows)} headline claims, this build finds **{tally(rows)}**. "
        "Each claim links to the chapter that measures it.",
        "",
        "| claim | measured on this run | verdict |",
        "|---|---|---|",
    ]
    for r in rows.itertuples():
        claim = r.claim.replace("|", "\\|")
        measured = r.measured.replace("|", "\\|")
        lines.append(
            f"| **{r.id}** {claim} ({r.section}; {{ref}}`chapter {r.chapter[:2]} <{r.anchor}>`) | "
            f"{measured} | "
            f"**{r.verdict}** |"
        )
    return "\n".join(lines) + "\n"
