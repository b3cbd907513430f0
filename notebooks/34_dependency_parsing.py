# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   probekit:
#     reads: [33_memorisation_complexity]
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (sec-ch34)=
# # Dependency parsing as a probing task
#
# Part-of-speech and arc labelling are easy for every representation: the word alone settles
# most labels ({ref}`sec-ch31`), and according to {cite:t}`pimentel2020pareto` simple probes do
# about as well on them as complex ones ({ref}`sec-ch33` checks this on our model).
# The paper (§7.2) concludes that probing needs harder tasks, and proposes dependency parsing:
# to find a word's head a probe must compare it with every other word of the sentence, which is
# where context should help.
# Their parsing probes separate BERT from the type-level representations far more clearly than
# POSL and DAL did (their Table 2 against Table 3), and that contrast is the conclusion of the
# paper.
# This chapter repeats the experiment with our model.

# %% tags=["parameters"]
treebank: str = "UD_English-EWT"  # UD name or directory with *-ud-{train,dev,test}.conllu
model: str = "default"  # 'default' (packaged all-MiniLM-L6-v2), a Hugging Face name or a local path
layer: int = -1  # layer of the contextual model (0 is the embedding output, -1 the last)
pooling: str = "mean"  # wordpiece pooling, one of {first, last, mean}
representations: list[str] = ["contextual", "fasttext", "onehot", "random"]  # one of {contextual, fasttext, onehot, random}
controls: list[str] = ["label_shuffled", "fully_shuffled"]  # one of {label_shuffled, fully_shuffled}
linear: bool = True  # also train linear parsers with nuclear-norm complexity (Figs. 7 and 8)
n_train: int = 2000  # training sentences sampled from the train split; 0 means all
n_dev: int = 500  # development sentences (early stopping); 0 means all
n_test: int = 0  # test sentences; 0 means all
sample_seed: int = 42  # seed of the sentence samples
n_configs: int = 5  # random MLP architectures per representation (the paper: 50)
max_hidden: int = 128  # largest hidden size drawn (the paper: 1024)
n_probes: int = 3  # linear parsers per representation (the paper: 50)
alpha_max: float = 0.0625  # largest nuclear-norm weight of the linear parsers (the paper: 8)
n_memorise: int = 100  # training sentences whose shuffled heads a control memorises; 0 means all
memorise_steps: int = 150  # updates of every shuffled control
max_norm: float = 700.0  # nuclear-norm cap of the hypervolume (the paper uses 700 for parsing)
simple_budget: float = 0.5  # memorisation UAS up to which an MLP parser counts as simple
simple_fraction: float = 0.1  # share of the nuclear-norm cap up to which a parser counts as simple
type_dim: int = 64  # size of the one-hot and random word vectors
fasttext_dim: int = 300  # size of the fastText vectors
fasttext_epochs: int = 20  # epochs of fastText training on the train split
fasttext_path: str = ""  # a pretrained cc.LANG.300.bin file; empty trains fastText on the treebank
seed: int = 0  # seed of architectures, initialisation, batch order, shuffles and random vectors
batch_size: int = 64  # sentences per minibatch (the paper uses 128)
lr: float = 0.005  # Adam learning rate (the paper uses 0.001)
eval_every: int = 50  # minibatches between early-stopping checks on dev (the paper uses 100)
patience: int = 3  # checks without improvement before a parser stops (the paper uses 10)
max_steps: int = 400  # upper bound on minibatches per parser trained on the gold heads
n_boot: int = 2000  # bootstrap resamples of test sentences

# %% tags=["remove-cell"]
import numpy as np
import pandas as pd
from IPython.display import display

from probekit.book.glue import Glue
from probekit.experiments import plots
from probekit.experiments.part3_pareto import experimental_setup, frontiers, parsing
from probekit.experiments.part3_pareto.paper import PAPER, paper_comparison
from probekit.experiments.part3_pareto.representations import NON_CONTEXTUAL, REPRESENTATIONS
from probekit.experiments.part3_pareto.runs import combine
from probekit.io.results import load_results
from probekit.stats import bootstrap
from probekit.stats.comparison import compare

