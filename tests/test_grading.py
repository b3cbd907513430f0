"""Tests of the batch grader (probekit.teaching.grading and the modules it runs).

Two grading runs, each a few seconds per submission (a sandbox's start and the modules its
notebook imports): the fixture class of tests/fixtures/submissions (a correct, a partly wrong,
a raising, an endlessly looping, an unboundedly allocating, an escaping and a malformed
submission) joined by the hostile class of tests/fixtures/hostile_class.py (one submission per
way to get points without work), graded by one command; and a re-grade of the class with the
recorded seeds, joined by the notebooks' own solutions. The rest are unit tests.

The sandbox needs bubblewrap (``bwrap``). Without it these tests skip, with the reason, except
where PROBEKIT_REQUIRE_SANDBOX=1 (set by .ci/run, which installs it), where that is a failure.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import jupytext
import numpy as np
import pytest

from fixtures.hostile_class import CANARY_NAME, ESCAPE_MARKER, write_hostile
from fixtures.submission_class import SOURCES, write_class
from probekit import teaching as A
from probekit.cli import main as cli_main
from probekit.errors import ParameterError, ProbekitError
from probekit.teaching import sandbox
from probekit.teaching.cells import TaskCell, compile_cell, task_cells
from probekit.teaching.codec import CodecError, Unsupported, dumps, loads
from probekit.teaching.grades import STATUSES, TaskGrade, hint_of
from probekit.teaching.references import REFERENCES, static_check, write_sandbox_library
from probekit.teaching.worker import imported_modules

REPO = Path(__file__).resolve().parents[1]
CLASS = SOURCES  # the class without its two notebooks, which write_class adds
NOTEBOOKS = sorted((REPO / "notebooks").glob("A[0-9]*_*.py"))
TIME_LIMIT, MEMORY_LIMIT = 2.0, 256
# The re-grade also runs every notebook's reference solutions (A5's power simulation among them),
# which may need more than 2 s of wall time on a loaded machine; it has no endless loop to wait on.
REGRADE_TIME_LIMIT = 60.0
TMP = Path(tempfile.gettempdir())
# Directories whose files change while the tests run, whoever runs them.
UNHASHED = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "_build"}

A4 = "A4_extrapolation_split"
HOSTILE = [
    "hostile-compare",
    "hostile-escape",
    "hostile-forge",
    "hostile-frames",
    "hostile-kill",
    "hostile-patch",
    "hostile-read",
    "hostile-reference",
    "hostile-write",
]
# (student, assignment, task) -> (status, points); see tests/fixtures/submissions/README.md.
EXPECTED = {
    ("alice", "A1_tree_metrics", "prim"): ("passed", 4),
    ("alice", "A1_tree_metrics", "uuas"): ("passed", 3),
    ("alice", "A1_tree_metrics", "perceptron_loss"): ("passed", 3),
    ("alice", A4, "percentile"): ("passed", 3),
    ("alice", A4, "frequency_score"): ("passed", 3),
    ("alice", A4, "extrapolation_split"): ("passed", 4),
    ("bob", A4, "percentile"): ("failed", 0),
    ("bob", A4, "frequency_score"): ("passed", 3),
    ("bob", A4, "extrapolation_split"): ("failed", 0),
    ("carol", A4, "percentile"): ("passed", 3),
    ("carol", A4, "frequency_score"): ("error", 0),
    ("carol", A4, "extrapolation_split"): ("error", 0),
    ("dave", A4, "percentile"): ("timeout", 0),
    ("dave", A4, "frequency_score"): ("passed", 3),
    ("dave", A4, "extrapolation_split"): ("timeout", 0),
    ("erin", A4, "percentile"): ("passed", 3),
    ("erin", A4, "frequency_score"): ("memory", 0),
    ("erin", A4, "extrapolation_split"): ("passed", 4),
    # Frank's writes land in his sandbox's own /tmp and harm nothing; his network call raises.
    ("frank", A4, "percentile"): ("passed", 3),
    ("frank", A4, "frequency_score"): ("passed", 3),
    ("frank", A4, "extrapolation_split"): ("raised", 0),
    ("grace", A4, "percentile"): ("malformed", 0),
    ("grace", A4, "frequency_score"): ("malformed", 0),
    ("grace", A4, "extrapolation_split"): ("malformed", 0),
}
# The statuses of the hostile submissions where they are certain; every one scores 0.
HOSTILE_STATUSES = {
    ("hostile-forge", "percentile"): "refused",
    ("hostile-reference", "percentile"): "refused",
    ("hostile-reference", "frequency_score"): "raised",
    ("hostile-reference", "extrapolation_split"): "raised",
}
# Words the message of a task must contain, where it matters what the student reads.
MESSAGES = {
    ("bob", "percentile"): ["input:", "expected:", "got:", "does not interpolate"],
    ("bob", "extrapolation_split"): ["input:", "expected:", "got:", "hint:"],
    ("carol", "frequency_score"): ["raised NameError", "train_forms", "<cell"],
    ("carol", "extrapolation_split"): ["not valid Python", "never closed"],
    ("dave", "percentile"): [f"did not finish within {TIME_LIMIT:g} s"],
    ("erin", "frequency_score"): [f"ran out of memory (limit {MEMORY_LIMIT} MiB)"],
    ("frank", "extrapolation_split"): ["your function raised", "socket.create_connection"],
    ("grace", "percentile"): ["not valid JSON"],
    ("hostile-forge", "percentile"): ["wrote to the grader's channel"],
    ("hostile-reference", "percentile"): ["probekit.methods.extrapolation.splits.percentile"],
    ("hostile-reference", "frequency_score"): ["not available while grading"],
}


def require_sandbox() -> None:
    """Skip (fail under PROBEKIT_REQUIRE_SANDBOX=1) where bubblewrap is not installed."""
    if sandbox.find_bwrap() is not None:
        return
    reason = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    if os.environ.get("PROBEKIT_REQUIRE_SANDBOX") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def tree_state() -> dict[str, str]:
    """Path -> sha256 of every file of the project tree (caches and .git aside)."""
    state = {}
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in UNHASHED]
        for name in files:
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                state[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


def tmp_entries() -> set[str]:
    """The grader's own entries of the temporary directory (other programs use it meanwhile)."""
    return {p.name for p in TMP.iterdir() if p.name.startswith(("probekit-grading", CANARY_NAME))}


