"""Assignment A1 · Tree metrics (Hall Maudslay et al. 2020).

Checks of the students' Prim's algorithm (Prop. 1, eq. 6), UUAS and structured-perceptron loss
against :mod:`probekit.trees` and :mod:`probekit.probes.perceptron`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from probekit.probes.perceptron import gold_edge_mask, perceptron_loss
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    check_options,
    fmt_value,
    graded_tasks,
    judge_float,
    matching_hint,
    run_check,
)
from probekit.trees.distances import tree_distances
from probekit.trees.metrics import uuas, uuas_counts
from probekit.trees.spanning import prim_maxst, prim_mst
from probekit.trees.structure import edge_set, parents_from_heads

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"prim": 4, "uuas": 3, "perceptron_loss": 3}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "prim": (
        "probekit.trees.spanning.prim_mst",
        "probekit.trees.spanning.prim_maxst",
        "probekit.trees.spanning.prim_mst_batch",
        "probekit.trees.spanning.prim_mst_all",
    ),
    "uuas": (
        "probekit.trees.metrics.uuas",
        "probekit.trees.metrics.uuas_counts",
        "probekit.trees.metrics._edge_codes",
    ),
    "perceptron_loss": (
        "probekit.probes.perceptron.perceptron_loss",
        "probekit.probes.perceptron.mst_edge_mask",
        "probekit.teaching.a1_tree_metrics._perceptron_reference",
    ),
}


def _random_heads(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly shaped random tree, as 1-based heads (n,), 0 for the root.

    Each vertex of a random order attaches to an earlier one.
    """
    order = rng.permutation(n)
    heads = np.zeros(n, dtype=np.int64)
    for k in range(1, n):
        heads[order[k]] = order[rng.integers(0, k)] + 1
    return heads


def _euclidean(points: np.ndarray) -> np.ndarray:
    diff = points[:, None, :] - points[None, :, :]
    return np.sqrt((diff**2).sum(axis=-1))


def _tie_matrix(n: int, rng: np.random.Generator, high: int = 3) -> np.ndarray:
    m = rng.integers(1, high + 1, size=(n, n)).astype(np.float64)
    m = np.triu(m, 1)
    return m + m.T


def _tree_problem(parents: np.ndarray, n: int) -> str | None:
    """Why ``parents`` is not a spanning tree of n vertices (None when it is one)."""
    if parents.shape != (n,):
        return f"expected a parents array of shape ({n},), got shape {parents.shape}"
    if n and not np.issubdtype(parents.dtype, np.integer):
        return f"expected integer parents, got dtype {parents.dtype}"
    roots = np.flatnonzero(parents == -1)
    if len(roots) != 1:
        return f"a spanning tree has exactly one root (parent -1), found {len(roots)}"
    if np.any((parents < -1) | (parents >= n)) or np.any(parents == np.arange(n)):
        return "parents must be vertex indices 0..n-1 (not the vertex itself) or -1 for the root"
    for v in range(n):
        seen, u = 0, v
        while parents[u] != -1:
            u, seen = parents[u], seen + 1
            if seen > n:
                return f"the parent pointers from vertex {v} run in a cycle"
    return None


def _tree_weight(dist: np.ndarray, parents: np.ndarray) -> float:
    child = np.flatnonzero(parents >= 0)
    return float(dist[child, parents[child]].sum())


def _edges_text(parents: np.ndarray) -> str:

    child = np.flatnonzero(parents >= 0)
    edges = np.stack([child, parents[child]], axis=1) if child.size else np.zeros((0, 2), int)
    return str(sorted(edge_set(edges)))


