"""Experiments on the data requirements of probing (Zhu et al. 2022, §4), on UD treebanks.

The statistics (bounds, recommendations, McNemar, power, collapse checks) live in
:mod:`probekit.power`; this module builds the experiments they are applied to:

- **Tasks.** ``past_present``: the binary tense task of SentEval rebuilt from UD features, one
  example per sentence, labelled by the tense of its main clause (:func:`main_verb_tense`).
  ``pos``: one example per word, labelled by its UPOS tag. Examples come from all three treebank
  splits pooled, as the paper pools all SentEval lines before re-splitting (§4.1, reference
  repos §3.3).
- **Encoders.** A contextual layer of the model, or a type-level vector per word form. For the
  tense task a sentence is represented by the vector of its *root word* (``rep="root"``) or by
  the mean of its words' vectors (``rep="mean"``).
- **Subsets.** Stratified train/validation/test subsets of ``size`` training examples per class
  with ``train : val : test = eta : 1 : 1`` (§3.2 step 4, §4.1 and footnote 4), drawn anew for
  every (size, seed).
- **Probes.** Logistic regression (:func:`train_logreg`, batched here) and an MLP with 20 hidden
  units (:func:`probekit.probes.mlp.train_batched`), many subset sizes x seeds x encoders in few
  batched passes. Each probe is scored on its test set at the checkpoint with the best
  validation accuracy (the released code logs the test predictions of the best trial's *last*
  epoch instead, reference repos §3.3).
- **Noise.** Gaussian noise of standard deviation ``sigma`` added to every representation of a
  configuration, train, validation and test alike (§4.3).

The paper's probes are tuned by a grid search over learning rate and batch size with up to 100
epochs (reference repos §3.3); ours use one Adam setting and a minimum number of updates, so
that small subsets are trained as long as large ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from probekit import power as pw
from probekit.data import SPLITS, UPOS_TAGS, Sentence, upos_index
from probekit.data import offsets as sentence_offsets
from probekit.errors import ParameterError

__all__ = [
    "CARRIER_RELATIONS",
    "CLASSIFIERS",
    "MLP_HIDDEN",
    "PAPER_RECOMMENDATIONS",
    "REPS",
    "TASKS",
    "TENSE_LABELS",
    "bound_table",
    "build_pool",
    "check_collapse",
    "choose_sizes",
    "collapse_verdict",
    "comparison_table",
    "contextual_encoder",
    "default_sizes",
    "fasttext_table",
    "fold_splits",
    "layer_encoder",
    "main_verb_tense",
    "max_size",
    "n_params",
    "needed_test_size",
    "paper_examples",
    "paper_recommendations",
    "pilot_splits",
    "plot_accuracies",
    "plot_bound",
    "plot_power",
    "prospective_power",
    "requirement_grid",
    "resolve_layer",
    "run_sizes",
    "seed_tables",
    "stratified_split",
    "tense_carrier",
    "tense_overview",
    "train_logreg",
    "type_encoder",
    "Config",
    "Encoder",
    "Pool",
    "Runs",
    "Split",
    "Training",
]

TASKS = ("past_present", "pos")
REPS = ("root", "mean")
CLASSIFIERS = ("logreg", "mlp20")
#: Class labels of the tense task, in label-index order.
TENSE_LABELS = ("past", "present")
_TENSE_VALUES = ("Past", "Pres")
#: Relations whose dependents may carry a non-finite root's tense (subtypes included).
CARRIER_RELATIONS = ("aux", "cop")
#: Hidden units of the paper's MLP probe (§4.1, §4.6).
MLP_HIDDEN = 20


# --------------------------------------------------------------------------------------------
# The tense task


def _finite(sentence: Sentence, i: int) -> bool:
    return sentence.feats[i].get("VerbForm") == "Fin"


def tense_carrier(sentence: Sentence) -> int | None:
    """0-based index of the word that marks the tense of the main clause, or None.

    The SentEval ``past_present`` task (Conneau et al. 2018; Zhu et al. 2022, §4.1) labels a
    sentence by the tense of its main-clause verb. On a UD tree we define that word as:

    1. the root, if it is finite (``VerbForm=Fin``): *She* **left**;
    2. otherwise the leftmost dependent of the root that is finite and attached as ``aux`` or
       ``cop`` (any subtype, e.g. ``aux:pass``): *She* **was** *happy* (root *happy*), *She*
       **has** *left* (root *left*, a participle), *It* **was** *taken*.

    Rule 2 covers roots that are not verbs (copular clauses) and verbal roots that are not
    finite (periphrastic forms). In the latter the participle's own ``Tense=Past`` feature marks
    the participle, not the clause, so *has left* counts as present, as its finite auxiliary
    does. Sentences with no such word (fragments, infinitival headlines) have no carrier.
    """
    roots = np.flatnonzero(sentence.heads == 0)
    if len(roots) == 0:
        return None
    root = int(roots[0])
    if _finite(sentence, root):
        return root
    for j in range(len(sentence)):
        relation = str(sentence.deprel[j]).split(":")[0]
        if sentence.heads[j] == root + 1 and relation in CARRIER_RELATIONS and _finite(sentence, j):
            return j
    return None


def main_verb_tense(sentence: Sentence) -> str | None:
    """``"past"``, ``"present"`` or None: the tense of the sentence's main clause.

    Zhu et al. 2022, §4.1 (task ``past_present``). The tense is the UD ``Tense`` feature of
    :func:`tense_carrier`; sentences without a carrier, or whose carrier has no ``Tense`` or
    another value (modals such as *will* carry none in EWT; ``Fut``, ``Imp``, ``Pqp`` in other
    languages), get None and are not examples.
    """
    j = tense_carrier(sentence)
    if j is None:
        return None
    value = sentence.feats[j].get("Tense")
    if value not in _TENSE_VALUES:
        return None
    return TENSE_LABELS[_TENSE_VALUES.index(value)]


# --------------------------------------------------------------------------------------------
# Example pools


@dataclass(frozen=True, eq=False)
class Pool:
    """All examples of one task, pooled over the treebank splits.

    Per example, all shape (N,): ``y`` label index into ``labels``; ``split`` index into
    ``splits``; ``sent`` sentence index within its split; ``word`` 0-based index of the word
    that represents it (the root for ``past_present``, the word itself for ``pos``); ``form``
    that word's form. ``sentences`` holds the sentence lists of the splits, by name.
    """

    task: str
    labels: tuple[str, ...]
    y: np.ndarray
    split: np.ndarray
    sent: np.ndarray
    word: np.ndarray
    form: np.ndarray
    sentences: Mapping[str, Sequence[Sentence]]
    splits: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.y)

    @property
    def n_classes(self) -> int:
        return len(self.labels)

    def class_counts(self) -> np.ndarray:
        """Examples per class, shape (n_classes,)."""
        return np.bincount(self.y, minlength=self.n_classes)


def _root(sentence: Sentence) -> int:
    return int(np.flatnonzero(sentence.heads == 0)[0])


def _pos_examples(sents: Sequence[Sentence]) -> dict[str, np.ndarray]:
    """One example per word: UPOS index, sentence index, word index and form, each (N,)."""
    off = sentence_offsets(sents)
    sent = np.repeat(np.arange(len(sents)), np.diff(off))
    return {
        "y": upos_index(sents),
        "sent": sent,
        "word": np.arange(off[-1]) - off[sent],
        "form": np.concatenate([s.forms for s in sents]),
    }


def _tense_examples(sents: Sequence[Sentence]) -> dict[str, np.ndarray]:
    """One example per sentence with a main-clause tense, at its root word, each (N,)."""
    found = [(i, main_verb_tense(s)) for i, s in enumerate(sents)]
    found = [(i, t) for i, t in found if t is not None]
    sent = np.array([i for i, _ in found], dtype=np.int64)
    roots = np.array([_root(sents[i]) for i in sent], dtype=np.int64)
    return {
        "y": np.array([TENSE_LABELS.index(t) for _, t in found], dtype=np.int64),
        "sent": sent,
        "word": roots,
        "form": np.array([sents[i].forms[r] for i, r in zip(sent, roots, strict=True)], dtype=str),
    }


def build_pool(
    sentences: Mapping[str, Sequence[Sentence]], task: str, splits: Sequence[str] = SPLITS
) -> Pool:
    """The examples of ``task`` in the sentences of ``splits`` (Zhu et al. 2022, §4.1).

    ``sentences`` maps split names to sentence lists (a :class:`probekit.data.Treebank` works).
    ``past_present``: one example per sentence with a main-clause tense
    (:func:`main_verb_tense`), represented by its root word. ``pos``: one example per word,
    labelled with its UPOS index in :data:`probekit.data.UPOS_TAGS`; tags absent from the pool
    keep their class index (they simply have no examples).
    """
    if task not in TASKS:
        raise ParameterError("task", f"'{task}' is not one of {', '.join(TASKS)}")
    splits = tuple(splits)
    if not splits:
        raise ParameterError("splits", "needs at least one treebank split")
    examples = _pos_examples if task == "pos" else _tense_examples
    parts = []
    for k, name in enumerate(splits):
        if len(sentences[name]):
            part = examples(sentences[name])
            parts.append(part | {"split": np.full(len(part["y"]), k)})
    arrays = {
        key: np.concatenate([p[key] for p in parts]) if parts else np.zeros(0, np.int64)
        for key in ("y", "sent", "word", "form", "split")
    }
    for key in ("y", "sent", "word", "split"):
        arrays[key] = arrays[key].astype(np.int64)
    labels = UPOS_TAGS if task == "pos" else TENSE_LABELS
    if np.count_nonzero(np.bincount(arrays["y"], minlength=len(labels))) < 2:
        hint = (
            "the tense task needs finite main verbs with the UD feature Tense=Past or Pres"
            if task == "past_present"
            else "POS needs at least two tags"
        )
        raise ParameterError("task", f"'{task}' has fewer than two classes in this treebank", hint)
    return Pool(
        task=task,
        labels=tuple(labels),
        y=arrays["y"],
        split=arrays["split"],
        sent=arrays["sent"],
        word=arrays["word"],
        form=arrays["form"].astype(str),
        sentences={name: sentences[name] for name in splits},
        splits=splits,
    )


# --------------------------------------------------------------------------------------------
# Encoders: what a probe sees of each example


@dataclass(frozen=True, eq=False)
class Encoder:
    """A representation of a pool's examples. ``encode(idx)`` -> float32 (len(idx), dim)."""

    name: str
    dim: int
    encode: Callable[[np.ndarray], np.ndarray]

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        return self.encode(np.asarray(idx, dtype=np.int64))


