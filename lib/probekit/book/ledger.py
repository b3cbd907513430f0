"""The claims ledger: the five papers' headline claims, judged on the results the chapters saved.

Every part of the book declares its claims in its ``claims`` module
(:class:`~probekit.experiments.claims.Claim`), each with the one rule that judges it
(:class:`~probekit.stats.verdicts.Rule`: the quantity in the claimed direction and its unit of
analysis, the smallest effect size of interest and why, the test, alpha). A chapter judges its
claims and saves their intervals (:meth:`probekit.book.glue.Glue.claim`); the ledger reads the
saved intervals back and judges them with the same rule, so a chapter and the ledger cannot
disagree (the ledger checks that they do not). Verdicts are computed, never typed:
"reproduced", "not reproduced" or "inconclusive" (:mod:`probekit.stats.verdicts`); a claim whose
chapter has saved no interval is "not tested".

Across the family of claims the ledger reports Holm's adjusted p-values (Holm 1979), flagging
verdicts that would not survive family-wise control, and the number of "reproduced" verdicts
expected by chance if no claimed effect were real.
"""

from __future__ import annotations

import hashlib
import html
import math
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.claims import NOT_TESTED, Claim, format_interval
from probekit.experiments.part1_probe_parser import claims as part1
from probekit.experiments.part2_jabberwocky import claims as part2
from probekit.experiments.part3_pareto import claims as part3
from probekit.experiments.part4_extrapolation import claims as part4
from probekit.experiments.part5_datasize import claims as part5
from probekit.experiments.tree_probing import rules as tree_rules
from probekit.stats import verdicts as verdict_rules
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, holm

Results = Mapping[str, Mapping[str, Any]]
VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTED)
CLAIM_MODULES = (part1, part2, part3, part4, part5)


@dataclass(frozen=True)
class Paper:
    """One of the five papers: BibTeX key, part of the book, short name and its question."""

    key: str
    part: str
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
PAPERS_BY_KEY = {p.key: p for p in PAPERS}
CLAIMS: tuple[Claim, ...] = tuple(c for module in CLAIM_MODULES for c in module.CLAIMS)
CLAIMS_BY_ID = {c.id: c for c in CLAIMS}


def _measured(claim: Claim, intervals: Any) -> tuple[str, str]:
    """The estimate and interval in words, as (summary, parts).

    For a single interval the summary is it and parts is empty. For a claim of parts the summary
    says how many of its declared parts the run measured and names those it did not (a run on
    another model or sample may measure other parts, or fewer); parts gives each measured part's.
    """
    if not claim.parts:
        return format_interval(intervals, claim.rule), ""
    measured = "; ".join(
        f"{claim.label(p)}: {format_interval(iv, claim.rule)}" for p, iv in intervals.items()
    )
    missing = [claim.label(p) for p in claim.parts if p not in intervals]
    head = f"{len(intervals)} part{'s' if len(intervals) != 1 else ''} measured"
    if missing:
        head += f", not measured: {', '.join(missing)}"
    return head, measured


