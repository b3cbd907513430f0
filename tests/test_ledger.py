"""probekit.book.ledger: every claim is judged by its one declared rule from the intervals its
chapter saved, and each claim's verdict can come out every way the rule allows."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from probekit.book import glue, ledger, runner
from probekit.errors import ProbekitError
from probekit.io import results
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

REPO = Path(__file__).resolve().parents[1]
IDS = [c.id for c in ledger.CLAIMS]


def _interval(rule, low: float, high: float) -> Interval:
    """An interval in the rule's own units and level, with a standard error that fits it."""
    q = 1.6448536269514722  # normal 95 % quantile: the rules read 90 % intervals
    se = (high - low) / (2 * q)
    return Interval(
        (low + high) / 2, low, high, rule.level, se, math.inf, se, 0.0, 100, (3, 3), "t"
    )


def _bounds(rule, verdict: str) -> tuple[float, float]:
    """An interval (low, high) that the rule must judge as ``verdict``."""
    d = rule.sesoi
    if rule.kind == "directional":
        return {REPRODUCED: (0.5 * d, 2.0 * d), NOT_REPRODUCED: (-0.5 * d, 0.5 * d),
                INCONCLUSIVE: (-0.5 * d, 2.0 * d)}[verdict]  # fmt: skip
    return {REPRODUCED: (-0.5 * d, 0.5 * d), NOT_REPRODUCED: (1.5 * d, 2.5 * d),
            INCONCLUSIVE: (-0.5 * d, 1.5 * d)}[verdict]  # fmt: skip


def _saved(claim, verdict: str) -> dict:
    """Saved values of ``claim`` (as Glue.claim writes them) under which it reads ``verdict``:
    every part's interval placed accordingly."""
    iv = _interval(claim.rule, *_bounds(claim.rule, verdict))
    intervals = iv if not claim.parts else {p: iv for p in claim.parts}
    return claim.saved_values(intervals)


def test_claims_are_declared_once_with_a_rule_each():
    assert len(ledger.CLAIMS) >= 15
    assert len(set(IDS)) == len(IDS)
    assert len({c.key for c in ledger.CLAIMS}) == len(ledger.CLAIMS)
    chapters = runner.toc_chapters(REPO)
    for paper in ledger.PAPERS:
        n = sum(c.paper == paper.key for c in ledger.CLAIMS)
        assert 3 <= n <= 7, (paper.key, n)
    for c in ledger.CLAIMS:
        assert c.paper in ledger.PAPERS_BY_KEY and c.section.startswith("§"), c.id
        assert c.chapter in chapters, c.id
        source = (REPO / "notebooks" / f"{c.chapter}.py").read_text()
        assert f"({c.anchor})=" in source, f"{c.id}: no label {c.anchor} in {c.chapter}"
        assert c.rule.sesoi_reason.strip() and c.rule.quantity.strip() and c.rule.unit.strip()
        assert c.text.strip() and not re.search(r"\bholds?\b", c.text), c.id


@pytest.mark.parametrize("claim_id", IDS)
@pytest.mark.parametrize("verdict", [REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE])
def test_every_claim_can_reach_every_verdict(claim_id, verdict):
    """A mutation test per claim and verdict: the saved interval alone decides the verdict, so
    no claim is fixed by a typed constant."""
    claim = ledger.CLAIMS_BY_ID[claim_id]
    table = ledger.evaluate({claim.chapter: _saved(claim, verdict)}, (claim,))
    row = table.iloc[0]
    assert row["verdict"] == verdict and row["agrees"], row.to_dict()


@pytest.mark.parametrize("claim_id", [c.id for c in ledger.CLAIMS if c.parts])
def test_a_claim_of_several_parts_needs_every_part(claim_id):
    claim = ledger.CLAIMS_BY_ID[claim_id]
    values = _saved(claim, REPRODUCED)
    failing = _saved(claim, NOT_REPRODUCED)
    first = f"{claim.key}_{claim.parts[0]}_"
    values |= {k: v for k, v in failing.items() if k.startswith(first)}
    row = ledger.evaluate({claim.chapter: values}, (claim,)).iloc[0]
    assert row["verdict"] == NOT_REPRODUCED


def test_missing_values_are_not_tested_and_a_disagreement_shows():
    claim = ledger.CLAIMS[0]
    table = ledger.evaluate({}, (claim,))
    assert table.iloc[0]["verdict"] == ledger.NOT_TESTED
    values = _saved(claim, REPRODUCED) | {f"{claim.key}_verdict": NOT_REPRODUCED}
    row = ledger.evaluate({claim.chapter: values}, (claim,)).iloc[0]
    assert row["verdict"] == REPRODUCED and not row["agrees"]


def test_holm_flags_only_reproduced_verdicts_that_fail_family_wise_control():
    saved: dict = {}
    for c in ledger.CLAIMS:
        saved.setdefault(c.chapter, {}).update(_saved(c, REPRODUCED))
    table = ledger.evaluate(saved)
    assert (table["verdict"] == REPRODUCED).all()
    claims, checks = ledger.claims_of_papers(table), ledger.consistency_checks(table)
    found = ledger.findings(table)
    assert len(claims) + len(checks) + len(found) == len(table) and len(checks) and len(found)
    assert claims["p_holm"].between(0, 1).all()
    assert (claims["holm_ok"] == (claims["p_holm"] <= claims["alpha"])).all()
    # A consistency check or finding is outside Holm's family and the expected false count.
    outside = pd.concat([checks, found])
    assert outside["p_holm"].isna().all() and outside["holm_ok"].all()
    # Holm's adjustment over the claims alone, as if the checks were not there.
    alone = ledger.evaluate(saved, tuple(c for c in ledger.CLAIMS if c.counted))
    assert np.allclose(alone["p_holm"].to_numpy(), claims["p_holm"].to_numpy())


