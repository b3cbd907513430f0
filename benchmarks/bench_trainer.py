"""Batched MLP-probe trainer vs. the naive one-probe-at-a-time loop.

Baseline: ``probekit.probes.mlp.train_reference`` called once per probe, i.e. a DataLoader over a
TensorDataset and ``torch.optim.Adam`` per probe, as the released code of Kunz & Kuhlmann 2021
trains its probes. Ours: one ``train_batched`` call for all probes.

Work (book shape, one scoring function): 10 seeds × 7 layers × 3 setups (standard, control,
extrapolation) of the §3.2 probe 384 → 64 → 17, batch 64, 5 epochs, on synthetic data shaped
like a 1000-sentence EWT sample (≈17k words for train and for eval); the easy/hard sets are the
linguistic sentence-length split (< 17 and > 29 words). ``--quick`` shrinks everything for CI.

The naive loop costs the same for every seed, so by default it is timed on one seed per
(layer, setup), a tenth of the work, and scaled up; ``--naive-seeds 10`` times all of it.

Printed lines (``name: value``): the matmul peak (best of a repeated 2048² float32 matmul, in
this run), the batched trainer's wall time, achieved GFLOP/s (matmul FLOPs of forward, backward
and evaluation) and share of peak, the naive loop's time, and the ratios naive/batched, both
against the naive loop as the seed code runs it (every setup trained, standard and control
twice) and against a naive loop that skips the duplicate training (as ours does).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from probekit.methods.extrapolation.grid import probe_grid
from probekit.methods.extrapolation.splits import linguistic_split_points, setups
from probekit.probes.mlp import ProbeSpec, train_reference
from probekit.probes.mlp_batched import train_batched

SETUP_NAMES = ("standard", "control", "extrapolation")


def matmul_peak(size: int = 2048, repeats: int = 5) -> float:
    """GFLOP/s of the best of ``repeats`` float32 (size × size) @ (size × size) matmuls."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2 * size**3 / best / 1e9


def synthetic(n_sentences: int, layers: int, d: int, classes: int, seed: int):
    """Views (L, N, d) float32, labels (N,) and per-word sentence lengths (N,).

    Sentence lengths follow a rough EWT shape (mean ≈ 17); labels come from a random linear
    teacher on a layer-dependent mix of signal and noise, so that probes learn something.
    """
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.gamma(2.0, 8.5, n_sentences).astype(int) + 1, 1, 120)
    sent_len = np.repeat(lengths, lengths)
    n = len(sent_len)
    signal = rng.normal(size=(n, d)).astype(np.float32)
    y = (signal @ rng.normal(size=(d, classes))).argmax(1)
    views = np.empty((layers, n, d), dtype=np.float32)
    for k in range(layers):
        mix = 0.3 + 0.7 * k / max(layers - 1, 1)
        views[k] = mix * signal + (1 - mix) * rng.normal(size=(n, d)).astype(np.float32)
    return views, y, sent_len


def main() -> None:
    """Time the batched trainer against the naive loop, compare their accuracies, print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    parser.add_argument("--epochs", type=int, default=None, help="default 5 (quick: 1)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (batched trainer)")
    parser.add_argument(
        "--naive-threads",
        type=int,
        default=1,
        help="torch threads of the naive loop (1 is its fastest for these tiny matmuls)",
    )
    parser.add_argument("--workers", type=int, default=None, help="batched trainer workers")
    parser.add_argument(
        "--naive-seeds", type=int, default=1, help="seeds timed in the naive loop (scaled up)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick:
        n_sent, layers, seeds, d, epochs = 120, 2, 3, 384, 1
    else:
        n_sent, layers, seeds, d, epochs = 1000, 7, 10, 384, 5
    epochs = args.epochs or epochs
    classes = 17
    Xt, yt, len_t = synthetic(n_sent, layers, d, classes, seed=0)
    Xe, ye, len_e = synthetic(n_sent, layers, d, classes, seed=1)
    split = setups(len_t, len_e, linguistic_split_points(), seed=0, names=SETUP_NAMES)
    specs, index = probe_grid(split, layers=list(range(layers)), seeds=list(range(1, seeds + 1)))
    print(f"shape: layers={layers} seeds={seeds} setups={len(SETUP_NAMES)} probes={len(specs)}")
    print(f"shape: n_train={len(yt)} n_eval={len(ye)} d={d} classes={classes} epochs={epochs}")
    print(f"shape: n_easy={int(split['extrapolation'].train.sum())} "
          f"n_hard={int(split['control'].eval.sum())}")  # fmt: skip

    # Warm both trainers up (lazy imports, first-call allocations) outside the timings.
    tiny = [ProbeSpec(seed=0, train=np.arange(128), eval=np.arange(128))]
    train_batched(Xt, yt, Xe, ye, classes, tiny, epochs=1)
    train_reference(Xt, yt, Xe, ye, classes, tiny[0], epochs=1)

    peak = matmul_peak()
    print(f"peak_gflops: {peak:.1f}")

    t0 = time.perf_counter()
    result = train_batched(Xt, yt, Xe, ye, classes, specs, epochs=epochs, workers=args.workers)
    t_batched = time.perf_counter() - t0
    gflops = result.flops / t_batched / 1e9
    print(f"batched_seconds: {t_batched:.2f}")
    print(f"batched_probes_trained: {result.n_trained}")
    print(f"batched_gflops: {gflops:.1f}")
    print(f"batched_share_of_peak: {gflops / peak:.2f}")

    timed_seeds = min(args.naive_seeds, seeds)
    picked = np.flatnonzero(index.seed.to_numpy() <= timed_seeds)
    torch.set_num_threads(args.naive_threads)
    print(f"naive_threads: {args.naive_threads}")
    naive, seconds = {}, {}
    for k in picked:
        spec: ProbeSpec = specs[k]
        t0 = time.perf_counter()
        naive[k] = train_reference(Xt, yt, Xe, ye, classes, spec, epochs=epochs).best_acc[0]
        seconds[k] = time.perf_counter() - t0
    t_timed = sum(seconds.values())
    scale = seeds / timed_seeds
    t_naive = t_timed * scale
    # Standard and control train the same probe; a deduplicating naive loop trains it once.
    t_naive_dedup = scale * sum(t for k, t in seconds.items() if index.setup[k] != "control")
    print(f"naive_seconds_timed: {t_timed:.2f} ({len(picked)} probes)")
    print(f"naive_seconds: {t_naive:.2f} (scaled to {len(specs)} probes)")
    print(f"ratio_naive_over_batched: {t_naive / t_batched:.1f}")
    print(f"ratio_naive_dedup_over_batched: {t_naive_dedup / t_batched:.1f}")
    diff = max(abs(naive[k] - result.best_acc[k]) for k in picked)
    print(f"max_best_acc_difference_points: {100 * diff:.2f}")


if __name__ == "__main__":
    main()
