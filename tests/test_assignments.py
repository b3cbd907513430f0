"""Tests of probekit.teaching: the checks, their references, and the student-copy writer.

For every check: it passes on the library's implementation and on the notebook's own solution,
and fails with a helpful AssertionError on plausible wrong implementations. Student copies keep
no solution text, still parse, and their checks raise NotImplementedError.
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import re
from collections import Counter
from pathlib import Path

import jupytext
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from probekit import teaching as A
from probekit.cli import main as cli_main
from probekit.errors import ParameterError, ProbekitError
from probekit.methods.jabberwocky.feature_sets import FEATURE_SETS
from probekit.methods.jabberwocky.graphotactics import is_vowel_letter, vowel_groups
from probekit.methods.jabberwocky.inflection import inflect_set
from probekit.methods.pareto import frontier
from probekit.stats import mcnemar, power
from probekit.teaching import a2_jabberwocky_inflection as A2
from probekit.teaching import a4_extrapolation_split as A4
from probekit.teaching.cells import task_cells
from probekit.trees import distances, metrics, spanning, structure

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("A[0-9]*_*.py"))
FIXTURES = Path(__file__).parent / "fixtures"


def fails(check, fn, *needles, **kwargs) -> str:
    """Run a check that must fail; return its message after checking it names ``needles``."""
    with pytest.raises(AssertionError) as info:
        check(fn, **kwargs)
    message = str(info.value)
    for part in ("smallest failing case", "input:", "expected:", "got:", "hint:", *needles):
        assert part in message, (part, message)
    return message


def ok(check, fn, capsys, **kwargs) -> None:
    check(fn, **kwargs)
    assert re.search(r"✓ \w+ passed on \d+ cases", capsys.readouterr().out)


def not_implemented(*args):
    raise NotImplementedError("Task 1: your code here")


# --------------------------------------------------------------------------------------------
# Generic behaviour


def test_not_implemented_passes_through_every_check():
    for name in A.__all__:
        if name.startswith("check_"):
            with pytest.raises(NotImplementedError):
                getattr(A, name)(not_implemented, n_cases=3)


def test_a_crashing_student_function_is_reported_with_its_input():
    def crash(dist):
        raise IndexError("index 3 is out of bounds")

    message = str(pytest.raises(AssertionError, A.check_prim, crash).value)
    assert "raised IndexError: index 3 is out of bounds" in message and "dist =" in message


def test_first_failure_is_the_smallest_case():
    message = fails(A.check_prim, lambda d: np.zeros(len(d), int), "not a spanning tree")
    assert "(size 1; 0 smaller cases passed)" in message


def test_bad_options_raise_parameter_errors():
    with pytest.raises(ParameterError, match="seed"):
        A.check_prim(spanning.prim_mst, seed=-1)
    with pytest.raises(ParameterError, match="n_cases"):
        A.check_prim(spanning.prim_mst, n_cases=0)
    with pytest.raises(ParameterError, match="student_fn"):
        A.check_prim("prim")


def test_student_inputs_are_copies():
    def vandal(dist):
        parents = spanning.prim_mst(dist)
        dist[:] = 0
        return parents

    A.check_prim(vandal, n_cases=10)


# --------------------------------------------------------------------------------------------
# A1: Prim, UUAS, perceptron loss


def kruskal(dist):
    """Kruskal with row-major tie order (the structural-probes code's 'Prim')."""
    n = len(dist)
    root = list(range(n))

    def find(u):
        while root[u] != u:
            u = root[u]
        return u

    edges = []
    for i, j in sorted(itertools.combinations(range(n), 2), key=lambda e: dist[e]):
        if find(i) != find(j):
            root[find(i)] = find(j)
            edges.append((i, j))
    heads = distances.heads_from_tree_distances(
        distances.floyd_warshall(_adjacency(n, edges)).astype(int)
    )
    return structure.parents_from_heads(heads)


def _adjacency(n, edges):
    adj = np.full((n, n), np.inf)
    np.fill_diagonal(adj, 0)
    for i, j in edges:
        adj[i, j] = adj[j, i] = 1
    return adj


def prim_strict_update(dist):
    """Prim whose parent ties keep the earliest-added tree vertex (a strict '<' update)."""
    n = len(dist)
    parents, best, in_tree = np.zeros(n, int), dist[0].astype(float).copy(), np.zeros(n, bool)
    parents[0], in_tree[0] = -1, True
    for _ in range(n - 1):
        u = int(np.argmin(np.where(in_tree, np.inf, best)))
        in_tree[u] = True
        nearer = (dist[u] < best) & ~in_tree
        best[nearer], parents[nearer] = dist[u, nearer], u
    return parents


def nearest_neighbour(dist):
    """Each vertex points to its nearest other vertex: not a tree in general."""
    d = np.asarray(dist, float) + np.diag(np.full(len(dist), np.inf))
    parents = np.argmin(d, axis=1) if len(dist) > 1 else np.array([-1])
    parents[0] = -1
    return parents


def greedy_path(dist):
    """Attach each new vertex to the last one added: a path, heavier than the MST."""
    n = len(dist)
    parents, in_tree, last = np.full(n, -1), np.zeros(n, bool), 0
    in_tree[0] = True
    for _ in range(n - 1):
        u = int(np.argmin(np.where(in_tree, np.inf, dist[last])))
        parents[u], in_tree[u], last = last, True, u
    return parents


def test_check_prim(capsys):
    ok(A.check_prim, spanning.prim_mst, capsys)
    fails(A.check_prim, kruskal, "tie rule", "lowest-index")
    fails(A.check_prim, prim_strict_update, "tie rule")
    fails(A.check_prim, nearest_neighbour, "not a spanning tree")
    # Single cases without ties (case 0 of a seed) isolate the weight error from the tie rule.
    messages = []
    for seed in range(10):
        try:
            A.check_prim(greedy_path, seed=seed, n_cases=1)
        except AssertionError as exc:
            messages.append(str(exc))
    assert messages and all("heavier than the minimum" in m for m in messages)


def uuas_macro(pred, gold):
    correct, total = metrics.uuas_counts(pred, gold)
    keep = total > 0
    return float(np.mean(correct[keep] / total[keep]))


def uuas_per_word(pred, gold):
    correct, _ = metrics.uuas_counts(pred, gold)
    return float(correct.sum() / sum(len(h) for h in gold))


def test_check_uuas(capsys):
    ok(A.check_uuas, metrics.uuas, capsys)
    fails(A.check_uuas, uuas_macro, "micro average")
    fails(A.check_uuas, uuas_per_word, "n - 1 per sentence")


def _weight(dist, parents):
    child = np.flatnonzero(parents >= 0)
    return float(dist[child, parents[child]].sum())


def test_check_perceptron_loss(capsys):
    def library(dist, heads):
        import torch

        from probekit.probes.perceptron import gold_edge_mask, perceptron_loss

        sq = torch.as_tensor(dist**2)[None]
        mask = torch.as_tensor(gold_edge_mask(heads))[None]
        return float(perceptron_loss(sq, mask, torch.tensor([len(heads)]))[0])

    def squared(dist, heads):
        sq = dist**2
        return _weight(sq, structure.parents_from_heads(heads)) - _weight(sq, spanning.prim_mst(sq))

    def gold_only(dist, heads):
        return _weight(dist, structure.parents_from_heads(heads))

    ok(A.check_perceptron_loss, library, capsys)
    fails(A.check_perceptron_loss, squared, "not their squares")
    fails(A.check_perceptron_loss, gold_only, "minimum spanning tree")


# --------------------------------------------------------------------------------------------
# A2: inflection


def lib_add_s(stem, verb):
    return inflect_set(stem, "VERB:Pres3Sg" if verb else "NOUN:Plur")


def lib_add_ing(stem):
    return inflect_set(stem, "VERB:PresPart")


def lib_add_degree(stem, suffix):
    return inflect_set(stem, "ADJ:Cmp" if suffix == "er" else "ADJ:Sup")


def test_check_add_s(capsys):
    ok(A.check_add_s, lib_add_s, capsys)
    fails(A.check_add_s, lambda stem, verb: stem + "s", "-es")

    def no_y_to_i(stem, verb):
        return stem + "s" if stem.endswith("y") else lib_add_s(stem, verb)

    fails(A.check_add_s, no_y_to_i, "[consonant y]", "flies")

    def es_for_nouns_too(stem, verb):
        return lib_add_s(stem, True)

    fails(A.check_add_s, es_for_nouns_too, "[consonant o]", "memos")


def test_check_add_ing(capsys):
    ok(A.check_add_ing, lib_add_ing, capsys)

    def no_e_deletion(stem):
        if stem.endswith("e") and not stem.endswith(("ee", "ie", "oe", "ye")):
            return stem + "ing"
        return lib_add_ing(stem)

    fails(A.check_add_ing, no_e_deletion, "[silent e]", "bake -> baking")

    def always_double(stem):
        """Doubles after one vowel letter + consonant, whatever the number of syllables."""
        single_vowel = stem[-2] in "aeiou" and (len(stem) < 3 or stem[-3] not in "aeiouy")
        if stem[-1] in "bdgklmnprt" and single_vowel and not stem.endswith("e"):
            return stem + stem[-1] + "ing"
        return lib_add_ing(stem)

    fails(A.check_add_ing, always_double, "[two syllables]", "visiting")

    def never_double(stem):
        out = lib_add_ing(stem)
        return stem + "ing" if out == stem + stem[-1] + "ing" else out

    fails(A.check_add_ing, never_double, "[cvc]", "stopping")


def test_check_add_degree(capsys):
    ok(A.check_add_degree, lib_add_degree, capsys)

    def no_e_deletion(stem, suffix):
        return stem + suffix if stem.endswith("e") else lib_add_degree(stem, suffix)

    fails(A.check_add_degree, no_e_deletion, "after a final e add only -r / -st")

    def no_y_to_i(stem, suffix):
        return stem + suffix if stem.endswith("y") else lib_add_degree(stem, suffix)

    fails(A.check_add_degree, no_y_to_i, "[consonant y]", "happier")


def test_spelling_helpers_follow_the_library():
    assert is_vowel_letter("fly", 2) and not is_vowel_letter("yes", 0)
    assert not is_vowel_letter("quit", 1)
    assert vowel_groups("bake") == 1 and vowel_groups("visit") == 2


def test_generated_stems_cover_every_category():
    cases = A2._stem_cases(seed=3, n_cases=48)
    assert {c for c, _ in cases} == set(A2._STEM_CATEGORIES)
    assert all(re.fullmatch(r"[a-z]{2,}", stem) for _, stem in cases)


def inflect_as(stem, name):
    return inflect_set(stem, name)


def test_rule_coverage_on_the_fixture():
    from probekit.io.treebanks import read_conllu

    sentences = read_conllu(FIXTURES / "jabberwocky_src.conllu")
    rules = {name: functools.partial(inflect_as, name=name) for name in FEATURE_SETS}
    by_set, misses = A.rule_coverage(sentences, rules)
    assert by_set["words"].sum() > 5
    # The one irregular form; "gon" of "gonna" is inside a multiword token and skipped.
    assert list(zip(misses["lemma"], misses["form"], strict=True)) == [("well", "best")]
    broken = dict(rules, **{"NOUN:Plur": lambda s: s + "z"})
    by_set, misses = A.rule_coverage(sentences, broken, top=1)
    assert by_set.loc["NOUN:Plur", "reproduced"] < 1 and len(misses) == 1
    assert misses.iloc[0]["predicted"].endswith("z")


# --------------------------------------------------------------------------------------------
# A3: Pareto frontier and hypervolume


def frontier_drops_copies(c, a):
    c, a = np.asarray(c), np.asarray(a)
    idx = range(len(c))
    return [i for i in idx if not any(j != i and c[j] <= c[i] and a[j] >= a[i] for j in idx)]


def frontier_strict_both(c, a):
    c, a = np.asarray(c), np.asarray(a)
    idx = range(len(c))
    return [i for i in idx if not any(c[j] < c[i] and a[j] > a[i] for j in idx)]


def test_check_pareto_frontier(capsys):
    ok(A.check_pareto_frontier, frontier.pareto_frontier, capsys)
    fails(A.check_pareto_frontier, frontier_drops_copies, "exact copies")
    fails(A.check_pareto_frontier, frontier_strict_both, "is dominated by probe")


def lib_hypervolume(c, a, cap, floor):
    return frontier.hypervolume(c, a, cap, min_accuracy=floor)


def hypervolume_no_cap(c, a, cap, floor):
    c, a = np.asarray(c), np.asarray(a)
    front = frontier.pareto_frontier(c, a)
    if not len(front):
        return 0.0
    x = np.r_[c[front], cap]
    return float(np.sum(np.diff(x) * np.clip(a[front] - floor, 0, None)) / (cap * (1 - floor)))


def test_check_hypervolume(capsys):
    ok(A.check_hypervolume, lib_hypervolume, capsys)
    fails(A.check_hypervolume, hypervolume_no_cap, "beyond the cap")
    fails(
        A.check_hypervolume,
        lambda c, a, cap, floor: frontier.hypervolume(
            c, a, cap, min_accuracy=floor, normalise=False
        ),
        "normalise",
    )


def test_lookup_family():
    words = ["a", "a", "a", "b", "b", "c"]
    tags = ["X", "X", "X", "Y", "Y", "Z"]
    table = A.lookup_family(words, tags, ["a", "b", "c", "d"], ["X", "Y", "Z", "X"], [0, 1, 2, 9])
    assert table["complexity"].tolist() == [0, 1, 2, 3]  # cut to the vocabulary
    assert table["accuracy"].tolist() == [0.5, 0.5, 0.75, 1.0]
    rand = A.lookup_family(words, tags, words, tags, [1, 2], order="random", seed=5)
    assert rand.equals(A.lookup_family(words, tags, words, tags, [1, 2], order="random", seed=5))
    with pytest.raises(ParameterError, match="order"):
        A.lookup_family(words, tags, words, tags, [1], order="size")


# --------------------------------------------------------------------------------------------
# A4: percentile, frequency score, split


def test_check_percentile(capsys):
    from probekit.methods.extrapolation.splits import percentile

    ok(A.check_percentile, percentile, capsys)
    fails(A.check_percentile, lambda s, q: float(np.percentile(s, 100 * q)), "interpolate")
    fails(A.check_percentile, lambda s, q: float(np.sort(s)[int(q * (len(s) - 1))]), "int(q * n)")


def test_check_frequency_score(capsys):
    ok(A.check_frequency_score, A.frequency_score, capsys)
    fails(A.check_frequency_score, lambda t, f: A.frequency_score(f, f), "*training* tokens")
    fails(
        A.check_frequency_score,
        lambda t, f: np.array([float(Counter(t.tolist())[w]) for w in f]),
        "higher must mean harder",
    )


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from("abcde"), min_size=1, max_size=30))
def test_frequency_score_is_decreasing_in_the_count(train):
    forms = list("abcdefg")
    scores = A.frequency_score(train, forms)
    counts = Counter(train)
    assert np.all((scores > 0) & (scores <= 1))
    for x, y in itertools.combinations(range(len(forms)), 2):
        if counts[forms[x]] < counts[forms[y]]:
            assert scores[x] > scores[y]
    assert scores[-1] == 1.0  # "g" never occurs in training


