"""The set-up chapters 12 and 22 share (Hall Maudslay et al. 2020, §4.1; Hall Maudslay &
Cotterell 2021, §5.1): the treebank, seeded train / dev / test samples of 2 to 50 words, and
the gold trees of each sample, built from a chapter's parameters by :func:`prepare`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from probekit.book.params import require
from probekit.io import treebanks as pkdata
from probekit.trees.evaluation import EvalSet

# Sentences of one word have no edge to score and the paper leaves out those of more than
# 50 words (Hall Maudslay et al. 2020, §4.1, after Hewitt & Manning 2019).
MIN_LEN, MAX_LEN = 2, 50
# Parameters both chapters declare.
REQUIRED = ("treebank", "n_train", "n_dev", "n_test", "sample_seed", "exclude_punct")


def sample(sentences: Sequence[pkdata.Sentence], n: int, seed: int) -> list[pkdata.Sentence]:
    """``n`` sentences of ``MIN_LEN..MAX_LEN`` words drawn with ``seed``, in corpus order; ``n = 0``
    keeps them all (:func:`probekit.io.treebanks.sample_sentences`).

    A test split and its Jabberwocky version (same sentences, same lengths) give the same
    sample for the same ``n`` and ``seed``.
    """
    return pkdata.sample_sentences(
        sentences, n or None, seed=seed, min_len=MIN_LEN, max_len=MAX_LEN
    )


@dataclass(frozen=True, eq=False)
class ExperimentalSetup:
    """What chapters 12 and 22 probe: ``treebank``, the whole treebank; ``samples``, the
    sentences of :func:`sample` per split ("train", "dev", "test"); ``gold``, their
    :class:`~probekit.trees.evaluation.EvalSet` (UUAS leaves punctuation out when the chapter's
    ``exclude_punct`` is set)."""

    treebank: pkdata.Treebank
    samples: dict[str, list[pkdata.Sentence]]
    gold: dict[str, EvalSet]


def prepare(params: Mapping[str, Any]) -> ExperimentalSetup:
    """Build a chapter's :class:`ExperimentalSetup` from its parameters (the names in
    ``REQUIRED``).

    Papermill injects a chapter's parameters as the notebook's globals, so the chapters pass
    ``globals()``; reading them here keeps one copy of this set-up instead of one per chapter.
    """
    require(params, REQUIRED)
    p = params
    tb = pkdata.load_treebank(p["treebank"])
    sizes = {"train": p["n_train"], "dev": p["n_dev"], "test": p["n_test"]}
    samples = {split: sample(tb[split], n, p["sample_seed"]) for split, n in sizes.items()}
    gold = {split: EvalSet.build(s, p["exclude_punct"]) for split, s in samples.items()}
    return ExperimentalSetup(treebank=tb, samples=samples, gold=gold)
