"""What the Jabberwocky corpus of chapter 21 looks like.

Hall Maudslay & Cotterell 2021, §3 and footnote 4: example sentences, the pseudoword stems and
their spelling, and how many words were replaced per feature set and per UPOS.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.corpus import substituted
from probekit.io.treebanks import Sentence
from probekit.methods.jabberwocky.feature_sets import FEATURE_SETS, feature_set
from probekit.methods.jabberwocky.graphotactics import split_spelling


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


def replaced_word_lengths(
    pairs: Sequence[tuple[Sentence, Sentence]],
) -> tuple[list[int], list[int]]:
    """Letters of every replaced word before and after substitution, in corpus order.

    Before: the original; after: the inflected pseudoword. Two lists of the same length.
    """
    before, after = [], []
    for o, j in pairs:
        mask = substituted(o, j)
        before += [len(w) for w in o.forms[mask].tolist()]
        after += [len(w) for w in j.forms[mask].tolist()]
    return before, after


def stem_table(pairs: Sequence[tuple[Sentence, Sentence]]) -> pd.DataFrame:
    """One row per pseudoword stem used in the corpus.

    Columns ``stem``, ``length`` (letters), ``onset``, ``nucleus``, ``coda``
    (:func:`probekit.methods.jabberwocky.graphotactics.split_spelling`) and ``tokens`` (how
    many words it replaced). Stems are the LEMMA column of replaced words.
    """
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
    """The ``top`` most frequent values of one spelling part over the stems of :func:`stem_table`.

    With their number of stems and a few example stems (alphabetical). ``part`` is "onset",
    "nucleus" or "coda"; an empty onset or coda shows as "∅".
    """
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
    """Words and replacements per UPOS, sorted by words.

    Columns ``words``, ``replaced``, ``replaced (%)`` and ``not a feature set``, the words of
    NOUN/VERB/ADJ/ADV whose features match none of the substitutable sets (past tenses,
    participles, ``Typo``, ...).
    """
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
