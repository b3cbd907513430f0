"""Benchmark: the stacked random-MLP trainer of Pimentel et al. 2020, §6.2 (pareto_runs.mlps).

Workload: K random MLP architectures
(:func:`probekit.methods.pareto.architectures.sample_mlp_configs`, several of them with zero hidden
layers) x 3 conditions (normal, label-shuffled, fully shuffled), each trained for a fixed number of
updates on synthetic 384-d inputs with 17 classes.

Baselines:

- **plain**: one ``torch.nn.Sequential`` per (architecture, condition) with its own
  ``torch.optim.Adam`` and minibatch loop, as the released code trains its probes one by one;
- **one-by-one**: :func:`probekit.probes.mlp_stack.train_mlps` called once per (architecture,
  condition), so that nothing is stacked.

Ours: one :func:`probekit.probes.mlp_stack.train_mlps` call for everything (architectures of one
shape and all their conditions share a stack and every minibatch). Prints wall times and the
ratios baseline / ours. ``--quick`` shrinks the workload to a few seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from probekit.experiments.part3_pareto import memorisation
from probekit.methods.pareto import architectures
from probekit.probes import mlp_stack
from probekit.probes.training import TrainOptions


def data(n: int, d: int, C: int, seed: int):
    """Synthetic inputs (n, d) float32 around C random class centres, and their labels (n,)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    centres = rng.normal(size=(C, d)).astype(np.float32)
    X = centres[y] + rng.normal(size=(n, d)).astype(np.float32)
    return X, y


def plain(configs, sets, C, steps, batch, lr):
    """The plain baseline: one ``nn.Sequential`` and Adam per (architecture, condition)."""
    for c in configs:
        for s in sets:
            layers, width = [], s.X.shape[1]
            for h in c.layer_sizes():
                layers += [torch.nn.Linear(width, h), torch.nn.ReLU(), torch.nn.Dropout(c.dropout)]
                width = h
            net = torch.nn.Sequential(
                torch.nn.Dropout(c.dropout), *layers, torch.nn.Linear(width, C)
            )
            opt = torch.optim.Adam(net.parameters(), lr=lr)
            X, y = torch.as_tensor(s.X), torch.as_tensor(s.y)
            g = torch.Generator().manual_seed(0)
            done = 0
            while done < steps:
                perm = torch.randperm(len(y), generator=g)
                for start in range(0, len(y), batch):
                    idx = perm[start : start + batch]
                    loss = torch.nn.functional.cross_entropy(net(X[idx]), y[idx])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    done += 1
                    if done == steps:
                        break


def main() -> None:
    """Time the stacked trainer against the baselines and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    args = parser.parse_args()
    n, K, steps = (2048, 6, 20) if args.quick else (16384, 10, 200)
    d, C, batch, lr = 384, 17, 256, 3e-3
    torch.set_num_threads(1)
    X, y = data(n, d, C, 0)
    Xs, _ = data(n, d, C, 1)
    shuffled = memorisation.control_labels(y, seed=0)
    sets = [
        mlp_stack.TrainingSet("normal", X, y, X[:512], y[:512]),
        mlp_stack.TrainingSet("label_shuffled", X, shuffled["label_shuffled"], X[:512], y[:512]),
        mlp_stack.TrainingSet("fully_shuffled", Xs, shuffled["fully_shuffled"], Xs[:512], y[:512]),
    ]
    configs = architectures.sample_mlp_configs(K, seed=0, max_hidden=256)
    configs[: K // 3] = [mlp_stack.MLPConfig(0, 0, 0.1 * k) for k in range(K // 3)]
    opts = TrainOptions(
        batch_size=batch, lr=lr, eval_every=steps, patience=steps + 1, max_steps=steps
    )
    shapes = len({c.layer_sizes() for c in configs})
    print(
        f"workload: {K} architectures ({shapes} shapes) x {len(sets)} conditions, "
        f"{steps} updates of {batch} examples, d {d}, {C} classes"
    )

    # Warm-up: torch's first calls pay one-off costs that would fall on whichever runs first.
    warm = TrainOptions(batch_size=batch, lr=lr, eval_every=2, patience=3, max_steps=2)
    mlp_stack.train_mlps(configs[:2], sets[:2], n_classes=C, seed=0, options=warm)
    plain(configs[:1], sets[:1], C, 2, batch, lr)

    t = time.perf_counter()
    mlp_stack.train_mlps(configs, sets, n_classes=C, seed=0, options=opts)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    for c in configs:
        for s in sets:
            mlp_stack.train_mlps([c], [s], n_classes=C, seed=0, options=opts)
    alone = time.perf_counter() - t
    t = time.perf_counter()
    plain(configs, sets, C, steps, batch, lr)
    base = time.perf_counter() - t
    print(f"stacked (ours): {ours:.2f} s")
    print(f"one-by-one: {alone:.2f} s")
    print(f"plain torch loop: {base:.2f} s")
    print(f"ratio one-by-one / stacked: {alone / ours:.2f}")
    print(f"ratio plain / stacked: {base / ours:.2f}")


if __name__ == "__main__":
    main()
