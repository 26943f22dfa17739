"""The shapes of the documents a report takes (``iolab predict --json``, ``plan --json``,
``characterize --json``, a calibration file): each field a report reads is checked before the page is built, so
that a document edited by hand, cut short or of another program is refused naming its file
and field (exit 2), never drawn as nonsense or failing half-way.

A shape is ``NUM`` (a finite number, not negative), ``TEXT`` (a string), ``ANY``, a mapping
of field names to shapes (the fields not named are not read; a name ending in ``!`` must
be present and not null), a one-item list (every item has that shape) or :class:`OneOf`.
Apart from ``!`` fields, null stands for a missing value, as iolab's own JSON writes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import SchemaError

__all__ = ["NUM", "TEXT", "ANY", "OneOf", "check", "PREDICTION", "PLAN", "CHARACTERIZATION", "CALIBRATION"]

NUM, TEXT, ANY = "a number", "a string", "anything"


class OneOf(tuple):
    """Any one of the shapes given."""


def _fails(value: Any, shape: Any, field: str) -> tuple[str, str] | None:
    """(field, what is wrong) for the first place `value` does not have `shape`, else None."""
    if shape is ANY:
        return None
    if isinstance(shape, OneOf):
        problems = [_fails(value, s, field) for s in shape]
        return None if any(p is None for p in problems) else problems[-1]
    if shape is NUM:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return field, f"expected a number, got {_kind(value)}"
        if not math.isfinite(value) or value < 0:
            return field, f"expected a finite number, not negative, got {value!r}"
        return None
    if shape is TEXT:
        return None if isinstance(value, str) else (field, f"expected a string, got {_kind(value)}")
    if isinstance(shape, list):
        if not isinstance(value, list):
            return field, f"expected a list, got {_kind(value)}"
        for i, item in enumerate(value):
            problem = _fails(item, shape[0], f"{field}[{i}]")
            if problem:
                return problem
        return None
    if not isinstance(value, Mapping):
        return field, f"expected an object, got {_kind(value)}"
    for key, sub in shape.items():
        name = key.rstrip("!")
        where = f"{field}.{name}" if field else name
        if value.get(name) is None:
            if key.endswith("!"):
                return where, "missing" if name not in value else "null here"
            continue
        problem = _fails(value[name], sub, where)
        if problem:
            return problem
    return None


def _kind(value: Any) -> str:
    names = {bool: "a boolean", str: "a string", list: "a list", dict: "an object", type(None): "null"}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    return names.get(type(value), type(value).__name__)


def check(doc: Any, shape: Any, *, file: str, what: str) -> None:
    """SchemaError naming `file` and the field when `doc` does not have `shape`."""
    problem = _fails(doc, shape, "")
    if problem:
        field, message = problem
        raise SchemaError(f"{message}; expected the output of {what}", file=file, field=field or None)


_FIGURES = {"iops": NUM, "bandwidth": NUM, "latency": {"mean": NUM}}
PREDICTION = {
    **_FIGURES, "read": _FIGURES, "write": _FIGURES,
    "jobs": [{"name!": ANY, **_FIGURES}],
    "bottleneck": {"resource": ANY, "kind": ANY, "utilization": NUM},
    "outstanding": NUM, "knee_outstanding": NUM, "max_iops": NUM,
    "notes": [ANY],
    "resources": [{"resource!": ANY, "kind": ANY, "utilization": NUM}],
    "points": [{"params!": {"iodepth": NUM}, "iops!": NUM, "latency": {"mean": NUM}}],
}

_CONFIG = {"service": ANY, "size": NUM, "throughput": NUM, "nconnect": ANY, "clients": ANY, "vm": ANY,
           "disks": [{"count!": ANY, "sku!": ANY}]}
PLAN = {
    "required": {"iops": NUM, "bandwidth": NUM, "latency": NUM, "capacity": NUM},
    "evaluated": NUM, "feasible": NUM,
    "candidates": [{"rank!": NUM, "monthly_cost": NUM, "config": _CONFIG, "headroom": NUM,
                    "prediction": {"iops": NUM, "latency": OneOf((NUM, {"mean": NUM})),
                                   "bottleneck": {"utilization": NUM}}}],
    "rejected": [{"config": _CONFIG, "monthly_cost": NUM, "lacks": [ANY]}],
    "others": [{"config": _CONFIG, "monthly_cost": NUM, "lacks": [ANY]}],
    "excluded": [ANY],
    "near_misses": [{"config!": _CONFIG, "monthly_cost": NUM, "shortfall": NUM, "lacks": [ANY], "facts": [ANY]}],
    "best_by_kind": [{"candidate!": {"config!": _CONFIG, "monthly_cost": NUM}}],
    "unpriced": [{"config!": _CONFIG, "missing": [ANY], "supply": [ANY]}],
}

_STATS = {s: NUM for s in ("p50", "p90", "p95", "p99", "max", "mean")}
_DIRECTION = {"iops": _STATS, "bandwidth": _STATS, "latency": _STATS, "io_size": _STATS}
_DEVICE = {"read": _DIRECTION, "write": _DIRECTION}
CHARACTERIZATION = {
    "source": {}, "samples": NUM, "interval": NUM,
    "devices": [_DEVICE], "combined": _DEVICE,
    "requirements": {},
}

_ERRORS = [{"run_id": NUM}]  # the errors themselves are signed; the page reads only numbers among them
CALIBRATION = {
    "calibration!": {"runs": [ANY], "fitted": [{}], "warnings": [ANY],
                     "residuals": {"rms_log_before": NUM, "rms_log_after": NUM, "before": _ERRORS, "after": _ERRORS,
                                   "held_out": [{}]}},
}
