"""The one claim machinery every part of the book uses (probekit.experiments.claims): saving and
reading a claim's intervals, including the parts a run measured; the phrases of a chapter's
verdict paragraph (:meth:`Claim.prose_values`), the least favourable part among them; a claim a
run could not measure (:meth:`Claim.untested_values`), read as not tested by the claims ledger
too; and :func:`format_interval`."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from probekit.book import ledger
from probekit.book.glue import Glue
from probekit.errors import ParameterError
from probekit.experiments.claims import NOT_TESTED, Claim, format_interval
from probekit.experiments.part3_pareto import claims as part3
from probekit.io.results import load_results, save_results
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Rule, judge

POINTS = Rule(
    "directional",
    "A − B accuracy",
    "test sentences and seeds",
    0.02,
    "a convention for the test",
    "variance components",
    scale=100,
    units="points",
    digits=1,
)
MARGIN = Rule("equivalence", "A − B DSpr", "test sentences", 0.02, "a convention", "TOST")


def interval(estimate, low, high, se=0.01, df=math.inf, level=0.90, method="test"):
    return Interval(estimate, low, high, level, se, df, se, 0.0, 120, (3, 3), method)


YES = interval(0.06, 0.04, 0.08)  # above 0, reaches 0.02
NO = interval(0.005, 0.001, 0.009)  # above 0, ends below 0.02
MAYBE = interval(0.02, -0.01, 0.05, se=0.018)  # includes 0, reaches 0.02
MAYBE_NARROWER = interval(0.02, -0.005, 0.045, se=0.015)  # the same, a smaller p-value


def _nan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def same(a, b) -> bool:
    """Equal dicts of saved values, NaN equal to NaN."""
    return a.keys() == b.keys() and all(a[k] == b[k] or _nan(a[k]) and _nan(b[k]) for k in a)


def claim(parts=(), labels=None, rule=POINTS):
    return Claim("T.1", "kunz2021test", "§1", "42_length_criteria", "sec-ch42", "A beats B",
                 rule, "t1", parts, labels or {})  # fmt: skip


# --------------------------------------------------------------------------------------------
# Saving and reading intervals


def test_a_single_interval_round_trips(tmp_path):
    c = claim()
    values = c.saved_values(YES)
    assert values["t1_verdict"] == REPRODUCED and "t1_parts" not in values
    save_results(tmp_path / "42_length_criteria.json", values)
    saved = load_results(tmp_path)["42_length_criteria"]
    assert c.read(saved) == YES
    assert c.judge(c.read(saved)) == c.judge(YES)


def test_parts_measured_at_run_time_round_trip(tmp_path):
    """A run judges the parts it measured, declared or not; their names are saved with them."""
    c = claim(parts=("L0", "L1", "L2"))
    measured = {"L2": YES, "L9": MAYBE}  # L0 and L1 not probed; L9 a layer of another model
    values = c.saved_values(measured)
    assert values["t1_parts"] == "L2,L9"
    assert values["t1_L9_estimate"] == MAYBE.estimate and "t1_L0_estimate" not in values
    assert values["t1_verdict"] == INCONCLUSIVE == c.judge(measured).verdict
    save_results(tmp_path / "42_length_criteria.json", values)
    read = c.read(load_results(tmp_path)["42_length_criteria"])
    assert list(read) == ["L2", "L9"] and read == measured
    assert c.judge(read) == c.judge(measured)
    # every measured part must hold
    assert c.judge({"L0": YES, "L1": NO}).verdict == NOT_REPRODUCED
    assert c.judge({"L0": YES, "L1": YES}).verdict == REPRODUCED


def test_reading_names_what_is_missing():
    c = claim(parts=("L0", "L1"))
    values = c.saved_values({"L0": YES, "L1": NO})
    with pytest.raises(KeyError, match="t1_parts"):
        c.read({k: v for k, v in values.items() if k != "t1_parts"})
    with pytest.raises(KeyError, match="t1_L1_se"):
        c.read({k: v for k, v in values.items() if k != "t1_L1_se"})
    with pytest.raises(KeyError, match="t1_estimate"):
        claim().read({})


def test_intervals_must_match_the_claim():
    with pytest.raises(ParameterError):
        claim(parts=("L0",)).judge(YES)
    with pytest.raises(ParameterError):
        claim().judge({"L0": YES})
    with pytest.raises(ParameterError):
        claim(parts=("L0",)).judge({})
    with pytest.raises(ParameterError):
        claim(parts=("L0",)).saved_values({"L0,L1": YES})  # a name the saved list cannot hold


# --------------------------------------------------------------------------------------------
# The verdict paragraph


def test_prose_values_of_one_interval():
    c = claim()
    assert c.prose_values(YES) == {
        "t1_sesoi": "2 points",
        "t1_sesoi_reason": "a convention for the test",
        "t1_role": "a claim of its paper, counted in the ledger's tally",
        "t1_text": "+6.0 points (90% CI +4.0 to +8.0)",
        "t1_reading": "the interval lies above 0 and reaches the SESOI of 2 points: the effect "
        "is significant and compatible with at least 2 points",
    }
    assert c.prose_values(NO)["t1_reading"] == (
        "the interval ends below the SESOI of 2 points (significant but smaller than the SESOI)"
    )
    assert c.prose_values(MAYBE)["t1_reading"] == (
        "the interval includes 0 and reaches the SESOI of 2 points (underpowered)"
    )
    margin = claim(rule=MARGIN)
    values = margin.prose_values(interval(0.005, -0.01, 0.015))
    assert values["t1_sesoi"] == "±0.02"
    assert values["t1_text"] == "+0.005 (90% CI -0.010 to +0.015)"
    assert values["t1_reading"] == "the interval lies inside ±0.02"
    assert margin.prose_values(interval(0.05, 0.03, 0.07))["t1_reading"] == (
        "the interval lies wholly beyond ±0.02 (a difference beyond the margin)"
    )
    assert margin.prose_values(interval(0.01, -0.02, 0.04, se=0.02))["t1_reading"].startswith(
        "the interval crosses the margin of ±0.02"
    )
    one = claim(rule=replace(POINTS, sesoi=0.01))
    assert one.sesoi_text() == "1 point" and replace(POINTS, sesoi=0.02).sesoi_text() == "2 points"


def test_prose_values_pick_the_least_favourable_part():
    """Not reproduced before inconclusive before reproduced; among equals the largest p-value."""
    c = claim(parts=("a", "b", "c"), labels={"a": "part A", "b": "part B"})
    values = c.prose_values({"a": YES, "c": MAYBE, "b": MAYBE_NARROWER})
    assert judge(POINTS, MAYBE).p_value > judge(POINTS, MAYBE_NARROWER).p_value
    assert values["t1_text"] == "c: " + format_interval(MAYBE, POINTS)  # no label: its name
    assert values["t1_reading"] == "of its 3 parts, 1 reproduced, 2 inconclusive"
    assert values["t1_worst_reading"] == claim().prose_values(MAYBE)["t1_reading"]
    assert values["t1_a_text"] == format_interval(YES, POINTS)
    assert {k for k in values if k.endswith("_text")} == {"t1_text", "t1_a_text", "t1_b_text",
                                                          "t1_c_text"}  # fmt: skip

    values = c.prose_values({"a": YES, "b": NO, "c": MAYBE})
    assert values["t1_text"] == "part B: " + format_interval(NO, POINTS)
    assert values["t1_worst_reading"].startswith("the interval ends below the SESOI")
    assert values["t1_reading"] == "of its 3 parts, 1 reproduced, 1 inconclusive, 1 not reproduced"
    # the verdict saved with it is the least favourable part's
    assert c.judge({"a": YES, "b": NO, "c": MAYBE}).verdict == NOT_REPRODUCED

    values = c.prose_values({"a": YES, "b": YES})
    assert values["t1_reading"] == "all 2 parts reproduced; not measured on this run: c"
    assert values["t1_c_text"] == "not measured on this run"


def test_glue_claim_glues_the_saved_and_the_prose_values():
    c = claim(parts=("a", "b"), labels={"a": "part A"})
    g = Glue("ch42")
    judged = g.claim(c, {"a": YES, "b": NO})
    assert judged == c.judge({"a": YES, "b": NO})
    expected = c.saved_values({"a": YES, "b": NO}) | c.prose_values({"a": YES, "b": NO})
    assert same(g.values, expected)


# --------------------------------------------------------------------------------------------
# A claim the run could not measure


def test_untested_values_read_as_not_tested():
    c = part3.UAS_GAP  # a real claim, so that the ledger knows its paper and chapter
    values = c.untested_values("it needs the contextual and a type-level representation")
    why = "not measured on this run (it needs the contextual and a type-level representation)"
    assert values["uas_gap_verdict"] == NOT_TESTED == "not tested"
    assert math.isnan(values["uas_gap_power"]) and math.isnan(values["uas_gap_p"])
    for field in ("text", "reading", "worst_reading", "note"):
        assert values[f"uas_gap_{field}"] == why
    assert values["uas_gap_sesoi"] == "2 points"
    assert all(values[f"uas_gap_{part}_text"] == why for part in c.parts)
    assert values["uas_gap_sesoi_reason"] == c.rule.sesoi_reason
    # no interval is saved: reading it back fails, and the ledger reads "not tested" too
    assert not any(k.endswith(("_estimate", "_low", "_high")) for k in values)
    with pytest.raises(KeyError):
        c.read(values)
    row = ledger.evaluate({c.chapter: values}, (c,)).iloc[0]
    assert row["verdict"] == row["chapter_verdict"] == NOT_TESTED and row["agrees"]
    assert math.isnan(row["p"]) and math.isnan(row["p_holm"])


def test_glue_untested_glues_the_untested_values():
    c = part3.SEPARATION
    g = Glue("ch35")
    g.untested(c, "no lead of chapter 33")
    assert same(g.values, c.untested_values("no lead of chapter 33"))
    assert g.values["separation_worst_reading"].endswith("(no lead of chapter 33)")


def test_a_measured_claim_agrees_with_the_ledger():
    c = part3.SEPARATION
    measured = {"dal": interval(0.1, 0.08, 0.12)}  # POSL not measured
    row = ledger.evaluate({c.chapter: c.saved_values(measured)}, (c,)).iloc[0]
    assert row["verdict"] == row["chapter_verdict"] == REPRODUCED and row["agrees"]
    assert row["measured"] == (
        "1 part measured, not measured: POSL. DAL: " + format_interval(measured["dal"], c.rule)
    )


# --------------------------------------------------------------------------------------------
# Intervals in words


def test_format_interval():
    assert format_interval(YES, POINTS) == "+6.0 points (90% CI +4.0 to +8.0)"
    assert format_interval(interval(-0.0123, -0.03, 0.0054), POINTS) == (
        "-1.2 points (90% CI -3.0 to +0.5)"
    )
    # no units, the rule's digits (3 by default), the interval's own level
    assert format_interval(interval(0.2173, 0.1809, 0.2537, level=0.95), MARGIN) == (
        "+0.217 (95% CI +0.181 to +0.254)"
    )
    # an estimate that is not a number has no interval to show
    assert format_interval(interval(math.nan, -math.inf, math.inf), POINTS) == "–"
