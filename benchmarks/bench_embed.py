"""Embedding extraction throughput against the raw model forward pass.

Baseline: the model's forward pass alone (``output_hidden_states=True``) over exactly the batches
that ``probekit.io.embeddings`` builds, with tokenisation done beforehand and outputs discarded.
Ours: a cold ``probekit.io.embeddings.embed`` call: tokenisation, word alignment, the same forward
passes, pooling, float16 conversion and the checksummed, atomic write of every layer into a fresh
cache.

Prints ``throughput ratio = baseline time / our time`` (1.0 means no overhead; aim >= 0.8).
Uses UD English EWT dev (all of it; ``--quick``: 300 sentences).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    """Time the raw forward passes and a cold ``embed`` call, and print the throughput ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--model", default="default")
    parser.add_argument("--pooling", default="mean")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()

    from probekit.io.cache import Cache
    from probekit.io.embeddings import embed, get_encoder
    from probekit.io.treebanks import load_treebank

    sentences = load_treebank("UD_English-EWT", ["dev"])["dev"]
    if args.quick:
        sentences = sentences[:300]
    encoder = get_encoder(args.model)
    ids, _ = encoder.tokenize([s.forms.tolist() for s in sentences])
    batches = encoder.batches([len(x) for x in ids], 4096)
    n_pieces = sum(len(x) for x in ids)
    encoder.forward([ids[i] for i in batches[0]])  # warm-up

    raw, ours = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for batch in batches:
            encoder.forward([ids[i] for i in batch])
        raw.append(time.perf_counter() - start)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            embed(sentences, args.model, args.pooling, cache=Cache(tmp), progress=False)
            ours.append(time.perf_counter() - start)
    t_raw, t_ours = min(raw), min(ours)
    print(
        f"sentences: {len(sentences)}, wordpieces: {n_pieces}, batches: {len(batches)}, "
        f"torch threads: {torch.get_num_threads()}"
    )
    print(f"raw forward:        {t_raw:7.2f} s  ({n_pieces / t_raw:8.0f} wordpieces/s)")
    print(f"probekit.io.embeddings:     {t_ours:7.2f} s  ({n_pieces / t_ours:8.0f} wordpieces/s)")
    print(f"throughput ratio (raw time / embed time): {t_raw / t_ours:.2f}")


if __name__ == "__main__":
    main()
