"""Example builders: which rows of the flat word array feed a probe, with which label.

Kunz & Kuhlmann 2021, §3.3. Embeddings come from the cache as one ``(N_words, d)`` array per
layer (float16 memory maps), holding the concatenated words of a sentence list: word ``j`` of
sentence ``s`` is row ``offsets[s] + j``. A builder works on the sentences only and returns
*row indices* into that flat array, so one :class:`Examples` serves every layer; :func:`gather`
and :func:`gather_layers` then build the float32 input matrices, all layers in one allocation.

- T1, POS tagging: one example per word, label = UPOS index in :data:`UPOS_TAGS`.
- T2, dependency labelling: one example per non-root arc, input = dependent ⊕ head (dependent
  first, as the released code), label = full UD relation (``nmod:poss`` stays distinct from
  ``nmod``) in an inventory built from the training sentences, see :func:`deprel_inventory`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from probekit.errors import ParameterError

# The 17 UD UPOS tags in alphabetical order (Kunz & Kuhlmann's `pos_to_ix` order, X included);
# one inventory for the whole library, re-exported here for the example builders' callers.
from probekit.io.treebanks import UPOS_TAGS, Sentence, flat
from probekit.io.treebanks import offsets as sentence_offsets

# The class that evaluation relations unseen in training map to (see `deprel_inventory`).
OOV_LABEL = "<oov>"


@dataclass(frozen=True, eq=False)
class Examples:
    """The examples of one task over one sentence list, with what scoring functions need.

    ``rows`` indexes the flat word array: shape (N,) for T1, (N, 2) as (dependent, head) for T2.
    Per-example arrays, all shape (N,): ``y`` (label index into ``labels``), ``sent`` (sentence
    index), ``word`` (0-based word index; the dependent for T2), ``sent_len`` (words in the
    sentence), ``form`` (word form, the dependent's for T2). T2 only: ``head`` (0-based head word
    index) and ``arc_len`` (|dependent - head|, Kunz & Kuhlmann 2021, §3.4.1).
    """

    task: str
    rows: np.ndarray
    y: np.ndarray
    labels: tuple[str, ...]
    sent: np.ndarray
    word: np.ndarray
    sent_len: np.ndarray
    form: np.ndarray
    head: np.ndarray | None = None
    arc_len: np.ndarray | None = None

    def __len__(self) -> int:
        """The number of examples, N."""
        return len(self.y)

    @property
    def n_classes(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def subset(self, mask: np.ndarray) -> Examples:
        """The examples selected by a boolean mask or an index array (shape (N,) / (n,))."""
        pick = np.asarray(mask)
        if pick.dtype == bool and pick.shape != (len(self),):
            raise ParameterError("mask", f"shape {pick.shape} does not match {len(self)} examples")
        fields = {
            name: getattr(self, name)[pick]
            for name in ("rows", "y", "sent", "word", "sent_len", "form", "head", "arc_len")
            if getattr(self, name) is not None
        }
        return replace(self, **fields)


def _offsets(sentences: Sequence[Sentence], offsets: np.ndarray | None) -> np.ndarray:
    expected = sentence_offsets(sentences).astype(np.int64)
    if offsets is None:
        return expected
    given = np.asarray(offsets, dtype=np.int64)
    if given.shape != expected.shape or not np.array_equal(given - given[0], expected):
        raise ParameterError(
            "offsets",
            f"do not match the sentences ({len(sentences)} sentences, {int(expected[-1])} words)",
            hint="pass the offsets of the embeddings computed on this same sentence list",
        )
    return given


def _word_positions(off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sentence index, 0-based word index and sentence length of every flat word.

    Each has shape (N_words,).
    """
    lengths = np.diff(off)
    sent = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    word = np.arange(int(off[-1] - off[0]), dtype=np.int64) - (off[sent] - off[0])
    return sent, word, lengths[sent]


