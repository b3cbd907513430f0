# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   probekit:
#     reads: [31_lookup_and_toy_tasks]
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-ch33)=
# # Memorisation as complexity
#
# A nuclear norm or a rank only measures probes of one parametric family.
# To compare probes of any architecture, {cite:t}`pimentel2020pareto` (§5) measure complexity by
# what a probe *can* learn when there is nothing to learn: train it on the same inputs with the
# labels shuffled across the whole training set, and take its accuracy on that shuffled training
# set.
# A probe that can memorise random labels is complex; one that stays at the majority label is
# simple.
# They call this the **label-shuffled** complexity.
# A probe may still exploit the structure of its input to memorise; the **fully-shuffled**
# complexity removes that too, by also feeding the contextual model sentences whose words were
# put in random order (for a type-level representation word order changes nothing, so this
# control applies to the contextual model only).
#
# This chapter trains random multilayer perceptrons (MLPs) as in the paper's §6.2 and plots their
# test accuracy against their memorisation, the right half of the paper's Fig. 2, with the
# corresponding rows of its Table 3.

# %% tags=["remove-cell"]
# Optional[...] is the annotation papermill's --help-notebook can read for a parameter that may
# be None.
from typing import Optional

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
layer: Optional[int] = None  # layer of the contextual model (0 is the embedding output, -1 the last); None: the one chapter 31 chose on dev
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
representations: list[str] = ["contextual", "fasttext", "onehot", "random"]  # one of {contextual, fasttext, onehot, random}
tasks: list[str] = ["posl", "dal"]  # probing tasks, one of {posl, dal}
controls: list[str] = ["label_shuffled", "fully_shuffled"]  # one of {label_shuffled, fully_shuffled}
n_train: int = 500  # training sentences sampled from the train split; 0 means all
n_dev: int = 500  # development sentences (early stopping); 0 means all
n_test: int = 0  # test sentences; 0 means all
sample_seed: int = 42  # seed of the sentence samples
n_configs: int = 3  # random MLP architectures per training seed (the paper: 50, one seed)
max_hidden: int = 256  # largest hidden size drawn (the paper: 1024)
n_memorise: int = 0  # training examples the shuffled controls memorise; 0 means all (the paper)
memorise_steps: int = 1500  # most updates of a shuffled control; it stops earlier at its plateau
simple_budget: float = 0.5  # memorisation accuracy up to which a probe counts as simple
n_boot: int = 2000  # bootstrap resamples of test sentences (claims III.4 and III.5)
type_dim: int = 64  # size of the one-hot and random word vectors
fasttext_dim: int = 300  # size of the fastText vectors
fasttext_epochs: int = 20  # epochs of fastText training on the train split
fasttext_path: str = ""  # a pretrained cc.LANG.300.bin file; empty trains fastText on the treebank
seed: int = 0  # seed of the random vectors, the word-order shuffle and the resampling (bootstrap, stability halves)
seeds: list[int] = [0, 1, 2]  # training seeds: each draws its own architectures, initialisation, batch order and label shuffles; at least 2
batch_size: int = 256  # examples per minibatch (the paper uses 2048)
lr: float = 0.003  # Adam learning rate (the paper uses 0.001)
eval_every: int = 50  # minibatches between early-stopping checks on dev (the paper uses 100)
patience: int = 4  # checks without improvement before a probe stops (the paper uses 10)
schedule: str = "plateau"  # learning-rate schedule, one of {constant, plateau} (plateau: halve at every check without a gain)
max_steps: int = 1500  # upper bound on minibatches per probe trained on the gold labels
results_dir: str = "build/results"  # directory of the chapters' saved results (chapter 31's chosen layer)
device: str = "auto"  # where probes train and encoders run: auto (GPU if any), cpu, cuda, cuda:N
# fmt: on

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.claims import format_interval
from probekit.experiments.deviations import cap_share_numbers, deviation_table
from probekit.experiments.part3_pareto import (
    claims,
    experimental_setup,
    figures,
    frontiers,
    layer_choice,
    memorisation_experiment,
    paper,
    protocol,
)
from probekit.experiments.part3_pareto.config import MemorisationConfig
from probekit.experiments.part3_pareto.memorisation import CONDITIONS, RELEASED_STOPPING
from probekit.experiments.part3_pareto.representations import TASKS
from probekit.io.results import load_results

