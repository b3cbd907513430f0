"""Course assignments: the checks students run, and the student-copy writer.

The assignment notebooks ``notebooks/A<k>_<slug>.py`` ask students to implement one piece of a
paper's method each. After every task the student calls a ``check_*`` function of this module
with their function. A check draws seeded random cases, computes the answer with the library's
reference implementation (``probekit.trees``, ``probekit.jabberwocky``, ``probekit.pareto``,
``probekit.extrapolation``, ``probekit.power``) and compares. Cases are tried from the smallest
up, so the first mismatch is the smallest failing input; it raises ``AssertionError`` with that
input, the expected and the returned value, and a hint aimed at the common mistake. On success a
check prints one line, ``✓ <task> passed on N cases``.

A student function that still raises ``NotImplementedError`` (the student copy's placeholder) is
let through unchanged, so an unsolved task reads as unsolved, not as a wrong answer.

Student copies (:func:`student_source`, :func:`write_student_copies`, ``probekit assignments
--student OUT``) follow the clean-copy idea of fastbook's ``tools/clean.py``: the solution code
between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's markers) becomes
``raise NotImplementedError("Task N: your code here")`` at the marker's indentation, the
``hide-input`` tag that hides solutions in the book is dropped from those cells, and markdown
cells tagged ``solution`` (model answers of the run-and-interpret tasks) become an empty answer
cell. Everything else, hints included, is copied unchanged.
"""

from __future__ import annotations

import ast
import copy
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from probekit.errors import ParameterError, ProbekitError

__all__ = [
    "ANSWER_PLACEHOLDER",
    "SOLUTION_BEGIN",
    "SOLUTION_END",
    "assignment_notebooks",
    "check_add_degree",
    "check_add_ing",
    "check_add_s",
    "check_extrapolation_split",
    "check_frequency_score",
    "check_hypervolume",
    "check_mcnemar",
    "check_pareto_frontier",
    "check_percentile",
    "check_perceptron_loss",
    "check_power",
    "check_prim",
    "check_uuas",
    "exact_power",
    "frequency_score",
    "is_vowel_letter",
    "lookup_family",
    "rule_coverage",
    "student_source",
    "syllables",
    "write_student_copies",
]

SOLUTION_BEGIN = "### BEGIN SOLUTION"
SOLUTION_END = "### END SOLUTION"
ANSWER_PLACEHOLDER = "*Your answer here.*"
_ASSIGNMENT_NAME = re.compile(r"^A\d+_[A-Za-z0-9_]+\.py$")
_CELL = re.compile(r"^# %%")
_TAGS = re.compile(r"tags=(\[[^\]]*\])")
_TASK_HEADING = re.compile(r"^#\s*#{2,3}\s*Task\s+(\d+)")


# ============================================================================================
# Running a check


@dataclass(frozen=True)
class _Case:
    """One generated input: ``args`` go to the student's function; ``size`` orders the cases so
    that the first failure is the smallest; ``shown`` is the input as the message prints it."""

    size: int
    args: tuple
    shown: str


@dataclass(frozen=True)
class _Mismatch:
    expected: str
    got: str
    hint: str


def _check_options(seed: Any, n_cases: Any) -> tuple[int, int]:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError("seed", f"must be a non-negative int, got {seed!r}")
    if isinstance(n_cases, bool) or not isinstance(n_cases, int | np.integer) or n_cases < 1:
        raise ParameterError("n_cases", f"must be a positive int, got {n_cases!r}")
    return int(seed), int(n_cases)


def _fmt(value: Any) -> str:
    """A value as the failure message prints it: compact, 3 significant digits for floats."""
    if isinstance(value, np.ndarray) or (
        isinstance(value, list | tuple) and value and isinstance(value[0], np.ndarray)
    ):
        if isinstance(value, np.ndarray):
            return np.array2string(value, precision=3, separator=", ", max_line_width=96)
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, float | np.floating):
        return f"{float(value):.6g}"
    return repr(value)


def _call(task: str, student_fn: Callable, case: _Case) -> Any:
    # The student's function gets its own copies, so in-place edits cannot leak into the
    # reference computation or the next case.
    args = copy.deepcopy(case.args)
    try:
        return student_fn(*args)
    except NotImplementedError:
        raise
    except Exception as exc:
        raise AssertionError(
            f"{task}: your function raised {type(exc).__name__}: {exc}\n"
            f"  on the input:  {case.shown}\n"
            "  hint: run it on this input yourself to see where it fails"
        ) from exc


def _run_check(
    task: str,
    student_fn: Callable,
    cases: Sequence[_Case],
    reference: Callable[..., Any],
    judge: Callable[[_Case, Any, Any], _Mismatch | None],
) -> None:
    if not callable(student_fn):
        raise ParameterError("student_fn", f"must be a function, got {type(student_fn).__name__}")
    order = sorted(range(len(cases)), key=lambda i: (cases[i].size, i))
    for rank, i in enumerate(order):
        case = cases[i]
        expected = reference(*copy.deepcopy(case.args))
        got = _call(task, student_fn, case)
        problem = judge(case, expected, got)
        if problem is not None:
            raise AssertionError(
                f"{task}: wrong result on the smallest failing case "
                f"(size {case.size}; {rank} smaller cases passed)\n"
                f"  input:     {_indent(case.shown)}\n"
                f"  expected:  {_indent(problem.expected)}\n"
                f"  got:       {_indent(problem.got)}\n"
                f"  hint:      {problem.hint}"
            )
    print(f"✓ {task} passed on {len(cases)} cases")


def _indent(text: str) -> str:
    """Continuation lines of a multi-line value aligned under its first line."""
    return text.replace("\n", "\n" + " " * 13)


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _as_float(got: Any) -> float | None:
    """``got`` as a float, or None when it is not a number (a list, None, ...)."""
    try:
        return float(got)
    except (TypeError, ValueError):
        return None


def _join_hints(hints: Sequence[str], default: str) -> str:
    """One hint, or several when more than one known mistake explains the result."""
    unique = list(dict.fromkeys(hints))
    return " Or: ".join(unique) if unique else default


def _matching_hint(got: float, variants: Mapping[str, tuple[float, str]], default: str) -> str:
    """The hints of the known wrong variants whose value equals ``got``, else ``default``."""
    return _join_hints(
        [
            hint
            for value, hint in variants.values()
            if value is not None and math.isfinite(value) and _close(got, value, 1e-7)
        ],
        default,
    )


# ============================================================================================
# A1 · Tree metrics (Hall Maudslay et al. 2020)


