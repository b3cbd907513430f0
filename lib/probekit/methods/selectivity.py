"""Control tasks and selectivity (Hewitt & Liang 2019, §2).

A control task has the output space of a linguistic task, but its outputs depend only on the
word type, at random: every type is given one random output (or behaviour), and every token of
the type carries it. A probe can only do well on a control task by memorising the type-to-output
table, so the gap between its accuracy on the linguistic task and on the control task, its
*selectivity*, is read as how much of the task accuracy reflects the representation rather than
the probe. Hewitt & Liang find linear probes more selective than MLP probes on the same
representations. Pimentel et al. 2020 (§2.2 and §2.3) argue that neither accuracy nor
simplicity can be optimised alone, and that the trade-off is better read off a Pareto frontier:
a one-hot encoding of the word type, for instance, serves simple probes best on type-driven
tasks, yet its selectivity is near 0, because a type-level control is as easy for it as the
task (the tests of this module build that case).

- :func:`label_control`: the part-of-speech control task, one label per type drawn from the
  task's empirical label distribution;
- :func:`arc_behaviours` and :func:`arc_control`: the dependency-arc control task, one of three
  attachment behaviours per type (itself, the first word, the last word);
- :func:`selectivity` and :func:`selectivity_table`: task accuracy minus control accuracy.

The label-shuffled controls of Pimentel et al. 2020 (per token, not per type, scored on the
training set; their footnote 5) are in :mod:`probekit.methods.pareto.controls`; this module
shares its seeding (:func:`probekit.seeds.as_generator`) but does not import it, since the
methods of different papers stay independent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.io.treebanks import forms_of
from probekit.seeds import as_generator

# The codes of the three arc behaviours, as in the released code's CorruptedEdgePositionTask.
SELF, FIRST, LAST = 0, 1, 2
ARC_BEHAVIOURS = ("self", "first", "last")

# The columns :func:`selectivity_table` needs in every row.
TABLE_COLUMNS = ("representation", "layer", "probe", "task_accuracy", "control_accuracy")


def _type_array(types: Any, name: str) -> np.ndarray:
    arr = np.asarray(types)
    if arr.ndim != 1:
        raise ParameterError(name, f"must be 1-D, one word type per token; got shape {arr.shape}")
    return arr


def _sorted_types(types: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique types (V,) and each token's index into them (N,)."""
    try:
        unique, inverse = np.unique(types, return_inverse=True)
    except TypeError as exc:
        # Object arrays of mixed ints and strings have no order, and the order fixes the draws.
        raise ParameterError(name, f"word types must be mutually comparable ({exc})") from exc
    return unique, inverse.reshape(-1)


def label_control(
    types: Any,
    labels: Any,
    seed: int | np.random.Generator,
    train_mask: Any = None,
) -> np.ndarray:
    """The part-of-speech control task: one random label per word type (Hewitt & Liang 2019, §2).

    Every word type gets one label, drawn from the empirical distribution of the task labels
    over the training tokens, and every token of the type carries it, whatever its context or
    true label. Types that occur only outside the training tokens get a draw too, so evaluation
    tokens of unseen types have a control label. Pass all splits in one call, with
    ``train_mask`` marking the training tokens: the draws depend on the whole set of types, so
    separate calls would give one type different labels in different splits.

    The draws are made once per type, in the order of the sorted unique types, from
    ``np.random.default_rng(seed)`` (a Generator is used as is); the same types, labels and
    seed always give the same control.

    Args:
        types: (N,) word type of every token, ids or strings, mutually comparable.
        labels: (N,) int task label of every token.
        seed: non-negative int or numpy Generator.
        train_mask: (N,) bool, the tokens whose labels make the distribution; None means all.

    Returns:
        int64 (N,): every token's control label, its type's draw.

    Raises:
        ParameterError: naming ``types``, ``labels``, ``train_mask`` or ``seed``.
    """
    rng = as_generator(seed)
    types_arr = _type_array(types, "types")
    labels_arr = np.asarray(labels)
    if labels_arr.ndim != 1 or labels_arr.shape[0] != types_arr.shape[0]:
        raise ParameterError(
            "labels", f"must have shape ({types_arr.shape[0]},) like types, got {labels_arr.shape}"
        )
    if labels_arr.dtype.kind not in "iu":
        raise ParameterError("labels", f"must be integer class ids, got dtype {labels_arr.dtype}")
    if train_mask is None:
        mask = np.ones(types_arr.shape[0], dtype=bool)
    else:
        mask = np.asarray(train_mask)
        if mask.dtype != bool or mask.shape != types_arr.shape:
            raise ParameterError(
                "train_mask",
                f"must be a bool array of shape {types_arr.shape}, got {mask.dtype} {mask.shape}",
            )
    if not mask.any():
        name = "labels" if train_mask is None else "train_mask"
        raise ParameterError(name, "no training tokens to take the label distribution from")
    unique, inverse = _sorted_types(types_arr, "types")
    values, counts = np.unique(labels_arr[mask], return_counts=True)
    drawn = rng.choice(values.astype(np.int64), size=unique.shape[0], p=counts / counts.sum())
    return drawn[inverse]


