"""The feature sets of Hall Maudslay & Cotterell 2021, footnote 4.

The fine-grained part-of-speech annotations a word must carry to be replaced by a pseudoword.

- nouns: ``Number=Sing``, ``Number=Plur``;
- verbs: ``VerbForm=Inf``; ``VerbForm=Fin|Mood=Ind|Number=Sing|Person=3|Tense=Pres``;
  ``VerbForm=Fin|Mood=Ind|Tense=Pres`` (the other present forms); ``VerbForm=Part|Tense=Pres``;
- adjectives and adverbs: unmarked (positive), ``Degree=Cmp``, ``Degree=Sup``.

**Beyond the paper.** Recent UD English EWT releases (v2.16 has 91 in the test split) annotate
some -ing verbs ``VerbForm=Ger``. The paper's footnote names only ``VerbForm=Part|Tense=Pres``
for -ing forms and says its sets "cover all regular forms in the EWT treebank", which suggests
that its (older) EWT had no ``VerbForm=Ger`` verbs. To keep that coverage, the feature set
``VERB:Ger`` (inflected with -ing) is on by default; ``feature_sets=PAPER_FEATURE_SETS`` keeps
strictly to the footnote.
"""

from __future__ import annotations

from collections.abc import Mapping

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
