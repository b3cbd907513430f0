"""The claims of Part I (probekit.experiments.part1_probe_parser.claims): their intervals on
hand-built per-sentence data, the seeds they need, verdicts that a single change to realistic
data moves to every verdict the rule can reach, and chapters 11 and 12's verdict prose."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import markdown, missing_verdict_glue, typed_verdict_words
from probekit.errors import ParameterError
from probekit.experiments.claims import Claim
from probekit.experiments.part1_probe_parser.claims import (
    CLAIMS,
    DSPR_GAP,
    PFW_SAME,
    UUAS_GAP,
    probe_parser_interval,
    probe_parser_intervals,
    probe_parser_overall,
)
from probekit.experiments.part1_probe_parser.comparison import interval_seed_share
from probekit.experiments.part1_probe_parser.config import ProbeParserConfig
from probekit.experiments.part1_probe_parser.paper import PAPER
from probekit.experiments.tree_probing.intervals import tree_metric_arrays
from probekit.experiments.tree_probing.rules import DSPR_COHEN_Q, DSPR_LEVEL, DSPR_MARGIN
from probekit.stats.intervals import crossed_interval
from probekit.stats.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Judgement,
    correlation_difference,
)

KINDS = ("perceptron", "structural")  # parser, probe

# --------------------------------------------------------------------------------------------
# Hand-built per-sentence data with a known answer


def hand_rows() -> pd.DataFrame:
    """Three sentences, two seeds per model, the columns of per_sentence_scores.

    Sentence 0 has 4 words (out of DSpr's 5..50), sentences 1 and 2 have 6 words (one length
    bin, weight 1/2 each).
    """
    rows = [
        # kind, seed, sentence, length, correct, total, dspr, dspr_pfw
        ("perceptron", 1, 0, 4, 3, 3, np.nan, np.nan),
        ("perceptron", 1, 1, 6, 4, 5, 0.6, 0.7),
        ("perceptron", 1, 2, 6, 5, 5, 0.8, 0.9),
        ("perceptron", 2, 0, 4, 2, 3, np.nan, np.nan),
        ("perceptron", 2, 1, 6, 5, 5, 0.7, 0.7),
        ("perceptron", 2, 2, 6, 3, 5, 0.6, 0.8),
        ("structural", 1, 0, 4, 1, 3, np.nan, np.nan),
        ("structural", 1, 1, 6, 3, 5, 0.9, 0.8),
        ("structural", 1, 2, 6, 2, 5, 0.8, 0.8),
        ("structural", 2, 0, 4, 2, 3, np.nan, np.nan),
        ("structural", 2, 1, 6, 2, 5, 0.7, 0.6),
        ("structural", 2, 2, 6, 3, 5, 0.9, 0.7),
    ]
    columns = ["kind", "seed", "sentence", "length", "uuas_correct", "uuas_total"]
    df = pd.DataFrame(rows, columns=[*columns, "dspr", "dspr_pfw"])
    return df.assign(uuas=df["uuas_correct"] / df["uuas_total"])


def test_uuas_interval_by_hand():
    out = probe_parser_interval(UUAS_GAP, hand_rows())
    # Parser: 12/13 and 10/13; probe: 6/13 and 7/13. Parser − probe = 11/13 − 6.5/13.
    assert out.estimate == pytest.approx(4.5 / 13)
    parser = np.array([[3, 4, 5], [2, 5, 3]], dtype=float)
    probe = np.array([[1, 3, 2], [2, 2, 3]], dtype=float)
    expected = crossed_interval(parser, probe, np.array([3.0, 5.0, 5.0]), 0.90)
    assert (out.low, out.high, out.se, out.df) == pytest.approx(
        (expected.low, expected.high, expected.se, expected.df)
    )
    # The seed part is the variance of the per-seed UUAS over the two seeds of each model.
    var_seeds = np.var([12 / 13, 10 / 13], ddof=1) / 2 + np.var([6 / 13, 7 / 13], ddof=1) / 2
    assert out.se_seeds == pytest.approx(math.sqrt(var_seeds))
    assert out.n_sentences == 3 and out.n_seeds == (2, 2) and out.level == 0.90
    assert interval_seed_share(out) == pytest.approx(100 * var_seeds / out.se**2)


def test_dspr_intervals_by_hand():
    rows = hand_rows()
    # Only sentences 1 and 2 have 5 to 50 words; they share one length, so DSpr is their mean.
    dspr = probe_parser_interval(DSPR_GAP, rows)
    probe, parser = (0.9 + 0.8 + 0.7 + 0.9) / 4, (0.6 + 0.8 + 0.7 + 0.6) / 4
    assert dspr.estimate == pytest.approx(probe - parser)  # probe − parser
    assert dspr.n_sentences == 2
    arrays = tree_metric_arrays([rows[rows["kind"] == k] for k in KINDS], "dspr")
    assert arrays.units.tolist() == [0.5, 0.5]
    np.testing.assert_allclose(arrays.scores[0], [[0.3, 0.4], [0.35, 0.3]])
    assert arrays.seeds == ((1, 2), (1, 2)) and arrays.sentences.tolist() == [1, 2]
    pfw = probe_parser_interval(PFW_SAME, rows)
    parser, probe = (0.7 + 0.9 + 0.7 + 0.8) / 4, (0.8 + 0.8 + 0.6 + 0.7) / 4
    assert pfw.estimate == pytest.approx(parser - probe)  # parser − probe


def test_a_sentence_with_an_undefined_score_leaves_the_interval():
    rows = realistic_rows(n=40)
    undefined = (rows["kind"] == "structural") & (rows["sentence"] == 7) & (rows["seed"] == 2)
    rows.loc[undefined, "dspr"] = np.nan
    arrays = tree_metric_arrays([rows[rows["kind"] == k] for k in KINDS], "dspr")
    assert 7 not in arrays.sentences and len(arrays.sentences) == 39
    assert probe_parser_interval(DSPR_GAP, rows).n_sentences == 39
    assert probe_parser_interval(UUAS_GAP, rows).n_sentences == 40
    rows.loc[rows["sentence"] > 0, "dspr"] = np.nan
    with pytest.raises(ParameterError, match="fewer than 2"):
        probe_parser_interval(DSPR_GAP, rows)


def test_every_claim_is_judged_on_its_own_interval():
    intervals = probe_parser_intervals(hand_rows())
    assert list(intervals) == [c.key for c in CLAIMS]
    for claim in CLAIMS:
        assert claim.chapter == "12_probe_vs_parser" and claim.paper == "hallmaudslay2020tale"
        assert claim.judge(intervals[claim.key]).verdict in (
            REPRODUCED,
            NOT_REPRODUCED,
            INCONCLUSIVE,
        )
    assert [c.id for c in CLAIMS] == ["I.2", "I.3", "I.4"]
    assert UUAS_GAP.rule.sesoi == pytest.approx(0.0555) and UUAS_GAP.rule.scale == 100
    assert DSPR_GAP.rule.sesoi == PFW_SAME.rule.sesoi == 0.019
    assert PFW_SAME.rule.kind == "equivalence"
    with pytest.raises(ParameterError, match="claim"):
        probe_parser_interval(
            Claim("X.1", "p", "§1", "c", "a", "t", UUAS_GAP.rule, "other"), hand_rows()
        )


# --------------------------------------------------------------------------------------------
# Seeds


PROBE_PARSER = {
    "treebank": "UD_English-EWT", "n_train": 0, "n_dev": 0, "n_test": 0, "filter_test": False,
    "sample_seed": 42,
    "exclude_punct": True, "model": "default", "pooling": "mean", "layers": [1, 3],
    "seeds": [1, 2], "n_trials": 1, "search_every": 3, "search_seed": 0, "ranks": [16, 0],
    "lr_min": 0.0001, "lr_max": 0.01, "dropout_max": 0.5, "max_epochs": 3, "patience": 2,
    "parser_selection": "uuas", "compare_layer": None,
}  # fmt: skip


@pytest.mark.parametrize("seeds", [[1], [4, 4]])
def test_config_rejects_fewer_than_two_seeds(seeds):
    assert ProbeParserConfig.from_parameters(PROBE_PARSER).seeds == [1, 2]
    with pytest.raises(ParameterError, match="seeds") as info:
        ProbeParserConfig.from_parameters(PROBE_PARSER | {"seeds": seeds})
    assert info.value.name == "seeds" and "I.2" in str(info.value)


def test_an_interval_of_one_seed_per_model_is_refused():
    rows = hand_rows()
    with pytest.raises(ParameterError, match="seeds") as info:
        probe_parser_interval(UUAS_GAP, rows[rows["seed"] == 1])
    assert info.value.name == "seeds"
    with pytest.raises(ParameterError, match="per_sentence"):
        probe_parser_interval(UUAS_GAP, rows[rows["kind"] == "perceptron"])


# --------------------------------------------------------------------------------------------
# One realistic input, one change at a time


def realistic_rows(seed: int = 0, n: int = 300, seeds=(1, 2, 3)) -> pd.DataFrame:
    """Parser and probe on n test sentences of 5 to 40 words, three seeds each.

    A shared sentence difficulty, small seed effects and binomial edge noise: the parser
    recovers 60 % of the edges and the probe 45 %; DSpr 0.70 against 0.80 for the probe;
    DSpr P+FW 0.75 for both.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(5, 41, n)
    totals = lengths - 1
    difficulty = rng.normal(0, 0.08, n)
    levels = {"uuas": (0.60, 0.45), "dspr": (0.70, 0.80), "dspr_pfw": (0.75, 0.75)}
    frames = []
    for k, kind in enumerate(KINDS):
        for s in seeds:
            shift = rng.normal(0, 0.003, 3)
            p = np.clip(levels["uuas"][k] + difficulty + shift[0], 0.01, 0.99)
            correct = rng.binomial(totals, p)
            frame = {
                "kind": kind,
                "seed": s,
                "sentence": np.arange(n),
                "length": lengths,
                "uuas_correct": correct,
                "uuas_total": totals,
                "uuas": correct / totals,
            }
            for j, metric in enumerate(("dspr", "dspr_pfw"), start=1):
                noise = rng.normal(0, 0.03, n)
                frame[metric] = levels[metric][k] + difficulty / 2 + shift[j] + noise
            frames.append(pd.DataFrame(frame))
    return pd.concat(frames, ignore_index=True)


