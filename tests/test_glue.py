"""Glue.claims (probekit.book.glue): a chapter's measured claims judged, or glued as not
tested, in one call, with the readings of them glued after, exactly as claim by claim."""

from __future__ import annotations

import math

from probekit.book.glue import Glue
from probekit.experiments.part4_extrapolation import claims
from probekit.stats.intervals import Interval
from probekit.stats.verdicts import REPRODUCED


def interval(estimate, low, high, se=0.01):
    return Interval(estimate, low, high, 0.90, se, math.inf, se, 0.0, 120, (3, 3), "test")


def same(a, b) -> bool:
    """Equal dicts of glued values in the same order, NaN equal to NaN."""
    nan = lambda x: isinstance(x, float) and math.isnan(x)  # noqa: E731
    return list(a) == list(b) and all(a[k] == b[k] or nan(a[k]) and nan(b[k]) for k in a)


MEASURED = [
    claims.MeasuredClaim(claims.ARC, interval(0.2, 0.15, 0.25)),
    claims.MeasuredClaim(claims.MFT_LAYERS, None, "it needs two probed layers"),
]
READINGS = {"size_claim_arc_verdict": "inconclusive", "size_survives": "none"}


def test_claims_judges_each_claim_and_glues_the_readings_after():
    g = Glue("ch43")
    judgements = g.claims(MEASURED, READINGS)
    assert judgements["claim_arc"].verdict == REPRODUCED
    assert judgements["claim_mft_layers"] is None
    # the same values, in the same order, as claim by claim and reading by reading
    by_hand = Glue("ch43")
    by_hand.claim(MEASURED[0].claim, MEASURED[0].intervals)
    by_hand.untested(MEASURED[1].claim, MEASURED[1].reason)
    for name, value in READINGS.items():
        by_hand(name, value)
    assert same(g.values, by_hand.values)
    assert g.values["claim_mft_layers_verdict"] == "not tested"
    assert list(g.values)[-len(READINGS) :] == list(READINGS)


def test_claims_without_readings_glues_only_the_claims():
    g = Glue("ch43")
    g.claims(MEASURED[:1])
    assert "size_survives" not in g.values and g.values["claim_arc_verdict"] == REPRODUCED
