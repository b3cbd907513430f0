"""The parsing ceiling of chapter 34: what a biaffine probe on this encoder reaches at best.

Issue 14 asks that the chapter's best contextual parser be judged against the UAS of an MLP
biaffine probe (Pimentel et al. 2020, appendix A) on the same encoder, layer and pooling,
trained to convergence on the whole training split. That is a one-off, expensive measurement
(longer on 2 CPU cores than the whole chapter): :func:`parsing_ceiling` makes it from a
representation and its splits, ``benchmarks/bench_parsing_ceiling.py`` runs it on the book's
set-up, and :data:`MEASURED` records its result for the chapter, with the set-up it holds for
(:data:`MEASURED_SETUP`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from probekit.experiments.config import has_setup
from probekit.experiments.part3_pareto.parsing import parse_mlp_seeds
from probekit.experiments.part3_pareto.representations import Representation, Splits
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions

CEILING_MLP = MLPConfig(n_layers=1, hidden_size=256, dropout=0.3)
"""The ceiling's probe: one hidden layer of 256 with dropout 0.3 (within the paper's search
space, §6.2), the shape that did best in a trial on MiniLM's last layer."""

CEILING_OPTIONS = TrainOptions(
    batch_size=64, lr=1e-3, eval_every=250, patience=6, max_steps=20_000, eval_batch_size=256
)
"""Adam at the released code's 1e-3, stopping after 1,500 updates without a dev-UAS gain."""

CEILING_MIN_GAIN = 0.001
"""The smallest dev-UAS gain (0.1 points) that keeps the ceiling training: stricter than the
chapter's parsers (:data:`probekit.probes.biaffine.UAS_MIN_DELTA`), so that the ceiling is what
the probe reaches at convergence, not where a noise-level rule gives up."""


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


MEASURED_SETUP: dict[str, Any] = {
    "treebank": "UD_English-EWT",
    "model": "default",
    "layer": -1,
    "pooling": "mean",
}
"""The chapter parameters :data:`MEASURED` was measured with (all 12,544 training sentences,
the whole dev and test splits, seed 0)."""

MEASURED = Ceiling(uas=0.5732, dev_uas=0.5687, best_step=5750, at_cap=False, n_train=12_544)
"""The ceiling measured on 2026-11-23 with ``python benchmarks/bench_parsing_ceiling.py``
(285 s on one core; it stopped on its own, 1,500 updates after its best dev UAS)."""


def measured_ceiling(config: Any) -> Ceiling | None:
    """:data:`MEASURED` when a chapter's configuration matches its set-up, else None."""
    return MEASURED if has_setup(config, MEASURED_SETUP) else None
