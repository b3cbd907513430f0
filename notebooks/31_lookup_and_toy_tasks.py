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
# (sec-ch31)=
# # Lookup tables and toy tasks
#
# {cite:t}`pimentel2020pareto` make two arguments.
# The first is about method: a probe should be judged by the trade-off between its accuracy and its
# complexity, not by either alone (chapters {ref}`sec-ch32` and {ref}`sec-ch33`).
# The second is about the tasks themselves: part-of-speech labelling (POSL) and dependency-arc
# labelling (DAL), the two most common probing tasks, are so easy that they cannot show what a
# contextual model adds, and a harder task such as dependency parsing should replace them
# ({ref}`sec-ch34`).
#
# This chapter gives the evidence for the second argument that needs no probe at all.
# A dictionary that remembers the most frequent label of each training word already solves most
# of both tasks, and the entropy of the labels shows why: once the word is known, little
# uncertainty about its label is left.

# %% tags=["remove-cell"]
# Optional[...] is the annotation papermill's --help-notebook can read for a parameter that may
# be None.
from typing import Optional

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
layer: Optional[int] = None  # the contextual layer Part III probes; None: chosen on dev UAS here
lookup_sizes: list[int] = [250, 500, 1000, 2000, 4000, 0]  # training sentences (0 means all)
sample_seed: int = 42  # seed of the training-sentence samples
n_train: int = 2000  # training sentences of the layer selection's parsers; 0 means all
n_dev: int = 500  # development sentences that choose the layer; 0 means all
seed: int = 0  # seed of the selection parsers' initialisation, dropout and batch order
batch_size: int = 32  # sentences per minibatch of the selection parsers (as chapter 34's)
lr: float = 0.002  # Adam learning rate of the selection parsers (as chapter 34's)
eval_every: int = 63  # minibatches between checks on dev (as chapter 34's)
patience: int = 4  # checks without improvement before a parser stops (as chapter 34's)
max_steps: int = 3000  # upper bound on minibatches per selection parser
schedule: str = "plateau"  # learning-rate schedule, one of {constant, plateau} (as chapter 34's)
device: str = "auto"  # where the selection parsers train and the encoder runs: auto, cpu, cuda, cuda:N
# fmt: on

# %% tags=["hide-input"]
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part3_pareto import claims, figures, layer_choice, toy_tasks
from probekit.experiments.part3_pareto.config import LayerChoiceConfig, ToyTasksConfig
from probekit.experiments.part3_pareto.paper import PAPER
from probekit.io import treebanks

plots.use_style()
g = Glue("ch31")
config = ToyTasksConfig.from_parameters(globals())
layer_config = LayerChoiceConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# Neither baseline needs a model or a probe, only the words of a treebank and their labels.
# We use **{glue:text}`ch31_treebank`** whole: its training split has
# {glue:text}`ch31_train_sentences:,d` sentences ({glue:text}`ch31_train_words:,d` words), its
# test split {glue:text}`ch31_test_words:,d` words.

# %% tags=["hide-input"]
tb = treebanks.load_treebank(config.treebank)
split_sizes = treebanks.split_summary(tb)

# %% tags=["remove-cell"]
g("treebank", tb.name)
g("train_sentences", split_sizes.loc["train", "sentences"])
g("train_words", split_sizes.loc["train", "words"])
g("test_words", split_sizes.loc["test", "words"])

# %% [markdown]
# ## What the two tasks ask
#
# In POSL a probe sees the vector of one word in context and must name its universal
# part-of-speech tag.
# In DAL it sees the vectors of the two words of a dependency arc, the dependent and its head,
# and must name the relation between them (relations keep their subtypes, such as `nmod:poss`;
# arcs to the root are left out).
# Neither task asks for a structure: each label is predicted on its own.
# That is what makes them attractive for probing, and, the paper argues, what makes them weak.
#
# ## A dictionary as a probe
#
# The lookup baseline of the paper's appendix B uses no representation at all.
# For POSL it tags a word with the tag it had most often in training, and an unknown word with
# the most frequent tag overall.
# For DAL it labels an arc with its most frequent training label, and backs off for unseen arcs
# first to the dependent word's most frequent label, then to the head word's, and finally to the
# most frequent relation.
# We fit both on the whole training split and score them on the test split.

