"""Tests of Part II's chapter entry points on hand-built inputs: the typed configurations,
chapter 21's numbers and corpus check, chapter 22's layer rules, labels and run container
(probekit.experiments.part2_jabberwocky). Runs on a real fixture corpus are in
``test_jabberwocky_runs.py``; the claims in ``test_part2_claims.py``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from probekit.errors import ParameterError, ProbekitError
from probekit.experiments.part2_jabberwocky import representations as representations_module
from probekit.experiments.part2_jabberwocky.config import (
    JabberwockyCorpusConfig,
    JabberwockyProbesConfig,
)
from probekit.experiments.part2_jabberwocky.corpus import CorpusPairs, output_sha
from probekit.experiments.part2_jabberwocky.corpus_summary import (
    corpus_facts,
    coverage_facts,
    length_facts,
    same_trees_check,
)
from probekit.experiments.part2_jabberwocky.corpus_tables import replaced_word_lengths, stem_table
from probekit.experiments.part2_jabberwocky.layer_choice import check_layer_rules
from probekit.experiments.part2_jabberwocky.probe_runs import JabberwockyRuns
from probekit.experiments.part2_jabberwocky.probes import (
    BEST,
    LAYER0,
    ProbeSettings,
    RepresentationRun,
    layer_rule_phrase,
    variant_label,
)
from probekit.experiments.part2_jabberwocky.representations import (
    TYPE_LEVEL,
    encoder_names,
    fasttext_source,
)

CORPUS = {
    "treebank": "UD_English-EWT",
    "seed": 0,
    "rate": 1.0,
    "pseudowords": "",
    "n_pseudowords": 2000,
    "n_examples": 6,
    "example_id": "",
}
PROBES = {
    "treebank": "UD_English-EWT",
    "n_train": 200,
    "n_dev": 100,
    "n_test": 200,
    "filter_test": False,
    "sample_seed": 42,
    "exclude_punct": True,
    "model": "default",
    "models": ["default"],
    "pooling": "mean",
    "layers": [],
    "layer_rule": "metric",
    "seeds": [1, 2],
    "jabberwocky_seed": 0,
    "rate": 1.0,
    "pseudowords": "",
    "hyperparameters": "chapter12",
    "n_trials": 1,
    "search_every": 3,
    "search_seed": 0,
    "ranks": [16, 0],
    "lr_min": 0.0001,
    "lr_max": 0.01,
    "dropout_max": 0.5,
    "max_epochs": 3,
    "patience": 2,
    "parser_selection": "uuas",
    "fasttext_path": "",
    "fasttext_dim": 50,
    "fasttext_epochs": 1,
    "position_dim": 32,
    "majority_min_count": 5,
}


def word_pair(original: list[str], jabberwocky: list[str], xpos=None, sent_id="s"):
    """A sentence and its Jabberwocky version (forms = lemmas, a chain tree)."""
    n = len(original)

    def side(words, tags):
        return SimpleNamespace(
            sent_id=sent_id,
            forms=np.array(words),
            lemmas=np.array(words),
            heads=np.arange(n, dtype=np.int64),
            deprel=np.array(["dep"] * n),
            upos=np.array(["NOUN"] * n),
            xpos=np.array(tags),
            feats=tuple({} for _ in range(n)),
        )

    tags = ["NN"] * n
    return side(original, tags), side(jabberwocky, xpos or tags)


# --------------------------------------------------------------------------------------------
# Configurations


def test_corpus_config_reads_its_parameters():
    config = JabberwockyCorpusConfig.from_parameters(CORPUS | {"model": "default"})
    assert config.n_pseudowords == 2000 and not hasattr(config, "model")
    # An int is a float: the runner may pass rate=1.
    assert JabberwockyCorpusConfig.from_parameters(CORPUS | {"rate": 1}).rate == 1
    with pytest.raises(ParameterError, match="rate") as info:
        JabberwockyCorpusConfig.from_parameters(CORPUS | {"rate": "all"})
    assert info.value.name == "rate"
    with pytest.raises(ParameterError, match="example_id") as info:
        JabberwockyCorpusConfig.from_parameters(
            {k: v for k, v in CORPUS.items() if k != "example_id"}
        )
    assert info.value.name == "example_id"


def test_probes_config_extends_the_shared_samples():
    config = JabberwockyProbesConfig.from_parameters(PROBES)
    assert config.n_test == 200 and config.models == ["default"]
    for name, value in (("models", "default"), ("exclude_punct", "yes"), ("position_dim", 3.0)):
        with pytest.raises(ParameterError, match=name) as info:
            JabberwockyProbesConfig.from_parameters(PROBES | {name: value})
        assert info.value.name == name
    for name, value in (("parser_selection", "margin"), ("search_every", 0)):
        with pytest.raises(ParameterError, match=name) as info:
            JabberwockyProbesConfig.from_parameters(PROBES | {name: value})
        assert info.value.name == name
    for missing in ("sample_seed", "majority_min_count", "filter_test", "search_every"):
        with pytest.raises(ParameterError, match=missing):
            JabberwockyProbesConfig.from_parameters(
                {k: v for k, v in PROBES.items() if k != missing}
            )


# --------------------------------------------------------------------------------------------
# Chapter 21


def report(replaced: int = 3, n_words: int = 12, kind: str = "generated") -> dict:
    return {
        "n_sentences": 2,
        "n_words": n_words,
        "replaced": replaced,
        "pseudowords": {"kind": kind, "n": 50},
        "files": {"output": {"sha256": "0123456789abcdef" * 4}},
    }


def test_corpus_facts_by_hand():
    corpus = CorpusPairs(Path("/x/corpus"), report(), "tb", [])
    facts = corpus_facts(corpus)
    assert facts == {
        "n_sentences": 2,
        "n_words": 12,
        "n_replaced": 3,
        "replaced_share": 25.0,
        "kept_share": 75.0,
        "pool_size": 50,
        "pool_kind": "generated",
        "corpus_dir": "/x/corpus",
        "corpus_sha": "0123456789ab",
    }
    listed = CorpusPairs(Path("c"), report(kind="file"), "tb", [])
    assert corpus_facts(listed)["pool_kind"] == "read from a file"
    with pytest.raises(ParameterError, match="report"):
        corpus_facts(CorpusPairs(Path("c"), report(n_words=0), "tb", []))


def test_output_sha():
    assert output_sha(report()) == "0123456789ab"
    with pytest.raises(ProbekitError, match="output"):
        output_sha({"files": {}})


def test_lengths_by_hand():
    pairs = [
        word_pair(["the", "cat", "runs"], ["the", "blick", "frops"]),
        word_pair(["a", "dog"], ["a", "blick"]),
    ]
    assert replaced_word_lengths(pairs) == ([3, 4, 3], [5, 5, 5])
    facts = length_facts(stem_table(pairs), pairs)
    assert facts["orig_len_mean"] == pytest.approx(10 / 3)
    assert facts["orig_len_sd"] == pytest.approx(np.sqrt(2 / 9))
    assert facts["jab_len_mean"] == 5.0 and facts["jab_len_sd"] == 0.0
    # Stems "blick" (2 words) and "frops" (1 word), both of 5 letters.
    assert facts["stem_len_mean"] == 5.0
    assert facts["max_tokens_per_stem"] == 2 and facts["top_stem"] == "blick"
    unchanged = [word_pair(["a", "dog"], ["a", "dog"])]
    assert length_facts(stem_table(unchanged), unchanged) == {
        "stem_len_mean": 0.0,
        "orig_len_mean": 0.0,
        "jab_len_mean": 0.0,
        "orig_len_sd": 0.0,
        "jab_len_sd": 0.0,
        "max_tokens_per_stem": 0,
        "top_stem": "none",
    }


def test_coverage_facts_by_hand():
    coverage = pd.DataFrame(
        {
            "replaced": [30, 10],
            "in multiword token": [1, 2],
            "not word-shaped": [0, 4],
        },
        index=pd.Index(["NOUN:Sing", "VERB:Inf"], name="feature set"),
    )
    by_upos = pd.DataFrame(
        {"replaced (%)": [90.0, 40.0, 80.0, 0.0], "not a feature set": [0, 25, 3, 0]},
        index=pd.Index(["NOUN", "VERB", "ADJ", "PROPN"], name="UPOS"),
    )
    facts = coverage_facts(coverage, by_upos, {"replaced": 40})
    assert facts["top_set"] == "NOUN:Sing" and facts["top_set_share"] == 75.0
    assert facts["skipped_multiword"] == 3 and facts["skipped_shape"] == 4
    assert facts["noun_share"] == 90.0 and facts["verb_share"] == 40.0
    # ADV never occurs: 0 % replaced, so adverbs are the least covered.
    assert facts["adv_share"] == 0.0 and facts["least_covered"] == "adverbs"
    assert facts["verb_unmatched"] == 25 and facts["propn_share"] == 0.0
    with pytest.raises(ParameterError, match="coverage"):
        coverage_facts(coverage.iloc[:0], by_upos, {"replaced": 0})


def test_same_trees_check():
    same = [word_pair(["a", "dog"], ["a", "blick"]), word_pair(["it", "runs"], ["it", "frops"])]
    kept = "all 2 sentences keep the heads, relations, tags and features of their originals"
    assert same_trees_check(same) == kept
    retagged = [same[0], word_pair(["it", "runs"], ["it", "frops"], xpos=["PRP", "VBZ"])]
    differ = "1 of 2 sentences differ from their originals in heads, relations, tags or features"
    assert same_trees_check(retagged) == differ
    o, j = word_pair(["a", "dog"], ["a", "blick"])
    j.heads = np.array([2, 0])
    assert same_trees_check([(o, j)]).startswith("1 of 1 sentences differ")
    with pytest.raises(ParameterError, match="pairs"):
        same_trees_check([])


# --------------------------------------------------------------------------------------------
# Chapter 22


def dev_frame() -> pd.DataFrame:
    """Seed 1 on layers 0-2: the perceptron's loss falls with the layer, its UUAS peaks at 1."""
    rows = []
    for layer, (loss, uuas) in enumerate(((3.0, 0.5), (2.0, 0.7), (1.0, 0.3))):
        rows.append(
            {"kind": "perceptron", "layer": layer, "seed": 1, "dev_loss": loss, "uuas": uuas}
            | {"dspr": 0.1}
        )
        rows.append(
            {"kind": "structural", "layer": layer, "seed": 1, "dev_loss": 0.5, "uuas": 0.4}
            | {"dspr": 0.6 + layer / 10}
        )
    # A second seed, trained on layer 1 only, is left out of the table.
    rows.append(
        {"kind": "perceptron", "layer": 1, "seed": 2, "dev_loss": 9.0, "uuas": 0.0, "dspr": 0.0}
    )
    return pd.DataFrame(rows)


