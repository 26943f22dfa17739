"""The closed (fio-like) prediction of a network (:func:`solve`): throughput and latency per
class, utilizations, the bottleneck, the knee, the most IOPS at any concurrency, load
delays, and the burst phase while credits last.

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from ..network import Class, LoadLaw, Network, Visit, walk
from .capacity import limits
from .closed import solve_closed
from .demands import Chains, chains

__all__ = ["Solution", "ResourceLoad", "SlotLoad", "ClassResult", "BurstResult", "LoadDelay", "solve",
           "SATURATION"]

#: A cap at or above this utilization counts as saturated (a fair line between busy and saturated).
SATURATION = 0.9


class ResourceLoad(msgspec.Struct, frozen=True):
    """One resource's utilization (caps) or, for slot limits, the share of the population
    that wants in over its slots."""

    id: str
    label: str
    kind: str
    utilization: float


class SlotLoad(msgspec.Struct, frozen=True):
    id: str
    label: str
    kind: str
    slots: int
    wanted: float       # IOs that want to be inside (population × share)

    @property
    def saturated(self) -> bool:
        return self.wanted > self.slots + 1e-9


class ClassResult(msgspec.Struct, frozen=True):
    id: str
    job: str
    direction: str
    bytes: int
    iops: float
    latency: float      # mean seconds as the application sees it


class BurstResult(msgspec.Struct, frozen=True):
    """Figures while burst credits last, and how long a full bucket lasts at that load."""

    iops: float
    bandwidth: float
    latency: float
    duration: float | None      # seconds; None when credits never run out at this load
    resources: tuple[str, ...]  # labels of the caps that have burst credits
    #: labels of the caps that spend credits at this load: they run above their sustained
    #: rate, so without their burst they would be the limit (a cap with credits that stays
    #: within its sustained rate, behind another limit, is not in play).
    spending: tuple[str, ...] = ()


class LoadDelay(msgspec.Struct, frozen=True):
    """A share's load delay in the solution: the utilization ``u`` of its quota (cap
    ``id``) and the ``delay`` (seconds) each IO through it spends on top of the unloaded
    latency."""

    id: str
    label: str
    utilization: float
    delay: float


class Solution(msgspec.Struct, frozen=True):
    """The closed (fio-like) prediction of a network."""

    classes: tuple[ClassResult, ...]
    job_iops: dict[str, float]
    job_latency: dict[str, float]
    resources: tuple[ResourceLoad, ...]
    slots: tuple[SlotLoad, ...]
    bottleneck: ResourceLoad
    outstanding: float
    knee_outstanding: float
    burst: BurstResult | None
    load: tuple[LoadDelay, ...] = ()
    upper_iops: float = math.inf  # the most IOPS at any concurrency for this mix of chains (:func:`limits`)

    @property
    def iops(self) -> float:
        return sum(c.iops for c in self.classes)

    @property
    def bandwidth(self) -> float:
        return sum(c.iops * c.bytes for c in self.classes)

    @property
    def latency(self) -> float:
        x = self.iops
        return sum(c.iops * c.latency for c in self.classes) / x if x > 0 else math.inf


def solve(network: Network, ch: Chains | None = None) -> Solution:
    """Predict a closed network: throughput, latency per class, utilizations, bottleneck,
    knee, the most IOPS at any concurrency, and the burst phase when any cap has burst
    credits. ``ch``: the network's chains, when the caller has them already."""
    ch = chains(network) if ch is None else ch
    X, U, T, _ = solve_closed(ch, network, ch.demand)
    labels = {r.id: r for r in network.resources}
    resources = tuple(
        ResourceLoad(k, labels[k].label, labels[k].kind, float(U[i])) for i, k in enumerate(ch.caps)
    )
    slot_loads = tuple(
        SlotLoad(s.id, s.label, s.kind, s.slots, float(ch.population @ ch.slots[:, i]))
        for i, s in enumerate(network.slot_limits)
    )
    loads = _load_delays(network, ch, U)
    classes = _class_results(network, ch, X, T, ch.demand, {law: d.delay for law, d in zip(ch.laws, loads)})
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    job_iops = {j: float(X[jidx[j]]) for j in ch.jobs}
    job_latency = {j: float(ch.population[jidx[j]] / X[jidx[j]] - T[jidx[j]]) if X[jidx[j]] > 0 else math.inf
                   for j in ch.jobs}
    bound = limits(network, ch, X)
    return Solution(
        classes=classes,
        job_iops=job_iops,
        job_latency=job_latency,
        resources=resources,
        slots=slot_loads,
        bottleneck=_bottleneck(resources, slot_loads),
        outstanding=float(ch.population.sum()),
        knee_outstanding=bound.knee,
        burst=_burst(network, ch),
        load=loads,
        upper_iops=bound.max_iops,
    )


