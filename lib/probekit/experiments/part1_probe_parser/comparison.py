"""Probe against parser (Hall Maudslay et al. 2020, §5).

The layer the two are compared on, their test scores, the paired bootstrap over test sentences
of each metric, McNemar's test on gold edges, tables over seeds, and the paper's claims with
their verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part1_probe_parser.training import LABELS, per_sentence_scores
from probekit.probes.structural import DistanceProbe, predict_distances
from probekit.representations.layers import layer_vectors, resolve_layer
from probekit.stats.bootstrap import PairedBootstrap, paired_bootstrap
from probekit.stats.comparison import compare
from probekit.trees.evaluation import (
    METRICS,
    EvalSet,
    corpus_scores,
    edge_outcomes,
    length_weights,
    linear_baselines,
)


def best_layer(scores: pd.DataFrame, metric: str = "uuas") -> int:
    """The layer with the highest dev ``metric`` averaged over kinds and seeds (ties: lowest).

    ``scores``: the table of
    :func:`~probekit.experiments.part1_probe_parser.training.train_layers`.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    means = scores.groupby("layer")[metric].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


def comparison_layer(compare_layer: int | None, scores: pd.DataFrame, n_layers: int) -> int:
    """The layer of the test comparison.

    ``compare_layer`` (negative counts from the last layer), or with None the best dev layer by
    mean UUAS (:func:`best_layer`). It must be one of the layers in ``scores``.
    """
    if compare_layer is None:
        return best_layer(scores, "uuas")
    layer = resolve_layer(compare_layer, n_layers, "compare_layer")
    trained = sorted(set(scores["layer"].tolist()))
    if layer not in trained:
        raise ParameterError(
            "compare_layer", f"layer {layer} was not trained", f"trained layers: {trained}"
        )
    return layer


def comparison_layer_rule(compare_layer: int | None) -> str:
    """How :func:`comparison_layer` chose the layer, in words for the prose."""
    return "the best dev layer by mean UUAS" if compare_layer is None else "set by parameter"


def paired_difference(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metric: str,
    name_a: str,
    name_b: str,
    n_boot: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
) -> PairedBootstrap:
    """Paired bootstrap over test sentences of corpus-level ``metric``(a) − ``metric``(b).

    Hall Maudslay et al. 2020, §5 compare models by corpus-level UUAS and DSpr; we attach a CI
    at level ``ci`` by resampling sentences (:func:`probekit.stats.bootstrap.paired_bootstrap`).
    ``a`` and ``b``: per-sentence rows (``sentence``, ``length``, ``uuas_total``, ``metric``;
    any number of seeds) on the same sentences and trees, e.g. of
    :func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`. Each
    sentence's score is first averaged over the seeds (so seed noise shrinks and sentences stay
    the unit). Weights make the statistic the corpus-level metric: gold-edge counts for
    ``"uuas"`` (micro average); 1 / #(sentences of that length) within 5..50 words for
    ``"dspr"`` and ``"dspr_pfw"``. Sentences undefined for either side (NaN) are left out.
    UUAS differences are fractions (× 100 for points).
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    x = a.groupby("sentence")[metric].mean()
    y = b.groupby("sentence")[metric].mean()
    shared = x.index.intersection(y.index)
    info = a.groupby("sentence")[["length", "uuas_total"]].first().loc[shared]
    xv, yv = x.loc[shared].to_numpy(), y.loc[shared].to_numpy()
    ok = np.isfinite(xv) & np.isfinite(yv)
    if metric == "uuas":
        w = info["uuas_total"].to_numpy(dtype=np.float64)
    else:
        # Length weights over the sentences kept (0 = out of range), as corpus_scores() counts them.
        w = length_weights(np.where(ok, info["length"].to_numpy(), 0))
    ok &= w > 0
    return paired_bootstrap(
        xv[ok],
        yv[ok],
        n_boot=n_boot,
        seed=seed,
        ci=ci,
        weights=w[ok],
        name_a=name_a,
        name_b=name_b,
    )


def compare_models(
    per_sentence: pd.DataFrame,
    metric: str,
    a: str,
    b: str,
    n_boot: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
) -> PairedBootstrap:
    """:func:`paired_difference` of two kinds of probe, ``metric``(a) − ``metric``(b).

    The kinds are named by their book names
    (:data:`~probekit.experiments.part1_probe_parser.training.LABELS`). ``per_sentence``: rows
    of :func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`; ``a``,
    ``b``: kinds.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    rows = {}
    for name, kind in (("a", a), ("b", b)):
        rows[name] = per_sentence[per_sentence["kind"] == kind]
        if rows[name].empty:
            raise ParameterError(name, f"no rows for kind {kind!r}")
    return paired_difference(
        rows["a"], rows["b"], metric, LABELS.get(a, a), LABELS.get(b, b), n_boot, seed, ci
    )


def probe_edge_outcomes(probe: DistanceProbe, emb, layer: int, gold: EvalSet) -> np.ndarray:
    """Bool (n_edges,): which gold edges ``probe`` recovers from ``layer`` of ``emb``.

    The gold edges are those of :func:`~probekit.trees.evaluation.edge_outcomes` on the ``gold``
    sentences; ``emb`` holds the embeddings of those sentences.
    """
    return edge_outcomes(predict_distances(probe, layer_vectors(emb, layer)), gold)


def edge_comparison(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    test_emb,
    test: EvalSet,
    layer: int,
    seed: int,
):
    """McNemar's test with its power of the parser's against the probe's gold-edge outcomes.

    The test is :func:`probekit.stats.comparison.compare`, on the outcomes of
    :func:`~probekit.trees.evaluation.edge_outcomes` on the same test trees, one seed.

    The book's common comparison tool (Zhu et al. 2022, §3.5). Edges of one sentence are not
    independent, so the p-value and the power are optimistic; the sentence bootstrap of
    :func:`compare_models` is the primary evidence.
    """
    outcomes = [
        probe_edge_outcomes(probes[(kind, layer, seed)], test_emb, layer, test)
        for kind in ("perceptron", "structural")
    ]
    return compare(*outcomes, "parser", "probe")


def seed_scores(per_sentence: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores per (kind, seed) from per-sentence score rows.

    The scores are :func:`~probekit.trees.evaluation.corpus_scores` of the rows of
    :func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`; columns
    ``kind``, ``seed``, ``uuas``, ``dspr``, ``dspr_pfw``.
    """
    rows = [
        {"kind": kind, "seed": seed, **corpus_scores(df)}
        for (kind, seed), df in per_sentence.groupby(["kind", "seed"], sort=True)
    ]
    return pd.DataFrame(rows)


def results_table(per_seed: pd.DataFrame, baseline: Mapping[str, float]) -> pd.DataFrame:
    """Mean and SD over seeds of each kind's scores, plus the linear-chain baseline row.

    UUAS in %, DSpr as correlations. ``per_seed``: :func:`seed_scores`; ``baseline``:
    :func:`probekit.trees.evaluation.linear_baselines`. One row per model ("probe", "parser",
    "linear-chain baseline"), columns ``seeds``, ``<metric>`` and ``<metric> SD``.
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


