"""The online code of Voita & Titov 2020, §3.2: block ends, codelengths and compression."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import blobs
from probekit.errors import ParameterError
from probekit.methods.mdl import (
    BLOCK_FRACTIONS,
    OnlineCode,
    block_ends,
    online_code,
    online_codelength,
    uniform_codelength,
)

pytestmark = pytest.mark.usefixtures("one_thread")


def test_codelengths_of_a_hand_computed_example():
    """N = 8, K = 2, blocks ending at 1, 2, 4, 8; blocks 2..4 cost 1.0, 1.5 and 2.5 bits.

    Online: first block 1 * log2(2) = 1 bit, then 1.0 + 1.5 + 2.5 = 5 bits, 6 bits in all.
    Uniform: 8 * log2(2) = 8 bits. Compression 8 / 6 = 4 / 3; 6 bits = 0.006 kbits.
    """
    assert uniform_codelength(8, 2) == 8.0
    assert online_codelength([1.0, 1.5, 2.5], 1, 2) == 6.0
    code = OnlineCode(
        ends=np.array([1, 2, 4, 8]), block_bits=np.array([1.0, 1.5, 2.5]), n_classes=2
    )
    assert code.codelength_bits == 6.0
    assert code.uniform_bits == 8.0
    assert code.compression == pytest.approx(4 / 3)
    assert code.kbits == pytest.approx(0.006)
    # K = 3, first block of 2 examples: 2 * log2(3) + 0.5 bits.
    assert online_codelength([0.5], 2, 3) == pytest.approx(2 * math.log2(3) + 0.5)


def test_block_ends_for_1000_examples():
    """floor(f * 1000) for 0.1 %, 0.2 %, ..., 100 %: 6.25 % gives floor(62.5) = 62."""
    assert block_ends(1000).tolist() == [1, 2, 4, 8, 16, 32, 62, 125, 250, 500, 1000]
    assert block_ends(1000).dtype == np.int64


def test_block_ends_merge_equal_counts_and_start_at_one():
    """N = 100: 0.1 %..0.8 % all floor to 0 and become 1; 1.6 % -> 1 merges with them;
    3.2 % -> 3, 6.25 % -> 6, then 12, 25, 50, 100."""
    assert block_ends(100).tolist() == [1, 3, 6, 12, 25, 50, 100]
    # A product that binary floats put just below an integer still counts as that integer:
    # 0.58 * 100 == 57.99999999999999.
    assert block_ends(100, (0.58, 1.0)).tolist() == [58, 100]
    assert block_ends(2).tolist() == [1, 2]
    assert BLOCK_FRACTIONS[0] == 0.001 and BLOCK_FRACTIONS[-1] == 1.0


def test_separable_labels_compress_far_better_than_permuted_ones():
    """Four well-separated blobs: the later probes predict the labels almost surely, so the
    code is several times shorter than uniform. With the labels permuted at random no probe
    can beat the uniform code by much, so their compression stays near 1."""
    X, y = blobs(2000, 0, C=4, d=8)
    shuffled = np.random.default_rng(2).permutation(y)
    kwargs = {"seed": 0, "order_seed": 1, "epochs": 20, "hidden": 32}
    real = online_code(X, y, 4, **kwargs)
    control = online_code(X, shuffled, 4, **kwargs)
    assert real.ends.tolist() == block_ends(2000).tolist()
    assert real.block_bits.shape == (len(real.ends) - 1,)
    assert real.uniform_bits == pytest.approx(2000 * 2.0)
    assert real.compression > 3 * control.compression
    assert 0.8 < control.compression < 1.3
    assert real.kbits == pytest.approx(real.codelength_bits / 1000)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: block_ends(1), "n"),
        (lambda: block_ends(100, (0.5, 0.25, 1.0)), "fractions"),
        (lambda: block_ends(100, (0.0, 1.0)), "fractions"),
        (lambda: block_ends(100, (0.5, 1.5)), "fractions"),
        (lambda: block_ends(100, (0.25, 0.5)), "fractions"),
        (lambda: uniform_codelength(10, 1), "n_classes"),
        (lambda: online_codelength([1.0, -0.5], 1, 2), "block_bits"),
        (lambda: OnlineCode(np.array([1, 2, 4]), np.array([1.0]), 2), "block_bits"),
        (
            lambda: online_code(np.zeros((10, 3, 1)), np.zeros(10, int), 2, seed=0, order_seed=0),
            "X",
        ),
        (lambda: online_code(np.zeros((10, 3)), np.zeros(9, int), 2, seed=0, order_seed=0), "y"),
        (lambda: online_code(np.zeros((10, 3)), np.full(10, 2), 2, seed=0, order_seed=0), "y"),
        (lambda: online_code(np.zeros((10, 3)), np.full(10, -1), 2, seed=0, order_seed=0), "y"),
        (
            lambda: online_code(np.zeros((10, 3)), np.zeros(10, int), 1, seed=0, order_seed=0),
            "n_classes",
        ),
    ],
)
def test_bad_parameters_are_named(call, name):
    with pytest.raises(ParameterError, match=f"parameter '{name}'"):
        call()
