"""Tests of Part I's chapter entry points: the typed configurations, the shared sentence samples,
chapter 11's example tree and Prop. 1 check, chapter 12's search helpers and layer summary
(probekit.experiments.part1_probe_parser, and the samples and search helpers it shares with
Part II in probekit.experiments.tree_probing). The claims are tested in ``test_part1_claims.py``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from conftest import random_heads
from probekit.errors import ParameterError
from probekit.experiments.deviations import deviation_table
from probekit.experiments.part1_probe_parser.comparison import comparison_layer_rule
from probekit.experiments.part1_probe_parser.config import (
    ProbeParserConfig,
    SyntacticDistanceConfig,
)
from probekit.experiments.part1_probe_parser.dev_layers import summarise_layers
from probekit.experiments.part1_probe_parser.protocol import PROTOCOL_12
from probekit.experiments.part1_probe_parser.syntactic_distance import (
    Proposition1Check,
    check_proposition1,
    example_tree,
)
from probekit.experiments.part1_probe_parser.tuning import describe_space, trials_table
from probekit.experiments.tree_probing import samples as samples_module
from probekit.experiments.tree_probing.config import SampleConfig
from probekit.experiments.tree_probing.samples import (
    embed_samples,
    load_samples,
    punct_rule,
)
from probekit.experiments.tree_probing.training import (
    cap_reading,
    cap_shares,
    search_groups,
    selection_rules,
)
from probekit.probes.structural import SearchSpace

TINY = Path(__file__).parent / "fixtures" / "tiny"

SAMPLE = {
    "treebank": str(TINY),
    "n_train": 0,
    "n_dev": 0,
    "n_test": 0,
    "filter_test": True,
    "sample_seed": 42,
    "exclude_punct": True,
}
PROBE_PARSER = SAMPLE | {
    "model": "default",
    "pooling": "mean",
    "layers": [1, 3],
    "seeds": [1, 2],
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
    "compare_layer": None,
}
DISTANCE = {
    "treebank": "UD_English-EWT",
    "split": "dev",
    "example_id": "",
    "example_length": 12,
    "transform_seed": 0,
}


class Sent(SimpleNamespace):
    def __len__(self) -> int:
        return len(self.heads)


def sentence(heads, forms=None, sent_id="s") -> Sent:
    heads = np.asarray(heads, dtype=np.int64)
    n = heads.size
    return Sent(
        sent_id=sent_id,
        heads=heads,
        forms=np.array(forms if forms is not None else [f"w{i}" for i in range(n)]),
        upos=np.array(["NOUN"] * n),
    )


# --------------------------------------------------------------------------------------------
# Configurations


def test_configs_read_exactly_their_parameters():
    namespace = PROBE_PARSER | {"unrelated": object(), "g": print}
    config = ProbeParserConfig.from_parameters(namespace)
    assert config.layers == [1, 3] and config.search_every == 3
    assert isinstance(config, SampleConfig) and config.sample_seed == 42
    assert ProbeParserConfig.from_parameters(PROBE_PARSER | {"search_every": 1}).search_every == 1
    distance = SyntacticDistanceConfig.from_parameters(DISTANCE | {"model": "default"})
    assert distance.split == "dev" and not hasattr(distance, "model")


@pytest.mark.parametrize(
    "missing", ["sample_seed", "compare_layer", "patience", "parser_selection", "filter_test"]
)
def test_probe_parser_config_names_a_missing_parameter(missing):
    namespace = {k: v for k, v in PROBE_PARSER.items() if k != missing}
    with pytest.raises(ParameterError, match=missing) as info:
        ProbeParserConfig.from_parameters(namespace)
    assert info.value.name == missing


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("n_train", "200"),
        ("exclude_punct", 1),
        ("layers", [1, "3"]),
        ("search_every", 1.5),
        ("filter_test", "no"),
        ("lr_min", "1e-4"),
        ("seeds", 1),
    ],
)
def test_probe_parser_config_names_a_wrong_type(name, value):
    with pytest.raises(ParameterError, match=name) as info:
        ProbeParserConfig.from_parameters(PROBE_PARSER | {name: value})
    assert info.value.name == name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("parser_selection", "margin"),
        ("search_every", 0),
        ("n_trials", 0),
        ("max_epochs", 0),
        ("patience", 0),
        ("lr_min", 0.0),
        ("dropout_max", 1.0),
    ],
)
def test_probe_parser_config_names_a_bad_value_before_any_work(name, value):
    with pytest.raises(ParameterError) as info:
        ProbeParserConfig.from_parameters(PROBE_PARSER | {name: value})
    assert info.value.name == name


def test_distance_config_names_a_wrong_type():
    with pytest.raises(ParameterError, match="example_length"):
        SyntacticDistanceConfig.from_parameters(DISTANCE | {"example_length": True})
    with pytest.raises(ParameterError, match="transform_seed"):
        SyntacticDistanceConfig.from_parameters(
            {k: v for k, v in DISTANCE.items() if k != "transform_seed"}
        )


# --------------------------------------------------------------------------------------------
# Shared samples


def test_load_samples_keeps_sentences_of_two_to_fifty_words():
    data = load_samples(SampleConfig.from_parameters(SAMPLE))
    assert data.treebank.name == "tiny"
    assert [s.sent_id for s in data.samples["train"]] == [
        "tiny-train-1",
        "tiny-train-2",
        "tiny-train-3",
    ]
    assert [len(data.gold[s]) for s in ("train", "dev", "test")] == [3, 2, 1]
    assert data.n_words("train") == 3 + 7 + 5 and data.n_words("test") == 4
    # Punctuation is left out of UUAS: the last word of the test sentence is PUNCT.
    assert data.gold["test"].keep[0].tolist() == [True, True, True, False]
    with pytest.raises(ParameterError, match="split"):
        data.n_words("validation")


def test_load_samples_draws_with_the_seed():
    one = load_samples(SampleConfig.from_parameters(SAMPLE | {"n_train": 2}))
    again = load_samples(SampleConfig.from_parameters(SAMPLE | {"n_train": 2}))
    ids = [s.sent_id for s in one.samples["train"]]
    assert len(ids) == 2 and ids == [s.sent_id for s in again.samples["train"]]
    # Corpus order is kept.
    assert ids == sorted(ids)
    with_punct = load_samples(SampleConfig.from_parameters(SAMPLE | {"exclude_punct": False}))
    assert with_punct.gold["test"].keep[0].all()


def test_unfiltered_test_split_keeps_every_length_and_counts_what_cannot_be_scored(tmp_path):
    """With filter_test off the one-word sentence stays in the test sample; it has no gold edge,
    so UUAS cannot score it, and it lies outside DSpr's 5 to 50 words."""
    src = (TINY / "tiny-ud-test.conllu").read_text()
    one_word = "# sent_id = tiny-test-one\n1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"
    for split in ("train", "dev"):
        (tmp_path / f"tiny-ud-{split}.conllu").write_text(
            (TINY / f"tiny-ud-{split}.conllu").read_text()
        )
    (tmp_path / "tiny-ud-test.conllu").write_text(src.rstrip("\n") + "\n\n" + one_word)
    base = SAMPLE | {"treebank": str(tmp_path)}
    filtered = load_samples(SampleConfig.from_parameters(base))
    assert [len(s) for s in filtered.samples["test"]] == [4]
    whole = load_samples(SampleConfig.from_parameters(base | {"filter_test": False}))
    assert [len(s) for s in whole.samples["test"]] == [4, 1]
    # Training and dev samples stay filtered either way.
    assert [len(s) for s in whole.samples["train"]] == [len(s) for s in filtered.samples["train"]]
    assert whole.unscored("test") == {"uuas": 1, "dspr": 2}
    assert filtered.unscored("test") == {"uuas": 0, "dspr": 1}
    with pytest.raises(ParameterError, match="split"):
        whole.unscored("validation")


