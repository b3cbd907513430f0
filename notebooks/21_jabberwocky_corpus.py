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
# (sec-ch21)=
# # A Jabberwocky test set
#
# A syntactic probe is trained on ordinary sentences, where syntax and meaning come together.
# {cite:t}`hallmaudslay2021jabberwocky` ask how much of what such a probe finds is syntax and
# how much is help from the meaning of the words.
# Their test is in the spirit of Lewis Carroll's poem: keep the sentences and their trees, but
# swap the content words for pronounceable nonsense of the same grammatical category, so that a
# sentence keeps its structure and loses its sense.
# A probe that reads syntax should not care.
# This chapter builds that test set from the test split of a UD treebank and looks at what the
# substitution did; {ref}`sec-ch22` evaluates the probes on it.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # not used here (the corpus needs no encoder); kept for uniformity
seed: int = 0  # seed of the pseudowords and of the substitution draws
rate: float = 1.0  # share of eligible words replaced; the paper replaces all of them (1.0)
pseudowords: str = ""  # pseudoword list file, one lower-case word per line; empty means generate
n_pseudowords: int = 2000  # pseudowords generated when no list file is given
n_examples: int = 6  # example sentences shown beside their originals
example_id: str = ""  # sent_id of the test sentence drawn as a tree; empty picks one
device: str = "auto"  # unused here (nothing is trained or encoded); kept so every chapter takes it
# fmt: on

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part2_jabberwocky import corpus_figures, corpus_summary, corpus_tables
from probekit.experiments.part2_jabberwocky.config import JabberwockyCorpusConfig
from probekit.experiments.part2_jabberwocky.corpus import load_corpus_pairs, substituted

plots.use_style()
g = Glue("ch21")
config = JabberwockyCorpusConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# The corpus is built from the test split of **{glue:text}`ch21_treebank`** with seed
# {glue:text}`ch21_seed:d`, replacing a share of {glue:text}`ch21_rate:.2f` of the eligible words
# (the paper replaces all of them).
# It is written once as a treebank directory and reused for as long as its report names the same
# settings and the checksums of its input and output files still match.

# %% tags=["hide-input"]
corpus = load_corpus_pairs(config)
stems = corpus_tables.stem_table(corpus.pairs)

# %% tags=["remove-cell"]
g("treebank", corpus.treebank)
g("seed", config.seed)
g("rate", config.rate)
for key, value in corpus_summary.corpus_facts(corpus).items():
    g(key, value)
g("n_stems", len(stems))

# %% [markdown]
# ## How the corpus is made
#
# The paper takes the test portion of the English Web Treebank and replaces words "randomly"
# with pseudowords wherever one is available with matching fine-grained part of speech.
# Its pseudowords are monosyllables from the ARC Nonword Database, filtered and hand-validated
# for plausibility, and inflected with hand-written rules of English spelling.
# Neither that list nor the paper's code was released (the announced repository has only a
# README), so we build every step ourselves in `probekit.methods.jabberwocky`; a user with the
# original list can pass it as the `pseudowords` parameter.
#
# **Pseudowords.**
# We split common monosyllabic English words from the CMU Pronouncing Dictionary into an
# orthographic onset, nucleus and coda (*thr-ou-gh*, *b-a-ke*), count which onsets go with which
# nuclei and which nuclei with which codas, and chain random draws through those counts.
# Every pair of adjacent parts in a pseudoword therefore occurs in at least two real English
# words, which keeps the spelling English-looking.
# A candidate is thrown away if it, or any of its inflected forms, is a word: in the treebank, in
# the pronouncing dictionary, or in a large English frequency list.
# This run uses {glue:text}`ch21_pool_size:,d` pseudowords ({glue:text}`ch21_pool_kind`).
#
# **Inflection.**
# Each pseudoword stem is inflected by regular rules: *-s* for plural nouns and third-person
# verbs (with *-es* after sibilants and *y* → *ies* after a consonant), *-ing* with silent-*e*
# deletion and doubling of a final consonant after a single short vowel (*blick* → *blicking*,
# *flop* → *flopping*), and *-er* / *-est* for comparative and superlative adjectives and
# adverbs.
# Positive adverbs stay bare (*fast* rather than *fastly*).
#
# **What is replaced.**
# A noun, verb, adjective or adverb is replaced when its features are exactly one of the sets of
# the paper's footnote 4: singular or plural nouns; infinitives, present-tense finite verbs and
# present participles; positive, comparative and superlative adjectives and adverbs.
# Our treebank release also marks some *-ing* verbs as gerunds, which the paper's release did
# not; we treat them like present participles so that no regular form is left out.
# Irregular territory, above all past tenses and past participles, keeps its real words, as in
# the paper.
# Within a sentence every occurrence of a lemma gets the same pseudoword, and a new word after
# *a* or *an* starts with a consonant or a vowel to match.
# Trees, tags, features and relations stay exactly as they were; only the word forms and lemmas
# change.
#
# With seed {glue:text}`ch21_seed:d`, {glue:text}`ch21_n_replaced:,d` of the
# {glue:text}`ch21_n_words:,d` words in the {glue:text}`ch21_n_sentences:,d` test sentences
# ({glue:text}`ch21_replaced_share:.1f` %) were replaced, using
# {glue:text}`ch21_n_stems:,d` different pseudoword stems.
# Here are some sentences beside their Jabberwocky versions.

