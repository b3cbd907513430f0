"""Experiment glue for Part III, Pareto probing (Pimentel et al. 2020).

One function per experiment of the paper: "train probe family F for representation R on task T
and return a tidy table of (representation, probe config, complexity, accuracy)". The science
lives in :mod:`probekit.pareto` (frontier, hypervolume, controls, lookups) and in the probes
(:mod:`probekit.probes.linear`, :mod:`probekit.probes.biaffine`); this module wires data,
representations and probes together, and adds the random-MLP trainer of §6.2.

- Data: :func:`load_splits`, :func:`task_data` (POSL and DAL examples from
  :mod:`probekit.tasks`).
- Representations (§6): :func:`build_representations` (the contextual model's layer, fastText
  trained on the treebank, trainable one-hot, frozen random) and :func:`shuffled_contextual`
  (the fully-shuffled control's inputs, §5).
- Parametric complexity (§4, §6.1): :func:`linear_pareto`.
- Memorisation complexity (§5, §6.2): :func:`sample_configs`, :class:`MLPStack`,
  :func:`train_mlps`, :func:`mlp_pareto`.
- Parsing (§7.2): :func:`parse_linear_pareto`, :func:`parse_mlp_pareto`.
- Reading the results: :func:`hypervolume_table`, :func:`frontier_leaders`,
  :func:`simple_winner`, :func:`pick_probe`, :func:`plot_frontiers`.
- Toy tasks (§7.1, appendix B): :func:`lookup_baselines`, :func:`label_entropies`.

Every run returns a :class:`ParetoRun`: the table plus, for paired tests, which test items each
probe got right.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import torch

from probekit import data as pkdata
from probekit import pareto, tasks
from probekit.errors import ParameterError
from probekit.probes import biaffine, linear

REPRESENTATIONS = ("contextual", "fasttext", "onehot", "random")
NON_CONTEXTUAL = ("fasttext", "onehot", "random")
TASKS = ("posl", "dal")
CONDITIONS = ("normal", "label_shuffled", "fully_shuffled")
LABELS = {"fasttext": "fastText", "onehot": "one-hot", "random": "random"}

# English numbers of the paper and of its released runs (reference-repos.md §2.10), for the
# side-by-side comparisons in the chapters. "contextual" is multilingual BERT there.
PAPER: dict[str, Any] = {
    # Table 1: dictionary-lookup test accuracy.
    "table1": {"posl": 0.86, "dal": 0.68},
    # Table 3, English: Pareto hypervolumes (nuclear norm capped at 400, rank normalised by C).
    "table3": {
        ("posl", "nuclear"): {"contextual": 0.91, "fasttext": 0.87, "onehot": 0.85, "random": 0.63},
        ("posl", "rank"): {"contextual": 0.80, "fasttext": 0.77, "onehot": 0.76, "random": 0.54},
        ("posl", "label_shuffled"): {
            "contextual": 0.79,
            "fasttext": 0.75,
            "onehot": 0.70,
            "random": 0.70,
        },
        ("posl", "fully_shuffled"): {"contextual": 0.79},
        ("dal", "nuclear"): {"contextual": 0.87, "fasttext": 0.74, "onehot": 0.73, "random": 0.56},
        ("dal", "rank"): {"contextual": 0.85, "fasttext": 0.70, "onehot": 0.69, "random": 0.53},
        ("dal", "label_shuffled"): {
            "contextual": 0.80,
            "fasttext": 0.69,
            "onehot": 0.64,
            "random": 0.61,
        },
        ("dal", "fully_shuffled"): {"contextual": 0.81},
    },
    # Table 3 recomputed from the released English POSL runs (nuclear norm, test accuracy).
    "released_posl_nuclear": {
        "contextual": 0.79,
        "fasttext": 0.80,
        "onehot": 0.83,
        "random": 0.56,
    },
    # Table 2, English: parsing hypervolume under the label-shuffled complexity.
    "table2": {"contextual": 0.57, "fasttext": 0.40, "onehot": 0.32, "random": 0.39},
    # Released runs: test accuracy (UAS for parsing) of the best-dev probe.
    "best_linear": {
        "posl": {"contextual": 0.939, "fasttext": 0.889, "onehot": 0.855, "random": 0.647},
        "dal": {"contextual": 0.913, "fasttext": 0.756, "onehot": 0.731, "random": 0.576},
        "parse": {"contextual": 0.800, "fasttext": 0.510, "onehot": 0.468, "random": 0.289},
    },
    "best_mlp": {
        "posl": {"contextual": 0.956, "fasttext": 0.906, "onehot": 0.855, "random": 0.855},
        "dal": {"contextual": 0.926, "fasttext": 0.796, "onehot": 0.735, "random": 0.707},
        "parse": {"contextual": 0.865, "fasttext": 0.560, "onehot": 0.492, "random": 0.482},
    },
    # Label statistics of English EWT v2.5 over train+dev+test, in bits, and class counts.
    "entropy": {"posl": (3.607, 0.261), "dal": (4.482, 1.006)},
    "classes": {"posl": 16, "dal": 48},
}


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run a block with ``n`` torch threads (None: leave the setting alone).

    The probes here are small matmuls: on the shared 2-core machine one thread is several
    times faster than two as soon as another process competes for a core.
    """
    if n is None:
        yield
        return
    if n < 1:
        raise ParameterError("threads", f"must be >= 1, got {n}")
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

SPLITS = ("train", "dev", "test")


@dataclass(frozen=True, eq=False)
class Splits:
    """The sentence lists of one experiment: ``train``, ``dev`` (early stopping), ``test``."""

    train: list[pkdata.Sentence]
    dev: list[pkdata.Sentence]
    test: list[pkdata.Sentence]

    def __getitem__(self, split: str) -> list[pkdata.Sentence]:
        if split not in SPLITS:
            raise ParameterError("split", f"'{split}' is not one of {', '.join(SPLITS)}")
        return getattr(self, split)

    def n_words(self, split: str) -> int:
        return int(sum(len(s) for s in self[split]))


def load_splits(
    treebank: str,
    n_train: int = 0,
    n_dev: int = 0,
    n_test: int = 0,
    seed: int = 42,
    max_len: int = 200,
) -> Splits:
    """Seeded sentence samples of a UD treebank's three splits (Pimentel et al. 2020, §6).

    ``n_*`` = 0 keeps the whole split. Sentences longer than ``max_len`` words are left out, as
    the released code drops those over 200 tokens (0 = no limit).
    """
    for name, n in (("n_train", n_train), ("n_dev", n_dev), ("n_test", n_test)):
        if n < 0:
            raise ParameterError(name, f"must be >= 0 (0 means all), got {n}")
    tb = pkdata.load_treebank(treebank)
    pick = {
        split: pkdata.sample_sentences(tb[split], n or None, seed=seed, max_len=max_len or None)
        for split, n in zip(SPLITS, (n_train, n_dev, n_test), strict=True)
    }
    return Splits(**pick)


@dataclass(frozen=True, eq=False)
class TaskData:
    """POSL or DAL examples of the three splits (:class:`probekit.tasks.Examples` each)."""

    task: str
    examples: dict[str, tasks.Examples]

    @property
    def labels(self) -> tuple[str, ...]:
        return self.examples["train"].labels

    @property
    def n_classes(self) -> int:
        return len(self.labels)

    def y(self, split: str) -> np.ndarray:
        """Class ids, shape (N_split,)."""
        return self.examples[split].y


def task_data(task: str, splits: Splits) -> TaskData:
    """Examples of POSL (one per word, UPOS) or DAL (one per non-root arc, dependent ⊕ head,
    the relation with its subtype) for Pimentel et al. 2020, §6.

    The DAL inventory comes from the training sentences; test relations never seen in training
    map to the out-of-vocabulary class and count as errors.
    """
    if task == "posl":
        ex = {k: tasks.pos_examples(splits[k]) for k in SPLITS}
    elif task == "dal":
        inventory = tasks.deprel_inventory(splits.train)
        ex = {k: tasks.deprel_examples(splits[k], inventory) for k in SPLITS}
    else:
        raise ParameterError("tasks", f"'{task}' is not one of {', '.join(TASKS)}")
    return TaskData(task, ex)


