"""Substitution: which words of a sentence become which pseudowords.

Hall Maudslay & Cotterell 2021, §3.

A word is eligible when its UPOS is NOUN, VERB, ADJ or ADV, its FEATS is exactly one of the
feature sets of footnote 4 (:mod:`.feature_sets`; words that also carry ``Typo``, ``Abbr``,
``ExtPos``, ``NumType``, ``PronType``, ``Style``, ... are left alone, so *there*, *when*,
*first* stay), its form is alphabetic (possibly hyphenated; *26th*, *01-Feb-02* and file names
stay), and it is not part of a multiword token (the token's surface form, e.g. *gonna*, would
otherwise no longer match its words). Each eligible word is replaced with probability ``rate``
(the paper: 1.0). Within a sentence, every occurrence of one original lemma (lower-cased,
whatever its UPOS) maps to one pseudoword stem, and different lemmas get different stems, so
that *bakes ... baking* stays one verb; across sentences the draws are independent. A new stem
right after *a* / *an* starts with a consonant / vowel letter where the pool allows
(``match_article``; the paper does not say). FORM becomes the inflected pseudoword
(:mod:`.inflection`) in the capitalisation of the original (lower, Title or ALL CAPS); LEMMA
becomes the stem. Trees, UPOS, XPOS, FEATS, relations, DEPS and MISC are unchanged (enhanced
relation labels such as ``obl:according_to`` keep the original lemma; the probes do not read
them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from probekit.errors import ParameterError
from probekit.io.treebanks import Sentence
from probekit.methods.jabberwocky.feature_sets import (
    DEFAULT_FEATURE_SETS,
    FEATURE_SETS,
    feature_set,
)
from probekit.methods.jabberwocky.graphotactics import LOWER_WORD, VOWELS
from probekit.methods.jabberwocky.inflection import inflect_set
from probekit.seeds import as_generator

_WORD_SHAPED = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*$")


def match_case(form: str, original: str) -> str:
    """Give ``form`` the capitalisation of ``original``: ALL CAPS (2+ letters), Title, or lower.

    Our rule for Hall Maudslay & Cotterell 2021, §3 (the paper does not say): a sentence-initial
    or proper-looking word stays capitalised, so casing cues are those of the source sentence.
    """
    letters = [c for c in original if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return form.upper()
    if letters and original[0].isupper():
        return form[:1].upper() + form[1:]
    return form


@dataclass
class FeatureSetCount:
    """Counts for one feature set (Hall Maudslay & Cotterell 2021, footnote 4).

    ``eligible``: words with the feature set that may be replaced; ``replaced``: those replaced;
    ``in_multiword`` / ``not_word_shaped``: words with the feature set left alone because they
    sit inside a multiword token or their form is not alphabetic.
    """

    eligible: int = 0
    replaced: int = 0
    in_multiword: int = 0
    not_word_shaped: int = 0

    @property
    def rate(self) -> float | None:
        """Share of the eligible words replaced; None when no word was eligible."""
        return self.replaced / self.eligible if self.eligible else None


@dataclass
class SubstitutionReport:
    """What :func:`substitute` did (Hall Maudslay & Cotterell 2021, §3).

    Counts per feature set, totals, seed, rate and whether articles were matched.
    """

    seed: int | None
    rate: float
    match_article: bool = True
    n_sentences: int = 0
    n_words: int = 0
    counts: dict[str, FeatureSetCount] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready view: per feature set eligible, replaced, rate and skipped counts."""
        per_set = {
            name: {
                "eligible": c.eligible,
                "replaced": c.replaced,
                "rate": c.rate,
                "in_multiword": c.in_multiword,
                "not_word_shaped": c.not_word_shaped,
            }
            for name, c in self.counts.items()
        }
        eligible = sum(c.eligible for c in self.counts.values())
        replaced = sum(c.replaced for c in self.counts.values())
        return {
            "seed": self.seed,
            "rate": self.rate,
            "match_article": self.match_article,
            "n_sentences": self.n_sentences,
            "n_words": self.n_words,
            "eligible": eligible,
            "replaced": replaced,
            "feature_sets": per_set,
        }


# One sentence's substitutions: 0-based word index -> (new FORM, new LEMMA).
Substitution = dict[int, tuple[str, str]]


def _in_multiword(sentence: Sentence) -> np.ndarray:
    inside = np.zeros(len(sentence), dtype=bool)
    for first, last, _ in sentence.multiword:
        inside[first - 1 : last] = True
    return inside