plots.use_style()
g = Glue("ch33")
config = MemorisationConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# Representations and tasks are those of {ref}`sec-ch32`: the contextual model
# ({glue:text}`ch33_contextual`), fastText trained on the treebank, one-hot and random vectors,
# on POSL and DAL.
# The training sample is this chapter's own, and small: every control must memorise the
# shuffled labels of all of it, which takes many times the updates that learning the real labels
# takes, and on two CPU cores that is affordable for a few hundred sentences only.
# Under each of {glue:text}`ch33_n_seeds:d` training seeds we run the paper's random search
# again: the seed draws {glue:text}`ch33_n_configs:d` MLP architectures of its own, and sets
# their initialisation, batch order and label shuffles.
# A claim's statistic is computed seed by seed and averaged, and its interval carries the
# variation between seeds; the figures draw every seed's probes.
# The architectures are drawn as the paper draws them: 0 to 5 hidden
# layers with ReLU, a dropout rate between 0 and 0.5, and a hidden size drawn log-uniformly,
# here between 32 and {glue:text}`ch33_max_hidden:d` (the paper goes up to 1,024; an MLP with no
# hidden layer is a linear probe).
# Every architecture is trained on the gold labels of {glue:text}`ch33_n_train_sentences:,d`
# training sentences ({glue:text}`ch33_n_train_words:,d` words), stopping early on
# {glue:text}`ch33_n_dev_words:,d` development words (Adam, learning rate
# {glue:text}`ch33_lr:.3g`, batches of {glue:text}`ch33_batch_size:d`, at most
# {glue:text}`ch33_max_steps:,d` updates), and scored on {glue:text}`ch33_n_test_words:,d` test
# words.
# It is trained again under each control, and its complexity is its accuracy on the shuffled
# labels it was trained on.
# Each control memorises the shuffled labels of {glue:text}`ch33_memorise_set`
# ({glue:text}`ch33_n_memorise_posl:,d` POSL words and {glue:text}`ch33_n_memorise_dal:,d` DAL
# arcs), and trains until its loss on them has not fallen by
# {glue:text}`ch33_memorise_min_delta:.2f` bits for {glue:text}`ch33_memorise_patience:,d`
# updates (the released code's rule, whatever the probes' own), for at most
# {glue:text}`ch33_memorise_steps:,d` updates.
# A shorter wait would stop most controls on their first plateau: on shuffled labels the loss
# stays near the entropy of the labels for hundreds of updates before a probe starts to memorise.
# Our training sample is smaller than the paper's training split, and fewer examples are easier
# to memorise, so our memorisation accuracies are expected to be higher than the paper's; what
# matters for the curves is how architectures and representations rank.
# Architectures with the same layer sizes are trained together in one batched pass.

# %% [markdown]
# ### Where this run departs from the paper

# %% tags=["hide-input"]
deviations = deviation_table(config, protocol.PROTOCOL_33)
display(deviations.drop(columns=["deviates"]).style.hide(axis="index"))

# %% tags=["remove-cell"]
g("n_deviations", int(deviations["deviates"].sum()))

# %% [markdown]
# {glue:text}`ch33_n_deviations:d` settings depart from the paper's protocol.
# The architectures drawn for this run:

# %% tags=["remove-cell"]
saved = load_results(config.results_dir, [layer_choice.CHAPTER]).get(layer_choice.CHAPTER)
config, selection = layer_choice.with_layer(config, saved)