# ---------------------------------------------------------------------------------------------
# Representations (§6)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Representation:
    """Word vectors of the three splits for one representation (Pimentel et al. 2020, §6).

    ``words[split]`` is a float array (N_words, d) (row ``offsets[split][s] + j`` is word j of
    sentence s; a float16 memory map for contextual embeddings) or, for the trainable one-hot
    representation, int64 word-type ids (N_words,) with ``onehot_dim`` and ``vocab_size`` set;
    the types of the training split have the ids below ``n_trainable``, so that the rows of the
    other types can stay frozen (:class:`probekit.pareto.OneHotEmbedding`).
    """

    name: str
    label: str
    words: dict[str, Any]
    offsets: dict[str, np.ndarray]
    onehot_dim: int | None = None
    vocab_size: int | None = None
    n_trainable: int | None = None

    @property
    def trainable(self) -> bool:
        return self.onehot_dim is not None

    @property
    def dim(self) -> int:
        """Size of one word's vector."""
        return int(self.onehot_dim or self.words["train"].shape[1])

    def inputs(self, split: str, rows: np.ndarray, words: Any = None) -> np.ndarray:
        """Probe inputs of examples: rows (N,) -> (N, d) or ids (N,); rows (N, 2) -> (N, 2d)
        (dependent first) or ids (N, 2). ``words`` replaces ``words[split]`` (fully shuffled)."""
        source = self.words[split] if words is None else words
        if self.trainable:
            return np.asarray(source)[np.asarray(rows)]
        return tasks.gather(source, np.asarray(rows))

    def sentences(self, split: str, words: Any = None) -> list[np.ndarray]:
        """Per-sentence inputs for parsing: float32 (n_s, d) or int64 ids (n_s,)."""
        source = self.words[split] if words is None else words
        off = self.offsets[split]
        dtype = np.int64 if self.trainable else np.float32
        return [np.asarray(source[off[s] : off[s + 1]], dtype=dtype) for s in range(len(off) - 1)]


def resolve_layer(layer: int, n_layers: int) -> int:
    """A layer index in 0..n_layers-1; negative counts from the end (-1 = last)."""
    k = layer + n_layers if layer < 0 else layer
    if not 0 <= k < n_layers:
        raise ParameterError(
            "layer", f"{layer} is outside 0..{n_layers - 1}", "use -1 for the last layer"
        )
    return k


def contextual_representation(
    splits: Splits, model: str = "default", layer: int = -1, pooling: str = "mean"
) -> Representation:
    """The contextual model's word vectors at one layer (Pimentel et al. 2020, §6: the last
    layer of BERT, wordpieces averaged per word). Embeddings come from the cache."""
    from probekit import embed

    emb = {k: embed.embed(splits[k], model, pooling, progress=False) for k in SPLITS}
    k = resolve_layer(layer, emb["train"].n_layers)
    short = embed.resolve_model(model).name.rstrip("/").split("/")[-1]
    return Representation(
        name="contextual",
        label=f"{short} (layer {k})",
        words={s: emb[s].layer(k) for s in SPLITS},
        offsets={s: emb[s].offsets for s in SPLITS},
    )


def shuffled_contextual(
    sentences: Sequence[pkdata.Sentence],
    model: str = "default",
    layer: int = -1,
    pooling: str = "mean",
    seed: int = 0,
) -> np.ndarray:
    """Inputs of the fully-shuffled control (Pimentel et al. 2020, §5).

    Every sentence is embedded with its words in random order (:func:`probekit.pareto.
    shuffle_word_order`); the vector at position i of the shuffled sentence then stands in for
    word i of the original one (no realignment, as in the released code), so examples built from
    the original sentences index this array as they would the normal one.

    Returns:
        float16 memory map (N_words, d), same row layout as the sentences' own embeddings.
    """
    from probekit import embed

    token_lists, _ = pareto.shuffle_word_order(sentences, seed)
    shuffled = [
        replace(s, forms=np.asarray(words, dtype=s.forms.dtype))
        for s, words in zip(sentences, token_lists, strict=True)
    ]
    emb = embed.embed(shuffled, model, pooling, progress=False)
    return emb.layer(resolve_layer(layer, emb.n_layers))


def _vocabulary(splits: Splits) -> tuple[np.ndarray, int]:
    # Training types first (sorted), then the types only seen in dev or test (sorted).
    train = np.unique(pkdata.flat(splits.train, "forms"))
    rest = np.unique(np.concatenate([pkdata.flat(splits[k], "forms") for k in ("dev", "test")]))
    return np.concatenate([train, np.setdiff1d(rest, train)]), len(train)


def _type_ids(splits: Splits, vocab: np.ndarray) -> dict[str, np.ndarray]:
    order = np.argsort(vocab, kind="stable")
    ordered = vocab[order]
    return {
        k: order[np.searchsorted(ordered, pkdata.flat(splits[k], "forms"))].astype(np.int64)
        for k in SPLITS
    }


def fasttext_table(
    vocab: Sequence[str],
    text: Sequence[pkdata.Sentence],
    dim: int,
    seed: int,
    epochs: int = 5,
    path: str = "",
) -> np.ndarray:
    """fastText vectors of ``vocab`` (V, dim) float32 (Pimentel et al. 2020, §6).

    With ``path`` (a ``cc.<lang>.300.bin`` file) the pretrained vectors are used, as in the
    paper; without it a fastText model is trained on ``text`` (deterministic, one thread) and the
    table is cached, keyed by the text, the vocabulary and the options. Out-of-vocabulary words
    get vectors from their character n-grams either way.
    """
    if path:
        kv = pareto.fasttext_vectors(text, dim, seed, path)
        return np.asarray(kv[list(vocab)], dtype=np.float32)
    from probekit.cache import Cache
    from probekit.embed import selection_digest

    files = sorted({str(s.path) for s in text})
    key = {
        "kind": "fasttext",
        "files": {f.split("/")[-1]: pkdata.file_sha256(f) for f in files},
        "selection": selection_digest(text),
        "vocab": hashlib.sha256("\x1f".join(vocab).encode()).hexdigest()[:16],
        "dim": dim,
        "seed": seed,
        "epochs": epochs,
    }

    def build(writer: Any) -> None:
        kv = pareto.fasttext_vectors(text, dim, seed, epochs=epochs)
        writer.array("vectors", np.asarray(kv[list(vocab)], dtype=np.float32))

    return np.asarray(Cache().get_or_create(key, build).array("vectors", mmap=False))


def type_representation(
    name: str,
    splits: Splits,
    *,
    dim: int,
    seed: int,
    fasttext_text: Sequence[pkdata.Sentence] | None = None,
    fasttext_epochs: int = 20,
    fasttext_path: str = "",
) -> Representation:
    """A type-level representation over the words of all three splits (§6).

    - ``"fasttext"``: :func:`fasttext_table`, trained on ``fasttext_text`` (default: the
      training sentences).
    - ``"random"``: a fixed N(0, 1) vector per type (:func:`probekit.pareto.random_type_vectors`);
      dev and test words unseen in training simply get their own never-trained vectors.
    - ``"onehot"``: type ids for the trainable table (:class:`probekit.pareto.OneHotEmbedding`);
      rows of words unseen in training keep their N(0, 1) start, as the paper prescribes.
    """
    if dim < 1:
        raise ParameterError("type_dim", f"must be >= 1, got {dim}")
    vocab, n_train_types = _vocabulary(splits)
    ids = _type_ids(splits, vocab)
    offsets = {k: pkdata.offsets(splits[k]).astype(np.int64) for k in SPLITS}
    if name == "onehot":
        return Representation(name, LABELS[name], ids, offsets, dim, len(vocab), n_train_types)
    if name == "random":
        table = pareto.random_type_vectors(vocab.tolist(), dim, seed)
    elif name == "fasttext":
        text = fasttext_text if fasttext_text is not None else splits.train
        table = fasttext_table(vocab.tolist(), text, dim, seed, fasttext_epochs, fasttext_path)
    else:
        raise ParameterError(
            "representations", f"'{name}' is not one of {', '.join(REPRESENTATIONS)}"
        )
    return Representation(name, LABELS[name], {k: table[v] for k, v in ids.items()}, offsets)