def test_load_samples_rejects_a_negative_size_before_reading():
    with pytest.raises(ParameterError, match="n_dev"):
        load_samples(SampleConfig.from_parameters(SAMPLE | {"n_dev": -1, "treebank": "nowhere"}))


def test_embed_samples_embeds_each_list_by_its_key(monkeypatch):
    calls = []

    def fake_embed(sentences, model, pooling, progress=True, device="cpu"):
        calls.append((len(sentences), model, pooling, progress, device))
        return f"emb{len(sentences)}"

    monkeypatch.setattr(samples_module.embeddings, "embed", fake_embed)
    out = embed_samples({"train": [1, 2, 3], "Jabberwocky": [4]}, "m", "first", "auto")
    assert out == {"train": "emb3", "Jabberwocky": "emb1"}
    assert calls == [(3, "m", "first", False, "auto"), (1, "m", "first", False, "auto")]


def test_punct_rule():
    assert punct_rule(True) == "leaves punctuation out of"
    assert punct_rule(False) == "counts punctuation in"


# --------------------------------------------------------------------------------------------
# Chapter 11


def test_example_tree_of_a_chain():
    s = sentence([0, 1, 2, 3], forms=["a", "b", "c", "d"], sent_id="chain")
    other = sentence([0, 1], sent_id="short")
    ex = example_tree([other, s], "", 4)
    assert ex.sentence is s
    assert ex.pair == (0, 3) and ex.path.tolist() == [0, 1, 2, 3]
    assert ex.words == ("a", "d")
    assert ex.pair_distance == 3 and ex.pair_linear == 3
    # Pairs at distances 1, 2, 3, 1, 2, 1.
    assert ex.mean_distance == pytest.approx(10 / 6)
    assert example_tree([other, s], "short").sentence is other


