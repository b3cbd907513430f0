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
# (sec-ch41)=
# # Scoring functions and split points
#
# A probe that does well on held-out data drawn from its own training distribution may only
# interpolate between examples it has seen.
# {cite:t}`kunz2021test` test it harder: they rank examples by a *scoring function* that says how
# hard an example is, train the probe on the easy ones and test it on the hard ones.
# This chapter builds those rankings and the resulting splits; the next three chapters train the
# probes.
#
# Three setups are compared throughout this part.
# The *standard* setup trains on all training examples and tests on all evaluation examples.
# The *control* setup trains on all training examples and tests on the hard evaluation examples
# only.
# The *extrapolation* setup trains on the easy training examples and tests on the same hard
# evaluation examples.
# Standard versus control says how much harder the hard set is; control versus extrapolation,
# on identical test items, says what is lost when the probe never sees hard examples.
# The easy set is smaller than the whole training set, so that loss also counts a smaller
# training set; the paper's *size control* (§3.5) trains on a random half of the training
# examples instead, and the next chapters score it on all evaluation examples, as the paper
# does, and on each split's hard set, beside the extrapolation setup.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
pooling: str = "last"  # wordpiece pooling, one of {first, last, mean}; the paper takes the last
layers: list[int] = []  # layers scored by the probe ensembles (0 is the embeddings); [] means all
ensemble_seeds: list[int] = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]  # scoring ensemble (ch. 44)
ensemble_folds: int = 2  # 1: ensemble trains on all training sentences (paper); 2+: cross-fitted
fold_seed: int = 0  # seed that deals the sentences into the ensemble's folds
n_train: int = 1000  # training sentences sampled from the train split; 0 means all
n_eval: int = 1000  # evaluation sentences sampled from the dev split; 0 means all
sample_seed: int = 42  # seed of the sentence samples
order_seed: int = -1  # seed of the training data order; -1 means corpus order, as released
epochs: int = 10  # training epochs of each ensemble probe (paper 5, released code 10)
widen_top_ties: bool = True  # lower m2 when ties at the top score empty the hard set (paper: no)
score_layer: int = -1  # layer whose learning-based scores are shown; -1 is the last layer
n_examples: int = 5  # easy and hard examples shown per split
device: str = "auto"  # where probes train and encoders run: auto (GPU if any), cpu, cuda, cuda:N
# fmt: on

# %% [markdown]
# ## Setup
#
# As in the paper, one sample of {glue:text}`ch41_n_train_sentences:,d` training sentences and
# one of {glue:text}`ch41_n_eval_sentences:,d` development sentences serve all four chapters and
# all layers; they hold {glue:text}`ch41_n_train_words:,d` and {glue:text}`ch41_n_eval_words:,d`
# words (task T1, part-of-speech tagging) and {glue:text}`ch41_n_train_arcs:,d` and
# {glue:text}`ch41_n_eval_arcs:,d` arcs (task T2, labelling a dependency from the concatenated
# vectors of dependent and head).
# The released code drew a fresh sample for every layer, so its layers were compared on different
# words; here every layer sees the same ones.
# Words are represented by their last wordpiece by default, as in the paper; this run pools
# with **{glue:text}`ch41_pooling`**.

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments.deviations import deviation_table
from probekit.experiments.part4_extrapolation import figures, survey
from probekit.experiments.part4_extrapolation.config import ScoringFunctionsConfig
from probekit.experiments.part4_extrapolation.protocol import PROTOCOL_41

config = ScoringFunctionsConfig.from_parameters(globals())
g = Glue("ch41")

# %% [markdown]
# ## Where this run departs from the paper
#
# Each row is a setting of the paper's protocol that this chapter uses, its value in this run
# and, where they differ, why; {glue:text}`ch41_n_deviations:d` of the
# {glue:text}`ch41_n_settings:d` settings depart from the paper in this run.

# %% tags=["hide-input"]
deviations = deviation_table(config, PROTOCOL_41)
g("n_deviations", int(deviations["deviates"].sum()))
g("n_settings", len(deviations))
display(deviations.set_index("setting"))

# %% tags=["hide-input"]
split_survey = survey.survey_splits(config)

# %% tags=["remove-cell"]
for key, value in survey.survey_values(split_survey).items():
    g(key, value)

# %% [markdown]
# ## Scoring functions
#
# Higher scores mean harder examples throughout.
#
# - *Sentence length* (T1, T2): the number of words in the example's sentence.
# - *Arc length* (T2): the number of words between dependent and head.
# - *Most frequent tag* (T1): 0 if the gold tag is the word's most frequent tag in the training
#   words, 1 otherwise.
# - *Tag proportion* (T1): one minus the share of the gold tag among the word's training tags.
# - *Speed of learning* (T1, T2): an ensemble of {glue:text}`ch41_n_ensemble:d` probes per layer
#   is checked after 1, 2, 4, …, 64 updates; with c the number of correct predictions summed over
#   probes and checkpoints, the score is 1 / (c + 1).
# - *Sample loss* (T1, T2): the cross-entropy of the same ensemble's final probes, averaged over
#   the ensemble.
#
# The ensemble's seeds are not among the seeds of the probes that {ref}`sec-ch44` evaluates.
# Different seeds alone only change the initialisation, so the ensemble is also cross-fitted
# when it has two or more folds (this run: {glue:text}`ch41_ensemble_folds:d`; the paper's
# ensemble is one fold, trained on every training sentence): the training sentences are dealt
# at random into folds, each fold's probes train on the other folds and score only their own
# fold's examples, and the development sentences are dealt the same way.
# No example is then scored by a probe that trained on it, and no ensemble probe trains on the
# whole training set as the evaluated probes do; {ref}`sec-ch44` says why this matters.
#
# The ensemble's probes train for a fixed number of epochs, as every probe of the paper does.
# Of its {glue:text}`ch41_n_ensemble_probes:d` probes, {glue:text}`ch41_cap_share:.1f` % ended
# with their loss on the examples they score still falling at the last epoch
# ({glue:text}`ch41_cap_ok` the book's limit of {glue:text}`ch41_cap_max:.0f` %; see the
# convergence section of {ref}`sec-ch42`).
#
# The learning-based scores exist per layer; the figure and tables show layer
# {glue:text}`ch41_score_layer:d`.

