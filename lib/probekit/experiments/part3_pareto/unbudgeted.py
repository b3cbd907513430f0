"""Chapters 33 and 34 run once without the book's budget, recorded (issue 14).

The ``book`` profile trains on samples and under step caps that let the whole book build on two
CPU cores in half an hour. Under that budget chapter 34's parsers stop well short of what the
encoder allows (its ceiling, :mod:`.ceiling`), and chapter 33's controls all end at their cap
(Pimentel et al. 2020, §5, train them until their loss levels off). Each chapter was run once
outside the book with the budget lifted: :data:`RUNS` records the command's overrides, the run's
time and the values the chapter saved. A chapter run on the book's set-up shows them beside its
own (:func:`budget_table`), so that a reader sees which of its numbers the budget moves, and by
how much; the verdicts stay those of the chapter's own run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.config import has_setup


@dataclass(frozen=True)
class UnbudgetedRun:
    """One chapter run without the book's budget (``probekit run <slug> --profile book``).

    ``overrides`` are the ``-p`` parameters that lift the budget; ``setup`` the book's parameters,
    budget included, which a run must share to be set beside it; ``seconds`` its time on one core
    beside another chapter, as in the book build, and ``book_seconds`` the same chapter's time
    in the fresh book build it is compared with; ``values`` the chapter's saved values (its
    ``build/results`` keys) that :data:`ROWS` name.
    """

    slug: str
    overrides: Mapping[str, Any]
    setup: Mapping[str, Any]
    seconds: float
    book_seconds: float
    values: Mapping[str, Any]

    @property
    def command(self) -> str:
        """The command line that ran it."""
        chapter = self.slug.split("_")[0]
        return " ".join(
            [f"probekit run {chapter}"] + [f"-p {k}={v}" for k, v in self.overrides.items()]
        )

    def matches(self, config: Any) -> bool:
        """Whether ``config`` has the book's set-up, budget included (:attr:`setup`)."""
        return has_setup(config, self.setup)


ROWS: dict[str, tuple[tuple[str, str, float, str], ...]] = {
    "33_memorisation_complexity": (
        ("controls and probes at their cap (%)", "cap_share", 1.0, "{:.0f}"),
        ("most at the cap of one kind (%)", "cap_share_worst", 1.0, "{:.0f}"),
        ("contextual lead in POSL hypervolume", "hv_gap_posl", 1.0, "{:+.3f}"),
        ("contextual lead in DAL hypervolume", "hv_gap_dal", 1.0, "{:+.3f}"),
        ("claim III.4 (simple probes as good)", "simple_as_good_verdict", 1.0, "{}"),
        ("frontiers stable within 0.02", "stability_n_stable", 1.0, "{:.0f}"),
        ("frontiers checked", "stability_n_frontiers", 1.0, "{:.0f}"),
    ),
    "34_dependency_parsing": (
        ("training sentences", "n_train_sentences", 1.0, "{:,.0f}"),
        ("best contextual parser, test UAS (%)", "best_ctx_uas", 1.0, "{:.1f}"),
        ("below the ceiling (points)", "ceiling_gap", 1.0, "{:.1f}"),
        ("contextual lead in parsing hypervolume", "hv_gap_parse", 1.0, "{:+.3f}"),
        ("UAS lead over the best type-level rival (points)", "uas_gap_estimate", 100.0, "{:+.1f}"),
        ("parsers and controls at their cap (%)", "cap_share", 1.0, "{:.0f}"),
        ("most at the cap of one kind (%)", "cap_share_worst", 1.0, "{:.0f}"),
        ("frontiers stable within 0.02", "stability_n_stable", 1.0, "{:.0f}"),
        ("frontiers checked", "stability_n_frontiers", 1.0, "{:.0f}"),
    ),
}
"""What :func:`budget_table` shows for each chapter: one row per value, with its label, its
saved key, and the scale and format of its display."""


def _shown(value: Any, scale: float, fmt: str) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    return fmt.format(value * scale if isinstance(value, (int, float)) else value)


def budget_table(run: UnbudgetedRun, own: Mapping[str, Any]) -> pd.DataFrame:
    """The chapter's values (``own``: its glue values) beside the unbudgeted run's, as text.

    One row per entry of :data:`ROWS` for the run's chapter; columns ``this run`` and
    ``without the budget``.
    """
    rows = ROWS[run.slug]
    return pd.DataFrame(
        {
            "this run": [_shown(own.get(key), scale, fmt) for _, key, scale, fmt in rows],
            "without the budget": [
                _shown(run.values.get(key), scale, fmt) for _, key, scale, fmt in rows
            ],
        },
        index=pd.Index([label for label, *_ in rows], name=""),
    )


LEADS: dict[str, tuple[tuple[str, str], ...]] = {
    "33_memorisation_complexity": (
        ("the contextual lead in POSL hypervolume", "hv_gap_posl"),
        ("the lead in DAL", "hv_gap_dal"),
    ),
    "34_dependency_parsing": (
        ("the contextual lead in parsing hypervolume", "hv_gap_parse"),
        ("the UAS lead over the best type-level rival", "uas_gap_estimate"),
    ),
}
"""The contextual leads :func:`budget_numbers` compares, by chapter: a phrase and a saved key."""


