"""Treebanks: registry, resolution, CoNLL-U reading with validation, sampling and hashing.

A treebank is named by its UD name (``UD_English-EWT``) or by a directory that holds
``*-ud-{train,dev,test}.conllu``. Names resolve in this order:

1. the project data dir (``data/`` of the repository, or ``$PROBEKIT_DATA``);
2. a mirror dir (``$PROBEKIT_DATA_MIRROR``; where that is unset and ``../shared/data`` exists
   beside the repository, that);
3. the official UD release, downloaded into the data dir, for users with internet.

Reading checks every line before ``conllu`` parses the fields, so that a malformed file gets one
error that names file and line (:class:`probekit.errors.ConlluError`). Multiword-token ranges
(``1-2``) and empty nodes (``8.1``) are dropped from the word sequence; heads keep pointing at the
right words because UD heads only ever refer to plain word IDs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from conllu.parser import parse_comment_line, parse_dict_value

from probekit.errors import ConlluError, DataNotFoundError
from probekit.io.project import find_project_root

SPLITS = ("train", "dev", "test")
UD_VERSION = "2.16"
# The official release per treebank repository, tagged r<version>.
UD_LISTING = "https://api.github.com/repos/UniversalDependencies/{name}/contents?ref=r{version}"
UD_RAW = "https://raw.githubusercontent.com/UniversalDependencies/{name}/r{version}/{file}"

_INT = re.compile(r"^[1-9][0-9]*$")
_RANGE = re.compile(r"^[1-9][0-9]*-[1-9][0-9]*$")
_EMPTY = re.compile(r"^[0-9]+\.[1-9][0-9]*$")


@dataclass(frozen=True, eq=False)
class Sentence:
    """One sentence of a treebank, words only (no multiword ranges, no empty nodes).

    Arrays have shape (n,) for n words. ``heads`` is 1-based with 0 for the root, as in CoNLL-U.
    ``path`` and ``line`` locate the sentence's first line for error messages and provenance.
    """

    sent_id: str
    text: str | None
    forms: np.ndarray
    lemmas: np.ndarray
    upos: np.ndarray
    xpos: np.ndarray
    feats: tuple[dict[str, str], ...]
    heads: np.ndarray
    deprel: np.ndarray
    path: Path
    line: int
    metadata: dict[str, str] = field(default_factory=dict)
    # (first word id, last word id, surface form) of each multiword token, for writing text back.
    multiword: tuple[tuple[int, int, str], ...] = ()
    # SpaceAfter=No per word, for rebuilding ``# text``.
    no_space_after: np.ndarray | None = None

    def __len__(self) -> int:
        """The number of words in the sentence."""
        return len(self.forms)

    def arc_lengths(self) -> np.ndarray:
        """|dependent - head| for every non-root word, shape (n_arcs,)."""
        idx = np.arange(1, len(self) + 1)
        mask = self.heads > 0
        return np.abs(idx[mask] - self.heads[mask])


@dataclass(frozen=True)
class TreebankFiles:
    """Where a treebank resolved: its split files, their sha256 and the source kind."""

    name: str
    directory: Path
    files: dict[str, Path]
    source: str  # "data", "mirror", "download" or "path"

    def sha256(self) -> dict[str, str]:
        """The sha256 of each split file, by split."""
        return {split: file_sha256(p) for split, p in self.files.items()}


# --------------------------------------------------------------------------------------------
# Resolution


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def data_dir() -> Path:
    """The project data dir.

    ``$PROBEKIT_DATA``, else ``data/`` in the project
    (:func:`probekit.io.project.find_project_root`), else ``data/`` in the working directory.
    """
    env = os.environ.get("PROBEKIT_DATA")
    if env:
        return Path(env).expanduser().resolve()
    return (find_project_root() or Path.cwd().resolve()) / "data"


def mirror_dir() -> Path | None:
    """``$PROBEKIT_DATA_MIRROR``, else ``../shared/data`` beside the project when present."""
    env = os.environ.get("PROBEKIT_DATA_MIRROR")
    if env:
        return Path(env).expanduser().resolve()
    root = find_project_root()
    shared = root.parent / "shared" / "data" if root else None
    return shared if shared is not None and shared.is_dir() else None


def split_files(directory: Path) -> dict[str, Path]:
    """Map each split present in ``directory`` to its ``*-ud-<split>.conllu`` file."""
    found: dict[str, Path] = {}
    for split in SPLITS:
        matches = sorted(directory.glob(f"*-ud-{split}.conllu"))
        if len(matches) > 1:
            raise DataNotFoundError(
                f"{directory}: several {split} files: {', '.join(m.name for m in matches)}",
                hint="keep one *-ud-<split>.conllu per split in a treebank directory",
            )
        if matches:
            found[split] = matches[0]
    return found


def _find_in(root: Path, name: str) -> Path | None:
    if not root.is_dir():
        return None
    want = _normalise(name)
    for child in sorted(root.iterdir()):
        if child.is_dir() and _normalise(child.name) == want:
            return child
    return None


def resolve_treebank(
    name: str | os.PathLike, splits: Sequence[str] = SPLITS, download: bool = True
) -> TreebankFiles:
    """Resolve a UD name or a directory to its split files (order in the module docstring).

    Raises :class:`DataNotFoundError` naming every place searched when nothing matches, and naming
    the missing file when a split in ``splits`` is absent.
    """
    for split in splits:
        if split not in SPLITS:
            raise DataNotFoundError(f"unknown split '{split}'", hint=f"use one of {SPLITS}")
    text = str(name)
    as_path = Path(text).expanduser()
    searched: list[str] = []
    if as_path.is_dir():
        directory, source = as_path.resolve(), "path"
    elif os.sep in text or text.startswith("."):
        raise DataNotFoundError(
            f"treebank directory {as_path} does not exist",
            hint="pass a directory holding *-ud-{train,dev,test}.conllu, or a UD name",
        )
    else:
        directory = None
        for root, kind in ((data_dir(), "data"), (mirror_dir(), "mirror")):
            if root is None:
                continue
            searched.append(str(root))
            directory = _find_in(root, text)
            if directory is not None:
                source = kind
                break
        if directory is None:
            if not download:
                raise _unknown(text, searched)
            directory, source = _download(text, searched), "download"
    files = split_files(directory)
    for split in splits:
        if split not in files:
            raise DataNotFoundError(
                f"{directory}: missing split file *-ud-{split}.conllu",
                hint=f"found: {', '.join(p.name for p in files.values()) or 'no .conllu files'}",
            )
    return TreebankFiles(
        name=text if source != "path" else directory.name,
        directory=directory,
        files={s: files[s] for s in splits},
        source=source,
    )


def _unknown(name: str, searched: list[str]) -> DataNotFoundError:
    return DataNotFoundError(
        f"unknown treebank '{name}': not found in {' or '.join(searched) or 'any data dir'}"
        " and not downloadable",
        hint="use a UD name such as UD_English-EWT (with internet), put the treebank directory "
        "into data/, or pass a directory path",
    )


def _download(name: str, searched: list[str]) -> Path:
    """Fetch the official UD release of ``name`` into the data dir (users with internet only)."""
    try:
        with urllib.request.urlopen(
            UD_LISTING.format(name=name, version=UD_VERSION), timeout=20
        ) as response:
            listing = json.load(response)
        names = [e["name"] for e in listing if e["name"].endswith(".conllu")]
        if not names:
            raise _unknown(name, searched)
        target = data_dir() / name
        target.mkdir(parents=True, exist_ok=True)
        for file in names:
            url = UD_RAW.format(name=name, version=UD_VERSION, file=file)
            tmp = target / (file + ".part")
            with urllib.request.urlopen(url, timeout=60) as response, open(tmp, "wb") as out:
                out.write(response.read())
            os.replace(tmp, target / file)
        return target
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as exc:
        raise _unknown(name, searched + [f"UD r{UD_VERSION} download ({exc})"]) from None


# --------------------------------------------------------------------------------------------
# Hashing

_HASHES: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file, memoised on (path, size, mtime) so that repeated calls are free."""
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


