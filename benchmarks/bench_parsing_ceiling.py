"""The parsing ceiling of chapter 34 (issue 14), measured once outside the book's budget.

One MLP biaffine probe (:data:`probekit.experiments.part3_pareto.ceiling.CEILING_MLP`) on the
contextual representation of chapter 34's ``book`` parameters (same model, layer and pooling),
trained to convergence on the whole EWT training split (``n_train = 0``), early-stopped on dev
UAS, scored on the whole test split (:func:`~probekit.experiments.part3_pareto.ceiling.
parsing_ceiling`). ``--quick`` trains on 200 sentences for a few hundred updates, for CI.

Run: ``HF_HUB_OFFLINE=1 PROBEKIT_CACHE=/tmp/pkcache python benchmarks/bench_parsing_ceiling.py``.
Printed lines (``name: value``): seconds, test UAS, dev UAS, best step, whether it hit the cap.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import torch

from probekit.book.params import effective_parameters
from probekit.experiments.part3_pareto import ceiling, experimental_setup
from probekit.experiments.part3_pareto.config import ParsingConfig

NOTEBOOK = "notebooks/34_dependency_parsing.py"


def main() -> None:
    """Measure the ceiling (or its quick version) and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    overrides = {
        "representations": ["contextual"],
        "controls": ["label_shuffled"],
        "n_train": 0,
        "n_dev": 0,
    }
    options = ceiling.CEILING_OPTIONS
    if args.quick:
        overrides.update(n_train=200, n_dev=100, n_test=100)
        options = replace(options, max_steps=200, eval_every=50)
    config = ParsingConfig.from_parameters(effective_parameters(NOTEBOOK, "book", overrides))
    setup = experimental_setup.build_pareto_setup(config)
    start = time.perf_counter()
    c = ceiling.parsing_ceiling(
        setup.representations["contextual"], setup.splits, seed=config.seed, options=options
    )
    print(f"seconds: {time.perf_counter() - start:.1f}")
    print(f"train_sentences: {c.n_train}")
    print(f"test_uas: {100 * c.uas:.2f}")
    print(f"dev_uas: {100 * c.dev_uas:.2f}")
    print(f"best_step: {c.best_step}")
    print(f"at_cap: {c.at_cap}")


if __name__ == "__main__":
    main()