def changed(df: pd.DataFrame, kind: str, metric: str, delta: float, seed=None) -> pd.DataFrame:
    """``df`` with ``kind``'s ``metric`` moved by ``delta`` (a share of the edges for UUAS), for
    every seed or only ``seed``."""
    df = df.copy()
    rows = (df["kind"] == kind) & (True if seed is None else df["seed"] == seed)
    if metric == "uuas":
        total = df.loc[rows, "uuas_total"]
        correct = np.clip(np.round(df.loc[rows, "uuas_correct"] + delta * total), 0, total)
        df.loc[rows, "uuas_correct"] = correct
        df.loc[rows, "uuas"] = correct / total
    else:
        df.loc[rows, metric] += delta
    return df


def judged(claim: Claim, df: pd.DataFrame) -> Judgement:
    return claim.judge(probe_parser_interval(claim, df))


@pytest.fixture(scope="module")
def realistic() -> pd.DataFrame:
    return realistic_rows()


def test_uuas_claim_reaches_every_verdict(realistic):
    assert judged(UUAS_GAP, realistic).verdict == REPRODUCED
    # The parser's lead shrinks to about 1.5 points: significant, but below the SESOI.
    small = judged(UUAS_GAP, changed(realistic, "perceptron", "uuas", -0.13))
    assert small.verdict == NOT_REPRODUCED
    assert small.note == "significant but smaller than the SESOI"
    reversed_ = judged(UUAS_GAP, changed(realistic, "perceptron", "uuas", -0.30))
    assert reversed_.verdict == NOT_REPRODUCED
    assert reversed_.note == "significant in the opposite direction"
    # One of the parser's three training runs collapses: the seeds no longer agree.
    collapsed = judged(UUAS_GAP, changed(realistic, "perceptron", "uuas", -0.45, seed=3))
    assert collapsed.verdict == INCONCLUSIVE and collapsed.note == "underpowered"