plots.use_style()
g = Glue("ch34")
setup = experimental_setup.prepare(globals(), eval_batch_size=256)
tb, splits, reps, labels = setup.treebank, setup.splits, setup.representations, setup.labels
configs, shuffled_words, options = setup.configs, setup.shuffled_words, setup.options
for key, value in {
    "treebank": tb.name,
    "n_train_sentences": len(splits.train),
    "n_train_words": splits.n_words("train"),
    "n_dev_sentences": len(splits.dev),
    "n_test_sentences": len(splits.test),
    "n_test_words": splits.n_words("test"),
    "n_configs": n_configs,
    "n_probes": n_probes,
    "max_hidden": max_hidden,
    "max_norm": max_norm,
    "memorise_steps": memorise_steps,
    "max_steps": max_steps,
    "batch_size": batch_size,
    "lr": lr,
    "contextual": labels.get("contextual", "not run"),
}.items():
    g(key, value)

# %% [markdown]
# ## The parsing probe
#
# The probe is the biaffine parser of Dozat and Manning with its sentence encoder removed, so
# that all context must come from the representation (the paper's appendix A).
# Two small MLPs of the same architecture map each word's vector to a "head" view and a
# "dependent" view; a bilinear form scores every pair, and a softmax over the candidate heads
# of a word, the root included, gives the probability of each.
# Each word then takes its most probable head, with no constraint that the result be a tree, and
# the probe is scored by its unlabelled attachment score (UAS): the share of words, punctuation
# included, whose head is right.
#
# Complexity is measured as in {ref}`sec-ch33`: the label-shuffled control permutes the heads
# within each training sentence (the result is usually not a tree) and asks how many of these
# random heads the parser can memorise; the fully-shuffled control also shuffles the words of
# each sentence before the contextual model sees them.
# The paper's appendix adds linear parsers, a single bilinear form x<sub>i</sub>ᵀ U x<sub>j</sub>
# on unit-length vectors, with the nuclear norm of U as complexity and a cap of 700.
#
# Parsing probes are expensive: each step scores every pair of words in a batch of sentences.
# To fit the book's budget we train {glue:text}`ch34_n_configs:d` random MLP architectures
# (hidden size up to {glue:text}`ch34_max_hidden:d`) and {glue:text}`ch34_n_probes:d` linear
# parsers per representation on {glue:text}`ch34_n_train_sentences:,d` training sentences
# ({glue:text}`ch34_n_train_words:,d` words), with Adam at a learning rate of
# {glue:text}`ch34_lr:.3g` in batches of {glue:text}`ch34_batch_size:d` sentences for at most
# {glue:text}`ch34_max_steps:,d` updates, stop them early on {glue:text}`ch34_n_dev_sentences:,d`
# development sentences and score them on {glue:text}`ch34_n_test_sentences:,d` test sentences
# ({glue:text}`ch34_n_test_words:,d` words).
# Each control memorises the shuffled heads of {glue:text}`ch34_n_memorise:,d` training sentences
# for {glue:text}`ch34_memorise_steps:,d` updates.
# The paper trains 50 parsers of each kind on the whole training split until they converge, so
# our parsers are much weaker in absolute terms; the question here is how the representations
# compare under the same budget.

# %% tags=["remove-cell"]
mlp_runs = {
    name: parsing.parse_mlp_pareto(
        rep,
        splits,
        configs,
        conditions=["normal", *controls],
        shuffled_words=shuffled_words,
        seed=seed,
        options=options,
        n_memorise=n_memorise,
        memorise_steps=memorise_steps,
    )
    for name, rep in reps.items()
}
lin_runs = {}
if linear:
    lin_runs = {
        name: parsing.parse_linear_pareto(
            rep, splits, n_probes=n_probes, seed=seed, options=options, alpha_max=alpha_max
        )
        for name, rep in reps.items()
    }
mlp = combine(list(mlp_runs.values()))
g("n_memorise", int(mlp["n_memorise"].iloc[0]))
x = "label_shuffled" if "label_shuffled" in controls else "fully_shuffled"
g("x_name", x.replace("_", "-"))
titles = {"parse": "Dependency parsing"}

# %% [markdown]
# ## Pareto curves under memorisation complexity

# %% tags=["remove-cell"]
fig = frontiers.plot_frontiers(
    mlp,
    x,
    1.0,
    "memorisation: training UAS on shuffled heads",
    ylabel="test UAS",
    titles=titles,
    labels=labels,
    height=3.4,
)
g.figure("fig_label", fig)
hv = paper_comparison(frontiers.hypervolume_table(mlp.assign(family=x), x, 1.0), key="table2")