def resolve_layer(layer: int, n_layers: int) -> int:
    """A layer index in ``0..n_layers-1``; negative values count from the end (-1 = last)."""
    k = layer + n_layers if layer < 0 else layer
    if not 0 <= k < n_layers:
        raise ParameterError("layer", f"{layer} is outside 0..{n_layers - 1}", "-1 is the last")
    return k


def _check_rep(pool: Pool, rep: str) -> None:
    if rep not in REPS:
        raise ParameterError("rep", f"'{rep}' is not one of {', '.join(REPS)}")
    if rep == "mean" and pool.task == "pos":
        raise ParameterError("rep", "'mean' is a sentence representation", "use 'root' for pos")


def _sentence_means(words: np.ndarray, off: np.ndarray, sent: np.ndarray) -> np.ndarray:
    """Mean of rows ``off[s]:off[s+1]`` of ``words`` (N_words, d) for each s in sent -> (k, d)."""
    out = np.empty((len(sent), words.shape[1]), dtype=np.float32)
    for j, s in enumerate(sent):
        out[j] = np.asarray(words[off[s] : off[s + 1]], dtype=np.float32).mean(axis=0)
    return out


def contextual_encoder(
    pool: Pool, layers: Mapping[str, np.ndarray], rep: str = "root", name: str = "contextual"
) -> Encoder:
    """One layer of a contextual model as an :class:`Encoder` (Zhu et al. 2022, §4.1).

    ``layers`` maps each of ``pool.splits`` to that split's (N_words, d) word vectors at the
    chosen layer (e.g. ``probekit.embed.embed(...).layer(k)``, a float16 memory map).
    ``rep="root"``: the vector of the example's word (the root word for ``past_present``);
    ``rep="mean"``: the mean over the sentence's words, computed once for the pool. The paper's
    BERT encoder uses the pooled [CLS] vector instead; neither choice is that.
    """
    _check_rep(pool, rep)
    arrays = [layers[name_] for name_ in pool.splits]
    offs = [sentence_offsets(pool.sentences[name_]).astype(np.int64) for name_ in pool.splits]
    dims = {a.shape[1] for a in arrays}
    if len(dims) != 1:
        raise ParameterError("layers", f"splits have different dimensions {sorted(dims)}")
    dim = dims.pop()
    if rep == "mean":
        table = np.empty((len(pool), dim), dtype=np.float32)
        for k, (words, off) in enumerate(zip(arrays, offs, strict=True)):
            mask = pool.split == k
            table[mask] = _sentence_means(words, off, pool.sent[mask])
        return Encoder(name, dim, lambda idx: table[idx])
    flat_row = np.zeros(len(pool), dtype=np.int64)
    for k, off in enumerate(offs):
        mask = pool.split == k
        flat_row[mask] = off[pool.sent[mask]] + pool.word[mask]

    def encode(idx: np.ndarray) -> np.ndarray:
        out = np.empty((len(idx), dim), dtype=np.float32)
        for k, words in enumerate(arrays):
            mask = pool.split[idx] == k
            if mask.any():
                rows = flat_row[idx[mask]]
                # Sorted reads keep memory-mapped access sequential.
                order = np.argsort(rows)
                block = np.empty((len(rows), dim), dtype=np.float32)
                block[order] = words[rows[order]]
                out[mask] = block
        return out

    return Encoder(name, dim, encode)


def layer_encoder(pool: Pool, embeddings: Mapping, layer: int, rep: str = "root") -> Encoder:
    """:func:`contextual_encoder` for one layer of cached embeddings, named ``"layer k"``.

    ``embeddings`` maps each of ``pool.splits`` to a :class:`probekit.embed.Embeddings`;
    ``layer`` may be negative (-1 is the last layer).
    """
    first = embeddings[pool.splits[0]]
    k = resolve_layer(layer, first.n_layers)
    return contextual_encoder(
        pool, {s: embeddings[s].layer(k) for s in pool.splits}, rep, f"layer {k}"
    )


def type_encoder(
    pool: Pool,
    vectors: Callable[[list[str]], np.ndarray],
    rep: str = "root",
    name: str = "type-level",
) -> Encoder:
    """A type-level (non-contextual) representation as an :class:`Encoder` (Zhu et al. 2022,
    §4.1, the GloVe encoder).

    ``vectors`` maps a list of V word forms to a float array (V, d), e.g.
    ``lambda ws: probekit.pareto.random_type_vectors(ws, 300, seed)`` or a gensim
    ``KeyedVectors`` lookup such as ``lambda ws: kv[ws]``. ``rep="root"``: the vector of the
    example's word form; ``rep="mean"``: the mean over the sentence's forms, as the paper
    averages GloVe vectors over a SentEval sentence.
    """
    _check_rep(pool, rep)
    if rep == "root":
        vocab, inverse = np.unique(pool.form, return_inverse=True)
        table = np.asarray(vectors(vocab.tolist()), dtype=np.float32)
        return Encoder(name, table.shape[1], lambda idx: table[inverse[idx]])
    forms = [
        pool.sentences[pool.splits[k]][s].forms for k, s in zip(pool.split, pool.sent, strict=True)
    ]
    vocab, inverse = np.unique(np.concatenate(forms), return_inverse=True)
    table = np.asarray(vectors(vocab.tolist()), dtype=np.float32)
    off = sentence_offsets(forms).astype(np.int64) if forms else np.zeros(1, np.int64)
    means = _sentence_means(table[inverse], off, np.arange(len(forms)))
    return Encoder(name, table.shape[1], lambda idx: means[idx])


