"""Checks for collapsed comparison problems (Zhu et al. 2022, §3.6).

A comparison has collapsed when the two configurations are indistinguishable, so no data
size separates them. Two checks run it on many splits and test each with McNemar's exact test
(:mod:`probekit.stats.mcnemar`): repeated pilots on random subsamples
(:func:`repeated_subsampling`) and the rotation of 6 folds (:func:`fold_rotation`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.stats.checks import open_unit, positive_int
from probekit.stats.mcnemar import mcnemar_exact, mcnemar_table


@dataclass(frozen=True, eq=False)
class Split:
    """Index arrays of one train / validation / test split, each sorted.

    ``train`` (n_train,), ``val`` (n_val,, possibly empty) and ``test`` (n_test,).
    """

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray

    @property
    def eval(self) -> np.ndarray:
        """Validation then test indices, shape (n_val + n_test,)."""
        return np.concatenate([self.val, self.test])


FitPredict = Callable[..., tuple[np.ndarray, np.ndarray]]


def subsample_splits(
    n_items: int, n_train: int, n_test: int, *, n_repeats: int, seed: int, n_val: int = 0
) -> list[Split]:
    """Random disjoint subsamples of ``n_items`` items (Zhu et al. 2022, §3.6, "repeated pilots").

    Each of ``n_repeats`` splits draws ``n_train + n_val + n_test`` distinct items without
    replacement from one ``numpy.random.Generator(seed)`` stream. Not stratified: pass
    your own splits to :func:`collapse_check` for that.
    """
    n_items = positive_int("n_items", n_items)
    n_train = positive_int("n_train", n_train)
    n_test = positive_int("n_test", n_test)
    n_val = positive_int("n_val", n_val, minimum=0)
    n_repeats = positive_int("n_repeats", n_repeats)
    if n_train + n_val + n_test > n_items:
        raise ParameterError(
            "n_train", f"n_train + n_val + n_test = {n_train + n_val + n_test} > {n_items} items"
        )
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(n_repeats):
        perm = rng.permutation(n_items)
        cut = np.cumsum([n_train, n_test, n_val])
        train, test, val = perm[: cut[0]], perm[cut[0] : cut[1]], perm[cut[1] : cut[2]]
        splits.append(Split(np.sort(train), np.sort(val), np.sort(test)))
    return splits


def rotation_splits(n_items: int, n_folds: int = 6, *, seed: int) -> list[Split]:
    """Rotating cross-validation folds (Zhu et al. 2022, §3.6).

    Items are shuffled with ``numpy.random.Generator(seed)`` and cut into ``n_folds``
    near-equal folds. Run i (0-based) validates on fold i, tests on fold ``(i + 1) mod
    n_folds`` and trains on the rest, so each item is tested exactly once.
    """
    n_folds = positive_int("n_folds", n_folds, minimum=3)
    n_items = positive_int("n_items", n_items, minimum=n_folds)
    folds = np.array_split(np.random.default_rng(seed).permutation(n_items), n_folds)
    splits = []
    for i in range(n_folds):
        j = (i + 1) % n_folds
        train = np.concatenate([f for k, f in enumerate(folds) if k not in (i, j)])
        splits.append(Split(np.sort(train), np.sort(folds[i]), np.sort(folds[j])))
    return splits


@dataclass(frozen=True, eq=False)
class CollapseReport:
    """Outcome of a comparison over many splits (:func:`collapse_check`).

    ``diffs`` (k,): ``acc_a - acc_b`` per split; ``p_values`` (k,): exact McNemar per split;
    ``n_test`` (k,): test items per split.
    """

    diffs: np.ndarray
    p_values: np.ndarray
    n_test: np.ndarray
    alpha: float

    @property
    def sign_flip_rate(self) -> float:
        """Share of splits not agreeing with the majority sign.

        Zero differences count as disagreeing. The rate is 0 for a stable comparison, about 0.5
        for a collapsed one.
        """
        pos, neg = np.mean(self.diffs > 0), np.mean(self.diffs < 0)
        return float(1.0 - max(pos, neg))

    @property
    def significant_rate(self) -> float:
        """Share of splits where McNemar's test is significant at ``alpha``.

        For a collapsed comparison it stays near ``alpha`` however large the splits are.
        """
        return float(np.mean(self.p_values <= self.alpha))

    @property
    def mean_diff(self) -> float:
        """Mean of ``acc_a - acc_b`` over splits."""
        return float(np.mean(self.diffs))

    def as_dict(self) -> dict[str, object]:
        """Plain-Python (JSON-serialisable) view."""
        return {
            "diffs": [float(x) for x in self.diffs],
            "p_values": [float(x) for x in self.p_values],
            "n_test": [int(x) for x in self.n_test],
            "alpha": self.alpha,
            "sign_flip_rate": self.sign_flip_rate,
            "significant_rate": self.significant_rate,
            "mean_diff": self.mean_diff,
        }


def collapse_check(
    fit_predict: FitPredict, splits: Iterable[Split], *, alpha: float = 0.05
) -> CollapseReport:
    """Run a comparison on many splits and test each (Zhu et al. 2022, §3.6).

    For every split, ``fit_predict(train_idx, test_idx)`` (with a third keyword argument
    ``val_idx=`` when the split has a validation part) trains both configurations and returns
    their boolean correctness vectors ``(correct_a, correct_b)``, each of shape
    ``(len(test_idx),)``. Each split gets ``acc_a - acc_b`` and an exact McNemar p-value.
    """
    alpha = open_unit("alpha", alpha)
    diffs, p_values, n_test = [], [], []
    for split in splits:
        if len(split.val):
            out = fit_predict(split.train, split.test, val_idx=split.val)
        else:
            out = fit_predict(split.train, split.test)
        correct_a, correct_b = out
        table = mcnemar_table(correct_a, correct_b)
        if table.sum() != len(split.test):
            raise ParameterError(
                "fit_predict",
                f"returned {table.sum()} results for {len(split.test)} test items",
            )
        diffs.append((table[1, 0] - table[0, 1]) / max(1, table.sum()))
        p_values.append(mcnemar_exact(table).p_value)
        n_test.append(int(table.sum()))
    if not diffs:
        raise ParameterError("splits", "needs at least one split")
    return CollapseReport(np.array(diffs), np.array(p_values), np.array(n_test), alpha)


def repeated_subsampling(
    fit_predict: FitPredict,
    n_items: int,
    n_train: int,
    n_test: int,
    *,
    n_repeats: int = 10,
    seed: int,
    alpha: float = 0.05,
    n_val: int = 0,
) -> CollapseReport:
    """Repeated pilot studies on random subsamples (Zhu et al. 2022, §3.6).

    :func:`subsample_splits` followed by :func:`collapse_check`. If the configurations give
    almost indistinguishable results (frequent sign flips, significance near ``alpha``),
    the comparison has likely collapsed.
    """
    splits = subsample_splits(n_items, n_train, n_test, n_repeats=n_repeats, seed=seed, n_val=n_val)
    return collapse_check(fit_predict, splits, alpha=alpha)


def fold_rotation(
    fit_predict: FitPredict,
    n_items: int,
    *,
    n_folds: int = 6,
    seed: int,
    alpha: float = 0.05,
) -> CollapseReport:
    """The rotating 6-fold augmentation (Zhu et al. 2022, §3.6).

    :func:`rotation_splits` followed by :func:`collapse_check`; ``fit_predict`` is called as
    ``fit_predict(train_idx, test_idx, val_idx=val_idx)``.
    """
    return collapse_check(fit_predict, rotation_splits(n_items, n_folds, seed=seed), alpha=alpha)