best = mlp.groupby("representation")["accuracy"].max()
for name in REPRESENTATIONS:
    g(f"hv_{name}", frontiers.hypervolume_of(hv, representation=name))
    g(f"paper_{name}", PAPER["table2"][name])
    g(f"best_{name}", 100 * float(best.get(name, np.nan)))
    g(f"best_paper_{name}", 100 * PAPER["best_mlp"]["parse"][name])
leaders = frontiers.main_leaders(frontiers.frontier_leaders(mlp, x, 1.0), 0.02)
g("leaders", frontiers.describe_leaders(leaders, labels, "{:.2f}"))
winner, _ = frontiers.simple_winner(mlp, x, simple_budget)
g("simple_mlp", labels.get(winner, "none") if winner else "none")
g("simple_budget", simple_budget)

# %% [markdown]
# ```{glue:figure} ch34_fig_label
# :name: fig-ch34-label
#
# Test UAS of MLP parsing probes against their memorisation complexity, as in the paper's
# Figs. 1 and 5. Dots: architectures; lines: frontiers.
# ```
#
# With {glue:text}`ch34_x_name` complexity the frontier is held by {glue:text}`ch34_leaders`.
# The best contextual parser reaches a test UAS of {glue:text}`ch34_best_contextual:.1f` %,
# against {glue:text}`ch34_best_fasttext:.1f` % for fastText,
# {glue:text}`ch34_best_onehot:.1f` % for one-hot and {glue:text}`ch34_best_random:.1f` % for
# random vectors (the paper's best English MLP parsers reach
# {glue:text}`ch34_best_paper_contextual:.1f`, {glue:text}`ch34_best_paper_fasttext:.1f`,
# {glue:text}`ch34_best_paper_onehot:.1f` and {glue:text}`ch34_best_paper_random:.1f` %).
#
# ## Hypervolumes

# %% tags=["remove-input"]
display(
    hv.assign(representation=hv["representation"].map(labels))
    .rename(
        columns={
            "hypervolume": "hypervolume (ours)",
            "paper": "Table 2 (paper, English)",
            "best_accuracy": "best UAS",
        }
    )
    .set_index("representation")[["hypervolume (ours)", "Table 2 (paper, English)", "best UAS"]]
    .style.format("{:.2f}", na_rep="–")
)

# %% [markdown]
# Our hypervolumes are {glue:text}`ch34_hv_contextual:.2f` (contextual),
# {glue:text}`ch34_hv_fasttext:.2f` (fastText), {glue:text}`ch34_hv_onehot:.2f` (one-hot) and
# {glue:text}`ch34_hv_random:.2f` (random); the paper's Table 2 has
# {glue:text}`ch34_paper_contextual:.2f` for BERT, {glue:text}`ch34_paper_fasttext:.2f`,
# {glue:text}`ch34_paper_onehot:.2f` and {glue:text}`ch34_paper_random:.2f`.

# %% tags=["remove-cell"]
if "contextual" in reps and set(controls) == {"label_shuffled", "fully_shuffled"}:
    ctx = mlp[mlp["representation"] == "contextual"]
    long = pd.concat(
        [
            ctx.assign(control="label-shuffled", memorisation=ctx["label_shuffled"]),
            ctx.assign(control="fully shuffled", memorisation=ctx["fully_shuffled"]),
        ],
        ignore_index=True,
    )
    fig = frontiers.plot_frontiers(
        long,
        "memorisation",
        1.0,
        "memorisation: training UAS on shuffled heads",
        ylabel="test UAS",
        hue="control",
        titles={"parse": labels["contextual"]},
        height=3.0,
    )
    diff = float((ctx["fully_shuffled"] - ctx["label_shuffled"]).mean())
else:
    fig = frontiers.placeholder_figure("needs the contextual model and both controls")
    diff = float("nan")
g.figure("fig_full", fig)
g("full_minus_label", 100 * diff)

# %% [markdown]
# ```{glue:figure} ch34_fig_full
# :name: fig-ch34-full
#
# The contextual model's parsers under the two controls (the paper's Fig. 6).
# ```
#
# Going from the real to the word-shuffled sentences changes the share of shuffled heads an
# architecture memorises by {glue:text}`ch34_full_minus_label:+.1f` points on average (a negative
# number means it memorises less); the paper found that its parsers memorise much less on
# shuffled input.
#
# ## Linear parsers under the nuclear norm

