# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   probekit:
#     reads: [12_probe_vs_parser]
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-ch22)=
# # Do syntactic probes probe syntax?
#
# {cite:t}`hallmaudslay2021jabberwocky` train two syntactic probes on ordinary sentences and
# test them on the Jabberwocky sentences of {ref}`sec-ch21`, which keep every tree but lose the
# meaning of their content words.
# Their finding is that every probe does worse on Jabberwocky, for every encoder they tried,
# and that the probes' lead over baselines that know nothing about the words shrinks, in one
# case below the baselines' own score.
# If a probe extracted syntax alone, nonsense words in a well-formed sentence should not hurt it.
# This chapter repeats the experiment on our encoder and asks, with confidence intervals over
# sentences, whether the drop and the shrinking lead are there.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # encoder the prose discusses ('default', a Hugging Face name or a path)
models: list[str] = ["default"]  # encoders probed and compared; model is added when missing
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
layers: list[int] = []  # layers tried for every encoder (0 is the embedding output); [] means all
layer_rule: str = "metric"  # how a probe's layer is chosen on dev, one of {metric, loss}
seeds: list[int] = [1, 2]  # training seeds of every probe at the chosen layer and at layer 0
n_train: int = 1000  # training sentences of 2 to 50 words sampled from train; 0 means all
n_dev: int = 300  # dev sentences for early stopping and the layer choice; 0 means all
n_test: int = 0  # test sentences (and their Jabberwocky versions); 0 means all
sample_seed: int = 42  # seed of the sentence samples
jabberwocky_seed: int = 0  # seed of the Jabberwocky corpus (the seed of chapter 21)
rate: float = 1.0  # share of eligible words replaced in the corpus (paper 1.0)
pseudowords: str = ""  # pseudoword list file for the corpus; empty means generate them
hyperparameters: str = "chapter12"  # one of {chapter12, search}; chapter12 falls back to search
n_trials: int = 3  # random-search trials per probe when searching
search_seed: int = 0  # seed of the random search
ranks: list[int] = [16, 32, 64, 128, 0]  # rank choices of the search; 0 means full rank
lr_min: float = 0.0001  # lower end of the log-uniform learning-rate range
lr_max: float = 0.01  # upper end of the log-uniform learning-rate range
dropout_max: float = 0.5  # dropout is drawn uniformly between 0 and this
max_epochs: int = 10  # epoch cap of every training run
patience: int = 3  # epochs without a better dev loss before training stops
fasttext_path: str = ""  # pretrained fastText .bin (e.g. cc.en.300.bin); empty trains one on train
fasttext_dim: int = 300  # fastText dimensions (must match fasttext_path when given)
fasttext_epochs: int = 5  # fastText training epochs on the train split
position_dim: int = 256  # sinusoidal position dimensions appended to the fastText vectors
majority_min_count: int = 5  # lengths with fewer training trees fall back to the linear chain
exclude_punct: bool = True  # leave punctuation (UPOS PUNCT) out of UUAS
n_boot: int = 10000  # bootstrap resamples of the paired comparisons
boot_seed: int = 0  # seed of the bootstrap
# fmt: on

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part2_jabberwocky import (
    comparisons,
    layer_choice,
    probe_runs,
    probes,
    representations,
    results,
    test_sets,
    verdicts,
)
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.part2_jabberwocky.corpus import output_sha

