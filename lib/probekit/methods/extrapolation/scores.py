"""Scoring functions of Kunz & Kuhlmann 2021, "Test Harder than You Train" (§3.4).

A scoring function gives every example a hardness score ``m(e)``; **higher means harder**
everywhere (§3.4: "if m(e) > m(e'), e is harder than e'"). Where the released code
(jekunz/extrapolation) differs from the paper we follow the paper and say so: tag statistics use
real counts (the code hashed 0-d tensors by identity, so every count was 1); the speed-of-learning
score keeps never-correct examples (the code dropped them).
"""

from __future__ import annotations

import numpy as np

from probekit.errors import ParameterError
from probekit.io.tasks import Examples

# §3.4.3: after 2^n batch updates. The paper's "1 <= i <= 7" leaves n = 0..6 or 1..7 open; we
# take n = 0..6 (1 ... 64 updates), which gives the "7 · 10" maximum of c the paper states.
SPEED_CHECKPOINTS: tuple[int, ...] = tuple(2**n for n in range(7))


def _require(examples: Examples, task: str, scorer: str) -> None:
    if examples.task != task:
        raise ParameterError(
            "examples", f"{scorer} is defined for '{task}' examples, got '{examples.task}'"
        )


def sentence_length(examples: Examples) -> np.ndarray:
    """m(e) = |s_i|, the number of words of the example's sentence, shape (N,) (§3.4.1, T1/T2).

    Kunz & Kuhlmann 2021, §3.4.1. Words are the syntactic words of the treebank, punctuation
    included (multiword-token ranges and empty nodes are not words; the released code also
    counted empty nodes).
    """
    return examples.sent_len.astype(np.float64)


def arc_length(examples: Examples) -> np.ndarray:
    """m(e) = |j - k|, the linear distance between dependent and head, shape (N,) (§3.4.1, T2).

    Kunz & Kuhlmann 2021, §3.4.1. Root arcs are not examples. The released code also kept a
    sentence's qualifying arcs only if the sentence had more than one (released code:
    jekunz/extrapolation, `stp_arc_len.py`); the paper states no such filter and neither do we.
    """
    _require(examples, "deprel", "arc_length")
    return examples.arc_len.astype(np.float64)


