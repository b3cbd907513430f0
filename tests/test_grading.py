"""Tests of the batch grader (probekit.teaching.grading and the modules it runs).

Two grading runs, each a few seconds plus the start of its grading process: the fixture class
of tests/fixtures/submissions (a correct, a partly wrong, a raising, an endlessly looping, an
unboundedly allocating, an escaping and a malformed submission) graded by one command; and a
re-grade of part of it with the recorded seeds, joined by the notebooks' own solutions and a
submission that tampers with the checks. The rest are unit tests of the parts that run in the
grading process itself.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import hashlib
import io
import re
import shutil
import tempfile
import time
from pathlib import Path

import jupytext
import pytest

from fixtures.submission_class import HERE as FIXTURES
from fixtures.submission_class import SOURCES, write_class
from probekit import teaching as A
from probekit.cli import main as cli_main
from probekit.errors import ParameterError, ProbekitError
from probekit.teaching.cells import TaskCell, compile_cell, task_cells
from probekit.teaching.grades import STATUSES, TaskGrade, hint_of
from probekit.teaching.zygote import PRELOAD

REPO = Path(__file__).resolve().parents[1]
CLASS = SOURCES  # the class without its two notebooks, which write_class adds
NOTEBOOKS = sorted((REPO / "notebooks").glob("A[0-9]*_*.py"))
TIME_LIMIT, MEMORY_LIMIT = 2.0, 256
# The re-grade also runs every notebook's reference solutions (A5's power simulation among them),
# which may need more than 2 s of wall time on a loaded machine; it has no endless loop to wait on.
REGRADE_TIME_LIMIT = 60.0
TMP = Path(tempfile.gettempdir())
CANARIES = [
    Path("/tmp/probekit-grading-canary.txt"),
    Path("/tmp/probekit-grading-canary-process.txt"),
    TMP / "probekit-grading-canary-relative.txt",
]

# (student, assignment, task) -> (status, points); see tests/fixtures/submissions/README.md.
EXPECTED = {
    ("alice", "A1_tree_metrics", "prim"): ("passed", 4),
    ("alice", "A1_tree_metrics", "uuas"): ("passed", 3),
    ("alice", "A1_tree_metrics", "perceptron_loss"): ("passed", 3),
    ("alice", "A4_extrapolation_split", "percentile"): ("passed", 3),
    ("alice", "A4_extrapolation_split", "frequency_score"): ("passed", 3),
    ("alice", "A4_extrapolation_split", "extrapolation_split"): ("passed", 4),
    ("bob", "A4_extrapolation_split", "percentile"): ("failed", 0),
    ("bob", "A4_extrapolation_split", "frequency_score"): ("passed", 3),
    ("bob", "A4_extrapolation_split", "extrapolation_split"): ("failed", 0),
    ("carol", "A4_extrapolation_split", "percentile"): ("passed", 3),
    ("carol", "A4_extrapolation_split", "frequency_score"): ("error", 0),
    ("carol", "A4_extrapolation_split", "extrapolation_split"): ("error", 0),
    ("dave", "A4_extrapolation_split", "percentile"): ("timeout", 0),
    ("dave", "A4_extrapolation_split", "frequency_score"): ("passed", 3),
    ("dave", "A4_extrapolation_split", "extrapolation_split"): ("timeout", 0),
    ("erin", "A4_extrapolation_split", "percentile"): ("passed", 3),
    ("erin", "A4_extrapolation_split", "frequency_score"): ("memory", 0),
    ("erin", "A4_extrapolation_split", "extrapolation_split"): ("passed", 4),
    ("frank", "A4_extrapolation_split", "percentile"): ("refused", 0),
    ("frank", "A4_extrapolation_split", "frequency_score"): ("refused", 0),
    ("frank", "A4_extrapolation_split", "extrapolation_split"): ("refused", 0),
    ("grace", "A4_extrapolation_split", "percentile"): ("malformed", 0),
    ("grace", "A4_extrapolation_split", "frequency_score"): ("malformed", 0),
    ("grace", "A4_extrapolation_split", "extrapolation_split"): ("malformed", 0),
}
# Words the message of a task must contain, where it matters what the student reads.
MESSAGES = {
    ("bob", "percentile"): ["input:", "expected:", "got:", "does not interpolate"],
    ("bob", "extrapolation_split"): ["input:", "expected:", "got:", "hint:"],
    ("carol", "frequency_score"): ["raised NameError", "train_forms", "<cell"],
    ("carol", "extrapolation_split"): ["not valid Python", "never closed"],
    ("dave", "percentile"): [f"did not finish within {TIME_LIMIT:g} s"],
    ("erin", "frequency_score"): [f"ran out of memory (limit {MEMORY_LIMIT} MiB)"],
    ("frank", "percentile"): ["/tmp/probekit-grading-canary.txt", "outside the working directory"],
    ("frank", "frequency_score"): ["outside the working directory", "and 1 more"],
    ("frank", "extrapolation_split"): ["network access"],
    ("grace", "percentile"): ["not valid JSON"],
}


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def tree_state() -> dict[str, tuple]:
    """Path -> (size, mtime, sha256) of the files a submission could reach for.

    The fixture class itself, the assignment notebooks and the grader's own modules (other
    files of the checkout may change meanwhile: other work goes on in it).
    """
    paths = [
        *FIXTURES.rglob("*"),
        *NOTEBOOKS,
        *(REPO / "lib" / "probekit" / "teaching").glob("*.py"),
    ]
    state = {}
    for path in sorted(p for p in paths if p.is_file()):
        data = path.read_bytes()
        state[str(path)] = (len(data), path.stat().st_mtime_ns, hashlib.sha256(data).digest())
    return state


def grading_dirs() -> set[str]:
    return {p.name for p in TMP.glob("probekit-grading-*") if p.is_dir()}


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue() + err.getvalue(), time.perf_counter() - start


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The fixture class graded by one command; the state of the disk around it."""
    for canary in CANARIES:
        canary.unlink(missing_ok=True)
    before, dirs_before = tree_state(), grading_dirs()
    klass = write_class(tmp_path_factory.mktemp("handed-in") / "class")
    out = tmp_path_factory.mktemp("results")
    argv = ["assignments", "--grade", str(klass), "--out", str(out), "--course-seed", "7"]
    argv += ["--time-limit", f"{TIME_LIMIT:g}", "--memory-limit", str(MEMORY_LIMIT)]
    code, output, seconds = run_cli(argv)
    return {
        "code": code,
        "output": output,
        "seconds": seconds,
        "out": out,
        "class": klass,
        "changed": before != tree_state(),
        "new_dirs": grading_dirs() - dirs_before,
    }


