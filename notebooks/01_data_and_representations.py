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
# (sec-ch01)=
# # Data and representations
#
# Every later chapter stands on three things: a dependency treebank, a pretrained encoder that
# turns its sentences into vectors, and a convention for which vector belongs to which word and
# layer.
# This chapter describes the three for the run that built this page, and ends with a first
# layer-by-layer picture: how well a linear probe recovers part of speech from each layer.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
pooling: str = "last"  # wordpiece pooling, one of {first, last, mean}
layers: list[int] = []  # layers to probe (0 is the embedding output); [] means all
seeds: list[int] = [1, 2, 3]  # probe initialisation seeds
n_train: int = 2000  # training sentences sampled from the train split; 0 means all
n_eval: int = 0  # evaluation sentences sampled from the dev split; 0 means all
sample_seed: int = 42  # seed of the sentence samples
order_seed: int = 0  # seed of the training data order
epochs: int = 5  # training epochs of each probe (best epoch reported)
device: str = "auto"  # where probes train and encoders run: auto (GPU if any), cpu, cuda, cuda:N
# fmt: on

# %% tags=["hide-input"]
import numpy as np
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.foundations import corpus
from probekit.experiments.foundations.config import FoundationsConfig
from probekit.experiments.foundations.layerwise import run_layerwise
from probekit.io import embeddings, treebanks

config = FoundationsConfig.from_parameters(globals())
plots.use_style()
g = Glue("ch01")
tb = treebanks.load_treebank(config.treebank)

# %% [markdown]
# ## The treebank
#
# We use Universal Dependencies (UD) treebanks {cite}`nivre2020universal`; the default is the
# English Web Treebank (EWT), the treebank that most of the five papers probe.
# A UD sentence lists its words with a part-of-speech tag (UPOS), morphological features, the index
# of its syntactic head and the relation to that head.
# Multiword tokens such as *don't* = *do* + *n't* appear as ranges in the file; we keep the words
# and drop the ranges, and we drop the empty nodes of the enhanced graphs, since every paper here
# probes the basic tree.

# %% tags=["hide-input"]
summary = treebanks.split_summary(tb)
display(summary.style.format({"mean length": "{:.1f}"}))

# %% tags=["remove-cell"]
for split, row in summary.iterrows():
    g(f"{split}_sentences", int(row["sentences"]))
    g(f"{split}_words", int(row["words"]))
    g(f"{split}_mean_len", float(row["mean length"]))
g("treebank", tb.name)
g("multiword_total", int(summary["multiword tokens"].sum()))

# %% [markdown]
# In this run the treebank is **{glue:text}`ch01_treebank`**.
# Its training split has {glue:text}`ch01_train_sentences:,d` sentences and
# {glue:text}`ch01_train_words:,d` words, the development split
# {glue:text}`ch01_dev_sentences:,d` sentences and the test split
# {glue:text}`ch01_test_sentences:,d`.
# Sentences in the training split are {glue:text}`ch01_train_mean_len:.1f` words long on average;
# {glue:text}`ch01_multiword_total:,d` multiword tokens were set aside across all splits.
#
# Sentence length and the linear length of dependency arcs (the distance between a word and its
# head) matter later: Kunz and Kuhlmann split their data by both, and Hall Maudslay and colleagues
# show that a probe's score depends on how long the sentences are.

# %% tags=["hide-input"]
lengths = corpus.lengths(tb["train"])
fig_lengths = corpus.lengths_figure(lengths)

# %% tags=["remove-cell"]
g("arc_len1_share", 100 * lengths.adjacent_share)
g("arc_len_median", float(np.median(lengths.arcs)))
g("len_median", float(np.median(lengths.sentences)))
g.figure("fig_lengths", fig_lengths)

# %% [markdown]
# ```{glue:figure} ch01_fig_lengths
# :name: fig-ch01-lengths
#
# Sentence lengths (left) and dependency arc lengths, the number of words between a word and its
# head (right, log scale), in the training split.
# ```
#
# The median training sentence has {glue:text}`ch01_len_median:.0f` words.
# Arcs are mostly short: {glue:text}`ch01_arc_len1_share:.1f` % join adjacent words, and the
# median arc spans {glue:text}`ch01_arc_len_median:.0f` words.

# %% tags=["hide-input"]
labels = corpus.labels(tb["train"])
fig_labels = corpus.labels_figure(labels)

# %% tags=["remove-cell"]
g("noun_share", 100 * float(labels.upos.get("NOUN", 0) / labels.upos.sum()))
g("top_rel", str(labels.relations.index[0]))
g("top_rel_share", 100 * float(labels.relations.iloc[0] / labels.relations.sum()))
g("n_rels", int(len(labels.relations)))
g.figure("fig_labels", fig_labels)

