"""What chapter 22 probes on (Hall Maudslay & Cotterell 2021, §5.1).

Chapter 12's sentence samples, the Jabberwocky versions of the test sentences (§3), and the
scores of the word-blind baselines on their shared trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.baselines import baseline_scores
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.part2_jabberwocky.corpus import aligned_pairs, ensure_corpus, substituted
from probekit.experiments.tree_probing.samples import SentenceSamples, load_samples, sample
from probekit.io.treebanks import Sentence, load_treebank
from probekit.trees.baselines import MajorityTree


@dataclass(frozen=True, eq=False)
class JabberwockyTestSets:
    """Chapter 22's test data: samples, Jabberwocky test sentences, pairs, report, baselines.

    ``data``: the train / dev / test samples and their gold trees
    (:class:`~probekit.experiments.tree_probing.samples.SentenceSamples`);
    ``jabberwocky``: the Jabberwocky versions of ``data.samples["test"]``, in the same order;
    ``pairs``: both, paired; ``report``: the corpus report; ``baselines``: per-sentence scores
    of the linear chain and the majority tree on the test trees
    (:func:`~probekit.experiments.part2_jabberwocky.baselines.baseline_scores`), the same on
    both test sets.
    """

    data: SentenceSamples
    jabberwocky: list[Sentence]
    pairs: list[tuple[Sentence, Sentence]]
    report: dict
    baselines: pd.DataFrame

    @property
    def n_replaced(self) -> int:
        """Words of the test sample that are pseudowords in its Jabberwocky version."""
        return int(sum(substituted(o, j).sum() for o, j in self.pairs))

    @property
    def n_words(self) -> int:
        """Words of the test sample."""
        return int(sum(len(o) for o, _ in self.pairs))


def load_test_sets(config: JabberwockyProbesConfig) -> JabberwockyTestSets:
    """Chapter 22's data: the samples, the Jabberwocky test set and the word-blind baselines.

    The samples of :func:`~probekit.experiments.tree_probing.samples.load_samples`; the
    Jabberwocky corpus of ``config.treebank`` (built or reused with ``jabberwocky_seed``,
    ``rate`` and ``pseudowords``,
    :func:`~probekit.experiments.part2_jabberwocky.corpus.ensure_corpus`), sampled like the
    test split (the same sentences, length-filtered only with ``filter_test``); and the
    word-blind baselines, the majority tree fitted on every training tree (lengths with fewer
    than ``majority_min_count`` trees fall back to the chain).
    """
    if config.majority_min_count < 1:
        raise ParameterError("majority_min_count", f"must be >= 1, got {config.majority_min_count}")
    data = load_samples(config)
    directory, report = ensure_corpus(
        config.treebank, config.jabberwocky_seed, rate=config.rate, pseudowords=config.pseudowords
    )
    corpus = load_treebank(directory, splits=("test",))["test"]
    jabberwocky = sample(corpus, config.n_test, config.sample_seed, config.filter_test)
    pairs = aligned_pairs(data.samples["test"], jabberwocky)
    majority = MajorityTree(config.majority_min_count).fit(
        [s.heads for s in data.treebank["train"]]
    )
    baselines = baseline_scores(majority, data.gold["test"])
    return JabberwockyTestSets(data, jabberwocky, pairs, report, baselines)
