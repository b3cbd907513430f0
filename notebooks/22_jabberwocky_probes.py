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
# This chapter repeats the experiment on our encoder and asks, with intervals over test
# sentences and training seeds, whether the drops are there and the lead survives.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # encoder the prose discusses ('default', a Hugging Face name or a path)
models: list[str] = ["default"]  # encoders probed and compared; model is added when missing
pooling: str = "first"  # wordpiece pooling, one of {first, last, mean} (paper: first)
layers: list[int] = []  # layers tried for every encoder (0 is the embedding output); [] means all
layer_rule: str = "metric"  # how a probe's layer is chosen on dev, one of {metric, loss} (paper: loss)
seeds: list[int] = [1, 2]  # seeds of every probe at its chosen layer and at layer 0; at least 2
n_train: int = 1000  # training sentences of 2 to 50 words sampled from train; 0 means all
n_dev: int = 300  # dev sentences for early stopping and the layer choice; 0 means all
n_test: int = 0  # test sentences (and their Jabberwocky versions); 0 means all
filter_test: bool = False  # test sentences of 2 to 50 words only (the paper keeps all)
sample_seed: int = 42  # seed of the sentence samples
jabberwocky_seed: int = 0  # seed of the Jabberwocky corpus (the seed of chapter 21)
rate: float = 1.0  # share of eligible words replaced in the corpus (paper 1.0)
pseudowords: str = ""  # pseudoword list file for the corpus; empty means generate them
hyperparameters: str = "search"  # one of {search, chapter12}; chapter12 reuses its searches when they fit
n_trials: int = 5  # random-search trials per probe and searched layer (paper and full: 10)
search_every: int = 3  # search on layers 0, k, 2k, ... and the last; each layer uses the nearest
search_seed: int = 0  # seed of the random search (its configurations and minibatch order)
ranks: list[int] = [16, 32, 64, 128, 0]  # rank choices of the search; 0 means full rank
lr_min: float = 0.001  # lower end of the log-uniform learning-rate range
lr_max: float = 0.01  # upper end of the log-uniform learning-rate range
dropout_max: float = 0.5  # dropout is drawn uniformly between 0 and this
max_epochs: int = 40  # epoch cap of every training run
patience: int = 5  # epochs without a better selection score before training stops
parser_selection: str = "uuas"  # what stops and selects the perceptron probe, one of {uuas, loss}
fasttext_path: str = ""  # pretrained fastText .bin (e.g. cc.en.300.bin); empty trains one on train
fasttext_dim: int = 300  # fastText dimensions (must match fasttext_path when given)
fasttext_epochs: int = 5  # fastText training epochs on the train split
position_dim: int = 256  # sinusoidal position dimensions appended to the fastText vectors
majority_min_count: int = 5  # lengths with fewer training trees fall back to the linear chain
exclude_punct: bool = True  # leave punctuation (UPOS PUNCT) out of UUAS
device: str = "auto"  # where probes train and encoders run: auto (GPU if any), cpu, cuda, cuda:N
# fmt: on

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.deviations import deviation_table
from probekit.experiments.part2_jabberwocky import (
    claims,
    layer_choice,
    probe_runs,
    probes,
    protocol,
    representations,
    results,
    test_sets,
)
from probekit.experiments.part2_jabberwocky.config import JabberwockyProbesConfig
from probekit.experiments.part2_jabberwocky.corpus import output_sha
from probekit.experiments.tree_probing.samples import punct_rule
from probekit.experiments.tree_probing.training import (
    cap_reading,
    selection_phrase,
    selection_rules,
)

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
# **{glue:text}`ch22_model`**) a word is represented by its {glue:text}`ch22_pooling` wordpiece,
# as in the paper.
# Both probes are trained on every layer with the first seed, and each probe keeps the layer
# with {glue:text}`ch22_layer_rule` on {glue:text}`ch22_n_dev:,d` development sentences.
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
# The probes train on {glue:text}`ch22_n_train:,d` normal training sentences of 2 to 50 words
# and are tested on {glue:text}`ch22_n_test:,d` test sentences, {glue:text}`ch22_test_filter`,
# and their Jabberwocky versions, in which {glue:text}`ch22_replaced:,d` of
# {glue:text}`ch22_test_words:,d` words are pseudowords (the corpus of {ref}`sec-ch21` with seed
# {glue:text}`ch22_jabberwocky_seed:d`; its test file has sha256 {glue:text}`ch22_corpus_sha`…).
# A test sentence that a metric cannot score stays in the test set and leaves only that
# metric's denominator: {glue:text}`ch22_unscored_uuas:,d` sentences have no gold edge among the
# words UUAS counts (which {glue:text}`ch22_punct_rule` punctuation) and
# {glue:text}`ch22_unscored_dspr:,d` lie outside DSpr's 5 to 50 words.
# {glue:text}`ch22_n_seeds:d` seeds are trained at each chosen layer and at layer 0.

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
g("test_filter", "of 2 to 50 words" if config.filter_test else "of any length")
for metric, count in sets.data.unscored("test").items():
    g(f"unscored_{metric}", count)
