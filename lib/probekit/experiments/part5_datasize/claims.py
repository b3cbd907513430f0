"""The claims of Zhu et al. 2022 that Part V judges, each with its rule and its interval.

Every claim is a :class:`~probekit.experiments.claims.Claim` with one
:class:`~probekit.stats.verdicts.Rule`, declared here before any run; the chapters judge them
with :meth:`probekit.book.glue.Glue.claim` and the claims ledger reads the saved intervals back
(:data:`CLAIMS`). Next to the declarations are the functions that compute each claim's interval
from a chapter's runs:

- V.1 (§4.2, chapter 51): :func:`bound_gaps`, the bound minus the gap to the largest subset,
  per task, probe and size; every cell must hold, and the claim reads the cell that decides;
- V.3 and V.4 (§4.3, chapter 52): :func:`power_growth_interval` and
  :func:`power_sigma_interval`, differences of rejection rates and of simulated powers, over
  seeds, each seed a replication of the study with its own subsets;
- V.6 (§4.6, chapter 53): :func:`classifier_interval`, logistic regression minus the MLP on
  the largest subset, over test sentences and seeds.

Two statements of the paper are not judged here. The recommendations printed in its Tables 2
to 4 are recomputed in chapter 51 as a table, a check of arithmetic rather than of data. That
the recommended training size is enough for a power of 0.8 (§4.4-4.5) follows from the bound's
form (:func:`recommendation_floor`): the recommendation is always many times the size McNemar's
test needs, so no run could contradict it.

Each seed of a chapter draws its own subset (§4.1), so two seeds are scored on different test
sentences; the intervals over sentences and seeds are
:func:`~probekit.methods.datasize.intervals.subsets_interval`, the variance-components interval
for that design.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from probekit.errors import ParameterError
from probekit.experiments.claims import Claim, format_interval
from probekit.experiments.part5_datasize.data import TASK_NAMES
from probekit.experiments.part5_datasize.requirements import config_params
from probekit.experiments.part5_datasize.runs import Runs
from probekit.methods.datasize.intervals import SeedSubsets, seed_subsets, subsets_interval
from probekit.methods.datasize.pools import Pool
from probekit.stats.bounds import Count, finite_class_bound, log_class_size
from probekit.stats.intervals import Interval, seed_interval
from probekit.stats.power import POWER_THRESHOLD
from probekit.stats.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Rule, judge

PAPER = "zhu2022data"

BOUND_GAP = Claim(
    id="V.1",
    paper=PAPER,
    section="§4.2",
    chapter="51_generalisation_bounds",
    anchor="sec-ch51",
    text=(
        "At every training size n, a probe trained on n examples is within the bound B(n, δ) of "
        "the same probe trained on the largest subset"
    ),
    rule=Rule(
        "directional",
        quantity=(
            "B(n, δ) − (test accuracy on the largest subset − test accuracy at n), for every "
            "task, probe and size n below the largest"
        ),
        unit="test sentences and seeds (one subset per seed)",
        sesoi=0.01,
        sesoi_reason=(
            "convention: the bound must exceed the gap by a point; the paper gives no number"
        ),
        test="variance components over sentences and seeds, one subset per seed; every cell "
        "must hold (intersection-union), the interval shown is the deciding cell's",
        scale=100,
        units="points",
        digits=1,
    ),
    key="bound_gap",
    consistency=(
        "the bound holds with probability 1 − δ on any data, so the check can fail only through "
        "an error, and it says nothing about how tight the bound is"
    ),
)

POWER_SIZE = Claim(
    id="V.3",
    paper=PAPER,
    section="§4.3",
    chapter="52_power_and_noise",
    anchor="sec-ch52",
    text="Larger test sets give a comparison more power",
    rule=Rule(
        "directional",
        quantity=(
            "share of McNemar's tests significant at α on the largest subsets − on the "
            "smallest (the realised power), averaged over the noise levels"
        ),
        unit="seeds, each a replication with its own subsets of training and test sentences",
        sesoi=0.05,
        sesoi_reason="convention: changes of power below 0.05 count as none",
        test="t interval over seeds of the per-seed differences",
        digits=2,
    ),
    key="power_size",
    consistency=(
        "power grows with the test set as soon as the two probes differ at all, so the check "
        "cannot fail where there is any effect to detect"
    ),
)

POWER_SIGMA = Claim(
    id="V.4",
    paper=PAPER,
    section="§4.3",
    chapter="52_power_and_noise",
    anchor="sec-ch52",
    text="The more an encoder is corrupted, the easier the corruption is to detect",
    rule=Rule(
        "directional",
        quantity=(
            "simulated power of McNemar's test against the clean probe at the largest noise "
            "level − at the smallest, on the largest subsets (§3.5, each seed's observed table "
            "taken as the truth)"
        ),
        unit="seeds, each a replication with its own subsets of training and test sentences",
        sesoi=0.05,
        sesoi_reason="convention: changes of power below 0.05 count as none",
        test="t interval over seeds of the per-seed differences",
        digits=2,
    ),
    key="power_sigma",
    consistency=(
        "it compares only the two ends of the noise grid, where the corruption is either "
        "barely there or gross"
    ),
)

CLASSIFIERS_COLLAPSE = Claim(
    id="V.6",
    paper=PAPER,
    section="§4.6",
    chapter="53_comparison_problems",
    anchor="sec-ch53",
    text=(
        "Comparing a linear with an MLP classifier on the same layer can collapse (their "
        "accuracies hardly differ)"
    ),
    rule=Rule(
        "equivalence",
        quantity=(
            "test accuracy of logistic regression − of the MLP with 20 hidden units, same "
            "layer, first task, largest subset"
        ),
        unit="test sentences and seeds (one subset per seed, shared by both probes)",
        sesoi=0.01,
        sesoi_reason=(
            "convention: one point; the gaps of the paper's collapsed comparison, Table 4, "
            "are 0.7 to 2.2 points"
        ),
        test="TOST on the variance components over sentences and seeds, one subset per seed",
        scale=100,
        units="points",
        digits=1,
    ),
    key="clf_equiv",
    finding=(
        "the paper's collapse is on bigram shift, and it notes that its other tasks do not "
        "collapse (§4.6); this book measures the comparison on a word-level UD task, where the "
        "paper does not claim it, so the verdict is about that task and not a test of the paper"
    ),
)

#: The claims of Part V, in the ledger's order.
CLAIMS: tuple[Claim, ...] = (BOUND_GAP, POWER_SIZE, POWER_SIGMA, CLASSIFIERS_COLLAPSE)


def config_subsets(runs: Runs, pool: Pool, config: str, size: int) -> SeedSubsets:
    """What ``config`` scored on the test items of every seed's subset of ``size``."""
    return seed_subsets(
        [runs.correct[(config, size, s)] for s in runs.seeds],
        [runs.splits[(size, s)].test for s in runs.seeds],
        pool.sentence_ids(),
    )


