"""probekit.io.cache: atomic entries, checksums, corruption and killed writers."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from probekit.cli import main
from probekit.errors import CacheError
from probekit.io import cache as cache_module
from probekit.io.cache import HEADROOM, Cache, cached_json, key_digest
from probekit.io.embeddings import DEFAULT_MODEL


def _build(values):
    def build(w):
        w.array("x", values)
        w.json("meta", {"n": int(len(values))})

    return build


def test_roundtrip_and_memory_map(tmp_path):
    cache = Cache(tmp_path)
    key = {"kind": "t", "a": 1}
    entry = cache.get_or_create(key, _build(np.arange(10, dtype=np.float16)))
    assert isinstance(entry.array("x"), np.memmap)
    assert entry.array("x").tolist() == list(range(10)) and entry.json("meta") == {"n": 10}
    calls = []
    again = cache.get_or_create(key, lambda w: calls.append(1))
    assert calls == [] and again.path == entry.path


def test_key_is_content_addressed(tmp_path):
    assert key_digest({"a": 1, "b": 2}) == key_digest({"b": 2, "a": 1})
    assert key_digest({"a": 1}) != key_digest({"a": 2})
    cache = Cache(tmp_path)
    e1 = cache.get_or_create({"kind": "t", "a": 1}, _build(np.zeros(3)))
    e2 = cache.get_or_create({"kind": "t", "a": 2}, _build(np.ones(3)))
    assert e1.path != e2.path


def test_failed_build_leaves_nothing(tmp_path):
    cache = Cache(tmp_path)

    def boom(w):
        w.array("x", np.zeros(3))
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        cache.get_or_create({"kind": "t"}, boom)
    assert cache.get({"kind": "t"}) is None
    assert list((tmp_path / "t").iterdir()) == []


@pytest.mark.parametrize("damage", ["flip", "truncate", "manifest"])
def test_corrupt_entry_is_detected_and_rebuilt(tmp_path, damage):
    from probekit.io import cache as cache_module

    cache = Cache(tmp_path)
    key = {"kind": "t", "damage": damage}
    entry = cache.get_or_create(key, _build(np.arange(1000, dtype=np.float32)))
    target = entry.path / "x.npy"
    if damage == "flip":
        raw = bytearray(target.read_bytes())
        raw[-5] ^= 0xFF
        target.write_bytes(bytes(raw))
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:-100])
    else:
        (entry.path / "manifest.json").write_text("{not json")
    cache_module._VERIFIED.clear()  # a new process would verify again
    assert cache.get(key) is None
    rebuilt = cache.get_or_create(key, _build(np.arange(1000, dtype=np.float32)))
    assert rebuilt.array("x")[-1] == 999


def test_cached_json(tmp_path):
    cache = Cache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return {"uuas": 0.5}

    assert cached_json({"kind": "r", "x": 1}, compute, cache) == {"uuas": 0.5}
    assert cached_json({"kind": "r", "x": 1}, compute, cache) == {"uuas": 0.5}
    assert calls == [1]


def _disk_with_free(free):
    real = shutil.disk_usage

    def usage(path):
        return real(path)._replace(free=free)

    return usage


def test_an_entry_the_disk_cannot_hold_is_refused_before_it_is_written(tmp_path, monkeypatch):
    cache = Cache(tmp_path)
    # 1,000 rows of 256 float16 fit in 1 MB of room beyond the headroom; the second array does not.
    monkeypatch.setattr(cache_module.shutil, "disk_usage", _disk_with_free(HEADROOM + 10**6))
    written = []

    def build(w):
        written.append(w.open_array("layer_00", (1000, 256), np.float16))
        written.append(w.open_array("layer_01", (1000, 256), np.float16))

    with pytest.raises(CacheError) as info:
        cache.get_or_create({"kind": "t"}, build)
    message = str(info.value)
    free = f"{cache_module.human_size(HEADROOM + 10**6)} is free"
    assert "'layer_01'" in message and "1.0 MB" in message and free in message
    assert "PROBEKIT_CACHE" in message
    assert len(written) == 1  # the first array was within the room, the second never opened
    assert cache.get({"kind": "t"}) is None
    assert list((tmp_path / "t").iterdir()) == []
    # With room enough, the same entry is built.
    monkeypatch.undo()
    assert cache.get_or_create({"kind": "t"}, build).array("layer_01").shape == (1000, 256)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_disk_that_fills_while_writing_is_a_cache_error_and_leaves_nothing(tmp_path, code):
    cache = Cache(tmp_path)

    def build(w):
        w.array("x", np.zeros(3))
        raise OSError(code, os.strerror(code))

    with pytest.raises(CacheError, match="filled up"):
        cache.get_or_create({"kind": "t"}, build)
    assert list((tmp_path / "t").iterdir()) == []


def test_other_os_errors_keep_their_type(tmp_path):
    def build(w):
        raise PermissionError(errno.EACCES, "denied")

    with pytest.raises(PermissionError):
        Cache(tmp_path).get_or_create({"kind": "t"}, build)


def _fill(cache):
    """Entries of two models and a kind without one, plus a partial build left by a killed run."""
    for model, n in (("a", 10), ("a", 20), ("b", 30)):
        cache.get_or_create({"kind": "embeddings", "model": model, "n": n}, _build(np.zeros(n)))
    cache.get_or_create({"kind": "fasttext", "dim": 4}, _build(np.zeros(5, dtype=np.float32)))
    (tmp := cache.root / "embeddings" / ".0123.tmp").mkdir()
    (tmp / "x.npy").write_bytes(b"half")
    # A finished build not yet renamed into place: its manifest is written, it is not an entry.
    done = cache.get_or_create({"kind": "embeddings", "model": "a", "n": 1}, _build(np.zeros(1)))
    shutil.copytree(done.path, cache.root / "embeddings" / ".4567.tmp")
    cache.remove([e for e in cache.entries() if e.key.get("n") == 1])


def test_entries_are_listed_by_kind_and_model_with_their_sizes(tmp_path):
    cache = Cache(tmp_path)
    _fill(cache)
    listed = cache.entries()
    assert sorted((e.kind, e.key.get("model")) for e in listed) == [
        ("embeddings", "a"),
        ("embeddings", "a"),
        ("embeddings", "b"),
        ("fasttext", None),
    ]
    for e in listed:  # the size is that of the entry's files, from its manifest
        files = [f for f in e.path.iterdir() if f.name != "manifest.json"]
        assert e.size == sum(f.stat().st_size for f in files) > 0
    assert [e.key["n"] for e in cache.entries(model="a")] in ([10, 20], [20, 10])
    assert [e.kind for e in cache.entries(kind="fasttext")] == ["fasttext"]
    assert cache.entries(kind="embeddings", model="c") == []
    assert Cache(tmp_path / "absent").entries() == []


def test_removed_entries_are_gone_and_the_others_still_read(tmp_path):
    cache = Cache(tmp_path)
    _fill(cache)
    chosen = cache.entries(model="a")
    assert cache.remove(chosen) == sum(e.size for e in chosen)
    assert cache.entries(model="a") == []
    assert all(not e.path.exists() for e in chosen)
    assert cache.get({"kind": "embeddings", "model": "a", "n": 10}) is None
    kept = cache.get({"kind": "embeddings", "model": "b", "n": 30})
    assert kept is not None and kept.array("x").shape == (30,)
    assert cache.remove(chosen) == 0  # already gone


def test_cache_command_lists_removes_and_refuses_an_unfiltered_remove(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PROBEKIT_CACHE", str(tmp_path))
    cache = Cache(tmp_path)
    _fill(cache)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert "embeddings     2 entries" in out and out.rstrip().count("\n") >= 4
    assert "total 4 entries" in out and "free on its disk" in out
    # Removing needs a choice, named before anything is deleted.
    assert main(["cache", "remove"]) == 2
    assert "parameter 'remove'" in capsys.readouterr().err
    assert len(cache.entries()) == 4
    assert main(["cache", "remove", "--model", "a", "--dry-run"]) == 0
    assert "would remove 2 entries" in capsys.readouterr().out
    assert len(cache.entries()) == 4
    assert main(["cache", "remove", "--model", "a"]) == 0
    assert "removed 2 entries" in capsys.readouterr().out
    assert main(["cache", "remove", "--model", "c"]) == 0
    assert "nothing stored matches; kind/model stored: embeddings/b, fasttext/-" in (
        capsys.readouterr().out
    )
    # The packaged encoder is stored under its full name and removed under the names users give.
    default = {"kind": "embeddings", "model": DEFAULT_MODEL}
    cache.get_or_create(default, _build(np.zeros(2)))
    assert main(["cache", "remove", "--model", "default"]) == 0
    assert "removed 1 entry (" in capsys.readouterr().out and cache.get(default) is None
    assert sorted(e.key.get("model", "-") for e in cache.entries()) == ["-", "b"]
    assert main(["cache", "clean"]) == 0
    assert "removed 2 entries left partial" in capsys.readouterr().out
    assert not (tmp_path / "embeddings" / ".0123.tmp").exists()
    assert main(["cache", "remove", "--all"]) == 0
    assert cache.entries() == []


@pytest.mark.model
def test_sigkill_during_extraction_leaves_no_valid_entry(tmp_path, ewt):
    """Kill a real embedding run mid-way: no entry is read as valid, and the next run completes."""
    script = textwrap.dedent(f"""
        import os
        os.environ["PROBEKIT_CACHE"] = {str(tmp_path)!r}
        from probekit.io.treebanks import load_treebank
        from probekit.io.embeddings import embed
        tb = load_treebank("UD_English-EWT", ["dev"])
        embed(tb["dev"][:600], model="default", pooling="mean", max_tokens=512, progress=False)
        print("finished")
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    kind = tmp_path / "embeddings"
    deadline = time.time() + 300
    # Wait until extraction is under way: the temporary entry holds its layer files.
    while time.time() < deadline:
        tmps = [p for p in kind.glob(".*.tmp")] if kind.is_dir() else []
        if tmps and any(tmps[0].glob("layer_*.npy")):
            break
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not [p for p in kind.iterdir() if not p.name.startswith(".")], "entry promoted"

    from probekit.io.embeddings import embed
    from probekit.io.treebanks import load_treebank

    sentences = load_treebank("UD_English-EWT", ["dev"])["dev"][:600]
    cache = Cache(tmp_path)
    emb = embed(sentences, model="default", pooling="mean", cache=cache, progress=False)
    assert emb.layer(6).shape == (sum(len(s) for s in sentences), 384)
    assert np.isfinite(np.asarray(emb.layer(6), dtype=np.float32)).all()
    assert np.abs(np.asarray(emb.layer(6)[-1], dtype=np.float32)).sum() > 0  # last row written
    assert cache.clean_partial() == 1  # the killed run's temporary directory


