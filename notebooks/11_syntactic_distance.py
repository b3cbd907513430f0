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
# (sec-ch11)=
# # Syntactic distance
#
# Part I follows {cite:t}`hallmaudslay2020tale`, who set the structural probe of
# {cite:t}`hewitt2019structural` against a classical dependency parser that has exactly the same
# parameters.
# Both models learn one thing: a distance between the words of a sentence that should mirror
# their distance in the syntax tree.
# This chapter looks at that target before any model is trained.
# It defines syntactic distance, draws it for one sentence, and checks on a whole treebank split
# the paper's Proposition 1: a tree and its matrix of syntactic distances carry exactly the same
# information.

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # not used in this chapter (it needs no encoder); kept for uniformity
split: str = "dev"  # split whose trees are checked and drawn, one of {train, dev, test}
example_id: str = ""  # sent_id of the example sentence; empty picks one by length
example_length: int = 12  # words in the example sentence (the first sentence of that length)
transform_seed: int = 0  # seed of the random order-preserving transforms (Prop. 1 remark)
device: str = "auto"  # unused here (nothing is trained or encoded); kept so every chapter takes it
# fmt: on

# %% tags=["hide-input"]
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part1_probe_parser import distance_figures, syntactic_distance
from probekit.experiments.part1_probe_parser.config import SyntacticDistanceConfig
from probekit.io import treebanks
from probekit.trees import evaluation

plots.use_style()
g = Glue("ch11")
config = SyntacticDistanceConfig.from_parameters(globals())

# %% [markdown]
# ## Setup
#
# The chapter reads the dependency trees of the {glue:text}`ch11_split` split of
# **{glue:text}`ch11_treebank`**: {glue:text}`ch11_n_trees:,d` trees over
# {glue:text}`ch11_n_words:,d` words.
# No language model is needed here; the chapter runs in seconds.

# %% tags=["hide-input"]
tb = treebanks.load_treebank(config.treebank)
sentences = tb[config.split]

# %% tags=["remove-cell"]
g("treebank", tb.name)
g("split", config.split)

# %% [markdown]
# ## Distance in a tree
#
# Read a dependency tree without the direction of its arcs and it becomes an undirected spanning
# tree over the words of the sentence.
# The *syntactic distance* $\Delta_t(w_i, w_j)$ between two words is the number of edges on the
# unique path that joins them in that tree.
# Adjacent words in the tree are at distance 1, a word and its grandparent or two siblings at
# distance 2, and so on.
# Like any shortest-path length, $\Delta_t$ is a metric: it is zero only on the diagonal,
# symmetric, and obeys the triangle inequality.
# A sentence of $n$ words thus has an $n \times n$ matrix of distances, and that matrix is what
# the structural probe is trained to approximate.

# %% tags=["hide-input"]
example = syntactic_distance.example_tree(sentences, config.example_id, config.example_length)

# %% tags=["remove-cell"]
g("example_id", example.sentence.sent_id)
g("example_n", len(example.sentence))
g("word_i", example.words[0])
g("word_j", example.words[1])
g("pair_distance", example.pair_distance)
g("pair_linear", example.pair_linear)
g("max_distance", int(example.dist.max()))
g("mean_distance", example.mean_distance)
g.figure(
    "fig_example",
    distance_figures.example_figure(example.sentence, example.dist, example.path),
)

# %% [markdown]
# ```{glue:figure} ch11_fig_example
# :name: fig-ch11-example
#
# One sentence of the split: its dependency tree (left; arrows point from head to dependent) and
# its matrix of syntactic distances (right). The highlighted path joins the two words that lie
# farthest apart in the tree; the outlined cells hold their distance.
# ```
#
# {numref}`fig-ch11-example` shows sentence {glue:text}`ch11_example_id`
# ({glue:text}`ch11_example_n:d` words).
# The words *{glue:text}`ch11_word_i`* and *{glue:text}`ch11_word_j`* are
# {glue:text}`ch11_pair_linear:d` positions apart in the string and
# {glue:text}`ch11_pair_distance:d` edges apart in the tree, the largest tree distance in this
# sentence; the mean over all its word pairs is {glue:text}`ch11_mean_distance:.2f` edges.
# Each row of the matrix is one word's view of the sentence: how far every other word is from it
# in the tree.
# The entries equal to 1 are exactly the arcs of the tree, which is the observation behind the
# next section.
#
# ## Proposition 1: trees and distance matrices are interchangeable
#
# {cite:t}`hallmaudslay2020tale` state that syntactic distance matrices and undirected spanning
# trees are in one-to-one correspondence.
# One direction is a shortest-path computation: from a tree, breadth-first search (or
# Floyd–Warshall, as the paper suggests) gives every distance.
# The other direction is just as simple: the edges of the tree are the pairs at distance 1.
# The paper adds a remark that matters for the probes of {ref}`sec-ch12`: the exact distances
# are not even needed.
# Any matrix that *orders* the word pairs as the true distances do has the tree as its unique
# minimum spanning tree, which Prim's algorithm recovers.
#
# We check all three statements on every tree of the split.
# For each tree we compute the distance matrix, read the edges back from the pairs at distance 1,
# run Prim's algorithm on the matrix and compare both edge sets and the re-computed distances
# with the originals.
# We then replace every distance by a random strictly increasing function of it, so that only
# the order of the distances survives, and run Prim's algorithm again.
# Finally we compare our $O(n^2)$ breadth-first distances with Floyd–Warshall's $O(n^3)$ ones.