def seeds_for_claims(per_seed: pd.DataFrame) -> dict[str, int]:
    """How many seeds, taken one at a time, fall on the claimed side.

    ``"uuas"``: the seeds on which the parser's UUAS is higher; ``"dspr"``: those on which the
    probe's DSpr is higher. ``per_seed``: :func:`seed_scores`.
    """
    by_seed = seed_differences(per_seed)
    return {"uuas": int((by_seed["uuas"] > 0).sum()), "dspr": int((by_seed["dspr"] < 0).sum())}


@dataclass(frozen=True, eq=False)
class HeldOutScores:
    """Both models on the test sentences at the comparison ``layer``.

    ``per_sentence`` rows
    (:func:`~probekit.experiments.part1_probe_parser.training.per_sentence_scores`),
    ``per_seed`` corpus scores (:func:`seed_scores`) and the ``table`` of
    :func:`results_table`.
    """

    layer: int
    per_sentence: pd.DataFrame
    per_seed: pd.DataFrame
    table: pd.DataFrame


def held_out_scores(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    scores: pd.DataFrame,
    test_emb,
    test: EvalSet,
    compare_layer: int | None,
) -> HeldOutScores:
    """Score every probe of the comparison layer on the ``test`` trees (§5 of the paper).

    The layer is :func:`comparison_layer` of the dev ``scores``. ``probes``, ``scores``: as
    :func:`~probekit.experiments.part1_probe_parser.training.train_layers` returns them;
    ``test_emb``: the test sentences' embeddings.
    """
    layer = comparison_layer(compare_layer, scores, test_emb.n_layers)
    per_sentence = per_sentence_scores(probes, test_emb, test, layer)
    per_seed = seed_scores(per_sentence)
    table = results_table(per_seed, linear_baselines(test))
    return HeldOutScores(layer, per_sentence, per_seed, table)


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


def probe_parser_claim_values(verdicts: pd.DataFrame) -> dict[str, object]:
    """The numbers of :func:`check_claims` the prose quotes.

    Keyed ``<metric>_<column>`` for the columns ``estimate``, ``low``, ``high``, ``sentences``
    and ``verdict`` (e.g. ``uuas_verdict``).
    """
    columns = ("estimate", "low", "high", "sentences", "verdict")
    return {f"{row['metric']}_{col}": row[col] for _, row in verdicts.iterrows() for col in columns}


def probe_parser_verdict(verdicts: pd.DataFrame) -> str:
    """One sentence on the paper's main point from :func:`check_claims`.

    Do both directional claims (parser ahead on UUAS, probe ahead on DSpr) hold?
    """
    directional = verdicts[verdicts["metric"].isin(["uuas", "dspr"])].set_index("metric")
    held = directional["verdict"] == "holds"
    if held.all():
        return "both claims hold, so the choice of metric decides which model looks better"
    if not held.any():
        return "neither claim holds, so the paper's opposite trends do not appear here"
    which = "the UUAS claim" if held.get("uuas", False) else "the DSpr claim"
    return f"only {which} holds, so the paper's opposite trends appear only in part here"
