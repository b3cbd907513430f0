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
# (sec-a6)=
# # Assignment 6 · The online codelength by hand
#
# **Paper.** {cite:t}`voita2020information` replace a probe's accuracy by a codelength.
# Imagine a sender and a receiver who both have the representations of $N$ examples; only the
# sender has their labels, one of $K$ classes each, and wants to transmit them in as few bits as
# possible.
# Without the representations every label costs $\log_2 K$ bits (the uniform code).
# With them, the sender can do better by letting a probe predict the labels: the *online* (or
# prequential) code sends the examples in a fixed order and in blocks, the first with the
# uniform code and every later one with a probe trained on all the examples sent before it,
# which the receiver can train as well and so decode.
# The better the probe predicts, and the fewer examples it needs to get there, the shorter the
# code: the codelength measures both what a probe reaches and the effort it takes.
#
# **You will** compute where the blocks end, what each block costs and the online codelength
# with its compression, check them against `probekit.methods.mdl`, and then follow a table of
# forty examples by hand and compare three simulated tasks: a linguistic task, a control task and
# random labels.
#
# **You will learn** to read a codelength as "how good, and how soon", and what a compression
# below 1 says about a probe.
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
treebank: str = "UD_English-EWT"  # not used (the probabilities are simulated); kept for uniformity
model: str = "default"  # not used in this assignment (it needs no encoder); kept for uniformity
seed: int = 0  # seed of the generated check cases and of the simulated probabilities
n_cases: int = 50  # generated cases per check
n_classes: int = 4  # K, the number of classes of the simulated tasks
n_small: int = 40  # examples of the small table you follow by hand
fractions: list[float] = [0.05, 0.1, 0.25, 0.5, 1.0]  # block ends of the small table (shares)
n_large: int = 1000  # examples of the larger data set, sent in the paper's blocks
# fmt: on

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from probekit import teaching
from probekit.book.glue import Glue
from probekit.experiments import plots

plots.use_style()
g = Glue("a6")

# %% [markdown]
# ## Task 1: where the blocks end
#
# The $N$ examples are sent in $S$ blocks; block $i$ ends at the timestep $t_i$, so that
# $1 \le t_1 < t_2 < \dots < t_S = N$ and block $i + 1$ holds the examples $t_i + 1, \dots,
# t_{i+1}$.
# The paper gives the ends as fractions of $N$ that roughly double: 0.1 %, 0.2 %, 0.4 %, 0.8 %,
# 1.6 %, 3.2 %, 6.25 %, 12.5 %, 25 %, 50 % and 100 %.
# A fraction $f$ turns into a count of examples by rounding down, and the first block holds at
# least one example:
#
# $$t_i = \max\bigl(1, \lfloor f_i N \rfloor\bigr).$$
#
# For small $N$ several fractions give the same count; they make one block, so each end appears
# once.
# For $N = 1000$ the paper's fractions give 1, 2, 4, 8, 16, 32, 62, 125, 250, 500, 1000; for
# $N = 100$ they give 1, 3, 6, 12, 25, 50, 100.
# Write `block_ends(n, fractions)`, which returns the ends as an array of ints in increasing
# order.
#
# ```{dropdown} Hint
# `np.floor` rounds down but returns floats: convert with `.astype(int)`.
# `np.maximum(counts, 1)` raises every count to at least 1, and `np.unique` sorts an array and
# keeps each value once.
# ```


# %% tags=["hide-input"]
def block_ends(n: int, fractions: list[float]) -> np.ndarray:
    """Ends t_1 < ... < t_S = n of the online code's blocks, as ints of shape (S,)."""
    ### BEGIN SOLUTION
    counts = np.floor(np.asarray(fractions, dtype=float) * n).astype(int)
    return np.unique(np.maximum(counts, 1))
    ### END SOLUTION


