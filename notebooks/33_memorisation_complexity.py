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

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
layer: int = -1  # layer of the contextual model (0 is the embedding output, -1 the last)
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
representations: list[str] = ["contextual", "fasttext", "onehot", "random"]  # one of {contextual, fasttext, onehot, random}
tasks: list[str] = ["posl", "dal"]  # probing tasks, one of {posl, dal}
controls: list[str] = ["label_shuffled", "fully_shuffled"]  # one of {label_shuffled, fully_shuffled}
n_train: int = 2000  # training sentences sampled from the train split; 0 means all
n_dev: int = 500  # development sentences (early stopping); 0 means all
n_test: int = 0  # test sentences; 0 means all
sample_seed: int = 42  # seed of the sentence samples
n_configs: int = 6  # random MLP architectures per representation and task (the paper: 50)
max_hidden: int = 256  # largest hidden size drawn (the paper: 1024)
n_memorise: int = 2048  # training examples the shuffled controls must memorise; 0 means all
memorise_steps: int = 500  # updates of every shuffled control
simple_budget: float = 0.5  # memorisation accuracy up to which a probe counts as simple
type_dim: int = 64  # size of the one-hot and random word vectors
fasttext_dim: int = 300  # size of the fastText vectors
fasttext_epochs: int = 20  # epochs of fastText training on the train split
fasttext_path: str = ""  # a pretrained cc.LANG.300.bin file; empty trains fastText on the treebank
seed: int = 0  # seed of architectures, initialisation, batch order, shuffles and random vectors
batch_size: int = 256  # examples per minibatch (the paper uses 2048)
lr: float = 0.003  # Adam learning rate (the paper uses 0.001)
eval_every: int = 50  # minibatches between early-stopping checks on dev (the paper uses 100)
patience: int = 4  # checks without improvement before a probe stops (the paper uses 10)
max_steps: int = 800  # upper bound on minibatches per probe trained on the gold labels
# fmt: on

# %% tags=["hide-input"]
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part3_pareto import (
    claims,
    experimental_setup,
    frontiers,
    memorisation_experiment,
    paper,
)
from probekit.experiments.part3_pareto.config import MemorisationConfig
from probekit.experiments.part3_pareto.memorisation import CONDITIONS

plots.use_style()
g = Glue("ch33")
config = MemorisationConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# Representations, data and tasks are those of {ref}`sec-ch32`: the contextual model
# ({glue:text}`ch33_contextual`), fastText trained on the treebank, one-hot and random vectors,
# on POSL and DAL.
# We draw {glue:text}`ch33_n_configs:d` MLP architectures as the paper does: 0 to 5 hidden
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
# Here we depart from the paper for the sake of the time budget: the paper memorises the whole
# training split until the loss stalls, which takes thousands of updates; we let every control
# memorise the labels of {glue:text}`ch33_n_memorise:,d` training examples for exactly
# {glue:text}`ch33_memorise_steps:,d` updates.
# Fewer examples are easier to memorise, so our memorisation accuracies are higher than they
# would be on the whole split; what matters for the curves is how architectures rank.
# Architectures with the same layer sizes are trained together in one batched pass.

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
g("max_hidden", config.max_hidden)
g("memorise_steps", config.memorise_steps)
g("batch_size", config.batch_size)
g("max_steps", config.max_steps)
g("lr", config.lr)
g("contextual", setup.contextual_label)

# %% tags=["hide-input"]
runs = memorisation_experiment.run_memorisation(setup, config)

