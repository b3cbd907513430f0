"""Running an assignment check: seeded cases, the smallest failing case first, a hint.

Every ``check_*`` of :mod:`probekit.teaching` builds a list of :class:`Case` and hands it to
:func:`run_check` with the library's reference implementation and a judge. Cases are tried
from the smallest up, so the first mismatch is the smallest failing input; it raises
``AssertionError`` with that input, the expected and the returned value, and a hint aimed at
the common mistake (the judge's :class:`Mismatch`). On success a check prints one line,
``✓ <task> passed on N cases``.

A student function that still raises ``NotImplementedError`` (the student copy's placeholder)
is let through unchanged, so an unsolved task reads as unsolved, not as a wrong answer.
"""

from __future__ import annotations

import contextvars
import copy
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.checks import positive_int

#: Whether checks print their ``✓ ... passed`` line; the batch grader turns it off in its threads.
PRINT_SUCCESS: contextvars.ContextVar[bool] = contextvars.ContextVar("print_success", default=True)


@dataclass(frozen=True)
class GradedTask:
    """One graded task of an assignment: the function students write, its check, its points.

    Attributes:
        number: the task's number in the notebook (its ``## Task N`` heading).
        function: the name of the function the task asks for, as the notebook defines it.
        check: the ``check_*`` function that grades it, called as ``check(fn, seed=seed)``.
        points: what a passed check is worth.
    """

    number: int
    function: str
    check: Callable[..., None]
    points: int


def graded_tasks(points: Mapping[str, int], *checks: Callable[..., None]) -> tuple[GradedTask, ...]:
    """The graded tasks of an assignment module, from its ``POINTS`` and its checks.

    Args:
        points: the function each task asks for -> its points, in the notebook's order (Task 1
            first); this is the assignment's ``POINTS``.
        *checks: the check of each task, in the same order.

    Returns:
        One :class:`GradedTask` per task, numbered from 1.
    """
    if len(points) != len(checks):
        raise ParameterError("checks", f"{len(checks)} checks for {len(points)} tasks in POINTS")
    return tuple(
        GradedTask(number, function, check, int(value))
        for number, ((function, value), check) in enumerate(
            zip(points.items(), checks, strict=True), start=1
        )
    )


class FunctionRaised(AssertionError):
    """A check's verdict that the student's function raised (not that it returned a wrong value).

    An ``AssertionError``, as every failed check is; the grader reports it as ``raised``.
    """


@dataclass(frozen=True)
class Case:
    """One generated input for a student's function.

    ``args`` go to the student's function; ``size`` orders the cases so that the first failure is
    the smallest; ``shown`` is the input as the message prints it.
    """

    size: int
    args: tuple
    shown: str


@dataclass(frozen=True)
class Mismatch:
    """Why a result is wrong: the expected and returned values as printed, and the hint."""

    expected: str
    got: str
    hint: str


def check_options(seed: Any, n_cases: Any) -> tuple[int, int]:
    """``(seed, n_cases)`` as ints; a :class:`ParameterError` for a bad value."""
    return positive_int("seed", seed, minimum=0), positive_int("n_cases", n_cases)


def fmt_value(value: Any) -> str:
    """A value as the failure message prints it: compact, 3 significant digits for floats."""
    if isinstance(value, np.ndarray) or (
        isinstance(value, list | tuple) and value and isinstance(value[0], np.ndarray)
    ):
        if isinstance(value, np.ndarray):
            return np.array2string(value, precision=3, separator=", ", max_line_width=96)
        return "[" + ", ".join(fmt_value(v) for v in value) + "]"
    if isinstance(value, float | np.floating):
        return f"{float(value):.6g}"
    return repr(value)


def _call(task: str, student_fn: Callable, case: Case) -> Any:
    # The student's function gets its own copies, so in-place edits cannot leak into the
    # reference computation or the next case.
    args = copy.deepcopy(case.args)
    try:
        return student_fn(*args)
    except NotImplementedError:
        raise
    except Exception as exc:
        raise FunctionRaised(
            f"{task}: your function raised {type(exc).__name__}: {exc}\n"
            f"  on the input:  {case.shown}\n"
            "  hint: run it on this input yourself to see where it fails"
        ) from exc


def run_check(
    task: str,
    student_fn: Callable,
    cases: Sequence[Case],
    reference: Callable[..., Any],
    judge: Callable[[Case, Any, Any], Mismatch | None],
) -> None:
    """Compare ``student_fn`` with ``reference`` on every case, the smallest first.

    ``judge(case, expected, got)`` returns None when ``got`` is right, else the
    :class:`Mismatch` that the raised ``AssertionError`` reports. Prints one line on success.
    """
    if not callable(student_fn):
        raise ParameterError("student_fn", f"must be a function, got {type(student_fn).__name__}")
    order = sorted(range(len(cases)), key=lambda i: (cases[i].size, i))
    for rank, i in enumerate(order):
        case = cases[i]
        expected = reference(*copy.deepcopy(case.args))
        got = _call(task, student_fn, case)
        problem = judge(case, expected, got)
        if problem is not None:
            raise AssertionError(
                f"{task}: wrong result on the smallest failing case "
                f"(size {case.size}; {rank} smaller cases passed)\n"
                f"  input:     {_indent(case.shown)}\n"
                f"  expected:  {_indent(problem.expected)}\n"
                f"  got:       {_indent(problem.got)}\n"
                f"  hint:      {problem.hint}"
            )
    if PRINT_SUCCESS.get():
        print(f"✓ {task} passed on {len(cases)} cases")


def _indent(text: str) -> str:
    """Continuation lines of a multi-line value aligned under its first line."""
    return text.replace("\n", "\n" + " " * 13)


def close_to(a: float, b: float, tol: float = 1e-9) -> bool:
    """``a`` and ``b`` agree to ``tol``, relative or absolute."""
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def as_float(got: Any) -> float | None:
    """``got`` as a float, or None when it is not a number (a list, None, ...)."""
    try:
        return float(got)
    except (TypeError, ValueError):
        return None


def join_hints(hints: Sequence[str], default: str) -> str:
    """One hint, or several when more than one known mistake explains the result."""
    unique = list(dict.fromkeys(hints))
    return " Or: ".join(unique) if unique else default


def matching_hint(got: float, variants: Mapping[str, tuple[float, str]], default: str) -> str:
    """The hints of the known wrong variants whose value equals ``got``, else ``default``."""
    return join_hints(
        [
            hint
            for value, hint in variants.values()
            if value is not None and math.isfinite(value) and close_to(got, value, 1e-7)
        ],
        default,
    )


def judge_float(
    expected: float,
    got: Any,
    tol: float,
    not_a_float: str,
    hint_for: Callable[[float], str],
) -> Mismatch | None:
    """The verdict of a check whose answer is one float.

    None when ``got`` is a number within ``tol`` of ``expected`` (:func:`close_to`; 0 asks for
    equality), else a :class:`Mismatch` with the hint ``not_a_float`` when ``got`` is no number
    and ``hint_for(value)`` when it is a wrong one.
    """
    value = as_float(got)
    if value is not None and close_to(value, expected, tol):
        return None
    if value is None:
        return Mismatch(fmt_value(expected), repr(got), not_a_float)
    return Mismatch(fmt_value(expected), fmt_value(value), hint_for(value))


def pick(rng: np.random.Generator, options: Sequence[str] | str) -> str:
    """One of ``options`` (a sequence, or the letters of a string), drawn with ``rng``."""
    return options[int(rng.integers(0, len(options)))]
