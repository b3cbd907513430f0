"""Assignment A4 · Extrapolation splits (Kunz & Kuhlmann 2021, §3.4-3.5).

Checks of the percentile, a frequency scoring function (:func:`frequency_score`) and the
easy/hard split against :mod:`probekit.methods.extrapolation`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from probekit.methods.extrapolation.splits import (
    distributional_split_points,
    easy_mask,
    hard_mask,
    percentile,
)
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    check_options,
    fmt_value,
    graded_tasks,
    join_hints,
    judge_float,
    matching_hint,
    pick,
    run_check,
)

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"percentile": 3, "frequency_score": 3, "extrapolation_split": 4}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "percentile": ("probekit.methods.extrapolation.splits.percentile",),
    "frequency_score": (
        "probekit.teaching.a4_extrapolation_split.frequency_score",
        "probekit.teaching.frequency_score",
    ),
    "extrapolation_split": (
        "probekit.methods.extrapolation.splits.distributional_split_points",
        "probekit.methods.extrapolation.splits.easy_mask",
        "probekit.methods.extrapolation.splits.hard_mask",
        "probekit.methods.extrapolation.splits.split_points",
        "probekit.methods.extrapolation.splits.setups",
        "probekit.teaching.a4_extrapolation_split._reference_split",
    ),
}


def _percentile_variants(scores: np.ndarray, q: float) -> dict[str, tuple]:
    s, n = np.sort(scores), len(scores)
    return {
        "numpy": (
            float(np.percentile(scores, 100 * q)),
            "the paper's percentile does not interpolate: take sorted(scores)[int(q * n)] "
            "(np.percentile and np.median interpolate).",
        ),
        "n_minus_1": (
            float(s[int(q * (n - 1))]),
            "the index is int(q * n), not int(q * (n - 1)).",
        ),
        "rounded": (
            float(s[min(n - 1, round(q * n))]),
            "truncate the index with int(q * n); do not round it.",
        ),
        "ceil": (
            float(s[min(n - 1, math.ceil(q * n))]),
            "truncate the index with int(q * n); do not round it up.",
        ),
    }


def check_percentile(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the split-point percentile.

    The reference is :func:`probekit.methods.extrapolation.splits.percentile`.

    Kunz & Kuhlmann 2021, §3.5 (and their released code): ``sorted(scores)[int(q * n)]``, no
    interpolation. ``student_fn(scores, q)`` takes a float array (n,) and 0 <= q < 1 and
    returns a float. Scores are often tied.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(1, 12))
        if k % 2:
            scores = rng.integers(0, 5, size=n).astype(np.float64)
        else:
            scores = np.round(rng.uniform(0, 10, size=n), 2)
        q = float(pick(rng, (0.5, 0.75, 0.25, 0.5, 0.75, 0.9, 0.0)))
        cases.append(Case(n, (scores, q), f"scores = {fmt_value(scores)}, q = {q:g}"))

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        default = "sort the scores and take the element at index int(q * n)."
        # The percentile picks one of the scores, so nothing but the exact value is right.
        return judge_float(
            expected,
            got,
            0.0,
            "return one float",
            lambda value: matching_hint(value, _percentile_variants(*case.args), default),
        )

    run_check("percentile", student_fn, cases, percentile, judge)


def frequency_score(train_forms: Sequence[str], forms: Sequence[str]) -> np.ndarray:
    """A frequency scoring function for extrapolation splits: rare words are hard.

    In the spirit of Kunz & Kuhlmann 2021, §3.4 (a scoring function m(e), higher = harder), for
    one word token e with form w: ``m(e) = 1 / (1 + c(w))``, where c(w) counts the occurrences
    of w (as written, case kept) among the training tokens. Unseen words score 1, the hardest;
    the more frequent a word, the closer its score to 0. Not in the paper; the assignment A4
    asks students to add it.

    Args:
        train_forms: shape (N,), the forms of the training tokens.
        forms: shape (M,), the forms to score.

    Returns:
        float64 array (M,) in (0, 1].
    """
    counts = Counter(str(w) for w in np.asarray(train_forms, dtype=object).reshape(-1))
    return np.array([1.0 / (1 + counts[str(w)]) for w in forms], dtype=np.float64)


_WORDS = ("the", "The", "cat", "sat", "on", "a", "mat", "dog", "ran", ".")


def check_frequency_score(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a frequency scoring function against :func:`frequency_score`.

    ``student_fn(train_forms, forms)`` takes two arrays of str, (N,) and (M,), and returns the
    float scores (M,): ``1 / (1 + count of the form among the training forms)``, case kept.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n, m = int(rng.integers(1, 10)), int(rng.integers(1, 6))
        train = np.array([pick(rng, _WORDS[:7]) for _ in range(n)])
        forms = np.array([pick(rng, _WORDS) for _ in range(m)])
        cases.append(
            Case(
                n + m,
                (train, forms),
                f"train_forms = {fmt_value(train)}, forms = {fmt_value(forms)}",
            )
        )

    def judge(case: Case, expected: np.ndarray, got: Any) -> Mismatch | None:
        train, forms = case.args
        arr = np.asarray(got, dtype=np.float64) if _numeric(got) else None
        if arr is not None and arr.shape == expected.shape and np.allclose(arr, expected):
            return None
        if arr is None or arr.shape != expected.shape:
            return Mismatch(
                fmt_value(expected), repr(got), f"return one float per form, shape ({len(forms)},)"
            )
        in_eval = Counter(str(w) for w in forms)
        in_train = Counter(str(w) for w in train)
        lower = Counter(str(w).lower() for w in train)
        variants = {
            "eval_counts": (
                np.array([1 / (1 + in_eval[str(w)]) for w in forms]),
                "count the forms among the *training* tokens, not among the forms being scored.",
            ),
            "raw_counts": (
                np.array([float(in_train[str(w)]) for w in forms]),
                "higher must mean harder: score 1 / (1 + count), so that rare words score high.",
            ),
            "unseen_zero": (
                np.array([1 / (1 + in_train[str(w)]) if in_train[str(w)] else 0.0 for w in forms]),
                "an unseen word has count 0 and scores 1, the hardest.",
            ),
            "lower": (
                np.array([1 / (1 + lower[str(w).lower()]) for w in forms]),
                "keep the case: 'The' and 'the' are different forms here.",
            ),
        }
        hint = join_hints(
            [h for v, h in variants.values() if np.allclose(arr, v)],
            "score = 1 / (1 + number of training tokens with exactly this form).",
        )
        return Mismatch(fmt_value(expected), fmt_value(arr), hint)

    run_check("frequency_score", student_fn, cases, frequency_score, judge)


def _numeric(value: Any) -> bool:
    try:
        np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _reference_split(train_scores: np.ndarray, eval_scores: np.ndarray):

    points = distributional_split_points(train_scores, eval_scores, "train", "eval")
    return easy_mask(train_scores, points), hard_mask(eval_scores, points)


def check_extrapolation_split(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check easy and hard sets (distributional criteria).

    The reference is :mod:`probekit.methods.extrapolation`.

    Kunz & Kuhlmann 2021, §3.5: m1 = 50th percentile of the training scores, m2 = 75th
    percentile of the evaluation scores (``sorted(x)[int(q * n)]``); easy = {m < m1} among the
    training examples and hard = {m > m2} among the evaluation examples, both strict.
    ``student_fn(train_scores, eval_scores)`` takes float arrays (N,), (M,) and returns the two
    bool masks ``(easy (N,), hard (M,))``. Scores are heavily tied.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n, m = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        train = rng.integers(0, 4, size=n).astype(np.float64)
        evals = rng.integers(0, 4, size=m).astype(np.float64)
        cases.append(
            Case(
                n + m,
                (train, evals),
                f"train_scores = {fmt_value(train)}, eval_scores = {fmt_value(evals)}",
            )
        )

    def judge(case: Case, expected: tuple, got: Any) -> Mismatch | None:
        train, evals = case.args
        want = f"easy = {fmt_value(expected[0])}, hard = {fmt_value(expected[1])}"
        try:
            easy, hard = (np.asarray(x, dtype=bool) for x in got)
        except (TypeError, ValueError):
            return Mismatch(want, repr(got), "return a pair (easy mask, hard mask)")
        shown = f"easy = {fmt_value(easy)}, hard = {fmt_value(hard)}"
        if easy.shape == expected[0].shape and hard.shape == expected[1].shape:
            if np.array_equal(easy, expected[0]) and np.array_equal(hard, expected[1]):
                return None
        s_train, s_eval = np.sort(train), np.sort(evals)
        m1, m2 = s_train[int(0.5 * len(train))], s_eval[int(0.75 * len(evals))]
        variants = {
            "non_strict": (
                (train <= m1, evals >= m2),
                "both inequalities are strict: easy is m < m1 and hard is m > m2, so examples "
                "tied with a split point are in neither set.",
            ),
            "non_strict_easy": (
                (train <= m1, evals > m2),
                "easy is strict, m < m1: training examples tied with m1 are not easy.",
            ),
            "non_strict_hard": (
                (train < m1, evals >= m2),
                "hard is strict, m > m2: evaluation examples tied with m2 are not hard.",
            ),
            "m2_from_train": (
                (train < m1, evals > s_train[int(0.75 * len(train))]),
                "m2 is the 75th percentile of the *evaluation* scores.",
            ),
            "m1_from_eval": (
                (train < s_eval[int(0.5 * len(evals))], evals > m2),
                "m1 is the median of the *training* scores.",
            ),
            "numpy": (
                (train < np.percentile(train, 50), evals > np.percentile(evals, 75)),
                "use the paper's percentile, sorted(x)[int(q * n)], not np.percentile or "
                "np.median (they interpolate).",
            ),
            "swapped": (
                (train > m1, evals < m2),
                "higher scores are harder: easy is below m1, hard above m2.",
            ),
        }
        hint = join_hints(
            [
                h
                for (e, hd), h in variants.values()
                if np.array_equal(easy, e) and np.array_equal(hard, hd)
            ],
            f"here m1 = {m1:g} and m2 = {m2:g}; easy = train_scores < m1, hard = eval_scores > m2.",
        )
        return Mismatch(want, shown, hint)

    run_check("extrapolation_split", student_fn, cases, _reference_split, judge)


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(
    POINTS, check_percentile, check_frequency_score, check_extrapolation_split
)