# %% tags=["hide-input"]
lookup = toy_tasks.lookup_baselines(tb["train"], tb["test"])
toy_tasks.lookup_table(lookup).style.format("{:.1f}")

# %% tags=["remove-cell"]
g("posl_lookup", 100 * lookup["posl"])
g("dal_lookup", 100 * lookup["dal"])
g("posl_paper", 100 * PAPER["table1"]["posl"])
g("dal_paper", 100 * PAPER["table1"]["dal"])
g("posl_gap", 100 * (lookup["posl"] - PAPER["table1"]["posl"]))
g("dal_gap", 100 * (lookup["dal"] - PAPER["table1"]["dal"]))
g("oov_share", 100 * lookup["posl_oov_share"])
g("iv_accuracy", 100 * lookup["posl_iv_accuracy"])
g("oov_accuracy", 100 * lookup["posl_oov_accuracy"])
g("oov_error_share", 100 * lookup["posl_oov_error_share"])
g("oov_error_phrase", toy_tasks.share_phrase(lookup["posl_oov_error_share"]))

# %% [markdown]
# The lookup tags {glue:text}`ch31_posl_lookup:.1f` % of the test words correctly and labels
# {glue:text}`ch31_dal_lookup:.1f` % of the test arcs correctly.
# The paper reports {glue:text}`ch31_posl_paper:.0f` % and {glue:text}`ch31_dal_paper:.0f` % for
# English EWT (release 2.5 of UD), so our numbers differ from it by
# {glue:text}`ch31_posl_gap:+.1f` and {glue:text}`ch31_dal_gap:+.1f` points; the paper does not say
# how it treated ties or capitalisation, and our treebank release is newer.
#
# {glue:text}`ch31_oov_share:.1f` % of the test words are not in the training split, and the
# lookup gets only {glue:text}`ch31_oov_accuracy:.1f` % of them right, against
# {glue:text}`ch31_iv_accuracy:.1f` % of the known words.
# Words the dictionary has never seen thus account for {glue:text}`ch31_oov_error_phrase` of the
# POSL errors ({glue:text}`ch31_oov_error_share:.0f` %); the rest are known words whose most
# frequent tag is the wrong one in context.
# For DAL the table below shows how far the dictionary had to back off.

# %% tags=["hide-input"]
backoff = toy_tasks.backoff_table(lookup)
backoff.style.format({"share of test arcs (%)": "{:.1f}", "accuracy (%)": "{:.1f}"}, na_rep="–")

# %% tags=["remove-cell"]
g("dal_arc_share", backoff.loc[1, "share of test arcs (%)"])
g("dal_arc_accuracy", backoff.loc[1, "accuracy (%)"])
g("dal_tail_accuracy", backoff.loc[2, "accuracy (%)"])

# %% [markdown]
# {glue:text}`ch31_dal_arc_share:.1f` % of the test arcs join a (dependent, head) pair of words
# that also occurs in training, and for them the remembered label is right
# {glue:text}`ch31_dal_arc_accuracy:.1f` % of the time.
# For arcs whose pair is new, the dependent word alone still gives the right relation
# {glue:text}`ch31_dal_tail_accuracy:.1f` % of the time.
#
# The probing chapters that follow train on samples of the training split, not on all of it, to
# fit the build's time budget.
# The next figure shows what that costs the dictionary, so that a probe's accuracy there can be
# read against the right baseline.

# %% tags=["hide-input"]
sizes = toy_tasks.lookup_by_size(tb["train"], tb["test"], config.lookup_sizes, config.sample_seed)
g.figure("fig_sizes", figures.plot_lookup_sizes(sizes))