# %% tags=["hide-input"]
examples = corpus_tables.example_table(corpus.pairs, config.n_examples, config.seed)
display(examples.set_index("sent_id").style.set_properties(**{"text-align": "left"}))

# %% [markdown]
# The sentences still parse in the mind of an English reader, because the function words,
# the word order and the inflections are intact, yet most of their content words are gone.
#
# ## One tree, two sets of words

# %% tags=["hide-input"]
example_orig, example_jab = corpus_figures.pick_parse_example(corpus.pairs, config.example_id)

# %% tags=["remove-cell"]
g("example_id", example_orig.sent_id)
g("example_n_replaced", int(substituted(example_orig, example_jab).sum()))
g("example_len", len(example_orig))
g.figure("fig_parse", corpus_figures.parse_figure(example_orig, example_jab))

# %% [markdown]
# ```{glue:figure} ch21_fig_parse
# :name: fig-ch21-parse
#
# The unlabelled, undirected dependency tree of one test sentence, the structure both probes of
# {ref}`sec-ch22` are asked to recover (cf. Fig. 2 of the paper). The Jabberwocky words are on
# top, replaced ones in bold; the original words are below them in grey.
# ```
#
# {numref}`fig-ch21-parse` shows sentence {glue:text}`ch21_example_id`, in which
# {glue:text}`ch21_example_n_replaced:d` of {glue:text}`ch21_example_len:d` words were replaced.
# The gold tree, drawn once, belongs to both versions: the probes are scored against the same
# tree whichever words they see.
#
# ## The pseudowords

# %% tags=["hide-input"]
lengths = corpus_summary.length_facts(stems, corpus.pairs)

# %% tags=["remove-cell"]
for key, value in lengths.items():
    g(key, value)
g.figure("fig_lengths", corpus_figures.length_figure(stems, corpus.pairs))

# %% [markdown]
# ```{glue:figure} ch21_fig_lengths
# :name: fig-ch21-lengths
#
# Left: length in letters of the pseudoword stems used in the corpus. Right: length of every
# replaced word before (original) and after (pseudoword, inflected) substitution.
# ```
#
# The stems are {glue:text}`ch21_stem_len_mean:.1f` letters long on average.
# Our pseudowords, like the paper's, have one syllable, while many of the words they replace have
# several.
# After inflection the Jabberwocky words are {glue:text}`ch21_jab_len_mean:.1f` letters long on
# average against {glue:text}`ch21_orig_len_mean:.1f` for the originals
# ({numref}`fig-ch21-lengths`), with a standard deviation of {glue:text}`ch21_jab_len_sd:.1f`
# letters against {glue:text}`ch21_orig_len_sd:.1f`.
# Draws are independent across sentences, so a stem recurs by chance: the most used one,
# *{glue:text}`ch21_top_stem`*, replaces {glue:text}`ch21_max_tokens_per_stem:d` words.
#
# The tables list the commonest onsets, nuclei and codas among the stems used, each with a few
# stems that contain it.

