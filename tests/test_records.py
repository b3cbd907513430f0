"""Recorded measurements: written atomically as data, read back, and stale when code changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from probekit.book import records as book_records
from probekit.errors import ProbekitError
from probekit.experiments.part3_pareto import ceiling
from probekit.io import records


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project root whose library is a copy of probekit, so that its code can be edited."""
    for marker in ("notebooks", "params"):
        (tmp_path / marker).mkdir()
    (tmp_path / "_toc.yml").write_text("format: jb-book\n")
    (tmp_path / "measure.py").write_text("from probekit.stats import power\n")
    return tmp_path


def _library(tmp_path: Path) -> Path:
    import probekit

    lib = tmp_path / "lib" / "probekit"
    shutil.copytree(Path(probekit.__file__).parent, lib, ignore=shutil.ignore_patterns("*.pyc"))
    return lib


def test_a_record_round_trips_with_its_provenance(project, monkeypatch):
    path = book_records.record_measurement(
        "trial", "measure.py", {"lr": 0.002}, {"uas": 0.78}, 12.34, root=project
    )
    assert path == project / "params" / "records" / "trial.json"
    back = records.read_record("trial", root=project)
    assert back.parameters == {"lr": 0.002} and back.result == {"uas": 0.78}
    assert back.seconds == 12.3 and back.machine["cores"] >= 1 and back.recorded.startswith("20")
    assert not list(path.parent.glob(".*.tmp"))  # the temporary file was renamed into place
    assert not book_records.is_stale(back, root=project)
    assert records.read_record("never-made", root=project) is None
    # Without its script (a project copied without benchmarks/) a record cannot be checked.
    (project / "measure.py").unlink()
    assert book_records.is_stale(back, root=project)


def test_a_record_whose_code_digest_no_longer_matches_is_stale(project, monkeypatch):
    lib = _library(project)
    monkeypatch.setattr(book_records, "library_digest", lambda script: _digest(script, lib))
    book_records.record_measurement("trial", "measure.py", {}, {"x": 1}, 1.0, root=project)
    record = records.read_record("trial", root=project)
    assert not book_records.is_stale(record, root=project)
    power = lib / "stats" / "power.py"
    power.write_text(power.read_text() + "\n# a change in the code the script runs\n")
    assert book_records.is_stale(record, root=project)


def _digest(script: Path, lib: Path) -> str:
    from probekit.book.imports import library_digest

    return library_digest(script, lib)


def test_a_malformed_record_is_an_error_naming_the_file(project):
    path = records.record_path("broken", root=project)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"name": "broken"}))
    with pytest.raises(ProbekitError, match="broken.json"):
        records.read_record("broken", root=project)


def test_the_ceiling_is_read_only_for_its_own_set_up(project):
    c = ceiling.Ceiling(uas=0.85, dev_uas=0.86, best_step=4000, at_cap=False, n_train=12544)

    class Config:
        treebank, model, layer, pooling, seed = "UD_English-EWT", "default", 3, "mean", 0

    parameters, result = ceiling.ceiling_record(c, Config())
    book_records.record_measurement(
        ceiling.RECORD, "measure.py", parameters, result, 1.0, root=project
    )
    record = records.read_record(ceiling.RECORD, root=project)
    assert ceiling.measured_ceiling(Config(), record) == c
    Config.layer = 6
    assert ceiling.measured_ceiling(Config(), record) is None
    assert ceiling.measured_ceiling(Config(), None) is None


def test_a_digest_taken_when_the_measurement_started_is_the_one_recorded(project):
    start = book_records.code_digest("measure.py", root=project)
    book_records.record_measurement(
        "trial", "measure.py", {}, {"x": 1}, 1.0, digest="0" * 64, root=project
    )
    record = records.read_record("trial", root=project)
    assert record.digest == "0" * 64 != start
    assert book_records.is_stale(record, root=project)  # the code differs from what ran


def test_a_benchmarks_printed_lines_become_its_result():
    text = "== header\nshape: n=3 d=4\nratio: 2.5\nseconds: 1\nseconds: 2\nnot a pair\nx y: 1\n"
    assert book_records.printed_measurements(text) == {
        "shape": "n=3 d=4",
        "ratio": 2.5,
        "seconds": [1.0, 2.0],
    }


def test_a_full_benchmark_run_is_recorded_and_a_quick_one_is_not(project, monkeypatch, capsys):
    from probekit import cli

    (project / "benchmarks").mkdir()
    (project / "benchmarks" / "bench_toy.py").write_text(
        "import sys\nprint('ratio: 3.5')\nprint('quick: ' + str('--quick' in sys.argv))\n"
    )
    monkeypatch.chdir(project)
    assert cli.main(["bench", "--quick"]) == 0
    assert records.read_record("bench_toy", root=project) is None
    assert "ratio: 3.5" in capsys.readouterr().out  # the run's lines still reach the terminal
    assert cli.main(["bench", "--only", "toy"]) == 0
    record = records.read_record("bench_toy", root=project)
    assert record.result == {"ratio": 3.5, "quick": "False"}
    assert record.script == "benchmarks/bench_toy.py" and record.parameters == {"argv": []}
    assert not book_records.is_stale(record, root=project)
