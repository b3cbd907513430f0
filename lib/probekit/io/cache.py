"""A content-keyed on-disk store for embeddings and other expensive results.

An entry is a directory named by the sha256 of its key (a JSON-able dict: model, revision,
treebank file hash, pooling, dtype, ...). It holds ``.npy`` arrays (memory-mappable, never
pickled), optional JSON files, and ``manifest.json`` with the key and the sha256 and size of every
file. Writes are atomic: the entry is built in a temporary sibling directory, every file is
fsynced, the manifest is written last, and the directory is renamed into place, under a per-entry
file lock so that concurrent processes build an entry once. A reader checks the
manifest and the checksums (once per process per entry), so an entry left by a killed run is never
seen, and a corrupted one is detected, removed and rebuilt. An array is written only after
the disk is known to have room for it, so a full disk is a clear error, not a crash midway.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from probekit.errors import CacheError
from probekit.io.project import find_project_root

MANIFEST = "manifest.json"
FORMAT = 1
_VERIFIED: set[tuple[str, int]] = set()
# Room kept free beyond an entry's arrays: its manifest and small files, and other processes
# writing to the same disk meanwhile.
HEADROOM = 64 << 20
_NO_SPACE_HINT = (
    "free disk space, or set PROBEKIT_CACHE to a directory on a larger disk; "
    "`probekit cache remove` deletes entries you no longer need"
)


def cache_root() -> Path:
    """The cache's root directory.

    ``$PROBEKIT_CACHE``, else ``.cache/probekit`` in the project
    (:func:`probekit.io.project.find_project_root`), else ``~/.cache/probekit``.
    """
    env = os.environ.get("PROBEKIT_CACHE")
    if env:
        return Path(env).expanduser().resolve()
    root = find_project_root()
    return (root if root else Path.home()) / ".cache" / "probekit"


def key_digest(key: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of ``key`` (sorted keys, no whitespace)."""
    canonical = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Entry:
    """A finished, verified cache entry: read arrays (memory-mapped) and JSON from it."""

    def __init__(self, path: Path, manifest: dict[str, Any]):
        """Wrap the entry directory ``path`` and its parsed manifest."""
        self.path = path
        self.manifest = manifest

    @property
    def key(self) -> dict[str, Any]:
        """The key the entry was stored under (from its manifest)."""
        return self.manifest["key"]

    def array(self, name: str, mmap: bool = True) -> np.ndarray:
        """The array ``<name>.npy``, memory-mapped read-only unless ``mmap`` is False."""
        return np.load(
            self.path / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False
        )

    def json(self, name: str) -> Any:
        """The parsed contents of ``<name>.json``."""
        return json.loads((self.path / f"{name}.json").read_text())


class Writer:
    """Collects the files of an entry under construction in a temporary directory.

    Arrays are checked against the free space of the disk before they are written: a
    memory-mapped array is a sparse file that takes its disk space only as it is filled, and a
    full disk would then kill the process (SIGBUS) instead of raising an error.
    """

    def __init__(self, tmp: Path):
        """Write into the temporary directory ``tmp``."""
        self.dir = tmp
        self.reserved = 0  # bytes of the arrays of this entry so far

    def _reserve(self, name: str, nbytes: int) -> None:
        self.reserved += nbytes
        free = shutil.disk_usage(self.dir).free
        if free < self.reserved + HEADROOM:
            raise CacheError(
                f"no room on disk for the cache entry being built in {self.dir.parent}: its "
                f"arrays up to {name!r} need {human_size(self.reserved)} (plus "
                f"{human_size(HEADROOM)} kept free), and {human_size(free)} is free",
                hint=_NO_SPACE_HINT,
            )

    def path(self, filename: str) -> Path:
        """Where a file named ``filename`` goes in the entry (for writers of other formats)."""
        return self.dir / filename

    def array(self, name: str, value: np.ndarray) -> None:
        """Save ``value`` as ``<name>.npy`` (C-contiguous, no pickles)."""
        self._reserve(name, np.asarray(value).nbytes)
        np.save(self.dir / f"{name}.npy", np.ascontiguousarray(value), allow_pickle=False)

    def open_array(self, name: str, shape: tuple[int, ...], dtype: Any) -> np.memmap:
        """A writable memory-mapped ``.npy`` to fill in place (for arrays built in pieces)."""
        self._reserve(name, int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize)
        return np.lib.format.open_memmap(
            self.dir / f"{name}.npy", mode="w+", dtype=dtype, shape=shape
        )

    def json(self, name: str, value: Any) -> None:
        """Save ``value`` as ``<name>.json`` (sorted keys)."""
        (self.dir / f"{name}.json").write_text(json.dumps(value, sort_keys=True, indent=1))


