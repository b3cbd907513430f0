"""Assignment A2 · Inflection rules for pseudowords (Hall Maudslay & Cotterell 2021, §3).

Checks of the students' -s, -ing and -er/-est rules against :mod:`probekit.methods.jabberwocky`
on generated stems of every spelling situation, and :func:`rule_coverage`, how much of a
treebank such rules reproduce. The notebook hands students the spelling helpers of
:mod:`probekit.methods.jabberwocky.graphotactics` (``is_vowel_letter``, ``vowel_groups``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from probekit.methods.jabberwocky.feature_sets import feature_set
from probekit.methods.jabberwocky.inflection import inflect_set
from probekit.teaching.runner import (
    Case,
    GradedTask,
    Mismatch,
    check_options,
    graded_tasks,
    pick,
    run_check,
)

#: Points per task, by the function each task asks for, in the notebook's order (Task 1 first).
#: The batch grader and the otter export award them (:data:`TASKS`).
POINTS: dict[str, int] = {"add_s": 3, "add_ing": 4, "add_degree": 3}

#: The library functions that compute what each task asks the student to write. They are not
#: importable in the grading sandbox (:mod:`.references`), and a submission that names one gets
#: nothing for its task.
REFERENCES: dict[str, tuple[str, ...]] = {
    "add_s": (
        "probekit.methods.jabberwocky.inflection._add_s",
        "probekit.methods.jabberwocky.inflection.inflect_set",
        "probekit.methods.jabberwocky.inflection.inflect",
        "probekit.methods.jabberwocky.inflection.inflections",
    ),
    "add_ing": (
        "probekit.methods.jabberwocky.inflection._add_ing",
        "probekit.methods.jabberwocky.inflection._doubles",
    ),
    "add_degree": ("probekit.methods.jabberwocky.inflection._add_degree",),
}

_ONSETS = (
    "b bl br ch cl d dr f fl fr g gl gr h j k l m n p pl pr r s sh sk sl sn sp st str t th tr v w z"
).split()
_SHORT_VOWELS = "aeiou"
_LONG_VOWELS = ("ai", "ea", "ee", "oa", "oo", "ou")
_DOUBLING_CODAS = "bdgklmnprt"
# Each category is one spelling situation the rules treat differently.
_STEM_CATEGORIES: dict[str, Callable[[np.random.Generator], str]] = {
    "cvc": lambda r: pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, _DOUBLING_CODAS),
    "w_x_coda": lambda r: pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, "wx"),
    "long_vowel": lambda r: pick(r, _ONSETS) + pick(r, _LONG_VOWELS) + pick(r, "dkmnpt"),
    "cluster": lambda r: (
        pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, ("st", "nd", "mp", "lk", "ft"))
    ),
    "two_syllables": lambda r: (
        pick(r, _ONSETS)
        + pick(r, _SHORT_VOWELS)
        + pick(r, "bdlmnprtv")
        + pick(r, _SHORT_VOWELS)
        + pick(r, _DOUBLING_CODAS)
    ),
    "silent_e": lambda r: pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, "bdklmnprtv") + "e",
    "ee_oe_ye": lambda r: pick(r, _ONSETS) + pick(r, ("ee", "oe", "ye")),
    "ie": lambda r: pick(r, _ONSETS) + "ie",
    "consonant_y": lambda r: (
        pick(r, _ONSETS) + "y"
        if r.random() < 0.5
        else pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, ("st", "nd", "mp", "t")) + "y"
    ),
    "vowel_y": lambda r: pick(r, _ONSETS) + pick(r, ("a", "e", "o")) + "y",
    "sibilant": lambda r: (
        pick(r, _ONSETS) + pick(r, _SHORT_VOWELS) + pick(r, ("s", "ss", "sh", "ch", "x", "z"))
    ),
    "consonant_o": lambda r: pick(r, _ONSETS) + pick(r, ("o", "o", "oo")),
}
_STEM_HINTS: dict[tuple[str, str], str] = {
    ("cvc", "ing"): "a one-syllable stem ending in one vowel letter + one consonant doubles it: "
    "stop -> stopping (use vowel_groups() and is_vowel_letter()).",
    ("cvc", "degree"): "a one-syllable stem ending in one vowel letter + one consonant doubles "
    "it: big -> bigger.",
    ("w_x_coda", "ing"): "w, x, y, h and c are never doubled: snow -> snowing, box -> boxing.",
    ("w_x_coda", "degree"): "w, x, y, h and c are never doubled: lax -> laxer.",
    ("w_x_coda", "s"): "after x add -es (box -> boxes); after w just -s.",
    ("long_vowel", "ing"): "no doubling after two vowel letters: rain -> raining, beat -> beating.",
    ("long_vowel", "degree"): "no doubling after two vowel letters: neat -> neater.",
    ("cluster", "ing"): "no doubling after two consonant letters: fast -> fasting.",
    ("cluster", "degree"): "no doubling after two consonant letters: fast -> faster.",
    ("two_syllables", "ing"): "only one-syllable stems double here: visit -> visiting (in longer "
    "words stress decides, and spelling does not show it).",
    ("two_syllables", "degree"): "only one-syllable stems double here: clever -> cleverer.",
    ("silent_e", "ing"): "drop a final e before -ing: bake -> baking.",
    ("silent_e", "degree"): "after a final e add only -r / -st: late -> later, latest.",
    ("ee_oe_ye", "ing"): "keep the e of ee, oe and ye: see -> seeing, hoe -> hoeing, dye -> "
    "dyeing.",
    ("ee_oe_ye", "degree"): "after a final e add only -r / -st: free -> freer, freest.",
    ("ie", "ing"): "ie becomes y before -ing: tie -> tying.",
    ("ie", "degree"): "after a final e add only -r / -st.",
    ("consonant_y", "s"): "consonant + y becomes -ies: fly -> flies.",
    ("consonant_y", "ing"): "keep the y before -ing: fly -> flying (and y is never doubled).",
    ("consonant_y", "degree"): "consonant + y becomes -ier / -iest: happy -> happier.",
    ("vowel_y", "s"): "vowel + y just adds -s: day -> days.",
    ("vowel_y", "ing"): "vowel + y just adds -ing: stay -> staying.",
    ("vowel_y", "degree"): "vowel + y just adds the suffix: grey -> greyer.",
    ("sibilant", "s"): "after s, x, z, ch and sh add -es: bus -> buses, wish -> wishes.",
    ("consonant_o", "s"): "verbs in consonant + o take -es (go -> goes); nouns take -s (memo -> "
    "memos); vowel + o takes -s.",
}


def _stem_cases(seed: int, n_cases: int) -> list[tuple[str, str]]:
    """(category, stem) pairs cycling through every category, so each rule is exercised."""
    rng = np.random.default_rng(seed)
    names = list(_STEM_CATEGORIES)
    out = []
    for k in range(n_cases):
        name = names[k % len(names)]
        out.append((name, _STEM_CATEGORIES[name](rng)))
    return out


def _inflection_check(
    task: str,
    student_fn: Callable,
    seed: int,
    n_cases: int,
    rule: str,
    args_of: Callable[[str, np.random.Generator], tuple],
    feature_set_of: Callable[[tuple], str],
) -> None:

    seed, n_cases = check_options(seed, n_cases)
    rng = np.random.default_rng(seed + 1)
    cases, categories = [], {}
    for category, stem in _stem_cases(seed, n_cases):
        args = args_of(stem, rng)
        shown = ", ".join(repr(a) for a in args)
        categories[args] = category
        cases.append(Case(len(stem), args, f"{task}({shown})"))

    def reference(*args: Any) -> str:
        return inflect_set(args[0], feature_set_of(args))

    def judge(case: Case, expected: str, got: Any) -> Mismatch | None:
        if got == expected:
            return None
        category = categories[case.args]
        hint = _STEM_HINTS.get(
            (category, rule),
            "compare your rules with the task text; check them in the order the text gives.",
        )
        if not isinstance(got, str):
            hint = "return the inflected form as a str"
        return Mismatch(repr(expected), repr(got), f"[{category.replace('_', ' ')}] {hint}")

    run_check(task, student_fn, cases, reference, judge)


def check_add_s(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check the -s rule of plural nouns and 3rd-person verbs.

    The reference is :func:`probekit.methods.jabberwocky.inflection.inflect_set` (``NOUN:Plur``,
    ``VERB:Pres3Sg``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem, verb)`` takes a
    lower-case stem and a bool (True: the verb's 3rd person singular; False: the noun plural)
    and returns the form. Stems are generated so that every spelling situation occurs.
    """
    _inflection_check(
        "add_s",
        student_fn,
        seed,
        n_cases,
        "s",
        lambda stem, rng: (stem, bool(rng.random() < 0.5)),
        lambda args: "VERB:Pres3Sg" if args[1] else "NOUN:Plur",
    )


