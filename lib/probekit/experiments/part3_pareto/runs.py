"""The record of one probe family's run in Part III (Pimentel et al. 2020, §3).

Every run (:mod:`.parametric`, :mod:`.memorisation`, :mod:`.parsing`) returns a
:class:`ParetoRun`: one (complexity, accuracy) point per probe, the points that
:mod:`.frontiers` turns into Pareto frontiers, plus which test items each probe got right, for
the sentence-level intervals of the claims (:meth:`ParetoRun.sentence_scores`). :func:`pool_seeds`
makes one run of a setting's training seeds, and :func:`combine` stacks the tables of several
runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit.errors import ParameterError


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

    def sentence_scores(self, n_sentences: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Each probe's correct items per test sentence, and each sentence's items.

        Items (words, arcs) of one sentence stand or fall together, so the test sentence is the
        unit of every interval of Part III's claims. ``n_sentences`` counts sentences without
        items too (e.g. one-word sentences have no DAL arc); default: up to the last sentence
        with an item.

        Returns:
            ``counts`` (P, n) float, correct items of each probe in each sentence, and ``units``
            (n,) float, the sentence's items; ``counts.sum(1) / units.sum()`` is each probe's
            accuracy.
        """
        groups = np.asarray(self.groups, dtype=np.int64)
        if groups.size == 0 or groups.shape != (self.correct.shape[1],):
            raise ParameterError(
                "groups", f"needs one sentence per test item ({self.correct.shape[1]}), "
                f"got shape {groups.shape}"
            )  # fmt: skip
        n = int(groups.max()) + 1 if n_sentences is None else int(n_sentences)
        if groups.size and n <= groups.max():
            raise ParameterError("n_sentences", f"must exceed the largest sentence index, got {n}")
        units = np.bincount(groups, minlength=n).astype(np.float64)
        counts = np.stack([np.bincount(groups, weights=c, minlength=n) for c in self.correct])
        return counts.astype(np.float64), units

    @property
    def seeds(self) -> list[int]:
        """The training seeds of the probes (:func:`pool_seeds`), in table order; [] untagged."""
        if "seed" not in self.table:
            return []
        return [int(s) for s in dict.fromkeys(self.table["seed"])]


def combine(runs: Sequence[ParetoRun]) -> pd.DataFrame:
    """One table from several runs (the points of all their frontiers, §3), rows in run order."""
    return pd.concat([r.table for r in runs], ignore_index=True)


def pool_seeds(runs: Mapping[int, ParetoRun]) -> ParetoRun:
    """The runs of one setting under several training seeds as one run, rows tagged ``seed``.

    ``runs`` maps each seed to its run (the same test items, so the same ``groups``). The pooled
    table is every seed's rows in seed order with a ``seed`` column; a frontier drawn from it
    uses every probe trained, and the ``seed`` column picks one seed's probes for a statistic per
    seed (:func:`~.resampling.seeded_bootstrap`).
    """
    if not runs:
        raise ParameterError("runs", "needs at least one seed's run")
    first = next(iter(runs.values()))
    for seed, run in runs.items():
        if not np.array_equal(run.groups, first.groups):
            raise ParameterError("runs", f"seed {seed}'s probes were scored on other test items")
    tables = [run.table.assign(seed=int(seed)) for seed, run in runs.items()]
    return ParetoRun(
        pd.concat(tables, ignore_index=True),
        np.concatenate([run.correct for run in runs.values()]),
        first.groups,
    )
