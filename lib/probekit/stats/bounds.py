"""Generalisation bounds of a finite probe class and their inverse (Zhu et al. 2022, §3.3-3.4).

- :func:`finite_class_bound` (eq. 1) and its inverse :func:`n_for_bound`, the training-set
  size needed for an excess risk ``epsilon`` (§3.4);
- :func:`control_task_bound` (Theorem 1, eq. 2) and :func:`prequential_mdl_bound`
  (Theorem 3, eq. 3);
- :func:`log_class_size` (``ln|F|``, as the paper counts it or per parameter) and
  :func:`n_params_mlp`, the parameter count of a probe (footnote 6).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.checks import (
    open_unit,
    positive_float,
    positive_int,
    sample_sizes,
    scalar_or_array,
)

Count = Literal["paper", "per_parameter"]


def log_class_size(n_params: int, bits: int = 32, count: Count = "paper") -> float:
    """Natural log of the size ``|F|`` of a finite class of probes (Zhu et al. 2022, §3.4).

    ``count="paper"`` counts as the paper's worked example and the released
    ``learning_theory.py`` do: ``|F| = 2**bits * n_params``, so
    ``ln|F| = bits * ln 2 + ln(n_params)``. Only this count reproduces the paper's numbers
    (0.039 at n = 65,536 and 40k samples for a bound of 0.05, D = 4,096).

    ``count="per_parameter"`` is what "each weight takes ``2**bits`` values" really gives,
    ``|F| = (2**bits) ** n_params`` and ``ln|F| = n_params * bits * ln 2``. It makes the bound
    vacuous (> 1) for any probe of realistic size; the book shows both.
    """
    n_params = positive_int("n_params", n_params)
    bits = positive_int("bits", bits)
    if count == "paper":
        return bits * math.log(2.0) + math.log(n_params)
    if count == "per_parameter":
        return n_params * bits * math.log(2.0)
    raise ParameterError("count", f"must be 'paper' or 'per_parameter', got {count!r}")


def finite_class_bound(
    n: float | np.ndarray,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Excess-risk bound of a finite probe class (Zhu et al. 2022, §3.4; eq. 1).

    ``B * sqrt(2 * ln(2|F| / delta) / n)``: with probability at least ``1 - delta`` the
    accuracy (or loss, with ``B`` its upper bound) of the empirically best probe trained on
    ``n`` examples is within this distance of the best probe in the class. ``B = 1`` for
    accuracy-like metrics. By Theorem 2 the same bound holds for variational MDL.
    ``|F|`` is counted as in :func:`log_class_size`.

    ``n`` may be a scalar or an array of any shape; the result has the same shape.
    """
    n_arr = sample_sizes("n", n)
    delta = open_unit("delta", delta)
    B = positive_float("B", B)
    log_term = math.log(2.0) + log_class_size(n_params, bits, count) - math.log(delta)
    return scalar_or_array(B * np.sqrt(2.0 * log_term / n_arr))


def n_for_bound(
    epsilon: float,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> int:
    """Training-set size needed for a bound of ``epsilon`` (Zhu et al. 2022, §3.4).

    The inverse of :func:`finite_class_bound`: the smallest integer ``n`` with
    ``finite_class_bound(n) <= epsilon``, i.e. ``ceil(2 * B**2 * ln(2|F| / delta) / epsilon**2)``.
    The released code truncates (``int(n)``), which is one less whenever the real-valued
    solution is not an integer. For a control task (Theorem 1) use ``epsilon / 2``.
    """
    epsilon = positive_float("epsilon", epsilon)
    B = positive_float("B", B)
    delta = open_unit("delta", delta)
    log_term = math.log(2.0) + log_class_size(n_params, bits, count) - math.log(delta)
    n = max(1, math.ceil(2.0 * B**2 * log_term / epsilon**2))
    # The ceiling of a rounded float can overshoot by one; the bound itself decides.
    if n > 1 and finite_class_bound(n - 1, n_params, delta, B, bits, count) <= epsilon:
        n -= 1
    return n


def control_task_bound(
    n: float | np.ndarray,
    n_params: int,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Bound on a control-task difference, ``2 B(n, delta)`` (Zhu et al. 2022, Theorem 1, eq. 2).

    The task score minus the control score deviates by at most twice the bound of
    :func:`finite_class_bound`. The proof (App. B) gives probability ``(1 - delta)**2``,
    not the ``1 - delta`` the theorem states; by the union bound that is at least
    ``1 - 2 delta``. ``n`` may be a scalar or an array.
    """
    return 2.0 * finite_class_bound(n, n_params, delta, B, bits, count)


def prequential_mdl_bound(
    n: float | np.ndarray,
    t1: float,
    n_params: int,
    delta: float = 1e-8,
    C: float = 1.0,
    B: float = 1.0,
    bits: int = 32,
    count: Count = "paper",
) -> float | np.ndarray:
    """Bound on prequential MDL, ``(C n / t1) B(n, delta)`` (Zhu et al. 2022, Theorem 3, eq. 3).

    ``n`` is the size of the whole transmitted dataset and ``t1`` that of its first block
    (sent with the uniform code). The paper leaves the constant ``C`` unspecified, so only
    the shape of this bound (how it scales with ``n`` and ``t1``) is meaningful; ``C = 1`` by
    default. ``n`` may be a scalar or an array.
    """
    n_arr = sample_sizes("n", n)
    t1 = positive_float("t1", t1)
    if np.any(t1 > n_arr):
        raise ParameterError("t1", f"the first block ({t1}) cannot exceed n ({n!r})")
    C = positive_float("C", C)
    scale = C * n_arr / t1
    return scalar_or_array(scale * finite_class_bound(n_arr, n_params, delta, B, bits, count))


def n_params_mlp(d_in: int, hidden: Sequence[int] = (), n_classes: int = 2) -> int:
    """Number of weights and biases of an MLP probe (Zhu et al. 2022, §3.4 and footnote 6).

    ``hidden=()`` is logistic regression. A binary task has a single output unit, as the
    paper counts it: ``D + 1`` for logistic regression and ``(D + 1) H + H + 1`` for one
    hidden layer of ``H`` units: 769 and 15,401 at D = 768, H = 20 (footnote 6 prints 799
    for the former, a typo). With ``n_classes > 2`` there are ``n_classes`` outputs.
    The released code uses ``D + 1`` for every comparison, including MLPs and the 6-class
    sentence_length task (Tables 4 and 7); pass ``n_params`` explicitly to reproduce that.
    """
    d_in = positive_int("d_in", d_in)
    n_classes = positive_int("n_classes", n_classes, minimum=2)
    widths = [d_in, *(positive_int("hidden", h) for h in hidden)]
    widths.append(1 if n_classes == 2 else n_classes)
    return sum((w_in + 1) * w_out for w_in, w_out in zip(widths[:-1], widths[1:], strict=True))
