"""Collapsed comparisons: the rotation and repeated-pilot checks (Zhu et al. 2022, §3.6).

Also their run on the comparisons of chapter 53 with the smallest gaps. The checks are the
paper's heuristics and are reported as readings; the claim of §4.6 is judged by an equivalence
test (:func:`~probekit.experiments.part5_datasize.claims.classifier_interval`).

The splits come from :func:`probekit.methods.datasize.subsets.fold_splits` and
:func:`probekit.methods.datasize.subsets.pilot_splits`; the statistics from
:func:`probekit.methods.datasize.collapse.collapse_check`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.assessment import ProblemsAssessment
from probekit.experiments.part5_datasize.comparison_problems import ComparisonProblems
from probekit.experiments.part5_datasize.config import ComparisonProblemsConfig
from probekit.experiments.part5_datasize.encoders import ExampleEncoder
from probekit.experiments.part5_datasize.training import ProbingConfig, Training, train_subsets
from probekit.methods.datasize.collapse import CollapseReport, collapse_check
from probekit.methods.datasize.pools import Pool
from probekit.methods.datasize.subsets import Split, fold_splits, max_size, pilot_splits


def check_collapse(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    a: ProbingConfig,
    b: ProbingConfig,
    splits: Sequence[Split],
    *,
    seed: int,
    training: Training | None = None,
    alpha: float = 0.05,
) -> CollapseReport:
    """Train configs ``a`` and ``b`` on every split and test each pair (Zhu et al. 2022, §3.6).

    ``splits`` from :func:`fold_splits` (the rotation) or :func:`pilot_splits` (repeated
    pilots), all with equally many training examples. Both configs are trained in batched
    passes with init and order ``seed``, selected on each split's validation part, and compared
    on its test part by :func:`probekit.methods.datasize.collapse.collapse_check`: frequent sign
    flips and a significance rate near ``alpha`` suggest the comparison has collapsed.
    """
    if not splits:
        raise ParameterError("splits", "needs at least one split")
    keyed = dict(enumerate(splits))
    results = train_subsets(
        pool, encoders, [a, b], keyed, training or Training(),
        init_seed=lambda k: seed, noise_seed=lambda k: [seed, k, 7919],
    )  # fmt: skip
    by_test = {splits[k].test.tobytes(): k for k in keyed}

    def fit_predict(train_idx, test_idx, val_idx=None):
        k = by_test[np.asarray(test_idx).tobytes()]
        return results[(a.name, k)][2], results[(b.name, k)][2]

    return collapse_check(fit_predict, splits, alpha=alpha)


def collapse_verdict(report: CollapseReport) -> str:
    """A reading of a :class:`~probekit.methods.datasize.collapse.CollapseReport`.

    The check is that of Zhu et al. 2022, §3.6. The paper gives no thresholds; ours: "stable" when
    every split agrees on the sign and at least half are significant; "likely collapsed" when at
    least a fifth of the splits flip the sign and at most twice ``alpha`` of them are significant
    (what a null comparison gives); "unclear" otherwise.
    """
    if report.sign_flip_rate == 0 and report.significant_rate >= 0.5:
        return "stable"
    if report.sign_flip_rate >= 0.2 and report.significant_rate <= 2 * report.alpha:
        return "likely collapsed"
    return "unclear"


@dataclass(frozen=True, eq=False)
class CollapseChecks:
    """The collapse checks run on the comparisons with the smallest gaps.

    Made by :func:`run_collapse_checks`. ``candidates``: their rows of the overview; ``table``: one
    row per (comparison, check) with its splits, test size, mean gap, sign-flip and significance
    rates and :func:`collapse_verdict`; ``classifiers``: the title of the comparison of logistic
    regression with the MLP.
    """

    candidates: pd.DataFrame
    table: pd.DataFrame
    classifiers: str

    @property
    def n_checked(self) -> int:
        """Comparisons checked."""
        return int(self.candidates.shape[0])

    @property
    def checked_list(self) -> str:
        """The checked comparisons, e.g. ``"LogReg vs MLP-20 (layer 3) (tense)"``."""
        rows = self.candidates.iterrows()
        return "; ".join(f"{r['comparison']} ({r['task']})" for _, r in rows)

    @property
    def readings(self) -> str:
        """The readings of every checked comparison, e.g. ``"... (tense): stable / unclear"``."""
        grouped = self.table.groupby(["task", "comparison"])["reading"]
        readings = grouped.agg(lambda s: " / ".join(s))
        return "; ".join(f"{c} ({t}): {r}" for (t, c), r in readings.items())

    @property
    def _clf(self) -> pd.Series:
        return self.table.loc[self.table["comparison"] == self.classifiers, "reading"]

    @property
    def clf_checks(self) -> int:
        """Checks run on the comparison of the two classifiers."""
        return len(self._clf)

    @property
    def clf_collapsed(self) -> int:
        """Checks of the two classifiers that read "likely collapsed"."""
        return int((self._clf == "likely collapsed").sum())

    @property
    def clf_stable(self) -> int:
        """Checks of the two classifiers that read "stable"."""
        return int((self._clf == "stable").sum())

    def styled(self):
        """The checks for display."""
        return self.table.set_index(["task", "comparison", "check"]).style.format(
            {"mean A − B (points)": "{:+.2f}", "sign flips": "{:.0%}", "significant": "{:.0%}"}
        )


def run_collapse_checks(
    problems: ComparisonProblems,
    assessment: ProblemsAssessment,
    config: ComparisonProblemsConfig,
) -> CollapseChecks:
    """Both checks of Zhu et al. 2022, §3.6 on the comparisons with the smallest gaps.

    They run on every comparison whose gap on the largest subset is below ``config.collapse_gap``
    (or, if none is, on the one with the smallest gap): ``config.n_folds`` rotating folds over as
    many examples as the largest subset holds, and ``config.pilot_repeats`` pilots of
    ``config.pilot_size`` training examples per class where the pool allows them; all seeded by
    the first seed.
    """
    overview = assessment.overview
    candidates = overview[overview["_abs_gap"] < config.collapse_gap]
    if candidates.empty:
        candidates = overview.nsmallest(1, "_abs_gap")
    seed, rows = config.seeds[0], []
    for _, row in candidates.iterrows():
        task, key = row["_key"]
        runs, pool = problems.runs(task), problems.experiment.pools[task]
        a, b = (runs.config(name) for name in problems.pairs[key][:2])
        balanced = task == "past_present"
        largest = runs.splits[(max(runs.sizes), seed)]
        n_items = len(largest.train) + len(largest.val) + len(largest.test)
        found = {"rotating folds": fold_splits(pool.y, n_items, config.n_folds, seed, balanced)}
        if config.pilot_size <= max_size(pool.y, config.eta, balanced):
            found["repeated pilots"] = pilot_splits(pool.y, config.pilot_size,
                                                    config.pilot_repeats, config.eta, seed,
                                                    balanced)  # fmt: skip
        for method, splits in found.items():
            report = check_collapse(
                pool, problems.experiment.encoders[task], a, b, splits,
                seed=seed, training=config.training(), alpha=config.alpha,
            )  # fmt: skip
            rows.append({
                "task": row["task"],
                "comparison": row["comparison"],
                "check": method,
                "splits": len(splits),
                "test examples per split": int(np.mean(report.n_test)),
                "mean A − B (points)": 100 * report.mean_diff,
                "sign flips": report.sign_flip_rate,
                "significant": report.significant_rate,
                "reading": collapse_verdict(report),
            })  # fmt: skip
    return CollapseChecks(candidates, pd.DataFrame(rows), problems.pairs["classifiers"][2])
