"""Experiment glue for Part II (Hall Maudslay & Cotterell 2021, "Do syntactic probes probe syntax?").

Chapter 21 (§3, the corpus): building or reusing the Jabberwocky test set
(:func:`ensure_corpus`, on top of :func:`probekit.jabberwocky.make_jabberwocky`), pairing its
sentences with the originals, and the tables and figures that describe it: examples, pseudoword
shapes, coverage per feature set and per UPOS, and one tree drawn over both word rows (cf. the
paper's Fig. 2).

Chapter 22 (§4–5, the probes): the type-level baseline (fastText plus sinusoidal position
embeddings, App. B), the two word-blind baselines (linear chain and majority tree, §5.1),
training the structural probe and the perceptron probe on normal sentences with the layer chosen
on dev, scoring them per sentence on the normal and the Jabberwocky test set, and the paired
comparisons: the drop from normal to Jabberwocky and the lead over the best simple baseline,
each with a bootstrap interval over sentences, plus McNemar's test on gold edges.

Trees, metrics and probes live in :mod:`probekit.trees`, :mod:`probekit.syntax` and
:mod:`probekit.probes.structural`; this module only strings them together. Sentences are
:class:`probekit.data.Sentence`; "embeddings" are anything with ``offsets`` (S + 1,),
``n_layers``, ``dim`` and ``layer(k)`` (N_words, d), such as :class:`probekit.embed.Embeddings`
or :class:`VectorSet`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from probekit import syntax
from probekit import trees as T
from probekit.data import Sentence, data_dir, file_sha256, resolve_treebank
from probekit.errors import ParameterError, ProbekitError
from probekit.jabberwocky import FEATURE_SETS, feature_set, make_jabberwocky, split_spelling
from probekit.stats import PairedBootstrap, paired_bootstrap

PAPER = "Hall Maudslay & Cotterell 2021"
DATASETS = ("normal", "Jabberwocky")
# The metric each probe is judged by (§5.1, "Metrics").
METRIC = {"structural": "dspr", "perceptron": "uuas"}
PROBE_LABELS = {"structural": "structural probe", "perceptron": "perceptron probe"}
METRIC_LABELS = {"dspr": "DSpr", "uuas": "UUAS (%)"}
BASELINES = ("linear chain", "majority tree")
REPORT = "jabberwocky-report.json"

__all__ = [
    "BASELINES",
    "CLAIM_PHRASES",
    "DATASETS",
    "METRIC",
    "RepresentationRun",
    "VectorSet",
    "aligned_pairs",
    "bars_figure",
    "baseline_scores",
    "best_baseline",
    "chapter12_configs",
    "choose_layer",
    "corpus_dir",
    "coverage_figure",
    "coverage_table",
    "difference",
    "drops_table",
    "edge_comparison",
    "ensure_corpus",
    "example_table",
    "leads_table",
    "length_figure",
    "model_configs",
    "overall_verdict",
    "parse_figure",
    "part_table",
    "pick_parse_example",
    "pieces_of_substituted",
    "relative_change",
    "run_representation",
    "scores_table",
    "short_model_name",
    "sinusoidal_positions",
    "stem_table",
    "substituted",
    "summary_table",
    "type_level_vectors",
    "upos_coverage",
    "with_positions",
]


# --------------------------------------------------------------------------------------------
# Chapter 21: the corpus on disk


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "treebank"


def corpus_dir(
    treebank: str, seed: int, rate: float = 1.0, pseudowords: str = "", root: str | Path = ""
) -> Path:
    """Where the Jabberwocky version of ``treebank`` lives: ``<data>/jabberwocky/<name>-seed<seed>``.

    ``<data>`` is :func:`probekit.data.data_dir` unless ``root`` is given. Non-default settings
    get their own directory (``-rate0.5``, ``-list<sha256 prefix>``), so that corpora built
    with different settings never overwrite each other. ``treebank`` is a UD name or a path
    (its directory name is used).
    """
    name = Path(str(treebank)).name if Path(str(treebank)).expanduser().is_dir() else treebank
    parts = [f"{_slug(str(name))}-seed{int(seed)}"]
    if float(rate) != 1.0:
        parts.append(f"rate{float(rate):g}")
    if pseudowords:
        parts.append(f"list{file_sha256(pseudowords)[:10]}")
    base = Path(root).expanduser() if root else data_dir() / "jabberwocky"
    return base / "-".join(parts)


def _report_matches(
    report: Mapping, out: Path, source_sha: str, seed: int, rate: float, split: str, words: str
) -> bool:
    try:
        files = report["files"]
        out_file = out / files["output"]["file"]
        pseudo = report["pseudowords"]
        return (
            report["seed"] == seed
            and float(report["rate"]) == float(rate)
            and report["split"] == split
            and files["input"]["sha256"] == source_sha
            and out_file.is_file()
            and file_sha256(out_file) == files["output"]["sha256"]
            and (pseudo["kind"] == "file") == bool(words)
            and (not words or pseudo["sha256"] == file_sha256(words))
        )
    except (KeyError, TypeError):
        return False


def ensure_corpus(
    treebank: str,
    seed: int,
    rate: float = 1.0,
    pseudowords: str = "",
    out_dir: str | Path = "",
    split: str = "test",
    n_pseudowords: int = 2000,
) -> tuple[Path, dict]:
    """The Jabberwocky treebank directory of ``treebank`` (§3), built only when missing or stale.

    The directory is ``out_dir`` or :func:`corpus_dir`. An existing corpus is reused when its
    report (``jabberwocky-report.json``) names the same seed, rate, split, pseudoword source
    and input file sha256, and its output file still has the recorded sha256; otherwise it is
    rebuilt with :func:`probekit.jabberwocky.make_jabberwocky` (a few seconds for EWT).
    ``pseudowords`` is a list file or "" (generate ``n_pseudowords``). Returns (directory,
    report). Raises :class:`ProbekitError` when no word of the split is eligible at all (a
    non-English treebank: the feature sets and inflection rules are English).
    """
    files = resolve_treebank(treebank, splits=(split,))
    out = Path(out_dir).expanduser() if out_dir else corpus_dir(treebank, seed, rate, pseudowords)
    report = _reuse_or_make(files, out, seed, rate, pseudowords, split, n_pseudowords)
    if not report["eligible"]:
        raise ProbekitError(
            f"no word of the {split} split of {files.name} has one of the paper's English "
            "feature sets, so there is nothing to replace",
            hint="the Jabberwocky corpus needs an English UD treebank (e.g. UD_English-EWT)",
        )
    return out, report


def _reuse_or_make(files, out: Path, seed, rate, pseudowords, split, n_pseudowords) -> dict:
    report_path = out / REPORT
    if report_path.is_file():
        try:
            report = json.loads(report_path.read_text())
        except (OSError, ValueError):
            report = {}
        source_sha = file_sha256(files.files[split])
        if _report_matches(report, out, source_sha, seed, rate, split, pseudowords):
            if pseudowords or report["pseudowords"].get("n") == n_pseudowords:
                return report
    return make_jabberwocky(
        files.directory,
        out,
        seed=seed,
        split=split,
        pseudowords=pseudowords or None,
        rate=rate,
        n_pseudowords=n_pseudowords,
    )


def aligned_pairs(
    original: Sequence[Sentence], jabberwocky: Sequence[Sentence]
) -> list[tuple[Sentence, Sentence]]:
    """Pair each original sentence with its Jabberwocky version (§3: same trees, new words).

    Raises :class:`ProbekitError` unless the two lists have the same sentences in the same
    order with the same heads, relations and UPOS: the paired comparisons of chapter 22 are
    only meaningful on identical trees.
    """
    if len(original) != len(jabberwocky):
        raise ProbekitError(
            f"{len(original)} original and {len(jabberwocky)} Jabberwocky sentences",
            hint="build both from the same split, with the same sampling",
        )
    for o, j in zip(original, jabberwocky, strict=True):
        same = (
            o.sent_id == j.sent_id
            and np.array_equal(o.heads, j.heads)
            and np.array_equal(o.deprel, j.deprel)
            and np.array_equal(o.upos, j.upos)
        )
        if not same:
            raise ProbekitError(
                f"sentence {o.sent_id!r} ({o.path}:{o.line}) does not match its Jabberwocky "
                f"version {j.sent_id!r} ({j.path}:{j.line})",
                hint="rebuild the Jabberwocky corpus from this treebank",
            )
    return list(zip(original, jabberwocky, strict=True))


def substituted(original: Sentence, jabberwocky: Sentence) -> np.ndarray:
    """bool (n,): words whose form or lemma the Jabberwocky version changed (§3)."""
    return (original.forms != jabberwocky.forms) | (original.lemmas != jabberwocky.lemmas)


def example_table(
    pairs: Sequence[tuple[Sentence, Sentence]],
    n: int,
    seed: int,
    min_len: int = 6,
    max_len: int = 16,
) -> pd.DataFrame:
    """``n`` seeded example sentences beside their Jabberwocky versions (cf. §3, Fig. 2).

    Drawn among sentences of ``min_len..max_len`` words with at least two substituted words;
    when there are none (a tiny treebank, a low ``rate``), among all sentences. Columns
    ``sent_id``, ``original``, ``Jabberwocky``, ``replaced`` (words replaced / words).
    """
    if not pairs:
        raise ParameterError("pairs", "no sentences to show")
    eligible = [
        k
        for k, (o, j) in enumerate(pairs)
        if min_len <= len(o) <= max_len and substituted(o, j).sum() >= 2
    ] or list(range(len(pairs)))
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(eligible, size=min(n, len(eligible)), replace=False).tolist())
    rows = []
    for k in chosen:
        o, j = pairs[k]
        rows.append(
            {
                "sent_id": o.sent_id,
                "original": o.text or " ".join(o.forms.tolist()),
                "Jabberwocky": j.text or " ".join(j.forms.tolist()),
                "replaced": f"{int(substituted(o, j).sum())} / {len(o)}",
            }
        )
    return pd.DataFrame(rows)


def stem_table(pairs: Sequence[tuple[Sentence, Sentence]]) -> pd.DataFrame:
    """One row per pseudoword stem used in the corpus: ``stem``, ``length`` (letters),
    ``onset``, ``nucleus``, ``coda`` (:func:`probekit.jabberwocky.split_spelling`) and
    ``tokens`` (how many words it replaced). Stems are the LEMMA column of replaced words."""
    counts: Counter[str] = Counter()
    for o, j in pairs:
        counts.update(str(w).lower() for w in j.lemmas[substituted(o, j)])
    rows = []
    for stem, tokens in sorted(counts.items()):
        parts = split_spelling(stem) or (stem, "", "")
        rows.append(
            {
                "stem": stem,
                "length": len(stem),
                "onset": parts[0],
                "nucleus": parts[1],
                "coda": parts[2],
                "tokens": tokens,
            }
        )
    return pd.DataFrame(rows, columns=["stem", "length", "onset", "nucleus", "coda", "tokens"])


def part_table(stems: pd.DataFrame, part: str, top: int = 8, examples: int = 3) -> pd.DataFrame:
    """The ``top`` most frequent values of one spelling part over the stems of
    :func:`stem_table`, with their number of stems and a few example stems (alphabetical).
    ``part`` is "onset", "nucleus" or "coda"; an empty onset or coda shows as "∅"."""
    if part not in ("onset", "nucleus", "coda"):
        raise ParameterError("part", f"must be onset, nucleus or coda, got {part!r}")
    grouped = stems.groupby(part)["stem"]
    table = pd.DataFrame(
        {"stems": grouped.size(), "examples": grouped.apply(lambda s: ", ".join(s[:examples]))}
    )
    table = table.sort_values("stems", ascending=False, kind="stable").head(top)
    table.index = [v if v else "∅" for v in table.index]
    table.index.name = part
    return table


def coverage_table(report: Mapping) -> pd.DataFrame:
    """Substitution counts per feature set (§3, footnote 4) from a corpus report.

    One row per feature set: ``features`` (UD FEATS), ``words`` (all words with the set),
    ``replaced``, ``in multiword token``, ``not word-shaped`` and ``replaced (%)``.
    """
    rows = []
    for name, c in report["feature_sets"].items():
        words = c["eligible"] + c["in_multiword"] + c["not_word_shaped"]
        feats = "|".join(f"{k}={v}" for k, v in FEATURE_SETS.get(name, {}).items()) or "(none)"
        rows.append(
            {
                "feature set": name,
                "features": feats,
                "words": words,
                "replaced": c["replaced"],
                "in multiword token": c["in_multiword"],
                "not word-shaped": c["not_word_shaped"],
                "replaced (%)": 100.0 * c["replaced"] / words if words else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("feature set")


def upos_coverage(pairs: Sequence[tuple[Sentence, Sentence]]) -> pd.DataFrame:
    """Per UPOS: ``words``, ``replaced``, ``replaced (%)`` and ``not a feature set``, the words
    of NOUN/VERB/ADJ/ADV whose features match none of the substitutable sets (past tenses,
    participles, ``Typo``, ...), sorted by words."""
    words: Counter[str] = Counter()
    replaced: Counter[str] = Counter()
    unmatched: Counter[str] = Counter()
    for o, j in pairs:
        mask = substituted(o, j)
        for k, tag in enumerate(o.upos.tolist()):
            words[tag] += 1
            replaced[tag] += int(mask[k])
            if tag in ("NOUN", "VERB", "ADJ", "ADV") and feature_set(tag, o.feats[k]) is None:
                unmatched[tag] += 1
    table = pd.DataFrame(
        {
            "words": pd.Series(words),
            "replaced": pd.Series(replaced),
            "not a feature set": pd.Series(unmatched),
        }
    ).fillna(0)
    table = table.astype(int).sort_values("words", ascending=False, kind="stable")
    table["replaced (%)"] = 100.0 * table["replaced"] / table["words"]
    table.index.name = "UPOS"
    return table


# --------------------------------------------------------------------------------------------
# Chapter 21: figures


def coverage_figure(coverage: pd.DataFrame, by_upos: pd.DataFrame):
    """Two panels: words replaced per feature set, each bar annotated with the words of that set
    left alone (inside a multiword token or not word-shaped) (left); the share of words replaced
    per UPOS (right). Inputs: :func:`coverage_table`, :func:`upos_coverage`."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    colour = plots.colors(1)[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.4), width_ratios=[1.3, 1])
    y = np.arange(len(coverage))[::-1]
    replaced = coverage["replaced"].to_numpy(dtype=float)
    left.barh(y, np.maximum(replaced, 0.8), color=colour, height=0.7)
    left.set_xscale("log")
    skipped = coverage["in multiword token"] + coverage["not word-shaped"]
    for yy, r, k in zip(y, replaced, skipped.to_numpy(), strict=True):
        note = f"{int(r):,}" + (f" (+{int(k)} kept)" if k else "")
        left.text(max(r, 0.8) * 1.15, yy, note, va="center", fontsize=6.5)
    left.set_yticks(y, coverage.index.tolist(), fontsize=7)
    left.set_xlim(0.8, max(replaced.max(), 1.0) * 12)
    left.set(xlabel="words replaced (log scale)", title="Per feature set")
    shown = by_upos[by_upos["words"] > 0]
    yy = np.arange(len(shown))[::-1]
    right.barh(yy, shown["replaced (%)"], color=colour, height=0.7)
    right.set_yticks(yy, shown.index.tolist(), fontsize=7)
    right.set(xlabel="words replaced (%)", title="Per UPOS", xlim=(0, 100))
    return fig


