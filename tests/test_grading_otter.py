"""The otter-grader export (probekit.teaching.otter_export), checked by otter itself.

The master notebook is generated from the assignment notebook and its module's POINTS; the
slow test runs ``otter assign`` on it and ``otter run`` (otter's local, offline grading) on a
correct and on a wrong submission made from the student notebook otter wrote.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from probekit import teaching as A
from probekit.errors import ProbekitError
from probekit.teaching import otter_export

REPO = Path(__file__).resolve().parents[1]
NAME = "A4_extrapolation_split"
NOTEBOOK = REPO / "notebooks" / f"{NAME}.py"


def raw_markers(nb) -> list[str]:
    return [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "raw"]


def test_the_master_notebook_has_a_question_per_graded_task():
    nb = otter_export.otter_master(NOTEBOOK, NAME, course_seed=3)
    tasks = A.tasks_of(NAME)
    question = ["# BEGIN QUESTION", "# BEGIN SOLUTION", "# END SOLUTION", "# BEGIN TESTS"]
    assert raw_markers(nb) == [
        "# ASSIGNMENT CONFIG",
        *[m for _ in tasks for m in [*question, "# END TESTS", "# END QUESTION"]],
    ]
    configs = [c.source for c in nb.cells if c.source.startswith("# BEGIN QUESTION")]
    for config, task in zip(configs, tasks, strict=True):
        assert f"name: {task.function}\npoints: {task.points}" in config
    tests = [c.source for c in nb.cells if "BEGIN TEST CONFIG" in c.source]
    assert len(tests) == 2 * len(tasks)
    seed = otter_export.hidden_seed(3, NAME)
    for task in tasks:
        public = f"teaching.{task.check.__name__}({task.function}, seed=0)"
        hidden = f"teaching.{task.check.__name__}({task.function}, seed={seed})"
        assert sum(public in t and "points: 0" in t for t in tests) == 1
        assert sum(hidden in t and f"hidden: true\npoints: {task.points}" in t for t in tests) == 1
    solutions = [c.source for c in nb.cells if "BEGIN SOLUTION NO PROMPT" in c.source]
    assert len(solutions) == len(tasks)
    assert all('raise NotImplementedError("Task' in s and "# END PROMPT" in s for s in solutions)
    code = [c for c in nb.cells if c.cell_type == "code"]
    ignored = [c for c in code if "otter_ignore" in c.metadata.get("tags", [])]
    assert ignored and all("teaching.check_" not in c.source for c in ignored)
    assert any("load_treebank" in c.source for c in ignored)
    assert not any("load_treebank" in c.source for c in code if c not in ignored)
    assert not any("Model answer" in c.source for c in nb.cells)


def test_export_without_otter_assign_writes_the_masters(tmp_path):
    masters = A.export_otter(tmp_path, assign=False)
    assert [p.stem for p in masters] == list(A.ASSIGNMENT_TASKS)
    for master in masters:
        nb = nbformat.read(master, as_version=4)
        assert nb.cells[0].source.startswith("# ASSIGNMENT CONFIG\nname: " + master.stem)
        assert (master.parent / "requirements.txt").is_file()
    with pytest.raises(ProbekitError, match="unknown assignment 'A9_unknown'"):
        A.export_otter(tmp_path, assign=False, assignments=["A9_unknown"])


def solutions_of(notebook: Path) -> list[str]:
    blocks = re.findall(
        r"### BEGIN SOLUTION\n(.*?)\n\s*### END SOLUTION", notebook.read_text(), flags=re.S
    )
    return [textwrap.dedent(b) for b in blocks]


def fill(nb, bodies: list[str]):
    """The student notebook with Task N's placeholder replaced by ``bodies[N - 1]``."""
    nb = nbformat.from_dict(nb)
    pattern = re.compile(r'^( *)raise NotImplementedError\("Task (\d+): your code here"\)$', re.M)
    for cell in nb.cells:
        cell.source = pattern.sub(
            lambda m: textwrap.indent(bodies[int(m.group(2)) - 1].strip("\n"), m.group(1)),
            cell.source,
        )
    return nb


def page_command() -> str:
    """The book page's ``otter run`` lines (a ```bash block), as a shell script."""
    page = (REPO / "book" / "assignments.md").read_text()
    (block,) = [b for b in re.findall(r"```bash\n(.*?)```", page, re.S) if "otter run" in b]
    return block


def otter_run(autograder: Path, submission: Path, out: Path) -> dict:
    """Run the page's own commands, with its paths replaced; ``out`` does not exist yet."""
    assert not out.exists()
    script = page_command()
    replacements = {
        f"otter/{NAME}/dist/autograder/{NAME}-autograder_*.zip": shlex.quote(str(autograder)),
        "results/": shlex.quote(str(out)) + "/",
        "submission.ipynb": shlex.quote(submission.name),
        "otter run": f"{shlex.quote(sys.executable)} -m otter run",
    }
    for old, new in replacements.items():
        assert old in script, (old, script)
        script = script.replace(old, new)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=submission.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    return {t["name"]: t for t in results["tests"]}


def test_the_pages_otter_command_creates_its_results_directory():
    script = page_command()
    assert "otter run" in script and "-o results/" in script
    lines = [line for line in script.splitlines() if line.strip()]
    assert lines[0] == "mkdir -p results/", "otter run needs -o DIR to exist"


@pytest.mark.slow
def test_otter_grades_the_export_like_the_checks(tmp_path):
    """otter assign, then otter run on a correct and on a wrong submission (offline)."""
    if importlib.util.find_spec("otter") is None:
        if os.environ.get("CI"):
            pytest.fail("otter-grader is not installed: make setup installs the otter extra")
        pytest.skip('otter-grader is not installed (pip install "probekit[otter]")')
    (master,) = A.export_otter(tmp_path / "export", assignments=[NAME], run_tests=False)
    dist = master.parent / "dist"
    (autograder,) = (dist / "autograder").glob(f"{NAME}-autograder_*.zip")
    student = nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4)
    text = "\n".join(c.source for c in student.cells)
    solutions = solutions_of(NOTEBOOK)
    assert text.count("raise NotImplementedError(") == len(solutions) == 3
    assert not any(line.strip() in text for s in solutions for line in s.splitlines() if line)
    assert set(student.metadata["otter"]["tests"]) == {t.function for t in A.tasks_of(NAME)}

    runs = tmp_path / "runs"
    runs.mkdir()
    nbformat.write(fill(student, solutions), runs / "correct.ipynb")
    wrong = list(solutions)
    wrong[1] = (
        "counts = Counter(str(w).lower() for w in train_forms)\n"
        "return np.array([1.0 / (1 + counts[str(w).lower()]) for w in forms])"
    )
    (runs / "wrong").mkdir()
    nbformat.write(fill(student, wrong), runs / "wrong" / "wrong.ipynb")

    correct = otter_run(autograder, runs / "correct.ipynb", tmp_path / "correct_results")
    scores = {name: t.get("score") for name, t in correct.items() if name != "Public Tests"}
    assert scores == {t.function: t.points for t in A.tasks_of(NAME)}

    failed = otter_run(autograder, runs / "wrong" / "wrong.ipynb", tmp_path / "wrong_results")
    scores = {name: t.get("score") for name, t in failed.items() if name != "Public Tests"}
    assert scores == {"percentile": 3, "frequency_score": 0, "extrapolation_split": 4}
    output = failed["frequency_score"]["output"]
    assert "keep the case" in output and "expected:" in output and "got:" in output
