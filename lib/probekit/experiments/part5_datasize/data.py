"""The data of the Part V chapters: a UD treebank, its word vectors and the tense task on it.

The paper (Zhu et al. 2022, §4.1) probes SentEval's sentences; we rebuild its tense task from
the UD annotation (:mod:`probekit.methods.datasize.pools`) and embed every split of the treebank
once (cached).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.experiments.part5_datasize.config import DataSizeConfig
from probekit.io import embeddings as embed
from probekit.io import treebanks
from probekit.io.embeddings import Embeddings
from probekit.methods.datasize.pools import tense_overview
from probekit.methods.datasize.subsets import max_size
from probekit.representations.layers import resolve_layer

#: The tasks as chapters 51 and 52 name them.
TASK_NAMES = {"past_present": "tense (past vs present)", "pos": "part of speech"}
#: The tasks as the tables of chapter 53 name them.
TASK_SHORT_NAMES = {"past_present": "tense", "pos": "part of speech"}


@dataclass(frozen=True, eq=False)
class ProbedTreebank:
    """A treebank and the word vectors of all its splits.

    ``embeddings[split].layer(k)`` is (N_words, dim) for layer k in ``0..n_layers - 1`` (0 is the
    embedding output).
    """

    treebank: treebanks.Treebank
    embeddings: dict[str, Embeddings]

    @property
    def n_layers(self) -> int:
        """Layers of the model, the embedding output included."""
        return self.embeddings["train"].n_layers

    @property
    def dim(self) -> int:
        """Size of a word vector."""
        return self.embeddings["train"].dim

    def layer_index(self, layer: int, name: str = "layer") -> int:
        """``layer`` as an index in ``0..n_layers - 1``; negative counts from the last layer.

        See :func:`~probekit.representations.layers.resolve_layer`.
        """
        return resolve_layer(layer, self.n_layers, name)


def load_probed_treebank(config: DataSizeConfig) -> ProbedTreebank:
    """``config.treebank`` and the word vectors of its splits under ``config.model``.

    Vectors are pooled with ``config.pooling`` over wordpieces and read from the embedding cache
    when present (computed on ``config.device`` otherwise).
    """
    tb = treebanks.load_treebank(config.treebank)
    embeddings = {
        k: embed.embed(tb[k], config.model, config.pooling, progress=False, device=config.device)
        for k in treebanks.SPLITS
    }
    return ProbedTreebank(tb, embeddings)


@dataclass(frozen=True, eq=False)
class TenseTaskSummary:
    """How the tense task labels a treebank.

    ``table`` (one row per split, as :func:`~probekit.methods.datasize.pools.tense_overview`), the
    sentence counts summed over the splits, ``root_share`` (share of labelled sentences whose
    tense sits on the root) and ``max_size`` (the largest balanced subset, training examples per
    class, at ``eta``).
    """

    table: pd.DataFrame
    past: int
    present: int
    unlabelled: int
    root_share: float
    max_size: int

    def styled(self):
        """The per-split table for display."""
        counts = {c: "{:,d}" for c in self.table.columns[:4]}
        return self.table.style.format({"carrier is root": "{:.1%}"} | counts)


def tense_task_summary(treebank: treebanks.Treebank, eta: float) -> TenseTaskSummary:
    """The tense task on ``treebank`` (Zhu et al. 2022, §4.1), pooled over its splits."""
    table = tense_overview(treebank)
    totals = table.sum(numeric_only=True)
    labelled = table["past"] + table["present"]
    root_share = (table["carrier is root"].fillna(0) * labelled).sum() / max(1, labelled.sum())
    counts = np.array([totals["past"], totals["present"]]).astype(int)
    return TenseTaskSummary(
        table=table,
        past=int(totals["past"]),
        present=int(totals["present"]),
        unlabelled=int(totals["no label"]),
        root_share=float(root_share),
        max_size=max_size(np.repeat([0, 1], counts), eta),
    )
