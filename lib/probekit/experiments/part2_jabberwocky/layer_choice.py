"""How chapter 22 chooses each probe's layer (Hall Maudslay & Cotterell 2021, App. B).

The dev scores of every layer, and what the paper's rule, the lowest dev loss, would have picked
for the perceptron probe beside the layer with its best dev UUAS.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.probes import PROBE_LABELS, choose_layer


@dataclass(frozen=True, eq=False)
class LayerRuleCheck:
    """The dev scores of one seed per layer and the perceptron probe's layer under each rule.

    ``table``: index ``layer``, columns "<probe>: <metric>" for ``dev_loss``, ``dspr`` and
    ``uuas`` (UUAS in %); ``by_loss`` and ``by_metric``: the perceptron probe's layer under
    the "loss" and "metric" rules of :func:`~.probes.choose_layer`.
    """

    table: pd.DataFrame
    by_loss: int
    by_metric: int

    def perceptron_uuas(self, layer: int) -> float:
        """The perceptron probe's dev UUAS (%) at ``layer``."""
        if layer not in self.table.index:
            raise ParameterError("layer", f"no dev scores at layer {layer}")
        return float(self.table.loc[layer, "perceptron probe: uuas"])


def check_layer_rules(dev_scores: pd.DataFrame, seed: int) -> LayerRuleCheck:
    """The :class:`LayerRuleCheck` of ``seed``'s rows of ``dev_scores``.

    ``dev_scores`` is a :class:`~.probes.RepresentationRun`'s ``dev``; every layer was trained
    with the first seed.
    """
    dev = dev_scores[dev_scores["seed"] == seed]
    if dev.empty:
        raise ParameterError("seed", f"no dev scores for seed {seed}")
    dev = dev.assign(
        probe=lambda df: df["kind"].map(PROBE_LABELS), uuas=lambda df: 100 * df["uuas"]
    )
    table = dev.pivot_table(index="layer", columns="probe", values=["dev_loss", "dspr", "uuas"])
    table.columns = [f"{probe}: {metric}" for metric, probe in table.columns]
    return LayerRuleCheck(
        table,
        choose_layer(dev, "perceptron", "loss"),
        choose_layer(dev, "perceptron", "metric"),
    )