def build_representations(
    names: Sequence[str],
    splits: Splits,
    *,
    model: str = "default",
    layer: int = -1,
    pooling: str = "mean",
    type_dim: int = 128,
    fasttext_dim: int = 300,
    fasttext_text: Sequence[pkdata.Sentence] | None = None,
    fasttext_epochs: int = 20,
    fasttext_path: str = "",
    seed: int = 0,
) -> dict[str, Representation]:
    """The representations of Pimentel et al. 2020, §6, by name, in the order given.

    ``contextual``: the model's ``layer`` (-1 = last) with ``pooling``; ``fasttext``:
    ``fasttext_dim``-d vectors (see :func:`fasttext_table`); ``onehot`` and ``random``:
    ``type_dim``-d type vectors (the released code samples 48 to 292 dimensions per run).
    fastText trained on a treebank needs many epochs: with gensim's default of 5 on EWT's
    200,000 training words all vectors end up nearly parallel (mean cosine 0.99).
    """
    check_names("representations", names, REPRESENTATIONS)
    out: dict[str, Representation] = {}
    for name in names:
        if name == "contextual":
            out[name] = contextual_representation(splits, model, layer, pooling)
        else:
            dim = fasttext_dim if name == "fasttext" else type_dim
            out[name] = type_representation(
                name,
                splits,
                dim=dim,
                seed=seed,
                fasttext_text=fasttext_text,
                fasttext_epochs=fasttext_epochs,
                fasttext_path=fasttext_path,
            )
    return out


def check_names(parameter: str, names: Sequence[str], allowed: Sequence[str]) -> None:
    """ParameterError unless ``names`` is a non-empty list of distinct values from ``allowed``."""
    bad = [n for n in names if n not in allowed]
    if bad or not names or len(set(names)) != len(names):
        raise ParameterError(
            parameter,
            f"got {list(names)}",
            f"a non-empty list of distinct values from {{{', '.join(allowed)}}}",
        )


# ---------------------------------------------------------------------------------------------
# Runs and their tables
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ParetoRun:
    """The probes of one experiment: ``table`` has one row per probe (columns below), and
    ``correct`` (P, N_test) bool says which test items each probe got right (normal training),
    in table order; ``groups`` (N_test,) gives each item's test sentence (for bootstraps).

    Columns always present: ``representation``, ``task``, ``family``, ``probe`` (index),
    ``accuracy`` (test accuracy or UAS), ``dev_accuracy``. Complexity columns depend on the
    family: ``complexity`` (nuclear norm or rank), or ``label_shuffled`` / ``fully_shuffled``
    (memorisation accuracy, NaN where the control was not run).
    """

    table: pd.DataFrame
    correct: np.ndarray
    groups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def combine(runs: Sequence[ParetoRun]) -> pd.DataFrame:
    """One table from several runs."""
    return pd.concat([r.table for r in runs], ignore_index=True)


def rank_values(n_classes: int, n_probes: int) -> np.ndarray:
    """Ranks of the rank-constrained probes: ``n_probes`` values spread evenly over 1..C,
    without repeats (all ranks when n_probes >= C). The released code uses
    int(linspace(1, C + 0.99, 50)), which repeats ranks."""
    if n_probes < 1:
        raise ParameterError("n_probes", f"must be >= 1, got {n_probes}")
    if n_probes >= n_classes:
        return linear.rank_grid(n_classes)
    return np.unique(np.rint(np.linspace(1, n_classes, n_probes)).astype(np.int64))


def alpha_values(n_probes: int, low: float = 2.0**-10, high: float = 8.0) -> np.ndarray:
    """The nuclear-norm weights: 0 and ``n_probes - 1`` values log-uniform on [low, high]
    (Pimentel et al. 2020, §6.1 and footnote 8: [2^-10, 8], 50 probes). On unit-length inputs
    weights above about 2^-3 already shrink a probe to a nuclear norm near 0, so with few
    probes a smaller ``high`` spends them where the frontier is drawn."""
    if n_probes < 2:
        raise ParameterError("n_probes", f"must be >= 2 for the alpha grid, got {n_probes}")
    if not 0 < low <= high:
        raise ParameterError("alpha_max", f"need 0 < alpha_min <= alpha_max, got {low}, {high}")
    return linear.alpha_grid(n_points=n_probes - 1, low=low, high=high)


def linear_pareto(
    rep: Representation,
    data: TaskData,
    family: str,
    *,
    n_probes: int,
    seed: int,
    options: linear.TrainOptions | None = None,
    alpha_max: float = 8.0,
    threads: int | None = 1,
) -> ParetoRun:
    """Linear probes of one family for one representation and task (Pimentel et al. 2020,
    §4.1 and §6.1).

    ``family="nuclear"``: probes trained on eq. 3 with the weights of :func:`alpha_values`
    (up to ``alpha_max``);
    complexity = ||[W | b]||_*. ``family="rank"``: rank-constrained probes with the ranks of
    :func:`rank_values`; complexity = r. All probes of a run train together in stacks
    (:func:`probekit.probes.linear.train_linear_probes`), stop early on the dev split and are
    scored on the test split. ``max_complexity`` in the table is the rank family's cap C (the
    nuclear norm has none of its own; the chapters cap it at 400).

    Returns:
        :class:`ParetoRun` with columns representation, task, family, probe, alpha, rank,
        complexity, nuclear_norm, numerical_rank, max_complexity, dev_accuracy, accuracy,
        best_step.
    """
    C = data.n_classes
    if family == "nuclear":
        alphas = alpha_values(n_probes, high=alpha_max)
        configs = [linear.LinearProbeConfig(alpha=float(a)) for a in alphas]
    elif family == "rank":
        configs = [linear.LinearProbeConfig(rank=int(r)) for r in rank_values(C, n_probes)]
    else:
        raise ParameterError("family", f"'{family}' is not one of nuclear, rank")
    ex = data.examples
    X = {k: rep.inputs(k, ex[k].rows) for k in SPLITS}
    with torch_threads(threads):
        res = linear.train_linear_probes(
            configs,
            X["train"],
            ex["train"].y,
            X["dev"],
            ex["dev"].y,
            seed=seed,
            n_classes=C,
            onehot_dim=rep.onehot_dim,
            vocab_size=rep.vocab_size,
            onehot_trainable=rep.n_trainable,
            options=options,
        )
        pred = res.predict(X["test"])
    correct = pred == ex["test"].y[None, :]
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": data.task,
            "family": family,
            "probe": np.arange(len(configs)),
            "alpha": [c.alpha for c in configs],
            "rank": [c.rank if c.rank is not None else 0 for c in configs],
            "complexity": res.complexity,
            "nuclear_norm": res.nuclear_norm,
            "numerical_rank": res.rank,
            "max_complexity": float(C) if family == "rank" else np.inf,
            "dev_accuracy": res.dev_accuracy,
            "accuracy": correct.mean(axis=1),
            "best_step": res.best_step,
        }
    )
    return ParetoRun(table, correct, ex["test"].sent)


# ---------------------------------------------------------------------------------------------
# Random MLPs and memorisation (§5, §6.2)
# ---------------------------------------------------------------------------------------------


def sample_configs(n: int, seed: int, max_hidden: int = 1024) -> list[pareto.MLPConfig]:
    """Random MLP architectures of Pimentel et al. 2020, §6.2, with an optional smaller width.

    Draws :func:`probekit.pareto.sample_mlp_configs` (layers uniform on 0..5, dropout uniform on
    [0, 0.5], hidden size log-uniform on [2^5, 2^10]) and, when ``max_hidden`` < 1024, maps the
    hidden size monotonically onto a log-uniform draw on [32, max_hidden] (log2 h rescaled from
    [5, 10] to [5, log2 max_hidden]), so the same seed gives the same architectures, only
    narrower. Zero-layer configs have no hidden size; theirs is set to 0.
    """
    if not 32 <= max_hidden <= 1024:
        raise ParameterError("max_hidden", f"must lie in 32..1024, got {max_hidden}")
    top = math.log2(max_hidden)
    out = []
    for c in pareto.sample_mlp_configs(n, seed):
        h = c.hidden_size
        if max_hidden < 1024:
            h = int(
                np.clip(np.rint(2.0 ** (5 + (math.log2(h) - 5) * (top - 5) / 5)), 32, max_hidden)
            )
        out.append(pareto.MLPConfig(c.n_layers, h if c.n_layers else 0, c.dropout))
    return out


def _uniform(shape: tuple[int, ...], bound: float, generator: torch.Generator) -> torch.Tensor:
    return (torch.rand(*shape, generator=generator) * 2.0 - 1.0) * bound


