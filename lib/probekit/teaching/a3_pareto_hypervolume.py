"""Assignment A3 · Pareto frontier and hypervolume (Pimentel et al. 2020, §3, Table 3, app. B).

Checks against :mod:`probekit.methods.pareto`, and :func:`lookup_family`, lookup taggers of
growing table size as a family of probes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.methods.pareto.frontier import hypervolume, pareto_frontier
from probekit.methods.pareto.lookups import PoslLookup, fit_posl_lookup, predict_posl_lookup
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    check_options,
    fmt_value,
    graded_tasks,
    judge_float,
    matching_hint,
    pick,
    run_check,
)

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"pareto_frontier": 4, "hypervolume": 6}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "pareto_frontier": ("probekit.methods.pareto.frontier.pareto_frontier",),
    "hypervolume": (
        "probekit.methods.pareto.frontier.hypervolume",
        "probekit.methods.pareto.frontier.hypervolume_many",
        "probekit.methods.pareto.frontier.frontier_staircase",
    ),
}


def _frontier_points(c: np.ndarray, a: np.ndarray, idx: Sequence[int]) -> str:
    return ", ".join(f"{i}: ({c[i]:g}, {a[i]:g})" for i in idx) or "none"


def check_pareto_frontier(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a Pareto frontier against :func:`probekit.methods.pareto.frontier.pareto_frontier`.

    Pimentel et al. 2020, §3. ``student_fn(complexity, accuracy)`` takes two float arrays (n,)
    and returns the indices of the probes that no other probe dominates (any order). Values lie
    on a coarse grid, so equal complexities, equal accuracies and exact copies occur.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 9))
        c = rng.integers(0, 5, size=n).astype(np.float64)
        a = rng.integers(0, 6, size=n) / 5
        if n > 2 and rng.random() < 0.3:
            c[-1], a[-1] = c[0], a[0]
        cases.append(Case(n, (c, a), f"complexity = {fmt_value(c)}, accuracy = {fmt_value(a)}"))

    def judge(case: Case, expected: np.ndarray, got: Any) -> Mismatch | None:
        c, a = case.args
        try:
            got_idx = sorted(int(i) for i in np.asarray(got).reshape(-1))
        except (TypeError, ValueError):
            return Mismatch(fmt_value(expected), repr(got), "return an array of integer indices")
        want = sorted(int(i) for i in expected)
        if got_idx == want:
            return None
        missing = sorted(set(want) - set(got_idx))
        extra = sorted(set(got_idx) - set(want))
        if len(set(got_idx)) != len(got_idx):
            hint = "each index may appear once."
        elif extra:
            i = extra[0]
            j = next(
                j
                for j in range(len(c))
                if c[j] <= c[i] and a[j] >= a[i] and (c[j] < c[i] or a[j] > a[i])
            )
            hint = (
                f"probe {i} at ({c[i]:g}, {a[i]:g}) is dominated by probe {j} at "
                f"({c[j]:g}, {a[j]:g}): another probe dominates it when it is at most as complex "
                "and at least as accurate, and strictly better in one of the two."
            )
        else:
            i = missing[0]
            copies = [j for j in range(len(c)) if j != i and c[j] == c[i] and a[j] == a[i]]
            hint = f"probe {i} at ({c[i]:g}, {a[i]:g}) is not dominated" + (
                f"; its exact copies {copies} do not dominate it (domination needs one strict "
                "inequality), so every copy stays."
                if copies
                else ": no probe is at most as complex and at least as accurate with one of "
                "the two strict."
            )
        return Mismatch(
            f"indices {want}: " + _frontier_points(c, a, want),
            f"indices {got_idx}: " + _frontier_points(c, a, [i for i in got_idx if i < len(c)]),
            hint,
        )

    run_check("pareto_frontier", student_fn, cases, pareto_frontier, judge)


def _staircase_area(xs: np.ndarray, hs: np.ndarray, right: float, floor: float) -> float:
    order = np.argsort(xs, kind="stable")
    x = np.r_[xs[order], right]
    return float(np.sum(np.diff(x) * np.clip(hs[order] - floor, 0.0, None)))


def _hypervolume_variants(
    c: np.ndarray, a: np.ndarray, cap: float, floor: float
) -> dict[str, tuple]:

    box = cap * (1.0 - floor)
    inside = c <= cap
    ci, ai = c[inside], a[inside]
    f_all = pareto_frontier(c, a)
    f_in = pareto_frontier(ci, ai) if ci.size else np.zeros(0, int)
    out: dict[str, tuple] = {}
    if f_in.size:
        xs, hs = ci[f_in], ai[f_in]
        area = _staircase_area(xs, hs, cap, floor)
        out["not_normalised"] = (
            area,
            "normalise: divide by the area of the reference box, max_complexity * "
            "(1 - min_accuracy).",
        )
        out["from_zero"] = (
            (area + xs.min() * max(hs[np.argmin(xs)] - floor, 0.0)) / box,
            "the staircase starts at complexity 0 but no probe fits a budget below the simplest "
            "probe, so nothing is gained left of it.",
        )
        out["no_floor"] = (
            _staircase_area(xs, hs, cap, 0.0) / cap,
            "measure heights from the reference accuracy: max(accuracy - min_accuracy, 0), and "
            "divide by max_complexity * (1 - min_accuracy).",
        )
        order = np.argsort(xs)
        x_tr, h_tr = np.r_[xs[order], cap], np.r_[hs[order], hs[order][-1]] - floor
        out["trapezoid"] = (
            float(np.sum(np.diff(x_tr) * (h_tr[1:] + h_tr[:-1]) / 2)) / box,
            "the staircase is flat between frontier points (a budget between two probes only buys "
            "the simpler one): no interpolation.",
        )
    if f_all.size:
        out["no_cap"] = (
            _staircase_area(c[f_all], a[f_all], cap, floor) / box,
            "drop the probes beyond the cap (complexity > max_complexity) before building the "
            "frontier: they fit no budget.",
        )
        out["cap_at_max"] = (
            _staircase_area(c[f_all], a[f_all], float(c.max()), floor)
            / (float(c.max()) * (1 - floor) or 1.0),
            "the right end of the staircase is max_complexity, not the largest complexity seen.",
        )
    return out


def check_hypervolume(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a bounded, normalised Pareto hypervolume.

    The reference is :func:`probekit.methods.pareto.frontier.hypervolume`.

    Pimentel et al. 2020, §3 and Table 3. ``student_fn(complexity, accuracy, max_complexity,
    min_accuracy)`` takes float arrays (n,), the cap and the reference accuracy, and returns the
    area that the probes within the cap dominate, divided by ``max_complexity * (1 -
    min_accuracy)``. About a third of the probes lie beyond the cap.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 8))
        cap = float(pick(rng, (1, 10, 400)))
        c = np.round(rng.uniform(0, 1.5 * cap, size=n), 2)
        a = np.round(rng.uniform(0, 1, size=n), 2)
        floor = 0.0 if rng.random() < 0.6 else float(np.round(rng.uniform(0, 0.5), 2))
        shown = (
            f"complexity = {fmt_value(c)}, accuracy = {fmt_value(a)}, max_complexity = {cap:g}, "
            f"min_accuracy = {floor:g}"
        )
        cases.append(Case(n, (c, a, cap, floor), shown))

    def reference(c: np.ndarray, a: np.ndarray, cap: float, floor: float) -> float:
        return hypervolume(c, a, cap, min_accuracy=floor, normalise=True)

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        default = (
            "keep the probes within the cap, build their frontier, integrate the staircase from "
            "the simplest frontier probe to max_complexity, and normalise."
        )
        return judge_float(
            expected,
            got,
            1e-7,
            "return one float",
            lambda value: matching_hint(value, _hypervolume_variants(*case.args), default),
        )

    run_check("hypervolume", student_fn, cases, reference, judge)


def lookup_family(
    train_words: Sequence[str],
    train_tags: Sequence[str],
    eval_words: Sequence[str],
    eval_tags: Sequence[str],
    sizes: Sequence[int],
    *,
    order: str = "frequency",
    seed: int = 0,
) -> Any:
    """Dictionary-lookup POS taggers of several table sizes: a family of probes for a Pareto plot.

    Pimentel et al. 2020, appendix B (the lookup baseline,
    :func:`probekit.methods.pareto.lookups.fit_posl_lookup`) with the table restricted to ``k`` word
    types: the ``k`` most frequent training words (``order="frequency"``) or ``k`` random ones
    (``order="random"``, drawn with ``seed``); other words get the most frequent tag overall. The
    complexity of a table is its number of entries.

    Args:
        train_words: training words, shape (N,).
        train_tags: their tags, shape (N,).
        eval_words: evaluation words, shape (M,).
        eval_tags: their tags, shape (M,).
        sizes: table sizes k >= 0; sizes above the vocabulary are cut to it.
        order: ``"frequency"`` or ``"random"``, which words fill a table.
        seed: seed of the random order.

    Returns:
        DataFrame with one row per size: ``complexity`` (entries) and ``accuracy`` on eval.
    """
    if order not in ("frequency", "random"):
        raise ParameterError("order", f"'{order}' is not one of 'frequency', 'random'")
    if any(int(k) < 0 for k in sizes):
        raise ParameterError("sizes", "table sizes must be >= 0")
    full = fit_posl_lookup(train_words, train_tags)
    counts = Counter(str(w) for w in train_words)
    if order == "frequency":
        # Ties in frequency go to the alphabetically first word, so the ranking is stable.
        ranked = sorted(counts, key=lambda w: (-counts[w], w))
    else:
        vocab = sorted(counts)
        ranked = [vocab[i] for i in np.random.default_rng(seed).permutation(len(vocab))]
    gold = np.asarray(eval_tags)
    rows = []
    for k in sizes:
        k = min(int(k), len(ranked))
        table = PoslLookup({w: full.by_word[w] for w in ranked[:k]}, full.default)
        accuracy = float(np.mean(predict_posl_lookup(table, eval_words) == gold))
        rows.append({"complexity": k, "accuracy": accuracy})
    return pd.DataFrame(rows)


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(POINTS, check_pareto_frontier, check_hypervolume)
