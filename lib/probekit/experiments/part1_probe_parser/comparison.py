"""Probe against parser (Hall Maudslay et al. 2020, §5): the layer the two are compared on,
the paired bootstrap over test sentences of each metric, McNemar's test on gold edges, tables
over seeds, and the paper's claims with their verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.training import LABELS
from probekit.probes.structural import DistanceProbe, predict_distances
from probekit.representations.layers import layer_vectors, resolve_layer
from probekit.stats.bootstrap import PairedBootstrap, paired_bootstrap
from probekit.stats.comparison import compare
from probekit.trees.evaluation import (
    DSPR_MAX_LEN,
    DSPR_MIN_LEN,
    METRICS,
    EvalSet,
    corpus_scores,
    edge_outcomes,
    length_weights,
)


def best_layer(scores: pd.DataFrame, metric: str = "uuas") -> int:
    """The layer with the highest dev ``metric`` averaged over kinds and seeds (ties: lowest).

    ``scores``: the table of :func:`train_layers`.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    means = scores.groupby("layer")[metric].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


def comparison_layer(compare_layer: int | None, scores: pd.DataFrame, n_layers: int) -> int:
    """The layer of the test comparison: ``compare_layer`` (negative counts from the last layer),
    or with None the best dev layer by mean UUAS (:func:`best_layer`). It must be one of the
    layers in ``scores``."""
    if compare_layer is None:
        return best_layer(scores, "uuas")
    layer = resolve_layer(compare_layer, n_layers, "compare_layer")
    trained = sorted(set(scores["layer"].tolist()))
    if layer not in trained:
        raise ParameterError(
            "compare_layer", f"layer {layer} was not trained", f"trained layers: {trained}"
        )
    return layer


def compare_models(
    per_sentence: pd.DataFrame,
    metric: str,
    a: str,
    b: str,
    n_boot: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
) -> PairedBootstrap:
    """Paired bootstrap over test sentences of ``metric``(a) − ``metric``(b).

    Hall Maudslay et al. 2020, §5 compare the models by corpus-level UUAS and DSpr; we attach a
    95 % CI by resampling sentences (:func:`probekit.stats.bootstrap.paired_bootstrap`). Each sentence's
    score is first averaged over the seeds (so seed noise shrinks and sentences stay the unit).
    Weights make the statistic the corpus-level metric: gold-edge counts for ``"uuas"``
    (micro average); 1 / #(sentences of that length) within 5..50 words for ``"dspr"`` and
    ``"dspr_pfw"``. Sentences undefined for either model (NaN) are left out.
    ``per_sentence``: rows of :func:`per_sentence_scores`; ``a``, ``b``: kinds.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    for name, kind in (("a", a), ("b", b)):
        if kind not in set(per_sentence["kind"]):
            raise ParameterError(name, f"no rows for kind {kind!r}")
    wide = per_sentence.pivot_table(
        index="sentence", columns="kind", values=metric, aggfunc="mean", dropna=False
    )
    info = per_sentence.groupby("sentence")[["length", "uuas_total"]].first().loc[wide.index]
    x, y = wide[a].to_numpy(), wide[b].to_numpy()
    ok = np.isfinite(x) & np.isfinite(y)
    if metric == "uuas":
        totals = info["uuas_total"].to_numpy(dtype=np.float64)
        ok &= totals > 0
        weights = totals[ok]
    else:
        lengths = info["length"].to_numpy()
        ok &= (lengths >= DSPR_MIN_LEN) & (lengths <= DSPR_MAX_LEN)
        weights = length_weights(lengths[ok])
    return paired_bootstrap(
        x[ok],
        y[ok],
        n_boot=n_boot,
        seed=seed,
        ci=ci,
        weights=weights,
        name_a=LABELS.get(a, a),
        name_b=LABELS.get(b, b),
    )


def edge_comparison(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    test_emb,
    test: EvalSet,
    layer: int,
    seed: int,
):
    """McNemar's test with its power (:func:`probekit.stats.comparison.compare`) of the parser's
    against the probe's gold-edge outcomes (:func:`~probekit.trees.evaluation.edge_outcomes`) on
    the same test trees, one seed.

    The book's common comparison tool (Zhu et al. 2022, §3.5). Edges of one sentence are not
    independent, so the p-value and the power are optimistic; the sentence bootstrap of
    :func:`compare_models` is the primary evidence."""

    x_test = layer_vectors(test_emb, layer)
    outcomes = [
        edge_outcomes(predict_distances(probes[(kind, layer, seed)], x_test), test)
        for kind in ("perceptron", "structural")
    ]
    return compare(*outcomes, "parser", "probe")


def seed_scores(per_sentence: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores (:func:`~probekit.trees.evaluation.corpus_scores`) per (kind, seed) from :func:`per_sentence_scores`
    rows; columns ``kind``, ``seed``, ``uuas``, ``dspr``, ``dspr_pfw``."""
    rows = [
        {"kind": kind, "seed": seed, **corpus_scores(df)}
        for (kind, seed), df in per_sentence.groupby(["kind", "seed"], sort=True)
    ]
    return pd.DataFrame(rows)