class MLPStack(torch.nn.Module):
    """P MLP probes of one shape, trained together (Pimentel et al. 2020, §6.2).

    Each probe: (one-hot table lookup) -> dropout -> n x [Linear -> ReLU -> dropout] ->
    Linear to C classes, with ``layer_sizes`` the hidden widths (the same for every probe of
    the stack) and its own dropout rate. Inputs are not normalised, as in the released MLP.
    Weights carry a leading probe axis: ``weights[k]`` (P, fan_in, fan_out), ``biases[k]``
    (P, fan_out); every probe starts from the same draw (``nn.Linear``'s U(+-1/sqrt(fan_in)))
    of ``seed``, and dropout masks come from one uniform draw per layer compared with each
    probe's rate, so a probe's training does not depend on which others share its stack.

    ``forward(x)``: x float (B, d) shared by all probes or (P, B, d), or int64 ids (B[, k]) /
    (P, B[, k]) with ``embedding`` -> logits (P, B, C).
    """

    def __init__(
        self,
        d_in: int,
        n_classes: int,
        layer_sizes: Sequence[int],
        dropouts: Sequence[float],
        seed: int,
        embedding: pareto.OneHotEmbedding | None = None,
    ):
        super().__init__()
        P = len(dropouts)
        if P < 1 or any(not 0 <= p < 1 for p in dropouts):
            raise ParameterError("dropout", f"need >= 1 probe with rates in [0, 1): {dropouts}")
        self.n_probes = P
        self.embedding = embedding
        sizes = [d_in, *layer_sizes, n_classes]
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        g = torch.Generator().manual_seed(seed)
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = 1.0 / math.sqrt(fan_in)
            W = _uniform((fan_in, fan_out), bound, g)
            b = _uniform((fan_out,), bound, g)
            self.weights.append(torch.nn.Parameter(W.expand(P, -1, -1).clone()))
            self.biases.append(torch.nn.Parameter(b.expand(P, -1).clone()))
        self.register_buffer("dropout", torch.tensor(list(dropouts), dtype=torch.float32))

    def _dropout(
        self, x: torch.Tensor, members: torch.Tensor | None, generator: torch.Generator | None
    ) -> torch.Tensor:
        if not self.training:
            return x
        p = self.dropout if members is None else self.dropout[members]
        if not bool((p > 0).any()):
            return x
        u = torch.rand(x.shape[-2:], generator=generator)
        keep = (u[None] >= p[:, None, None]).to(x.dtype)
        return x * keep / (1.0 - p)[:, None, None]

    def forward(
        self,
        x: torch.Tensor,
        generator: torch.Generator | None = None,
        members: torch.Tensor | None = None,
        per_probe: bool = False,
    ) -> torch.Tensor:
        """Logits (P', B, C) of all probes, or of the probes ``members`` (P',) only.

        ``per_probe``: x has a leading probe axis (P', B, ...); otherwise all probes share it.
        """

        def pick(t: torch.Tensor) -> torch.Tensor:
            return t if members is None else t[members]

        if self.embedding is not None:
            e = self.embedding(x, members, per_probe)  # (P', B, [k,] dim)
            x = e.reshape(e.shape[0], e.shape[1], -1)
        x = self._dropout(x, members, generator)
        n_hidden = len(self.weights) - 1
        for k, (W, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = torch.matmul(x, pick(W)) + pick(b)[:, None, :]
            if k < n_hidden:
                x = self._dropout(torch.relu(x), members, generator)
        return x


@dataclass(frozen=True, eq=False)
class TrainingSet:
    """One training condition of the MLP trainer: inputs ``X`` (N, ...) with labels ``y``
    (N,), and the held-out examples ``X_stop``, ``y_stop`` that decide early stopping (the dev
    split for normal training; for the shuffled controls, training examples with their shuffled
    labels, since there the training set is the evaluation set)."""

    name: str
    X: Any
    y: np.ndarray
    X_stop: Any
    y_stop: np.ndarray


@dataclass
class MLPResult:
    """Outcome of :func:`train_mlps`. Arrays have shape (n_configs, n_sets).

    ``stop_accuracy`` / ``stop_loss`` (bits) are measured on each set's stopping examples at the
    restored best state (``best_step``).
    """

    configs: list[pareto.MLPConfig]
    sets: list[str]
    stop_accuracy: np.ndarray
    stop_loss: np.ndarray
    best_step: np.ndarray
    stacks: list[tuple[np.ndarray, np.ndarray, MLPStack]] = field(repr=False)

    def predict(self, X: Any, set_index: int, batch_size: int = 8192) -> np.ndarray:
        """Class ids predicted for inputs X (N, ...) by every config trained on set
        ``set_index``, shape (n_configs, N)."""
        n = len(X)
        out = np.zeros((len(self.configs), n), dtype=np.int64)
        with torch.no_grad():
            for config_ids, set_ids, stack in self.stacks:
                members = np.flatnonzero(set_ids == set_index)
                if not members.size:
                    continue
                m = torch.from_numpy(members)
                for start in range(0, n, batch_size):
                    xb = _batch(X, np.arange(start, min(start + batch_size, n)))
                    pred = stack(xb, members=m).argmax(-1).numpy()
                    out[config_ids[members], start : start + len(xb)] = pred
        return out

    def accuracy(self, X: Any, y: Any, set_index: int) -> np.ndarray:
        """Accuracy on (X, y) of every config trained on set ``set_index``, shape (n_configs,)."""
        return (self.predict(X, set_index) == np.asarray(y)[None, :]).mean(axis=1)


def _batch(X: Any, idx: np.ndarray) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(X[idx]))
    return t.float() if t.is_floating_point() else t.long()


def _loss_and_accuracy(
    stack: MLPStack, members: np.ndarray, X: Any, y: np.ndarray, batch_size: int
) -> tuple[np.ndarray, np.ndarray]:
    was = stack.training
    stack.eval()
    m = torch.from_numpy(members)
    ce, hits = torch.zeros(len(members), dtype=torch.float64), torch.zeros(len(members))
    yt = torch.as_tensor(np.asarray(y), dtype=torch.int64)
    with torch.no_grad():
        for start in range(0, len(yt), batch_size):
            idx = np.arange(start, min(start + batch_size, len(yt)))
            logits = stack(_batch(X, idx), members=m)
            target = yt[idx]
            ce += linear.cross_entropy_bits(logits, target).sum(1).double()
            hits += (logits.argmax(-1) == target[None]).sum(1).float()
    stack.train(was)
    n = max(len(yt), 1)
    return (ce / n).numpy(), (hits.double() / n).numpy()


def _check_sets(sets: Sequence[TrainingSet]) -> int:
    if not sets:
        raise ParameterError("sets", "is empty", "pass at least the normal training set")
    n = len(sets[0].y)
    for s in sets:
        if len(s.X) != n or len(s.y) != n:
            raise ParameterError(
                "sets",
                f"'{s.name}' has {len(s.X)} inputs and {len(s.y)} labels, expected {n}",
                "all conditions share the training rows (and so the minibatches)",
            )
        if len(s.X_stop) != len(s.y_stop) or len(s.y_stop) == 0:
            raise ParameterError("sets", f"'{s.name}' needs a non-empty stopping set")
    return n


def _group_by_shape(configs: Sequence[pareto.MLPConfig]) -> list[np.ndarray]:
    keys: dict[tuple[int, ...], list[int]] = {}
    for i, c in enumerate(configs):
        keys.setdefault(c.layer_sizes(), []).append(i)
    return [np.asarray(v, dtype=np.int64) for v in keys.values()]


def train_mlps(
    configs: Sequence[pareto.MLPConfig],
    sets: Sequence[TrainingSet],
    *,
    n_classes: int,
    seed: int,
    options: linear.TrainOptions | None = None,
    onehot_dim: int | None = None,
    vocab_size: int | None = None,
    onehot_trainable: int | None = None,
    max_parallel: int = 32,
) -> MLPResult:
    """Train every MLP config on every training set (Pimentel et al. 2020, §6.2).

    Configs with the same hidden widths (e.g. every zero-layer config) and all their sets form
    one :class:`MLPStack` of up to ``max_parallel`` probes trained in one pass; other configs
    train one stack after another. Every stack sees the same minibatch order (drawn from
    ``seed``) over the N training rows shared by all sets; a probe reads its own set's inputs
    and labels at those rows. Adam, early stopping per probe on its set's stopping examples
    (:class:`probekit.probes.linear.TrainOptions`; cross-entropy in bits, as the released code).

    Args:
        configs: K :class:`probekit.pareto.MLPConfig`.
        sets: S :class:`TrainingSet` with the same N (e.g. normal, label-shuffled,
            fully-shuffled).
        n_classes: C. seed: initialisation, batch order and dropout.
        onehot_dim, vocab_size: inputs are word-type ids for a trainable one-hot table;
            ``onehot_trainable``: rows from this id on stay frozen (no training input uses them).

    Returns:
        :class:`MLPResult`.
    """
    opts = options or linear.TrainOptions()
    if not configs:
        raise ParameterError("configs", "is empty", "e.g. sample_configs(10, seed=0)")
    if max_parallel < 1:
        raise ParameterError("max_parallel", f"must be >= 1, got {max_parallel}")
    n = _check_sets(sets)
    init_seed, order_seed, dropout_seed = linear.derived_seeds(seed)
    K, S = len(configs), len(sets)
    acc, loss = np.zeros((K, S)), np.zeros((K, S))
    best = np.zeros((K, S), dtype=np.int64)
    stacks = []
    pairs = [(c, s) for group in _group_by_shape(configs) for c in group.tolist() for s in range(S)]
    chunks = _chunks(pairs, configs, max_parallel)
    for chunk in chunks:
        config_ids = np.asarray([c for c, _ in chunk], dtype=np.int64)
        set_ids = np.asarray([s for _, s in chunk], dtype=np.int64)
        stack = _build_mlp_stack(
            configs,
            config_ids,
            sets,
            n_classes,
            onehot_dim,
            vocab_size,
            init_seed,
            onehot_trainable,
        )
        stopper = _fit_mlp_stack(stack, set_ids, sets, n, opts, order_seed, dropout_seed)
        for s in np.unique(set_ids):
            members = np.flatnonzero(set_ids == s)
            l_, a_ = _loss_and_accuracy(
                stack, members, sets[s].X_stop, sets[s].y_stop, opts.eval_batch_size
            )
            loss[config_ids[members], s], acc[config_ids[members], s] = l_, a_
        best[config_ids, set_ids] = stopper.best_step
        stacks.append((config_ids, set_ids, stack))
    return MLPResult(list(configs), [s.name for s in sets], acc, loss, best, stacks)


