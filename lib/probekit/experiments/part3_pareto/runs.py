"""The record of one probe family's run in Part III (Pimentel et al. 2020, §3).

Every run (:mod:`.parametric`, :mod:`.memorisation`, :mod:`.parsing`) returns a
:class:`ParetoRun`: one (complexity, accuracy) point per probe, the points that
:mod:`.frontiers` turns into Pareto frontiers, plus which test items each probe got right, for
paired tests. :func:`combine` stacks the tables of several runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd


@dataclass(frozen=True, eq=False)
class ParetoRun:
    """The probes of one experiment, the points of its Pareto frontiers (Pimentel et al. 2020, §3).

    ``table`` has one row per probe (columns below), and ``correct`` (P, N_test) bool says which
    test items each probe got right (normal training), in table order; ``groups`` (N_test,) gives
    each item's test sentence (for bootstraps).

    Columns always present: ``representation``, ``task``, ``family``, ``probe`` (index),
    ``accuracy`` (test accuracy or UAS), ``dev_accuracy``. Complexity columns depend on the
    family: ``complexity`` (nuclear norm or rank), or ``label_shuffled`` / ``fully_shuffled``
    (memorisation accuracy, NaN where the control was not run).
    """

    table: pd.DataFrame
    correct: np.ndarray
    groups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def combine(runs: Sequence[ParetoRun]) -> pd.DataFrame:
    """One table from several runs (the points of all their frontiers, §3), rows in run order."""
    return pd.concat([r.table for r in runs], ignore_index=True)
