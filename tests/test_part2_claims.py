"""The claims of Part II (probekit.experiments.part2_jabberwocky.claims): their intervals on
hand-built per-sentence data, the seeds they need, verdicts that a single change to realistic
data moves to every verdict the rule can reach, and chapters 21 and 22's verdict prose."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import markdown, missing_verdict_glue, typed_verdict_words
from probekit.errors import ParameterError
from probekit.experiments.claims import Claim
from probekit.experiments.part2_jabberwocky.claims import (
    CLAIMS,
    PC_DROP,
    PC_LEAD,
    ST_DROP,
    jabberwocky_intervals,
    jabberwocky_overall,
)
from probekit.experiments.part2_jabberwocky.comparisons import drops_table, leads_table
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.tree_probing.rules import DSPR_MARGIN
from probekit.stats.intervals import crossed_interval
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Judgement

ENCODER = "toy"
BEST = "toy · best layer"

# --------------------------------------------------------------------------------------------
# Hand-built per-sentence data with a known answer


def frame(sentences, lengths, totals, correct, dspr, **labels) -> pd.DataFrame:
    correct, totals = np.asarray(correct, float), np.asarray(totals, float)
    return pd.DataFrame(
        {
            "sentence": sentences,
            "length": lengths,
            "uuas_total": totals,
            "uuas_correct": correct,
            "uuas": correct / totals,
            "dspr": dspr,
            "dspr_pfw": dspr,
            **labels,
        }
    )


def hand_data() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Three sentences of 5, 6 and 6 words (4, 5, 5 gold edges), two seeds, both datasets."""
    s, lengths, totals = [0, 1, 2], [5, 6, 6], [4, 5, 5]
    # (seed, dataset): perceptron correct edges, structural DSpr per sentence
    scores = {
        (1, "normal"): ([4, 4, 3], [0.9, 0.8, 0.7]),
        (2, "normal"): ([3, 5, 4], [0.8, 0.8, 0.8]),
        (1, "Jabberwocky"): ([2, 3, 3], [0.7, 0.6, 0.7]),
        (2, "Jabberwocky"): ([3, 2, 2], [0.8, 0.7, 0.5]),
    }
    rows = []
    for (seed, dataset), (correct, dspr) in scores.items():
        labels = {"representation": BEST, "dataset": dataset, "seed": seed, "layer": 3}
        rows.append(frame(s, lengths, totals, correct, [0.0] * 3, kind="perceptron", **labels))
        rows.append(frame(s, lengths, totals, [0] * 3, dspr, kind="structural", **labels))
    baselines = pd.concat(
        [
            frame(s, lengths, totals, [2, 2, 2], [0.5] * 3, baseline="linear chain"),
            frame(s, lengths, totals, [1, 3, 2], [0.4] * 3, baseline="majority tree"),
        ],
        ignore_index=True,
    )
    return pd.concat(rows, ignore_index=True), baselines


def test_drop_intervals_pair_the_seeds_by_hand():
    per_sentence, baselines = hand_data()
    iv = jabberwocky_intervals(per_sentence, baselines, ENCODER)
    # Perceptron UUAS: normal 11/14 and 12/14, Jabberwocky 8/14 and 7/14: drop (23 - 15)/28.
    pc = iv[PC_DROP.key]
    assert pc.estimate == pytest.approx(8 / 28)
    # Paired seeds: the seed part is the variance of the per-seed drops, 3/14 and 5/14.
    assert pc.se_seeds == pytest.approx(math.sqrt(np.var([3 / 14, 5 / 14], ddof=1) / 2))
    normal = np.array([[4, 4, 3], [3, 5, 4]], float)
    jab = np.array([[2, 3, 3], [3, 2, 2]], float)
    expected = crossed_interval(normal, jab, np.array([4.0, 5, 5]), 0.90, paired_seeds=True)
    assert (pc.low, pc.high, pc.df) == pytest.approx((expected.low, expected.high, expected.df))
    # Structural DSpr: lengths 5 (weight 1) and 6 (two sentences, weight 1/2): per seed the
    # mean over lengths. Normal (0.9 + 0.75) / 2 and (0.8 + 0.8) / 2; Jabberwocky
    # (0.7 + 0.65) / 2 and (0.8 + 0.6) / 2.
    st = iv[ST_DROP.key]
    assert st.estimate == pytest.approx((0.825 + 0.8) / 2 - (0.675 + 0.7) / 2)
    assert st.n_seeds == (2, 2) and st.n_sentences == 3


