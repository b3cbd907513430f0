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
# (sec-a4)=
# # Assignment 4 · A new extrapolation split
#
# **Paper.** {cite:t}`kunz2021test` test whether probes *extrapolate*: they score every example
# with a hardness function $m(e)$ (higher is harder), train a probe on the easy examples only and
# evaluate it on the hard ones.
# Split points $m_1 \le m_2$ define the sets: easy $= \{e : m(e) < m_1\}$ among the training
# examples and hard $= \{e : m(e) > m_2\}$ among the evaluation examples, with $m_1$ the 50th and
# $m_2$ the 75th percentile of the scores.
# Comparing the *extrapolation* setup (easy → hard) with the *control* setup (all → hard) shows
# how much the probe relies on having seen hard examples.
#
# **You will** add a scoring function the paper does not have, word frequency (rare words are
# hard), implement the paper's percentile and split rules, check them against
# `probekit.methods.extrapolation`, and run the three setups with a dictionary-lookup tagger.
#
# **You will learn** how the details of a split (which percentile, which data, strict or not)
# change the sets, and what an extrapolation gap does and does not measure.
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
seed: int = 0  # seed of the generated check cases and of the training sample
n_cases: int = 50  # generated cases per check
n_train: int = 0  # training sentences for the last task; 0 means all
# fmt: on

# %%
from collections import Counter

import numpy as np
import pandas as pd
from IPython.display import display

from probekit import teaching
from probekit.book.glue import Glue
from probekit.io import treebanks
from probekit.methods.pareto import lookups

g = Glue("a4")

# %% [markdown]
# ## Task 1: the paper's percentile
#
# Kunz and Kuhlmann take percentiles without interpolation: the $q$-th percentile of $n$ scores
# is the element at index $\lfloor q n \rfloor$ of the sorted scores (0-based).
# Write `percentile(scores, q)` for $0 \le q < 1$.
#
# ```{dropdown} Hint
# `np.percentile` and `np.median` interpolate between neighbours, and `np.quantile` has the same
# default; write the index yourself.
# ```


# %% tags=["hide-input"]
def percentile(scores: np.ndarray, q: float) -> float:
    """sorted(scores)[int(q * n)] for scores of shape (n,) and 0 <= q < 1."""
    ### BEGIN SOLUTION
    ordered = sorted(float(x) for x in scores)
    return ordered[int(q * len(ordered))]
    ### END SOLUTION


