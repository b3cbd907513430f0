"""No verdict is typed into a chapter's prose: every conclusion comes from glued, computed values.

The chapters' markdown is searched for the verdict vocabulary outside glue roles. The claims
ledger's page (chapter 61) defines the vocabulary and is left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((REPO / "notebooks").glob("[0-5][0-9]_*.py"))
VERDICT_WORDS = re.compile(
    r"\b(reproduced|inconclusive|underpowered|holds|does not hold|sufficient|insufficient|"
    r"unstable|certainly|confirm(?:s|ed)?|refute[sd]?)\b",
    flags=re.IGNORECASE,
)
GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
# Code spans and cross-references are names, not prose.
CODE = re.compile(r"``?[^`]*``?|\{(?:ref|numref|doc|cite|cite:t|cite:p)\}`[^`]*`")


def _prose(notebook: Path) -> list[tuple[int, str]]:
    nb = jupytext.read(notebook)
    lines = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            text = CODE.sub("", GLUE.sub("", line))
            lines.append((index, text))
    return lines


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_no_verdict_word_is_typed_into_a_chapters_prose(notebook):
    found = [
        f"cell {index}: {m.group(0)!r} in {text.strip()[:90]!r}"
        for index, text in _prose(notebook)
        for m in VERDICT_WORDS.finditer(text)
    ]
    assert not found, "\n".join(found)


def test_the_search_finds_a_typed_verdict(tmp_path):
    """The check itself can fail: a typed verdict is found, a glued one is not."""
    nb = tmp_path / "99_x.py"
    nb.write_text("# %% [markdown]\n# The claim holds.\n# It is {glue:text}`ch99_x_verdict`.\n")
    assert [t for _, t in _prose(nb) if VERDICT_WORDS.search(t)] == ["The claim holds."]
