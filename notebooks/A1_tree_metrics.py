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
# (sec-a1)=
# # Assignment 1 · Trees from distances
#
# **Paper.** {cite:t}`hallmaudslay2020tale` compare the structural probe of
# {cite:t}`hewitt2019structural` with a parser that has exactly its parameters.
# Both predict a distance for every pair of words; a tree is read off the distances as their
# minimum spanning tree, and the trees are scored with UUAS, the share of gold edges recovered.
# The parser differs only in its loss, the structured-perceptron loss of their eq. 4.
#
# **You will** implement Prim's algorithm, UUAS and the perceptron loss, check each against the
# library, and then use your functions on real sentences: how many gold edges does a tree recover
# that ignores the words altogether, and how many does the raw geometry of an encoder's layers
# recover before any probe is trained?
#
# **You will learn** why the tree decoder and the evaluation metric are part of a probe's result,
# and why a probe's UUAS means little without the baselines next to it.
#
# ```{admonition} How to work on this assignment
# :class: tip
# Instructors hand out the student copy written by `probekit assignments --student OUT`.
# In it, each function you write ends in `raise NotImplementedError`; replace that line with your
# code and run the check cell below the function.
# A failed check shows the smallest input on which your function is wrong, the expected and the
# returned value, and a hint.
# On this page the solutions are hidden: click a cell's toggle to reveal one.
# ```

# %% tags=["parameters"]
# One line per parameter, as papermill's parser reads them: the formatter leaves them alone.
# fmt: off
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # encoder for the last task; 'default', a Hugging Face name or a path
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
seed: int = 0  # seed of the generated check cases and of the sentence sample
n_cases: int = 50  # generated cases per check
n_sentences: int = 200  # development sentences for the last task; 0 means all
# fmt: on

# %%
import numpy as np
import pandas as pd
from IPython.display import display
from scipy.spatial.distance import pdist, squareform

from probekit import teaching
from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.io import embeddings, treebanks
from probekit.trees import distances

plots.use_style()
g = Glue("a1")

# %% [markdown]
# ## Task 1: Prim's algorithm
#
# A spanning tree of $n$ words is a set of $n - 1$ undirected edges that connects them all.
# Its weight under a distance matrix $d$ is the sum of $d(i, j)$ over its edges, and the predicted
# tree is the spanning tree of minimum weight (Proposition 1 of the paper shows that a tree's own
# distance matrix gives back exactly that tree).
# Prim's algorithm grows the tree from vertex 0: it keeps, for every vertex outside the tree, its
# smallest distance to any vertex inside, and repeatedly moves the nearest outside vertex in,
# attached to the tree vertex it is nearest to.
#
# Write `prim(dist)`: it takes a symmetric `(n, n)` array and returns `parents`, an integer array
# of shape `(n,)` with `parents[0] = -1` and, for every other vertex, the index of the tree vertex
# it was attached to.
# Ties matter when distances repeat: add the **lowest-index** vertex among the nearest ones, and
# when a vertex is equally near to several tree vertices, attach it to the **lowest-index** one.
# Run it in $O(n^2)$: one pass over the vertices per addition.
#
# ```{dropdown} Hint
# Keep two arrays of length $n$: `best[v]`, the distance from `v` to the tree, and `parents[v]`.
# Start with `best = dist[0]` and `parents = 0`.
# After adding `u`, lower `best[v]` to `dist[u, v]` for the outside vertices that are nearer to
# `u`; on a tie keep the smaller of `u` and the old parent.
# `np.argmin` returns the first (lowest) index of the minimum, which is the tie rule for `u`.
# ```


# %% tags=["hide-input"]
def prim(dist: np.ndarray) -> np.ndarray:
    """Prim's minimum spanning tree of a symmetric (n, n) distance matrix.

    Returns int parents (n,): -1 for vertex 0 (the root), else the tree vertex each vertex was
    attached to. Ties go to the lowest index.
    """
    ### BEGIN SOLUTION
    dist = np.asarray(dist, dtype=float)
    n = len(dist)
    parents = np.zeros(n, dtype=int)
    if n == 0:
        return parents
    parents[0] = -1
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best = dist[0].copy()
    for _ in range(n - 1):
        u = int(np.argmin(np.where(in_tree, np.inf, best)))
        in_tree[u] = True
        nearer = (dist[u] < best) | ((dist[u] == best) & (u < parents))
        nearer &= ~in_tree
        best[nearer] = dist[u, nearer]
        parents[nearer] = u
    return parents
    ### END SOLUTION