# --------------------------------------------------------------------------------------------
# V.1: the bound against the gap to the largest subset (§4.2)

_RANK = {NOT_REPRODUCED: 0, INCONCLUSIVE: 1, REPRODUCED: 2}


@dataclass(frozen=True, eq=False)
class BoundGaps:
    """The bound against the gap to the largest subset, per task, probe and size.

    ``cells`` has one row per (task, probe, size below the largest) with ``task``, ``probe``,
    ``n_train``, ``n_largest`` (training examples), ``bound`` and ``gap`` (test accuracy on the
    largest subset minus at ``n_train``, seed means), ``interval`` (of ``bound - gap``, at the
    rule's level), and the rule's ``verdict`` and one-sided ``p`` on it.
    """

    cells: pd.DataFrame

    @property
    def deciding(self) -> pd.Series:
        """The cell that decides the conjunction: the worst verdict, then the largest p-value.

        The claim's verdict on this cell's interval is the intersection-union verdict over all
        cells (every cell must hold).
        """
        if self.cells.empty:
            raise ParameterError("sizes", "V.1 needs at least two subset sizes per task")
        rank = self.cells["verdict"].map(_RANK)
        order = np.lexsort((-self.cells["p"].to_numpy(float), rank.to_numpy()))
        return self.cells.iloc[int(order[0])]

    @property
    def interval(self) -> Interval:
        """The deciding cell's interval of ``bound - gap``, what the claim is judged on."""
        return self.deciding["interval"]

    @property
    def deciding_text(self) -> str:
        """The deciding cell in words, e.g. ``"LogReg on part of speech at 256 training examples"``.

        The task as :data:`~probekit.experiments.part5_datasize.data.TASK_NAMES` names it.
        """
        d = self.deciding
        task = TASK_NAMES.get(d["task"], d["task"])
        return f"{d['probe']} on {task} at {int(d['n_train']):,} training examples"

    @property
    def n_cells(self) -> int:
        """Cells judged."""
        return len(self.cells)

    @property
    def n_reproduced(self) -> int:
        """Cells whose own verdict is "reproduced"."""
        return int((self.cells["verdict"] == REPRODUCED).sum())

    @property
    def min_margin(self) -> float:
        """The smallest estimated ``bound - gap`` over the cells (a fraction)."""
        return float(min(iv.estimate for iv in self.cells["interval"]))

    def table(self, task_names: Mapping[str, str] = TASK_NAMES) -> pd.DataFrame:
        """The cells for display: points, the interval in words and the cell's verdict."""
        c = self.cells
        return pd.DataFrame({
            "task": [task_names.get(t, t) for t in c["task"]],
            "probe": c["probe"],
            "training examples": c["n_train"].astype(int),
            "bound (points)": 100 * c["bound"],
            "gap to largest (points)": 100 * c["gap"],
            "bound − gap": [format_interval(iv, BOUND_GAP.rule) for iv in c["interval"]],
            "verdict": c["verdict"],
        })  # fmt: skip

    def styled(self, task_names: Mapping[str, str] = TASK_NAMES):
        """:meth:`table` for display, by task, probe and training size."""
        return (
            self.table(task_names)
            .set_index(["task", "probe", "training examples"])
            .style.format({"bound (points)": "{:.1f}", "gap to largest (points)": "{:+.1f}"})
            .format_index("{:,d}", level=2)
        )