# --------------------------------------------------------------------------------------------
# Stratified subsets (§4.1)


@dataclass(frozen=True, eq=False)
class Split:
    """Pool indices of one subset, each part sorted by class, then by pool index.

    ``train`` (n_train,), ``val`` (n_val,), ``test`` (n_test,). Two splits of the same pool,
    size and eta have identical label sequences in every part (see :func:`stratified_split`).
    """

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray

    @property
    def eval(self) -> np.ndarray:
        """Validation then test indices, shape (n_val + n_test,)."""
        return np.concatenate([self.val, self.test])


def _allocation(counts: np.ndarray, size: int, eta: float, balanced: bool) -> np.ndarray:
    """Training examples per class (n_classes,): ``size`` each, or ``size * C`` split in
    proportion to the counts (rounded down) over the classes present."""
    present = counts > 0
    if balanced:
        return np.where(present, size, 0)
    total = size * int(present.sum())
    return np.floor(total * counts / counts.sum()).astype(np.int64)


def _eval_per_class(n_train: np.ndarray, eta: float) -> np.ndarray:
    return np.floor(n_train / eta).astype(np.int64)


def _fits(counts: np.ndarray, size: int, eta: float, balanced: bool) -> bool:
    """Whether every class has the examples a subset of ``size`` takes (monotone in size)."""
    n_train = _allocation(counts, size, eta, balanced)
    return bool(np.all(n_train + 2 * _eval_per_class(n_train, eta) <= counts))


def _feasible(counts: np.ndarray, size: int, eta: float, balanced: bool) -> bool:
    # A subset also needs at least one validation and one test example to be scored.
    n_eval = _eval_per_class(_allocation(counts, size, eta, balanced), eta)
    return _fits(counts, size, eta, balanced) and bool(n_eval.sum() > 0)


def _check_eta(eta: float) -> float:
    if not (isinstance(eta, int | float) and math.isfinite(eta) and eta > 0):
        raise ParameterError("eta", f"must be a positive number, got {eta!r}")
    return float(eta)


def max_size(y: np.ndarray, eta: float = 4.0, balanced: bool = True) -> int:
    """The largest ``size`` (training examples per class) that ``y`` (N,) allows.

    Zhu et al. 2022, §4.1 ("where applicable"): a subset needs ``size * (1 + 2/eta)``
    examples of every class when ``balanced``; otherwise of the pool as a whole, with classes in
    their pool proportions. 0 if not even one example per class fits.
    """
    eta = _check_eta(eta)
    counts = np.bincount(np.asarray(y, dtype=np.int64))
    if counts.sum() == 0:
        return 0
    hi = int(counts[counts > 0].min() if balanced else counts.sum())
    lo = 0
    while lo < hi:  # fitting is monotone in size
        mid = (lo + hi + 1) // 2
        if _fits(counts, mid, eta, balanced):
            lo = mid
        else:
            hi = mid - 1
    return lo if lo > 0 and _feasible(counts, lo, eta, balanced) else 0