# %%
teaching.check_percentile(percentile, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: a frequency scoring function
#
# A word token is hard when its form is rare in the training data.
# Write `frequency_score(train_forms, forms)`: for every form $w$ in `forms`, return
#
# $$m(w) = \frac{1}{1 + c(w)},$$
#
# where $c(w)$ is the number of training tokens with exactly the form $w$ (case kept).
# An unseen word scores 1, the hardest; the most frequent words score close to 0.
#
# ```{dropdown} Hint
# `collections.Counter(train_forms)` counts the training forms once; a missing key counts 0.
# ```


# %% tags=["hide-input"]
def frequency_score(train_forms: np.ndarray, forms: np.ndarray) -> np.ndarray:
    """1 / (1 + training count of each form); arrays of str (N,) and (M,) -> float (M,)."""
    ### BEGIN SOLUTION
    counts = Counter(str(w) for w in train_forms)
    return np.array([1.0 / (1 + counts[str(w)]) for w in forms])
    ### END SOLUTION


# %%
teaching.check_frequency_score(frequency_score, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: easy and hard sets
#
# Write `extrapolation_split(train_scores, eval_scores)`.
# It returns two boolean masks: `easy` over the training examples, $m < m_1$ with $m_1$ the 50th
# percentile of the **training** scores, and `hard` over the evaluation examples, $m > m_2$ with
# $m_2$ the 75th percentile of the **evaluation** scores.
# Use your `percentile`.
# Both inequalities are strict, so examples tied with a split point belong to neither set.
#
# ```{dropdown} Hint
# Two lines: compute $m_1$ and $m_2$, then compare the arrays with `<` and `>`.
# ```


# %% tags=["hide-input"]
def extrapolation_split(
    train_scores: np.ndarray, eval_scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(easy mask (N,), hard mask (M,)) of Kunz & Kuhlmann's distributional criteria."""
    ### BEGIN SOLUTION
    m1 = percentile(train_scores, 0.5)
    m2 = percentile(eval_scores, 0.75)
    return np.asarray(train_scores) < m1, np.asarray(eval_scores) > m2
    ### END SOLUTION


# %%
teaching.check_extrapolation_split(extrapolation_split, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 4: run and interpret
#
# The probe here is the dictionary-lookup tagger of {cite:t}`pimentel2020pareto` (appendix B):
# each word gets its most frequent tag in the training data, an unseen word the most frequent tag
# overall.
# Training examples are the word tokens of the training split, evaluation examples those of the
# development split; your frequency score counts forms in the training split.
# The code trains the tagger in the three setups of the paper and reports its accuracy.

# %%
tb = treebanks.load_treebank(treebank)
train = treebanks.sample_sentences(tb["train"], n_train or None, seed=seed)
train_forms, train_tags = treebanks.flat(train, "forms"), treebanks.flat(train, "upos")
dev_forms, dev_tags = treebanks.flat(tb["dev"], "forms"), treebanks.flat(tb["dev"], "upos")
train_scores = frequency_score(train_forms, train_forms)
dev_scores = frequency_score(train_forms, dev_forms)
easy, hard = extrapolation_split(train_scores, dev_scores)
m1, m2 = percentile(train_scores, 0.5), percentile(dev_scores, 0.75)


def lookup_accuracy(train_mask: np.ndarray, eval_mask: np.ndarray) -> float:
    """Accuracy of the lookup tagger fitted on train_mask, on the evaluation tokens in eval_mask."""
    if not train_mask.any() or not eval_mask.any():
        return float("nan")
    tagger = lookups.fit_posl_lookup(train_forms[train_mask], train_tags[train_mask])
    predicted = lookups.predict_posl_lookup(tagger, dev_forms[eval_mask])
    return float(np.mean(predicted == dev_tags[eval_mask]))


every_train, every_dev = np.ones(len(train_forms), bool), np.ones(len(dev_forms), bool)
setups = {
    "standard (all → all)": (every_train, every_dev),
    "control (all → hard)": (every_train, hard),
    "extrapolation (easy → hard)": (easy, hard),
}
results = pd.DataFrame(
    [
        {
            "setup": name,
            "training tokens": int(t.sum()),
            "evaluation tokens": int(e.sum()),
            "accuracy": lookup_accuracy(t, e),
        }
        for name, (t, e) in setups.items()
    ]
).set_index("setup")
print(f"m1 = {m1:.5f} (count > {1 / m1 - 1:.0f}),  m2 = {m2:.5f} (count < {1 / m2 - 1:.0f})")
display(results.style.format({"accuracy": "{:.3f}"}))

# %% tags=["remove-cell"]
easy_types = Counter(train_forms[easy].tolist())
neither = ~easy
g("n_train_tokens", len(train_forms))
g("m1_count", round(1 / m1 - 1))
g("m2_count", round(1 / m2 - 1))
g("easy_share", 100 * float(easy.mean()))
g("hard_share", 100 * float(hard.mean()))
g("tied_m1_share", 100 * float(np.mean(train_scores == m1)))
g("tied_m2_share", 100 * float(np.mean(dev_scores == m2)))
g("n_easy_types", len(easy_types))
g("easy_examples", ", ".join(f"“{w}”" for w, _ in easy_types.most_common(6)))
g("unseen_hard_share", 100 * float(np.mean(dev_scores[hard] == 1.0)) if hard.any() else 0.0)
g("unseen_share", 100 * float(np.mean(dev_scores == 1.0)))
g(
    "easy_default",
    str(lookups.fit_posl_lookup(train_forms[easy], train_tags[easy]).default) if easy.any() else "",
)
g("acc_standard", 100 * results["accuracy"].iloc[0])
g("acc_control", 100 * results["accuracy"].iloc[1])
g("acc_extrapolation", 100 * results["accuracy"].iloc[2])
g("gap", 100 * (results["accuracy"].iloc[1] - results["accuracy"].iloc[2]))

# %% [markdown]
# **Questions.**
#
# 1. Which training counts do $m_1$ and $m_2$ correspond to? How many different word types make
#    up the easy set, and which are they?
# 2. What share of the tokens is tied with a split point, and so belongs to neither set? Every
#    unseen word scores exactly 1: what would happen to the hard set if more than a quarter of
#    the development tokens were unseen, for instance with a small training sample?
# 3. Compare the control and the extrapolation accuracy. What does the gap measure for a lookup
#    tagger, and would you expect the same gap for a probe on contextual embeddings?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# Training on {glue:text}`a4_n_train_tokens:,d` tokens, $m_1$ corresponds to a training count of
# {glue:text}`a4_m1_count:,d` and $m_2$ to {glue:text}`a4_m2_count:,d`: an easy token's form
# occurs more than {glue:text}`a4_m1_count:,d` times, a hard token's form fewer than
# {glue:text}`a4_m2_count:,d` times.
# The easy set holds {glue:text}`a4_easy_share:.1f` % of the training tokens but only
# {glue:text}`a4_n_easy_types:,d` word types, the most frequent being
# {glue:text}`a4_easy_examples`: function words and punctuation.
# The hard set holds {glue:text}`a4_hard_share:.1f` % of the development tokens, and
# {glue:text}`a4_unseen_hard_share:.1f` % of those are unseen in training.
#
# A frequency score has one value per word type, so all tokens of the type at a split point tie
# with it: {glue:text}`a4_tied_m1_share:.2f` % of the training tokens share the score $m_1$ and
# {glue:text}`a4_tied_m2_share:.2f` % of the development tokens the score $m_2$; none of them is
# easy or hard.
# Here the shares are small because the split points fall on types of moderate frequency.
# Unseen words are the big tie: {glue:text}`a4_unseen_share:.1f` % of the development tokens score
# exactly 1.
# Were that more than 25 %, the 75th percentile $m_2$ would itself be 1, and since no score
# exceeds 1 the hard set would be empty; the library's `setups` refuses to run in that case
# rather than train on an empty set.
#
# The lookup tagger reaches {glue:text}`a4_acc_standard:.1f` % in the standard setup,
# {glue:text}`a4_acc_control:.1f` % on the hard tokens when trained on everything and
# {glue:text}`a4_acc_extrapolation:.1f` % when trained on the easy tokens only, a gap of
# {glue:text}`a4_gap:.1f` points.
# For a lookup tagger the gap is pure memory: trained on easy tokens it has never seen a hard word,
# so it tags every hard token with the most frequent tag of the easy tokens,
# {glue:text}`a4_easy_default`, which content words almost never have.
# The gap measures how often that default is right, not any ability to generalise.
# A probe on contextual embeddings can do better, because the encoder places a rare word near
# words of the same category; how much better is exactly the question the paper's extrapolation
# setup asks, and the lookup tagger gives the floor to compare with.
# ```