# --------------------------------------------------------------------------------------------
# The fixture class


def test_the_fixture_class_gets_the_expected_grades(graded):
    assert graded["code"] == 0, graded["output"]
    rows = read_csv(graded["out"] / "grades.csv")
    got = {
        (r["student"], r["assignment"], r["task"]): (r["status"], int(r["points"])) for r in rows
    }
    assert got == EXPECTED
    by_task = {(r["student"], r["task"]): r for r in rows}
    for key, needles in MESSAGES.items():
        for needle in needles:
            assert needle in by_task[key]["message"], (key, needle, by_task[key]["message"])
    assert by_task[("bob", "percentile")]["hint"].startswith("the paper's percentile")
    assert all(r["message"] == r["hint"] == "" for r in rows if r["status"] == "passed")
    assert {int(r["max_points"]) for r in rows if r["task"] == "extrapolation_split"} == {4}
    assert "skipped README.md: not a submission" in graded["output"]


def test_every_student_gets_a_recorded_seed_of_their_own(graded):
    seeds = {r["student"]: int(r["seed"]) for r in read_csv(graded["out"] / "seeds.csv")}
    assert seeds == {
        s: A.student_seed(7, s) for s in "alice bob carol dave erin frank grace".split()
    }
    assert len(set(seeds.values())) == len(seeds)
    for row in read_csv(graded["out"] / "grades.csv"):
        assert int(row["seed"]) == seeds[row["student"]]