# %% tags=["remove-cell"]
if lin_runs:
    lin = combine(list(lin_runs.values()))
    fig = frontiers.plot_frontiers(
        lin,
        "complexity",
        max_norm,
        "nuclear norm of U",
        ylabel="test UAS",
        titles=titles,
        labels=labels,
        height=3.4,
    )
    lin_leaders = frontiers.main_leaders(
        frontiers.frontier_leaders(lin, "complexity", max_norm), 0.02 * max_norm
    )
    w, _ = frontiers.simple_winner(lin, "complexity", simple_fraction * max_norm)
    g("leaders_nuclear", frontiers.describe_leaders(lin_leaders, labels, "{:.0f}"))
    g("simple_nuclear", labels.get(w, "none") if w else "none")
    g("best_linear_max", 100 * float(lin["accuracy"].max()))
else:
    fig = frontiers.placeholder_figure("linear parsers were not run with these parameters")
    for key in ("leaders_nuclear", "simple_nuclear"):
        g(key, "not run")
    g("best_linear_max", float("nan"))
g.figure("fig_nuclear", fig)
g("simple_norm", simple_fraction * max_norm)
g("best_mlp_max", 100 * float(mlp["accuracy"].max()))

# %% [markdown]
# ```{glue:figure} ch34_fig_nuclear
# :name: fig-ch34-nuclear
#
# Test UAS of linear parsing probes against the nuclear norm of U, capped at
# 700 as in the paper's Figs. 7 and 8.
# ```
#
# Within the cap of {glue:text}`ch34_max_norm:.0f` the linear frontier is held by
# {glue:text}`ch34_leaders_nuclear`; among parsers with a norm of at most
# {glue:text}`ch34_simple_norm:.0f` the largest hypervolume goes to
# {glue:text}`ch34_simple_nuclear` (the paper's appendix C finds one-hot best there).
# The best linear parser reaches {glue:text}`ch34_best_linear_max:.1f` % UAS and the best MLP
# parser {glue:text}`ch34_best_mlp_max:.1f` %.
#
# ## Contextual against type-level
#
# The paper's conclusion rests on the gap between contextual and type-level parsers.
# We take the contextual MLP parser with the best development UAS and the best type-level MLP
# parser by the same criterion, and compare them on the same test words with McNemar's exact
# test, and on the same test sentences with a paired bootstrap of the UAS (sentences resampled
# and weighted by their length, so that the statistic is the corpus UAS; words of one sentence
# are not independent, which McNemar's test assumes).

# %% tags=["remove-cell"]
non_ctx = [n for n in reps if n != "contextual"]
comparison = None
if "contextual" in reps and non_ctx:
    i_ctx = int(mlp_runs["contextual"].table["dev_accuracy"].idxmax())
    dev_best = {n: float(mlp_runs[n].table["dev_accuracy"].max()) for n in non_ctx}
    rival = max(dev_best, key=dev_best.get)
    i_rival = int(mlp_runs[rival].table["dev_accuracy"].idxmax())
    a = mlp_runs["contextual"].correct[i_ctx]
    b = mlp_runs[rival].correct[i_rival]
    comparison = compare(a, b, labels["contextual"], labels[rival])
    groups = mlp_runs["contextual"].groups
    lengths = np.bincount(groups)
    boot = bootstrap.paired_bootstrap(
        np.bincount(groups, weights=a) / lengths,
        np.bincount(groups, weights=b) / lengths,
        n_boot=n_boot,
        seed=seed,
        weights=lengths,
        name_a=labels["contextual"],
        name_b=labels[rival],
    )
    g("rival", labels[rival])
    g("compare", comparison.summary())
    g("uas_gap", 100 * boot.diff)
    g("uas_gap_low", 100 * boot.low)
    g("uas_gap_high", 100 * boot.high)
else:
    g("rival", "not run")
    g("compare", "Not run (needs the contextual and a type-level representation).")
    for key in ("uas_gap", "uas_gap_low", "uas_gap_high"):
        g(key, float("nan"))

