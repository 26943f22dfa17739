"""The simulator: a :class:`~iolab.network.Network` run event by event in the Rust core.

:func:`simulate` sends the network (``Network.to_dict()``) and the run's options to
``iolab._sim`` and returns a :class:`Simulation`: latency percentiles per direction, job
and class, IOPS and bandwidth over time, per-resource utilization and throttled time,
credit balances and cache hit ratios. The engine releases the GIL while it runs; a
progress callback and a cancel flag are polled from here.

Units are base units throughout: seconds, bytes, ops/s, bytes/s.

Seeding: a run is a pure function of the network, the options and ``seed``; replication
``k`` runs with the ``k``-th splitmix64 value drawn from ``seed``, so the same call gives
the same :class:`Simulation`, and :meth:`Simulation.to_json` the same document, byte for
byte.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from . import _sim
from .errors import SchemaError
from .network import Network

__all__ = [
    "DEFAULT_IOS",
    "confidence_interval",
    "Latency",
    "Stats",
    "SeriesPoint",
    "ResourceUse",
    "CreditPoint",
    "Credits",
    "CachePoint",
    "CacheUse",
    "Replication",
    "Confidence",
    "Simulation",
    "simulate",
]

#: IOs measured when neither ``ios`` nor ``duration`` is given.
DEFAULT_IOS = 1_000_000
#: Seconds between two calls of the progress callback (and two looks at the cancel flag).
POLL_SECONDS = 0.1


class _Flag(Protocol):
    def is_set(self) -> bool: ...


class Latency(msgspec.Struct, frozen=True):
    """Latency of a set of IOs, in seconds (quantiles within 0.4 % of the exact value)."""

    mean: float
    min: float
    max: float
    p50: float
    p90: float
    p99: float
    p99_9: float
    p99_99: float

    @classmethod
    def _from(cls, d: dict, ios: int = 1) -> "Latency":
        """From the engine's report; with no IO measured (``ios`` 0) every figure is NaN (null
        in JSON, ``-`` in tables): there is no latency to report, and 0 s would read as fast."""
        if ios == 0:
            return cls(*[math.nan] * 8)
        return cls(d["mean"], d["min"], d["max"], d["p50"], d["p90"], d["p99"], d["p99.9"], d["p99.99"])

    def to_json(self) -> dict:
        return {"mean": self.mean, "p50": self.p50, "p90": self.p90, "p99": self.p99,
                "p99.9": self.p99_9, "p99.99": self.p99_99, "max": self.max}


class Stats(msgspec.Struct, frozen=True):
    """Throughput and latency of a set of measured IOs (all, a direction, a job, a class).

    ``ios`` and ``bytes`` are counts over the measured period (over all replications);
    ``iops`` (ops/s) and ``bandwidth`` (bytes/s) are rates over it.
    """

    name: str | None
    ios: int
    bytes: int
    iops: float
    bandwidth: float
    latency: Latency

    @classmethod
    def _from(cls, d: dict) -> "Stats":
        return cls(d.get("name"), d["ios"], d["bytes"], d["iops"], d["bandwidth"], Latency._from(d["latency"], d["ios"]))

    def to_json(self) -> dict:
        head = {"name": self.name} if self.name is not None else {}
        return {**head, "iops": self.iops, "bandwidth": self.bandwidth, "latency": self.latency.to_json()}


class SeriesPoint(msgspec.Struct, frozen=True):
    """One interval ending ``t`` seconds after the ramp: its IOPS and bandwidth (bytes/s)."""

    t: float
    iops: float
    bandwidth: float


class ResourceUse(msgspec.Struct, frozen=True):
    """How busy a cap or a slot limit was over the measured period.

    ``kind`` is the resource kind (docs/model.md); ``slots`` is set for slot limits only.
    ``utilization``: share of the time a cap was busy (serving, or holding an IO until its
    credit bucket could pay), or the mean share of a slot limit's slots in use.
    ``throttled``: seconds IOs waited in its queue, added up over IOs; ``mean_wait`` the
    mean wait of one visit.
    """

    id: str
    resource: str
    kind: str
    utilization: float
    throttled: float
    visits: int
    mean_wait: float
    slots: int | None = None

    def to_json(self) -> dict:
        d = {"resource": self.resource, "kind": self.kind, "utilization": self.utilization,
             "throttled": self.throttled}
        if self.slots is not None:
            d["slots"] = self.slots
        return d


class CreditPoint(msgspec.Struct, frozen=True):
    """Credit balance at ``t`` seconds after the ramp: ops and bytes (None: no such bucket)."""

    t: float
    ops: float | None
    bytes: float | None


class Credits(msgspec.Struct, frozen=True):
    """The credit balance of one bursting cap over time (the first replication's)."""

    id: str
    resource: str
    series: tuple[CreditPoint, ...]

    def to_json(self) -> dict:
        return {"resource": self.resource,
                "series": [{"t": p.t, "ops": p.ops, "bytes": p.bytes} for p in self.series]}


class CachePoint(msgspec.Struct, frozen=True):
    """Lookups in the interval ending at ``t`` and their hit ratio (None: no lookup)."""

    t: float
    lookups: int
    hit_ratio: float | None


class CacheUse(msgspec.Struct, frozen=True):
    """A host cache's reads: lookups, hits and hit ratio, in total and over time."""

    id: str
    resource: str
    lookups: int
    hits: int
    hit_ratio: float | None
    series: tuple[CachePoint, ...]

    def to_json(self) -> dict:
        return {"resource": self.resource, "lookups": self.lookups, "hits": self.hits,
                "hit_ratio": self.hit_ratio,
                "series": [{"t": p.t, "hit_ratio": p.hit_ratio} for p in self.series]}


class Replication(msgspec.Struct, frozen=True):
    """One replication's own figures (its seed, measured IOs and seconds, rates, latency)."""

    seed: int
    ios: int
    duration: float
    iops: float
    bandwidth: float
    latency: Latency
    partial: bool


class Confidence(msgspec.Struct, frozen=True):
    """95 % confidence intervals (Student's t over the replications) as (low, high)."""

    iops: tuple[float, float]
    mean: tuple[float, float]
    p99: tuple[float, float]
    level: float = 0.95

    def to_json(self) -> dict:
        return {"level": self.level, "iops": list(self.iops), "mean": list(self.mean), "p99": list(self.p99)}


class Simulation(msgspec.Struct, frozen=True):
    """What a simulation measured after its ramp.

    ``total``/``read``/``write`` (None when that direction had no IO), ``jobs`` (per job
    name as the scenario gives it, summed over clients), ``classes``; ``series`` per
    interval (the first replication's); ``resources`` (caps, then slot limits);
    ``credits`` (bursting caps); ``cache`` (host caches). ``ios`` and ``duration``
    (seconds) add up over the replications. ``partial`` is True when the run stopped
    before its limit; ``stopped`` says why: ``ios`` or ``duration`` (the limit),
    ``cancelled``, ``overload`` (more IOs in flight than the engine holds: the offered load
    exceeds the network) or ``stalled`` (every IO waits for a slot none will give back). ``confidence`` is set with two replications or more.
    """

    total: Stats
    read: Stats | None
    write: Stats | None
    jobs: tuple[Stats, ...]
    classes: tuple[Stats, ...]
    series: tuple[SeriesPoint, ...]
    resources: tuple[ResourceUse, ...]
    credits: tuple[Credits, ...]
    cache: tuple[CacheUse, ...]
    ios: int
    duration: float
    ramp: float
    interval: float
    seed: int
    partial: bool
    stopped: str
    replications: tuple[Replication, ...]
    confidence: Confidence | None

    def to_json(self) -> dict:
        """The ``iolab simulate --json`` document (docs/simulate.md), in base units."""
        doc: dict[str, Any] = {"iops": self.total.iops, "bandwidth": self.total.bandwidth,
                               "latency": self.total.latency.to_json()}
        for name, s in (("read", self.read), ("write", self.write)):
            if s is not None:
                doc[name] = {"iops": s.iops, "bandwidth": s.bandwidth, "latency": s.latency.to_json()}
        doc["jobs"] = [j.to_json() for j in self.jobs]
        doc["series"] = [{"t": p.t, "iops": p.iops, "bandwidth": p.bandwidth} for p in self.series]
        doc["resources"] = [r.to_json() for r in self.resources]
        doc["credits"] = [c.to_json() for c in self.credits]
        doc["cache"] = [c.to_json() for c in self.cache]
        doc.update(ios=self.ios, duration=self.duration, ramp=self.ramp, interval=self.interval,
                   seed=self.seed, partial=self.partial, replications=len(self.replications))
        if self.confidence is not None:
            doc["confidence"] = self.confidence.to_json()
        return doc


def _t975(df: int) -> float:
    """Student's t quantile 0.975 with ``df`` degrees of freedom."""
    table = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
             2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
             2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
    if df <= len(table):
        return table[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def confidence_interval(values: list[float]) -> tuple[float, float]:
    """The 95 % confidence interval (low, high) of the mean of `values` (two or more), by
    Student's t."""
    n = len(values)
    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    h = _t975(n - 1) * sd / math.sqrt(n)
    return (m - h, m + h)


def _confidence(reps: tuple[Replication, ...]) -> Confidence | None:
    full = [r for r in reps if r.ios > 0]
    if len(full) < 2:
        return None
    return Confidence(iops=confidence_interval([r.iops for r in full]),
                      mean=confidence_interval([r.latency.mean for r in full]),
                      p99=confidence_interval([r.latency.p99 for r in full]))


def _from_report(d: dict) -> Simulation:
    resources = [ResourceUse(r["id"], r["resource"], r["kind"], r["utilization"], r["throttled"],
                             r["visits"], r["mean_wait"]) for r in d["resources"]]
    resources += [ResourceUse(s["id"], s["resource"], s["kind"], s["utilization"], s["throttled"],
                              s["entries"], s["throttled"] / s["entries"] if s["entries"] else 0.0,
                              slots=s["slots"]) for s in d["slot_limits"]]
    reps = tuple(Replication(r["seed"], r["ios"], r["duration"], r["iops"], r["bandwidth"],
                             Latency._from(r["latency"], r["ios"]), r["partial"]) for r in d["replications"])
    return Simulation(
        total=Stats._from(d["total"]),
        read=Stats._from(d["read"]) if d["read"] else None,
        write=Stats._from(d["write"]) if d["write"] else None,
        jobs=tuple(Stats._from(g) for g in d["groups"]),
        classes=tuple(Stats._from(c) for c in d["classes"]),
        series=tuple(SeriesPoint(p["t"], p["iops"], p["bandwidth"]) for p in d["series"]),
        resources=tuple(resources),
        credits=tuple(Credits(c["id"], c["resource"], tuple(CreditPoint(p["t"], p["ops"], p["bytes"])
                                                            for p in c["series"])) for c in d["credits"]),
        cache=tuple(CacheUse(c["id"], c["resource"], c["lookups"], c["hits"], c["hit_ratio"],
                             tuple(CachePoint(p["t"], p["lookups"], p["hit_ratio"]) for p in c["series"]))
                    for c in d["cache"]),
        ios=d["ios"], duration=d["duration"], ramp=d["ramp"], interval=d["interval"], seed=d["seed"],
        partial=d["partial"], stopped=d["stopped"], replications=reps, confidence=_confidence(reps),
    )


def _options(ios, duration, ramp, seed, interval, replications) -> dict:
    def number(name: str, v: Any, *, minimum: float, strict: bool) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v < minimum or (strict and v == minimum):
            rel = ">" if strict else ">="
            raise SchemaError(f"must be a number {rel} {minimum:g}, not {v!r}", field=name)
        return float(v)

    def integer(name: str, v: Any, minimum: int, maximum: int) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= maximum:
            raise SchemaError(f"must be a whole number from {minimum} to {maximum}, not {v!r}", field=name)
        return v

    if ios is not None and duration is not None:
        raise SchemaError("give ios or duration, not both", field="ios")
    opts: dict[str, Any] = {"seed": integer("seed", seed, 0, 2**64 - 1), "ramp": number("ramp", ramp, minimum=0, strict=False),
                            "replications": integer("replications", replications, 1, 1000)}
    if duration is not None:
        opts["duration"] = number("duration", duration, minimum=0, strict=True)
    else:
        opts["ios"] = integer("ios", DEFAULT_IOS if ios is None else ios, 1, 2**63 - 1)
    if interval is not None:
        opts["interval"] = number("interval", interval, minimum=0, strict=True)
    return opts


def simulate(network: Network, *, ios: int | None = None, duration: float | None = None, ramp: float = 0.0,
             seed: int = 1, interval: float | None = None, replications: int = 1,
             progress: Callable[[float, int], None] | None = None,
             cancel: _Flag | Callable[[], bool] | None = None) -> Simulation:
    """Simulate ``network`` and measure it after ``ramp`` seconds (as fio's ramp_time).

    Stops after ``ios`` measured IOs or ``duration`` measured seconds (not both; neither
    means :data:`DEFAULT_IOS` IOs). ``interval``: seconds per point of the series (default:
    a hundredth of ``duration``, or chosen as the run goes: 100 to 200 points).
    ``replications`` independent runs (in parallel) pool their figures and give
    confidence intervals. ``progress(fraction, ios)`` is called about every 0.1 s and at
    the end; ``cancel`` (a ``threading.Event`` or a callable) stops the run when set, and
    what was measured so far comes back with ``partial=True``. On KeyboardInterrupt the
    engine is stopped and the interrupt goes on.

    Raises :class:`~iolab.errors.SchemaError` naming the option (``ios``, ``duration``,
    ...) or the network's field (``network.classes[0].route[1].visit.resource``) at fault.
    """
    request = {"network": network.to_dict(),
               "options": _options(ios, duration, ramp, seed, interval, replications)}
    try:
        sim = _sim.Simulation(json.dumps(request))
    except ValueError as e:
        field, message = e.args if len(e.args) == 2 else (None, str(e))
        raise SchemaError(message, field=field) from None
    is_set = None
    if cancel is not None:
        is_set = cancel.is_set if hasattr(cancel, "is_set") else cancel
    sim.start()
    try:
        while not sim.wait(POLL_SECONDS):
            if progress is not None:
                progress(sim.progress(), sim.completed())
            if is_set is not None and is_set():
                sim.cancel()
    except BaseException:
        sim.cancel()
        sim.result()
        raise
    report = json.loads(sim.result())
    if progress is not None:
        progress(1.0, sim.completed())
    return _from_report(report)