# %% tags=["hide-input"]
prop1 = syntactic_distance.check_proposition1(sentences, seed=config.transform_seed)
display(prop1.table())

# %% tags=["remove-cell"]
g("n_trees", prop1.counts["trees"])
g("n_words", prop1.words)
g("round_trip_n", prop1.counts["round_trip"])
g("round_trip_rate", prop1.rate("round_trip"))
g("ordering_only_n", prop1.counts["ordering_only"])
g("ordering_only_rate", prop1.rate("ordering_only"))
g("floyd_warshall_n", prop1.counts["floyd_warshall"])
g("floyd_warshall_rate", prop1.rate("floyd_warshall"))
g("prop1_check", prop1.outcome)

# %% [markdown]
# The table counts the trees of the split that pass each check; the last section sums them up.
#
# The same library also fixes one detail that the structural-probe code leaves ambiguous.
# Its decoder, `prims_matrix_to_edges`, is named after Prim but implements Kruskal's algorithm;
# both return a minimum spanning tree, and they can differ only when two candidate edges have
# exactly equal distances.
# We use Prim's algorithm throughout, with ties broken towards the lower word index.
#
# ## Syntactic distance is not word order
#
# Words that are close in the sentence tend to be close in the tree, and a probe could score well
# by learning little more than word order.
# {numref}`fig-ch11-linear` shows how far apart in the tree two words are, on average, for each
# distance in the string.

# %% tags=["hide-input"]
pairs = syntactic_distance.distance_pairs(sentences)
summary = syntactic_distance.distance_summary(pairs, far=10)
chain = evaluation.linear_baselines(evaluation.EvalSet.build(sentences, exclude_punct=True))

# %% tags=["remove-cell"]
g("adjacent_arc_share", summary["adjacent_arc_share"])
g("mean_syntactic_far", summary["mean_syntactic_far"])
g("chain_uuas", 100 * chain["uuas"])
g("chain_dspr", chain["dspr"])
g.figure("fig_linear", distance_figures.linear_vs_syntactic_figure(pairs))

# %% [markdown]
# ```{glue:figure} ch11_fig_linear
# :name: fig-ch11-linear
#
# Mean syntactic distance (± 1 SD) of all word pairs in the split, by their distance in the
# string. The dotted line marks where the two distances would be equal.
# ```
#
# Adjacent words are joined by an arc in {glue:text}`ch11_adjacent_arc_share:.1f` % of cases;
# since a sentence of $n$ words has $n - 1$ arcs and $n - 1$ adjacent pairs, the same share of
# arcs joins adjacent words.
# Beyond a few words the tree distance grows far more slowly than the string distance: words ten
# positions apart are on average only {glue:text}`ch11_mean_syntactic_far:.1f` edges apart.
# A predictor that knows nothing but word order, and predicts $|i - j|$ as the distance, already
# reaches a distance Spearman correlation (DSpr, defined in {ref}`sec-ch12`) of
# {glue:text}`ch11_chain_dspr:.3f` on this split; the tree it implies, a chain through the
# sentence, gets {glue:text}`ch11_chain_uuas:.1f` % of the non-punctuation edges right.
# These two numbers are the floor against which the probe and the parser of the next chapter
# must be read.
#
# ## Verdicts
#
# This chapter judges no empirical claim of the paper: Proposition 1 is a theorem, so checking it
# tests our code rather than the paper, and the claims ledger leaves it out.
#
# **Proposition 1, a tree and its matrix of syntactic distances carry the same information, on
# the {glue:text}`ch11_split` split: {glue:text}`ch11_prop1_check`.**
# Over the {glue:text}`ch11_n_trees:,d` trees ({glue:text}`ch11_n_words:,d` words), the round
# trip from tree to distances and back succeeds for {glue:text}`ch11_round_trip_rate:.1f` % of
# the trees, Prim's algorithm on order-only distances recovers
# {glue:text}`ch11_ordering_only_rate:.1f` % of them, and the two ways of computing distances
# agree on {glue:text}`ch11_floyd_warshall_rate:.1f` %.
# This is the guarantee that the tree machinery used in the next chapter is right on real,
# non-projective, punctuated treebank trees.

# %% tags=["remove-cell"]
g.save("build/results/11_syntactic_distance.json")
