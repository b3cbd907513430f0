"""The paper's own numbers recomputed (Zhu et al. 2022).

The worked example of §3.4 and the recommended training sizes of Tables 2-4.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from probekit.experiments.part5_datasize.requirements import EXAMPLE_EPSILON, EXAMPLE_N
from probekit.methods.datasize.recommendation import recommend
from probekit.stats.bounds import finite_class_bound, n_for_bound

_D768, _D4096 = 769, 4097
#: (source, printed |R1 - R2|, decimals printed, printed N_train, parameter count). The
#: released code counts D + 1 parameters for every comparison, also LogReg vs MLP (Table 4).
PAPER_RECOMMENDATIONS: tuple[tuple[str, float, int, int, int], ...] = (
    ("Table 2 (BERT vs corrupted)", 0.1313, 4, 22_263, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1281, 4, 23_362, _D768),
    ("Table 2 (BERT vs corrupted)", 0.0879, 4, 49_647, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1331, 4, 21_662, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1488, 4, 17_331, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0344, 4, 324_563, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0492, 4, 158_315, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0355, 4, 303_516, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0091, 4, 4_600_037, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0320, 4, 373_513, _D768),
    ("Table 4 (LogReg vs MLP)", 0.022, 3, 801_472, _D768),
    ("Table 4 (LogReg vs MLP)", 0.018, 3, 1_187_812, _D768),
    ("Table 4 (LogReg vs MLP)", 0.007, 3, 7_757_460, _D768),
    ("Table 4 (LogReg vs MLP)", 0.012, 3, 2_912_787, _D768),
    ("Table 4 (LogReg vs MLP)", 0.013, 3, 2_444_949, _D768),
)


@dataclass(frozen=True, eq=False)
class WorkedExample:
    """The worked example of §3.4 recomputed (:func:`paper_examples`).

    ``table`` has one row per quantity with columns ``quantity``, ``printed`` (as the paper prints
    it), ``paper``, ``ours`` and ``agrees`` (to the paper's precision).
    """

    table: pd.DataFrame

    @property
    def bound(self) -> float:
        """Our bound at 65,536 examples."""
        return float(self.table.loc[0, "ours"])

    @property
    def n_train(self) -> int:
        """Our training size for a bound of 0.05."""
        return int(self.table.loc[1, "ours"])

    @property
    def n_agree(self) -> int:
        """How many of the two numbers agree with the paper."""
        return int(self.table["agrees"].sum())

    def styled(self):
        """The two numbers for display, ours printed to the paper's precision and more."""
        shown = self.table.assign(
            ours=[f"{self.bound:.4f}", f"{self.table.loc[1, 'ours']:,.0f}"]
        ).drop(columns="paper")
        return shown.rename(columns={"printed": "paper"}).set_index("quantity")


def paper_examples() -> WorkedExample:
    """The worked example of Zhu et al. 2022, §3.4 recomputed.

    The bound at n = 65,536 and the n a bound of 0.05 needs, both for logistic regression on
    D = 4,096 (InferSent), delta = 1e-8.
    """
    bound = finite_class_bound(EXAMPLE_N, _D4096, 1e-8)
    n = n_for_bound(EXAMPLE_EPSILON, _D4096, 1e-8)
    return WorkedExample(
        pd.DataFrame(
            [
                {"quantity": "bound at n = 65,536", "printed": "0.039", "paper": 0.039,
                 "ours": bound, "agrees": round(bound, 3) == 0.039},
                {"quantity": "n for a bound of 0.05", "printed": "40k", "paper": 40_000.0,
                 "ours": float(n), "agrees": round(n, -3) == 40_000},
            ]
        )
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class PaperRecommendations:
    """Tables 2-4 recomputed (:func:`paper_recommendations`).

    ``table``: one row per printed row, columns ``source``, ``gap``, ``paper``, ``ours``, ``lo``,
    ``hi``, ``consistent``.
    """

    table: pd.DataFrame

    @property
    def n_rows(self) -> int:
        """Printed recommendations."""
        return len(self.table)

    @property
    def n_consistent(self) -> int:
        """Printed recommendations inside the range their printed gap allows."""
        return int(self.table["consistent"].sum())

    @property
    def inconsistent(self) -> str:
        """The rows outside their range, e.g. ``"Table 4 (LogReg vs MLP), gap 0.012"``."""
        bad = self.table[~self.table["consistent"]]
        return "; ".join(f"{r.source}, gap {r.gap:.3f}" for r in bad.itertuples()) or "none"

    @property
    def max_rel_diff(self) -> float:
        """Largest relative difference (%) between our and the printed sizes."""
        return 100 * float((self.table["ours"] / self.table["paper"] - 1).abs().max())

    def styled(self):
        """The table for display."""
        columns = {"gap": "|R1 − R2|", "paper": "paper N_train", "ours": "our N_train",
                   "lo": "lowest consistent", "hi": "highest consistent"}  # fmt: skip
        formats = {"|R1 − R2|": "{:.4f}"} | {c: "{:,d}" for c in list(columns.values())[1:]}
        return self.table.rename(columns=columns).style.format(formats).hide(axis="index")


def paper_recommendations(delta: float = 1e-8) -> PaperRecommendations:
    """Tables 2-4 of Zhu et al. 2022 recomputed with the recommendation procedure.

    The procedure is :func:`probekit.methods.datasize.recommendation.recommend`.

    One row per printed row: ``source``, ``gap`` (printed |R1 - R2|), ``paper`` (printed
    N_train), ``ours`` (from the printed gap), ``lo``/``hi``: the N_train range that any gap
    rounding to the printed one gives, and ``consistent`` = paper value in [lo, hi] (lo is one
    less, as the released code truncates where we round up). Table 4 row 4 is inconsistent:
    its N_train implies a gap of .0115 with the paper's parameter count.
    """
    rows = []
    for source, gap, decimals, printed, k in PAPER_RECOMMENDATIONS:
        half = 0.5 * 10.0**-decimals * (1 + 1e-9)
        ours = recommend(0.5 + gap, 0.5, k, delta=delta).n_train
        lo = recommend(0.5 + gap + half, 0.5, k, delta=delta).n_train - 1
        hi = recommend(0.5 + gap - half, 0.5, k, delta=delta).n_train
        rows.append(
            {"source": source, "gap": gap, "paper": printed, "ours": ours, "lo": lo, "hi": hi,
             "consistent": lo <= printed <= hi}
        )  # fmt: skip
    return PaperRecommendations(pd.DataFrame(rows))