def test_dspr_claim_reaches_every_verdict(realistic):
    assert judged(DSPR_GAP, realistic).verdict == REPRODUCED
    assert judged(DSPR_GAP, changed(realistic, "perceptron", "dspr", 0.095)).verdict == (
        NOT_REPRODUCED
    )
    assert judged(DSPR_GAP, changed(realistic, "perceptron", "dspr", 0.30, seed=3)).verdict == (
        INCONCLUSIVE
    )


def test_the_dspr_margin_is_cohens_small_difference_of_correlations():
    """I.4's margin: q = 0.1 in Fisher's z (Cohen 1988) at a DSpr of 0.9, in correlation units;
    not the paper's 0.0006, a mean of signed per-language differences."""
    z = np.arctanh(DSPR_LEVEL)
    assert DSPR_MARGIN == pytest.approx(np.tanh(z + 0.05) - np.tanh(z - 0.05), abs=5e-4)
    assert DSPR_COHEN_Q == 0.1 and DSPR_MARGIN == 0.019
    # the same q is wider at the lower DSpr of a BERT-base structural probe (0.85): the margin
    # is at most Cohen's "small" below 0.9
    assert correlation_difference(0.1, 0.85) > DSPR_MARGIN
    assert np.arctanh(0.85 + DSPR_MARGIN / 2) - np.arctanh(0.85 - DSPR_MARGIN / 2) < 0.1
    reason = PFW_SAME.rule.sesoi_reason
    assert "q = 0.1" in reason and "bounds no single language" in reason
    assert PFW_SAME.rule.sesoi > 10 * PAPER["pfw_diff"]
    with pytest.raises(ParameterError, match="rho"):
        correlation_difference(0.1, 1.0)


