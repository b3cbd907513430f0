"""Devices: the one place that turns a ``device`` parameter into a :class:`torch.device`.

Every chapter takes ``device`` (``auto``, ``cpu``, ``cuda`` or ``cuda:N``); every probe trainer
and the encoder take the resolved device. ``auto`` is the GPU when PyTorch sees one, else the
CPU. ``meta`` (tensors with shapes but no data) is accepted by :func:`resolve_device` for the
tests, which use it to catch a tensor created on the CPU inside a training loop; chapters do not
accept it (:func:`check_device_parameter`).

Random draws (initial weights, dropout masks, batch orders) stay on seeded CPU generators on
every device and are copied to the device, so a probe starts from the same weights and sees the
same batches and masks wherever it trains; only floating-point rounding differs between devices.
"""

from __future__ import annotations

import re

import torch

from probekit.errors import ParameterError

_SPEC = re.compile(r"^(auto|cpu|meta|cuda)(?::(\d+))?$")
_HINT = "one of auto, cpu, cuda, cuda:N (auto: the GPU when there is one, else the CPU)"


def _parse(spec: str, name: str) -> tuple[str, int | None]:
    m = _SPEC.match(spec.strip().lower()) if isinstance(spec, str) else None
    if m is None or (m.group(2) is not None and m.group(1) != "cuda"):
        raise ParameterError(name, f"{spec!r} is not a device", _HINT)
    return m.group(1), None if m.group(2) is None else int(m.group(2))


def check_device_spec(spec: str, name: str = "device") -> str:
    """``spec`` normalised (stripped, lower case) if it is a device's spelling.

    The device is not looked for (a Dask worker may have the GPU that this process lacks).
    Raises :class:`ParameterError` naming ``name`` for anything but ``auto``, ``cpu``, ``cuda``,
    ``cuda:N`` (and ``meta``, which :func:`check_device_parameter` rejects for chapters).
    """
    kind, index = _parse(spec, name)
    return kind if index is None else f"{kind}:{index}"


def resolve_device(spec: str | torch.device, name: str = "device") -> torch.device:
    """The :class:`torch.device` of ``spec``: ``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``meta``.

    ``auto`` is ``cuda`` when ``torch.cuda.is_available()``, else ``cpu``. An already resolved
    :class:`torch.device` is checked the same way and returned. Raises
    :class:`ParameterError` naming ``name`` for an unknown spelling, and for a CUDA device this
    machine does not have (no GPU visible to PyTorch, or an index beyond the GPU count).
    """
    if isinstance(spec, torch.device):
        kind, index = spec.type, spec.index
        if kind not in ("cpu", "cuda", "meta"):
            raise ParameterError(name, f"{spec} is not a supported device", _HINT)
    else:
        kind, index = _parse(spec, name)
    if kind == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise ParameterError(
                name,
                f"{spec!r} asks for a GPU, but PyTorch sees none (torch.cuda.is_available() is "
                f"False; this torch is {torch.__version__})",
                "use device=auto or device=cpu, or install a CUDA build of PyTorch on a GPU machine",
            )
        count = torch.cuda.device_count()
        if index is not None and index >= count:
            raise ParameterError(
                name, f"{spec!r}: this machine has {count} GPU(s), cuda:0 to cuda:{count - 1}"
            )
        return torch.device("cuda", index)
    return torch.device(kind)


def check_device_parameter(spec: str, name: str = "device", available: bool = True) -> str:
    """Check a chapter's ``device`` parameter before anything runs; returns it normalised.

    ``meta`` is rejected (it is for the tests). With ``available`` the device must exist here
    (:func:`resolve_device`); without, only its spelling is checked, for a parameter checked in
    one process and used in another (a sweep checking cells that Dask workers will run).
    """
    normal = check_device_spec(spec, name)
    if normal == "meta":
        raise ParameterError(name, "'meta' is for the tests only", _HINT)
    if available:
        resolve_device(normal, name)
    return normal


def module_device(module: torch.nn.Module) -> torch.device:
    """The device of a module's first parameter (every probe keeps all of its on one)."""
    return next(module.parameters()).device
