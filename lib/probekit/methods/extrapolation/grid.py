"""The probes of Kunz & Kuhlmann 2021, §3.6, and the §3.4.3 scoring ensemble.

One MLP probe per layer x seed x setup and their specifications for the batched trainer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from probekit.errors import ParameterError
from probekit.methods.extrapolation.splits import Setup
from probekit.probes.mlp import ProbeSpec

ENSEMBLE_SEEDS: tuple[int, ...] = tuple(range(1, 11))  # 10 classifiers, seeds 1..10 as released


def probe_grid(
    setups_by_layer: Mapping[str, Setup] | Sequence[Mapping[str, Setup]],
    layers: Sequence[int],
    seeds: Sequence[int] = ENSEMBLE_SEEDS,
    order_seed: int | None = None,
) -> tuple[list[ProbeSpec], pd.DataFrame]:
    """ProbeSpecs for layers × seeds × setups, ready for :func:`train_batched`, and their index.

    Kunz & Kuhlmann 2021, §3.6 (10 seeds per setup and layer). ``setups_by_layer`` is one
    :func:`setups` dict for every layer (scores that do not depend on the layer) or one per layer
    (learning-based scores). View i of the trainer's input is ``layers[i]``. The index has one row
    per spec: ``layer``, ``seed``, ``setup``, ``n_train``, ``n_eval``. Standard and control probes
    train identically and are trained once by the batched trainer.
    """
    per_layer = (
        [setups_by_layer] * len(layers)
        if isinstance(setups_by_layer, Mapping)
        else list(setups_by_layer)
    )
    if len(per_layer) != len(layers):
        raise ParameterError(
            "setups_by_layer", f"has {len(per_layer)} entries for {len(layers)} layers"
        )
    specs, rows = [], []
    for view, (layer, layer_setups) in enumerate(zip(layers, per_layer, strict=True)):
        for seed in seeds:
            for name, setup in layer_setups.items():
                specs.append(ProbeSpec(int(seed), view, order_seed, setup.train, setup.eval))
                rows.append(
                    (int(layer), int(seed), name, int(setup.train.sum()), int(setup.eval.sum()))
                )
    index = pd.DataFrame(rows, columns=["layer", "seed", "setup", "n_train", "n_eval"])
    return specs, index


def ensemble_specs(n_layers: int, seeds: Sequence[int] = ENSEMBLE_SEEDS) -> list[ProbeSpec]:
    """The §3.4.3 ensemble: one standard probe per (layer, seed), layer-major, (L * S,) specs.

    Kunz & Kuhlmann 2021, §3.4.3. Train them with ``checkpoints=SPEED_CHECKPOINTS`` and
    ``record_loss=True``; reshape the recorded arrays to (L, S, ...) for per-layer scores.
    """
    return [ProbeSpec(int(seed), view) for view in range(n_layers) for seed in seeds]
