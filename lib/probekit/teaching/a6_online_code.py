"""Assignment A6 · The online codelength by hand (Voita & Titov 2020, §3.2).

Checks of the block ends, the bits of each block and the online codelength with its compression
against :mod:`probekit.methods.mdl`, and :func:`block_probabilities`, a small simulated table of
the probabilities that the block probes give the true labels, for students to follow by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.methods.mdl import BLOCK_FRACTIONS, block_ends, online_codelength, uniform_codelength
from probekit.stats.checks import positive_int
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    as_float,
    check_options,
    close_to,
    fmt_value,
    graded_tasks,
    join_hints,
    matching_hint,
    pick,
    run_check,
)

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"block_ends": 3, "block_bits": 3, "online_codelength": 4}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "block_ends": ("probekit.methods.mdl.block_ends",),
    "block_bits": ("probekit.teaching.a6_online_code._block_bits_reference",),
    "online_codelength": (
        "probekit.methods.mdl.online_codelength",
        "probekit.methods.mdl.uniform_codelength",
        "probekit.teaching.a6_online_code._codelength_reference",
    ),
}

# Block fractions the checks draw from besides random ones: the paper's, and coarser lists
# whose blocks a student can count on one hand.
_FRACTION_LISTS: tuple[tuple[float, ...], ...] = (
    BLOCK_FRACTIONS,
    (0.05, 0.1, 0.25, 0.5, 1.0),
    (0.1, 0.2, 0.4, 0.8, 1.0),
    (0.125, 0.25, 0.5, 1.0),
)


def _naive_ends(n: int, fractions: Sequence[float]) -> np.ndarray:
    """max(1, floor(f * n)) as a student computes it by hand, in plain floats."""
    return np.unique(np.maximum(np.floor(np.asarray(fractions) * n), 1)).astype(np.int64)


def _draw_fractions(rng: np.random.Generator, n: int) -> list[float]:
    """A fraction list for n examples: one of :data:`_FRACTION_LISTS` or a random one.

    A random list is redrawn while some f * n lands, in binary floats, just below a whole number
    (0.58 * 100 == 57.99999999999999): the task is the rounding rule, not float arithmetic, so
    a plain floor(f * n) must agree with the library there.
    """
    while True:
        if rng.random() < 0.5:
            fractions = list(_FRACTION_LISTS[int(rng.integers(0, len(_FRACTION_LISTS)))])
        else:
            k = int(rng.integers(1, 6))
            inner = np.sort(rng.choice(np.arange(1, 100), size=k, replace=False)) / 100
            fractions = [*(float(f) for f in inner), 1.0]
        if np.array_equal(_naive_ends(n, fractions), block_ends(n, fractions)):
            return fractions


def _draw_n(rng: np.random.Generator, k: int) -> int:
    """Small data sets (where blocks merge and the first holds one example) and larger ones."""
    if k % 3 == 0:
        return int(rng.integers(2, 16))
    if k % 3 == 1:
        return int(rng.integers(16, 200))
    return int(rng.integers(200, 5000))


def _numbers(got: Any) -> np.ndarray | None:
    """``got`` as a numeric array (ints or floats kept as they are), or None when it is none."""
    if isinstance(got, str | bytes | dict):
        return None
    try:
        arr = np.asarray(got)
    except Exception:  # a student's object whose conversion raises
        return None
    if arr.dtype.kind in "iuf":
        return arr
    try:
        return np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _same(a: np.ndarray, b: np.ndarray, tol: float = 0.0) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    return bool(np.array_equal(a, b) if tol == 0 else np.allclose(a, b, rtol=tol, atol=tol))


def _block_ends_variants(n: int, fractions: Sequence[float]) -> dict[str, tuple]:
    """Values that common wrong block-end rules return, with the matching hint."""
    raw = np.asarray(fractions, dtype=np.float64) * n
    floor = np.floor(raw).astype(np.int64)
    ends = block_ends(n, fractions)

    def unique(values: np.ndarray) -> np.ndarray:
        return np.unique(np.clip(values, 1, n)).astype(np.int64)

    rounded = "round f * n down (floor): a block holds no more examples than its fraction allows."
    return {
        "round": (unique(np.round(raw)), rounded),
        "round_half_up": (unique(np.floor(raw + 0.5)), rounded),
        "ceil": (unique(np.ceil(raw)), rounded),
        "no_merge": (
            np.maximum(floor, 1),
            "fractions that give the same count make one block: keep each end once (np.unique).",
        ),
        "no_min_one": (
            np.unique(floor),
            "the first block holds at least one example: t_1 = max(1, floor(f_1 * n)); an end of "
            "0 would make an empty block.",
        ),
        "neither": (
            floor,
            "t_i = max(1, floor(f_i * n)): the first block holds at least one example, and "
            "fractions that give the same count make one block (keep each end once).",
        ),
        "zeros_dropped": (
            np.unique(floor[floor > 0]),
            "a fraction that rounds down to 0 examples still makes a block, of one example: "
            "t_1 = max(1, floor(f_1 * n)); do not drop it.",
        ),
        "sizes": (
            np.diff(np.r_[0, ends]),
            "return where each block ends (t_1 < ... < t_S = n), not how many examples each "
            "block holds.",
        ),
        "zero_based": (
            ends - 1,
            "t_i counts examples, so the last end is n: do not subtract 1 to make 0-based indices.",
        ),
    }


def check_block_ends(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the ends of the online code's blocks against :func:`probekit.methods.mdl.block_ends`.

    Voita & Titov 2020, §3.2: the examples are sent in blocks that end at timesteps
    t_1 < ... < t_S = n, given as fractions of n. ``student_fn(n, fractions)`` takes n >= 2 and
    a list of fractions that increase strictly within (0, 1] and end at 1, and returns the ints
    t_i = max(1, floor(f_i * n)), each end once, in increasing order (fractions that give the
    same count make one block). The cases use the paper's fractions, coarser lists and random
    ones, and avoid products f * n that binary floats put just below a whole number.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = _draw_n(rng, k)
        fractions = _draw_fractions(rng, n)
        cases.append(Case(n, (n, fractions), f"n = {n}, fractions = {fractions}"))

    def judge(case: Case, expected: np.ndarray, got: Any) -> Mismatch | None:
        n, fractions = case.args
        want = fmt_value(expected)
        arr = _numbers(got)
        if arr is None or arr.ndim != 1:
            return Mismatch(
                want, repr(got), "return the block ends as a 1-D array (or list) of ints"
            )
        if arr.dtype.kind == "f":
            if _same(arr, expected):
                return Mismatch(
                    want,
                    fmt_value(arr),
                    "the right ends, but as floats: return ints (np.floor returns floats; "
                    "convert with .astype(int)), so that they can index arrays.",
                )
        elif _same(arr, expected):
            return None
        hint = join_hints(
            [h for v, h in _block_ends_variants(n, fractions).values() if _same(arr, v)],
            "t_i = max(1, floor(f_i * n)) for each fraction f_i, each end once, in increasing "
            "order; the last end is n.",
        )
        return Mismatch(want, fmt_value(arr), hint)

    run_check("block_ends", student_fn, cases, block_ends, judge)


def _per_block(values: np.ndarray, ends: np.ndarray, shift: int = 0) -> np.ndarray:
    """Sums of ``values`` over each block after the first, its slice moved by ``shift``."""
    return np.array(
        [values[ends[i] + shift : ends[i + 1] + shift].sum() for i in range(len(ends) - 1)]
    )


def _block_bits_reference(p_true: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The bits of blocks 2..S: sums of -log2 p_true over each block's examples."""
    return _per_block(-np.log2(np.asarray(p_true, dtype=np.float64)), np.asarray(ends))


