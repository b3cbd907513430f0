"""Probing configurations and how their probes are trained (Zhu et al. 2022, §4.1-4.6).

A :class:`ProbingConfig` is one configuration {E, f} of the paper's Definition 1: an encoder, a
classifier (logistic regression or an MLP with 20 hidden units) and, for the case study of
§4.3, Gaussian noise on the representations. :func:`train_subsets` trains every configuration
on every subset in few batched passes (:func:`probekit.probes.softmax.train_softmax_probes`,
:func:`probekit.probes.mlp.train_batched`) and scores each probe on its test set at the
checkpoint with the best validation accuracy. The released code (SPOClab-ca/probing_dataset)
logs the test predictions of the best trial's *last* epoch instead, and tunes learning rate
and batch size by a grid search with up to 100 epochs; ours use one Adam setting
(:class:`Training`) and a minimum number of updates, so that small subsets are trained as long
as large ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part5_datasize.encoders import ExampleEncoder
from probekit.methods.datasize.pools import Pool
from probekit.methods.datasize.subsets import Split
from probekit.probes.mlp import ProbeSpec
from probekit.probes.mlp_batched import train_batched
from probekit.probes.softmax import train_softmax_probes

CLASSIFIERS = ("logreg", "mlp20")
#: How the chapters name the classifiers.
CLF_NAMES = {"logreg": "LogReg", "mlp20": "MLP-20"}
#: Hidden units of the paper's MLP probe (§4.1, §4.6).
MLP_HIDDEN = 20


@dataclass(frozen=True)
class ProbingConfig:
    """One probing configuration {E, f} of Zhu et al. 2022, Definition 1 (T is the pool's task).

    ``encoder``: key of an :class:`~probekit.experiments.part5_datasize.encoders.ExampleEncoder`;
    ``classifier``: ``"logreg"`` or ``"mlp20"``;
    ``sigma``: standard deviation of the Gaussian noise added to the representations (§4.3).
    The paper's text writes the noise as N(0, sigma^2) with sigma^2 in {0.01, ..., 3}; its code
    passes those values as the standard deviation, and so do we.
    """

    name: str
    encoder: str
    classifier: str = "logreg"
    sigma: float = 0.0


@dataclass(frozen=True)
class Training:
    """How every probe is trained: one Adam setting.

    The released code grid-searches learning rate and batch size instead. A probe runs
    ``max(epochs, ceil(min_updates / steps_per_epoch))`` epochs and is evaluated at ``n_checks``
    evenly spaced epoch ends; the checkpoint with the best validation accuracy gives its test
    predictions. ``max_bytes`` bounds the input views held at once (probes are trained in several
    passes beyond it). ``device``: where the probes train
    (:func:`probekit.devices.resolve_device`).
    """

    epochs: int = 20
    min_updates: int = 1000
    batch_size: int = 64
    lr: float = 1e-3
    lr_mlp: float = 1e-3
    n_checks: int = 10
    max_bytes: int = 400_000_000
    device: str = "cpu"

    def schedule(self, n_train: int) -> tuple[int, list[int]]:
        """(epochs, checkpoint update counts) for a training set of ``n_train`` examples."""
        steps = math.ceil(n_train / self.batch_size)
        epochs = max(self.epochs, math.ceil(self.min_updates / steps))
        ends = np.unique(np.ceil(np.linspace(0, epochs, self.n_checks + 1)[1:]).astype(int))
        return epochs, [int(e) * steps for e in ends if e >= 1]


def check_probing_configs(
    configs: Sequence[ProbingConfig], encoders: Mapping[str, ExampleEncoder]
) -> None:
    """Check for distinct names, known encoders and classifiers, and finite sigma >= 0.

    Raises :class:`~probekit.errors.ParameterError` otherwise.
    """
    names = [c.name for c in configs]
    if not configs or len(set(names)) != len(names):
        raise ParameterError("configs", f"need distinct names, got {names}")
    for c in configs:
        if c.encoder not in encoders:
            raise ParameterError("configs", f"{c.name}: unknown encoder '{c.encoder}'")
        if c.classifier not in CLASSIFIERS:
            raise ParameterError("classifier", f"'{c.classifier}' is not one of {CLASSIFIERS}")
        if not (math.isfinite(c.sigma) and c.sigma >= 0):
            raise ParameterError("sigma", f"must be >= 0, got {c.sigma}")


def _view_key(config: ProbingConfig, key: int) -> tuple:
    # Clean views are shared by all subsets; a noisy view belongs to one subset.
    return (config.encoder, config.sigma, key if config.sigma > 0 else None)


def _passes(probes: list[tuple[ProbingConfig, int]], view_bytes: int, budget: int) -> list[list]:
    """Group probes (config, subset key) into passes whose distinct views fit ``budget``."""
    passes: list[list] = [[]]
    seen: set[tuple] = set()
    for probe in probes:
        view = _view_key(*probe)
        if view not in seen and passes[-1] and (len(seen) + 1) * view_bytes > budget:
            passes.append([])
            seen = set()
        seen.add(view)
        passes[-1].append(probe)
    return passes


def _train_pass(
    probes: list[tuple[ProbingConfig, int]],
    splits: Mapping[int, Split],
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], np.ndarray]:
    """Train one pass of probes (config, subset key) of one classifier and input dimension.

    All subsets have equally many training rows. Returns, per probe, its correctness at each
    checkpoint on its subset's validation then test rows, bool (n_ckpt, n_val + n_test).
    """
    classifier = probes[0][0].classifier
    keys = sorted({key for _, key in probes})
    train_rows = np.unique(np.concatenate([splits[k].train for k in keys]))
    eval_rows = np.unique(np.concatenate([splits[k].eval for k in keys]))
    views = list(dict.fromkeys(_view_key(c, key) for c, key in probes))
    dim = encoders[probes[0][0].encoder].dim
    Xt = np.empty((len(views), len(train_rows), dim), dtype=np.float32)
    Xe = np.empty((len(views), len(eval_rows), dim), dtype=np.float32)
    clean: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for v, (enc, sigma, key) in enumerate(views):
        if enc not in clean:
            clean[enc] = (encoders[enc](train_rows), encoders[enc](eval_rows))
        Xt[v], Xe[v] = clean[enc]
        if sigma > 0:
            split = splits[key]
            n_tr, n_all = len(split.train), len(split.train) + len(split.eval)
            # One draw per subset, shared by every sigma, so noise levels differ only in scale.
            z = np.random.default_rng(noise_seed(key)).standard_normal((n_all, dim), np.float32)
            Xt[v, np.searchsorted(train_rows, split.train)] += sigma * z[:n_tr]
            Xe[v, np.searchsorted(eval_rows, split.eval)] += sigma * z[n_tr:]
    specs = [
        ProbeSpec(
            seed=init_seed(key),
            view=views.index(_view_key(c, key)),
            order_seed=init_seed(key),
            train=np.searchsorted(train_rows, splits[key].train),
        )
        for c, key in probes
    ]
    epochs, ckpts = training.schedule(len(splits[keys[0]].train))
    yt, ye = pool.y[train_rows], pool.y[eval_rows]
    if classifier == "logreg":
        correct = train_softmax_probes(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, lr=training.lr, checkpoints=ckpts,
            device=training.device,
        )  # fmt: skip
    else:
        result = train_batched(
            Xt, yt, Xe, ye, pool.n_classes, specs, epochs=epochs,
            batch_size=training.batch_size, hidden=MLP_HIDDEN, lr=training.lr_mlp,
            checkpoints=ckpts, device=training.device,
        )  # fmt: skip
        correct = result.ckpt_correct_eval
    return {
        (c.name, key): correct[k][:, np.searchsorted(eval_rows, splits[key].eval)]
        for k, (c, key) in enumerate(probes)
    }


def _select(ckpt_correct: np.ndarray, n_val: int) -> tuple[int, float, np.ndarray]:
    """(checkpoint, validation accuracy, test correctness) at the best validation accuracy.

    Ties go to the earliest checkpoint. ``ckpt_correct`` (n_ckpt, n_val + n_test).
    """
    val_acc = ckpt_correct[:, :n_val].mean(axis=1)
    best = int(np.argmax(val_acc))
    return best, float(val_acc[best]), ckpt_correct[best, n_val:]


def train_subsets(
    pool: Pool,
    encoders: Mapping[str, ExampleEncoder],
    configs: Sequence[ProbingConfig],
    splits: Mapping[int, Split],
    training: Training,
    init_seed: Callable[[int], int],
    noise_seed: Callable[[int], list[int]],
) -> dict[tuple[str, int], tuple[int, float, np.ndarray]]:
    """Every config on every subset (equal training sizes), in batched passes.

    Grouped by classifier and input dimension (Zhu et al. 2022, §4.2-4.6 and §3.6). Returns
    {(config, key): (checkpoint, acc_val, test correctness (n_test,))}.
    """
    keys = list(splits)
    groups: dict[tuple, list[tuple[ProbingConfig, int]]] = {}
    for c in configs:
        for key in keys:
            groups.setdefault((c.classifier, encoders[c.encoder].dim), []).append((c, key))
    out = {}
    for (_, dim), probes in groups.items():
        view_bytes = sum(len(splits[k].train) + len(splits[k].eval) for k in keys) * dim * 4
        for part in _passes(probes, view_bytes, training.max_bytes):
            result = _train_pass(part, splits, pool, encoders, training, init_seed, noise_seed)
            for (name, key), cc in result.items():
                out[(name, key)] = _select(cc, len(splits[key].val))
    return out
