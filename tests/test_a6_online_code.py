"""Assignment A6, the online codelength by hand (Voita & Titov 2020, §3.2).

Its checks pass on the library's implementation (probekit.methods.mdl) and on the notebook's
solutions and fail, with a hint aimed at the mistake, on typical wrong answers; a function that
returns the library's OnlineCode, or an object that claims to equal everything, fails too. The
simulated table is deterministic and behaves as the notebook's model answers say. The sandbox's
copy of the library has none of A6's references, the static check flags them, the batch grader
grades A6 submissions (in the sandbox where bubblewrap is installed, else without it), and the
otter export writes A6's master notebook, which otter grades as the checks do (slow).

The generic tests of tests/test_assignments.py and tests/test_grading.py (student copies,
notebook solutions, points per task, the teacher's re-grade) take A6 from the catalogue.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jupytext
import nbformat
import numpy as np
import pytest

from probekit import teaching as A
from probekit.errors import ParameterError
from probekit.methods import mdl
from probekit.teaching import a6_online_code as A6
from probekit.teaching import otter_export, sandbox
from probekit.teaching.cells import TaskCell, task_cells
from probekit.teaching.codec import dumps, loads
from probekit.teaching.references import static_check, write_sandbox_library
from test_assignments import fails, ok
from test_grading_otter import fill, solutions_of

REPO = Path(__file__).resolve().parents[1]
NAME = "A6_online_code"
NOTEBOOK = REPO / "notebooks" / f"{NAME}.py"
SMALL_FRACTIONS = [0.05, 0.1, 0.25, 0.5, 1.0]


@pytest.fixture(scope="module")
def solutions() -> dict:
    """The notebook's own functions: its task cells run with their solutions."""
    namespace: dict = {}
    for cell in task_cells(jupytext.read(NOTEBOOK)):
        if "teaching.check_" not in cell.source:
            exec(cell.source, namespace)
    return namespace


# --------------------------------------------------------------------------------------------
# A hand-computed example


def test_the_notebooks_functions_on_a_hand_computed_example(solutions):
    """N = 8, K = 2, blocks ending at 1, 2, 4, 8 (fractions 1/8, 1/4, 1/2, 1).

    p_true = 1/2 (uniform), then 1/2 | 1/4, 1 | 1/2, 1/2, 1/4, 1/8: blocks 2..4 cost 1, 2 + 0 and
    1 + 1 + 2 + 3 bits. Online: 1 * log2(2) + 1 + 2 + 7 = 11 bits; uniform 8 bits; 8 / 11.
    """
    ends = solutions["block_ends"](8, [0.125, 0.25, 0.5, 1.0])
    assert ends.tolist() == [1, 2, 4, 8] and np.issubdtype(ends.dtype, np.integer)
    p_true = np.array([0.5, 0.5, 0.25, 1.0, 0.5, 0.5, 0.25, 0.125])
    bits = solutions["block_bits"](p_true, ends)
    assert bits.tolist() == [1.0, 2.0, 7.0]
    codelength, compression = solutions["online_codelength"](bits, ends, 2)
    assert codelength == 11.0 and compression == pytest.approx(8 / 11)
    library = mdl.OnlineCode(
        ends=mdl.block_ends(8, (0.125, 0.25, 0.5, 1.0)), block_bits=bits, n_classes=2
    )
    assert (library.codelength_bits, library.compression) == (codelength, compression)
    # The task texts' examples: the paper's fractions at N = 1000 and N = 100, and the notebook's
    # small table.
    assert solutions["block_ends"](1000, list(mdl.BLOCK_FRACTIONS)).tolist() == [
        1, 2, 4, 8, 16, 32, 62, 125, 250, 500, 1000,
    ]  # fmt: skip
    assert solutions["block_ends"](100, list(mdl.BLOCK_FRACTIONS)).tolist() == [
        1, 3, 6, 12, 25, 50, 100,
    ]  # fmt: skip
    assert solutions["block_ends"](40, SMALL_FRACTIONS).tolist() == [2, 4, 10, 20, 40]


# --------------------------------------------------------------------------------------------
# Task 1: block ends


