"""What the finite-class bound asks of a probe (Zhu et al. 2022, §3.3-3.4).

Parameter counts as the paper counts them, and the training sizes the bound needs over input
dimension, bound, delta and classifier. The bound itself lives in :mod:`probekit.stats.bounds`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.runs import Runs
from probekit.experiments.part5_datasize.training import CLASSIFIERS, CLF_NAMES, MLP_HIDDEN
from probekit.stats.bounds import Count, finite_class_bound, n_for_bound, n_params_mlp

#: Bounds epsilon and probabilities delta of the requirement table (the run's delta is added).
EPSILONS = (0.1, 0.05, 0.01)
DELTAS = (1e-2, 1e-5)
#: Input sizes of the table besides the run's: GloVe (300), BERT base (768), InferSent (4,096).
DIMS = (300, 768, 4096)
#: The training size and the bound of the paper's worked example (§3.4).
EXAMPLE_N = 65_536
EXAMPLE_EPSILON = 0.05


def n_params(classifier: str, dim: int, n_classes: int) -> int:
    """Parameter count of a probe as the paper counts it (Zhu et al. 2022, §3.4, footnote 6).

    ``D + 1`` for binary logistic regression, ``(D + 1) H + H + 1`` for the MLP with H = 20;
    one output per class when there are more than two
    (:func:`probekit.stats.bounds.n_params_mlp`).
    """
    if classifier not in CLASSIFIERS:
        raise ParameterError("classifier", f"'{classifier}' is not one of {CLASSIFIERS}")
    hidden = () if classifier == "logreg" else (MLP_HIDDEN,)
    return n_params_mlp(dim, hidden, n_classes)


def config_params(runs: Runs, name: str) -> int:
    """:func:`n_params` of config ``name`` of ``runs`` at its input size (§3.4, footnote 6)."""
    c = runs.config(name)
    return n_params(c.classifier, runs.dims[name], runs.n_classes)


def requirement_grid(
    dims: Sequence[int],
    epsilons: Sequence[float],
    deltas: Sequence[float],
    classifiers: Sequence[str] = CLASSIFIERS,
    n_classes: int = 2,
    count: Count = "paper",
) -> pd.DataFrame:
    """Training examples the finite-class bound asks for (Zhu et al. 2022, §3.4), over a grid.

    The grid spans input dimension ``D``, bound ``epsilon``, ``delta`` and classifier. Long
    format, columns ``classifier, D, n_params, delta, epsilon, n_train``.
    """
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


@dataclass(frozen=True, eq=False)
class Requirements:
    """The bound's requirements at a run's input size ``dim`` and ``delta``.

    Made by :func:`requirements_at`.

    ``grid``: :func:`requirement_grid` over :data:`DIMS` and ``dim``, :data:`EPSILONS` and
    :data:`DELTAS` and ``delta``. At a bound of :data:`EXAMPLE_EPSILON`: ``need_logreg`` and
    ``need_mlp`` (training examples at ``dim``), ``d_ratio`` (4,096 against 300 dimensions) and
    ``delta_ratio`` (``delta`` against 1e-2), for logistic regression. ``paper_bound`` and
    ``honest_bound``: the bound of logistic regression at :data:`EXAMPLE_N` examples under the
    paper's count of |F| and the per-parameter count; ``honest_need``: the examples the
    per-parameter count needs for a bound of :data:`EXAMPLE_EPSILON`.
    """

    dim: int
    delta: float
    grid: pd.DataFrame
    params_logreg: int
    params_mlp: int
    need_logreg: int
    need_mlp: int
    d_ratio: float
    delta_ratio: float
    paper_bound: float
    honest_bound: float
    honest_need: int

    @property
    def mlp_ratio(self) -> float:
        """How many times the logistic regression's data the MLP needs."""
        return self.need_mlp / self.need_logreg

    @property
    def mlp_wider(self) -> float:
        """How much wider (%) the MLP's bound is than the logistic regression's at any n."""
        return 100 * (math.sqrt(self.need_mlp / self.need_logreg) - 1)

    def styled(self):
        """Training examples needed at ``delta``, by classifier and D (rows) and epsilon."""
        table = self.grid[self.grid["delta"] == self.delta].pivot_table(
            index=["classifier", "D"], columns="epsilon", values="n_train"
        )
        table.columns = [f"ε = {e:g}" for e in table.columns]
        table.index = table.index.set_levels(
            [[CLF_NAMES[c] for c in table.index.levels[0]], table.index.levels[1]]
        )
        return table.style.format("{:,.0f}")


def requirements_at(dim: int, delta: float) -> Requirements:
    """What the finite-class bound asks for probes on ``dim``-dimensional inputs.

    For a binary task (Zhu et al. 2022, §3.4), next to GloVe, BERT and InferSent sizes.
    """
    dims = sorted({dim, *DIMS})
    grid = requirement_grid(dims, EPSILONS, [*DELTAS, delta])

    def need(clf: str, d: int, dl: float) -> int:
        row = grid.query(
            "classifier == @clf and D == @d and delta == @dl and epsilon == @EXAMPLE_EPSILON"
        )
        return int(row["n_train"].iloc[0])

    k = n_params("logreg", dim, 2)
    return Requirements(
        dim=dim,
        delta=delta,
        grid=grid,
        params_logreg=k,
        params_mlp=n_params("mlp20", dim, 2),
        need_logreg=need("logreg", dim, delta),
        need_mlp=need("mlp20", dim, delta),
        d_ratio=need("logreg", 4096, delta) / need("logreg", 300, delta),
        delta_ratio=need("logreg", dim, delta) / need("logreg", dim, DELTAS[0]),
        paper_bound=float(finite_class_bound(EXAMPLE_N, k, delta)),
        honest_bound=float(finite_class_bound(EXAMPLE_N, k, delta, count="per_parameter")),
        honest_need=n_for_bound(EXAMPLE_EPSILON, k, delta, count="per_parameter"),
    )
