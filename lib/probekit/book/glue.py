""":class:`Glue`, the one way chapters put numbers and figures into their prose (myst-nb glue).

It also saves the numbers for the claims ledger.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
from IPython.display import Image
from myst_nb import glue

from probekit.io.results import save_results

# For annotations only: importing the claims at run time pulls in torch and scipy.stats, which
# every notebook that creates a Glue would then pay for (a graded submission among them).
if TYPE_CHECKING:
    from probekit.experiments.claims import Claim, MeasuredClaim
    from probekit.stats.intervals import Interval
    from probekit.stats.verdicts import Judgement


def _plain(value: Any) -> Any:
    """NumPy scalars and 0-d arrays to Python numbers, so glue's text/plain is a plain literal."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    return value


class Glue:
    """Glue values and figures into the prose under namespaced keys (``<prefix>_<key>``).

    Numbers are cast to Python types (NumPy 2 scalars break ``{glue:text}`` formatting); figures
    are glued without display and closed, so each appears once. In the prose::

        {glue:text}`ch01_n_sentences:,d`      (format spec: always give one)
        ```{glue:figure} ch01_fig_layers
        :name: fig-ch01-layers
        Caption.
        ```
    """

    def __init__(self, prefix: str):
        """``prefix``: the chapter's key namespace, lowercase letters and digits ("ch01")."""
        if not re.fullmatch(r"[a-z][a-z0-9]*", prefix):
            raise ValueError("glue prefix must be lowercase letters and digits, e.g. 'ch01'")
        self.prefix = prefix
        self.values: dict[str, Any] = {}

    def key(self, name: str) -> str:
        """The glue key of ``name``: ``<prefix>_<name>``."""
        return f"{self.prefix}_{name}"

    def __call__(self, name: str, value: Any) -> Any:
        """Glue ``value`` (NumPy scalars cast to Python numbers) under ``name``; returns it."""
        value = _plain(value)
        self.values[name] = value
        glue(self.key(name), value, display=False)
        return value

    def claim(self, claim: Claim, intervals: Interval | Mapping[str, Interval]) -> Judgement:
        """Judge ``claim`` on its interval(s) and glue everything its paragraph and the ledger read.

        Glues (and saves) the interval of every part, the verdict, the design power, the
        deciding p-value and the note under the claim's key (:meth:`Claim.saved_values`), and
        the phrases of its verdict paragraph (:meth:`Claim.prose_values`: the SESOI and its
        reason, the interval in words, why the rule decided). The prose reads the verdict as
        ``{glue:text}`<prefix>_<key>_verdict```.
        """
        for name, value in claim.saved_values(intervals).items():
            self(name, value)
        for name, value in claim.prose_values(intervals).items():
            self(name, value)
        return claim.judge(intervals)

    def untested(self, claim: Claim, reason: str) -> None:
        """Glue a claim the run could not measure as "not tested".

        ``reason`` stands in place of its interval and readings (:meth:`Claim.untested_values`).
        """
        for name, value in claim.untested_values(reason).items():
            self(name, value)

    def claims(
        self, measured: Iterable[MeasuredClaim], readings: Mapping[str, Any] | None = None
    ) -> dict[str, Judgement | None]:
        """Judge every claim a run measured, in order, then glue ``readings``.

        A claim with intervals goes through :meth:`claim`, one without through
        :meth:`untested` with its reason. ``readings``: further values that read the claims,
        glued after them (e.g. the size-control readings of
        :func:`~probekit.experiments.part4_extrapolation.claims.size_control_readings`).
        Returns each claim's judgement by key (None: not tested).
        """
        judgements: dict[str, Judgement | None] = {}
        for item in measured:
            if item.intervals is None:
                self.untested(item.claim, item.reason)
                judgements[item.claim.key] = None
            else:
                judgements[item.claim.key] = self.claim(item.claim, item.intervals)
        for name, value in (readings or {}).items():
            self(name, value)
        return judgements

    def comparison(self, name: str, cmp: Any) -> Any:
        """Glue a :class:`probekit.stats.comparison.Comparison` under ``name``.

        As ``<name>_summary``, ``_verdict``, ``_diff`` (A - B, points), ``_p``, ``_power``, ``_n``
        and ``_alpha``; the claims ledger judges McNemar claims from these saved values.
        """
        self(f"{name}_summary", cmp.summary())
        self(f"{name}_verdict", cmp.verdict)
        self(f"{name}_diff", 100 * cmp.diff)
        self(f"{name}_p", cmp.p_value)
        self(f"{name}_power", cmp.power)
        self(f"{name}_n", cmp.n)
        self(f"{name}_alpha", cmp.alpha)
        return cmp

    def figure(self, name: str, fig: Any) -> None:
        """Glue a matplotlib figure as PNG (whatever the backend) and close it."""
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        plt.close(fig)
        glue(self.key(name), Image(data=buffer.getvalue(), format="png"), display=False)

    def save(self, path: str | Path) -> None:
        """Write the glued scalars as JSON (for the claims ledger and tests)."""
        save_results(path, self.values)
