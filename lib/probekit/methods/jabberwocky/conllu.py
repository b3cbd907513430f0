"""Writing the Jabberwocky test set (Hall Maudslay & Cotterell 2021, §3) as CoNLL-U.

The substituted split is the original file edited line by line (:func:`write_jabberwocky`):
only FORM, LEMMA and ``# text`` change, so trees, tags and every comment survive byte for byte.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from probekit.errors import DataNotFoundError, ParameterError
from probekit.io.treebanks import read_conllu
from probekit.methods.jabberwocky.substitution import Substitution


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temp file beside ``path``, fsync, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # open(..., "xb") rather than mkstemp, so that the file gets the umask's usual mode.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.part")
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _misc_no_space(misc: str) -> bool:
    return "SpaceAfter=No" in misc.rstrip("\r").split("|")


def _surfaces(rows: list[list[str]]) -> list[tuple[str, bool]]:
    """(surface, SpaceAfter=No) per token: multiword tokens whole, other words alone."""
    tokens: list[tuple[str, bool]] = []
    covered_to = 0
    for cols in rows:
        wid = cols[0]
        if "." in wid:
            continue
        if "-" in wid:
            covered_to = int(wid.split("-")[1])
        elif int(wid) <= covered_to:
            continue
        tokens.append((cols[1], _misc_no_space(cols[9])))
    return tokens


def _surface_text(rows: list[list[str]]) -> str:
    """``# text`` from token rows, one space after each token unless ``SpaceAfter=No``."""
    return "".join(f if no_space else f + " " for f, no_space in _surfaces(rows)).rstrip(" ")


def _aligned_text(text: str, old: list[str], new: list[str]) -> str | None:
    """``text`` with each old token surface replaced by the new one.

    The original whitespace between tokens is kept (EWT has non-breaking spaces that MISC does
    not record). None when the tokens do not align with the text.
    """
    pieces: list[str] = []
    pos = 0
    for before, after in zip(old, new, strict=True):
        start = pos
        while start < len(text) and text[start].isspace():
            start += 1
        if not text.startswith(before, start):
            return None
        pieces += [text[pos:start], after]
        pos = start + len(before)
    if text[pos:].strip():
        return None
    pieces.append(text[pos:])
    return "".join(pieces)


def _new_text(text_line: str | None, old_rows: list[list[str]], rows: list[list[str]]) -> str:
    if text_line is not None:
        original = re.sub(r"^#\s*text\s*=\s?", "", text_line.rstrip("\r"))
        aligned = _aligned_text(
            original, [f for f, _ in _surfaces(old_rows)], [f for f, _ in _surfaces(rows)]
        )
        if aligned is not None:
            return aligned
    return _surface_text(rows)


def _rewrite_block(lines: list[str], subs: Substitution, seed: int | str) -> list[str]:
    out: list[str] = []
    old_rows: list[list[str]] = []
    rows: list[list[str]] = []
    changed_ids: dict[str, tuple[str, str]] = {
        str(i + 1): form_lemma for i, form_lemma in subs.items()
    }
    for line in lines:
        if line.startswith("#"):
            out.append(line)
            continue
        cols = line.split("\t")
        old_rows.append(list(cols))
        wid = cols[0]
        target = changed_ids.get(wid)
        if target is None and "." in wid:
            # An empty node copying a replaced word (CopyOf=k) gets the same new form.
            copy_of = [m[7:] for m in cols[9].rstrip("\r").split("|") if m.startswith("CopyOf=")]
            target = changed_ids.get(copy_of[0]) if copy_of else None
        if target is not None:
            cols[1], cols[2] = target
            line = "\t".join(cols)
        rows.append(cols)
        out.append(line)
    n_comments = sum(1 for line in out if line.startswith("#"))
    eol = "\r" if lines[0].endswith("\r") else ""
    text_at = next((k for k, line in enumerate(out) if re.match(r"#\s*text\s*=", line)), None)
    if text_at is None:
        out.insert(n_comments, f"# text = {_surface_text(rows)}{eol}")
        text_at = n_comments
    elif subs:
        out[text_at] = f"# text = {_new_text(out[text_at], old_rows, rows)}{eol}"
    out.insert(text_at + 1, f"# jabberwocky_seed = {seed}{eol}")
    return out


def write_jabberwocky(
    source: str | os.PathLike,
    out: str | os.PathLike,
    substitutions: Sequence[Substitution],
    seed: int | str,
) -> Path:
    """Write ``source`` with the substitutions applied, as CoNLL-U, atomically.

    Hall Maudslay & Cotterell 2021, §3 (the Jabberwocky test set). Every original line and
    comment is kept byte for byte, except: FORM and LEMMA of substituted words (and of empty
    nodes that are ``CopyOf`` them), ``# text`` rebuilt from the tokens (multiword surface forms,
    ``SpaceAfter=No``; whitespace between tokens is copied from the original text where the
    tokens align with it) where a word changed, and a ``# jabberwocky_seed = <seed>`` comment
    after ``# text``. Lines are edited in place rather than re-serialised with ``conllu``: that
    round-trips UD English EWT exactly, but drops free comments without " = " and rewrites CRLF
    line ends and comment spacing, and every original line must survive. ``substitutions`` has
    one entry per sentence, in file order.
    """
    src = Path(source)
    sentences_seen = 0
    try:
        lines = src.read_bytes().decode("utf-8").split("\n")
    except FileNotFoundError:
        raise DataNotFoundError(f"{src}: file not found") from None
    except UnicodeDecodeError:
        read_conllu(src)  # raises ConlluError naming the line
        raise
    out_lines: list[str] = []
    block: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            block.append(line)
            continue
        if block:
            if sentences_seen >= len(substitutions):
                raise ParameterError(
                    "substitutions",
                    f"{src} has more sentences than the {len(substitutions)} substitutions given",
                )
            out_lines.extend(_rewrite_block(block, substitutions[sentences_seen], seed))
            sentences_seen += 1
            block = []
        out_lines.append(line)
    out_lines.pop()  # the sentinel
    if sentences_seen != len(substitutions):
        raise ParameterError(
            "substitutions",
            f"{len(substitutions)} given for the {sentences_seen} sentences of {src}",
        )
    target = Path(out)
    atomic_write(target, "\n".join(out_lines).encode("utf-8"))
    return target
