"""English spelling as the pseudoword generator and the inflection rules see it.

Hall Maudslay & Cotterell 2021, §3: "standard English morphology and graphotactics".

A spelling splits into an orthographic onset (the consonant letters before the first vowel
letter), nucleus (the run of vowel letters) and coda (the rest, which may hold a silent *e*:
*b-a-ke*). The vowel letters are a, e, i, o, u, and y except at the start of a word (*yes*:
consonant; *fly*, *day*: vowel). The *u* of *qu* belongs to the onset.
"""

from __future__ import annotations

import re

LOWER_WORD = re.compile(r"^[a-z]+$")
VOWELS = frozenset("aeiou")


def is_vowel_letter(word: str, j: int) -> bool:
    """Whether letter ``j`` of the lower-case ``word`` spells a vowel.

    By the rule of the module docstring (y is a vowel except word-initially; the u of *qu* is
    not).
    """
    c = word[j]
    if c == "y":
        return j > 0  # word-initial y is a glide (*yes*); elsewhere a vowel (*fly*, *day*)
    if c == "u" and j > 0 and word[j - 1] == "q":
        return False  # the u of *qu* spells /w/, part of the onset
    return c in VOWELS


def split_spelling(word: str) -> tuple[str, str, str] | None:
    """Split a lower-case spelling into orthographic (onset, nucleus, coda).

    Hall Maudslay & Cotterell 2021, §3 (our generator; see the module docstring). The onset is
    the consonant letters before the first vowel letter, the nucleus the run of vowel letters,
    the coda the rest (*bake* -> ("b", "a", "ke"), *through* -> ("thr", "ou", "gh")). Returns
    None when the spelling has no vowel letter (*hmm*).
    """
    i = 0
    while i < len(word) and not is_vowel_letter(word, i):
        i += 1
    if i == len(word):
        return None
    j = i
    while j < len(word) and is_vowel_letter(word, j):
        j += 1
    return word[:i], word[i:j], word[j:]


def vowel_groups(word: str) -> int:
    """The syllables of a spelling as the doubling rule counts them.

    Runs of vowel letters, a silent final *e* not counted (*bake*: 1, *visit*: 2).
    """
    groups, previous = 0, False
    for j in range(len(word)):
        vowel = is_vowel_letter(word, j)
        if vowel and not previous:
            groups += 1
        previous = vowel
    if word.endswith("e") and groups > 1 and not is_vowel_letter(word, len(word) - 2):
        groups -= 1  # silent final e (*bake* is one syllable)
    return groups
