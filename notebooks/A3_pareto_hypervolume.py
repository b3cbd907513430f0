# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-a3)=
# # Assignment 3 · Pareto frontiers and hypervolume
#
# **Paper.** {cite:t}`pimentel2020pareto` argue that a probe's accuracy alone says little: a more
# complex probe can learn the task itself.
# They train many probes of different complexity, keep those on the Pareto frontier (no other
# probe is both simpler and more accurate), and summarise a representation by the area its
# frontier dominates, the *hypervolume*, bounded by a maximum complexity and normalised to
# $[0, 1]$.
#
# **You will** implement the frontier and the bounded, normalised hypervolume, check them
# against `probekit.methods.pareto`, and then apply them to a family of probes you can train in a
# second: part-of-speech lookup tables whose complexity is their number of entries.
#
# **You will learn** what a frontier keeps and discards, and how strongly the cap on complexity
# decides which representation "wins".
#
# ```{admonition} How to work on this assignment
# :class: tip
# Instructors hand out the student copy written by `probekit assignments --student OUT`.
# In it, each function you write ends in `raise NotImplementedError`; replace that line with your
# code and run the check cell below the function.
# A failed check shows the smallest input on which your function is wrong, the expected and the
# returned value, and a hint.
# On this page the solutions are hidden: click a cell's toggle to reveal one.
# ```

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # not used in this assignment (it needs no encoder); kept for uniformity
seed: int = 0  # seed of the generated check cases and of the random lookup tables
n_cases: int = 50  # generated cases per check
sizes: list[int] = [0, 10, 30, 100, 300, 1000, 3000, 10000]  # lookup-table sizes (entries)
max_complexity: int = 1000  # the cap on complexity (table entries) for the hypervolume
# fmt: on

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from probekit import teaching
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.io import treebanks
from probekit.methods.pareto import frontier

plots.use_style()
g = Glue("a3")

# %% [markdown]
# ## Task 1: the Pareto frontier
#
# Each probe is a point (complexity $c$, accuracy $a$); lower complexity and higher accuracy are
# better.
# Probe $j$ *dominates* probe $i$ when $c_j \le c_i$ and $a_j \ge a_i$, with at least one of the
# two inequalities strict.
# The frontier is the set of probes that no other probe dominates.
#
# Write `pareto_frontier(complexity, accuracy)`: it takes two arrays of shape `(n,)` and returns
# the indices of the frontier probes (in any order).
# Note the edge cases: two probes with exactly the same point do not dominate each other, so both
# stay; a probe as complex as another but less accurate is dominated.
#
# ```{dropdown} Hint
# For every probe `i`, build boolean arrays over all probes for "at most as complex", "at least
# as accurate" and "strictly better in one of the two"; `i` is dominated if some probe satisfies
# all three.
# An $O(n^2)$ solution is fine here.
# ```


