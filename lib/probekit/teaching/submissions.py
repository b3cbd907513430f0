"""Collecting a class's submissions, and every student's seed.

**Submissions.** A directory of submissions holds student copies, ``.py`` (Jupytext percent,
as ``--student`` writes them) or ``.ipynb``, one per student and assignment, named as the
hand-out names them (``A4_extrapolation_split.py``). The student id comes from

- the folder, for ``SUBMISSIONS/<student>/A4_extrapolation_split.ipynb``, or
- the prefix before a double underscore, for ``SUBMISSIONS/<student>__A4_extrapolation_split.py``.

Ids are letters, digits and ``. _ @ + -``. Other files are skipped and listed
(:func:`find_submissions`).

**Seeds.** Every student gets their own seed, :func:`student_seed` of a course seed and the
student id, so the cases of their checks differ from a neighbour's and answers cannot be copied
from another student's output. A grading run records the seeds in ``seeds.csv``; a re-grade
given that file (:func:`read_seeds`) draws the same cases and reproduces the grades.
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from probekit.errors import ProbekitError
from probekit.teaching.catalogue import ASSIGNMENT_TASKS

_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")
_SUFFIXES = (".py", ".ipynb")
_IGNORED = re.compile(r"^(\.|__pycache__$|\.ipynb_checkpoints$)")


@dataclass(frozen=True)
class Submission:
    """One student's copy of one assignment.

    Attributes:
        student: the student id (the folder name, or the prefix before ``__``).
        assignment: the assignment's name, ``A<k>_<slug>``.
        path: the file.
    """

    student: str
    assignment: str
    path: Path


def _assignment_of(stem: str) -> str | None:
    return stem if stem in ASSIGNMENT_TASKS else None


def _check_student(student: str, path: Path) -> str:
    if not _STUDENT_ID.match(student):
        raise ProbekitError(
            f"{path}: '{student}' is not a usable student id",
            hint="use letters, digits and . _ @ + - (the id names the student's feedback file)",
        )
    return student


def find_submissions(root: str | Path) -> tuple[list[Submission], list[Path]]:
    """The submissions in a directory, and the files that are none.

    A submission is ``<root>/<student>/<assignment>.py|.ipynb`` or
    ``<root>/<student>__<assignment>.py|.ipynb``, where ``<assignment>`` is a hand-out's name
    (``A1_tree_metrics`` ...). Hidden files, ``__pycache__`` and ``.ipynb_checkpoints`` are
    ignored; any other file is returned as skipped.

    Returns:
        ``(submissions, skipped)``, both sorted.

    Raises:
        ProbekitError: when ``root`` is no directory, an id is not usable, a student has two
            files for one assignment, or there is no submission at all.
    """
    root = Path(root)
    if not root.is_dir():
        raise ProbekitError(f"{root}: no such directory of submissions", hint="check --grade")
    found: dict[tuple[str, str], Path] = {}
    skipped: list[Path] = []

    def add(student: str, assignment: str, path: Path) -> None:
        key = (_check_student(student, path), assignment)
        if key in found:
            raise ProbekitError(
                f"two submissions of {assignment} by '{student}': {found[key]} and {path}",
                hint="keep one of them in the submissions directory",
            )
        found[key] = path

    for entry in sorted(root.iterdir()):
        if _IGNORED.match(entry.name):
            continue
        if entry.is_dir():
            for path in sorted(entry.iterdir()):
                if _IGNORED.match(path.name):
                    continue
                assignment = _assignment_of(path.stem) if path.suffix in _SUFFIXES else None
                if assignment is None or not path.is_file():
                    skipped.append(path)
                else:
                    add(entry.name, assignment, path)
            continue
        student, sep, stem = entry.stem.partition("__")
        assignment = _assignment_of(stem) if sep and entry.suffix in _SUFFIXES else None
        if assignment is None:
            skipped.append(entry)
        else:
            add(student, assignment, entry)
    if not found:
        raise ProbekitError(
            f"no submissions in {root}",
            hint="name them <student>/A1_tree_metrics.py (or .ipynb) or "
            "<student>__A1_tree_metrics.py, as the hand-out names the assignment",
        )
    submissions = [Submission(s, a, p) for (s, a), p in sorted(found.items())]
    return submissions, skipped


def student_seed(course_seed: int, student: str) -> int:
    """A student's seed: the first 31 bits of SHA-256 of the course seed and the student id.

    Different for every student, the same for every run with the same course seed, and not
    guessable from a neighbour's seed.
    """
    digest = hashlib.sha256(f"probekit-grading\0{course_seed}\0{student}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def read_seeds(path: str | Path) -> dict[str, int]:
    """The recorded seeds of an earlier run (its ``seeds.csv``: columns ``student, seed``).

    Raises:
        ProbekitError: for a missing file, missing columns or a seed that is no
            non-negative integer, naming the file and line.
    """
    path = Path(path)
    if not path.is_file():
        raise ProbekitError(f"{path}: no such seeds file", hint="pass the seeds.csv of a run")
    seeds: dict[str, int] = {}
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or not {"student", "seed"} <= set(reader.fieldnames):
            raise ProbekitError(f"{path}: needs the columns 'student' and 'seed'")
        for line, row in enumerate(reader, start=2):
            text = (row["seed"] or "").strip()
            if not text.isdigit():
                raise ProbekitError(f"{path}:{line}: seed '{text}' is not a non-negative integer")
            seeds[row["student"]] = int(text)
    return seeds