# --------------------------------------------------------------------------------------------
# Reading


def _blocks(path: Path) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """Yield (first line number, [(line number, line)]) per sentence block; check the framing."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataNotFoundError(f"{path}: file not found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConlluError(path, line, "not valid UTF-8") from None
    if not text.strip():
        raise ConlluError(path, 1, "empty file: no sentences", hint="check the file was copied")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline
    if lines and lines[-1].strip() != "":
        raise ConlluError(
            path,
            len(lines),
            "missing blank line after the last sentence",
            hint="every sentence, the last one too, ends with an empty line",
        )
    block: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if line.strip() == "":
            if block:
                yield block[0][0], block
                block = []
        else:
            block.append((number, line.rstrip("\r")))


def _parse_block(path: Path, block: list[tuple[int, str]]) -> Sentence:
    metadata: dict[str, str] = {}
    words: list[tuple[int, list[str]]] = []
    multiword: list[tuple[int, int, str]] = []
    for number, line in block:
        if line.startswith("#"):
            for key, value in parse_comment_line(line) or ():
                if value is not None:
                    metadata[str(key)] = str(value)
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise ConlluError(
                path,
                number,
                f"expected 10 tab-separated columns, found {len(cols)}",
                hint="CoNLL-U separates columns by single tabs; spaces are not separators",
            )
        wid = cols[0]
        if _INT.match(wid):
            words.append((number, cols))
        elif _RANGE.match(wid):
            first, last = (int(x) for x in wid.split("-"))
            multiword.append((first, last, cols[1]))
        elif _EMPTY.match(wid):
            continue  # empty nodes carry enhanced-graph heads only
        else:
            raise ConlluError(
                path,
                number,
                f"ID '{wid}' is not an integer (nor a range a-b or an empty node a.b)",
            )
    if not words:
        raise ConlluError(path, block[0][0], "sentence has no words")
    n = len(words)
    heads = np.empty(n, dtype=np.int64)
    for i, (number, cols) in enumerate(words):
        if int(cols[0]) != i + 1:
            raise ConlluError(path, number, f"word ID {cols[0]} out of order: expected {i + 1}")
        head = cols[6]
        if not (head == "0" or _INT.match(head)):
            raise ConlluError(path, number, f"HEAD '{head}' is not an integer")
        heads[i] = int(head)
        if heads[i] > n:
            raise ConlluError(
                path, number, f"HEAD {heads[i]} out of range: the sentence has {n} words"
            )
        if heads[i] == i + 1:
            raise ConlluError(path, number, f"word {i + 1} is its own head")
    _check_tree(path, words, heads)
    feats = tuple(parse_dict_value(cols[5]) or {} for _, cols in words)
    no_space = np.array(["SpaceAfter=No" in cols[9].split("|") for _, cols in words])
    return Sentence(
        sent_id=metadata.get("sent_id", f"{path.name}:{block[0][0]}"),
        text=metadata.get("text"),
        forms=np.array([c[1] for _, c in words]),
        lemmas=np.array([c[2] for _, c in words]),
        upos=np.array([c[3] for _, c in words]),
        xpos=np.array([c[4] for _, c in words]),
        feats=feats,
        heads=heads,
        deprel=np.array([c[7] for _, c in words]),
        path=path,
        line=block[0][0],
        metadata=metadata,
        multiword=tuple(multiword),
        no_space_after=no_space,
    )


def _check_tree(path: Path, words: list[tuple[int, list[str]]], heads: np.ndarray) -> None:
    """One root and no cycle; errors name the line of an offending word."""
    roots = np.flatnonzero(heads == 0)
    if len(roots) == 0:
        raise ConlluError(path, words[0][0], "no root: no word has HEAD 0 (so the heads cycle)")
    if len(roots) > 1:
        lines = ", ".join(str(words[r][0]) for r in roots)
        raise ConlluError(
            path, words[roots[1]][0], f"several roots: words on lines {lines} all have HEAD 0"
        )
    # Follow heads upwards from every word; a walk longer than n steps is in a cycle.
    n = len(heads)
    state = np.zeros(n + 1, dtype=np.int8)  # 0 unseen, 1 on current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path_nodes = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path_nodes.append(node)
            node = heads[node - 1]
        if state[node] == 1:
            raise ConlluError(path, words[node - 1][0], f"cycle in the heads through word {node}")
        for v in path_nodes:
            state[v] = 2


def read_conllu(path: str | os.PathLike) -> list[Sentence]:
    """Read and validate a CoNLL-U file into :class:`Sentence` objects (file order)."""
    p = Path(path)
    return [_parse_block(p, block) for _, block in _blocks(p)]


@dataclass(frozen=True)
class Treebank:
    """A resolved treebank with its sentences per split."""

    files: TreebankFiles
    splits: dict[str, list[Sentence]]

    def __getitem__(self, split: str) -> list[Sentence]:
        """The sentences of ``split`` (e.g. ``"train"``)."""
        return self.splits[split]

    @property
    def name(self) -> str:
        """The treebank's resolved name."""
        return self.files.name

    def provenance(self) -> dict[str, object]:
        """Name, source, directory and per-file sha256, for the provenance box."""
        return {
            "name": self.files.name,
            "source": self.files.source,
            "directory": str(self.files.directory),
            "files": {s: p.name for s, p in self.files.files.items()},
            "sha256": self.files.sha256(),
        }


