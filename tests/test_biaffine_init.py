"""The linear parsing probe's initialisation (Pimentel et al. 2020, appendix C; issue 14):
its nuclear norm must not grow with the input size d, or the complexity axis measures d."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit.errors import ParameterError
from probekit.probes import biaffine as B
from probekit.probes import biaffine_stack as BS


@pytest.mark.parametrize("seed", [0, 7])
def test_initial_nuclear_norm_does_not_grow_with_d(seed):
    norms = [B.LinearBiaffineProbes(d, [0.0, 1.0], seed=seed).complexity() for d in (16, 64, 384)]
    for n in norms:
        np.testing.assert_allclose(n, B.INIT_NUCLEAR_NORM, rtol=1e-4)
    # The released code's Xavier draw grows about linearly with d; ours does not.
    xavier = [np.linalg.norm(B._xavier((d, d), seed).numpy(), ord="nuc") for d in (16, 384)]
    assert xavier[1] > 10 * xavier[0]


def test_initialisation_is_seeded_and_not_degenerate():
    a = B.LinearBiaffineProbes(32, [0.0], seed=1).U.detach().numpy()[0]
    b = B.LinearBiaffineProbes(32, [0.0], seed=1).U.detach().numpy()[0]
    np.testing.assert_array_equal(a, b)
    s = np.linalg.svd(a, compute_uv=False)
    assert s.min() > 0 and len(np.unique(np.round(s, 8))) == len(s)  # distinct: SVD has a gradient


def test_select_on_is_checked_and_uas_selection_is_invariant_to_scaling_scores():
    """Selecting on dev UAS keeps the same state whatever the scale of the scores: argmax does
    not change when every score is doubled, the loss does."""
    rng = np.random.default_rng(0)
    x = [rng.normal(size=(n, 6)).astype(np.float32) for n in (3, 4, 5, 3)]
    h = [np.array([0, 1, 1]), np.array([2, 0, 2, 3]), np.array([0, 1, 2, 3, 4]), [3, 3, 0]]
    with pytest.raises(ParameterError, match="select_on"):
        BS.train_biaffine_probes([B.BiaffineConfig()], x, h, x, h, seed=0, select_on="dev")
    scores = torch.randn(1, 2, 3, 4)
    assert torch.equal(B.decode_heads(scores), B.decode_heads(2 * scores))