def _tag_table(train: Examples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted train vocabulary (V,), counts (V, C) and first train position of each (word, tag)."""
    vocab, ids = np.unique(train.form, return_inverse=True)
    counts = np.zeros((len(vocab), train.n_classes), dtype=np.int64)
    np.add.at(counts, (ids, train.y), 1)
    first = np.full(counts.shape, len(train), dtype=np.int64)
    np.minimum.at(first, (ids, train.y), np.arange(len(train)))
    return vocab, counts, first


def _lookup(vocab: np.ndarray, forms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each form in the sorted vocabulary and whether it is there, each (N,)."""
    idx = np.minimum(np.searchsorted(vocab, forms), max(len(vocab) - 1, 0))
    return idx, vocab[idx] == forms


def tag_proportion(train: Examples, examples: Examples) -> np.ndarray:
    """m(e) = 1 - f(w, y): 1 minus the relative frequency of the gold tag among w's train tags.

    Kunz & Kuhlmann 2021, §3.4.2 (T1). f is counted over the training examples ``train``
    (word forms as written, case kept, as released); words absent from ``train`` score 1, the
    hardest. Returns (N,) scores for ``examples``. The released code stored tags as 0-d tensors,
    which hash by identity, so its counts were all 1 (released code: jekunz/extrapolation,
    `pos_tag_stats.py`); it also scored f itself and flipped the inequalities, which selects the
    same sets as 1 - f.
    """
    _require(train, "pos", "tag_proportion")
    _require(examples, "pos", "tag_proportion")
    vocab, counts, _ = _tag_table(train)
    idx, known = _lookup(vocab, examples.form)
    f = counts[idx, examples.y] / np.maximum(counts[idx].sum(axis=1), 1)
    return np.where(known, 1.0 - f, 1.0)


def most_frequent_tags(train: Examples) -> tuple[np.ndarray, np.ndarray, int]:
    """The most frequent tag (mft) of every training word: (vocab (V,), mft (V,), global mft).

    Kunz & Kuhlmann 2021, §3.4.2. Ties go to the tag seen first in ``train``, which is what the
    released ``TagdictTagger`` (a ``Counter``) does once tags are hashable integers.
    """
    vocab, counts, first = _tag_table(train)
    # Larger count wins; among equal counts the earlier first occurrence wins.
    key = counts * (len(train) + 1) - first
    totals = counts.sum(axis=0)
    global_first = first.min(axis=0)
    global_mft = int(np.argmax(totals * (len(train) + 1) - global_first))
    return vocab, np.argmax(key, axis=1), global_mft


def most_frequent_tag(train: Examples, examples: Examples, oov: str = "global") -> np.ndarray:
    """m(e) = 1 - 1[y is the mft of w in S_train], binary (N,) scores (§3.4.2, T1).

    Kunz & Kuhlmann 2021, §3.4.2. The paper leaves words unseen in training open. ``oov="global"``
    compares their gold tag with the globally most frequent training tag, as the released
    ``TagdictTagger`` does; ``oov="hard"`` scores them 1, as the tag-proportion score does.
    The released code's tensor-identity hashing made every word's "mft" its first-seen tag and
    the global mft the first token's tag (released code: jekunz/extrapolation, `pos_mft.py`); we
    count properly.
    """
    _require(train, "pos", "most_frequent_tag")
    _require(examples, "pos", "most_frequent_tag")
    if oov not in ("global", "hard"):
        raise ParameterError("oov", f"'{oov}' is not one of 'global', 'hard'")
    vocab, mft, global_mft = most_frequent_tags(train)
    idx, known = _lookup(vocab, examples.form)
    is_mft = np.where(known, mft[idx] == examples.y, examples.y == global_mft)
    score = 1.0 - is_mft
    if oov == "hard":
        score[~known] = 1.0
    return score


def sample_loss(loss: np.ndarray) -> np.ndarray:
    """m(e) = the example's cross-entropy averaged over the ensemble (§3.4.3, T1/T2).

    Kunz & Kuhlmann 2021, §3.4.3. ``loss`` (..., n_ensemble, N), e.g. ``MLPTrainResult.loss_train``
    of the 10 ensemble probes (reshaped to (layers, 10, N) for per-layer scores); returns
    (..., N). Our losses come from the final weights (``record_loss``); the released code took
    train losses during the last epoch with batch size 1 and 10 epochs (released code:
    jekunz/extrapolation, `pos_loss.py`).
    """
    loss = np.asarray(loss, dtype=np.float64)
    if loss.ndim < 2:
        raise ParameterError("loss", f"must have shape (..., n_ensemble, N), got {loss.shape}")
    return loss.mean(axis=-2)


def speed_of_learning(correct: np.ndarray) -> np.ndarray:
    """m(e) = 1 / (c + 1), c = correct predictions of the ensemble over the checkpoints (§3.4.3).

    Kunz & Kuhlmann 2021, §3.4.3 (T1/T2). ``correct`` (..., n_ensemble, n_checkpoints, N) bool,
    e.g. ``MLPTrainResult.ckpt_correct_train`` recorded at :data:`SPEED_CHECKPOINTS`; returns
    (..., N) in (0, 1], 1 for never-correct examples (the hardest). The released code left
    never-correct examples out entirely, and identified examples by their first two input floats
    (released code: jekunz/extrapolation, `pos_train_rank.py`).
    """
    correct = np.asarray(correct)
    if correct.ndim < 3:
        raise ParameterError(
            "correct", f"must have shape (..., n_ensemble, n_checkpoints, N), got {correct.shape}"
        )
    c = correct.sum(axis=(-3, -2))
    return 1.0 / (c + 1.0)
