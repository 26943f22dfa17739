"""Sweeps: the same jobs at several values of iodepth, numjobs, bs or rwmixread.

Several ``--sweep`` axes make a cartesian product (the first axis varies slowest). Each
point is one run in the results database, grouped under one sweep id. The curve's knee
(docs/bench.md):

- with a latency target: the point with the highest IOPS whose latency at the chosen
  percentile (p99 by default) meets the target;
- without one: reading the points in order of IOs in flight, the point past which IOPS
  grew less than 10 % while the mean latency grew.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..units import parse_points
from .jobs import SWEEP_AXES, override, parse_option
from .record import RunRecord

__all__ = ["GROWTH", "parse_axes", "points", "percentile_key", "Point", "find_knee", "Sweep", "run_sweep"]

#: the most points one sweep runs.
MAX_POINTS = 1000

#: IOPS growth below which, with latency still growing, the curve has passed its knee.
GROWTH = 0.10


def parse_axes(texts: Sequence[str]) -> dict[str, list[Any]]:
    """``["iodepth=1,2,4", "numjobs=1,4"]`` into ``{"iodepth": [1, 2, 4], "numjobs": [1, 4]}``.

    Values are read with fio's rules (``bs=4k,64k`` in bytes). Raises InputError (field
    ``--sweep``) for an unknown axis, a repeated one, a bad or repeated value, or more than
    :data:`MAX_POINTS` points.
    """
    axes: dict[str, list[Any]] = {}
    for text in texts:
        name, eq, values = text.partition("=")
        name = name.strip()
        if not eq or not values.strip():
            raise InputError(f"expected NAME=V1,V2,..., got {text!r}", field="--sweep")
        if name not in SWEEP_AXES:
            raise InputError(f"cannot sweep {name!r}; sweepable: {', '.join(SWEEP_AXES)}", field="--sweep")
        if name in axes:
            raise InputError(f"{name} is swept twice", field="--sweep")
        axes[name] = parse_points(text, lambda v: parse_option(name, v, field="--sweep"), field="--sweep")
    count = 1
    for values in axes.values():
        count *= len(values)
    if count > MAX_POINTS:
        raise InputError(f"{count} points; a sweep runs at most {MAX_POINTS}", field="--sweep")
    return axes


def points(axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the axes' values, the first axis varying slowest."""
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]


def percentile_key(percentile: float) -> str:
    """The latency key of a percentile (99 → ``p99``, 99.9 → ``p99.9``); InputError when
    iolab does not keep that percentile."""
    key = f"p{percentile:g}"
    if key not in ("p50", "p90", "p99", "p99.9", "p99.99"):
        raise InputError(f"percentile {percentile:g} is not kept; use 50, 90, 99, 99.9 or 99.99",
                         field="--latency-percentile")
    return key


@dataclass(frozen=True)
class Point:
    """One point of the curve: its parameters, measured figures and run id.

    ``outstanding`` is the IOs in flight at full load (orders the curve); ``predicted``
    the prediction's JSON at this point when a scenario describes the target.
    """

    params: Mapping[str, Any]
    iops: float
    bandwidth: float
    latency: Mapping[str, float]
    run_id: int | None
    status: str
    outstanding: int = 0
    predicted: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {"params": dict(self.params), "iops": self.iops, "bandwidth": self.bandwidth,
               "latency": dict(self.latency), "run_id": self.run_id, "status": self.status}
        if self.predicted is not None:
            doc["predicted"] = dict(self.predicted)
        return doc

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items())


def find_knee(curve: Sequence[Point], *, latency_target: float | None = None,
              percentile: float = 99.0) -> Point | None:
    """The knee of a curve (see the module's docstring); None when no point qualifies
    (no point meets the target, or IOPS never stopped growing within the sweep)."""
    usable = [p for p in curve if p.status == "ok" and p.iops > 0]
    if latency_target is not None:
        key = percentile_key(percentile)
        meeting = [p for p in usable if key in p.latency and p.latency[key] <= latency_target]
        return max(meeting, key=lambda p: p.iops) if meeting else None
    ordered = sorted(usable, key=lambda p: p.outstanding)  # stable: ties keep sweep order
    for here, after in zip(ordered, ordered[1:]):
        grew_little = after.iops < here.iops * (1 + GROWTH)
        latency_grew = after.latency.get("mean", 0.0) > here.latency.get("mean", 0.0)
        if grew_little and latency_grew:
            return here
    return None


@dataclass(frozen=True)
class Sweep:
    """A finished sweep: its id, the points (in sweep order) and the knee."""

    sweep_id: int
    axes: Mapping[str, Sequence[Any]]
    curve: tuple[Point, ...]
    knee: Point | None
    records: tuple[RunRecord, ...]

    @property
    def status(self) -> str:
        """``interrupted`` when stopped, ``failed`` when a point failed, else ``ok``."""
        states = {r.status for r in self.records}
        return "interrupted" if "interrupted" in states else ("failed" if "failed" in states else "ok")

    def to_json(self) -> dict[str, Any]:
        return {
            "sweep_id": self.sweep_id,
            "status": self.status,
            "axes": {k: list(v) for k, v in self.axes.items()},
            "points": [p.to_json() for p in self.curve],
            "knee": None if self.knee is None else {"params": dict(self.knee.params), "run_id": self.knee.run_id,
                                                     "iops": self.knee.iops, "latency": dict(self.knee.latency)},
        }


def point_of(record: RunRecord, outstanding: int) -> Point:
    """The curve point a stored run makes."""
    total = record.measured.total if record.measured is not None else None
    return Point(dict(record.params), total.iops if total else 0.0, total.bandwidth if total else 0.0,
                 dict(total.latency) if total else {}, record.run_id, record.status, outstanding,
                 record.predicted)


def run_sweep(bench: Any, request: Any, axes: Mapping[str, Sequence[Any]], *,
              latency_target: float | None = None, percentile: float = 99.0) -> Sweep:
    """Run every point of `axes` with `bench` (a :class:`~iolab.bench.runner.Bench`), one
    stored run each, grouped under a new sweep id; stop at the first interrupted point."""
    if latency_target is not None:
        percentile_key(percentile)
    grid = points(axes)
    bench.preflight(request, grid[0])   # a sweep refused at its first point stores nothing
    sweep_id = bench.store.new_sweep(axes)
    bench.view.sweep(len(grid))
    records: list[RunRecord] = []
    curve: list[Point] = []
    hosts = max(1, len(getattr(request, "hosts", ()) or ()))
    try:
        for params in grid:
            record = bench.run(request, params=params, sweep_id=sweep_id)
            records.append(record)
            jobs = override(request.jobs, params)
            curve.append(point_of(record, sum(j.outstanding for j in jobs) * hosts))
            if record.status == "interrupted":
                break
    except BaseException:
        if not records:  # refused before its first point: leave no empty sweep behind
            bench.store.drop_sweep(sweep_id)
        raise
    knee = find_knee(curve, latency_target=latency_target, percentile=percentile)
    bench.store.set_knee(sweep_id, None if knee is None else {"params": dict(knee.params), "run_id": knee.run_id})
    return Sweep(sweep_id, {k: list(v) for k, v in axes.items()}, tuple(curve), knee, tuple(records))