def _random_heads(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly shaped random tree: each vertex of a random order attaches to an earlier one;
    1-based heads (n,), 0 for the root."""
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
    from probekit.trees import edge_set

    child = np.flatnonzero(parents >= 0)
    edges = np.stack([child, parents[child]], axis=1) if child.size else np.zeros((0, 2), int)
    return str(sorted(edge_set(edges)))


def check_prim(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a Prim's-algorithm minimum spanning tree against :func:`probekit.trees.prim_mst`.

    Hall Maudslay et al. 2020, Prop. 1 and eq. 6 (the predicted tree is the MST of the predicted
    distances). ``student_fn(dist)`` takes a symmetric float (n, n) distance matrix and returns
    int parents (n,): -1 for the root, else the 0-based parent. The root may be any vertex;
    only the undirected edges are compared. Half of the cases have integer distances with ties,
    where the book's convention decides: the next vertex is the lowest-index vertex nearest the
    tree and its parent the lowest-index tree vertex at that distance.
    """
    from probekit.trees import prim_mst

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(1, 9))
        if k % 2:
            dist = _tie_matrix(n, rng)
        else:
            dist = np.round(_euclidean(rng.random((n, 2)) * 10), 3)
        cases.append(_Case(n, (dist,), "dist = " + _fmt(dist).replace("\n", "\n" + " " * 7)))

    def judge(case: _Case, expected: np.ndarray, got: Any) -> _Mismatch | None:
        (dist,) = case.args
        n = dist.shape[0]
        want = f"edges {_edges_text(expected)} (weight {_tree_weight(dist, expected):g})"
        parents = np.asarray(got)
        problem = _tree_problem(parents, n)
        if problem is not None:
            return _Mismatch(
                want,
                _fmt(parents),
                f"not a spanning tree: {problem}. Add every vertex exactly once, with the tree "
                "vertex it is closest to as its parent.",
            )
        parents = parents.astype(np.int64)
        weight, best = _tree_weight(dist, parents), _tree_weight(dist, expected)
        shown = f"edges {_edges_text(parents)} (weight {weight:g})"
        if weight > best + 1e-9 * max(1.0, abs(best)):
            return _Mismatch(
                want,
                shown,
                "your tree is heavier than the minimum. At each step add the vertex nearest to "
                "*any* vertex of the tree (keep one best distance per outside vertex and lower it "
                "after every addition), not the vertex nearest to the last one added.",
            )
        if _edges_text(parents) != _edges_text(expected):
            return _Mismatch(
                want,
                shown,
                "a minimum spanning tree, but not the one the book's tie rule picks. Among equally "
                "near vertices add the lowest index first, and give a vertex that is equally near "
                "to several tree vertices the lowest-index one as parent (Kruskal's algorithm or "
                "a strict '<' update keeps another tree).",
            )
        return None

    _run_check("prim", student_fn, cases, prim_mst, judge)


def _uuas_variants(pred: list[np.ndarray], gold: list[np.ndarray]) -> dict[str, tuple]:
    """Values that common wrong UUAS implementations return, with the matching hint."""
    from probekit.trees import parents_from_heads, prim_mst, uuas_counts

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
    """Check an unlabelled undirected attachment score against :func:`probekit.trees.uuas`.

    Hall Maudslay et al. 2020, §4.2: the share of gold edges (undirected) found in the MST of the
    predicted distances, micro-averaged over the corpus. ``student_fn(pred_dists, gold_heads)``
    takes S symmetric float (n_s, n_s) matrices and S 1-based heads arrays (n_s,) (0 = root) and
    returns a float. Every word counts (no punctuation mask). Predictions are noisy gold
    distances, with no ties.
    """
    from probekit.trees import tree_distances, uuas

    seed, n_cases = _check_options(seed, n_cases)
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
            lines.append(f"gold_heads[{k}] = {_fmt(h)}")
            lines.append(prefix + _fmt(p).replace("\n", "\n" + " " * len(prefix)))
        shown = "\n".join(lines)
        cases.append(_Case(int(lengths.sum()), (preds, heads), shown))

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        value = _as_float(got)
        if value is not None and _close(value, expected):
            return None
        default = (
            "predict the MST of each predicted matrix with your prim, count its edges that are "
            "gold edges, and divide the corpus total by the number of gold edges."
        )
        if value is None:
            return _Mismatch(_fmt(expected), repr(got), "return one float for the corpus")
        if value > 1 or value < 0:
            hint = "UUAS is a share of gold edges and lies in [0, 1]."
        else:
            hint = _matching_hint(value, _uuas_variants(*case.args), default)
        return _Mismatch(_fmt(expected), _fmt(value), hint)

    _run_check("uuas", student_fn, cases, uuas, judge)


def _perceptron_reference(dist: np.ndarray, heads: np.ndarray) -> float:
    import torch

    from probekit.probes.perceptron import gold_edge_mask, perceptron_loss

    pred_sq = torch.as_tensor(np.asarray(dist, dtype=np.float64) ** 2)[None]
    gold = torch.as_tensor(gold_edge_mask(heads))[None]
    return float(perceptron_loss(pred_sq, gold, torch.tensor([len(heads)]))[0])


def _perceptron_variants(dist: np.ndarray, heads: np.ndarray) -> dict[str, tuple]:
    from probekit.trees import parents_from_heads, prim_maxst, prim_mst

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
    from probekit.trees import tree_distances

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(2, 9))
        heads = _random_heads(n, rng)
        if k % 5 == 4:
            dist = tree_distances(heads).astype(np.float64)
        else:
            dist = np.round(_euclidean(rng.normal(size=(n, 3))), 3)
        cases.append(_Case(n, (dist, heads), f"dist = {_fmt(dist)}, heads = {_fmt(heads)}"))

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        value = _as_float(got)
        if value is not None and _close(value, expected, 1e-6):
            return None
        if value is None:
            return _Mismatch(_fmt(expected), repr(got), "return one float per sentence")
        default = (
            "sum d(i, j) over the gold edges, then subtract the sum over the edges of the MST of "
            "the predicted distances (use your prim)."
        )
        if value < -1e-9:
            default = "the loss is never negative: no spanning tree is lighter than the MST."
        hint = _matching_hint(value, _perceptron_variants(*case.args), default)
        return _Mismatch(_fmt(expected), _fmt(value), hint)

    _run_check("perceptron_loss", student_fn, cases, _perceptron_reference, judge)


# ============================================================================================
# A2 · Inflection rules for pseudowords (Hall Maudslay & Cotterell 2021)


def is_vowel_letter(word: str, j: int) -> bool:
    """Whether ``word[j]`` spells a vowel in the rules of :mod:`probekit.jabberwocky`.

    Hall Maudslay & Cotterell 2021, §3 (our spelling rules): a, e, i, o, u are vowels; y is a
    vowel except at the start of a word (*yes*); the u of *qu* is a consonant.
    """
    from probekit.jabberwocky import _is_vowel_letter

    return _is_vowel_letter(word, j)


def syllables(word: str) -> int:
    """Number of vowel-letter groups of a spelling, less a silent final e (*bake* has one).

    Hall Maudslay & Cotterell 2021, §3 (our spelling rules, as :mod:`probekit.jabberwocky`).
    """
    from probekit.jabberwocky import _vowel_groups

    return _vowel_groups(word)


