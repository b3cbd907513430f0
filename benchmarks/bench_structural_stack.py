"""Stacked training of structural probes / perceptron parsers vs. one probe at a time.

Two baselines, both training the probes of a random search one after the other:
  (a) ``naive``: the book's trainer before the stacked one, reproduced here: per probe, per
      batch, the sentences are padded anew (``pad_embeddings``), projected with their padding,
      the pairwise distances computed at the batch's longest sentence, ``torch.optim.Adam``
      steps, and the dev loss computed sentence batch by sentence batch;
  (b) ``one_at_a_time``: :func:`probekit.probes.structural_stack.train_distance_probes` called once per
      probe (a stack of one), which isolates what stacking itself buys.
Ours: one ``train_distance_probes`` call for all P probes (one minibatch gather and one batched Prim per
step for the whole stack, grouped by rank; the gradient written out by hand, no autograd).

Work (book shape, one searched layer): P = 10 random-search trials (ranks from {16, 32, 64,
128, 384}, learning rates in [1e-3, 1e-2], dropout in [0, 0.5]) on synthetic sentences shaped
like chapter 12's 1,000-sentence EWT sample (lengths 2..50, mean ≈ 16, d = 384), 3 epochs each
with early stopping off, so both sides do the same number of updates; dev = 300 sentences.
``--quick`` shrinks everything for CI. Both kinds are timed: ``structural`` (L1 distance loss)
and ``perceptron`` (eq. 4, with a batched Prim per minibatch and dev UUAS selection).

Printed lines (``name: value``): the seconds of each side per kind, the ratios baseline /
stacked, and the largest difference between the stacked and one-at-a-time final dev losses
(relative), which should be rounding only (the naive loop draws its randomness differently).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from probekit.probes.perceptron import gold_edge_mask, perceptron_loss
from probekit.probes.structural import (
    DistanceProbe,
    SearchSpace,
    pad_embeddings,
    sample_trials,
    structural_loss,
)
from probekit.probes.structural_stack import DistanceData, DistanceTrial, train_distance_probes
from probekit.trees.distances import tree_distances_all


def synthetic(n_sentences: int, d: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per-sentence float32 (n, d) vectors and random 1-based heads, lengths 2..50."""
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.gamma(2.0, 8.0, n_sentences).astype(int) + 2, 2, 50)
    embs, heads = [], []
    for n in lengths:
        h = np.zeros(n, dtype=np.int64)
        for i in range(1, n):
            h[i] = rng.integers(1, i + 1)
        perm = rng.permutation(n)
        inv = np.argsort(perm)
        # Relabel the tree so the root is not always the first word.
        heads.append(np.where(h[perm] == 0, 0, inv[h[perm] - 1] + 1).astype(np.int64))
        embs.append(rng.normal(size=(n, d)).astype(np.float32))
    return embs, heads


def _pad(targets: list[np.ndarray], dtype: torch.dtype) -> torch.Tensor:
    n = max(t.shape[0] for t in targets)
    out = np.zeros((len(targets), n, n), dtype=targets[0].dtype)
    for b, t in enumerate(targets):
        out[b, : t.shape[0], : t.shape[0]] = t
    return torch.from_numpy(out).to(dtype)


