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
# (sec-a2)=
# # Assignment 2 · Inflecting nonsense words
#
# **Paper.** {cite:t}`hallmaudslay2021jabberwocky` ask whether syntactic probes still work when
# the words of a sentence are replaced by pseudowords, as in Lewis Carroll's *Jabberwocky*.
# They substitute nouns, verbs, adjectives and adverbs of the English Web Treebank with
# pseudowords of the same fine-grained category, inflected by hand-written rules of regular
# English spelling: *a blick*, *two blicks*, *she is blicking*, *blicker than ever*.
#
# **You will** write those rules for the three regular suffixes (*-s*, *-ing*, *-er/-est*), check
# them against `probekit.methods.jabberwocky`, and then measure how much of real English they cover: how
# often your rules turn a treebank lemma into the form the treebank actually has.
#
# **You will learn** how much care "regular morphology" takes, and what a substitution corpus
# built from regular rules can and cannot contain.
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
split: str = "train"  # split whose words test the rules in the last task, one of {train, dev, test}
seed: int = 0  # seed of the generated check cases
n_cases: int = 96  # generated stems per check (eight of each spelling situation)
top: int = 12  # most frequent mismatches listed in the last task
# fmt: on

# %%
from IPython.display import display

from probekit import teaching
from probekit.book.glue import Glue
from probekit.io import treebanks
from probekit.methods.jabberwocky.graphotactics import is_vowel_letter, vowel_groups

g = Glue("a2")

# %% [markdown]
# ## Spelling helpers you can use
#
# Two helpers of the library decide what counts as a vowel and a syllable in a spelling:
#
# - `is_vowel_letter(word, j)` is True when `word[j]` spells a vowel: *a, e, i, o, u*, and *y*
#   except at the start of a word (*yes*), but not the *u* of *qu*;
# - `vowel_groups(word)` counts the syllables as groups of adjacent vowel letters, less a silent
#   final *e*: `vowel_groups("bake") == 1`, `vowel_groups("visit") == 2`.

# %%
print(
    [is_vowel_letter("fly", 2), is_vowel_letter("yes", 0)],
    vowel_groups("bake"),
    vowel_groups("visit"),
)

# %% [markdown]
# ## Task 1: plural nouns and third-person verbs (*-s*)
#
# Write `add_s(stem, verb)`; `verb` is False for a plural noun and True for a verb's third person
# singular present. Apply the first rule that fits:
#
# 1. consonant + *y* becomes *-ies*: *fly* → *flies* (but *day* → *days*);
# 2. after *s, x, z, ch, sh* add *-es*: *box* → *boxes*, *wish* → *wishes*;
# 3. a **verb** ending in consonant + *o* adds *-es*: *go* → *goes* (a new noun adds *-s*:
#    *memo* → *memos*);
# 4. otherwise add *-s*.
#
# ```{dropdown} Hint
# "Consonant + y" means the last letter is *y* and the letter before it is not a vowel letter:
# `not is_vowel_letter(stem, len(stem) - 2)`.
# `str.endswith` takes a tuple of endings.
# ```


# %% tags=["hide-input"]
def add_s(stem: str, verb: bool) -> str:
    """Plural of a noun (verb=False) or 3rd person singular of a verb (verb=True)."""
    ### BEGIN SOLUTION
    consonant_before = len(stem) >= 2 and not is_vowel_letter(stem, len(stem) - 2)
    if stem.endswith("y") and consonant_before:
        return stem[:-1] + "ies"
    if stem.endswith(("s", "x", "z", "ch", "sh")):
        return stem + "es"
    if verb and stem.endswith("o") and consonant_before:
        return stem + "es"
    return stem + "s"
    ### END SOLUTION


