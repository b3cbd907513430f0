"""Where a chapter's run departs from its paper's protocol: one table, generated from the parameters.

Each chapter declares its paper's protocol once, as a sequence of :class:`Setting` (a parameter
of the chapter's configuration, the paper's value, and why the book's default differs), and
shows :func:`deviation_table` of its configuration. The table is computed from the run's
parameters, so a researcher who sets a parameter to the paper's value sees the row turn into
"as in the paper", and a setting the paper fixed but the run changed is never silent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from probekit.errors import ParameterError

AS_IN_PAPER = "as in the paper"
# Above this share of runs ending at their epoch cap, a comparison of trained probes rests on
# unconverged ones; the chapters report the share and the book profile stays below it.
MAX_CAP_SHARE = 0.2


def _plain(value: Any) -> str:
    """A parameter value in words: lists joined by commas, 0 and None as they are."""
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Setting:
    """One setting of a paper's protocol and the chapter parameter that controls it.

    ``parameter`` is a field of the chapter's configuration. ``paper`` is the paper's value in
    the parameter's own terms (compared with the run's value by ``matches``, equality by
    default), ``paper_text`` how the paper states it (with its section), ``why`` the reason the
    book's default differs (cost on 2 CPU cores, a bug in the released code, ...). ``show``
    renders the run's value (default: the value itself). ``paper=None`` marks a setting the
    parameter cannot reproduce (e.g. a model the machine cannot load): its row always counts as
    a deviation.
    """

    parameter: str
    paper: Any
    paper_text: str
    why: str
    show: Callable[[Any], str] = _plain
    matches: Callable[[Any, Any], bool] | None = None

    def follows_paper(self, value: Any) -> bool:
        """Whether the run's ``value`` is the paper's."""
        if self.paper is None:
            return False
        if self.matches is not None:
            return self.matches(value, self.paper)
        if isinstance(value, list | tuple) and isinstance(self.paper, list | tuple):
            return list(value) == list(self.paper)
        return value == self.paper


def deviation_table(config: Any, protocol: Sequence[Setting]) -> pd.DataFrame:
    """The protocol's settings against the run's parameters, one row per setting.

    ``config`` is a chapter configuration (any object with the parameters as attributes).
    Columns: ``setting`` (the parameter), ``paper``, ``ours`` (the run's value), ``deviates``
    (bool) and ``why`` (the reason for a deviation; :data:`AS_IN_PAPER` otherwise). Raises
    :class:`~probekit.errors.ParameterError` for a setting the configuration does not have, so a
    renamed parameter cannot drop out of the table.
    """
    rows = []
    for setting in protocol:
        if not hasattr(config, setting.parameter):
            raise ParameterError(
                setting.parameter, f"is in the protocol but not in {type(config).__name__}"
            )
        value = getattr(config, setting.parameter)
        same = setting.follows_paper(value)
        rows.append(
            {
                "setting": setting.parameter,
                "paper": setting.paper_text,
                "ours": setting.show(value),
                "deviates": not same,
                "why": AS_IN_PAPER if same else setting.why,
            }
        )
    return pd.DataFrame(rows, columns=["setting", "paper", "ours", "deviates", "why"])


def cap_share(stopped_at_cap: Sequence[bool]) -> float:
    """The share of training runs that ended at the epoch (or step) cap, in [0, 1].

    A run that ends at the cap was still improving on its selection metric, so it is not known
    to have converged; the ``book`` and ``full`` profiles keep this share below
    :data:`MAX_CAP_SHARE`. NaN when there are no runs.
    """
    flags = [bool(f) for f in stopped_at_cap]
    return sum(flags) / len(flags) if flags else float("nan")


def cap_share_table(flags: Mapping[str, Sequence[bool]]) -> pd.DataFrame:
    """The :func:`cap_share` of each kind of training run, and of all of them together.

    ``flags`` maps a kind of run (e.g. "MLP probes", "label-shuffled controls") to whether each
    run of that kind ended at its cap. Returns one row per kind plus ``all`` (index ``kind``),
    with columns ``runs`` (count) and ``cap share`` in [0, 1] (NaN for a kind without runs).
    """
    rows = {kind: [bool(f) for f in v] for kind, v in flags.items()}
    rows["all"] = [f for v in rows.values() for f in v]
    return pd.DataFrame(
        {
            "runs": [len(v) for v in rows.values()],
            "cap share": [cap_share(v) for v in rows.values()],
        },
        index=pd.Index(list(rows), name="kind"),
    )


def cap_share_numbers(table: pd.DataFrame) -> dict[str, float | str]:
    """Glue values of a :func:`cap_share_table`, for a chapter's prose.

    ``cap_share`` (all runs, %), ``cap_share_worst`` (the largest share of one kind, %),
    ``cap_share_target`` (:data:`MAX_CAP_SHARE`, %) and ``cap_share_text``: whether the share of
    all runs is below the target, and, if not, which kinds are above it.
    """
    shares = table["cap share"]
    total = float(shares.loc["all"])
    kinds = shares.drop(index="all")
    target = 100 * MAX_CAP_SHARE
    above = [str(k) for k, v in kinds.items() if v >= MAX_CAP_SHARE]
    if total < MAX_CAP_SHARE and not above:
        text = f"below the target of {target:.0f} % for every kind of run"
    else:
        text = (
            f"at or above the target of {target:.0f} % for {', '.join(above) or 'all runs'}, "
            "so the stopping rule had not seen those runs level off when the cap stopped them, "
            "and the numbers that rest on them measure the training budget as well as the "
            "representation"
        )
    return {
        "cap_share": 100 * total,
        "cap_share_worst": 100 * float(kinds.max()) if len(kinds) else float("nan"),
        "cap_share_target": target,
        "cap_share_text": text,
    }