def escaped_processes() -> list[str]:
    """Command lines of live processes that the escaping submission started."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if ESCAPE_MARKER in text:
                found.append(text)
    return found


def canaries() -> list[Path]:
    """Files the hostile submissions tried to create outside their sandboxes."""
    places = [TMP, REPO, Path.home(), Path("/")]
    return [p for place in places for p in place.glob(f"{CANARY_NAME}*")]


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue() + err.getvalue(), time.perf_counter() - start


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The fixture class and the hostile class graded by one command; the disk around it."""
    require_sandbox()
    before, tmp_before = tree_state(), tmp_entries()
    klass = write_class(tmp_path_factory.mktemp("handed-in") / "class")
    write_hostile(klass)
    out = tmp_path_factory.mktemp("results")
    tmp_before |= tmp_entries()
    argv = ["assignments", "--grade", str(klass), "--out", str(out), "--course-seed", "7"]
    argv += ["--time-limit", f"{TIME_LIMIT:g}", "--memory-limit", str(MEMORY_LIMIT)]
    code, output, seconds = run_cli(argv)
    return {
        "code": code,
        "output": output,
        "seconds": seconds,
        "out": out,
        "class": klass,
        "changed": sorted(set(before.items()) ^ set(tree_state().items())),
        "new_tmp": tmp_entries() - tmp_before,
        "escaped": escaped_processes(),
        "canaries": canaries(),
    }


# --------------------------------------------------------------------------------------------
# The fixture class and the hostile class


