"""The representations chapter 22 probes (Hall Maudslay & Cotterell 2021, §5.1 and App. B).

Encoder names, the type-level baseline (fastText vectors with sinusoidal position embeddings),
and how many wordpieces a substituted word takes before and after substitution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.corpus import substituted
from probekit.io.embeddings import resolve_model
from probekit.io.treebanks import Sentence
from probekit.representations.fasttext import fasttext_table
from probekit.representations.positions import with_positions

# The label of the type-level baseline representation in tables and figures.
TYPE_LEVEL = "fastText + position"


def encoder_names(model: str, models: Sequence[str]) -> list[str]:
    """The resolved names of the encoders chapter 22 probes, the one the prose discusses first.

    Names as :func:`probekit.io.embeddings.resolve_model` resolves them: ``model``, the one the
    prose discusses, first, then those of ``models`` in order, each once.
    """
    return list(dict.fromkeys(resolve_model(m).name for m in [model, *models]))


def short_model_name(name: str) -> str:
    """The last path component of a model name, for table rows and figure labels.

    E.g. ``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-MiniLM-L6-v2``.
    """
    return str(name).rstrip("/").split("/")[-1] or str(name)


@dataclass
class VectorSet:
    """Per-sentence vectors in the shape of :class:`probekit.io.embeddings.Embeddings`, one layer.

    Lets :func:`probekit.experiments.tree_probing.training.train_layers` and
    :func:`~probekit.experiments.tree_probing.training.per_sentence_scores` train and
    score on representations that are not a transformer's (layer 0 only). ``vectors``: one
    (n_s, d) array per sentence.
    """

    vectors: list[np.ndarray]
    offsets: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        """Sentence offsets (S + 1,) into the stacked words; one dimension for all sentences."""
        self.offsets = np.concatenate([[0], np.cumsum([len(v) for v in self.vectors])]).astype(
            np.int64
        )
        dims = {int(np.shape(v)[1]) for v in self.vectors if len(v)}
        if len(dims) > 1:
            raise ParameterError("vectors", f"sentences have different dimensions {sorted(dims)}")

    @property
    def n_layers(self) -> int:
        """Always 1: a type-level representation has layer 0 only."""
        return 1

    @property
    def dim(self) -> int:
        """d, the width of every vector (0 without sentences)."""
        return int(np.shape(self.vectors[0])[1]) if self.vectors else 0

    def layer(self, k: int) -> np.ndarray:
        """All words' vectors, float32 (N_words, d); only ``k = 0`` exists."""
        if k != 0:
            raise ParameterError("layers", f"a type-level representation has only layer 0, not {k}")
        return np.concatenate([np.asarray(v, dtype=np.float32) for v in self.vectors])


def fasttext_position_vectors(
    train: Sequence[Sentence],
    sets: Mapping[str, Sequence[Sentence]],
    dim: int,
    seed: int,
    position_dim: int,
    pretrained_path: str = "",
    epochs: int = 5,
) -> dict[str, VectorSet]:
    """The type-level baseline of §5.1 / App. B: fastText word vectors ⊕ position embeddings.

    fastText vectors (:func:`probekit.representations.fasttext.fasttext_table`, cached) are
    trained on the forms of ``train`` with ``dim`` dimensions and ``seed``, or loaded from
    ``pretrained_path`` (the paper: the Common Crawl vectors, 300 d). Words it has not seen,
    pseudowords included, get vectors from their character n-grams. Each word's vector is
    followed by :func:`probekit.representations.positions.sinusoidal_positions` of
    ``position_dim`` dimensions (:func:`~probekit.representations.positions.with_positions`).
    Returns one :class:`VectorSet` per entry of ``sets``, (n_s, dim + position_dim).
    """
    forms = {name: [s.forms.tolist() for s in sents] for name, sents in sets.items()}
    vocab = sorted({w for sents in forms.values() for s in sents for w in s})
    table = fasttext_table(vocab, train, dim, seed, epochs, pretrained_path)
    index = {w: k for k, w in enumerate(vocab)}
    out = {}
    for name, sents in forms.items():
        words = [table[[index[w] for w in s]].reshape(len(s), dim) for s in sents]
        out[name] = VectorSet(with_positions(words, position_dim))
    return out


def fasttext_source(pretrained_path: str) -> str:
    """Where :func:`fasttext_position_vectors`' word vectors come from, in words for the prose."""
    return "pretrained vectors" if pretrained_path else "the training split"


def pieces_of_substituted(
    normal_emb, jabberwocky_emb, pairs: Sequence[tuple[Sentence, Sentence]]
) -> tuple[float, float]:
    """Mean wordpieces per substituted word before and after substitution.

    ``normal_emb`` and ``jabberwocky_emb``: :class:`probekit.io.embeddings.Embeddings` of the two
    sides of ``pairs`` (same order); uses their ``pieces_per_word()`` (N_words,).
    """
    mask = np.concatenate([substituted(o, j) for o, j in pairs])
    if not mask.any():
        return float("nan"), float("nan")
    before = np.asarray(normal_emb.pieces_per_word())[mask]
    after = np.asarray(jabberwocky_emb.pieces_per_word())[mask]
    return float(before.mean()), float(after.mean())