# %% [markdown]
# The strongest type-level rival by development UAS is {glue:text}`ch34_rival`.
# {glue:text}`ch34_compare`
# The paired bootstrap puts the difference in corpus UAS at {glue:text}`ch34_uas_gap:.1f` points
# (95 % interval {glue:text}`ch34_uas_gap_low:.1f` to {glue:text}`ch34_uas_gap_high:.1f`).

# %% tags=["remove-cell"]
others = [frontiers.hypervolume_of(hv, representation=n) for n in non_ctx]
ctx_hv = frontiers.hypervolume_of(hv, representation="contextual")
parse_gap = ctx_hv - max(others) if others else float("nan")
g("hv_gap_parse", parse_gap)
toy = {}
saved = load_results("build/results", ["33_memorisation_complexity"]).get(
    "33_memorisation_complexity"
)
if saved is not None:
    settings = {"model": model, "layer": layer, "pooling": pooling, "treebank": tb.name}
    if all(saved.get(k) == v for k, v in settings.items()):
        for t in ("posl", "dal"):
            v = saved.get(f"hv_gap_{t}")
            if isinstance(v, int | float) and np.isfinite(v):
                toy[t] = float(v)
g("hv_gap_posl", toy.get("posl", float("nan")))
g("hv_gap_dal", toy.get("dal", float("nan")))
paper_t2 = PAPER["table2"]
g("paper_gap_parse", paper_t2["contextual"] - max(paper_t2[n] for n in NON_CONTEXTUAL))
for t in ("posl", "dal"):
    t3 = PAPER["table3"][(t, "label_shuffled")]
    g(f"paper_gap_{t}", t3["contextual"] - max(t3[n] for n in NON_CONTEXTUAL))
if comparison is None:
    separation = frontiers.verdict(None, "needs the contextual and a type-level representation")
else:
    better = comparison.significant and comparison.diff > 0 and boot.low > 0
    wider = parse_gap > max(toy.values()) if toy else None
    detail = f"hypervolume gap on parsing {parse_gap:+.2f}"
    detail += f", at most {max(toy.values()):+.2f} on POSL and DAL" if toy else ""
    detail += f"; best contextual against best type-level parser: {comparison.verdict}"
    if not toy:
        detail += "; the toy-task gaps of the memorisation chapter were not available"
    separation = frontiers.verdict(bool(better and parse_gap > 0 and wider is not False), detail)
g("verdict_parsing", separation)
g(
    "verdict_onehot",
    frontiers.verdict(
        None if "onehot" not in reps else winner == "onehot",
        f"among MLP parsers that memorise at most {simple_budget:.2f} of the shuffled heads "
        f"the largest hypervolume goes to {labels.get(winner, 'none') if winner else 'none'}; "
        f"among linear parsers with a nuclear norm of at most {simple_fraction * max_norm:.0f}, "
        f"to {g.values['simple_nuclear']}",
    ),
)
g.save("build/results/34_dependency_parsing.json")

# %% [markdown]
# ## Is parsing the harder test the paper wants?
#
# The paper's argument compares gaps: on parsing, BERT's label-shuffled hypervolume exceeds the
# best type-level one by {glue:text}`ch34_paper_gap_parse:.2f`, against
# {glue:text}`ch34_paper_gap_posl:.2f` on POSL and {glue:text}`ch34_paper_gap_dal:.2f` on DAL.
# In our run the parsing gap is {glue:text}`ch34_hv_gap_parse:+.2f`; the memorisation chapter
# of this build measured {glue:text}`ch34_hv_gap_posl:+.2f` on POSL and
# {glue:text}`ch34_hv_gap_dal:+.2f` on DAL (read from that chapter's saved results; shown as nan
# when it was not run with the same model, layer, pooling and treebank).
#
# ## Verdicts
#
# - **Which representations are Pareto-dominant.** With {glue:text}`ch34_x_name` complexity,
#   {glue:text}`ch34_leaders`; under the nuclear norm, {glue:text}`ch34_leaders_nuclear`.
# - **"One-hot wins for simple probes"** {glue:text}`ch34_verdict_onehot`.
# - **"Parsing separates contextual from non-contextual"** {glue:text}`ch34_verdict_parsing`.
#
# Our parsers see a fraction of the paper's data and updates, and our fastText is trained on the
# treebank alone, so every absolute number here is lower than the paper's; the verdicts compare
# representations under one and the same budget.