def _block_bits_variants(p_true: np.ndarray, ends: np.ndarray) -> dict[str, tuple]:
    """Values that common wrong block codelengths return, with the matching hint."""
    p = np.asarray(p_true, dtype=np.float64)
    bits = -np.log2(p)
    right = _per_block(bits, ends)
    sizes = np.diff(ends)
    slices = (
        "block i + 1 holds the examples ends[i], ..., ends[i + 1] - 1 (0-based): "
        "p_true[ends[i]:ends[i + 1]]."
    )
    return {
        "nats": (
            _per_block(-np.log(p), ends),
            "count bits, -log2(p): np.log gives nats (divide by ln 2, or use np.log2).",
        ),
        "log10": (_per_block(-np.log10(p), ends), "count bits, -log2(p), not -log10(p)."),
        "sign": (
            -right,
            "a label costs -log2(p) bits: a probability below 1 costs a positive number of bits.",
        ),
        "probabilities": (
            _per_block(p, ends),
            "a block costs the sum of -log2(p) over its examples, not the sum of the "
            "probabilities.",
        ),
        "mean": (right / sizes, "a block's bits are the *sum* over its examples, not their mean."),
        "cumulative": (
            np.cumsum(right),
            "each block's bits are those of its own examples only; do not add the earlier blocks.",
        ),
        "shift_left": (_per_block(bits, ends, -1), slices),
        "shift_right": (_per_block(bits, ends, 1), slices),
        "with_first": (
            np.r_[bits[: ends[0]].sum(), right],
            "the first block goes with the uniform code, not with a probe: return one value per "
            "block *after* the first, len(ends) - 1 values.",
        ),
        "total": (
            np.asarray(right.sum()),
            "return one value per block after the first (an array), not their total.",
        ),
    }