def test_the_fixture_class_gets_the_expected_grades(graded):
    assert graded["code"] == 0, graded["output"]
    rows = read_csv(graded["out"] / "grades.csv")
    got = {
        (r["student"], r["assignment"], r["task"]): (r["status"], int(r["points"]))
        for r in rows
        if not r["student"].startswith("hostile-")
    }
    assert got == EXPECTED
    by_task = {(r["student"], r["task"]): r for r in rows}
    for key, needles in MESSAGES.items():
        for needle in needles:
            assert needle in by_task[key]["message"], (key, needle, by_task[key]["message"])
    assert by_task[("bob", "percentile")]["hint"].startswith("the paper's percentile")
    assert all(r["message"] == r["hint"] == "" for r in rows if r["status"] == "passed")
    assert {int(r["max_points"]) for r in rows if r["task"] == "extrapolation_split"} == {4}
    assert "skipped README.md: not a notebook" in graded["output"]


def test_every_hostile_submission_scores_nothing(graded):
    rows = read_csv(graded["out"] / "grades.csv")
    hostile = [r for r in rows if r["student"].startswith("hostile-")]
    assert sorted({r["student"] for r in hostile}) == HOSTILE
    assert len(hostile) == 3 * len(HOSTILE)
    bad = [(r["student"], r["task"], r["status"]) for r in hostile if r["points"] != "0"]
    assert not bad, f"hostile submissions earned points: {bad}"
    assert all(r["status"] != "passed" for r in hostile)
    for (student, task), status in HOSTILE_STATUSES.items():
        (row,) = [r for r in hostile if (r["student"], r["task"]) == (student, task)]
        assert row["status"] == status, row
    # The one that signalled the grader and every process it saw stopped nobody's grading.
    runs = read_csv(graded["out"] / "runs.csv")
    assert len(runs) == 8 + len(HOSTILE)


def test_every_student_gets_a_recorded_seed_of_their_own(graded):
    seeds = {r["student"]: int(r["seed"]) for r in read_csv(graded["out"] / "seeds.csv")}
    students = "alice bob carol dave erin frank grace".split() + HOSTILE
    assert seeds == {s: A.student_seed(7, s) for s in students}
    assert len(set(seeds.values())) == len(seeds)
    for row in read_csv(graded["out"] / "grades.csv"):
        assert int(row["seed"]) == seeds[row["student"]]


def test_totals_summary_and_feedback(graded):
    out = graded["out"]
    totals = {
        (r["student"], r["assignment"]): int(r["points"]) for r in read_csv(out / "totals.csv")
    }
    assert totals[("alice", "A1_tree_metrics")] == totals[("alice", A4)] == 10
    assert [totals[(s, A4)] for s in "bob carol dave erin frank grace".split()] == [
        3,
        3,
        3,
        7,
        6,
        0,
    ]
    assert all(totals[(s, A4)] == 0 for s in HOSTILE)
    summary = {(r["assignment"], r["task"]): r for r in read_csv(out / "summary.csv")}
    percentile = summary[(A4, "percentile")]
    assert (percentile["passed"], percentile["submissions"]) == ("4", str(7 + len(HOSTILE)))
    # The most common *specific* hint: the checks' own hints beat "ran past the time limit".
    assert percentile["most_common_hint"] not in STATUSES.values()
    assert "passed 4" in percentile["statuses"] and "timeout 1" in percentile["statuses"]
    assert "most common hint" in graded["output"]
    assert "statuses over all tasks: passed " in graded["output"]
    feedback = sorted(p.stem for p in (out / "feedback").glob("*.md"))
    assert feedback == sorted("alice bob carol dave erin frank grace".split() + HOSTILE)
    bob = (out / "feedback" / "bob.md").read_text()
    assert "**Total: 3 / 10 points**" in bob and "does not interpolate" in bob
    assert f"teaching.check_percentile(percentile, seed={A.student_seed(7, 'bob')})" in bob
    assert "--no-sandbox" not in bob
    assert "**Total: 20 / 20 points**" in (out / "feedback" / "alice.md").read_text()
    assert "ran out of memory" in (out / "feedback" / "erin.md").read_text()


