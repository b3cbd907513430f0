"""The learning-rate trial of chapter 34 (issue 14: what one shared rate costs each side).

One MLP parser (:data:`probekit.experiments.part3_pareto.learning_rate.TRIAL_MLP`) per
representation and Adam rate, on chapter 34's ``book`` sample and schedule, each read on its own
dev UAS (:func:`~probekit.experiments.part3_pareto.learning_rate.lr_trial`); the chapter shows
the recorded result (``learning_rate.MEASURED``). ``--quick`` trains on 200 sentences for a few
dozen updates (chapter 34's ``quick`` profile), for CI.

Run: ``HF_HUB_OFFLINE=1 PROBEKIT_CACHE=/tmp/pkcache python benchmarks/bench_parsing_lr.py``.
Prints the trial's table as CSV, then ``seconds: ...`` and each representation's best rate.
"""

from __future__ import annotations

import argparse
import time

import torch

from probekit.book.params import effective_parameters
from probekit.experiments.part3_pareto import experimental_setup, learning_rate
from probekit.experiments.part3_pareto.config import ParsingConfig

NOTEBOOK = "notebooks/34_dependency_parsing.py"


def main() -> None:
    """Run the trial (or its quick version) and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    # The trial trains no controls: without the fully-shuffled one, no shuffled sentences are
    # encoded.
    params = effective_parameters(
        NOTEBOOK, "quick" if args.quick else "book", {"controls": ["label_shuffled"]}
    )
    config = ParsingConfig.from_parameters(params)
    setup = experimental_setup.build_pareto_setup(config)
    start = time.perf_counter()
    table = learning_rate.lr_trial(
        setup.representations, setup.splits, setup.options, seed=config.seed
    )
    print(table.to_csv(index=False), end="")
    print(f"seconds: {time.perf_counter() - start:.1f}")
    for name, lr in learning_rate.best_rates(table).items():
        print(f"best_lr_{name}: {lr:g}")


if __name__ == "__main__":
    main()
