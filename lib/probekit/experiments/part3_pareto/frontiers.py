"""Reading Part III's results (Pimentel et al. 2020, §3).

Pareto frontiers, hypervolumes, and which representation leads the frontier where.

Inputs are the tables of :class:`~probekit.experiments.part3_pareto.runs.ParetoRun` (one row
per probe with a complexity column and an accuracy column).

- Hypervolume (§3, Tables 2 and 3): :func:`hypervolume_table`, :func:`hypervolume_of`; whether
  a frontier has enough probes for it: :func:`hypervolume_stability` with
  :func:`stability_numbers`.
- Pareto-dominance over budgets (§3): :func:`frontier_leaders`, :func:`main_leaders`,
  :func:`describe_leaders`; simple probes (§2.3, §6.1): :func:`simple_winner`,
  :func:`simple_vs_best`; both for one frontier: :func:`summarise_frontier`.
- Display: :func:`with_display_names`.

The intervals of the claims that read these frontiers are in :mod:`.claims` (sentence
bootstraps, :mod:`.resampling`).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler
from scipy.stats import spearmanr

from probekit.errors import ParameterError
from probekit.experiments.part3_pareto.representations import TASK_TITLES
from probekit.methods.pareto import frontier

# Lead intervals narrower than this share of the cap are left out of a frontier's description:
# near complexity 0 every probe sits at the majority baseline and the lead flips on noise.
LEAD_SLIVER = 0.02
# Largest change of a normalised hypervolume (in [0, 1]) when half the probes are dropped for
# which a frontier still counts as stable: at this size the hypervolume no longer depends on
# which probes happened to be trained.
HYPERVOLUME_TOLERANCE = 0.02
# Random halves per frontier in the stability check: the Monte Carlo error of a mean loss over
# 200 halves is the spread of single halves over sqrt(200), about a fourteenth, well below the
# tolerance.
HALF_DRAWS = 200


def _cap(value: float | str, group: pd.DataFrame) -> float:
    """The hypervolume's maximum complexity (§3) for one group.

    A number, or a column constant within the group.
    """
    if isinstance(value, str):
        caps = group[value].unique()
        if len(caps) != 1:
            raise ParameterError("cap", f"column '{value}' is not constant within a group")
        return float(caps[0])
    return float(value)


def _frontiers(
    table: pd.DataFrame, x: str, cap: float | str, by: Sequence[str]
) -> Iterator[tuple[dict[str, object], pd.DataFrame, float]]:
    """Each group of probes: its ``by`` values, its probes with a finite complexity, its cap."""
    for key, group in table.groupby(list(by), sort=False):
        values = key if isinstance(key, tuple) else (key,)
        finite = group[np.isfinite(group[x].to_numpy(dtype=float))]
        yield dict(zip(by, values, strict=True)), finite, _cap(cap, group)


def hypervolume_table(
    table: pd.DataFrame,
    x: str,
    cap: float | str,
    *,
    y: str = "accuracy",
    by: Sequence[str] = ("task", "family", "representation"),
    min_accuracy: float = 0.0,
) -> pd.DataFrame:
    """Normalised Pareto hypervolume of every group of probes (Pimentel et al. 2020, §3).

    As in Tables 2 and 3, with :func:`probekit.methods.pareto.frontier.hypervolume`.

    Args:
        table: probe rows with complexity column ``x`` and accuracy column ``y``; rows with a
            NaN complexity (controls not run) are left out.
        x: name of the complexity column.
        cap: the maximum complexity (a number, e.g. 400 for the nuclear norm or 1 for
            memorisation, or the name of a column constant within each group, e.g.
            ``max_complexity`` for the rank family).
        y: name of the accuracy column.
        by: grouping columns.
        min_accuracy: accuracy coordinate of the hypervolume's reference point.

    Returns:
        One row per group: the ``by`` columns, ``hypervolume``, ``n_probes`` (with a finite
        complexity), ``n_within_cap`` and ``best_accuracy`` (the best probe within the cap).
    """
    rows = []
    for keys, g, limit in _frontiers(table, x, cap, by):
        inside = g[g[x] <= limit]
        hv = (
            frontier.hypervolume(g[x], g[y], limit, min_accuracy=min_accuracy) if len(g) else np.nan
        )
        best = float(inside[y].max()) if len(inside) else np.nan
        rows.append(
            keys
            | {
                "hypervolume": hv,
                "n_probes": len(g),
                "n_within_cap": len(inside),
                "best_accuracy": best,
            }
        )
    return pd.DataFrame(rows)


def hypervolume_of(hv: pd.DataFrame, **group: str) -> float:
    """The hypervolume of the one row of :func:`hypervolume_table`'s output matching ``group``.

    ``group`` is e.g. ``task="posl", family="nuclear", representation="onehot"``. NaN when that
    group was not run.
    """
    mask = np.ones(len(hv), dtype=bool)
    for column, value in group.items():
        mask &= (hv[column] == value).to_numpy()
    row = hv[mask]
    if len(row) > 1:
        raise ParameterError("group", f"{group} matches {len(row)} rows, not one")
    return float(row["hypervolume"].iloc[0]) if len(row) else float("nan")


def hypervolume_stability(
    table: pd.DataFrame,
    x: str,
    cap: float | str,
    *,
    seed: int,
    y: str = "accuracy",
    by: Sequence[str] = ("task", "family", "representation"),
    min_accuracy: float = 0.0,
    n_halves: int = HALF_DRAWS,
) -> pd.DataFrame:
    """Whether each frontier has enough probes for a stable hypervolume (Pimentel et al. 2020, §3).

    For every group of probes (the same ``table``, ``x``, ``cap``, ``y``, ``by`` and
    ``min_accuracy`` as :func:`hypervolume_table`), the hypervolume of all probes with a finite
    complexity against those of ``n_halves`` random halves of them (``n // 2``, at least one,
    each drawn without replacement). A subset's frontier is never above the whole one's, so every
    loss is >= 0. The frontier counts as stable when the mean loss stays within
    :data:`HYPERVOLUME_TOLERANCE`: one more or one fewer probe would then not move its
    hypervolume. The mean over many halves, not one half, because a single draw passes or fails
    the same frontier by luck (a frontier whose few low-complexity probes carry it loses little
    in most halves and much in the rest). Each group draws its halves from its own generator,
    seeded with ``seed`` and the group's ``by`` values, so its result does not depend on which
    other groups the table holds.

    Returns:
        One row per group: the ``by`` columns, ``n_probes``, ``n_half`` (probes in a half),
        ``n_halves``, ``hypervolume`` (all probes), ``hypervolume_half`` (mean over the halves),
        ``difference`` (the mean loss), ``share_within`` (the share of halves that lose at most
        the tolerance) and ``stable`` (mean loss <= tolerance; False for a group without
        probes).
    """
    if n_halves < 1:
        raise ParameterError("n_halves", f"must be >= 1, got {n_halves}")
    rows = []
    for keys, g, limit in _frontiers(table, x, cap, by):
        n = len(g)
        hv_all, halves = np.nan, np.full(n_halves, np.nan)
        if n:
            rng = np.random.default_rng(
                [seed, *(zlib.crc32(str(v).encode()) for v in keys.values())]
            )
            xs, ys = g[x].to_numpy(dtype=float), g[y].to_numpy(dtype=float)
            hv_all = frontier.hypervolume(xs, ys, limit, min_accuracy=min_accuracy)
            for k in range(n_halves):
                pick = np.sort(rng.choice(n, size=max(n // 2, 1), replace=False))
                halves[k] = frontier.hypervolume(
                    xs[pick], ys[pick], limit, min_accuracy=min_accuracy
                )
        loss = hv_all - halves
        rows.append(
            keys
            | {
                "n_probes": n,
                "n_half": max(n // 2, 1) if n else 0,
                "n_halves": n_halves,
                "hypervolume": hv_all,
                "hypervolume_half": float(np.mean(halves)),
                "difference": float(np.mean(loss)),
                "share_within": float(np.mean(loss <= HYPERVOLUME_TOLERANCE)) if n else np.nan,
                "stable": bool(n and np.mean(loss) <= HYPERVOLUME_TOLERANCE),
            }
        )
    return pd.DataFrame(rows)


def stability_numbers(stability: pd.DataFrame) -> dict[str, float | int | str]:
    """Glue values of :func:`hypervolume_stability`'s table, with a chapter's prefix ``stability_``.

    ``worst_difference`` (the largest mean hypervolume lost with half the probes, NaN without
    groups), ``n_stable`` and ``n_frontiers`` (groups within the tolerance, and all groups), the
    ``tolerance``, ``n_halves`` (halves drawn per group), and ``text``: whether the
    hypervolumes can be read as stable. A table with a boolean ``complete`` column (frontiers
    that trained every complexity value there is, e.g. every rank 1..C) says which of the
    frontiers that fail are complete: more probes cannot help those, the check only shows how
    much each of their few probes carries.
    """
    diff = stability["difference"].to_numpy(dtype=float) if len(stability) else np.array([])
    stable = stability["stable"].to_numpy(dtype=bool) if len(stability) else np.zeros(0, bool)
    complete = (
        stability["complete"].to_numpy(dtype=bool)
        if "complete" in stability
        else np.zeros(len(stability), dtype=bool)
    )
    n_stable, n = int(stable.sum()), len(stability)
    n_fail_complete = int((~stable & complete).sum())
    n_fail_sparse = n - n_stable - n_fail_complete
    fail = f"{n - n_stable} of {n} frontiers lose more than that on average with half their probes"
    sparse = "rest on too few probes and should be read with that in mind"
    full = (
        "every complexity value already has its probe, so more probes cannot help (each probe "
        "carries a large part of the axis)"
    )
    if n and n_stable == n:
        text = "every frontier has enough probes for its hypervolume"
    elif n_fail_complete and n_fail_sparse:
        text = (
            f"{fail}; for {n_fail_complete} of them {full}, and the hypervolumes of the other "
            f"{n_fail_sparse} {sparse}"
        )
    elif n_fail_complete:
        text = f"{fail}; for all of them {full}"
    else:
        text = f"{fail}, so their hypervolumes {sparse}"
    return {
        "stability_worst_difference": (
            float(np.nanmax(diff)) if np.isfinite(diff).any() else float("nan")
        ),
        "stability_n_stable": n_stable,
        "stability_n_frontiers": n,
        "stability_tolerance": HYPERVOLUME_TOLERANCE,
        "stability_n_halves": int(stability["n_halves"].iloc[0]) if n else 0,
        "stability_text": text,
    }


def stability_table(stability: pd.DataFrame, labels: Mapping[str, str]) -> Styler:
    """:func:`hypervolume_stability`'s table for display, indexed by its group columns."""
    index = [c for c in ("task", "family", "representation") if c in stability.columns]
    within = f"halves within {HYPERVOLUME_TOLERANCE:g}"
    table = (
        with_display_names(stability, labels)
        .rename(
            columns={
                "n_probes": "probes",
                "hypervolume": "hypervolume (all)",
                "hypervolume_half": "hypervolume (half, mean)",
                "difference": "mean loss",
                "share_within": within,
                "stable": f"mean loss within {HYPERVOLUME_TOLERANCE:g}",
                "complete": "every value trained",
            }
        )
        .drop(columns=["n_half", "n_halves"])
        .set_index(index)
    )
    three = ["hypervolume (all)", "hypervolume (half, mean)", "mean loss"]
    return table.style.format("{:.3f}", subset=three).format("{:.0%}", subset=[within])