# %% tags=["remove-cell"]
g("small_sentences", int(sizes["sentences"].iloc[0]))
g("small_posl", 100 * float(sizes["POSL"].iloc[0]))
g("small_dal", 100 * float(sizes["DAL"].iloc[0]))

# %% [markdown]
# ```{glue:figure} ch31_fig_sizes
# :name: fig-ch31-sizes
#
# Test accuracy of the lookup baselines when the dictionary is built from samples of the
# training split. Dotted lines: the paper's Table 1.
# ```
#
# Even with only {glue:text}`ch31_small_sentences:,d` training sentences the dictionary reaches
# {glue:text}`ch31_small_posl:.1f` % on POSL and {glue:text}`ch31_small_dal:.1f` % on DAL.
#
# ## How much the word alone tells
#
# The entropy H(label) measures, in bits, how uncertain a label is before anything is known;
# the conditional entropy H(label | word) how uncertain it stays once the word form is known
# (for DAL, the dependent's form).
# Like the paper's released analysis we count over the train, development and test splits
# together.

# %% tags=["hide-input"]
entropies = toy_tasks.label_entropies(tb["train"] + tb["dev"] + tb["test"])
g.figure("fig_entropy", figures.plot_label_entropies(entropies))

# %% tags=["remove-cell"]
for key, value in toy_tasks.entropy_numbers(entropies).items():
    g(key, value)

# %% [markdown]
# ```{glue:figure} ch31_fig_entropy
# :name: fig-ch31-entropy
#
# Entropy of the labels of each task, and their entropy given the word form, over all three
# splits.
# ```
#
# A POSL tag carries {glue:text}`ch31_h_posl:.2f` bits of uncertainty over
# {glue:text}`ch31_classes_posl:d` tags, but only {glue:text}`ch31_hc_posl:.2f` bits remain
# once the word is known: the word form explains {glue:text}`ch31_explained_posl:.1f` % of it.
# For DAL the figures are {glue:text}`ch31_h_dal:.2f` and {glue:text}`ch31_hc_dal:.2f` bits over
# {glue:text}`ch31_classes_dal:d` relations, so the dependent's form alone explains
# {glue:text}`ch31_explained_dal:.1f` %.
# The paper's released statistics for EWT 2.5 are {glue:text}`ch31_h_posl_paper:.3f` and
# {glue:text}`ch31_hc_posl_paper:.3f` bits for POSL and {glue:text}`ch31_h_dal_paper:.3f` and
# {glue:text}`ch31_hc_dal_paper:.3f` bits for DAL, over {glue:text}`ch31_classes_posl_paper:d`
# tags (the released code drops the tag `X`) and {glue:text}`ch31_classes_dal_paper:d`
# relations.
#
# ## What this means for probing
#
# A probe that has learnt nothing but the identity of each word can do about as well as the
# dictionary.
# Every representation keeps the identity of a word: a type-level vector such as fastText's does
# so by construction, and so does a one-hot code or even a random vector per word.
# On these tasks a contextual model can therefore win only on the small remainder that the word
# does not settle, such as *that* as a pronoun, a determiner or a subordinator.
# The next two chapters measure exactly this with probes of controlled complexity, and
# {ref}`sec-ch34` turns to a task in which context does matter.
# This chapter trains no probes, so the claims about which representation wins are tested there.

# %% [markdown]
# (sec-ch31-layer)=
# ## The layer Part III probes
#
# The paper probes the last layer of BERT.
# Our encoder was distilled from a larger model and then trained to make sentence embeddings for
# similarity search; that last training step reshapes its top layers most, so its last layer
# need not be where it keeps syntax.
# Parts I and II choose their layer on development data, and so does Part III, once for all its
# chapters so that their results can be set side by side: one MLP parser (one hidden layer of
# {glue:text}`ch31_selection_hidden:d` units per view) and one linear parser are trained on
# every layer, on {glue:text}`ch31_selection_train:,d` training sentences with the optimiser of
# chapter 34 ({ref}`sec-ch34`), and the layer whose MLP parser has the best UAS on
# {glue:text}`ch31_selection_dev:,d` development sentences is the one chapters 32 to 34 probe.
# Parsing is the task that needs context, so it is the task that decides.
# The same MLP parser is the reference parser chapter 34 trains beside its random architectures.
# The figure also shows each layer's test UAS; the choice never reads it.
# With `-p layer=-1` in chapters 32 to 34 they probe the last layer, as the paper did.

