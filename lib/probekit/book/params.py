"""Chapter parameters: read a notebook's ``parameters`` cell, load profiles, validate overrides.

A chapter's parameters cell (``# %% tags=["parameters"]``) holds one line per parameter::

    name: type = default  # help text (one of {a, b, c} to restrict the values)

This is the format papermill's ``--help-notebook`` parses. Supported types: ``int``, ``float``,
``str``, ``bool``, ``list[int]``, ``list[float]``, ``list[str]``, each optionally
``Optional[...]`` (the spelling papermill reads; ``... | None`` is accepted too).
Unknown names, wrong types and values outside ``one of {...}`` raise
:class:`~probekit.errors.ParameterError` naming the parameter, before anything runs. So do the
checks of the chapter's typed configuration (:func:`check_config`), e.g. chapter 12's two seeds
or more.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from probekit.errors import ParameterError, ProbekitError
from probekit.io.project import project_root

_SCALARS = {"int": int, "float": float, "str": str, "bool": bool}
_CHOICES = re.compile(r"one of \{([^}]*)\}")
PROFILES = ("quick", "book", "full")


@dataclass(frozen=True)
class Parameter:
    """One declared parameter of a chapter."""

    name: str
    type: str
    default: Any
    help: str

    @property
    def choices(self) -> list[str] | None:
        """The allowed values, from ``one of {a, b, c}`` in the help text; None if unrestricted."""
        m = _CHOICES.search(self.help)
        return [c.strip() for c in m.group(1).split(",")] if m else None

    def parts(self) -> tuple[str, bool, bool]:
        """(base type, is_list, optional) of the annotation."""
        t = self.type.replace(" ", "")
        # Optional[T] is the spelling papermill's parameter parser reads; T | None is not.
        optional = t.endswith("|None") or (t.startswith("Optional[") and t.endswith("]"))
        t = t[len("Optional[") : -1] if t.startswith("Optional[") else t.removesuffix("|None")
        is_list = t.startswith("list[") and t.endswith("]")
        base = t[5:-1] if is_list else t
        if base not in _SCALARS:
            raise ProbekitError(
                f"parameter '{self.name}' has unsupported type '{self.type}'",
                hint=f"use {', '.join(_SCALARS)}, list[...] or Optional[...]",
            )
        return base, is_list, optional


def _parameters_cell(source: str, path: Path) -> tuple[str, int]:
    lines = source.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.startswith("# %%") and re.search(r"tags\s*=\s*\[[^\]]*['\"]parameters['\"]", line):
            start = i + 1
            break
    if start is None:
        raise ProbekitError(
            f"{path}: no parameters cell", hint='add a cell starting with: # %% tags=["parameters"]'
        )
    end = next((j for j in range(start, len(lines)) if lines[j].startswith("# %%")), len(lines))
    return "\n".join(lines[start:end]), start


def read_parameters(notebook: str | Path) -> dict[str, Parameter]:
    """Declared parameters of a Jupytext percent notebook, in order."""
    path = Path(notebook)
    cell, first_line = _parameters_cell(path.read_text(), path)
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(cell).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    params: dict[str, Parameter] = {}
    for node in ast.parse(cell).body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            raise ProbekitError(
                f"{path}:{first_line + node.lineno}: parameters cell lines must be "
                "'name: type = default  # help'"
            )
        p = Parameter(
            node.target.id,
            ast.unparse(node.annotation),
            ast.literal_eval(node.value) if node.value is not None else None,
            comments.get(node.lineno, ""),
        )
        p.parts()  # rejects unsupported annotations early
        params[p.name] = p
    return params


def coerce(p: Parameter, value: Any) -> Any:
    """Check ``value`` against the parameter's type; strings (from the CLI) are parsed first."""
    base, is_list, optional = p.parts()
    if isinstance(value, str) and not (base == "str" and not is_list):
        text = value.strip()
        if optional and text.lower() in ("none", "null", ""):
            return None
        if is_list:
            parsed = (
                yaml.safe_load(text)
                if text.startswith("[")
                else [x.strip() for x in text.split(",") if x.strip()]
            )
            value = parsed
        else:
            value = yaml.safe_load(text)
    if value is None:
        if optional:
            return None
        raise ParameterError(p.name, "may not be None", hint=f"expected {p.type}")
    if is_list:
        items = value if isinstance(value, list | tuple) else [value]
        out = [_scalar(p, base, x) for x in items]
    else:
        out = _scalar(p, base, value)
    choices = p.choices
    if choices is not None:
        for x in out if is_list else [out]:
            if str(x) not in choices:
                raise ParameterError(p.name, f"{x!r} is not one of {', '.join(choices)}")
    return out