def test_example_tree_of_a_star_picks_two_leaves():
    # w1 heads w0, w2 and w3: every pair of leaves is 2 edges apart, the first is (0, 2).
    ex = example_tree([sentence([2, 0, 2, 2])], "", 4)
    assert ex.pair == (0, 2) and ex.path.tolist() == [0, 1, 2]
    assert ex.pair_distance == 2 and ex.pair_linear == 2


def test_proposition1_check_by_hand():
    counts = {"trees": 8, "round_trip": 8, "ordering_only": 6, "floyd_warshall": 7}
    check = Proposition1Check(counts, words=40)
    assert check.rate("ordering_only") == 75.0 and check.rate("floyd_warshall") == 87.5
    assert check.failures == 2 and check.outcome == "at least 2 trees fail a check"
    table = check.table()
    assert table["trees passing"].tolist() == [8, 6, 7]
    assert table["share (%)"].tolist() == [100.0, 75.0, 87.5]
    with pytest.raises(ParameterError, match="check"):
        check.rate("trees")
    full = Proposition1Check({k: 8 for k in counts}, words=40)
    assert full.failures == 0 and full.outcome == "every tree passes all three checks"


def test_check_proposition1_holds_on_random_trees():
    rng = np.random.default_rng(4)
    lengths = rng.integers(1, 25, size=30)
    trees = [sentence(random_heads(rng, int(n))) for n in lengths]
    check = check_proposition1(trees, seed=2)
    assert check.counts["trees"] == 30 and check.words == int(lengths.sum())
    assert check.outcome == "every tree passes all three checks"
    with pytest.raises(ParameterError, match="sentences"):
        check_proposition1([], seed=0)


# --------------------------------------------------------------------------------------------
# Chapter 12


def test_search_groups_map_each_layer_to_the_nearest_searched_one():
    # Every third layer of 7: 0, 3, 6; ties go to the lower searched layer.
    assert search_groups(range(7), 7, 3) == {0: 0, 1: 0, 2: 3, 3: 3, 4: 3, 5: 6, 6: 6}
    # Every fourth of 7: 0, 4 and the last, 6; layer 2 is as far from 0 as from 4.
    assert search_groups(range(7), 7, 4) == {0: 0, 1: 0, 2: 0, 3: 4, 4: 4, 5: 4, 6: 6}
    assert search_groups([1, 3], 7, 1) == {1: 1, 3: 3}
    assert set(search_groups([1, 3], 7, 3).values()) == {0, 3}
    for bad, name in ((0, "search_every"), (-2, "search_every")):
        with pytest.raises(ParameterError, match=name):
            search_groups([1], 7, bad)
    with pytest.raises(ParameterError, match="layers"):
        search_groups([], 7, 3)


def test_selection_rules_keep_the_probe_on_its_loss():
    assert selection_rules("uuas") == {"structural": "loss", "perceptron": "uuas"}
    assert selection_rules("loss") == {"structural": "loss", "perceptron": "loss"}
    with pytest.raises(ParameterError, match="parser_selection"):
        selection_rules("margin")


