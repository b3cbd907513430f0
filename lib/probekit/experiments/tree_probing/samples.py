"""The sentence samples chapters 12 and 22 share, with their gold trees and embeddings.

Hall Maudslay et al. 2020, §4.1 and App. A: the treebank and seeded train / dev / test samples
of 2 to 50 words; Hall Maudslay & Cotterell 2021, §5.1: the whole test split, whatever the
length. The gold trees of each sample, and their embeddings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.tree_probing.config import SampleConfig
from probekit.io import embeddings
from probekit.io import treebanks as pkdata
from probekit.trees.evaluation import DSPR_MAX_LEN, DSPR_MIN_LEN, EvalSet

# Sentences of one word have no edge to score and the paper leaves out those of more than
# 50 words (Hall Maudslay et al. 2020, §4.1, after Hewitt & Manning 2019).
MIN_LEN, MAX_LEN = 2, 50
SPLITS = ("train", "dev", "test")


def sample(
    sentences: Sequence[pkdata.Sentence], n: int, seed: int, filtered: bool = True
) -> list[pkdata.Sentence]:
    """``n`` sentences drawn with ``seed``, in corpus order.

    Of ``MIN_LEN..MAX_LEN`` words when ``filtered``, of any length otherwise. ``n = 0`` keeps
    them all (:func:`probekit.io.treebanks.sample_sentences`). A test split and its Jabberwocky
    version (same sentences, same lengths) give the same sample for the same arguments.
    """
    bounds = {"min_len": MIN_LEN, "max_len": MAX_LEN} if filtered else {}
    return pkdata.sample_sentences(sentences, n, seed=seed, **bounds)


@dataclass(frozen=True, eq=False)
class SentenceSamples:
    """What chapters 12 and 22 probe: the treebank, its samples per split and their gold trees.

    ``treebank``, the whole treebank; ``samples``, the sentences of :func:`sample` per split
    ("train", "dev", "test"); ``gold``, their :class:`~probekit.trees.evaluation.EvalSet` (UUAS
    leaves punctuation out when ``exclude_punct`` is set).
    """

    treebank: pkdata.Treebank
    samples: dict[str, list[pkdata.Sentence]]
    gold: dict[str, EvalSet]

    def n_words(self, split: str) -> int:
        """Words in the sample of ``split``."""
        if split not in self.samples:
            raise ParameterError("split", f"must be one of {sorted(self.samples)}, got {split!r}")
        return int(sum(len(s) for s in self.samples[split]))

    def unscored(self, split: str) -> dict[str, int]:
        """Sentences of ``split`` that a metric cannot score, by metric.

        ``uuas``: sentences without a gold edge among the words UUAS counts (one word, or one
        word left after punctuation); ``dspr``: sentences outside DSpr's 5 to 50 words. They stay
        in the sample and drop out of that metric's denominator only.
        """
        if split not in self.gold:
            raise ParameterError("split", f"must be one of {sorted(self.gold)}, got {split!r}")
        gold = self.gold[split]
        counted = np.array([k.sum() for k in gold.keep], dtype=np.int64)
        no_dspr = (gold.lengths < DSPR_MIN_LEN) | (gold.lengths > DSPR_MAX_LEN)
        return {"uuas": int((counted < 2).sum()), "dspr": int(no_dspr.sum())}


def punct_rule(exclude_punct: bool) -> str:
    """What UUAS does with punctuation under ``exclude_punct``, as a verb phrase for the prose.

    The phrase completes "This build ... the count".
    """
    return "leaves punctuation out of" if exclude_punct else "counts punctuation in"


def load_samples(config: SampleConfig) -> SentenceSamples:
    """Load ``config.treebank`` and draw its :class:`SentenceSamples`, with their gold trees.

    ``n_train``, ``n_dev`` and ``n_test`` sentences with ``sample_seed`` (:func:`sample`); the
    test sentences are length-filtered only with ``filter_test``.
    """
    for name in ("n_train", "n_dev", "n_test"):
        if getattr(config, name) < 0:
            raise ParameterError(
                name, f"must be >= 0 (0 keeps every sentence), got {getattr(config, name)}"
            )
    tb = pkdata.load_treebank(config.treebank)
    sizes = dict(zip(SPLITS, (config.n_train, config.n_dev, config.n_test), strict=True))
    samples = {
        split: sample(tb[split], n, config.sample_seed, split != "test" or config.filter_test)
        for split, n in sizes.items()
    }
    gold = {split: EvalSet.build(s, config.exclude_punct) for split, s in samples.items()}
    return SentenceSamples(treebank=tb, samples=samples, gold=gold)


def embed_samples(
    samples: Mapping[str, Sequence[pkdata.Sentence]],
    model: str,
    pooling: str,
    device: str = "cpu",
) -> dict[str, embeddings.Embeddings]:
    """The all-layer word embeddings of every sentence list of ``samples``, by the same keys.

    :func:`probekit.io.embeddings.embed`, cached, under ``model`` with wordpiece ``pooling``;
    the encoder runs on ``device`` on a cache miss (the cache does not depend on it).
    """
    return {
        split: embeddings.embed(s, model, pooling, progress=False, device=device)
        for split, s in samples.items()
    }