def length_figure(stems: pd.DataFrame, pairs: Sequence[tuple[Sentence, Sentence]]):
    """Two histograms: letters per pseudoword stem (left, one count per stem); letters per
    replaced word before and after substitution (right, one count per word)."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    before, after = [], []
    for o, j in pairs:
        mask = substituted(o, j)
        before += [len(w) for w in o.forms[mask].tolist()]
        after += [len(w) for w in j.forms[mask].tolist()]
    c = plots.colors(2)
    fig, (left, right) = plt.subplots(1, 2, figsize=(plots.WIDTH, 2.7))
    top = max([*stems["length"].tolist(), *before, *after, 2]) + 1
    stem_top = max([*stems["length"].tolist(), 2]) + 1
    left.hist(stems["length"], bins=np.arange(0.5, stem_top + 0.5), color=c[0], edgecolor="white")
    left.set(xlabel="stem length (letters)", ylabel="pseudoword stems", title="Pseudowords")
    left.set_xlim(0.5, stem_top + 0.5)
    bins = np.arange(0.5, min(top, 20) + 0.5)
    right.hist(before, bins=bins, color=c[1], alpha=0.6, label="original word")
    right.hist(after, bins=bins, color=c[0], alpha=0.6, label="pseudoword")
    right.set(xlabel="word length (letters)", ylabel="replaced words", title="Replaced words")
    right.legend(fontsize=7)
    return fig


def pick_parse_example(
    pairs: Sequence[tuple[Sentence, Sentence]],
    sent_id: str = "",
    min_len: int = 7,
    max_len: int = 11,
) -> tuple[Sentence, Sentence]:
    """The pair with ``sent_id``, else the first of ``min_len..max_len`` words with at least
    three substitutions and no multiword token (else the first with any substitution)."""
    if not pairs:
        raise ParameterError("pairs", "no sentences to pick from")
    if sent_id:
        for o, j in pairs:
            if o.sent_id == sent_id:
                return o, j
        raise ParameterError("example_id", f"no test sentence has sent_id {sent_id!r}")
    for o, j in pairs:
        if min_len <= len(o) <= max_len and substituted(o, j).sum() >= 3 and not o.multiword:
            return o, j
    for o, j in pairs:
        if substituted(o, j).any():
            return o, j
    return pairs[0]


def parse_figure(original: Sentence, jabberwocky: Sentence):
    """The unlabelled, undirected tree as arcs above two aligned word rows (cf. §3, Fig. 2).

    Top row: the Jabberwocky words (replaced ones in bold and colour); bottom row: the original
    words in grey. Arcs are drawn undirected and unlabelled, the structure the probes see.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc

    from probekit import plots

    plots.use_style()
    n = len(original)
    mask = substituted(original, jabberwocky)
    colour = plots.colors(1)[0]
    fig, ax = plt.subplots(figsize=(plots.WIDTH, 2.6))
    top = 0.6
    for dep, head in enumerate(original.heads.tolist()):
        if head == 0:
            continue
        span = abs(head - 1 - dep)
        height = 0.35 + 0.3 * (span - 1) ** 0.85
        top = max(top, height)
        ax.add_patch(
            Arc(((head - 1 + dep) / 2, 0.1), span, 2 * height, theta1=0, theta2=180, color="0.35")
        )
    for k in range(n):
        ax.text(
            k,
            -0.1,
            str(jabberwocky.forms[k]),
            ha="center",
            va="top",
            fontsize=8,
            color=colour if mask[k] else "black",
            fontweight="bold" if mask[k] else "normal",
        )
        ax.text(k, -0.55, str(original.forms[k]), ha="center", va="top", fontsize=7, color="0.45")
    ax.text(-0.7, -0.1, "Jabberwocky", ha="right", va="top", fontsize=7, style="italic")
    ax.text(-0.7, -0.55, "original", ha="right", va="top", fontsize=7, style="italic")
    ax.set_xlim(-2.2, n - 0.3)
    ax.set_ylim(-1.0, top + 0.3)
    ax.axis("off")
    return fig