def test_check_layer_rules_by_hand():
    rules = check_layer_rules(dev_frame(), seed=1)
    assert rules.by_loss == 2 and rules.by_metric == 1
    assert rules.perceptron_uuas(rules.by_loss) == pytest.approx(30.0)
    assert rules.perceptron_uuas(rules.by_metric) == pytest.approx(70.0)
    assert rules.table.index.tolist() == [0, 1, 2]
    assert "structural probe: dspr" in rules.table.columns
    assert rules.table.loc[2, "structural probe: dspr"] == pytest.approx(0.8)
    with pytest.raises(ParameterError, match="layer"):
        rules.perceptron_uuas(5)
    with pytest.raises(ParameterError, match="seed"):
        check_layer_rules(dev_frame(), seed=3)


def test_words_and_labels():
    assert layer_rule_phrase("loss") == "the lowest dev loss"
    assert layer_rule_phrase("metric") == "the best score on its metric"
    with pytest.raises(ParameterError, match="layer_rule"):
        layer_rule_phrase("median")
    assert variant_label("bert-base-uncased", BEST) == "bert-base-uncased · best layer"
    assert variant_label("m", LAYER0) == "m · layer 0"
    with pytest.raises(ParameterError, match="variant"):
        variant_label("m", "layer 3")
    assert fasttext_source("") == "the training split"
    assert fasttext_source("cc.en.300.bin") == "pretrained vectors"


