"""Complexity of a linear map (Pimentel et al. 2020, §4.1).

The nuclear norm of a probe's ``[W | b]``, differentiable for use as a penalty, and its numerical
rank.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


def _with_bias(W: Any, b: Any) -> Any:
    if b is None:
        return W
    if isinstance(W, torch.Tensor):
        return torch.cat([W, torch.as_tensor(b, dtype=W.dtype).unsqueeze(-1)], dim=-1)
    return np.concatenate([np.asarray(W), np.asarray(b)[..., None]], axis=-1)


class _NuclearNorm(torch.autograd.Function):
    """Sum of singular values with the minimum-norm subgradient U_+ V_+^T.

    U_+, V_+ are the singular vectors of the singular values above numerical zero (numpy's
    ``matrix_rank`` tolerance). Where the norm is differentiable this is its gradient U V^T.
    Where singular values vanish, pairs with a zero singular value have an arbitrary basis, and
    a step along them would raise the norm; dropping them makes the subgradient unique.

    Also faster than ``torch.linalg.matrix_norm(ord="nuc")``: torch's SVD is several times
    slower on short-wide matrices (C x d with C << d, the probe shape) than on their transpose,
    and its backward costs much more than the forward.
    """

    @staticmethod
    def forward(ctx: Any, M: torch.Tensor) -> torch.Tensor:
        wide = M.shape[-2] < M.shape[-1]
        tall = M.transpose(-1, -2) if wide else M
        U, S, Vh = torch.linalg.svd(tall, full_matrices=False)
        tol = S.amax(dim=-1, keepdim=True) * max(M.shape[-2:]) * torch.finfo(M.dtype).eps
        polar = (U * (S > tol).to(M.dtype)[..., None, :]) @ Vh
        ctx.save_for_backward(polar.transpose(-1, -2) if wide else polar)
        return S.sum(dim=-1)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (polar,) = ctx.saved_tensors
        return grad[..., None, None] * polar


def nuclear_norm(W: Any, b: Any = None) -> Any:
    """Nuclear norm ``||[W | b]||_*``, the sum of singular values (Pimentel et al. 2020, eq. 2).

    The bias is appended as a last column, as in footnote 4 (``h~ = [h; 1]``) and the released
    code. Torch input stays torch and is differentiable, with gradient U V^T (where singular
    values vanish, the minimum-norm subgradient), as training on eq. 3 needs; numpy input
    gives numpy.

    Args:
        W: shape (..., C, d): one matrix or a stack of P matrices.
        b: shape (..., C) or None.

    Returns:
        shape (...): a scalar for one matrix, (P,) for a stack.
    """
    M = _with_bias(W, b)
    if isinstance(M, torch.Tensor):
        return _NuclearNorm.apply(M)
    M = np.asarray(M, dtype=np.float64)
    return np.linalg.svd(M, compute_uv=False).sum(axis=-1)


def numerical_rank(W: Any, b: Any = None, tol: float = 1e-3) -> np.ndarray:
    """Number of singular values of ``[W | b]`` above ``tol`` (Pimentel et al. 2020, §4.1).

    The paper defines rank as the number of non-zero singular values; a trained matrix has none
    exactly zero, so a tolerance is needed. 1e-3 is the released code's choice.

    Args:
        W: shape (..., C, d).
        b: shape (..., C) or None.
        tol: singular values above it count.

    Returns:
        int64 array of shape (...).
    """
    M = _with_bias(W, b)
    if isinstance(M, torch.Tensor):
        s = torch.linalg.svdvals(M.detach().double()).cpu().numpy()
    else:
        s = np.linalg.svd(np.asarray(M, dtype=np.float64), compute_uv=False)
    return (s > tol).sum(axis=-1).astype(np.int64)
