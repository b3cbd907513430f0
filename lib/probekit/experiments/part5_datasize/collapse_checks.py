"""Collapsed comparisons: the rotation and repeated-pilot checks (Zhu et al. 2022, §3.6).

The splits come from :func:`probekit.methods.datasize.subsets.fold_splits` and
:func:`probekit.methods.datasize.subsets.pilot_splits`; the statistics from
:func:`probekit.methods.datasize.collapse.collapse_check`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.encoders import ExampleEncoder
from probekit.experiments.part5_datasize.runs import Config, Training, train_subsets
from probekit.methods.datasize.collapse import CollapseReport, collapse_check
from probekit.methods.datasize.pools import Pool
from probekit.methods.datasize.subsets import Split


def check_collapse(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    a: Config,
    b: Config,
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
    on its test part by :func:`probekit.methods.datasize.collapse.collapse_check`: frequent sign flips and a
    significance rate near ``alpha`` suggest the comparison has collapsed.
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
    """A reading of a :class:`probekit.methods.datasize.collapse.CollapseReport` (Zhu et al. 2022, §3.6).

    The paper gives no thresholds; ours: "stable" when every split agrees on the sign and at
    least half are significant; "likely collapsed" when at least a fifth of the splits flip the
    sign and at most twice ``alpha`` of them are significant (what a null comparison gives);
    "unclear" otherwise.
    """
    if report.sign_flip_rate == 0 and report.significant_rate >= 0.5:
        return "stable"
    if report.sign_flip_rate >= 0.2 and report.significant_rate <= 2 * report.alpha:
        return "likely collapsed"
    return "unclear"
