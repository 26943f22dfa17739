"""Latency percentiles: the simulator runs the best candidates at the required load.

The analytic search gives means; a bound such as ``p99: 12ms`` is checked by simulating
each of the cheapest candidates that pass on means and headroom, as an *open* workload
(what the open model assumes): every job's IOs arrive as a Poisson stream at its share of
the required rate, with no limit on how many are in flight. Burst credits are removed
(a plan holds at sustained figures) and host caches start warm (the analytic hit ratio).

Each candidate runs ``replications`` independent replications of ``ios`` measured IOs
(after a ramp of ``ramp_ios`` IOs' worth of time), seeded from one seed, so a plan is
reproducible. A percentile's estimate is the one over all IOs pooled; its 95 % interval is
Student's t over the replications' own values. A candidate meets a bound when the pooled
estimate is within it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

if TYPE_CHECKING:  # the simulator and the network load only when a plan simulates
    from ..network import Network
    from ..sim import Latency, Simulation

__all__ = ["TailCheck", "TailOptions", "open_network", "check_tail", "simulate_open", "tail_of", "ios_for",
           "job_rates", "KEYS", "CHECK_TOP"]

KEYS = {"p50": "p50", "p90": "p90", "p99": "p99", "p99.9": "p99_9", "p99.99": "p99_99"}
"""Percentile keys of a requirement and the :class:`~iolab.sim.Latency` field of each."""
OPEN_POPULATION = 1 << 20
"""IOs a job may keep in flight in the open simulation: in effect no limit."""
CHECK_TOP = 10
"""Candidates simulated by default (``--check-top``)."""
REPLICATIONS = 5
"""Replications per candidate by default: enough for Student's t interval."""


class TailOptions(msgspec.Struct, frozen=True):
    """How the percentile check runs: the ``top`` cheapest candidates that pass on means,
    ``ios`` measured IOs per replication (None: :func:`ios_for` the bounds),
    ``replications``, ``seed``; ``progress(done, total, fraction)`` is told as it goes."""

    top: int = CHECK_TOP
    ios: int | None = None
    replications: int = REPLICATIONS
    seed: int = 1
    progress: Callable[[int, int, float], None] | None = None


def job_rates(network: Network, rate: float) -> dict[str, float]:
    """The required ``rate`` split over the network's jobs in proportion to their
    outstanding IOs, as the open model splits it."""
    total = sum(j.population for j in network.jobs)
    return {j.name: rate * j.population / total for j in network.jobs}


def ios_for(percentiles: Mapping[str, float], floor: int = 10_000) -> int:
    """Measured IOs per replication for a percentile estimate: about 100 IOs beyond the
    highest percentile bounded (p99: 10,000; p99.9: 100,000), at least ``floor``."""
    from .requirements import percentile_level

    top = max((percentile_level(k) or 0.99 for k in percentiles), default=0.99)
    return max(floor, math.ceil(100 / (1 - top)))


def open_network(network: Network, rates: Mapping[str, float]) -> Network:
    """``network`` as an open workload: job ``name`` gets Poisson arrivals at
    ``rates[name]`` ops/s and no limit on IOs in flight; no burst credits; warm caches."""
    jobs = tuple(replace(j, rate=rates[j.name], arrival="poisson", population=OPEN_POPULATION)
                 for j in network.jobs)
    resources = tuple(replace(r, cap=replace(r.cap, burst=None)) if r.cap is not None and r.cap.burst else r
                      for r in network.resources)
    caches = tuple(replace(c, warm=True) for c in network.caches)
    return replace(network, jobs=jobs, resources=resources, caches=caches)