# %% [markdown]
# (sec-ch33-layer)=
# ### Which layer
#
# The paper probes the last layer of BERT; this chapter probes the layer of our encoder that
# chapter 31 chose on development data ({ref}`sec-ch31-layer`), the same for every chapter of
# Part III.
# {glue:text}`ch33_layer_text`

# %% tags=["hide-input"]
g.figure("fig_layers", figures.plot_selection(selection, config.layer))

# %% tags=["remove-cell"]
g("layer_text", layer_choice.selection_text(selection, config.layer))

# %% [markdown]
# ```{glue:figure} ch33_fig_layers
# :name: fig-ch33-layers
#
# Test UAS by layer of chapter 31's selection parsers, and the layer they chose on development UAS.
# ```

# %% tags=["hide-input"]
setup = experimental_setup.build_pareto_setup(config)
labels = setup.labels
memorisation_experiment.architecture_table(setup.architectures).style.format({"dropout": "{:.2f}"})

# %% tags=["remove-cell"]
g("treebank", setup.treebank.name)
g("n_train_sentences", len(setup.splits.train))
g("n_train_words", setup.splits.n_words("train"))
g("n_dev_words", setup.splits.n_words("dev"))
g("n_test_words", setup.splits.n_words("test"))
g("n_configs", config.n_configs)
g("n_seeds", len(config.seeds))
g("max_hidden", config.max_hidden)
g("memorise_steps", config.memorise_steps)
g("memorise_patience", RELEASED_STOPPING.eval_every * RELEASED_STOPPING.patience)
g("memorise_min_delta", RELEASED_STOPPING.min_delta)
g("batch_size", config.batch_size)
g("max_steps", config.max_steps)
g("lr", config.lr)
g("contextual", setup.contextual_label)

# %% tags=["hide-input"]
runs = memorisation_experiment.run_memorisation(setup, config)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.memorisation_set_numbers(runs).items():
    g(key, value)
g("majority_posl", 100 * runs.majority_share("posl"))
g("majority_dal", 100 * runs.majority_share("dal"))
g("least_posl", 100 * runs.least_memorised("posl"))
g("least_dal", 100 * runs.least_memorised("dal"))
g("x_name", runs.x.replace("_", "-"))

# %% [markdown]
# ### Did the probes converge?
#
# A probe still improving when it reaches its cap of updates has not converged: its accuracy, or
# for a control its memorisation, measures the budget as much as the representation.
# The next table counts, for the probes on the gold labels and for each control, the share that
# ended at the cap rather than at their plateau.

# %% tags=["hide-input"]
caps = memorisation_experiment.memorisation_cap_shares(runs)
caps.style.format({"cap share": "{:.0%}"})

# %% tags=["remove-cell"]
for key, value in cap_share_numbers(caps).items():
    g(key, value)

# %% [markdown]
# Over all of this chapter's training runs, {glue:text}`ch33_cap_share:.0f` % ended at their
# cap, and at most {glue:text}`ch33_cap_share_worst:.0f` % of one kind: that is
# {glue:text}`ch33_cap_share_text`.

# %% [markdown]
# ## Pareto curves under label-shuffled complexity

# %% tags=["hide-input"]
g.figure("fig_label", memorisation_experiment.plot_memorisation(runs, labels))

# %% [markdown]
# ```{glue:figure} ch33_fig_label
# :name: fig-ch33-label
#
# Test accuracy of random MLPs against their label-shuffled complexity, for POSL (left) and DAL
# (right): the right half of the paper's Fig. 2. Dots: architectures; lines: frontiers.
# ```
#
# The architecture that memorises least gets {glue:text}`ch33_least_posl:.1f` % of its shuffled
# POSL labels and {glue:text}`ch33_least_dal:.1f` % of its shuffled DAL labels right; a probe that
# always predicts the most frequent label would get {glue:text}`ch33_majority_posl:.1f` % and
# {glue:text}`ch33_majority_dal:.1f` %.
#
# ## Hypervolumes
#
# With memorisation as the complexity, the cap is 1: a probe that memorises every shuffled label.