# %% tags=["remove-cell"]
g("n_memorise", runs.n_memorise)
g("majority_posl", 100 * runs.majority_share("posl"))
g("majority_dal", 100 * runs.majority_share("dal"))
g("x_name", runs.x.replace("_", "-"))

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
# No probe memorises less than the majority label, which is about
# {glue:text}`ch33_majority_posl:.1f` % of the POSL and {glue:text}`ch33_majority_dal:.1f` % of
# the DAL training labels, so every curve starts near there.
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
# How much a probe memorises depends on how long it trains and on how many labels it must
# memorise, and both differ from the paper's, so only the order of the representations can be
# compared across the two tables.
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
for key, value in memorisation_experiment.control_numbers(runs, hv, config.representations).items():
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
# We test it by comparing, for each representation and task, the best test accuracy among the
# half of the architectures with the lower memorisation with the best accuracy overall.

# %% tags=["hide-input"]
gaps = frontiers.simple_vs_best(runs.table, runs.x)
memorisation_experiment.simple_vs_best_table(gaps, labels).style.format("{:.1f}").format(
    "{:.2f}", subset=["Spearman ρ (memorisation, accuracy)"]
)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.simple_vs_best_numbers(gaps).items():
    g(key, value)
g("verdict_simple_as_good", claims.simple_as_good_verdict(gaps))

# %% [markdown]
# The simpler half loses {glue:text}`ch33_mean_gap:.1f` points on average and at most
# {glue:text}`ch33_max_gap:.1f`.

# %% tags=["hide-input"]
leaders = memorisation_experiment.memorisation_leaders(runs, config.simple_budget, labels)
verdict_onehot = claims.memorisation_onehot_verdict(
    leaders["winner"].tolist(), config.representations, config.simple_budget
)

# %% tags=["remove-cell"]
for key, value in memorisation_experiment.memorisation_leader_numbers(leaders).items():
    g(key, value)
g("verdict_onehot", verdict_onehot)
g("simple_budget", config.simple_budget)

# %% [markdown]
# ## Contextual against one-hot among simple probes
#
# As in {ref}`sec-ch32` we pick, for the contextual and the one-hot representation, the
# architecture with the best development accuracy among those that memorise at most
# {glue:text}`ch33_simple_budget:.2f` of the shuffled labels, and compare the two on the same test
# items with McNemar's exact test.

# %% tags=["hide-input"]
summaries = memorisation_experiment.memorisation_comparisons(runs, config.simple_budget, labels)

# %% tags=["remove-cell"]
for key, value in summaries.items():
    g(key, value)
for key, value in memorisation_experiment.hypervolume_gap_numbers(
    hv, config.representations
).items():
    g(key, value)
g("model", config.model)
g("layer", config.layer)
g("pooling", config.pooling)
g("verdict_parsing", claims.NO_PARSING_VERDICT)
g.save("build/results/33_memorisation_complexity.json")

# %% [markdown]
# POSL: {glue:text}`ch33_compare_posl`
# DAL: {glue:text}`ch33_compare_dal`
#
# ## Verdicts
#
# **Which representations are Pareto-dominant** (complexity: {glue:text}`ch33_x_name`).
# POSL, {glue:text}`ch33_leaders_posl`; DAL, {glue:text}`ch33_leaders_dal` (intervals narrower
# than 0.02 are left out).
#
# **"Simple architectures are as accurate as complex ones": {glue:text}`ch33_verdict_simple_as_good`.**
# The simpler half of the architectures gives up {glue:text}`ch33_mean_gap:.1f` points of
# accuracy on average, at most {glue:text}`ch33_max_gap:.1f`.
#
# **"One-hot wins for simple probes": {glue:text}`ch33_verdict_onehot`.**
# The representation with the largest hypervolume below that budget is
# {glue:text}`ch33_simple_posl` for POSL and {glue:text}`ch33_simple_dal` for DAL.
#
# **The contextual advantage on toy tasks.**
# The contextual model's label-shuffled hypervolume exceeds the best type-level one by
# {glue:text}`ch33_hv_gap_posl:+.2f` on POSL and {glue:text}`ch33_hv_gap_dal:+.2f` on DAL;
# {ref}`sec-ch34` sets these gaps against parsing.
#
# **"Parsing separates contextual from non-contextual": {glue:text}`ch33_verdict_parsing`.**