_ONSETS = (
    "b bl br ch cl d dr f fl fr g gl gr h j k l m n p pl pr r s sh sk sl sn sp st str t th tr v w z"
).split()
_SHORT_VOWELS = "aeiou"
_LONG_VOWELS = ("ai", "ea", "ee", "oa", "oo", "ou")
_DOUBLING_CODAS = "bdgklmnprt"
# Each category is one spelling situation the rules treat differently.
_STEM_CATEGORIES: dict[str, Callable[[np.random.Generator], str]] = {
    "cvc": lambda r: _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, _DOUBLING_CODAS),
    "w_x_coda": lambda r: _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, "wx"),
    "long_vowel": lambda r: _pick(r, _ONSETS) + _pick(r, _LONG_VOWELS) + _pick(r, "dkmnpt"),
    "cluster": lambda r: (
        _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, ("st", "nd", "mp", "lk", "ft"))
    ),
    "two_syllables": lambda r: (
        _pick(r, _ONSETS)
        + _pick(r, _SHORT_VOWELS)
        + _pick(r, "bdlmnprtv")
        + _pick(r, _SHORT_VOWELS)
        + _pick(r, _DOUBLING_CODAS)
    ),
    "silent_e": lambda r: (
        _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, "bdklmnprtv") + "e"
    ),
    "ee_oe_ye": lambda r: _pick(r, _ONSETS) + _pick(r, ("ee", "oe", "ye")),
    "ie": lambda r: _pick(r, _ONSETS) + "ie",
    "consonant_y": lambda r: (
        _pick(r, _ONSETS) + "y"
        if r.random() < 0.5
        else _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, ("st", "nd", "mp", "t")) + "y"
    ),
    "vowel_y": lambda r: _pick(r, _ONSETS) + _pick(r, ("a", "e", "o")) + "y",
    "sibilant": lambda r: (
        _pick(r, _ONSETS) + _pick(r, _SHORT_VOWELS) + _pick(r, ("s", "ss", "sh", "ch", "x", "z"))
    ),
    "consonant_o": lambda r: _pick(r, _ONSETS) + _pick(r, ("o", "o", "oo")),
}
_STEM_HINTS: dict[tuple[str, str], str] = {
    ("cvc", "ing"): "a one-syllable stem ending in one vowel letter + one consonant doubles it: "
    "stop -> stopping (use syllables() and is_vowel_letter()).",
    ("cvc", "degree"): "a one-syllable stem ending in one vowel letter + one consonant doubles "
    "it: big -> bigger.",
    ("w_x_coda", "ing"): "w, x, y, h and c are never doubled: snow -> snowing, box -> boxing.",
    ("w_x_coda", "degree"): "w, x, y, h and c are never doubled: lax -> laxer.",
    ("w_x_coda", "s"): "after x add -es (box -> boxes); after w just -s.",
    ("long_vowel", "ing"): "no doubling after two vowel letters: rain -> raining, beat -> beating.",
    ("long_vowel", "degree"): "no doubling after two vowel letters: neat -> neater.",
    ("cluster", "ing"): "no doubling after two consonant letters: fast -> fasting.",
    ("cluster", "degree"): "no doubling after two consonant letters: fast -> faster.",
    ("two_syllables", "ing"): "only one-syllable stems double here: visit -> visiting (in longer "
    "words stress decides, and spelling does not show it).",
    ("two_syllables", "degree"): "only one-syllable stems double here: clever -> cleverer.",
    ("silent_e", "ing"): "drop a final e before -ing: bake -> baking.",
    ("silent_e", "degree"): "after a final e add only -r / -st: late -> later, latest.",
    ("ee_oe_ye", "ing"): "keep the e of ee, oe and ye: see -> seeing, hoe -> hoeing, dye -> "
    "dyeing.",
    ("ee_oe_ye", "degree"): "after a final e add only -r / -st: free -> freer, freest.",
    ("ie", "ing"): "ie becomes y before -ing: tie -> tying.",
    ("ie", "degree"): "after a final e add only -r / -st.",
    ("consonant_y", "s"): "consonant + y becomes -ies: fly -> flies.",
    ("consonant_y", "ing"): "keep the y before -ing: fly -> flying (and y is never doubled).",
    ("consonant_y", "degree"): "consonant + y becomes -ier / -iest: happy -> happier.",
    ("vowel_y", "s"): "vowel + y just adds -s: day -> days.",
    ("vowel_y", "ing"): "vowel + y just adds -ing: stay -> staying.",
    ("vowel_y", "degree"): "vowel + y just adds the suffix: grey -> greyer.",
    ("sibilant", "s"): "after s, x, z, ch and sh add -es: bus -> buses, wish -> wishes.",
    ("consonant_o", "s"): "verbs in consonant + o take -es (go -> goes); nouns take -s (memo -> "
    "memos); vowel + o takes -s.",
}


def _pick(rng: np.random.Generator, options: Sequence[str] | str) -> str:
    return options[int(rng.integers(0, len(options)))]


def _stem_cases(seed: int, n_cases: int) -> list[tuple[str, str]]:
    """(category, stem) pairs cycling through every category, so each rule is exercised."""
    rng = np.random.default_rng(seed)
    names = list(_STEM_CATEGORIES)
    out = []
    for k in range(n_cases):
        name = names[k % len(names)]
        out.append((name, _STEM_CATEGORIES[name](rng)))
    return out


def _inflection_check(
    task: str,
    student_fn: Callable,
    seed: int,
    n_cases: int,
    rule: str,
    args_of: Callable[[str, np.random.Generator], tuple],
    feature_set_of: Callable[[tuple], str],
) -> None:
    from probekit.jabberwocky import inflect_set

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed + 1)
    cases, categories = [], {}
    for category, stem in _stem_cases(seed, n_cases):
        args = args_of(stem, rng)
        shown = ", ".join(repr(a) for a in args)
        categories[args] = category
        cases.append(_Case(len(stem), args, f"{task}({shown})"))

    def reference(*args: Any) -> str:
        return inflect_set(args[0], feature_set_of(args))

    def judge(case: _Case, expected: str, got: Any) -> _Mismatch | None:
        if got == expected:
            return None
        category = categories[case.args]
        hint = _STEM_HINTS.get(
            (category, rule),
            "compare your rules with the task text; check them in the order the text gives.",
        )
        if not isinstance(got, str):
            hint = "return the inflected form as a str"
        return _Mismatch(repr(expected), repr(got), f"[{category.replace('_', ' ')}] {hint}")

    _run_check(task, student_fn, cases, reference, judge)