class Cache:
    """The store. ``get_or_create(key, build)`` is the one entry point most code needs."""

    def __init__(self, root: str | os.PathLike | None = None):
        """Use the directory ``root``, or :func:`cache_root` when None."""
        self.root = Path(root) if root is not None else cache_root()

    def entry_path(self, key: dict[str, Any]) -> Path:
        """The directory of ``key``'s entry: ``<root>/<kind>/<key digest>``."""
        kind = str(key.get("kind", "entry"))
        return self.root / kind / key_digest(key)

    def get(self, key: dict[str, Any]) -> Entry | None:
        """The verified entry for ``key``, or None. A corrupt entry is removed and None returned."""
        path = self.entry_path(key)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            return None
        try:
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("format") != FORMAT or manifest.get("key_digest") != key_digest(key):
                raise ValueError("manifest does not match its key")
            stamp = (str(path), manifest_path.stat().st_mtime_ns)
            if stamp not in _VERIFIED:
                for name, info in manifest["files"].items():
                    f = path / name
                    if f.stat().st_size != info["size"] or _sha256(f) != info["sha256"]:
                        raise ValueError(f"checksum mismatch in {name}")
                _VERIFIED.add(stamp)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self._discard(path, reason=str(exc))
            return None
        return Entry(path, manifest)

    def get_or_create(self, key: dict[str, Any], build: Callable[[Writer], None]) -> Entry:
        """The entry for ``key``, built with ``build(writer)`` when absent or corrupt."""
        entry = self.get(key)
        if entry is not None:
            return entry
        final = self.entry_path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        with _building(self.root / ".locks" / f"{final.parent.name}-{final.name}.lock"):
            # Another process may have built the entry while this one waited for the lock.
            entry = self.get(key)
            return entry if entry is not None else self._create(key, final, build)

    def _create(self, key: dict[str, Any], final: Path, build: Callable[[Writer], None]) -> Entry:
        """Build the entry in a temporary sibling of ``final`` and rename it into place."""
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name[:16]}.", suffix=".tmp", dir=final.parent))
        try:
            build(Writer(tmp))
            files = {}
            for f in sorted(tmp.iterdir()):
                _fsync(f)
                files[f.name] = {"size": f.stat().st_size, "sha256": _sha256(f)}
            manifest = {"format": FORMAT, "key": key, "key_digest": key_digest(key), "files": files}
            (tmp / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=1, default=str))
            _fsync(tmp / MANIFEST)
            if final.exists():  # a corrupt leftover (a finished entry returned under the lock)
                self._discard(final, reason="replaced")
            os.rename(tmp, final)
            with contextlib.suppress(OSError):
                _fsync(final.parent)
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise CacheError(
                    f"the disk filled up while the cache entry {final} was written",
                    hint=_NO_SPACE_HINT,
                ) from exc
            raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        entry = self.get(key)
        if entry is None:
            raise CacheError(
                f"cache entry {final} failed its checksum right after writing",
                hint="check the disk; remove the cache directory and re-run",
            )
        return entry

    def _discard(self, path: Path, reason: str) -> None:
        if path.exists():
            # Rename first so that a half-removed directory never looks like an entry.
            trash = path.with_name(f".{path.name}.discarded-{os.getpid()}")
            with contextlib.suppress(OSError):
                os.rename(path, trash)
                path = trash
            shutil.rmtree(path, ignore_errors=True)

    def entries(self, kind: str | None = None, model: str | None = None) -> list[Stored]:
        """The finished entries, optionally of one ``kind`` and one ``model`` (a key field).

        Only manifests are read, not checksums: this lists and sizes the store, it does not
        vouch for its contents (:meth:`get` does that on use).
        """
        found = []
        if not self.root.is_dir():
            return found
        for kind_dir in sorted(self.root.iterdir()):
            if kind_dir.name.startswith(".") or not kind_dir.is_dir():
                continue
            if kind is not None and kind_dir.name != kind:
                continue
            for path in sorted(kind_dir.iterdir()):
                if path.name.startswith("."):
                    continue  # a build under way or killed, or an entry being discarded
                try:
                    manifest = json.loads((path / MANIFEST).read_text())
                    key = manifest["key"]
                    size = sum(int(f["size"]) for f in manifest["files"].values())
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # a broken entry: get() discards it when it is next looked up
                if model is not None and key.get("model") != model:
                    continue
                found.append(Stored(path, kind_dir.name, key, size))
        return found

    def remove(self, entries: Iterable[Stored]) -> int:
        """Delete ``entries`` (from :meth:`entries`); returns the bytes their files held.

        A process that has an entry's arrays memory-mapped keeps reading them: the files are
        unlinked, not truncated. One that looks the entry up later rebuilds it.
        """
        freed = 0
        for stored in entries:
            if stored.path.exists():
                self._discard(stored.path, reason="removed")
                freed += stored.size
        return freed

    def clean_partial(self) -> int:
        """Remove temporary directories left by killed runs; returns how many were removed.

        Only while no other process uses the cache: a running build's directory looks the same.
        """
        removed = 0
        if not self.root.is_dir():
            return 0
        for kind in self.root.iterdir():
            if not kind.is_dir():
                continue
            for child in kind.iterdir():
                if child.name.startswith(".") and child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)
                    removed += 1
        return removed


@dataclass(frozen=True)
class Stored:
    """A finished entry as listed by :meth:`Cache.entries`: where, what kind, its key, its bytes."""

    path: Path
    kind: str
    key: dict[str, Any]
    size: int


def human_size(nbytes: int) -> str:
    """``nbytes`` for people: 3.1 GB, 54 MB, 12 kB (decimal units, as ``df -H`` prints)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} B"


@contextlib.contextmanager
def _building(lock_path: Path) -> Iterator[None]:
    """Hold the exclusive lock of one entry, ``lock_path``, while the entry is checked and built.

    Processes that need the same entry (chapters side by side on Dask workers) queue here: the
    first builds it, the others then find it finished and read it, so nothing is computed twice.
    ``flock`` locks are released by the kernel when a process dies, so a killed build never
    blocks the next one. The lock files stay, empty, in ``<root>/.locks`` (removing one would
    race with a process about to open it).
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def cached_json(key: dict[str, Any], compute: Callable[[], Any], cache: Cache | None = None) -> Any:
    """Memoise a JSON-able result (tables, scores) under ``key`` in the cache."""
    store = cache or Cache()
    entry = store.get_or_create(key, lambda w: w.json("value", compute()))
    return entry.json("value")