# %% tags=["hide-input"]
hv = memorisation_experiment.memorisation_hypervolumes(runs)
memorisation_experiment.memorisation_hypervolume_table(hv, labels).style.format(
    "{:.2f}", na_rep="–"
)

# %% tags=["remove-cell"]
for key, value in paper.table3_numbers(hv, CONDITIONS[1:]).items():
    g(key, value)


# %% [markdown]
# ### Are there enough probes?
#
# A hypervolume is read off the probes that happened to be trained. If a frontier has enough of
# them, dropping half should barely move it. The next table recomputes every hypervolume from
# each of {glue:text}`ch33_stability_n_halves:d` random halves of its probes (drawn with the
# chapter's seed) and reports the mean loss; the share of halves within the tolerance shows how
# much it varies with the half: a frontier carried by a few probes loses little in most halves
# and much in the rest.

# %% tags=["hide-input"]
stability = memorisation_experiment.memorisation_stability(runs, config.seed)
frontiers.stability_table(stability, labels)

# %% tags=["remove-cell"]
for key, value in frontiers.stability_numbers(stability).items():
    g(key, value)

# %% [markdown]
# With half the probes, a hypervolume drops on average by at most
# {glue:text}`ch33_stability_worst_difference:.3f`; {glue:text}`ch33_stability_n_stable:d` of
# {glue:text}`ch33_stability_n_frontiers:d` frontiers stay within
# {glue:text}`ch33_stability_tolerance:.2f`: {glue:text}`ch33_stability_text`.

# %% [markdown]
# Under label-shuffled complexity the POSL hypervolumes are
# {glue:text}`ch33_hv_posl_label_shuffled_contextual:.2f` (contextual),
# {glue:text}`ch33_hv_posl_label_shuffled_fasttext:.2f` (fastText),
# {glue:text}`ch33_hv_posl_label_shuffled_onehot:.2f` (one-hot) and
# {glue:text}`ch33_hv_posl_label_shuffled_random:.2f` (random); the paper's Table 3 has
# {glue:text}`ch33_paper_posl_label_shuffled_contextual:.2f`,
# {glue:text}`ch33_paper_posl_label_shuffled_fasttext:.2f`,
# {glue:text}`ch33_paper_posl_label_shuffled_onehot:.2f` and
# {glue:text}`ch33_paper_posl_label_shuffled_random:.2f`.
# For DAL ours are {glue:text}`ch33_hv_dal_label_shuffled_contextual:.2f`,
# {glue:text}`ch33_hv_dal_label_shuffled_fasttext:.2f`,
# {glue:text}`ch33_hv_dal_label_shuffled_onehot:.2f` and
# {glue:text}`ch33_hv_dal_label_shuffled_random:.2f` against the paper's
# {glue:text}`ch33_paper_dal_label_shuffled_contextual:.2f`,
# {glue:text}`ch33_paper_dal_label_shuffled_fasttext:.2f`,
# {glue:text}`ch33_paper_dal_label_shuffled_onehot:.2f` and
# {glue:text}`ch33_paper_dal_label_shuffled_random:.2f`.
# How much a probe memorises depends on how many labels it must memorise and on how long it
# waits for its loss to stop falling, and both differ from the paper's, so only the order of the
# representations can be compared across the two tables.
#
# This metric penalises a representation that makes memorising easy: its architectures sit
# further to the right.
# One reason it can do so is plain: random labels are easiest to memorise from inputs that tell
# the examples apart.
# A contextual vector differs from token to token, while a type-level vector is shared by every
# occurrence of a word, whose shuffled labels then contradict each other; no probe can memorise
# more than the most frequent shuffled label of each word type.
#
# ## Label-shuffled against fully shuffled
#
# The paper reports that on POSL and DAL the two controls give almost the same hypervolumes for
# BERT (0.79 and 0.79 on POSL, 0.80 and 0.81 on DAL).
# The next figure puts the contextual model's two curves side by side.