def _height(x_steps: np.ndarray, h_steps: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A frontier staircase (§3) read at budgets ``at``.

    Steps (S,), heights (S,), budgets ``at`` (B,) -> (B,), -inf below its first step.
    """
    if x_steps.size == 0:
        return np.full(at.shape, -np.inf)
    k = np.searchsorted(x_steps, at, side="right") - 1
    return np.where(k >= 0, h_steps[np.clip(k, 0, None)], -np.inf)


def frontier_leaders(
    table: pd.DataFrame, x: str, cap: float, *, y: str = "accuracy", by: str = "representation"
) -> pd.DataFrame:
    """Where each representation holds the joint Pareto frontier (Pimentel et al. 2020, §3).

    That is, the "Pareto-dominant" representations.

    For every complexity budget b in [0, cap], the leader is the representation whose best
    probe with complexity <= b is the most accurate (ties go to the first in table order).
    Budgets below every probe have no leader.

    Returns:
        One row per maximal interval [start, end) of budgets with the same leader: columns
        ``representation``, ``start``, ``end``, ``accuracy_start`` and ``accuracy_end``
        (the leader's accuracy at the two ends).
    """
    t = table[np.isfinite(table[x].to_numpy(dtype=float))]
    names = list(dict.fromkeys(t[by]))
    stairs = {n: frontier.frontier_staircase(g[x], g[y], cap) for n, g in t.groupby(by, sort=False)}
    cuts = np.unique(np.concatenate([s[0] for s in stairs.values()] + [np.asarray([cap])]))
    cuts = cuts[cuts <= cap]
    if cuts.size < 2:
        return pd.DataFrame(columns=[by, "start", "end", "accuracy_start", "accuracy_end"])
    heights = np.stack([_height(*stairs[n], cuts[:-1]) for n in names])  # (R, intervals)
    leader = heights.argmax(axis=0)
    defined = np.isfinite(heights.max(axis=0))
    rows: list[dict[str, Any]] = []
    for i in np.flatnonzero(defined):
        name, acc = names[leader[i]], float(heights[leader[i], i])
        if rows and rows[-1][by] == name and rows[-1]["end"] == cuts[i]:
            rows[-1]["end"], rows[-1]["accuracy_end"] = float(cuts[i + 1]), acc
        else:
            rows.append(
                {
                    by: name,
                    "start": float(cuts[i]),
                    "end": float(cuts[i + 1]),
                    "accuracy_start": acc,
                    "accuracy_end": acc,
                }
            )
    return pd.DataFrame(rows)


def simple_winner(
    table: pd.DataFrame, x: str, budget: float, *, y: str = "accuracy", by: str = "representation"
) -> tuple[str | None, pd.Series]:
    """The representation that is best for *simple* probes (Pimentel et al. 2020, §2.3, §6.1).

    The one with the largest hypervolume over complexities [0, budget] only.

    Returns:
        (winner or None when no probe fits the budget, hypervolume per representation).
    """
    t = table[np.isfinite(table[x].to_numpy(dtype=float))]
    hv = pd.Series(
        {name: frontier.hypervolume(g[x], g[y], budget) for name, g in t.groupby(by, sort=False)},
        dtype=float,
    )
    if hv.empty or not (hv > 0).any():
        return None, hv
    return str(hv.idxmax()), hv


def complexity_halves(complexity: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The less and the more complex half of a set of probes (Pimentel et al. 2020, §6.2).

    ``complexity`` (K,) finite values. Returns two (K,) bool masks of floor(K / 2) probes each:
    the lowest complexities and the highest (in a stable order; with K odd the median probe is
    in neither). Equal halves, so that the best of each is a maximum over as many probes: a
    larger half would have the larger best by chance alone. None when fewer than two probes, or
    every complexity is tied (controls that all stop at the majority label, say): then no probe
    memorises more than another.
    """
    c = np.asarray(complexity, dtype=np.float64)
    h = len(c) // 2
    if h == 0 or c.max() == c.min():
        return None
    order = np.argsort(c, kind="stable")
    simple, complex_ = np.zeros(len(c), bool), np.zeros(len(c), bool)
    simple[order[:h]], complex_[order[-h:]] = True, True
    return simple, complex_


def simple_vs_best(
    table: pd.DataFrame,
    x: str,
    *,
    y: str = "accuracy",
    by: Sequence[str] = ("task", "representation"),
) -> pd.DataFrame:
    """How the simpler half of the probes compares with the more complex half (§6.2).

    Pimentel et al. 2020, §6.2: "simple architectures ... achieve as high an accuracy as the
    more complex ones".

    Per group, over the probes with a finite complexity: ``best`` (the best accuracy of all),
    ``best_simple`` and ``best_complex`` (the best of the less and of the more complex half,
    :func:`complexity_halves`), ``gap`` = best_complex - best_simple (negative where the simpler
    half is better), and ``spearman``, the rank correlation of complexity and accuracy.
    ``best_simple``, ``best_complex`` and ``gap`` are NaN where there are no halves.
    """
    rows = []
    for key, group in table.groupby(list(by), sort=False):
        g = group[np.isfinite(group[x].to_numpy(dtype=float))]
        if g.empty:
            continue
        halves = complexity_halves(g[x].to_numpy(dtype=float))
        acc = g[y].to_numpy(dtype=float)
        simple, complex_ = (
            (np.nan, np.nan) if halves is None else (acc[halves[0]].max(), acc[halves[1]].max())
        )
        # Undefined (NaN) for fewer than three probes or a constant column.
        varies = len(g) > 2 and g[x].nunique() > 1 and g[y].nunique() > 1
        rho = spearmanr(g[x], g[y]).statistic if varies else np.nan
        values = key if isinstance(key, tuple) else (key,)
        rows.append(
            dict(zip(by, values, strict=True))
            | {
                "best": float(acc.max()),
                "best_simple": float(simple),
                "best_complex": float(complex_),
                "gap": float(complex_ - simple),
                "spearman": float(rho),
            }
        )
    return pd.DataFrame(rows)


def main_leaders(leaders: pd.DataFrame, min_width: float) -> pd.DataFrame:
    """A :func:`frontier_leaders` table (Pimentel et al. 2020, §3) without its slivers.

    Intervals narrower than ``min_width`` are absorbed by the interval before them (the first
    interval's start is kept), and neighbours with the same leader are merged. (Near complexity 0
    every probe is at the majority baseline and the lead flips on noise.)
    """
    wide = leaders[(leaders["end"] - leaders["start"]) >= min_width]
    rows: list[dict[str, Any]] = []
    for r in wide.to_dict("records"):
        if rows:
            rows[-1]["end"] = r["start"]
        if rows and rows[-1]["representation"] == r["representation"]:
            rows[-1]["end"], rows[-1]["accuracy_end"] = r["end"], r["accuracy_end"]
        else:
            rows.append(dict(r))
    if rows and len(leaders):
        rows[0]["start"] = float(leaders["start"].iloc[0])
        rows[-1]["end"] = float(leaders["end"].iloc[-1])
    return pd.DataFrame(rows, columns=leaders.columns)


def describe_leaders(leaders: pd.DataFrame, labels: dict[str, str], fmt: str = "{:.0f}") -> str:
    """One phrase for a :func:`frontier_leaders` table.

    It says who is Pareto-dominant where (Pimentel et al. 2020, §3), e.g. "one-hot (1 to 35), then
    fastText (35 to 400)"; ``fmt`` formats the complexity bounds.
    """
    if leaders.empty:
        return "no representation (no probe within the cap)"
    parts = [
        f"{labels.get(r.representation, r.representation)} ({fmt.format(r.start)} to "
        f"{fmt.format(r.end)})"
        for r in leaders.itertuples()
    ]
    return ", then ".join(parts)


@dataclass(frozen=True)
class FrontierSummary:
    """One frontier in words (Pimentel et al. 2020, §3, §2.3 and §6.1).

    ``leaders``, who holds it where (:func:`describe_leaders`); ``winner``, the representation with
    the largest hypervolume among simple probes (None when no probe is simple enough); ``simple``,
    the winner's display name or "none".
    """

    leaders: str
    winner: str | None
    simple: str


def summarise_frontier(
    table: pd.DataFrame,
    x: str,
    cap: float,
    budget: float,
    labels: Mapping[str, str],
    fmt: str,
) -> FrontierSummary:
    """:class:`FrontierSummary` of the probes in ``table`` (complexity column ``x``).

    The leaders up to ``cap`` without intervals narrower than :data:`LEAD_SLIVER` of it
    (:func:`main_leaders`), and the :func:`simple_winner` up to ``budget``; ``fmt`` formats the
    complexity bounds.
    """
    leaders = main_leaders(frontier_leaders(table, x, cap), LEAD_SLIVER * cap)
    winner, _ = simple_winner(table, x, budget)
    return FrontierSummary(
        describe_leaders(leaders, dict(labels), fmt),
        winner,
        labels.get(winner, "none") if winner else "none",
    )


def with_display_names(table: pd.DataFrame, labels: Mapping[str, str]) -> pd.DataFrame:
    """``table`` with its task and representation columns in display names.

    Its ``task`` column (where present) in the tasks' titles and its ``representation`` column in
    the representations' display names, for the chapters' tables.
    """
    names = {"representation": table["representation"].map(labels)}
    if "task" in table:
        names["task"] = table["task"].map(TASK_TITLES)
    return table.assign(**names)
