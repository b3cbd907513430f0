"""Shared standard and size-control probes vs. training them again in every chapter (Part IV).

Baseline: each of chapters 42-44 trains, in one ``train_batched`` call, what its splits need:
the standard probes on every training example (whose scores on a hard set are the control), the
size-control probes on a random half (Kunz & Kuhlmann 2021, §3.5) and the extrapolation probes
of its splits. Ours (``probekit.experiments.part4_extrapolation.runs``): the standard and
size-control probes train once, with every epoch's predictions and losses on all evaluation
examples recorded (``record_epochs=True``), and each chapter trains only its extrapolation
probes; the control and size control on a split's hard set are scored after the fact
(``probekit.probes.mlp.epoch_results``).

Work (book shape): 7 layers × 10 seeds of the §3.2 probe 384 → 64 → 17, batch 64, 10 epochs,
on synthetic data shaped like a 1000-sentence EWT sample (≈17k words for train and for eval);
three chapters with two splits each, whose easy and hard sets are drawn from a per-word score
at chapter-specific quantiles. ``--quick`` shrinks everything for CI.

Printed lines (``name: value``): both wall times, their ratio baseline/ours, and the largest
difference between the two ways in the best-epoch accuracy of the control and size-control
probes on a hard set (points; the same probes, trained in different batches).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from probekit.methods.extrapolation.splits import size_control_mask
from probekit.probes.mlp import ProbeSpec, epoch_results
from probekit.probes.mlp_batched import train_batched

CLASSES = 17
# Per chapter, the (easy, hard) quantiles of the score of its two splits.
CHAPTERS: tuple[tuple[tuple[float, float], ...], ...] = (
    ((0.5, 0.75), (0.3, 0.9)),
    ((0.4, 0.8), (0.6, 0.7)),
    ((0.5, 0.9), (0.25, 0.75)),
)


def synthetic(n: int, layers: int, d: int, seed: int):
    """Views (L, n, d) float32, labels (n,), and a per-word difficulty score (n,).

    Labels come from a random linear teacher on a layer-dependent mix of signal and noise, so
    that probes learn something; the score is independent of the labels.
    """
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=(n, d)).astype(np.float32)
    y = (signal @ np.random.default_rng(99).normal(size=(d, CLASSES))).argmax(1)
    views = np.empty((layers, n, d), dtype=np.float32)
    for k in range(layers):
        mix = 0.3 + 0.7 * k / max(layers - 1, 1)
        views[k] = mix * signal + (1 - mix) * rng.normal(size=(n, d)).astype(np.float32)
    return views, y, rng.random(n)


def main() -> None:
    """Time both ways over three chapters, compare the shared probes' accuracies, print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick:
        n, layers, seeds, d, epochs = 1500, 2, 2, 64, 2
    else:
        n, layers, seeds, d, epochs = 17000, 7, 10, 384, 10
    Xt, yt, score_t = synthetic(n, layers, d, seed=0)
    Xe, ye, score_e = synthetic(n, layers, d, seed=1)
    half = size_control_mask(n, seed=0)
    splits = [
        [(score_t < np.quantile(score_t, lo), score_e > np.quantile(score_e, hi)) for lo, hi in ch]
        for ch in CHAPTERS
    ]
    grid = [(view, seed) for view in range(layers) for seed in range(1, seeds + 1)]
    print(f"shape: layers={layers} seeds={seeds} n={n} d={d} epochs={epochs} chapters=3")

    train_batched(Xt, yt, Xe, ye, CLASSES, [ProbeSpec(0, 0, None, np.arange(64))], epochs=1)

    # Baseline: every chapter trains its probes in one pass; the control and the size control
    # on a hard set are further specs of the standard and size-control probes, which the
    # batched trainer trains once and evaluates on each subset.
    t0 = time.perf_counter()
    base = []
    for chapter in splits:
        specs = [ProbeSpec(s, v, None, rows) for v, s in grid for rows in (None, half)]
        for easy, hard in chapter:
            specs += [ProbeSpec(s, v, None, None, hard) for v, s in grid]
            specs += [ProbeSpec(s, v, None, half, hard) for v, s in grid]
            specs += [ProbeSpec(s, v, None, easy, hard) for v, s in grid]
        base.append(train_batched(Xt, yt, Xe, ye, CLASSES, specs, epochs=epochs))
    t_base = time.perf_counter() - t0
    print(f"baseline_seconds: {t_base:.2f}")

    # Ours: the shared probes once, with every epoch recorded; then extrapolation probes only,
    # and the control and size control scored on each hard set from the records.
    t0 = time.perf_counter()
    shared_specs = [ProbeSpec(s, v, None, rows) for v, s in grid for rows in (None, half)]
    shared = train_batched(Xt, yt, Xe, ye, CLASSES, shared_specs, epochs=epochs, record_epochs=True)
    scored = []
    for chapter in splits:
        specs = [ProbeSpec(s, v, None, easy, hard) for easy, hard in chapter for v, s in grid]
        train_batched(Xt, yt, Xe, ye, CLASSES, specs, epochs=epochs)
        for _, hard in chapter:
            acc = epoch_results(shared.epoch_pred, shared.epoch_loss, ye, hard)[0]
            scored.append(acc.max(1))  # (2K,): standard, size control per (layer, seed)
    t_ours = time.perf_counter() - t0
    print(f"ours_seconds: {t_ours:.2f}")
    print(f"ratio_baseline_over_ours: {t_base / t_ours:.2f}")
    # The same probes both ways: control and size control on each hard set, per (layer, seed).
    K, diff = len(grid), 0.0
    for c, chapter in enumerate(splits):
        for j in range(len(chapter)):
            first = 2 * K + 3 * K * j
            ref = base[c].best_acc[first : first + 2 * K].reshape(2, K).T.ravel()
            diff = max(diff, float(np.abs(scored[c * len(chapter) + j] - ref).max()))
    print(f"max_shared_best_acc_difference_points: {100 * diff:.2f}")


if __name__ == "__main__":
    main()
