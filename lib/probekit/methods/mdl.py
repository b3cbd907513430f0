"""Minimum description length of labels given representations, by the online code.

Voita & Titov 2020, "Information-Theoretic Probing with Minimum Description Length", §3.2
(online, or prequential, code). The examples are sent in a fixed random order and in blocks
that double in size; the first block goes with the uniform code, each later one with a probe
trained on every example sent before it. The fewer bits the labels cost, the more easily the
representations give them away, which reflects both how well a probe fits and how much data it
needs to get there. Zhu et al. 2022 (§3.3, Theorem 3, proved in their Appendix B) bound the
generalisation error of this codelength; the bound is dominated by its first terms, the
smallest blocks, whose probes are trained on the fewest examples.

- :data:`BLOCK_FRACTIONS` and :func:`block_ends`: where the blocks end;
- :func:`uniform_codelength` and :func:`online_codelength`: the codelengths in bits;
- :func:`online_code`: trains every block's probe in one call of the stacked trainer
  (:func:`probekit.probes.mlp_batched.train_batched`) and returns an :class:`OnlineCode`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.probes.mlp import EPOCHS, HIDDEN, ProbeSpec, as_labels
from probekit.probes.mlp_batched import train_batched

# Voita & Titov 2020, §3.2: 0.1 %, 0.2 %, 0.4 %, 0.8 %, 1.6 %, 3.2 %, 6.25 %, 12.5 %, 25 %,
# 50 % and 100 % of the data.
BLOCK_FRACTIONS: tuple[float, ...] = (
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0,
)  # fmt: skip

# Relative slack when flooring fraction * n: binary floats make e.g. 0.58 * 100 come out as
# 57.99999999999999, which must count as 58 examples, not 57.
_FLOOR_SLACK = 1e-9


def block_ends(n: int, fractions: Sequence[float] = BLOCK_FRACTIONS) -> np.ndarray:
    """The timesteps t_1 < ... < t_S = n where the blocks end (Voita & Titov 2020, §3.2).

    Rounding rule: t_i = max(1, floor(f_i * n)) for each fraction f_i, so no block holds more
    examples than its fraction allows and the first block holds at least one example (a
    probe needs something to train on). Fractions that give the same count are merged into one
    block. For n = 1000 the default fractions give 1, 2, 4, 8, 16, 32, 62, 125, 250, 500, 1000.

    Returns the ends as int64, shape (S,), strictly increasing, the last equal to ``n``. Raises
    :class:`ParameterError` naming ``n`` when n < 2 (no block would follow the first) and
    ``fractions`` unless they increase strictly within (0, 1] and end at 1.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ParameterError("n", f"must be an int >= 2, got {n!r}")
    f = np.asarray(fractions, dtype=np.float64)
    if f.ndim != 1 or f.size == 0:
        raise ParameterError("fractions", f"must be a non-empty 1-D sequence, got {fractions!r}")
    if not (np.all(f > 0) and np.all(f <= 1) and np.all(np.diff(f) > 0)):
        raise ParameterError("fractions", f"must increase strictly within (0, 1], got {f.tolist()}")
    if f[-1] != 1.0:
        raise ParameterError("fractions", f"must end at 1 (all the data), got {f[-1]}")
    ends = np.floor(f * n * (1 + _FLOOR_SLACK)).astype(np.int64)
    ends = np.minimum(np.maximum(ends, 1), n)
    return np.unique(ends)  # sorted; merges fractions that round to the same count


def _check_classes(n_classes: int) -> int:
    # One class costs 0 bits uniformly, so the compression ratio would be 0 / 0.
    if isinstance(n_classes, bool) or not isinstance(n_classes, int | np.integer) or n_classes < 2:
        raise ParameterError("n_classes", f"must be an int >= 2, got {n_classes!r}")
    return int(n_classes)


