"""probekit.book.ledger: the claims ledger judges claims from saved results, and only from them."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from probekit.book import glue, ledger, runner
from probekit.errors import ParameterError, ProbekitError
from probekit.io import results

REPO = Path(__file__).resolve().parents[1]

R, NR, UP, NT = ledger.REPRODUCED, ledger.NOT_REPRODUCED, ledger.UNDERPOWERED, ledger.NOT_TESTED


def _cmp(prefix: str, diff: float, p: float, power: float, n: int = 500) -> dict:
    return {f"{prefix}_{k}": v for k, v in
            dict(diff=diff, p=p, power=power, n=n, alpha=0.05).items()}  # fmt: skip


# Hand-written saved results under which every claim is reproduced.
SAVED = {
    "11_syntactic_distance": {"round_trip_rate": 100.0, "round_trip_n": 40},
    "12_probe_vs_parser": {
        "uuas_estimate": 9.0, "uuas_low": 6.0, "uuas_high": 12.0, "uuas_sentences": 300,
        "dspr_estimate": 0.05, "dspr_low": 0.02, "dspr_high": 0.08, "dspr_sentences": 250,
        "dspr_pfw_estimate": 0.001, "dspr_pfw_low": -0.01, "dspr_pfw_high": 0.012,
    },
    "22_jabberwocky_probes": {
        "st_estimate": 0.05, "st_low": 0.04, "st_high": 0.06,
        "pc_estimate": 8.0, "pc_low": 7.0, "pc_high": 9.0,
        "pc_lead_n": 20.0, "pc_lead_n_low": 19.0, "pc_lead_n_high": 21.0,
        "pc_lead_j": 12.0, "pc_lead_j_low": 11.0, "pc_lead_j_high": 13.0,
        "st_lead_n": 0.12, "st_lead_n_low": 0.11, "st_lead_n_high": 0.13,
        "st_lead_j": 0.06, "st_lead_j_low": 0.05, "st_lead_j_high": 0.07,
    },
    "31_lookup_and_toy_tasks": {
        "posl_lookup": 86.5, "posl_paper": 86.0, "dal_lookup": 67.0, "dal_paper": 68.0,
    },
    "32_parametric_complexity": {"simple_posl_nuclear": "one-hot", "simple_dal_nuclear": "one-hot"},
    "33_memorisation_complexity": {"max_gap": 0.8, "mean_gap": 0.3},
    "34_dependency_parsing": {
        "hv_gap_parse": 0.05, "hv_gap_posl": 0.01, "hv_gap_dal": -0.02,
        "uas_gap": 8.0, "uas_gap_low": 7.0, "uas_gap_high": 9.0, "n_test_sentences": 2077,
    },
    "42_length_criteria": {
        "t1_ling_gap_max": 2.0, "t1_dist_gap_max": 1.5, **_cmp("t2_arc_cmp", 20.0, 1e-6, 1.0),
    },
    "43_tag_criteria": {
        **_cmp("mft_cmp", 10.0, 1e-4, 0.95),
        "mft_extra_first": 40.0, "mft_extra_last": 70.0, "first_layer": 0, "last_layer": 6,
    },
    "44_learning_criteria": {
        **_cmp("t1_speed_cmp", 25.0, 1e-8, 1.0),
        "t1_loss_control_mean": 30.0, "t1_speed_control_mean": 45.0,
        "t2_loss_control_mean": 5.0, "t2_speed_control_mean": 17.0,
    },
    "51_generalisation_bounds": {"inside_share": 100.0, "rec_consistent": 15, "rec_rows": 15},
    "52_power_and_noise": {"grow_share": 100.0, "rho": 0.9, "n_sigmas": 4},
    "53_comparison_problems": {
        "n_reached": 4, "n_sufficient": 4, "clf_checks": 2, "clf_collapsed": 2, "clf_stable": 0,
    },
}  # fmt: skip

# For every claim, one change of one saved value, and the verdict it must lead to.
MUTATIONS = {
    "I.1": ("round_trip_rate", 99.5, NR),
    "I.2": ("uuas_low", -1.0, UP),  # the interval covers 0 and the paper's 11.1
    "I.3": ("dspr_estimate", -0.05, NR),  # with low/high below: see _mutate
    "I.4": ("dspr_pfw_high", 0.05, UP),
    "II.1": ("st_low", -0.01, UP),
    "II.2": ("pc_estimate", -2.0, NR),
    "II.3": ("pc_lead_j_low", -2.0, UP),
    "II.4": ("pc_lead_j_high", 19.5, UP),
    "II.5": ("st_lead_j_low", 0.14, NR),  # with high above n's: see _mutate
    "III.1": ("posl_lookup", 83.0, NR),
    "III.2": ("dal_lookup", 71.0, NR),
    "III.3": ("simple_dal_nuclear", "fastText", NR),
    "III.4": ("max_gap", 1.5, NR),
    "III.5": ("hv_gap_posl", 0.06, NR),
    "III.6": ("uas_gap_low", -0.5, UP),
    "IV.1": ("t1_dist_gap_max", 3.5, NR),
    "IV.2": ("t2_arc_cmp_power", 0.6, UP),
    "IV.3": ("mft_cmp_p", 0.2, NR),
    "IV.4": ("mft_extra_last", 44.0, NR),
    "IV.5": ("t1_speed_cmp_diff", -25.0, NR),
    "IV.6": ("t2_loss_control_mean", 20.0, NR),
    "V.1": ("inside_share", 92.0, NR),
    "V.2": ("rec_consistent", 14, NR),
    "V.3": ("grow_share", 75.0, NR),
    "V.4": ("rho", -0.4, NR),
    "V.5": ("n_reached", 0, UP),
    "V.6": ("clf_collapsed", 1, UP),
}
COMPANIONS = {  # keep an interval consistent with a moved estimate or bound
    "I.3": {"dspr_low": -0.08, "dspr_high": -0.02},
    "II.2": {"pc_low": -3.0, "pc_high": -1.0},
    "II.5": {"st_lead_j_high": 0.16, "st_lead_j": 0.15},
    "V.5": {"n_sufficient": 0},
}


def _mutate(claim_id: str) -> tuple[dict, str]:
    claim = ledger.CLAIMS_BY_ID[claim_id]
    key, value, expected = MUTATIONS[claim_id]
    changed = copy.deepcopy(SAVED)
    changed[claim.chapter][key] = value
    changed[claim.chapter].update(COMPANIONS.get(claim_id, {}))
    return changed, expected


def test_enough_claims_per_paper_each_linked_to_a_measuring_chapter():
    assert len(ledger.CLAIMS) >= 20
    assert len({c.id for c in ledger.CLAIMS}) == len(ledger.CLAIMS)
    chapters = runner.toc_chapters(REPO)
    for paper in ledger.PAPERS:
        n = sum(c.paper == paper.key for c in ledger.CLAIMS)
        assert 3 <= n <= 6, (paper.key, n)
    for c in ledger.CLAIMS:
        assert c.paper in ledger.PAPERS_BY_KEY and c.section.startswith("§"), c.id
        assert c.chapter in chapters, c.id
        source = (REPO / "notebooks" / f"{c.chapter}.py").read_text()
        assert f"# ({c.anchor})=" in source, (c.id, c.anchor)
        assert c.test in ledger.TEST_NAMES, c.id


def test_every_claim_reproduced_on_the_fixture():
    table = ledger.evaluate(SAVED)
    assert list(table["id"]) == [c.id for c in ledger.CLAIMS]
    wrong = table[table["verdict"] != R][["id", "measured", "verdict"]]
    assert wrong.empty, wrong.to_string()


def test_every_claim_has_a_mutation():
    assert set(MUTATIONS) == set(ledger.CLAIMS_BY_ID)


@pytest.mark.parametrize("claim_id", list(MUTATIONS))
def test_changing_a_saved_result_changes_the_verdict(claim_id):
    changed, expected = _mutate(claim_id)
    before = ledger.CLAIMS_BY_ID[claim_id].evaluate(SAVED)
    after = ledger.CLAIMS_BY_ID[claim_id].evaluate(changed)
    assert before.verdict == R
    assert after.verdict == expected, after
    assert after.measured != before.measured


def test_the_ledger_reads_the_files_the_chapters_saved(tmp_path):
    """End to end through JSON files: edit one saved result and the verdict follows."""
    for slug, values in SAVED.items():
        (tmp_path / f"{slug}.json").write_text(json.dumps(values))
    table = ledger.evaluate(results.load_results(tmp_path))
    assert set(table["verdict"]) == {R}
    saved = tmp_path / "12_probe_vs_parser.json"
    values = json.loads(saved.read_text())
    values.update(uuas_estimate=-4.0, uuas_low=-6.0, uuas_high=-2.0)
    saved.write_text(json.dumps(values))
    table = ledger.evaluate(results.load_results(tmp_path)).set_index("id")
    assert table.loc["I.2", "verdict"] == NR
    assert "-4.0 points" in table.loc["I.2", "measured"]


def test_missing_chapter_key_or_nan_is_not_tested():
    without_chapter = {k: v for k, v in SAVED.items() if k != "12_probe_vs_parser"}
    out = ledger.CLAIMS_BY_ID["I.2"].evaluate(without_chapter)
    assert out.verdict == NT and "12_probe_vs_parser has saved no results" in out.measured
    changed = copy.deepcopy(SAVED)
    del changed["43_tag_criteria"]["mft_cmp_power"]
    out = ledger.CLAIMS_BY_ID["IV.3"].evaluate(changed)
    assert out.verdict == NT and "'mft_cmp_power'" in out.measured
    changed["42_length_criteria"]["t1_dist_gap_max"] = float("nan")
    assert ledger.CLAIMS_BY_ID["IV.1"].evaluate(changed).verdict == NT
    changed["53_comparison_problems"]["clf_checks"] = 0
    assert ledger.CLAIMS_BY_ID["V.6"].evaluate(changed).verdict == NT


@pytest.mark.parametrize(
    ("values", "paper_effect", "expected"),
    [
        ((2.0, 1.0, 3.0), None, R),
        ((-2.0, -3.0, -1.0), None, NR),
        ((0.5, -1.0, 2.0), None, UP),  # covers 0, no effect to exclude
        ((0.5, -1.0, 2.0), 1.5, UP),  # covers 0 and the paper's effect
        ((0.5, -1.0, 2.0), 11.1, NR),  # covers 0 but rules out the paper's effect
    ],
)
def test_bootstrap_rule(values, paper_effect, expected):
    r = ledger._Reader(
        {"x": dict(zip(("d_estimate", "d_low", "d_high"), values, strict=True))}, "x"
    )
    assert ledger.bootstrap("d", paper_effect=paper_effect)(r).verdict == expected


def test_bootstrap_sign_flips_the_claimed_direction():
    r = ledger._Reader({"x": {"d_estimate": -2.0, "d_low": -3.0, "d_high": -1.0}}, "x")
    out = ledger.bootstrap("d", sign=-1)(r)
    assert out.verdict == R and out.measured.startswith("+2.0 points (95 % CI +1.0 to +3.0")


@pytest.mark.parametrize(
    ("low", "high", "expected"), [(-0.01, 0.01, R), (0.03, 0.05, NR), (-0.01, 0.05, UP)]
)
def test_equivalence_rule(low, high, expected):
    r = ledger._Reader({"x": {"d_estimate": (low + high) / 2, "d_low": low, "d_high": high}}, "x")
    assert ledger.equivalence("d", 0.02)(r).verdict == expected


@pytest.mark.parametrize(
    ("diff", "p", "power", "expected"),
    [
        (3.0, 0.001, 0.9, R),
        (3.0, 0.001, 0.5, UP),  # significant but underpowered: likely inflated
        (0.5, 0.4, 0.3, UP),
        (0.5, 0.4, 0.85, NR),  # well powered, no difference
        (-3.0, 0.001, 0.9, NR),  # significant the other way
    ],
)
def test_mcnemar_rule(diff, p, power, expected):
    r = ledger._Reader({"x": _cmp("c", diff, p, power)}, "x")
    assert ledger.mcnemar("c")(r).verdict == expected


def test_saved_comparison_keys_match_what_the_ledger_reads():
    """Glue.comparison saves exactly the keys ledger.mcnemar reads."""
    import numpy as np

    from probekit.stats.comparison import compare

    g = glue.Glue("t")
    rng = np.random.default_rng(0)
    a = rng.random(400) < 0.8
    b = a & (rng.random(400) < 0.9)
    cmp = g.comparison("c", compare(a, b, "A", "B", n_sim=200))
    out = ledger.mcnemar("c")(ledger._Reader({"x": g.values}, "x"))
    assert out.verdict in (R, UP)
    assert f"{100 * cmp.diff:+.1f} points" in out.measured


def test_load_results_names_a_broken_file(tmp_path):
    (tmp_path / "12_probe_vs_parser.json").write_text('{"uuas_estimate": 1.0,\n oops}')
    with pytest.raises(ProbekitError, match=r"12_probe_vs_parser\.json:2: not valid JSON"):
        results.load_results(tmp_path)
    (tmp_path / "12_probe_vs_parser.json").write_text("[1, 2]")
    with pytest.raises(ProbekitError, match="expected a JSON object"):
        results.load_results(tmp_path, ["12_probe_vs_parser"])
    assert results.load_results(tmp_path / "absent") == {}
    (tmp_path / "12_probe_vs_parser.json").write_text('{"uuas_estimate": 1.0}')
    assert results.load_results(tmp_path, ["12_probe_vs_parser", "99_absent"]) == {
        "12_probe_vs_parser": {"uuas_estimate": 1.0}
    }


def test_views_link_each_claim_to_its_chapter():
    changed, _ = _mutate("I.2")
    table = ledger.evaluate(changed)
    page = ledger.html_table(table, lambda slug, anchor: f"{slug}.html#{anchor}")
    assert page.count("<tr>") == len(ledger.CLAIMS) + 1
    assert 'href="12_probe_vs_parser.html#sec-ch12"' in page
    assert f"color: {ledger.VERDICT_COLOURS[UP]}" in page
    md = ledger.overview_markdown(table, "hallmaudslay2020tale")
    assert "3 reproduced, 1 underpowered" in md
    assert "{ref}`chapter 12 <sec-ch12>`" in md
    assert len(re.findall(r"^\| \*\*I\.\d", md, flags=re.M)) == 4
    with pytest.raises(ParameterError, match="paper"):
        ledger.overview_markdown(table, "nobody2099")
    assert ledger.tally(table[table["paper"] == "zhu2022data"]) == "6 reproduced"
