"""The one layer resolver (probekit.representations.layers): one meaning of layer indices in
every chapter, negative indices counting from the last layer as in Python."""

from __future__ import annotations

import pytest

from probekit.errors import ParameterError
from probekit.representations.layers import middle_layer, resolve_layer, resolve_layers


@pytest.mark.parametrize(("layer", "expected"), [(0, 0), (6, 6), (-1, 6), (-2, 5), (-7, 0), (3, 3)])
def test_resolve_layer_counts_negative_indices_from_the_last(layer, expected):
    assert resolve_layer(layer, 7) == expected == list(range(7))[layer]


@pytest.mark.parametrize("layer", [7, -8, 100])
def test_resolve_layer_names_the_parameter(layer):
    with pytest.raises(ParameterError, match="search_layer") as info:
        resolve_layer(layer, 7, "search_layer")
    assert "0..6" in str(info.value)


def test_resolve_layers_empty_means_all_and_keeps_order():
    assert resolve_layers([], 3) == [0, 1, 2]
    assert resolve_layers([2, 0], 3) == [2, 0]
    assert resolve_layers([-1, 0], 3) == [2, 0]
    with pytest.raises(ParameterError, match="layers"):
        resolve_layers([3], 3)
    with pytest.raises(ParameterError, match="twice"):
        resolve_layers([2, -1], 3)


def test_middle_layer():
    assert middle_layer(7) == 3 and middle_layer(13) == 6