def check_rate(rate: float) -> float:
    """``rate``, the share of eligible words replaced (§3: 1.0), as a float in [0, 1]."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
        raise ParameterError("rate", f"expected a number in [0, 1], got {rate!r}")
    return float(rate)


def _check_feature_sets(feature_sets: Iterable[str]) -> frozenset[str]:
    chosen = frozenset(feature_sets)
    unknown = sorted(chosen - set(FEATURE_SETS))
    if unknown:
        raise ParameterError(
            "feature_sets", f"unknown {unknown}", hint=f"use names from {list(FEATURE_SETS)}"
        )
    return chosen


def _draw_stem(candidates: Sequence[str], used: set[str], rng: np.random.Generator) -> str:
    """A uniform draw from ``candidates`` avoiding ``used`` (any candidate once all are used)."""
    if len(used) < len(candidates):
        for _ in range(64):  # rejection: ``used`` is a handful of stems out of thousands
            stem = candidates[int(rng.integers(len(candidates)))]
            if stem not in used:
                return stem
        free = [w for w in candidates if w not in used]
        return free[int(rng.integers(len(free)))]
    return candidates[int(rng.integers(len(candidates)))]


def _article_initial(sentence: Sentence, i: int, inside: np.ndarray) -> str | None:
    """The initial an article asks for: "vowel" after *an*, "consonant" after *a*, else None."""
    if i == 0 or inside[i - 1]:
        return None
    previous = str(sentence.forms[i - 1]).lower()
    return {"an": "vowel", "a": "consonant"}.get(previous)


def substitute(
    sentences: Sequence[Sentence],
    pseudowords: Sequence[str],
    seed: int | np.random.Generator,
    rate: float = 1.0,
    feature_sets: Iterable[str] = DEFAULT_FEATURE_SETS,
    match_article: bool = True,
) -> tuple[list[Substitution], SubstitutionReport]:
    """Choose pseudoword replacements for the eligible words of each sentence.

    Hall Maudslay & Cotterell 2021, §3: words are replaced "whenever we have one available with
    matching fine-grained part-of-speech annotation", so ``rate`` defaults to 1.0; with
    ``rate < 1`` each eligible word is replaced with probability ``rate``, and for one seed the
    words replaced at a lower rate are a subset of those replaced at a higher one. Eligibility,
    the one-lemma-one-stem rule and capitalisation are described in the module docstring.
    With ``match_article`` (our addition; the paper does not say), a new stem drawn for a word
    right after *a* / *an* starts with a consonant / vowel letter, so that the kept article
    still fits (*an* + *egg* -> *an* + *utch*, not *an* + *blick*).
    Returns one :data:`Substitution` per sentence (0-based word index -> (form, lemma)) and the
    counts per feature set. Deterministic given ``seed`` (an int or a numpy Generator).
    """
    rate = check_rate(rate)
    allowed = _check_feature_sets(feature_sets)
    pool = list(pseudowords)
    if not pool:
        raise ParameterError("pseudowords", "the pseudoword list is empty")
    bad = [w for w in pool if not isinstance(w, str) or not LOWER_WORD.match(w)]
    if bad:
        raise ParameterError(
            "pseudowords", f"not lower-case words: {bad[:5]}", hint="stems are letters a-z only"
        )
    # Separate streams: which words are replaced must not depend on which stems were drawn.
    keep_rng, stem_rng = as_generator(seed).spawn(2)
    by_initial: dict[str | None, list[str]] = {None: pool}
    for initial, vowel in (("vowel", True), ("consonant", False)):
        # When the pool has no stem of the wanted kind, the article constraint is dropped.
        by_initial[initial] = [w for w in pool if (w[0] in VOWELS) == vowel] or pool
    report = SubstitutionReport(
        seed=int(seed) if isinstance(seed, int | np.integer) else None,
        rate=rate,
        match_article=match_article,
        counts={name: FeatureSetCount() for name in FEATURE_SETS if name in allowed},
    )
    result: list[Substitution] = []
    for sentence in sentences:
        report.n_sentences += 1
        report.n_words += len(sentence)
        inside = _in_multiword(sentence)
        stems: dict[str, str] = {}
        subs: Substitution = {}
        for i in range(len(sentence)):
            name = feature_set(sentence.upos[i], sentence.feats[i])
            if name not in allowed:
                continue
            count = report.counts[name]
            form = str(sentence.forms[i])
            if inside[i]:
                count.in_multiword += 1
                continue
            if not _WORD_SHAPED.match(form):
                count.not_word_shaped += 1
                continue
            count.eligible += 1
            if keep_rng.random() >= rate:
                continue
            lemma = str(sentence.lemmas[i])
            key = (lemma if lemma != "_" else form).lower()
            if key not in stems:
                initial = _article_initial(sentence, i, inside) if match_article else None
                stems[key] = _draw_stem(by_initial[initial], set(stems.values()), stem_rng)
            stem = stems[key]
            subs[i] = (match_case(inflect_set(stem, name), form), stem)
            count.replaced += 1
        result.append(subs)
    return result, report