def default_sizes(
    y: np.ndarray,
    eta: float = 4.0,
    balanced: bool = True,
    smallest: int = 128,
    max_train: int = 0,
    include_max: bool = True,
) -> list[int]:
    """Powers of two from ``smallest`` up to the largest usable size, plus that size itself.

    The paper samples 2^7, 2^9, ..., 2^15 training examples per class (Zhu et al. 2022, §4.1);
    a treebank allows fewer, so every power of two that fits is used. The largest usable size
    is :func:`max_size`, capped so that a subset has at most ``max_train`` training examples
    over all classes (0: no cap); it is added when it is not a power of two (``include_max``).
    """
    top = max_size(y, eta, balanced)
    if max_train > 0:
        n_present = int(np.count_nonzero(np.bincount(np.asarray(y, dtype=np.int64))))
        top = min(top, max_train // max(1, n_present))
    # A small treebank may not reach ``smallest``; it then gets every power of two it allows.
    start = math.ceil(math.log2(smallest)) if top >= smallest else 0
    counts = np.bincount(np.asarray(y, dtype=np.int64))
    sizes = [1 << k for k in range(start, 40) if 1 << k <= top]
    sizes = [s for s in sizes if _feasible(counts, s, eta, balanced)]
    if include_max and top > 0 and (not sizes or sizes[-1] != top):
        sizes.append(top)
    return sizes


def choose_sizes(
    pool: Pool,
    sizes: Sequence[int] = (),
    eta: float = 4.0,
    max_train: int = 0,
    smallest: int = 128,
) -> list[int]:
    """The subset sizes (training examples per class) to run on ``pool`` (Zhu et al. 2022, §4.1).

    ``sizes`` empty: :func:`default_sizes`. Otherwise the given sizes that the pool allows
    (larger ones are dropped, so one list can serve tasks of different sizes); a
    :class:`ParameterError` if none is left. Balanced strata for ``past_present``,
    proportional ones for ``pos``.
    """
    balanced = pool.task == "past_present"
    if not sizes:
        chosen = default_sizes(pool.y, eta, balanced, smallest, max_train)
    else:
        top = max_size(pool.y, eta, balanced)
        counts = np.bincount(pool.y)
        chosen = sorted({int(s) for s in sizes if 0 < int(s) <= top})
        chosen = [s for s in chosen if _feasible(counts, s, eta, balanced)]
    if not chosen:
        top = max_size(pool.y, eta, balanced)
        counts = ", ".join(
            f"{n:,} {lab}" for lab, n in zip(pool.labels, pool.class_counts(), strict=True) if n
        )
        hint = (
            f"use sizes up to {top} examples per class"
            if top
            else "the treebank has too few examples for this task; choose another task or treebank"
        )
        raise ParameterError(
            "sizes", f"no subset size fits task '{pool.task}' ({counts}) at eta {eta:g}", hint
        )
    return chosen


def stratified_split(
    y: np.ndarray, size: int, eta: float = 4.0, seed: int = 0, balanced: bool = True
) -> Split:
    """A stratified train/val/test subset with ``train : val : test = eta : 1 : 1``.

    Zhu et al. 2022, §3.2 step 4, §4.1 and footnote 4 (2^7 training examples per class with
    eta = 4 give 256 train, 64 val and 64 test examples on a binary task). ``y`` (N,) labels of
    the pool. Per class c, ``n_c`` training examples (``size``, or proportional with
    ``balanced=False``) and ``floor(n_c / eta)`` validation and test examples are drawn without
    replacement with ``numpy.random.default_rng(seed)``. The paper uses 1:1:1 in its released
    scripts but eta = 4 in the text; eta is a parameter.
    """
    eta = _check_eta(eta)
    y = np.asarray(y, dtype=np.int64)
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
        raise ParameterError("size", f"must be a positive integer, got {size!r}")
    counts = np.bincount(y)
    if not _feasible(counts, int(size), eta, balanced):
        raise ParameterError(
            "size",
            f"{size} training examples per class need more data than the pool has",
            f"the largest possible size is {max_size(y, eta, balanced)} (see max_size)",
        )
    n_train = _allocation(counts, int(size), eta, balanced)
    n_eval = _eval_per_class(n_train, eta)
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for c in np.flatnonzero(counts):
        members = np.flatnonzero(y == c)
        pick = rng.choice(members, size=n_train[c] + 2 * n_eval[c], replace=False)
        cuts = np.cumsum([n_train[c], n_eval[c]])
        for part, rows in zip(parts, np.split(pick, cuts), strict=True):
            part.append(np.sort(rows))
    train, val, test = (np.concatenate(p) if p else np.zeros(0, np.int64) for p in parts)
    return Split(train, val, test)


# --------------------------------------------------------------------------------------------
# Batched logistic regression


def train_logreg(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_eval: np.ndarray,
    y_eval: np.ndarray,
    n_classes: int,
    specs: Sequence,
    *,
    epochs: int,
    batch_size: int = 64,
    lr: float = 1e-3,
    checkpoints: Sequence[int],
) -> np.ndarray:
    """Train K softmax-regression probes at once; their correctness at each checkpoint.

    The logistic-regression probe of Zhu et al. 2022, §4.1 (``hid_sizes = []``: one linear
    layer, cross-entropy, Adam). Inputs follow :func:`probekit.probes.mlp.train_batched`:
    ``X_train`` (V, N, d) views with labels ``y_train`` (N,), ``X_eval`` (V, M, d) with
    ``y_eval`` (M,), and ``specs`` (K,) :class:`probekit.probes.mlp.ProbeSpec` giving each
    probe's init seed, view, training rows (index array; all probes the same number) and order
    seed. Initialisation as PyTorch's ``nn.Linear`` from ``torch.Generator(seed)``; epoch orders
    from :func:`probekit.probes.mlp.epoch_orders`. Each probe minimises its batch-mean
    cross-entropy with its own Adam (torch defaults); the result equals training the K probes
    one by one with ``nn.Linear`` and ``torch.optim.Adam`` (see the tests).

    Returns a bool array (K, len(checkpoints), M): whether probe k is right on eval row i after
    the given number of updates. (``probekit.probes.softmax.train_linear_probes`` returns no
    predictions and shares one training set between probes, hence this trainer.)
    """
    import torch

    from probekit.probes.mlp import epoch_orders

    Xt = torch.as_tensor(np.ascontiguousarray(X_train, dtype=np.float32))
    Xe = torch.as_tensor(np.ascontiguousarray(X_eval, dtype=np.float32))
    if Xt.ndim != 3 or Xe.ndim != 3 or Xt.shape[0] != Xe.shape[0] or Xt.shape[2] != Xe.shape[2]:
        raise ParameterError("X_train", "X_train (V, N, d) and X_eval (V, M, d) must match")
    V, N, d = Xt.shape
    K, C = len(specs), int(n_classes)
    rows = [np.unique(np.asarray(s.train, dtype=np.int64)) for s in specs]
    if K == 0 or len({len(r) for r in rows}) != 1 or len(rows[0]) == 0:
        raise ParameterError("specs", "need one or more probes with equally many training rows")
    view = np.array([int(s.view) for s in specs])
    if view.min() < 0 or view.max() >= V:
        raise ParameterError("specs", f"views must lie in 0..{V - 1}")
    n = len(rows[0])
    ckpts = sorted({int(c) for c in checkpoints})
    if not ckpts or ckpts[0] < 1 or ckpts[-1] > epochs * math.ceil(n / batch_size):
        raise ParameterError("checkpoints", f"must lie in 1..{epochs * math.ceil(n / batch_size)}")
    # Flat row ids (view * N + row) of every probe's visits, shape (epochs, K, n).
    order = np.stack(
        [r[epoch_orders(n, epochs, s.order_seed)] for r, s in zip(rows, specs, strict=True)], 1
    )
    state = _LinearState(specs, d, C)
    flat = torch.as_tensor(order + (view * N)[None, :, None])
    labels = torch.as_tensor(np.asarray(y_train, dtype=np.int64)).repeat(V)[flat]
    ye = torch.as_tensor(np.asarray(y_eval, dtype=np.int64))
    out = np.zeros((K, len(ckpts), Xe.shape[1]), dtype=bool)
    threads = torch.get_num_threads()
    # The ops are tiny: one thread avoids per-op barriers that stall when cores are shared.
    torch.set_num_threads(1)
    try:
        t = 0
        for epoch in range(epochs):
            for start in range(0, n, batch_size):
                stop = start + batch_size
                state.step(
                    Xt.view(V * N, d), flat[epoch, :, start:stop], labels[epoch, :, start:stop], lr
                )
                t += 1
                if t in ckpts:
                    out[:, ckpts.index(t)] = state.correct(Xe, ye, view)
    finally:
        torch.set_num_threads(threads)
    return out


class _LinearState:
    """Stacked weights W (K, d, C), biases b (K, 1, C) and Adam moments of K linear probes."""

    def __init__(self, specs: Sequence, d: int, C: int):
        import torch

        K = len(specs)
        bound = 1.0 / math.sqrt(d)
        self.W = torch.empty(K, d, C)
        self.b = torch.empty(K, 1, C)
        for k, s in enumerate(specs):
            # nn.Linear's draw order and layout: weight (C, d), then bias (C,).
            g = torch.Generator().manual_seed(int(s.seed))
            self.W[k] = torch.empty(C, d).uniform_(-bound, bound, generator=g).T
            self.b[k, 0] = torch.empty(C).uniform_(-bound, bound, generator=g)
        self.params = [self.W, self.b]
        self.grads = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.m = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.v = [torch.zeros_like(self.W), torch.zeros_like(self.b)]
        self.t = torch.zeros(())

    def step(self, X_flat, idx, y, lr: float) -> None:
        """One Adam step on minibatches ``idx`` (K, B) of flat rows with labels ``y`` (K, B)."""
        import torch

        K, B = idx.shape
        Xb = torch.index_select(X_flat, 0, idx.reshape(-1)).view(K, B, -1)
        # Softmax cross-entropy: d(batch-mean loss)/d(logits) = (softmax - onehot) / B.
        G = torch.softmax(torch.baddbmm(self.b, Xb, self.W), dim=-1)
        G.view(K * B, -1)[torch.arange(K * B), y.reshape(-1)] -= 1.0
        G.mul_(1.0 / B)
        torch.bmm(Xb.transpose(1, 2), G, out=self.grads[0])
        torch.sum(G, dim=1, keepdim=True, out=self.grads[1])
        self.t += 1
        if hasattr(torch, "_fused_adam_"):
            torch._fused_adam_(
                self.params, self.grads, self.m, self.v, [], [self.t, self.t],
                lr=lr, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                amsgrad=False, maximize=False,
            )  # fmt: skip
            return
        t = float(self.t)
        for p, g, m, v in zip(self.params, self.grads, self.m, self.v, strict=True):
            m.lerp_(g, 0.1)
            v.mul_(0.999).addcmul_(g, g, value=0.001)
            denom = (v.sqrt() / math.sqrt(1 - 0.999**t)).add_(1e-8)
            p.addcdiv_(m, denom, value=-lr / (1 - 0.9**t))

    def correct(self, Xe, ye, view: np.ndarray) -> np.ndarray:
        """Correctness (K, M) of every probe on its view of the eval rows ``Xe`` (V, M, d)."""
        import torch

        out = np.zeros((self.W.shape[0], Xe.shape[1]), dtype=bool)
        with torch.inference_mode():
            for v in np.unique(view):
                ks = torch.as_tensor(np.flatnonzero(view == v))
                pred = torch.baddbmm(self.b[ks], Xe[int(v)].expand(len(ks), -1, -1), self.W[ks])
                out[ks.numpy()] = (pred.argmax(-1) == ye).numpy()
        return out


# --------------------------------------------------------------------------------------------
# Running many sizes x seeds x configurations


@dataclass(frozen=True)
class Config:
    """One probing configuration {E, f} of Zhu et al. 2022, Definition 1 (T is the pool's task).

    ``encoder``: key of an :class:`Encoder`; ``classifier``: ``"logreg"`` or ``"mlp20"``;
    ``sigma``: standard deviation of the Gaussian noise added to the representations (§4.3).
    The paper's text writes the noise as N(0, sigma^2) with sigma^2 in {0.01, ..., 3}; its code
    passes those values as the standard deviation, and so do we.
    """

    name: str
    encoder: str
    classifier: str = "logreg"
    sigma: float = 0.0


@dataclass(frozen=True)
class Training:
    """How every probe is trained (one Adam setting; the paper grid-searches, §3.3 of the
    reference notes). A probe runs ``max(epochs, ceil(min_updates / steps_per_epoch))`` epochs
    and is evaluated at ``n_checks`` evenly spaced epoch ends; the checkpoint with the best
    validation accuracy gives its test predictions. ``max_bytes`` bounds the input views held
    at once (probes are trained in several passes beyond it)."""

    epochs: int = 20
    min_updates: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    lr_mlp: float = 1e-3
    n_checks: int = 10
    max_bytes: int = 400_000_000

    def schedule(self, n_train: int) -> tuple[int, list[int]]:
        """(epochs, checkpoint update counts) for a training set of ``n_train`` examples."""
        steps = math.ceil(n_train / self.batch_size)
        epochs = max(self.epochs, math.ceil(self.min_updates / steps))
        ends = np.unique(np.ceil(np.linspace(0, epochs, self.n_checks + 1)[1:]).astype(int))
        return epochs, [int(e) * steps for e in ends if e >= 1]


@dataclass(eq=False)
class Runs:
    """Results of :func:`run_sizes`.

    ``scores``: one row per (config, size, seed) with ``n_train``, ``n_val``, ``n_test``
    (examples), ``acc_val`` and ``acc_test`` at the selected checkpoint, and that
    ``checkpoint``'s index.
    ``correct[(config, size, seed)]``: bool (n_test,) test correctness, items in the order of
    ``splits[(size, seed)].test``. ``dims``: input dimension per config.
    """

    pool_task: str
    n_classes: int
    configs: tuple[Config, ...]
    seeds: tuple[int, ...]
    sizes: tuple[int, ...]
    scores: pd.DataFrame
    correct: dict[tuple[str, int, int], np.ndarray]
    splits: dict[tuple[int, int], Split]
    dims: dict[str, int] = field(default_factory=dict)

    def config(self, name: str) -> Config:
        for c in self.configs:
            if c.name == name:
                return c
        raise ParameterError("config", f"'{name}' is not one of {[c.name for c in self.configs]}")

    def mean_accuracy(self) -> pd.DataFrame:
        """Mean and SD of test accuracy over seeds, one row per (config, size)."""
        grouped = self.scores.groupby(["config", "size"], sort=False)
        out = grouped.agg(
            n_train=("n_train", "first"),
            n_test=("n_test", "first"),
            acc=("acc_test", "mean"),
            sd=("acc_test", "std"),
        )
        return out.reset_index()


def _check_configs(configs: Sequence[Config], encoders: Mapping[str, Encoder]) -> None:
    names = [c.name for c in configs]
    if not configs or len(set(names)) != len(names):
        raise ParameterError("configs", f"need distinct names, got {names}")
    for c in configs:
        if c.encoder not in encoders:
            raise ParameterError("configs", f"{c.name}: unknown encoder '{c.encoder}'")
        if c.classifier not in CLASSIFIERS:
            raise ParameterError("classifier", f"'{c.classifier}' is not one of {CLASSIFIERS}")
        if not (math.isfinite(c.sigma) and c.sigma >= 0):
            raise ParameterError("sigma", f"must be >= 0, got {c.sigma}")


def _view_key(config: Config, key: int) -> tuple:
    # Clean views are shared by all subsets; a noisy view belongs to one subset.
    return (config.encoder, config.sigma, key if config.sigma > 0 else None)


def _passes(probes: list[tuple[Config, int]], view_bytes: int, budget: int) -> list[list]:
    """Group probes (config, subset key) into passes whose distinct views fit ``budget``."""
    passes: list[list] = [[]]
    seen: set[tuple] = set()
    for probe in probes:
        view = _view_key(*probe)
        if view not in seen and passes[-1] and (len(seen) + 1) * view_bytes > budget:
            passes.append([])
            seen = set()
        seen.add(view)
        passes[-1].append(probe)
    return passes


def _train_pass(
    probes: list[tuple[Config, int]],
    splits: Mapping[int, Split],
    pool: Pool,
    encoders: Mapping[str, Encoder],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], np.ndarray]:
    """Train one pass of probes (config, subset key) of one classifier and input dimension.

    All subsets have equally many training rows. Returns, per probe, its correctness at each
    checkpoint on its subset's validation then test rows, bool (n_ckpt, n_val + n_test).
    """
    from probekit.probes.mlp import ProbeSpec, train_batched

    classifier = probes[0][0].classifier
    keys = sorted({key for _, key in probes})
    train_rows = np.unique(np.concatenate([splits[k].train for k in keys]))
    eval_rows = np.unique(np.concatenate([splits[k].eval for k in keys]))
    views = list(dict.fromkeys(_view_key(c, key) for c, key in probes))
    dim = encoders[probes[0][0].encoder].dim
    Xt = np.empty((len(views), len(train_rows), dim), dtype=np.float32)
    Xe = np.empty((len(views), len(eval_rows), dim), dtype=np.float32)
    clean: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for v, (enc, sigma, key) in enumerate(views):
        if enc not in clean:
            clean[enc] = (encoders[enc](train_rows), encoders[enc](eval_rows))
        Xt[v], Xe[v] = clean[enc]
        if sigma > 0:
            split = splits[key]
            n_tr, n_all = len(split.train), len(split.train) + len(split.eval)
            # One draw per subset, shared by every sigma, so noise levels differ only in scale.
            z = np.random.default_rng(noise_seed(key)).standard_normal((n_all, dim), np.float32)
            Xt[v, np.searchsorted(train_rows, split.train)] += sigma * z[:n_tr]
            Xe[v, np.searchsorted(eval_rows, split.eval)] += sigma * z[n_tr:]
    specs = [
        ProbeSpec(
            seed=init_seed(key),
            view=views.index(_view_key(c, key)),
            order_seed=init_seed(key),
            train=np.searchsorted(train_rows, splits[key].train),
        )
        for c, key in probes
    ]
    epochs, ckpts = training.schedule(len(splits[keys[0]].train))
    yt, ye = pool.y[train_rows], pool.y[eval_rows]
    if classifier == "logreg":
        correct = train_logreg(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, lr=training.lr, checkpoints=ckpts,
        )  # fmt: skip
    else:
        result = train_batched(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, hidden=MLP_HIDDEN, lr=training.lr_mlp,
            checkpoints=ckpts,
        )  # fmt: skip
        correct = result.ckpt_correct_eval
    return {
        (c.name, key): correct[k][:, np.searchsorted(eval_rows, splits[key].eval)]
        for k, (c, key) in enumerate(probes)
    }


