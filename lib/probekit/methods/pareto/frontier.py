"""Pareto frontiers and their hypervolume (Pimentel et al. 2020, §3).

:func:`pareto_frontier` picks the probes no other probe beats on both complexity and accuracy,
:func:`hypervolume` integrates the area under the frontier, and :func:`frontier_staircase` gives
the curve it integrates, for plotting. :func:`hypervolume_many` computes the same area for many
accuracy vectors of one set of probes at once (e.g. one per bootstrap resample of the test set). The released code (rycolab/pareto-probing) has no
frontier or hypervolume code; these follow the paper's text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import ParameterError


def _points(complexity: Any, accuracy: Any) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(complexity, dtype=np.float64).reshape(-1)
    a = np.asarray(accuracy, dtype=np.float64).reshape(-1)
    if c.shape != a.shape:
        raise ParameterError(
            "accuracy",
            f"has {a.size} values but complexity has {c.size}",
            "pass one (complexity, accuracy) pair per probe",
        )
    if not (np.all(np.isfinite(c)) and np.all(np.isfinite(a))):
        raise ParameterError(
            "complexity", "contains NaN or infinite values", "drop failed runs before plotting"
        )
    if np.any(c < 0):
        raise ParameterError("complexity", "contains negative values", "complexities are >= 0")
    return c, a


def pareto_frontier(complexity: Any, accuracy: Any) -> np.ndarray:
    """Indices of the Pareto-optimal probes, sorted by complexity (Pimentel et al. 2020, §3).

    A probe j *dominates* probe i when ``c_j <= c_i`` and ``a_j >= a_i`` with at least one of
    the two strict. A probe is on the frontier when no other probe dominates it.

    Ties, explicitly: probes with exactly equal (complexity, accuracy) do not dominate each other,
    so all copies of a frontier point are returned; a probe with the same complexity as another
    but lower accuracy, or the same accuracy but higher complexity, is dominated.

    Args:
        complexity: shape (n,), values >= 0 (lower is simpler).
        accuracy: shape (n,) (higher is better).

    Returns:
        int64 array of shape (k,), k <= n: frontier indices ordered by increasing complexity
        (then by index); accuracy increases strictly along it except between exact copies.
    """
    c, a = _points(complexity, accuracy)
    if c.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(c.size), c))
    cs, as_ = c[order], a[order]
    # Each group of equal complexity: the best accuracy inside it, and the best accuracy of all
    # strictly simpler groups. A point survives iff it is its group's best and beats the simpler.
    starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]])
    group = np.cumsum(np.r_[True, cs[1:] != cs[:-1]]) - 1
    group_best = np.maximum.reduceat(as_, starts)
    simpler_best = np.r_[-np.inf, np.maximum.accumulate(group_best)[:-1]]
    keep = (as_ == group_best[group]) & (as_ > simpler_best[group])
    return order[keep].astype(np.int64)


def hypervolume(
    complexity: Any,
    accuracy: Any,
    max_complexity: float,
    *,
    min_accuracy: float = 0.0,
    normalise: bool = True,
) -> float:
    """Pareto hypervolume of one family of probes (Pimentel et al. 2020, §3 and Table 3).

    The hypervolume indicator (Auger et al. 2012) is the area of the (complexity, accuracy)
    region that the probes dominate, measured against the *reference point*
    ``(max_complexity, min_accuracy)`` (the worst complexity the paper allows, the worst
    accuracy): the union over probes p with ``c_p <= max_complexity`` of the rectangles
    ``[c_p, max_complexity] x [min_accuracy, a_p]``.

    Equivalently, the staircase: for every complexity budget x in ``[0, max_complexity]`` take
    h(x) = the best accuracy of any probe with complexity <= x, and integrate h - min_accuracy
    (clipped at 0) over x. So:

    - the staircase starts at complexity **0**, not at the simplest probe; left of the simplest
      probe no probe fits the budget, h = min_accuracy and that stretch adds nothing (a family
      whose simplest probe is already complex is penalised for it);
    - each step is flat from a frontier point rightwards to the next frontier point (right-
      continuous, no interpolation: a budget between two probes only buys the simpler one);
    - the last step runs to ``max_complexity``;
    - probes beyond the cap (``c > max_complexity``) fit no budget and add nothing. They are
      dropped, not clipped to the cap: a probe at the cap would span zero width anyway.

    The paper caps the nuclear norm at 400 for POSL/DAL (Table 3) and 700 for parsing (Figs. 7
    and 8), normalises nuclear-norm and rank volumes by their maximum complexity, and uses
    label-shuffled/fully-shuffled training accuracy (max 1) as is. With ``normalise=True`` the
    area is divided by ``max_complexity * (1 - min_accuracy)``, so the result lies in [0, 1]
    for accuracies in [0, 1]; for the shuffled controls pass ``max_complexity=1``.

    Note: recomputed this way from the released English POSL runs (test accuracy), the
    label-shuffled one-hot volume is 0.70 as in Table 3, but the nuclear-norm volumes (BERT
    0.79, fastText 0.80, one-hot 0.83, random 0.56) fall short of Table 3 (0.91, 0.87, 0.85,
    0.63) and even reorder the representations. No reading that leaves out probes beyond the
    cap can reproduce them: random's 0.63 exceeds the best accuracy (0.61) of any released
    random probe with a nuclear norm <= 400.

    Args:
        complexity: shape (n,), values >= 0.
        accuracy: shape (n,), in [0, 1] for the normalised reading.
        max_complexity: the cap, > 0 (e.g. 400 nuclear norm, the number of classes for rank).
        min_accuracy: accuracy coordinate of the reference point.
        normalise: divide by the area of the reference box.

    Returns:
        The (normalised) hypervolume; 0.0 when no probe lies within the cap.
    """
    c, a = _points(complexity, accuracy)
    if not (np.isfinite(max_complexity) and max_complexity > 0):
        raise ParameterError(
            "max_complexity", f"must be a positive number, got {max_complexity!r}", "e.g. 400"
        )
    if normalise and not min_accuracy < 1.0:
        raise ParameterError("min_accuracy", "must be < 1 when normalise=True")
    x, h = frontier_staircase(c, a, max_complexity)
    if x.size == 0:
        return 0.0
    height = np.clip(h[:-1] - min_accuracy, 0.0, None)
    area = float(np.sum(np.diff(x) * height))
    return area / (max_complexity * (1.0 - min_accuracy)) if normalise else area


def frontier_staircase(
    complexity: Any, accuracy: Any, max_complexity: float
) -> tuple[np.ndarray, np.ndarray]:
    """The step function that :func:`hypervolume` integrates (Pimentel et al. 2020, §3).

    Only probes with complexity <= ``max_complexity`` enter. The staircase is right-continuous:
    on ``[x[k], x[k+1])`` the best reachable accuracy is ``h[k]``; ``x[-1] == max_complexity``
    and ``h[-1]`` repeats ``h[-2]`` so that ``plt.step(x, h, where="post")`` draws it.

    Args:
        complexity: shape (n,).
        accuracy: shape (n,).
        max_complexity: the cap.

    Returns:
        (x, h), each of shape (k + 1,) for k frontier points within the cap (both empty when
        k = 0). Left of ``x[0]`` no probe fits the budget.
    """
    c, a = _points(complexity, accuracy)
    inside = c <= max_complexity
    front = pareto_frontier(c[inside], a[inside])
    if front.size == 0:
        return np.zeros(0), np.zeros(0)
    xs, hs = c[inside][front], a[inside][front]
    # Exact copies of a frontier point would add zero-width steps.
    first = np.r_[True, xs[1:] != xs[:-1]]
    xs, hs = xs[first], hs[first]
    return np.r_[xs, max_complexity], np.r_[hs, hs[-1]]


def hypervolume_many(
    complexity: Any,
    accuracy: Any,
    max_complexity: float,
    *,
    min_accuracy: float = 0.0,
    normalise: bool = True,
) -> np.ndarray:
    """:func:`hypervolume` of one family of probes under many accuracy vectors at once (§3).

    A probe's complexity (its nuclear norm, rank or memorisation of shuffled labels) is fixed
    once it is trained; its test accuracy is an estimate that moves with the test sentences. For
    a resampled test set only the accuracies change, so the staircase keeps its steps and only
    their heights move: with the probes sorted by complexity, the height from probe k to the next
    is the best accuracy of probes 1..k (a running maximum), so the area is one weighted sum per
    accuracy vector.

    Args:
        complexity: shape (K,), finite values >= 0.
        accuracy: shape (..., K), one accuracy per probe in each leading position.
        max_complexity: the cap, > 0; probes beyond it add nothing.
        min_accuracy: accuracy coordinate of the reference point.
        normalise: divide by the area of the reference box.

    Returns:
        Shape (...): the (normalised) hypervolume of every accuracy vector, equal to
        :func:`hypervolume` of ``(complexity, accuracy[i])`` for each i; 0.0 when no probe lies
        within the cap.
    """
    c = np.asarray(complexity, dtype=np.float64).reshape(-1)
    a = np.asarray(accuracy, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] != c.size:
        raise ParameterError(
            "accuracy",
            f"has shape {a.shape}, not (..., {c.size})",
            "pass one accuracy per probe on the last axis",
        )
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ParameterError("complexity", "must be finite and >= 0", "drop failed runs first")
    if not (np.isfinite(max_complexity) and max_complexity > 0):
        raise ParameterError(
            "max_complexity", f"must be a positive number, got {max_complexity!r}", "e.g. 400"
        )
    if normalise and not min_accuracy < 1.0:
        raise ParameterError("min_accuracy", "must be < 1 when normalise=True")
    inside = c <= max_complexity
    order = np.argsort(c[inside], kind="stable")
    steps = c[inside][order]
    if steps.size == 0:
        return np.zeros(a.shape[:-1])
    best = np.maximum.accumulate(a[..., inside][..., order], axis=-1)
    widths = np.diff(np.r_[steps, max_complexity])
    area = np.sum(np.clip(best - min_accuracy, 0.0, None) * widths, axis=-1)
    return area / (max_complexity * (1.0 - min_accuracy)) if normalise else area