def test_cap_shares_and_reading():
    runs = pd.DataFrame(
        {"kind": ["structural"] * 4 + ["perceptron"] * 2, "stopped_at_cap": [1, 0, 0, 0, 1, 1]}
    )
    assert cap_shares(runs) == {"structural": 0.25, "perceptron": 1.0, "all": 0.5}
    assert cap_reading(0.1).startswith("below the 20 %")
    assert cap_reading(0.2).startswith("at or above the 20 %")
    with pytest.raises(ParameterError, match="share"):
        cap_reading(1.5)


def test_deviation_table_of_chapter_12_follows_the_parameters():
    config = ProbeParserConfig.from_parameters(PROBE_PARSER)
    table = deviation_table(config, PROTOCOL_12).set_index("setting")
    assert table.loc["pooling", "deviates"] == False  # noqa: E712 (numpy bool)
    assert table.loc["patience", "deviates"] and table.loc["parser_selection", "deviates"]
    paper = ProbeParserConfig.from_parameters(
        PROBE_PARSER | {"parser_selection": "loss", "patience": 5, "n_test": 1200}
    )
    again = deviation_table(paper, PROTOCOL_12).set_index("setting")
    for name in ("parser_selection", "patience", "n_test", "filter_test"):
        assert not again.loc[name, "deviates"], name
        assert again.loc[name, "why"] == "as in the paper"
    # A setting the paper leaves unstated is always listed with our reason.
    assert again.loc["lr_min", "deviates"] and "range" in again.loc["lr_min", "why"]


def test_describe_space_and_trials_table():
    space = SearchSpace(ranks=(16, 384), lr_min=1e-4, lr_max=0.01, dropout_max=0.5)
    assert describe_space(space) == (
        "Search space: rank one of [16, 384]; learning rate log-uniform on [0.0001, 0.01]; "
        "dropout uniform on [0, 0.5]."
    )
    trials = pd.DataFrame(
        {
            "kind": ["structural", "perceptron"],
            "trial": [0, 0],
            "rank": [16, 16],
            "seed": [7, 7],
            "dev_loss": [0.5, 2.0],
        }
    )
    table = trials_table(trials)
    assert table.index.tolist() == [("probe", 0), ("parser", 0)]
    assert table.columns.tolist() == ["rank", "dev_loss"]


def dev_scores() -> pd.DataFrame:
    """Two kinds, three layers, two seeds; the parser peaks on UUAS at layer 2, the probe at 1."""
    rows = []
    uuas = {"perceptron": [0.4, 0.5, 0.6], "structural": [0.3, 0.55, 0.2]}
    dspr = {"perceptron": [0.6, 0.7, 0.7], "structural": [0.65, 0.8, 0.5]}
    pfw = {"perceptron": [0.5, 0.6, 0.7], "structural": [0.4, 0.65, 0.3]}
    for kind in ("structural", "perceptron"):
        for layer in range(3):
            for seed, shift in ((1, -0.01), (2, 0.01)):
                rows.append(
                    {
                        "kind": kind,
                        "layer": layer,
                        "seed": seed,
                        "stopped_at_cap": kind == "perceptron" or seed == 1,
                        "uuas": uuas[kind][layer] + shift,
                        "dspr": dspr[kind][layer] + shift,
                        "dspr_pfw": pfw[kind][layer] + shift,
                    }
                )
    return pd.DataFrame(rows)


def test_summarise_layers_by_hand():
    summary = summarise_layers(dev_scores())
    assert summary.parser_capped == 100.0 and summary.probe_capped == 50.0
    assert summary.parser_best_uuas_layer == 2 and summary.probe_best_uuas_layer == 1
    # The parser's DSpr ties at layers 1 and 2: the lower layer.
    assert summary.parser_best_dspr_layer == 1 and summary.probe_best_dspr_layer == 1
    assert summary.uuas_parser_layers == 2  # layers 0 and 2
    assert summary.dspr_probe_layers == 2  # layers 0 and 1
    assert summary.pfw_parser_layers == 2  # layers 0 and 2
    only_probe = dev_scores().query("kind == 'structural'")
    with pytest.raises(ParameterError, match="scores"):
        summarise_layers(only_probe)


def test_comparison_layer_rule():
    assert comparison_layer_rule(None) == "the best dev layer by mean UUAS"
    assert comparison_layer_rule(0) == "set by parameter"
