"""The control - extrapolation gap of every scoring function across Part IV.

The gaps (Kunz & Kuhlmann 2021, §5.1) are collected from the chapters' saved results, each
beside the same gap against the size control (§3.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.io.results import load_results

# Where each chapter of Part IV saves its mean control - extrapolation gap per scoring function:
# (results slug, glued key) -> (task, scoring function).
LEDGER_KEYS: dict[tuple[str, str], tuple[str, str]] = {
    ("42_length_criteria", "t1_dist_gap_mean"): ("T1", "sentence length"),
    ("42_length_criteria", "t2_dist_gap_mean"): ("T2", "sentence length"),
    ("42_length_criteria", "t2_arc_gap_mean"): ("T2", "arc length"),
    ("42_length_criteria", "t2_arcmod_gap_mean"): ("T2", "arc length (modified)"),
    ("43_tag_criteria", "mft_gap_mean"): ("T1", "most frequent tag"),
    ("43_tag_criteria", "tp_gap_mean"): ("T1", "tag proportion"),
    ("44_learning_criteria", "t1_speed_gap_mean"): ("T1", "speed of learning"),
    ("44_learning_criteria", "t2_speed_gap_mean"): ("T2", "speed of learning"),
    ("44_learning_criteria", "t1_loss_gap_mean"): ("T1", "sample loss"),
    ("44_learning_criteria", "t2_loss_gap_mean"): ("T2", "sample loss"),
}
LEDGER_MATCH: tuple[str, ...] = ("n_train_sentences", "n_eval_sentences", "n_seeds", "epochs")


def size_key(key: str) -> str:
    """The saved key of a gap against the size control: "mft_gap_mean" -> "mft_size_gap_mean"."""
    return key.removesuffix("_gap_mean") + "_size_gap_mean"


# The chapter that collects the gaps, and the earlier chapters whose saved results it reads.
COLLECTING_CHAPTER = "44_learning_criteria"
EARLIER_CHAPTERS: tuple[str, ...] = ("42_length_criteria", "43_tag_criteria")


def gap_ledger(
    results: Mapping[str, Mapping[str, object]], reference: str
) -> tuple[pd.DataFrame, list[str]]:
    """Mean control - extrapolation gap per task and scoring function across Part IV (§4-5).

    Kunz & Kuhlmann 2021, §5.1 compare the scoring functions by this gap. ``results`` maps a
    chapter slug to its saved glue values (``build/results/<slug>.json``); chapters whose
    :data:`LEDGER_MATCH` values differ from those of ``reference`` (another profile's run) are
    left out and returned as the second value. Rows: task, scoring function, gap (points),
    size gap (the gap against the size control, :func:`size_key`; NaN if not saved), chapter;
    NaN gaps (skipped splits) are dropped.
    """
    if reference not in results:
        raise ParameterError("reference", f"'{reference}' is not among {list(results)}")
    ref = results[reference]
    stale = [
        slug
        for slug, values in results.items()
        if any(values.get(k) != ref.get(k) for k in LEDGER_MATCH)
    ]
    rows = [
        {
            "task": task,
            "scoring function": name,
            "gap": float(results[slug][key]),
            "size gap": float(results[slug].get(size_key(key), np.nan)),
            "chapter": slug,
        }
        for (slug, key), (task, name) in LEDGER_KEYS.items()
        if slug in results and slug not in stale and key in results[slug]
    ]
    table = pd.DataFrame(rows, columns=["task", "scoring function", "gap", "size gap", "chapter"])
    table = table[np.isfinite(table["gap"].astype(float))].reset_index(drop=True)
    return table, stale


def collect_gaps(
    values: Mapping[str, object], directory: str | Path
) -> tuple[pd.DataFrame, list[str]]:
    """:func:`gap_ledger` of chapter 44's own ``values`` and the earlier chapters' saved results.

    The earlier chapters are :data:`EARLIER_CHAPTERS`, read from ``directory`` (e.g.
    ``build/results``).

    Chapters not yet run are simply absent from the table.
    """
    results = {COLLECTING_CHAPTER: dict(values), **load_results(directory, list(EARLIER_CHAPTERS))}
    return gap_ledger(results, COLLECTING_CHAPTER)
