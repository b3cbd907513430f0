# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   probekit:
#     reads: all
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-ch61)=
# # The claims ledger
#
# Each part of this book ends with verdicts on one paper.
# This page gathers the headline claims of all five, three to six per paper, and judges each
# one again from the numbers its chapter saved in this build: {cite:t}`hallmaudslay2020tale`,
# {cite:t}`hallmaudslay2021jabberwocky`, {cite:t}`pimentel2020pareto`, {cite:t}`kunz2021test`
# and {cite:t}`zhu2022data`.
# Nothing is recomputed here and no verdict is typed: if a chapter is re-run with another model,
# treebank or sample size, the ledger changes with it.
#
# A claim is tested in one of four ways, each fixed before we looked at any result:
#
# - **bootstrap**: the chapter's 95 % paired-bootstrap interval over test sentences.
#   The claim is *reproduced* when the interval lies wholly on the claimed side of zero; the
#   claims are directional, so a smaller effect than the paper's still counts.
#   It is *not reproduced* when the interval lies wholly on the other side, or when it covers
#   zero but excludes the effect size the paper reports.
#   It is *underpowered* when the interval covers both zero and the paper's effect (or zero, where
#   the paper gives no effect size): this many sentences cannot tell them apart.
# - **equivalence**: the same interval against a margin around zero, for claims that two things
#   hardly differ.
# - **McNemar**: the exact test on the items both configurations were scored on, with its power
#   at the observed effect, as {cite:t}`zhu2022data` recommend.
#   A significant difference in the claimed direction with power of at least 0.8 is reproduced;
#   power below 0.8 is underpowered whatever the p-value, because a significant result from an
#   underpowered test tends to exaggerate the effect.
# - **threshold**: a rule on a saved quantity, stated beside the claim (for example, that the
#   paper's lookup accuracy is matched to within 2 points).
#
# A claim whose chapter did not save what the test needs is marked *not tested*.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
results_dir: str = "build/results"  # directory of the chapters' saved results (one JSON each)
# fmt: on

# %% tags=["hide-input"]
from IPython.display import HTML, display

from probekit.book import ledger
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.io.results import load_results

plots.use_style()
g = Glue("ch61")
results = load_results(results_dir)
table = ledger.evaluate(results)

# %% tags=["remove-cell"]
g("n_claims", len(table))
g("n_papers", table["paper"].nunique())
for verdict in ledger.VERDICTS:
    g(verdict.replace(" ", "_"), int((table["verdict"] == verdict).sum()))
g("tally", ledger.tally(table))

# %% [markdown]
# ## The verdicts on this build
#
# Of {glue:text}`ch61_n_claims:d` claims from {glue:text}`ch61_n_papers:d` papers, this build
# gives {glue:text}`ch61_tally`.
# Each claim links to the chapter that measures it; the box at the top of that chapter says which
# parameters, seeds and data produced the number.

# %% tags=["hide-input"]
display(HTML(ledger.html_table(table, lambda slug, anchor: f"{slug}.html#{anchor}")))

# %% tags=["hide-input"]
fig_verdicts = plots.stacked_bars(ledger.verdict_counts(table), xlabel="claims")

# %% tags=["remove-cell"]
g.figure("fig_verdicts", fig_verdicts)

# %% [markdown]
# ```{glue:figure} ch61_fig_verdicts
# :name: fig-ch61-verdicts
#
# Verdicts per paper on this build.
# ```
#
# ## Reading the ledger
#
# A verdict belongs to this build, not to the paper.
# "Not reproduced" says that our run, with a small encoder and samples sized for a laptop, points
# the other way or falls short of a threshold; it does not say the paper was wrong about its own
# model.
# "Underpowered" says that our run is too small to decide: the chapter's parameters (more
# sentences, more seeds, the `full` profile) are the way to decide it.
# Where a paper's released code differs from its text, the chapters follow the text and say so.
#
# The {glue:text}`ch61_reproduced:d` reproduced, {glue:text}`ch61_not_reproduced:d` not
# reproduced, {glue:text}`ch61_underpowered:d` underpowered and {glue:text}`ch61_not_tested:d`
# untested claims come from the chapters' saved results listed below.

# %% tags=["hide-input"]
display(ledger.sources_table(table, results))

# %% tags=["remove-cell"]
g.save("build/results/61_claims_ledger.json")
