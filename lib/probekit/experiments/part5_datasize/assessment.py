"""The recipe run on the comparison problems of chapter 53 (Zhu et al. 2022).

Following §3.2, §3.5 and §4.4-4.6: for each comparison, its recommendation, power and McNemar's
test on the largest subset, and over all of them how the recommendations compare with the
training sizes at which the power reached 0.8. That the recommendation is enough for a power of
0.8 follows from the bound's form (see
:func:`~probekit.experiments.part5_datasize.claims.recommendation_floor`), so it is described,
not judged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.experiments.part5_datasize.claims import recommendation_floor
from probekit.experiments.part5_datasize.comparison_problems import ComparisonProblems
from probekit.experiments.part5_datasize.comparisons import largest_subset_comparison
from probekit.experiments.part5_datasize.config import ComparisonProblemsConfig
from probekit.experiments.part5_datasize.data import TASK_SHORT_NAMES
from probekit.experiments.part5_datasize.requirements import config_params
from probekit.stats.comparison import Comparison
from probekit.stats.power import POWER_THRESHOLD

_FIRST_POWERED = "first N_train with power ≥ 0.8"


@dataclass(frozen=True, eq=False)
class ProblemOutcome:
    """One comparison on one task, with its test on the largest subset and the test size it needs.

    ``table``: its :func:`~probekit.experiments.part5_datasize.comparisons.comparison_table`;
    ``comparison``: McNemar's test on the first seed's largest subset; ``needed``: the test size
    for a power of 0.8 there (0: more than the run's ``max_test``); ``floor``: the least ratio of
    the recommendation to the training size McNemar's test needs, at any gap
    (:func:`~probekit.experiments.part5_datasize.claims.recommendation_floor`).
    """

    task: str
    key: str
    title: str
    table: pd.DataFrame
    comparison: Comparison
    needed: int
    floor: float = float("nan")

    @property
    def rec_min(self) -> float:
        """The smallest recommendation over the subset sizes (inf if there is none)."""
        rec = self.table["n_train_rec"]
        return float(np.nanmin(rec)) if rec.notna().any() else np.inf

    def glue_values(self, prefix: str) -> dict[str, object]:
        """The numbers the chapter's prose uses for this comparison, keyed ``<prefix>_<name>``.

        On the largest subset the gap A - B (points), the recommendation (0 where the gap is
        0), training and test size and power; the smallest and largest recommendation over the
        sizes; the first test size with power >= 0.8 (0: none); the seed-0 test's summary and
        the projected test size ``needed``.
        """
        t, last = self.table, self.table.iloc[-1]
        rec = last["n_train_rec"]
        any_rec = t["n_train_rec"].notna().any()
        powered = t.loc[t["power"] >= POWER_THRESHOLD, "n_test"]
        values = {
            "gap": 100 * float(last["gap"]),
            "rec": int(rec) if np.isfinite(rec) else 0,
            "rec_text": f"{int(rec):,}" if np.isfinite(rec) else "no finite",
            "rec_min": int(np.nanmin(t["n_train_rec"])) if any_rec else 0,
            "rec_max": int(np.nanmax(t["n_train_rec"])) if any_rec else 0,
            "n_train": int(last["n_train"]),
            "n_test": int(last["n_test"]),
            "power": float(last["power"]),
            "first_powered": int(powered.iloc[0]) if len(powered) else 0,
            "summary": self.comparison.summary(),
            "needed": self.needed,
        }
        return {f"{prefix}_{name}": value for name, value in values.items()}

    def overview_row(self) -> dict[str, object]:
        """This comparison's row of :attr:`ProblemsAssessment.overview`."""
        last = self.table.iloc[-1]
        powered = self.table.loc[self.table["power"] >= POWER_THRESHOLD]
        return {
            "task": TASK_SHORT_NAMES[self.task],
            "comparison": self.title,
            "training examples": int(last["n_train"]),
            "test examples": int(last["n_test"]),
            "A − B (points)": 100 * float(last["gap"]),
            "recommended N_train": last["n_train_rec"],
            "power": float(last["power"]),
            _FIRST_POWERED: int(powered["n_train"].iloc[0]) if len(powered) else 0,
            "_key": (self.task, self.key),
            "_rec_min": self.rec_min,
            "_abs_gap": abs(float(last["gap"])),
        }


@dataclass(frozen=True, eq=False)
class ProblemsAssessment:
    """Every comparison on every task (:func:`assess_problems`).

    ``overview`` has one row per comparison on its largest subset (private columns ``_key``,
    ``_rec_min``, ``_abs_gap``).
    """

    outcomes: dict[tuple[str, str], ProblemOutcome]
    overview: pd.DataFrame
    head: str

    def glue_values(self) -> dict[str, object]:
        """:meth:`ProblemOutcome.glue_values` of every comparison.

        Prefixed ``head_<key>`` on the head task and ``<task>_<key>`` on the others.
        """
        out: dict[str, object] = {}
        for (task, key), outcome in self.outcomes.items():
            prefix = f"head_{key}" if task == self.head else f"{task}_{key}"
            out |= outcome.glue_values(prefix)
        return out

    @property
    def n_comparisons(self) -> int:
        """Comparisons over all tasks."""
        return len(self.overview)

    def _listed(self, rows: pd.DataFrame) -> str:
        return "; ".join(f"{r['comparison']} ({r['task']})" for _, r in rows.iterrows()) or "none"

    @property
    def _well(self) -> pd.DataFrame:
        return self.overview[self.overview["power"] >= POWER_THRESHOLD]

    @property
    def _weak(self) -> pd.DataFrame:
        return self.overview[self.overview["power"] < POWER_THRESHOLD]

    @property
    def _reached(self) -> pd.DataFrame:
        return self.overview[self.overview[_FIRST_POWERED] > 0]

    @property
    def n_well_powered(self) -> int:
        """Comparisons with power >= 0.8 on their largest subset."""
        return len(self._well)

    @property
    def well_list(self) -> str:
        """The comparisons with power >= 0.8, e.g. ``"layer 3 vs layer 6 (tense)"``."""
        return self._listed(self._well)

    @property
    def weak_list(self) -> str:
        """The comparisons with power < 0.8."""
        return self._listed(self._weak)

    @property
    def n_reached(self) -> int:
        """Comparisons that reach a power of 0.8 at some subset size."""
        return len(self._reached)

    @property
    def n_above(self) -> int:
        """Recommendations on the largest subsets that exceed the training data we have."""
        return int(
            (self.overview["recommended N_train"] > self.overview["training examples"]).sum()
        )

    @property
    def factor_text(self) -> str:
        """How many times the first powered training size the smallest recommendation is.

        A sentence: over the comparisons that reach a power of 0.8 at some subset size.
        """
        reached = self._reached
        factor = reached["_rec_min"] / reached[_FIRST_POWERED]
        if not len(factor):
            return "No comparison reaches a power of 0.8 on our subsets"
        many = "comparisons that reach" if len(factor) > 1 else "comparison that reaches"
        return (
            f"For the {len(factor)} {many} a power of 0.8 on our subsets, the smallest "
            f"recommendation is {factor.min():,.0f} to {factor.max():,.0f} times the training "
            "size at which the power first reached 0.8"
        )

    @property
    def weak_text(self) -> str:
        """The largest gap and the smallest recommendation of the under-powered comparisons."""
        weak = self._weak
        if not len(weak):
            return "Every comparison reaches 0.8 here"
        return (
            f"The comparisons that stay below 0.8 have gaps of at most "
            f"{100 * weak['_abs_gap'].max():.1f} points, and for them the recipe asks for "
            f"at least {weak['recommended N_train'].min():,.0f} examples"
        )

    @property
    def rec_spread(self) -> float:
        """Median over comparisons of the largest over the smallest recommendation."""
        spread = []
        for outcome in self.outcomes.values():
            rec = outcome.table["n_train_rec"].dropna()
            if len(rec) > 1:
                spread.append(rec.max() / rec.min())
        return float(np.median(spread)) if spread else 1.0

    @property
    def floor_min(self) -> float:
        """The least :attr:`ProblemOutcome.floor` over the comparisons."""
        return float(min(o.floor for o in self.outcomes.values())) if self.outcomes else np.nan

    def styled_overview(self):
        """The overview for display, a dash where 0.8 was never reached."""
        shown = self.overview.drop(columns=["_key", "_rec_min", "_abs_gap"])
        return (
            shown.set_index(["task", "comparison"])
            .replace({_FIRST_POWERED: {0: np.nan}})
            .style.format({"training examples": "{:,d}", "test examples": "{:,d}",
                           "A − B (points)": "{:+.1f}", "recommended N_train": "{:,.0f}",
                           "power": "{:.2f}", _FIRST_POWERED: "{:,.0f}"}, na_rep="–")
        )  # fmt: skip


def assess_problems(
    problems: ComparisonProblems, config: ComparisonProblemsConfig
) -> ProblemsAssessment:
    """Each comparison of ``problems`` on the first seed's largest subset, and their overview.

    Each with the test size a power of 0.8 needs (Zhu et al. 2022, §3.5) and the least ratio of
    its recommendation to the training size McNemar's test needs; the overview covers all of them.
    """
    outcomes = {}
    for (task, key), table in problems.tables.items():
        name_a, name_b, title = problems.pairs[key]
        runs = problems.runs(task)
        cmp, needed = largest_subset_comparison(
            runs, name_a, name_b, alpha=config.alpha, n_sim=config.n_sim, max_test=config.max_test,
        )  # fmt: skip
        floor = recommendation_floor(
            max(config_params(runs, name_a), config_params(runs, name_b)), delta=config.delta,
            alpha=config.alpha, eta=config.eta, divisor=config.divisor,
        )  # fmt: skip
        outcomes[(task, key)] = ProblemOutcome(task, key, title, table, cmp, needed, floor)
    overview = pd.DataFrame([o.overview_row() for o in outcomes.values()])
    return ProblemsAssessment(outcomes, overview, problems.head)