def test_the_run_stays_within_its_limits_and_touches_nothing_outside(graded):
    assert not graded["changed"], f"files of the project tree changed: {graded['changed'][:5]}"
    assert not graded["new_tmp"], f"left behind in {TMP}: {graded['new_tmp']}"
    assert not graded["canaries"], f"written outside the sandbox: {graded['canaries']}"
    assert not graded["escaped"], f"processes outlived the run: {graded['escaped']}"
    runs = {r["student"] + "/" + r["assignment"]: r for r in read_csv(graded["out"] / "runs.csv")}
    for key, run in runs.items():
        if key.startswith("grace/"):
            assert run["outcome"] == "not started"
        elif key.startswith("hostile-forge/"):
            assert run["outcome"] == "stopped (refused)"
        else:
            assert run["outcome"] == "finished", (key, run)
    # The endless loop costs its two tasks' time limit, not more.
    dave = runs[f"dave/{A4}"]
    assert 2 * TIME_LIMIT <= float(dave["seconds"]) < 3 * TIME_LIMIT + 30
    assert graded["seconds"] < 600


def page_rows(first_cell: str) -> list[list[str]]:
    """The cells of the rows of book/assignments.md's tables whose first cell is given."""
    rows = []
    for line in (REPO / "book" / "assignments.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            rows.append(cells)
    return rows


def test_the_book_page_shows_this_run(graded):
    """The example tables of the "Teaching with the assignments" page are this run's."""
    rows = read_csv(graded["out"] / "grades.csv")
    for student in "alice bob carol dave erin frank grace".split() + HOSTILE:
        mine = [r for r in rows if r["student"] == student and r["assignment"] == A4]
        (shown,) = page_rows(student)
        assert shown[1:] == [f"{r['points']} {r['status']}" for r in mine] + [
            str(sum(int(r["points"]) for r in mine))
        ]
    for r in read_csv(graded["out"] / "summary.csv"):
        if r["assignment"] != A4:
            continue
        (shown,) = page_rows(f"{r['number']} `{r['task']}`")
        share = f"{float(r['share_passed']):.0%}".replace("%", " %")
        assert shown[1:] == [f"{r['passed']} / {r['submissions']}", share, r["most_common_hint"]]
    bob = next(r for r in rows if r["student"] == "bob" and r["task"] == "percentile")
    page = (REPO / "book" / "assignments.md").read_text()
    assert bob["message"] in page and f"seed={bob['seed']}" in page


# --------------------------------------------------------------------------------------------
# Re-grading with the recorded seeds


def test_regrading_with_the_recorded_seeds_reproduces_the_grades(graded, tmp_path):
    """Byte-identical rows for every re-graded student; the notebooks' solutions pass."""
    first = (graded["out"] / "grades.csv").read_text().splitlines()
    again = tmp_path / "class"
    shutil.copytree(graded["class"], again)
    # The endless loop's message names the time limit, which the re-grade raises.
    for path in again.glob("dave__*"):
        path.unlink()
    (again / "teacher").mkdir()
    for notebook in NOTEBOOKS:
        shutil.copy(notebook, again / "teacher" / notebook.name)
    out = tmp_path / "results"
    argv = ["assignments", "--grade", str(again), "--out", str(out), "--course-seed", "99"]
    argv += ["--seeds", str(graded["out"] / "seeds.csv"), "--jobs", "2"]
    argv += ["--time-limit", f"{REGRADE_TIME_LIMIT:g}", "--memory-limit", str(MEMORY_LIMIT)]
    code, output, _ = run_cli(argv)
    assert code == 0, output
    assert "no recorded seed for 1 students, derived from course seed 99" in output
    lines = (out / "grades.csv").read_text().splitlines()
    regraded = [line for line in lines if not line.startswith(("teacher,", "student,"))]
    expected = [line for line in first if not line.startswith(("dave,", "student,"))]
    assert regraded == expected
    rows = read_csv(out / "grades.csv")
    teacher = [r for r in rows if r["student"] == "teacher"]
    assert len(teacher) == sum(len(t) for t in A.ASSIGNMENT_TASKS.values())
    assert {r["status"] for r in teacher} == {"passed"}, [r for r in teacher if r["message"]]
    assert int(teacher[0]["seed"]) == A.student_seed(99, "teacher")


# --------------------------------------------------------------------------------------------
# Files that are not graded, and grading without the sandbox


def test_misnamed_files_bad_ids_and_duplicates_are_listed_and_skip_only_themselves(tmp_path):
    require_sandbox()
    copy = A.student_source((REPO / "notebooks" / f"{A4}.py").read_text())
    klass = tmp_path / "class"
    names = [
        f"ann__{A4}.py",  # graded
        f"smithjane_12345_67890_{A4}.py",  # Canvas
        f"smithjane_LATE_12345_67890_{A4}-1.py",  # Canvas, late, resubmitted
        f"ben__{A4} (1).py",  # a browser's second download
        f"cat_{A4}.py",  # a single underscore
        "dan__A4_extrapolaton_split.py",  # a typo
        f"no id__{A4}.py",  # a bad id
        f"eve__{A4}.py",  # a duplicate, with eve/...
        f"eve/{A4}.py",
    ]
    for name in names:
        write(klass / name, copy)
    out = tmp_path / "results"
    code, output, _ = run_cli(["assignments", "--grade", str(klass), "--out", str(out)])
    assert code == 0, output
    rows = read_csv(out / "grades.csv")
    graded = {r["student"] for r in rows if r["status"] not in ("unmatched", "rejected")}
    assert graded == {"ann"}
    assert {r["status"] for r in rows if r["student"] == "ann"} == {"unsolved"}
    unmatched = {r["file"]: r for r in read_csv(out / "unmatched.csv")}
    assert len(unmatched) == len(names) - 1
    assert len([r for r in rows if r["status"] in ("unmatched", "rejected")]) == len(names) - 1
    mean = {name: r["did_you_mean"] for name, r in unmatched.items()}
    assert mean[f"smithjane_12345_67890_{A4}.py"] == f"smithjane__{A4}.py"
    assert mean[f"smithjane_LATE_12345_67890_{A4}-1.py"] == f"smithjane__{A4}.py"
    assert mean[f"ben__{A4} (1).py"] == f"ben__{A4}.py"
    assert mean[f"cat_{A4}.py"] == f"cat__{A4}.py"
    assert mean["dan__A4_extrapolaton_split.py"] == f"dan__{A4}.py"
    assert "Canvas" in unmatched[f"smithjane_12345_67890_{A4}.py"]["reason"]
    assert "single underscore" in unmatched[f"cat_{A4}.py"]["reason"]
    assert "not a usable student id" in unmatched[f"no id__{A4}.py"]["reason"]
    assert unmatched[f"eve/{A4}.py"]["status"] == "rejected"
    assert "two submissions" in unmatched[f"eve__{A4}.py"]["reason"]
    # Every problem is printed, not just the first.
    for name in names[1:]:
        assert name in output, name
    assert "did you mean cat__" in output
    assert "Not graded" in (out / "feedback" / "cat.md").read_text()
    assert not (out / "feedback" / "no id.md").exists()


def test_grading_refuses_without_bubblewrap_and_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    write(tmp_path / "class" / f"ann__{A4}.py", "")
    with pytest.raises(ProbekitError, match="bubblewrap") as info:
        A.grade_submissions(tmp_path / "class", tmp_path / "results", progress=False)
    assert "apt-get install bubblewrap" in str(info.value.hint)
    assert "--no-sandbox" in str(info.value.hint)
    assert not (tmp_path / "results").exists()


def test_no_sandbox_grades_and_warns_in_every_feedback(tmp_path):
    copy = A.student_source((REPO / "notebooks" / f"{A4}.py").read_text())
    write(tmp_path / "class" / f"ann__{A4}.py", copy)
    out = tmp_path / "results"
    argv = ["assignments", "--grade", str(tmp_path / "class"), "--out", str(out), "--no-sandbox"]
    code, output, _ = run_cli(argv)
    assert code == 0, output
    assert "without isolation" in output
    assert "--no-sandbox" in (out / "feedback" / "ann.md").read_text()
    assert {r["status"] for r in read_csv(out / "grades.csv")} == {"unsolved"}


# --------------------------------------------------------------------------------------------
# Unit tests


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_find_submissions_reads_both_layouts(tmp_path):
    write(tmp_path / "ann" / "A1_tree_metrics.py")
    write(tmp_path / "ann" / "notes.txt")
    write(tmp_path / f"ben__{A4}.ipynb")
    write(tmp_path / "ben__A9_unknown.py")
    write(tmp_path / ".DS_Store")
    write(tmp_path / "ann" / ".ipynb_checkpoints" / "A1_tree_metrics-checkpoint.py")
    found, problems, skipped = A.find_submissions(tmp_path)
    assert [(s.student, s.assignment, s.path.name) for s in found] == [
        ("ann", "A1_tree_metrics", "A1_tree_metrics.py"),
        ("ben", A4, f"ben__{A4}.ipynb"),
    ]
    assert [(p.path.name, p.status) for p in problems] == [("ben__A9_unknown.py", "unmatched")]
    assert [p.name for p in skipped] == ["notes.txt"]


def test_find_submissions_lists_every_problem_and_keeps_the_rest(tmp_path):
    with pytest.raises(ProbekitError, match="no such directory"):
        A.find_submissions(tmp_path / "nowhere")
    with pytest.raises(ProbekitError, match="no submissions"):
        A.find_submissions(tmp_path)
    write(tmp_path / "ann" / "A1_tree_metrics.py")
    write(tmp_path / "ann__A1_tree_metrics.ipynb")
    write(tmp_path / "no id" / "A1_tree_metrics.py")
    write(tmp_path / "bo b__A1_tree_metrics.py")
    write(tmp_path / "cy" / "A1_tree_metrics.py")
    found, problems, _ = A.find_submissions(tmp_path)
    assert [s.student for s in found] == ["cy"]
    reasons = {str(p.path.relative_to(tmp_path)): p.reason for p in problems}
    assert set(reasons) == {
        "ann/A1_tree_metrics.py",
        "ann__A1_tree_metrics.ipynb",
        "no id/A1_tree_metrics.py",
        "bo b__A1_tree_metrics.py",
    }
    assert "two submissions of A1_tree_metrics by 'ann'" in reasons["ann__A1_tree_metrics.ipynb"]
    assert "'no id' is not a usable student id" in reasons["no id/A1_tree_metrics.py"]


def test_student_seeds_are_stable_distinct_and_depend_on_the_course_seed():
    seeds = [A.student_seed(0, f"s{k}") for k in range(200)]
    assert len(set(seeds)) == 200 and all(0 <= s < 2**31 for s in seeds)
    assert A.student_seed(0, "ann") == A.student_seed(0, "ann") != A.student_seed(1, "ann")


def test_read_seeds(tmp_path):
    good = write(tmp_path / "seeds.csv", "student,seed\nann,12\nben,7\n")
    assert A.read_seeds(good) == {"ann": 12, "ben": 7}
    with pytest.raises(ProbekitError, match=r"seeds\.csv:3: seed '-1'"):
        A.read_seeds(write(tmp_path / "seeds.csv", "student,seed\nann,12\nben,-1\n"))
    with pytest.raises(ProbekitError, match="columns"):
        A.read_seeds(write(tmp_path / "other.csv", "name,value\n"))
    with pytest.raises(ProbekitError, match="no such seeds file"):
        A.read_seeds(tmp_path / "missing.csv")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"time_limit": 0}, "time_limit"),
        ({"memory_limit": 2}, "memory_limit"),
        ({"jobs": 0}, "jobs"),
        ({"course_seed": -1}, "course_seed"),
        ({"n_cases": 0}, "n_cases"),
    ],
)
def test_bad_grading_options_raise_parameter_errors(tmp_path, kwargs, name):
    with pytest.raises(ParameterError, match=name):
        A.grade_submissions(CLASS, tmp_path, **kwargs)


