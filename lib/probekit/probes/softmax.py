"""Linear (softmax-regression) probes for every layer and seed, trained in one batched pass.

The layer-wise picture of chapter 01 needs L layers x S seeds linear probes on the same words.
They all see the same minibatch (one fixed data order per ``order_seed``), so the step is one
batched matmul ``(L, B, d) @ (L, d, S*C)``: each layer's inputs meet all its seeds' weights at
once. Adam is elementwise, so one optimiser over the stacked weights is exactly L*S independent
Adams; the loss is the sum of the probes' mean cross-entropies, so each probe's gradient is what it
would be alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from probekit.errors import ParameterError
from probekit.io.embeddings import embed
from probekit.io.treebanks import UPOS_TAGS, upos_index


@dataclass
class LinearProbeResult:
    """``accuracy[l, s, e]``: eval accuracy of layer l, seed s after epoch e+1."""

    layers: list[int]
    seeds: list[int]
    accuracy: np.ndarray  # (L, S, E)

    def best(self) -> pd.DataFrame:
        """One row per (layer, seed): best-epoch accuracy, as Kunz & Kuhlmann report it."""
        best = self.accuracy.max(axis=2)
        return pd.DataFrame(
            [
                {
                    "layer": layer,
                    "seed": seed,
                    "accuracy": float(best[i, j]),
                    "best_epoch": int(self.accuracy[i, j].argmax()) + 1,
                }
                for i, layer in enumerate(self.layers)
                for j, seed in enumerate(self.seeds)
            ]
        )


def train_linear_probes(
    train: Sequence[np.ndarray],
    y_train: np.ndarray,
    test: Sequence[np.ndarray],
    y_test: np.ndarray,
    layers: Sequence[int],
    seeds: Sequence[int],
    n_classes: int,
    epochs: int = 5,
    lr: float = 1e-3,
    batch_size: int = 64,
    order_seed: int = 0,
    progress: bool = False,
) -> LinearProbeResult:
    """Fit a softmax probe per (layer, seed); report eval accuracy after every epoch.

    train[l]: (N, d) inputs of layer ``layers[l]`` (float16 memory maps are upcast per batch);
    y_train: (N,) int labels; test/y_test likewise. Initialisation: W ~ U(-1/sqrt(d), 1/sqrt(d)),
    b = 0, from ``torch.Generator`` seeded by each seed (PyTorch's nn.Linear convention).
    """

    L, S, C = len(layers), len(seeds), n_classes
    N, d = train[0].shape
    bound = 1.0 / np.sqrt(d)
    W = torch.empty((L, d, S * C))
    for j, seed in enumerate(seeds):
        g = torch.Generator().manual_seed(int(seed))
        # The same seed gives the same initial weights at every layer, as with separate runs.
        w = torch.rand((d, C), generator=g) * 2 * bound - bound
        W[:, :, j * C : (j + 1) * C] = w
    W.requires_grad_(True)
    b = torch.zeros((L, 1, S * C), requires_grad=True)
    opt = torch.optim.Adam([W, b], lr=lr)
    y_tr = torch.as_tensor(np.asarray(y_train), dtype=torch.long)
    y_te = torch.as_tensor(np.asarray(y_test), dtype=torch.long)
    X_te = torch.stack([torch.as_tensor(np.asarray(x, dtype=np.float32)) for x in test])
    X_tr = torch.stack([torch.as_tensor(np.asarray(x, dtype=np.float32)) for x in train])
    rng = np.random.default_rng(order_seed)
    acc = np.zeros((L, S, epochs))
    bar = tqdm(total=epochs, desc=f"{L * S} linear probes", disable=not progress)
    for epoch in range(epochs):
        order = torch.as_tensor(rng.permutation(N))
        for start in range(0, N, batch_size):
            idx = order[start : start + batch_size]
            logits = torch.baddbmm(b, X_tr[:, idx], W)  # (L, B, S*C)
            logits = logits.reshape(L, len(idx), S, C).permute(0, 2, 1, 3).reshape(-1, C)
            target = y_tr[idx].repeat(L * S)
            # Sum over probes of each probe's mean loss: mean over all rows times L*S.
            loss = torch.nn.functional.cross_entropy(logits, target) * (L * S)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        with torch.inference_mode():
            pred = torch.baddbmm(b, X_te, W).reshape(L, -1, S, C).argmax(-1)  # (L, M, S)
            acc[:, :, epoch] = (pred == y_te[None, :, None]).float().mean(1).numpy()
        bar.update()
    bar.close()
    return LinearProbeResult(list(layers), list(seeds), acc)


def layerwise_pos(
    train_sentences: Sequence,
    eval_sentences: Sequence,
    model: str,
    pooling: str,
    layers: Sequence[int] | None,
    seeds: Sequence[int],
    epochs: int = 5,
    lr: float = 1e-3,
    order_seed: int = 0,
    progress: bool = True,
) -> tuple[pd.DataFrame, float]:
    """Linear POS probe accuracy per (layer, seed) on ``eval_sentences``, and the majority
    baseline (the training set's most frequent tag). Embeddings come from the cache."""

    e_tr = embed(train_sentences, model, pooling, progress=progress)
    e_ev = embed(eval_sentences, model, pooling, progress=progress)
    layers = list(range(e_tr.n_layers)) if layers is None else list(layers)
    for layer in layers:
        if not 0 <= layer < e_tr.n_layers:
            raise ParameterError("layers", f"layer {layer} outside 0..{e_tr.n_layers - 1}")
    y_tr, y_ev = upos_index(train_sentences), upos_index(eval_sentences)
    result = train_linear_probes(
        [e_tr.layer(k) for k in layers],
        y_tr,
        [e_ev.layer(k) for k in layers],
        y_ev,
        layers,
        seeds,
        len(UPOS_TAGS),
        epochs=epochs,
        lr=lr,
        order_seed=order_seed,
        progress=progress,
    )
    majority = float((y_ev == np.bincount(y_tr, minlength=len(UPOS_TAGS)).argmax()).mean())
    return result.best(), majority
