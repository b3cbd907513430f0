"""The probing tasks of Zhu et al. 2022 rebuilt from UD, and their example pools (§4.1).

``past_present``: the binary tense task of SentEval, one example per sentence, labelled by the
tense of its main clause (:func:`main_verb_tense`). ``pos``: one example per word, labelled by
its UPOS tag. Examples come from all three treebank splits pooled, as the paper pools all
SentEval lines before re-splitting (§4.1; the released code, SPOClab-ca/probing_dataset, does
the same).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.io.tasks import pos_examples
from probekit.io.treebanks import SPLITS, UPOS_TAGS, Sentence

TASKS = ("past_present", "pos")
#: Class labels of the tense task, in label-index order.
TENSE_LABELS = ("past", "present")
_TENSE_VALUES = ("Past", "Pres")
#: Relations whose dependents may carry a non-finite root's tense (subtypes included).
CARRIER_RELATIONS = ("aux", "cop")


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
        """Examples in the pool."""
        return len(self.y)

    @property
    def n_classes(self) -> int:
        """Classes of the task, including those without examples."""
        return len(self.labels)

    def class_counts(self) -> np.ndarray:
        """Examples per class, shape (n_classes,)."""
        return np.bincount(self.y, minlength=self.n_classes)

    def sentence_ids(self) -> np.ndarray:
        """One integer per example naming its sentence, unique over the splits, shape (N,).

        The unit of resampling of the chapters' intervals: the words of one sentence (part of
        speech) share an id; for the tense task every example is its own sentence.
        """
        return (self.split.astype(np.int64) << 32) | self.sent.astype(np.int64)


def _root(sentence: Sentence) -> int:
    return int(np.flatnonzero(sentence.heads == 0)[0])


def _pos_examples(sents: Sequence[Sentence]) -> dict[str, np.ndarray]:
    """One example per word (:func:`probekit.io.tasks.pos_examples`).

    UPOS index, sentence index, word index and form, each (N,).
    """
    examples = pos_examples(sents)
    return {"y": examples.y, "sent": examples.sent, "word": examples.word, "form": examples.form}


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

    ``sentences`` maps split names to sentence lists (a
    :class:`probekit.io.treebanks.Treebank` works).
    ``past_present``: one example per sentence with a main-clause tense
    (:func:`main_verb_tense`), represented by its root word. ``pos``: one example per word,
    labelled with its UPOS index in :data:`probekit.io.treebanks.UPOS_TAGS`; tags absent from
    the pool keep their class index (they simply have no examples).
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
