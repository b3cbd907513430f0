# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   probekit:
#     reads: [42_length_criteria, 43_tag_criteria]
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-ch44)=
# # Learning criteria: speed of learning and sample loss
#
# The last two scoring functions of {cite:t}`kunz2021test` ask the probe itself what is hard.
# An ensemble of standard probes, one per seed, is trained for every layer; an example is hard
# when the ensemble learns it late (*speed of learning*) or ends with a high loss on it
# (*sample loss*).
# Because every layer has its own ensemble, every layer has its own easy and hard sets.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
pooling: str = "last"  # wordpiece pooling, one of {first, last, mean}; the paper takes the last
layers: list[int] = []  # layers to probe (0 is the embedding output); [] means all
seeds: list[int] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # probe initialisation seeds (paper: 10)
ensemble_seeds: list[int] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # seeds of the scoring ensemble
n_train: int = 1000  # training sentences sampled from the train split; 0 means all
n_eval: int = 1000  # evaluation sentences sampled from the dev split; 0 means all
sample_seed: int = 42  # seed of the sentence samples
order_seed: int = -1  # seed of the training data order; -1 means corpus order, as released
epochs: int = 5  # training epochs per probe, best epoch reported (paper 5, released code 10)
compare_layer: int = -1  # layer of the paired control-extrapolation test; -1 is the last layer
# fmt: on

# %% [markdown]
# ## Setup
#
# Each scoring ensemble has {glue:text}`ch44_n_ensemble:d` probes per layer (the paper: 10),
# trained on all {glue:text}`ch44_n_train_sentences:,d` training sentences; the setups are then
# trained for {glue:text}`ch44_n_seeds:d` seeds and {glue:text}`ch44_n_layers:d` layers, for
# {glue:text}`ch44_epochs:d` epochs (the paper says 5, its code runs 10), and scored on
# {glue:text}`ch44_n_eval_sentences:,d` development sentences.
# The same ensemble scores the development examples, so the hard evaluation set is also chosen by
# probes trained on the training sentences only.
# Splits that could not be made: {glue:text}`ch44_skipped`.
#
# The paper's hard set is strict, m > m2.
# When more than a quarter of the evaluation examples are never predicted correctly at any
# checkpoint, they all score the maximum 1, the 75th percentile is 1, and the strict rule leaves
# the hard set empty.
# In that case we lower m2 to the next observed score, so the hard set is exactly the
# never-correct examples; this is our choice, not the paper's.
# Layers where it was needed: {glue:text}`ch44_widened`.
#
# Where we differ from the released code: its speed-of-learning score dropped the examples that
# no checkpoint ever got right (the hardest ones) and took its threshold at the wrong end of a
# descending list; we keep them and use the paper's percentiles.
# Its checkpoints fell after 1, 2, 3, 5, 9, … batches because of an off-by-one in the update
# counter; ours fall after 1, 2, 4, …, 64 updates.
# Its losses were taken during the last training epoch with batch size 1; ours come from the
# final weights.

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments.part4_extrapolation import (
    claims,
    comparisons,
    criteria,
    figures,
    part_gaps,
    tables,
)
from probekit.experiments.part4_extrapolation.config import LearningCriteriaConfig
from probekit.experiments.part4_extrapolation.splits import LEARNING_SPLITS

config = LearningCriteriaConfig.from_parameters(globals())
g = Glue("ch44")

# %% tags=["hide-input"]
chapter = criteria.run_criteria(config, LEARNING_SPLITS)

# %% tags=["remove-cell"]
for key, value in claims.learning_values(chapter).items():
    g(key, value)

# %% [markdown]
# ## Speed of learning

# %% tags=["hide-input"]
g.figure("fig_speed", figures.setup_panels(chapter.probes, figures.SPEED_PANELS))

# %% [markdown]
# ```{glue:figure} ch44_fig_speed
# :name: fig-ch44-speed
#
# Extrapolation by speed of learning (the layout of the paper's Figure 4), tagging (T1, left) and
# dependency labelling (T2, right): best-epoch accuracy per layer, mean ± SD over seeds.
# ```
#
# Standard minus control averages {glue:text}`ch44_t1_speed_difficulty_mean:.1f` points for T1
# and {glue:text}`ch44_t2_speed_difficulty_mean:.1f` for T2.
# From layer {glue:text}`ch44_mid_layer:d` to layer {glue:text}`ch44_last_layer:d`, extrapolation
# accuracy goes from {glue:text}`ch44_t1_speed_extra_mid:.1f` % to
# {glue:text}`ch44_t1_speed_extra_last:.1f` % for T1 and from
# {glue:text}`ch44_t2_speed_extra_mid:.1f` % to {glue:text}`ch44_t2_speed_extra_last:.1f` % for
# T2.
#
# ## Sample loss

# %% tags=["hide-input"]
g.figure("fig_loss", figures.setup_panels(chapter.probes, figures.LOSS_PANELS))

# %% [markdown]
# ```{glue:figure} ch44_fig_loss
# :name: fig-ch44-loss
#
# Extrapolation by sample loss (the layout of the paper's Figure 5), T1 left and T2 right.
# ```
#
# By construction the hard set holds the examples the ensemble gets most wrong.
# The paper also reports a collapse of T1 extrapolation in BERT's layers 6–8, where the other
# setups peak; in this run the T1 extrapolation curve peaks at layer
# {glue:text}`ch44_t1_loss_extra_best_layer:d` (see the figure for any dip).
#
# ## Paired tests on the hard items
#
# For one layer and the first seed, the exact McNemar test compares the control and
# extrapolation probes on the same hard items, with its power {cite}`zhu2022data`.