def _p_true_case(rng: np.random.Generator, n: int, ends: np.ndarray, n_classes: int) -> np.ndarray:
    """Probabilities of the true labels: 1/K in the first block, a probe's guesses after it."""
    p = np.clip(np.round(rng.beta(2.0, 1.5, size=n), 2), 0.01, 1.0)
    p[: ends[0]] = 1.0 / n_classes
    return p


def check_block_bits(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the bits of each block of the online code.

    Voita & Titov 2020, §3.2: block i + 1 (examples t_i + 1 ... t_{i+1}) costs the sum of
    -log2 p(y | x) over its examples, p the probability of the true label under the probe trained
    on the first t_i examples. ``student_fn(p_true, ends)`` takes the probabilities of the true
    labels, a float array (n,) in (0, 1] (1/K in the first block, which the uniform code sends),
    and the block ends (S,) of :func:`probekit.methods.mdl.block_ends`, and returns the bits of
    blocks 2..S, a float array (S - 1,).
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(2, 13)) if k % 2 == 0 else int(rng.integers(13, 60))
        ends = block_ends(n, _draw_fractions(rng, n))
        n_classes = int(pick(rng, (2, 3, 4, 5, 10)))
        p = _p_true_case(rng, n, ends, n_classes)
        shown = f"p_true = {fmt_value(p)}, ends = {fmt_value(ends)}"
        cases.append(Case(n, (p, ends), shown))

    def judge(case: Case, expected: np.ndarray, got: Any) -> Mismatch | None:
        p, ends = case.args
        want = fmt_value(expected)
        arr = _numbers(got)
        if arr is not None and _same(arr, expected, 1e-9):
            return None
        if arr is None:
            return Mismatch(
                want,
                repr(got),
                f"return one float per block after the first: an array of shape ({len(ends) - 1},)",
            )
        hint = join_hints(
            [h for v, h in _block_bits_variants(p, ends).values() if _same(arr, v, 1e-7)],
            "for each block after the first, sum -log2(p_true) over its examples, "
            "p_true[ends[i]:ends[i + 1]].",
        )
        return Mismatch(want, fmt_value(arr), hint)

    run_check("block_bits", student_fn, cases, _block_bits_reference, judge)


def _codelength_reference(bits: np.ndarray, ends: np.ndarray, n_classes: int) -> tuple:
    """(online codelength in bits, compression), by :mod:`probekit.methods.mdl`."""
    total = online_codelength(bits, int(ends[0]), n_classes)
    return total, uniform_codelength(int(ends[-1]), n_classes) / total


def _codelength_variants(bits: np.ndarray, ends: np.ndarray, k: int) -> dict[str, tuple]:
    """Online codelengths of common wrong rules, with the matching hint."""
    t1, n, rest = int(ends[0]), int(ends[-1]), float(np.sum(bits))
    log_k = math.log2(k)
    right = t1 * log_k + rest
    return {
        "no_first": (
            rest,
            "add the first block: its t_1 labels go with the uniform code, t_1 * log2(K) bits.",
        ),
        "first_once": (
            log_k + rest,
            "the first block holds t_1 = ends[0] examples at log2(K) bits each: t_1 * log2(K).",
        ),
        "first_nats": (t1 * math.log(k) + rest, "count bits: log2(K), not the natural log."),
        "first_k": (
            t1 * k + rest,
            "a uniform code over K classes costs log2(K) bits a label, not K.",
        ),
        "first_one_bit": (
            t1 + rest,
            "a uniform code over K classes costs log2(K) bits a label, not 1.",
        ),
        "uniform": (
            n * log_k,
            "that is the uniform codelength of all n labels; the online code sends only the "
            "first block, t_1 = ends[0] examples, with the uniform code.",
        ),
        "per_example": (right / n, "return the total in bits, not the bits per example."),
        "kbits": (right / 1000, "return bits, not kbits."),
    }