def test_results_inside_the_submissions_are_refused(tmp_path):
    write(tmp_path / "ann" / "A1_tree_metrics.py")
    with pytest.raises(ProbekitError, match="inside the submissions"):
        A.grade_submissions(tmp_path, tmp_path / "results")


def test_cli_grade_needs_out(capsys):
    assert cli_main(["assignments", "--grade", str(CLASS)]) == 2
    assert "--grade needs --out" in capsys.readouterr().err


def test_task_cells_follow_the_task_headings_and_stop_before_the_experiments():
    nb = jupytext.reads(A.student_source(NOTEBOOKS[3].read_text()), fmt="py:percent")
    cells = task_cells(nb)
    sections = [c.section for c in cells]
    assert sections == sorted(sections) and sections[0] == 0 and max(sections) == 3
    assert not any("load_treebank" in c.source for c in cells)
    assert any("teaching.check_percentile" in c.source for c in cells)


def test_compile_cell_leaves_out_check_calls_and_magics():
    cell = TaskCell(0, 1, "%matplotlib inline\nx = 1\nteaching.check_prim(f)\ncheck_uuas(g)\n")
    namespace: dict = {}
    exec(compile_cell(cell, "<cell 1>"), namespace)  # no NameError: the calls are gone
    assert namespace["x"] == 1
    with pytest.raises(SyntaxError):
        compile_cell(TaskCell(0, 1, "def f(:\n"), "<cell 1>")
    assert compile_cell(TaskCell(0, 1, "%%time\nwhile True: pass\n"), "<c>")