# %%
teaching.check_add_s(add_s, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: the present participle (*-ing*) and consonant doubling
#
# First write `doubles(stem)`: True when the final consonant doubles before a suffix that starts
# with a vowel (*stop* → *stopping*, *big* → *bigger*). That is the case when **all** of these
# hold:
#
# - the stem has one syllable (in longer words stress decides, which spelling does not show, so
#   *visit* → *visiting*);
# - it ends in a consonant letter other than *w, x, y, h, c* (*snow* → *snowing*);
# - the letter before it is a single vowel letter, not *y*: no vowel letter comes just before
#   that (*rain* → *raining*) and it is not a consonant (*fast* → *fasting*).
#
# Then write `add_ing(stem)`, applying the first rule that fits:
#
# 1. *ie* becomes *-ying*: *tie* → *tying*;
# 2. after *ee, ye, oe* just add *-ing*: *see* → *seeing*, *dye* → *dyeing*;
# 3. otherwise a final *e* is dropped (stems longer than two letters): *bake* → *baking*;
# 4. a doubling stem doubles its last letter: *stop* → *stopping*;
# 5. otherwise add *-ing*.
#
# ```{dropdown} Hint
# Check the conditions of `doubles` one by one and return False as soon as one fails; use
# `is_vowel_letter` for the last three letters and `vowel_groups(stem) == 1` last.
# The check's hint names the spelling situation of the failing stem in brackets.
# ```


# %% tags=["hide-input"]
def doubles(stem: str) -> bool:
    """Whether the stem's final consonant doubles before -ing, -er and -est."""
    ### BEGIN SOLUTION
    n = len(stem)
    if n < 2 or stem[-1] in "wxyhc" or is_vowel_letter(stem, n - 1):
        return False
    if not is_vowel_letter(stem, n - 2) or stem[-2] == "y":
        return False
    if n >= 3 and is_vowel_letter(stem, n - 3):
        return False
    return vowel_groups(stem) == 1
    ### END SOLUTION


def add_ing(stem: str) -> str:
    """The -ing form of a verb stem."""
    ### BEGIN SOLUTION
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith(("ee", "ye", "oe")):
        return stem + "ing"
    if stem.endswith("e") and len(stem) > 2:
        return stem[:-1] + "ing"
    if doubles(stem):
        return stem + stem[-1] + "ing"
    return stem + "ing"
    ### END SOLUTION


# %%
teaching.check_add_ing(add_ing, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: comparatives and superlatives (*-er*, *-est*)
#
# Write `add_degree(stem, suffix)` with `suffix` either `"er"` or `"est"`:
#
# 1. after a final *e* add only *-r* / *-st*: *late* → *later*, *latest*;
# 2. consonant + *y* becomes *-ier* / *-iest*: *happy* → *happier*;
# 3. a doubling stem doubles its last letter: *big* → *biggest*;
# 4. otherwise add the suffix.
#
# ```{dropdown} Hint
# Reuse your `doubles` from Task 2; the consonant + *y* test is the one of Task 1.
# ```


# %% tags=["hide-input"]
def add_degree(stem: str, suffix: str) -> str:
    """Comparative (suffix 'er') or superlative (suffix 'est') of an adjective or adverb."""
    ### BEGIN SOLUTION
    if stem.endswith("e"):
        return stem + suffix[1:]
    if stem.endswith("y") and len(stem) >= 2 and not is_vowel_letter(stem, len(stem) - 2):
        return stem[:-1] + "i" + suffix
    if doubles(stem):
        return stem + stem[-1] + suffix
    return stem + suffix
    ### END SOLUTION


# %%
teaching.check_add_degree(add_degree, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 4: run and interpret
#
# The paper's pseudowords only ever meet these rules, so whatever the rules produce is correct
# by construction.
# Real words are another matter.
# The code below takes every noun, verb, adjective and adverb of the chosen split whose features
# call for one of the suffixes, inflects its lemma with your rules, and compares the result with
# the word as the treebank spells it.

# %%
rules = {
    "NOUN:Plur": lambda stem: add_s(stem, verb=False),
    "VERB:Pres3Sg": lambda stem: add_s(stem, verb=True),
    "VERB:PresPart": add_ing,
    "VERB:Ger": add_ing,
    "ADJ:Cmp": lambda stem: add_degree(stem, "er"),
    "ADJ:Sup": lambda stem: add_degree(stem, "est"),
    "ADV:Cmp": lambda stem: add_degree(stem, "er"),
    "ADV:Sup": lambda stem: add_degree(stem, "est"),
}
tb = treebanks.load_treebank(treebank)
by_set, misses = teaching.rule_coverage(tb[split], rules)
display(by_set.style.format({"reproduced": "{:.1%}"}))
display(misses.head(top))

# %% tags=["remove-cell"]
words = int(by_set["words"].sum())
reproduced = float((by_set["words"] * by_set["reproduced"].fillna(0)).sum() / max(words, 1))
ranked = by_set[by_set["words"] > 0].sort_values("reproduced")
g("split", split)
g("words", words)
g("reproduced", 100 * reproduced)
g("worst_set", str(ranked.index[0]))
g("worst_share", 100 * float(ranked["reproduced"].iloc[0]))
g("best_set", str(ranked.index[-1]))
g("best_share", 100 * float(ranked["reproduced"].iloc[-1]))
top_miss = misses.iloc[0] if len(misses) else None
g("top_miss", f"{top_miss['lemma']} → {top_miss['form']}" if top_miss is not None else "none")
g("top_miss_count", int(top_miss["count"]) if top_miss is not None else 0)
g("top", min(top, len(misses)))
g("listed_share", 100 * float(misses["count"].head(top).sum() / max(words, 1)))
g("miss_share", 100 * float(misses["count"].sum() / max(words, 1)))


def undoubled(form: str, predicted: str) -> bool:
    """True when the form is the prediction with one consonant doubled (refer -> referring)."""
    return any(
        form[i] == form[i - 1] and form[:i] + form[i + 1 :] == predicted
        for i in range(1, len(form))
    )


doubling = misses[
    [undoubled(f, p) for f, p in zip(misses["form"], misses["predicted"], strict=True)]
]
g("doubling_words", int(doubling["count"].sum()))
g("doubling_share", 100 * float(doubling["count"].sum() / max(words, 1)))
g("doubling_example", str(doubling["form"].iloc[0]) if len(doubling) else "none")

# %% [markdown]
# **Questions.**
#
# 1. Which feature set do your rules reproduce least often, and what kinds of words make up the
#    mismatches in the second table?
# 2. Are any mismatches errors of the *rules* rather than irregular words? Would fixing them
#    change the pseudoword corpus?
# 3. Real sentences contain irregular forms (*children*, *better*), the Jabberwocky sentences
#    only regular ones. Could a probe notice that difference, and would it matter for the paper's
#    comparison?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# In the {glue:text}`a2_split` split, {glue:text}`a2_words:,d` words carry one of the suffixing
# feature sets, and the rules reproduce {glue:text}`a2_reproduced:.1f` % of them from their
# lemmas.
# The weakest set is {glue:text}`a2_worst_set` ({glue:text}`a2_worst_share:.1f` %), the
# strongest {glue:text}`a2_best_set` ({glue:text}`a2_best_share:.1f` %).
# The most frequent mismatch is *{glue:text}`a2_top_miss`* ({glue:text}`a2_top_miss_count:d`
# times); the {glue:text}`a2_top:d` listed mismatches make up {glue:text}`a2_listed_share:.1f` %
# of the words and all mismatches {glue:text}`a2_miss_share:.1f` %.
# In EWT nearly all of them are irregular or suppletive forms (*people*, *best*, *has*,
# *children*), words whose lemma already is the comparative or superlative (*more*, *most*,
# *less*: analytic comparison, which no suffix rule produces), or plurals without a suffix
# (*staff*, *species*).
# Only {glue:text}`a2_doubling_words:,d` words ({glue:text}`a2_doubling_share:.2f` %, e.g.
# *{glue:text}`a2_doubling_example`*) fail for a spelling reason: their final consonant doubles in a
# longer word with final stress or in British spelling, which the one-syllable rule cannot know.
# For pseudowords none of this matters: they are one-syllable stems with no irregular forms, so
# the rules are right for them by construction.
# A probe could in principle notice that nonsense sentences never contain irregular forms, but the
# paper's syntactic probes read tree distances, not morphology; the difference is one more way in
# which the Jabberwocky sentences are easier than they look, and a reason to read their scores
# together with the real-sentence scores.
# ```
