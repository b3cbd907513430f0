"""The protocol of Pimentel et al. 2020 that Part III follows, and where it departs from it.

One tuple of :class:`~probekit.experiments.deviations.Setting` per chapter (a chapter parameter,
the paper's value, how the paper or its released code states it, and why the book's default
differs); each chapter shows :func:`~probekit.experiments.deviations.deviation_table` of its
configuration against its tuple.

Departures that no parameter controls (the linear parser's initial nuclear norm, padding at
-inf instead of a logit of 1e-9, distinct ranks instead of the released grid's repeats) are
described in the chapters where they matter.
"""

from __future__ import annotations

from probekit.experiments.deviations import Setting
from probekit.probes.biaffine import UAS_MIN_DELTA

PAPER_MODEL = "bert-base-multilingual-cased"  # §6: multilingual BERT, as for the other languages
PAPER_PROBES = 50  # §6.2 and the released random_search.py: 50 runs per setting


def _model(name: str) -> str:
    return "all-MiniLM-L6-v2 (the default)" if name == "default" else name


def _all(n: int) -> str:
    return "all" if n == 0 else f"{n:,} sentences"


def _all_examples(n: int) -> str:
    return "all" if n == 0 else f"{n:,} training examples"


def _fasttext(path: str) -> str:
    return "trained here on the training split" if not path else path


def _pretrained(path: str, paper: object) -> bool:
    return bool(path)


_COST = "cost on 2 CPU cores within the book's budget"


def _layer(layer: int | None) -> str:
    if layer is None:
        return "chosen on development UAS in chapter 31"
    return "the last" if layer == -1 else f"{layer}"


_LAYER = Setting(
    "layer",
    -1,
    "the last layer of BERT (§6; released code)",
    "chosen on development UAS (chapter 31): our encoder's last layer was trained for sentence "
    "similarity, and is not where its syntax is",
    show=_layer,
)


def _seeds(seeds: list[int]) -> str:
    return f"{len(seeds)} replicates (seeds {', '.join(map(str, seeds))})"


_SEEDS = Setting(
    "seeds",
    None,
    "one training run of every probe (§6; released code)",
    "each seed replicates the whole protocol, its random architectures included, so that the "
    "claims' intervals carry the variation between training runs (Reimers & Gurevych 2017), "
    "and every frontier is drawn from all the replicates' probes",
    show=_seeds,
)

PROTOCOL_34: tuple[Setting, ...] = (
    Setting(
        "model",
        PAPER_MODEL,
        "multilingual BERT (§6)",
        "the packaged encoder runs offline on 2 CPU cores",
        show=_model,
    ),
    _LAYER,
    Setting("n_train", 0, "the whole training split (§6)", _COST, show=_all),
    Setting("n_dev", 0, "the whole development split (§6)", _COST, show=_all),
    Setting(
        "n_test", 0, "the whole test split (§6)", "a smaller test set was asked for", show=_all
    ),
    _SEEDS,
    Setting("n_configs", PAPER_PROBES, "50 random MLP architectures (§6.2)", _COST),
    Setting("max_hidden", 1024, "hidden sizes up to 1,024 (§6.2)", _COST),
    Setting(
        "reference_parser",
        False,
        "random architectures only (§6.2)",
        "a few random draws per seed rarely include a parser of the size known to work (Dozat & "
        "Manning's one-layer arc MLP), so every seed also trains chapter 31's parser, on every "
        "representation alike",
    ),
    Setting("n_probes", PAPER_PROBES, "50 linear parsers (appendix C; released code)", _COST),
    Setting(
        "alpha_max",
        8.0,
        "nuclear-norm weights up to 8 (released random_search.py)",
        "with a 384-d encoder the weights above this leave U at its initial norm",
    ),
    Setting(
        "n_memorise",
        0,
        "controls trained on the whole training split (§5)",
        "a subset was asked for",
        show=_all,
    ),
    Setting(
        "memorise_steps",
        None,
        "controls trained until their dev loss stops falling "
        "(released code: 1,000 updates of patience)",
        "the controls get their parsers' cap and stopping rule (their own UAS); the cap share "
        "below says how many reached the cap",
    ),
    Setting(
        "batch_size",
        128,
        "128 sentences per batch (released code)",
        "the batch size of Dozat & Manning's parser, which the chapter's optimiser follows",
    ),
    Setting(
        "lr",
        0.001,
        "Adam at 0.001 (released code)",
        "Dozat & Manning's starting rate, with their betas and gradient clipping; one rate for "
        "every parser and control, as in the paper",
    ),
    Setting(
        "schedule",
        "constant",
        "a constant rate (released code)",
        "each run halves its own rate at every check without a gain, so that it stops because "
        "it has converged rather than because a budget ran out (the cap share below)",
    ),
    Setting(
        "eval_every",
        100,
        "dev check every 100 batches (released code)",
        "with fewer updates per parser, checks come more often; a check reads every "
        "development sentence (a control's, as many of its own training sentences)",
    ),
    Setting(
        "patience",
        10,
        "stop after 10 checks without a 0.02-bit dev-loss gain (released code)",
        f"fewer checks without a dev-UAS gain of {100 * UAS_MIN_DELTA:g} points (selection on "
        "UAS, see the text): each halves the rate, so a few are enough to reach a plateau",
    ),
    Setting(
        "max_steps",
        None,
        "no cap on updates (released code)",
        "a cap keeps the budget bounded; the cap share below says how many parsers reached it",
    ),
    Setting(
        "fasttext_path",
        True,
        "pretrained Common Crawl fastText (§6)",
        "the pretrained vectors are 7 GB; a file can be given",
        show=_fasttext,
        matches=_pretrained,
    ),
)
"""Chapter 34, dependency parsing (§7.2 and appendices A and C)."""


