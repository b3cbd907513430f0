"""What Pimentel et al. 2020 report for English (Tables 1 to 3, §7.1) and their released runs.

What the paper reports and what its released runs give, for the chapters' side-by-side comparisons:
:data:`PAPER`, added to a hypervolume table by :func:`paper_comparison` and set beside ours, by glue
name, by :func:`table3_numbers`; :func:`paper_leads` gives the paper's contextual leads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.experiments.part3_pareto.frontiers import hypervolume_of
from probekit.experiments.part3_pareto.representations import NON_CONTEXTUAL, TASKS

# English numbers of the paper and of its released runs (rycolab/pareto-probing, `results/compiled_*.tsv`), for the
# side-by-side comparisons in the chapters. "contextual" is multilingual BERT there.
PAPER: dict[str, Any] = {
    # Table 1: dictionary-lookup test accuracy.
    "table1": {"posl": 0.86, "dal": 0.68},
    # Table 3, English: Pareto hypervolumes (nuclear norm capped at 400, rank normalised by C).
    "table3": {
        ("posl", "nuclear"): {"contextual": 0.91, "fasttext": 0.87, "onehot": 0.85, "random": 0.63},
        ("posl", "rank"): {"contextual": 0.80, "fasttext": 0.77, "onehot": 0.76, "random": 0.54},
        ("posl", "label_shuffled"): {
            "contextual": 0.79,
            "fasttext": 0.75,
            "onehot": 0.70,
            "random": 0.70,
        },
        ("posl", "fully_shuffled"): {"contextual": 0.79},
        ("dal", "nuclear"): {"contextual": 0.87, "fasttext": 0.74, "onehot": 0.73, "random": 0.56},
        ("dal", "rank"): {"contextual": 0.85, "fasttext": 0.70, "onehot": 0.69, "random": 0.53},
        ("dal", "label_shuffled"): {
            "contextual": 0.80,
            "fasttext": 0.69,
            "onehot": 0.64,
            "random": 0.61,
        },
        ("dal", "fully_shuffled"): {"contextual": 0.81},
    },
    # Table 3 recomputed from the released English POSL runs (nuclear norm, test accuracy).
    "released_posl_nuclear": {
        "contextual": 0.79,
        "fasttext": 0.80,
        "onehot": 0.83,
        "random": 0.56,
    },
    # Table 2, English: parsing hypervolume under the label-shuffled complexity.
    "table2": {"contextual": 0.57, "fasttext": 0.40, "onehot": 0.32, "random": 0.39},
    # Released runs: test accuracy (UAS for parsing) of the best-dev probe.
    "best_linear": {
        "posl": {"contextual": 0.939, "fasttext": 0.889, "onehot": 0.855, "random": 0.647},
        "dal": {"contextual": 0.913, "fasttext": 0.756, "onehot": 0.731, "random": 0.576},
        "parse": {"contextual": 0.800, "fasttext": 0.510, "onehot": 0.468, "random": 0.289},
    },
    "best_mlp": {
        "posl": {"contextual": 0.956, "fasttext": 0.906, "onehot": 0.855, "random": 0.855},
        "dal": {"contextual": 0.926, "fasttext": 0.796, "onehot": 0.735, "random": 0.707},
        "parse": {"contextual": 0.865, "fasttext": 0.560, "onehot": 0.492, "random": 0.482},
    },
    # Label statistics of English EWT v2.5 over train+dev+test, in bits, and class counts.
    "entropy": {"posl": (3.607, 0.261), "dal": (4.482, 1.006)},
    "classes": {"posl": 16, "dal": 48},
}


def paper_comparison(hv: pd.DataFrame, key: str = "table3") -> pd.DataFrame:
    """Add the paper's English hypervolume (``PAPER[key]``, Tables 2 and 3) to a table.

    The table is a :func:`~.frontiers.hypervolume_table`; the values go in column ``paper`` (NaN
    where the paper has none).
    """
    ref = PAPER[key]

    def lookup(row: pd.Series) -> float:
        values = ref if key == "table2" else ref.get((row["task"], row["family"]), {})
        return float(values.get(row["representation"], np.nan))

    return hv.assign(paper=hv.apply(lookup, axis=1) if len(hv) else [])


def table3_numbers(hv: pd.DataFrame, families: Sequence[str]) -> dict[str, float]:
    """Our hypervolumes beside the paper's Table 3, by glue name.

    ``hv_<task>_<family>_<rep>`` (from a :func:`~.frontiers.hypervolume_table`, NaN where the
    setting was not run) and ``paper_<task>_<family>_<rep>``, for every task, every one of
    ``families`` (probe families or memorisation controls) and every representation the paper
    reports there.
    """
    numbers: dict[str, float] = {}
    for task in TASKS:
        for family in families:
            for name, paper in PAPER["table3"][(task, family)].items():
                key = f"{task}_{family}_{name}"
                numbers[f"hv_{key}"] = hypervolume_of(
                    hv, task=task, family=family, representation=name
                )
                numbers[f"paper_{key}"] = paper
    return numbers


def paper_leads() -> dict[str, float]:
    """BERT's label-shuffled hypervolume minus the best type-level one in the paper, by task.

    This is §7.2's argument: ``parse`` from Table 2, ``posl`` and ``dal`` from Table 3.
    """
    table2 = PAPER["table2"]
    leads = {"parse": table2["contextual"] - max(table2[n] for n in NON_CONTEXTUAL)}
    for task in TASKS:
        table3 = PAPER["table3"][(task, "label_shuffled")]
        leads[task] = table3["contextual"] - max(table3[n] for n in NON_CONTEXTUAL)
    return leads
