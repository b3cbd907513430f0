"""Benchmark: many logistic-regression probes over subsets and seeds (Zhu et al. 2022, §4).

Ours: ``probekit.probes.softmax.train_softmax_probes``, which trains K softmax-regression probes
(each with its own training subset, view, initialisation and data order) in one batched pass: one
gather, one batched matmul and a hand-written gradient per step, one fused Adam over the stacked
weights.

Baseline: the plain PyTorch way, one ``nn.Linear`` with ``torch.optim.Adam`` and autograd per
probe, looping over the same minibatches (the released code trains one probe per run). Both
see identical data and orders and evaluate at the same checkpoints; the script checks that
their predictions agree.

The workload is a chapter-52 pass: 7 configurations (clean + 6 noise levels) x 5 seeds = 35
probes on 384-dimensional inputs, 3,828 training and 1,912 evaluation examples each, 1,200
updates. ``--quick`` trains 10 probes for 200 updates.

Prints the wall times and the ratio baseline / ours as plain lines.
Run: ``python benchmarks/bench_datasize.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch

from probekit.probes.mlp import ProbeSpec, epoch_orders
from probekit.probes.softmax import train_softmax_probes


def workload(n_probes: int, n_train: int, n_eval: int, d: int = 384, seed: int = 0):
    """Views (V, N, d), labels and K specs with their own training rows, as a chapter pass."""
    rng = np.random.default_rng(seed)
    V = max(1, n_probes // 5)
    y = rng.integers(0, 2, 2 * n_train)
    centres = rng.standard_normal((2, d)).astype(np.float32) * 0.2
    X = centres[y] + rng.standard_normal((V, len(y), d)).astype(np.float32)
    Xe = X[:, :n_eval]
    specs = [
        ProbeSpec(seed=k, view=k % V, order_seed=k,
                  train=np.sort(rng.choice(len(y), n_train, replace=False)))
        for k in range(n_probes)
    ]  # fmt: skip
    return X, y, Xe, y[:n_eval], specs


def baseline(X, y, Xe, ye, specs, epochs, batch_size, lr, checkpoints):
    """One nn.Linear + torch.optim.Adam per probe, autograd, the same batches."""
    d = X.shape[2]
    out = np.zeros((len(specs), len(checkpoints), Xe.shape[1]), dtype=bool)
    yt, ye_t = torch.as_tensor(y), torch.as_tensor(ye)
    for k, spec in enumerate(specs):
        Xv, Xev = torch.as_tensor(X[spec.view]), torch.as_tensor(Xe[spec.view])
        rows = np.unique(spec.train)
        probe = torch.nn.Linear(d, 2)
        g = torch.Generator().manual_seed(spec.seed)
        bound = 1 / math.sqrt(d)
        with torch.no_grad():
            probe.weight.copy_(torch.empty(2, d).uniform_(-bound, bound, generator=g))
            probe.bias.copy_(torch.empty(2).uniform_(-bound, bound, generator=g))
        opt = torch.optim.Adam(probe.parameters(), lr=lr)
        order = rows[epoch_orders(len(rows), epochs, spec.order_seed)]
        t = 0
        for epoch in range(epochs):
            for start in range(0, len(rows), batch_size):
                idx = torch.as_tensor(order[epoch, start : start + batch_size])
                opt.zero_grad()
                torch.nn.functional.cross_entropy(probe(Xv[idx]), yt[idx]).backward()
                opt.step()
                t += 1
                if t in checkpoints:
                    with torch.no_grad():
                        pred = probe(Xev).argmax(1)
                    out[k, checkpoints.index(t)] = (pred == ye_t).numpy()
    return out


def main() -> None:
    """Time both sides on the same probes, check that their predictions agree, print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    args = parser.parse_args()
    n_probes, n_train, n_eval, updates = (
        (10, 1024, 512, 200) if args.quick else (35, 3828, 1912, 1200)
    )
    batch_size, lr = 64, 1e-3
    steps = math.ceil(n_train / batch_size)
    epochs = math.ceil(updates / steps)
    checkpoints = [steps * e for e in range(1, epochs + 1)]
    X, y, Xe, ye, specs = workload(n_probes, n_train, n_eval)
    torch.set_num_threads(1)  # both sides single-threaded: a fair per-core comparison

    t0 = time.perf_counter()
    ours = train_softmax_probes(X, y, Xe, ye, 2, specs, epochs=epochs, batch_size=batch_size, lr=lr,
                        checkpoints=checkpoints)  # fmt: skip
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    base = baseline(X, y, Xe, ye, specs, epochs, batch_size, lr, checkpoints)
    t_base = time.perf_counter() - t0

    agree = float((ours == base).mean())
    print(f"workload: {n_probes} probes x {epochs * steps} updates, d = {X.shape[2]}, "
          f"{n_train} training examples each")  # fmt: skip
    print(f"ours (batched train_softmax_probes): {t_ours:.2f} s")
    print(f"baseline (nn.Linear + Adam per probe): {t_base:.2f} s")
    print(f"ratio baseline / ours: {t_base / t_ours:.1f}")
    print(f"prediction agreement: {agree:.4f}")


if __name__ == "__main__":
    main()