def check_prim(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a Prim's-algorithm minimum spanning tree.

    The reference is :func:`probekit.trees.spanning.prim_mst`.

    Hall Maudslay et al. 2020, Prop. 1 and eq. 6 (the predicted tree is the MST of the predicted
    distances). ``student_fn(dist)`` takes a symmetric float (n, n) distance matrix and returns
    int parents (n,): -1 for the root, else the 0-based parent. The root may be any vertex;
    only the undirected edges are compared. Half of the cases have integer distances with ties,
    where the book's convention decides: the next vertex is the lowest-index vertex nearest the
    tree and its parent the lowest-index tree vertex at that distance.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(1, 9))
        if k % 2:
            dist = _tie_matrix(n, rng)
        else:
            dist = np.round(_euclidean(rng.random((n, 2)) * 10), 3)
        cases.append(Case(n, (dist,), "dist = " + fmt_value(dist).replace("\n", "\n" + " " * 7)))

    def judge(case: Case, expected: np.ndarray, got: Any) -> Mismatch | None:
        (dist,) = case.args
        n = dist.shape[0]
        want = f"edges {_edges_text(expected)} (weight {_tree_weight(dist, expected):g})"
        parents = np.asarray(got)
        problem = _tree_problem(parents, n)
        if problem is not None:
            return Mismatch(
                want,
                fmt_value(parents),
                f"not a spanning tree: {problem}. Add every vertex exactly once, with the tree "
                "vertex it is closest to as its parent.",
            )
        parents = parents.astype(np.int64)
        weight, best = _tree_weight(dist, parents), _tree_weight(dist, expected)
        shown = f"edges {_edges_text(parents)} (weight {weight:g})"
        if weight > best + 1e-9 * max(1.0, abs(best)):
            return Mismatch(
                want,
                shown,
                "your tree is heavier than the minimum. At each step add the vertex nearest to "
                "*any* vertex of the tree (keep one best distance per outside vertex and lower it "
                "after every addition), not the vertex nearest to the last one added.",
            )
        if _edges_text(parents) != _edges_text(expected):
            return Mismatch(
                want,
                shown,
                "a minimum spanning tree, but not the one the book's tie rule picks. Among equally "
                "near vertices add the lowest index first, and give a vertex that is equally near "
                "to several tree vertices the lowest-index one as parent (Kruskal's algorithm or "
                "a strict '<' update keeps another tree).",
            )
        return None

    run_check("prim", student_fn, cases, prim_mst, judge)


def _uuas_variants(pred: list[np.ndarray], gold: list[np.ndarray]) -> dict[str, tuple]:
    """Values that common wrong UUAS implementations return, with the matching hint."""
    correct, total = uuas_counts(pred, gold)
    words = np.array([len(h) for h in gold])
    has = total > 0
    # Directed matches: Prim's parents (rooted at word 0) against the gold parents.
    directed = sum(
        int(np.sum((prim_mst(p) == parents_from_heads(h)) & (parents_from_heads(h) >= 0)))
        for p, h in zip(pred, gold, strict=True)
    )
    return {
        "macro": (
            float(np.mean(correct[has] / total[has])),
            "you averaged per-sentence scores; UUAS is a micro average: all correct edges of "
            "the corpus over all its gold edges.",
        ),
        "per_word": (
            float(correct.sum() / words.sum()),
            "divide by the number of gold edges, n - 1 per sentence, not by the number of words.",
        ),
        "directed": (
            float(directed / total.sum()),
            "compare *undirected* edges: (i, j) and (j, i) are the same edge.",
        ),
    }