# %% [markdown]
# ```{glue:figure} ch01_fig_labels
# :name: fig-ch01-labels
#
# The label distributions of the two classification tasks that recur in the book: part of speech
# (left, share of training words) and dependency relation without subtype (right, share of
# training arcs).
# ```
#
# Nouns make up {glue:text}`ch01_noun_share:.1f` % of the training words.
# The most frequent of the {glue:text}`ch01_n_rels:d` relation types is
# {glue:text}`ch01_top_rel`, with {glue:text}`ch01_top_rel_share:.1f` % of all arcs.
#
# ## From words to wordpieces
#
# The encoder does not see UD words.
# Its tokenizer cuts each word into one or more *wordpieces* from a fixed vocabulary, and the model
# returns one vector per wordpiece.
# A probe of words therefore needs a rule that pools the pieces of a word into one vector: its
# `first` piece, its `last` piece, or the `mean` of all pieces.
# The papers disagree: Kunz and Kuhlmann take the last piece, Pimentel and colleagues and the
# structural-probe code average the pieces.
# This page uses **{glue:text}`ch01_pooling`** pooling; every chapter has it as a parameter.

# %% tags=["hide-input"]
encoder = embeddings.get_encoder(config.model, config.device)
pieces, examples = embeddings.wordpiece_statistics(encoder, tb["dev"])
display(examples.set_index("word"))

# %% tags=["remove-cell"]
g("pooling", config.pooling)
g("model", embeddings.resolve_model(config.model).name)
g("n_layers", encoder.n_layers - 1)
g("dim", encoder.dim)
g("split_share", 100 * float((pieces > 1).mean()))
g("pieces_per_word", float(pieces.mean()))
g("max_pieces", int(pieces.max()))

# %% [markdown]
# With the tokenizer of {glue:text}`ch01_model`, {glue:text}`ch01_split_share:.1f` % of the
# development words are cut into more than one piece (on average a word has
# {glue:text}`ch01_pieces_per_word:.2f` pieces; the longest has {glue:text}`ch01_max_pieces:d`).
# The table lists the split words that occur most often, with their pieces.
# For these words the pooling rule decides what the probe sees.
#
# ## Layers
#
# A transformer encoder of $K$ blocks produces $K + 1$ sequences of hidden states.
# **In this book, layer 0 is the output of the embedding layer and layer $k$ is the output of the
# $k$-th transformer block**, for every model.
# This is the numbering of `hidden_states` in Hugging Face `transformers`.
# The papers' code bases do not agree on it.
# The structural-probe converter stores only the block outputs and calls the first block 0, yet its
# configurations run BERT "layers" 0 to 12, which exist only if the embedding output was stored as
# well; a layer number read off that code may therefore be ours or ours minus one.
# The model of this run has {glue:text}`ch01_n_layers:d` blocks, so layers 0 to
# {glue:text}`ch01_n_layers:d`, each of {glue:text}`ch01_dim:d` dimensions.
#
# ## A first layer-wise picture
#
# To see what the layers hold we train, for every layer and seed, a linear softmax probe that
# predicts the UPOS tag of a word from its vector.
# The probes train on a sample of training sentences and are scored on the development split; each
# reports its best epoch.

# %% tags=["hide-input"]
layerwise = run_layerwise(config, tb)
per_layer = layerwise.per_layer()
fig_layers = layerwise.figure()

# %% tags=["remove-cell"]
best_layer = layerwise.best_layer()
g("n_train_sentences", len(layerwise.train))
g("n_train_words", int(sum(len(s) for s in layerwise.train)))
g("n_eval_words", int(sum(len(s) for s in layerwise.eval)))
g("n_seeds", len(config.seeds))
g("best_layer", best_layer)
g("best_acc", float(per_layer.loc[best_layer, "mean"]))
g("best_sd", float(per_layer.loc[best_layer, "std"]))
g("layer0_acc", float(per_layer["mean"].iloc[0]))
g("first_layer", int(per_layer.index[0]))
g("majority_acc", 100 * layerwise.majority)
g.figure("fig_layers", fig_layers)
g.save("build/results/01_data_and_representations.json")

# %% [markdown]
# ```{glue:figure} ch01_fig_layers
# :name: fig-ch01-layers
#
# Accuracy of a linear part-of-speech probe for every layer (mean ± SD over seeds), trained on
# {glue:text}`ch01_n_train_words:,d` words and tested on {glue:text}`ch01_n_eval_words:,d`
# development words. The dotted line is the majority baseline.
# ```
#
# Over {glue:text}`ch01_n_seeds:d` seeds, the best layer is layer
# {glue:text}`ch01_best_layer:d` with {glue:text}`ch01_best_acc:.1f` % accuracy
# (SD {glue:text}`ch01_best_sd:.2f`), against {glue:text}`ch01_layer0_acc:.1f` % at layer
# {glue:text}`ch01_first_layer:d` and {glue:text}`ch01_majority_acc:.1f` % for always guessing the
# most frequent tag.
# Part of speech is largely a property of the word type, so even the embedding layer does well;
# what the contextual layers add is the disambiguation of words such as *that* or *back*.
# Whether a high accuracy means that the model "uses" part of speech is exactly the question the
# following parts take apart: with controls that are harder than random (Kunz and Kuhlmann), with
# probe complexity on the other axis (Pimentel and colleagues), and with enough test data to tell
# two numbers apart (Zhu and colleagues).

# %% tags=["hide-input"]
display(per_layer.round(2).rename(columns={"mean": "accuracy (%)", "std": "SD"}))
