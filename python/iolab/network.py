"""The network: the intermediate representation that a scenario compiles into.

Both engines take a :class:`Network` unchanged: the analytic engine (``iolab.analytic``)
and the simulator (``iolab.sim``, Rust). The physics (caps, latencies, routes) is decided
by the compiler (``iolab.compile``); engines never read scenarios.

Units: bytes, seconds, ops/s, bytes/s.

A *resource* is one place an IO spends time, with one behaviour:

- a :class:`Cap` (a throttle, modelled as a FIFO server whose service time for an IO of
  ``b`` bytes is ``max(ops(b) / ops_per_s, b / bytes_per_s)``, with ``ops(b) =
  ceil(b / io_unit)``), optionally with a credit :class:`Burst`;
- a cap of kind ``cpu`` (a client's cores) counts work in core-nanoseconds: its visits carry
  the IO's core-nanoseconds in ``bytes`` and its ``bytes_per_s`` is cores × 10⁹, so that the
  per-IO and per-byte cycles of an IO add up;
- a :class:`Delay` (latency per visit, any number of IOs at once). The mean latency of a
  visit is carried by the :class:`Visit` in the class's route, because it differs per
  class (reads and writes, IO sizes). A :class:`Load` step spends time at a delay too,
  but its mean follows the utilization of a cap (a share's latency under load, see
  :class:`LoadLaw`).

A :class:`Class` is one stream of IOs of a job with one route: a sequence of steps
(:class:`Visit`, :class:`Fork` for stripes and connection spreading, :class:`Hold` for
a segment under a slot limit). ``background`` steps run after the IO completes without
holding the job's slot (a host cache's lazy write flush).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Literal, Union

import msgspec

__all__ = [
    "KINDS",
    "Burst",
    "Cap",
    "Delay",
    "Resource",
    "SlotLimit",
    "Cache",
    "Visit",
    "Fork",
    "Hold",
    "LoadLaw",
    "Load",
    "Step",
    "Class",
    "Job",
    "Network",
    "Flat",
    "flatten",
    "walk",
]

Kind = Literal["vm", "vm-cache", "network", "receive", "disk", "connection", "session", "service", "file",
               "device", "client", "cpu"]
KINDS: tuple[str, ...] = ("vm", "vm-cache", "network", "receive", "disk", "connection", "session", "service",
                          "file", "device", "client", "cpu")


class Burst(msgspec.Struct, frozen=True):
    """Higher caps while a credit bucket lasts.

    Credits accrue at the baseline rate and each IO spends its ops (and bytes); the bucket
    holds at most ``credit_ops`` ops (``credit_bytes`` bytes). A full bucket sustains the
    burst caps for ``credit_ops / (burst ops_per_s - baseline ops_per_s)`` seconds.
    ``initial`` is the fraction of the bucket that is full at the start (Azure: 1.0).
    """

    ops_per_s: float | None = None
    bytes_per_s: float | None = None
    credit_ops: float | None = None
    credit_bytes: float | None = None
    initial: float = 1.0


class Cap(msgspec.Struct, frozen=True):
    """A throttle: at most ``ops_per_s`` ops and ``bytes_per_s`` bytes per second.

    ``service`` is the distribution of the per-IO service time in the simulator:
    ``deterministic`` (a throttle's even spacing) or ``exponential`` (for checks against
    queueing theory).
    """

    ops_per_s: float | None = None
    bytes_per_s: float | None = None
    io_unit: int | None = None
    burst: Burst | None = None
    service: Literal["deterministic", "exponential"] = "deterministic"

    def ops(self, nbytes: float) -> float:
        """How many ops an IO of ``nbytes`` counts as (Azure disks count 256 KiB units)."""
        if self.io_unit:
            return float(max(1, math.ceil(nbytes / self.io_unit)))
        return 1.0

    def demand(self, nbytes: float, *, burst: bool = False) -> float:
        """Service time in seconds of one IO of ``nbytes`` at this cap (0 when uncapped)."""
        ops_rate, byte_rate = self.ops_per_s, self.bytes_per_s
        if burst and self.burst:
            ops_rate = self.burst.ops_per_s or ops_rate
            byte_rate = self.burst.bytes_per_s or byte_rate
        d = 0.0
        if ops_rate:
            d = self.ops(nbytes) / ops_rate
        if byte_rate:
            d = max(d, nbytes / byte_rate)
        return d


class Delay(msgspec.Struct, frozen=True):
    """A latency station (infinite servers). The distribution of a visit's time: its mean is
    the visit's ``latency``; ``cv`` is the coefficient of variation for ``lognormal``."""

    distribution: Literal["deterministic", "exponential", "lognormal"] = "lognormal"
    cv: float = 0.5


class Resource(msgspec.Struct, frozen=True):
    """One place an IO spends time: exactly one of ``cap`` and ``delay`` is set."""

    id: str
    label: str
    kind: Kind
    cap: Cap | None = None
    delay: Delay | None = None

    def __post_init__(self) -> None:
        if (self.cap is None) == (self.delay is None):
            raise ValueError(f"resource {self.id}: exactly one of cap and delay")
        if self.kind not in KINDS:
            raise ValueError(f"resource {self.id}: unknown kind {self.kind!r}")