# Settings that chapters 32 and 33 (POSL and DAL, §6) state alike.
_MODEL = Setting(
    "model",
    PAPER_MODEL,
    "multilingual BERT (§6)",
    "the packaged encoder runs offline on 2 CPU cores",
    show=_model,
)
_POOLING = Setting(
    "pooling",
    "mean",
    "the mean of a word's wordpieces (§6)",
    "another pooling was asked for",
)
_SAMPLES = (
    Setting("n_train", 0, "the whole training split (§6)", _COST, show=_all),
    Setting("n_dev", 0, "the whole development split (§6)", _COST, show=_all),
    Setting(
        "n_test", 0, "the whole test split (§6)", "a smaller test set was asked for", show=_all
    ),
)
_TYPE_DIM = Setting(
    "type_dim",
    None,
    "a size per run, drawn from 48 to 292 (released random_search.py; not in the paper)",
    "one size for every probe, so that probes differ only in what the chapter varies",
)
_FASTTEXT = Setting(
    "fasttext_path",
    True,
    "pretrained Common Crawl fastText (§6)",
    "the pretrained vectors are 7 GB; a file can be given",
    show=_fasttext,
    matches=_pretrained,
)
_BATCH = Setting(
    "batch_size",
    2048,
    "2,048 examples per batch (released code)",
    "on a sample of the training split, smaller batches give more updates per epoch",
)
_LR = Setting(
    "lr",
    0.001,
    "Adam at 0.001 (released code)",
    "a larger step reaches the plateau within fewer updates",
)
_EVAL_EVERY = Setting(
    "eval_every",
    100,
    "dev check every 100 batches (released code)",
    "fewer updates per probe, so checks come more often",
)
_PATIENCE = Setting(
    "patience", 10, "stop after 10 checks without a 0.02-bit gain (released code)", _COST
)
_MAX_STEPS = Setting(
    "max_steps",
    None,
    "no cap on updates (released code)",
    "a cap keeps the budget bounded; the cap share below says how many probes reached it",
)

PROTOCOL_32: tuple[Setting, ...] = (
    _MODEL,
    _LAYER,
    _POOLING,
    *_SAMPLES,
    _SEEDS,
    Setting(
        "n_probes",
        PAPER_PROBES,
        "50 probes per family: α values, and ranks (§6.1)",
        _COST + "; the stability check below says whether the frontiers have enough",
    ),
    Setting(
        "alpha_max",
        8.0,
        "α log-uniform from 2⁻¹⁰ up to 8 (§6.1, footnote 8)",
        "on unit-length inputs every α above about 2⁻³ leaves a probe with a norm near 0, "
        "so a shorter grid spends the probes where the frontier is drawn",
    ),
    Setting("max_norm", 400.0, "nuclear norm capped at 400 (Table 3)", "another cap was asked for"),
    _TYPE_DIM,
    _FASTTEXT,
    _BATCH,
    _LR,
    _EVAL_EVERY,
    _PATIENCE,
    _MAX_STEPS,
)
"""Chapter 32, linear probes under the nuclear norm and the rank (§4.1 and §6.1)."""

PROTOCOL_33: tuple[Setting, ...] = (
    _MODEL,
    _LAYER,
    _POOLING,
    Setting(
        "n_train",
        0,
        "the whole training split (§6)",
        "every control memorises the whole sample, which on 2 CPU cores is affordable for a "
        "small sample only",
        show=_all,
    ),
    *_SAMPLES[1:],
    _SEEDS,
    Setting(
        "n_configs",
        PAPER_PROBES,
        "50 random MLP architectures (§6.2)",
        _COST + "; the stability check below says whether the frontiers have enough",
    ),
    Setting("max_hidden", 1024, "hidden sizes log-uniform from 32 to 1,024 (§6.2)", _COST),
    Setting(
        "n_memorise",
        0,
        "controls trained on the whole training split (§5)",
        "a subset was asked for",
        show=_all_examples,
    ),
    Setting(
        "memorise_steps",
        None,
        "controls trained until their loss stops falling "
        "(released code: 1,000 updates of patience)",
        "a cap on the controls' updates keeps the budget bounded; the cap share below says "
        "how many reached it",
    ),
    _TYPE_DIM,
    _FASTTEXT,
    _BATCH,
    _LR,
    _EVAL_EVERY,
    _PATIENCE,
    _MAX_STEPS,
)
"""Chapter 33, random MLPs under memorisation complexity (§5 and §6.2)."""
