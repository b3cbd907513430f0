"""The structured-perceptron parser of Hall Maudslay et al. 2020, §3.2 (McDonald et al. 2005).

It has the structural probe's parameterisation, d_B(w_i, w_j) = ||B(h_i - h_j)||_2 with B of
shape (rank, d) (eq. 1; :class:`probekit.probes.structural.DistanceProbe`), and a different loss,
eq. 4:

    ℓ(B, <t, w>) = Σ_{(i,j) ∈ t} d_B(w_i, w_j) − min_{t'} Σ_{(i',j') ∈ t'} d_B(w_i', w_j')

the weight of the gold tree minus the weight of the minimum spanning tree under the current
distances, found with Prim's algorithm. Eq. 4 uses d_B itself, not its square (footnote 4's
squaring applies to the structural probe's eq. 2), and has no margin and no length
normalisation; eq. 5 sums it over sentences. The MST is a constant for the gradient, which makes
this a subgradient of ℓ. Training shares :mod:`probekit.probes.structural_stack`
(``kind="perceptron"``).
"""

from __future__ import annotations

import numpy as np
import torch

from probekit.trees.spanning import prim_mst_batch, tree_edge_mask
from probekit.trees.structure import edges_from_heads

# d_B = sqrt(d_B^2) has an infinite derivative at 0; flooring the square keeps the gradient
# finite when two projected words coincide (it only changes d_B below 1e-6).
SQRT_FLOOR = 1e-12


def gold_edge_mask(heads: np.ndarray) -> np.ndarray:
    """Upper-triangular gold edge indicator, bool (n, n): True at (i, j), i < j, iff (i, j) ∈ t.

    ``heads``: 1-based (n,), 0 = root. Used as the target of eq. 4 (Hall Maudslay et al. 2020).
    """
    n = len(heads)
    mask = np.zeros((n, n), dtype=bool)
    edges = edges_from_heads(heads)
    mask[edges[:, 0], edges[:, 1]] = True
    return mask


def mst_edge_mask(pred_sq: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Edges of Prim's MST of each predicted distance matrix, bool (..., N, N), upper-triangular.

    Hall Maudslay et al. 2020, eq. 4 (the min over t', "computed with Prim's algorithm"). The MST
    of d_B^2 equals that of d_B because squaring is monotone, so ``pred_sq`` (..., N, N) is used
    directly; every matrix of the leading axes (sentences, or probes × sentences) goes through
    one batched Prim. No gradient flows through the tree. ``lengths``: (...) sentence lengths.
    """
    n = pred_sq.shape[-1]
    d = pred_sq.detach().reshape(-1, n, n).to(torch.float64).cpu().numpy()
    parents = prim_mst_batch(d, lengths.reshape(-1).cpu().numpy())
    mask = tree_edge_mask(parents).reshape(pred_sq.shape)
    return torch.from_numpy(mask).to(pred_sq.device)


def perceptron_loss(
    pred_sq: torch.Tensor, gold_edges: torch.Tensor, lengths: torch.Tensor
) -> torch.Tensor:
    """Per-sentence structured-perceptron loss, Hall Maudslay et al. 2020, eq. 4.

    Args:
        pred_sq: float (..., B, N, N) predicted squared distances d_B^2 (padding arbitrary); the
            leading axes, e.g. one per probe of a stack, are optional.
        gold_edges: bool (B, N, N) upper-triangular gold edges (:func:`gold_edge_mask`, padded
            with False), broadcast over the leading axes.
        lengths: int (B,) sentence lengths.

    Returns:
        float (..., B): Σ_{gold edges} d_B − Σ_{MST edges} d_B, with d_B = sqrt(d_B^2). It is
        >= 0 and is 0 exactly when the gold tree is a minimum spanning tree. It has no margin
        and is homogeneous of degree 1 in B: d_{cB} = c d_B, so it scales with B while the
        trees stay the same. Eq. 5 sums these over sentences; the trainer averages them per
        batch, which Adam's update does not notice beyond its epsilon.
    """
    d = torch.sqrt(pred_sq.clamp_min(SQRT_FLOOR))
    mst = mst_edge_mask(pred_sq, lengths.expand(pred_sq.shape[:-2]))
    gold_weight = (d * gold_edges.to(d.dtype)).sum(dim=(-2, -1))
    mst_weight = (d * mst.to(d.dtype)).sum(dim=(-2, -1))
    return gold_weight - mst_weight
