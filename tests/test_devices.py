"""The ``device`` of every chapter, trainer and metric (probekit.devices).

- the resolver: ``auto``, ``cpu``, ``cuda``, ``cuda:N`` (and ``meta`` for these tests); anything
  else, or a GPU this machine lacks, is a ParameterError naming ``device``;
- every chapter declares ``device`` and its configuration rejects a bad one before anything runs;
- every trainer runs on ``cpu`` (and defaults to it);
- on the ``meta`` device (shapes without data) the trainers' forward, loss and update steps run
  until the first number is copied back to the CPU, which meta cannot do; meanwhile a dispatch
  mode (:class:`SameDevice`) fails any operation that mixes a meta tensor with a CPU one (PyTorch
  itself lets a matmul or an index do so on meta), so a tensor created on the CPU inside a
  training loop by mistake fails these tests;
- with a GPU, every trainer agrees with its CPU run (marked ``cuda``; without a GPU they are
  skipped and the run's summary says "CUDA tests: not run, no GPU");
- the embedding cache does not depend on the device (float16 on disk).
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from conftest import blobs
from probekit import devices
from probekit.book import params
from probekit.errors import ParameterError
from probekit.probes import (
    biaffine,
    biaffine_stack,
    linear,
    mlp,
    mlp_batched,
    mlp_stack,
    softmax,
    training,
)
from probekit.probes import structural as S
from probekit.probes import structural_stack as T
from probekit.probes.mlp import ProbeSpec
from probekit.probes.mlp_stack import MLPConfig, TrainingSet
from probekit.probes.training import TrainOptions
from probekit.representations.types import OneHotEmbedding
from test_linear_biaffine import star_trees
from test_structural import synthetic_corpus

META = torch.device("meta")
CHAPTERS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-5][0-9]_*.py"))
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA tests: not run, no GPU")


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


# --------------------------------------------------------------------------------------------
# The resolver


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("cpu", "cpu"), (" CPU ", "cpu"), ("meta", "meta"), (torch.device("cpu"), "cpu")],
)
def test_resolve_known_devices(spec, expected):
    assert devices.resolve_device(spec) == torch.device(expected)


def test_auto_is_the_gpu_when_pytorch_sees_one(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert devices.resolve_device("auto") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert devices.resolve_device("auto") == torch.device("cuda")


@pytest.mark.parametrize(
    "spec", ["gpu", "cuda:x", "cpu:0", "", "cuda:", "cuda:-1", "auto:1", "mps", 0, None]
)
def test_misspelt_devices_name_the_parameter(spec):
    with pytest.raises(ParameterError, match="parameter 'device'") as exc:
        devices.resolve_device(spec)
    assert exc.value.name == "device" and "cuda:N" in str(exc.value)


def test_an_unsupported_torch_device_is_rejected():
    with pytest.raises(ParameterError, match="not a supported device"):
        devices.resolve_device(torch.device("mps"))


@pytest.mark.parametrize("spec", ["cuda", "cuda:0", "CUDA", torch.device("cuda")])
def test_cuda_without_a_gpu_is_a_clear_error(no_gpu, spec):
    with pytest.raises(ParameterError, match="PyTorch sees none") as exc:
        devices.resolve_device(spec)
    assert exc.value.name == "device" and "device=cpu" in exc.value.hint


def test_a_gpu_index_beyond_the_machine_is_an_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert devices.resolve_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(ParameterError, match="2 GPU"):
        devices.resolve_device("cuda:2")


def test_a_chapter_parameter_rejects_meta_and_may_skip_the_gpu_check(no_gpu):
    with pytest.raises(ParameterError, match="tests only"):
        devices.check_device_parameter("meta")
    assert devices.check_device_parameter("CUDA:1", available=False) == "cuda:1"
    assert devices.check_device_parameter("auto") == "auto"
    with pytest.raises(ParameterError, match="PyTorch sees none"):
        devices.check_device_parameter("cuda")
    with pytest.raises(ParameterError, match="not a device"):
        devices.check_device_parameter("gpu", available=False)


# --------------------------------------------------------------------------------------------
# Chapters


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_takes_a_device_and_checks_it_first(notebook, no_gpu):
    declared = params.read_parameters(notebook)["device"]
    assert (declared.type, declared.default) == ("str", "auto")
    cls = params.config_class(notebook)
    values = params.effective_parameters(notebook, "quick")
    assert cls.from_parameters(values).device == "auto"
    assert cls.from_parameters(values | {"device": "CPU"}).device == "cpu"
    with pytest.raises(ParameterError, match="'gpu' is not a device") as exc:
        cls.from_parameters(values | {"device": "gpu"})
    assert exc.value.name == "device"
    with pytest.raises(ParameterError, match="PyTorch sees none"):
        cls.from_parameters(values | {"device": "cuda"})
    # A sweep checks cells that Dask workers with GPUs may run: the spelling only.
    assert cls.from_parameters(values | {"device": "cuda"}, check_device=False).device == "cuda"


def test_a_bad_device_on_the_command_line_fails_before_the_chapter_runs(no_gpu):
    """A misspelling stops the run while it is planned; a GPU this machine lacks stops it in
    the chapter's first cell, where its configuration is built (the chapter may run on a Dask
    worker that has one)."""
    from probekit.book import runner

    notebook = next(p for p in CHAPTERS if p.stem.startswith("32_"))
    with pytest.raises(ParameterError, match="'gpu' is not a device") as exc:
        runner.plan_chapter(notebook, "quick", {"device": "gpu"})
    assert exc.value.name == "device"
    assert runner.plan_chapter(notebook, "quick", {"device": "cuda:1"}).params["device"] == "cuda:1"
    values = params.effective_parameters(notebook, "quick", {"device": "cuda:0"})
    with pytest.raises(ParameterError, match="parameter 'device'"):
        params.config_class(notebook).from_parameters(values)


# --------------------------------------------------------------------------------------------
# Every trainer on the CPU (and, below, on a GPU when there is one)

FAST = TrainOptions(batch_size=32, lr=0.05, eval_every=5, patience=3, min_delta=0.0, max_steps=30)
PARSE = dataclasses.replace(FAST, batch_size=16, eval_batch_size=32, max_steps=20)


def _linear(**device) -> np.ndarray:
    configs = [
        linear.LinearProbeConfig(alpha=0.0),
        linear.LinearProbeConfig(alpha=0.05),
        linear.LinearProbeConfig(rank=2, dropout=0.2),
    ]
    res = linear.train_linear_probes(
        configs, *blobs(120, 0), *blobs(60, 1), seed=0, options=FAST, **device
    )
    return np.r_[res.dev_accuracy, res.dev_loss, res.complexity, res.accuracy(*blobs(40, 2))]


def _biaffine(**device) -> np.ndarray:
    configs = [
        biaffine.BiaffineConfig(alpha=0.02, dropout=0.1),
        biaffine.BiaffineConfig(mlp=MLPConfig(n_layers=1, hidden_size=8, dropout=0.1)),
    ]
    train, dev = star_trees(40, 0), star_trees(12, 1)
    res = biaffine_stack.train_biaffine_probes(
        configs, *train, *dev, seed=0, options=PARSE, **device
    )
    return np.r_[res.dev_uas, res.dev_loss, res.init_complexity[:1], res.uas(*dev)]


def _mlp_stack(**device) -> np.ndarray:
    X, y = blobs(120, 0)
    Xd, yd = blobs(60, 1)
    shuffled = np.random.default_rng(0).permutation(y)
    sets = [
        TrainingSet("normal", X, y, Xd, yd),
        TrainingSet("shuffled", X[::-1].copy(), shuffled, X[:40], shuffled[:40]),
    ]
    configs = [MLPConfig(1, 8, 0.2), MLPConfig(0, 8, 0.0)]
    res = mlp_stack.train_mlps(configs, sets, n_classes=4, seed=0, options=FAST, **device)
    return np.r_[res.stop_accuracy.ravel(), res.stop_loss.ravel(), res.accuracy(Xd, yd, 0)]


def _views(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = blobs(n, seed)
    return np.stack([X, X[:, ::-1].copy()]), y


def _batched(**device) -> np.ndarray:
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    specs = [ProbeSpec(1), ProbeSpec(2, view=1, order_seed=3, train=np.arange(64))]
    res = mlp_batched.train_batched(
        Xt, yt, Xe, ye, 4, specs, epochs=2, hidden=8, checkpoints=(2,), record_loss=True, **device
    )
    return np.r_[res.acc.ravel(), res.loss_eval.ravel(), res.ckpt_correct_eval.mean()]


def _reference(**device) -> np.ndarray:
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    res = mlp.train_reference(
        Xt, yt, Xe, ye, 4, ProbeSpec(1, view=1, order_seed=2), epochs=2, hidden=8,
        checkpoints=(2,), record_loss=True, **device,
    )  # fmt: skip
    return np.r_[res.acc.ravel(), res.eval_loss.ravel(), res.loss_eval.ravel()]


def _softmax(**device) -> np.ndarray:
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    specs = [ProbeSpec(1), ProbeSpec(2, view=1, order_seed=3)]
    correct = softmax.train_softmax_probes(
        Xt, yt, Xe, ye, 4, specs, epochs=2, checkpoints=[2, 4], **device
    )
    return correct.mean(axis=2).ravel()


TRIALS = [
    T.DistanceTrial(rank=3, lr=0.02, dropout=0.2, seed=3, source=0),
    T.DistanceTrial(rank=3, lr=0.01, dropout=0.0, seed=4, source=1),
    T.DistanceTrial(rank=5, lr=0.01, dropout=0.1, seed=5, source=1),
]


def _distance_data():
    (tr_e, tr_h), (dv_e, dv_h) = synthetic_corpus(30, seed=0), synthetic_corpus(12, seed=1)
    reversed_ = [e[:, ::-1].copy() for e in tr_e]
    train = T.DistanceData.build({0: tr_e, 1: reversed_}, tr_h)
    dev = T.DistanceData.build({0: dv_e, 1: [e[:, ::-1].copy() for e in dv_e]}, dv_h)
    return train, dev, dv_e


def _distance(kind: str):
    def run(**device) -> np.ndarray:
        train, dev, dv_e = _distance_data()
        selection = "uuas" if kind == "perceptron" else "loss"
        results = T.train_distance_probes(
            kind, TRIALS, train, dev, selection=selection, max_epochs=2, patience=5, **device
        )
        assert all(r.probe.B.device.type == "cpu" for r in results)  # probes come back
        dist = S.predict_distances(results[0].probe, dv_e[:3], **device)
        return np.r_[[r.best_dev_loss for r in results], np.concatenate([d.ravel() for d in dist])]

    return run


TRAINERS = {
    "linear": _linear,
    "biaffine": _biaffine,
    "mlp_stack": _mlp_stack,
    "mlp_batched": _batched,
    "mlp_reference": _reference,
    "softmax": _softmax,
    "structural": _distance("structural"),
    "perceptron": _distance("perceptron"),
}


@pytest.mark.parametrize("name", TRAINERS)
def test_every_trainer_runs_on_the_cpu_by_default(name, one_thread):
    explicit = TRAINERS[name](device="cpu")
    assert np.isfinite(explicit).all()
    np.testing.assert_allclose(TRAINERS[name](), explicit, rtol=1e-5, atol=1e-6)
    resolved = TRAINERS[name](device=torch.device("cpu"))
    np.testing.assert_allclose(resolved, explicit, rtol=1e-5, atol=1e-6)


@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("name", TRAINERS)
def test_every_trainer_agrees_on_the_gpu_and_the_cpu(name):
    """The same draws on both devices: the results differ by rounding only (and what rounding
    does to early stopping on tiny problems, hence the tolerance)."""
    np.testing.assert_allclose(
        TRAINERS[name](device="cuda"), TRAINERS[name](device="cpu"), rtol=0.05, atol=0.05
    )


@pytest.mark.cuda
@needs_cuda
def test_auto_trains_on_the_gpu():
    assert devices.resolve_device("auto").type == "cuda"
    train, dev, _ = _distance_data()
    (result,) = T.train_distance_probes(
        "structural", TRIALS[:1], train, dev, max_epochs=1, device="auto"
    )
    assert result.probe.B.device.type == "cpu"


# --------------------------------------------------------------------------------------------
# The meta device: a stray CPU tensor in a loop collides with the probe's


class Reached(Exception):
    """Raised by a spy once the training loop has run its steps on the meta device."""


class SameDevice(TorchDispatchMode):
    """Fail every operation that reads a meta tensor together with a CPU tensor.

    CPU scalars (0-d tensors, e.g. Adam's step count) may mix with any device, as in PyTorch;
    operations on CPU tensors alone (seeded draws, NumPy's Prim) and copies to meta pass.
    """

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tensors = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        kinds = {t.device.type for t in tensors if t.device.type != "cpu" or t.dim() > 0}
        if "meta" in kinds and "cpu" in kinds:
            shapes = [(t.device.type, tuple(t.shape)) for t in tensors]
            raise AssertionError(f"{func} mixes meta and CPU tensors: {shapes}")
        return func(*args, **kwargs)


# How PyTorch refuses to hand over the numbers of a meta tensor.
COPY_OUT = ("Cannot copy out of meta tensor", "cannot be called on meta tensors")


@contextlib.contextmanager
def stops_at_the_first_copy():
    """The block must run on meta, without mixing in a CPU tensor, until a number is copied to
    the CPU, which meta cannot do."""
    with pytest.raises((NotImplementedError, RuntimeError)) as exc, SameDevice():
        yield
    message = str(exc.value)
    assert any(copy in message for copy in COPY_OUT), message


def test_meta_catches_a_tensor_created_on_the_cpu():
    """The trick itself: PyTorch rejects an elementwise mix of meta and CPU tensors, the mode
    also a matmul or an index, and a 0-d CPU scalar passes as it does on a GPU."""
    meta, cpu = torch.ones(3, 2, device=META), torch.ones(2, 4)
    with pytest.raises(RuntimeError, match="expected device"):
        meta + torch.ones(3, 2)
    with SameDevice():
        assert (meta * torch.tensor(2.0)).device == META
        assert cpu.to(META).device == META
        for mixed in (lambda: meta @ cpu, lambda: meta[torch.tensor([0, 2])]):
            with pytest.raises(AssertionError, match="mixes meta and CPU"):
                mixed()
    with stops_at_the_first_copy():
        (meta * 2).cpu()
    with pytest.raises(AssertionError, match="mixes meta and CPU"), stops_at_the_first_copy():
        (meta @ cpu).cpu()


def _spy_fit_module(monkeypatch, module) -> None:
    """Run the module's fit_module for a few steps on meta, then the dev pass, then stop."""
    real = training.fit_module

    def spy(stack, n_probes, opts, *, dev_loss, **kwargs):
        assert devices.module_device(stack) == META
        assert all(t.device == META for t in stack.state_dict().values())

        def dev() -> np.ndarray:
            with stops_at_the_first_copy():  # the dev forward ran on meta
                dev_loss()
            raise Reached

        opts = dataclasses.replace(opts, eval_every=2, max_steps=4)
        return real(stack, n_probes, opts, dev_loss=dev, **kwargs)

    monkeypatch.setattr(module, "fit_module", spy)


@pytest.mark.parametrize("config", [{"alpha": 0.05}, {"rank": 2, "dropout": 0.2}])
def test_linear_probes_step_on_meta(monkeypatch, config):
    _spy_fit_module(monkeypatch, linear)
    with pytest.raises(Reached), SameDevice():
        linear.train_linear_probes(
            [linear.LinearProbeConfig(**config)] * 2, *blobs(64, 0), *blobs(32, 1), seed=0,
            options=FAST, device="meta",
        )  # fmt: skip


@pytest.mark.parametrize(
    "config",
    [
        biaffine.BiaffineConfig(alpha=0.02, dropout=0.1),
        biaffine.BiaffineConfig(mlp=MLPConfig(n_layers=2, hidden_size=8, dropout=0.1)),
    ],
    ids=["linear", "mlp"],
)
def test_biaffine_parsers_step_on_meta(monkeypatch, config):
    _spy_fit_module(monkeypatch, biaffine_stack)
    train, dev = star_trees(24, 0), star_trees(8, 1)
    with pytest.raises(Reached), SameDevice():
        biaffine_stack.train_biaffine_probes(
            [config], *train, *dev, seed=0, options=PARSE, device="meta"
        )


def test_mlp_stacks_step_on_meta(monkeypatch):
    _spy_fit_module(monkeypatch, mlp_stack)
    X, y = blobs(64, 0)
    sets = [TrainingSet("a", X, y, X[:16], y[:16]), TrainingSet("b", X[::-1].copy(), y, X, y)]
    with pytest.raises(Reached), SameDevice():
        mlp_stack.train_mlps(
            [MLPConfig(2, 8, 0.2)], sets, n_classes=4, seed=0, options=FAST, device="meta"
        )


def test_one_hot_tables_look_up_on_meta():
    """The trainable one-hot table (its fused Adam has no meta kernel, so it is checked here)."""
    table = OneHotEmbedding(10, 4, n_probes=3, seed=0, n_trainable=6).to(META)
    ids = torch.tensor([[0, 7], [5, 9]], device=META)
    members = torch.tensor([0, 2], device=META)
    with SameDevice():
        assert table(ids).shape == (3, 2, 2, 4)
        assert table(ids.expand(2, 2, 2), members, per_probe=True).shape == (2, 2, 2, 4)


def test_batched_mlp_steps_on_meta(monkeypatch):
    def spy(job, stack, g, chunk, epoch, rows):
        X, y, _ = mlp_batched._eval_rows(job, chunk, rows)
        assert mlp_batched._chunk_score(stack.chunk_params(g), X, y)[0].device == META
        raise Reached

    monkeypatch.setattr(mlp_batched, "_evaluate", spy)
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    specs = [ProbeSpec(1, eval=np.arange(20)), ProbeSpec(2, view=1, order_seed=3)]
    with pytest.raises(Reached), SameDevice():
        mlp_batched.train_batched(
            Xt, yt, Xe, ye, 4, specs, epochs=2, hidden=8, workers=2, device="meta"
        )


def test_reference_mlp_steps_on_meta():
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    with stops_at_the_first_copy():
        mlp.train_reference(Xt, yt, Xe, ye, 4, ProbeSpec(1, order_seed=2), epochs=1, device="meta")


def test_softmax_probes_step_on_meta(monkeypatch):
    real = softmax._SoftmaxStack.correct

    def spy(self, Xe, ye, view):
        assert self.W.device == META and all(g.device == META for g in self.grads)
        with stops_at_the_first_copy():
            real(self, Xe, ye, view)
        raise Reached

    monkeypatch.setattr(softmax._SoftmaxStack, "correct", spy)
    (Xt, yt), (Xe, ye) = _views(96, 0), _views(48, 1)
    specs = [ProbeSpec(1), ProbeSpec(2, view=1, order_seed=3)]
    with pytest.raises(Reached), SameDevice():
        softmax.train_softmax_probes(
            Xt, yt, Xe, ye, 4, specs, epochs=1, checkpoints=[2], device="meta"
        )


@pytest.mark.parametrize("kind", ["structural", "perceptron"])
def test_distance_probes_step_on_meta(monkeypatch, kind):
    """One whole step (input dropout, the hand-written gradient, Adam) of a mixed stack, then
    the dev pass; the perceptron's trees come from Prim on the CPU, stubbed here."""
    if kind == "perceptron":
        monkeypatch.setattr(
            T, "mst_edge_mask", lambda sq, lengths: torch.zeros_like(sq, dtype=torch.bool)
        )
    train, dev, dv_e = _distance_data()
    with stops_at_the_first_copy():
        T.train_distance_probes(
            kind, TRIALS, train, dev, max_epochs=1, group_ranks=False, device="meta"
        )
    B = T.init_stack(TRIALS, train.dim)[0].to(META)
    sources = [t.source for t in TRIALS]
    with stops_at_the_first_copy():
        T.evaluate_stack(kind, B, sources, dev.to(META), with_uuas=False)
    probe = S.DistanceProbe(train.dim, 3, torch.Generator().manual_seed(0))
    with stops_at_the_first_copy():
        S.predict_distances(probe, dv_e[:4], device="meta")
    assert probe.B.device.type == "cpu"  # the probe stays where it is


# --------------------------------------------------------------------------------------------
# The embedding cache


@pytest.mark.model
def test_the_embedding_cache_does_not_depend_on_the_device(tiny, tmp_path, monkeypatch):
    from probekit.io import embeddings
    from probekit.io.cache import Cache

    cache = Cache(tmp_path)
    sentences = tiny["dev"]
    first = embeddings.embed(
        sentences, model="default", pooling="mean", cache=cache, progress=False, device="cpu"
    )
    assert first.layer(2).dtype == np.float16

    def no_encoder(*args, **kwargs):
        raise AssertionError("a warm cache must not load an encoder")

    monkeypatch.setattr(embeddings, "get_encoder", no_encoder)
    for device in ("auto", torch.device("meta")):
        again = embeddings.embed(
            sentences, model="default", pooling="mean", cache=cache, progress=False, device=device
        )
        assert again.entry.path == first.entry.path
        assert again.layer(2).dtype == np.float16


@pytest.mark.model
def test_the_encoder_resolves_its_device_once(no_gpu):
    from probekit.io import embeddings

    encoder = embeddings.get_encoder("default", "auto")
    assert encoder.device == torch.device("cpu")
    assert embeddings.get_encoder("default") is encoder
    assert embeddings.get_encoder("default", "cpu") is encoder
    with pytest.raises(ParameterError, match="parameter 'device'"):
        embeddings.get_encoder("default", "gpu")
