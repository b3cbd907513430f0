"""Where chapter 22 departs from Hall Maudslay & Cotterell 2021, setting by setting.

One :class:`~probekit.experiments.deviations.Setting` per parameter whose value the paper fixed
(or left unstated), with the reason the book's default differs; the chapter shows
:func:`~probekit.experiments.deviations.deviation_table` of its configuration. The search
ranges, seeds and punctuation rule are chapter 12's settings.
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

PROTOCOL_22: tuple[Setting, ...] = (
    Setting(
        "models",
        None,
        "BERT, GPT-2 and RoBERTa, each in its 'large' version, 24 layers (§4)",
        "the large encoders are not packaged for offline use and cost far more than MiniLM on "
        "2 CPU cores; other encoders can be added to models",
        show=lambda v: ", ".join(v),
    ),
    Setting(
        "pooling",
        "first",
        "the first wordpiece of a word split by the tokenizer (App. B)",
        "another pooling was asked for",
    ),
    Setting(
        "layers",
        [],
        "every fourth layer of 24 and the layer embeddings (App. B)",
        "a subset of layers was asked for",
        show=lambda v: ", ".join(map(str, v)) if v else "all",
        matches=lambda v, p: not v,
    ),
    Setting(
        "search_every",
        1,
        "a search at each layer probed: every fourth of 24, 7 searched layers (App. B)",
        "cost: MiniLM has 7 layers, so the paper's density would search every one; we search "
        "every k-th and the last, and each layer takes its nearest group's configuration",
    ),
    Setting(
        "n_trials",
        10,
        "10 trials per probe (App. B)",
        "cost on 2 CPU cores",
    ),
    Setting(
        "hyperparameters",
        "search",
        "a search for this study's encoders (App. B)",
        "chapter 12's searches are reused when they fit",
    ),
    RANKS,
    LR_MIN,
    LR_MAX,
    DROPOUT_MAX,
    Setting(
        "max_epochs",
        20,
        "at most 20 epochs (App. B)",
        "a higher cap, so that early stopping, not the cap, ends most runs on a small training "
        "sample (the share is reported)",
    ),
    Setting(
        "patience",
        15,
        "stop after the loss has not decreased for 15 consecutive steps (App. B)",
        "'steps' is ambiguous; with a 20-epoch cap, 15 epochs would rarely stop a run, so we "
        "use chapter 12's patience in epochs",
    ),
    Setting(
        "parser_selection",
        "loss",
        "every probe stopped on its dev loss (App. B)",
        "the perceptron loss has no margin and scales with B, so the perceptron probe is "
        "stopped and its search decided on dev UUAS",
    ),
    Setting(
        "layer_rule",
        "loss",
        "the layer with the lowest dev loss (App. B)",
        "the perceptron loss is not comparable across layers (it scales with the distances), so "
        "each probe keeps the layer with its best dev metric",
    ),
    Setting(
        "n_train",
        0,
        "the whole EWT training split, less sentences the tokenizers could not align (App. B)",
        "cost: every trial, layer and seed trains on this sample",
        show=lambda v: "all" if v == 0 else f"{v:,}",
    ),
    Setting(
        "n_dev",
        0,
        "the whole EWT dev split (App. B)",
        "cost: every run is scored on dev after every epoch",
        show=lambda v: "all" if v == 0 else f"{v:,}",
    ),
    Setting(
        "n_test",
        0,
        "the whole EWT test split (App. B)",
        "a smaller test sample was asked for",
        show=lambda v: "all" if v == 0 else f"{v:,}",
    ),
    Setting(
        "filter_test",
        False,
        "test sentences of any length",
        "test sentences of 2 to 50 words only were asked for",
    ),
    Setting(
        "fasttext_path",
        "cc.en.300.bin",
        "pretrained Common Crawl fastText vectors, 300 dimensions (App. B)",
        "the pretrained vectors (7 GB) are not packaged; fastText is trained on the training "
        "split unless fasttext_path names them",
        show=lambda v: v or "trained on the training split",
        matches=lambda v, p: bool(v),
    ),
    Setting(
        "position_dim",
        None,
        "BERT base's learned position embeddings, 768 dimensions (App. B)",
        "fixed sinusoidal position embeddings of this size stand in for BERT's learned ones",
    ),
    SEEDS,
    EXCLUDE_PUNCT,
)