g("punct_rule", punct_rule(config.exclude_punct))
g("majority_min", config.majority_min_count)

# %% [markdown]
# ### Where this run departs from the paper
#
# The table lists every setting the paper fixed, or left unstated, against this run's value,
# computed from the run's parameters.
# This run departs from the paper in {glue:text}`ch22_n_deviations:d` of
# {glue:text}`ch22_n_settings:d` settings.

# %% tags=["hide-input"]
deviations = deviation_table(config, protocol.PROTOCOL_22)
display(deviations.drop(columns=["deviates"]).style.hide(axis="index"))

# %% tags=["remove-cell"]
g("n_deviations", int(deviations["deviates"].sum()))
g("n_settings", len(deviations))
for kind, key in results.PROBE_KEYS.items():
    g(f"{key}_selection", selection_phrase(selection_rules(config.parser_selection)[kind]))

# %% [markdown]
# ### Hyperparameters
#
# Every representation gets its own random search, as in the paper: each probe draws the same
# {glue:text}`ch22_n_trials:d` configurations of rank, learning rate and dropout on each searched
# layer ({glue:text}`ch22_searched_layers` for an encoder, with layer 0 searched as a baseline
# in its own right, and the fastText vectors on their own), and every layer takes the
# configuration searched on the nearest of them.
# The structural probe is stopped early and selected on {glue:text}`ch22_st_selection`; the
# perceptron probe on {glue:text}`ch22_pc_selection`.
# The paper stops and selects both on development loss, but the perceptron loss has no margin:
# it scales with $B$, so it falls when the predicted distances shrink even if no tree changes,
# and a lower loss need not mean better trees.
# Every run stops after {glue:text}`ch22_patience:d` epochs without a better score or at
# {glue:text}`ch22_max_epochs:d` epochs and keeps its best epoch.

# %% tags=["hide-input"]
runs = probe_runs.probe_representations(config, sets, "build/results/12_probe_vs_parser.json")
display(probe_runs.settings_table(runs).style.format({"lr": "{:.2e}", "dropout": "{:.2f}"}))

# %% tags=["remove-cell"]
caps = runs.cap_shares()
g("model", runs.main)
g("n_models", len(runs.encoders))
g("hyper_source", runs.source)
g("n_trials", config.n_trials)
g("searched_layers", ", ".join(map(str, sorted(runs.settings[runs.main].searched["structural"]))))
g("n_runs", len(runs.all_runs))
g("cap_share", 100 * caps["all"])
g("st_capped", 100 * caps.get("structural", float("nan")))
g("pc_capped", 100 * caps.get("perceptron", float("nan")))
g("cap_reading", cap_reading(caps["all"]))
g("pieces_normal", runs.pieces[0])
g("pieces_jab", runs.pieces[1])
g("ft_dim", config.fasttext_dim)
g("position_dim", config.position_dim)
g("ft_source", representations.fasttext_source(config.fasttext_path))
chosen_configs = runs.chosen_configs()
for kind, key in results.PROBE_KEYS.items():
    g(f"{key}_layer", runs.main_run.chosen[kind])
    g(f"{key}_rank", int(chosen_configs[kind]["rank"]))
    g(f"{key}_lr", float(chosen_configs[kind]["lr"]))
    g(f"{key}_dropout", float(chosen_configs[kind]["dropout"]))

