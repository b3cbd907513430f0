"""The layer-by-layer dev picture of chapter 12 in numbers.

Hall Maudslay et al. 2020, §5, extended to every layer (cf. Figs. 2 and 3): where each model
peaks, on how many layers one model is ahead of the other, and how many runs the epoch cap
ended.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from probekit.errors import ParameterError
from probekit.trees.evaluation import METRICS


@dataclass(frozen=True)
class LayerSummary:
    """What :func:`summarise_layers` reads off the dev scores.

    Layers are indices (0 = the embedding output); ``*_capped`` are % of a model's runs that reached
    the epoch cap; ``*_layers`` count the layers on which the named model's mean dev score is
    higher.
    """

    parser_capped: float
    probe_capped: float
    parser_best_uuas_layer: int
    probe_best_uuas_layer: int
    parser_best_dspr_layer: int
    probe_best_dspr_layer: int
    uuas_parser_layers: int
    dspr_probe_layers: int
    pfw_parser_layers: int


def summarise_layers(scores: pd.DataFrame) -> LayerSummary:
    """The :class:`LayerSummary` of the dev ``scores``: both kinds, means over seeds.

    ``scores``: those of :func:`~probekit.experiments.tree_probing.training.train_layers`.
    Ties of a peak: the lowest layer. A run is capped when the epoch cap, not early stopping,
    ended it (``stopped_at_cap``).
    """
    kinds = set(scores["kind"])
    if not {"structural", "perceptron"} <= kinds:
        raise ParameterError("scores", f"needs rows of both kinds, got {sorted(kinds)}")
    capped = scores.groupby("kind")["stopped_at_cap"].mean()
    means = scores.groupby(["kind", "layer"])[list(METRICS)].mean()
    probe, parser = means.loc["structural"], means.loc["perceptron"]
    return LayerSummary(
        parser_capped=100 * float(capped["perceptron"]),
        probe_capped=100 * float(capped["structural"]),
        parser_best_uuas_layer=int(parser["uuas"].idxmax()),
        probe_best_uuas_layer=int(probe["uuas"].idxmax()),
        parser_best_dspr_layer=int(parser["dspr"].idxmax()),
        probe_best_dspr_layer=int(probe["dspr"].idxmax()),
        uuas_parser_layers=int((parser["uuas"] > probe["uuas"]).sum()),
        dspr_probe_layers=int((probe["dspr"] > parser["dspr"]).sum()),
        pfw_parser_layers=int((parser["dspr_pfw"] > probe["dspr_pfw"]).sum()),
    )