def evaluate(results: Results, claims: tuple[Claim, ...] = CLAIMS) -> pd.DataFrame:
    """Judge every claim on the saved ``results`` (by chapter slug): one row per claim.

    Columns: id, part, paper, section, chapter, anchor, claim, rule (in words), consistency
    (why it is a consistency check; empty for a claim of its paper), finding (why it is a
    finding of this book rather than a test of its paper; empty otherwise), measured (in words),
    measured_parts (a claim of parts: each part's interval, the tail of measured), verdict, note,
    power (the design's at the SESOI), p (the deciding one-sided p-value), p_holm
    (Holm-adjusted over the tested claims, consistency checks and findings left out), holm_ok (the verdict
    survives family-wise control, for a "reproduced" verdict), chapter_verdict (what the
    chapter saved) and agrees.
    """
    rows = []
    for c in claims:
        row: dict[str, Any] = {
            "id": c.id, "part": PAPERS_BY_KEY[c.paper].part, "paper": c.paper,
            "section": c.section, "chapter": c.chapter, "anchor": c.anchor, "claim": c.text,
            "rule": c.describe(), "alpha": c.rule.alpha, "consistency": c.consistency,
            "finding": c.finding,
        }  # fmt: skip
        values = results.get(c.chapter, {})
        try:
            intervals = c.read(values)
        except KeyError as exc:
            row |= {
                "measured": f"– (chapter {c.chapter} saved no {exc.args[0]})",
                "measured_parts": "",
                "verdict": NOT_TESTED, "note": "", "power": math.nan, "p": math.nan,
                "chapter_verdict": values.get(f"{c.key}_verdict", NOT_TESTED),
            }  # fmt: skip
        else:
            judged = c.judge(intervals)
            summary, parts = _measured(c, intervals)
            row |= {
                "measured": f"{summary}. {parts}" if parts else summary,
                "measured_parts": parts, "verdict": judged.verdict,
                "note": judged.note, "power": judged.power, "p": judged.p_value,
                "chapter_verdict": values.get(f"{c.key}_verdict", NOT_TESTED),
            }  # fmt: skip
        rows.append(row)
    table = pd.DataFrame(rows)
    # Holm's family is the claims of the papers; a check or a finding is no test of them.
    family = _counted(table)
    table["p_holm"] = math.nan
    if family.any():
        table.loc[family, "p_holm"] = holm(table.loc[family, "p"].tolist())
    table["holm_ok"] = (
        ~family | (table["verdict"] != REPRODUCED) | (table["p_holm"] <= table["alpha"])
    )
    table["agrees"] = table["verdict"] == table["chapter_verdict"]
    return table


def _counted(table: pd.DataFrame) -> pd.Series:
    if not len(table):
        return pd.Series(dtype=bool)
    return (table["consistency"] == "") & (table["finding"] == "")


