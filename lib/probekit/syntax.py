"""Experiment glue for Part I (Hall Maudslay et al. 2020, "A Tale of a Probe and a Parser").

Chapter 11 (§2, syntactic distance and Prop. 1): picking and drawing an example tree with its
distance matrix, the Prop. 1 round trip over a whole split, and how syntactic distance relates
to linear distance.

Chapter 12 (§3–5, probe against parser): per-sentence UUAS / DSpr / DSpr_P+FW of trained probes,
the random search per model, training both models on every layer and seed, and the paired
comparison of the two models over test sentences.

The trees, metrics and probes themselves live in :mod:`probekit.trees` and
:mod:`probekit.probes.structural`; this module only strings them together. Sentences are
:class:`probekit.data.Sentence`; embeddings are anything with ``offsets`` (S + 1,) and
``layer(k)`` (N_words, d), such as :class:`probekit.embed.Embeddings`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from probekit import trees as T
from probekit.errors import ParameterError
from probekit.probes.structural import (
    DistanceProbe,
    SearchSpace,
    predict_distances,
    random_search,
    train_distance_probe,
)
from probekit.stats import PairedBootstrap, paired_bootstrap

KINDS = ("structural", "perceptron")
# Names used in the book's tables, figures and verdicts.
LABELS = {"structural": "probe", "perceptron": "parser"}
METRICS = ("uuas", "dspr", "dspr_pfw")
# Hewitt & Manning's DSpr averages over sentence lengths 5..50 (reference-repos.md §4.6).
DSPR_MIN_LEN, DSPR_MAX_LEN = 5, 50

__all__ = [
    "CLAIMS",
    "DSPR_MAX_LEN",
    "DSPR_MIN_LEN",
    "KINDS",
    "LABELS",
    "METRICS",
    "EvalSet",
    "best_layer",
    "check_claims",
    "compare_models",
    "comparison_layer",
    "distance_heatmap",
    "distance_pairs",
    "distance_summary",
    "draw_arcs",
    "evaluate",
    "example_figure",
    "farthest_pair",
    "layer_figure",
    "layer_vectors",
    "length_weights",
    "linear_baselines",
    "linear_vs_syntactic_figure",
    "monotone_transform",
    "overall_verdict",
    "per_sentence_scores",
    "pfw_figure",
    "pick_example",
    "resolve_layer",
    "results_table",
    "round_trip_counts",
    "search",
    "search_space",
    "seed_differences",
    "seed_scores",
    "summarise",
    "torch_threads",
    "train_layers",
    "tree_path",
]


# --------------------------------------------------------------------------------------------
# Chapter 11: one example tree


def pick_example(sentences: Sequence, sent_id: str = "", length: int = 12):
    """The sentence whose ``sent_id`` is given, else the first of ``length`` words.

    With no sentence of exactly ``length`` words, the first of the nearest length is taken, so
    any treebank yields an example. Raises ParameterError for an unknown ``sent_id``.
    """
    if not sentences:
        raise ParameterError("sentences", "no sentences to pick an example from")
    if sent_id:
        for s in sentences:
            if s.sent_id == sent_id:
                return s
        raise ParameterError(
            "example_id",
            f"no sentence has sent_id {sent_id!r}",
            "leave it empty to pick a sentence by length",
        )
    if length < 2:
        raise ParameterError("example_length", f"must be >= 2, got {length}")
    gaps = np.abs(np.array([len(s) for s in sentences]) - length)
    return sentences[int(np.argmin(gaps))]


def tree_path(heads: np.ndarray, i: int, j: int) -> np.ndarray:
    """Words on the tree path from word i to word j (0-based, both ends included).

    Hall Maudslay et al. 2020, §2 and Fig. 1: Δ_t(w_i, w_j) is the number of edges on this path,
    i.e. ``len(path) - 1``. ``heads``: 1-based (n,), 0 = root. Returns int64 (Δ + 1,).
    """
    parents = T.parents_from_heads(heads)
    n = parents.size
    if not (0 <= i < n and 0 <= j < n):
        raise ParameterError("i", f"words must lie in 0..{n - 1}, got {i} and {j}")

    def up(v: int) -> list[int]:
        chain = [v]
        while parents[chain[-1]] >= 0:
            chain.append(int(parents[chain[-1]]))
        return chain

    up_i, up_j = up(i), up(j)
    common = set(up_i) & set(up_j)
    meet = next(v for v in up_i if v in common)
    left = up_i[: up_i.index(meet) + 1]
    right = up_j[: up_j.index(meet)][::-1]
    return np.array(left + right, dtype=np.int64)


def farthest_pair(dist: np.ndarray) -> tuple[int, int]:
    """The word pair (i < j) at the largest distance of an (n, n) matrix; ties: first row-major."""
    d = np.asarray(dist)
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[0] != d.shape[1]:
        raise ParameterError("dist", f"expected an (n, n) matrix with n >= 2, got {d.shape}")
    upper = np.where(np.triu(np.ones(d.shape, bool), k=1), d, -np.inf)
    i, j = np.unravel_index(int(np.argmax(upper)), d.shape)
    return int(i), int(j)


# --------------------------------------------------------------------------------------------
# Chapter 11: Proposition 1 over a corpus


def monotone_transform(dist: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random strictly increasing map applied to the integer distances of (n, n) ``dist``.

    Prop. 1's remark (Hall Maudslay et al. 2020, §2): only the ordering of the distances is
    needed to recover the tree. Value v goes to Σ_{u <= v} g_u with g_u ~ U(0.1, 10), so the
    zero diagonal is kept and the order of the distances, not their spacing, survives.
    """
    d = np.asarray(dist, dtype=np.int64)
    steps = rng.uniform(0.1, 10.0, size=int(d.max(initial=0)) + 1)
    steps[0] = 0.0
    return np.cumsum(steps)[d]