# %% tags=["hide-input"]
g.figure("fig_scores", figures.score_histograms(survey.score_panels(split_survey), ncols=3))

# %% [markdown]
# ```{glue:figure} ch41_fig_scores
# :name: fig-ch41-scores
#
# Score distributions of the training and evaluation examples (see the legend), as shares of each
# set, with the split points m1 (dashed; easy examples lie strictly below) and m2 (dotted; hard
# examples lie strictly above). Learning-based scores are those of one layer.
# ```
#
# ## Split points and set sizes
#
# The easy training set is every example with a score strictly below m1, the hard evaluation set
# every example strictly above m2; examples tied at a split point belong to neither.
# Sentence length has a linguistic split at 17 and 29 words (readability classes); every other
# function uses the median for m1 and the 75th percentile for m2, except the binary most frequent
# tag, and the modified arc-length split fixes m1 = 3.
# The paper does not say whether the percentiles come from the training or the evaluation
# scores; we follow what its released code does for each function, listed in the columns
# "m1 from" and "m2 from".

# %% tags=["hide-input"]
display(
    split_survey.sizes.style.format(
        {"m1": "{:.4g}", "m2": "{:.4g}", "easy %": "{:.1f}", "hard %": "{:.1f}"}
    )
)

# %% [markdown]
# For sentence length the distributional points are {glue:text}`ch41_len_pos_m1:.0f` and
# {glue:text}`ch41_len_pos_m2:.0f` words for T1 and {glue:text}`ch41_len_dep_m1:.0f` and
# {glue:text}`ch41_len_dep_m2:.0f` for T2 (the paper reports 23 and 34).
# Arc length gives m1 = {glue:text}`ch41_arc_m1:.0f` and m2 = {glue:text}`ch41_arc_m2:.0f` (the
# paper: 2 and 4, which leaves only arcs between neighbours in its easy set); the easy set has
# {glue:text}`ch41_arc_easy_pct:.1f` % of the training arcs, and the modified split
# (m1 = {glue:text}`ch41_arcmod_m1:.0f`) raises that to {glue:text}`ch41_arcmod_easy_pct:.1f` %.
# Under the most frequent tag, {glue:text}`ch41_mft_hard_pct:.1f` % of the evaluation words are
# hard.
# Tag proportions take both points from the evaluation scores, as released: counted on the
# training words themselves, most proportions are 1 and a training median would leave no easy
# examples.
# The speed-of-learning hard set at layer {glue:text}`ch41_score_layer:d` has
# {glue:text}`ch41_speed_pos_hard_pct:.1f` % of the evaluation words (T1).
# Splits that could not be made on this sample: {glue:text}`ch41_skipped`.
# Whatever the split, the size control trains on a random half of the training examples:
# {glue:text}`ch41_n_half_words:,d` of the {glue:text}`ch41_n_train_words:,d` training words
# (T1) and {glue:text}`ch41_n_half_arcs:,d` of the {glue:text}`ch41_n_train_arcs:,d` arcs (T2),
# against the easy sets' sizes in the table.
#
# The released code differs in ways that change these sets.
# It stored tags as zero-dimensional tensors, which hash by identity, so every (word, tag) count
# was 1 and the tag criteria did not measure tag frequency.
# Its speed-of-learning score left out the examples that no checkpoint got right and took its
# threshold from the wrong end of a descending list.
# It also kept a sentence's arcs only when the sentence had more than one.
# We implement the paper's definitions instead.
#
# ## Easy and hard examples
#
# A few randomly drawn examples per split show what the functions pick out (the word in
# brackets; for T2 the arc is written dependent → head).

# %% tags=["hide-input"]
display(survey.easy_hard_examples(split_survey).round(3))

# %% [markdown]
# The paper prefers arc length and the most frequent tag partly because their sets can be
# described: an arc is hard for its length, a word for carrying a tag other than its usual one
# (§5.1).
# The learning-based sets have no such description; they are whatever the probes found hard,
# which is the concern the paper raises about them.

# %% [markdown]
# ## Verdicts
#
# This chapter judges none of the paper's claims: it builds the scores and splits on which
# {ref}`sec-ch42`, {ref}`sec-ch43` and {ref}`sec-ch44` judge them.
# Where the paper reports its split points, the section above sets ours beside them.

# %% tags=["remove-cell"]
g.save("build/results/41_scoring_functions.json")