def test_lead_interval_against_the_better_baseline_by_hand():
    per_sentence, baselines = hand_data()
    lead = jabberwocky_intervals(per_sentence, baselines, ENCODER)[PC_LEAD.key]
    # The chain recovers 6 of 14 edges, the majority tree 6 too: a tie goes to the chain.
    # On Jabberwocky the probe recovers 8/14 and 7/14: lead 7.5/14 - 6/14.
    assert lead.estimate == pytest.approx(1.5 / 14)
    assert lead.n_seeds == (2, 1)
    # The baseline is deterministic: the seed part is the probe's alone.
    assert lead.se_seeds == pytest.approx(math.sqrt(np.var([8 / 14, 7 / 14], ddof=1) / 2))
    better = baselines.assign(
        uuas_correct=np.where(baselines["baseline"] == "majority tree", 3.0, 2.0)
    )
    lead = jabberwocky_intervals(per_sentence, better, ENCODER)[PC_LEAD.key]
    assert lead.estimate == pytest.approx(7.5 / 14 - 9 / 14)


def test_tables_hold_the_claims_intervals():
    per_sentence, baselines = hand_data()
    iv = jabberwocky_intervals(per_sentence, baselines, ENCODER)
    drops = drops_table(per_sentence).set_index("probe")
    assert drops.loc["perceptron probe", "estimate"] == pytest.approx(100 * iv["pc_drop"].estimate)
    assert drops.loc["structural probe", "high"] == pytest.approx(iv["st_drop"].high)
    assert drops.loc["perceptron probe", "normal"] == pytest.approx(100 * 23 / 28)
    leads = leads_table(per_sentence, baselines).set_index(["probe", "dataset"])
    row = leads.loc[("perceptron probe", "Jabberwocky")]
    assert row["baseline"] == "linear chain"
    assert row["low"] == pytest.approx(100 * iv["pc_lead_j"].low)


def test_claims_are_declared():
    assert [c.id for c in CLAIMS] == ["II.1", "II.2", "II.3"]
    assert [c.key for c in CLAIMS] == ["st_drop", "pc_drop", "pc_lead_j"]
    for claim in CLAIMS:
        assert claim.chapter == "22_jabberwocky_probes" and claim.anchor == "sec-ch22-verdicts"
        assert claim.rule.kind == "directional"
    assert ST_DROP.rule.sesoi == DSPR_MARGIN and PC_DROP.rule.sesoi == PC_LEAD.rule.sesoi == 0.02
    assert ST_DROP.rule.units == "" and PC_DROP.rule.units == PC_LEAD.rule.units == "points"


# --------------------------------------------------------------------------------------------
# Seeds

PROBES = {
    "treebank": "UD_English-EWT", "n_train": 200, "n_dev": 100, "n_test": 200,
    "filter_test": False, "sample_seed": 42, "exclude_punct": True, "model": "default", "models": ["default"],
    "pooling": "mean", "layers": [], "layer_rule": "metric", "seeds": [1, 2],
    "jabberwocky_seed": 0, "rate": 1.0, "pseudowords": "", "hyperparameters": "chapter12",
    "n_trials": 1, "search_every": 3, "search_seed": 0, "ranks": [16, 0], "lr_min": 0.0001,
    "lr_max": 0.01, "dropout_max": 0.5, "max_epochs": 3, "patience": 2,
    "parser_selection": "uuas", "fasttext_path": "",
    "fasttext_dim": 50, "fasttext_epochs": 1, "position_dim": 32, "majority_min_count": 5,
}  # fmt: skip


