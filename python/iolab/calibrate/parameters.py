"""The parameters a calibration may fit: numeric fields of the scenario, named by their
path (``volumes.disk.device.read_latency``, ``volumes.data.disks[0].latency``,
``clients.limits.uncached_iops``).

Latencies and the per-IO CPU cost are uncertain and fitted by default; published limits
(caps) are held unless named with ``--fit``.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace
from pydantic import BaseModel

from ..errors import InputError, nearest
from ..scenario import ClientLimits, DeviceVolume, DiskVolume, Scenario, ShareVolume
from ..units import format_duration, format_ops, format_rate

__all__ = ["Parameter", "candidates", "select", "set_value", "get_value", "split_path", "display", "informed_by"]

#: the unit of each field a calibration can fit, and its bounds in base units.
UNITS = {
    "read_latency": "duration", "write_latency": "duration", "latency": "duration", "cpu_per_io": "cpu",
    "iops": "ops", "uncached_iops": "ops", "cached_iops": "ops",
    "bandwidth": "rate", "uncached_bandwidth": "rate", "cached_bandwidth": "rate", "network_bandwidth": "rate",
    "throughput": "rate",
}
BOUNDS = {"duration": (1e-7, 10.0), "cpu": (1e-8, 0.1), "ops": (1.0, 1e9), "rate": (1e3, 1e12)}


@dataclass(frozen=True)
class Parameter:
    """One scenario field: its path, start value (base units), bounds, whether it is
    fitted by default, and its unit (``duration``, ``cpu``, ``ops``, ``rate``)."""

    path: str
    start: float
    unit: str
    free: bool
    given: bool           # the scenario (or its catalog) sets it; else the start is a guess

    @property
    def bounds(self) -> tuple[float, float]:
        return BOUNDS[self.unit]

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]


def display(unit: str, value: float) -> str:
    """A value in a person's units."""
    if unit in ("duration", "cpu"):
        return format_duration(value)
    if unit == "ops":
        return format_ops(value)
    return format_rate(value)


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def split_path(path: str) -> list[str | int]:
    """``volumes.d.disks[0].latency`` → ``["volumes", "d", "disks", 0, "latency"]``."""
    return [int(i) if i else name for name, i in _PART.findall(path)]


def _model_of(model: BaseModel, name: str) -> type[BaseModel]:
    annotation = type(model).model_fields[name].annotation
    for arg in (annotation, *typing.get_args(annotation)):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    raise KeyError(name)


def _set(model: Any, parts: list[str | int], value: float) -> Any:
    head = parts[0]
    if len(parts) == 1:
        return model.model_copy(update={head: value})
    child = getattr(model, str(head))
    if isinstance(parts[1], int):
        items = list(child)
        items[parts[1]] = _set(items[parts[1]], parts[2:], value)
        return model.model_copy(update={head: items})
    if child is None:
        child = _model_of(model, str(head))()
    return model.model_copy(update={head: _set(child, parts[1:], value)})


def set_value(s: Scenario, path: str, value: float) -> Scenario:
    """The scenario with the field at `path` set to `value` (base units; not re-validated)."""
    parts = split_path(path)
    if parts[0] == "clients":
        return replace(s, clients=_set(s.clients, parts[1:], value))
    volumes = dict(s.volumes)
    volumes[str(parts[1])] = _set(volumes[str(parts[1])], parts[2:], value)
    return replace(s, volumes=volumes)


def get_value(s: Scenario, path: str) -> float | None:
    """The field at `path`, None when unset."""
    parts = split_path(path)
    node: Any = s.clients if parts[0] == "clients" else s.volumes.get(str(parts[1]))
    for part in parts[1:] if parts[0] == "clients" else parts[2:]:
        if node is None:
            return None
        node = node[part] if isinstance(part, int) else getattr(node, part, None)
    return None if node is None else float(node)


def _param(s: Scenario, path: str, default: float | None, free: bool) -> Parameter | None:
    value = get_value(s, path)
    given = value is not None
    if value is None:
        value = default
    if value is None:
        return None
    unit = UNITS[path.rsplit(".", 1)[-1]]
    lo, hi = BOUNDS[unit]
    return Parameter(path, min(max(value, lo), hi), unit, free, given)


