"""The exception types users see.

Every error raised for bad *input* (a malformed file, an unknown treebank or model, a bad
parameter) derives from :class:`ProbekitError`. The CLI prints such errors as one line with a
hint and exits with status 2, without an internal traceback.
"""

from __future__ import annotations

from pathlib import Path


class ProbekitError(Exception):
    """Base class of every user-facing error. ``hint`` says what to do about it."""

    def __init__(self, message: str, hint: str | None = None):
        """Store the message and the optional ``hint``."""
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        """The message, followed by an indented ``hint:`` line when there is a hint."""
        msg = super().__str__()
        return f"{msg}\n  hint: {self.hint}" if self.hint else msg


class ConlluError(ProbekitError):
    """A malformed CoNLL-U file. The message starts with ``file:line:``."""

    def __init__(self, path: str | Path, line: int, what: str, hint: str | None = None):
        """Build the message ``path:line: what`` and keep its parts as attributes."""
        self.path = Path(path)
        self.line = line
        self.what = what
        super().__init__(f"{self.path}:{line}: {what}", hint)


class DataNotFoundError(ProbekitError):
    """A treebank name or directory that cannot be resolved, or a missing split file."""


class ModelError(ProbekitError):
    """A model name or path that cannot be loaded."""


class ParameterError(ProbekitError):
    """An unknown parameter name, a wrong type or an invalid value."""

    def __init__(self, name: str, what: str, hint: str | None = None):
        """Build the message ``parameter 'name': what`` and keep ``name`` as an attribute."""
        self.name = name
        super().__init__(f"parameter '{name}': {what}", hint)


class CacheError(ProbekitError):
    """A cache entry that failed its checksum and could not be rebuilt."""