def round_trip_counts(sentences: Sequence, seed: int) -> dict[str, int]:
    """Prop. 1 (Hall Maudslay et al. 2020, §2) checked on every tree of ``sentences``.

    Counts, over the trees:
    - ``trees``: trees checked;
    - ``round_trip``: :func:`probekit.trees.round_trip` holds (pairs at distance 1 are the
      edges; Prim's MST of the distances has the same edges; the recovered tree has the same
      distances);
    - ``ordering_only``: Prim's MST of a random strictly increasing transform of the distances
      (:func:`monotone_transform`, drawn from ``numpy.random.default_rng(seed)``) still has
      the gold edges;
    - ``floyd_warshall``: Floyd–Warshall on the adjacency matrix gives the same distances as
      the O(n^2) breadth-first computation.
    """
    rng = np.random.default_rng(seed)
    counts = {"trees": 0, "round_trip": 0, "ordering_only": 0, "floyd_warshall": 0}
    heads = [s.heads for s in sentences]
    for h, dist in zip(heads, T.tree_distances_all(heads), strict=True):
        edges = T.edges_from_heads(h)
        counts["trees"] += 1
        counts["round_trip"] += bool(T.round_trip(h))
        mst = T.prim_mst(monotone_transform(dist, rng))
        counts["ordering_only"] += bool(np.array_equal(T.edges_from_parents(mst), edges))
        counts["floyd_warshall"] += bool(np.array_equal(T.floyd_warshall(dist == 1), dist))
    return counts


def distance_pairs(sentences: Sequence) -> pd.DataFrame:
    """Counts of word pairs (i < j) by linear distance j − i and syntactic distance Δ_t.

    One row per occurring (linear, syntactic) combination, columns ``linear``, ``syntactic``,
    ``pairs``; over all sentences of at least two words.
    """
    dists = T.tree_distances_all([s.heads for s in sentences])
    lin, syn = [], []
    for d in dists:
        i, j = np.triu_indices(d.shape[0], k=1)
        lin.append(j - i)
        syn.append(d[i, j])
    if not lin:
        return pd.DataFrame(columns=["linear", "syntactic", "pairs"])
    df = pd.DataFrame({"linear": np.concatenate(lin), "syntactic": np.concatenate(syn)})
    return (
        df.value_counts()
        .rename("pairs")
        .reset_index()
        .sort_values(["linear", "syntactic"], ignore_index=True)
    )


def distance_summary(pairs: pd.DataFrame, far: int = 10) -> dict[str, float]:
    """Two numbers from a :func:`distance_pairs` table.

    ``adjacent_arc_share``: % of adjacent word pairs (|i − j| = 1) joined by an arc. A sentence
    of n words has n − 1 arcs and n − 1 adjacent pairs, so this is also the % of arcs that join
    adjacent words. ``mean_syntactic_far``: mean Δ_t (edges) of the pairs ``far`` words apart
    (NaN if there are none).
    """
    lin, syn, w = (pairs[c].to_numpy() for c in ("linear", "syntactic", "pairs"))
    adjacent, at_far = lin == 1, lin == far
    return {
        "adjacent_arc_share": (
            100.0 * float(w[adjacent & (syn == 1)].sum() / w[adjacent].sum())
            if adjacent.any()
            else float("nan")
        ),
        "mean_syntactic_far": (
            float(np.average(syn[at_far], weights=w[at_far])) if at_far.any() else float("nan")
        ),
    }


# --------------------------------------------------------------------------------------------
# Chapter 11: figures


def _arc_height(span: int) -> float:
    """Apex height of an arc over ``span`` words: longer arcs rise higher, sublinearly."""
    return 0.5 + 0.42 * (span - 1) ** 0.85


