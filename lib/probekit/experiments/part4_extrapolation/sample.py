"""The one sentence sample of Part IV (Kunz & Kuhlmann 2021, §3.3), its tasks and probe inputs.

The chapters share one sample (S_train, S_test), embedded once with all layers
(:func:`load_sample`); a task's examples index that sample's flat embedding arrays
(:func:`task_examples`), and :func:`layer_inputs` stacks the probed layers for the trainer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from probekit.errors import ParameterError
from probekit.experiments.part4_extrapolation.config import ExtrapolationSampleConfig
from probekit.io import embeddings, tasks, treebanks
from probekit.io.treebanks import Sentence
from probekit.methods.extrapolation import splits as extrapolation_splits

# Kunz & Kuhlmann's names of the two tasks (§3.3): T1 part-of-speech tags, T2 dependency labels.
TASK_LABEL: dict[str, str] = {"pos": "T1", "deprel": "T2"}


@dataclass(frozen=True, eq=False)
class Sample:
    """S_train and S_test (Kunz & Kuhlmann 2021, §3.3) and their all-layer embeddings."""

    train: list[Sentence]
    eval: list[Sentence]
    emb_train: embeddings.Embeddings
    emb_eval: embeddings.Embeddings

    @property
    def n_layers(self) -> int:
        """Layers of the encoder, the embedding output (layer 0) included."""
        return self.emb_train.n_layers


def load_sample(config: ExtrapolationSampleConfig) -> Sample:
    """Sample ``n_train`` train and ``n_eval`` dev sentences (0 = all) and embed both.

    Kunz & Kuhlmann 2021, §3.3 (1,000 + 1,000 sentences of EWT), drawn with
    ``config.sample_seed`` from ``config.treebank`` and embedded by ``config.model`` with
    ``config.pooling``. One sample serves every layer (the released code drew a new one per
    layer); the embedding cache makes repeated calls free. The encoder runs on
    ``config.device`` on a cache miss.
    """
    tb = treebanks.load_treebank(config.treebank)
    seed = config.sample_seed
    train = extrapolation_splits.sample_split(tb["train"], config.n_train, seed=seed)
    dev = extrapolation_splits.sample_split(tb["dev"], config.n_eval, seed=seed)
    return Sample(
        train,
        dev,
        embeddings.embed(train, config.model, config.pooling, progress=False, device=config.device),
        embeddings.embed(dev, config.model, config.pooling, progress=False, device=config.device),
    )


def task_examples(task: str, sample: Sample) -> tuple[tasks.Examples, tasks.Examples]:
    """Training and evaluation :class:`~probekit.io.tasks.Examples` of T1 ("pos") or T2 ("deprel").

    Kunz & Kuhlmann 2021, §3.3. The T2 label inventory comes from the training sentences.
    """
    if task == "pos":
        return (
            tasks.pos_examples(sample.train, sample.emb_train.offsets),
            tasks.pos_examples(sample.eval, sample.emb_eval.offsets),
        )
    if task == "deprel":
        inventory = tasks.deprel_inventory(sample.train)
        return (
            tasks.deprel_examples(sample.train, inventory, sample.emb_train.offsets),
            tasks.deprel_examples(sample.eval, inventory, sample.emb_eval.offsets),
        )
    raise ParameterError("task", f"'{task}' is not one of 'pos', 'deprel'")


def layer_inputs(
    sample: Sample, train: tasks.Examples, eval_: tasks.Examples, layers: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Stacked probe inputs, (L, N, d) and (L, M, d) (2d for T2), view i being ``layers[i]``."""
    return (
        tasks.gather_layers([sample.emb_train.layer(k) for k in layers], train.rows),
        tasks.gather_layers([sample.emb_eval.layer(k) for k in layers], eval_.rows),
    )