# %% [markdown]
# The table gives each probe's chosen configuration on every searched layer of every
# representation; the main encoder's come from {glue:text}`ch22_hyper_source`.
# At its chosen layer the structural probe uses rank {glue:text}`ch22_st_rank:d`, learning rate
# {glue:text}`ch22_st_lr:.1e` and dropout {glue:text}`ch22_st_dropout:.2f`, the perceptron
# probe rank {glue:text}`ch22_pc_rank:d`, learning rate {glue:text}`ch22_pc_lr:.1e` and dropout
# {glue:text}`ch22_pc_dropout:.2f`.
# The fastText baseline has {glue:text}`ch22_ft_dim:d` dimensions, trained on
# {glue:text}`ch22_ft_source`, plus {glue:text}`ch22_position_dim:d` position dimensions.
# Of the {glue:text}`ch22_n_runs:d` training runs of this chapter, searches included,
# {glue:text}`ch22_st_capped:.0f` % of the structural probe's and
# {glue:text}`ch22_pc_capped:.0f` % of the perceptron probe's were ended by the epoch cap rather
# than by early stopping, {glue:text}`ch22_cap_share:.0f` % in all:
# {glue:text}`ch22_cap_reading`.
#
# One difference between the two test sets is visible before any probe is trained.
# The tokenizer of {glue:text}`ch22_model` cuts a replaced word into
# {glue:text}`ch22_pieces_normal:.2f` wordpieces on average in the normal sentences and into
# {glue:text}`ch22_pieces_jab:.2f` in the Jabberwocky ones.
# Pseudowords are not in the vocabulary, so the encoder sees them as strings of fragments, of
# which the probes read the first; part of any drop may come from this rather than from the loss
# of meaning.
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
# `layer_rule` to `loss` for the paper's rule), as {ref}`sec-ch12` stops and selects the parser
# on its own metric.

# %% [markdown]
# ## Normal against Jabberwocky

# %% tags=["hide-input"]
res = results.jabberwocky_results(runs.per_sentence, sets.baselines)

# %% tags=["remove-cell"]
g.figure("fig_bars", results.bars_figure(res.scores, runs.order))
g("level", 100 * claims.ST_DROP.rule.level)

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
# The drop is normal minus Jabberwocky and the lead is the probe's score minus that of the better
# word-blind baseline on the same sentences, each with a {glue:text}`ch22_level:.0f` % interval
# over test sentences and seeds.
# A drop pairs the seeds: each trained probe is scored on both versions of every sentence, so the
# seed part of its variance is that of the per-seed drops.
# A lead compares a trained probe, over all its seeds, with a baseline that has no seeds.
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

# %% tags=["remove-cell"]
for key, value in results.jabberwocky_prose_values(res, sets.baselines, runs.main_short).items():
    g(key, value)

# %% [markdown]
# ### The structural probe
#
# At layer {glue:text}`ch22_st_layer:d` of {glue:text}`ch22_model`, the structural probe reaches
# a DSpr of {glue:text}`ch22_st_normal:.3f` on normal sentences and
# {glue:text}`ch22_st_jabberwocky:.3f` on their Jabberwocky versions.
# The better word-blind baseline on DSpr is the {glue:text}`ch22_st_baseline`
# (linear chain {glue:text}`ch22_chain_dspr:.3f`, majority tree
# {glue:text}`ch22_majority_dspr:.3f`).
# The probe leads it by {glue:text}`ch22_st_lead_normal_text` on normal sentences and by
# {glue:text}`ch22_st_lead_jab_text` on Jabberwocky.
# Measured against the lead on normal sentences, the lead on Jabberwocky
# {glue:text}`ch22_st_lead_change`.
#
# ### The perceptron probe
#
# At layer {glue:text}`ch22_pc_layer:d`, the perceptron probe recovers
# {glue:text}`ch22_pc_normal:.1f` % of the gold edges of normal sentences and
# {glue:text}`ch22_pc_jabberwocky:.1f` % on Jabberwocky.
# The better word-blind baseline on UUAS is the {glue:text}`ch22_pc_baseline` (linear chain
# {glue:text}`ch22_chain_uuas:.1f` %, majority tree {glue:text}`ch22_majority_uuas:.1f` %).
# The probe leads it by {glue:text}`ch22_pc_lead_normal_text` on normal sentences and by
# {glue:text}`ch22_pc_lead_jab_text` on Jabberwocky.
# Measured against the lead on normal sentences, the lead on Jabberwocky
# {glue:text}`ch22_pc_lead_change`.
#
# ### The uncontextualised representations
#
# From normal to Jabberwocky, the structural probe on layer 0 of the encoder drops by
# {glue:text}`ch22_st_l0_drop_text` in DSpr and the perceptron probe by
# {glue:text}`ch22_pc_l0_drop_text` in UUAS; on the fastText baseline the drops are
# {glue:text}`ch22_st_ft_drop_text` and {glue:text}`ch22_pc_ft_drop_text`.
# A negative drop is a gain.
# These representations cannot use context at all, so a drop here comes from the words
# themselves: a pseudoword's vector says less about what kind of word it is, and where it
# attaches, than the vector of the real word it replaced.