def draw_arcs(ax, sentence, path: Sequence[int] = (), color_path: str = "C3") -> None:
    """Draw a dependency tree as arcs above the words (one arc per head → dependent).

    Arc height grows with the arc's linear length; the root gets a vertical line. Edges whose
    two ends are consecutive on ``path`` (0-based words, e.g. from :func:`tree_path`) are drawn
    in ``color_path`` and the path's end words in bold, as in Fig. 1 of Hall Maudslay et al.
    2020. Draws on matplotlib ``ax``; ``sentence`` is a :class:`probekit.data.Sentence`.
    """
    from matplotlib.patches import Arc

    n = len(sentence)
    path = [int(v) for v in path]
    on_path = {frozenset(p) for p in zip(path[:-1], path[1:], strict=True)}
    ends = set(path[:1]) | set(path[-1:])
    top = 1.0
    base = 0.1
    for dep, head in enumerate(sentence.heads.tolist()):
        if head == 0:
            continue
        h = head - 1
        span = abs(h - dep)
        height = _arc_height(span)
        top = max(top, height)
        hot = frozenset((h, dep)) in on_path
        color, lw = (color_path, 2.0) if hot else ("0.4", 0.9)
        ax.add_patch(
            Arc(((h + dep) / 2, base), span, 2 * height, theta1=0, theta2=180, color=color, lw=lw)
        )
        # An arrowhead at the dependent end says which word is the head.
        ax.annotate(
            "",
            xy=(dep, base),
            xytext=(dep, base + 0.12),
            arrowprops={
                "arrowstyle": "-|>,head_length=0.4,head_width=0.2",
                "color": color,
                "lw": 0,
            },
        )
        ax.text(
            (h + dep) / 2,
            base + height,
            str(sentence.deprel[dep]),
            ha="center",
            va="center",
            fontsize=5.5,
            color=color,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.9},
        )
    root = int(np.flatnonzero(sentence.heads == 0)[0])
    ax.plot([root, root], [base, top + 0.35], color="0.2", lw=1)
    ax.text(root, top + 0.4, "root", ha="center", va="bottom", fontsize=6, color="0.2")
    rotate = n > 8
    for k, form in enumerate(sentence.forms.tolist()):
        ax.text(
            k,
            -0.05,
            form,
            ha="right" if rotate else "center",
            va="top",
            fontsize=7.5,
            rotation=40 if rotate else 0,
            rotation_mode="anchor",
            color=color_path if k in ends else "black",
            fontweight="bold" if k in ends else "normal",
        )
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(-1.6 if rotate else -0.6, top + 0.8)
    ax.axis("off")


def distance_heatmap(
    ax, dist: np.ndarray, words: Sequence[str], mark: tuple[int, int] | None = None
) -> None:
    """The (n, n) syntactic distance matrix as an annotated heatmap on ``ax``.

    ``mark`` = (i, j) outlines that cell and its mirror image.
    """
    import seaborn as sns
    from matplotlib.patches import Rectangle

    d = np.asarray(dist)
    sns.heatmap(
        d,
        ax=ax,
        annot=len(words) <= 20,
        fmt="d",
        cmap="mako_r",
        square=True,
        cbar_kws={"shrink": 0.6},
        xticklabels=list(words),
        yticklabels=list(words),
        annot_kws={"fontsize": 5.5},
        linewidths=0.3,
        linecolor="white",
    )
    cbar = ax.collections[0].colorbar
    cbar.set_label("syntactic distance (edges)", fontsize=7)
    cbar.set_ticks(np.arange(0, int(d.max(initial=0)) + 1))
    cbar.ax.tick_params(labelsize=6)
    ax.tick_params(labelsize=6.5, length=0)
    ax.set_xticklabels(ax.get_xticklabels(), rotation=90)
    ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
    if mark is not None:
        i, j = mark
        for r, c in ((i, j), (j, i)):
            ax.add_patch(Rectangle((c, r), 1, 1, fill=False, edgecolor="C3", lw=1.8))


def example_figure(sentence, dist: np.ndarray, path: Sequence[int]):
    """Chapter 11's figure: the tree as arcs (left) beside its distance matrix (right).

    ``dist``: the sentence's (n, n) tree distances; ``path``: the words of one highlighted
    path (:func:`tree_path`), whose end pair is outlined in the matrix. Returns the Figure.
    """
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.3), width_ratios=[1.6, 1])
    draw_arcs(left, sentence, path)
    left.set_title("Dependency tree", fontsize=9)
    pair = (int(path[0]), int(path[-1])) if len(path) > 1 else None
    distance_heatmap(right, dist, sentence.forms.tolist(), pair)
    right.set_title("Syntactic distance matrix", fontsize=9)
    return fig


