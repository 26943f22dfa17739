"""Predict sweeps: ``--sweep OPTION=V1,V2,...`` on any job option that changes the model
(``bs``, ``rwmixread``, ``iodepth``, ``numjobs``, ``rate_iops``, ``size``) and on the
scenario's ``nconnect`` (every share volume), ``clients`` (``clients.count``) and ``count``
(the disks of every disk group); several axes make a grid (every combination, the first
axis varying slowest).

Each value is read as the option reads it in a scenario (``bs=4k,64k``, ``size=10g``,
``rate_iops=500``) and checked against the same bounds; a point is the scenario with that
value set, validated again (a point the scenario's rules refuse names the value).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

if TYPE_CHECKING:
    from ..scenario import Scenario
    from .predict import SweepPoint

__all__ = ["SWEEP_OPTIONS", "MAX_SWEEP_POINTS", "Axis", "parse_axis", "parse_axes", "with_value", "sweep_points"]

#: the most points one sweep (a grid: the product of its axes) predicts
MAX_SWEEP_POINTS = 1000


def _whole(text: str) -> int:
    return int(text)


def _size(text: str) -> int:
    from ..units import parse_size

    return parse_size(text)


def _ops(text: str) -> float:
    from ..units import parse_ops_rate

    value = parse_ops_rate(text)
    return int(value) if float(value).is_integer() else value


#: option → (reads one value, what it is in words, lowest value)
SWEEP_OPTIONS: dict[str, tuple[Callable[[str], Any], str, float]] = {
    "bs": (_size, "a size (4k, 64KiB, 1m)", 1),
    "rwmixread": (_whole, "a whole percentage 0..100", 0),
    "iodepth": (_whole, "a whole number", 1),
    "numjobs": (_whole, "a whole number", 1),
    "rate_iops": (_ops, "an IO rate (500, 2000/s)", 1),
    "size": (_size, "a size (10g, 1TiB)", 1),
    "nconnect": (_whole, "a whole number 1..16", 1),
    "clients": (_whole, "a whole number", 1),
    "count": (_whole, "a whole number", 1),
}


@dataclass(frozen=True)
class Axis:
    """One swept option and its values, in the order given."""

    name: str
    values: tuple[Any, ...]

    def __init__(self, name: str, values: Sequence[Any]) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "values", tuple(values))


def _highest(name: str) -> float:
    from ..fio.job import LIMITS

    return {"rwmixread": 100, "nconnect": 16, "clients": 1000, "count": 256}.get(name) or LIMITS[name]


def parse_axis(text: str) -> Axis:
    """``iodepth=1,2,4`` → ``Axis("iodepth", (1, 2, 4))``. SchemaError naming ``--sweep`` for
    an unknown option, a value of the wrong kind or out of range, an empty or repeated value."""
    from ..errors import InputError, SchemaError
    from ..units import parse_points

    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or name not in SWEEP_OPTIONS:
        raise SchemaError(f"expected OPTION=V1,V2,... with OPTION one of {', '.join(SWEEP_OPTIONS)} (got {text!r})",
                          field="--sweep")
    read, words, lowest = SWEEP_OPTIONS[name]

    def one(v: str) -> Any:
        try:
            return read(v.strip())
        except (ValueError, InputError):
            raise SchemaError(f"{name} values must each be {words} (got {v.strip()!r})", field="--sweep") from None

    if not values.strip():
        raise SchemaError(f"{name} has no values: give {name}=V1,V2,...", field="--sweep")
    out = parse_points(f"{name}={values}", one, field="--sweep")
    if any(v < lowest for v in out):
        raise SchemaError(f"{name} values must be at least {lowest:g} (got {min(out):g})", field="--sweep")
    high = _highest(name)
    if any(v > high for v in out):
        raise SchemaError(f"{name} must be at most {high:g}, got {max(out):g}", field="--sweep")
    if len(out) > MAX_SWEEP_POINTS:
        raise SchemaError(f"{len(out)} values; a sweep takes at most {MAX_SWEEP_POINTS}", field="--sweep")
    return Axis(name, out)


def parse_axes(texts: Sequence[str]) -> list[Axis]:
    """Every ``--sweep`` given; an option swept twice, or a grid of more than
    :data:`MAX_SWEEP_POINTS` points, is refused."""
    from ..errors import SchemaError

    axes = [parse_axis(t) for t in texts]
    names = [a.name for a in axes]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise SchemaError(f"{twice} is swept twice; give its values in one --sweep", field="--sweep")
    total = 1
    for a in axes:
        total *= len(a.values)
    if total > MAX_SWEEP_POINTS:
        raise SchemaError(f"the grid has {total:,} points; a sweep takes at most {MAX_SWEEP_POINTS}", field="--sweep")
    return axes


def _jobs(s: Scenario, **changes: Any) -> Scenario:
    return s.replace_jobs(tuple(replace(j, fio=j.fio.replace(**changes)) for j in s.jobs))


def _volumes(s: Scenario, change: Callable[[Any], Any | None], what: str) -> Scenario:
    from ..errors import SchemaError
    from ..scenario import check_rules

    volumes, changed = {}, False
    for name, vol in s.volumes.items():
        new = change(vol)
        changed = changed or new is not None
        volumes[name] = new if new is not None else vol
    if not changed:
        raise SchemaError(f"the scenario has no {what} to sweep", file=s.file, field="--sweep")
    out = replace(s, volumes=volumes)
    check_rules(out)
    return out


def with_value(s: Scenario, name: str, value: Any) -> Scenario:
    """The scenario with option `name` set to `value` (every job's, every share's
    ``nconnect``, ``clients.count``, every disk group's ``count``), checked again."""
    from ..scenario import DiskVolume, ShareVolume, check_rules

    if name == "bs":  # one size for both directions, in place of a bssplit or bsrange
        return s.replace_jobs(tuple(replace(j, fio=j.fio.replace(
            bs=value, bs_write=None, options={k: v for k, v in j.fio.options.items() if k not in ("bssplit", "bsrange")}))
            for j in s.jobs))
    if name in ("rwmixread", "iodepth", "numjobs", "size"):
        return _jobs(s, **{name: value})
    if name == "rate_iops":
        return _jobs(s, rate_iops=float(value), rate_read_share=None, capped_reads=None, capped_writes=None)
    if name == "nconnect":
        return _volumes(s, lambda v: v.model_copy(update={"nconnect": value}) if isinstance(v, ShareVolume) else None,
                        "share volume (nconnect)")
    if name == "count":
        return _volumes(s, lambda v: v.model_copy(update={"disks": [g.model_copy(update={"count": value})
                                                                    for g in v.disks]})
                        if isinstance(v, DiskVolume) else None, "disk volume (count)")
    if name == "clients":
        out = replace(s, clients=s.clients.model_copy(update={"count": value}))
        check_rules(out)
        return out
    raise ValueError(name)


def sweep_points(s: Scenario, axes: Sequence[Axis]) -> list[SweepPoint]:
    """Every point of the grid predicted, the first axis varying slowest."""
    from ..errors import InputError, SchemaError
    from ..prediction import predict
    from .predict import SweepPoint

    out = []
    for combo in itertools.product(*(a.values for a in axes)):
        point = s
        values = dict(zip((a.name for a in axes), combo))
        try:
            for name, value in values.items():
                point = with_value(point, name, value)
        except InputError as e:
            where = ", ".join(f"{k}={v}" for k, v in values.items())
            raise SchemaError(f"at {where}: {e.message}", file=e.file, field=e.field or "--sweep") from None
        out.append(SweepPoint(values, predict(point)))
    return out
