"""probekit.io.treebanks: reading, validation errors (file:line), resolution order, sampling, hashing."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from probekit.errors import ConlluError, DataNotFoundError
from probekit.io import treebanks

FIXTURES = Path(__file__).parent / "fixtures"
BAD = FIXTURES / "bad"


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("wrong_columns", 10, "expected 10 tab-separated columns, found 9"),
        ("non_integer_id", 11, "ID '3x' is not an integer"),
        ("non_integer_head", 11, "HEAD '_' is not an integer"),
        ("head_out_of_range", 11, "HEAD 12 out of range: the sentence has 7 words"),
        ("cycle", 10, "cycle in the heads through word 2"),
        ("several_roots", 14, "several roots"),
        ("missing_final_blank", 15, "missing blank line after the last sentence"),
        ("empty", 1, "empty file"),
    ],
)
def test_malformed_file_names_file_and_line(name, line, message):
    path = BAD / f"{name}.conllu"
    with pytest.raises(ConlluError) as info:
        treebanks.read_conllu(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert message in str(info.value)
    assert info.value.line == line and info.value.path == path


def test_missing_split_file_is_named():
    with pytest.raises(DataNotFoundError, match=r"missing split file \*-ud-test\.conllu"):
        treebanks.resolve_treebank(FIXTURES / "missing_split")
    # Asking only for the splits that exist works.
    files = treebanks.resolve_treebank(FIXTURES / "missing_split", splits=("train", "dev"))
    assert set(files.files) == {"train", "dev"}


def test_unknown_treebank_name_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBEKIT_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("PROBEKIT_DATA_MIRROR", str(tmp_path / "mirror"))
    with pytest.raises(DataNotFoundError) as info:
        treebanks.resolve_treebank("UD_Klingon-XYZ", download=False)
    text = str(info.value)
    assert "unknown treebank 'UD_Klingon-XYZ'" in text
    assert str(tmp_path / "data") in text and str(tmp_path / "mirror") in text


def test_unknown_name_with_failing_download(tmp_path, monkeypatch):
    import urllib.error

    monkeypatch.setenv("PROBEKIT_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("PROBEKIT_DATA_MIRROR", str(tmp_path / "mirror"))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("network unreachable")

    monkeypatch.setattr(treebanks.urllib.request, "urlopen", offline)
    with pytest.raises(DataNotFoundError, match="UD r2.16 download"):
        treebanks.resolve_treebank("UD_Klingon-XYZ")


def test_resolution_order_data_dir_before_mirror(tmp_path, monkeypatch):
    for root in ("data", "mirror"):
        shutil.copytree(FIXTURES / "tiny", tmp_path / root / "UD_Tiny-Fixture")
    monkeypatch.setenv("PROBEKIT_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("PROBEKIT_DATA_MIRROR", str(tmp_path / "mirror"))
    files = treebanks.resolve_treebank("UD_Tiny-Fixture")
    assert files.source == "data" and files.directory == tmp_path / "data" / "UD_Tiny-Fixture"
    shutil.rmtree(tmp_path / "data" / "UD_Tiny-Fixture")
    files = treebanks.resolve_treebank("ud-tiny-fixture")  # names match case- and _/- insensitively
    assert files.source == "mirror"


def test_directory_path_resolves(tiny):
    assert tiny.files.source == "path"
    assert [len(tiny[s]) for s in ("train", "dev", "test")] == [3, 2, 1]


def test_multiword_and_empty_nodes_are_dropped_with_heads_kept(tiny):
    s = tiny["train"][2]  # We ca n't stay .  (with the range 2-3 can't)
    assert s.forms.tolist() == ["We", "ca", "n't", "stay", "."]
    assert s.heads.tolist() == [4, 4, 4, 0, 4]
    assert s.multiword == ((2, 3, "can't"),)
    d = tiny["dev"][0]  # has the empty node 5.1
    assert "fly" == d.forms[1] and len(d) == 7
    assert d.heads.tolist() == [2, 0, 2, 6, 6, 2, 2]
    assert d.deprel[5] == "conj"


def test_arrays_and_features(tiny):
    s = tiny["train"][1]
    assert s.upos.tolist() == ["DET", "ADJ", "NOUN", "VERB", "ADP", "PRON", "PUNCT"]
    assert s.feats[2] == {"Number": "Sing"} and s.feats[4] == {}
    assert s.xpos[3] == "VBD" and s.lemmas[5] == "I"
    assert s.heads.dtype == np.int64
    assert s.sent_id == "tiny-train-2" and s.text == "The small dog barked at me."
    assert s.arc_lengths().tolist() == [2, 1, 1, 1, 2, 3]
    assert treebanks.upos_index([s]).tolist() == [5, 0, 7, 15, 1, 10, 12]


def test_a_copy_of_a_treebank_is_read_from_where_it_is(tmp_path):
    """Reads are memoised, but sentences record their file: a copy read after the first one was
    deleted must point at itself, not at the deleted files."""
    first, second = tmp_path / "first", tmp_path / "second"
    shutil.copytree(FIXTURES / "tiny", first)
    shutil.copytree(FIXTURES / "tiny", second)
    assert {s.path.parent for s in treebanks.load_treebank(first)["train"]} == {first}
    shutil.rmtree(first)
    copy = treebanks.load_treebank(second)
    assert {s.path.parent for s in copy["train"]} == {second}
    assert treebanks.file_sha256(copy["train"][0].path) == copy.files.sha256()["train"]


def test_sha256_matches_hashlib(tiny):
    for split, path in tiny.files.files.items():
        assert tiny.files.sha256()[split] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_sampling_is_seeded_and_in_corpus_order(ewt):
    a = treebanks.sample_sentences(ewt["dev"], 100, seed=7)
    b = treebanks.sample_sentences(ewt["dev"], 100, seed=7)
    c = treebanks.sample_sentences(ewt["dev"], 100, seed=8)
    assert [s.sent_id for s in a] == [s.sent_id for s in b]
    assert [s.sent_id for s in a] != [s.sent_id for s in c]
    index = {s.sent_id: i for i, s in enumerate(ewt["dev"])}
    positions = [index[s.sent_id] for s in a]
    assert positions == sorted(positions)
    bounded = treebanks.sample_sentences(ewt["dev"], None, seed=0, min_len=2, max_len=50)
    assert all(2 <= len(s) <= 50 for s in bounded)
    # A chapter's "0 means all", for the sample size and for the length bound alike.
    assert treebanks.sample_sentences(ewt["dev"], 0, seed=3) == list(ewt["dev"])
    assert treebanks.sample_sentences(ewt["dev"], 0, seed=3, max_len=0) == list(ewt["dev"])
    assert treebanks.sample_sentences(ewt["dev"], 0, seed=0, min_len=2, max_len=50) == bounded


def test_ewt_reads_completely(ewt):
    """Every EWT tree is valid: one root, no cycle (checked by the reader), heads in range."""
    summary = treebanks.split_summary(ewt)
    assert summary.loc["dev", "sentences"] == len(ewt["dev"]) > 1000
    for s in ewt["dev"]:
        assert (s.heads >= 0).all() and (s.heads <= len(s)).all()
        assert (s.heads == 0).sum() == 1


def test_cli_reports_input_errors_without_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "probekit.cli", "data", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and "Traceback" not in proc.stderr