def _select(ckpt_correct: np.ndarray, n_val: int) -> tuple[int, float, np.ndarray]:
    """(checkpoint, validation accuracy, test correctness) at the best validation accuracy;
    ties go to the earliest checkpoint. ``ckpt_correct`` (n_ckpt, n_val + n_test)."""
    val_acc = ckpt_correct[:, :n_val].mean(axis=1)
    best = int(np.argmax(val_acc))
    return best, float(val_acc[best]), ckpt_correct[best, n_val:]


def _train_subsets(
    pool: Pool,
    encoders: Mapping[str, Encoder],
    configs: Sequence[Config],
    splits: Mapping[int, Split],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], tuple[int, float, np.ndarray]]:
    """Every config on every subset (equal training sizes), in batched passes grouped by
    classifier and input dimension; {(config, key): (checkpoint, acc_val, test correctness)}."""
    keys = list(splits)
    groups: dict[tuple, list[tuple[Config, int]]] = {}
    for c in configs:
        for key in keys:
            groups.setdefault((c.classifier, encoders[c.encoder].dim), []).append((c, key))
    out = {}
    for (_, dim), probes in groups.items():
        view_bytes = sum(len(splits[k].train) + len(splits[k].eval) for k in keys) * dim * 4
        for part in _passes(probes, view_bytes, training.max_bytes):
            result = _train_pass(part, splits, pool, encoders, training, init_seed, noise_seed)
            for (name, key), cc in result.items():
                out[(name, key)] = _select(cc, len(splits[key].val))
    return out


