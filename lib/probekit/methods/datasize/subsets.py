"""Stratified subsets of a pool (Zhu et al. 2022, §3.2 step 4, §3.6, §4.1).

Train/validation/test subsets of ``size`` training examples per class with
``train : val : test = eta : 1 : 1`` (§4.1 and footnote 4), drawn anew for every (size, seed);
the subset sizes a pool allows; and the rotating folds and repeated pilots of the collapse check
(§3.6).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.methods.datasize.collapse import Split, rotation_splits
from probekit.methods.datasize.pools import Pool
from probekit.stats.checks import positive_float


def _allocation(counts: np.ndarray, size: int, eta: float, balanced: bool) -> np.ndarray:
    """Training examples per class (n_classes,).

    ``size`` each, or ``size * C`` split in proportion to the counts (rounded down) over the
    classes present.
    """
    present = counts > 0
    if balanced:
        return np.where(present, size, 0)
    total = size * int(present.sum())
    return np.floor(total * counts / counts.sum()).astype(np.int64)


def _eval_per_class(n_train: np.ndarray, eta: float) -> np.ndarray:
    return np.floor(n_train / eta).astype(np.int64)


def _fits(counts: np.ndarray, size: int, eta: float, balanced: bool) -> bool:
    """Whether every class has the examples a subset of ``size`` takes (monotone in size)."""
    n_train = _allocation(counts, size, eta, balanced)
    return bool(np.all(n_train + 2 * _eval_per_class(n_train, eta) <= counts))


def _feasible(counts: np.ndarray, size: int, eta: float, balanced: bool) -> bool:
    # A subset also needs at least one validation and one test example to be scored.
    n_eval = _eval_per_class(_allocation(counts, size, eta, balanced), eta)
    return _fits(counts, size, eta, balanced) and bool(n_eval.sum() > 0)


def max_size(y: np.ndarray, eta: float = 4.0, balanced: bool = True) -> int:
    """The largest ``size`` (training examples per class) that ``y`` (N,) allows.

    Zhu et al. 2022, §4.1 ("where applicable"): a subset needs ``size * (1 + 2/eta)``
    examples of every class when ``balanced``; otherwise of the pool as a whole, with classes in
    their pool proportions. 0 if not even one example per class fits.
    """
    eta = positive_float("eta", eta)
    counts = np.bincount(np.asarray(y, dtype=np.int64))
    if counts.sum() == 0:
        return 0
    hi = int(counts[counts > 0].min() if balanced else counts.sum())
    lo = 0
    while lo < hi:  # fitting is monotone in size
        mid = (lo + hi + 1) // 2
        if _fits(counts, mid, eta, balanced):
            lo = mid
        else:
            hi = mid - 1
    return lo if lo > 0 and _feasible(counts, lo, eta, balanced) else 0


def default_sizes(
    y: np.ndarray,
    eta: float = 4.0,
    balanced: bool = True,
    smallest: int = 128,
    max_train: int = 0,
    include_max: bool = True,
) -> list[int]:
    """Powers of two from ``smallest`` up to the largest usable size, plus that size itself.

    The paper samples 2^7, 2^9, ..., 2^15 training examples per class (Zhu et al. 2022, §4.1);
    a treebank allows fewer, so every power of two that fits is used. The largest usable size
    is :func:`max_size`, capped so that a subset has at most ``max_train`` training examples
    over all classes (0: no cap); it is added when it is not a power of two (``include_max``).
    """
    top = max_size(y, eta, balanced)
    if max_train > 0:
        n_present = int(np.count_nonzero(np.bincount(np.asarray(y, dtype=np.int64))))
        top = min(top, max_train // max(1, n_present))
    # A small treebank may not reach ``smallest``; it then gets every power of two it allows.
    start = math.ceil(math.log2(smallest)) if top >= smallest else 0
    counts = np.bincount(np.asarray(y, dtype=np.int64))
    sizes = [1 << k for k in range(start, 40) if 1 << k <= top]
    sizes = [s for s in sizes if _feasible(counts, s, eta, balanced)]
    if include_max and top > 0 and (not sizes or sizes[-1] != top):
        sizes.append(top)
    return sizes


def choose_sizes(
    pool: Pool,
    sizes: Sequence[int] = (),
    eta: float = 4.0,
    max_train: int = 0,
    smallest: int = 128,
) -> list[int]:
    """The subset sizes (training examples per class) to run on ``pool`` (Zhu et al. 2022, §4.1).

    :func:`sizes_for_labels` of the pool's task, labels y (N,) and label names.
    """
    return sizes_for_labels(pool.task, pool.y, pool.labels, sizes, eta, max_train, smallest)


def sizes_for_labels(
    task: str,
    y: np.ndarray,
    labels: Sequence[str],
    sizes: Sequence[int] = (),
    eta: float = 4.0,
    max_train: int = 0,
    smallest: int = 128,
) -> list[int]:
    """The subset sizes (training examples per class) for a task's labels (Zhu et al. 2022, §4.1).

    ``y`` (N,) are the class indices of the task's examples and ``labels`` the classes' names.
    ``sizes`` empty: :func:`default_sizes`. Otherwise the given sizes that the labels allow
    (larger ones are dropped, so one list can serve tasks of different sizes); a
    :class:`ParameterError` if none is left. Balanced strata for ``past_present``,
    proportional ones for ``pos``.
    """
    balanced = task == "past_present"
    if not sizes:
        chosen = default_sizes(y, eta, balanced, smallest, max_train)
    else:
        top = max_size(y, eta, balanced)
        counts = np.bincount(y)
        chosen = sorted({int(s) for s in sizes if 0 < int(s) <= top})
        chosen = [s for s in chosen if _feasible(counts, s, eta, balanced)]
    if not chosen:
        top = max_size(y, eta, balanced)
        counts = ", ".join(
            f"{n:,} {lab}"
            for lab, n in zip(labels, np.bincount(y, minlength=len(labels)), strict=True)
            if n
        )
        hint = (
            f"use sizes up to {top} examples per class"
            if top
            else "the treebank has too few examples for this task; choose another task or treebank"
        )
        raise ParameterError(
            "sizes", f"no subset size fits task '{task}' ({counts}) at eta {eta:g}", hint
        )
    return chosen


def stratified_split(
    y: np.ndarray, size: int, eta: float = 4.0, seed: int = 0, balanced: bool = True
) -> Split:
    """A stratified train/val/test subset with ``train : val : test = eta : 1 : 1``.

    Zhu et al. 2022, §3.2 step 4, §4.1 and footnote 4 (2^7 training examples per class with
    eta = 4 give 256 train, 64 val and 64 test examples on a binary task). ``y`` (N,) labels of
    the pool. Per class c, ``n_c`` training examples (``size``, or proportional with
    ``balanced=False``) and ``floor(n_c / eta)`` validation and test examples are drawn without
    replacement with ``numpy.random.default_rng(seed)``. The paper uses 1:1:1 in its released
    scripts but eta = 4 in the text; eta is a parameter.
    """
    eta = positive_float("eta", eta)
    y = np.asarray(y, dtype=np.int64)
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
        raise ParameterError("size", f"must be a positive integer, got {size!r}")
    counts = np.bincount(y)
    if not _feasible(counts, int(size), eta, balanced):
        raise ParameterError(
            "size",
            f"{size} training examples per class need more data than the pool has",
            f"the largest possible size is {max_size(y, eta, balanced)} (see max_size)",
        )
    n_train = _allocation(counts, int(size), eta, balanced)
    n_eval = _eval_per_class(n_train, eta)
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for c in np.flatnonzero(counts):
        members = np.flatnonzero(y == c)
        pick = rng.choice(members, size=n_train[c] + 2 * n_eval[c], replace=False)
        cuts = np.cumsum([n_train[c], n_eval[c]])
        for part, rows in zip(parts, np.split(pick, cuts), strict=True):
            part.append(np.sort(rows))
    train, val, test = (np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts)
    return Split(train, val, test)


def fold_splits(
    y: np.ndarray, n_items: int, n_folds: int = 6, seed: int = 0, balanced: bool = True
) -> list[Split]:
    """The rotating folds of Zhu et al. 2022, §3.6 over a stratified sample of the pool.

    About ``n_items`` examples are drawn (equally many per class when ``balanced``, at random
    otherwise), as many as make a multiple of ``n_folds``, so that every run trains on equally
    many examples; :func:`probekit.methods.datasize.collapse.rotation_splits` then validates
    run i on fold i, tests on fold (i + 1) mod n_folds and trains on the rest. Returns
    ``n_folds`` :class:`Split` of pool indices.
    """
    n_folds = int(n_folds)
    if n_folds < 3:
        raise ParameterError("n_folds", f"must be >= 3, got {n_folds}")
    y = np.asarray(y, dtype=np.int64)
    counts = np.bincount(y)
    present = np.flatnonzero(counts)
    per_class = n_items // len(present)
    # Equal folds need a multiple of n_folds items; trimming per class keeps the balance.
    while per_class > 0 and (per_class * len(present)) % n_folds:
        per_class -= 1
    rng = np.random.default_rng(seed)
    if balanced:
        if per_class < 1 or per_class > counts[present].min():
            raise ParameterError(
                "n_items", f"{n_items} balanced items need {per_class} of each class",
                f"at most {counts[present].min() * len(present)} fit",
            )  # fmt: skip
        items = np.concatenate(
            [rng.choice(np.flatnonzero(y == c), per_class, False) for c in present]
        )
    else:
        if not 0 < n_items <= len(y):
            raise ParameterError("n_items", f"must lie in 1..{len(y)}, got {n_items}")
        items = rng.choice(len(y), n_items - n_items % n_folds, replace=False)
    items = np.sort(items)
    return [
        Split(items[s.train], items[s.val], items[s.test])
        for s in rotation_splits(len(items), n_folds, seed=seed)
    ]


def pilot_splits(
    y: np.ndarray,
    size: int,
    n_repeats: int,
    eta: float = 4.0,
    seed: int = 0,
    balanced: bool = True,
) -> list[Split]:
    """Repeated stratified pilot subsets of one size (Zhu et al. 2022, §3.6).

    Seeded by ``[seed, r]`` for r = 0..n_repeats-1.
    """
    if n_repeats < 1:
        raise ParameterError("n_repeats", f"must be >= 1, got {n_repeats}")
    return [stratified_split(y, size, eta, [seed, r], balanced) for r in range(n_repeats)]