def _chunks(
    pairs: list[tuple[int, int]], configs: Sequence[pareto.MLPConfig], max_parallel: int
) -> list[list[tuple[int, int]]]:
    out: list[list[tuple[int, int]]] = []
    for pair in pairs:
        shape = configs[pair[0]].layer_sizes()
        if out and len(out[-1]) < max_parallel and configs[out[-1][0][0]].layer_sizes() == shape:
            out[-1].append(pair)
        else:
            out.append([pair])
    return out


def _build_mlp_stack(
    configs: Sequence[pareto.MLPConfig],
    config_ids: np.ndarray,
    sets: Sequence[TrainingSet],
    n_classes: int,
    onehot_dim: int | None,
    vocab_size: int | None,
    seed: int,
    onehot_trainable: int | None = None,
) -> MLPStack:
    first = np.asarray(sets[0].X[:1])
    embedding = None
    if onehot_dim is not None:
        V = vocab_size or int(max(np.max(np.asarray(s.X)) for s in sets)) + 1
        if onehot_trainable is not None and any(
            int(np.max(np.asarray(s.X))) >= onehot_trainable for s in sets
        ):
            raise ParameterError("onehot_trainable", "training ids reach beyond it")
        embedding = pareto.OneHotEmbedding(
            V, onehot_dim, n_probes=len(config_ids), seed=seed, n_trainable=onehot_trainable
        )
        d = onehot_dim * (1 if first.ndim == 1 else first.shape[1])
    else:
        if not np.issubdtype(first.dtype, np.floating):
            raise ParameterError("sets", "hold word ids", "pass onehot_dim for one-hot inputs")
        d = int(np.prod(first.shape[1:]))
    sizes = configs[int(config_ids[0])].layer_sizes()
    dropouts = [configs[int(c)].dropout for c in config_ids]
    return MLPStack(d, n_classes, sizes, dropouts, seed + 17 * len(sizes), embedding)


def _fit_mlp_stack(
    stack: MLPStack,
    set_ids: np.ndarray,
    sets: Sequence[TrainingSet],
    n: int,
    opts: linear.TrainOptions,
    order_seed: int,
    dropout_seed: int,
) -> linear.StackedEarlyStopping:
    P = len(set_ids)
    stopper = linear.StackedEarlyStopping(stack, P, opts.patience, opts.min_delta)
    optimiser = linear.StackAdam(stack, opts.lr)
    order_gen = torch.Generator().manual_seed(order_seed)
    dropout_gen = torch.Generator().manual_seed(dropout_seed)
    # Sets that share an input array are read once per batch.
    views: list[Any] = []
    view_of: list[int] = []
    for s in set_ids.tolist():
        known = [k for k, v in enumerate(views) if v is sets[s].X]
        if not known:
            views.append(sets[s].X)
        view_of.append(known[0] if known else len(views) - 1)
    view_index = torch.as_tensor(view_of)
    Y = torch.as_tensor(np.stack([np.asarray(sets[s].y) for s in set_ids.tolist()])).long()
    step = 0
    stack.train()
    while step < opts.max_steps and not stopper.done:
        perm = torch.randperm(n, generator=order_gen).numpy()
        for start in range(0, n, opts.batch_size):
            idx = perm[start : start + opts.batch_size]
            xs = [_batch(v, idx) for v in views]
            x = xs[0] if len(xs) == 1 else torch.stack(xs)[view_index]
            logits = stack(x, dropout_gen, per_probe=len(xs) > 1)
            target = Y[:, torch.from_numpy(idx)]
            logp = torch.log_softmax(logits, dim=-1)
            ce = -logp.gather(-1, target[..., None])[..., 0].mean(1) / linear.LN2
            optimiser.zero_grad(set_to_none=True)
            ce.sum().backward()
            optimiser.step()
            step += 1
            if step % opts.eval_every == 0 or step == opts.max_steps:
                stopper.update(_stop_losses(stack, set_ids, sets, opts), step)
                if stopper.done or step >= opts.max_steps:
                    break
    stopper.restore()
    stack.eval()
    return stopper


def _stop_losses(
    stack: MLPStack, set_ids: np.ndarray, sets: Sequence[TrainingSet], opts: linear.TrainOptions
) -> np.ndarray:
    out = np.zeros(len(set_ids))
    for s in np.unique(set_ids):
        members = np.flatnonzero(set_ids == s)
        out[members] = _loss_and_accuracy(
            stack, members, sets[s].X_stop, sets[s].y_stop, opts.eval_batch_size
        )[0]
    return out


def memorisation_rows(n: int, n_memorise: int, seed: int) -> np.ndarray:
    """Sorted indices of the ``n_memorise`` training items (examples or sentences) on which the
    shuffled controls are trained and scored; all ``n`` when ``n_memorise`` is 0 or >= n."""
    if n_memorise < 0:
        raise ParameterError("n_memorise", f"must be >= 0 (0 means all), got {n_memorise}")
    if n_memorise == 0 or n_memorise >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=n_memorise, replace=False))


def control_options(options: linear.TrainOptions | None, steps: int) -> linear.TrainOptions:
    """Training options of the shuffled controls: exactly ``steps`` updates, no early stop.

    On shuffled labels the training loss falls slowly after a long plateau at the label
    entropy, so the released criterion (stop after a while without a 0.02-bit gain) ends most
    runs on the plateau unless it waits 1,000 updates as the released code does; a fixed budget
    measures every architecture's memorisation after the same amount of training.
    """
    if steps < 1:
        raise ParameterError("memorise_steps", f"must be >= 1, got {steps}")
    base = options or linear.TrainOptions()
    return replace(
        base, max_steps=steps, patience=steps + 1, eval_every=min(base.eval_every, steps)
    )