def test_hint_of_reads_the_last_hint_line():
    message = "x: wrong\n  input:  1\n  hint:      first\n  hint:      use int(q * n)."
    assert hint_of(message) == "use int(q * n)."
    assert hint_of("no hint here") == ""


def grade(student, task, status, hint):
    return TaskGrade(student, A4, 1, task, 0, 3, status, 0, hint, "")


def test_summary_shows_the_most_common_specific_hint_and_counts_each_status():
    grades = [
        grade("a", "percentile", "timeout", STATUSES["timeout"]),
        grade("b", "percentile", "failed", "zzz: truncate the index"),
        grade("c", "percentile", "failed", "zzz: truncate the index"),
        grade("d", "percentile", "unsolved", STATUSES["unsolved"]),
        grade("e", "percentile", "unsolved", STATUSES["unsolved"]),
        grade("f", "percentile", "unsolved", STATUSES["unsolved"]),
        TaskGrade("g", "", 0, "g_A4.py", 0, 0, "unmatched", 0, STATUSES["unmatched"], ""),
    ]
    (row,) = A.summarise(grades)
    assert row["most_common_hint"] == "zzz: truncate the index" and row["hint_count"] == 2
    assert row["passed"] == 0 and row["submissions"] == 6
    assert row["statuses"] == "failed 2, unsolved 3, timeout 1"
    table = A.summary_table([row])
    assert "(2x) zzz: truncate the index" in table
    assert "statuses over all tasks: failed 2, unsolved 3, timeout 1" in table