def _load_delays(network: Network, ch: Chains, U: np.ndarray) -> tuple[LoadDelay, ...]:
    """Each load law's utilization and delay at the caps' utilizations ``U``."""
    out = []
    for law, k in zip(ch.laws, ch.law_caps()):
        u = min(float(U[k]), 1.0)
        out.append(LoadDelay(law.cap, network.resource(law.cap).label, u, law.delay(u)))
    return tuple(out)


def _class_results(network: Network, ch: Chains, X: np.ndarray, T: np.ndarray,
                   D: np.ndarray, delays: dict[LoadLaw, float] | None = None) -> tuple[ClassResult, ...]:
    """Per-class throughput (X_j × p_c) and latency: the residence times the chain's MVA
    gives (with ``delays``, each load law's delay), scaled so that the chain's mean equals
    N / X (the client-side wait for slots is shared by every class of the chain)."""
    delays = delays or {}
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    kidx = {k: i for i, k in enumerate(ch.caps)}
    U = X @ D
    # Per-station inflation as an open approximation of the queue each class meets; then the
    # chain's own mean is matched exactly to Little's law.
    stretch = 1.0 / np.clip(1.0 - np.minimum(U, 0.999), 1e-3, None)
    raw: dict[str, float] = {}
    for c in network.classes:
        f = ch.flats[c.id]
        raw[c.id] = (f.delay + sum(n * delays.get(law, 0.0) for law, n in f.load.items())
                     + sum(d * stretch[kidx[k]] for k, d in f.response.items()))
    out = []
    for c in network.classes:
        j = jidx[c.job]
        x = float(X[j])
        mean_raw = sum(o.probability * raw[o.id] for o in network.classes if o.job == c.job)
        chain_r = float(ch.population[j] / x - T[j]) if x > 0 else math.inf
        lat = raw[c.id] * chain_r / mean_raw if mean_raw > 0 else chain_r
        out.append(ClassResult(c.id, c.job, c.direction, c.bytes, x * c.probability, lat))
    return tuple(out)


def _bottleneck(resources: tuple[ResourceLoad, ...], slots: tuple[SlotLoad, ...]) -> ResourceLoad:
    top = max(resources, key=lambda r: r.utilization, default=None)
    if top is not None and top.utilization >= SATURATION:
        return top
    saturated = [s for s in slots if s.saturated]
    if saturated:
        s = max(saturated, key=lambda s: s.wanted / s.slots)
        return ResourceLoad(s.id, s.label, s.kind, s.wanted / s.slots)
    return ResourceLoad("concurrency", "concurrency", "concurrency", top.utilization if top else 0.0)


def _burst(network: Network, ch: Chains) -> BurstResult | None:
    bursting = [r for r in network.resources if r.cap is not None and r.cap.burst is not None]
    if not bursting:
        return None
    X, U, T, _ = solve_closed(ch, network, ch.burst_demand)
    kidx = {k: i for i, k in enumerate(ch.caps)}
    N = ch.population
    iops = float(X.sum())
    bw = 0.0
    for c in network.classes:
        bw += float(X[ch.jobs.index(c.job)]) * c.probability * c.bytes
    lat = float((N.sum() - X @ T) / iops) if iops > 0 else math.inf
    duration: float | None = None
    spending = []
    for r in bursting:
        cap, b = r.cap, r.cap.burst
        assert cap is not None and b is not None
        ops_rate = bytes_rate = 0.0
        for c in network.classes:
            x = float(X[ch.jobs.index(c.job)]) * c.probability
            visits = _visits(c, r.id)
            for nbytes, w in visits:
                ops_rate += x * w * cap.ops(nbytes)
                bytes_rate += x * w * nbytes
        over = False
        for credit, rate, base in ((b.credit_ops, ops_rate, cap.ops_per_s),
                                   (b.credit_bytes, bytes_rate, cap.bytes_per_s)):
            if base and rate > base * (1 + 1e-9):
                over = True
                if credit:
                    t = credit * b.initial / (rate - base)
                    duration = t if duration is None else min(duration, t)
        if over:
            spending.append(r.label)
    del kidx, U
    return BurstResult(iops, bw, lat, duration, tuple(r.label for r in bursting), tuple(spending))


def _visits(cls: Class, rid: str) -> list[tuple[int, float]]:
    """(bytes, expected visits per IO) of ``cls`` at resource ``rid``."""
    return [(s.bytes, w) for s, w, _ in walk(cls.route) if isinstance(s, Visit) and s.resource == rid]