@pytest.mark.parametrize("seeds", [[1], [2, 2]])
def test_config_rejects_fewer_than_two_seeds(seeds):
    assert JabberwockyProbesConfig.from_parameters(PROBES).seeds == [1, 2]
    with pytest.raises(ParameterError, match="seeds") as info:
        JabberwockyProbesConfig.from_parameters(PROBES | {"seeds": seeds})
    assert info.value.name == "seeds" and "II.1" in str(info.value)


def test_intervals_refuse_one_seed_and_unpaired_seeds():
    per_sentence, baselines = hand_data()
    with pytest.raises(ParameterError, match="seeds") as info:
        jabberwocky_intervals(per_sentence[per_sentence["seed"] == 1], baselines, ENCODER)
    assert info.value.name == "seeds"
    # A drop pairs each seed's two scorings: a seed scored on one version only cannot pair.
    renamed = per_sentence.copy()
    renamed.loc[renamed["dataset"] == "Jabberwocky", "seed"] += 10
    with pytest.raises(ParameterError, match="paired seeds"):
        jabberwocky_intervals(renamed, baselines, ENCODER)
    with pytest.raises(ParameterError, match="representation"):
        jabberwocky_intervals(per_sentence, baselines, "other")


# --------------------------------------------------------------------------------------------
# One realistic input, one change at a time


