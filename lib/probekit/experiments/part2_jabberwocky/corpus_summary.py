"""The numbers chapter 21's prose quotes about its Jabberwocky corpus, and its check.

Hall Maudslay & Cotterell 2021, §3 and footnote 4. The check is of the corpus's one promise:
every sentence keeps its tree and only its words change.

Each function returns a dict keyed by the name the chapter glues the number under.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import ParameterError
from probekit.experiments.part2_jabberwocky.corpus import CorpusPairs, output_sha
from probekit.experiments.part2_jabberwocky.corpus_tables import replaced_word_lengths
from probekit.io.treebanks import Sentence

# The four open classes the feature sets of footnote 4 cover, by their plural names in prose.
OPEN_CLASSES = {"NOUN": "nouns", "VERB": "verbs", "ADJ": "adjectives", "ADV": "adverbs"}


def corpus_facts(corpus: CorpusPairs) -> dict[str, object]:
    """What the corpus report says (§3).

    ``n_sentences``, ``n_words``, ``n_replaced``, ``replaced_share`` and ``kept_share`` (% of
    the words), ``pool_size`` and ``pool_kind`` ("generated" or "read from a file") of the
    pseudowords, ``corpus_dir`` and ``corpus_sha`` (the first 12 hex digits of the test file's
    sha256).
    """
    report = corpus.report
    if not report.get("n_words"):
        raise ParameterError("report", "the corpus report counts no words")
    pool = report["pseudowords"]
    return {
        "n_sentences": int(report["n_sentences"]),
        "n_words": int(report["n_words"]),
        "n_replaced": int(report["replaced"]),
        "replaced_share": 100 * report["replaced"] / report["n_words"],
        "kept_share": 100 - 100 * report["replaced"] / report["n_words"],
        "pool_size": int(pool["n"]),
        "pool_kind": "generated" if pool["kind"] == "generated" else "read from a file",
        "corpus_dir": str(corpus.directory),
        "corpus_sha": output_sha(report),
    }


def length_facts(
    stems: pd.DataFrame, pairs: Sequence[tuple[Sentence, Sentence]]
) -> dict[str, object]:
    """Word lengths in letters (§3: the pseudowords are monosyllables).

    ``stem_len_mean`` over the stems of
    :func:`~probekit.experiments.part2_jabberwocky.corpus_tables.stem_table`; ``orig_len_mean``,
    ``orig_len_sd``, ``jab_len_mean``, ``jab_len_sd`` over the replaced words before and after
    substitution (population SD); ``max_tokens_per_stem`` and ``top_stem``, the stem that
    replaced most words (ties: alphabetical). 0 or "none" when nothing was replaced.
    """
    before, after = replaced_word_lengths(pairs)
    ranked = stems.sort_values("tokens", ascending=False, kind="stable")["stem"]
    return {
        "stem_len_mean": float(stems["length"].mean()) if len(stems) else 0.0,
        "orig_len_mean": float(np.mean(before)) if before else 0.0,
        "jab_len_mean": float(np.mean(after)) if after else 0.0,
        "orig_len_sd": float(np.std(before)) if before else 0.0,
        "jab_len_sd": float(np.std(after)) if after else 0.0,
        "max_tokens_per_stem": int(stems["tokens"].max()) if len(stems) else 0,
        "top_stem": str(ranked.iloc[0]) if len(ranked) else "none",
    }


def coverage_facts(
    coverage: pd.DataFrame, by_upos: pd.DataFrame, report: Mapping
) -> dict[str, object]:
    """Coverage of the substitution (footnote 4).

    ``top_set``, the feature set with most replacements, and ``top_set_share``, its % of them;
    words of a feature set kept because they sit in a multiword token (``skipped_multiword``)
    or are not word-shaped (``skipped_shape``); ``noun_share``, ``verb_share``, ``adj_share``,
    ``adv_share``, the % replaced per open class, and ``least_covered``, the class with the
    lowest; ``verb_unmatched``, verbs outside every feature set; ``propn_share``, % of proper
    nouns replaced. Inputs:
    :func:`~probekit.experiments.part2_jabberwocky.corpus_tables.coverage_table`,
    :func:`~probekit.experiments.part2_jabberwocky.corpus_tables.upos_coverage` and the
    corpus report.
    """
    if coverage.empty:
        raise ParameterError("coverage", "no feature sets in the coverage table")
    top_set = coverage["replaced"].idxmax()
    out: dict[str, object] = {
        "top_set": top_set,
        "top_set_share": 100 * coverage.loc[top_set, "replaced"] / max(report["replaced"], 1),
        "skipped_multiword": int(coverage["in multiword token"].sum()),
        "skipped_shape": int(coverage["not word-shaped"].sum()),
    }
    shares = {
        tag: float(by_upos.loc[tag, "replaced (%)"] if tag in by_upos.index else 0.0)
        for tag in OPEN_CLASSES
    }
    out |= {f"{tag.lower()}_share": share for tag, share in shares.items()}
    out["least_covered"] = OPEN_CLASSES[min(shares, key=shares.get)]
    out["verb_unmatched"] = (
        int(by_upos.loc["VERB", "not a feature set"]) if "VERB" in by_upos.index else 0
    )
    out["propn_share"] = (
        float(by_upos.loc["PROPN", "replaced (%)"]) if "PROPN" in by_upos.index else 0.0
    )
    return out


def same_trees_check(pairs: Sequence[tuple[Sentence, Sentence]]) -> str:
    """§3's construction checked: a Jabberwocky sentence changes only words.

    A Jabberwocky sentence keeps its original's tree and annotation. Returns "all N sentences
    keep the heads, relations, tags and features of their originals" when every pair has the
    same heads, relations, UPOS, XPOS and features, else "K of N sentences differ from their
    originals in heads, relations, tags or features". A check of the corpus, not a claim of
    the paper.
    """
    if not pairs:
        raise ParameterError("pairs", "no sentences to compare")
    same = sum(
        np.array_equal(o.heads, j.heads)
        and np.array_equal(o.deprel, j.deprel)
        and np.array_equal(o.upos, j.upos)
        and np.array_equal(o.xpos, j.xpos)
        and tuple(o.feats) == tuple(j.feats)
        for o, j in pairs
    )
    n = len(pairs)
    if same == n:
        return (
            f"all {n:,} sentences keep the heads, relations, tags and features of their originals"
        )
    return (
        f"{n - same:,} of {n:,} sentences differ from their originals in heads, relations, tags "
        "or features"
    )