def _compression_variants(codelength: float, ends: np.ndarray, k: int) -> dict[str, tuple]:
    """Compressions of common wrong rules (from the right codelength), with the matching hint."""
    t1, n = int(ends[0]), int(ends[-1])
    uniform = n * math.log2(k)
    return {
        "inverted": (
            codelength / uniform,
            "compression is uniform / online codelength, above 1 when the probes help.",
        ),
        "difference": (
            uniform - codelength,
            "compression is a ratio (uniform / online codelength), not a difference.",
        ),
        "nats": (n * math.log(k) / codelength, "count bits: n * log2(K), not the natural log."),
        "without_first": (
            (n - t1) * math.log2(k) / codelength,
            "the uniform codelength covers all n labels, the first block's too: n * log2(K).",
        ),
        "blocks_as_n": (
            len(ends) * math.log2(k) / codelength,
            "n is the number of examples, the last block end ends[-1], not the number of blocks.",
        ),
        "sum_of_ends": (
            float(np.sum(ends)) * math.log2(k) / codelength,
            "n is the last block end ends[-1], not the sum of the ends.",
        ),
        "k_not_log": (
            n * k / codelength,
            "a uniform code over K classes costs log2(K) bits a label, not K: n * log2(K).",
        ),
        "one_bit": (
            n / codelength,
            "a uniform code over K classes costs log2(K) bits a label: n * log2(K), not n.",
        ),
    }


def _pair(got: Any) -> tuple[float, float] | None:
    if isinstance(got, str | bytes | dict):
        return None
    try:
        items = list(got)
    except Exception:  # not iterable, or a student's object whose iteration raises
        return None
    if len(items) != 2:
        return None
    values = (as_float(items[0]), as_float(items[1]))
    if values[0] is None or values[1] is None:
        return None
    return values[0], values[1]