def test_pfw_claim_reaches_every_verdict(realistic):
    same = judged(PFW_SAME, realistic)
    assert same.verdict == REPRODUCED and same.power > 0.8
    apart = judged(PFW_SAME, changed(realistic, "perceptron", "dspr_pfw", 0.06))
    assert apart.verdict == NOT_REPRODUCED and apart.note == "a difference beyond the margin"
    noisy = judged(PFW_SAME, changed(realistic, "perceptron", "dspr_pfw", 0.08, seed=3))
    assert noisy.verdict == INCONCLUSIVE


def test_more_seeds_shrink_the_seed_part_of_the_interval():
    three, six = realistic_rows(seeds=(1, 2, 3)), realistic_rows(seeds=(1, 2, 3, 4, 5, 6))
    a = probe_parser_interval(UUAS_GAP, changed(three, "perceptron", "uuas", -0.2, seed=3))
    b = probe_parser_interval(UUAS_GAP, changed(six, "perceptron", "uuas", -0.2, seed=3))
    assert b.se_seeds < a.se_seeds and b.high - b.low < a.high - a.low


# --------------------------------------------------------------------------------------------
# Words for the prose


def test_the_verdict_paragraph_quotes_the_rule(realistic):
    """Glue.claim's prose values for Part I: the SESOI in points, its reason, the reading."""
    values = UUAS_GAP.prose_values(probe_parser_interval(UUAS_GAP, realistic))
    assert values["uuas_sesoi"] == "5.55 points"
    assert values["uuas_sesoi_reason"] == "half the paper's English effect of 11.1 points"
    assert values["uuas_reading"].startswith(
        "the interval lies above 0 and reaches the SESOI of 5.55 points: the effect is "
        "significant and compatible with at least 5.55 points"
    )
    small = probe_parser_interval(UUAS_GAP, changed(realistic, "perceptron", "uuas", -0.13))
    assert UUAS_GAP.prose_values(small)["uuas_reading"] == (
        "the interval ends below the SESOI of 5.55 points (significant but smaller than the SESOI)"
    )
    dspr = DSPR_GAP.prose_values(probe_parser_interval(DSPR_GAP, realistic))
    assert dspr["dspr_sesoi"] == "0.019"
    pfw = PFW_SAME.prose_values(probe_parser_interval(PFW_SAME, realistic))
    assert pfw["dspr_pfw_sesoi"] == "±0.019"
    assert pfw["dspr_pfw_reading"].startswith("the interval lies inside ±0.019")


def test_probe_parser_overall():
    yes, no = Judgement(REPRODUCED, 1.0, 0.0), Judgement(NOT_REPRODUCED, 1.0, 0.9)
    both = probe_parser_overall({"uuas": yes, "dspr": yes})
    assert both.startswith("both directional claims are reproduced")
    one = probe_parser_overall({"uuas": yes, "dspr": no, "dspr_pfw": yes})
    assert one == (
        "the UUAS claim is reproduced and the DSpr claim not reproduced, so this build does not "
        "show both of the paper's opposite trends"
    )


# --------------------------------------------------------------------------------------------
# The chapters' prose


@pytest.mark.parametrize("notebook", ["11_syntactic_distance.py", "12_probe_vs_parser.py"])
def test_no_verdict_word_is_typed_into_the_prose(notebook):
    assert not typed_verdict_words(notebook), notebook


def test_chapter12_glues_every_claim_in_its_verdicts_section():
    assert not missing_verdict_glue("12_probe_vs_parser.py", CLAIMS)
    assert "(sec-ch12-verdicts)=" in markdown("12_probe_vs_parser.py")
    assert {c.anchor for c in CLAIMS} == {"sec-ch12-verdicts"}
