"""Typed chapter configurations, built from the chapters' parameters.

One frozen dataclass per chapter (or per set-up that chapters share), built from the chapter's
parameters. A chapter's ``parameters`` cell declares its parameters (``name: type = default  #
help``); papermill injects the values of a run into the notebook's namespace. The chapter then
builds its configuration once::

    config = ProbeParserConfig.from_parameters(globals())

and passes it to the part's entry points. The dataclass names exactly the parameters the part
reads, with their types; a parameter the chapter does not declare, or a value of the wrong type,
is a :class:`~probekit.errors.ParameterError` naming it, before anything runs.

Every chapter also declares ``device`` (``auto``, ``cpu``, ``cuda``, ``cuda:N``; see
:mod:`probekit.devices`), carried by :class:`ChapterConfig` itself to the trainers; a device
that is misspelt or absent from this machine fails here too.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Self

from probekit.devices import check_device_parameter
from probekit.errors import ParameterError


def _matches(value: Any, tp: Any) -> bool:
    """Whether ``value`` is of the parameter type ``tp``.

    The types are int, float, str, bool, list[...] and their optional forms; an int is a float,
    a bool is neither.
    """
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in typing.get_args(tp))
    if tp is type(None):
        return value is None
    if origin in (list, tuple):
        (item,) = typing.get_args(tp)[:1] or (Any,)
        return isinstance(value, list | tuple) and all(_matches(v, item) for v in value)
    if tp is Any:
        return True
    if tp is bool:
        return isinstance(value, bool)
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


@dataclasses.dataclass(frozen=True)
class ChapterConfig:
    """Base class of the chapters' configurations (see the module docstring).

    ``device``: where the chapter's probes train and its encoder runs (``auto``: the GPU when
    PyTorch sees one). Keyword-only, after every chapter's own fields; it defaults to ``auto``.
    """

    device: str = dataclasses.field(default="auto", kw_only=True)

    @classmethod
    def from_parameters(cls, namespace: Mapping[str, Any], check_device: bool = True) -> Self:
        """The configuration whose fields are read from ``namespace``.

        ``namespace`` is a chapter's ``globals()``: every field must be present and of its
        declared type, except ``device``, which is ``auto`` where absent (every chapter declares
        it; a namespace built by hand may leave it out). ``device`` must be a device's spelling
        and, with ``check_device``, one this machine has
        (:func:`~probekit.devices.check_device_parameter`); a sweep checking cells for other
        machines (Dask workers) passes False.
        """
        hints = typing.get_type_hints(cls)
        values = {}
        for field in dataclasses.fields(cls):
            if field.name == "device" and "device" not in namespace:
                continue  # every chapter declares it (the tests check); others get "auto"
            if field.name not in namespace:
                raise ParameterError(
                    field.name,
                    f"is not set, but {cls.__name__} reads it",
                    "declare it in the chapter's parameters cell",
                )
            value = namespace[field.name]
            if not _matches(value, hints[field.name]):
                raise ParameterError(
                    field.name, f"{value!r} is not of type {hints[field.name]}", None
                )
            values[field.name] = list(value) if isinstance(value, tuple) else value
        device = values.get("device", "auto")
        values["device"] = check_device_parameter(device, available=check_device)
        return cls(**values)


def has_setup(config: Any, setup: Mapping[str, Any]) -> bool:
    """Whether ``config`` (a chapter's configuration) has every value of ``setup``.

    A measurement recorded outside the book (a ceiling, say) holds for the
    set-up it was made with, and a chapter shows it only when its own configuration matches.
    """
    return all(getattr(config, k, None) == v for k, v in setup.items())


# Trained probes compared with an interval over sentences and seeds need this many seeds: with
# one, the variation between training runs is invisible and the interval too narrow (Reimers &
# Gurevych 2017).
MIN_SEEDS = 2


def require_seeds(seeds: Sequence[int], claims: str) -> None:
    """Check that ``seeds`` holds at least :data:`MIN_SEEDS` distinct training seeds.

    ``claims`` names the claims that compare trained probes, for the message. Raises
    :class:`~probekit.errors.ParameterError` naming the parameter ``seeds``.
    """
    if len(set(seeds)) < MIN_SEEDS:
        raise ParameterError(
            "seeds",
            f"needs at least {MIN_SEEDS} distinct seeds, got {list(seeds)}: {claims} compare "
            "trained probes, and with one seed the variation between training runs is "
            "invisible to their intervals",
            "e.g. [1, 2, 3]",
        )