# %% tags=["hide-input"]
def pareto_frontier(complexity: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Indices of the probes that no other probe dominates; inputs of shape (n,)."""
    ### BEGIN SOLUTION
    c = np.asarray(complexity, dtype=float)
    a = np.asarray(accuracy, dtype=float)
    keep = []
    for i in range(len(c)):
        better = (c <= c[i]) & (a >= a[i]) & ((c < c[i]) | (a > a[i]))
        if not better.any():
            keep.append(i)
    return np.array(keep, dtype=int)
    ### END SOLUTION


# %%
teaching.check_pareto_frontier(pareto_frontier, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: the bounded, normalised hypervolume
#
# Think of the frontier as a staircase: for a complexity budget $x$, let $h(x)$ be the best
# accuracy of any probe with complexity at most $x$.
# The hypervolume is the area under $h(x) - a_{\min}$ for $x$ from 0 to the cap
# $c_{\max}$, divided by the area of the box $c_{\max} (1 - a_{\min})$:
#
# $$\mathrm{HV} = \frac{1}{c_{\max} (1 - a_{\min})} \int_0^{c_{\max}}
#   \max\bigl(h(x) - a_{\min}, 0\bigr)\, dx .$$
#
# Write `hypervolume(complexity, accuracy, max_complexity, min_accuracy)`.
# Probes beyond the cap fit no budget and are left out.
# Left of the simplest probe no probe fits the budget, so that stretch adds nothing.
# Between two frontier probes the staircase stays flat (a budget between them only buys the
# simpler one).
# With no probe inside the cap the hypervolume is 0.
#
# ```{dropdown} Hint
# Filter the probes to `complexity <= max_complexity`, take their frontier with your Task 1
# function, and sort it by complexity.
# With frontier complexities $x_1 \le \dots \le x_k$ and accuracies $h_1 \le \dots \le h_k$, the
# area is $\sum_m (x_{m+1} - x_m) \max(h_m - a_{\min}, 0)$ with $x_{k+1} = c_{\max}$.
# ```


# %% tags=["hide-input"]
def hypervolume(
    complexity: np.ndarray, accuracy: np.ndarray, max_complexity: float, min_accuracy: float
) -> float:
    """Area dominated by the probes within the cap, normalised by the reference box."""
    ### BEGIN SOLUTION
    c = np.asarray(complexity, dtype=float)
    a = np.asarray(accuracy, dtype=float)
    inside = c <= max_complexity
    c, a = c[inside], a[inside]
    on_frontier = pareto_frontier(c, a)
    if len(on_frontier) == 0:
        return 0.0
    order = np.argsort(c[on_frontier], kind="stable")
    x = np.append(c[on_frontier][order], max_complexity)
    h = np.clip(a[on_frontier][order] - min_accuracy, 0, None)
    return float(np.sum(np.diff(x) * h) / (max_complexity * (1 - min_accuracy)))
    ### END SOLUTION


# %%
teaching.check_hypervolume(hypervolume, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: run and interpret
#
# The probes here are the dictionary-lookup taggers of the paper's appendix B, restricted to a
# table of $k$ word types: a word in the table gets its most frequent training tag, any other
# word the most frequent tag overall.
# The complexity of such a probe is $k$, its number of entries.
# Two representations of the words are compared: the forms as written (*cased*) and the
# lower-cased forms.
# For each, the family holds tables of the most frequent training words and tables of random
# training words, of the sizes given by the `sizes` parameter; accuracy is measured on the
# development split.
# Your functions then find each family's frontier and hypervolume, at the cap
# `max_complexity` and at the largest table size.

# %%
tb = treebanks.load_treebank(treebank)
train_forms = treebanks.flat(tb["train"], "forms")
train_tags = treebanks.flat(tb["train"], "upos")
dev_forms = treebanks.flat(tb["dev"], "forms")
dev_tags = treebanks.flat(tb["dev"], "upos")
views = {"cased": lambda w: w, "lower-cased": np.char.lower}
families = []
for name, view in views.items():
    for order in ("frequency", "random"):
        points = teaching.lookup_family(
            view(train_forms), train_tags, view(dev_forms), dev_tags, sizes, order=order, seed=seed
        )
        families.append(points.assign(representation=name, tables=order))
probes = pd.concat(families, ignore_index=True)
full_cap = max(float(probes["complexity"].max()), 1.0)
rows = []
for name, group in probes.groupby("representation", sort=False):
    c, a = group["complexity"].to_numpy(float), group["accuracy"].to_numpy()
    front = pareto_frontier(c, a)
    rows.append(
        {
            "representation": name,
            "frontier probes": len(front),
            "random tables on it": int((group["tables"].to_numpy()[front] == "random").sum()),
            "best accuracy": a.max(),
            f"HV (cap {max_complexity:,})": hypervolume(c, a, max_complexity, 0.0),
            f"HV (cap {full_cap:,.0f})": hypervolume(c, a, full_cap, 0.0),
        }
    )
summary = pd.DataFrame(rows).set_index("representation")
display(summary.style.format(precision=3))

# %% tags=["remove-cell"]
fig, ax = plt.subplots(figsize=(plots.WIDTH, 4.2))
for (name, group), colour in zip(
    probes.groupby("representation", sort=False), ("C0", "C1"), strict=True
):
    c, a = group["complexity"].to_numpy(float), group["accuracy"].to_numpy()
    x, h = frontier.frontier_staircase(c, a, full_cap)
    ax.step(x, 100 * h, where="post", color=colour, label=f"{name} frontier")
    for tables, marker in (("frequency", "o"), ("random", "x")):
        sel = group["tables"] == tables
        ax.scatter(
            group.loc[sel, "complexity"].clip(lower=1),
            100 * group.loc[sel, "accuracy"],
            color=colour,
            marker=marker,
            label=f"{name}, {tables} tables",
        )
ax.axvline(max_complexity, color="0.4", linestyle=":", label="cap")
ax.set_xscale("log")
ax.set_xlabel("complexity (table entries, log scale; 0 drawn at 1)")
ax.set_ylabel("POS accuracy on dev (%)")
ax.legend(fontsize="small", ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
g.figure("fig_frontiers", fig)

hv_cap = summary.iloc[:, 3]
hv_full = summary.iloc[:, 4]
g("cap", max_complexity)
g("full_cap", full_cap)
g("n_probes", len(probes))
g("winner_cap", str(hv_cap.idxmax()))
g("winner_full", str(hv_full.idxmax()))
g("hv_cased_cap", float(hv_cap["cased"]))
g("hv_lower_cap", float(hv_cap["lower-cased"]))
g("hv_cased_full", float(hv_full["cased"]))
g("hv_lower_full", float(hv_full["lower-cased"]))
g("random_on_frontier", int(summary["random tables on it"].sum()))
g("best_cased", 100 * float(summary.loc["cased", "best accuracy"]))
g("best_lower", 100 * float(summary.loc["lower-cased", "best accuracy"]))
freq = probes[probes["tables"] == "frequency"].pivot(
    index="complexity", columns="representation", values="accuracy"
)
cased_ahead = freq["cased"] > freq["lower-cased"]
lower_ahead = freq["lower-cased"] > freq["cased"]


def sizes_text(mask: pd.Series) -> str:
    return ", ".join(f"{int(k):,}" for k in freq.index[mask])


if cased_ahead.any() and lower_ahead.any():
    crossing = (
        f"cross: the cased table is ahead at {sizes_text(cased_ahead)} entries, the lower-cased "
        f"one at {sizes_text(lower_ahead)}"
    )
else:
    leader = "cased" if cased_ahead.any() else "lower-cased"
    crossing = f"do not cross: the {leader} table is at least as accurate at every size"
g("crossing", crossing)
g("same_winner", "the same" if hv_cap.idxmax() == hv_full.idxmax() else "a different")

# %% [markdown]
# ```{glue:figure} a3_fig_frontiers
# :name: fig-a3-frontiers
#
# Lookup-table probes of both representations (circles: most frequent words; crosses: random
# words) and the frontiers your functions found. The dotted line is the cap.
# ```
#
# **Questions.**
#
# 1. Why are tables of random words (almost) never on a frontier?
# 2. Which representation has the larger hypervolume at the cap, and at the largest table size?
#    Could the ranking depend on the cap? Look in the figure for a crossing of the staircases.
# 3. What would happen to a representation whose simplest probe is already very accurate but very
#    complex, if the hypervolume were not bounded by a cap?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# Of the {glue:text}`a3_n_probes:d` probes, {glue:text}`a3_random_on_frontier:d` random tables lie
# on a frontier.
# A table of $k$ random words spends its entries on rare words, while a table of the $k$ most
# frequent words covers far more tokens for the same complexity, so the frequency table of the
# same size dominates it.
# The only exception is $k = 0$: both tables are empty, give the same point, and exact copies do
# not dominate each other, so both stay on the frontier.
#
# At the cap of {glue:text}`a3_cap:,d` entries the {glue:text}`a3_winner_cap` forms have the larger
# hypervolume (cased {glue:text}`a3_hv_cased_cap:.3f`, lower-cased
# {glue:text}`a3_hv_lower_cap:.3f`); with the cap at the largest table,
# {glue:text}`a3_full_cap:,.0f` entries, the winner is the {glue:text}`a3_winner_full` forms (cased
# {glue:text}`a3_hv_cased_full:.3f`, lower-cased {glue:text}`a3_hv_lower_full:.3f`), so the
# cap gives {glue:text}`a3_same_winner` ranking here.
# The frequency tables of the two representations {glue:text}`a3_crossing`.
# Lower-casing merges *The* and *the*, so a table of a given size covers more tokens; keeping the
# case could help a large table tell proper nouns from common nouns, and the best accuracies show
# whether it does (cased {glue:text}`a3_best_cased:.1f` %, lower-cased
# {glue:text}`a3_best_lower:.1f` %).
# The hypervolume weighs every budget up to the cap equally, so where the staircases cross, the cap
# decides the ranking.
#
# Without a cap, the right end of the staircase would be the most complex probe seen, which
# differs between representations, and a single very complex probe would stretch the box and
# change every normalised area; with a cap the comparison asks one fixed question: how accurate can
# a probe of at most this complexity be?
# A representation whose simplest probe is very complex gains nothing for the budgets below it,
# which is the paper's point: accuracy that only a complex probe reaches is not credited to the
# representation.
# ```