# %% tags=["hide-input"]
g.figure(
    "fig_full", memorisation_experiment.plot_memorisation_controls(runs, config.representations)
)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.control_numbers(runs, config.representations).items():
    g(key, value)

# %% [markdown]
# ```{glue:figure} ch33_fig_full
# :name: fig-ch33-full
#
# The contextual model's MLPs under the two controls: test accuracy against memorisation of
# shuffled labels on the real sentences (label-shuffled) and on word-shuffled sentences (fully
# shuffled). POSL left, DAL right.
# ```
#
# Shuffling the sentences as well changes the share of shuffled labels an architecture
# memorises by {glue:text}`ch33_full_minus_label_mean:+.1f` points on average (a negative number
# means it memorises less), and the contextual hypervolume by
# {glue:text}`ch33_hv_full_minus_label_posl:+.2f` on POSL and
# {glue:text}`ch33_hv_full_minus_label_dal:+.2f` on DAL.
#
# ## Are simple probes enough?
#
# The paper's main observation in its §6.2 is that on these tasks the architectures that memorise
# little are as accurate as those that memorise a lot.
# We split, for each representation and task, the architectures into the half that memorises
# less and the half that memorises more, and compare the best test accuracy of each.
# The halves are of equal size (with an odd number of architectures the median one sits out), so
# that neither best is a maximum over more probes, which would favour it by chance alone.
# Where every control memorises the same (all stopped at the majority label, say), no half
# memorises more than the other, and the setting gets no gap.

# %% tags=["hide-input"]
gaps = frontiers.simple_vs_best(runs.table, runs.x)
memorisation_experiment.simple_vs_best_table(gaps, labels).style.format("{:.1f}").format(
    "{:.2f}", subset=["Spearman ρ (memorisation, accuracy)"]
)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.simple_vs_best_numbers(gaps).items():
    g(key, value)

# %% [markdown]
# Over all seeds' architectures, the more complex half's best is ahead of the simpler half's by
# {glue:text}`ch33_mean_gap:+.1f` points on average and by {glue:text}`ch33_max_gap:+.1f` at most
# (a negative number: the simpler half does better).
# These gaps are estimates from the test sentences and from one draw of architectures.
# The claim below takes the gap within each training seed, among that seed's own architectures,
# resamples the test sentences {glue:text}`ch33_n_boot:,d` times with replacement (the words or
# arcs of one sentence together) and adds the variance between the seeds' gaps.
# It compares the two halves rather than the best of all architectures with the best of the
# simpler half: that difference is 0 whenever a seed's best architecture is a simple one, and with
# a few seeds all at 0 the variance between them vanishes, and with it the interval: simulated
# in this chapter's design, such a rule found the halves equally good many times more often than
# $\alpha$ where the more complex architectures were better by the margin.

# %% tags=["hide-input"]
simple_as_good = claims.simple_as_good_intervals(runs, n_boot=config.n_boot, seed=config.seed)

# %% tags=["remove-cell"]
g("n_boot", config.n_boot)
if simple_as_good:
    g.claim(claims.SIMPLE_AS_GOOD, simple_as_good)
else:
    g.untested(claims.SIMPLE_AS_GOOD, "it needs two or more MLPs with a memorisation complexity")

# %% [markdown]
# The verdict at the end of the chapter lists the eight intervals.
#
# ## Who leads the simple range

# %% tags=["hide-input"]
leaders = memorisation_experiment.memorisation_leaders(runs, config.simple_budget, labels)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.memorisation_leader_numbers(leaders).items():
    g(key, value)
g("simple_budget", config.simple_budget)