def _change(shown_here: str, shown_there: str, here: float, there: float) -> str:
    if shown_here == shown_there:
        return "the same"
    return "larger" if abs(there) > abs(here) else "smaller"


def budget_numbers(slug: str, run: UnbudgetedRun | None, own: Mapping[str, Any]) -> dict[str, str]:
    """Glue values of the unbudgeted run of chapter ``slug`` beside the chapter's own (``own``).

    ``unbudgeted_time``: how long the run took against the chapter's time in the book build;
    ``unbudgeted_leads``: each of the chapter's :data:`LEADS` here and without the budget, with
    which is larger, and whether every lead kept its sign. Both say why when ``run`` is None.
    """
    if run is None:
        none = "it was recorded for the book's set-up only, which this run does not have"
        return {"unbudgeted_time": none, "unbudgeted_leads": none}
    phrases, signs = [], []
    for phrase, key in LEADS[slug]:
        here, there = float(own.get(key, np.nan)), float(run.values[key])
        scale, fmt = next((sc, f) for _, k, sc, f in ROWS[slug] if k == key)
        shown_here, shown_there = _shown(here, scale, fmt), _shown(there, scale, fmt)
        change = _change(shown_here, shown_there, here, there) if np.isfinite(here) else "–"
        phrases.append(
            f"{phrase} is {shown_here} here and {shown_there} without the budget ({change})"
        )
        signs.append(np.sign(here) == np.sign(there) if np.isfinite(here) else None)
    if None in signs:
        verdict = "not every lead was measured in this run"
    else:
        verdict = "every lead keeps its sign" if all(signs) else "a lead changes sign"
    ratio = run.seconds / run.book_seconds
    return {
        "unbudgeted_time": f"it took {run.seconds:,.0f} s, {ratio:.1f} times this chapter's "
        f"{run.book_seconds:,.0f} s in the book build",
        "unbudgeted_leads": "; ".join(phrases) + f": {verdict}",
    }


_SHARED = {
    "treebank": "UD_English-EWT",
    "model": "default",
    "layer": -1,
    "pooling": "mean",
    "representations": ["contextual", "fasttext", "onehot", "random"],
    "controls": ["label_shuffled", "fully_shuffled"],
    "n_dev": 500,
    "n_test": 0,
    "sample_seed": 42,
    "n_memorise": 0,
    "simple_budget": 0.5,
    "type_dim": 64,
    "fasttext_dim": 300,
    "fasttext_epochs": 20,
    "fasttext_path": "",
    "seed": 0,
}

RUNS: dict[str, UnbudgetedRun] = {
    "33_memorisation_complexity": UnbudgetedRun(
        slug="33_memorisation_complexity",
        overrides={"memorise_steps": 12000},
        setup={
            **_SHARED,
            "tasks": ["posl", "dal"],
            "n_train": 500,
            "n_configs": 8,
            "max_hidden": 256,
            "memorise_steps": 1500,
            "batch_size": 256,
            "lr": 0.003,
            "eval_every": 50,
            "patience": 4,
            "max_steps": 1500,
        },
        seconds=1708.0,
        book_seconds=697.0,
        values={
            "cap_share": 3.4722,
            "cap_share_worst": 4.6875,
            "hv_gap_posl": 0.035950,
            "hv_gap_dal": 0.011516,
            "simple_as_good_verdict": "not reproduced",
            "stability_n_stable": 6,
            "stability_n_frontiers": 10,
        },
    ),
    "34_dependency_parsing": UnbudgetedRun(
        slug="34_dependency_parsing",
        overrides={"n_train": 0, "lr": 0.002, "patience": 5, "max_steps": 2000},
        setup={
            **_SHARED,
            "linear": True,
            "n_train": 2000,
            "n_configs": 5,
            "max_hidden": 128,
            "n_probes": 3,
            "alpha_max": 0.0625,
            "memorise_steps": 1000,
            "max_norm": 700.0,
            "simple_fraction": 0.1,
            "batch_size": 64,
            "lr": 0.005,
            "eval_every": 50,
            "patience": 3,
            "max_steps": 1000,
            "claim_seeds": [1, 2, 3],
        },
        seconds=1115.0,
        book_seconds=657.0,
        values={
            "n_train_sentences": 12544,
            "best_ctx_uas": 55.4077,
            "ceiling_gap": 1.9123,
            "hv_gap_parse": 0.194496,
            "uas_gap_estimate": 0.250897,
            "cap_share": 12.698,
            "cap_share_worst": 20.0,
            "stability_n_stable": 2,
            "stability_n_frontiers": 4,
        },
    ),
}
"""The recorded runs, by chapter (2026-11-26, on commit 3fa653d): the chapter's saved values,
rounded, and its time on one core while another chapter ran on the second, as in the book
build."""


def unbudgeted_run(slug: str, config: Any) -> UnbudgetedRun | None:
    """The recorded run of chapter ``slug`` if ``config`` has its set-up (budget included), else None."""
    run = RUNS.get(slug)
    return run if run is not None and run.matches(config) else None
