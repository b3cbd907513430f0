"""Data and representations of Part III (Pimentel et al. 2020, §6): what the probes read.

- Data: :func:`load_splits` (seeded sentence samples of a UD treebank's three splits) and
  :func:`task_data` (POSL and DAL examples from :mod:`probekit.io.tasks`).
- Representations (§6): :func:`build_representations` (the contextual model's layer, fastText
  trained on the treebank, trainable one-hot, frozen random) and :func:`shuffled_contextual`
  (the fully-shuffled control's inputs, §5).
- :func:`check_names`, the validation of the chapters' list parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from probekit.errors import ParameterError
from probekit.io import embeddings, tasks
from probekit.io import treebanks as pkdata
from probekit.methods.pareto import controls
from probekit.representations import types
from probekit.representations.fasttext import fasttext_table
from probekit.representations.layers import resolve_layer

REPRESENTATIONS = ("contextual", "fasttext", "onehot", "random")
NON_CONTEXTUAL = ("fasttext", "onehot", "random")
TASKS = ("posl", "dal")
LABELS = {"fasttext": "fastText", "onehot": "one-hot", "random": "random"}
# How tables and figure panels name the tasks (parsing is §7.2's task).
TASK_TITLES = {"posl": "POSL", "dal": "DAL", "parse": "Dependency parsing"}


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

SPLITS = ("train", "dev", "test")


@dataclass(frozen=True, eq=False)
class Splits:
    """The sentence lists of one experiment (Pimentel et al. 2020, §6).

    ``train``, ``dev`` (early stopping), ``test``.
    """

    train: list[pkdata.Sentence]
    dev: list[pkdata.Sentence]
    test: list[pkdata.Sentence]

    def __getitem__(self, split: str) -> list[pkdata.Sentence]:
        """The sentences of ``split`` (train, dev or test)."""
        if split not in SPLITS:
            raise ParameterError("split", f"'{split}' is not one of {', '.join(SPLITS)}")
        return getattr(self, split)

    def n_words(self, split: str) -> int:
        """Number of words in one split (one POSL example each)."""
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
        split: pkdata.sample_sentences(tb[split], n, seed=seed, max_len=max_len)
        for split, n in zip(SPLITS, (n_train, n_dev, n_test), strict=True)
    }
    return Splits(**pick)


@dataclass(frozen=True, eq=False)
class TaskData:
    """POSL or DAL examples of the three splits (Pimentel et al. 2020, §6).

    One :class:`probekit.io.tasks.Examples` each.
    """

    task: str
    examples: dict[str, tasks.Examples]

    @property
    def labels(self) -> tuple[str, ...]:
        """The label inventory (from the training split), in class-id order."""
        return self.examples["train"].labels

    @property
    def n_classes(self) -> int:
        """The number of labels C."""
        return len(self.labels)

    def y(self, split: str) -> np.ndarray:
        """Class ids, shape (N_split,)."""
        return self.examples[split].y


def task_data(task: str, splits: Splits) -> TaskData:
    """Examples of POSL or DAL for Pimentel et al. 2020, §6.

    POSL: one per word, UPOS; DAL: one per non-root arc, dependent ⊕ head, the relation with its
    subtype.

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
    other types can stay frozen (:class:`probekit.representations.types.OneHotEmbedding`).
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
        """Whether the vectors are a trainable one-hot table (ids in ``words``)."""
        return self.onehot_dim is not None

    @property
    def dim(self) -> int:
        """Size of one word's vector."""
        return int(self.onehot_dim or self.words["train"].shape[1])

    def inputs(self, split: str, rows: np.ndarray, words: Any = None) -> np.ndarray:
        """Probe inputs of examples.

        Rows (N,) -> (N, d) or ids (N,); rows (N, 2) -> (N, 2d) (dependent first) or ids (N, 2).
        ``words`` replaces ``words[split]`` (fully shuffled).
        """
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


def contextual_representation(
    splits: Splits,
    model: str,
    layer: int,
    pooling: str,
    device: str = "cpu",
) -> Representation:
    """The contextual model's word vectors at one layer (Pimentel et al. 2020, §6).

    The paper uses the last layer of BERT, wordpieces averaged per word. Embeddings come from the
    cache (computed on ``device`` on a miss).
    """
    emb = {
        k: embeddings.embed(splits[k], model, pooling, progress=False, device=device)
        for k in SPLITS
    }
    k = resolve_layer(layer, emb["train"].n_layers)
    short = embeddings.resolve_model(model).name.rstrip("/").split("/")[-1]
    return Representation(
        name="contextual",
        label=f"{short} (layer {k})",
        words={s: emb[s].layer(k) for s in SPLITS},
        offsets={s: emb[s].offsets for s in SPLITS},
    )