class SlotLimit(msgspec.Struct, frozen=True):
    """A semaphore: at most ``slots`` IOs inside the segments that hold it."""

    id: str
    label: str
    kind: Kind
    slots: int


class Cache(msgspec.Struct, frozen=True):
    """A host cache (by block address in the simulator): ``size`` bytes, warm or cold at start."""

    id: str
    label: str
    size: int
    warm: bool = True


class Visit(msgspec.Struct, frozen=True):
    """One visit to a resource carrying ``bytes``; ``latency`` (seconds) is the mean time
    spent there when the resource is a delay (ignored at caps)."""

    resource: str
    bytes: int
    latency: float = 0.0


class Fork(msgspec.Struct, frozen=True):
    """Run ``choose`` of the ``branches`` in parallel; the IO goes on when the last one ends.

    ``pick``: ``random`` (distinct branches uniformly at random: stripe members) or
    ``round-robin`` (the next ``choose`` branches in turn: NFS connections, SMB channels).
    """

    branches: tuple[tuple["Step", ...], ...]
    choose: int = 1
    pick: Literal["random", "round-robin"] = "random"


class Hold(msgspec.Struct, frozen=True):
    """Run ``steps`` while holding one slot of ``slot_limit`` (waiting FIFO for one)."""

    slot_limit: str
    steps: tuple["Step", ...]


class LoadLaw(msgspec.Struct, frozen=True):
    """How a share's latency rises with the load on its quota: an extra delay of
    ``scale × x^exponent`` seconds with ``x = (u − onset) / (1 − onset)`` clamped to [0, 1],
    ``u`` the utilization of cap ``cap`` (the share's quota, whichever of its IOPS and
    bandwidth binds). Nothing below ``onset``; ``scale`` at a full quota. The simulator
    measures ``u`` as an exponentially weighted rate over ``window`` seconds."""

    cap: str
    scale: float
    onset: float = 0.0
    exponent: float = 1.0
    window: float = 0.01

    def delay(self, u: float) -> float:
        """The extra latency (seconds) at utilization ``u``."""
        x = (min(max(u, 0.0), 1.0) - self.onset) / (1.0 - self.onset) if self.onset < 1.0 else 0.0
        return self.scale * x ** self.exponent if x > 0.0 else 0.0

    def slope(self, u: float) -> float:
        """d delay / d u at utilization ``u`` (0 where the delay is flat)."""
        if not 0.0 <= u < 1.0 or self.onset >= 1.0:
            return 0.0
        x = (u - self.onset) / (1.0 - self.onset)
        return self.scale * self.exponent * x ** (self.exponent - 1.0) / (1.0 - self.onset) if x > 0.0 else 0.0


class Load(msgspec.Struct, frozen=True):
    """Spend the load delay of ``law`` at delay resource ``resource`` (its distribution in
    the simulator). ``bytes`` is the IO's size: what it costs the law's cap, which the
    simulator counts to measure the cap's recent utilization."""

    resource: str
    bytes: int
    law: LoadLaw


Step = Union[Visit, Fork, Hold, Load]


class Class(msgspec.Struct, frozen=True):
    """One stream of IOs of a job: a direction, a cache outcome, an IO size and a route.

    ``probability`` is the share of the job's IOs in this class. When ``cache`` is set the
    simulator decides hit or miss by block address; the analytic engine uses the
    probabilities (the warm hit ratio).
    """

    id: str
    job: str
    direction: Literal["read", "write"]
    probability: float
    bytes: int
    route: tuple[Step, ...]
    outcome: Literal["hit", "miss"] | None = None
    cache: str | None = None
    background: tuple[Step, ...] = ()


class Job(msgspec.Struct, frozen=True):
    """A fio job on one client: ``population`` IOs always outstanding (numjobs × iodepth, or
    numjobs for synchronous engines); ``rate`` (ops/s, whole job) when fio's rate_iops
    limits it; ``think`` (seconds) the wait of each IO slot between an IO's completion and
    the next issue (fio's thinktime, shared by the IOs between two stalls). ``name`` is
    unique in the network; ``group`` is the scenario's job name."""

    name: str
    group: str
    client: int
    population: int
    working_set: int
    rate: float | None = None
    think: float = 0.0
    arrival: Literal["uniform", "poisson"] = "uniform"
    sequential: bool = False
    block: int = 4096