# %% tags=["remove-cell"]
judgements = {}
intervals = claims.jabberwocky_intervals(runs.per_sentence, sets.baselines, runs.main_short)
for claim in claims.CLAIMS:
    judgements[claim.key] = g.claim(claim, intervals[claim.key])
g("overall", claims.jabberwocky_overall(judgements))

# %% [markdown]
# (sec-ch22-verdicts)=
# ## Verdicts
#
# Each claim is judged at each probe's dev-chosen layer of {glue:text}`ch22_model` by a rule
# declared before the test scores were read: the quantity in the claimed direction, the smallest
# effect size of interest (SESOI) with its reason, and a one-sided test read off the
# {glue:text}`ch22_level:.0f` % interval over test sentences and seeds.
# A claim needs the interval above 0 with its upper end at or beyond the SESOI; an upper end
# below the SESOI goes against it, and anything else leaves it open.
# The power is the design's, the chance that this many sentences and seeds would bear out a true
# effect of exactly the SESOI.
#
# **The structural probe does worse on Jabberwocky sentences than on the originals:
# {glue:text}`ch22_st_drop_verdict`.**
# Its DSpr drops by {glue:text}`ch22_st_drop_text`, from {glue:text}`ch22_st_normal:.3f` to
# {glue:text}`ch22_st_jabberwocky:.3f`, over {glue:text}`ch22_st_drop_n_sentences:,d` test
# sentences of 5 to 50 words.
# The design power at the SESOI is {glue:text}`ch22_st_drop_power:.2f`; the SESOI is
# {glue:text}`ch22_st_drop_sesoi` ({glue:text}`ch22_st_drop_sesoi_reason`).
# The rule's reading: {glue:text}`ch22_st_drop_reading`.
#
# **The perceptron probe does worse on Jabberwocky sentences: {glue:text}`ch22_pc_drop_verdict`.**
# Its UUAS drops by {glue:text}`ch22_pc_drop_text`, from {glue:text}`ch22_pc_normal:.1f` % to
# {glue:text}`ch22_pc_jabberwocky:.1f` %, over {glue:text}`ch22_pc_drop_n_sentences:,d` test
# sentences.
# The design power at the SESOI is {glue:text}`ch22_pc_drop_power:.2f`; the SESOI is
# {glue:text}`ch22_pc_drop_sesoi` ({glue:text}`ch22_pc_drop_sesoi_reason`).
# The rule's reading: {glue:text}`ch22_pc_drop_reading`.
#
# **On Jabberwocky the perceptron probe still beats the word-blind baselines:
# {glue:text}`ch22_pc_lead_j_verdict`.**
# Its lead over the better of them, the {glue:text}`ch22_pc_baseline`, is
# {glue:text}`ch22_pc_lead_j_text`.
# The design power at the SESOI is {glue:text}`ch22_pc_lead_j_power:.2f`; the SESOI is
# {glue:text}`ch22_pc_lead_j_sesoi` ({glue:text}`ch22_pc_lead_j_sesoi_reason`).
# The rule's reading: {glue:text}`ch22_pc_lead_j_reading`.
#
# The paper also reads the probes' lead over the baselines as shrinking on Jabberwocky; that
# reading is not judged separately, because the word-blind baselines score the same on both
# versions of a sentence, so the lead shrinks by exactly the drop judged above.
#
# **Overall, for {glue:text}`ch22_model` on {glue:text}`ch22_treebank`:
# {glue:text}`ch22_overall`.**
# Across the {glue:text}`ch22_n_model_probes:d` probes trained on the best layer of an encoder in
# this run, the interval of the drop lies above 0 for {glue:text}`ch22_n_drop_above_zero:d`.
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
