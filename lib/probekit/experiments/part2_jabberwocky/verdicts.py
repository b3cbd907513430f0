"""Chapter 22's claims in words and numbers (Hall Maudslay & Cotterell 2021, §5.2).

Whether each probe does worse on Jabberwocky and keeps its lead over the word-blind baselines,
how the lead changed, and every number the chapter's verdicts quote.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.probes import BEST, LAYER0, PROBE_LABELS, variant_label
from probekit.experiments.part2_jabberwocky.representations import TYPE_LEVEL
from probekit.trees.evaluation import corpus_scores

# The two probes by the prefix of their numbers in the chapter (st_..., pc_...).
PROBE_KEYS = {"structural": "st", "perceptron": "pc"}


def relative_change(before: float, after: float) -> str:
    """How a lead changed from ``before`` to ``after``, in words, as a share of ``before``.

    One of "shrinks by 23 % of its size", "grows by 5 % of its size", "turns into a deficit"
    (positive before, negative after), or, without a lead to begin with, "cannot be read as a
    share of a lead that did not exist".
    """
    if not (np.isfinite(before) and np.isfinite(after)) or before <= 0:
        return "cannot be read as a share of a lead that did not exist"
    if after < 0:
        return "turns into a deficit"
    change = 100.0 * (before - after) / before
    word = "shrinks" if change >= 0 else "grows"
    return f"{word} by {abs(change):.0f} % of its size"


# Words for a drops_table "claim" in running prose.
CLAIM_PHRASES = {
    "holds": "a significant drop",
    "reversed": "a significant gain",
    "not shown (the interval includes 0)": "not significant",
}


def jabberwocky_verdict(drops: pd.DataFrame, leads: pd.DataFrame, representation: str) -> str:
    """One sentence on the paper's two claims (§5.2) for one representation.

    Does each probe do significantly worse on Jabberwocky
    (:func:`~probekit.experiments.part2_jabberwocky.comparisons.drops_table`), and does it
    keep a significant lead over the best word-blind baseline there
    (:func:`~probekit.experiments.part2_jabberwocky.comparisons.leads_table`)?
    """
    d = drops[drops["representation"] == representation].set_index("probe")
    lead = leads[
        (leads["representation"] == representation) & (leads["dataset"] == "Jabberwocky")
    ].set_index("probe")
    if d.empty or lead.empty:
        raise ParameterError("representation", f"no rows for {representation!r}")
    dropped = [p for p in d.index if d.loc[p, "claim"] == "holds"]
    kept = [p for p in lead.index if lead.loc[p, "low"] > 0]

    def which(probes: list[str], verb_all: str, verb_none: str, verb_one: str) -> str:
        if len(probes) == len(d.index):
            return verb_all
        if not probes:
            return verb_none
        return verb_one.format(" and ".join(f"the {p}" for p in probes))

    first = which(
        dropped,
        "both probes do significantly worse on Jabberwocky, as the paper found",
        "neither probe does significantly worse on Jabberwocky, unlike in the paper",
        "only {} does significantly worse on Jabberwocky",
    )
    second = which(
        kept,
        "both still beat the word-blind baselines there",
        "neither keeps a significant lead over the word-blind baselines there",
        "only {} keeps a significant lead over the word-blind baselines there",
    )
    return f"{first}, and {second}"


def _probe_values(
    kind: str, drops: pd.DataFrame, leads: pd.DataFrame, encoder: str
) -> dict[str, object]:
    """The numbers of one probe (see :func:`jabberwocky_claim_values`).

    Keyed without the probe prefix.
    """
    probe, best = PROBE_LABELS[kind], variant_label(encoder, BEST)
    by_rep = drops.set_index(["representation", "probe"])
    d = by_rep.loc[(best, probe)]
    out: dict[str, object] = {
        col.lower(): d[col] for col in ("normal", "Jabberwocky", "estimate", "low", "high", "claim")
    }
    lead = leads.set_index(["representation", "probe", "dataset"])
    for dataset, dkey in (("normal", "n"), ("Jabberwocky", "j")):
        row = lead.loc[(best, probe, dataset)]
        out[f"lead_{dkey}"] = row["estimate"]
        out[f"lead_{dkey}_low"] = row["low"]
        out[f"lead_{dkey}_high"] = row["high"]
        out[f"lead_{dkey}_verdict"] = row["verdict"]
    out["baseline"] = lead.loc[(best, probe, "Jabberwocky"), "baseline"]
    out["lead_change"] = relative_change(
        lead.loc[(best, probe, "normal"), "estimate"],
        lead.loc[(best, probe, "Jabberwocky"), "estimate"],
    )
    for rep, rkey in ((variant_label(encoder, LAYER0), "l0"), (TYPE_LEVEL, "ft")):
        r = by_rep.loc[(rep, probe)]
        out[f"{rkey}_drop"] = r["estimate"]
        out[f"{rkey}_claim"] = CLAIM_PHRASES[r["claim"]]
    return out


def jabberwocky_claim_values(
    drops: pd.DataFrame, leads: pd.DataFrame, baselines: pd.DataFrame, encoder: str
) -> dict[str, object]:
    """Every number the verdicts of chapter 22 quote, keyed by the name the chapter glues it under.

    The numbers are for the encoder the prose discusses (``encoder``, its short name).

    Per probe, prefixed ``st_`` or ``pc_`` (:data:`PROBE_KEYS`), at the dev-chosen layer: the
    scores on ``normal`` and ``jabberwocky`` sentences, the drop (``estimate``, ``low``,
    ``high``) and the paper's ``claim`` verdict
    (:func:`~probekit.experiments.part2_jabberwocky.comparisons.drops_table`); the lead over
    the better ``baseline`` on each dataset (``lead_n``, ``lead_j`` with ``_low``, ``_high``,
    ``_verdict``; :func:`~probekit.experiments.part2_jabberwocky.comparisons.leads_table`) and
    how it changed (``lead_change``, :func:`relative_change`); the drops at layer 0 and on the
    type-level baseline (``l0_drop``, ``ft_drop``) with :data:`CLAIM_PHRASES` (``l0_claim``,
    ``ft_claim``). Then the baselines' corpus scores (``chain_uuas``, ``majority_uuas`` in %,
    ``chain_dspr``, ``majority_dspr``); ``n_model_probes``, the probes on an encoder's best
    layer, and ``n_drop_holds``, those whose drop is significant; and ``overall``
    (:func:`jabberwocky_verdict`).
    """
    out: dict[str, object] = {}
    for kind, key in PROBE_KEYS.items():
        values = _probe_values(kind, drops, leads, encoder)
        out |= {f"{key}_{name}": value for name, value in values.items()}
    base = {name: corpus_scores(df) for name, df in baselines.groupby("baseline", sort=False)}
    out["chain_uuas"] = 100 * base["linear chain"]["uuas"]
    out["majority_uuas"] = 100 * base["majority tree"]["uuas"]
    out["chain_dspr"] = base["linear chain"]["dspr"]
    out["majority_dspr"] = base["majority tree"]["dspr"]
    model_drops = drops[drops["representation"].str.endswith(f"· {BEST}")]
    out["n_model_probes"] = len(model_drops)
    out["n_drop_holds"] = int((model_drops["claim"] == "holds").sum())
    out["overall"] = jabberwocky_verdict(drops, leads, variant_label(encoder, BEST))
    return out