def _scalar(p: Parameter, base: str, x: Any) -> Any:
    if base == "str":
        if isinstance(x, str | int | float) and not isinstance(x, bool):
            return str(x)
    elif base == "bool":
        if isinstance(x, bool):
            return x
        if isinstance(x, str) and x.lower() in ("true", "false"):
            return x.lower() == "true"
    elif base == "int":
        if isinstance(x, int) and not isinstance(x, bool):
            return x
        if isinstance(x, str):
            try:
                return int(x)
            except ValueError:
                pass
    elif base == "float":
        if isinstance(x, int | float) and not isinstance(x, bool):
            return float(x)
        if isinstance(x, str):
            try:
                return float(x)
            except ValueError:
                pass
    raise ParameterError(p.name, f"{x!r} is not of type {p.type}", hint=p.help or None)


def load_profile(profile: str, profiles_dir: Path | None = None) -> dict[str, Any]:
    """A parameter profile: ``{"defaults": {...}, "chapters": {slug: {...}}}``."""
    directory = profiles_dir or (project_root() / "params")
    path = directory / f"{profile}.yml"
    if not path.is_file():
        raise ParameterError(
            "profile",
            f"no profile '{profile}' ({path} does not exist)",
            hint=f"use one of {', '.join(PROFILES)}",
        )
    data = yaml.safe_load(path.read_text()) or {}
    return {"defaults": data.get("defaults") or {}, "chapters": data.get("chapters") or {}}


def effective_parameters(
    notebook: str | Path,
    profile: str | None,
    overrides: dict[str, Any] | None = None,
    profiles_dir: Path | None = None,
) -> dict[str, Any]:
    """Every declared parameter of a chapter, checked.

    Defaults, then the profile (its defaults for declared names, then its chapter section), then
    command-line overrides; everything checked. Returns every declared parameter.
    """
    declared = read_parameters(notebook)
    values = {name: p.default for name, p in declared.items()}
    slug = Path(notebook).stem
    if profile is not None:
        prof = load_profile(profile, profiles_dir)
        for name, value in prof["defaults"].items():
            if name in declared:
                values[name] = coerce(declared[name], value)
        for name, value in (prof["chapters"].get(slug) or {}).items():
            if name not in declared:
                raise ParameterError(
                    name,
                    f"profile '{profile}' sets it but {slug} does not declare it",
                    hint=f"declared: {', '.join(declared)}",
                )
            values[name] = coerce(declared[name], value)
    for name, value in (overrides or {}).items():
        if name not in declared:
            raise ParameterError(
                name, f"unknown parameter of {slug}", hint=f"declared: {', '.join(declared)}"
            )
        values[name] = coerce(declared[name], value)
    return values


def parse_overrides(pairs: list[str]) -> dict[str, str]:
    """``["key=value", ...]`` from the command line into a dict of raw strings."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ParameterError(pair, "expected key=value", hint="e.g. -p layers=0,3,6")
        key, value = pair.split("=", 1)
        out[key.strip()] = value
    return out


def config_class(notebook: str | Path) -> type | None:
    """The typed configuration a chapter builds with ``X.from_parameters(globals())``, or None.

    Found in the notebook's source: the name ``X`` and the ``from module import X`` binding it.
    """
    tree = ast.parse(Path(notebook).read_text())
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "from_parameters"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in imported
        ):
            module, name = imported[node.func.value.id]
            cls = getattr(importlib.import_module(module), name, None)
            return cls if dataclasses.is_dataclass(cls) else None
    return None


def check_config(notebook: str | Path, values: dict[str, Any]) -> None:
    """Build the chapter's typed configuration from ``values``, if it has one.

    So the configuration's own checks (beyond the declared types) raise
    :class:`~probekit.errors.ParameterError` before a kernel starts. Only a ``device``'s
    spelling is checked: the chapter may run on a Dask worker with a GPU this process lacks, and
    its configuration checks there that the device exists.
    """
    cls = config_class(notebook)
    if cls is not None:
        cls.from_parameters(values, check_device=False)
