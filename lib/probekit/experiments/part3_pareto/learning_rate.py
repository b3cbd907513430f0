"""The learning-rate trial of chapter 34 (issue 14: what one shared rate costs each side).

Chapter 34 trains every parser and control at one Adam rate, as the paper does: the complexity
axis is how much a control memorises within its budget, which depends on how fast it learns,
so a rate tuned per representation would change what "complex" means from one representation
to the next. One rate may still suit one representation better than another. The trial measures
that, the same way for every representation: one MLP parser (:data:`TRIAL_MLP`, inside the
chapter's search space) per representation and rate, on the chapter's ``book`` sample and
schedule, each read on its own dev UAS (Pimentel et al. 2020, §7.2, with our stopping rule).
``benchmarks/bench_parsing_lr.py`` runs :func:`lr_trial`; :data:`MEASURED` records its result,
for the chapter to show when its set-up matches (:data:`MEASURED_SETUP`), with what the
chapter's rate gives up against each representation's best (:func:`lr_trial_numbers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.config import has_setup
from probekit.experiments.part3_pareto.parsing import parse_mlp_seeds
from probekit.experiments.part3_pareto.representations import Representation, Splits
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions

TRIAL_MLP = MLPConfig(n_layers=1, hidden_size=128, dropout=0.2)
"""The trial's parser: one hidden layer of 128 (the widest the book's search draws), dropout
0.2."""

TRIAL_RATES: tuple[float, ...] = (0.001, 0.002, 0.003, 0.005)
"""Adam rates tried: the released code's 0.001, Dozat and Manning's 0.002, 0.003 and the
book's 0.005."""

COLUMNS = ["representation", "lr", "dev_uas", "uas", "best_step", "at_cap"]