def control_labels(y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Shuffled training labels of the two controls (Pimentel et al. 2020, §5): independent
    corpus-wide token-level permutations for ``label_shuffled`` and ``fully_shuffled``."""
    a, b = np.random.SeedSequence(seed).spawn(2)
    return {
        "label_shuffled": pareto.shuffle_labels(y, np.random.default_rng(a)),
        "fully_shuffled": pareto.shuffle_labels(y, np.random.default_rng(b)),
    }


def _conditions(conditions: Sequence[str], rep: Representation) -> list[str]:
    # "normal" first (set 0); fully shuffled only where word order can matter.
    check_names("conditions", conditions, CONDITIONS)
    if "normal" not in conditions:
        raise ParameterError("conditions", "must include 'normal' (the accuracy axis)")
    return [
        c
        for c in CONDITIONS
        if c in conditions and (c != "fully_shuffled" or rep.name == "contextual")
    ]


def mlp_pareto(
    rep: Representation,
    data: TaskData,
    configs: Sequence[pareto.MLPConfig],
    *,
    conditions: Sequence[str] = CONDITIONS,
    shuffled_words: Any = None,
    seed: int,
    options: linear.TrainOptions | None = None,
    n_memorise: int = 0,
    memorise_steps: int = 2000,
    threads: int | None = 1,
) -> ParetoRun:
    """Random MLPs with memorisation complexity, for one representation and task
    (Pimentel et al. 2020, §5 and §6.2).

    Every config trains under each of ``conditions``:

    - ``normal``: gold labels, early stopping on dev (``options``); its test accuracy is the
      y-axis;
    - ``label_shuffled``: the training labels permuted at the token level;
    - ``fully_shuffled``: permuted labels, and inputs read from word-order-shuffled sentences
      (``shuffled_words``, from :func:`shuffled_contextual`); contextual representations only,
      since shuffling words does not change a type-level vector (footnote 10).

    A control's complexity is its *memorisation accuracy*: its accuracy on its own shuffled
    training set. The paper memorises the whole training split; here the controls train on
    ``n_memorise`` training examples (0 = all) for exactly ``memorise_steps`` updates
    (:func:`control_options`), so that memorisation is measurable in a small compute budget.
    Both controls of all configs of one shape train in one stack.

    Returns:
        :class:`ParetoRun` with columns representation, task, family ("mlp"), probe, n_layers,
        hidden_size, dropout, dev_accuracy, accuracy, label_shuffled, fully_shuffled (NaN for
        controls not run), best_step, n_memorise.
    """
    conditions = _conditions(conditions, rep)
    if "fully_shuffled" in conditions and shuffled_words is None:
        raise ParameterError("shuffled_words", "is needed for the fully-shuffled control")
    ex = data.examples
    X_train, y_train = rep.inputs("train", ex["train"].rows), ex["train"].y
    normal = TrainingSet("normal", X_train, y_train, rep.inputs("dev", ex["dev"].rows), ex["dev"].y)
    common = dict(
        n_classes=data.n_classes,
        seed=seed,
        onehot_dim=rep.onehot_dim,
        vocab_size=rep.vocab_size,
        onehot_trainable=rep.n_trainable,
    )
    rows = memorisation_rows(len(y_train), n_memorise, seed)
    shuffled = control_labels(y_train[rows], seed)
    controls = []
    for name in conditions[1:]:
        if name == "label_shuffled":
            X = X_train[rows]
        else:
            X = rep.inputs("train", ex["train"].rows[rows], shuffled_words)
        controls.append(TrainingSet(name, X, shuffled[name], X, shuffled[name]))
    memorised: dict[str, np.ndarray] = {}
    with torch_threads(threads):
        res = train_mlps(configs, [normal], options=options, **common)
        pred = res.predict(rep.inputs("test", ex["test"].rows), 0)
        if controls:
            ctrl = train_mlps(
                configs, controls, options=control_options(options, memorise_steps), **common
            )
            memorised = {c.name: ctrl.accuracy(c.X, c.y, k) for k, c in enumerate(controls)}
    correct = pred == ex["test"].y[None, :]
    nan = np.full(len(configs), np.nan)
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": data.task,
            "family": "mlp",
            "probe": np.arange(len(configs)),
            "n_layers": [c.n_layers for c in configs],
            "hidden_size": [c.hidden_size for c in configs],
            "dropout": [c.dropout for c in configs],
            "dev_accuracy": res.stop_accuracy[:, 0],
            "accuracy": correct.mean(axis=1),
            "label_shuffled": memorised.get("label_shuffled", nan),
            "fully_shuffled": memorised.get("fully_shuffled", nan),
            "best_step": res.best_step[:, 0],
            "n_memorise": len(rows),
        }
    )
    return ParetoRun(table, correct, ex["test"].sent)


# ---------------------------------------------------------------------------------------------
# Dependency parsing (§7.2)
# ---------------------------------------------------------------------------------------------


def _heads(sentences: Sequence[pkdata.Sentence]) -> list[np.ndarray]:
    return [np.asarray(s.heads, dtype=np.int64) for s in sentences]


def _parse_correct(pred: list[list[np.ndarray]], gold: list[np.ndarray]) -> np.ndarray:
    gold_flat = np.concatenate(gold)
    return np.stack([np.concatenate(p) == gold_flat for p in pred])


def _sentence_index(sentences: Sequence[pkdata.Sentence]) -> np.ndarray:
    return np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])


def parse_linear_pareto(
    rep: Representation,
    splits: Splits,
    *,
    n_probes: int,
    seed: int,
    options: linear.TrainOptions = biaffine.PARSE_OPTIONS,
    alpha_max: float = 8.0,
    threads: int | None = 1,
) -> ParetoRun:
    """Linear biaffine parsing probes with nuclear-norm complexity (Pimentel et al. 2020,
    §7.2 and appendix C, Figs. 7 and 8): l(i, j) = x_i^T U x_j, trained with
    alpha * ||U||_* for the weights of :func:`alpha_values`; heads decoded by argmax.

    Returns:
        :class:`ParetoRun` (items = test words) with columns representation, task ("parse"),
        family ("nuclear"), probe, alpha, complexity (||U||_*), dev_accuracy, accuracy (UAS),
        best_step.
    """
    alphas = alpha_values(n_probes, high=alpha_max)
    configs = [biaffine.BiaffineConfig(alpha=float(a)) for a in alphas]
    inputs = {k: rep.sentences(k) for k in SPLITS}
    heads = {k: _heads(splits[k]) for k in SPLITS}
    with torch_threads(threads):
        res = biaffine.train_biaffine_probes(
            configs,
            inputs["train"],
            heads["train"],
            inputs["dev"],
            heads["dev"],
            seed=seed,
            onehot_dim=rep.onehot_dim,
            vocab_size=rep.vocab_size,
            onehot_trainable=rep.n_trainable,
            options=options,
        )
        correct = _parse_correct(res.predict(inputs["test"]), heads["test"])
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": "parse",
            "family": "nuclear",
            "probe": np.arange(len(configs)),
            "alpha": [c.alpha for c in configs],
            "complexity": res.complexity,
            "dev_accuracy": res.dev_uas,
            "accuracy": correct.mean(axis=1),
            "best_step": res.best_step,
        }
    )
    return ParetoRun(table, correct, _sentence_index(splits.test))


def parse_mlp_pareto(
    rep: Representation,
    splits: Splits,
    configs: Sequence[pareto.MLPConfig],
    *,
    conditions: Sequence[str] = CONDITIONS,
    shuffled_words: Any = None,
    seed: int,
    options: linear.TrainOptions = biaffine.PARSE_OPTIONS,
    n_memorise: int = 0,
    memorise_steps: int = 500,
    threads: int | None = 1,
) -> ParetoRun:
    """MLP biaffine parsers with memorisation complexity (Pimentel et al. 2020, §7.2, appendix
    A; Figs. 1, 5 and 6, Table 2).

    Conditions as in :func:`mlp_pareto`. The label-shuffled control permutes the heads within
    each training sentence (:func:`probekit.pareto.shuffle_heads`); the fully-shuffled one also
    reads its inputs from word-order-shuffled sentences. Memorisation = UAS on the shuffled
    heads of the ``n_memorise`` training sentences (0 = all) the control trains on, for exactly
    ``memorise_steps`` updates. Each config trains alone
    (:func:`probekit.probes.biaffine.train_biaffine_probes`), all with the same batch order.

    Returns:
        :class:`ParetoRun` (items = test words) with columns as :func:`mlp_pareto`.
    """
    conditions = _conditions(conditions, rep)
    if "fully_shuffled" in conditions and shuffled_words is None:
        raise ParameterError("shuffled_words", "is needed for the fully-shuffled control")
    bconfigs = [biaffine.BiaffineConfig(mlp=c) for c in configs]
    heads = {k: _heads(splits[k]) for k in SPLITS}
    train_in = rep.sentences("train")
    rows = memorisation_rows(len(train_in), n_memorise, seed).tolist()
    streams = np.random.SeedSequence(seed).spawn(2)
    common = dict(
        seed=seed,
        onehot_dim=rep.onehot_dim,
        vocab_size=rep.vocab_size,
        onehot_trainable=rep.n_trainable,
    )
    memorised: dict[str, np.ndarray] = {}
    with torch_threads(threads):
        res = biaffine.train_biaffine_probes(
            bconfigs,
            train_in,
            heads["train"],
            rep.sentences("dev"),
            heads["dev"],
            options=options,
            **common,
        )
        correct = _parse_correct(res.predict(rep.sentences("test")), heads["test"])
        for name in conditions[1:]:
            source = (
                train_in if name == "label_shuffled" else rep.sentences("train", shuffled_words)
            )
            X = [source[i] for i in rows]
            rng = np.random.default_rng(streams[CONDITIONS.index(name) - 1])
            y = pareto.shuffle_heads([heads["train"][i] for i in rows], rng)
            ctrl = biaffine.train_biaffine_probes(
                bconfigs, X, y, X, y, options=control_options(options, memorise_steps), **common
            )
            memorised[name] = ctrl.uas(X, y)
    nan = np.full(len(configs), np.nan)
    table = pd.DataFrame(
        {
            "representation": rep.name,
            "task": "parse",
            "family": "mlp",
            "probe": np.arange(len(configs)),
            "n_layers": [c.n_layers for c in configs],
            "hidden_size": [c.hidden_size for c in configs],
            "dropout": [c.dropout for c in configs],
            "dev_accuracy": res.dev_uas,
            "accuracy": correct.mean(axis=1),
            "label_shuffled": memorised.get("label_shuffled", nan),
            "fully_shuffled": memorised.get("fully_shuffled", nan),
            "best_step": res.best_step,
            "n_memorise": len(rows),
        }
    )
    return ParetoRun(table, correct, _sentence_index(splits.test))


# ---------------------------------------------------------------------------------------------
# Reading the results (§3)
# ---------------------------------------------------------------------------------------------


def _cap(value: float | str, group: pd.DataFrame) -> float:
    if isinstance(value, str):
        caps = group[value].unique()
        if len(caps) != 1:
            raise ParameterError("cap", f"column '{value}' is not constant within a group")
        return float(caps[0])
    return float(value)


def hypervolume_table(
    table: pd.DataFrame,
    x: str,
    cap: float | str,
    *,
    y: str = "accuracy",
    by: Sequence[str] = ("task", "family", "representation"),
    min_accuracy: float = 0.0,
) -> pd.DataFrame:
    """Normalised Pareto hypervolume of every group of probes (Pimentel et al. 2020, §3,
    Tables 2 and 3), with :func:`probekit.pareto.hypervolume`.

    Args:
        table: probe rows with complexity column ``x`` and accuracy column ``y``; rows with a
            NaN complexity (controls not run) are left out.
        cap: the maximum complexity (a number, e.g. 400 for the nuclear norm or 1 for
            memorisation, or the name of a column constant within each group, e.g.
            ``max_complexity`` for the rank family).
        by: grouping columns.

    Returns:
        One row per group: the ``by`` columns, ``hypervolume``, ``n_probes`` (with a finite
        complexity), ``n_within_cap`` and ``best_accuracy`` (the best probe within the cap).
    """
    rows = []
    for key, group in table.groupby(list(by), sort=False):
        g = group[np.isfinite(group[x].to_numpy(dtype=float))]
        limit = _cap(cap, group)
        inside = g[g[x] <= limit]
        hv = pareto.hypervolume(g[x], g[y], limit, min_accuracy=min_accuracy) if len(g) else np.nan
        best = float(inside[y].max()) if len(inside) else np.nan
        values = key if isinstance(key, tuple) else (key,)
        rows.append(
            dict(zip(by, values, strict=True))
            | {
                "hypervolume": hv,
                "n_probes": len(g),
                "n_within_cap": len(inside),
                "best_accuracy": best,
            }
        )
    return pd.DataFrame(rows)


def _height(x_steps: np.ndarray, h_steps: np.ndarray, at: np.ndarray) -> np.ndarray:
    if x_steps.size == 0:
        return np.full(at.shape, -np.inf)
    k = np.searchsorted(x_steps, at, side="right") - 1
    return np.where(k >= 0, h_steps[np.clip(k, 0, None)], -np.inf)


def frontier_leaders(
    table: pd.DataFrame, x: str, cap: float, *, y: str = "accuracy", by: str = "representation"
) -> pd.DataFrame:
    """Where each representation holds the joint Pareto frontier (Pimentel et al. 2020, §3:
    the "Pareto-dominant" representations).

    For every complexity budget b in [0, cap], the leader is the representation whose best
    probe with complexity <= b is the most accurate (ties go to the first in table order).
    Budgets below every probe have no leader.

    Returns:
        One row per maximal interval [start, end) of budgets with the same leader: columns
        ``representation``, ``start``, ``end``, ``accuracy_start`` and ``accuracy_end``
        (the leader's accuracy at the two ends).
    """
    t = table[np.isfinite(table[x].to_numpy(dtype=float))]
    names = list(dict.fromkeys(t[by]))
    stairs = {n: pareto.frontier_staircase(g[x], g[y], cap) for n, g in t.groupby(by, sort=False)}
    cuts = np.unique(np.concatenate([s[0] for s in stairs.values()] + [np.asarray([cap])]))
    cuts = cuts[cuts <= cap]
    if cuts.size < 2:
        return pd.DataFrame(columns=[by, "start", "end", "accuracy_start", "accuracy_end"])
    heights = np.stack([_height(*stairs[n], cuts[:-1]) for n in names])  # (R, intervals)
    leader = heights.argmax(axis=0)
    defined = np.isfinite(heights.max(axis=0))
    rows: list[dict[str, Any]] = []
    for i in np.flatnonzero(defined):
        name, acc = names[leader[i]], float(heights[leader[i], i])
        if rows and rows[-1][by] == name and rows[-1]["end"] == cuts[i]:
            rows[-1]["end"], rows[-1]["accuracy_end"] = float(cuts[i + 1]), acc
        else:
            rows.append(
                {
                    by: name,
                    "start": float(cuts[i]),
                    "end": float(cuts[i + 1]),
                    "accuracy_start": acc,
                    "accuracy_end": acc,
                }
            )
    return pd.DataFrame(rows)


def simple_winner(
    table: pd.DataFrame, x: str, budget: float, *, y: str = "accuracy", by: str = "representation"
) -> tuple[str | None, pd.Series]:
    """The representation that is best for *simple* probes (Pimentel et al. 2020, §2.3 and
    §6.1): the largest hypervolume over complexities [0, budget] only.

    Returns:
        (winner or None when no probe fits the budget, hypervolume per representation).
    """
    t = table[np.isfinite(table[x].to_numpy(dtype=float))]
    hv = pd.Series(
        {name: pareto.hypervolume(g[x], g[y], budget) for name, g in t.groupby(by, sort=False)},
        dtype=float,
    )
    if hv.empty or not (hv > 0).any():
        return None, hv
    return str(hv.idxmax()), hv


def pick_probe(
    table: pd.DataFrame, x: str, budget: float, *, by: str = "dev_accuracy"
) -> int | None:
    """Row position (in ``table``) of the probe with the best ``by`` (dev accuracy, so the
    test set stays untouched by the choice) among those with complexity ``x`` <= budget."""
    c = table[x].to_numpy(dtype=float)
    ok = np.flatnonzero(np.isfinite(c) & (c <= budget))
    if not ok.size:
        return None
    scores = table[by].to_numpy(dtype=float)[ok]
    return int(ok[np.argmax(scores)])


def simple_vs_best(
    table: pd.DataFrame,
    x: str,
    *,
    y: str = "accuracy",
    by: Sequence[str] = ("task", "representation"),
) -> pd.DataFrame:
    """How much accuracy the simpler half of the probes gives up (Pimentel et al. 2020, §6.2:
    "simple architectures ... achieve as high an accuracy as the more complex ones").

    Per group: ``best`` (best accuracy of all probes with a finite complexity), ``best_simple``
    (best accuracy among the probes whose complexity is at most the group's median), ``gap`` =
    best - best_simple, and ``spearman``, the rank correlation of complexity and accuracy.
    """
    from scipy.stats import spearmanr

    rows = []
    for key, group in table.groupby(list(by), sort=False):
        g = group[np.isfinite(group[x].to_numpy(dtype=float))]
        if g.empty:
            continue
        simple = g[g[x] <= g[x].median()]
        rho = spearmanr(g[x], g[y]).statistic if len(g) > 2 else np.nan
        values = key if isinstance(key, tuple) else (key,)
        rows.append(
            dict(zip(by, values, strict=True))
            | {
                "best": float(g[y].max()),
                "best_simple": float(simple[y].max()),
                "gap": float(g[y].max() - simple[y].max()),
                "spearman": float(rho),
            }
        )
    return pd.DataFrame(rows)


def paper_comparison(hv: pd.DataFrame, key: str = "table3") -> pd.DataFrame:
    """Add the paper's English hypervolume (``PAPER[key]``, Tables 2 and 3) to a
    :func:`hypervolume_table` as column ``paper`` (NaN where the paper has none)."""
    ref = PAPER[key]

    def lookup(row: pd.Series) -> float:
        values = ref if key == "table2" else ref.get((row["task"], row["family"]), {})
        return float(values.get(row["representation"], np.nan))

    return hv.assign(paper=hv.apply(lookup, axis=1) if len(hv) else [])


def main_leaders(leaders: pd.DataFrame, min_width: float) -> pd.DataFrame:
    """A :func:`frontier_leaders` table without its slivers: intervals narrower than
    ``min_width`` are absorbed by the interval before them (the first interval's start is
    kept), and neighbours with the same leader are merged. (Near complexity 0 every probe is at
    the majority baseline and the lead flips on noise.)"""
    wide = leaders[(leaders["end"] - leaders["start"]) >= min_width]
    rows: list[dict[str, Any]] = []
    for r in wide.to_dict("records"):
        if rows:
            rows[-1]["end"] = r["start"]
        if rows and rows[-1]["representation"] == r["representation"]:
            rows[-1]["end"], rows[-1]["accuracy_end"] = r["end"], r["accuracy_end"]
        else:
            rows.append(dict(r))
    if rows and len(leaders):
        rows[0]["start"] = float(leaders["start"].iloc[0])
        rows[-1]["end"] = float(leaders["end"].iloc[-1])
    return pd.DataFrame(rows, columns=leaders.columns)


def describe_leaders(leaders: pd.DataFrame, labels: dict[str, str], fmt: str = "{:.0f}") -> str:
    """One phrase for a :func:`frontier_leaders` table, e.g. "one-hot (1 to 35), then
    fastText (35 to 400)"; ``fmt`` formats the complexity bounds."""
    if leaders.empty:
        return "no representation (no probe within the cap)"
    parts = [
        f"{labels.get(r.representation, r.representation)} ({fmt.format(r.start)} to "
        f"{fmt.format(r.end)})"
        for r in leaders.itertuples()
    ]
    return ", then ".join(parts)


def verdict(holds: bool | None, detail: str = "") -> str:
    """The book's wording of a claim check: "holds", "does not hold" or "cannot be tested",
    followed by ``detail`` in parentheses when given."""
    word = {True: "holds", False: "does not hold", None: "cannot be tested"}[holds]
    return f"{word} ({detail})" if detail else word


def placeholder_figure(text: str):
    """A small figure that only says ``text``, glued where a figure's experiment was not run
    (so that the page still builds with every glue key present)."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    fig, ax = plt.subplots(figsize=(plots.WIDTH, 0.8))
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize="small", color="grey")
    return fig


def plot_frontiers(
    table: pd.DataFrame,
    x: str,
    cap: float | dict[str, float],
    xlabel: str,
    *,
    y: str = "accuracy",
    ylabel: str = "test accuracy",
    col: str = "task",
    hue: str = "representation",
    titles: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    height: float = 2.9,
):
    """Pareto curves as in Pimentel et al. 2020, Figs. 1 to 9: every probe as a faint dot and
    each ``hue`` group's frontier (by default each representation's) as a staircase up to the
    cap, one panel per ``col`` value.

    ``cap`` may differ by panel (a dict from ``col`` values). Representations keep one colour
    throughout the book; other hue values take the palette in order. Returns the Figure.
    """
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    panels = list(dict.fromkeys(table[col]))
    fig, axes = plt.subplots(
        1, len(panels), figsize=(plots.WIDTH, height), squeeze=False, sharey=False
    )
    groups = list(dict.fromkeys(table[hue]))
    if hue == "representation":
        palette = dict(zip(REPRESENTATIONS, plots.colors(len(REPRESENTATIONS)), strict=True))
    else:
        palette = dict(zip(groups, plots.colors(len(groups)), strict=True))
    for ax, panel in zip(axes[0], panels, strict=True):
        limit = cap[panel] if isinstance(cap, dict) else cap
        sub = table[(table[col] == panel) & np.isfinite(table[x].to_numpy(dtype=float))]
        for rep, g in sub.groupby(hue, sort=False):
            color = palette.get(rep, "grey")
            name = (labels or {}).get(str(rep), LABELS.get(str(rep), str(rep)))
            shown = g[g[x] <= limit]
            ax.scatter(shown[x], shown[y], s=14, color=color, alpha=0.45, linewidths=0)
            xs, hs = pareto.frontier_staircase(g[x], g[y], limit)
            if xs.size:
                ax.step(xs, hs, where="post", color=color, linewidth=1.6, label=name)
        ax.set(
            xlim=(0, limit),
            xlabel=xlabel if len(panels) == 1 else None,
            ylabel=ylabel,
            title=(titles or {}).get(str(panel), str(panel)),
        )
    if len(panels) > 1:
        fig.supxlabel(xlabel, fontsize="medium")
    handles, names = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    fig.legend(
        handles, names, loc="outside upper center", ncol=min(len(names), 4), fontsize="small"
    )
    return fig


# ---------------------------------------------------------------------------------------------
# Toy tasks: lookup baselines and entropies (§7.1, appendix B)
# ---------------------------------------------------------------------------------------------


def _arcs(sentences: Sequence[pkdata.Sentence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    forms = pkdata.flat(sentences, "forms")
    heads = pkdata.flat(sentences, "heads")
    rel = pkdata.flat(sentences, "deprel")
    first = np.repeat(pkdata.offsets(sentences)[:-1], [len(s) for s in sentences])
    arc = heads > 0
    return forms[arc], forms[(first + heads - 1)[arc]], rel[arc]


def lookup_baselines(
    train: Sequence[pkdata.Sentence], test: Sequence[pkdata.Sentence]
) -> dict[str, Any]:
    """Dictionary-lookup accuracies of Pimentel et al. 2020, Table 1 and appendix B.

    POSL: a training word's most frequent tag, else the most frequent tag. DAL (non-root arcs,
    relations with subtypes): the (dependent, head) arc's most frequent label, backing off to the
    dependent word, the head word and the global label.

    Returns:
        ``posl`` and ``dal`` (test accuracy), ``posl_oov_share`` (test words unseen in
        training), ``posl_iv_accuracy`` / ``posl_oov_accuracy``, and ``dal_levels``: a DataFrame
        with one row per back-off level 1..4 (``share`` of test arcs, ``accuracy`` there).
    """
    words, tags = pkdata.flat(train, "forms"), pkdata.flat(train, "upos")
    t_words, t_tags = pkdata.flat(test, "forms"), pkdata.flat(test, "upos")
    posl = pareto.fit_posl_lookup(words, tags)
    hit = pareto.predict_posl_lookup(posl, t_words) == t_tags
    oov = ~np.isin(t_words, np.unique(words))
    dal = pareto.fit_dal_lookup(*_arcs(train))
    dep, head, rel = _arcs(test)
    dal_hit = pareto.predict_dal_lookup(dal, dep, head) == rel
    level = pareto.dal_backoff_level(dal, dep, head)
    levels = pd.DataFrame(
        {
            "level": [1, 2, 3, 4],
            "backs off to": ["arc", "dependent word", "head word", "global label"],
            "share": [float((level == k).mean()) for k in range(1, 5)],
            "accuracy": [
                float(dal_hit[level == k].mean()) if (level == k).any() else np.nan
                for k in range(1, 5)
            ],
        }
    )
    return {
        "posl": float(hit.mean()),
        "dal": float(dal_hit.mean()),
        "posl_oov_share": float(oov.mean()),
        "posl_iv_accuracy": float(hit[~oov].mean()) if (~oov).any() else np.nan,
        "posl_oov_accuracy": float(hit[oov].mean()) if oov.any() else np.nan,
        "dal_levels": levels,
    }


def label_entropies(sentences: Sequence[pkdata.Sentence]) -> pd.DataFrame:
    """H(label) and H(label | word) in bits for POSL and DAL (Pimentel et al. 2020, §7.1; the
    released compile_results.py computes them over train+dev+test).

    For DAL the word is the dependent's form. Returns one row per task with columns task,
    ``H(label)``, ``H(label | word)``, ``share explained`` (1 - ratio), classes, examples.
    """
    forms, upos = pkdata.flat(sentences, "forms"), pkdata.flat(sentences, "upos")
    dep, _, rel = _arcs(sentences)
    rows = []
    for task, labels, words in (("posl", upos, forms), ("dal", rel, dep)):
        h = pareto.entropy(labels)
        hc = pareto.conditional_entropy(labels, words)
        rows.append(
            {
                "task": task,
                "H(label)": h,
                "H(label | word)": hc,
                "share explained": 1.0 - hc / h if h > 0 else np.nan,
                "classes": len(np.unique(labels)),
                "examples": len(labels),
            }
        )
    return pd.DataFrame(rows)
