"""The parsing ceiling of chapter 34: what a biaffine probe on this encoder reaches at best.

The chapter's best contextual parser is judged against the test UAS of an MLP biaffine probe
(Pimentel et al. 2020, appendix A; the arc scorer of Dozat & Manning 2017) on the same encoder,
layer and pooling, trained to convergence on the whole training split. That is a one-off,
expensive measurement: :func:`parsing_ceiling` makes it from a representation and its splits,
``benchmarks/bench_parsing_ceiling.py`` runs it on the book's set-up and writes it as the record
:data:`RECORD` (:mod:`probekit.io.records`), and :func:`measured_ceiling` reads it back for a
chapter whose set-up matches.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from probekit.experiments.config import has_setup
from probekit.experiments.part3_pareto.layer_choice import SELECTION_MLP
from probekit.experiments.part3_pareto.parsing import parse_mlp_seeds
from probekit.experiments.part3_pareto.representations import Representation, Splits
from probekit.io.records import Record
from probekit.probes.biaffine import PARSER_BETAS, PARSER_CLIP
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions

CEILING_MLP = SELECTION_MLP
"""The ceiling's probe: the selection pass's MLP parser, chapter 34's reference parser."""

CEILING_OPTIONS = TrainOptions(
    batch_size=32,
    lr=2e-3,
    eval_every=400,
    patience=4,
    max_steps=40_000,
    eval_batch_size=256,
    schedule="plateau",
    betas=PARSER_BETAS,
    clip=PARSER_CLIP,
)
"""Dozat & Manning's optimiser (Adam at 2e-3, betas 0.9 and 0.9, gradients clipped at 5) in
batches of 32 sentences, checked on dev about once an epoch of the whole split, the rate halved
at every check without a gain and training stopped after 4 such checks."""

CEILING_MIN_GAIN = 0.001
"""The smallest dev-UAS gain (0.1 points) that keeps the ceiling training: stricter than the
chapter's parsers (:data:`probekit.probes.biaffine.UAS_MIN_DELTA`), so that the ceiling is what
the probe reaches at convergence, not where a noise-level rule gives up."""

RECORD = "parsing_ceiling"
"""The name of the ceiling's record (``params/records/parsing_ceiling.json``)."""

BEST_RECORD = "parsing_best_full"
"""The name of the record of chapter 34's best contextual MLP architecture (by development UAS)
trained the ceiling's way on the whole training split: whether the chapter's architectures could
reach the ceiling given the data (``params/records/parsing_best_full.json``)."""

SETUP_KEYS = ("treebank", "model", "layer", "pooling")
"""The chapter parameters a ceiling holds for: the same encoder, layer, pooling and treebank."""


@dataclass(frozen=True)
class Ceiling:
    """One ceiling measurement (Pimentel et al. 2020, appendix A).

    Test UAS (in [0, 1]), dev UAS, updates to the best state, whether the run ended at its cap
    (then the UAS is a lower bound), and the training sentences it read.
    """

    uas: float
    dev_uas: float
    best_step: int
    at_cap: bool
    n_train: int


def parsing_ceiling(
    rep: Representation,
    splits: Splits,
    *,
    seed: int = 0,
    config: MLPConfig = CEILING_MLP,
    options: TrainOptions = CEILING_OPTIONS,
) -> Ceiling:
    """Train one MLP biaffine probe to convergence and report its test UAS (appendix A).

    ``splits`` should hold the whole training split (12,544 sentences for EWT v2.16) and ``rep``
    its representation; early stopping on dev UAS, as the chapter's parsers, with the stricter
    :data:`CEILING_MIN_GAIN`.
    """
    run = parse_mlp_seeds(
        rep, splits, config, 0, [seed], seed=seed, options=options, min_gain=CEILING_MIN_GAIN
    )
    row = run.table.iloc[0]
    return Ceiling(
        uas=float(row["accuracy"]),
        dev_uas=float(row["dev_accuracy"]),
        best_step=int(row["best_step"]),
        at_cap=bool(row["at_cap"]),
        n_train=len(splits.train),
    )


def ceiling_record(
    c: Ceiling, config: Any, mlp: MLPConfig = CEILING_MLP
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parameters and result of a ceiling measured on ``config``'s set-up, as plain data.

    ``mlp``: the architecture measured (the ceiling's own, or the chapter's best for
    :data:`BEST_RECORD`).
    """
    parameters = {k: getattr(config, k) for k in SETUP_KEYS}
    parameters.update(
        seed=config.seed,
        mlp=asdict(mlp),
        options=asdict(CEILING_OPTIONS),
        min_gain=CEILING_MIN_GAIN,
    )
    return parameters, asdict(c)


def measured_ceiling(
    config: Any, record: Record | None, mlp: MLPConfig | None = None
) -> Ceiling | None:
    """The recorded ceiling when a chapter's configuration has its set-up, else None.

    With ``mlp``, also only when the record measured that architecture.
    """
    if record is None or not has_setup(config, {k: record.parameters[k] for k in SETUP_KEYS}):
        return None
    if mlp is not None and record.parameters.get("mlp") != asdict(mlp):
        return None
    return Ceiling(**record.result)
