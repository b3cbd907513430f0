"""Paired tests of Part IV: control against extrapolation on the same hard items.

Kunz & Kuhlmann 2021 (§3.6) compare the mean accuracies of the setups; the control and
extrapolation probes are scored on identical hard items, so we also test the gap per item with
the exact McNemar test and its power (Zhu et al. 2022, §3.5,
:func:`probekit.stats.comparison.compare`), for one layer and one seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.criteria import ChapterRun
from probekit.experiments.part4_extrapolation.runs import SplitRun
from probekit.experiments.part4_extrapolation.sample import TASK_LABEL
from probekit.stats.comparison import Comparison, compare

# The paired tests of each chapter: (glue key, task, split).
LENGTH_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("t2_dist", "deprel", "sentence_length_deprel"),
    ("t2_arc", "deprel", "arc_length"),
    ("t2_arcmod", "deprel", "arc_length_modified"),
    ("t1_dist", "pos", "sentence_length_pos"),
)
TAG_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("mft", "pos", "most_frequent_tag"),
    ("tp", "pos", "tag_proportion"),
)
LEARNING_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("t1_speed", "pos", "speed_of_learning"),
    ("t2_speed", "deprel", "speed_of_learning"),
    ("t1_loss", "pos", "sample_loss"),
    ("t2_loss", "deprel", "sample_loss"),
)
NOT_RUN = "not run (split skipped)."
_COLUMNS = ["split", "hard items", "control (%)", "extrapolation (%)", "p", "power", "verdict"]


def hard_correct(run: SplitRun, split: str, layer: int, seed: int, setup: str) -> np.ndarray:
    """Per-item correctness, bool (H,), of one probe on its split's hard evaluation set."""
    idx = run.index
    hit = np.flatnonzero(
        (idx["split"] == split)
        & (idx["layer"] == layer)
        & (idx["seed"] == seed)
        & (idx["setup"] == setup)
    )
    if len(hit) != 1:
        raise ParameterError(
            "split/layer/seed", f"no single probe for {(split, layer, seed, setup)}"
        )
    hard = run.eval_masks[(split, int(layer))]
    return run.result.pred_best[hit[0]][hard] == run.y_eval[hard]


def compare_hard(run: SplitRun, split: str, layer: int, seed: int) -> Comparison:
    """Control vs extrapolation on the same hard items, same layer and seed (exact McNemar).

    Kunz & Kuhlmann 2021, §3.6 setups; the test is Zhu et al. 2022, §3.5
    (:func:`probekit.stats.comparison.compare`).
    """
    return compare(
        hard_correct(run, split, layer, seed, "control"),
        hard_correct(run, split, layer, seed, "extrapolation"),
        "control",
        "extrapolation",
    )


@dataclass(frozen=True, eq=False)
class HardComparisons:
    """A chapter's paired tests at one layer: :func:`compare_hard_items`.

    ``comparisons`` maps ``<key>_cmp`` to the test of each split that was run; ``values`` holds
    the chapter's other glue values (``compare_layer`` and, for each skipped split,
    ``<key>_cmp_summary`` = :data:`NOT_RUN`); ``table`` has one row per test.
    """

    layer: int
    comparisons: dict[str, Comparison]
    values: dict[str, object]
    table: pd.DataFrame


def compare_hard_items(
    chapter: ChapterRun, pairs: Sequence[tuple[str, str, str]]
) -> HardComparisons:
    """:func:`compare_hard` of each (key, task, split) of ``pairs``.

    Each at the chapter's ``compare_layer`` and for its first seed; splits that were skipped are
    reported as not run.
    """
    layer, seed = chapter.compare_layer, chapter.config.seeds[0]
    comparisons: dict[str, Comparison] = {}
    values: dict[str, object] = {"compare_layer": int(layer)}
    rows = []
    for key, task, split in pairs:
        task_run = chapter.tasks[task]
        if split not in task_run.points:
            values[f"{key}_cmp_summary"] = NOT_RUN
            continue
        c = compare_hard(task_run.run, split, layer, seed)
        comparisons[f"{key}_cmp"] = c
        rows.append(
            {
                "split": f"{TASK_LABEL[task]} {split}",
                "hard items": c.n,
                "control (%)": 100 * c.acc_a,
                "extrapolation (%)": 100 * c.acc_b,
                "p": c.p_value,
                "power": c.power,
                "verdict": c.verdict,
            }
        )
    table = pd.DataFrame(rows, columns=_COLUMNS).set_index("split")
    return HardComparisons(int(layer), comparisons, values, table)
