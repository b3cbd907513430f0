"""The word-blind baselines of Hall Maudslay & Cotterell 2021, §5.1.

The linear chain and the majority tree predict a tree from the sentence length alone, so they
score the same on a test set and its Jabberwocky version.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from probekit.trees import baselines as tree_baselines
from probekit.trees import distances
from probekit.trees.evaluation import EvalSet, corpus_scores, score_distances

BASELINES = ("linear chain", "majority tree")


def baseline_scores(majority: tree_baselines.MajorityTree, gold: EvalSet) -> pd.DataFrame:
    """Per-sentence scores of the two word-blind baselines of §5.1 on ``gold``.

    The scores are those of :func:`probekit.trees.evaluation.score_distances`; the baselines are
    the linear chain and the majority tree (fitted on training heads).

    Both predict a tree from the sentence length alone, so they score the same on any two
    corpora with the same trees, e.g. a test set and its Jabberwocky version. Their "distances"
    are the path lengths in the predicted tree. Rows: the
    :func:`~probekit.trees.evaluation.score_distances` columns plus ``baseline`` and
    ``sentence``.
    """
    frames = []
    for name in BASELINES:
        if name == "linear chain":
            heads = [tree_baselines.linear_chain_heads(int(n)) for n in gold.lengths]
        else:
            heads = majority.predict(gold.lengths.tolist())
        dists = [d.astype(np.float64) for d in distances.tree_distances_all(heads)]
        frames.append(
            score_distances(dists, gold).assign(baseline=name, sentence=np.arange(len(gold)))
        )
    return pd.concat(frames, ignore_index=True)


def best_baseline(baselines: pd.DataFrame, metric: str) -> str:
    """The baseline of :func:`baseline_scores` with the higher corpus-level ``metric``.

    Ties: the linear chain.
    """
    scores = {
        name: corpus_scores(df)[metric] for name, df in baselines.groupby("baseline", sort=False)
    }
    return max(BASELINES, key=lambda b: (scores[b], -BASELINES.index(b)))