class Network(msgspec.Struct, frozen=True):
    """A compiled scenario: everything both engines need, nothing more."""

    resources: tuple[Resource, ...]
    classes: tuple[Class, ...]
    jobs: tuple[Job, ...]
    slot_limits: tuple[SlotLimit, ...] = ()
    caches: tuple[Cache, ...] = ()
    notes: tuple[str, ...] = ()

    def resource(self, rid: str) -> Resource:
        for r in self.resources:
            if r.id == rid:
                return r
        raise KeyError(rid)

    def to_dict(self) -> dict:
        """Plain data (JSON-ready) for the simulator; steps are tagged ``visit``/``fork``/``hold``."""
        def step(s: Step) -> dict:
            if isinstance(s, Visit):
                return {"visit": _plain(s)}
            if isinstance(s, Fork):
                return {"fork": {"choose": s.choose, "pick": s.pick,
                                 "branches": [[step(x) for x in b] for b in s.branches]}}
            if isinstance(s, Load):
                return {"load": {"resource": s.resource, "bytes": s.bytes, **_plain(s.law)}}
            return {"hold": {"slot_limit": s.slot_limit, "steps": [step(x) for x in s.steps]}}

        job_index = {j.name: i for i, j in enumerate(self.jobs)}
        return {
            "resources": [_plain(r) for r in self.resources],
            "slot_limits": [_plain(s) for s in self.slot_limits],
            "caches": [_plain(c) for c in self.caches],
            "jobs": [_plain(j) for j in self.jobs],
            "classes": [
                {**{k: v for k, v in _plain(c).items() if k not in ("route", "background")},
                 "job": job_index[c.job],
                 "route": [step(s) for s in c.route],
                 "background": [step(s) for s in c.background]}
                for c in self.classes
            ],
        }


def _plain(record: msgspec.Struct) -> dict:
    """A record's fields as a dict, the records among them as dicts too."""
    return {name: _plain(v) if isinstance(v := getattr(record, name), msgspec.Struct) else v
            for name in record.__struct_fields__}


class Flat(msgspec.Struct):
    """A class's route flattened for mean-value analysis.

    ``demand[rid]``: expected service seconds per IO at cap ``rid`` (baseline caps);
    ``response[rid]``: its share of the IO's response time (less than ``demand`` where a
    fork's members run in parallel);
    ``burst_demand[rid]``: the same at burst caps; ``delay``: expected delay seconds per IO;
    ``slots[sid]``: the share of the class's IOs inside slot limit ``sid``;
    ``background[rid]``: service seconds per IO caused off the response path;
    ``load[law]``: the expected passes of one IO through the load delay of ``law``,
    weighed by their share of the response time.
    """

    demand: dict[str, float] = msgspec.field(default_factory=dict)
    response: dict[str, float] = msgspec.field(default_factory=dict)
    burst_demand: dict[str, float] = msgspec.field(default_factory=dict)
    delay: float = 0.0
    slots: dict[str, float] = msgspec.field(default_factory=dict)
    background: dict[str, float] = msgspec.field(default_factory=dict)
    load: dict[LoadLaw, float] = msgspec.field(default_factory=dict)


def walk(steps: tuple[Step, ...], weight: float = 1.0,
         response: float | None = None) -> Iterator[tuple[Step, float, float]]:
    """Every step of a route, nested ones included, as ``(step, visits, response)``.

    ``visits`` is the expected visits per IO: a fork weighs each branch by
    ``choose / len(branches)``. ``response`` is the step's share of the IO's response time:
    a fork's ``choose`` branches run in parallel, so each counts ``1 / len(branches)`` (the
    time of one member, not the sum of the members). Yields visits, load steps and holds; a hold's steps
    follow it."""
    response = weight if response is None else response
    for s in steps:
        if isinstance(s, Fork):
            share = weight * min(s.choose, len(s.branches)) / len(s.branches)
            part = response / len(s.branches)
            for branch in s.branches:
                yield from walk(branch, share, part)
        else:
            yield s, weight, response
            if isinstance(s, Hold):
                yield from walk(s.steps, weight, response)


def flatten(network: Network, cls: Class) -> Flat:
    """Expected demands of one IO of ``cls`` (see :func:`walk` for how forks weigh)."""
    caps = {r.id: r.cap for r in network.resources if r.cap is not None}
    flat = Flat()
    for s, w, rw in walk(cls.route):
        if isinstance(s, Hold):
            flat.slots[s.slot_limit] = flat.slots.get(s.slot_limit, 0.0) + w
            continue
        if isinstance(s, Load):
            flat.load[s.law] = flat.load.get(s.law, 0.0) + rw
            continue
        assert isinstance(s, Visit)
        cap = caps.get(s.resource)
        if cap is None:
            flat.delay += rw * s.latency
        else:
            d = cap.demand(s.bytes)
            flat.demand[s.resource] = flat.demand.get(s.resource, 0.0) + w * d
            flat.response[s.resource] = flat.response.get(s.resource, 0.0) + rw * d
            flat.burst_demand[s.resource] = flat.burst_demand.get(s.resource, 0.0) + w * cap.demand(s.bytes, burst=True)
    for s, w, _ in walk(cls.background):
        if isinstance(s, Visit) and s.resource in caps:
            flat.background[s.resource] = flat.background.get(s.resource, 0.0) + w * caps[s.resource].demand(s.bytes)
    return flat
