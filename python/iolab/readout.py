"""Reading a simulation beside the model: each cap's utilization as ``predict`` defines it,
the caps that ran on burst credits, and host caches still warming up.

``predict`` defines a cap's utilization as ``U = Σ X × D``: throughput times the demand of
one IO at the cap's *sustained* rates. The simulator measures the share of time a cap was
busy, at whatever rate it ran (a bursting cap runs faster, so it looks less busy). Here the
simulation's per-class throughput is put through the same ``U = Σ X × D``, so both
commands print the same figure for the same load; above 100 % a cap served more than its
sustained rate, which only burst credits allow.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .network import Network
    from .sim import Simulation

__all__ = ["cap_loads", "BurstUse", "bursts", "WarmUp", "warm_ups", "BURSTING", "rate_bound", "rate_words",
           "think_words", "BucketTurn", "bucket_turns", "CreditPhase", "credit_phases", "duration_needed"]

#: a cap above this share of its sustained rate ran on burst credits
BURSTING = 1.005


def cap_loads(network: Network, sim: Simulation) -> dict[str, float]:
    """Each cap's utilization (by resource id) as predict defines it: the measured IOPS of
    every class times its per-IO demand at the sustained rates, background work included."""
    from .analytic import chains

    iops = {c.name: c.iops for c in sim.classes}
    loads: dict[str, float] = defaultdict(float)
    for cid, flat in chains(network).flats.items():
        x = iops.get(cid, 0.0)
        for demands in (flat.demand, flat.background):
            for rid, d in demands.items():
                loads[rid] += x * d
    return dict(loads)


@dataclass(frozen=True)
class BurstUse:
    """A cap that served above its sustained rate: how far above, and its credits."""

    resource: str
    load: float                  # utilization at the sustained rate (above 1)
    left: float | None           # share of the bucket left at the end (None: not recorded)
    empty_in: float | None       # seconds until the bucket empties at the measured drain (None: not draining)

    def to_json(self) -> dict:
        return {"resource": self.resource, "utilization": self.load, "credits_left": self.left,
                "empty_in": self.empty_in}


def bursts(network: Network, sim: Simulation, loads: dict[str, float]) -> list[BurstUse]:
    """The caps that ran on burst credits during the measured period, busiest first."""
    by_id = {r.id: r for r in network.resources}
    credits = {c.id: c for c in sim.credits}
    out = []
    for rid, load in loads.items():
        res = by_id.get(rid)
        if res is None or res.cap is None or res.cap.burst is None or load < BURSTING:
            continue
        b = res.cap.burst
        left = empty = None
        series = credits[rid].series if rid in credits else ()
        if series:
            size, pick = (b.credit_ops, "ops") if b.credit_ops else (b.credit_bytes, "bytes")
            first, last = getattr(series[0], pick), getattr(series[-1], pick)
            if size and last is not None:
                left = max(0.0, last / size)
            if first is not None and last is not None and len(series) > 1 and last < first:
                empty = last / ((first - last) / (series[-1].t - series[0].t))
        out.append(BurstUse(res.label, load, left, empty))
    return sorted(out, key=lambda u: -u.load)


@dataclass(frozen=True)
class WarmUp:
    """A host cache that started cold: the read hit ratio measured and the warm one."""

    resource: str
    measured: float
    warm: float


def warm_ups(network: Network, sim: Simulation, *, margin: float = 0.9) -> list[WarmUp]:
    """Cold host caches whose measured read hit ratio is still below `margin` × the warm one."""
    out = []
    measured = {c.id: c.hit_ratio for c in sim.cache}
    for cache in network.caches:
        if cache.warm:
            continue
        reads = [c for c in network.classes if c.cache == cache.id and c.direction == "read"]
        total = sum(c.probability for c in reads)
        warm = sum(c.probability for c in reads if c.outcome == "hit") / total if total else 0.0
        got = measured.get(cache.id)
        if got is not None and got < margin * warm:
            out.append(WarmUp(cache.label, got, warm))
    return out


def rate_bound(network: Network, group_iops: dict[str, float], *, reach: float = 0.98) -> list[tuple[str, float]]:
    """The scenario's jobs that run at fio's rate limit (``rate_iops`` or ``rate``): (job name, the
    limit of all its clones in IOPS), for jobs whose IOPS reach `reach` of the limit."""
    limits: dict[str, float] = defaultdict(float)
    unlimited = set()
    for j in network.jobs:
        if j.rate:
            limits[j.group] += j.rate
        else:
            unlimited.add(j.group)
    return [(g, lim) for g, lim in limits.items()
            if g not in unlimited and group_iops.get(g, 0.0) >= reach * lim]


def think_words(network: Network) -> str | None:
    """``the jobs' thinktime (fio's stall between IOs) holds it, not the storage: job app's
    32 IO slots each wait 2 ms between IOs`` when some job thinks, else None."""
    from .units import format_duration

    slots: dict[str, list[float]] = {}
    for j in network.jobs:
        if j.think > 0:
            s = slots.setdefault(j.group, [0.0, j.think])
            s[0] += j.population
    if not slots:
        return None
    jobs = "; ".join(f"job {g}'s {n:,.0f} IO slot{'s each' if n != 1 else ''} wait{'s' if n == 1 else ''} "
                     f"{format_duration(z)} between IOs" for g, (n, z) in slots.items())
    return f"the jobs' thinktime (fio's stall between IOs) holds it, not the storage: {jobs}"


def rate_words(bound: list[tuple[str, float]]) -> str:
    """``the rate limit (fio's rate_iops or rate) holds it, not the storage: job oltp at 4,000 IOPS``."""
    jobs = "; ".join(f"job {g} at {lim:,.0f} IOPS" for g, lim in bound)
    return f"the rate limit (fio's rate_iops or rate) holds it, not the storage: {jobs}"


@dataclass(frozen=True)
class BucketTurn:
    """A credit bucket that emptied (``empties``) or filled (``fills``) during the measured
    period, at ``t`` seconds into it."""

    resource: str
    event: str
    t: float

    def to_json(self) -> dict:
        return {"resource": self.resource, "event": self.event, "t": round(self.t, 3)}


#: a bucket holding less than this share of its size is empty, more than 1 − it full
_EDGE = 1e-6


def bucket_turns(network: Network, sim: Simulation) -> list[BucketTurn]:
    """The buckets that emptied or filled within the run, first turn first. The moment is
    found between the two credit samples around it, on the straight line the balance
    follows while it drains (or fills) at a steady load."""
    by_id = {r.id: r for r in network.resources}
    out = []
    for c in sim.credits:
        res = by_id.get(c.id)
        if res is None or res.cap is None or res.cap.burst is None:
            continue
        b = res.cap.burst
        size, pick = (b.credit_ops, "ops") if b.credit_ops else (b.credit_bytes, "bytes")
        pts = [(p.t, getattr(p, pick)) for p in c.series if getattr(p, pick) is not None]
        if not size or len(pts) < 2:
            continue
        for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
            for event, crossed, target in (("empties", v0 > _EDGE * size >= v1, 0.0),
                                           ("fills", v0 < (1 - _EDGE) * size <= v1, size)):
                if crossed:
                    slope = (v1 - v0) / (t1 - t0) if t1 > t0 else 0.0
                    t = t0 + (target - v0) / slope if slope else t1
                    out.append(BucketTurn(c.resource, event, min(max(t, t0), t1)))
                    break
            else:
                continue
            break
    return sorted(out, key=lambda u: u.t)


@dataclass(frozen=True)
class CreditPhase:
    """A stretch of the run on one side of a bucket's turn: ``burst`` before a bucket
    empties and ``sustained`` after; ``refilling`` before one fills and ``full`` after.
    ``start`` and ``duration`` in seconds, ``iops`` and ``bandwidth`` its mean rates (from
    the series points wholly inside it)."""

    name: str
    start: float
    duration: float
    iops: float
    bandwidth: float

    def to_json(self) -> dict:
        return {"name": self.name, "start": round(self.start, 3), "duration": round(self.duration, 3),
                "iops": round(self.iops, 1), "bandwidth": float(round(self.bandwidth))}


def credit_phases(sim: Simulation, turn: BucketTurn) -> list[CreditPhase]:
    """The run split at a bucket's turn; empty when the series has no point wholly on one
    side of it (a run too coarse to tell)."""
    width = sim.interval
    end = max((p.t for p in sim.series), default=0.0)
    sides = [[p for p in sim.series if p.t <= turn.t], [p for p in sim.series if p.t - width >= turn.t]]
    names = ("burst", "sustained") if turn.event == "empties" else ("refilling", "full")
    if not all(sides):
        return []
    spans = ((0.0, turn.t), (turn.t, max(end, turn.t) - turn.t))
    return [CreditPhase(name, start, span, sum(p.iops for p in pts) / len(pts),
                        sum(p.bandwidth for p in pts) / len(pts))
            for name, (start, span), pts in zip(names, spans, sides)]


def duration_needed(sim: Simulation, used: BurstUse) -> float | None:
    """Seconds of measured time that would show the sustained rate of a cap still on its
    credits at the end: until its bucket empties at the measured drain, and a tenth as long
    again (at least a minute) past it; None when the bucket is not draining."""
    if used.empty_in is None:
        return None
    until = sim.duration + used.empty_in
    return until + max(60.0, 0.1 * until)
