"""Stacked training of MLP parsing probes and their controls vs. one parser at a time.

Pimentel et al. 2020, §7.2 (chapter 34): every random MLP architecture trains on the gold heads
and on the shuffled heads of the two controls (§5), each with Adam and early stopping. Two
baselines train these runs one after the other:

  (a) ``naive``: the book's parser trainer before the stacked one, reproduced here: per parser
      and per batch, the sentences are padded anew from their per-sentence arrays, dropout masks
      are float draws from a ``torch.Generator``, MLP_head and MLP_tail are separate modules,
      and the dev UAS is computed on freshly padded batches;
  (b) ``one_at_a_time``: :func:`probekit.probes.biaffine_stack.train_parsers` called once per
      run (a stack of one, on cached sentences), which isolates what stacking itself buys.

Ours: one ``train_parsers`` call per representation, as chapter 34 makes it: each
architecture's parser and controls in one stack (one gather of the batch's word rows, one
product for the first layers of every probe's MLP_head and MLP_tail).

Work (book shape, one contextual representation): K = 5 random architectures (the chapter's
draw, hidden sizes up to 128) x 3 conditions (gold heads, label-shuffled, fully shuffled) on
synthetic sentences shaped like EWT (lengths 1..60, mean about 16, d = 384): 2,000 training
and 500 dev sentences, a fixed number of updates of 64 sentences with a dev check every 50
(early stopping off, so every side does the same updates). ``--quick`` shrinks it for CI.

Printed lines (``name: value``): the seconds of each side, the ratios baseline / stacked, and
the largest difference between the stacked and one-at-a-time final dev UAS, which should be
rounding only (the naive loop draws its dropout differently).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch

# Random trees over random vectors, as the structural probe's benchmark draws them.
from bench_structural_stack import synthetic
from probekit.methods.pareto.architectures import sample_mlp_configs
from probekit.methods.pareto.controls import shuffle_heads
from probekit.probes.biaffine import BiaffineConfig, parse_loss
from probekit.probes.biaffine_stack import ParseRun, ParseSet, train_parsers
from probekit.probes.mlp_stack import MLPConfig
from probekit.probes.training import TrainOptions

# --- (a) the naive trainer, as the book had it before the stacked one ---------------------------


def _pad(inputs, heads):
    lengths = [len(s) for s in inputs]
    B, n = len(inputs), max(lengths)
    x = torch.zeros(B, n, inputs[0].shape[1])
    mask = torch.zeros(B, n, dtype=torch.bool)
    gold = torch.full((B, n), -1, dtype=torch.int64)
    for b, s in enumerate(inputs):
        x[b, : lengths[b]] = torch.as_tensor(s)
        mask[b, : lengths[b]] = True
        gold[b, : lengths[b]] = torch.as_tensor(heads[b])
    return x, gold, mask


def _drop(x, p, g):
    if p <= 0:
        return x
    return x * (torch.rand(x.shape[-3:], generator=g) >= p) / (1 - p)


class _NaiveMLP(torch.nn.Module):
    def __init__(self, d: int, c: MLPConfig, seed: int):
        super().__init__()
        sizes = [d, *c.layer_sizes()]
        torch.manual_seed(seed)
        self.layers = torch.nn.ModuleList(
            torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.p, self.out = c.dropout, sizes[-1]

    def forward(self, x, g):
        for layer in self.layers:
            x = _drop(torch.relu(layer(x)), self.p, g)
        return x


class _NaiveParser(torch.nn.Module):
    def __init__(self, d: int, c: MLPConfig, seed: int):
        super().__init__()
        self.head, self.tail = _NaiveMLP(d, c, seed), _NaiveMLP(d, c, seed + 100)
        h = self.head.out
        self.W = torch.nn.Parameter(torch.randn(h, h + 1) * math.sqrt(2 / (2 * h + 1)))
        self.root = torch.nn.Parameter(torch.randn(1, d))
        self.p = c.dropout

    def forward(self, x, mask, g):
        B, n, d = x.shape
        if self.training:
            x = _drop(x, self.p, g)
        heads = self.head(torch.cat([self.root.expand(B, 1, d), x], dim=1), g)
        tails = torch.cat([self.tail(x, g), torch.ones(B, n, 1)], dim=-1)
        scores = torch.matmul(tails @ self.W.T, heads.transpose(1, 2))[None]
        columns = torch.cat([torch.ones_like(mask[:, :1]), mask], dim=1)
        return scores.masked_fill(~columns[None, :, None, :], float("-inf"))


def naive(configs, sets, opts: TrainOptions) -> None:
    """Each (architecture, condition) trained alone, padding every batch anew."""
    for c in configs:
        for s in sets:
            model = _NaiveParser(s.inputs[0].shape[1], c, 0)
            optimiser = torch.optim.Adam(model.parameters(), lr=opts.lr)
            order, drop = torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)
            step = 0
            while step < opts.max_steps:
                perm = torch.randperm(len(s.inputs), generator=order).numpy()
                for k in range(0, len(perm), opts.batch_size):
                    idx = perm[k : k + opts.batch_size]
                    x, gold, mask = _pad([s.inputs[i] for i in idx], [s.heads[i] for i in idx])
                    loss = parse_loss(model(x, mask, drop), gold).sum()
                    optimiser.zero_grad()
                    loss.backward()
                    optimiser.step()
                    step += 1
                    if step % opts.eval_every == 0:
                        model.eval()
                        with torch.no_grad():
                            for j in range(0, len(s.stop_inputs), opts.eval_batch_size):
                                sl = slice(j, j + opts.eval_batch_size)
                                x, gold, mask = _pad(s.stop_inputs[sl], s.stop_heads[sl])
                                model(x, mask, None).argmax(-1)
                        model.train()
                    if step == opts.max_steps:
                        break


def main() -> None:
    """Time the three sides and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, for CI")
    args = parser.parse_args()
    n_train, n_dev, steps, K = (200, 50, 10, 2) if args.quick else (2000, 500, 200, 5)
    d = 384
    torch.set_num_threads(1)
    x, h = synthetic(n_train, d, 0)
    dev = synthetic(n_dev, d, 1)
    rng = np.random.default_rng(0)
    shuffled_x = [s[rng.permutation(len(s))] for s in x]  # word order shuffled
    y1, y2 = shuffle_heads(h, rng), shuffle_heads(h, rng)
    sets = [
        ParseSet("normal", x, h, *dev),
        ParseSet("label_shuffled", x, y1, x, y1),
        ParseSet("fully_shuffled", shuffled_x, y2, shuffled_x, y2),
    ]
    architectures = sample_mlp_configs(K, seed=0, max_hidden=128)
    opts = TrainOptions(
        batch_size=64,
        lr=1e-3,
        eval_every=min(50, steps),
        patience=steps + 1,
        max_steps=steps,
        eval_batch_size=256,
    )
    runs = [ParseRun(BiaffineConfig(mlp=c), k) for c in architectures for k in range(len(sets))]
    print(
        f"workload: {K} architectures x {len(sets)} conditions, {steps} updates of 64 "
        f"sentences ({n_train} training, {n_dev} dev), d {d}"
    )
    # Warm-up: torch's first calls pay one-off costs that would fall on whichever runs first.
    warm = TrainOptions(batch_size=8, lr=1e-3, eval_every=2, patience=3, max_steps=2)
    train_parsers(runs[:2], sets, seed=0, options=warm)
    t = time.perf_counter()
    ours = train_parsers(runs, sets, seed=0, options=opts)
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    alone = [train_parsers([r], sets, seed=0, options=opts) for r in runs]
    t_alone = time.perf_counter() - t
    t = time.perf_counter()
    naive(architectures, sets, opts)
    t_naive = time.perf_counter() - t
    gap = max(abs(a.dev_uas[0] - u) for a, u in zip(alone, ours.dev_uas, strict=True))
    print(f"stacked_seconds: {t_ours:.2f}")
    print(f"one_at_a_time_seconds: {t_alone:.2f}")
    print(f"naive_seconds: {t_naive:.2f}")
    print(f"ratio_one_at_a_time_over_stacked: {t_alone / t_ours:.2f}")
    print(f"ratio_naive_over_stacked: {t_naive / t_ours:.2f}")
    print(f"max_dev_uas_difference_stacked_vs_alone: {gap:.2e}")


if __name__ == "__main__":
    main()