def realistic_data(seed: int = 0, n: int = 400, seeds=(1, 2, 3)):
    """Both probes at the best layer on n sentences of 5 to 40 words, three seeds.

    A shared sentence difficulty; each seed's probe is scored on both versions of a sentence.
    The structural probe's DSpr falls from 0.80 to 0.70, the perceptron probe's UUAS from 60 %
    to 50 %; the linear chain recovers 40 % and the majority tree 42 % of the edges.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(5, 41, n)
    totals = lengths - 1
    difficulty = rng.normal(0, 0.08, n)
    sentences = np.arange(n)
    rows = []
    for s in seeds:
        shift = rng.normal(0, 0.004, 2)
        for dataset, uuas, dspr in (("normal", 0.60, 0.80), ("Jabberwocky", 0.50, 0.70)):
            correct = rng.binomial(totals, np.clip(uuas + difficulty + shift[0], 0.01, 0.99))
            rho = dspr + difficulty / 2 + shift[1] + rng.normal(0, 0.03, n)
            labels = {"representation": BEST, "dataset": dataset, "seed": s, "layer": 3}
            for kind in ("structural", "perceptron"):
                rows.append(frame(sentences, lengths, totals, correct, rho, kind=kind, **labels))
    base = []
    for name, uuas in (("linear chain", 0.40), ("majority tree", 0.42)):
        correct = rng.binomial(totals, np.clip(uuas + difficulty, 0.01, 0.99))
        rho = 0.5 + difficulty / 2 + rng.normal(0, 0.03, n)
        base.append(frame(sentences, lengths, totals, correct, rho, baseline=name))
    return pd.concat(rows, ignore_index=True), pd.concat(base, ignore_index=True)


def changed(df, kind, metric, delta, *, dataset="Jabberwocky", seed=None) -> pd.DataFrame:
    """``df`` with ``kind``'s ``metric`` on ``dataset`` moved by ``delta`` (a share of the edges
    for UUAS), for every seed or only ``seed``."""
    df = df.copy()
    rows = (df["kind"] == kind) & (df["dataset"] == dataset)
    rows &= True if seed is None else df["seed"] == seed
    if metric == "uuas":
        total = df.loc[rows, "uuas_total"]
        correct = np.clip(np.round(df.loc[rows, "uuas_correct"] + delta * total), 0, total)
        df.loc[rows, "uuas_correct"] = correct
        df.loc[rows, "uuas"] = correct / total
    else:
        df.loc[rows, metric] += delta
    return df


def judged(claim: Claim, per_sentence: pd.DataFrame, baselines: pd.DataFrame) -> Judgement:
    return claim.judge(jabberwocky_intervals(per_sentence, baselines, ENCODER)[claim.key])


@pytest.fixture(scope="module")
def realistic():
    return realistic_data()


def test_structural_drop_reaches_every_verdict(realistic):
    per_sentence, baselines = realistic
    assert judged(ST_DROP, per_sentence, baselines).verdict == REPRODUCED
    # Jabberwocky DSpr back to within 0.005 of normal.
    small = changed(per_sentence, "structural", "dspr", 0.095)
    assert judged(ST_DROP, small, baselines).verdict == NOT_REPRODUCED
    # One seed's probe does better on Jabberwocky than on normal: the seeds disagree.
    one = changed(per_sentence, "structural", "dspr", 0.20, seed=2)
    assert judged(ST_DROP, one, baselines).verdict == INCONCLUSIVE


def test_perceptron_drop_reaches_every_verdict(realistic):
    per_sentence, baselines = realistic
    assert judged(PC_DROP, per_sentence, baselines).verdict == REPRODUCED
    gone = judged(PC_DROP, changed(per_sentence, "perceptron", "uuas", 0.10), baselines)
    assert gone.verdict == NOT_REPRODUCED
    one = changed(per_sentence, "perceptron", "uuas", 0.20, seed=2)
    assert judged(PC_DROP, one, baselines).verdict == INCONCLUSIVE


def test_perceptron_lead_reaches_every_verdict(realistic):
    per_sentence, baselines = realistic
    assert judged(PC_LEAD, per_sentence, baselines).verdict == REPRODUCED
    below = judged(PC_LEAD, changed(per_sentence, "perceptron", "uuas", -0.15), baselines)
    assert below.verdict == NOT_REPRODUCED
    assert below.note == "significant in the opposite direction"
    # The same verdict when the baseline, not the probe, changes: a better majority tree.
    stronger = baselines.copy()
    majority = stronger["baseline"] == "majority tree"
    stronger.loc[majority, "uuas_correct"] = stronger.loc[majority, "uuas_total"]
    assert judged(PC_LEAD, per_sentence, stronger).verdict == NOT_REPRODUCED
    one = changed(per_sentence, "perceptron", "uuas", -0.30, seed=2)
    assert judged(PC_LEAD, one, baselines).verdict == INCONCLUSIVE


# --------------------------------------------------------------------------------------------
# Words for the prose


def test_jabberwocky_overall():
    yes, no = Judgement(REPRODUCED, 1.0, 0.0), Judgement(NOT_REPRODUCED, 1.0, 0.9)
    maybe = Judgement(INCONCLUSIVE, 0.3, 0.2, "underpowered")
    text = jabberwocky_overall({"st_drop": yes, "pc_drop": maybe, "pc_lead_j": no})
    assert text == (
        "of the paper's 3 claims judged here, 1 is reproduced, 1 not reproduced and 1 inconclusive"
    )
    two = jabberwocky_overall({"st_drop": yes, "pc_drop": yes})
    assert two.startswith("of the paper's 2 claims judged here, 2 are reproduced")


@pytest.mark.parametrize("notebook", ["21_jabberwocky_corpus.py", "22_jabberwocky_probes.py"])
def test_no_verdict_word_is_typed_into_the_prose(notebook):
    assert not typed_verdict_words(notebook), notebook


def test_chapter22_glues_every_claim_in_its_verdicts_section():
    assert not missing_verdict_glue("22_jabberwocky_probes.py", CLAIMS)
    assert "(sec-ch22-verdicts)=" in markdown("22_jabberwocky_probes.py")
