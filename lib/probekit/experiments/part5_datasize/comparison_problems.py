"""Three comparison problems run through the whole recipe, the experiment of chapter 53.

Following Zhu et al. 2022, §3.2, §3.5, §4.4-4.6: two layers of one model (the paper's BERT
against a corrupted BERT), a contextual layer against type-level vectors (BERT against GloVe),
and logistic regression against an MLP on the same layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from probekit.experiments.part5_datasize.comparisons import comparison_table
from probekit.experiments.part5_datasize.config import ComparisonProblemsConfig
from probekit.experiments.part5_datasize.data import TASK_SHORT_NAMES, ProbedTreebank
from probekit.experiments.part5_datasize.encoders import (
    layer_encoder,
    type_encoder,
    type_level_vectors,
)
from probekit.experiments.part5_datasize.requirements import n_params
from probekit.experiments.part5_datasize.runs import Runs, TaskRuns, run_tasks
from probekit.experiments.part5_datasize.training import ProbingConfig

#: Display formats of a per-size table (:meth:`ComparisonProblems.per_size`).
PER_SIZE_FORMAT = {"training examples": "{:,d}", "test examples": "{:,d}", "A (%)": "{:.1f}",
                   "B (%)": "{:.1f}", "mean |R1 − R2|": "{:.4f}",
                   "recommended N_train": "{:,.0f}", "power": "{:.2f}",
                   "significant seeds": "{:.0%}"}  # fmt: skip


@dataclass(frozen=True, eq=False)
class ComparisonProblems:
    """The runs of the three comparisons on every task (:func:`run_comparison_problems`).

    ``pairs[key]``: (config A, config B, title) for ``key`` in ``layers``, ``type``,
    ``classifiers``; ``tables[(task, key)]``:
    :func:`~probekit.experiments.part5_datasize.comparisons.comparison_table` of A against B.
    The head task is the first one.
    """

    experiment: TaskRuns
    pairs: dict[str, tuple[str, str, str]]
    tables: dict[tuple[str, str], pd.DataFrame]

    @property
    def head(self) -> str:
        """The first task."""
        return next(iter(self.experiment.runs))

    @property
    def head_task(self) -> str:
        """The head task as the chapter names it."""
        return TASK_SHORT_NAMES[self.head]

    @property
    def head_sizes(self) -> str:
        """The head task's subset sizes (training examples per class)."""
        return self.experiment.runs[self.head].sizes_text

    @property
    def other_tasks(self) -> str:
        """The tasks after the head, as the chapter names them."""
        names = [TASK_SHORT_NAMES[t] for t in list(self.experiment.runs)[1:]]
        return ", ".join(names) or "none in this run"

    def runs(self, task: str) -> Runs:
        """The runs of ``task``."""
        return self.experiment.runs[task]

    def params(self, classifier: str) -> int:
        """Parameters of ``classifier`` on side A's input for the head task (§3.4)."""
        dim = self.experiment.encoders[self.head]["A"].dim
        return n_params(classifier, dim, self.experiment.pools[self.head].n_classes)

    def per_size(self, task: str, key: str) -> pd.DataFrame:
        """One comparison by subset size, as the paper's Tables 2-4 with power added."""
        t = self.tables[(task, key)]
        return pd.DataFrame({
            "training examples": t["n_train"],
            "test examples": t["n_test"],
            "A (%)": 100 * t["acc_a"],
            "B (%)": 100 * t["acc_b"],
            "mean |R1 − R2|": t["abs_gap"],
            "recommended N_train": t["n_train_rec"],
            "power": t["power"],
            "significant seeds": t["significant"],
        })  # fmt: skip

    def styled_per_size(self, task: str, key: str):
        """:meth:`per_size` for display."""
        table = self.per_size(task, key).style.format(PER_SIZE_FORMAT, na_rep="–")
        return table.hide(axis="index")

    def styled_task(self, task: str):
        """All three comparisons of ``task`` by subset size, in one table."""
        frames = {self.pairs[key][2]: self.per_size(task, key) for key in self.pairs}
        stacked = pd.concat(frames, names=["comparison", None]).droplevel(1)
        return (
            stacked.set_index("training examples", append=True)
            .style.format(PER_SIZE_FORMAT, na_rep="–")
            .format_index("{:,d}", level=1)
            .set_caption(TASK_SHORT_NAMES[task])
        )


def run_comparison_problems(
    config: ComparisonProblemsConfig, data: ProbedTreebank
) -> ComparisonProblems:
    """Train the probes of the three comparison problems and compare them at every size.

    Logistic regression on layers ``config.layer`` (A) and ``config.layer_b`` (B) and on
    type-level vectors (T), and the MLP on layer A (M), for every task, subset size and seed;
    then A against B, T and M at every size (Zhu et al. 2022, §4.4-4.6).
    """
    layer_a = data.layer_index(config.layer)
    layer_b = data.layer_index(config.layer_b, "layer_b")
    vectors = type_level_vectors(
        config.type_vectors, data.treebank, config.type_dim, config.fasttext_epochs
    )
    a, b = f"LogReg on layer {layer_a}", f"LogReg on layer {layer_b}"
    t, m = "LogReg on type-level vectors", f"MLP-20 on layer {layer_a}"
    configs = [ProbingConfig(a, "A"), ProbingConfig(b, "B"), ProbingConfig(t, "T"),
               ProbingConfig(m, "A", "mlp20")]  # fmt: skip
    pairs = {
        "layers": (a, b, f"layer {layer_a} vs layer {layer_b}"),
        "type": (a, t, f"layer {layer_a} vs type-level vectors"),
        "classifiers": (a, m, f"LogReg vs MLP-20 (layer {layer_a})"),
    }
    experiment = run_tasks(
        data.treebank, config.tasks,
        lambda pool, rep: {"A": layer_encoder(pool, data.embeddings, layer_a, rep),
                           "B": layer_encoder(pool, data.embeddings, layer_b, rep),
                           "T": type_encoder(pool, vectors, rep)},
        configs, config.sizes, config.seeds, rep=config.rep, eta=config.eta,
        max_train=config.max_train, training=config.training(),
    )  # fmt: skip
    tables = {
        (task, key): comparison_table(
            experiment.runs[task], name_a, name_b, delta=config.delta, eta=config.eta,
            alpha=config.alpha, n_sim=config.n_sim, divisor=config.divisor,
        )
        for task in config.tasks
        for key, (name_a, name_b, _) in pairs.items()
    }  # fmt: skip
    return ComparisonProblems(experiment, pairs, tables)