def test_consistency_checks_say_why_and_stay_out_of_every_tally():
    checks = {c.id for c in ledger.CLAIMS if c.consistency}
    assert checks == {"III.3", "IV.4", "IV.6", "V.1", "V.3", "V.4"}
    saved: dict = {}
    for c in ledger.CLAIMS:
        saved.setdefault(c.chapter, {}).update(_saved(c, REPRODUCED))
    table = ledger.evaluate(saved)
    for paper in ledger.PAPERS:
        page = ledger.overview_markdown(table, paper.key)
        rows = table[table["paper"] == paper.key]
        n_claims = int(((rows["consistency"] == "") & (rows["finding"] == "")).sum())
        head = f"Of the paper's {n_claims} headline claims" if n_claims else "This build counts"
        assert page.startswith(head) and ledger.tally(ledger.claims_of_papers(rows)) in page
        for r in rows[rows["consistency"] != ""].itertuples():
            assert r.consistency in page
    html = ledger.html_table(ledger.consistency_checks(table), lambda s, a: f"{s}#{a}")
    assert html.count("consistency check:") == len(checks)
    claim = next(c for c in ledger.CLAIMS if c.consistency)
    assert claim.role.startswith("a consistency check") and claim.consistency in claim.role


def test_findings_of_the_book_say_why_and_stay_out_of_every_tally():
    found = [c for c in ledger.CLAIMS if c.finding]
    assert [c.id for c in found] == ["V.6"] and not any(c.consistency for c in found)
    saved: dict = {}
    for c in ledger.CLAIMS:
        saved.setdefault(c.chapter, {}).update(_saved(c, REPRODUCED))
    table = ledger.evaluate(saved)
    assert "V.6" not in set(ledger.claims_of_papers(table)["id"])
    page = ledger.overview_markdown(table, found[0].paper)
    assert found[0].finding in page and "finding of this book" in page
    html = ledger.html_table(ledger.findings(table), lambda s, a: f"{s}#{a}")
    assert html.count("finding of this book:") == 1
    assert found[0].role.startswith("a finding of this book") and not found[0].counted


def test_the_ledger_reads_the_files_the_chapters_saved(tmp_path):
    claim = ledger.CLAIMS[0]
    g = glue.Glue("chx")
    g.values.update(_saved(claim, INCONCLUSIVE))
    g.save(tmp_path / f"{claim.chapter}.json")
    loaded = results.load_results(tmp_path)
    row = ledger.evaluate(loaded, (claim,)).iloc[0]
    assert row["verdict"] == INCONCLUSIVE


def test_load_results_names_a_broken_file(tmp_path):
    (tmp_path / "12_probe_vs_parser.json").write_text("{not json")
    with pytest.raises(ProbekitError, match="12_probe_vs_parser.json:1"):
        results.load_results(tmp_path)
    (tmp_path / "12_probe_vs_parser.json").write_text(json.dumps([1, 2]))
    with pytest.raises(ProbekitError, match="JSON object"):
        results.load_results(tmp_path)


def test_views_link_each_claim_to_its_chapter_and_show_its_rule():
    saved: dict = {}
    for c in ledger.CLAIMS:
        saved.setdefault(c.chapter, {}).update(_saved(c, INCONCLUSIVE))
    table = ledger.evaluate(saved)
    page = ledger.html_table(table, lambda slug, anchor: f"{slug}.html#{anchor}")
    # One compact row per claim, four columns; the rule's text folds out under its claim.
    assert page.count("<tr>") == len(ledger.CLAIMS) + 1 and page.count("<th>") == 4
    assert page.count("<summary><small>rule</small></summary>") == len(ledger.CLAIMS)
    for c in ledger.CLAIMS:
        assert f'href="{c.chapter}.html#{c.anchor}"' in page
        assert c.rule.sesoi_reason.split(";")[0][:20] in page.replace("&#x27;", "'")
    # The parts of a claim of several parts fold out too.
    assert page.count(" measured</summary>") == sum(bool(c.parts) for c in ledger.CLAIMS)
    for p in ledger.PAPERS:
        md = ledger.overview_markdown(table, p.key)
        assert md.count("{ref}`chapter") == sum(c.paper == p.key for c in ledger.CLAIMS)


def test_rules_digest_is_stable_and_tracks_the_declarations():
    assert re.fullmatch(r"[0-9a-f]{12}", ledger.rules_digest())
    assert ledger.rules_digest() == ledger.rules_digest()


def test_rules_digest_reads_the_paper_numbers_that_sesois_come_from():
    sources = ledger._rule_sources()
    papers = {p.parent.name for p in sources if p.name == "paper.py"}
    assert {"part1_probe_parser", "part3_pareto", "part4_extrapolation"} <= papers
    assert {p.parent.name for p in sources if p.name == "claims.py"} >= papers


def test_a_claim_of_parts_says_which_declared_parts_were_not_measured():
    claim = next(c for c in ledger.CLAIMS if len(c.parts) >= 3 and not c.consistency)
    iv = _interval(claim.rule, *_bounds(claim.rule, REPRODUCED))
    kept = claim.parts[:-1]
    values = claim.saved_values({p: iv for p in kept})
    row = ledger.evaluate({claim.chapter: values}, (claim,)).iloc[0]
    assert row["measured"].startswith(f"{len(kept)} parts measured, not measured: ")
    assert claim.label(claim.parts[-1]) in row["measured"].split(".")[0]
    whole = ledger.evaluate({claim.chapter: claim.saved_values({p: iv for p in claim.parts})},
                            (claim,)).iloc[0]  # fmt: skip
    assert whole["measured"].startswith(f"{len(claim.parts)} parts measured. ")
