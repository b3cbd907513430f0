"""Type-level representations (Pimentel et al. 2020, §6).

A seeded random vector per word type, the lookup from a type table to per-sentence vectors, the
trainable one-hot table, and the vocabulary and id helpers they share.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from probekit.errors import ParameterError
from probekit.io.treebanks import forms_of
from probekit.seeds import check_seed


def _word_seed(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


def random_type_vectors(vocab: Sequence[str], dim: int, seed: int) -> np.ndarray:
    """A fixed N(0, 1) vector per word type: the *random* representation (§6).

    The vector of a word depends only on (seed, word), not on the vocabulary it is asked with,
    so the out-of-vocabulary words of dev and test get fresh untrained vectors "sampled on the
    spot" simply by asking for them, and every run with the same seed agrees.

    Args:
        vocab: V word types.
        dim: vector size.
        seed: non-negative int.

    Returns:
        float32 array of shape (V, dim); row k belongs to ``vocab[k]``.
    """
    seed = check_seed(seed)
    if dim < 1:
        raise ParameterError("dim", f"must be >= 1, got {dim}")
    out = np.empty((len(vocab), dim), dtype=np.float32)
    for k, word in enumerate(vocab):
        out[k] = np.random.default_rng([seed, _word_seed(str(word))]).standard_normal(dim)
    return out


def embed_types(
    sentences_forms: Sequence[Any], vectors: Callable[[list[str]], np.ndarray] | Any
) -> list[np.ndarray]:
    """Per-sentence matrices of a type-level (non-contextual) representation (§6).

    Args:
        sentences_forms: m sentences (``Sentence`` or sequences of words).
        vectors: a function from a list of V words to an array (V, d) (e.g.
            ``lambda ws: random_type_vectors(ws, 300, seed)``), or gensim ``KeyedVectors``
            such as :func:`fasttext_vectors` returns.

    Returns:
        m float32 arrays of shape (n_s, d), the same layout as contextual embeddings.
    """
    sentences = [forms_of(s) for s in sentences_forms]
    vocab = sorted({w for s in sentences for w in s})
    if not vocab:
        return [np.zeros((0, 0), dtype=np.float32) for _ in sentences]
    table = np.asarray(vectors(vocab) if callable(vectors) else vectors[vocab], dtype=np.float32)
    index = {w: k for k, w in enumerate(vocab)}
    return [table[[index[w] for w in s]].reshape(len(s), table.shape[1]) for s in sentences]


class OneHotEmbedding(torch.nn.Module):
    """The *one-hot* representation: a trainable vector per word type (§6).

    A one-hot input followed by a learned projection equals a learned embedding table, so the
    table is trained with the probe ("All representations are kept fixed during training,
    except for one-hot"). The released code's table is an ``nn.Embedding`` with a sampled size
    (48 to 292); ``dim`` is that size here.

    Build the vocabulary over train, dev and test words (:func:`build_vocab`): rows of words
    never seen in training get no gradient, and Adam leaves a parameter with zero gradient
    history exactly where it is, so those words keep their untrained N(0, 1) vectors, as the
    paper prescribes for out-of-vocabulary words.

    ``n_probes`` tables are stacked so that P probes train in one batched pass; each starts
    from the same N(0, 1) draw of ``seed``.

    ``n_trainable`` (default: all rows): when the ids of the training words are
    0..n_trainable-1, the other rows can never receive a gradient, so they are kept as a frozen
    buffer ``frozen`` (V - n_trainable, dim) outside ``weight`` (P, n_trainable, dim). The
    result is the same (the same draw, and untrained rows stay put either way), but Adam no
    longer sweeps the rows of dev- and test-only words at every step, which dominates the cost
    of the one-hot probes when the training sample is small.

    Shapes: ``forward(ids)`` maps int64 ids of shape (...) to (P, ..., dim);
    ``forward(ids, members)`` uses only the probes ``members`` (P',), giving (P', ..., dim);
    with ``per_probe=True`` ids carry a leading probe axis (P', ...).
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        n_probes: int = 1,
        seed: int = 0,
        n_trainable: int | None = None,
    ):
        """Draw the N(0, 1) table of ``seed`` and split it into trainable and frozen rows.

        Args:
            vocab_size: V, the number of rows (word ids).
            dim: vector size.
            n_probes: P, the number of stacked tables.
            seed: non-negative int.
            n_trainable: rows kept trainable (ids 0..n_trainable-1); None means all of them.
        """
        super().__init__()
        if vocab_size < 1 or dim < 1 or n_probes < 1:
            raise ParameterError("vocab_size", "vocab_size, dim and n_probes must be >= 1")
        k = vocab_size if n_trainable is None else n_trainable
        if not 1 <= k <= vocab_size:
            raise ParameterError("n_trainable", f"must lie in 1..{vocab_size}, got {k}")
        g = torch.Generator().manual_seed(check_seed(seed))
        table = torch.randn(vocab_size, dim, generator=g)
        self.weight = torch.nn.Parameter(table[:k].expand(n_probes, -1, -1).clone())
        self.register_buffer("frozen", table[k:].clone())

    def forward(
        self, ids: torch.Tensor, members: torch.Tensor | None = None, per_probe: bool = False
    ) -> torch.Tensor:
        """The vectors of ``ids``, per probe; shapes as in the class docstring."""
        W = self.weight if members is None else self.weight[members.to(self.weight.device)]
        P, k, dim = W.shape
        shape = ids.shape[1:] if per_probe else ids.shape
        flat = ids.reshape(P, -1) if per_probe else ids.reshape(-1)
        inside = flat.clamp(max=k - 1)
        if per_probe:
            out = W[torch.arange(P, device=W.device)[:, None], inside]  # (P, N, dim)
        else:
            out = W[:, inside]  # (P, N, dim)
        if self.frozen.shape[0]:
            fixed = self.frozen[(flat - k).clamp(min=0)]  # (N, dim) or (P, N, dim)
            out = torch.where((flat < k)[..., None], out, fixed)
        return out.reshape(P, *shape, dim)


def build_vocab(*corpora: Sequence[Any]) -> dict[str, int]:
    """Word-type ids for :class:`OneHotEmbedding`: sorted types of all given corpora (§6).

    Args:
        corpora: any number of sentence lists (``Sentence`` or sequences of words), e.g.
            train, dev and test.

    Returns:
        {word: id}, ids 0..V-1 in sorted word order.
    """
    types = sorted({w for corpus in corpora for s in corpus for w in forms_of(s)})
    return {w: k for k, w in enumerate(types)}


def type_ids(sentences_forms: Sequence[Any], vocab: dict[str, int]) -> list[np.ndarray]:
    """Map sentences to word-type ids of ``vocab`` (shape (n_s,) int64 each).

    Raises ParameterError for a word missing from ``vocab`` (build it over every split).
    """
    out = []
    for s in sentences_forms:
        words = forms_of(s)
        missing = [w for w in words if w not in vocab]
        if missing:
            raise ParameterError(
                "vocab", f"lacks {missing[0]!r}", "build_vocab(train, dev, test) covers all splits"
            )
        out.append(np.asarray([vocab[w] for w in words], dtype=np.int64))
    return out