def pos_examples(sentences: Sequence[Sentence], offsets: np.ndarray | None = None) -> Examples:
    """T1 examples: one per word, label = UPOS index in :data:`UPOS_TAGS`.

    Kunz & Kuhlmann 2021, §3.3 ("T1: Part-of-speech tagging"). ``offsets`` (S+1,) are the
    sentence offsets of the embedding array (default: the sentences' own, starting at 0).
    Returns :class:`Examples` with ``rows`` of shape (N_words,). Every word is used; the released
    code drops sentences whose wordpieces misalign, which our pooling cannot produce.
    """
    off = _offsets(sentences, offsets)
    if len(sentences) == 0:
        raise ParameterError("sentences", "is empty")
    upos = flat(sentences, "upos")
    y = np.searchsorted(UPOS_TAGS, upos)
    y_safe = np.minimum(y, len(UPOS_TAGS) - 1)
    bad = np.flatnonzero(np.asarray(UPOS_TAGS)[y_safe] != upos)
    if len(bad):
        sent, word, _ = _word_positions(off)
        s, j = int(sent[bad[0]]), int(word[bad[0]])
        raise ParameterError(
            "sentences",
            f"sentence {sentences[s].sent_id} word {j + 1} has UPOS '{upos[bad[0]]}', "
            "not one of the 17 UD tags",
            hint=f"{sentences[s].path}:{sentences[s].line}; UPOS must be one of {UPOS_TAGS}",
        )
    sent, word, sent_len = _word_positions(off)
    return Examples(
        task="pos",
        rows=np.arange(off[0], off[-1], dtype=np.int64),
        y=y.astype(np.int64),
        labels=UPOS_TAGS,
        sent=sent,
        word=word,
        sent_len=sent_len,
        form=flat(sentences, "forms"),
    )