def check_uuas(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check an unlabelled undirected attachment score against :func:`probekit.trees.metrics.uuas`.

    Hall Maudslay et al. 2020, §4.2: the share of gold edges (undirected) found in the MST of the
    predicted distances, micro-averaged over the corpus. ``student_fn(pred_dists, gold_heads)``
    takes S symmetric float (n_s, n_s) matrices and S 1-based heads arrays (n_s,) (0 = root) and
    returns a float. Every word counts (no punctuation mask). Predictions are noisy gold
    distances, with no ties.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n_sent = int(rng.integers(1, 4))
        lengths = rng.integers(1, 8, size=n_sent)
        lengths[rng.integers(0, n_sent)] = max(2, lengths.max())
        heads = [_random_heads(int(n), rng) for n in lengths]
        preds = []
        for h in heads:
            noise = rng.normal(0, rng.uniform(0.3, 2.0), size=(len(h), len(h)))
            p = tree_distances(h) + np.triu(noise, 1) + np.triu(noise, 1).T
            np.fill_diagonal(p, 0.0)
            preds.append(np.round(p, 3))
        lines = []
        for k, (p, h) in enumerate(zip(preds, heads, strict=True)):
            prefix = f"pred_dists[{k}] = "
            lines.append(f"gold_heads[{k}] = {fmt_value(h)}")
            lines.append(prefix + fmt_value(p).replace("\n", "\n" + " " * len(prefix)))
        shown = "\n".join(lines)
        cases.append(Case(int(lengths.sum()), (preds, heads), shown))

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        def hint(value: float) -> str:
            if value > 1 or value < 0:
                return "UUAS is a share of gold edges and lies in [0, 1]."
            default = (
                "predict the MST of each predicted matrix with your prim, count its edges that "
                "are gold edges, and divide the corpus total by the number of gold edges."
            )
            return matching_hint(value, _uuas_variants(*case.args), default)

        return judge_float(expected, got, 1e-9, "return one float for the corpus", hint)

    run_check("uuas", student_fn, cases, uuas, judge)


def _perceptron_reference(dist: np.ndarray, heads: np.ndarray) -> float:

    pred_sq = torch.as_tensor(np.asarray(dist, dtype=np.float64) ** 2)[None]
    gold = torch.as_tensor(gold_edge_mask(heads))[None]
    return float(perceptron_loss(pred_sq, gold, torch.tensor([len(heads)]))[0])


def _perceptron_variants(dist: np.ndarray, heads: np.ndarray) -> dict[str, tuple]:

    gp = parents_from_heads(heads)
    gold = _tree_weight(dist, gp)
    mst = _tree_weight(dist, prim_mst(dist))
    sq = dist**2
    return {
        "squared": (
            _tree_weight(sq, gp) - _tree_weight(sq, prim_mst(sq)),
            "eq. 4 sums the distances d_B themselves, not their squares (the squares belong to "
            "the structural probe's loss, eq. 2).",
        ),
        "gold_only": (gold, "subtract the weight of the minimum spanning tree (the min over t')."),
        "max_tree": (
            gold - _tree_weight(dist, prim_maxst(dist)),
            "the min over trees t' is the *minimum* spanning tree of the predicted distances.",
        ),
        "both_directions": (
            2 * (gold - mst),
            "count every undirected edge once, not as both (i, j) and (j, i).",
        ),
        "reversed": (mst - gold, "the loss is gold-tree weight minus MST weight, not the reverse."),
    }


def check_perceptron_loss(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the structured-perceptron loss against :mod:`probekit.probes.perceptron`.

    Hall Maudslay et al. 2020, eq. 4: the total predicted distance over the gold tree's edges
    minus that of the minimum spanning tree of the predicted distances. ``student_fn(dist,
    heads)`` takes a symmetric float (n, n) matrix of predicted distances d_B (not squared) and
    1-based heads (n,), and returns a float. Some cases predict the gold distances exactly,
    where the loss is 0.
    """
    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(2, 9))
        heads = _random_heads(n, rng)
        if k % 5 == 4:
            dist = tree_distances(heads).astype(np.float64)
        else:
            dist = np.round(_euclidean(rng.normal(size=(n, 3))), 3)
        cases.append(
            Case(n, (dist, heads), f"dist = {fmt_value(dist)}, heads = {fmt_value(heads)}")
        )

    def judge(case: Case, expected: float, got: Any) -> Mismatch | None:
        def hint(value: float) -> str:
            default = (
                "sum d(i, j) over the gold edges, then subtract the sum over the edges of the MST "
                "of the predicted distances (use your prim)."
            )
            if value < -1e-9:
                default = "the loss is never negative: no spanning tree is lighter than the MST."
            return matching_hint(value, _perceptron_variants(*case.args), default)

        return judge_float(expected, got, 1e-6, "return one float per sentence", hint)

    run_check("perceptron_loss", student_fn, cases, _perceptron_reference, judge)


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(POINTS, check_prim, check_uuas, check_perceptron_loss)