def results_table(per_seed: pd.DataFrame, baseline: Mapping[str, float]) -> pd.DataFrame:
    """Mean and SD over seeds of each kind's scores, plus the linear-chain baseline row.

    UUAS in %, DSpr as correlations. ``per_seed``: :func:`seed_scores`; ``baseline``:
    :func:`linear_baselines`. One row per model, columns ``<metric>`` and ``<metric> SD``.
    """
    scale = {"uuas": 100.0, "dspr": 1.0, "dspr_pfw": 1.0}
    names = {"uuas": "UUAS (%)", "dspr": "DSpr", "dspr_pfw": "DSpr P+FW"}
    rows = []
    for kind, df in per_seed.groupby("kind", sort=False):
        row = {"model": LABELS.get(kind, kind), "seeds": len(df)}
        for m in METRICS:
            row[names[m]] = scale[m] * df[m].mean()
            row[f"{names[m]} SD"] = scale[m] * df[m].std(ddof=1) if len(df) > 1 else 0.0
        rows.append(row)
    chain = {"model": "linear-chain baseline", "seeds": 0}
    for m in METRICS:
        chain |= {names[m]: scale[m] * baseline[m], f"{names[m]} SD": 0.0}
    rows.append(chain)
    return pd.DataFrame(rows).set_index("model")


def seed_differences(per_seed: pd.DataFrame, a: str = "perceptron", b: str = "structural"):
    """Per seed, ``a`` minus ``b`` for every metric (UUAS in points); index ``seed``."""
    wide = per_seed.pivot(index="seed", columns="kind", values=list(METRICS))
    out = pd.DataFrame({m: wide[m][a] - wide[m][b] for m in METRICS})
    out["uuas"] *= 100.0
    return out


# The claims of Hall Maudslay et al. 2020, §5, as (metric, a, b, claim, expected winner);
# the comparison is a − b and an empty winner means "no difference" (their DSpr_P+FW finding).
CLAIMS = (
    ("uuas", "perceptron", "structural", "the parser beats the probe on UUAS", "parser"),
    ("dspr", "structural", "perceptron", "the probe beats the parser on DSpr", "probe"),
    ("dspr_pfw", "perceptron", "structural", "the two do not differ on DSpr P+FW", ""),
)


def check_claims(
    per_sentence: pd.DataFrame, n_boot: int, seed: int, ci: float = 0.95
) -> pd.DataFrame:
    """Test the claims of Hall Maudslay et al. 2020, §5 (:data:`CLAIMS`) on test sentences.

    Each is a :func:`compare_models` paired bootstrap; UUAS differences are in points (× 100),
    DSpr differences in correlation units. One row per claim: ``metric``, ``claim``,
    ``difference`` ("parser − probe" or "probe − parser"), ``estimate``, ``low``, ``high``,
    ``sentences``, ``p_value`` and ``verdict`` ("holds", "reversed", "not shown (...)",
    "consistent (...)" or "not consistent (...)").
    """
    rows = []
    for metric, a, b, claim, winner in CLAIMS:
        res = compare_models(per_sentence, metric, a, b, n_boot=n_boot, seed=seed, ci=ci)
        scale = 100.0 if metric == "uuas" else 1.0
        rows.append(
            {
                "metric": metric,
                "claim": claim,
                "difference": f"{res.name_a} − {res.name_b}",
                "estimate": scale * res.diff,
                "low": scale * res.low,
                "high": scale * res.high,
                "sentences": res.n,
                "p_value": res.p_value,
                "verdict": res.supports(winner) if winner else res.supports_no_difference(),
            }
        )
    return pd.DataFrame(rows)


def probe_parser_verdict(verdicts: pd.DataFrame) -> str:
    """One sentence on the paper's main point from :func:`check_claims`: do both directional
    claims (parser ahead on UUAS, probe ahead on DSpr) hold?"""
    directional = verdicts[verdicts["metric"].isin(["uuas", "dspr"])].set_index("metric")
    held = directional["verdict"] == "holds"
    if held.all():
        return "both claims hold, so the choice of metric decides which model looks better"
    if not held.any():
        return "neither claim holds, so the paper's opposite trends do not appear here"
    which = "the UUAS claim" if held.get("uuas", False) else "the DSpr claim"
    return f"only {which} holds, so the paper's opposite trends appear only in part here"