def test_totals_summary_and_feedback(graded):
    out = graded["out"]
    totals = {
        (r["student"], r["assignment"]): int(r["points"]) for r in read_csv(out / "totals.csv")
    }
    assert totals[("alice", "A1_tree_metrics")] == totals[("alice", "A4_extrapolation_split")] == 10
    assert [
        totals[(s, "A4_extrapolation_split")] for s in "bob carol dave erin frank grace".split()
    ] == [
        3,
        3,
        3,
        7,
        0,
        0,
    ]
    summary = {(r["assignment"], r["task"]): r for r in read_csv(out / "summary.csv")}
    percentile = summary[("A4_extrapolation_split", "percentile")]
    assert (percentile["passed"], percentile["submissions"]) == ("3", "7")
    # One student each: a check's hint wins the tie over the generic reasons.
    assert percentile["most_common_hint"].startswith("the paper's percentile")
    assert "A4_extrapolation_split" in graded["output"] and "most common hint" in graded["output"]
    feedback = sorted(p.stem for p in (out / "feedback").glob("*.md"))
    assert feedback == "alice bob carol dave erin frank grace".split()
    bob = (out / "feedback" / "bob.md").read_text()
    assert "**Total: 3 / 10 points**" in bob and "does not interpolate" in bob
    assert f"teaching.check_percentile(percentile, seed={A.student_seed(7, 'bob')})" in bob
    assert "**Total: 20 / 20 points**" in (out / "feedback" / "alice.md").read_text()
    assert "ran out of memory" in (out / "feedback" / "erin.md").read_text()


def test_the_run_stays_within_its_limits_and_touches_nothing_outside(graded):
    assert not graded["changed"], "a file of the repository changed"
    assert not graded["new_dirs"], f"temporary directories left behind: {graded['new_dirs']}"
    for canary in CANARIES:
        assert not canary.exists(), f"a submission wrote {canary}"
    runs = read_csv(graded["out"] / "runs.csv")
    assert {r["outcome"] for r in runs} == {"finished"}
    for run in runs:
        tasks = len(A.tasks_of(run["assignment"]))
        assert float(run["seconds"]) < TIME_LIMIT * (tasks + 1) + 2
    # The endless loop costs its two tasks' time limit, not more.
    dave = next(r for r in runs if r["student"] == "dave")
    assert 2 * TIME_LIMIT <= float(dave["seconds"]) < 3 * TIME_LIMIT + 1
    assert graded["seconds"] < 240


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
    for student in "alice bob carol dave erin frank grace".split():
        mine = [r for r in rows if r["student"] == student and r["assignment"].startswith("A4")]
        (shown,) = page_rows(student)
        assert shown[1:] == [f"{r['points']} {r['status']}" for r in mine] + [
            str(sum(int(r["points"]) for r in mine))
        ]
    for r in read_csv(graded["out"] / "summary.csv"):
        if r["assignment"] != "A4_extrapolation_split":
            continue
        (shown,) = page_rows(f"{r['number']} `{r['task']}`")
        share = f"{float(r['share_passed']):.0%}".replace("%", " %")
        assert shown[1:] == [f"{r['passed']} / {r['submissions']}", share, r["most_common_hint"]]
    bob = next(r for r in rows if r["student"] == "bob" and r["task"] == "percentile")
    page = (REPO / "book" / "assignments.md").read_text()
    assert bob["message"] in page and f"seed={bob['seed']}" in page


# --------------------------------------------------------------------------------------------
# Re-grading with the recorded seeds


TAMPERING = """
# %%
teaching.check_percentile = lambda *args, **kwargs: None  # "my check always passes"
"""


def test_regrading_with_the_recorded_seeds_reproduces_the_grades(graded, tmp_path):
    first = {
        (r["student"], r["assignment"], r["task"]): r
        for r in read_csv(graded["out"] / "grades.csv")
    }
    again = tmp_path / "class"
    again.mkdir()
    shutil.copytree(graded["class"] / "alice", again / "alice")
    for student in ("bob", "carol", "frank", "grace"):
        for path in graded["class"].glob(f"{student}__*"):
            shutil.copy(path, again / path.name)
    # The notebooks' own solutions pass under the guard, in every assignment.
    (again / "teacher").mkdir()
    for notebook in NOTEBOOKS:
        shutil.copy(notebook, again / "teacher" / notebook.name)
    student_copy = A.student_source((REPO / "notebooks" / "A4_extrapolation_split.py").read_text())
    head, _, tail = student_copy.partition("# %% [markdown]\n# ## Task 1")
    (again / "mallory__A4_extrapolation_split.py").write_text(
        head + TAMPERING + "\n# %% [markdown]\n# ## Task 1" + tail
    )
    out = tmp_path / "results"
    argv = ["assignments", "--grade", str(again), "--out", str(out), "--course-seed", "99"]
    argv += ["--seeds", str(graded["out"] / "seeds.csv"), "--jobs", "2"]
    argv += ["--time-limit", f"{REGRADE_TIME_LIMIT:g}", "--memory-limit", str(MEMORY_LIMIT)]
    code, output, _ = run_cli(argv)
    assert code == 0, output
    assert "no recorded seed for 2 students, derived from course seed 99" in output
    rows = read_csv(out / "grades.csv")
    regraded = [r for r in rows if r["student"] not in ("teacher", "mallory")]
    assert len(regraded) == 6 + 4 * 3
    for row in regraded:
        assert row == first[(row["student"], row["assignment"], row["task"])]
    teacher = [r for r in rows if r["student"] == "teacher"]
    assert len(teacher) == sum(len(t) for t in A.ASSIGNMENT_TASKS.values())
    assert {r["status"] for r in teacher} == {"passed"}, [r for r in teacher if r["message"]]
    assert int(teacher[0]["seed"]) == A.student_seed(99, "teacher")
    mallory = [r for r in rows if r["student"] == "mallory"]
    assert {r["status"] for r in mallory} == {"refused"}
    assert "probekit.teaching.check_percentile" in mallory[0]["message"]