def check_add_s(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check the -s rule of plural nouns and 3rd-person verbs against
    :func:`probekit.jabberwocky.inflect_set` (``NOUN:Plur``, ``VERB:Pres3Sg``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem, verb)`` takes a
    lower-case stem and a bool (True: the verb's 3rd person singular; False: the noun plural)
    and returns the form. Stems are generated so that every spelling situation occurs.
    """
    _inflection_check(
        "add_s",
        student_fn,
        seed,
        n_cases,
        "s",
        lambda stem, rng: (stem, bool(rng.random() < 0.5)),
        lambda args: "VERB:Pres3Sg" if args[1] else "NOUN:Plur",
    )


def check_add_ing(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check the -ing rule against :func:`probekit.jabberwocky.inflect_set` (``VERB:PresPart``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem)`` takes a lower-case
    stem and returns its present participle: e-deletion, ie -> y, and consonant doubling.
    """
    _inflection_check(
        "add_ing",
        student_fn,
        seed,
        n_cases,
        "ing",
        lambda stem, rng: (stem,),
        lambda args: "VERB:PresPart",
    )


def check_add_degree(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check comparatives and superlatives against :func:`probekit.jabberwocky.inflect_set`
    (``ADJ:Cmp``, ``ADJ:Sup``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem, suffix)`` takes a
    lower-case stem and ``"er"`` or ``"est"``: e-deletion, y -> i and consonant doubling.
    """
    _inflection_check(
        "add_degree",
        student_fn,
        seed,
        n_cases,
        "degree",
        lambda stem, rng: (stem, "er" if rng.random() < 0.5 else "est"),
        lambda args: "ADJ:Cmp" if args[1] == "er" else "ADJ:Sup",
    )


def rule_coverage(
    sentences: Sequence[Any], rules: Mapping[str, Callable[[str], str]], top: int = 0
) -> tuple[Any, Any]:
    """How many treebank forms a set of regular inflection rules reproduces from their lemmas.

    Hall Maudslay & Cotterell 2021, §3: the pseudowords are inflected with regular rules, so a
    rule set is only as good as the regular part of the language. For every word whose (UPOS,
    FEATS) is a feature set in ``rules`` (names as :data:`probekit.jabberwocky.FEATURE_SETS`)
    and whose lemma and form are alphabetic, ``rules[name](lemma.lower())`` is compared with
    ``form.lower()``. Words inside multiword tokens are skipped, as in the substitution.

    Args:
        sentences: :class:`probekit.data.Sentence` objects.
        rules: feature-set name -> function from a stem to its form.
        top: how many of the most frequent mismatches to list; 0 lists them all.

    Returns:
        ``(by_set, misses)``: a DataFrame indexed by feature set with columns ``words`` and
        ``reproduced`` (share in [0, 1]); and a DataFrame of the (feature set, lemma, form,
        predicted) mismatches with their ``count``, most frequent first.
    """
    import pandas as pd

    from probekit.jabberwocky import feature_set

    alpha = re.compile(r"^[A-Za-z]+$")
    totals: Counter = Counter()
    hits: Counter = Counter()
    misses: Counter = Counter()
    for s in sentences:
        # Words of a multiword token (*gon* of *gonna*) are spelled by the token, not by a rule.
        in_token = {i - 1 for first, last, _ in s.multiword for i in range(first, last + 1)}
        words = zip(s.lemmas, s.forms, s.upos, s.feats, strict=True)
        for k, (lemma, form, upos, feats) in enumerate(words):
            name = feature_set(upos, feats)
            if k in in_token or name not in rules:
                continue
            if not (alpha.match(lemma) and alpha.match(form)):
                continue
            predicted = rules[name](str(lemma).lower())
            totals[name] += 1
            if predicted == str(form).lower():
                hits[name] += 1
            else:
                misses[(name, str(lemma).lower(), str(form).lower(), predicted)] += 1
    by_set = pd.DataFrame(
        {
            "words": [totals[k] for k in rules],
            "reproduced": [hits[k] / totals[k] if totals[k] else float("nan") for k in rules],
        },
        index=pd.Index(list(rules), name="feature set"),
    )
    rows = [(*key, count) for key, count in misses.most_common(top or None)]
    misses_df = pd.DataFrame(rows, columns=["feature set", "lemma", "form", "predicted", "count"])
    return by_set, misses_df


# ============================================================================================
# A3 · Pareto frontier and hypervolume (Pimentel et al. 2020)


def _frontier_points(c: np.ndarray, a: np.ndarray, idx: Sequence[int]) -> str:
    return ", ".join(f"{i}: ({c[i]:g}, {a[i]:g})" for i in idx) or "none"


def check_pareto_frontier(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a Pareto frontier against :func:`probekit.pareto.pareto_frontier`.

    Pimentel et al. 2020, §3. ``student_fn(complexity, accuracy)`` takes two float arrays (n,)
    and returns the indices of the probes that no other probe dominates (any order). Values lie
    on a coarse grid, so equal complexities, equal accuracies and exact copies occur.
    """
    from probekit.pareto import pareto_frontier

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 9))
        c = rng.integers(0, 5, size=n).astype(np.float64)
        a = rng.integers(0, 6, size=n) / 5
        if n > 2 and rng.random() < 0.3:
            c[-1], a[-1] = c[0], a[0]
        cases.append(_Case(n, (c, a), f"complexity = {_fmt(c)}, accuracy = {_fmt(a)}"))

    def judge(case: _Case, expected: np.ndarray, got: Any) -> _Mismatch | None:
        c, a = case.args
        try:
            got_idx = sorted(int(i) for i in np.asarray(got).reshape(-1))
        except (TypeError, ValueError):
            return _Mismatch(_fmt(expected), repr(got), "return an array of integer indices")
        want = sorted(int(i) for i in expected)
        if got_idx == want:
            return None
        missing = sorted(set(want) - set(got_idx))
        extra = sorted(set(got_idx) - set(want))
        if len(set(got_idx)) != len(got_idx):
            hint = "each index may appear once."
        elif extra:
            i = extra[0]
            j = next(
                j
                for j in range(len(c))
                if c[j] <= c[i] and a[j] >= a[i] and (c[j] < c[i] or a[j] > a[i])
            )
            hint = (
                f"probe {i} at ({c[i]:g}, {a[i]:g}) is dominated by probe {j} at "
                f"({c[j]:g}, {a[j]:g}): another probe dominates it when it is at most as complex "
                "and at least as accurate, and strictly better in one of the two."
            )
        else:
            i = missing[0]
            copies = [j for j in range(len(c)) if j != i and c[j] == c[i] and a[j] == a[i]]
            hint = f"probe {i} at ({c[i]:g}, {a[i]:g}) is not dominated" + (
                f"; its exact copies {copies} do not dominate it (domination needs one strict "
                "inequality), so every copy stays."
                if copies
                else ": no probe is at most as complex and at least as accurate with one of "
                "the two strict."
            )
        return _Mismatch(
            f"indices {want}: " + _frontier_points(c, a, want),
            f"indices {got_idx}: " + _frontier_points(c, a, [i for i in got_idx if i < len(c)]),
            hint,
        )

    _run_check("pareto_frontier", student_fn, cases, pareto_frontier, judge)


def _staircase_area(xs: np.ndarray, hs: np.ndarray, right: float, floor: float) -> float:
    order = np.argsort(xs, kind="stable")
    x = np.r_[xs[order], right]
    return float(np.sum(np.diff(x) * np.clip(hs[order] - floor, 0.0, None)))


def _hypervolume_variants(
    c: np.ndarray, a: np.ndarray, cap: float, floor: float
) -> dict[str, tuple]:
    from probekit.pareto import pareto_frontier

    box = cap * (1.0 - floor)
    inside = c <= cap
    ci, ai = c[inside], a[inside]
    f_all = pareto_frontier(c, a)
    f_in = pareto_frontier(ci, ai) if ci.size else np.zeros(0, int)
    out: dict[str, tuple] = {}
    if f_in.size:
        xs, hs = ci[f_in], ai[f_in]
        area = _staircase_area(xs, hs, cap, floor)
        out["not_normalised"] = (
            area,
            "normalise: divide by the area of the reference box, max_complexity * "
            "(1 - min_accuracy).",
        )
        out["from_zero"] = (
            (area + xs.min() * max(hs[np.argmin(xs)] - floor, 0.0)) / box,
            "the staircase starts at complexity 0 but no probe fits a budget below the simplest "
            "probe, so nothing is gained left of it.",
        )
        out["no_floor"] = (
            _staircase_area(xs, hs, cap, 0.0) / cap,
            "measure heights from the reference accuracy: max(accuracy - min_accuracy, 0), and "
            "divide by max_complexity * (1 - min_accuracy).",
        )
        order = np.argsort(xs)
        x_tr, h_tr = np.r_[xs[order], cap], np.r_[hs[order], hs[order][-1]] - floor
        out["trapezoid"] = (
            float(np.sum(np.diff(x_tr) * (h_tr[1:] + h_tr[:-1]) / 2)) / box,
            "the staircase is flat between frontier points (a budget between two probes only buys "
            "the simpler one): no interpolation.",
        )
    if f_all.size:
        out["no_cap"] = (
            _staircase_area(c[f_all], a[f_all], cap, floor) / box,
            "drop the probes beyond the cap (complexity > max_complexity) before building the "
            "frontier: they fit no budget.",
        )
        out["cap_at_max"] = (
            _staircase_area(c[f_all], a[f_all], float(c.max()), floor)
            / (float(c.max()) * (1 - floor) or 1.0),
            "the right end of the staircase is max_complexity, not the largest complexity seen.",
        )
    return out


def check_hypervolume(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a bounded, normalised Pareto hypervolume against :func:`probekit.pareto.hypervolume`.

    Pimentel et al. 2020, §3 and Table 3. ``student_fn(complexity, accuracy, max_complexity,
    min_accuracy)`` takes float arrays (n,), the cap and the reference accuracy, and returns the
    area that the probes within the cap dominate, divided by ``max_complexity * (1 -
    min_accuracy)``. About a third of the probes lie beyond the cap.
    """
    from probekit.pareto import hypervolume

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 8))
        cap = float(_pick(rng, (1, 10, 400)))
        c = np.round(rng.uniform(0, 1.5 * cap, size=n), 2)
        a = np.round(rng.uniform(0, 1, size=n), 2)
        floor = 0.0 if rng.random() < 0.6 else float(np.round(rng.uniform(0, 0.5), 2))
        shown = (
            f"complexity = {_fmt(c)}, accuracy = {_fmt(a)}, max_complexity = {cap:g}, "
            f"min_accuracy = {floor:g}"
        )
        cases.append(_Case(n, (c, a, cap, floor), shown))

    def reference(c: np.ndarray, a: np.ndarray, cap: float, floor: float) -> float:
        return hypervolume(c, a, cap, min_accuracy=floor, normalise=True)

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        value = _as_float(got)
        if value is not None and _close(value, expected, 1e-7):
            return None
        if value is None:
            return _Mismatch(_fmt(expected), repr(got), "return one float")
        default = (
            "keep the probes within the cap, build their frontier, integrate the staircase from "
            "the simplest frontier probe to max_complexity, and normalise."
        )
        hint = _matching_hint(value, _hypervolume_variants(*case.args), default)
        return _Mismatch(_fmt(expected), _fmt(value), hint)

    _run_check("hypervolume", student_fn, cases, reference, judge)


def lookup_family(
    train_words: Sequence[str],
    train_tags: Sequence[str],
    eval_words: Sequence[str],
    eval_tags: Sequence[str],
    sizes: Sequence[int],
    *,
    order: str = "frequency",
    seed: int = 0,
) -> Any:
    """Dictionary-lookup POS taggers of several table sizes: a family of probes for a Pareto plot.

    Pimentel et al. 2020, appendix B (the lookup baseline, :func:`probekit.pareto.fit_posl_lookup`)
    with the table restricted to ``k`` word types: the ``k`` most frequent training words
    (``order="frequency"``) or ``k`` random ones (``order="random"``, drawn with ``seed``); other
    words get the most frequent tag overall. The complexity of a table is its number of entries.

    Args:
        train_words, train_tags: shape (N,). eval_words, eval_tags: shape (M,).
        sizes: table sizes k >= 0; sizes above the vocabulary are cut to it.

    Returns:
        DataFrame with one row per size: ``complexity`` (entries) and ``accuracy`` on eval.
    """
    import pandas as pd

    from probekit.pareto import PoslLookup, fit_posl_lookup, predict_posl_lookup

    if order not in ("frequency", "random"):
        raise ParameterError("order", f"'{order}' is not one of 'frequency', 'random'")
    if any(int(k) < 0 for k in sizes):
        raise ParameterError("sizes", "table sizes must be >= 0")
    full = fit_posl_lookup(train_words, train_tags)
    counts = Counter(str(w) for w in train_words)
    if order == "frequency":
        # Ties in frequency go to the alphabetically first word, so the ranking is stable.
        ranked = sorted(counts, key=lambda w: (-counts[w], w))
    else:
        vocab = sorted(counts)
        ranked = [vocab[i] for i in np.random.default_rng(seed).permutation(len(vocab))]
    gold = np.asarray(eval_tags)
    rows = []
    for k in sizes:
        k = min(int(k), len(ranked))
        table = PoslLookup({w: full.by_word[w] for w in ranked[:k]}, full.default)
        accuracy = float(np.mean(predict_posl_lookup(table, eval_words) == gold))
        rows.append({"complexity": k, "accuracy": accuracy})
    return pd.DataFrame(rows)


# ============================================================================================
# A4 · Extrapolation splits (Kunz & Kuhlmann 2021)


def _percentile_variants(scores: np.ndarray, q: float) -> dict[str, tuple]:
    s, n = np.sort(scores), len(scores)
    return {
        "numpy": (
            float(np.percentile(scores, 100 * q)),
            "the paper's percentile does not interpolate: take sorted(scores)[int(q * n)] "
            "(np.percentile and np.median interpolate).",
        ),
        "n_minus_1": (
            float(s[int(q * (n - 1))]),
            "the index is int(q * n), not int(q * (n - 1)).",
        ),
        "rounded": (
            float(s[min(n - 1, round(q * n))]),
            "truncate the index with int(q * n); do not round it.",
        ),
        "ceil": (
            float(s[min(n - 1, math.ceil(q * n))]),
            "truncate the index with int(q * n); do not round it up.",
        ),
    }


def check_percentile(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check the split-point percentile against :func:`probekit.extrapolation.percentile`.

    Kunz & Kuhlmann 2021, §3.5 (and their released code): ``sorted(scores)[int(q * n)]``, no
    interpolation. ``student_fn(scores, q)`` takes a float array (n,) and 0 <= q < 1 and
    returns a float. Scores are often tied.
    """
    from probekit.extrapolation import percentile

    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(1, 12))
        if k % 2:
            scores = rng.integers(0, 5, size=n).astype(np.float64)
        else:
            scores = np.round(rng.uniform(0, 10, size=n), 2)
        q = float(_pick(rng, (0.5, 0.75, 0.25, 0.5, 0.75, 0.9, 0.0)))
        cases.append(_Case(n, (scores, q), f"scores = {_fmt(scores)}, q = {q:g}"))

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        value = _as_float(got)
        if value is not None and value == expected:
            return None
        if value is None:
            return _Mismatch(_fmt(expected), repr(got), "return one float")
        hint = _matching_hint(
            value,
            _percentile_variants(*case.args),
            "sort the scores and take the element at index int(q * n).",
        )
        return _Mismatch(_fmt(expected), _fmt(value), hint)

    _run_check("percentile", student_fn, cases, percentile, judge)


def frequency_score(train_forms: Sequence[str], forms: Sequence[str]) -> np.ndarray:
    """A frequency scoring function for extrapolation splits: rare words are hard.

    In the spirit of Kunz & Kuhlmann 2021, §3.4 (a scoring function m(e), higher = harder), for
    one word token e with form w: ``m(e) = 1 / (1 + c(w))``, where c(w) counts the occurrences
    of w (as written, case kept) among the training tokens. Unseen words score 1, the hardest;
    the more frequent a word, the closer its score to 0. Not in the paper; the assignment A4
    asks students to add it.

    Args:
        train_forms: shape (N,), the forms of the training tokens.
        forms: shape (M,), the forms to score.

    Returns:
        float64 array (M,) in (0, 1].
    """
    counts = Counter(str(w) for w in np.asarray(train_forms, dtype=object).reshape(-1))
    return np.array([1.0 / (1 + counts[str(w)]) for w in forms], dtype=np.float64)


_WORDS = ("the", "The", "cat", "sat", "on", "a", "mat", "dog", "ran", ".")


def check_frequency_score(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check a frequency scoring function against :func:`frequency_score`.

    ``student_fn(train_forms, forms)`` takes two arrays of str, (N,) and (M,), and returns the
    float scores (M,): ``1 / (1 + count of the form among the training forms)``, case kept.
    """
    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n, m = int(rng.integers(1, 10)), int(rng.integers(1, 6))
        train = np.array([_pick(rng, _WORDS[:7]) for _ in range(n)])
        forms = np.array([_pick(rng, _WORDS) for _ in range(m)])
        cases.append(
            _Case(n + m, (train, forms), f"train_forms = {_fmt(train)}, forms = {_fmt(forms)}")
        )

    def judge(case: _Case, expected: np.ndarray, got: Any) -> _Mismatch | None:
        train, forms = case.args
        arr = np.asarray(got, dtype=np.float64) if _numeric(got) else None
        if arr is not None and arr.shape == expected.shape and np.allclose(arr, expected):
            return None
        if arr is None or arr.shape != expected.shape:
            return _Mismatch(
                _fmt(expected), repr(got), f"return one float per form, shape ({len(forms)},)"
            )
        in_eval = Counter(str(w) for w in forms)
        in_train = Counter(str(w) for w in train)
        lower = Counter(str(w).lower() for w in train)
        variants = {
            "eval_counts": (
                np.array([1 / (1 + in_eval[str(w)]) for w in forms]),
                "count the forms among the *training* tokens, not among the forms being scored.",
            ),
            "raw_counts": (
                np.array([float(in_train[str(w)]) for w in forms]),
                "higher must mean harder: score 1 / (1 + count), so that rare words score high.",
            ),
            "unseen_zero": (
                np.array([1 / (1 + in_train[str(w)]) if in_train[str(w)] else 0.0 for w in forms]),
                "an unseen word has count 0 and scores 1, the hardest.",
            ),
            "lower": (
                np.array([1 / (1 + lower[str(w).lower()]) for w in forms]),
                "keep the case: 'The' and 'the' are different forms here.",
            ),
        }
        hint = _join_hints(
            [h for v, h in variants.values() if np.allclose(arr, v)],
            "score = 1 / (1 + number of training tokens with exactly this form).",
        )
        return _Mismatch(_fmt(expected), _fmt(arr), hint)

    _run_check("frequency_score", student_fn, cases, frequency_score, judge)


def _numeric(value: Any) -> bool:
    try:
        np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _reference_split(train_scores: np.ndarray, eval_scores: np.ndarray):
    from probekit.extrapolation import distributional_split_points, easy_mask, hard_mask

    points = distributional_split_points(train_scores, eval_scores, "train", "eval")
    return easy_mask(train_scores, points), hard_mask(eval_scores, points)


def check_extrapolation_split(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check easy and hard sets against :mod:`probekit.extrapolation` (distributional criteria).

    Kunz & Kuhlmann 2021, §3.5: m1 = 50th percentile of the training scores, m2 = 75th
    percentile of the evaluation scores (``sorted(x)[int(q * n)]``); easy = {m < m1} among the
    training examples and hard = {m > m2} among the evaluation examples, both strict.
    ``student_fn(train_scores, eval_scores)`` takes float arrays (N,), (M,) and returns the two
    bool masks ``(easy (N,), hard (M,))``. Scores are heavily tied.
    """
    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n, m = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        train = rng.integers(0, 4, size=n).astype(np.float64)
        evals = rng.integers(0, 4, size=m).astype(np.float64)
        cases.append(
            _Case(
                n + m, (train, evals), f"train_scores = {_fmt(train)}, eval_scores = {_fmt(evals)}"
            )
        )

    def judge(case: _Case, expected: tuple, got: Any) -> _Mismatch | None:
        train, evals = case.args
        want = f"easy = {_fmt(expected[0])}, hard = {_fmt(expected[1])}"
        try:
            easy, hard = (np.asarray(x, dtype=bool) for x in got)
        except (TypeError, ValueError):
            return _Mismatch(want, repr(got), "return a pair (easy mask, hard mask)")
        shown = f"easy = {_fmt(easy)}, hard = {_fmt(hard)}"
        if easy.shape == expected[0].shape and hard.shape == expected[1].shape:
            if np.array_equal(easy, expected[0]) and np.array_equal(hard, expected[1]):
                return None
        s_train, s_eval = np.sort(train), np.sort(evals)
        m1, m2 = s_train[int(0.5 * len(train))], s_eval[int(0.75 * len(evals))]
        variants = {
            "non_strict": (
                (train <= m1, evals >= m2),
                "both inequalities are strict: easy is m < m1 and hard is m > m2, so examples "
                "tied with a split point are in neither set.",
            ),
            "non_strict_easy": (
                (train <= m1, evals > m2),
                "easy is strict, m < m1: training examples tied with m1 are not easy.",
            ),
            "non_strict_hard": (
                (train < m1, evals >= m2),
                "hard is strict, m > m2: evaluation examples tied with m2 are not hard.",
            ),
            "m2_from_train": (
                (train < m1, evals > s_train[int(0.75 * len(train))]),
                "m2 is the 75th percentile of the *evaluation* scores.",
            ),
            "m1_from_eval": (
                (train < s_eval[int(0.5 * len(evals))], evals > m2),
                "m1 is the median of the *training* scores.",
            ),
            "numpy": (
                (train < np.percentile(train, 50), evals > np.percentile(evals, 75)),
                "use the paper's percentile, sorted(x)[int(q * n)], not np.percentile or "
                "np.median (they interpolate).",
            ),
            "swapped": (
                (train > m1, evals < m2),
                "higher scores are harder: easy is below m1, hard above m2.",
            ),
        }
        hint = _join_hints(
            [
                h
                for (e, hd), h in variants.values()
                if np.array_equal(easy, e) and np.array_equal(hard, hd)
            ],
            f"here m1 = {m1:g} and m2 = {m2:g}; easy = train_scores < m1, hard = eval_scores > m2.",
        )
        return _Mismatch(want, shown, hint)

    _run_check("extrapolation_split", student_fn, cases, _reference_split, judge)


# ============================================================================================
# A5 · McNemar's test and power (Zhu et al. 2022)


def _mcnemar_reference(correct_a: np.ndarray, correct_b: np.ndarray) -> float:
    from probekit.power import mcnemar_exact, mcnemar_table

    return mcnemar_exact(mcnemar_table(correct_a, correct_b)).p_value


def _mcnemar_variants(correct_a: np.ndarray, correct_b: np.ndarray) -> dict[str, tuple]:
    from scipy import stats

    from probekit.power import mcnemar_chi2, mcnemar_table

    table = mcnemar_table(correct_a, correct_b)
    n01, n10 = int(table[0, 1]), int(table[1, 0])
    d, n = n01 + n10, int(table.sum())
    low = min(n01, n10)
    out: dict[str, tuple] = {
        "chi2": (
            mcnemar_chi2(table).p_value,
            "use the exact binomial test on the discordant pairs, not the chi-squared "
            "approximation (Zhu et al.'s code runs the exact test).",
        ),
        "chi2_plain": (
            mcnemar_chi2(table, correction=False).p_value,
            "use the exact binomial test on the discordant pairs, not the chi-squared "
            "approximation.",
        ),
    }
    if d:
        one = float(stats.binom.cdf(low, d, 0.5))
        out["one_sided"] = (
            one,
            "the test is two-sided: double the smaller tail, 2 * P(X <= min(n01, n10)), capped "
            "at 1.",
        )
        out["uncapped"] = (
            2 * one,
            "a p-value is at most 1: cap 2 * P(X <= min(n01, n10)) at 1.",
        )
        out["upper_tail"] = (
            float(stats.binom.sf(low, d, 0.5)) * 2,
            "the smaller tail is P(X <= min(n01, n10)); binom.sf(k) is P(X > k).",
        )
        out["all_items"] = (
            min(1.0, 2 * float(stats.binom.cdf(low, n, 0.5))),
            "only the discordant pairs count: X ~ Binomial(n01 + n10, 1/2), not Binomial(n, 1/2).",
        )
    else:
        out["no_discordant"] = (
            0.0,
            "with no discordant pairs the two configurations cannot be told apart: p = 1.",
        )
    return out


def check_mcnemar(student_fn: Callable, seed: int = 0, n_cases: int = 50) -> None:
    """Check McNemar's exact test against :func:`probekit.power.mcnemar_exact`.

    Zhu et al. 2022, §3.5 and Table 1: the two-sided binomial test of n01 out of the n01 + n10
    discordant items at 1/2. ``student_fn(correct_a, correct_b)`` takes two bool arrays (n,)
    (True where configuration A, resp. B, is right on item i) and returns the p-value.
    """
    seed, n_cases = _check_options(seed, n_cases)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n_cases):
        n = int(rng.integers(1, 40))
        props = rng.dirichlet(np.ones(4) * 0.8)
        cell = rng.choice(4, size=n, p=props)
        a, b = cell >= 2, cell % 2 == 1
        table = f"n00 = {np.sum(~a & ~b)}, n01 = {np.sum(~a & b)}, n10 = {np.sum(a & ~b)}, " + (
            f"n11 = {np.sum(a & b)}"
        )
        cases.append(_Case(n, (a, b), f"correct_a = {_fmt(a)}, correct_b = {_fmt(b)}  ({table})"))

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        value = _as_float(got)
        if value is not None and _close(value, expected, 1e-9):
            return None
        if value is None:
            return _Mismatch(_fmt(expected), repr(got), "return the p-value as a float")
        default = (
            "count n01 (only B right) and n10 (only A right); p = min(1, 2 * P(X <= min(n01, "
            "n10))) with X ~ Binomial(n01 + n10, 1/2); p = 1 when there is no discordant item."
        )
        hint = _matching_hint(value, _mcnemar_variants(*case.args), default)
        return _Mismatch(_fmt(expected), _fmt(value), hint)

    _run_check("mcnemar", student_fn, cases, _mcnemar_reference, judge)


def _exact_rates(joint_props: Any, n: int, alpha: float, two_sided: bool = True):
    """(power, rejection rate) of McNemar's exact test, by enumeration (see exact_power)."""
    from scipy import stats

    p = np.asarray(joint_props, dtype=np.float64).reshape(2, 2)
    p = p / p.sum()
    p01, p10 = p[0, 1], p[1, 0]
    effect = p10 - p01
    disc = p01 + p10
    power = rejection = 0.0
    if disc <= 0:
        return 0.0, 0.0
    share10 = p10 / disc
    for d in range(1, n + 1):
        weight = stats.binom.pmf(d, n, disc)
        if weight < 1e-300:
            continue
        k = np.arange(d + 1)  # n10
        tail = stats.binom.cdf(np.minimum(k, d - k), d, 0.5)
        p_value = np.minimum(1.0, 2 * tail) if two_sided else tail
        significant = p_value <= alpha
        pk = stats.binom.pmf(k, d, share10)
        rejection += weight * float(np.sum(pk[significant]))
        right_sign = np.sign(k - (d - k)) == np.sign(effect)
        power += weight * float(np.sum(pk[significant & right_sign]))
    return (0.0 if effect == 0 else power), rejection


def exact_power(joint_props: Any, n: int, alpha: float = 0.05) -> float:
    """Power of McNemar's exact test at test size n, computed exactly instead of simulated.

    Zhu et al. 2022, §3.5 define power as the probability that a test set of n items drawn from
    the joint proportions ``joint_props`` (2, 2) (Table 1 layout) gives p <= alpha *with the sign
    of the true effect* p10 - p01. :func:`probekit.power.power` estimates it by simulation; here
    it is summed exactly: the discordant count D ~ Binomial(n, p01 + p10) and, given D = d,
    n10 ~ Binomial(d, p10 / (p01 + p10)). A zero effect has power 0, as in the released code.
    O(n^2) time; meant for n up to a few thousand.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ParameterError("n", f"must be a positive int, got {n!r}")
    if not 0 < alpha < 1:
        raise ParameterError("alpha", f"must lie in (0, 1), got {alpha!r}")
    p = np.asarray(joint_props, dtype=np.float64)
    if p.shape != (2, 2) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ParameterError("joint_props", "must be a (2, 2) table of proportions summing to 1")
    return _exact_rates(p, int(n), alpha)[0]


def check_power(student_fn: Callable, seed: int = 0, n_cases: int = 20, n_sim: int = 2000) -> None:
    """Check a simulated power of McNemar's test against its exact value (:func:`exact_power`).

    Zhu et al. 2022, §3.5 (after Card et al. 2020; :func:`probekit.power.power` is the library's
    simulation). ``student_fn(joint_props, n, alpha, n_sim, seed)`` takes a (2, 2) table of
    proportions, the test size, the level, the number of simulated test sets and a seed, and
    returns the share of simulated test sets whose exact McNemar test is significant with the sign
    of the true effect. A simulation is random, so the check accepts values within 4.5 Monte Carlo
    standard errors (plus 0.002) of the exact power. Some cases have no true effect (power 0).
    """
    seed, n_cases = _check_options(seed, n_cases)
    if isinstance(n_sim, bool) or not isinstance(n_sim, int) or n_sim < 100:
        raise ParameterError("n_sim", f"must be an int >= 100, got {n_sim!r}")
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(20, 300))
        props = rng.dirichlet(np.ones(4) * 2)
        if k % 4 == 3:
            props[1] = props[2] = (props[1] + props[2]) / 2
        props = np.round(props / props.sum(), 4)
        props[3] = 1.0 - props[:3].sum()
        alpha = float(_pick(rng, (0.05, 0.05, 0.01, 0.1)))
        table = props.reshape(2, 2)
        shown = f"joint_props = {_fmt(table)}, n = {n}, alpha = {alpha:g}, n_sim = {n_sim}"
        cases.append(_Case(n, (table, n, alpha, n_sim, seed + k), shown.replace("\n", " ")))

    def reference(table: np.ndarray, n: int, alpha: float, *_: Any) -> float:
        return exact_power(table, n, alpha)

    def judge(case: _Case, expected: float, got: Any) -> _Mismatch | None:
        table, n, alpha, sims, _ = case.args
        value = _as_float(got)
        tolerance = 4.5 * math.sqrt(expected * (1 - expected) / sims) + 0.002
        if value is not None and abs(value - expected) <= tolerance:
            return None
        want = f"{expected:.4f} (exact; accepted within ±{tolerance:.4f})"
        if value is None:
            return _Mismatch(want, repr(got), "return the power as a float")
        _, rejection = _exact_rates(table, n, alpha)
        one_sided, _ = _exact_rates(table, n, alpha, two_sided=False)
        effect = table[1, 0] - table[0, 1]

        def near(target: float) -> bool:
            return abs(value - target) <= 4.5 * math.sqrt(target * (1 - target) / sims) + 0.002

        if near(rejection) and not near(expected):
            hint = (
                "count only significant results with the sign of the true effect p10 - p01 "
                + ("(there is none here, so the power is 0); " if effect == 0 else "; ")
                + "a significant result in the wrong direction is a Type-S error, not power."
            )
        elif near(one_sided):
            hint = "use the two-sided exact p-value, min(1, 2 * P(X <= min(n01, n10)))."
        elif value > 1 or value < 0:
            hint = "power is a share of simulations and lies in [0, 1]."
        else:
            hint = (
                "draw n_sim multinomial tables of n items from the proportions, test each with "
                "your two-sided exact McNemar test, and count p <= alpha with sign(n10 - n01) "
                "equal to sign(p10 - p01)."
            )
        return _Mismatch(want, f"{value:.4f}", hint)

    _run_check("power", student_fn, cases, reference, judge)


# ============================================================================================
# Student copies


def assignment_notebooks(notebooks_dir: Path) -> list[Path]:
    """The assignment notebooks ``A<k>_<slug>.py`` in a directory, sorted by name."""
    return sorted(p for p in Path(notebooks_dir).glob("A*.py") if _ASSIGNMENT_NAME.match(p.name))


def _split_cells(lines: list[str]) -> list[tuple[int, list[str]]]:
    """(first line number, lines) per cell; the part before the first ``# %%`` is cell 0."""
    cells: list[tuple[int, list[str]]] = [(1, [])]
    for number, line in enumerate(lines, start=1):
        if _CELL.match(line):
            cells.append((number, []))
        cells[-1][1].append(line)
    return cells


def _tags(header: str) -> list[str] | None:
    m = _TAGS.search(header)
    return ast.literal_eval(m.group(1)) if m else None


def _with_tags(header: str, tags: list[str]) -> str:
    m = _TAGS.search(header)
    if m is None:
        return header
    if tags:
        return (
            header[: m.start(1)]
            + "["
            + ", ".join(f'"{t}"' for t in tags)
            + "]"
            + header[m.end(1) :]
        )
    return (header[: m.start()].rstrip() + " " + header[m.end() :].lstrip()).rstrip()


def _marker(line: str) -> str:
    """A line as a marker would read, in code or in a markdown comment line."""
    return re.sub(r"^#\s?(?=###)", "", line.strip()).strip()


def _strip_solutions(cell: list[str], start: int, task: str | None, where: str) -> list[str]:
    out: list[str] = []
    inside_at: int | None = None
    for offset, line in enumerate(cell):
        marker = line.strip()
        number = start + offset
        if marker == SOLUTION_BEGIN:
            if inside_at is not None:
                raise ProbekitError(
                    f"{where}:{number}: '{SOLUTION_BEGIN}' inside another solution block",
                    hint=f"close the block opened on line {inside_at} first",
                )
            inside_at = number
            indent = line[: len(line) - len(line.lstrip())]
            label = f"Task {task}: your code here" if task else "your code here"
            out.append(f'{indent}raise NotImplementedError("{label}")')
        elif marker == SOLUTION_END:
            if inside_at is None:
                raise ProbekitError(f"{where}:{number}: '{SOLUTION_END}' without a BEGIN")
            inside_at = None
        elif inside_at is None:
            out.append(line)
    if inside_at is not None:
        raise ProbekitError(
            f"{where}:{inside_at}: solution block is never closed",
            hint=f"add a '{SOLUTION_END}' line at the end of the solution",
        )
    return out


def student_source(text: str, where: str = "<notebook>") -> str:
    """The student copy of an assignment notebook's Jupytext percent source.

    Solution blocks (the lines from ``### BEGIN SOLUTION`` to ``### END SOLUTION``) become
    ``raise NotImplementedError("Task N: your code here")`` at the marker's indentation, where N
    comes from the last ``## Task N`` heading above; such cells lose their ``hide-input`` tag.
    Markdown cells tagged ``solution`` become a cell with an empty answer. All other lines are
    copied as they are. ``where`` names the file in error messages (unbalanced markers, markers
    in markdown).
    """
    lines = text.splitlines()
    out: list[str] = []
    task: str | None = None
    for start, cell in _split_cells(lines):
        header = cell[0] if cell and _CELL.match(cell[0]) else None
        is_markdown = header is not None and "[markdown]" in header
        tags = _tags(header) if header else None
        has_solution = any(_marker(line) in (SOLUTION_BEGIN, SOLUTION_END) for line in cell)
        if is_markdown:
            for line in cell:
                m = _TASK_HEADING.match(line)
                if m:
                    task = m.group(1)
            if has_solution:
                raise ProbekitError(
                    f"{where}:{start}: solution markers in a markdown cell",
                    hint="put solution code in a code cell; tag model answers 'solution'",
                )
            if tags and "solution" in tags:
                kept = _with_tags(header, [t for t in tags if t != "solution"])
                out += [kept, f"# {ANSWER_PLACEHOLDER}", ""]
                continue
            out += cell
            continue
        if not has_solution:
            out += cell
            continue
        if header is not None and tags and "hide-input" in tags:
            cell = [_with_tags(header, [t for t in tags if t != "hide-input"]), *cell[1:]]
        out += _strip_solutions(cell, start, task, where)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def write_student_copies(
    out_dir: str | Path, fmt: str = "py", notebooks_dir: str | Path | None = None
) -> list[Path]:
    """Write the student copy of every ``A<k>_*.py`` assignment into ``out_dir``.

    ``fmt="py"`` writes Jupytext percent scripts, ``fmt="ipynb"`` notebooks (via jupytext, with
    the python3 kernel of the header). ``notebooks_dir`` defaults to the repository's
    ``notebooks/``. Returns the written paths. Raises :class:`ProbekitError` for a bad format,
    an output path that is a file, or no assignments found.
    """
    from probekit.book import Paths

    if fmt not in ("py", "ipynb"):
        raise ParameterError("format", f"'{fmt}' is not one of py, ipynb")
    source_dir = Path(notebooks_dir) if notebooks_dir is not None else Paths().notebooks
    notebooks = assignment_notebooks(source_dir)
    if not notebooks:
        raise ProbekitError(
            f"no assignment notebooks (A<k>_<slug>.py) in {source_dir}",
            hint="run from the repository, or pass the notebooks directory",
        )
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ProbekitError(f"{out} exists and is not a directory", hint="choose another --student")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks:
        text = student_source(path.read_text(), str(path))
        target = out / (path.stem + "." + fmt)
        if fmt == "py":
            target.write_text(text)
        else:
            import jupytext

            jupytext.write(jupytext.reads(text, fmt="py:percent"), target, fmt="ipynb")
        written.append(target)
    return written