# %% [markdown]
# With {glue:text}`ch33_x_name` complexity the POSL frontier is led by
# {glue:text}`ch33_leaders_posl`, and the DAL frontier by {glue:text}`ch33_leaders_dal`
# (intervals narrower than 0.02 are left out).
# Among architectures that memorise at most {glue:text}`ch33_simple_budget:.2f` of the shuffled
# labels, the largest hypervolume goes to {glue:text}`ch33_simple_posl` on POSL and to
# {glue:text}`ch33_simple_dal` on DAL.
# The paper claims that one-hot vectors win among simple probes under the nuclear norm (its
# §6.1), not under memorisation complexity, so this chapter only reports who leads; the claim is
# judged in {ref}`sec-ch32`.
#
# ## The contextual lead, for the comparison with parsing
#
# The paper's case for parsing (its §7.2) compares how far the contextual representation leads
# the best type-level one on parsing and on these two tasks.
# On the toy tasks we measure that lead here: the contextual representation's hypervolume under
# {glue:text}`ch33_x_name` complexity minus the largest hypervolume of the other
# representations, with the same resampling of test sentences as above; {ref}`sec-ch35` sets
# the two intervals against the lead on parsing of {ref}`sec-ch34`.

# %% tags=["hide-input"]
leads = {
    task: claims.contextual_lead_interval(
        {name: run for (t, name), run in runs.runs.items() if t == task},
        runs.x,
        n_boot=config.n_boot,
        seed=config.seed,
    )
    for task in TASKS
}

# %% tags=["remove-cell"]
for task, lead in leads.items():
    g(f"hv_gap_{task}", lead.estimate if lead else float("nan"))
    g(f"hv_gap_{task}_text", format_interval(lead, claims.SEPARATION_RULE) if lead else "–")
for key, value in claims.lead_values(leads, config).items():
    g(key, value)
g.save("build/results/33_memorisation_complexity.json")

# %% [markdown]
# The contextual lead in hypervolume is {glue:text}`ch33_hv_gap_posl_text` on POSL and
# {glue:text}`ch33_hv_gap_dal_text` on DAL; the paper's Table 3 gives
# {glue:text}`ch33_paper_posl_label_shuffled_contextual:.2f` for BERT against
# {glue:text}`ch33_paper_posl_label_shuffled_fasttext:.2f` for fastText on POSL, and
# {glue:text}`ch33_paper_dal_label_shuffled_contextual:.2f` against
# {glue:text}`ch33_paper_dal_label_shuffled_fasttext:.2f` on DAL.
#
# ## Verdicts
#
# **MLPs that memorise little are as accurate as those that memorise a lot:
# {glue:text}`ch33_simple_as_good_verdict`.**
# For every task and representation, the best test accuracy of the half of the architectures
# that memorises more minus the best of the half that memorises less must lie within a margin,
# the smallest effect size of interest (SESOI).
# The differences are, on POSL, contextual {glue:text}`ch33_simple_as_good_posl_contextual_text`,
# fastText {glue:text}`ch33_simple_as_good_posl_fasttext_text`,
# one-hot {glue:text}`ch33_simple_as_good_posl_onehot_text` and
# random {glue:text}`ch33_simple_as_good_posl_random_text`; on DAL, contextual
# {glue:text}`ch33_simple_as_good_dal_contextual_text`,
# fastText {glue:text}`ch33_simple_as_good_dal_fasttext_text`,
# one-hot {glue:text}`ch33_simple_as_good_dal_onehot_text` and
# random {glue:text}`ch33_simple_as_good_dal_random_text` (each the mean over the training seeds of
# the gap among that seed's own architectures; a sentence bootstrap with the variance between
# seeds added); the least
# favourable setting decides: {glue:text}`ch33_simple_as_good_text`.
# The design's power to show agreement when the two halves are equally accurate is at most
# {glue:text}`ch33_simple_as_good_power:.2f` (the smallest of the eight settings', an upper
# bound for all eight together); the margin is {glue:text}`ch33_simple_as_good_sesoi`
# ({glue:text}`ch33_simple_as_good_sesoi_reason`).
# The rule's reading: {glue:text}`ch33_simple_as_good_reading`; for the least favourable
# setting, {glue:text}`ch33_simple_as_good_worst_reading`.