def test_points_are_declared_per_task_and_match_the_notebooks():
    assert set(A.ASSIGNMENT_TASKS) == {p.stem for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        tasks = A.tasks_of(path.stem)
        module = __import__(f"probekit.teaching.{path.stem.lower()}", fromlist=["POINTS"])
        assert dict(module.POINTS) == {t.function: t.points for t in tasks}
        assert sum(t.points for t in tasks) == 10
        cells = task_cells(jupytext.read(path))
        for task in tasks:
            calls = [
                c.source
                for c in cells
                if c.section == task.number and f"teaching.{task.check.__name__}(" in c.source
            ]
            assert calls == [
                f"teaching.{task.check.__name__}({task.function}, seed=seed, n_cases=n_cases)"
            ]
            assert any(
                f"def {task.function}(" in c.source for c in cells if c.section == task.number
            )


def test_the_worker_preloads_the_imports_of_the_task_cells():
    cells = task_cells(jupytext.read(REPO / "notebooks" / f"{A4}.py"))
    names = imported_modules(cells)
    assert names[:3] == ["collections", "collections.Counter", "numpy"]
    assert {"probekit.methods.pareto", "probekit.methods.pareto.lookups"} <= set(names)


def test_codec_round_trips_plain_data_and_refuses_the_rest():
    value = {
        "a": [1, 2.5, float("nan"), None, True, "x"],
        "t": (np.arange(3), np.float32(1.5), {1, 2}, frozenset({"z"}), b"\x00"),
        3: np.array(["ab", "c"]),
        "o": np.array(["ab", 1], dtype=object),
    }
    back = loads(dumps(value), 1 << 20)
    assert (
        back["a"][:2] == [1, 2.5] and np.isnan(back["a"][2]) and back["a"][3:] == [None, True, "x"]
    )
    arange, scalar, small, frozen, raw = back["t"]
    assert arange.tolist() == [0, 1, 2] and scalar == np.float32(1.5) and scalar.dtype == np.float32
    assert small == {1, 2} and frozen == frozenset({"z"}) and raw == b"\x00"
    assert back[3].tolist() == ["ab", "c"] and back["o"].dtype == object
    assert isinstance(loads(dumps(lambda: 1), 1 << 20), Unsupported)
    with pytest.raises(CodecError, match="more than"):
        loads(dumps(list(range(1000))), 100)
    # An array that would need pickle is refused, whatever the sender claims.
    import base64

    buffer = io.BytesIO()
    np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)
    data = base64.b64encode(buffer.getvalue()).decode()
    forged = '{"__probekit__": "array", "v": "' + data + '"}'
    with pytest.raises(CodecError):
        loads(forged.encode(), 1 << 20)
    with pytest.raises(CodecError):
        loads(b"[" * 100000 + b"]" * 100000, 1 << 30)