class TailCheck(msgspec.Struct, frozen=True):
    """One candidate's simulated latency: per percentile key the pooled estimate and its
    95 % interval (None with one replication), the mean, and which bounds it meets."""

    bounds: Mapping[str, float]
    estimate: Mapping[str, float]
    interval: Mapping[str, tuple[float, float] | None]
    mean: float
    ios: int
    replications: int
    seed: int
    partial: bool

    @property
    def meets(self) -> bool:
        return not self.partial and all(self.estimate[k] <= v for k, v in self.bounds.items())

    def failing(self) -> list[str]:
        """The bounds the estimate breaks, worst first."""
        over = sorted(((self.estimate[k] / v, k) for k, v in self.bounds.items() if self.estimate[k] > v),
                      reverse=True)
        return [k for _, k in over]

    @property
    def shortfall(self) -> float:
        """The worst estimate over its bound (at most 1 when every bound is met)."""
        return max((self.estimate[k] / v for k, v in self.bounds.items()), default=0.0)

    def describe(self, key: str) -> str:
        """``9.0 ms (95 % interval 8.2–9.7 ms)`` for one percentile."""
        from ..units import format_duration

        low_high = self.interval.get(key)
        shown = format_duration(self.estimate[key])
        if low_high is None:
            return shown
        return f"{shown} (95% interval {format_duration(low_high[0])} to {format_duration(low_high[1])})"

    def lacks(self) -> list[str]:
        """What the candidate lacks, as explanations read."""
        from ..units import format_duration

        if self.partial:
            return ["the simulation could not carry the load (more IOs in flight than it holds)"]
        return [f"simulated {k} {self.describe(k)} over the required {format_duration(self.bounds[k])}"
                for k in self.failing()]

    def to_json(self) -> dict:
        return {"percentiles": {k: round(v, 9) for k, v in self.estimate.items()},
                "interval": {k: None if v is None else [round(v[0], 9), round(v[1], 9)]
                             for k, v in self.interval.items()},
                "mean": round(self.mean, 9), "meets": self.meets, "ios": self.ios,
                "replications": self.replications, "seed": self.seed}


def between(estimate: Mapping[str, float], key: str) -> float:
    """The percentile ``key`` (``p95``) from the reported ones on either side (``p90``,
    ``p99``), linear in ln(1 − q): exact for an exponential tail, and never outside the two."""
    from .requirements import PERCENTILES, percentile_level

    q = percentile_level(key) or 0.99
    lo = max((k for k, v in PERCENTILES.items() if v <= q), key=PERCENTILES.__getitem__)
    hi = min((k for k, v in PERCENTILES.items() if v >= q), key=PERCENTILES.__getitem__)
    if lo == hi:
        return estimate[lo]
    x, x_lo, x_hi = (math.log(1 - v) for v in (q, PERCENTILES[lo], PERCENTILES[hi]))
    return estimate[lo] + (estimate[hi] - estimate[lo]) * (x - x_lo) / (x_hi - x_lo)


def simulate_open(network: Network, rates: Mapping[str, float], options: "TailOptions", ios: int,
                  done: int = 0) -> Simulation:
    """Simulate ``network`` open at ``rates`` as ``options`` say, telling its progress as
    candidate ``done`` (counting from 0)."""
    from ..sim import simulate

    progress = None
    if options.progress is not None:
        report = options.progress

        def progress(fraction: float, _ios: int) -> None:
            report(done, options.top, fraction)

    return simulate(open_network(network, rates), ios=ios, replications=options.replications, seed=options.seed,
                    progress=progress)


def check_tail(network: Network, rates: Mapping[str, float], bounds: Mapping[str, float],
               options: "TailOptions", done: int = 0) -> TailCheck:
    """Simulate ``network`` open at ``rates`` and compare its percentiles with ``bounds``."""
    sim = simulate_open(network, rates, options, options.ios or ios_for(bounds), done)
    return tail_of(sim, bounds)


def tail_of(sim: Simulation, bounds: Mapping[str, float], jobs: tuple[str, ...] | None = None) -> TailCheck:
    """The percentiles of a simulation (of the job groups ``jobs`` only, when given: one
    workload of several, then the worst of its jobs, without an interval) against ``bounds``."""
    from ..sim import confidence_interval

    keys = list(KEYS)
    if jobs is None:
        lat: Latency = sim.total.latency
        reps = [r.latency for r in sim.replications if r.ios > 0]
        interval = {k: confidence_interval([getattr(r, KEYS[k]) for r in reps]) if len(reps) > 1 else None for k in keys}
    else:
        # One workload of several: its job groups' figures (the worst of them, conservatively).
        groups = [s for s in sim.jobs if s.name in jobs]
        lat = max((g.latency for g in groups), key=lambda x: x.p99)
        interval = {k: None for k in keys}
    estimate = {k: float(getattr(lat, KEYS[k])) for k in keys}
    for k in bounds:
        if k not in estimate:                 # p95: between the percentiles reported
            estimate[k], interval[k] = between(estimate, k), None
    return TailCheck(dict(bounds), estimate, interval, float(lat.mean), sim.ios, len(sim.replications), sim.seed,
                     sim.partial and sim.stopped not in ("ios", "duration"))