def test_check_extrapolation_split(capsys):
    ok(A.check_extrapolation_split, A4._reference_split, capsys)

    def non_strict(train, evals):
        m1, m2 = np.sort(train)[len(train) // 2], np.sort(evals)[int(0.75 * len(evals))]
        return train <= m1, evals >= m2

    def m2_from_train(train, evals):
        m1, m2 = np.sort(train)[len(train) // 2], np.sort(train)[int(0.75 * len(train))]
        return train < m1, evals > m2

    fails(A.check_extrapolation_split, non_strict, "strict")
    fails(
        A.check_extrapolation_split,
        lambda t, e: (t <= np.sort(t)[len(t) // 2], e > np.sort(e)[int(0.75 * len(e))]),
        "easy is strict",
    )
    fails(A.check_extrapolation_split, m2_from_train, "*evaluation* scores")


# --------------------------------------------------------------------------------------------
# A5: McNemar and power


def lib_mcnemar(a, b):
    return mcnemar.mcnemar_exact(mcnemar.mcnemar_table(a, b)).p_value


def test_check_mcnemar(capsys):
    ok(A.check_mcnemar, lib_mcnemar, capsys)

    def one_sided(a, b):
        n01, n10 = int(np.sum(~a & b)), int(np.sum(a & ~b))
        return 1.0 if n01 + n10 == 0 else float(stats.binom.cdf(min(n01, n10), n01 + n10, 0.5))

    def chi2(a, b):
        return mcnemar.mcnemar_chi2(mcnemar.mcnemar_table(a, b)).p_value

    fails(A.check_mcnemar, one_sided, "two-sided")
    fails(A.check_mcnemar, chi2, "exact binomial test")


def lib_power(props, n, alpha, n_sim, seed):
    return power.power(props, n, alpha=alpha, n_sim=n_sim, seeds=(seed,)).power


def test_check_power(capsys):
    ok(A.check_power, lib_power, capsys, n_cases=12)

    def either_sign(props, n, alpha, n_sim, seed):
        return power.power(props, n, alpha=alpha, n_sim=n_sim, seeds=(seed,)).rejection_rate

    def one_sided(props, n, alpha, n_sim, seed):
        counts = np.random.default_rng(seed).multinomial(n, props.ravel(), size=n_sim)
        n01, n10 = counts[:, 1], counts[:, 2]
        d = n01 + n10
        p = np.where(d == 0, 1.0, stats.binom.cdf(np.minimum(n01, n10), d, 0.5))
        right = np.sign(n10 - n01) == np.sign(props[1, 0] - props[0, 1])
        return float(np.mean((p <= alpha) & right))

    fails(A.check_power, either_sign, "sign of the true effect", n_cases=12)
    fails(A.check_power, one_sided, "two-sided", n_cases=12)


def test_check_power_on_a_case_of_certain_rejection(capsys):
    """Seed 35413390 draws, as its third case, a table whose exact power sums to a hair above 1
    in floating point; the check once failed there with a math domain error."""
    ok(A.check_power, lib_power, capsys, seed=35413390, n_cases=3)
    assert 0.0 <= A.exact_power(np.array([[0.0, 0.0], [0.9, 0.1]]), 200) <= 1.0


def brute_force_power(props, n, alpha):
    """Sum the multinomial probability of every count table that detects the effect."""
    p = props.ravel()
    effect = p[2] - p[1]
    if effect == 0:
        return 0.0
    total = 0.0
    for n00 in range(n + 1):
        for n01 in range(n + 1 - n00):
            for n10 in range(n + 1 - n00 - n01):
                counts = [n00, n01, n10, n - n00 - n01 - n10]
                pmf = stats.multinomial.pmf(counts, n, p)
                table = np.array(counts).reshape(2, 2)
                significant = mcnemar.mcnemar_exact(table).p_value <= alpha
                if significant and np.sign(n10 - n01) == np.sign(effect):
                    total += pmf
    return total


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4),
    st.integers(1, 9),
    st.sampled_from([0.05, 0.2, 0.5]),
)
def test_exact_power_equals_brute_force_enumeration(weights, n, alpha):
    props = (np.array(weights) / sum(weights)).reshape(2, 2)
    assert math.isclose(
        A.exact_power(props, n, alpha), brute_force_power(props, n, alpha), abs_tol=1e-9
    )


def test_exact_power_agrees_with_the_library_simulation():
    props = np.array([[0.1, 0.08], [0.14, 0.68]])
    exact = A.exact_power(props, 250)
    simulated = power.power(props, 250, n_sim=4000, seeds=(0,)).power
    assert abs(simulated - exact) < 4.5 * math.sqrt(exact * (1 - exact) / 4000)
    assert A.exact_power(np.array([[0.3, 0.1], [0.1, 0.5]]), 100) == 0.0
    with pytest.raises(ParameterError, match="joint_props"):
        A.exact_power(np.ones((2, 2)), 10)


# --------------------------------------------------------------------------------------------
# Student copies


SYNTHETIC = '''# ---
# jupyter:
#   kernelspec:
#     name: python3
# ---

# %% [markdown]
# ## Task 1: something

# %% tags=["hide-input", "keep-me"]
def f(x):
    """Docstring stays."""
    ### BEGIN SOLUTION
    y = x + 1
    return y
    ### END SOLUTION


class C:
    def g(self):
        ### BEGIN SOLUTION
        return 2
        ### END SOLUTION

# %% [markdown]
# ```{dropdown} Hint
# Hints stay.
# ```

# %% [markdown] tags=["solution"]
# The model answer.

# %%
print(f(1))
'''


STUDENT = '''# ---
# jupyter:
#   kernelspec:
#     name: python3
# ---

# %% [markdown]
# ## Task 1: something

# %% tags=["keep-me"]
def f(x):
    """Docstring stays."""
    raise NotImplementedError("Task 1: your code here")


class C:
    def g(self):
        raise NotImplementedError("Task 1: your code here")

# %% [markdown]
# ```{dropdown} Hint
# Hints stay.
# ```

# %% [markdown]
# *Your answer here.*

# %%
print(f(1))
'''


def test_student_source_on_a_synthetic_notebook():
    """Exactly the solution blocks, the hide-input tag and the model answer change."""
    out = A.student_source(SYNTHETIC)
    assert out == STUDENT
    ast.parse(out)


@pytest.mark.parametrize(
    "body, message",
    [
        ("    ### BEGIN SOLUTION\n    x = 1\n", "never closed"),
        ("    x = 1\n    ### END SOLUTION\n", "without a BEGIN"),
        ("    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    ### END SOLUTION\n", "inside"),
    ],
)
def test_unbalanced_markers_name_the_line(body, message):
    text = "# %%\ndef f():\n" + body
    with pytest.raises(ProbekitError, match=rf"nb\.py:\d+: .*{message}"):
        A.student_source(text, "nb.py")


def test_markers_in_markdown_are_rejected():
    with pytest.raises(ProbekitError, match="markdown"):
        A.student_source("# %% [markdown]\n# ### BEGIN SOLUTION\n# ### END SOLUTION\n", "nb.py")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.lists(st.from_regex(r"[a-z]{1,6} = [0-9]{1,3}", fullmatch=True), min_size=1),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_student_source_removes_every_solution_line(blocks):
    lines, solution = [], []
    for k, (depth, body) in enumerate(blocks):
        lines.append(f'# %% [markdown]\n# ## Task {k + 1}: t\n\n# %% tags=["hide-input"]')
        lines.append(f"def f{k}():")
        indent = "    " * depth
        for d in range(1, depth):
            lines.append("    " * d + "if True:")
        lines.append(indent + A.SOLUTION_BEGIN)
        lines += [indent + f"{s}_{k}" for s in body]
        solution += [f"{s}_{k}" for s in body]
        lines.append(indent + A.SOLUTION_END)
        lines.append(indent + "pass")
    out = A.student_source("\n".join(lines) + "\n")
    ast.parse(out)
    stripped = {line.strip() for line in out.splitlines()}
    assert not stripped & set(solution)
    for k in range(len(blocks)):
        assert f'raise NotImplementedError("Task {k + 1}: your code here")' in out
    assert "hide-input" not in out


def solution_lines(text):
    """Stripped non-blank lines between the markers."""
    inside, out = False, []
    for line in text.splitlines():
        if line.strip() == A.SOLUTION_BEGIN:
            inside = True
        elif line.strip() == A.SOLUTION_END:
            inside = False
        elif inside and line.strip():
            out.append(line.strip())
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_student_copy_of_each_assignment(path):
    text = path.read_text()
    out = A.student_source(text, str(path))
    ast.parse(out)
    assert A.SOLUTION_BEGIN not in out and A.SOLUTION_END not in out
    assert solution_lines(text), "the assignment has no solution block"
    survivors = set(solution_lines(text)) & {line.strip() for line in out.splitlines()}
    assert not survivors, survivors
    assert out.count("raise NotImplementedError(") == text.count(A.SOLUTION_BEGIN)
    assert out.count("{dropdown} Hint") == text.count("{dropdown} Hint") > 0
    assert "Model answer" not in out and 'tags=["solution"]' not in out
    nb = jupytext.reads(out, fmt="py:percent")
    for cell in nb.cells:
        if "NotImplementedError" in cell.source:
            assert "hide-input" not in cell.metadata.get("tags", [])
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells)


def _task_cells(text, overrides):
    """The sources of the cells the grader runs (up to the run-and-interpret task), with the
    parameters overridden after their cell."""
    nb = jupytext.reads(text, fmt="py:percent")
    sources = []
    for cell in task_cells(nb):
        sources.append(cell.source)
        if "parameters" in nb.cells[cell.index].metadata.get("tags", []):
            sources.append("\n".join(f"{k} = {v!r}" for k, v in overrides.items()))
    return sources


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_student_copy_checks_raise_not_implemented(path, capsys):
    namespace: dict = {}
    checks = 0
    for source in _task_cells(A.student_source(path.read_text()), {"n_cases": 3}):
        if "teaching.check_" in source:
            checks += 1
            with pytest.raises(NotImplementedError, match="your code here"):
                exec(source, namespace)
        else:
            exec(source, namespace)  # any other error here is a crash elsewhere
    assert checks >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_solutions_pass_their_checks(path, capsys):
    namespace: dict = {}
    for source in _task_cells(path.read_text(), {"seed": 1}):
        exec(source, namespace)
    passed = re.findall(r"✓ (\w+) passed on (\d+) cases", capsys.readouterr().out)
    assert len(passed) >= 2 and all(int(n) > 0 for _, n in passed)


def test_write_student_copies_py_and_ipynb(tmp_path):
    written = A.write_student_copies(tmp_path / "py")
    assert [p.name for p in written] == [p.name for p in NOTEBOOKS]
    assert written[0].read_text() == A.student_source(NOTEBOOKS[0].read_text())
    notebooks = A.write_student_copies(tmp_path / "nb", fmt="ipynb")
    nb = jupytext.read(notebooks[0])
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "raise NotImplementedError" in "\n".join(c.source for c in nb.cells)
    with pytest.raises(ParameterError, match="format"):
        A.write_student_copies(tmp_path / "x", fmt="md")
    with pytest.raises(ProbekitError, match="no assignment notebooks"):
        A.write_student_copies(tmp_path / "y", notebooks_dir=tmp_path)


def test_cli_assignments(tmp_path, capsys):
    assert cli_main(["assignments", "--student", str(tmp_path / "out")]) == 0
    assert "student copies" in capsys.readouterr().out
    assert len(list((tmp_path / "out").glob("A*.py"))) == len(NOTEBOOKS)
    (tmp_path / "file").write_text("")
    assert cli_main(["assignments", "--student", str(tmp_path / "file")]) == 2
    assert "not a directory" in capsys.readouterr().err
