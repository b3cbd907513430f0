"""Benchmark: batched Prim's MST + tree distances (probekit.trees) on many sentences.

The workload is DSpr_P+FW decoding (Hall Maudslay et al. 2020, §4.2): for every sentence, the
minimum spanning tree of a dense predicted distance matrix, then all-pairs distances in that tree.

Baselines, both run sentence by sentence as a user would without this library:
  (a) scipy: ``scipy.sparse.csgraph.minimum_spanning_tree`` then ``shortest_path`` (unweighted,
      undirected) on the tree;
  (b) networkx: ``minimum_spanning_tree`` of the complete graph then
      ``all_pairs_shortest_path_length``.
Ours: ``probekit.trees.metrics.prim_fw_distances`` (Prim then tree distances, in length-sorted
padded chunks).

Sentence lengths: by default 2000 synthetic lengths, lognormal with mean ~16 clipped to 1..60
(like UD English EWT dev); ``--treebank DIR`` uses the dev split of a treebank through
``probekit.io.treebanks``; ``--quick`` uses 200 sentences. Distances are random symmetric matrices.
Each timing is the minimum over ``--repeat`` runs (default 3). Prints plain ``name: value``
lines; ratios are baseline time / our time.

    python benchmarks/bench_trees.py [--quick] [--treebank DIR] [--n N] [--seed S] [--repeat R]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np
import scipy.sparse.csgraph as csgraph

from probekit.trees import distances, metrics, spanning, structure


def synthetic_lengths(n: int, seed: int) -> np.ndarray:
    """Lognormal lengths with mean ~16 (sigma 0.6), clipped to 1..60."""
    rng = np.random.default_rng(seed)
    sigma = 0.6
    mu = np.log(16.0) - sigma**2 / 2
    return np.clip(np.rint(rng.lognormal(mu, sigma, n)), 1, 60).astype(int)


def treebank_lengths(directory: str) -> np.ndarray:
    """The sentence lengths of a treebank's dev split."""
    from probekit.io.treebanks import load_treebank

    return np.array([len(s) for s in load_treebank(directory, splits=("dev",))["dev"]])


def random_distances(lengths: np.ndarray, seed: int) -> list[np.ndarray]:
    """Symmetric matrices with off-diagonal entries in (0.01, 1.01) (csgraph drops zeros)."""
    rng = np.random.default_rng(seed)
    out = []
    for n in lengths:
        m = np.triu(rng.random((n, n)) + 0.01, 1)
        out.append(m + m.T)
    return out


def ours(dists: list[np.ndarray]) -> list[np.ndarray]:
    """Tree distances of the MSTs with :func:`probekit.trees.metrics.prim_fw_distances`."""
    return metrics.prim_fw_distances(dists)


def scipy_loop(dists: list[np.ndarray]) -> list[np.ndarray]:
    """Baseline (a): scipy's MST then unweighted shortest paths, sentence by sentence."""
    out = []
    for d in dists:
        mst = csgraph.minimum_spanning_tree(d)
        out.append(csgraph.shortest_path(mst, directed=False, unweighted=True).astype(np.int64))
    return out


def networkx_loop(dists: list[np.ndarray]) -> list[np.ndarray]:
    """Baseline (b): networkx's MST then all-pairs shortest path lengths, sentence by sentence."""
    out = []
    for d in dists:
        tree = nx.minimum_spanning_tree(nx.from_numpy_array(d))
        n = d.shape[0]
        m = np.zeros((n, n), dtype=np.int64)
        for i, row in nx.all_pairs_shortest_path_length(tree):
            for j, v in row.items():
                m[i, j] = v
        out.append(m)
    return out


def timed(fn, *args, repeat: int = 1):
    """Result and the minimum wall time over ``repeat`` runs (the machine is shared)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return result, best


def main() -> None:
    """Time ours and both baselines, check that they agree, and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 sentences, for CI")
    parser.add_argument("--treebank", help="treebank name or directory: use its dev lengths")
    parser.add_argument("--n", type=int, default=2000, help="number of synthetic sentences")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="timings are the min over repeats")
    args = parser.parse_args()

    n = 200 if args.quick else args.n
    lengths = treebank_lengths(args.treebank) if args.treebank else synthetic_lengths(n, args.seed)
    if args.quick:
        lengths = lengths[:n]
    dists = random_distances(lengths, args.seed + 1)

    got, t_ours = timed(ours, dists, repeat=args.repeat)
    ref_scipy, t_scipy = timed(scipy_loop, dists, repeat=args.repeat)
    ref_nx, t_nx = timed(networkx_loop, dists, repeat=args.repeat)
    # Random continuous distances have a unique MST, so all three must agree exactly.
    agree = all(np.array_equal(a, b) for a, b in zip(got, ref_scipy, strict=True)) and all(
        np.array_equal(a, b) for a, b in zip(got, ref_nx, strict=True)
    )

    # Tree distances alone, from heads (the gold-distance workload of every probe chapter).
    gold_heads = [structure.heads_from_parents(p) for p in spanning.prim_mst_all(dists)]
    _, t_td = timed(distances.tree_distances_all, gold_heads, repeat=args.repeat)
    _, t_td_scipy = timed(scipy_tree_distances, gold_heads, repeat=args.repeat)

    print(f"sentences: {len(lengths)}")
    print(f"mean_length: {lengths.mean():.1f}")
    print(f"max_length: {lengths.max()}")
    print(f"results_agree: {agree}")
    print(f"ours_seconds: {t_ours:.4f}")
    print(f"scipy_seconds: {t_scipy:.4f}")
    print(f"networkx_seconds: {t_nx:.4f}")
    print(f"ratio_vs_scipy: {t_scipy / t_ours:.1f}")
    print(f"ratio_vs_networkx: {t_nx / t_ours:.1f}")
    print(f"tree_distances_only_ratio_vs_scipy_shortest_path: {t_td_scipy / t_td:.1f}")


def scipy_tree_distances(heads: list[np.ndarray]) -> list[np.ndarray]:
    """Tree distances from 1-based heads with scipy's shortest paths, sentence by sentence."""
    out = []
    for h in heads:
        adj = np.zeros((h.size, h.size))
        child = np.flatnonzero(h > 0)
        adj[child, h[child] - 1] = 1
        out.append(csgraph.shortest_path(adj, directed=False, unweighted=True))
    return out


if __name__ == "__main__":
    main()