plots.use_style()
g = Glue("ch22")
config = JabberwockyProbesConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# **Probes.**
# Both probes of {ref}`sec-ch12` learn a linear map $B$ under which the distance between two
# word vectors should reflect their distance in the tree.
# The **structural probe** fits the squared distance to the number of tree edges between every
# pair of words and is scored by DSpr, the Spearman correlation between predicted and gold
# distances.
# The **perceptron probe** only asks that the minimum spanning tree of the predicted distances be
# the gold tree, and is scored by UUAS, the share of gold edges it recovers.
# Each probe is judged by the metric it is built for, as in the paper.
#
# **Representations.**
# For every encoder ({glue:text}`ch22_n_models:d` in this run; the prose discusses
# **{glue:text}`ch22_model`**) both probes are trained on every layer with the first seed, and
# each probe keeps the layer with {glue:text}`ch22_layer_rule` on
# {glue:text}`ch22_n_dev:,d` development sentences.
# Layer 0, the output of the embedding layer, is probed as well: it knows each word and its
# position but nothing of the other words, so it is an uncontextualised baseline from inside the
# same model.
# The second baseline representation follows the paper's appendix: fastText vectors
# {cite}`bojanowski2017enriching` with position embeddings appended.
# The paper used pretrained Common Crawl vectors and BERT's learned position embeddings; by
# default we train fastText on the treebank's training split (set `fasttext_path` to use
# pretrained vectors) and append the fixed sinusoidal position embeddings of
# {cite:t}`vaswani2017attention`.
# fastText builds vectors for unseen words from their letter n-grams, so pseudowords get
# vectors too.
#
# **Word-blind baselines.**
# The *linear chain* joins each word to the next; the *majority tree* picks, for each sentence
# length, the tree whose edges were most frequent among training trees of that length (a maximum
# spanning tree of edge counts), falling back to the chain for lengths with fewer than
# {glue:text}`ch22_majority_min:d` training trees.
# Neither looks at the words, so each scores exactly the same on the normal and the Jabberwocky
# test set.
#
# **Data.**
# The probes train on {glue:text}`ch22_n_train:,d` normal training sentences and are tested on
# {glue:text}`ch22_n_test:,d` test sentences and their Jabberwocky versions, in which
# {glue:text}`ch22_replaced:,d` of {glue:text}`ch22_test_words:,d` words are pseudowords
# (the corpus of {ref}`sec-ch21` with seed {glue:text}`ch22_jabberwocky_seed:d`; its test file
# has sha256 {glue:text}`ch22_corpus_sha`…).
# Every training run stops after {glue:text}`ch22_patience:d` epochs without a better dev loss
# or at {glue:text}`ch22_max_epochs:d` epochs; {glue:text}`ch22_n_seeds:d` seeds are trained at
# each chosen layer and at layer 0.

# %% tags=["hide-input"]
sets = test_sets.load_test_sets(config)

# %% tags=["remove-cell"]
g("treebank", sets.data.treebank.name)
g("pooling", config.pooling)
g("n_seeds", len(config.seeds))
g("max_epochs", config.max_epochs)
g("patience", config.patience)
g("replaced", sets.n_replaced)
g("corpus_sha", output_sha(sets.report))
g("jabberwocky_seed", config.jabberwocky_seed)
g("test_words", sets.n_words)
g("layer_rule", probes.layer_rule_phrase(config.layer_rule))
g("n_train", len(sets.data.samples["train"]))
g("n_dev", len(sets.data.samples["dev"]))
g("n_test", len(sets.data.samples["test"]))
g("majority_min", config.majority_min_count)

# %% tags=["hide-input"]
runs = probe_runs.probe_representations(config, sets, "build/results/12_probe_vs_parser.json")

# %% tags=["remove-cell"]
g("model", runs.main)
g("n_models", len(runs.encoders))
g("hyper_source", runs.source)
g("pieces_normal", runs.pieces[0])
g("pieces_jab", runs.pieces[1])
g("ft_dim", config.fasttext_dim)
g("position_dim", config.position_dim)
g("ft_source", representations.fasttext_source(config.fasttext_path))
for kind, key in verdicts.PROBE_KEYS.items():
    g(f"{key}_layer", runs.main_run.chosen[kind])
    g(f"{key}_rank", int(runs.configs[kind]["rank"]))
    g(f"{key}_lr", float(runs.configs[kind]["lr"]))
    g(f"{key}_dropout", float(runs.configs[kind]["dropout"]))