# --------------------------------------------------------------------------------------------
# Chapter 22: representations


def short_model_name(name: str) -> str:
    """The last path component of a model name (``sentence-transformers/all-MiniLM-L6-v2`` ->
    ``all-MiniLM-L6-v2``), for table rows and figure labels."""
    return str(name).rstrip("/").split("/")[-1] or str(name)


def sinusoidal_positions(n: int, dim: int) -> np.ndarray:
    """Sinusoidal position embeddings (Vaswani et al. 2017, §3.5), float32 (n, dim).

    PE[p, 2i] = sin(p / 10000^(2i/dim)), PE[p, 2i+1] = cos(p / 10000^(2i/dim)) for the 0-based
    position p. The type-level baseline of Hall Maudslay & Cotterell 2021 (§5.1, App. B) appends
    BERT-base's learned position embeddings instead; fixed sinusoids carry the same kind of
    information (where a word sits) with no training.
    """
    if n < 0:
        raise ParameterError("n", f"must be >= 0, got {n}")
    if dim < 1:
        raise ParameterError("position_dim", f"must be >= 1, got {dim}")
    pos = np.arange(n, dtype=np.float64)[:, None]
    rate = 1.0 / 10000.0 ** (2 * (np.arange(dim) // 2) / dim)
    angle = pos * rate[None, :]
    out = np.where(np.arange(dim) % 2 == 0, np.sin(angle), np.cos(angle))
    return out.astype(np.float32)


def with_positions(vectors: Sequence[np.ndarray], dim: int) -> list[np.ndarray]:
    """Append :func:`sinusoidal_positions` to per-sentence word vectors: S (n_s, d) ->
    S (n_s, d + dim) float32. ``dim = 0`` returns the vectors unchanged."""
    if dim == 0:
        return [np.asarray(v, dtype=np.float32) for v in vectors]
    return [
        np.concatenate([np.asarray(v, dtype=np.float32), sinusoidal_positions(len(v), dim)], axis=1)
        for v in vectors
    ]


@dataclass
class VectorSet:
    """Per-sentence vectors in the shape of :class:`probekit.embed.Embeddings` with one layer.

    Lets :func:`probekit.syntax.train_layers` and :func:`~probekit.syntax.per_sentence_scores`
    train and score on representations that are not a transformer's (layer 0 only).
    """

    vectors: list[np.ndarray]
    offsets: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.offsets = np.concatenate([[0], np.cumsum([len(v) for v in self.vectors])]).astype(
            np.int64
        )
        dims = {int(np.shape(v)[1]) for v in self.vectors if len(v)}
        if len(dims) > 1:
            raise ParameterError("vectors", f"sentences have different dimensions {sorted(dims)}")

    @property
    def n_layers(self) -> int:
        return 1

    @property
    def dim(self) -> int:
        return int(np.shape(self.vectors[0])[1]) if self.vectors else 0

    def layer(self, k: int) -> np.ndarray:
        """All words' vectors, float32 (N_words, d); only ``k = 0`` exists."""
        if k != 0:
            raise ParameterError("layers", f"a type-level representation has only layer 0, not {k}")
        return np.concatenate([np.asarray(v, dtype=np.float32) for v in self.vectors])


def _vocab_digest(vocab: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(vocab).encode()).hexdigest()[:16]


def type_level_vectors(
    train: Sequence[Sentence],
    sets: Mapping[str, Sequence[Sentence]],
    dim: int,
    seed: int,
    position_dim: int,
    pretrained_path: str = "",
    epochs: int = 5,
) -> dict[str, VectorSet]:
    """The type-level baseline of §5.1 / App. B: fastText word vectors ⊕ position embeddings.

    fastText (Bojanowski et al. 2017; :func:`probekit.pareto.fasttext_vectors`) is trained on
    the forms of ``train`` with ``dim`` dimensions and ``seed``, or loaded from
    ``pretrained_path`` (the paper: the Common Crawl vectors, 300 d). Words it has not seen,
    pseudowords included, get vectors from their character n-grams. Each word's vector is
    followed by :func:`sinusoidal_positions` of ``position_dim`` dimensions. The vectors of every
    form in ``sets`` are cached on disk (:class:`probekit.cache.Cache`), so a re-run does not
    retrain. Returns one :class:`VectorSet` per entry of ``sets``, (n_s, dim + position_dim).
    """
    from probekit.cache import Cache
    from probekit.pareto import fasttext_vectors

    forms = {name: [s.forms.tolist() for s in sents] for name, sents in sets.items()}
    vocab = sorted({w for sents in forms.values() for s in sents for w in s})
    if pretrained_path:
        p = Path(pretrained_path).expanduser()
        source: dict[str, object] = {"pretrained": str(p.resolve())}
        if p.is_file():
            source |= {"size": p.stat().st_size, "mtime": p.stat().st_mtime_ns}
    else:
        files = sorted({str(s.path) for s in train})
        source = {
            "train": {Path(f).name: file_sha256(f) for f in files},
            "train_sentences": _vocab_digest([s.sent_id for s in train]),
            "epochs": epochs,
        }
    key = {
        "kind": "fasttext-vectors",
        "dim": dim,
        "seed": seed,
        "source": source,
        "vocab": _vocab_digest(vocab),
        "n_vocab": len(vocab),
    }

    def build(writer) -> None:
        kv = fasttext_vectors(train, dim, seed, pretrained_path or None, epochs=epochs)
        writer.array("vectors", np.asarray(kv[vocab], dtype=np.float32))

    table = np.asarray(Cache().get_or_create(key, build).array("vectors", mmap=False))
    index = {w: k for k, w in enumerate(vocab)}
    out = {}
    for name, sents in forms.items():
        words = [table[[index[w] for w in s]].reshape(len(s), dim) for s in sents]
        out[name] = VectorSet(with_positions(words, position_dim))
    return out


# --------------------------------------------------------------------------------------------
# Chapter 22: baselines, hyperparameters, layers


def baseline_scores(majority: T.MajorityTree, gold: syntax.EvalSet) -> pd.DataFrame:
    """Per-sentence scores (:func:`probekit.syntax.evaluate`) of the two word-blind baselines
    of §5.1 on ``gold``: the linear chain and the majority tree (fitted on training heads).

    Both predict a tree from the sentence length alone, so they score the same on any two
    corpora with the same trees, e.g. a test set and its Jabberwocky version. Their "distances"
    are the path lengths in the predicted tree. Rows: the :func:`~probekit.syntax.evaluate`
    columns plus ``baseline`` and ``sentence``.
    """
    frames = []
    for name in BASELINES:
        if name == "linear chain":
            heads = [T.linear_chain_heads(int(n)) for n in gold.lengths]
        else:
            heads = majority.predict(gold.lengths.tolist())
        dists = [d.astype(np.float64) for d in T.tree_distances_all(heads)]
        frames.append(
            syntax.evaluate(dists, gold).assign(baseline=name, sentence=np.arange(len(gold)))
        )
    return pd.concat(frames, ignore_index=True)


def best_baseline(baselines: pd.DataFrame, metric: str) -> str:
    """The baseline of :func:`baseline_scores` with the higher corpus-level ``metric``
    (ties: the linear chain)."""
    scores = {
        name: syntax.summarise(df)[metric] for name, df in baselines.groupby("baseline", sort=False)
    }
    return max(BASELINES, key=lambda b: (scores[b], -BASELINES.index(b)))


def chapter12_configs(
    path: str | Path, model: str, treebank: str, pooling: str
) -> dict[str, dict[str, float]] | None:
    """The (rank, lr, dropout) that chapter 12's random search chose, if it matches this run.

    Reads chapter 12's saved results (``build/results/12_probe_vs_parser.json``). Returns
    ``{"structural": {...}, "perceptron": {...}}`` when the file exists and was made with the
    same resolved ``model`` name, ``treebank`` name and ``pooling``; else None (search again).
    """
    p = Path(path)
    if not p.is_file():
        return None
    try:
        saved = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    if (saved.get("model"), saved.get("treebank"), saved.get("pooling")) != (
        model,
        treebank,
        pooling,
    ):
        return None
    out = {}
    for kind, label in syntax.LABELS.items():
        try:
            out[kind] = {
                "rank": int(saved[f"{label}_rank"]),
                "lr": float(saved[f"{label}_lr"]),
                "dropout": float(saved[f"{label}_dropout"]),
            }
        except (KeyError, TypeError, ValueError):
            return None
    return out


def choose_layer(scores: pd.DataFrame, kind: str, rule: str = "loss") -> int:
    """The dev-chosen layer of one probe from :func:`probekit.syntax.train_layers` scores.

    ``rule="loss"``: the lowest mean dev loss (App. B of the paper: "choose the best layer
    based on loss on the development set"); ``"metric"``: the highest mean dev score on the
    probe's own metric (DSpr for the structural probe, UUAS for the perceptron). Ties: the
    lowest layer.
    """
    if rule not in ("loss", "metric"):
        raise ParameterError("layer_rule", f"must be one of {{loss, metric}}, got {rule!r}")
    rows = scores[scores["kind"] == kind]
    if rows.empty:
        raise ParameterError("kind", f"no dev scores for {kind!r}")
    if rule == "loss":
        means = rows.groupby("layer")["dev_loss"].mean()
        return int(means.index[int(np.argmin(means.to_numpy()))])
    means = rows.groupby("layer")[METRIC[kind]].mean()
    return int(means.index[int(np.argmax(means.to_numpy()))])


@dataclass
class RepresentationRun:
    """What :func:`run_representation` returns for one representation (a model or fastText).

    ``dev``: the :func:`probekit.syntax.train_layers` table of every (kind, layer, seed)
    trained; ``chosen``: the dev-chosen layer per kind; ``per_sentence``: test scores, one row
    per (representation, kind, dataset, seed, sentence), where representation is
    "<name> · best layer" (the chosen layer) or "<name> · layer 0", or just "<name>" when layer 0
    is the only layer; ``probes``: the trained probes keyed (kind, layer, seed).
    """

    name: str
    dev: pd.DataFrame
    chosen: dict[str, int]
    per_sentence: pd.DataFrame
    probes: dict = field(repr=False)


def run_representation(
    name: str,
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev: syntax.EvalSet,
    test_embs: Mapping[str, object],
    test: syntax.EvalSet,
    configs: Mapping[str, Mapping[str, float]],
    layers: Sequence[int],
    seeds: Sequence[int],
    layer_rule: str = "loss",
    **train_kwargs,
) -> RepresentationRun:
    """Train both probes on normal sentences, choose the layer on dev, score on each test set.

    Hall Maudslay & Cotterell 2021, §5.1: every layer of ``layers`` is trained with the first
    seed and the layer is chosen per probe on dev (:func:`choose_layer`); the other seeds are
    trained only at the chosen layer and at layer 0, the uncontextualised baseline. Each probe
    is then scored (:func:`probekit.syntax.per_sentence_scores`) on every entry of
    ``test_embs`` (dataset name -> embeddings of the same sentences in the same order, scored
    against the same trees ``test``). ``train_kwargs`` go to
    :func:`probekit.probes.structural.train_distance_probe`.
    """
    if not seeds:
        raise ParameterError("seeds", "needs at least one seed")
    layers = sorted(set(layers) | {0})
    first, rest = seeds[0], list(seeds[1:])
    dev_scores, probes = syntax.train_layers(
        train_emb, train_heads, dev_emb, dev, configs, layers, [first], **train_kwargs
    )
    chosen = {kind: choose_layer(dev_scores, kind, layer_rule) for kind in configs}
    frames = [dev_scores]
    if rest:
        for kind, config in configs.items():
            for layer in sorted({chosen[kind], 0}):
                more, more_probes = syntax.train_layers(
                    train_emb,
                    train_heads,
                    dev_emb,
                    dev,
                    {kind: config},
                    [layer],
                    rest,
                    **train_kwargs,
                )
                frames.append(more)
                probes |= more_probes
    # A representation with layer 0 only (fastText) has no separate uncontextualised variant.
    variants = (("best layer", "chosen"), ("layer 0", 0)) if layers != [0] else (("", 0),)
    rows = []
    for kind in configs:
        kind_probes = {k: p for k, p in probes.items() if k[0] == kind}
        for variant, which in variants:
            layer = chosen[kind] if which == "chosen" else 0
            label = f"{name} · {variant}" if variant else name
            for dataset, emb in test_embs.items():
                df = syntax.per_sentence_scores(kind_probes, emb, test, layer)
                rows.append(df.assign(representation=label, layer=layer, dataset=dataset))
    per_sentence = pd.concat(rows, ignore_index=True)
    return RepresentationRun(
        name, pd.concat(frames, ignore_index=True), chosen, per_sentence, probes
    )


# --------------------------------------------------------------------------------------------
# Chapter 22: scoring and comparisons


def _seed_mean(per_sentence: pd.DataFrame, metric: str) -> pd.Series:
    """Per-sentence ``metric`` averaged over seeds, indexed by sentence."""
    return per_sentence.groupby("sentence")[metric].mean()


def difference(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metric: str,
    name_a: str,
    name_b: str,
    n_boot: int,
    seed: int,
) -> PairedBootstrap:
    """Paired bootstrap over test sentences of corpus-level ``metric``(a) − ``metric``(b).

    ``a`` and ``b``: per-sentence rows (``sentence``, ``length``, ``uuas_total``, metric; any
    number of seeds, averaged per sentence first) on the same sentences and trees. Weights make
    the statistic the corpus-level metric (:func:`probekit.syntax.compare_models`): gold edges
    for UUAS, 1 / #(sentences of that length) within 5..50 words for DSpr. Sentences undefined
    for either side are left out. UUAS differences are fractions (× 100 for points).
    """
    if metric not in syntax.METRICS:
        raise ParameterError("metric", f"must be one of {syntax.METRICS}, got {metric!r}")
    x, y = _seed_mean(a, metric), _seed_mean(b, metric)
    shared = x.index.intersection(y.index)
    info = a.groupby("sentence")[["length", "uuas_total"]].first().loc[shared]
    xv, yv = x.loc[shared].to_numpy(), y.loc[shared].to_numpy()
    ok = np.isfinite(xv) & np.isfinite(yv)
    if metric == "uuas":
        w = info["uuas_total"].to_numpy(dtype=np.float64)
    else:
        # Length weights over the sentences kept (0 = out of range), as summarise() counts them.
        w = syntax.length_weights(np.where(ok, info["length"].to_numpy(), 0))
    ok &= w > 0
    return paired_bootstrap(
        xv[ok], yv[ok], n_boot=n_boot, seed=seed, weights=w[ok], name_a=name_a, name_b=name_b
    )


def scores_table(per_sentence: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Corpus-level scores per (representation, probe, dataset): mean and SD over seeds.

    ``per_sentence``: rows with ``representation``, ``kind``, ``dataset``, ``seed``,
    ``layer`` and the :func:`probekit.syntax.evaluate` columns; ``baselines``:
    :func:`baseline_scores` (added for both datasets and both probes, SD 0). Each probe is
    scored on its own metric (§5.1): ``metric`` is "DSpr" or "UUAS (%)", ``score`` and ``SD``
    in those units. Columns: representation, probe, layer, dataset, metric, score, SD, seeds.
    """
    rows = []
    keys = ["representation", "kind", "dataset"]
    for (rep, kind, dataset), df in per_sentence.groupby(keys, sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        per_seed = [scale * syntax.summarise(d)[metric] for _, d in df.groupby("seed")]
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "layer": int(df["layer"].iloc[0]),
                "dataset": dataset,
                "metric": METRIC_LABELS[metric],
                "score": float(np.mean(per_seed)),
                "SD": float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else 0.0,
                "seeds": len(per_seed),
            }
        )
    for name, df in baselines.groupby("baseline", sort=False):
        summary = syntax.summarise(df)
        for kind, metric in METRIC.items():
            scale = 100.0 if metric == "uuas" else 1.0
            for dataset in DATASETS:
                rows.append(
                    {
                        "representation": name,
                        "probe": PROBE_LABELS[kind],
                        "layer": -1,
                        "dataset": dataset,
                        "metric": METRIC_LABELS[metric],
                        "score": scale * summary[metric],
                        "SD": 0.0,
                        "seeds": 0,
                    }
                )
    return pd.DataFrame(rows)


def _verdict_row(res: PairedBootstrap, scale: float) -> dict[str, object]:
    return {
        "estimate": scale * res.diff,
        "low": scale * res.low,
        "high": scale * res.high,
        "sentences": res.n,
        "p_value": res.p_value,
        "verdict": res.verdict,
    }


def drops_table(per_sentence: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """The drop from normal to Jabberwocky per (representation, probe), §5.2.

    For each probe on its own metric: normal − Jabberwocky, paired over test sentences
    (:func:`difference`); UUAS in points. Columns: representation, probe, metric, normal,
    Jabberwocky, estimate (the drop), low, high, sentences, p_value, verdict, claim (the
    paper's claim "the probe does worse on Jabberwocky": holds, reversed or not shown).
    """
    rows = []
    for (rep, kind), df in per_sentence.groupby(["representation", "kind"], sort=False):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        normal, jab = (df[df["dataset"] == d] for d in DATASETS)
        res = difference(normal, jab, metric, "normal", "Jabberwocky", n_boot, seed)
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "normal": scale * syntax.summarise(normal)[metric],
                "Jabberwocky": scale * syntax.summarise(jab)[metric],
                **_verdict_row(res, scale),
                "claim": res.supports("normal"),
            }
        )
    return pd.DataFrame(rows)


def leads_table(
    per_sentence: pd.DataFrame, baselines: pd.DataFrame, n_boot: int, seed: int
) -> pd.DataFrame:
    """The lead of each probe over the best simple baseline, on each dataset (§5.2).

    The baseline is the better of linear chain and majority tree on the probe's metric
    (:func:`best_baseline`; the same on both datasets). Lead = probe − baseline, paired over
    test sentences (:func:`difference`); UUAS in points. Columns: representation, probe,
    metric, dataset, baseline, estimate, low, high, sentences, p_value, verdict.
    """
    rows = []
    for (rep, kind, dataset), df in per_sentence.groupby(
        ["representation", "kind", "dataset"], sort=False
    ):
        metric = METRIC[kind]
        scale = 100.0 if metric == "uuas" else 1.0
        base = best_baseline(baselines, metric)
        res = difference(
            df, baselines[baselines["baseline"] == base], metric, rep, base, n_boot, seed
        )
        rows.append(
            {
                "representation": rep,
                "probe": PROBE_LABELS[kind],
                "metric": METRIC_LABELS[metric],
                "dataset": dataset,
                "baseline": base,
                **_verdict_row(res, scale),
            }
        )
    return pd.DataFrame(rows)


def pieces_of_substituted(
    normal_emb, jabberwocky_emb, pairs: Sequence[tuple[Sentence, Sentence]]
) -> tuple[float, float]:
    """Mean wordpieces per substituted word before and after substitution.

    ``normal_emb`` and ``jabberwocky_emb``: :class:`probekit.embed.Embeddings` of the two
    sides of ``pairs`` (same order); uses their ``pieces_per_word()`` (N_words,).
    """
    mask = np.concatenate([substituted(o, j) for o, j in pairs])
    if not mask.any():
        return float("nan"), float("nan")
    before = np.asarray(normal_emb.pieces_per_word())[mask]
    after = np.asarray(jabberwocky_emb.pieces_per_word())[mask]
    return float(before.mean()), float(after.mean())


def bars_figure(table: pd.DataFrame, order: Sequence[str]):
    """Grouped bars in the spirit of §5.2, Fig. 3: one panel per probe, one group per
    representation (in ``order``), plain bars for normal and hatched bars for Jabberwocky,
    error bars ± 1 SD over seeds. ``table``: :func:`scores_table`."""
    import matplotlib.pyplot as plt

    from probekit import plots

    plots.use_style()
    colours = dict(zip(order, plots.colors(len(order)), strict=True))
    fig, axes = plt.subplots(1, 2, figsize=(plots.WIDTH, 3.6), layout="constrained")
    width = 0.38
    for ax, kind in zip(axes, ("structural", "perceptron"), strict=True):
        sub = table[table["probe"] == PROBE_LABELS[kind]].set_index(["representation", "dataset"])
        x = np.arange(len(order))
        for offset, dataset, hatch in (
            (-width / 2, "normal", ""),
            (width / 2, "Jabberwocky", "///"),
        ):
            scores = [sub.loc[(r, dataset), "score"] for r in order]
            sds = [sub.loc[(r, dataset), "SD"] for r in order]
            ax.bar(
                x + offset,
                scores,
                width,
                yerr=sds,
                color=[colours[r] for r in order],
                edgecolor="0.2",
                linewidth=0.6,
                hatch=hatch,
                error_kw={"lw": 0.8, "capsize": 2},
            )
        ax.set_xticks(x, order, rotation=35, ha="right", fontsize=7)
        metric = METRIC_LABELS[METRIC[kind]]
        ax.set(ylabel=metric, title=f"{PROBE_LABELS[kind].capitalize()} ({metric.split()[0]})")
        ax.set_ylim(0.0, None)
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor="white", edgecolor="0.2", label="normal"),
        Patch(facecolor="white", edgecolor="0.2", hatch="///", label="Jabberwocky"),
    ]
    fig.legend(handles=handles, fontsize=7, loc="outside upper center", ncols=2)
    return fig


# --------------------------------------------------------------------------------------------
# Chapter 22: per-model set-up and summaries


def model_configs(
    source: str,
    results_path: str | Path,
    model: str,
    treebank: str,
    pooling: str,
    train_emb,
    train_heads: Sequence[np.ndarray],
    dev_emb,
    dev_heads: Sequence[np.ndarray],
    space,
    n_trials: int,
    seed: int,
    search_layer: int,
    **train_kwargs,
) -> tuple[dict[str, dict[str, float]], str]:
    """(rank, lr, dropout) per probe for one encoder, and where they came from.

    ``source="chapter12"`` reuses chapter 12's random search (:func:`chapter12_configs`) when its
    saved results match ``model`` (resolved name), ``treebank`` and ``pooling``; otherwise, and
    with ``source="search"``, runs :func:`probekit.syntax.search` (App. B of the paper: a random
    search per model) with ``n_trials`` trials on ``search_layer``. The second value is
    "chapter 12" or "a search of N trials on layer L".
    """
    if source not in ("chapter12", "search"):
        raise ParameterError("hyperparameters", f"one of {{chapter12, search}}, got {source!r}")
    if source == "chapter12":
        configs = chapter12_configs(results_path, model, treebank, pooling)
        if configs is not None:
            return configs, "chapter 12's random search"
    configs, _ = syntax.search(
        syntax.layer_vectors(train_emb, search_layer),
        train_heads,
        syntax.layer_vectors(dev_emb, search_layer),
        dev_heads,
        space,
        n_trials,
        seed,
        **train_kwargs,
    )
    return configs, f"a random search of {n_trials} trials on layer {search_layer}"


def edge_comparison(probe, layer: int, test_embs: Mapping[str, object], gold: syntax.EvalSet):
    """McNemar's test (:func:`probekit.power.compare`) of one probe's gold-edge outcomes on the
    normal against the Jabberwocky test set (:func:`probekit.syntax.edge_outcomes`; same trees, so the edges
    pair up). ``test_embs`` maps "normal" and "Jabberwocky" to embeddings. Edges of one sentence
    are not independent, so read the p-value as optimistic; the sentence bootstrap of
    :func:`drops_table` is the primary evidence."""
    from probekit.power import compare
    from probekit.probes.structural import predict_distances

    outcomes = {
        d: syntax.edge_outcomes(
            predict_distances(probe, syntax.layer_vectors(test_embs[d], layer)), gold
        )
        for d in DATASETS
    }
    return compare(outcomes["normal"], outcomes["Jabberwocky"], "normal", "Jabberwocky")


def summary_table(scores: pd.DataFrame, drops: pd.DataFrame, leads: pd.DataFrame) -> pd.DataFrame:
    """One row per (representation, probe): layer, normal, Jabberwocky, the drop with its 95 %
    CI, and the lead over the best baseline on each dataset (UUAS in %, DSpr as ρ). Baseline
    rows carry scores only. Inputs: :func:`scores_table`, :func:`drops_table`,
    :func:`leads_table`."""
    wide = scores.pivot_table(
        index=["probe", "representation"], columns="dataset", values="score", sort=False
    )
    layer = scores.groupby(["probe", "representation"], sort=False)["layer"].first()
    out = pd.DataFrame(
        {"layer": layer, "normal": wide["normal"], "Jabberwocky": wide["Jabberwocky"]}
    )
    d = drops.set_index(["probe", "representation"])
    out["drop"] = d["estimate"]
    out["drop CI"] = d["low"].map("{:.3f}".format) + " to " + d["high"].map("{:.3f}".format)
    for dataset in DATASETS:
        lead = leads[leads["dataset"] == dataset].set_index(["probe", "representation"])
        out[f"lead ({dataset})"] = lead["estimate"]
    out["layer"] = out["layer"].map(lambda v: "–" if v < 0 else str(int(v)))
    return out


def relative_change(before: float, after: float) -> str:
    """How a lead changed from ``before`` to ``after``, in words, as a share of ``before``:
    "shrinks by 23 % of its size", "grows by 5 % of its size", "turns into a deficit" (positive
    before, negative after), or, without a lead to begin with, "cannot be read as a share of a
    lead that did not exist"."""
    if not (np.isfinite(before) and np.isfinite(after)) or before <= 0:
        return "cannot be read as a share of a lead that did not exist"
    if after < 0:
        return "turns into a deficit"
    change = 100.0 * (before - after) / before
    word = "shrinks" if change >= 0 else "grows"
    return f"{word} by {abs(change):.0f} % of its size"


# Words for a drops_table "claim" in running prose.
CLAIM_PHRASES = {
    "holds": "a significant drop",
    "reversed": "a significant gain",
    "not shown (the interval includes 0)": "not significant",
}


def overall_verdict(drops: pd.DataFrame, leads: pd.DataFrame, representation: str) -> str:
    """One sentence on the paper's two claims (§5.2) for one representation: does each probe do
    significantly worse on Jabberwocky (:func:`drops_table`), and does it keep a significant
    lead over the best word-blind baseline there (:func:`leads_table`)?"""
    d = drops[drops["representation"] == representation].set_index("probe")
    lead = leads[
        (leads["representation"] == representation) & (leads["dataset"] == "Jabberwocky")
    ].set_index("probe")
    if d.empty or lead.empty:
        raise ParameterError("representation", f"no rows for {representation!r}")
    dropped = [p for p in d.index if d.loc[p, "claim"] == "holds"]
    kept = [p for p in lead.index if lead.loc[p, "low"] > 0]

    def which(probes: list[str], verb_all: str, verb_none: str, verb_one: str) -> str:
        if len(probes) == len(d.index):
            return verb_all
        if not probes:
            return verb_none
        return verb_one.format(" and ".join(f"the {p}" for p in probes))

    first = which(
        dropped,
        "both probes do significantly worse on Jabberwocky, as the paper found",
        "neither probe does significantly worse on Jabberwocky, unlike in the paper",
        "only {} does significantly worse on Jabberwocky",
    )
    second = which(
        kept,
        "both still beat the word-blind baselines there",
        "neither keeps a significant lead over the word-blind baselines there",
        "only {} keeps a significant lead over the word-blind baselines there",
    )
    return f"{first}, and {second}"