def test_encoder_names_put_the_main_model_first_once(monkeypatch):
    names = {"default": "org/small", "small": "org/small", "big": "org/big"}
    monkeypatch.setattr(
        representations_module, "resolve_model", lambda m: SimpleNamespace(name=names[m])
    )
    assert encoder_names("big", ["default", "big", "small"]) == ["org/big", "org/small"]
    assert encoder_names("default", []) == ["org/small"]


def test_jabberwocky_runs_container():
    def run(name: str, capped: list[bool]) -> RepresentationRun:
        rows = pd.DataFrame({"representation": [name], "kind": ["perceptron"]})
        dev = pd.DataFrame(
            {
                "kind": ["perceptron"] * len(capped),
                "layer": range(len(capped)),
                "epochs": 5,
                "best_epoch": 2,
                "stopped_at_cap": capped,
            }
        )
        return RepresentationRun(name, dev, {"perceptron": 1}, rows, {})

    def settings(trials: pd.DataFrame) -> ProbeSettings:
        config = {"rank": 4, "lr": 0.01, "dropout": 0.0}
        return ProbeSettings({"perceptron": {0: config, 1: config}}, {}, "a search", trials)

    trials = pd.DataFrame(
        {"kind": ["structural"], "layer": [0], "epochs": 9, "best_epoch": 8, "stopped_at_cap": 1}
    )
    runs = JabberwockyRuns(
        runs={
            "org/a": run("a", [True, False]),
            "org/b": run("b", [False]),
            TYPE_LEVEL: run(TYPE_LEVEL, [False]),
        },
        main="org/a",
        settings={
            "org/a": settings(trials),
            "org/b": settings(pd.DataFrame()),
            TYPE_LEVEL: settings(pd.DataFrame()),
        },
        pieces=(1.0, 2.0),
        test_embs={},
        order=[],
    )
    assert runs.encoders == ["org/a", "org/b"]
    assert runs.main_run.name == "a" and runs.main_short == "a"
    assert runs.source == "a search"
    assert runs.chosen_configs() == {"perceptron": {"rank": 4, "lr": 0.01, "dropout": 0.0}}
    assert runs.per_sentence["representation"].tolist() == ["a", "b", TYPE_LEVEL]
    # Every run counts, search trials included: 2 of the 5 ended at the cap.
    assert set(runs.all_runs["stage"]) == {"trained", "search"} and len(runs.all_runs) == 5
    assert runs.cap_shares() == {"perceptron": 0.25, "structural": 1.0, "all": 0.4}
