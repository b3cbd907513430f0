"""The Jabberwocky test set of chapter 21 (Hall Maudslay & Cotterell 2021, §3) on disk.

Where it lives, building it with :func:`probekit.methods.jabberwocky.treebank.make_jabberwocky`
only when missing or stale, and pairing its sentences with the originals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from probekit.errors import ProbekitError
from probekit.experiments.part2_jabberwocky.config import JabberwockyCorpusConfig
from probekit.io.treebanks import (
    Sentence,
    data_dir,
    file_sha256,
    load_treebank,
    resolve_treebank,
)
from probekit.methods.jabberwocky.treebank import make_jabberwocky

# The two test sets every probe is scored on: the same sentences and trees, before and after
# substitution.
DATASETS = ("normal", "Jabberwocky")
REPORT = "jabberwocky-report.json"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "treebank"


def corpus_dir(
    treebank: str, seed: int, rate: float = 1.0, pseudowords: str = "", root: str | Path = ""
) -> Path:
    """Where the Jabberwocky version of ``treebank`` lives (§3).

    The directory is ``<data>/jabberwocky/<name>-seed<seed>``.

    ``<data>`` is :func:`probekit.io.treebanks.data_dir` unless ``root`` is given. Non-default
    settings get their own directory (``-rate0.5``, ``-list<sha256 prefix>``), so that corpora
    built with different settings never overwrite each other. ``treebank`` is a UD name or a
    path (its directory name is used).
    """
    name = Path(str(treebank)).name if Path(str(treebank)).expanduser().is_dir() else treebank
    parts = [f"{_slug(str(name))}-seed{int(seed)}"]
    if float(rate) != 1.0:
        parts.append(f"rate{float(rate):g}")
    if pseudowords:
        parts.append(f"list{file_sha256(pseudowords)[:10]}")
    base = Path(root).expanduser() if root else data_dir() / "jabberwocky"
    return base / "-".join(parts)


def _report_matches(
    report: Mapping, out: Path, source_sha: str, seed: int, rate: float, split: str, words: str
) -> bool:
    try:
        files = report["files"]
        out_file = out / files["output"]["file"]
        pseudo = report["pseudowords"]
        return (
            report["seed"] == seed
            and float(report["rate"]) == float(rate)
            and report["split"] == split
            and files["input"]["sha256"] == source_sha
            and out_file.is_file()
            and file_sha256(out_file) == files["output"]["sha256"]
            and (pseudo["kind"] == "file") == bool(words)
            and (not words or pseudo["sha256"] == file_sha256(words))
        )
    except (KeyError, TypeError):
        return False


def ensure_corpus(
    treebank: str,
    seed: int,
    rate: float = 1.0,
    pseudowords: str = "",
    out_dir: str | Path = "",
    split: str = "test",
    n_pseudowords: int = 2000,
) -> tuple[Path, dict]:
    """The Jabberwocky treebank directory of ``treebank`` (§3), built only when missing or stale.

    The directory is ``out_dir`` or :func:`corpus_dir`. An existing corpus is reused when its
    report (``jabberwocky-report.json``) names the same seed, rate, split, pseudoword source
    and input file sha256, and its output file still has the recorded sha256; otherwise it is
    rebuilt with :func:`probekit.methods.jabberwocky.treebank.make_jabberwocky` (a few seconds
    for EWT).
    ``pseudowords`` is a list file or "" (generate ``n_pseudowords``). Returns (directory,
    report). Raises :class:`ProbekitError` when no word of the split is eligible at all (a
    non-English treebank: the feature sets and inflection rules are English).
    """
    files = resolve_treebank(treebank, splits=(split,))
    out = Path(out_dir).expanduser() if out_dir else corpus_dir(treebank, seed, rate, pseudowords)
    report = _reuse_or_make(files, out, seed, rate, pseudowords, split, n_pseudowords)
    if not report["eligible"]:
        raise ProbekitError(
            f"no word of the {split} split of {files.name} has one of the paper's English "
            "feature sets, so there is nothing to replace",
            hint="the Jabberwocky corpus needs an English UD treebank (e.g. UD_English-EWT)",
        )
    return out, report


def _reuse_or_make(files, out: Path, seed, rate, pseudowords, split, n_pseudowords) -> dict:
    report_path = out / REPORT
    if report_path.is_file():
        try:
            report = json.loads(report_path.read_text())
        except (OSError, ValueError):
            report = {}
        source_sha = file_sha256(files.files[split])
        if _report_matches(report, out, source_sha, seed, rate, split, pseudowords):
            if pseudowords or report["pseudowords"].get("n") == n_pseudowords:
                return report
    return make_jabberwocky(
        files.directory,
        out,
        seed=seed,
        split=split,
        pseudowords=pseudowords or None,
        rate=rate,
        n_pseudowords=n_pseudowords,
    )


def output_sha(report: Mapping) -> str:
    """The first 12 hex digits of the Jabberwocky test file's sha256, as a corpus report records.

    Used to name the corpus in prose.
    """
    try:
        return str(report["files"]["output"]["sha256"])[:12]
    except (KeyError, TypeError):
        raise ProbekitError(
            "the corpus report records no output file", hint="rebuild the Jabberwocky corpus"
        ) from None


def aligned_pairs(
    original: Sequence[Sentence], jabberwocky: Sequence[Sentence]
) -> list[tuple[Sentence, Sentence]]:
    """Pair each original sentence with its Jabberwocky version (§3: same trees, new words).

    Raises :class:`ProbekitError` unless the two lists have the same sentences in the same
    order with the same heads, relations and UPOS: the paired comparisons of chapter 22 are
    only meaningful on identical trees.
    """
    if len(original) != len(jabberwocky):
        raise ProbekitError(
            f"{len(original)} original and {len(jabberwocky)} Jabberwocky sentences",
            hint="build both from the same split, with the same sampling",
        )
    for o, j in zip(original, jabberwocky, strict=True):
        same = (
            o.sent_id == j.sent_id
            and np.array_equal(o.heads, j.heads)
            and np.array_equal(o.deprel, j.deprel)
            and np.array_equal(o.upos, j.upos)
        )
        if not same:
            raise ProbekitError(
                f"sentence {o.sent_id!r} ({o.path}:{o.line}) does not match its Jabberwocky "
                f"version {j.sent_id!r} ({j.path}:{j.line})",
                hint="rebuild the Jabberwocky corpus from this treebank",
            )
    return list(zip(original, jabberwocky, strict=True))


def substituted(original: Sentence, jabberwocky: Sentence) -> np.ndarray:
    """Bool (n,): words whose form or lemma the Jabberwocky version changed (§3)."""
    return (original.forms != jabberwocky.forms) | (original.lemmas != jabberwocky.lemmas)


@dataclass(frozen=True, eq=False)
class CorpusPairs:
    """Chapter 21's corpus: directory, report, source treebank and aligned sentence pairs.

    Its ``directory`` and ``report`` (:func:`ensure_corpus`), the name of the ``treebank`` it
    was made from, and every test sentence paired with its Jabberwocky version (``pairs``,
    :func:`aligned_pairs`).
    """

    directory: Path
    report: dict
    treebank: str
    pairs: list[tuple[Sentence, Sentence]]


def load_corpus_pairs(config: JabberwockyCorpusConfig) -> CorpusPairs:
    """Build or reuse chapter 21's corpus and pair its sentences with the originals (§3).

    The corpus is the Jabberwocky version of ``config.treebank``'s test split
    (:func:`ensure_corpus` with the config's seed, rate and pseudowords).
    """
    directory, report = ensure_corpus(
        config.treebank,
        config.seed,
        rate=config.rate,
        pseudowords=config.pseudowords,
        n_pseudowords=config.n_pseudowords,
    )
    original = load_treebank(config.treebank, splits=("test",))
    jabberwocky = load_treebank(directory, splits=("test",))["test"]
    pairs = aligned_pairs(original["test"], jabberwocky)
    return CorpusPairs(directory, report, original.name, pairs)