def linear_vs_syntactic_figure(pairs: pd.DataFrame, max_linear: int = 15):
    """Mean syntactic distance (± SD) of word pairs by their linear distance, from the
    :func:`distance_pairs` table, with the identity line Δ = |i − j| for reference."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    df = pairs[pairs["linear"] <= max_linear]
    grouped = df.groupby("linear")
    mean = grouped.apply(
        lambda g: np.average(g["syntactic"], weights=g["pairs"]), include_groups=False
    )
    var = grouped.apply(
        lambda g: np.average(
            (g["syntactic"] - np.average(g["syntactic"], weights=g["pairs"])) ** 2,
            weights=g["pairs"],
        ),
        include_groups=False,
    )
    sd = np.sqrt(var)
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.6, 2.8))
    color = plots.colors(1)[0]
    ax.plot(mean.index, mean.values, marker="o", color=color, label="mean syntactic distance")
    ax.fill_between(mean.index, mean - sd, mean + sd, color=color, alpha=0.2, label="± 1 SD")
    ax.plot(mean.index, mean.index, color="grey", ls=":", lw=1, label="syntactic = linear")
    ax.set(xlabel="linear distance |i − j| (words)", ylabel="syntactic distance (edges)")
    ax.legend(fontsize=7)
    return fig


# --------------------------------------------------------------------------------------------
# Chapter 12: data and metrics


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` torch intra-op threads, then restore the previous number.

    The probes' matrix products are small (batch × ≤50 words × d), so a second thread mostly
    waits on synchronisation; on a shared 2-core machine one thread trained ~5–20× faster in
    our measurements. Embedding (large products) keeps the default.
    """
    if n < 1:
        raise ParameterError("threads", f"must be >= 1, got {n}")
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def layer_vectors(emb, layer: int) -> list[np.ndarray]:
    """Per-sentence float32 (n_s, d) word vectors of one layer (one read of the whole layer)."""
    block = np.asarray(emb.layer(layer), dtype=np.float32)
    offsets = np.asarray(emb.offsets)
    return [block[offsets[s] : offsets[s + 1]] for s in range(offsets.size - 1)]


def resolve_layer(layer: int, n_layers: int, name: str = "layer") -> int:
    """``layer`` as an index in 0..n_layers − 1; −1 stands for the middle layer n_layers // 2."""
    if layer == -1:
        return n_layers // 2
    if not 0 <= layer < n_layers:
        raise ParameterError(
            name, f"layer {layer} outside 0..{n_layers - 1}", "use -1 for the middle layer"
        )
    return int(layer)