def check_online_codelength(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the online codelength and the compression against :mod:`probekit.methods.mdl`.

    Voita & Titov 2020, §3.2: the online codelength is t_1 log2 K (the first block, uniform
    code) plus the bits of every later block, and the compression is the uniform codelength
    n log2 K over it (:func:`probekit.methods.mdl.online_codelength`,
    :func:`probekit.methods.mdl.uniform_codelength`). ``student_fn(bits, ends, n_classes)`` takes
    the bits of blocks 2..S, a float array (S - 1,), the block ends (S,) and K, and returns the
    pair ``(codelength in bits, compression)``.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = _draw_n(rng, k)
        ends = block_ends(n, _draw_fractions(rng, n))
        n_classes = int(pick(rng, (2, 3, 4, 5, 10, 17, 50)))
        per_example = rng.uniform(0.02, 1.3, size=len(ends) - 1) * math.log2(n_classes)
        bits = np.round(np.diff(ends) * per_example, 3)
        shown = f"bits = {fmt_value(bits)}, ends = {fmt_value(ends)}, n_classes = {n_classes}"
        cases.append(Case(n, (bits, ends, n_classes), shown))

    def judge(case: Case, expected: tuple, got: Any) -> Mismatch | None:
        bits, ends, n_classes = case.args
        right_length, right_ratio = expected
        want = f"codelength = {right_length:.6g} bits, compression = {right_ratio:.6g}"
        pair = _pair(got)
        if pair is None:
            return Mismatch(
                want, repr(got), "return a pair of floats: (online codelength in bits, compression)"
            )
        length, ratio = pair
        shown = f"codelength = {length:.6g} bits, compression = {ratio:.6g}"
        length_ok, ratio_ok = close_to(length, right_length), close_to(ratio, right_ratio)
        if length_ok and ratio_ok:
            return None
        t1, n = int(ends[0]), int(ends[-1])
        if close_to(length, right_ratio) and close_to(ratio, right_length):
            hint = "return the pair in this order: (codelength in bits, compression)."
        elif not length_ok:
            hint = matching_hint(
                length,
                _codelength_variants(bits, ends, n_classes),
                f"online codelength = t_1 * log2(K) (the first block, uniform code) + the sum "
                f"of the later blocks' bits; here t_1 = {t1} and K = {n_classes}.",
            )
        else:
            hint = matching_hint(
                ratio,
                _compression_variants(right_length, ends, n_classes),
                f"compression = n * log2(K) / online codelength, with n = ends[-1] = {n}.",
            )
        return Mismatch(want, shown, hint)

    run_check("online_codelength", student_fn, cases, _codelength_reference, judge)


# The simulated tasks of block_probabilities: the probability of the true label that a probe
# trained on t examples gives on average, 1/K + (ceiling - 1/K) * t / (t + half), by task.
_LEARNING_CURVES: dict[str, tuple[float, float]] = {
    "linguistic task": (0.92, 4.0),  # learnt from a handful of examples
    "control task": (0.92, 60.0),  # the same ceiling, reached only by memorising many examples
}
_RANDOM_TASK = "random labels"
# The random-label probe's confidence in its guess follows the same kind of curve: it grows
# with the examples it memorised, while its guesses stay right only as often as chance allows.
_CONFIDENCE_CURVE = (0.75, 4.0)
# Spread of one example's probability around its block's mean: Beta(c m, c (1 - m)).
_CONCENTRATION = 5.0


def _curve(t: int, n_classes: int, ceiling: float, half: float) -> float:
    return 1.0 / n_classes + (ceiling - 1.0 / n_classes) * t / (t + half)


def block_probabilities(
    n: int,
    fractions: Sequence[float] = BLOCK_FRACTIONS,
    n_classes: int = 4,
    seed: int = 0,
) -> pd.DataFrame:
    """A simulated table of the probability of each example's true label under the online code.

    For A6, a table small enough to follow by hand (Voita & Titov 2020, §3.2). Examples 1..n, in
    transmission order, fall into the blocks of :func:`probekit.methods.mdl.block_ends`; the
    first block's labels get probability 1/K (the uniform code), every later example the
    probability that the probe trained on all earlier blocks gives its true label. No probe is
    trained: the probabilities are drawn from learning curves, the mean probability after t
    training examples being 1/K + (c - 1/K) t / (t + h), one example's a Beta draw around it,
    rounded to two decimals and kept within [0.01, 0.99]. Three tasks:

    - ``"linguistic task"``: c = 0.92, h = 4, learnt from a handful of examples;
    - ``"control task"``: c = 0.92, h = 60, the same ceiling reached only after many examples,
      as when labels must be memorised word by word;
    - ``"random labels"``: a probe whose confidence in its guess grows with t along
      c = 0.75, h = 4 but whose guesses are right on only floor(s / K) of a block's s examples
      (at random places): the true label gets the confidence when the guess is right and an
      equal share of the rest otherwise.

    Args:
        n: the number of examples, >= 2.
        fractions: the block fractions (:func:`probekit.methods.mdl.block_ends`).
        n_classes: K, >= 2.
        seed: seed of the draws.

    Returns:
        DataFrame indexed by ``example`` (1..n) with the columns ``block`` (1..S),
        ``probe trained on`` (t_i, the examples before the block; 0 for the first) and one
        column of probabilities per task.
    """
    positive_int("n_classes", n_classes, minimum=2)
    positive_int("seed", seed, minimum=0)
    ends = block_ends(n, fractions)
    rng = np.random.default_rng(seed)
    starts = np.r_[0, ends[:-1]]
    block = np.repeat(np.arange(1, len(ends) + 1), np.diff(np.r_[0, ends]))
    trained = np.repeat(starts, np.diff(np.r_[0, ends]))
    uniform = 1.0 / n_classes
    table = pd.DataFrame({"block": block, "probe trained on": trained})
    table.index = pd.RangeIndex(1, n + 1, name="example")
    for name, (ceiling, half) in _LEARNING_CURVES.items():
        mean = np.array([_curve(int(t), n_classes, ceiling, half) for t in trained])
        p = rng.beta(_CONCENTRATION * mean, _CONCENTRATION * (1 - mean))
        p = np.clip(np.round(p, 2), 0.01, 0.99)
        p[: ends[0]] = uniform
        table[name] = p
    p = np.full(n, uniform)
    for start, end in zip(starts[1:], ends[1:], strict=True):
        size = int(end - start)
        confidence = round(_curve(int(start), n_classes, *_CONFIDENCE_CURVE), 2)
        # Two decimals, rounded down, so that an example's K probabilities never sum above 1.
        miss = max(math.floor(100 * (1 - confidence) / (n_classes - 1)) / 100, 0.01)
        right = np.zeros(size, dtype=bool)
        right[rng.choice(size, size // n_classes, replace=False)] = True
        p[start:end] = np.where(right, confidence, miss)
    table[_RANDOM_TASK] = p
    return table


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(
    POINTS, check_block_ends, check_block_bits, check_online_codelength
)