def shuffled_contextual(
    sentences: Sequence[pkdata.Sentence],
    model: str,
    layer: int,
    pooling: str,
    seed: int,
    device: str = "cpu",
) -> np.ndarray:
    """Inputs of the fully-shuffled control (Pimentel et al. 2020, §5).

    Every sentence is embedded with its words in random order
    (:func:`probekit.methods.pareto.controls.shuffle_word_order`); the vector at position i of
    the shuffled sentence then stands in for word i of the original one (no realignment, as in
    the released code), so examples built from the original sentences index this array as they
    would the normal one.

    The encoder runs on ``device`` on a cache miss.

    Returns:
        float16 memory map (N_words, d), same row layout as the sentences' own embeddings.
    """
    token_lists, _ = controls.shuffle_word_order(sentences, seed)
    shuffled = [
        replace(s, forms=np.asarray(words, dtype=s.forms.dtype))
        for s, words in zip(sentences, token_lists, strict=True)
    ]
    emb = embeddings.embed(shuffled, model, pooling, progress=False, device=device)
    return emb.layer(resolve_layer(layer, emb.n_layers))


def _vocabulary(splits: Splits) -> tuple[np.ndarray, int]:
    """Word types (V,) and how many come from the training split (§6's type-level inputs)."""
    # Training types first (sorted), then those only seen in dev or test (sorted): the
    # trainable one-hot rows are then ids 0..n_train-1 and the others can stay frozen.
    train = np.unique(pkdata.flat(splits.train, "forms"))
    rest = np.unique(np.concatenate([pkdata.flat(splits[k], "forms") for k in ("dev", "test")]))
    return np.concatenate([train, np.setdiff1d(rest, train)]), len(train)


def _type_ids(splits: Splits, vocab: np.ndarray) -> dict[str, np.ndarray]:
    """Each word's index in ``vocab`` (V,), int64 (N_words,) per split."""
    order = np.argsort(vocab, kind="stable")
    ordered = vocab[order]
    return {
        k: order[np.searchsorted(ordered, pkdata.flat(splits[k], "forms"))].astype(np.int64)
        for k in SPLITS
    }


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
    - ``"random"``: a fixed N(0, 1) vector per type
      (:func:`probekit.representations.types.random_type_vectors`); dev and test words unseen in
      training simply get their own never-trained vectors.
    - ``"onehot"``: type ids for the trainable table
      (:class:`probekit.representations.types.OneHotEmbedding`); rows of words unseen in training
      keep their N(0, 1) start, as the paper prescribes.
    """
    if dim < 1:
        raise ParameterError("type_dim", f"must be >= 1, got {dim}")
    vocab, n_train_types = _vocabulary(splits)
    ids = _type_ids(splits, vocab)
    offsets = {k: pkdata.offsets(splits[k]).astype(np.int64) for k in SPLITS}
    if name == "onehot":
        return Representation(name, LABELS[name], ids, offsets, dim, len(vocab), n_train_types)
    if name == "random":
        table = types.random_type_vectors(vocab.tolist(), dim, seed)
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
    model: str,
    layer: int,
    pooling: str,
    type_dim: int,
    fasttext_dim: int,
    fasttext_text: Sequence[pkdata.Sentence] | None,
    fasttext_epochs: int,
    fasttext_path: str,
    seed: int,
    device: str = "cpu",
) -> dict[str, Representation]:
    """The representations of Pimentel et al. 2020, §6, by name, in the order given.

    ``contextual``: the model's ``layer`` (-1 = last) with ``pooling``; ``fasttext``:
    ``fasttext_dim``-d vectors (see :func:`fasttext_table`); ``onehot`` and ``random``:
    ``type_dim``-d type vectors (the released code samples 48 to 292 dimensions per run).
    fastText trained on a treebank needs many epochs: with gensim's default of 5 on EWT's
    200,000 training words all vectors end up nearly parallel (mean cosine 0.99).
    ``device``: where the contextual model runs on a cache miss.
    """
    check_names("representations", names, REPRESENTATIONS)
    out: dict[str, Representation] = {}
    for name in names:
        if name == "contextual":
            out[name] = contextual_representation(splits, model, layer, pooling, device)
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
    """Check a list parameter: raise ParameterError unless it is valid.

    ParameterError unless ``names`` is a non-empty list of distinct values from ``allowed`` (e.g.
    the representations, tasks, probe families or controls of Pimentel et al. 2020, §4 to §6).
    """
    bad = [n for n in names if n not in allowed]
    if bad or not names or len(set(names)) != len(names):
        raise ParameterError(
            parameter,
            f"got {list(names)}",
            f"a non-empty list of distinct values from {{{', '.join(allowed)}}}",
        )
