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
# (sec-a5)=
# # Assignment 5 · McNemar's test and statistical power
#
# **Paper.** {cite:t}`zhu2022data` ask how much data a probing comparison needs.
# Two configurations A and B are scored on the same test items, so their results are paired:
# McNemar's test looks only at the *discordant* items, where exactly one of the two is right.
# The *power* of the test is the probability that a test set of a given size detects the true
# difference, with the right sign; the paper estimates it by simulating test sets from the
# observed proportions and asks for a power of at least 0.8.
#
# **You will** implement McNemar's exact test and power by simulation, check them against
# `probekit.stats`, and use them to compare two part-of-speech taggers on the treebank: how many
# test tokens does it take to tell them apart?
#
# **You will learn** to read a non-significant result together with its power, and to size a
# test set before running the comparison.
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
seed: int = 0  # seed of the generated check cases, the simulations and the pilot sample
n_cases: int = 20  # generated cases per check
alpha: float = 0.05  # significance level
n_sim: int = 2000  # simulated test sets per power estimate
test_sizes: list[int] = [100, 300, 1000, 3000, 10000, 30000]  # test sizes of the power curve
pilot: int = 300  # test tokens of the small pilot comparison
fraction: float = 0.75  # share of the training sentences that tagger B learns from
# fmt: on

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

from probekit import teaching
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.io import treebanks
from probekit.methods.pareto import lookups
from probekit.stats.comparison import compare
from probekit.stats.mcnemar import mcnemar_table
from probekit.stats.power import POWER_THRESHOLD

plots.use_style()
g = Glue("a5")

# %% [markdown]
# ## Task 1: McNemar's exact test
#
# Lay out the paired results as in Table 1 of the paper: $n_{01}$ items only B gets right,
# $n_{10}$ items only A gets right.
# If A and B are equally good, each of the $d = n_{01} + n_{10}$ discordant items is equally
# likely to fall on either side, so $n_{10} \sim \mathrm{Binomial}(d, 1/2)$.
# The exact two-sided p-value doubles the smaller tail,
#
# $$p = \min\bigl(1,\; 2 \, P(X \le \min(n_{01}, n_{10}))\bigr), \qquad X \sim
#   \mathrm{Binomial}(d, 1/2),$$
#
# and is 1 when there are no discordant items.
# Write `mcnemar_p(correct_a, correct_b)` for two boolean arrays of shape `(n,)`.
#
# ```{dropdown} Hint
# `~a & b` marks the items only B gets right.
# `scipy.stats.binom.cdf(k, d, 0.5)` is $P(X \le k)$.
# ```


# %% tags=["hide-input"]
def mcnemar_p(correct_a: np.ndarray, correct_b: np.ndarray) -> float:
    """Two-sided exact McNemar p-value of paired correctness vectors of shape (n,)."""
    ### BEGIN SOLUTION
    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    n01, n10 = int(np.sum(~a & b)), int(np.sum(a & ~b))
    if n01 + n10 == 0:
        return 1.0
    return float(min(1.0, 2 * stats.binom.cdf(min(n01, n10), n01 + n10, 0.5)))
    ### END SOLUTION


