"""Encoders: what a probe sees of each pooled example (Zhu et al. 2022, §4.1).

A contextual layer of the model (:func:`layer_encoder`), or a type-level vector per word form
(:func:`type_encoder`, the paper's GloVe; :func:`type_level_vectors` trains fastText vectors
offline or draws random ones). For the tense task a sentence is represented by the vector of
its *root word* (``rep="root"``) or by the mean of its words' vectors (``rep="mean"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.io.treebanks import SPLITS, Treebank, flat
from probekit.io.treebanks import offsets as sentence_offsets
from probekit.methods.datasize.pools import Pool
from probekit.representations.fasttext import fasttext_table
from probekit.representations.layers import resolve_layer
from probekit.representations.types import random_type_vectors

REPS = ("root", "mean")


@dataclass(frozen=True, eq=False)
class ExampleEncoder:
    """A representation of a pool's examples. ``encode(idx)`` -> float32 (len(idx), dim)."""

    name: str
    dim: int
    encode: Callable[[np.ndarray], np.ndarray]

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        """The representations of pool examples ``idx`` (k,), float32 (k, dim)."""
        return self.encode(np.asarray(idx, dtype=np.int64))


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
) -> ExampleEncoder:
    """One layer of a contextual model as an :class:`ExampleEncoder` (Zhu et al. 2022, §4.1).

    ``layers`` maps each of ``pool.splits`` to that split's (N_words, d) word vectors at the
    chosen layer (e.g. ``probekit.io.embeddings.embed(...).layer(k)``, a float16 memory map).
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
        return ExampleEncoder(name, dim, lambda idx: table[idx])
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

    return ExampleEncoder(name, dim, encode)


def layer_encoder(pool: Pool, embeddings: Mapping, layer: int, rep: str = "root") -> ExampleEncoder:
    """:func:`contextual_encoder` for one layer of cached embeddings, named ``"layer k"``.

    ``embeddings`` maps each of ``pool.splits`` to a :class:`probekit.io.embeddings.Embeddings`;
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
) -> ExampleEncoder:
    """A type-level (non-contextual) representation as an :class:`ExampleEncoder`.

    The paper's GloVe encoder (Zhu et al. 2022, §4.1).

    ``vectors`` maps a list of V word forms to a float array (V, d), e.g.
    ``lambda ws: probekit.representations.types.random_type_vectors(ws, 300, seed)`` or a gensim
    ``KeyedVectors`` lookup such as ``lambda ws: kv[ws]``. ``rep="root"``: the vector of the
    example's word form; ``rep="mean"``: the mean over the sentence's forms, as the paper
    averages GloVe vectors over a SentEval sentence.
    """
    _check_rep(pool, rep)
    if rep == "root":
        vocab, inverse = np.unique(pool.form, return_inverse=True)
        table = np.asarray(vectors(vocab.tolist()), dtype=np.float32)
        return ExampleEncoder(name, table.shape[1], lambda idx: table[inverse[idx]])
    forms = [
        pool.sentences[pool.splits[k]][s].forms for k, s in zip(pool.split, pool.sent, strict=True)
    ]
    vocab, inverse = np.unique(np.concatenate(forms), return_inverse=True)
    table = np.asarray(vectors(vocab.tolist()), dtype=np.float32)
    off = sentence_offsets(forms).astype(np.int64) if forms else np.zeros(1, np.int64)
    means = _sentence_means(table[inverse], off, np.arange(len(forms)))
    return ExampleEncoder(name, table.shape[1], lambda idx: means[idx])


def type_level_vectors(
    kind: str, treebank: Treebank, dim: int, epochs: int, seed: int = 0
) -> Callable[[list[str]], np.ndarray]:
    """Type-level vectors for :func:`type_encoder`, a stand-in for the paper's GloVe.

    See Zhu et al. 2022, §4.5. A function from V word forms to float32 (V, dim).

    ``kind="fasttext"``: fastText trained for ``epochs`` on the training split of
    ``treebank`` (:func:`~probekit.representations.fasttext.fasttext_table`, cached), looked
    up for every form of the treebank; ``kind="random"``: a fixed N(0, 1) vector per form
    (:func:`~probekit.representations.types.random_type_vectors`). ``seed`` seeds both.
    """
    if kind == "random":
        return lambda words: random_type_vectors(words, dim, seed)
    if kind != "fasttext":
        raise ParameterError("type_vectors", f"'{kind}' is not one of fasttext, random")
    vocab = np.unique(np.concatenate([flat(treebank[k], "forms") for k in SPLITS]))
    table = fasttext_table(vocab.tolist(), treebank["train"], dim, seed, epochs)
    return lambda words: table[np.searchsorted(vocab, words)]