def test_check_block_ends(capsys, solutions):
    ok(A.check_block_ends, mdl.block_ends, capsys)
    ok(A.check_block_ends, solutions["block_ends"], capsys, seed=1)

    def floor(n, fractions):
        return np.floor(np.asarray(fractions) * n)

    fails(
        A.check_block_ends,
        lambda n, f: np.unique(np.clip(np.round(np.asarray(f) * n), 1, n)).astype(int),
        "round f * n down",
    )
    fails(
        A.check_block_ends,
        lambda n, f: np.maximum(floor(n, f), 1).astype(int),
        "keep each end once",
    )
    fails(
        A.check_block_ends,
        lambda n, f: np.unique(floor(n, f).astype(int)),
        "holds at least one example",
    )
    fails(
        A.check_block_ends,
        lambda n, f: np.unique(np.maximum(floor(n, f), 1)),
        "as floats",
    )
    fails(
        A.check_block_ends,
        lambda n, f: np.diff(np.r_[0, mdl.block_ends(n, f)]),
        "not how many examples",
    )
    fails(A.check_block_ends, lambda n, f: mdl.block_ends(n, f) - 1, "do not subtract 1")
    fails(A.check_block_ends, lambda n, f: f"{n}", "1-D array")


def test_block_end_cases_avoid_float_products_just_below_a_whole_number():
    """A plain floor(f * n), as a student writes it, agrees with the library on every case."""
    rng = np.random.default_rng(0)
    for k in range(300):
        n = A6._draw_n(rng, k)
        fractions = A6._draw_fractions(rng, n)
        naive = np.unique(np.maximum(np.floor(np.asarray(fractions) * n), 1))
        assert naive.tolist() == mdl.block_ends(n, fractions).tolist()


# --------------------------------------------------------------------------------------------
# Task 2: block bits


def per_block(values, ends, shift=0):
    pairs = zip(ends[:-1], ends[1:], strict=True)
    return np.array([values[a + shift : b + shift].sum() for a, b in pairs])


def test_check_block_bits(capsys, solutions):
    ok(A.check_block_bits, A6._block_bits_reference, capsys)
    ok(A.check_block_bits, solutions["block_bits"], capsys, seed=1)
    fails(A.check_block_bits, lambda p, e: per_block(-np.log(p), e), "np.log gives nats")
    fails(
        A.check_block_bits,
        lambda p, e: np.r_[-np.log2(p[: e[0]]).sum(), per_block(-np.log2(p), e)],
        "*after* the first",
    )
    fails(
        A.check_block_bits,
        lambda p, e: np.cumsum(per_block(-np.log2(p), e)),
        "do not add the earlier blocks",
    )
    fails(
        A.check_block_bits,
        lambda p, e: per_block(-np.log2(p), e) / np.diff(e),
        "*sum*",
    )
    fails(
        A.check_block_bits,
        lambda p, e: per_block(-np.log2(p), e, shift=-1),
        "p_true[ends[i]:ends[i + 1]]",
    )
    fails(A.check_block_bits, lambda p, e: per_block(np.log2(p), e), "positive number of bits")
    fails(A.check_block_bits, lambda p, e: per_block(p, e), "not the sum of the probabilities")


# --------------------------------------------------------------------------------------------
# Task 3: codelength and compression


def library_codelength(bits, ends, n_classes):
    code = mdl.OnlineCode(ends=np.asarray(ends), block_bits=np.asarray(bits), n_classes=n_classes)
    return code.codelength_bits, code.compression


def test_check_online_codelength(capsys, solutions):
    ok(A.check_online_codelength, library_codelength, capsys)
    ok(A.check_online_codelength, solutions["online_codelength"], capsys, seed=1)

    def with_first(first):
        def fn(bits, ends, k):
            total = first(ends, k) + float(np.sum(bits))
            return total, ends[-1] * math.log2(k) / total

        return fn

    fails(A.check_online_codelength, with_first(lambda e, k: 0.0), "add the first block")
    fails(
        A.check_online_codelength,
        with_first(lambda e, k: math.log2(k)),
        "t_1 = ends[0] examples at log2(K) bits each",
    )
    fails(
        A.check_online_codelength,
        with_first(lambda e, k: e[0] * math.log(k)),
        "not the natural log",
    )

    def ratio(compression):
        def fn(bits, ends, k):
            total, _ = library_codelength(bits, ends, k)
            return total, compression(total, ends, k)

        return fn

    fails(
        A.check_online_codelength,
        ratio(lambda c, e, k: c / (e[-1] * math.log2(k))),
        "uniform / online codelength",
    )
    fails(
        A.check_online_codelength,
        ratio(lambda c, e, k: (e[-1] - e[0]) * math.log2(k) / c),
        "the first block's too",
    )
    fails(
        A.check_online_codelength,
        lambda b, e, k: library_codelength(b, e, k)[::-1],
        "in this order",
    )
    fails(
        A.check_online_codelength,
        lambda b, e, k: library_codelength(b, e, k)[0],
        "return a pair of floats",
    )