# --------------------------------------------------------------------------------------------
# Unit tests of the parts in the grading process


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_find_submissions_reads_both_layouts(tmp_path):
    write(tmp_path / "ann" / "A1_tree_metrics.py")
    write(tmp_path / "ann" / "notes.txt")
    write(tmp_path / "ben__A4_extrapolation_split.ipynb")
    write(tmp_path / "ben__A9_unknown.py")
    write(tmp_path / ".DS_Store")
    write(tmp_path / "ann" / ".ipynb_checkpoints" / "A1_tree_metrics-checkpoint.py")
    found, skipped = A.find_submissions(tmp_path)
    assert [(s.student, s.assignment, s.path.name) for s in found] == [
        ("ann", "A1_tree_metrics", "A1_tree_metrics.py"),
        ("ben", "A4_extrapolation_split", "ben__A4_extrapolation_split.ipynb"),
    ]
    assert sorted(p.name for p in skipped) == ["ben__A9_unknown.py", "notes.txt"]


def test_find_submissions_errors_name_the_file(tmp_path):
    with pytest.raises(ProbekitError, match="no such directory"):
        A.find_submissions(tmp_path / "nowhere")
    with pytest.raises(ProbekitError, match="no submissions"):
        A.find_submissions(tmp_path)
    write(tmp_path / "ann" / "A1_tree_metrics.py")
    write(tmp_path / "ann__A1_tree_metrics.ipynb")
    with pytest.raises(ProbekitError, match=r"two submissions of A1_tree_metrics by 'ann'"):
        A.find_submissions(tmp_path)
    bad = tmp_path / "bad"
    write(bad / "no id" / "A1_tree_metrics.py")
    with pytest.raises(ProbekitError, match=r"'no id' is not a usable student id"):
        A.find_submissions(bad)


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
    return TaskGrade(student, "A4_extrapolation_split", 1, task, 0, 3, status, 0, hint, "")


def test_summary_prefers_a_checks_hint_on_a_tie():
    grades = [
        grade("a", "percentile", "timeout", STATUSES["timeout"]),
        grade("b", "percentile", "failed", "zzz: truncate the index"),
        grade("c", "percentile", "failed", "zzz: truncate the index"),
        grade("d", "percentile", "unsolved", STATUSES["unsolved"]),
        grade("e", "percentile", "unsolved", STATUSES["unsolved"]),
    ]
    (row,) = A.summarise(grades)
    assert row["most_common_hint"] == "zzz: truncate the index" and row["hint_count"] == 2
    assert row["passed"] == 0 and row["submissions"] == 5


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


def test_preload_covers_the_imports_of_the_task_cells():
    for path in NOTEBOOKS:
        for cell in task_cells(jupytext.read(path)):
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.ImportFrom) and node.module.startswith("probekit"):
                    names = [f"{node.module}.{a.name}" for a in node.names]
                    assert any(n in PRELOAD or node.module in PRELOAD for n in names), (
                        path.name,
                        node.module,
                    )
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                    top = module.split(".")[0]
                    stdlib = top in {"collections", "itertools", "math", "re"}
                    assert stdlib or any(p.split(".")[0] == top for p in PRELOAD), module


def test_statuses_and_messages_are_plain():
    assert set(STATUSES) >= {"passed", "failed", "timeout", "memory", "refused"}
    assert all(re.fullmatch(r"[a-z][a-zA-Z ()']+", v) for v in STATUSES.values())