def naive_train(kind, trial, train, dev, epochs: int, batch_size: int = 64) -> float:
    """Baseline (a): one probe, batches padded per step; returns the last dev loss."""
    (tr_e, tr_h), (dv_e, dv_h) = train, dev
    if kind == "structural":
        tr_t = [d.astype(np.float32) for d in tree_distances_all(tr_h)]
        dv_t = [d.astype(np.float32) for d in tree_distances_all(dv_h)]
        dtype, loss_fn = torch.float32, structural_loss
    else:
        tr_t, dv_t = [gold_edge_mask(h) for h in tr_h], [gold_edge_mask(h) for h in dv_h]
        dtype, loss_fn = torch.bool, perceptron_loss
    g = torch.Generator().manual_seed(trial.seed)
    probe = DistanceProbe(tr_e[0].shape[1], trial.rank, g)
    opt = torch.optim.Adam(probe.parameters(), lr=trial.lr)
    dev_loss = float("nan")
    for _ in range(epochs):
        perm = torch.randperm(len(tr_e), generator=g).numpy()
        for start in range(0, perm.size, batch_size):
            idx = perm[start : start + batch_size]
            h, lengths = pad_embeddings([tr_e[i] for i in idx])
            keep = torch.rand(h.shape, generator=g) >= trial.dropout
            h = h * keep.to(h.dtype) / (1.0 - trial.dropout)
            loss = loss_fn(probe(h), _pad([tr_t[i] for i in idx], dtype), lengths).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        total = 0.0
        with torch.no_grad():
            for start in range(0, len(dv_e), batch_size):
                sl = slice(start, start + batch_size)
                h, lengths = pad_embeddings(dv_e[sl])
                total += float(loss_fn(probe(h), _pad(dv_t[sl], dtype), lengths).sum())
        dev_loss = total / len(dv_e)
    return dev_loss


def main() -> None:
    """Time the stacked trainer against one probe at a time and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (both sides)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick:
        n_train, n_dev, d, n_probes, epochs = 120, 40, 64, 4, 1
    else:
        n_train, n_dev, d, n_probes, epochs = 1000, 300, 384, 10, 3
    tr_e, tr_h = synthetic(n_train, d, 0)
    dev_e, dev_h = synthetic(n_dev, d, 1)
    train, dev = DistanceData.build({0: tr_e}, tr_h), DistanceData.build({0: dev_e}, dev_h)
    ranks = (16, 32, 64, 128, d) if d > 128 else (4, 16, d)
    space = SearchSpace(ranks=ranks, lr_min=1e-3, lr_max=1e-2, dropout_max=0.5)
    trials = [
        DistanceTrial(c["rank"], c["lr"], c["dropout"], c["seed"])
        for c in sample_trials(space, n_probes, seed=0, d=d)
    ]
    print(f"shape: n_train={n_train} n_dev={n_dev} d={d} probes={n_probes} epochs={epochs}")
    print(f"shape: ranks={[t.rank for t in trials]}")
    # Warm up (lazy imports, first allocations) outside the timings.
    train_distance_probes("structural", trials[:1], train, dev, max_epochs=1)
    naive_train("structural", trials[0], (tr_e[:64], tr_h[:64]), (dev_e, dev_h), 1)
    for kind, selection in (("structural", "loss"), ("perceptron", "uuas")):
        kwargs = {"selection": selection, "max_epochs": epochs, "patience": epochs + 1}
        t0 = time.perf_counter()
        stacked = train_distance_probes(kind, trials, train, dev, **kwargs)
        t_stacked = time.perf_counter() - t0
        t0 = time.perf_counter()
        alone = [train_distance_probes(kind, [t], train, dev, **kwargs)[0] for t in trials]
        t_alone = time.perf_counter() - t0
        t0 = time.perf_counter()
        for t in trials:
            naive_train(kind, t, (tr_e, tr_h), (dev_e, dev_h), epochs)
        t_naive = time.perf_counter() - t0
        diff = max(
            abs(a.history[-1]["dev_loss"] - b.history[-1]["dev_loss"])
            / max(abs(b.history[-1]["dev_loss"]), 1e-12)
            for a, b in zip(stacked, alone, strict=True)
        )
        print(f"{kind}_stacked_seconds: {t_stacked:.2f}")
        print(f"{kind}_one_at_a_time_seconds: {t_alone:.2f}")
        print(f"{kind}_naive_seconds: {t_naive:.2f}")
        print(f"{kind}_ratio_one_at_a_time_over_stacked: {t_alone / t_stacked:.2f}")
        print(f"{kind}_ratio_naive_over_stacked: {t_naive / t_stacked:.2f}")
        print(f"{kind}_max_relative_dev_loss_difference: {diff:.2e}")


if __name__ == "__main__":
    main()
