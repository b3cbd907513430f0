"""The chapters' verdicts on the claims of Zhu et al. 2022, one rule each.

Each verdict is in the words the chapters' prose uses after the claim ("The paper's observation
*holds* here").
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def bound_claim(all_inside: bool) -> str:
    """§4.2, Fig. 2: accuracies on growing training sets stay within the bound's margins.

    ``all_inside``: whether every run lies inside them.
    """
    return "holds" if all_inside else "does not hold for every run"


def recommendation_claim(n_consistent: int, n_rows: int) -> str:
    """§3.4, Tables 2-4: the printed recommendations follow from the bound and the printed gaps.

    ``n_consistent`` of ``n_rows`` printed recommendations do.
    """
    return "holds" if n_consistent == n_rows else f"holds for {n_consistent} of {n_rows} rows"


def sigma_claim(rho: float) -> str:
    """§4.3, Fig. 3: more noise makes a configuration easier to tell from the clean one.

    ``rho``: Spearman correlation of sigma with power (NaN when the power is the same at every
    sigma).
    """
    if math.isnan(rho):
        return "cannot be checked here (the power is the same at every σ)"
    return "holds" if rho > 0 else "does not hold"


def size_claim(grows: Sequence[bool]) -> str:
    """§4.3, Fig. 3: larger datasets give more power.

    ``grows``: per noise level, whether the power at the largest test set is at least that at the
    smallest.
    """
    return "holds" if all(grows) else "holds only in part"


def sufficiency_claim(n_reached: int, n_sufficient: int) -> str:
    """§4.4-4.5: the recommended training size is enough for a power of 0.8.

    Of the ``n_reached`` comparisons that reach 0.8, ``n_sufficient`` do so no later than their
    smallest recommendation.
    """
    if n_reached == 0:
        return "cannot be checked here (no comparison reached a power of 0.8)"
    return "holds" if n_sufficient == n_reached else "does not hold for every comparison"


def collapse_claim(readings: Sequence[str]) -> str:
    """§4.6: the comparison of logistic regression with the MLP has collapsed.

    ``readings``: :func:`~probekit.experiments.part5_datasize.collapse_checks.collapse_verdict` of
    each collapse check run on it (none if it was not checked).
    """
    if not readings:
        return "was not checked, because its gap was not the smallest"
    if all(r == "likely collapsed" for r in readings):
        return "looks collapsed here too, as the paper found for bigram shift"
    if all(r == "stable" for r in readings):
        return "is stable here, unlike the paper's bigram-shift comparison"
    return "gives mixed or unclear readings here"