def arc_behaviours(types: Any, seed: int | np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One arc behaviour per word type, uniformly at random (Hewitt & Liang 2019, §2).

    The behaviours are :data:`SELF` (0, attach to itself), :data:`FIRST` (1, attach to the first
    word of the sentence) and :data:`LAST` (2, attach to the last word), each with probability
    1/3, as in the released code. One draw per type, in the order of the sorted unique types,
    from ``np.random.default_rng(seed)``.

    Args:
        types: (N,) word types (any order, repeats allowed), mutually comparable.
        seed: non-negative int or numpy Generator.

    Returns:
        (unique_types, behaviours): the sorted unique types (V,) and int64 codes (V,) in 0..2.

    Raises:
        ParameterError: naming ``types`` or ``seed``.
    """
    rng = as_generator(seed)
    unique, _ = _sorted_types(_type_array(types, "types"), "types")
    return unique, rng.integers(0, len(ARC_BEHAVIOURS), size=unique.shape[0]).astype(np.int64)


def arc_control(
    types_per_sentence: Sequence[Any], seed: int | np.random.Generator
) -> list[np.ndarray]:
    """The dependency-arc control task: heads that follow the type (Hewitt & Liang 2019, §2).

    Every word type gets one behaviour from :func:`arc_behaviours`, drawn over the types of all
    the sentences together, and every token follows its type's behaviour in its own sentence.
    In the project's head convention (1-based positions, 0 = root) the token at position i of
    a sentence of n words gets the head

    - i for :data:`SELF`: "attach to itself" is a self-loop, the token's own position (the
      released code's 0-based ``head = i``); it is never 0, since a control head always names a
      word of the sentence and no token is the root;
    - 1 for :data:`FIRST`;
    - n for :data:`LAST`.

    A one-word sentence therefore gets head 1 whatever its type's behaviour (all three name the
    same word), and an empty sentence an empty array. The heads need not form a tree, as in the
    paper. Pass all splits in one call: the draws depend on the whole set of types.

    Types are compared by their string form (:func:`probekit.io.treebanks.forms_of`), so the
    sentences may be ``Sentence`` objects (their forms are used) or sequences of words or ids.

    Args:
        types_per_sentence: m sentences, each a sequence of n_s word types or a ``Sentence``.
        seed: non-negative int or numpy Generator.

    Returns:
        m int64 arrays, shape (n_s,): the 1-based control head of every token.

    Raises:
        ParameterError: naming ``types_per_sentence`` or ``seed``.
    """
    rng = as_generator(seed)
    if isinstance(types_per_sentence, str | bytes) or not isinstance(types_per_sentence, Sequence):
        raise ParameterError(
            "types_per_sentence", "must be a sequence of sentences, each a sequence of types"
        )
    sentences = []
    for s, sentence in enumerate(types_per_sentence):
        if isinstance(sentence, str | bytes) or not isinstance(
            getattr(sentence, "forms", sentence), Sequence | np.ndarray
        ):
            raise ParameterError(
                "types_per_sentence", f"sentence {s} is not a sequence of types: {sentence!r}"
            )
        sentences.append(np.asarray(forms_of(sentence), dtype=str))
    lengths = [len(words) for words in sentences]
    flat = np.concatenate(sentences) if sentences else np.array([], dtype=str)
    unique, behaviours = arc_behaviours(flat, rng)
    per_token = behaviours[np.searchsorted(unique, flat)]
    heads, start = [], 0
    for n in lengths:
        behaviour = per_token[start : start + n]
        start += n
        own = np.arange(1, n + 1, dtype=np.int64)
        heads.append(
            np.select([behaviour == SELF, behaviour == FIRST], [own, np.ones_like(own)], n)
        )
    return heads


def _accuracies(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError(name, f"must be numbers ({exc})") from exc
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ParameterError(name, "must be accuracies in [0, 1]")
    return arr


def selectivity(task_accuracy: Any, control_accuracy: Any) -> np.ndarray | float:
    """Selectivity: linguistic-task accuracy minus control-task accuracy (Hewitt & Liang 2019, §2).

    Both accuracies come from the same probe architecture and training on the same
    representation; a selective probe does well on the task and poorly on the control.

    Args:
        task_accuracy: accuracies in [0, 1], any shape broadcastable with ``control_accuracy``.
        control_accuracy: accuracies in [0, 1].

    Returns:
        float64 array of the broadcast shape, in [-1, 1]; a float when both inputs are scalars.

    Raises:
        ParameterError: naming the accuracy that is not in [0, 1], or ``control_accuracy`` when
            the shapes do not broadcast.
    """
    task = _accuracies(task_accuracy, "task_accuracy")
    control = _accuracies(control_accuracy, "control_accuracy")
    try:
        np.broadcast_shapes(task.shape, control.shape)
    except ValueError as exc:
        raise ParameterError(
            "control_accuracy",
            f"shape {control.shape} does not broadcast with task_accuracy's {task.shape}",
        ) from exc
    out = task - control
    return float(out) if out.ndim == 0 else out


def selectivity_table(rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Tidy rows of task and control accuracies, with their selectivity added.

    Args:
        rows: a DataFrame or an iterable of mappings, one row per (representation, layer,
            probe) with the columns of :data:`TABLE_COLUMNS`; other columns are kept.

    Returns:
        A new DataFrame (R rows), the input's columns plus ``selectivity``
        (:func:`selectivity` of each row's accuracies).

    Raises:
        ParameterError: naming ``rows`` when a column is missing, or the accuracy column that
            holds a value outside [0, 1].
    """
    frame = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    missing = [c for c in TABLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ParameterError("rows", f"missing columns {missing}; need {list(TABLE_COLUMNS)}")
    frame["selectivity"] = selectivity(
        frame["task_accuracy"].to_numpy(), frame["control_accuracy"].to_numpy()
    )
    return frame