_TREEBANKS: dict[tuple, Treebank] = {}


def load_treebank(name: str | os.PathLike, splits: Sequence[str] = SPLITS) -> Treebank:
    """Resolve and read a treebank. Reads are memoised by file path and content hash.

    The path is part of the key because every :class:`Sentence` records the file it came from:
    a copy of the same files elsewhere is read again, so that its sentences never point at a
    copy that may since have been moved or deleted.
    """
    files = resolve_treebank(name, splits)
    key = tuple(sorted((s, str(p.resolve()), file_sha256(p)) for s, p in files.files.items()))
    if key not in _TREEBANKS:
        _TREEBANKS[key] = Treebank(files, {s: read_conllu(p) for s, p in files.files.items()})
    cached = _TREEBANKS[key]
    return Treebank(files, cached.splits)


# --------------------------------------------------------------------------------------------
# Sampling and flat arrays


def sample_sentences(
    sentences: Sequence[Sentence],
    n: int | None,
    seed: int,
    min_len: int = 1,
    max_len: int | None = None,
) -> list[Sentence]:
    """A seeded sample of ``n`` sentences with ``min_len <= len <= max_len``, in corpus order.

    The one place where a chapter's "0 means all" is read: ``n`` of 0 or None, or at least the
    eligible sentences, keeps every eligible sentence, and ``max_len`` of 0 or None sets no
    upper bound. The same (sentences, n, seed, bounds) always give the same sample.
    """
    eligible = [
        i
        for i, s in enumerate(sentences)
        if len(s) >= min_len and (not max_len or len(s) <= max_len)
    ]
    if n and n < len(eligible):
        rng = np.random.default_rng(seed)
        eligible = sorted(rng.choice(eligible, size=n, replace=False).tolist())
    return [sentences[i] for i in eligible]