# --------------------------------------------------------------------------------------------
# Returning the library's objects, or an object that equals everything, earns nothing


class EqualsEverything:
    """A hostile return value: equal to anything, true, and of any length it is asked for."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __bool__(self):
        return True

    __hash__ = object.__hash__


def test_reference_objects_and_liars_fail_every_check():
    def online_code(bits, ends, k):
        return mdl.OnlineCode(ends=np.asarray(ends), block_bits=np.asarray(bits), n_classes=k)

    fails(A.check_online_codelength, online_code, "return a pair of floats")
    # Across the sandbox's wall the object arrives as a placeholder, never as itself.
    fails(
        A.check_online_codelength,
        lambda b, e, k: loads(dumps(online_code(b, e, k)), 1 << 20),
        "return a pair of floats",
    )
    fails(A.check_block_ends, lambda n, f: EqualsEverything(), "1-D array")
    fails(A.check_block_bits, lambda p, e: EqualsEverything(), "return one float per block")
    fails(
        A.check_online_codelength,
        lambda b, e, k: (EqualsEverything(), EqualsEverything()),
        "return a pair of floats",
    )


# --------------------------------------------------------------------------------------------
# The simulated table


@pytest.mark.parametrize("n_classes", [2, 4, 10])
def test_block_probabilities_are_a_deterministic_table_of_the_blocks(n_classes):
    table = A.block_probabilities(40, SMALL_FRACTIONS, n_classes, seed=3)
    again = A.block_probabilities(40, SMALL_FRACTIONS, n_classes, seed=3)
    assert table.equals(again)
    assert not table.equals(A.block_probabilities(40, SMALL_FRACTIONS, n_classes, seed=4))
    assert table.index.tolist() == list(range(1, 41)) and table.index.name == "example"
    tasks = ["linguistic task", "control task", "random labels"]
    assert list(table.columns) == ["block", "probe trained on", *tasks]
    ends = mdl.block_ends(40, SMALL_FRACTIONS)
    sizes = np.diff(np.r_[0, ends])
    assert table["block"].value_counts().sort_index().tolist() == sizes.tolist()
    assert table.groupby("block")["probe trained on"].first().tolist() == [0, *ends[:-1]]
    first = table["block"] == 1
    assert (table.loc[first, tasks] == 1 / n_classes).all().all()
    later = table.loc[~first, tasks].to_numpy()
    assert np.all((later > 0) & (later < 1)) and np.allclose(later, np.round(later, 2))
    # The random-label probe's probabilities of one example sum to at most 1.
    for _, block in table.loc[~first].groupby("block"):
        values = sorted(set(block["random labels"]))
        confidence, miss = max(values), min(values)
        assert confidence + (n_classes - 1) * miss <= 1 + 1e-12
    with pytest.raises(ParameterError, match="n_classes"):
        A.block_probabilities(40, SMALL_FRACTIONS, 1)
    with pytest.raises(ParameterError, match="fractions"):
        A.block_probabilities(40, [0.5, 0.25, 1.0])


@pytest.mark.parametrize(
    ("n", "fractions"), [(40, SMALL_FRACTIONS), (1000, mdl.BLOCK_FRACTIONS)], ids=["small", "large"]
)
def test_the_simulated_tasks_order_as_the_model_answers_read(n, fractions):
    """Over many seeds: the control task's code is longer than the linguistic task's, and the
    random labels compress below 1 (every later block costs more than the uniform code)."""
    ends = mdl.block_ends(n, fractions)
    for n_classes in (2, 4, 10):
        for seed in range(30):
            table = A.block_probabilities(n, fractions, n_classes, seed)
            code = {
                task: library_codelength(
                    A6._block_bits_reference(table[task].to_numpy(), ends), ends, n_classes
                )
                for task in ("linguistic task", "control task", "random labels")
            }
            assert code["control task"][0] > code["linguistic task"][0], (n_classes, seed)
            assert code["random labels"][1] < 1, (n_classes, seed)


# --------------------------------------------------------------------------------------------
# The grader's side: references, sandbox library, static check, batch grading, otter export


def test_the_references_of_a6_are_blanked_in_the_sandbox_library(tmp_path):
    library = write_sandbox_library(tmp_path)
    text = (library / "methods" / "mdl.py").read_text()
    space: dict = {}
    exec(compile(text, "mdl.py", "exec"), space)
    for call in (
        lambda: space["block_ends"](10),
        lambda: space["uniform_codelength"](10, 2),
        lambda: space["online_codelength"]([1.0], 1, 2),
    ):
        with pytest.raises(RuntimeError, match="not available while grading"):
            call()
    assert space["BLOCK_FRACTIONS"] == mdl.BLOCK_FRACTIONS  # the rest of the module is intact
    # The library's OnlineCode computes through the blanked functions, so it gives nothing away.
    code = space["OnlineCode"](np.array([1, 2]), np.array([1.0]), 2)
    with pytest.raises(RuntimeError, match="not available while grading"):
        _ = code.compression
    a6 = (library / "teaching" / "a6_online_code.py").read_text()
    assert a6.count("is the reference implementation of a task") == 2
    stub = (library / "teaching" / "__init__.py").read_text()
    for check in ("check_block_ends", "check_block_bits", "check_online_codelength"):
        assert f"{check} = _run_by_the_grader" in stub
    assert "block_probabilities" not in stub


def test_static_check_flags_the_references_of_a6():
    imported = TaskCell(3, 1, "from probekit.methods.mdl import block_ends as ends\n")
    assert list(static_check([imported], NAME)) == [1]
    used = TaskCell(4, 3, "from probekit.methods import mdl\nx = mdl.uniform_codelength(4, 2)\n")
    flags = static_check([used], NAME)
    assert list(flags) == [3] and "write online_codelength yourself" in flags[3]
    allowed = TaskCell(3, 1, "from probekit.methods.mdl import BLOCK_FRACTIONS\n")
    assert static_check([allowed], NAME) == {}


def filled(bodies: list[str | None]) -> str:
    """The student copy with Task N's placeholder replaced by ``bodies[N - 1]`` (None: unsolved)."""
    pattern = re.compile(r'^( *)raise NotImplementedError\("Task (\d+): your code here"\)$', re.M)

    def body(m: re.Match) -> str:
        text = bodies[int(m.group(2)) - 1]
        return m.group(0) if text is None else textwrap.indent(text.strip("\n"), m.group(1))

    return pattern.sub(body, A.student_source(NOTEBOOK.read_text()))


