"""Collecting a class's submissions, and every student's seed.

**Submissions.** A directory of submissions holds student copies, ``.py`` (Jupytext percent,
as ``--student`` writes them) or ``.ipynb``, one per student and assignment, named as the
hand-out names them (``A4_extrapolation_split.py``). The student id comes from

- the folder, for ``SUBMISSIONS/<student>/A4_extrapolation_split.ipynb``, or
- the prefix before a double underscore, for ``SUBMISSIONS/<student>__A4_extrapolation_split.py``.

Ids are letters, digits and ``. _ @ + -``. :func:`find_submissions` returns the submissions and
a :class:`FileProblem` for every notebook it does not grade, each with its reason: a name that
is no assignment's (with a "did you mean" for the usual slips: a Canvas download name
``smithjane_12345_67890_A4_extrapolation_split.py``, a browser's ``(1)`` copy, Canvas's ``-1``
resubmission, a single underscore, a typo), a bad student id, two files of one student for one
assignment. Each problem skips only that file (a duplicate: both files); everyone else is graded.
Files other than notebooks are listed as skipped.

**Seeds.** Every student gets their own seed, :func:`student_seed` of a course seed and the
student id, so the cases of their checks differ from a neighbour's and answers cannot be copied
from another student's output. A grading run records the seeds in ``seeds.csv``; a re-grade
given that file (:func:`read_seeds`) draws the same cases and reproduces the grades.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jupytext
import nbformat

from probekit.errors import ProbekitError
from probekit.teaching.catalogue import ASSIGNMENT_TASKS

_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")
_SUFFIXES = (".py", ".ipynb")
_IGNORED = re.compile(r"^(\.|__pycache__$|\.ipynb_checkpoints$)")
# A browser's second download "name (1)", and Canvas's resubmission "name-1".
_COPY = re.compile(r"(\s*\(\d+\)|-\d+)$")
# Canvas: lastfirst[_LATE]_userid_submissionid_originalname
_CANVAS = re.compile(r"^(?P<student>[^_]+)(?:_late)?_\d+_\d+_(?P<rest>.+)$", re.IGNORECASE)
_ASSIGNMENT_AT_END = re.compile(r"^(?P<student>.+?)_(?P<rest>A\d+_.+)$")


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


@dataclass(frozen=True)
class FileProblem:
    """A notebook of the submissions directory that is not graded, and why.

    Attributes:
        path: the file.
        student: the student it seems to belong to ("" when no guess).
        assignment: the assignment it seems to be ("" when no guess).
        status: ``unmatched`` (its name is no submission's) or ``rejected`` (a bad student id,
            or one of two files for one assignment).
        reason: what is wrong, in a sentence.
        suggestion: the name it probably should have ("did you mean"), or "".
    """

    path: Path
    student: str
    assignment: str
    status: str
    reason: str
    suggestion: str = ""


def usable_id(student: str) -> bool:
    """Whether ``student`` is a usable student id (it names the student's feedback file)."""
    return bool(_STUDENT_ID.match(student))


def _assignment(text: str) -> str | None:
    """The assignment a file stem names, allowing a ``(1)`` or ``-1`` copy suffix."""
    if text in ASSIGNMENT_TASKS:
        return text
    stripped = _COPY.sub("", text)
    return stripped if stripped in ASSIGNMENT_TASKS else None


def _closest(text: str) -> str | None:
    close = difflib.get_close_matches(_COPY.sub("", text), list(ASSIGNMENT_TASKS), n=1, cutoff=0.7)
    return close[0] if close else None


def _misnamed(path: Path, student: str | None, root: Path) -> FileProblem:
    """The problem of a notebook whose name is no submission's, with a likely right name."""
    stem, suffix = path.stem, path.suffix
    guess_student, guess, why = student or "", None, "its name is no assignment's"
    if student is not None:  # <student>/<name>
        guess = _assignment(stem) or _closest(stem)
        if _assignment(stem) is not None:
            why = "a copy's name (a browser's '(1)' or Canvas's '-1')"
    elif "__" in stem:  # <student>__<name>: a copy's suffix or a typo
        guess_student, _, rest = stem.partition("__")
        guess = _assignment(rest) or _closest(rest)
        if _assignment(rest) is not None:
            why = "a copy's name (a browser's '(1)' or Canvas's '-1')"
    else:
        for pattern, what in (
            (_CANVAS, "a Canvas download name"),
            (_ASSIGNMENT_AT_END, "a single underscore between student and assignment"),
        ):
            match = pattern.match(stem)
            if match and (_assignment(match["rest"]) or _closest(match["rest"])):
                guess_student = match["student"]
                guess = _assignment(match["rest"]) or _closest(match["rest"])
                why = what
                break
    suggestion = ""
    if guess is not None:
        if student is not None:
            suggestion = f"{student}/{guess}{suffix}"
        elif guess_student:
            suggestion = f"{guess_student}__{guess}{suffix}"
    return FileProblem(
        path,
        guess_student,
        guess or "",
        "unmatched",
        f"not graded: {why}; submissions are named <student>/A<k>_<slug>{suffix} or "
        f"<student>__A<k>_<slug>{suffix}",
        suggestion,
    )


def find_submissions(root: str | Path) -> tuple[list[Submission], list[FileProblem], list[Path]]:
    """The submissions in a directory, the notebooks that are not graded, and other files.

    A submission is ``<root>/<student>/<assignment>.py|.ipynb`` or
    ``<root>/<student>__<assignment>.py|.ipynb``, where ``<assignment>`` is a hand-out's name
    (``A1_tree_metrics`` ...). Hidden files, ``__pycache__`` and ``.ipynb_checkpoints`` are
    ignored. Every problem is listed; none stops the others from being graded.

    Returns:
        ``(submissions, problems, skipped)``: the submissions, sorted; a :class:`FileProblem`
        per notebook not graded; the paths of files that are no notebook.

    Raises:
        ProbekitError: when ``root`` is no directory or holds no file at all.
    """
    root = Path(root)
    if not root.is_dir():
        raise ProbekitError(f"{root}: no such directory of submissions", hint="check --grade")
    found: dict[tuple[str, str], list[Path]] = {}
    problems: list[FileProblem] = []
    skipped: list[Path] = []

    def consider(path: Path, student: str | None, stem: str) -> None:
        if path.suffix not in _SUFFIXES or not path.is_file():
            skipped.append(path)
            return
        if student is None:
            who, sep, rest = stem.partition("__")
            assignment = rest if sep and rest in ASSIGNMENT_TASKS else None
        else:
            who, assignment = student, stem if stem in ASSIGNMENT_TASKS else None
        if assignment is None:
            problems.append(_misnamed(path, student, root))
        elif not usable_id(who):
            problems.append(
                FileProblem(
                    path,
                    who,
                    assignment,
                    "rejected",
                    f"'{who}' is not a usable student id: use letters, digits and . _ @ + - "
                    "(the id names the student's feedback file)",
                )
            )
        else:
            found.setdefault((who, assignment), []).append(path)

    for entry in sorted(root.iterdir()):
        if _IGNORED.match(entry.name):
            continue
        if entry.is_dir():
            for path in sorted(entry.iterdir()):
                if not _IGNORED.match(path.name):
                    consider(path, entry.name, path.stem)
        else:
            consider(entry, None, entry.stem)
    if not found and not problems and not skipped:
        raise ProbekitError(
            f"no submissions in {root}",
            hint="name them <student>/A1_tree_metrics.py (or .ipynb) or "
            "<student>__A1_tree_metrics.py, as the hand-out names the assignment",
        )
    submissions = []
    for (student, assignment), paths in sorted(found.items()):
        if len(paths) == 1:
            submissions.append(Submission(student, assignment, paths[0]))
            continue
        names = " and ".join(str(p.relative_to(root)) for p in paths)
        for path in paths:
            problems.append(
                FileProblem(
                    path,
                    student,
                    assignment,
                    "rejected",
                    f"two submissions of {assignment} by '{student}' ({names}); neither is "
                    "graded: keep one of them in the submissions directory",
                )
            )
    problems.sort(key=lambda p: str(p.path))
    return submissions, problems, sorted(skipped)


def read_notebook(path: str | Path) -> Any:
    """A notebook file as an nbformat notebook: a Jupytext percent ``.py`` or an ``.ipynb``.

    Raises:
        ValueError: for a file that is not UTF-8 text, not JSON or not a notebook, with the
            reason (the grader reports it as a malformed submission).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if path.suffix == ".ipynb":
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from None
        try:
            return nbformat.reads(text, as_version=4)
        except Exception as exc:  # nbformat raises several types for a wrong structure
            raise ValueError(f"not a Jupyter notebook: {type(exc).__name__}: {exc}") from None
    return jupytext.reads(text, fmt="py:percent")


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
