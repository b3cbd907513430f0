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
#   probekit:
#     reads: all
# ---

# %% [markdown]
# (sec-ch61)=
# # The claims ledger
#
# Each part of this book ends with verdicts on one paper.
# This page gathers the headline claims of all five, and judges each one again from the
# intervals its chapter saved in this build: {cite:t}`hallmaudslay2020tale`,
# {cite:t}`hallmaudslay2021jabberwocky`, {cite:t}`pimentel2020pareto`, {cite:t}`kunz2021test`
# and {cite:t}`zhu2022data`.
# Nothing is recomputed here and no verdict is typed: if a chapter is re-run with another model,
# treebank or sample size, the ledger changes with it.
#
# ## How a claim is judged
#
# Every claim has one rule, declared in code before the data and read by both its chapter and
# this page, so the two cannot disagree.
# The rule names the quantity in the claimed direction and what it is measured over, the
# *smallest effect size of interest* (SESOI) with the reason for it, the test and its level
# $\alpha = 0.05$.
# The quantity's $1 - 2\alpha$ (90 %) interval decides:
#
# directional claims ("A beats B")
# : the claim is reproduced when the interval lies above zero (a significant effect in the
#   claimed direction) and reaches the SESOI; not reproduced when the whole interval lies below
#   the SESOI (the effect is absent, reversed, or shown to be smaller than the SESOI); and
#   inconclusive otherwise.
#
# equivalence claims ("A and B hardly differ")
# : reproduced when the interval lies inside $\pm$SESOI (two one-sided tests); not reproduced
#   when it lies wholly outside the margin on one side; inconclusive otherwise
#   {cite}`lakens2018equivalence`.
#
# Accuracies and edge scores are scored per sentence, because the tokens and edges of one
# sentence stand or fall together {cite}`field2007bootstrapping`, and every seed of a trained
# probe enters the interval, because training is random: the interval adds the
# sentence-sampling variance and the seed-to-seed variance {cite}`reimers2017reporting`.
# The power shown is the design's, at the SESOI, from the interval's standard error; it is never
# computed at the observed effect, where it would only restate the p-value
# {cite}`hoenig2001abuse`.
# It is the chance that the rule says "reproduced" when the true effect is exactly the SESOI.
# For a directional claim that chance is at most 1 − α (0.95 at α = 0.05): the interval must
# also reach the SESOI, and when the true effect is the SESOI its upper end falls short of it
# in α of the runs, however many sentences there are.
# An inconclusive verdict whose design power is below 0.8 is marked "underpowered": more
# sentences or seeds (the chapter's parameters, or the `full` profile) are the way to decide it.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
results_dir: str = "build/results"  # directory of the chapters' saved results (one JSON each)
n_sim: int = 1000  # simulated data sets per claim (and part) in the calibration table
sim_seed: int = 0  # seed of the calibration simulations
# fmt: on

# %% tags=["hide-input"]
from IPython.display import HTML, display

from probekit.book import calibration, ledger
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.io.results import load_results

plots.use_style()
g = Glue("ch61")
results = load_results(results_dir)
table = ledger.evaluate(results)
claims = ledger.claims_of_papers(table)
checks = ledger.consistency_checks(table)
found = ledger.findings(table)
simulated = calibration.claim_calibration(results, n_sim=n_sim, seed=sim_seed)

# %% tags=["remove-cell"]
g("n_claims", len(claims))
g("n_papers", claims["paper"].nunique())
for verdict in ledger.VERDICTS:
    g(verdict.replace(" ", "_"), int((claims["verdict"] == verdict).sum()))
g("tally", ledger.tally(claims))
g("n_checks", len(checks))
g("checks_tally", ledger.tally(checks))
g("n_findings", len(found))
g("findings_tally", ledger.tally(found))
g("n_all", len(table))
g("n_agree", int(table["agrees"].sum()))
g("expected_false", calibration.expected_false(simulated))
g("n_holm_flagged", int((~table["holm_ok"]).sum()))
g("rules_digest", ledger.rules_digest())
g("rules_changed", ledger.rules_last_changed() or "unknown (not a git checkout)")

# %% [markdown]
# ## The verdicts on this build
#
# Of {glue:text}`ch61_n_claims:d` claims from {glue:text}`ch61_n_papers:d` papers, this build
# gives {glue:text}`ch61_tally`.
# Each claim links to the chapter that measures it; the box at the top of that chapter says which
# parameters, seeds and data produced the number.
# The chapters' own verdicts agree with this page's on {glue:text}`ch61_n_agree:d` of the
# {glue:text}`ch61_n_all:d` claims and checks.

# %% tags=["hide-input"]
display(HTML(ledger.html_table(claims, lambda slug, anchor: f"{slug}.html#{anchor}")))

# %% tags=["hide-input"]
fig_verdicts = plots.stacked_bars(ledger.verdict_counts(claims), xlabel="claims")

# %% tags=["remove-cell"]
g.figure("fig_verdicts", fig_verdicts)

# %% [markdown]
# ```{glue:figure} ch61_fig_verdicts
# :name: fig-ch61-verdicts
#
# Verdicts per paper on this build (consistency checks left out).
# ```
#
# (sec-ch61-checks)=
# ## Consistency checks
#
# A verdict is evidence only if it could have come out either way.
# {glue:text}`ch61_n_checks:d` of the papers' statements could not, on our design: one checks a
# theorem, some hold by construction, and some are settled as soon as any effect exists or by the
# two ends of a grid.
# The chapters still judge them with the same kind of rule, because a check that fails points at
# an error in the code or the data; on this build they read {glue:text}`ch61_checks_tally`.
# They are kept out of the tally above, out of Holm's family and out of the expected count of
# false "reproduced" verdicts below.
# Each row says why it is a check and not a claim.

