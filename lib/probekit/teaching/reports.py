"""The reports of a grading run: the result files, the summary and each student's feedback.

A grading run writes into its results directory (:func:`write_results`):

- ``grades.csv``: one row per student, assignment and task (a :class:`.grades.TaskGrade`:
  points, maximum, status, the check's message and hint);
- ``totals.csv``: points per student and assignment;
- ``summary.csv``: per task, the share of students who passed, how many got each status, and
  the most common specific hint (:func:`summarise`; :func:`summary_table` prints it);
- ``unmatched.csv``: every notebook that was not graded (a misnamed file, a bad student id, a
  duplicate), why, and the name it probably should have; each also has a row in ``grades.csv``;
- ``seeds.csv`` and ``settings.json``: every student's seed, the course seed and the limits;
- ``runs.csv``: per submission, wall time and peak memory (the only file that differs between
  two runs of the same class);
- ``feedback/<student>.md``: the report a student reads (:func:`feedback_markdown`).
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from probekit.teaching.catalogue import tasks_of
from probekit.teaching.grades import FILE_STATUSES, STATUSES, RunInfo, TaskGrade
from probekit.teaching.submissions import FileProblem, usable_id

_GRADES_COLUMNS = tuple(f.name for f in fields(TaskGrade))
_RUNS_COLUMNS = tuple(f.name for f in fields(RunInfo))
_TOTALS_COLUMNS = ("student", "assignment", "points", "max_points", "seed")
_SEEDS_COLUMNS = ("student", "seed")
#: The warning every feedback file carries when grading ran without the sandbox.
NO_SANDBOX_WARNING = (
    "This submission was graded with --no-sandbox: its code ran without isolation, so these "
    "grades are only as trustworthy as the code graded."
)
_UNMATCHED_COLUMNS = ("file", "student", "assignment", "status", "reason", "did_you_mean")


@dataclass
class GradingResult:
    """What :func:`probekit.teaching.grading.grade_submissions` graded and wrote.

    Attributes:
        out: the results directory.
        grades: one :class:`TaskGrade` per student, assignment and task, sorted.
        runs: one :class:`RunInfo` per submission.
        summary: the rows of ``summary.csv`` (see :func:`summarise`).
        seeds: student id -> seed.
        skipped: files of the submissions directory that are no notebook.
        problems: the notebooks that were not graded, and why.
        sandboxed: whether the submissions ran in the sandbox (False with ``--no-sandbox``).
        seconds: the wall time of the whole run.
        startup_seconds: the wall time until the grading processes were ready.
    """

    out: Path
    grades: list[TaskGrade]
    runs: list[RunInfo]
    summary: list[dict]
    seeds: dict[str, int]
    skipped: list[Path] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    sandboxed: bool = True
    seconds: float = 0.0
    startup_seconds: float = 0.0

    def totals(self) -> list[dict]:
        """Points per student and assignment: the rows of ``totals.csv``."""
        out: dict[tuple[str, str], list[int]] = {}
        for g in self.grades:
            if g.status in FILE_STATUSES:
                continue
            entry = out.setdefault((g.student, g.assignment), [0, 0])
            entry[0] += g.points
            entry[1] += g.max_points
        return [
            {"student": s, "assignment": a, "points": p, "max_points": m, "seed": self.seeds[s]}
            for (s, a), (p, m) in sorted(out.items())
        ]


def summarise(grades: Sequence[TaskGrade]) -> list[dict]:
    """Per assignment and task: how many students passed, each status's count, the top hint.

    Rows of files that were not graded are left out.

    Returns:
        Rows with ``assignment, number, task, max_points, submissions, passed,
        share_passed`` (in [0, 1]), ``mean_points``, ``statuses`` (``"passed 3, failed 1"``,
        in the order of :data:`.grades.STATUSES`), ``most_common_hint`` and ``hint_count``. The
        hint is the most common specific one, a check's hint on what the function got wrong,
        among the students who did not pass (on a tie, the alphabetically first); a generic
        reason ("ran past the time limit") only when no student got a specific hint.
    """
    by_task: dict[tuple[str, int, str], list[TaskGrade]] = {}
    for g in grades:
        if g.status not in FILE_STATUSES:
            by_task.setdefault((g.assignment, g.number, g.task), []).append(g)
    generic = set(STATUSES.values())
    rows = []
    for (assignment, number, task), group in sorted(by_task.items()):
        passed = sum(g.status == "passed" for g in group)
        hints = Counter(g.hint for g in group if g.status != "passed")
        specific = {h: n for h, n in hints.items() if h not in generic}
        pool = specific or hints
        hint, count = min(pool.items(), key=lambda kv: (-kv[1], kv[0])) if pool else ("", 0)
        counts = Counter(g.status for g in group)
        rows.append(
            {
                "assignment": assignment,
                "number": number,
                "task": task,
                "max_points": group[0].max_points,
                "submissions": len(group),
                "passed": passed,
                "share_passed": round(passed / len(group), 4),
                "mean_points": round(sum(g.points for g in group) / len(group), 4),
                "statuses": _counts(counts),
                "most_common_hint": hint,
                "hint_count": count,
            }
        )
    return rows


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{s} {counts[s]}" for s in STATUSES if counts.get(s))


def summary_table(rows: Sequence[dict], width: int = 100) -> str:
    """The summary as a plain-text table, hints cut to fit ``width`` characters.

    Each task's row gives its passes and the most common specific hint, the line below it how
    many got each status; the last line counts each status over every task.
    """
    head = f"{'assignment':<26} {'task':<24} {'passed':>7} {'share':>6}  most common hint"
    lines = [head, "-" * min(width, max(len(head), 80))]
    total: Counter = Counter()
    for r in rows:
        left = (
            f"{r['assignment']:<26} {str(r['number']) + ' ' + r['task']:<24} "
            f"{str(r['passed']) + '/' + str(r['submissions']):>7} {r['share_passed']:>6.0%}  "
        )
        hint = r["most_common_hint"]
        if hint:
            hint = f"({r['hint_count']}x) {hint}"
        room = max(20, width - len(left))
        lines.append(left + (hint if len(hint) <= room else hint[: room - 3] + "..."))
        lines.append(" " * 27 + r["statuses"])
        for part in filter(None, r["statuses"].split(", ")):
            status, count = part.rsplit(" ", 1)
            total[status] += int(count)
    lines.append("statuses over all tasks: " + (_counts(total) or "none"))
    return "\n".join(lines)


def feedback_markdown(
    student: str, grades: Sequence[TaskGrade], seed: int, sandboxed: bool = True
) -> str:
    """A student's feedback: points per task and assignment, the total, and why tasks failed.

    Files of the student's that were not graded come first, with the name they should have;
    without the sandbox, a warning says so.
    """
    by_assignment: dict[str, list[TaskGrade]] = {}
    files = [g for g in grades if g.status in FILE_STATUSES]
    for g in grades:
        if g.status not in FILE_STATUSES:
            by_assignment.setdefault(g.assignment, []).append(g)
    total = sum(g.points for g in grades)
    out = [
        f"# Feedback for {student}",
        "",
        f"Your checks drew their cases from your own seed, **{seed}**. To see a failed case in "
        "your notebook, run the check line given below it: it draws the same cases.",
        "",
        f"**Total: {total} / {sum(g.max_points for g in grades)} points**",
        "",
    ]
    if not sandboxed:
        out[1:1] = ["", f"> **Warning.** {NO_SANDBOX_WARNING}"]
    for g in files:
        out += [f"**Not graded:** {g.message}", ""]
    for assignment, group in by_assignment.items():
        got, of = sum(g.points for g in group), sum(g.max_points for g in group)
        out += [
            f"## {assignment}: {got} / {of} points",
            "",
            "| task | function | points | result |",
            "|---|---|---|---|",
        ]
        for g in group:
            out.append(f"| {g.number} | `{g.task}` | {g.points} / {g.max_points} | {_result(g)} |")
        out.append("")
        checks = {t.number: t.check.__name__ for t in tasks_of(assignment)}
        for g in group:
            if g.status == "passed":
                continue
            # A fence longer than any run of backticks in the message keeps it one block.
            fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", g.message)), default=0))
            out += [f"### Task {g.number}: `{g.task}`, {_result(g)}", "", fence + "text"]
            out += [g.message, fence, ""]
            if g.status in ("failed", "raised"):
                out += [
                    f"Reproduce it: `teaching.{checks[g.number]}({g.task}, seed={g.seed})`.",
                    "",
                ]
    out += [
        "---",
        "",
        "How grading works: your notebook's code cells up to the run-and-interpret task run "
        "from top to bottom in a sandbox of their own, without network access and with time "
        "and memory limits; a cell that raises an error costs the points of its task (a cell "
        "before Task 1 costs every task). Then each task's check draws its cases, sends them to "
        "your function in the sandbox and compares what it returns with the expected values.",
        "",
    ]
    return "\n".join(out)


def _result(grade: TaskGrade) -> str:
    return "passed" if grade.status == "passed" else f"{grade.status}: {STATUSES[grade.status]}"


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row[c] for c in columns})


def write_results(result: GradingResult, settings: Mapping[str, Any]) -> None:
    """Write the result files of a grading run into ``result.out``.

    They are ``grades.csv``, ``totals.csv``, ``summary.csv``, ``seeds.csv``, ``runs.csv``,
    ``settings.json`` and ``feedback/<student>.md``. Old feedback files in ``feedback/`` are
    removed first, so that none is left from a student who is no longer graded.
    """
    out = result.out
    out.mkdir(parents=True, exist_ok=True)
    _write_csv(out / "grades.csv", [asdict(g) for g in result.grades], _GRADES_COLUMNS)
    _write_csv(out / "totals.csv", result.totals(), _TOTALS_COLUMNS)
    if result.summary:
        _write_csv(out / "summary.csv", result.summary, list(result.summary[0]))
    seeds = [{"student": s, "seed": v} for s, v in sorted(result.seeds.items())]
    _write_csv(out / "seeds.csv", seeds, _SEEDS_COLUMNS)
    unmatched = [
        {
            "file": g.task,
            "student": g.student,
            "assignment": g.assignment,
            "status": g.status,
            "reason": p.reason,
            "did_you_mean": p.suggestion,
        }
        for g, p in zip(
            sorted((g for g in result.grades if g.status in FILE_STATUSES), key=lambda g: g.task),
            sorted(result.problems, key=lambda p: str(p.path)),
            strict=True,
        )
    ]
    _write_csv(out / "unmatched.csv", unmatched, _UNMATCHED_COLUMNS)
    runs = [asdict(r) | {"seconds": f"{r.seconds:.3f}"} for r in result.runs]
    runs = [r | {"max_rss_mib": f"{r['max_rss_mib']:.1f}"} for r in runs]
    _write_csv(out / "runs.csv", runs, _RUNS_COLUMNS)
    (out / "settings.json").write_text(json.dumps(dict(settings), indent=2) + "\n")
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    for old in feedback.glob("*.md"):
        old.unlink()
    by_student: dict[str, list[TaskGrade]] = {}
    for g in result.grades:
        by_student.setdefault(g.student, []).append(g)
    for student, grades in by_student.items():
        if not usable_id(student):
            continue  # reported in unmatched.csv; no safe file name for its feedback
        text = feedback_markdown(student, grades, result.seeds[student], result.sandboxed)
        (feedback / f"{student}.md").write_text(text, encoding="utf-8")