def check_add_ing(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check the -ing rule.

    The reference is :func:`probekit.methods.jabberwocky.inflection.inflect_set`
    (``VERB:PresPart``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem)`` takes a lower-case
    stem and returns its present participle: e-deletion, ie -> y, and consonant doubling.
    """
    _inflection_check(
        "add_ing",
        student_fn,
        seed,
        n_cases,
        "ing",
        lambda stem, rng: (stem,),
        lambda args: "VERB:PresPart",
    )


def check_add_degree(student_fn: Callable, seed: int = 0, n_cases: int = 96) -> None:
    """Check comparatives and superlatives.

    The reference is :func:`probekit.methods.jabberwocky.inflection.inflect_set` (``ADJ:Cmp``,
    ``ADJ:Sup``).

    Hall Maudslay & Cotterell 2021, §3 and footnote 4. ``student_fn(stem, suffix)`` takes a
    lower-case stem and ``"er"`` or ``"est"``: e-deletion, y -> i and consonant doubling.
    """
    _inflection_check(
        "add_degree",
        student_fn,
        seed,
        n_cases,
        "degree",
        lambda stem, rng: (stem, "er" if rng.random() < 0.5 else "est"),
        lambda args: "ADJ:Cmp" if args[1] == "er" else "ADJ:Sup",
    )


def rule_coverage(
    sentences: Sequence[Any], rules: Mapping[str, Callable[[str], str]], top: int = 0
) -> tuple[Any, Any]:
    """How many treebank forms a set of regular inflection rules reproduces from their lemmas.

    Hall Maudslay & Cotterell 2021, §3: the pseudowords are inflected with regular rules, so a rule
    set is only as good as the regular part of the language. For every word whose (UPOS, FEATS) is a
    feature set in ``rules`` (names as
    :data:`probekit.methods.jabberwocky.feature_sets.FEATURE_SETS`) and whose lemma and form are
    alphabetic, ``rules[name](lemma.lower())`` is compared with ``form.lower()``. Words inside
    multiword tokens are skipped, as in the substitution.

    Args:
        sentences: :class:`probekit.io.treebanks.Sentence` objects.
        rules: feature-set name -> function from a stem to its form.
        top: how many of the most frequent mismatches to list; 0 lists them all.

    Returns:
        ``(by_set, misses)``: a DataFrame indexed by feature set with columns ``words`` and
        ``reproduced`` (share in [0, 1]); and a DataFrame of the (feature set, lemma, form,
        predicted) mismatches with their ``count``, most frequent first.
    """
    alpha = re.compile(r"^[A-Za-z]+$")
    totals: Counter = Counter()
    hits: Counter = Counter()
    misses: Counter = Counter()
    for s in sentences:
        # Words of a multiword token (*gon* of *gonna*) are spelled by the token, not by a rule.
        in_token = {i - 1 for first, last, _ in s.multiword for i in range(first, last + 1)}
        words = zip(s.lemmas, s.forms, s.upos, s.feats, strict=True)
        for k, (lemma, form, upos, feats) in enumerate(words):
            name = feature_set(upos, feats)
            if k in in_token or name not in rules:
                continue
            if not (alpha.match(lemma) and alpha.match(form)):
                continue
            predicted = rules[name](str(lemma).lower())
            totals[name] += 1
            if predicted == str(form).lower():
                hits[name] += 1
            else:
                misses[(name, str(lemma).lower(), str(form).lower(), predicted)] += 1
    by_set = pd.DataFrame(
        {
            "words": [totals[k] for k in rules],
            "reproduced": [hits[k] / totals[k] if totals[k] else float("nan") for k in rules],
        },
        index=pd.Index(list(rules), name="feature set"),
    )
    rows = [(*key, count) for key, count in misses.most_common(top or None)]
    misses_df = pd.DataFrame(rows, columns=["feature set", "lemma", "form", "predicted", "count"])
    return by_set, misses_df


#: The graded tasks: each function of :data:`POINTS` with its check and points.
TASKS: tuple[GradedTask, ...] = graded_tasks(POINTS, check_add_s, check_add_ing, check_add_degree)