def claims_of_papers(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of an :func:`evaluate` table that are claims of their papers, in the tally."""
    return table[_counted(table)]


def findings(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of an :func:`evaluate` table that are findings of this book."""
    return table[table["finding"] != ""]


def consistency_checks(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of an :func:`evaluate` table that are consistency checks."""
    return table[table["consistency"] != ""]


def _rule_sources() -> list[Path]:
    """The sources of the claims' rules, sorted.

    Every part's ``claims`` module, the ``paper`` module beside it where there is one (the
    paper's numbers that SESOIs are derived from), the rules Parts I and II share
    (:mod:`probekit.experiments.tree_probing.rules`) and :mod:`probekit.stats.verdicts`.
    """
    claims = [Path(m.__file__) for m in CLAIM_MODULES]
    papers = [p.with_name("paper.py") for p in claims if p.with_name("paper.py").is_file()]
    shared = [Path(tree_rules.__file__), Path(verdict_rules.__file__)]
    return sorted({*claims, *papers, *shared})


def rules_digest() -> str:
    """Hash of the claim declarations and of the rules that judge them (12 hex digits).

    sha256 of the sources of :func:`_rule_sources`: what a reader checks to see that the rules
    did not change after a build.
    """
    digest = hashlib.sha256()
    for path in _rule_sources():
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


def rules_last_changed() -> str | None:
    """Date and commit of the last change to the claim declarations and rules.

    From git, when the library runs from a git checkout; None otherwise.
    """
    files = [str(p) for p in _rule_sources()]
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%cs %h", "--", *files],
            cwd=Path(files[0]).parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


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
    """Counts of verdicts, e.g. "3 reproduced, 1 not reproduced, 1 inconclusive"."""
    counts = table["verdict"].value_counts()
    return ", ".join(f"{int(counts[v])} {v}" for v in VERDICTS if v in counts) or "no claims"


# Colour-blind-safe verdict colours (blue, vermilion, orange, grey: Okabe & Ito).
VERDICT_COLOURS = {
    REPRODUCED: "#0072B2",
    NOT_REPRODUCED: "#D55E00",
    INCONCLUSIVE: "#B07000",
    NOT_TESTED: "#666666",
}


def html_table(table: pd.DataFrame, chapter_href: Callable[[str, str], str]) -> str:
    """The ledger as an HTML table, one compact row per claim.

    Each row reads at a glance: the claim (linked to its chapter via ``chapter_href(slug,
    anchor)``), what was measured, the design power at the SESOI and the verdict, coloured by
    :data:`VERDICT_COLOURS`, with its note. The rule's full text, and for a claim of several
    parts each part's interval, fold out under the row (``<details>``).
    """
    head = ("claim", "measured on this build", "power", "verdict")
    out = ['<table class="table claims-ledger">', "<thead><tr>"]
    out += [f"<th>{h}</th>" for h in head] + ["</tr></thead>", "<tbody>"]
    for r in table.itertuples():
        link = html.escape(chapter_href(r.chapter, r.anchor))
        colour = VERDICT_COLOURS[r.verdict]
        note = f"<br><small>{html.escape(r.note)}</small>" if r.note else ""
        if r.consistency:
            note += f"<br><small>consistency check: {html.escape(r.consistency)}</small>"
        if r.finding:
            note += f"<br><small>finding of this book: {html.escape(r.finding)}</small>"
        if not r.holm_ok:
            note += "<br><small>not significant after Holm's correction</small>"
        power = "–" if math.isnan(r.power) else f"{r.power:.2f}"
        measured = html.escape(r.measured)
        if r.measured_parts:
            summary = r.measured[: -len(r.measured_parts) - 2]
            measured = (
                f"<details><summary>{html.escape(summary)}</summary>"
                f"<small>{html.escape(r.measured_parts)}</small></details>"
            )
        out.append(
            "<tr>"
            f"<td><b>{html.escape(r.id)}</b> {html.escape(r.claim)}<br>"
            f"<small>{html.escape(PAPERS_BY_KEY[r.paper].short)}, {html.escape(r.section)}; "
            f'<a href="{link}">chapter {html.escape(r.chapter[:2])}</a></small>'
            f"<details><summary><small>rule</small></summary><small>{html.escape(r.rule)}"
            "</small></details></td>"
            f"<td>{measured}</td>"
            f"<td>{power}</td>"
            f'<td><span style="color: {colour}; font-weight: bold">{html.escape(r.verdict)}'
            f"</span>{note}</td>"
            "</tr>"
        )
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def overview_markdown(table: pd.DataFrame, paper: str) -> str:
    """MyST for a part's overview page: its claims, measured values and verdicts.

    Each claim links to the chapter that measures it.
    """
    if paper not in PAPERS_BY_KEY:
        raise ParameterError("paper", f"'{paper}' is not one of {sorted(PAPERS_BY_KEY)}")
    rows = table[table["paper"] == paper]
    claims, checks, found = claims_of_papers(rows), consistency_checks(rows), findings(rows)
    lines = (
        [
            f"Of the paper's {len(claims)} headline claims, this build finds "
            f"**{tally(claims)}**. Each claim links to the chapter that measures it.",
            "",
            *_overview_rows(claims),
        ]
        if len(claims)
        else [
            f"This build counts **{tally(claims)}** of the paper's: none of the statements that "
            "it judges tests one of the paper's headline claims as the paper makes it, so the "
            "part adds nothing to the ledger's tally. Each statement below links to the chapter "
            "that measures it and says why."
        ]
    )
    if len(checks):
        lines += [
            "",
            f"{len(checks)} {'more ' if len(claims) else ''}are consistency checks, judged the same way but kept out of the "
            "tally, because they could not have come out otherwise:",
            "",
            *_overview_rows(checks),
        ]
    if len(found):
        lines += [
            "",
            f"{len(found)} {'more ' if len(claims) or len(checks) else ''}"
            f"{'are findings' if len(found) > 1 else 'is a finding'} of this "
            "book, measured where the paper does not make its claim, and kept out of the tally:",
            "",
            *_overview_rows(found),
        ]
    return "\n".join(lines) + "\n"


def _overview_rows(rows: pd.DataFrame) -> list[str]:
    lines = ["| claim | measured on this run | verdict |", "|---|---|---|"]
    for r in rows.itertuples():
        claim = r.claim.replace("|", "\\|")
        measured = r.measured.replace("|", "\\|")
        reason = r.consistency or r.finding
        why = f"<br><small>{reason}</small>" if reason else ""
        lines.append(
            f"| **{r.id}** {claim} ({r.section}; {{ref}}`chapter {r.chapter[:2]} <{r.anchor}>`)"
            f"{why} | {measured} | **{r.verdict}** |"
        )
    return lines