def candidates(s: Scenario, *, peak_iops: float, peak_bandwidth: float, directions: set[str]) -> list[Parameter]:
    """Every parameter of the scenario a calibration could fit, with its start value.

    A field the scenario leaves unset starts from the catalog's value when there is one,
    else from a guess that puts it within reach of the data (a cap at 1.5× the highest
    measured figure; a CPU cost that would cap IOPS there).
    """
    from ..compile.device import client_cpus

    cat = s.catalog
    out: list[Parameter | None] = []
    ops_guess, rate_guess = 1.5 * peak_iops, 1.5 * peak_bandwidth
    for name, vol in s.volumes.items():
        root = f"volumes.{name}"
        if isinstance(vol, DeviceVolume):
            d = vol.device
            if "read" in directions:
                out.append(_param(s, f"{root}.device.read_latency", None, True))
            if "write" in directions:
                out.append(_param(s, f"{root}.device.write_latency", d.read_latency, True))
            out.append(_param(s, f"{root}.device.cpu_per_io", client_cpus(s) / ops_guess, True))
            out.append(_param(s, f"{root}.device.iops", ops_guess, False))
            out.append(_param(s, f"{root}.device.bandwidth", rate_guess, False))
        elif isinstance(vol, DiskVolume):
            for i, g in enumerate(vol.disks):
                sku = cat.disk(g.sku)
                base = f"{root}.disks[{i}]"
                out.append(_param(s, f"{base}.latency", getattr(sku, "read_latency", None), True))
                out.append(_param(s, f"{base}.iops", getattr(sku, "iops", None) or ops_guess, False))
                out.append(_param(s, f"{base}.bandwidth", getattr(sku, "bandwidth", None) or rate_guess, False))
        elif isinstance(vol, ShareVolume):
            level = cat.service(vol.service, vol.level)
            out.append(_param(s, f"{root}.latency", getattr(level, "latency", None), True))
            out.append(_param(s, f"{root}.throughput", rate_guess, False))
            out.append(_param(s, f"{root}.connection.bandwidth", rate_guess, False))
    vm = cat.vm(s.clients.vm) if s.clients.vm else None
    for field in ClientLimits.model_fields:
        if field in UNITS:
            out.append(_param(s, f"clients.limits.{field}", getattr(vm, field, None) if vm else None, False))
    return [p for p in out if p is not None]


def _find(cands: Sequence[Parameter], name: str, option: str) -> Parameter:
    hits = [p for p in cands if p.path == name] or [p for p in cands if p.path.endswith(f".{name}")]
    if len(hits) == 1:
        return hits[0]
    known = [p.path for p in cands]
    if not hits:
        hint = nearest(name, known + [p.name for p in cands], n=1)
        more = f"; did you mean {hint[0]!r}?" if hint else ""
        raise InputError(f"the scenario has no parameter {name!r} to fit{more} (parameters: "
                         f"{', '.join(known)})", field=option)
    raise InputError(f"{name!r} is ambiguous: give its path ({', '.join(p.path for p in hits)})", field=option)


def select(cands: Sequence[Parameter], fit: Sequence[str], hold: Sequence[str] = ()) -> list[Parameter]:
    """The parameters fitted by default, plus those named in `fit`, minus those named in
    `hold` (a full path, or its end — ``iops``, ``device.iops`` — when one candidate has it). Raises InputError
    (``--fit``/``--hold``) for an unknown or ambiguous name, or one named in both."""
    chosen = {p.path: p for p in cands if p.free}
    fitted = [_find(cands, name, "--fit") for name in fit]
    held = [_find(cands, name, "--hold") for name in hold]
    both = {p.path for p in fitted} & {p.path for p in held}
    if both:
        raise InputError(f"{sorted(both)[0]} is both fitted and held", field="--hold")
    for p in fitted:
        chosen[p.path] = p
    for p in held:
        if not p.given:
            raise InputError(f"{p.path} is unset in the scenario: give it a value there to hold it", field="--hold")
        chosen.pop(p.path, None)
    return list(chosen.values())


#: the run that would inform a parameter, by the last part of its path
INFORMED_BY = {
    "read_latency": "a run that reads (rw=randread or randrw) at a low iodepth",
    "write_latency": "a run that writes (rw=randwrite or randrw) at a low iodepth",
    "latency": "a run at iodepth 1, whose latency is mostly this one",
    "cpu_per_io": "a run at many IOPS (bs=4k, a high iodepth × numjobs) where the client's cores are busy",
    "iops": "a run that reaches it: small IOs (bs=4k) with enough in flight (iodepth × numjobs) to fill it",
    "bandwidth": "a run that reaches it: large IOs (bs=1m) with enough in flight to fill it",
    "throughput": "a run that reaches it: large IOs (bs=1m) with enough in flight to fill it",
}


def informed_by(path: str) -> str:
    """The run that would inform the parameter at `path` (for a message naming a parameter
    no run informs)."""
    last = path.rsplit(".", 1)[-1]
    if last in INFORMED_BY:
        return INFORMED_BY[last]
    if "bandwidth" in last:
        return INFORMED_BY["bandwidth"]
    if "iops" in last:
        return INFORMED_BY["iops"]
    return "a run whose figures depend on it"

