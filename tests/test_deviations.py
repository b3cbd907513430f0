"""The deviation table: computed from the run's parameters, never silent about a setting."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from probekit.errors import ParameterError
from probekit.experiments.deviations import AS_IN_PAPER, Setting, cap_share, deviation_table


@dataclass(frozen=True)
class Config:
    pooling: str = "mean"
    n_test: int = 0
    layers: tuple = (0, 4, 8)
    model: str = "all-MiniLM-L6-v2"


PROTOCOL = (
    Setting("pooling", "first", "first wordpiece (§5.1)", "a smoother average"),
    Setting("n_test", 0, "all of EWT test", "cost"),
    Setting("layers", [0, 4, 8], "every fourth layer", "cost"),
    Setting("model", None, "BERT-base", "the hub is out of reach", show=lambda m: m.upper()),
)


def test_rows_follow_the_parameters():
    table = deviation_table(Config(), PROTOCOL)
    assert list(table["setting"]) == ["pooling", "n_test", "layers", "model"]
    assert list(table["deviates"]) == [True, False, False, True]
    assert list(table["why"]) == ["a smoother average", AS_IN_PAPER, AS_IN_PAPER, "the hub is out of reach"]  # fmt: skip
    assert list(table["ours"]) == ["mean", "0", "0, 4, 8", "ALL-MINILM-L6-V2"]
    # set to the paper's value, the row reads "as in the paper"
    table = deviation_table(Config(pooling="first", n_test=500), PROTOCOL)
    assert list(table["deviates"]) == [False, True, False, True]


def test_custom_match_and_unknown_parameter():
    close = Setting("n_test", 0, "all", "cost", matches=lambda v, p: v in (0, 2077))
    assert not deviation_table(Config(n_test=2077), [close])["deviates"].iloc[0]
    with pytest.raises(ParameterError, match="seeds"):
        deviation_table(Config(), [Setting("seeds", [1], "one seed", "x")])


def test_cap_share():
    assert cap_share([True, False, False, False]) == 0.25
    assert cap_share([False]) == 0.0
    assert math.isnan(cap_share([]))
