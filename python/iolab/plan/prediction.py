"""A candidate's figures at the required load, from its real compiled network.

The configuration is turned into its scenario, compiled by :func:`iolab.compile.compile_scenario`
and solved by :func:`iolab.analytic.solve_open` at the required rate. Slot limits (NFSv3
connection slots, the NFSv4.1 session) are loaded as in Little's law: the IOs inside a
slot-limited segment are the rate through it times the time spent inside (each cap's
demand stretched by :func:`iolab.analytic.stretch`, plus the delays), and their utilization is that over
the slots.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import msgspec
import numpy as np

from ..analytic import SERVICE_CV2, OpenSolution, ResourceLoad, chains, solve_open, stretch
from ..compile import compile_scenario, requests_per_io
from ..network import Hold, Load, Network, Step, Visit, walk
from .config import Config
from .requirements import Requirements
from .workload import Workload

__all__ = ["LoadPrediction", "predict_at_load", "slot_loads"]


class LoadPrediction(msgspec.Struct, frozen=True):
    """A configuration at the required rate: utilizations, latency, concurrency."""

    config: Config
    network: Network
    solution: OpenSolution
    rate: float
    bandwidth: float
    resources: tuple[ResourceLoad, ...]
    slots: tuple[ResourceLoad, ...]
    #: ops/s per network job the figures were solved at (requests, for a read-ahead job);
    #: None: ``rate`` split over the jobs by their outstanding IOs, as solve_open splits it.
    job_rates: dict[str, float] | None = None

    @property
    def latency(self) -> float:
        return self.solution.latency

    @property
    def loads(self) -> tuple[ResourceLoad, ...]:
        return self.resources + self.slots

    @property
    def bottleneck(self) -> ResourceLoad:
        """The busiest resource (caps and slot limits alike): the one that binds first."""
        return max(self.loads, key=lambda r: r.utilization)

    @property
    def headroom(self) -> float:
        """1 − the highest utilization."""
        return 1.0 - self.bottleneck.utilization

    def by_kind(self) -> dict[str, float]:
        """The highest utilization of each kind (``connection-slots`` for NFSv3 slots)."""
        out: dict[str, float] = {}
        for r in self.loads:
            out[r.kind] = max(out.get(r.kind, 0.0), r.utilization)
        return out

    def to_json(self) -> dict:
        lat = self.latency
        b = self.bottleneck
        doc: dict = {
            "iops": round(self.rate, 1),
            "bandwidth": float(round(self.bandwidth)),
            "latency": {"mean": round(lat, 9) if math.isfinite(lat) else None},
            "bottleneck": {"resource": b.label, "kind": _kind(b.kind), "utilization": round(b.utilization, 4)},
            "resources": [{"resource": r.label, "kind": r.kind, "utilization": round(r.utilization, 4)}
                          for r in self.resources],
            "concurrency": round(self.solution.concurrency, 3) if math.isfinite(self.solution.concurrency) else None,
        }
        if self.slots:
            doc["slots"] = [{"resource": r.label, "kind": _kind(r.kind), "utilization": round(r.utilization, 4)}
                            for r in self.slots]
        return doc


def _kind(kind: str) -> str:
    return "connection" if kind == "connection-slots" else kind


def predict_at_load(req: Requirements, wl: Workload, config: Config,
                    rates: Callable[[Network], dict[str, float]] | None = None,
                    bandwidth: float | None = None) -> LoadPrediction:
    """Compile ``config``'s scenario and analyse it at the required rate (or, for several
    workloads, at ``rates(network)``: ops/s per job, with ``bandwidth`` their bytes/s)."""
    scenario = config.scenario(req, req.search.stripe_size)
    network = compile_scenario(scenario)
    per_job = rates(network) if rates is not None else None
    rate = wl.rate if per_job is None else sum(per_job.values())
    factors = requests_per_io(scenario)
    if any(f != 1.0 for f in factors.values()):
        # The required rate counts application IOs; a read-ahead job's network counts requests.
        if per_job is None:
            by_name = wl.job_rates(req.clients)
            per_job = {j.name: by_name[j.group] for j in network.jobs}
        per_job = {j.name: per_job[j.name] * factors.get(j.group, 1.0) for j in network.jobs}
    sol = solve_open(network, rate if per_job is None else sum(per_job.values()), per_job)
    labels = {r.id: r for r in network.resources}
    resources = tuple(ResourceLoad(k, labels[k].label, labels[k].kind, u) for k, u in sol.utilization.items())
    occupancy = slot_loads(network, sol.rate, sol, per_job)
    slots = tuple(ResourceLoad(s.id, s.label, "connection-slots" if s.kind == "connection" else s.kind, occupancy[s.id] / s.slots)
                  for s in network.slot_limits)
    return LoadPrediction(config, network, sol, rate, wl.bandwidth if bandwidth is None else bandwidth,
                          resources, slots, per_job)


def slot_loads(network: Network, rate: float, sol: OpenSolution,
               rates: dict[str, float] | None = None) -> dict[str, float]:
    """IOs inside each slot limit at ``rate`` (split over jobs as solve_open splits it), or
    at ``rates`` per job."""
    ch = chains(network)
    share = ch.population / ch.population.sum()
    job_rate = rates if rates is not None else {j: rate * float(share[i]) for i, j in enumerate(ch.jobs)}
    caps = {r.id: r.cap for r in network.resources if r.cap is not None}
    turns = dict(zip(ch.caps, ch.turn_size().tolist()))
    util = sol.utilization
    out = {s.id: 0.0 for s in network.slot_limits}

    def time(steps: tuple[Step, ...]) -> float:
        """Seconds one IO spends on ``steps`` at the open model's load (parallel members once)."""
        total = 0.0
        for st, _, rw in walk(steps):
            if isinstance(st, Visit):
                cap = caps.get(st.resource)
                if cap is None:
                    total += rw * st.latency
                else:
                    u = util.get(st.resource, 0.0)
                    total += rw * cap.demand(st.bytes) * float(stretch(u, SERVICE_CV2[cap.service], turns[st.resource]))
            elif isinstance(st, Load):
                total += rw * st.law.delay(min(util.get(st.law.cap, 0.0), 1.0))
        return total

    for c in network.classes:
        flow = job_rate[c.job] * c.probability
        for st, w, _ in walk(c.route):
            if isinstance(st, Hold):
                out[st.slot_limit] += flow * w * time(st.steps)
    return out