def bound_gaps(
    runs: Mapping[str, Runs],
    pools: Mapping[str, Pool],
    delta: float,
    *,
    count: Count = "paper",
    level: float = BOUND_GAP.rule.level,
) -> BoundGaps:
    """V.1 on every task and probe of a run: the bound minus the gap, per size below the largest.

    Zhu et al. 2022, §4.2, eq. 1: B(n, δ) bounds how far the probe trained on n examples is
    from the best probe of its class; the probe trained on the largest subset stands in for the
    best. For every task, probe and size n below the largest, the interval of
    ``B(n, δ) - (acc_largest - acc_n)`` over test sentences and seeds (each size and seed has its
    own subset, so the two sides are not paired), judged by :data:`BOUND_GAP`'s rule.
    """
    rows = []
    for task, r in runs.items():
        top = max(r.sizes)
        for c in r.configs:
            k = config_params(r, c.name)
            largest = config_subsets(r, pools[task], c.name, top)
            for size in sorted(r.sizes):
                if size == top:
                    continue
                n_train = r.n_train(size)
                bound = float(finite_class_bound(n_train, k, delta, count=count))
                at_n = config_subsets(r, pools[task], c.name, size)
                iv = subsets_interval(at_n, largest, level, shift=bound)
                judged = judge(BOUND_GAP.rule, iv)
                rows.append({
                    "task": task, "probe": c.name, "n_train": n_train,
                    "n_largest": r.n_train(top), "bound": bound,
                    "gap": float(largest.accuracies().mean() - at_n.accuracies().mean()),
                    "interval": iv, "verdict": judged.verdict, "p": judged.p_value,
                })  # fmt: skip
    columns = ["task", "probe", "n_train", "n_largest", "bound", "gap", "interval", "verdict", "p"]
    return BoundGaps(pd.DataFrame(rows, columns=columns))


# --------------------------------------------------------------------------------------------
# V.3 and V.4: power over seeds (§4.3)


def _per_seed(row: pd.Series, column: str) -> np.ndarray:
    return np.asarray(row[column], dtype=np.float64)