def flat(sentences: Sequence[Sentence], attribute: str) -> np.ndarray:
    """Concatenate one per-word array attribute over sentences, shape (sum of n,)."""
    return np.concatenate([getattr(s, attribute) for s in sentences])


def forms_of(sentence: Any) -> list[str]:
    """The word forms of a :class:`Sentence`, or of any sequence of words, as strings."""
    return [str(w) for w in getattr(sentence, "forms", sentence)]


def offsets(sentences: Sequence[Sentence]) -> np.ndarray:
    """Start index of each sentence in the flat word arrays, shape (len(sentences) + 1,)."""
    return np.concatenate([[0], np.cumsum([len(s) for s in sentences])])


# --------------------------------------------------------------------------------------------
# Descriptive statistics (chapter 01)

UPOS_TAGS = (
    "ADJ",
    "ADP",
    "ADV",
    "AUX",
    "CCONJ",
    "DET",
    "INTJ",
    "NOUN",
    "NUM",
    "PART",
    "PRON",
    "PROPN",
    "PUNCT",
    "SCONJ",
    "SYM",
    "VERB",
    "X",
)


def upos_index(sentences: Sequence[Sentence]) -> np.ndarray:
    """UPOS of every word as an index into :data:`UPOS_TAGS`, shape (sum of n,)."""
    lookup = {t: i for i, t in enumerate(UPOS_TAGS)}
    tags = flat(sentences, "upos")
    unknown = set(tags.tolist()) - set(lookup)
    if unknown:
        s = next(s for s in sentences if set(s.upos.tolist()) & unknown)
        raise ConlluError(
            s.path,
            s.line,
            f"unknown UPOS tag(s) {sorted(unknown)}",
            hint=f"UD v2 has 17 tags: {' '.join(UPOS_TAGS)}",
        )
    return np.array([lookup[t] for t in tags], dtype=np.int64)


def split_summary(treebank: Treebank) -> pd.DataFrame:
    """Sentences, words, mean and max sentence length, multiword tokens per split."""
    rows = []
    for split, sents in treebank.splits.items():
        lengths = np.array([len(s) for s in sents])
        rows.append(
            {
                "split": split,
                "sentences": len(sents),
                "words": int(lengths.sum()),
                "mean length": float(lengths.mean()),
                "max length": int(lengths.max()),
                "multiword tokens": sum(len(s.multiword) for s in sents),
            }
        )
    return pd.DataFrame(rows).set_index("split")


def sentence_lengths(sentences: Sequence[Sentence]) -> np.ndarray:
    """The number of words of every sentence, shape (S,)."""
    return np.array([len(s) for s in sentences])


def arc_lengths(sentences: Sequence[Sentence]) -> np.ndarray:
    """Linear length |dependent - head| of every non-root arc, shape (n_arcs,)."""
    return np.concatenate([s.arc_lengths() for s in sentences])