def read_grades(out: Path) -> dict:
    with (out / "grades.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {(r["student"], r["task"]): r for r in rows}


def grade_a6_class(tmp_path: Path, use_sandbox: bool) -> dict:
    """A correct, a partly wrong (and partly the library's) and a mostly unsolved submission."""
    right = solutions_of(NOTEBOOK)
    assert len(right) == 3
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / f"ann__{NAME}.py").write_text(filled(right))
    wrong = [
        "from probekit.methods.mdl import block_ends as library_ends\n"
        "return library_ends(n, fractions)",
        "bits = -np.log(np.asarray(p_true, dtype=float))\n"
        "return np.array([bits[a:b].sum() for a, b in zip(ends[:-1], ends[1:], strict=True)])",
        right[2],
    ]
    (klass / f"ben__{NAME}.py").write_text(filled(wrong))
    returns_the_object = (
        "from probekit.methods.mdl import OnlineCode\n"
        "return OnlineCode(ends=np.asarray(ends), block_bits=np.asarray(bits), "
        "n_classes=n_classes)"
    )
    (klass / f"cat__{NAME}.py").write_text(filled([None, None, returns_the_object]))
    out = tmp_path / "results"
    A.grade_submissions(
        klass,
        out,
        course_seed=5,
        time_limit=60.0,
        sandbox=use_sandbox,
        progress=False,
        log=lambda message: None,
    )
    return read_grades(out)