def test_static_check_flags_the_reference_of_a_task():
    cell = TaskCell(
        3, 1, "from probekit.methods.extrapolation import splits as s\nx = s.percentile"
    )
    flags = static_check([cell], A4)
    assert list(flags) == [1] and "write percentile yourself" in flags[1]
    other = TaskCell(3, 1, "from probekit.methods.extrapolation import splits\nsplits.sample_split")
    assert static_check([other], A4) == {}
    direct = TaskCell(3, 3, "import probekit.methods.extrapolation.splits\n")
    assert static_check([direct], A4) == {}
    used = TaskCell(4, 3, "probekit.methods.extrapolation.splits.easy_mask(a, b)")
    assert list(static_check([direct, used], A4)) == [3]


def test_the_sandbox_library_has_no_reference_implementation(tmp_path):
    library = write_sandbox_library(tmp_path)
    splits = (library / "methods" / "extrapolation" / "splits.py").read_text()
    assert "is the reference implementation of a task" in splits
    space: dict = {}
    exec(compile(splits, "splits.py", "exec"), space)
    with pytest.raises(RuntimeError, match="not available while grading"):
        space["percentile"](np.arange(3.0), 0.5)
    assert space["sample_split"] is not None  # the rest of the module is intact
    stub = (library / "teaching" / "__init__.py").read_text()
    assert "check_percentile = _run_by_the_grader" in stub and "\nfrequency_score" not in stub
    assert not list(library.rglob("__pycache__"))
    for tasks in REFERENCES.values():
        assert set(tasks) <= {t.function for a in A.ASSIGNMENT_TASKS.values() for t in a}


def test_statuses_and_messages_are_plain():
    assert set(STATUSES) >= {"passed", "failed", "timeout", "memory", "refused"}
    assert all(re.fullmatch(r"[a-z][a-zA-Z ()']+", v) for v in STATUSES.values())