# %% tags=["hide-input"]
paired = comparisons.compare_hard_items(chapter, comparisons.LEARNING_PAIRS)
display(paired.table.round(3))

# %% tags=["remove-cell"]
for key, value in paired.values.items():
    g(key, value)
for key, comparison in paired.comparisons.items():
    g.comparison(key, comparison)

# %% [markdown]
# At layer {glue:text}`ch44_compare_layer:d`:
# T1 speed of learning: {glue:text}`ch44_t1_speed_cmp_summary`
# T2 speed of learning: {glue:text}`ch44_t2_speed_cmp_summary`
# T1 sample loss: {glue:text}`ch44_t1_loss_cmp_summary`
# T2 sample loss: {glue:text}`ch44_t2_loss_cmp_summary`
#
# Split points differ per layer; the table lists them with the mean accuracies (%) and gaps
# (points).

# %% tags=["hide-input"]
display(tables.layer_points_table(chapter.tasks, chapter.layers).round(4))
display(chapter.gaps.set_index(["split", "layer"]).round(1))

# %% [markdown]
# ## Across Part IV
#
# The paper ranks its scoring functions by the control − extrapolation gap.
# The table collects the mean gap over layers from the three chapters of this part, where they
# were run with the same sample sizes, seeds and epochs as this page (chapters run under another
# profile are left out: {glue:text}`ch44_stale`).

# %% tags=["hide-input"]
ledger, stale = part_gaps.collect_gaps(g.values, "build/results")
display(ledger.pivot_table(index="scoring function", columns="task", values="gap").round(1))

# %% tags=["remove-cell"]
for key, value in claims.ranking_values(ledger, stale).items():
    g(key, value)

# %% [markdown]
# Among the {glue:text}`ch44_t1_n_functions:d` T1 scoring functions available here the smallest
# gap belongs to {glue:text}`ch44_t1_smallest` and the largest to
# {glue:text}`ch44_t1_largest`; among the {glue:text}`ch44_t2_n_functions:d` for T2, the smallest
# to {glue:text}`ch44_t2_smallest` and the largest to {glue:text}`ch44_t2_largest`.
#
# ## Verdicts
#
# **The speed-of-learning hard set is hardly harder: {glue:text}`ch44_claim_speed_not_harder`.**
# Standard minus control averages {glue:text}`ch44_t1_speed_difficulty_mean:.1f` points for T1
# and {glue:text}`ch44_t2_speed_difficulty_mean:.1f` for T2; the claim asks that both stay
# within 3 points.
#
# **For T2 the control beats the standard setup in all layers but layer 0:
# {glue:text}`ch44_claim_t2_exceeds`.**
# It does so in {glue:text}`ch44_t2_speed_above_layers:d` layers.
#
# **Training on quickly learnt examples only is disastrous, more than on low-loss ones:
# {glue:text}`ch44_claim_speed_largest`.**
# The control − extrapolation gap averages {glue:text}`ch44_t1_speed_gap_mean:.1f` points for T1
# and {glue:text}`ch44_t2_speed_gap_mean:.1f` for T2, against
# {glue:text}`ch44_t1_loss_gap_mean:.1f` and {glue:text}`ch44_t2_loss_gap_mean:.1f` under sample
# loss (the paper finds speed of learning's gap the largest of all its settings; compare
# {ref}`sec-ch42` and {ref}`sec-ch43`).
#
# **Extrapolation accuracy keeps falling in the upper layers:
# {glue:text}`ch44_claim_speed_decreases`.**
# From layer {glue:text}`ch44_mid_layer:d` to layer {glue:text}`ch44_last_layer:d` it goes from
# {glue:text}`ch44_t1_speed_extra_mid:.1f` % to {glue:text}`ch44_t1_speed_extra_last:.1f` % for
# T1 and from {glue:text}`ch44_t2_speed_extra_mid:.1f` % to
# {glue:text}`ch44_t2_speed_extra_last:.1f` % for T2.
#
# **The loss-based control is the lowest: {glue:text}`ch44_claim_loss_control_lowest`.**
# Control accuracy averages {glue:text}`ch44_t1_loss_control_mean:.1f` % (T1) and
# {glue:text}`ch44_t2_loss_control_mean:.1f` % (T2), against
# {glue:text}`ch44_t1_speed_control_mean:.1f` % and {glue:text}`ch44_t2_speed_control_mean:.1f` %
# under speed of learning (the length and tag controls of {ref}`sec-ch42` and {ref}`sec-ch43`
# can be read off their figures).
#
# **Under sample loss, T1 extrapolation stays close to the control:
# {glue:text}`ch44_claim_t1_close`.**
# The T1 gap averages {glue:text}`ch44_t1_loss_gap_mean:.1f` points; the claim asks for less than
# 3.
#
# **Under sample loss, the T2 setups drift further apart than T1's:
# {glue:text}`ch44_claim_t2_wider`.**
# The T2 gap averages {glue:text}`ch44_t2_loss_gap_mean:.1f` points against
# {glue:text}`ch44_t1_loss_gap_mean:.1f` for T1.
#
# **Sentence length gives the smallest gap of all scoring functions, for T1:
# {glue:text}`ch44_claim_t1_length_smallest`.**
# On our numbers the smallest T1 gap belongs to {glue:text}`ch44_t1_smallest`.
#
# **Sentence length gives the smallest gap of all scoring functions, for T2:
# {glue:text}`ch44_claim_t2_length_smallest`.**
# On our numbers the smallest T2 gap belongs to {glue:text}`ch44_t2_smallest`.

# %% tags=["remove-cell"]
g.save("build/results/44_learning_criteria.json")