def power_growth_interval(
    tables: Mapping[float, pd.DataFrame], level: float = POWER_SIZE.rule.level
) -> Interval:
    """V.3: the share of significant McNemar tests on the largest subsets minus the smallest.

    ``tables``: one :func:`~probekit.experiments.part5_datasize.comparisons.comparison_table`
    per comparison (noise level), rows by subset size. For each seed, its rejections on the
    largest subsets minus on the smallest, averaged over the comparisons; the interval is over
    seeds (:func:`~probekit.stats.intervals.seed_interval`), the replications of the study.

    Not the simulated power: power at the observed effect is larger on larger test sets even
    where the probes do not differ at all (on a small test set the disagreements often tie, and
    a tie is power 0), so a rule on its growth would say "reproduced" under that null. The
    realised rejections of the exact test have no such drift (see the claim's calibration test).
    """
    if not tables:
        raise ParameterError("tables", "needs at least one comparison")
    if any(len(t) < 2 for t in tables.values()):
        raise ParameterError("sizes", "V.3 needs at least two subset sizes")
    growth = [
        _per_seed(t.iloc[-1], "significant_per_seed") - _per_seed(t.iloc[0], "significant_per_seed")
        for t in tables.values()
    ]
    return seed_interval(np.mean(growth, axis=0), None, level)


def power_sigma_interval(
    tables: Mapping[float, pd.DataFrame], level: float = POWER_SIGMA.rule.level
) -> Interval:
    """V.4: power against the clean probe at the largest noise level minus at the smallest.

    On the largest subsets, per seed: both powers are simulated from the same seed's tables, on
    the same test items, so the seeds are paired; the interval is over seeds
    (:func:`~probekit.stats.intervals.seed_interval`). ``tables`` by noise level sigma, as for
    :func:`power_growth_interval`.
    """
    if len(tables) < 2:
        raise ParameterError("sigmas", "V.4 needs at least two noise levels")
    hi, lo = tables[max(tables)].iloc[-1], tables[min(tables)].iloc[-1]
    return seed_interval(_per_seed(hi, "power_per_seed") - _per_seed(lo, "power_per_seed"),
                         None, level)  # fmt: skip


# --------------------------------------------------------------------------------------------
# V.6: logistic regression against the MLP (§4.6)


def classifier_interval(
    runs: Runs, pool: Pool, a: str, b: str, level: float = CLASSIFIERS_COLLAPSE.rule.level
) -> Interval:
    """V.6: test accuracy of ``a`` minus ``b`` on the largest subsets, over sentences and seeds.

    Both configurations train on each seed's subset and are scored on its test items, so the
    seeds are paired (Zhu et al. 2022, §4.6, the released code's design).
    """
    top = max(runs.sizes)
    return subsets_interval(
        config_subsets(runs, pool, a, top),
        config_subsets(runs, pool, b, top),
        level,
        paired_seeds=True,
    )


# --------------------------------------------------------------------------------------------
# Why "the recommendation is enough for a power of 0.8" is not judged (§4.4-4.5)


def recommendation_floor(
    n_params: int,
    *,
    delta: float = 1e-8,
    alpha: float = 0.05,
    power: float = POWER_THRESHOLD,
    eta: float = 4.0,
    divisor: float = 2.0,
) -> float:
    """The least ratio of the recipe's training size to the one McNemar's test needs, any gap.

    The recipe (Zhu et al. 2022, §3.2) asks for n = 2 ln(2|F|/δ) divisor² / gap² training
    examples. McNemar's test reaches ``power`` on a test set of about
    ((z_{1-α/2} √ψ + z_power √(ψ - gap²)) / gap)² items (Connor 1987), at most
    (z_{1-α/2} + z_power)² / gap² as the discordance ψ is at most 1, that is η times as many
    training examples at a split of η : 1 : 1. The gap cancels: the ratio is at least
    2 ln(2|F|/δ) divisor² / (η (z_{1-α/2} + z_power)²) at every gap.
    """
    z = float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))
    log_f = float(log_class_size(n_params))
    return 2 * (log_f + math.log(2 / delta)) * divisor**2 / (eta * z**2)
