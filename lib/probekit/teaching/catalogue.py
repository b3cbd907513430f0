"""The graded assignments: each hand-out's file name and its graded tasks.

An assignment is named as its notebook and its student copy are, ``A<k>_<slug>``; its tasks and
their points are declared once, in its module (``POINTS`` and ``TASKS`` of
:mod:`.a1_tree_metrics` ... :mod:`.a6_online_code`). The batch grader (:mod:`.grading`) and the
otter export (:mod:`.otter_export`) read them from here.
"""

from __future__ import annotations

from probekit.errors import ProbekitError
from probekit.teaching import (
    a1_tree_metrics,
    a2_jabberwocky_inflection,
    a3_pareto_hypervolume,
    a4_extrapolation_split,
    a5_mcnemar_power,
    a6_online_code,
)
from probekit.teaching.runner import GradedTask

#: Assignment name (the notebook's file name without ``.py``) -> its graded tasks, Task 1 first.
ASSIGNMENT_TASKS: dict[str, tuple[GradedTask, ...]] = {
    "A1_tree_metrics": a1_tree_metrics.TASKS,
    "A2_jabberwocky_inflection": a2_jabberwocky_inflection.TASKS,
    "A3_pareto_hypervolume": a3_pareto_hypervolume.TASKS,
    "A4_extrapolation_split": a4_extrapolation_split.TASKS,
    "A5_mcnemar_power": a5_mcnemar_power.TASKS,
    "A6_online_code": a6_online_code.TASKS,
}


def tasks_of(assignment: str) -> tuple[GradedTask, ...]:
    """The graded tasks of an assignment, by its name (``"A1_tree_metrics"``).

    Raises:
        ProbekitError: for a name that is not one of :data:`ASSIGNMENT_TASKS`.
    """
    try:
        return ASSIGNMENT_TASKS[assignment]
    except KeyError:
        raise ProbekitError(
            f"unknown assignment '{assignment}'",
            hint="one of " + ", ".join(ASSIGNMENT_TASKS),
        ) from None


def max_points(assignment: str) -> int:
    """The points an assignment is worth: the sum of its tasks' points."""
    return sum(task.points for task in tasks_of(assignment))