# %% [markdown]
# The probes' rank, learning rate and dropout come from {glue:text}`ch22_hyper_source`: the
# structural probe uses rank {glue:text}`ch22_st_rank:d`, learning rate
# {glue:text}`ch22_st_lr:.1e` and dropout {glue:text}`ch22_st_dropout:.2f`, the perceptron
# probe rank {glue:text}`ch22_pc_rank:d`, learning rate {glue:text}`ch22_pc_lr:.1e` and dropout
# {glue:text}`ch22_pc_dropout:.2f`.
# The fastText baseline ({glue:text}`ch22_ft_dim:d` dimensions, trained on
# {glue:text}`ch22_ft_source`, plus {glue:text}`ch22_position_dim:d` position dimensions) uses
# the same settings.
#
# One difference between the two test sets is visible before any probe is trained.
# The tokenizer of {glue:text}`ch22_model` cuts a replaced word into
# {glue:text}`ch22_pieces_normal:.2f` wordpieces on average in the normal sentences and into
# {glue:text}`ch22_pieces_jab:.2f` in the Jabberwocky ones.
# Pseudowords are not in the vocabulary, so the encoder sees them as strings of fragments; part
# of any drop may come from this rather than from the loss of meaning.
#
# ## Choosing the layer
#
# The table gives the development scores of the first seed for every layer of
# {glue:text}`ch22_model`.
# The structural probe was kept at layer {glue:text}`ch22_st_layer:d` and the perceptron probe
# at layer {glue:text}`ch22_pc_layer:d`.

# %% tags=["hide-input"]
rules = layer_choice.check_layer_rules(runs.main_run.dev, config.seeds[0])
display(rules.table.style.format("{:.3f}"))

# %% tags=["remove-cell"]
g("pc_layer_by_loss", rules.by_loss)
g("pc_dev_uuas_by_loss", rules.perceptron_uuas(rules.by_loss))
g("pc_dev_uuas_best", rules.perceptron_uuas(rules.by_metric))

# %% [markdown]
# The paper chose layers by development *loss*.
# That works for the structural probe, whose loss compares predicted with true distances, but
# not for the perceptron probe: its loss (gold tree weight minus the weight of the best tree)
# has no margin, so it shrinks with the overall scale of the predicted distances and reaches
# zero when they all collapse.
# Its value says how small the distances became as much as how good the trees are, and it is
# not comparable across layers.
# On this run the loss rule would have picked layer {glue:text}`ch22_pc_layer_by_loss:d` for
# the perceptron probe, with a development UUAS of {glue:text}`ch22_pc_dev_uuas_by_loss:.1f` %
# against {glue:text}`ch22_pc_dev_uuas_best:.1f` % at the layer with the best development UUAS.
# By default we therefore let each probe choose by its own metric on the development set (set
# `layer_rule` to `loss` for the paper's rule).

# %% [markdown]
# ## Normal against Jabberwocky

# %% tags=["hide-input"]
res = results.jabberwocky_results(
    runs.per_sentence, sets.baselines, config.n_boot, config.boot_seed
)

# %% tags=["remove-cell"]
g.figure("fig_bars", results.bars_figure(res.scores, runs.order))

# %% [markdown]
# ```{glue:figure} ch22_fig_bars
# :name: fig-ch22-bars
#
# Scores on the normal test sentences (plain bars) and on their Jabberwocky versions (hatched),
# for the structural probe by DSpr (left) and the perceptron probe by UUAS (right), mean ± SD over
# seeds (cf. Fig. 3 of the paper). "best layer" is the layer chosen on dev; layer 0 and
# fastText with position embeddings are uncontextualised; the linear chain and the majority tree
# ignore the words.
# ```
#
# {numref}`fig-ch22-bars` and the table below give every score.
# The drop is normal minus Jabberwocky, with a 95 % bootstrap interval over test sentences; the
# lead is the probe's score minus that of the better word-blind baseline on the same sentences.
# UUAS and its differences are in percentage points, DSpr in correlation units.