# %%
teaching.check_mcnemar(mcnemar_p, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: power by simulation
#
# Given the joint proportions of the four cells (a `(2, 2)` array `[[p00, p01], [p10, p11]]`),
# the power at test size $n$ is the probability that a test set of $n$ items gives $p \le \alpha$
# **and** a difference with the sign of the true effect $p_{10} - p_{01}$.
# A significant result with the wrong sign is a Type-S error and does not count; with no true
# effect the power is 0.
#
# Write `simulated_power(joint_props, n, alpha, n_sim, seed)`: draw `n_sim` test sets, each a
# multinomial sample of $n$ items over the four cells, test each with the exact McNemar test, and
# return the share that counts.
# The check compares your estimate with the exact power, within its Monte Carlo error.
#
# ```{dropdown} Hint
# `np.random.default_rng(seed).multinomial(n, joint_props.ravel(), size=n_sim)` draws all test
# sets at once, as an `(n_sim, 4)` array of counts in the order $n_{00}, n_{01}, n_{10},
# n_{11}$.
# `stats.binom.cdf` accepts arrays, so the p-values of all test sets take one call.
# ```


# %% tags=["hide-input"]
def simulated_power(joint_props: np.ndarray, n: int, alpha: float, n_sim: int, seed: int) -> float:
    """Share of n_sim simulated test sets of n items that detect the true effect."""
    ### BEGIN SOLUTION
    p = np.asarray(joint_props, dtype=float).ravel()
    counts = np.random.default_rng(seed).multinomial(n, p / p.sum(), size=n_sim)
    n01, n10 = counts[:, 1], counts[:, 2]
    d = n01 + n10
    tail = stats.binom.cdf(np.minimum(n01, n10), d, 0.5)
    p_values = np.where(d == 0, 1.0, np.minimum(1.0, 2 * tail))
    right_sign = np.sign(n10 - n01) == np.sign(p[2] - p[1])
    return float(np.mean((p_values <= alpha) & right_sign))
    ### END SOLUTION


# %%
teaching.check_power(simulated_power, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: run and interpret
#
# Two dictionary-lookup taggers (the baseline of {cite:t}`pimentel2020pareto`, appendix B) are
# compared: A learns from all training sentences, B from a random share of them (the `fraction`
# parameter).
# Does the extra training data make a difference a test can see?
# Every development token is a test item, right or wrong for each tagger.
# The code compares them with your test on all tokens and on a small random pilot, and computes
# the power of the comparison at several test sizes with your simulation.

# %%
tb = treebanks.load_treebank(treebank)
train_forms, train_tags = treebanks.flat(tb["train"], "forms"), treebanks.flat(tb["train"], "upos")
dev_forms, dev_tags = treebanks.flat(tb["dev"], "forms"), treebanks.flat(tb["dev"], "upos")
part = treebanks.sample_sentences(tb["train"], round(fraction * len(tb["train"])), seed=seed)
tagger_a = lookups.fit_posl_lookup(train_forms, train_tags)
tagger_b = lookups.fit_posl_lookup(treebanks.flat(part, "forms"), treebanks.flat(part, "upos"))
correct_a = lookups.predict_posl_lookup(tagger_a, dev_forms) == dev_tags
correct_b = lookups.predict_posl_lookup(tagger_b, dev_forms) == dev_tags
table = mcnemar_table(correct_a, correct_b)
joint = table / table.sum()
pilot_items = np.random.default_rng(seed).choice(
    len(dev_tags), min(pilot, len(dev_tags)), replace=False
)
tests = pd.DataFrame(
    {
        "test tokens": [len(dev_tags), len(pilot_items)],
        "accuracy A (all)": [correct_a.mean(), correct_a[pilot_items].mean()],
        "accuracy B (share)": [correct_b.mean(), correct_b[pilot_items].mean()],
        "McNemar p": [
            mcnemar_p(correct_a, correct_b),
            mcnemar_p(correct_a[pilot_items], correct_b[pilot_items]),
        ],
    },
    index=["all development tokens", "pilot"],
)
display(tests.style.format(precision=4).format("{:.2g}", subset=["McNemar p"]))
curve = pd.DataFrame(
    {
        "n": test_sizes,
        "power": [simulated_power(joint, n, alpha, n_sim, seed) for n in test_sizes],
    }
)
display(curve.set_index("n").style.format("{:.3f}"))

# %% tags=["remove-cell"]
comparison = compare(correct_a, correct_b, "all data", "partial data", alpha=alpha)
pilot_power = simulated_power(joint, len(pilot_items), alpha, n_sim, seed)
grid = np.unique(np.geomspace(50, 10 * max([*test_sizes, len(dev_tags)]), 60).astype(int))
grid_power = np.array([simulated_power(joint, int(n), alpha, n_sim, seed) for n in grid])
reached = grid[grid_power >= POWER_THRESHOLD]
fig, ax = plt.subplots(figsize=(plots.WIDTH, 3.0))
ax.plot(grid, grid_power, color="C0", label="simulated power")
ax.scatter(curve["n"], curve["power"], color="C0", zorder=3)
ax.axhline(POWER_THRESHOLD, color="0.4", linestyle=":", label="power 0.8")
ax.axvline(len(dev_tags), color="C1", linestyle="--", label="development set")
ax.axvline(len(pilot_items), color="C2", linestyle="--", label="pilot")
ax.set_xscale("log")
ax.set_xlabel("test tokens (log scale)")
ax.set_ylabel("power")
ax.set_ylim(0, 1.02)
ax.legend(fontsize="small")
g.figure("fig_power", fig)
g("n_dev", len(dev_tags))
g("fraction", 100 * fraction)
g("acc_a", 100 * comparison.acc_a)
g("acc_b", 100 * comparison.acc_b)
g("diff", 100 * abs(comparison.diff))
g("n01", int(table[0, 1]))
g("n10", int(table[1, 0]))
g("p_all", float(tests["McNemar p"].iloc[0]))
g("summary", comparison.summary())
g("verdict", comparison.verdict)
g("pilot", len(pilot_items))
g("p_pilot", float(tests["McNemar p"].iloc[1]))
g("pilot_significant", "is" if tests["McNemar p"].iloc[1] <= alpha else "is not")
g("pilot_power", pilot_power)
g("n_needed", int(reached[0]) if len(reached) else 0)
g(
    "n_needed_text",
    f"about {float(f'{reached[0]:.2g}'):,.0f} test tokens"
    if len(reached)
    else f"more than {int(grid[-1]):,} test tokens",
)

# %% [markdown]
# ```{glue:figure} a5_fig_power
# :name: fig-a5-power
#
# Power of the exact McNemar test for the difference between the two taggers, by test size,
# simulated with your function from the proportions observed on the development set.
# ```
#
# **Questions.**
#
# 1. Is the difference between the taggers significant on all development tokens? How large is
#    it, and which tokens decide it?
# 2. What does the pilot comparison show, and what is its power? What may you conclude from a
#    non-significant pilot?
# 3. How many test tokens does the comparison need for a power of 0.8? McNemar's test treats the
#    tokens as independent items; is that right for tokens of the same sentences?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# On all {glue:text}`a5_n_dev:,d` development tokens the tagger trained on all sentences is
# right on {glue:text}`a5_acc_a:.2f` % and the one trained on {glue:text}`a5_fraction:.0f` % of
# them on {glue:text}`a5_acc_b:.2f` %, a gap of {glue:text}`a5_diff:.2f` points.
# Only the discordant tokens decide the test: {glue:text}`a5_n10:,d` tokens only tagger A gets
# right and {glue:text}`a5_n01:,d` only tagger B, which gives p = {glue:text}`a5_p_all:.2g`.
# The library's comparison reads: {glue:text}`a5_summary`
#
# The pilot of {glue:text}`a5_pilot:,d` tokens gives p = {glue:text}`a5_p_pilot:.3f`, so the
# difference {glue:text}`a5_pilot_significant` significant there; at that size the test has a
# power of only {glue:text}`a5_pilot_power:.2f`.
# A test this weak usually misses a difference of this size even when it is real: a
# non-significant pilot says that the pilot cannot tell, not that the taggers are equal.
#
# The simulation reaches a power of 0.8 at {glue:text}`a5_n_needed_text`.
# Tokens of one sentence share context and errors (a capitalised sentence-initial word, a name
# repeated in one text), so they are not independent; the effective number of items is smaller
# than the token count, and both the p-values and the power are somewhat optimistic.
# Resampling whole sentences, as the book's paired bootstrap does, is the safer choice for such
# data.
# ```