@dataclass(frozen=True)
class EvalSet:
    """Gold data of one split for scoring: heads, UUAS word masks, gold distances, lengths.

    ``keep[s]`` is bool (n_s,): words that count for UUAS (all words, or non-punctuation by
    UPOS when ``exclude_punct``; Hewitt & Manning filter PTB punctuation XPOS, which does
    nothing on treebanks without PTB tags, reference-repos.md §4.6). DSpr always uses every
    word, as in Hewitt & Manning's code.
    """

    heads: list[np.ndarray]
    keep: list[np.ndarray]
    gold: list[np.ndarray]
    lengths: np.ndarray

    @classmethod
    def build(cls, sentences: Sequence, exclude_punct: bool = True) -> EvalSet:
        heads = [s.heads for s in sentences]
        keep = [
            T.keep_non_punct(s.upos) if exclude_punct else np.ones(len(s), bool) for s in sentences
        ]
        return cls(
            heads,
            keep,
            T.tree_distances_all(heads),
            np.array([len(h) for h in heads], dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.heads)


def evaluate(pred_dists: Sequence[np.ndarray], gold: EvalSet) -> pd.DataFrame:
    """Per-sentence scores of predicted (n_s, n_s) distance matrices against ``gold``.

    Hall Maudslay et al. 2020, §4.2. One row per sentence, columns: ``length``;
    ``uuas_correct`` and ``uuas_total`` (undirected edges of Prim's tree that are gold, and
    gold edges, over the kept words); ``uuas`` (their ratio, NaN without gold edges); ``dspr``
    (mean row Spearman ρ of the predicted distances); ``dspr_pfw`` (the same after Prim then
    tree distances, i.e. DSpr_P+FW).
    """
    if len(pred_dists) != len(gold):
        raise ParameterError("pred_dists", f"{len(pred_dists)} matrices for {len(gold)} sentences")
    correct, total = T.uuas_counts(pred_dists, gold.heads, gold.keep)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_uuas = np.where(total > 0, correct / np.maximum(total, 1), np.nan)
    return pd.DataFrame(
        {
            "length": gold.lengths,
            "uuas_correct": correct,
            "uuas_total": total,
            "uuas": per_uuas,
            "dspr": T.dspr_per_sentence(pred_dists, gold.gold),
            "dspr_pfw": T.dspr_per_sentence(T.prim_fw_distances(pred_dists), gold.gold),
        }
    )


def length_weights(
    lengths: np.ndarray, min_len: int = DSPR_MIN_LEN, max_len: int = DSPR_MAX_LEN
) -> np.ndarray:
    """Per-sentence weights 1 / #(sentences of that length) inside ``min_len..max_len``, else 0.

    A weighted mean of per-sentence DSpr with these weights is the unweighted mean over lengths
    of the per-length means, i.e. DSpr as Hewitt & Manning 2019 (§3.1) report it. (S,) -> (S,).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    in_range = (lengths >= min_len) & (lengths <= max_len)
    counts = np.bincount(lengths[in_range], minlength=int(lengths.max(initial=0)) + 1)
    w = np.zeros(lengths.size)
    w[in_range] = 1.0 / counts[lengths[in_range]]
    return w


def summarise(per_sentence: pd.DataFrame) -> dict[str, float]:
    """Corpus-level UUAS (micro average), DSpr and DSpr_P+FW (means over lengths 5..50).

    Hall Maudslay et al. 2020, §4.2; the same values as :func:`probekit.trees.uuas`,
    :func:`~probekit.trees.dspr` and :func:`~probekit.trees.dspr_prim_fw`, from the rows of
    :func:`evaluate`.
    """
    total = per_sentence["uuas_total"].sum()
    out = {"uuas": float(per_sentence["uuas_correct"].sum() / total) if total else float("nan")}
    w = length_weights(per_sentence["length"].to_numpy())
    used = w > 0
    for metric in ("dspr", "dspr_pfw"):
        # Sentences outside 5..50 words have weight 0 and may be NaN (one-word sentences).
        values = per_sentence[metric].to_numpy()[used]
        out[metric] = float(np.sum(w[used] * values) / w[used].sum()) if used.any() else np.nan
    return out


def linear_baselines(gold: EvalSet) -> dict[str, float]:
    """Scores of the linear-chain baseline (Hall Maudslay & Cotterell 2021, §4) on ``gold``.

    The predicted distance is the linear distance |i − j|: its spanning tree is the chain of
    adjacent words, so UUAS is that of :func:`probekit.trees.linear_chain_heads`, and its DSpr
    measures how far syntactic distance follows word order. Keys as :func:`summarise`.
    """
    preds = [
        np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(np.float64)
        for n in gold.lengths
    ]
    return summarise(evaluate(preds, gold))


# --------------------------------------------------------------------------------------------
# Chapter 12: search, training, comparison


def search_space(
    ranks: Sequence[int], d: int, lr_min: float, lr_max: float, dropout_max: float
) -> SearchSpace:
    """The random-search space (Hall Maudslay et al. 2020, App. A) for input dimension ``d``.

    ``ranks`` lists the rank choices; 0 means full rank (d), larger values are capped at d.
    """
    if not ranks:
        raise ParameterError("ranks", "needs at least one rank", "e.g. [32, 64, 0]")
    if any(r < 0 for r in ranks):
        raise ParameterError("ranks", f"ranks must be >= 0 (0 means full rank), got {ranks}")
    choices = tuple(sorted({d if r == 0 else min(int(r), d) for r in ranks}))
    return SearchSpace(
        ranks=choices, lr_min=lr_min, lr_max=lr_max, dropout_min=0.0, dropout_max=dropout_max
    )


def search(
    train_embs: Sequence[np.ndarray],
    train_heads: Sequence[np.ndarray],
    dev_embs: Sequence[np.ndarray],
    dev_heads: Sequence[np.ndarray],
    space: SearchSpace,
    n_trials: int,
    seed: int,
    kinds: Sequence[str] = KINDS,
    threads: int = 1,
    **train_kwargs,
) -> tuple[dict[str, dict[str, float]], pd.DataFrame]:
    """Random search of (rank, lr, dropout) by dev loss for each kind (App. A of the paper).

    Both kinds draw the same ``n_trials`` configurations (same ``seed``), so they get the same
    chances. Returns the chosen {rank, lr, dropout} per kind and a table of every trial
    (``kind``, ``trial``, ``rank``, ``lr``, ``dropout``, ``seed``, ``dev_loss``, ``epochs``,
    ``chosen``). Inputs as :func:`probekit.probes.structural.random_search`.
    """
    configs, rows = {}, []
    with torch_threads(threads):
        for kind in kinds:
            result = random_search(
                kind,
                train_embs,
                train_heads,
                dev_embs,
                dev_heads,
                space,
                n_trials=n_trials,
                seed=seed,
                **train_kwargs,
            )
            best = result.best.config
            configs[kind] = {k: best[k] for k in ("rank", "lr", "dropout")}
            for t, trial in enumerate(result.trials):
                chosen = all(trial[k] == best[k] for k in ("rank", "lr", "dropout", "seed"))
                rows.append({"kind": kind, "trial": t, **trial, "chosen": chosen})
    return configs, pd.DataFrame(rows)


def train_layers(
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev: EvalSet,
    configs: Mapping[str, Mapping[str, float]],
    layers: Sequence[int],
    seeds: Sequence[int],
    threads: int = 1,
    **train_kwargs,
) -> tuple[pd.DataFrame, dict[tuple[str, int, int], DistanceProbe]]:
    """Train every kind of ``configs`` on every layer and seed; score each on the dev set.

    Hall Maudslay et al. 2020, §3–4: both models get the same representations (layer by layer,
    extending the paper's final-layer study), each with its own searched {rank, lr, dropout}.
    ``train_kwargs`` go to :func:`probekit.probes.structural.train_distance_probe` (e.g.
    ``max_epochs``, ``patience``). Returns a table with one row per (kind, layer, seed):
    ``epochs``, ``best_epoch``, ``dev_loss`` and the :func:`summarise` scores on ``dev``; and
    the trained probes keyed by (kind, layer, seed).
    """
    rows, probes = [], {}
    with torch_threads(threads):
        for layer in layers:
            x_train, x_dev = layer_vectors(train_emb, layer), layer_vectors(dev_emb, layer)
            for kind, config in configs.items():
                for seed in seeds:
                    result = train_distance_probe(
                        kind,
                        x_train,
                        train_heads,
                        x_dev,
                        dev.heads,
                        rank=int(config["rank"]),
                        lr=float(config["lr"]),
                        dropout=float(config["dropout"]),
                        seed=seed,
                        **train_kwargs,
                    )
                    scores = summarise(evaluate(predict_distances(result.probe, x_dev), dev))
                    rows.append(
                        {
                            "kind": kind,
                            "layer": layer,
                            "seed": seed,
                            "epochs": len(result.history),
                            "best_epoch": result.best_epoch,
                            "dev_loss": result.best_dev_loss,
                            **scores,
                        }
                    )
                    probes[(kind, layer, seed)] = result.probe
    return pd.DataFrame(rows), probes


def per_sentence_scores(
    probes: Mapping[tuple[str, int, int], DistanceProbe], test_emb, test: EvalSet, layer: int
) -> pd.DataFrame:
    """:func:`evaluate` of every probe trained on ``layer``, stacked: one row per
    (kind, seed, sentence) with a ``sentence`` index column."""
    chosen = {(kind, seed): p for (kind, lay, seed), p in probes.items() if lay == layer}
    if not chosen:
        raise ParameterError("layer", f"no probe was trained on layer {layer}")
    x_test = layer_vectors(test_emb, layer)
    frames = []
    for (kind, seed), probe in chosen.items():
        df = evaluate(predict_distances(probe, x_test), test)
        frames.append(df.assign(kind=kind, seed=seed, sentence=np.arange(len(df))))
    return pd.concat(frames, ignore_index=True)


def edge_outcomes(pred_dists: Sequence[np.ndarray], gold: EvalSet) -> np.ndarray:
    """bool (E,): for every gold edge of every sentence, whether the predicted tree has it.

    The per-item outcomes behind UUAS (Hall Maudslay et al. 2020, §4.2), in a fixed order
    (sentence, then gold edge (i, j) with i < j), so two predictions for the same trees can be
    compared edge by edge with McNemar's test (:func:`probekit.power.compare`). Same word
    masks and conventions as :func:`probekit.trees.uuas_counts`: ``outcomes.sum()`` is its
    ``correct.sum()`` and ``outcomes.size`` its ``total.sum()``.
    """
    if len(pred_dists) != len(gold):
        raise ParameterError("pred_dists", f"{len(pred_dists)} matrices for {len(gold)} sentences")
    pred_sub, gold_sub = [], []
    for p, g, k in zip(pred_dists, gold.gold, gold.keep, strict=True):
        idx = np.flatnonzero(k)
        pred_sub.append(np.asarray(p, dtype=np.float64)[np.ix_(idx, idx)])
        gold_sub.append(np.asarray(g, dtype=np.float64)[np.ix_(idx, idx)])
    out: list[bool] = []
    for pp, gp in zip(T.prim_mst_all(pred_sub), T.prim_mst_all(gold_sub), strict=True):
        predicted = T.edge_set(T.edges_from_parents(pp))
        out += [e in predicted for e in sorted(T.edge_set(T.edges_from_parents(gp)))]
    return np.array(out, dtype=bool)


def edge_comparison(
    probes: Mapping[tuple[str, int, int], DistanceProbe],
    test_emb,
    test: EvalSet,
    layer: int,
    seed: int,
):
    """McNemar's test with its power (:func:`probekit.power.compare`) of the parser's against
    the probe's gold-edge outcomes (:func:`edge_outcomes`) on the same test trees, one seed.

    The book's common comparison tool (Zhu et al. 2022, §3.5). Edges of one sentence are not
    independent, so the p-value and the power are optimistic; the sentence bootstrap of
    :func:`compare_models` is the primary evidence."""
    from probekit.power import compare

    x_test = layer_vectors(test_emb, layer)
    outcomes = [
        edge_outcomes(predict_distances(probes[(kind, layer, seed)], x_test), test)
        for kind in ("perceptron", "structural")
    ]
    return compare(*outcomes, "parser", "probe")


def compare_models(
    per_sentence: pd.DataFrame,
    metric: str,
    a: str,
    b: str,
    n_boot: int = 10_000,
    seed: int = 0,
    ci: float = 0.95,
) -> PairedBootstrap:
    """Paired bootstrap over test sentences of ``metric``(a) − ``metric``(b).

    Hall Maudslay et al. 2020, §5 compare the models by corpus-level UUAS and DSpr; we attach a
    95 % CI by resampling sentences (:func:`probekit.stats.paired_bootstrap`). Each sentence's
    score is first averaged over the seeds (so seed noise shrinks and sentences stay the unit).
    Weights make the statistic the corpus-level metric: gold-edge counts for ``"uuas"``
    (micro average); 1 / #(sentences of that length) within 5..50 words for ``"dspr"`` and
    ``"dspr_pfw"``. Sentences undefined for either model (NaN) are left out.
    ``per_sentence``: rows of :func:`per_sentence_scores`; ``a``, ``b``: kinds.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    for name, kind in (("a", a), ("b", b)):
        if kind not in set(per_sentence["kind"]):
            raise ParameterError(name, f"no rows for kind {kind!r}")
    wide = per_sentence.pivot_table(
        index="sentence", columns="kind", values=metric, aggfunc="mean", dropna=False
    )
    info = per_sentence.groupby("sentence")[["length", "uuas_total"]].first().loc[wide.index]
    x, y = wide[a].to_numpy(), wide[b].to_numpy()
    ok = np.isfinite(x) & np.isfinite(y)
    if metric == "uuas":
        totals = info["uuas_total"].to_numpy(dtype=np.float64)
        ok &= totals > 0
        weights = totals[ok]
    else:
        lengths = info["length"].to_numpy()
        ok &= (lengths >= DSPR_MIN_LEN) & (lengths <= DSPR_MAX_LEN)
        weights = length_weights(lengths[ok])
    return paired_bootstrap(
        x[ok],
        y[ok],
        n_boot=n_boot,
        seed=seed,
        ci=ci,
        weights=weights,
        name_a=LABELS.get(a, a),
        name_b=LABELS.get(b, b),
    )


def best_layer(scores: pd.DataFrame, metric: str = "uuas") -> int:
    """The layer with the highest dev ``metric`` averaged over kinds and seeds (ties: lowest).

    ``scores``: the table of :func:`train_layers`.
    """
    if metric not in METRICS:
        raise ParameterError("metric", f"must be one of {METRICS}, got {metric!r}")
    means = scores.groupby("layer")[metric].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


def seed_scores(per_sentence: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores (:func:`summarise`) per (kind, seed) from :func:`per_sentence_scores`
    rows; columns ``kind``, ``seed``, ``uuas``, ``dspr``, ``dspr_pfw``."""
    rows = [
        {"kind": kind, "seed": seed, **summarise(df)}
        for (kind, seed), df in per_sentence.groupby(["kind", "seed"], sort=True)
    ]
    return pd.DataFrame(rows)


def results_table(per_seed: pd.DataFrame, baseline: Mapping[str, float]) -> pd.DataFrame:
    """Mean and SD over seeds of each kind's scores, plus the linear-chain baseline row.

    UUAS in %, DSpr as correlations. ``per_seed``: :func:`seed_scores`; ``baseline``:
    :func:`linear_baselines`. One row per model, columns ``<metric>`` and ``<metric> SD``.
    """
    scale = {"uuas": 100.0, "dspr": 1.0, "dspr_pfw": 1.0}
    names = {"uuas": "UUAS (%)", "dspr": "DSpr", "dspr_pfw": "DSpr P+FW"}
    rows = []
    for kind, df in per_seed.groupby("kind", sort=False):
        row = {"model": LABELS.get(kind, kind), "seeds": len(df)}
        for m in METRICS:
            row[names[m]] = scale[m] * df[m].mean()
            row[f"{names[m]} SD"] = scale[m] * df[m].std(ddof=1) if len(df) > 1 else 0.0
        rows.append(row)
    chain = {"model": "linear-chain baseline", "seeds": 0}
    for m in METRICS:
        chain |= {names[m]: scale[m] * baseline[m], f"{names[m]} SD": 0.0}
    rows.append(chain)
    return pd.DataFrame(rows).set_index("model")


def seed_differences(per_seed: pd.DataFrame, a: str = "perceptron", b: str = "structural"):
    """Per seed, ``a`` minus ``b`` for every metric (UUAS in points); index ``seed``."""
    wide = per_seed.pivot(index="seed", columns="kind", values=list(METRICS))
    out = pd.DataFrame({m: wide[m][a] - wide[m][b] for m in METRICS})
    out["uuas"] *= 100.0
    return out


def layer_figure(scores: pd.DataFrame, baseline: Mapping[str, float]):
    """UUAS (%) and DSpr per layer for both models, mean ± SD over seeds (cf. Hall Maudslay
    et al. 2020, Fig. 2a and 2b), with the linear-chain baseline dotted. ``scores``: the table
    of :func:`train_layers`; ``baseline``: :func:`linear_baselines` on the same split."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    df = scores.assign(model=scores["kind"].map(LABELS), uuas=100 * scores["uuas"])
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.0))
    for ax, metric, label, scale in (
        (axes[0], "uuas", "UUAS (%)", 100.0),
        (axes[1], "dspr", "DSpr (Spearman ρ)", 1.0),
    ):
        plots.layer_curves(df, metric, label, hue="model", ax=ax)
        ax.axhline(scale * baseline[metric], color="grey", ls=":", lw=1, label="linear chain")
        ax.legend(fontsize=7)
    axes[0].set_title("UUAS", fontsize=9)
    axes[1].set_title("DSpr", fontsize=9)
    return fig


def pfw_figure(scores: pd.DataFrame, baseline: Mapping[str, float]):
    """DSpr before (dashed) and after Prim + Floyd–Warshall (solid) per layer and model, mean
    ± SD over seeds (cf. Hall Maudslay et al. 2020, Fig. 3). Inputs as :func:`layer_figure`."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.lines import Line2D

    from probekit import plots

    plots.use_style()
    long = scores.assign(model=scores["kind"].map(LABELS)).melt(
        id_vars=["model", "layer", "seed"],
        value_vars=["dspr", "dspr_pfw"],
        var_name="metric",
        value_name="value",
    )
    long["metric"] = long["metric"].map({"dspr": "DSpr", "dspr_pfw": "DSpr P+FW"})
    fig, ax = plt.subplots(figsize=(plots.WIDTH * 0.65, 3.0))
    sns.lineplot(
        data=long,
        x="layer",
        y="value",
        hue="model",
        style="metric",
        style_order=["DSpr P+FW", "DSpr"],
        dashes={"DSpr P+FW": "", "DSpr": (4, 2)},
        errorbar="sd",
        marker="o",
        ax=ax,
        palette=plots.PALETTE,
        legend=False,
    )
    ax.axhline(baseline["dspr_pfw"], color="grey", ls=":", lw=1)
    ax.set(xlabel="layer (0 = embeddings)", ylabel="Spearman ρ")
    ax.set_xticks(sorted(long["layer"].unique()))
    # A hand-made legend: seaborn's short dashed handles are hard to tell from solid ones.
    colors = dict(zip(long["model"].drop_duplicates(), plots.colors(2), strict=False))
    handles = [Line2D([], [], color=c, marker="o", label=m) for m, c in colors.items()]
    handles += [
        Line2D([], [], color="0.3", lw=1.5, label="DSpr P+FW"),
        Line2D([], [], color="0.3", lw=1.5, ls=(0, (4, 2)), label="DSpr"),
        Line2D([], [], color="grey", lw=1, ls=":", label="linear chain"),
    ]
    ax.legend(handles=handles, fontsize=7, handlelength=3)
    return fig


# The claims of Hall Maudslay et al. 2020, §5, as (metric, a, b, claim, expected winner);
# the comparison is a − b and an empty winner means "no difference" (their DSpr_P+FW finding).
CLAIMS = (
    ("uuas", "perceptron", "structural", "the parser beats the probe on UUAS", "parser"),
    ("dspr", "structural", "perceptron", "the probe beats the parser on DSpr", "probe"),
    ("dspr_pfw", "perceptron", "structural", "the two do not differ on DSpr P+FW", ""),
)


def comparison_layer(compare_layer: int, scores: pd.DataFrame, n_layers: int) -> int:
    """The layer of the test comparison: ``compare_layer``, or with −1 the best dev layer by
    mean UUAS (:func:`best_layer`). It must be one of the layers in ``scores``."""
    if compare_layer == -1:
        return best_layer(scores, "uuas")
    layer = resolve_layer(compare_layer, n_layers, "compare_layer")
    trained = sorted(set(scores["layer"].tolist()))
    if layer not in trained:
        raise ParameterError(
            "compare_layer", f"layer {layer} was not trained", f"trained layers: {trained}"
        )
    return layer


def check_claims(
    per_sentence: pd.DataFrame, n_boot: int, seed: int, ci: float = 0.95
) -> pd.DataFrame:
    """Test the claims of Hall Maudslay et al. 2020, §5 (:data:`CLAIMS`) on test sentences.

    Each is a :func:`compare_models` paired bootstrap; UUAS differences are in points (× 100),
    DSpr differences in correlation units. One row per claim: ``metric``, ``claim``,
    ``difference`` ("parser − probe" or "probe − parser"), ``estimate``, ``low``, ``high``,
    ``sentences``, ``p_value`` and ``verdict`` ("holds", "reversed", "not shown (...)",
    "consistent (...)" or "not consistent (...)").
    """
    rows = []
    for metric, a, b, claim, winner in CLAIMS:
        res = compare_models(per_sentence, metric, a, b, n_boot=n_boot, seed=seed, ci=ci)
        scale = 100.0 if metric == "uuas" else 1.0
        rows.append(
            {
                "metric": metric,
                "claim": claim,
                "difference": f"{res.name_a} − {res.name_b}",
                "estimate": scale * res.diff,
                "low": scale * res.low,
                "high": scale * res.high,
                "sentences": res.n,
                "p_value": res.p_value,
                "verdict": res.supports(winner) if winner else res.supports_no_difference(),
            }
        )
    return pd.DataFrame(rows)


def overall_verdict(verdicts: pd.DataFrame) -> str:
    """One sentence on the paper's main point from :func:`check_claims`: do both directional
    claims (parser ahead on UUAS, probe ahead on DSpr) hold?"""
    directional = verdicts[verdicts["metric"].isin(["uuas", "dspr"])].set_index("metric")
    held = directional["verdict"] == "holds"
    if held.all():
        return "both claims hold, so the choice of metric decides which model looks better"
    if not held.any():
        return "neither claim holds, so the paper's opposite trends do not appear here"
    which = "the UUAS claim" if held.get("uuas", False) else "the DSpr claim"
    return f"only {which} holds, so the paper's opposite trends appear only in part here"
