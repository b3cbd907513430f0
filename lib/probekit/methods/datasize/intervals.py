"""Intervals for probes whose seeds each draw their own subset (Zhu et al. 2022, §4.1-4.2).

In the paper's design every seed draws a new stratified subset, trains on its training part and
scores on its test part, so two seeds are scored on different (possibly overlapping) test items.
:func:`~probekit.stats.intervals.crossed_interval` needs every seed scored on the same
sentences; :func:`subsets_interval` is the same variance-components interval for this
incomplete design. The estimate is the difference of the seed-averaged accuracies; its variance
is a sentence part, the linearised (cluster-robust) variance over the sentences of the treebank
that appear in any test set (a sentence in several seeds' test sets adds its contributions, so
overlap is accounted for), plus a seed part, the variance of the per-seed accuracies over seeds
divided by their number (of the per-seed differences when both sides share each seed's subset),
with Welch-Satterthwaite degrees of freedom. Each seed's accuracy also varies with its own test
items, so this sentence variation enters both parts and the interval errs on the wide side, as
``crossed_interval``'s does for seed-by-sentence noise (Reimers & Gurevych 2017; Owen 2007).
When every seed is scored on the same items it equals ``crossed_interval`` from
:data:`~probekit.stats.intervals.SMALL_SAMPLE_SENTENCES` sentences on; below, where
``crossed_interval`` inverts a score test over sentences, this one keeps the symmetric t
quantiles (the paper's test sets, and the book's, have thousands of sentences).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.intervals import Interval, components_interval


@dataclass(frozen=True, eq=False)
class SeedSubsets:
    """What one configuration scored on the test items of each seed's subset.

    ``correct[s]`` (n_s,) 1 or 0 per test item of seed s (or any per-item score), and
    ``sentences[s]`` (n_s,) the treebank sentence each item comes from (an integer id shared by
    all seeds and both sides of a comparison). An item is one sentence for the tense task and one
    word for part of speech; the sentence is the unit of resampling either way.
    """

    correct: tuple[np.ndarray, ...]
    sentences: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        """Check one (correct, sentences) pair per seed, of equal non-zero lengths."""
        if not self.correct or len(self.correct) != len(self.sentences):
            raise ParameterError("correct", "needs one array of scores and of sentences per seed")
        for c, s in zip(self.correct, self.sentences, strict=True):
            if np.ndim(c) != 1 or np.shape(c) != np.shape(s) or len(c) == 0:
                raise ParameterError(
                    "sentences", "each seed needs (n_s,) scores and sentence ids, n_s >= 1"
                )

    @property
    def n_seeds(self) -> int:
        """Seeds (subsets)."""
        return len(self.correct)

    def accuracies(self) -> np.ndarray:
        """Per-seed accuracy on the seed's own test items, (n_seeds,)."""
        return np.array([float(np.mean(c)) for c in self.correct])


def _influence(side: SeedSubsets, ids: np.ndarray, sign: float) -> np.ndarray:
    """Each sentence's contribution to ``sign`` x the seed-averaged accuracy, linearised."""
    out = np.zeros(len(ids))
    for c, s in zip(side.correct, side.sentences, strict=True):
        c = np.asarray(c, dtype=np.float64)
        resid = (c - c.mean()) / len(c)
        out += np.bincount(np.searchsorted(ids, s), weights=resid, minlength=len(ids))
    return sign * out / side.n_seeds


def subsets_interval(
    a: SeedSubsets,
    b: SeedSubsets | None,
    level: float = 0.90,
    *,
    paired_seeds: bool = False,
    shift: float = 0.0,
) -> Interval:
    """Interval of ``shift + accuracy_A - accuracy_B`` over sentences and seeds.

    See the module docstring. ``b`` None leaves A alone (pass ``shift=-reference`` to compare it
    with a fixed reference). ``paired_seeds``: A's and B's seed s
    share one subset (two configurations trained on it), so the seed part is the variance of the
    per-seed differences over the k = k_a = k_b seeds. ``shift`` adds a known constant (such as
    a bound) to the estimate and the interval.
    """
    if not 0 < level < 1:
        raise ParameterError("level", f"must lie in (0, 1), got {level!r}")
    sides = [(a, 1.0)] + ([] if b is None else [(b, -1.0)])
    if paired_seeds:
        if b is None or a.n_seeds != b.n_seeds:
            raise ParameterError("paired_seeds", "needs two sides with the same seeds")
        for ca, sa, cb, sb in zip(a.correct, a.sentences, b.correct, b.sentences, strict=True):
            if len(ca) != len(cb) or not np.array_equal(sa, sb):
                raise ParameterError("paired_seeds", "the sides must share each seed's items")
    ids = np.unique(np.concatenate([np.asarray(s) for side, _ in sides for s in side.sentences]))
    n = len(ids)
    if n < 2:
        raise ParameterError("sentences", f"needs at least 2 sentences, got {n}")
    psi = sum(_influence(side, ids, sign) for side, sign in sides)
    var_sent = n / (n - 1) * float(np.sum(psi**2))
    acc_a = a.accuracies()
    acc_b = None if b is None else b.accuracies()
    theta = shift + float(acc_a.mean()) - (0.0 if acc_b is None else float(acc_b.mean()))
    if paired_seeds:
        per_seed = [acc_a - acc_b]
    else:
        per_seed = [acc_a] + ([] if acc_b is None else [-acc_b])
    out = components_interval(theta, var_sent, n, per_seed, level, design=", one subset per seed")
    # Unpaired, the result's seeds are those of each side, B's 0 when it has none.
    n_seeds = (a.n_seeds, 0 if b is None else b.n_seeds)
    return replace(out, n_seeds=n_seeds)


def seed_subsets(
    correct: Sequence[np.ndarray], test_items: Sequence[np.ndarray], sentence_of: np.ndarray
) -> SeedSubsets:
    """:class:`SeedSubsets` from per-seed test correctness and the test items' pool indices.

    ``sentence_of`` (N,) maps a pool example to its sentence id.
    """
    ids = np.asarray(sentence_of)
    return SeedSubsets(
        tuple(np.asarray(c, dtype=np.float64) for c in correct),
        tuple(ids[np.asarray(t)] for t in test_items),
    )