# %% tags=["hide-input"]
display(
    res.summary.style.format(
        {
            "normal": "{:.3f}",
            "Jabberwocky": "{:.3f}",
            "drop": "{:+.3f}",
            "lead (normal)": "{:+.3f}",
            "lead (Jabberwocky)": "{:+.3f}",
        },
        na_rep="–",
    )
)

# %% tags=["hide-input"]
claims = verdicts.jabberwocky_claim_values(res.drops, res.leads, sets.baselines, runs.main_short)
edge_test = comparisons.jabberwocky_edge_comparison(
    runs.main_run, runs.test_embs, sets.data.gold["test"], config.seeds[0]
)

# %% tags=["remove-cell"]
for key, value in claims.items():
    g(key, value)
g.comparison("mcnemar", edge_test)
g("n_boot", config.n_boot)

# %% [markdown]
# ### The structural probe
#
# At layer {glue:text}`ch22_st_layer:d` of {glue:text}`ch22_model`, the structural probe reaches
# a DSpr of {glue:text}`ch22_st_normal:.3f` on normal sentences and
# {glue:text}`ch22_st_jabberwocky:.3f` on their Jabberwocky versions.
# The better word-blind baseline on DSpr is the {glue:text}`ch22_st_baseline`
# (linear chain {glue:text}`ch22_chain_dspr:.3f`, majority tree
# {glue:text}`ch22_majority_dspr:.3f`).
# The probe leads it by {glue:text}`ch22_st_lead_n:+.3f` on normal sentences (CI
# {glue:text}`ch22_st_lead_n_low:.3f` to {glue:text}`ch22_st_lead_n_high:.3f`) and by
# {glue:text}`ch22_st_lead_j:+.3f` on Jabberwocky (CI {glue:text}`ch22_st_lead_j_low:.3f` to
# {glue:text}`ch22_st_lead_j_high:.3f`).
#
# ### The perceptron probe
#
# At layer {glue:text}`ch22_pc_layer:d`, the perceptron probe recovers
# {glue:text}`ch22_pc_normal:.1f` % of the gold edges of normal sentences and
# {glue:text}`ch22_pc_jabberwocky:.1f` % on Jabberwocky.
# Edge by edge, with the first seed's probe, over {glue:text}`ch22_mcnemar_n:,d` gold edges:
# {glue:text}`ch22_mcnemar_summary`
# The edges of one sentence stand or fall together, which McNemar's test ignores, so its p-value
# is optimistic; the interval over sentences in the verdicts below is the better guide.
# The better word-blind baseline on UUAS is the {glue:text}`ch22_pc_baseline` (linear chain
# {glue:text}`ch22_chain_uuas:.1f` %, majority tree {glue:text}`ch22_majority_uuas:.1f` %).
# The probe leads it by {glue:text}`ch22_pc_lead_n:+.1f` points on normal sentences (CI
# {glue:text}`ch22_pc_lead_n_low:.1f` to {glue:text}`ch22_pc_lead_n_high:.1f`) and by
# {glue:text}`ch22_pc_lead_j:+.1f` on Jabberwocky (CI {glue:text}`ch22_pc_lead_j_low:.1f` to
# {glue:text}`ch22_pc_lead_j_high:.1f`).
#
# ### The uncontextualised representations
#
# From normal to Jabberwocky, the structural probe on layer 0 of the encoder drops by
# {glue:text}`ch22_st_l0_drop:+.3f` in DSpr ({glue:text}`ch22_st_l0_claim`) and the perceptron
# probe by {glue:text}`ch22_pc_l0_drop:+.1f` UUAS points ({glue:text}`ch22_pc_l0_claim`); on the
# fastText baseline the drops are {glue:text}`ch22_st_ft_drop:+.3f`
# ({glue:text}`ch22_st_ft_claim`) and {glue:text}`ch22_pc_ft_drop:+.1f` points
# ({glue:text}`ch22_pc_ft_claim`).
# A negative drop is a gain.
# These representations cannot use context at all, so a drop here comes from the words
# themselves: a pseudoword's vector says less about what kind of word it is, and where it
# attaches, than the vector of the real word it replaced.
#
# ## Verdicts
#
# Drops are normal minus Jabberwocky at each probe's dev-chosen layer of
# {glue:text}`ch22_model`, with 95 % intervals from {glue:text}`ch22_n_boot:,d` bootstrap
# resamples of test sentences.
#
# **The structural probe does worse on Jabberwocky: {glue:text}`ch22_st_claim`.**
# Its DSpr drops by {glue:text}`ch22_st_estimate:+.3f` (95 % CI {glue:text}`ch22_st_low:.3f` to
# {glue:text}`ch22_st_high:.3f`), from {glue:text}`ch22_st_normal:.3f` to
# {glue:text}`ch22_st_jabberwocky:.3f`.
#
# **The perceptron probe does worse on Jabberwocky: {glue:text}`ch22_pc_claim`.**
# Its UUAS drops by {glue:text}`ch22_pc_estimate:+.1f` points (95 % CI
# {glue:text}`ch22_pc_low:.1f` to {glue:text}`ch22_pc_high:.1f`), from
# {glue:text}`ch22_pc_normal:.1f` % to {glue:text}`ch22_pc_jabberwocky:.1f` %.
#
# **On Jabberwocky the structural probe still beats the word-blind baselines:
# {glue:text}`ch22_st_lead_j_verdict`.**
# Its lead over the {glue:text}`ch22_st_baseline` is {glue:text}`ch22_st_lead_j:+.3f` (CI
# {glue:text}`ch22_st_lead_j_low:.3f` to {glue:text}`ch22_st_lead_j_high:.3f`) against
# {glue:text}`ch22_st_lead_n:+.3f` on normal sentences: the lead
# {glue:text}`ch22_st_lead_change` on normal sentences.
#
# **On Jabberwocky the perceptron probe still beats the word-blind baselines:
# {glue:text}`ch22_pc_lead_j_verdict`.**
# Its lead over the {glue:text}`ch22_pc_baseline` is {glue:text}`ch22_pc_lead_j:+.1f` points
# (CI {glue:text}`ch22_pc_lead_j_low:.1f` to {glue:text}`ch22_pc_lead_j_high:.1f`) against
# {glue:text}`ch22_pc_lead_n:+.1f` on normal sentences: the lead
# {glue:text}`ch22_pc_lead_change` on normal sentences.
#
# **Overall, for {glue:text}`ch22_model` on {glue:text}`ch22_treebank`:
# {glue:text}`ch22_overall`.**
# Across the {glue:text}`ch22_n_model_probes:d` probes trained on the best layer of an encoder in
# this run, the drop on Jabberwocky is significant in {glue:text}`ch22_n_drop_holds:d`.
# The paper reads its drops as evidence that probes lean on the meaning of words to find syntax,
# and so that a probe's score on ordinary text overstates how much syntax a model encodes.
# Two caveats apply to that reading here as there.
# First, the pseudowords change more than meaning: they are unknown to the tokenizer and cut
# into more pieces, so a drop mixes the loss of meaning with the encoder's handling of
# unfamiliar strings.
# Second, the probes never saw Jabberwocky in training; the paper itself notes that a fair test
# of a model's syntax would train the probe on such data too.
# The word-blind baselines score the same on both test sets by construction, so whatever lead a
# probe keeps on Jabberwocky is structure that it recovers without help from the meaning of the
# replaced words.

# %% tags=["remove-cell"]
g.save("build/results/22_jabberwocky_probes.json")
