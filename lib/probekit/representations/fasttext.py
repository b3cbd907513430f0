"""fastText word vectors (Bojanowski et al. 2017), the non-contextual baseline of the book.

Pretrained ``cc.<lang>.300.bin`` vectors when given, otherwise a deterministic model trained on
the treebank's training text. :func:`fasttext_table` is the one cached table every chapter uses.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from probekit.errors import DataNotFoundError, ParameterError
from probekit.io.cache import Cache
from probekit.io.embeddings import selection_digest
from probekit.io.treebanks import Sentence, file_sha256, forms_of
from probekit.seeds import check_seed


def _stable_hash(text: str) -> int:
    # gensim seeds some vectors with hash(); Python's str hash changes per process.
    return zlib.crc32(text.encode("utf-8"))


def fasttext_vectors(
    sentences_forms: Sequence[Any],
    dim: int,
    seed: int,
    pretrained_path: str | os.PathLike | None = None,
    *,
    epochs: int = 5,
    min_count: int = 1,
) -> Any:
    """FastText vectors (Bojanowski et al. 2017), the paper's non-contextual baseline (§6).

    The paper uses the pretrained Common Crawl vectors ``cc.<lang>.300.bin``; pass such a file
    as ``pretrained_path`` (loaded with gensim's ``load_facebook_vectors``; ``sentences_forms``
    is then unused and ``dim`` must match the file). Without it, a gensim FastText model is
    trained on ``sentences_forms`` (the training text) with one worker thread and a fixed seed,
    so that the run is deterministic. Either way out-of-vocabulary words get vectors from their
    character n-grams, as ``model[word]`` does in the released code.

    Args:
        sentences_forms: m training sentences (``Sentence`` or sequences of words).
        dim: vector size.
        seed: non-negative int.
        pretrained_path: a ``cc.<lang>.300.bin`` file to load instead of training, or None.
        epochs: gensim training option (number of epochs).
        min_count: gensim training option (minimum word count).

    Returns:
        gensim ``FastTextKeyedVectors``; use with :func:`embed_types`.
    """
    # heavy to import; needed only to train or load fastText vectors
    from gensim.models.fasttext import FastText, load_facebook_vectors

    seed = check_seed(seed)
    if pretrained_path is not None:
        path = Path(pretrained_path)
        if not path.is_file():
            raise DataNotFoundError(
                f"fastText vectors not found: {path}",
                "download cc.<lang>.300.bin from fasttext.cc or omit pretrained_path",
            )
        kv = load_facebook_vectors(str(path))
        if kv.vector_size != dim:
            raise ParameterError(
                "dim", f"is {dim} but {path.name} holds {kv.vector_size}-d vectors"
            )
        return kv
    sentences = [forms_of(s) for s in sentences_forms]
    if not any(sentences):
        raise ParameterError("sentences_forms", "is empty", "pass the training sentences")
    model = FastText(
        sentences=sentences,
        vector_size=dim,
        seed=seed,
        workers=1,
        epochs=epochs,
        min_count=min_count,
        hashfxn=_stable_hash,
    )
    return model.wv


def fasttext_table(
    vocab: Sequence[str],
    text: Sequence[Sentence],
    dim: int,
    seed: int,
    epochs: int = 5,
    pretrained_path: str = "",
) -> np.ndarray:
    """FastText vectors of ``vocab``, shape (V, dim) float32, cached on disk.

    With ``pretrained_path`` (a ``cc.<lang>.300.bin`` file, as in Pimentel et al. 2020, §6 and
    Hall Maudslay & Cotterell 2021, App. B) the pretrained vectors are used; without it a model is
    trained on ``text`` (:func:`fasttext_vectors`: deterministic, one thread). Words outside the
    training text, pseudowords included, get vectors from their character n-grams either way.
    The table is cached (:class:`probekit.io.cache.Cache`), keyed by the text's files and
    sentence selection (or the pretrained file's path, size and time), the vocabulary and the
    options, so a re-run reads it instead of training again.
    """
    words = list(vocab)
    key: dict[str, Any] = {
        "kind": "fasttext",
        "vocab": hashlib.sha256("\x1f".join(words).encode()).hexdigest()[:16],
        "n_vocab": len(words),
        "dim": int(dim),
        "seed": int(seed),
    }
    if pretrained_path:
        path = Path(pretrained_path).expanduser().resolve()
        key["pretrained"] = str(path)
        if path.is_file():
            key |= {"size": path.stat().st_size, "mtime": path.stat().st_mtime_ns}
    else:
        files = sorted({str(s.path) for s in text})
        key["files"] = {Path(f).name: file_sha256(f) for f in files}
        key["selection"] = selection_digest(text)
        key["epochs"] = int(epochs)

    def build(writer: Any) -> None:
        kv = fasttext_vectors(
            text, int(dim), int(seed), pretrained_path or None, epochs=int(epochs)
        )
        writer.array("vectors", np.asarray(kv[words], dtype=np.float32).reshape(len(words), dim))

    return np.asarray(Cache().get_or_create(key, build).array("vectors", mmap=False))