# %% tags=["hide-input"]
selection = layer_choice.run_layer_choice(layer_config)
g.figure("fig_layers", figures.plot_selection(selection, layer_config.layer))

# %% tags=["remove-cell"]
g("selection_hidden", layer_choice.SELECTION_MLP.hidden_size)
g("selection_train", selection.n_train if selection else 0)
g("selection_dev", selection.n_dev if selection else 0)
g("layer_text", layer_choice.selection_text(selection, layer_config.layer))
for key, value in layer_choice.layer_values(selection, layer_config).items():
    g(key, value)

# %% [markdown]
# ```{glue:figure} ch31_fig_layers
# :name: fig-ch31-layers
#
# Test UAS by layer of an MLP and a linear parser trained on each layer of the encoder, and the
# layer chosen on development UAS.
# ```
#
# {glue:text}`ch31_layer_text`

# %% tags=["remove-cell"]
# Claims III.1 and III.2: the lookup's accuracy against the paper's figure, over test sentences.
for task, claim in claims.LOOKUP_CLAIMS.items():
    interval = claims.lookup_interval(lookup[f"{task}_counts"], lookup[f"{task}_units"], task)
    g.claim(claim, interval)
g("n_test_sentences", len(tb["test"]))
g.save("build/results/31_lookup_and_toy_tasks.json")

# %% [markdown]
# ## Verdicts
#
# Each verdict reads the 90 % interval of our lookup's accuracy minus the paper's figure, over the
# {glue:text}`ch31_n_test_sentences:,d` test sentences (the words and arcs of one sentence are not
# independent, so the sentence is the unit); the lookup is deterministic, so there is no training
# variance to add.
# The paper says "about", so the claim is one of agreement: the rule asks the whole interval to
# lie within a margin around the paper's figure, the smallest effect size of interest (SESOI).
#
# **A type-level lookup table already reaches about 86 % on POSL:
# {glue:text}`ch31_posl_vs_paper_verdict`.**
# Ours tags {glue:text}`ch31_posl_lookup:.1f` % of the test words correctly, against the paper's
# {glue:text}`ch31_posl_paper:.0f` %: a difference of {glue:text}`ch31_posl_vs_paper_text`.
# The design's power, the chance that the rule finds agreement when our accuracy equals the
# paper's, is {glue:text}`ch31_posl_vs_paper_power:.2f`; the margin is
# {glue:text}`ch31_posl_vs_paper_sesoi` ({glue:text}`ch31_posl_vs_paper_sesoi_reason`).
# The rule's reading: {glue:text}`ch31_posl_vs_paper_reading`.
#
# **A type-level lookup table already reaches about 68 % on DAL:
# {glue:text}`ch31_dal_vs_paper_verdict`.**
# Ours labels {glue:text}`ch31_dal_lookup:.1f` % of the test arcs correctly, against the paper's
# {glue:text}`ch31_dal_paper:.0f` %: a difference of {glue:text}`ch31_dal_vs_paper_text`.
# The design's power, the chance that the rule finds agreement when our accuracy equals the
# paper's, is {glue:text}`ch31_dal_vs_paper_power:.2f`; the margin is
# {glue:text}`ch31_dal_vs_paper_sesoi` ({glue:text}`ch31_dal_vs_paper_sesoi_reason`).
# The rule's reading: {glue:text}`ch31_dal_vs_paper_reading`.