def uniform_codelength(n: int, n_classes: int) -> float:
    """Bits to send ``n`` labels of ``n_classes`` classes with the uniform code: n * log2(K).

    Voita & Titov 2020, §3.2 (the baseline that :attr:`OnlineCode.compression` divides).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ParameterError("n", f"must be an int >= 1, got {n!r}")
    return float(n) * math.log2(_check_classes(n_classes))


def online_codelength(block_bits: Sequence[float], first_block: int, n_classes: int) -> float:
    """The online codelength in bits: first_block * log2(K) + sum(block_bits).

    Voita & Titov 2020, §3.2. ``first_block`` = t_1, the examples sent with the uniform code;
    ``block_bits`` (S-1,) the bits of each later block, sum of -log2 p(y | x) over its examples
    under the probe trained on everything sent before it.
    """
    bits = np.asarray(block_bits, dtype=np.float64)
    if bits.ndim != 1 or not np.all(np.isfinite(bits)) or np.any(bits < 0):
        raise ParameterError("block_bits", f"must be a 1-D array of finite bits >= 0, got {bits}")
    return uniform_codelength(first_block, n_classes) + float(bits.sum())


@dataclass(frozen=True, eq=False)
class OnlineCode:
    """The online code of a dataset (Voita & Titov 2020, §3.2).

    ``ends`` (S,) int64: the block ends t_1..t_S (:func:`block_ends`), t_S = N. ``block_bits``
    (S-1,) float64: the bits of blocks 2..S, block i+1 (examples t_i+1..t_{i+1}) scored by the
    probe trained on the first t_i examples. ``n_classes``: K.
    """

    ends: np.ndarray
    block_bits: np.ndarray
    n_classes: int

    def __post_init__(self) -> None:
        """Check that there is one block's bits per block after the first."""
        if len(self.block_bits) != len(self.ends) - 1:
            raise ParameterError(
                "block_bits", f"has {len(self.block_bits)} blocks, expected {len(self.ends) - 1}"
            )

    @property
    def codelength_bits(self) -> float:
        """The online codelength in bits (:func:`online_codelength`)."""
        return online_codelength(self.block_bits, int(self.ends[0]), self.n_classes)

    @property
    def kbits(self) -> float:
        """The online codelength in kbits (bits / 1000), the unit of Voita & Titov's tables."""
        return self.codelength_bits / 1000

    @property
    def uniform_bits(self) -> float:
        """The uniform codelength of all N labels in bits, N * log2(K)."""
        return uniform_codelength(int(self.ends[-1]), self.n_classes)

    @property
    def compression(self) -> float:
        """Uniform codelength / online codelength.

        About 1 when the probes learn nothing, more the cheaper the representations make the
        labels to send.
        """
        return self.uniform_bits / self.codelength_bits


def online_code(
    X: object,
    y: object,
    n_classes: int,
    *,
    seed: int,
    order_seed: int,
    hidden: int = HIDDEN,
    epochs: int = EPOCHS,
    fractions: Sequence[float] = BLOCK_FRACTIONS,
    device: str = "cpu",
) -> OnlineCode:
    """The online code of labels ``y`` (N,) in 0..K-1 given representations ``X`` (N, d).

    Voita & Titov 2020, §3.2. The examples are first put in the transmission order, a
    permutation drawn from ``np.random.default_rng(order_seed)``. The blocks end at
    :func:`block_ends` (N, ``fractions``). For i = 1..S-1 a probe is trained on the first t_i
    examples and block i+1 costs the sum over its examples of -log2 p(y | x) under the final
    weights of that probe (the trainer's per-example cross-entropy in nats, divided by ln 2).
    ``order_seed`` also sets each probe's minibatch order, ``seed`` every probe's initial
    weights. All S-1 probes are trained in one call of
    :func:`probekit.probes.mlp_batched.train_batched`.

    Stated deviation: the probe is the MLP of Kunz & Kuhlmann 2021, §3.2 (``hidden`` units, Adam,
    batch 64), trained for a fixed ``epochs`` as the project's trainer does, where Voita & Titov
    train each block's probe to convergence with early stopping. A probe on a small block thus
    makes few updates and stays near its initialisation, so small blocks tend to cost more bits
    than under their protocol. Those are the terms that dominate the generalisation bound of
    Zhu et al. 2022 (§3.3, Theorem 3), so compare codelengths only between runs with the same
    ``epochs`` and ``hidden``.

    Raises :class:`ParameterError` naming ``X``, ``y`` or ``n_classes`` for a bad shape or a
    label outside 0..K-1, before any training.
    """
    K = _check_classes(n_classes)
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ParameterError("X", f"must have shape (N, d) with N >= 2, got {X.shape}")
    N = X.shape[0]
    if not np.issubdtype(np.asarray(y).dtype, np.integer):
        raise ParameterError("y", f"must be integer labels, got {np.asarray(y).dtype}")
    labels = as_labels(y, N, K, "y").numpy()
    ends = block_ends(N, fractions)
    perm = np.random.default_rng(order_seed).permutation(N)
    Xp, yp = X[perm], labels[perm]
    # Probe i trains on the first t_i examples sent and is scored on the next block only. The
    # trainer evaluates each probe on its own eval rows, so one call serves every block.
    specs = [
        ProbeSpec(
            seed=seed,
            order_seed=order_seed,
            train=np.arange(ends[i]),
            eval=np.arange(ends[i], ends[i + 1]),
        )
        for i in range(len(ends) - 1)
    ]
    result = train_batched(
        Xp, yp, Xp, yp, K, specs,
        epochs=epochs,
        hidden=hidden,
        record_loss=True,
        record_train=False,  # training-row losses are not part of the code: skip them
        device=device,
    )  # fmt: skip
    nats = result.loss_eval.astype(np.float64)  # (S-1, N), 0 outside each probe's block
    block_bits = np.array(
        [nats[i, ends[i] : ends[i + 1]].sum() for i in range(len(ends) - 1)]
    ) / math.log(2)
    return OnlineCode(ends=ends, block_bits=block_bits, n_classes=K)