def run_sizes(
    pool: Pool,
    encoders: Mapping[str, Encoder],
    configs: Sequence[Config],
    sizes: Sequence[int],
    seeds: Sequence[int],
    *,
    eta: float = 4.0,
    balanced: bool | None = None,
    training: Training | None = None,
) -> Runs:
    """Train every config on stratified subsets of every size, once per seed (Zhu et al. 2022,
    §4.2-4.6).

    For each ``size`` (training examples per class) and ``seed`` one subset is drawn with
    :func:`stratified_split` (seeded by ``[seed, size]``); every config trains on it with init
    and data order from ``seed``, so the configs of a comparison are paired on the same test
    items, as in the released code. Noisy configs (``sigma > 0``) get noise drawn once per
    subset (seeded by ``[seed, size, 7919]``) and scaled by each sigma. ``balanced`` defaults to
    True for ``past_present`` and False (proportional strata) for ``pos``. Probes of one size,
    classifier and input dimension train together in batched passes. Returns :class:`Runs`.
    """
    _check_configs(configs, encoders)
    training = training or Training()
    seeds = tuple(int(s) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ParameterError("seeds", f"need distinct seeds, got {list(seeds)}")
    if not sizes:
        raise ParameterError("sizes", "need at least one subset size")
    balanced = pool.task == "past_present" if balanced is None else balanced
    rows, correct, all_splits = [], {}, {}
    for size in (int(s) for s in sizes):
        splits = {s: stratified_split(pool.y, size, eta, [s, size], balanced) for s in seeds}
        all_splits.update({(size, s): sp for s, sp in splits.items()})
        results = _train_subsets(
            pool, encoders, configs, splits, training,
            init_seed=lambda s: s, noise_seed=lambda s, size=size: [s, size, 7919],
        )  # fmt: skip
        for c in configs:
            for s in seeds:
                best, acc_val, test = results[(c.name, s)]
                correct[(c.name, size, s)] = test
                rows.append(
                    {
                        "config": c.name,
                        "size": size,
                        "seed": s,
                        "n_train": len(splits[s].train),
                        "n_val": len(splits[s].val),
                        "n_test": len(splits[s].test),
                        "acc_val": acc_val,
                        "acc_test": float(test.mean()),
                        "checkpoint": best,
                    }
                )
    return Runs(
        pool_task=pool.task,
        n_classes=pool.n_classes,
        configs=tuple(configs),
        seeds=seeds,
        sizes=tuple(int(s) for s in sizes),
        scores=pd.DataFrame(rows),
        correct=correct,
        splits=all_splits,
        dims={c.name: encoders[c.encoder].dim for c in configs},
    )


# --------------------------------------------------------------------------------------------
# Bounds, recommendations and power on the runs (§3.3-3.6, §4.2-4.6)


def n_params(classifier: str, dim: int, n_classes: int) -> int:
    """Parameter count of a probe as the paper counts it (Zhu et al. 2022, §3.4, footnote 6):
    ``D + 1`` for binary logistic regression, ``(D + 1) H + H + 1`` for the MLP with H = 20;
    one output per class when there are more than two (see :func:`probekit.power.n_params_mlp`).
    """
    if classifier not in CLASSIFIERS:
        raise ParameterError("classifier", f"'{classifier}' is not one of {CLASSIFIERS}")
    hidden = () if classifier == "logreg" else (MLP_HIDDEN,)
    return pw.n_params_mlp(dim, hidden, n_classes)


def _config_params(runs: Runs, name: str) -> int:
    c = runs.config(name)
    return n_params(c.classifier, runs.dims[name], runs.n_classes)


def bound_table(
    runs: Runs, config: str, *, delta: float = 1e-8, count: pw.Count = "paper"
) -> pd.DataFrame:
    """The empirical accuracy spread against the generalisation bound (Zhu et al. 2022, §4.2,
    Fig. 2), one row per subset size.

    Columns: ``size``, ``n_train`` (training examples, all classes), ``acc`` and ``sd`` (mean
    and SD of test accuracy over seeds), ``bound`` = ``B(n_train, delta)`` of eq. 1 with the
    config's parameter count, ``lo``/``hi`` = ``acc -/+ bound`` (the paper's green lines; the
    released notebook draws ``bound / 2``), ``runs_inside`` (share of the seeds' accuracies in
    [lo, hi]), ``gap_to_largest`` = |acc - acc at the largest size|, a stand-in for
    |R(f_hat) - R(f*)| when the largest subset is taken as the best estimate of R(f*), and
    ``gap_within_bound``.
    """
    scores = runs.scores[runs.scores["config"] == config]
    if scores.empty:
        raise ParameterError("config", f"'{config}' has no runs")
    table = (
        scores.groupby("size")
        .agg(n_train=("n_train", "first"), acc=("acc_test", "mean"), sd=("acc_test", "std"))
        .reset_index()
    )
    k = _config_params(runs, config)
    table["bound"] = pw.finite_class_bound(table["n_train"].to_numpy(float), k, delta, count=count)
    table["lo"] = table["acc"] - table["bound"]
    table["hi"] = table["acc"] + table["bound"]
    merged = scores.merge(table[["size", "lo", "hi"]], on="size")
    inside = (merged["acc_test"] >= merged["lo"]) & (merged["acc_test"] <= merged["hi"])
    table["runs_inside"] = inside.groupby(merged["size"]).mean().to_numpy()
    table["gap_to_largest"] = (table["acc"] - table["acc"].iloc[-1]).abs()
    table["gap_within_bound"] = table["gap_to_largest"] <= table["bound"]
    return table


def seed_tables(runs: Runs, a: str, b: str, size: int) -> np.ndarray:
    """McNemar count tables of configs ``a`` and ``b`` at one size, one per seed, (S, 2, 2)
    int64 in the layout of Zhu et al. 2022, Table 1 (rows a, columns b)."""
    return np.stack(
        [
            pw.mcnemar_table(runs.correct[(a, size, s)], runs.correct[(b, size, s)])
            for s in runs.seeds
        ]
    )


def comparison_table(
    runs: Runs,
    a: str,
    b: str,
    *,
    delta: float = 1e-8,
    eta: float = 4.0,
    alpha: float = 0.05,
    n_sim: int = 1000,
    divisor: float = 2.0,
) -> pd.DataFrame:
    """One comparison problem across subset sizes, as Tables 2-4 and Figs. 4-6 of Zhu et al.
    2022 (§3.2, §3.5, §4.4-4.6) report it.

    Per size: ``n_train`` and ``n_test`` (examples), mean test accuracies ``acc_a`` and
    ``acc_b``, ``gap`` = mean over seeds of ``acc_a - acc_b`` and ``abs_gap``; ``n_train_rec``,
    the training size :func:`probekit.power.recommend` derives from this pilot (``epsilon =
    |gap| / divisor``, the larger parameter count of the two configs; NaN when the gap is 0);
    ``enough`` = ``n_train >= n_train_rec``; ``power`` of McNemar's test at ``n_test``, averaged
    over the seeds' tables (§3.5, :func:`probekit.power.power`); ``type_m``; ``significant``, the
    share of seeds whose exact McNemar test gives p <= alpha; ``well_powered`` = power >= 0.8.
    """
    params = [_config_params(runs, a), _config_params(runs, b)]
    rows = []
    for size in runs.sizes:
        tables = seed_tables(runs, a, b, size)
        n_test = int(tables[0].sum())
        accs_a = tables[:, 1, :].sum(axis=1) / n_test
        accs_b = tables[:, :, 1].sum(axis=1) / n_test
        gap = float(np.mean(accs_a - accs_b))
        acc_a, acc_b = float(accs_a.mean()), float(accs_b.mean())
        rec = (
            pw.recommend(acc_a, acc_b, params, delta=delta, eta=eta, divisor=divisor).n_train
            if acc_a != acc_b
            else np.nan
        )
        sim = pw.power(tables / n_test, n_test, alpha=alpha, n_sim=n_sim, seeds=runs.seeds)
        p_values = [pw.mcnemar_exact(t).p_value for t in tables]
        n_train = int(runs.scores.query("size == @size")["n_train"].iloc[0])
        rows.append(
            {
                "size": size,
                "n_train": n_train,
                "n_test": n_test,
                "acc_a": acc_a,
                "acc_b": acc_b,
                "gap": gap,
                "abs_gap": abs(gap),
                "n_train_rec": rec,
                "enough": bool(n_train >= rec),
                "power": sim.power,
                "type_m": np.nan if sim.type_m is None else sim.type_m,
                "significant": float(np.mean(np.array(p_values) <= alpha)),
                "well_powered": sim.power >= pw.POWER_THRESHOLD,
            }
        )
    return pd.DataFrame(rows)


def prospective_power(
    runs: Runs,
    a: str,
    b: str,
    size: int,
    test_sizes: Sequence[int],
    *,
    alpha: float = 0.05,
    n_sim: int = 1000,
) -> pd.DataFrame:
    """Power of the comparison at other test sizes, from the joint proportions observed at
    ``size`` (Zhu et al. 2022, §3.5; :func:`probekit.power.power_curve`). Answers "how many test
    items would this gap need", which our treebank cannot test directly. Columns as
    :func:`probekit.power.power_curve`."""
    tables = seed_tables(runs, a, b, size)
    props = tables / tables[0].sum()
    return pw.power_curve(props, test_sizes, alpha=alpha, n_sim=n_sim, seeds=runs.seeds)


def needed_test_size(curve: pd.DataFrame, target: float = pw.POWER_THRESHOLD) -> int:
    """The smallest test size ``n`` in a power curve with ``power >= target``; 0 if none."""
    hit = curve.loc[curve["power"] >= target, "n"]
    return int(hit.iloc[0]) if len(hit) else 0


# --------------------------------------------------------------------------------------------
# Collapsed comparisons (§3.6)


def fold_splits(
    y: np.ndarray, n_items: int, n_folds: int = 6, seed: int = 0, balanced: bool = True
) -> list[Split]:
    """The rotating folds of Zhu et al. 2022, §3.6 over a stratified sample of the pool.

    About ``n_items`` examples are drawn (equally many per class when ``balanced``, at random
    otherwise), as many as make a multiple of ``n_folds``, so that every run trains on equally
    many examples;
    :func:`probekit.power.rotation_splits` then validates run i on fold i, tests on fold
    (i + 1) mod n_folds and trains on the rest. Returns ``n_folds`` :class:`Split` of pool
    indices.
    """
    n_folds = int(n_folds)
    if n_folds < 3:
        raise ParameterError("n_folds", f"must be >= 3, got {n_folds}")
    y = np.asarray(y, dtype=np.int64)
    counts = np.bincount(y)
    present = np.flatnonzero(counts)
    per_class = n_items // len(present)
    # Equal folds need a multiple of n_folds items; trimming per class keeps the balance.
    while per_class > 0 and (per_class * len(present)) % n_folds:
        per_class -= 1
    rng = np.random.default_rng(seed)
    if balanced:
        if per_class < 1 or per_class > counts[present].min():
            raise ParameterError(
                "n_items", f"{n_items} balanced items need {per_class} of each class",
                f"at most {counts[present].min() * len(present)} fit",
            )  # fmt: skip
        items = np.concatenate(
            [rng.choice(np.flatnonzero(y == c), per_class, False) for c in present]
        )
    else:
        if not 0 < n_items <= len(y):
            raise ParameterError("n_items", f"must lie in 1..{len(y)}, got {n_items}")
        items = rng.choice(len(y), n_items - n_items % n_folds, replace=False)
    items = np.sort(items)
    return [
        Split(items[s.train], items[s.val], items[s.test])
        for s in pw.rotation_splits(len(items), n_folds, seed=seed)
    ]


def pilot_splits(
    y: np.ndarray,
    size: int,
    n_repeats: int,
    eta: float = 4.0,
    seed: int = 0,
    balanced: bool = True,
) -> list[Split]:
    """Repeated stratified pilot subsets of one size (Zhu et al. 2022, §3.6), seeded by
    ``[seed, r]`` for r = 0..n_repeats-1."""
    if n_repeats < 1:
        raise ParameterError("n_repeats", f"must be >= 1, got {n_repeats}")
    return [stratified_split(y, size, eta, [seed, r], balanced) for r in range(n_repeats)]


def check_collapse(
    pool: Pool,
    encoders: Mapping[str, Encoder],
    a: Config,
    b: Config,
    splits: Sequence[Split],
    *,
    seed: int,
    training: Training | None = None,
    alpha: float = 0.05,
) -> pw.CollapseReport:
    """Train configs ``a`` and ``b`` on every split and test each pair (Zhu et al. 2022, §3.6).

    ``splits`` from :func:`fold_splits` (the rotation) or :func:`pilot_splits` (repeated
    pilots), all with equally many training examples. Both configs are trained in batched
    passes with init and order ``seed``, selected on each split's validation part, and compared
    on its test part by :func:`probekit.power.collapse_check`: frequent sign flips and a
    significance rate near ``alpha`` suggest the comparison has collapsed.
    """
    if not splits:
        raise ParameterError("splits", "needs at least one split")
    keyed = dict(enumerate(splits))
    results = _train_subsets(
        pool, encoders, [a, b], keyed, training or Training(),
        init_seed=lambda k: seed, noise_seed=lambda k: [seed, k, 7919],
    )  # fmt: skip
    by_test = {splits[k].test.tobytes(): k for k in keyed}

    def fit_predict(train_idx, test_idx, val_idx=None):
        k = by_test[np.asarray(test_idx).tobytes()]
        return results[(a.name, k)][2], results[(b.name, k)][2]

    report_splits = [pw.Split(s.train, s.test, s.val) for s in splits]
    return pw.collapse_check(fit_predict, report_splits, alpha=alpha)


# --------------------------------------------------------------------------------------------
# The paper's own numbers (§3.4, Tables 2-4)

_D768, _D4096 = 769, 4097
#: (source, printed |R1 - R2|, decimals printed, printed N_train, parameter count). The
#: released code counts D + 1 parameters for every comparison, also LogReg vs MLP (Table 4).
PAPER_RECOMMENDATIONS: tuple[tuple[str, float, int, int, int], ...] = (
    ("Table 2 (BERT vs corrupted)", 0.1313, 4, 22_263, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1281, 4, 23_362, _D768),
    ("Table 2 (BERT vs corrupted)", 0.0879, 4, 49_647, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1331, 4, 21_662, _D768),
    ("Table 2 (BERT vs corrupted)", 0.1488, 4, 17_331, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0344, 4, 324_563, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0492, 4, 158_315, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0355, 4, 303_516, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0091, 4, 4_600_037, _D768),
    ("Table 3 (BERT vs GloVe)", 0.0320, 4, 373_513, _D768),
    ("Table 4 (LogReg vs MLP)", 0.022, 3, 801_472, _D768),
    ("Table 4 (LogReg vs MLP)", 0.018, 3, 1_187_812, _D768),
    ("Table 4 (LogReg vs MLP)", 0.007, 3, 7_757_460, _D768),
    ("Table 4 (LogReg vs MLP)", 0.012, 3, 2_912_787, _D768),
    ("Table 4 (LogReg vs MLP)", 0.013, 3, 2_444_949, _D768),
)


def paper_examples() -> pd.DataFrame:
    """The worked example of Zhu et al. 2022, §3.4 recomputed: the bound at n = 65,536 and the
    n a bound of 0.05 needs, both for logistic regression on D = 4,096 (InferSent), delta =
    1e-8. Columns ``quantity``, ``paper``, ``ours``, ``agrees`` (to the paper's precision)."""
    bound = pw.finite_class_bound(65_536, _D4096, 1e-8)
    n = pw.n_for_bound(0.05, _D4096, 1e-8)
    return pd.DataFrame(
        [
            {"quantity": "bound at n = 65,536", "paper": 0.039, "ours": bound,
             "agrees": round(bound, 3) == 0.039},
            {"quantity": "n for a bound of 0.05", "paper": 40_000.0, "ours": float(n),
             "agrees": round(n, -3) == 40_000},
        ]
    )  # fmt: skip


def paper_recommendations(delta: float = 1e-8) -> pd.DataFrame:
    """Tables 2-4 of Zhu et al. 2022 recomputed with :func:`probekit.power.recommend`.

    One row per printed row: ``source``, ``gap`` (printed |R1 - R2|), ``paper`` (printed
    N_train), ``ours`` (from the printed gap), ``lo``/``hi``: the N_train range that any gap
    rounding to the printed one gives, and ``consistent`` = paper value in [lo, hi] (lo is one
    less, as the released code truncates where we round up). Table 4 row 4 is inconsistent:
    its N_train implies a gap of .0115 with the paper's parameter count.
    """
    rows = []
    for source, gap, decimals, printed, k in PAPER_RECOMMENDATIONS:
        half = 0.5 * 10.0**-decimals * (1 + 1e-9)
        ours = pw.recommend(0.5 + gap, 0.5, k, delta=delta).n_train
        lo = pw.recommend(0.5 + gap + half, 0.5, k, delta=delta).n_train - 1
        hi = pw.recommend(0.5 + gap - half, 0.5, k, delta=delta).n_train
        rows.append(
            {"source": source, "gap": gap, "paper": printed, "ours": ours, "lo": lo, "hi": hi,
             "consistent": lo <= printed <= hi}
        )  # fmt: skip
    return pd.DataFrame(rows)


def tense_overview(sentences: Mapping[str, Sequence[Sentence]], splits: Sequence[str] = SPLITS):
    """How the tense task labels a treebank (Zhu et al. 2022, §4.1; :func:`main_verb_tense`).

    One row per split: ``sentences``, ``past``, ``present``, ``no label`` (no finite
    main-clause verb, or one without Past/Pres tense) and ``carrier is root``, the share of
    labelled sentences whose tense sits on the root itself (rule 1 of :func:`tense_carrier`).
    """
    rows = []
    for name in splits:
        labels, on_root = [], []
        for s in sentences[name]:
            tense = main_verb_tense(s)
            labels.append(tense)
            if tense is not None:
                on_root.append(tense_carrier(s) == _root(s))
        rows.append(
            {
                "split": name,
                "sentences": len(labels),
                "past": labels.count("past"),
                "present": labels.count("present"),
                "no label": labels.count(None),
                "carrier is root": float(np.mean(on_root)) if on_root else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("split")


def requirement_grid(
    dims: Sequence[int],
    epsilons: Sequence[float],
    deltas: Sequence[float],
    classifiers: Sequence[str] = CLASSIFIERS,
    n_classes: int = 2,
    count: pw.Count = "paper",
) -> pd.DataFrame:
    """Training examples the finite-class bound asks for (Zhu et al. 2022, §3.4), over a grid of
    input dimension ``D``, bound ``epsilon``, ``delta`` and classifier. Long format, columns
    ``classifier, D, n_params, delta, epsilon, n_train``."""
    rows = []
    for clf in classifiers:
        for d in dims:
            k = n_params(clf, int(d), n_classes)
            for delta in deltas:
                for eps in epsilons:
                    n = pw.n_for_bound(eps, k, delta, count=count)
                    rows.append(
                        {"classifier": clf, "D": int(d), "n_params": k, "delta": delta,
                         "epsilon": eps, "n_train": n}
                    )  # fmt: skip
    return pd.DataFrame(rows)


def collapse_verdict(report: pw.CollapseReport) -> str:
    """A reading of a :class:`probekit.power.CollapseReport` (Zhu et al. 2022, §3.6).

    The paper gives no thresholds; ours: "stable" when every split agrees on the sign and at
    least half are significant; "likely collapsed" when at least a fifth of the splits flip the
    sign and at most twice ``alpha`` of them are significant (what a null comparison gives);
    "unclear" otherwise.
    """
    if report.sign_flip_rate == 0 and report.significant_rate >= 0.5:
        return "stable"
    if report.sign_flip_rate >= 0.2 and report.significant_rate <= 2 * report.alpha:
        return "likely collapsed"
    return "unclear"


def fasttext_table(
    vocab: Sequence[str], text: Sequence[Sentence], dim: int, seed: int, epochs: int
) -> np.ndarray:
    """fastText vectors of ``vocab`` (V, dim) float32, trained on ``text`` and cached.

    The type-level encoder of Zhu et al. 2022 is GloVe; offline we train fastText
    (:func:`probekit.pareto.fasttext_vectors`, deterministic, one thread) on the treebank's
    training sentences. Words outside the training text get vectors from their character
    n-grams. The table is cached, keyed by the text, the vocabulary and the options.
    """
    import hashlib

    from probekit.cache import Cache
    from probekit.data import file_sha256
    from probekit.embed import selection_digest
    from probekit.pareto import fasttext_vectors

    files = sorted({str(s.path) for s in text})
    key = {
        "kind": "fasttext",
        "files": {f.split("/")[-1]: file_sha256(f) for f in files},
        "selection": selection_digest(text),
        "vocab": hashlib.sha256("\x1f".join(vocab).encode()).hexdigest()[:16],
        "dim": int(dim),
        "seed": int(seed),
        "epochs": int(epochs),
    }

    def build(writer) -> None:
        kv = fasttext_vectors(text, int(dim), int(seed), epochs=int(epochs))
        writer.array("vectors", np.asarray(kv[list(vocab)], dtype=np.float32))

    return np.asarray(Cache().get_or_create(key, build).array("vectors", mmap=False))


# --------------------------------------------------------------------------------------------
# Figures


def _log2_axis(ax, values: Sequence[float], label: str) -> None:
    ax.set_xscale("log", base=2)
    ticks = sorted({int(v) for v in values})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:,}" for t in ticks], rotation=45, ha="right")
    ax.minorticks_off()
    ax.set_xlabel(label)


def plot_bound(ax, table: pd.DataFrame, label: str, color, show_bound: bool = True):
    """Fig. 2 of Zhu et al. 2022: test accuracy (%) mean ± SD over seeds (band) against the
    training-set size, with the learning-theory margins mean ± bound (dashed), from a
    :func:`bound_table`."""
    x = table["n_train"].to_numpy(float)
    acc, sd = 100 * table["acc"], 100 * table["sd"].fillna(0)
    ax.fill_between(x, acc - sd, acc + sd, color=color, alpha=0.3, linewidth=0)
    ax.plot(x, acc, marker="o", color=color, label=f"{label}: mean ± SD")
    if show_bound:
        for side in ("lo", "hi"):
            ax.plot(x, 100 * table[side], color=color, linestyle="--", linewidth=1,
                    label=f"{label}: mean ± bound" if side == "lo" else None)  # fmt: skip
    _log2_axis(ax, x, "training examples (log scale)")
    ax.set_ylabel("test accuracy (%)")
    return ax


def plot_power(ax, curves: Mapping[str, pd.DataFrame], colors, x: str = "n_test"):
    """Power against test-set size (Zhu et al. 2022, §4.3-4.6, Figs. 3-6), one line per
    comparison in ``curves`` (frames with columns ``x`` and ``power``), with the 0.8 line."""
    values = []
    for (label, df), color in zip(curves.items(), colors, strict=False):
        style = "--" if df.attrs.get("prospective") else "-"
        marker = None if df.attrs.get("prospective") else "o"
        ax.plot(df[x], df["power"], marker=marker, linestyle=style, color=color, label=label)
        values.extend(df[x].tolist())
    ax.axhline(pw.POWER_THRESHOLD, color="grey", linestyle=":", linewidth=1)
    _log2_axis(ax, values, "test examples (log scale)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("power")
    return ax


def plot_accuracies(ax, runs: Runs, configs: Sequence[str], colors, labels=None):
    """Mean ± SD test accuracy (%) over seeds against the training-set size, per config
    (Zhu et al. 2022, left panels of Figs. 4-6)."""
    means = runs.mean_accuracy()
    for i, (name, color) in enumerate(zip(configs, colors, strict=False)):
        df = means[means["config"] == name]
        x = df["n_train"].to_numpy(float)
        acc, sd = 100 * df["acc"], 100 * df["sd"].fillna(0)
        ax.fill_between(x, acc - sd, acc + sd, color=color, alpha=0.25, linewidth=0)
        ax.plot(x, acc, marker="o", color=color, label=labels[i] if labels else name)
    _log2_axis(ax, means["n_train"], "training examples (log scale)")
    ax.set_ylabel("test accuracy (%)")
    return ax
