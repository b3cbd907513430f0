"""The parsing ceiling of chapter 34, measured once outside the book's budget and recorded.

One MLP biaffine probe (:data:`probekit.experiments.part3_pareto.ceiling.CEILING_MLP`) on the
contextual representation of chapter 34's ``book`` parameters, at the layer the chapter's own
selection pass chooses on development UAS (same model and pooling), trained to convergence on the
whole EWT training split (``n_train = 0``), early-stopped on dev UAS and scored on the whole test
split (:func:`~probekit.experiments.part3_pareto.ceiling.parsing_ceiling`). The result is written
as the record ``params/records/parsing_ceiling.json`` with its parameters, the digest of the code
it ran, the machine and its time. ``--quick`` trains on 200 sentences for a few hundred updates
and records nothing, for CI.

``--best`` trains instead chapter 34's best contextual MLP architecture by development UAS, read
from the chapter's saved results (``build/results/34_dependency_parsing.json``, key
``best_ctx_mlp``), the same way on the whole split, and records it as
``params/records/parsing_best_full.json``: whether the chapter's architectures could reach the
ceiling given the data.

Run: ``HF_HUB_OFFLINE=1 python benchmarks/bench_parsing_ceiling.py``.
Printed lines (``name: value``): the chosen layer, seconds, test UAS, dev UAS, best step, whether
it hit the cap.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import torch

from probekit.book.params import effective_parameters
from probekit.book.records import code_digest, record_measurement
from probekit.experiments.part3_pareto import ceiling, experimental_setup, layer_choice
from probekit.experiments.part3_pareto.config import LayerChoiceConfig, ParsingConfig
from probekit.io.results import load_results
from probekit.probes.mlp_stack import MLPConfig

NOTEBOOK = "notebooks/34_dependency_parsing.py"
NOTEBOOK_SLUG = "34_dependency_parsing"
CHOOSER = "notebooks/31_lookup_and_toy_tasks.py"
SCRIPT = "benchmarks/bench_parsing_ceiling.py"
RESULTS = "build/results"


def main() -> None:
    """Measure the ceiling (or its quick version), print it and record it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--best",
        action="store_true",
        help="measure chapter 34's best contextual architecture (from its saved results)",
    )
    parser.add_argument(
        "--layer",
        type=int,
        default=None,
        help="measure at this layer (default: the chapter's choice)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    start = time.perf_counter()
    digest = code_digest(SCRIPT)
    options = ceiling.CEILING_OPTIONS
    book = {"representations": ["contextual"], "controls": ["label_shuffled"]}
    if args.quick:
        book.update(n_train=200, n_dev=100, n_test=100, max_steps=200, memorise_steps=200,
                    eval_every=20)  # fmt: skip
        options = replace(options, max_steps=200, eval_every=50)
    chapter = ParsingConfig.from_parameters(effective_parameters(NOTEBOOK, "book", book))
    chosen = chapter if args.layer is None else replace(chapter, layer=args.layer)
    if chosen.layer is None:
        # The layer chapter 31 would choose, from its own parameters.
        quick = dict(n_train=200, n_dev=100, max_steps=200, eval_every=20) if args.quick else {}
        choice = LayerChoiceConfig.from_parameters(effective_parameters(CHOOSER, "book", quick))
        chosen = replace(chapter, layer=layer_choice.run_layer_choice(choice).layer)
    mlp, name = ceiling.CEILING_MLP, ceiling.RECORD
    if args.best:
        saved = load_results(RESULTS, [NOTEBOOK_SLUG]).get(NOTEBOOK_SLUG, {})
        if not saved.get("best_ctx_mlp"):
            raise SystemExit(f"{RESULTS}/{NOTEBOOK_SLUG}.json has no best_ctx_mlp: run chapter 34")
        mlp, name = MLPConfig(**json.loads(saved["best_ctx_mlp"])), ceiling.BEST_RECORD
        print(f"architecture: {mlp}")
    whole = replace(chosen, n_train=0, n_dev=0, n_test=0) if not args.quick else chosen
    setup = experimental_setup.build_pareto_setup(whole)
    c = ceiling.parsing_ceiling(
        setup.representations["contextual"],
        setup.splits,
        seed=chosen.seed,
        config=mlp,
        options=options,
    )
    seconds = time.perf_counter() - start
    print(f"layer: {chosen.layer}")
    print(f"seconds: {seconds:.1f}")
    print(f"train_sentences: {c.n_train}")
    print(f"test_uas: {100 * c.uas:.2f}")
    print(f"dev_uas: {100 * c.dev_uas:.2f}")
    print(f"best_step: {c.best_step}")
    print(f"at_cap: {c.at_cap}")
    if not args.quick:
        parameters, result = ceiling.ceiling_record(c, chosen, mlp)
        path = record_measurement(name, SCRIPT, parameters, result, seconds, digest)
        print(f"record: {path}")


if __name__ == "__main__":
    main()
