"""The finite-class generalisation bound applied to probes (Zhu et al. 2022, §3.3-3.4, §4.2).

Parameter counts as the paper counts them, the bound against the empirical spread of accuracies
(Fig. 2), the training sizes the bound asks for, and the paper's own worked numbers (§3.4,
Tables 2-4) recomputed. The bound itself lives in :mod:`probekit.stats.bounds`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.runs import CLASSIFIERS, MLP_HIDDEN, Runs
from probekit.methods.datasize.recommendation import recommend
from probekit.stats.bounds import Count, finite_class_bound, n_for_bound, n_params_mlp


def n_params(classifier: str, dim: int, n_classes: int) -> int:
    """Parameter count of a probe as the paper counts it (Zhu et al. 2022, §3.4, footnote 6):
    ``D + 1`` for binary logistic regression, ``(D + 1) H + H + 1`` for the MLP with H = 20;
    one output per class when there are more than two (see :func:`probekit.stats.bounds.n_params_mlp`).
    """
    if classifier not in CLASSIFIERS:
        raise ParameterError("classifier", f"'{classifier}' is not one of {CLASSIFIERS}")
    hidden = () if classifier == "logreg" else (MLP_HIDDEN,)
    return n_params_mlp(dim, hidden, n_classes)


def config_params(runs: Runs, name: str) -> int:
    """:func:`n_params` of config ``name`` of ``runs`` at its input size (§3.4, footnote 6)."""
    c = runs.config(name)
    return n_params(c.classifier, runs.dims[name], runs.n_classes)


def bound_table(
    runs: Runs, config: str, *, delta: float = 1e-8, count: Count = "paper"
) -> pd.DataFrame:
    """The empirical accuracy spread against the generalisation bound (Zhu et al. 2022, §4.2,
    Fig. 2), one row per subset size.

    Columns: ``size``, ``n_train`` (training examples, all classes), ``acc`` and ``sd`` (mean
    and SD of test accuracy over seeds), ``bound`` = ``B(n_train, delta)`` of eq. 1 with the
    config's parameter count, ``lo``/``hi`` = ``acc -/+ bound`` (the paper's green lines; the
    released notebook draws ``bound / 2``), ``runs_inside`` (share of the seeds' accuracies in
    [lo, hi]), ``gap_to_largest`` = |acc - acc at the largest size|, a stand-in for
    |R(f_hat) - R(f*)| when the largest subset is taken as the best estimate of R(f*), and
    ``gap_within_bound``.
    """
    scores = runs.scores[runs.scores["config"] == config]
    if scores.empty:
        raise ParameterError("config", f"'{config}' has no runs")
    table = (
        scores.groupby("size")
        .agg(n_train=("n_train", "first"), acc=("acc_test", "mean"), sd=("acc_test", "std"))
        .reset_index()
    )
    k = config_params(runs, config)
    table["bound"] = finite_class_bound(table["n_train"].to_numpy(float), k, delta, count=count)
    table["lo"] = table["acc"] - table["bound"]
    table["hi"] = table["acc"] + table["bound"]
    merged = scores.merge(table[["size", "lo", "hi"]], on="size")
    inside = (merged["acc_test"] >= merged["lo"]) & (merged["acc_test"] <= merged["hi"])
    table["runs_inside"] = inside.groupby(merged["size"]).mean().to_numpy()
    table["gap_to_largest"] = (table["acc"] - table["acc"].iloc[-1]).abs()
    table["gap_within_bound"] = table["gap_to_largest"] <= table["bound"]
    return table


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


def paper_examples() -> pd.DataFrame:
    """The worked example of Zhu et al. 2022, §3.4 recomputed: the bound at n = 65,536 and the
    n a bound of 0.05 needs, both for logistic regression on D = 4,096 (InferSent), delta =
    1e-8. Columns ``quantity``, ``paper``, ``ours``, ``agrees`` (to the paper's precision)."""
    bound = finite_class_bound(65_536, _D4096, 1e-8)
    n = n_for_bound(0.05, _D4096, 1e-8)
    return pd.DataFrame(
        [
            {"quantity": "bound at n = 65,536", "paper": 0.039, "ours": bound,
             "agrees": round(bound, 3) == 0.039},
            {"quantity": "n for a bound of 0.05", "paper": 40_000.0, "ours": float(n),
             "agrees": round(n, -3) == 40_000},
        ]
    )  # fmt: skip


def paper_recommendations(delta: float = 1e-8) -> pd.DataFrame:
    """Tables 2-4 of Zhu et al. 2022 recomputed with :func:`probekit.methods.datasize.recommendation.recommend`.

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
    return pd.DataFrame(rows)


def requirement_grid(
    dims: Sequence[int],
    epsilons: Sequence[float],
    deltas: Sequence[float],
    classifiers: Sequence[str] = CLASSIFIERS,
    n_classes: int = 2,
    count: Count = "paper",
) -> pd.DataFrame:
    """Training examples the finite-class bound asks for (Zhu et al. 2022, §3.4), over a grid of
    input dimension ``D``, bound ``epsilon``, ``delta`` and classifier. Long format, columns
    ``classifier, D, n_params, delta, epsilon, n_train``."""
    rows = []
    for clf in classifiers:
        for d in dims:
            k = n_params(clf, int(d), n_classes)
            for delta in deltas:
                for eps in epsilons:
                    n = n_for_bound(eps, k, delta, count=count)
                    rows.append(
                        {"classifier": clf, "D": int(d), "n_params": k, "delta": delta,
                         "epsilon": eps, "n_train": n}
                    )  # fmt: skip
    return pd.DataFrame(rows)