# %% tags=["hide-input"]
display(HTML(ledger.html_table(checks, lambda slug, anchor: f"{slug}.html#{anchor}")))

# %% [markdown]
# (sec-ch61-findings)=
# ## Findings of this book
#
# {glue:text}`ch61_n_findings:d` of the statements are measured where their paper does not
# make them, on a task or a design of this book's choosing: the verdict is a finding about our
# run, not a test of the paper.
# They read {glue:text}`ch61_findings_tally` and stay out of the tally, Holm's family and the
# expected count of false "reproduced" verdicts; each row says why.

# %% tags=["hide-input"]
display(HTML(ledger.html_table(found, lambda slug, anchor: f"{slug}.html#{anchor}")))

# %% [markdown]
#
# ## Many claims at once
#
# Each row tests its own claim at $\alpha = 0.05$, as its paper made it.
# Across the whole ledger, if none of the claimed effects were real, about
# {glue:text}`ch61_expected_false:.1f` claims would still read "reproduced" by chance: the sum of
# the rates at which each claim's rule says "reproduced" where the claim is false, simulated in
# that claim's own design (below).
# The table also applies Holm's procedure {cite}`holm1979simple` to the deciding p-values of the
# tested claims; {glue:text}`ch61_n_holm_flagged:d` reproduced verdicts would not survive
# family-wise control at 0.05, and are marked in the table.
#
# ## When the rules were fixed
#
# The rules live in code.
# Their declarations and the code that applies them hash to `{glue:text}`ch61_rules_digest``;
# they were last changed in commit {glue:text}`ch61_rules_changed`, which the provenance box
# at the top of this page and of each chapter lets a reader set against the date of this build.
# We make no claim that they were fixed before any result was seen: they were written with the
# papers and the chapters' earlier builds in view, and every later change to a rule shows in the
# history of those files.
#
# ## Calibration by simulation
#
# A rule that could only come out one way would be no test {cite}`morris2019simulation`, and a
# rule that says "reproduced" more often than $\alpha$ where its claim is false would count
# chance as evidence.
# How often it does depends on the design it reads, so each claim of the tally is simulated in
# its own: its test sentences, its seeds per side and whether they are paired, its statistic (a
# difference of corpus accuracies, a maximum over probes, two chapters' bootstraps combined) and
# its SESOI, with the sentence and seed parts of the variance set to those of the interval this
# build measured (`se sentences` and `se seeds` in points or the claim's units; `simulated se`
# shows what the simulation reached).
# Where a chapter measured how often the two compared probes disagree item by item (Part IV's
# gaps), the simulated probes disagree as often, both ways, and their sentences have as many
# items; elsewhere all probes share one random draw per unit, so that two probes' disagreements
# within a sentence all go one way.
# Each claim is simulated where it is false but only just: an effect of 0 for a directional
# claim, of plus and minus its SESOI for an equivalence claim.
# A claim of several parts that must all hold is false when one part is, so its row shows the
# part with the highest rate (`deciding part`; that rate is `screening`).
# The highest of several noisy rates overstates the worst part's, the more so the more parts, so
# the row's rate is that part's on a second simulation, with draws that did not choose it.
# Over {glue:text}`ch61_n_sim:,d` simulated data sets per claim and part, the table gives the
# share that read "reproduced" (`false reproduced`, with its Monte Carlo standard error); the
# simulator is in `probekit.book.calibration`.

# %% tags=["hide-input"]
display(
    simulated.style.format(
        {
            "screening": "{:.3f}",
            "false reproduced": "{:.3f}",
            "mc_se": "{:.3f}",
            "se sentences": "{:.3g}",
            "se seeds": "{:.3g}",
        },
        na_rep="",
    ).hide(axis="index")
)

# %% tags=["remove-cell"]
g("n_sim", n_sim)
g("max_false_reproduced", float(simulated["false reproduced"].max()))
g("n_simulated", len(simulated))
g("n_within", int(simulated["within"].sum()))
g("tolerance", calibration.TOLERANCE)
g("over_text", calibration.over_text(simulated))

# %% [markdown]
# Where its claim is false, a rule says "reproduced" in at most
# {glue:text}`ch61_max_false_reproduced:.3f` of the simulated data sets;
# {glue:text}`ch61_n_within:d` of the {glue:text}`ch61_n_simulated:d` claims stay within
# {glue:text}`ch61_tolerance:.3f` ($\alpha$ plus twice the Monte Carlo error at 1,000 data sets).
# {glue:text}`ch61_over_text`
#
# ## Reading the ledger
#
# A verdict belongs to this build, not to the paper.
# "Not reproduced" says that our run, with a small encoder and samples sized for a laptop, shows
# an effect smaller than the SESOI or none; it does not say the paper was wrong about its own
# model.
# "Inconclusive" says that our run cannot tell.
# Where a paper's released code differs from its text, the chapters follow the text and say so.
# A consistency check's verdict ({ref}`sec-ch61-checks`) is no evidence about its paper either way,
# and a finding's ({ref}`sec-ch61-findings`) is evidence about this book's run alone.

# %% tags=["hide-input"]
display(ledger.sources_table(table, results))

# %% tags=["remove-cell"]
g.save("build/results/61_claims_ledger.json")
