"""Inflection of pseudoword stems by hand-written rules (Hall Maudslay & Cotterell 2021, §3).

The paper's "hand-written rules assuming they obey the standard English morphology and
graphotactics".

The rules of regular English morphology and spelling: e-deletion (*bake* -> *baking*,
*baker*), consonant doubling after a single vowel letter in a one-syllable stem (*stop* ->
*stopping*, *big* -> *bigger*; never for codas w, x, y, h, c), y -> ies/ier/iest after a
consonant (*fly* -> *flies*, but *day* -> *days*), ie -> ying (*tie* -> *tying*), -es after
sibilants (s, x, z, ch, sh) and, for verbs, after consonant + o (*go* -> *goes*). Adverbs are
inflected like flat adverbs (*fast*, *faster*, *fastest*): the positive form is the bare stem,
with no *-ly*. One rule per feature set of :mod:`.feature_sets`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from probekit.errors import ParameterError
from probekit.methods.jabberwocky.feature_sets import FEATURE_SETS, feature_set
from probekit.methods.jabberwocky.graphotactics import LOWER_WORD, is_vowel_letter, vowel_groups

_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")
# Consonants English spelling never doubles before a suffix (*showing*, *boxing*, *chic*).
_NO_DOUBLING = frozenset("wxyhc")


def _doubles(stem: str) -> bool:
    """Whether the final consonant doubles before a vowel suffix (*stop* -> *stopping*).

    Only for one-syllable stems ending in consonant-vowel-consonant, where the vowel is one
    letter; in longer stems doubling depends on stress (*begin* -> *beginning* but *visit* ->
    *visiting*), which spelling does not show, so they do not double.
    """
    if len(stem) < 2 or stem[-1] in _NO_DOUBLING or is_vowel_letter(stem, len(stem) - 1):
        return False
    if not is_vowel_letter(stem, len(stem) - 2) or stem[-2] == "y":
        return False
    if len(stem) >= 3 and is_vowel_letter(stem, len(stem) - 3):
        return False  # two vowel letters (*rain*, *beat*): a long vowel, no doubling
    return vowel_groups(stem) == 1


def _consonant_y(stem: str) -> bool:
    return len(stem) >= 2 and stem[-1] == "y" and not is_vowel_letter(stem, len(stem) - 2)


def _add_s(stem: str, verb: bool) -> str:
    """-s of plural nouns and 3rd-person singular verbs."""
    if _consonant_y(stem):
        return stem[:-1] + "ies"
    if stem.endswith(_SIBILANT_ENDINGS):
        return stem + "es"
    if verb and len(stem) >= 2 and stem[-1] == "o" and not is_vowel_letter(stem, len(stem) - 2):
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


def source_inflections(stem: str) -> set[str]:
    """The regular -s (noun and verb) and -ed forms of ``stem`` that differ from it.

    Only for recognising source words that are themselves inflections of another monosyllable
    (*cats*, *baked*, *flies*; :mod:`.pseudowords`, step 1): no feature set needs -ed.
    """
    return {f for f in (_add_s(stem, False), _add_s(stem, True), _add_ed(stem)) if f != stem}


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


def _check_stem(stem: str) -> None:
    if not isinstance(stem, str) or not LOWER_WORD.match(stem):
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