# %%
teaching.check_prim(prim, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 2: UUAS
#
# The unlabelled undirected attachment score compares the predicted tree with the gold tree as
# sets of undirected edges.
# Over a corpus of sentences it is a micro average:
#
# $$\mathrm{UUAS} = \frac{\sum_s |\text{predicted edges}_s \cap \text{gold edges}_s|}
#   {\sum_s |\text{gold edges}_s|}.$$
#
# Write `uuas(pred_dists, gold_heads)`: `pred_dists` is a list of symmetric `(n_s, n_s)` arrays,
# `gold_heads` a list of CoNLL-U head arrays of shape `(n_s,)` (1-based, 0 for the root, so word
# `i` (0-based) is joined to word `heads[i] - 1`).
# The predicted tree of a sentence is your `prim` of its matrix.
# Every word counts here; the book's chapters also drop punctuation, which this task leaves out.
#
# ```{dropdown} Hint
# Write an edge as the tuple `(min(i, j), max(i, j))` so that both directions compare equal, and
# collect a sentence's edges in a `set`.
# A one-word sentence has no edges.
# ```


# %% tags=["hide-input"]
def uuas(pred_dists: list[np.ndarray], gold_heads: list[np.ndarray]) -> float:
    """Corpus UUAS of the MSTs of the predicted (n_s, n_s) distances against 1-based heads."""
    ### BEGIN SOLUTION
    correct = total = 0
    for dist, heads in zip(pred_dists, gold_heads, strict=True):
        parents = prim(dist)
        predicted = {(min(i, p), max(i, p)) for i, p in enumerate(parents.tolist()) if p >= 0}
        gold = {(min(i, h - 1), max(i, h - 1)) for i, h in enumerate(heads.tolist()) if h > 0}
        correct += len(predicted & gold)
        total += len(gold)
    return correct / total
    ### END SOLUTION


# %%
teaching.check_uuas(uuas, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 3: the perceptron loss
#
# The parser of {cite:t}`hallmaudslay2020tale` learns its distances $d_B$ with the structured
# perceptron loss (their eq. 4): the weight of the gold tree $t$ minus the weight of the lightest
# spanning tree under the current distances,
#
# $$\ell = \sum_{(i, j) \in t} d_B(w_i, w_j) - \min_{t'} \sum_{(i, j) \in t'} d_B(w_i, w_j).$$
#
# Write `perceptron_loss(dist, heads)` for one sentence: `dist` holds the predicted distances
# $d_B$ (not squared), `heads` the gold heads as in Task 2.
#
# ```{dropdown} Hint
# Both sums run over $n - 1$ undirected edges; count each edge once.
# The minimum over all spanning trees is the weight of your `prim` tree.
# ```


# %% tags=["hide-input"]
def perceptron_loss(dist: np.ndarray, heads: np.ndarray) -> float:
    """Eq. 4 of Hall Maudslay et al. 2020 for one sentence: gold weight minus MST weight."""
    ### BEGIN SOLUTION
    dist = np.asarray(dist, dtype=float)
    gold = sum(dist[i, h - 1] for i, h in enumerate(heads.tolist()) if h > 0)
    parents = prim(dist)
    lightest = sum(dist[i, p] for i, p in enumerate(parents.tolist()) if p >= 0)
    return float(gold - lightest)
    ### END SOLUTION


# %%
teaching.check_perceptron_loss(perceptron_loss, seed=seed, n_cases=n_cases)

# %% [markdown]
# ## Task 4: run and interpret
#
# Now use your functions on development sentences of the treebank.
# The code below scores four predictions that no probe has learned:
#
# - *gold*: the gold tree distances themselves (a sanity check: UUAS must be 1);
# - *linear chain*: the distance $|i - j|$ between positions, whose MST joins every word to the
#   next one, a baseline of {cite:t}`hallmaudslay2021jabberwocky`;
# - *random*: uniform random distances, so a random spanning tree;
# - *raw layer k*: the Euclidean distances between the encoder's word vectors at layer $k$, with
#   no probe at all.
#
# It also evaluates the perceptron loss of the linear-chain prediction.
# Read the numbers, then answer the questions below them.

# %%
tb = treebanks.load_treebank(treebank)
dev = treebanks.sample_sentences(tb["dev"], n_sentences or None, seed=seed, min_len=2)
heads = [s.heads for s in dev]
rng = np.random.default_rng(seed)
positions = [np.arange(len(s)) for s in dev]
chain = [np.abs(np.subtract.outer(p, p)).astype(float) for p in positions]
noise = [rng.random((len(s), len(s))) for s in dev]
predictions = {
    "gold": [distances.gold_distance_matrix(h).astype(float) for h in heads],
    "linear chain": chain,
    "random": [(m + m.T) / 2 for m in noise],
}
scores = {name: uuas(dists, heads) for name, dists in predictions.items()}
emb = embeddings.embed(dev, model, pooling, progress=False)
for layer in range(emb.n_layers):
    vectors = [emb.sentence(layer, k).astype(np.float64) for k in range(len(dev))]
    scores[f"raw layer {layer}"] = uuas([squareform(pdist(v)) for v in vectors], heads)
scores = pd.DataFrame({"UUAS": scores})
display(scores.style.format("{:.3f}"))

# %% tags=["remove-cell"]
raw = scores.loc[[k for k in scores.index if k.startswith("raw")], "UUAS"]
best_raw = raw.idxmax()
chain_loss = np.mean([perceptron_loss(d, h) for d, h in zip(chain, heads, strict=True)])
excess = np.mean([float((s.arc_lengths() - 1).sum()) for s in dev])
g("n_sentences", len(dev))
g("chain_uuas", scores.loc["linear chain", "UUAS"])
g("random_uuas", scores.loc["random", "UUAS"])
# Each of the n (n - 1) / 2 pairs is equally likely to be one of the n - 1 random-tree edges.
edges = np.array([len(s) - 1 for s in dev])
g("expected_random", float(np.sum(edges * 2 / (edges + 1)) / edges.sum()))
g("best_raw_layer", int(best_raw.split()[-1]))
g("best_raw_uuas", raw.max())
g("layer0_uuas", raw.iloc[0])
g("raw_beats_chain", "beats" if raw.max() > scores.loc["linear chain", "UUAS"] else "does not beat")
g("chain_loss", chain_loss)
g("excess_arc", excess)
g("adjacent_share", 100 * float(np.mean(treebanks.arc_lengths(dev) == 1)))

# %% [markdown]
# **Questions.**
#
# 1. Why is the linear chain so much better than a random tree? Relate its UUAS to the share of
#    gold arcs that join adjacent words.
# 2. Does any layer's raw geometry beat the linear chain? What does that tell you about a probe
#    whose UUAS lies only a little above the chain?
# 3. The perceptron loss of the chain prediction has a simple meaning on these sentences. What
#    is it, and why can the loss never be negative?

# %% [markdown] tags=["solution"]
# ```{admonition} Model answer
# :class: dropdown
# On {glue:text}`a1_n_sentences:d` development sentences the linear chain reaches a UUAS of
# {glue:text}`a1_chain_uuas:.3f`, a random tree {glue:text}`a1_random_uuas:.3f` (a random
# spanning tree of $n$ words contains each gold edge with probability $2 / n$, which gives
# {glue:text}`a1_expected_random:.3f` in expectation on these sentences).
# The chain is strong because dependency arcs are short.
# Its edges are exactly the pairs of adjacent words, so its UUAS is the share of gold arcs that
# join adjacent words, {glue:text}`a1_adjacent_share:.1f` %.
#
# The best raw layer is layer {glue:text}`a1_best_raw_layer:d` with a UUAS of
# {glue:text}`a1_best_raw_uuas:.3f` (layer 0: {glue:text}`a1_layer0_uuas:.3f`); it
# {glue:text}`a1_raw_beats_chain` the chain.
# Raw Euclidean distances mix syntax with everything else the vectors encode, so they are a weak
# tree predictor; a probe earns credit only for the part of its UUAS above such baselines, and the
# chain is the one to beat, since it needs no model at all.
#
# The chain's perceptron loss averages {glue:text}`a1_chain_loss:.2f` per sentence, the same as
# the total excess length of the gold arcs, $\sum (|i - h_i| - 1)$, which is
# {glue:text}`a1_excess_arc:.2f`: the chain tree weighs $n - 1$ and each gold arc weighs its
# length.
# The loss is never negative because the gold tree is one of the spanning trees the minimum runs
# over.
# ```