def lr_trial(
    reps: Mapping[str, Representation],
    splits: Splits,
    options: TrainOptions,
    *,
    rates: Sequence[float] = TRIAL_RATES,
    seed: int = 0,
) -> pd.DataFrame:
    """Train :data:`TRIAL_MLP` on every representation at every rate (chapter 34's options).

    Returns one row per (representation, lr) with the :data:`COLUMNS`: dev and test UAS (in
    [0, 1]), the best step and whether the run ended at its cap. :func:`best_rates` reads each
    representation's best rate off the dev UAS (the test set plays no part in the choice).
    """
    rows = []
    for name, rep in reps.items():
        for lr in rates:
            run = parse_mlp_seeds(
                rep, splits, TRIAL_MLP, 0, [seed], seed=seed, options=replace(options, lr=lr)
            )
            r = run.table.iloc[0]
            rows.append(
                (
                    name,
                    float(lr),
                    float(r["dev_accuracy"]),
                    float(r["accuracy"]),
                    int(r["best_step"]),
                    bool(r["at_cap"]),
                )
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def best_rates(table: pd.DataFrame) -> dict[str, float]:
    """Each representation's best rate by dev UAS (the first, if tied)."""
    return {
        str(name): float(g.loc[g["dev_uas"].idxmax(), "lr"])
        for name, g in table.groupby("representation", sort=False)
    }


def lr_trial_display(table: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """Dev UAS in % by representation (rows, display names) and rate (columns)."""
    out = table.pivot(index="representation", columns="lr", values="dev_uas") * 100
    out = out.loc[list(dict.fromkeys(table["representation"]))]
    out.index = [labels.get(str(n), str(n)) for n in out.index]
    out.columns = [f"lr {c:g}" for c in out.columns]
    return out


def lr_trial_numbers(
    table: pd.DataFrame | None, lr: float, labels: Mapping[str, str]
) -> dict[str, Any]:
    """Glue values on the trial against the chapter's shared rate ``lr``.

    ``lr_trial_text``: which representations do best at ``lr``, and which preferred another rate
    and by how many points of dev UAS; ``lr_trial_cost``: a sentence on who gives up the most
    dev UAS at ``lr``, and which way that tilts the comparison of the contextual representation
    with the others (or why that is not known: no trial for this set-up, or ``lr`` not tried).
    """
    if table is None:
        return _no_trial("no trial was recorded for this set-up")
    at = table[np.isclose(table["lr"], lr)].set_index("representation")["dev_uas"]
    if at.empty:
        return _no_trial(f"the trial did not try {lr:g}")
    best = table.groupby("representation", sort=False)["dev_uas"].max()
    loss = (best - at.reindex(best.index)) * 100
    rates = best_rates(table)
    others = [n for n, r in rates.items() if not np.isclose(r, lr)]
    rest = [labels.get(n, n) for n in rates if n not in others]
    if not others:
        text = f"{lr:g} gave every representation its best development UAS"
    else:
        parts = "; ".join(
            f"{labels.get(n, n)} did best at {rates[n]:g}, {loss[n]:.1f} points above its UAS "
            f"at {lr:g}"
            for n in others
        )
        head = f"{_join(rest)} did best at {lr:g}; " if rest else ""
        text = head + parts
    worst = str(loss.idxmax())
    if not loss.max() > 0:
        cost = "The chapter's rate costs no representation any development UAS."
    else:
        whom = "it" if worst == "contextual" else "that rival"
        cost = (
            f"The chapter's rate costs {labels.get(worst, worst)} the most, {loss.max():.1f} "
            f"points of development UAS, so on UAS the comparisons below are, if anything, "
            f"tilted against {whom}."
        )
    return {"lr_trial_text": text, "lr_trial_cost": cost}


def _no_trial(text: str) -> dict[str, Any]:
    cost = "What the chapter's rate costs each representation was not measured for this set-up."
    return {"lr_trial_text": text, "lr_trial_cost": cost}


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


MEASURED_SETUP: dict[str, Any] = {
    "treebank": "UD_English-EWT",
    "model": "default",
    "layer": -1,
    "pooling": "mean",
    "n_train": 2000,
    "n_dev": 500,
    "sample_seed": 42,
    "batch_size": 64,
    "eval_every": 50,
    "patience": 3,
    "max_steps": 1000,
    "type_dim": 64,
    "fasttext_dim": 300,
    "fasttext_epochs": 20,
    "fasttext_path": "",
    "seed": 0,
}
"""The chapter parameters :data:`MEASURED` was measured with."""

MEASURED: tuple[tuple[str, float, float, float, int, bool], ...] = (
    ("contextual", 0.001, 0.5014, 0.4894, 950, True),
    ("contextual", 0.002, 0.4940, 0.4806, 700, False),
    ("contextual", 0.003, 0.4813, 0.4703, 650, False),
    ("contextual", 0.005, 0.4421, 0.4398, 400, False),
    ("fasttext", 0.001, 0.2782, 0.2729, 150, False),
    ("fasttext", 0.002, 0.2760, 0.2705, 100, False),
    ("fasttext", 0.003, 0.2728, 0.2714, 150, False),
    ("fasttext", 0.005, 0.2714, 0.2671, 100, False),
    ("onehot", 0.001, 0.2449, 0.2407, 850, False),
    ("onehot", 0.002, 0.2468, 0.2460, 600, False),
    ("onehot", 0.003, 0.2613, 0.2568, 650, False),
    ("onehot", 0.005, 0.2646, 0.2561, 500, False),
    ("random", 0.001, 0.2197, 0.2172, 600, False),
    ("random", 0.002, 0.2354, 0.2254, 450, False),
    ("random", 0.003, 0.2433, 0.2340, 600, False),
    ("random", 0.005, 0.2448, 0.2301, 450, False),
)
"""The trial's rows (:data:`COLUMNS`), recorded on 2026-11-26 from
``python benchmarks/bench_parsing_lr.py`` (144 s on one core)."""


def measured_trial(config: Any) -> pd.DataFrame | None:
    """The :data:`MEASURED` table, as :func:`lr_trial` returns it, for its set-up; else None."""
    if not has_setup(config, MEASURED_SETUP):
        return None
    return pd.DataFrame(list(MEASURED), columns=COLUMNS)