def deprel_inventory(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """The T2 label inventory: the relations of non-root arcs in ``sentences``, sorted, + OOV.

    Kunz & Kuhlmann 2021, §3.3 ("T2"). Relations keep their subtype (``nmod:poss``). The last
    class is :data:`OOV_LABEL`; evaluation arcs whose relation is not in the training inventory
    map to it. A probe never sees that class in training, so such arcs count as errors, as they
    would for any closed-set classifier. (The released code used a fixed list of 63 relations and
    68 output units; building the inventory from the data serves any treebank.)
    """
    if len(sentences) == 0:
        raise ParameterError("sentences", "is empty")
    heads = flat(sentences, "heads")
    deprel = flat(sentences, "deprel")
    return (*sorted(set(deprel[heads > 0].tolist())), OOV_LABEL)


def deprel_examples(
    sentences: Sequence[Sentence],
    labels: Sequence[str] | None = None,
    offsets: np.ndarray | None = None,
    oov: str = "class",
    min_arcs: int = 1,
) -> Examples:
    """T2 examples: one per non-root arc, input rows (dependent, head), label = relation index.

    Kunz & Kuhlmann 2021, §3.3 ("T2: Syntactic dependency labelling"). ``labels`` is the
    inventory from :func:`deprel_inventory` on the *training* sentences (default: built from
    these sentences). Relations outside it: ``oov="class"`` maps them to :data:`OOV_LABEL`
    (kept, and always wrong); ``oov="drop"`` removes those arcs. ``min_arcs`` keeps only
    sentences with at least that many non-root arcs; the released code used 2, the paper states
    no such filter (default 1). Returns :class:`Examples` with ``rows`` of shape (N_arcs, 2).
    """
    if oov not in ("class", "drop"):
        raise ParameterError("oov", f"'{oov}' is not one of 'class', 'drop'")
    if min_arcs < 1:
        raise ParameterError("min_arcs", f"must be >= 1, got {min_arcs}")
    off = _offsets(sentences, offsets)
    inventory = tuple(labels) if labels is not None else deprel_inventory(sentences)
    if OOV_LABEL not in inventory:
        raise ParameterError(
            "labels", f"lacks the OOV class '{OOV_LABEL}'", hint="build it with deprel_inventory"
        )
    heads = flat(sentences, "heads")
    deprel = flat(sentences, "deprel")
    sent, word, sent_len = _word_positions(off)
    arc = heads > 0
    arcs_per_sentence = np.bincount(sent[arc], minlength=len(sentences))
    keep = arc & (arcs_per_sentence[sent] >= min_arcs)
    index = {label: i for i, label in enumerate(inventory)}
    oov_index = index[OOV_LABEL]
    y = np.array([index.get(r, oov_index) for r in deprel[keep].tolist()], dtype=np.int64)
    picked = np.flatnonzero(keep)
    if oov == "drop":
        known = y != oov_index
        picked, y = picked[known], y[known]
    dep_word = word[picked]
    head_word = heads[picked] - 1
    first = off[sent[picked]]
    return Examples(
        task="deprel",
        rows=np.stack([first + dep_word, first + head_word], axis=1),
        y=y,
        labels=inventory,
        sent=sent[picked],
        word=dep_word,
        sent_len=sent_len[picked],
        form=flat(sentences, "forms")[picked],
        head=head_word,
        arc_len=np.abs(dep_word - head_word),
    )


def _check_rows(X_shape: tuple[int, ...], rows: np.ndarray) -> None:
    if rows.ndim not in (1, 2) or (rows.ndim == 2 and rows.shape[1] != 2):
        raise ParameterError("rows", f"must have shape (N,) or (N, 2), got {rows.shape}")
    if len(rows) and (rows.min() < 0 or rows.max() >= X_shape[-2]):
        raise ParameterError(
            "rows",
            f"index out of range for {X_shape[-2]} words",
            hint="embeddings and examples must come from the same sentence list",
        )


def gather(X: np.ndarray, rows: np.ndarray, dtype: np.dtype = np.float32) -> np.ndarray:
    """Example input matrix from a flat word array.

    ``X`` (N_words, d), any float dtype (a float16 memory map is fine); ``rows`` (N,) for T1 or
    (N, 2) for T2. Returns (N, d) or (N, 2d) in ``dtype``; for T2 the dependent's vector comes
    first, then the head's (Kunz & Kuhlmann 2021, §3.3; released `utils.get_labels`).
    """
    rows = np.asarray(rows)
    _check_rows(X.shape, rows)
    if rows.ndim == 1:
        return np.asarray(X[rows], dtype=dtype)
    d = X.shape[-1]
    out = np.empty((len(rows), 2 * d), dtype=dtype)
    out[:, :d] = X[rows[:, 0]]
    out[:, d:] = X[rows[:, 1]]
    return out


def gather_layers(
    layers: Sequence[np.ndarray] | np.ndarray, rows: np.ndarray, dtype: np.dtype = np.float32
) -> np.ndarray:
    """Example input matrices of several layers in one array, shape (L, N, d) or (L, N, 2d).

    Kunz & Kuhlmann 2021, §3.1 (all 13 layers probed) and §3.3 (inputs as in :func:`gather`).
    ``layers`` is a sequence of L (N_words, d) arrays (e.g. the cache's per-layer memory maps)
    or one (L, N_words, d) array. The result is what :func:`probekit.probes.mlp.train_batched`
    takes as its stacked views; one allocation, each layer read once.
    """
    rows = np.asarray(rows)
    if len(layers) == 0:
        raise ParameterError("layers", "is empty")
    shape = layers[0].shape
    for k, X in enumerate(layers):
        if X.shape != shape:
            raise ParameterError("layers", f"layer {k} has shape {X.shape}, layer 0 has {shape}")
    _check_rows(shape, rows)
    width = shape[-1] * (1 if rows.ndim == 1 else 2)
    out = np.empty((len(layers), len(rows), width), dtype=dtype)
    for k, X in enumerate(layers):
        if rows.ndim == 1:
            out[k] = X[rows]
        else:
            out[k, :, : shape[-1]] = X[rows[:, 0]]
            out[k, :, shape[-1] :] = X[rows[:, 1]]
    return out
