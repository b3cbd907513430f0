"""The recommendation procedure (Zhu et al. 2022, §3.2 and §3.4).

A probing-dataset size from a pilot study: ``epsilon = |R1 - R2| / 2`` goes into the inverse
bound (:func:`~probekit.stats.bounds.n_for_bound`) for ``n_train``; an ``eta : 1 : 1`` split
then needs ``(1 + 2 / eta) * n_train`` examples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.bounds import Count, n_for_bound
from probekit.stats.checks import positive_float, positive_int


@dataclass(frozen=True)
class Recommendation:
    """Result of :func:`recommend`. Sizes are numbers of examples."""

    r1: float
    r2: float
    epsilon: float
    n_params: int
    eta: float
    delta: float
    n_train: int
    n_val: int
    n_test: int
    n_total: int

    def as_dict(self) -> dict[str, float | int]:
        """Plain-Python (JSON-serialisable) view."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def recommend(
    r1: float,
    r2: float,
    n_params: int | Sequence[int],
    *,
    delta: float = 1e-8,
    B: float = 1.0,
    bits: int = 32,
    eta: float = 4.0,
    divisor: float = 2.0,
    count: Count = "paper",
) -> Recommendation:
    """Recommend a probing-dataset size from a pilot study (Zhu et al. 2022, §3.2 and §3.4).

    Steps 3-4 of §3.2: with pilot scores ``r1`` and ``r2``, set ``epsilon = |r1 - r2| /
    divisor`` (``divisor = 2`` is the paper's "balanced choice"; 10 is its tighter example),
    get ``n_train = n_for_bound(epsilon, n_params)``, and size validation and test sets for a
    ``eta : 1 : 1`` split: ``n_val = n_test = ceil(n_train / eta)``, so that
    ``n_total >= (1 + 2 / eta) n_train``. ``eta = 4`` is the paper's ratio (§4.1, fn. 4).

    ``n_params`` may hold one count per configuration; the larger requirement is taken
    (§4.6). Equal scores raise :class:`~probekit.errors.ParameterError`: the comparison may
    have collapsed (§3.6) and no size is meaningful.
    """
    r1, r2 = float(r1), float(r2)
    if not (math.isfinite(r1) and math.isfinite(r2)):
        raise ParameterError("r1/r2", f"must be finite, got {r1!r} and {r2!r}")
    if r1 == r2:
        raise ParameterError(
            "r1/r2",
            f"the two scores are equal ({r1!r}); no data size separates them",
            "the comparison may have collapsed; check with repeated_subsampling or "
            "fold_rotation (Zhu et al. 2022, §3.6)",
        )
    counts = [n_params] if isinstance(n_params, int | np.integer) else list(n_params)
    if not counts:
        raise ParameterError("n_params", "needs at least one parameter count")
    n_params_max = max(positive_int("n_params", c) for c in counts)
    eta = positive_float("eta", eta)
    epsilon = abs(r1 - r2) / positive_float("divisor", divisor)
    n_train = n_for_bound(epsilon, n_params_max, delta, B, bits, count)
    n_eval = math.ceil(n_train / eta)
    return Recommendation(
        r1=r1,
        r2=r2,
        epsilon=epsilon,
        n_params=n_params_max,
        eta=eta,
        delta=float(delta),
        n_train=n_train,
        n_val=n_eval,
        n_test=n_eval,
        n_total=n_train + 2 * n_eval,
    )
