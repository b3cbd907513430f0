"""Where chapter 12 departs from Hall Maudslay et al. 2020, setting by setting.

One :class:`~probekit.experiments.deviations.Setting` per parameter whose value the paper fixed
(or left unstated), with the reason the book's default differs; the chapter shows
:func:`~probekit.experiments.deviations.deviation_table` of its configuration. The settings
chapter 22 shares with chapter 12 (the search ranges) come from
:mod:`probekit.experiments.tree_probing.protocol`.
"""

from __future__ import annotations

from probekit.experiments.deviations import Setting
from probekit.experiments.tree_probing.protocol import (
    DROPOUT_MAX,
    EXCLUDE_PUNCT,
    LR_MAX,
    LR_MIN,
    RANKS,
    SEEDS,
)

PROTOCOL_12: tuple[Setting, ...] = (
    Setting(
        "model",
        "bert-base-multilingual-cased",
        "multilingual BERT, cased, 12 blocks of 768 dimensions (§4.1)",
        "mBERT is not packaged for offline use and costs several times MiniLM's time on 2 CPU "
        "cores; the packaged all-MiniLM-L6-v2 (6 blocks, 384 dimensions) stands in",
    ),
    Setting(
        "treebank",
        "UD_English-EWT",
        "UD 2.4 English EWT, one of nine languages (§4.1)",
        "the claims judged here are the English ones",
    ),
    Setting(
        "pooling",
        "mean",
        "mean of a word's wordpieces (App. A)",
        "another pooling was asked for",
    ),
    Setting(
        "layers",
        [-1],
        "the final layer only (§4.1)",
        "every layer, to show where each model peaks; the claims are judged at one layer",
        show=lambda v: ", ".join(map(str, v)) if v else "all",
    ),
    Setting(
        "compare_layer",
        -1,
        "the final layer (§4.1)",
        "the best dev layer by mean UUAS: a small sentence encoder's final layer is not its most "
        "syntactic one (set compare_layer=-1 for the paper's)",
        show=lambda v: "best dev layer" if v is None else str(v),
    ),
    Setting(
        "n_train",
        9600,
        "9,600 training sentences (12,000 split 8:1:1, App. A)",
        "cost on 2 CPU cores: every search trial, layer and seed trains on this sample",
    ),
    Setting(
        "n_dev",
        1200,
        "1,200 dev sentences (App. A)",
        "cost: every run is scored on dev after every epoch",
    ),
    Setting("n_test", 1200, "1,200 test sentences (App. A)", "a smaller test sample was asked for"),
    Setting(
        "filter_test",
        True,
        "one-word and over-50-word sentences discarded from every split (App. A)",
        "the whole test split was asked for",
    ),
    Setting(
        "n_trials",
        None,
        "a random search; the number of trials is not stated (App. A)",
        "the paper gives no number; ours is the same for both models (the authors' follow-up, "
        "chapter 22, uses 10)",
    ),
    Setting(
        "search_every",
        1,
        "searched on the one layer probed (App. A)",
        "cost: one search per group of layers (every k-th layer and the last), each layer "
        "trained with its group's configuration",
    ),
    RANKS,
    LR_MIN,
    LR_MAX,
    DROPOUT_MAX,
    Setting(
        "max_epochs",
        None,
        "not stated (Hewitt & Manning's code stops at 40)",
        "the paper gives no cap; ours is high enough that early stopping, not the cap, ends "
        "most runs (the share is reported)",
    ),
    Setting(
        "patience",
        5,
        "early stopping after five epochs without improvement (App. A)",
        "another patience was asked for",
    ),
    Setting(
        "parser_selection",
        "loss",
        "every model early-stopped and selected on its dev loss (App. A)",
        "eq. 4 has no margin: the parser's loss scales with B and falls as the distances shrink "
        "while its trees stay the same, so the parser is stopped and selected on dev UUAS",
    ),
    SEEDS,
    EXCLUDE_PUNCT,
)