def _race(args):
    """One of several processes asking for the same entry at once; returns what it read."""
    root, barrier_dir, n = args
    # Start together: wait until every process has arrived.
    Path(barrier_dir, str(os.getpid())).touch()
    while len(list(Path(barrier_dir).iterdir())) < n:
        time.sleep(0.001)

    def build(w):
        with open(Path(root) / "builds.log", "a") as log:
            log.write(f"{os.getpid()}\n")
        time.sleep(0.2)  # a slow build, so the others arrive while it runs
        w.array("x", np.arange(1000, dtype=np.float32) * 2)
        w.json("meta", {"by": os.getpid()})

    entry = Cache(root).get_or_create({"kind": "race", "v": 1}, build)
    return entry.json("meta")["by"], float(entry.array("x").sum())


def test_processes_racing_on_one_entry_build_it_once_and_read_the_same(tmp_path):
    """Chapters on parallel workers need the same embeddings: one builds, the others wait, then
    read the winner's entry; no second build, no partial entry, no error."""
    from multiprocessing import get_context

    n = 6
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    with get_context("fork").Pool(n) as pool:
        seen = pool.map(_race, [(str(tmp_path / "cache"), str(barrier), n)] * n)
    builders = (tmp_path / "cache" / "builds.log").read_text().split()
    assert len(builders) == 1
    assert set(seen) == {(int(builders[0]), float(np.arange(1000).sum() * 2))}
    entries = [p for p in (tmp_path / "cache" / "race").iterdir() if not p.name.startswith(".")]
    assert len(entries) == 1 and not list((tmp_path / "cache" / "race").glob(".*.tmp"))