# %% tags=["hide-input"]
for part in ("onset", "nucleus", "coda"):
    display(corpus_tables.part_table(stems, part))

# %% [markdown]
# ## Coverage

# %% tags=["hide-input"]
coverage = corpus_tables.coverage_table(corpus.report)
by_upos = corpus_tables.upos_coverage(corpus.pairs)
covered = corpus_summary.coverage_facts(coverage, by_upos, corpus.report)

# %% tags=["remove-cell"]
for key, value in covered.items():
    g(key, value)
g.figure("fig_coverage", corpus_figures.coverage_figure(coverage, by_upos))

# %% [markdown]
# ```{glue:figure} ch21_fig_coverage
# :name: fig-ch21-coverage
#
# Left: test words replaced per feature set of the paper's footnote 4 (log scale); "kept" counts
# the words of the set left alone because they sit inside a multiword token (such as *gonna*) or
# are not alphabetic. Right: share of the words of each UPOS tag that were replaced.
# ```
#
# {numref}`fig-ch21-coverage` and the table below count the substitutions.
# The largest feature set, {glue:text}`ch21_top_set`, accounts for
# {glue:text}`ch21_top_set_share:.1f` % of them.
# {glue:text}`ch21_skipped_multiword:d` words with a matching feature set were kept because
# they sit inside a multiword token and {glue:text}`ch21_skipped_shape:d` because their form is
# not a word (numbers, file names).
# Per part of speech, {glue:text}`ch21_noun_share:.1f` % of nouns,
# {glue:text}`ch21_verb_share:.1f` % of verbs, {glue:text}`ch21_adj_share:.1f` % of adjectives and
# {glue:text}`ch21_adv_share:.1f` % of adverbs were replaced.
# Of the four, the {glue:text}`ch21_least_covered` are the least covered.
# {glue:text}`ch21_verb_unmatched:,d` verbs are past tenses, past participles or otherwise
# outside the footnote's sets, and they keep their real forms.
# Proper nouns, pronouns, auxiliaries and all function words are never replaced
# ({glue:text}`ch21_propn_share:.1f` % of proper nouns), so a Jabberwocky sentence keeps its
# grammatical skeleton and its names: {glue:text}`ch21_kept_share:.1f` % of the words the probes
# of {ref}`sec-ch22` see in it are still real.

# %% tags=["hide-input"]
display(coverage.style.format({"replaced (%)": "{:.1f}"}))
display(by_upos.style.format({"replaced (%)": "{:.1f}"}))

# %% [markdown]
# The corpus is written as a treebank directory (the Jabberwocky test split beside unchanged
# train and dev splits) with a JSON report of these counts, the seed and the checksums of the
# input and output files; the test file of this build has sha256
# {glue:text}`ch21_corpus_sha`….
# The command `probekit jabberwocky --treebank UD_English-EWT --seed 0 --out DIR` writes the
# same corpus outside the book; `--pseudowords FILE` uses a list of your own and `--rate` replaces
# only part of the eligible words.
#
# ## Verdicts
#
# This chapter judges no claim of the paper; it checks that the corpus keeps the one promise its
# construction makes, which the probes of {ref}`sec-ch22` rely on.
#
# **Every Jabberwocky sentence keeps the tree and the annotation of its original, and only words
# change: {glue:text}`ch21_trees_check`.**
# Heads, relations, UPOS and XPOS tags and features are compared sentence by sentence.
# {glue:text}`ch21_n_replaced:,d` of the {glue:text}`ch21_n_words:,d` test words
# ({glue:text}`ch21_replaced_share:.1f` %) are pseudowords, drawn from
# {glue:text}`ch21_n_stems:,d` stems; the other {glue:text}`ch21_kept_share:.1f` % of the words
# are real, function words and names among them.

# %% tags=["remove-cell"]
g("trees_check", corpus_summary.same_trees_check(corpus.pairs))
g.save("build/results/21_jabberwocky_corpus.json")
