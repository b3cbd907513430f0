"""Every paper chapter builds one typed config from its parameters, and the config matches the
parameters cell: each field is a declared parameter of the same type, and the chapter's defaults
build it. Every paper chapter follows one skeleton (Setup first, Verdicts last)."""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path

import pytest

from probekit.book import params

REPO = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (REPO / "notebooks").glob("[1-5][0-9]_*.py"))
ALL = [REPO / "notebooks" / "01_data_and_representations.py", *CHAPTERS]


def _spelling(tp: object) -> str:
    """A type as the parameters cell spells it: int, list[int], Optional[int], ..."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return f"Optional[{_spelling(inner)}]"
    if origin is list:
        return f"list[{_spelling(args[0])}]"
    return tp.__name__


def _declared_spelling(p: params.Parameter) -> str:
    base, is_list, optional = p.parts()
    text = f"list[{base}]" if is_list else base
    return f"Optional[{text}]" if optional else text


@pytest.mark.parametrize("notebook", ALL, ids=lambda p: p.stem)
def test_config_fields_are_declared_parameters_of_the_same_type(notebook):
    cls = params.config_class(notebook)
    assert cls is not None, f"{notebook.stem}: expected one Config.from_parameters(globals())"
    declared = params.read_parameters(notebook)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        assert field.name in declared, f"{cls.__name__}.{field.name} is not a parameter"
        assert _spelling(hints[field.name]) == _declared_spelling(declared[field.name]), field
    # The chapter's defaults, and every shipped profile, build a valid config.
    for profile in (None, *params.PROFILES):
        values = params.effective_parameters(notebook, profile)
        cls.from_parameters(values)


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_paper_chapters_share_one_skeleton(notebook):
    headings = re.findall(r"^# (##?) (.+)$", notebook.read_text(), flags=re.MULTILINE)
    sections = [title.strip() for level, title in headings if level == "##"]
    assert sections, notebook.stem
    assert sections[0] == "Setup", f"{notebook.stem}: first section is {sections[0]!r}"
    assert sections[-1] == "Verdicts", f"{notebook.stem}: last section is {sections[-1]!r}"