def assert_a6_grades(grades: dict) -> None:
    got = {key: (row["status"], int(row["points"])) for key, row in grades.items()}
    assert got == {
        ("ann", "block_ends"): ("passed", 3),
        ("ann", "block_bits"): ("passed", 3),
        ("ann", "online_codelength"): ("passed", 4),
        ("ben", "block_ends"): ("refused", 0),
        ("ben", "block_bits"): ("failed", 0),
        ("ben", "online_codelength"): ("passed", 4),
        ("cat", "block_ends"): ("unsolved", 0),
        ("cat", "block_bits"): ("unsolved", 0),
        ("cat", "online_codelength"): ("failed", 0),
    }, got
    assert "probekit.methods.mdl.block_ends" in grades[("ben", "block_ends")]["message"]
    assert "np.log gives nats" in grades[("ben", "block_bits")]["hint"]
    assert "return a pair of floats" in grades[("cat", "online_codelength")]["hint"]
    assert int(grades[("ben", "block_bits")]["seed"]) == A.student_seed(5, "ben")


def test_the_batch_grader_grades_a6_without_the_sandbox(tmp_path):
    assert_a6_grades(grade_a6_class(tmp_path, use_sandbox=False))


def test_the_batch_grader_grades_a6_in_the_sandbox(tmp_path):
    if sandbox.find_bwrap() is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    assert_a6_grades(grade_a6_class(tmp_path, use_sandbox=True))


def test_the_otter_master_of_a6_has_a_question_per_task(tmp_path):
    nb = otter_export.otter_master(NOTEBOOK, NAME, course_seed=3)
    configs = [c.source for c in nb.cells if c.source.startswith("# BEGIN QUESTION")]
    tasks = A.tasks_of(NAME)
    assert [t.function for t in tasks] == ["block_ends", "block_bits", "online_codelength"]
    for config, task in zip(configs, tasks, strict=True):
        assert f"name: {task.function}\npoints: {task.points}" in config
    seed = otter_export.hidden_seed(3, NAME)
    tests = "\n".join(c.source for c in nb.cells if "BEGIN TEST CONFIG" in c.source)
    for task in tasks:
        assert f"teaching.{task.check.__name__}({task.function}, seed=0)" in tests
        assert f"teaching.{task.check.__name__}({task.function}, seed={seed})" in tests
    code = [c for c in nb.cells if c.cell_type == "code"]
    ignored = [c for c in code if otter_export.OTTER_IGNORE in c.metadata.get("tags", [])]
    assert any("block_probabilities" in c.source for c in ignored)
    assert not any("block_probabilities" in c.source for c in code if c not in ignored)
    masters = A.export_otter(tmp_path, assign=False, assignments=[NAME])
    assert [p.stem for p in masters] == [NAME]


@pytest.mark.slow
def test_otter_grades_the_a6_export_like_the_checks(tmp_path):
    """otter assign on A6's master, then otter run on a correct and a wrong submission."""
    if importlib.util.find_spec("otter") is None:
        if os.environ.get("CI"):
            pytest.fail("otter-grader is not installed: make setup installs the otter extra")
        pytest.skip('otter-grader is not installed (pip install "probekit[otter]")')
    (master,) = A.export_otter(tmp_path / "export", assignments=[NAME], run_tests=False)
    dist = master.parent / "dist"
    (autograder,) = (dist / "autograder").glob(f"{NAME}-autograder_*.zip")
    student = nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4)

    def submit(bodies: list[str], path: Path) -> dict:
        nb = fill(student, bodies)
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        out = path.parent / "results"
        out.mkdir()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "otter",
                "run",
                "-a",
                str(autograder),
                "-o",
                str(out),
                path.name,
            ],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=600,
            env=os.environ | {"HF_HUB_OFFLINE": "1"},
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        tests = json.loads((out / "results.json").read_text())["tests"]
        return {t["name"]: t for t in tests if t["name"] != "Public Tests"}

    right = solutions_of(NOTEBOOK)
    correct = submit(right, tmp_path / "correct" / "correct.ipynb")
    assert {k: t.get("score") for k, t in correct.items()} == {
        t.function: t.points for t in A.tasks_of(NAME)
    }
    forgot_first = (
        "total = float(np.sum(bits))\nreturn total, ends[-1] * np.log2(n_classes) / total"
    )
    wrong = submit([*right[:2], forgot_first], tmp_path / "wrong" / "wrong.ipynb")
    assert {k: t.get("score") for k, t in wrong.items()} == {
        "block_ends": 3,
        "block_bits": 3,
        "online_codelength": 0,
    }
    output = wrong["online_codelength"]["output"]
    assert "add the first block" in output and "expected:" in output and "got:" in output