# %%
teaching.check_block_ends(block_ends, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: the bits of each block
#
# Write $p_j$ for the probability that the code gives the true label of example $j$.
# In the first block the uniform code gives every label $p_j = 1/K$.
# From the second block on, the probe trained on the first $t_i$ examples predicts the examples
# of block $i + 1$, and $p_j$ is the probability it gives example $j$'s true label.
# A label of probability $p$ costs $-\log_2 p$ bits (an arithmetic coder sends a whole message
# within two bits of the sum), so block $i + 1$ costs
#
# $$\mathrm{bits}_{i+1} = \sum_{j = t_i + 1}^{t_{i+1}} -\log_2 p_j .$$
#
# A sure and right prediction ($p = 1$) costs nothing; a confident miss costs a lot.
# Write `block_bits(p_true, ends)`: `p_true` is an array of the $N$ probabilities $p_j$ in
# the order the examples are sent (the first block's included) and `ends` the block ends of
# Task 1; return the bits of the $S - 1$ blocks after the first, one float per block.
#
# ```{dropdown} Hint
# In 0-based indices, block 2 is `p_true[ends[0]:ends[1]]`, block 3 is `p_true[ends[1]:ends[2]]`,
# and so on.
# `np.log2` works on whole arrays.
# ```


# %% tags=["hide-input"]
def block_bits(p_true: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Bits of blocks 2..S under their probes: sums of -log2 p_true, shape (S - 1,)."""
    ### BEGIN SOLUTION
    bits = -np.log2(np.asarray(p_true, dtype=float))
    return np.array([bits[start:end].sum() for start, end in zip(ends[:-1], ends[1:], strict=True)])
    ### END SOLUTION


# %%
teaching.check_block_bits(block_bits, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: the codelength and the compression
#
# The *uniform codelength* sends all $N$ labels with the uniform code, $N \log_2 K$ bits.
# The *online codelength* sends the first block with the uniform code and every later block with
# its probe,
#
# $$L_{\text{online}} = t_1 \log_2 K + \sum_{i=1}^{S-1} \mathrm{bits}_{i+1},$$
#
# and the *compression* is the ratio of the two, $N \log_2 K \,/\, L_{\text{online}}$: 1 when
# the probes save nothing, higher the more they save.
# Write `online_codelength(bits, ends, n_classes)`: `bits` are the $S - 1$ block bits of Task 2,
# `ends` the block ends and `n_classes` is $K$; return the pair `(codelength, compression)`, the
# codelength in bits.
#
# ```{dropdown} Hint
# `ends[0]` is $t_1$ and `ends[-1]` is $N$.
# ```


# %% tags=["hide-input"]
def online_codelength(bits: np.ndarray, ends: np.ndarray, n_classes: int) -> tuple[float, float]:
    """(online codelength in bits, compression over the uniform code)."""
    ### BEGIN SOLUTION
    per_label = np.log2(n_classes)
    codelength = float(ends[0] * per_label + np.sum(bits))
    return codelength, float(ends[-1] * per_label / codelength)
    ### END SOLUTION


# %%
teaching.check_online_codelength(online_codelength, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 4: run and interpret
#
# No probe is trained in this assignment: `teaching.block_probabilities` draws the probabilities
# $p_j$ that block probes might give, for three tasks with the same $K$ classes, from learning
# curves chosen to look like a probing experiment's (its docstring gives them).
# On the *linguistic task* a probe learns from a handful of examples.
# On the *control task* it reaches the same quality, but only after many more examples, as when
# every word type has a random label of its own that must be memorised.
# On *random labels* there is nothing to learn: the probe grows more confident as it memorises
# its training examples, yet its guesses on new ones are right no more often than chance.
#
# First the small table: every example of it, the block it falls in, the number of examples its
# probe was trained on, and $p_j$ for each task.
# Your three functions turn it into the bits of each block and the codelengths.

# %%
small = teaching.block_probabilities(n_small, fractions, n_classes, seed)
tasks = list(small.columns[2:])
ends_small = block_ends(n_small, fractions)
display(small.style.format(precision=2, subset=tasks))
starts_small = np.r_[0, ends_small[:-1]]
bits_small = {task: block_bits(small[task].to_numpy(), ends_small) for task in tasks}
first_bits = ends_small[0] * np.log2(n_classes)
per_block = pd.DataFrame(
    {
        "examples": [f"{a + 1} to {b}" for a, b in zip(starts_small, ends_small, strict=True)],
        "probe trained on": starts_small,
        **{task: np.r_[first_bits, bits_small[task]] for task in tasks},
    },
    index=pd.RangeIndex(1, len(ends_small) + 1, name="block"),
)
codes_small = {task: online_codelength(bits_small[task], ends_small, n_classes) for task in tasks}
totals_small = pd.DataFrame(
    {
        "uniform codelength (bits)": n_small * np.log2(n_classes),
        "online codelength (bits)": [codes_small[t][0] for t in tasks],
        "compression": [codes_small[t][1] for t in tasks],
    },
    index=tasks,
)
display(per_block.style.format(precision=2, subset=tasks))
display(totals_small.style.format(precision=2))

# %% [markdown]
# The same three tasks on a larger data set, sent in the paper's blocks: the online codelength in
# kbits (thousands of bits, the unit of the paper's tables), the compression, and how well the
# last probe, trained on half of the data, predicts (the mean of $p_j$ over the last block).

# %%
# The paper's fractions; the library's online code is needed only from here on.
from probekit.methods.mdl import BLOCK_FRACTIONS

ends_large = block_ends(n_large, list(BLOCK_FRACTIONS))
large = teaching.block_probabilities(n_large, BLOCK_FRACTIONS, n_classes, seed)
bits_large = {task: block_bits(large[task].to_numpy(), ends_large) for task in tasks}
codes_large = {task: online_codelength(bits_large[task], ends_large, n_classes) for task in tasks}
last_block = large["block"] == large["block"].max()
totals_large = pd.DataFrame(
    {
        "online codelength (kbits)": [codes_large[t][0] / 1000 for t in tasks],
        "compression": [codes_large[t][1] for t in tasks],
        "mean p in the last block": [large.loc[last_block, t].mean() for t in tasks],
    },
    index=tasks,
)
print("block ends:", ", ".join(str(t) for t in ends_large))
print(f"uniform codelength: {n_large * np.log2(n_classes) / 1000:.3f} kbits")
display(totals_large.style.format(precision=3))

# %% tags=["remove-cell"]
starts_large = np.r_[0, ends_large[:-1]]
fig, ax = plt.subplots(figsize=(plots.WIDTH, 3.0))
for color, task in zip(plots.colors(len(tasks)), tasks, strict=True):
    per_example = bits_large[task] / np.diff(ends_large)
    ax.plot(starts_large[1:], per_example, marker="o", color=color, label=task)
ax.axhline(np.log2(n_classes), color="0.4", linestyle=":", label="uniform code")
ax.set_xscale("log")
ax.set_xlabel("examples the block's probe was trained on (log scale)")
ax.set_ylabel("bits per example")
ax.set_ylim(bottom=0)
ax.legend(fontsize="small")
g.figure("fig_blocks", fig)

shown = min(3, len(ends_small))
shown_p = small.loc[small["block"] == shown, tasks[0]]
ling, control, rand = tasks
g("n_small", n_small)
g("k", n_classes)
g("log_k", float(np.log2(n_classes)))
g("blocks_small", len(ends_small))
g("ends_small", ", ".join(str(t) for t in ends_small))
g("t1_small", int(ends_small[0]))
g("first_bits", float(first_bits))
g("uniform_small", n_small * float(np.log2(n_classes)))
g("shown_block", shown)
g("shown_first", int(shown_p.index[0]))
g("shown_last", int(shown_p.index[-1]))
g("shown_trained", int(starts_small[shown - 1]))
g("shown_p", ", ".join(f"{p:.2f}" for p in shown_p))
g("shown_bits", float(per_block.loc[shown, ling]))
g("ling_small_bits", codes_small[ling][0])
g("ling_small_compression", codes_small[ling][1])
g("first_share", 100 * float(first_bits) / codes_small[ling][0])
g("n_large", n_large)
g("ends_large", ", ".join(str(t) for t in ends_large))
g("blocks_large", len(ends_large))
g("uniform_large", n_large * float(np.log2(n_classes)) / 1000)
for key, task in (("ling", ling), ("control", control), ("random", rand)):
    g(f"{key}_kbits", codes_large[task][0] / 1000)
    g(f"{key}_compression", codes_large[task][1])
    g(f"{key}_last_p", float(large.loc[last_block, task].mean()))
g("control_ratio", codes_large[control][0] / codes_large[ling][0])
g("random_last_confidence", float(large.loc[last_block, rand].max()))
g("random_last_miss", float(large.loc[last_block, rand].min()))
g("random_miss_bits", float(-np.log2(large.loc[last_block, rand].min())))
g("random_kbits_excess", (codes_large[rand][0] - n_large * float(np.log2(n_classes))) / 1000)

# %% [markdown]
# ```{glue:figure} a6_fig_blocks
# :name: fig-a6-blocks
#
# Bits per example of each block of the larger data set, against the number of examples its
# probe was trained on, for the three simulated tasks; the dotted line is the uniform code,
# $\log_2 K$ bits per example.
# The online codelength adds up every block, so it counts the whole learning curve.
# ```
#
# **Questions.**
#
# 1. Follow one block of the small table by hand: take block 3 of the linguistic task, say which
#    examples it holds and which probe sends them, and add up its bits. What share of the
#    linguistic task's whole code is the first block?
# 2. On the larger data set the control task's last probe predicts the true labels nearly as
#    well as the linguistic task's, yet its code is much longer. Why? What does the codelength
#    measure that the accuracy of a probe trained on all the data does not?
# 3. The random labels have a compression below 1. What does that mean? Could a sender who
#    sees it coming do better, and what does it tell you about the probe and about the
#    representations?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# The small table has {glue:text}`a6_n_small:d` examples in {glue:text}`a6_blocks_small:d`
# blocks ending at {glue:text}`a6_ends_small`.
# Block {glue:text}`a6_shown_block:d` holds the examples {glue:text}`a6_shown_first:d` to
# {glue:text}`a6_shown_last:d`, sent with the probe trained on the first
# {glue:text}`a6_shown_trained:d` examples.
# On the linguistic task it gives their true labels the probabilities
# {glue:text}`a6_shown_p`, and the block costs the sum of $-\log_2$ of them,
# {glue:text}`a6_shown_bits:.2f` bits.
# The first block, {glue:text}`a6_t1_small:d` examples at $\log_2 K$ =
# {glue:text}`a6_log_k:.2f` bits each, costs {glue:text}`a6_first_bits:.2f` bits, about
# {glue:text}`a6_first_share:.0f` % of the linguistic task's {glue:text}`a6_ling_small_bits:.1f`
# bits, against {glue:text}`a6_uniform_small:.1f` bits for the uniform code (compression
# {glue:text}`a6_ling_small_compression:.2f`).
# On a table this small the first block and the early, barely trained probes are a large part
# of the code; the paper starts with a block of 0.1 % so that on real data sets they are not.
#
# On the {glue:text}`a6_n_large:,d` examples (blocks ending at {glue:text}`a6_ends_large`) the
# last probes give the true labels a mean probability of {glue:text}`a6_ling_last_p:.2f` on the
# linguistic task and {glue:text}`a6_control_last_p:.2f` on the control task, yet the control
# task's code, {glue:text}`a6_control_kbits:.2f` kbits, is {glue:text}`a6_control_ratio:.1f`
# times as long as the linguistic task's {glue:text}`a6_ling_kbits:.2f` kbits (compressions
# {glue:text}`a6_control_compression:.2f` and {glue:text}`a6_ling_compression:.2f`).
# Each block is paid for at the quality its probe had *then*, so the codelength adds up the
# whole learning curve: a task whose probe needs hundreds of examples before it predicts well
# pays for every example sent in the meantime.
# The accuracy of the final probe sees only the end of that curve, where a probe that memorises
# enough data can look as good on a control task as on a linguistic one; the codelength also
# counts the effort, here the amount of data, it takes to get there.
#
# A compression below 1 ({glue:text}`a6_random_compression:.2f` for the random labels) means
# that the probes' code is longer than the uniform one, by {glue:text}`a6_random_kbits_excess:.2f`
# kbits here.
# The probes grow confident (by the last block they give their guess
# {glue:text}`a6_random_last_confidence:.2f`) while their guesses stay right only as often as
# chance allows, and every miss gives the true label {glue:text}`a6_random_last_miss:.2f`, which
# costs {glue:text}`a6_random_miss_bits:.1f` bits, more than the $\log_2 K$ =
# {glue:text}`a6_log_k:.2f` bits of the uniform code; the hits save less than the misses cost.
# A sender who sees this coming would send the labels with the uniform code instead and spend
# one more bit to say so, so the labels never need much more than $N \log_2 K$ bits.
# A compression below 1 is thus a finding about the probe (it overfits its training examples
# and is overconfident on new ones), while about the representations it says only that this
# probe found nothing in them that predicts these labels.
# ```
