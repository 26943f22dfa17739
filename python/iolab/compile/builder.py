"""A small builder that the per-system compilers share: unique ids, client prefixes, jobs,
and the unloaded-latency rule (docs/model.md)."""

from __future__ import annotations

from msgspec.structs import replace

from ..fio import FioJob
from ..network import (Cache, Cap, Class, Delay, Fork, Hold, Job, Network, Resource, SlotLimit,
                       Step, Visit, walk)
from ..fio.sizes import io_sizes

READ_ONLY = {"read", "randread"}
WRITE_ONLY = {"write", "randwrite", "trim", "randtrim"}
SEQUENTIAL = {"read", "write", "rw", "readwrite", "trim", "trimwrite"}


class Builder:
    """Accumulates the network's parts while the compilers walk the scenario."""

    def __init__(self, clients: int = 1):
        self.clients = clients
        self.resources: list[Resource] = []
        self.slot_limits: list[SlotLimit] = []
        self.caches: list[Cache] = []
        self.classes: list[Class] = []
        self.jobs: list[Job] = []
        self.notes: list[str] = []

    def prefix(self, client: int) -> str:
        return f"client {client + 1}: " if self.clients > 1 else ""

    def cap(self, label: str, kind: str, cap: Cap) -> str:
        rid = f"r{len(self.resources)}"
        self.resources.append(Resource(rid, label, kind, cap=cap))  # type: ignore[arg-type]
        return rid

    def delay(self, label: str, kind: str, delay: Delay) -> str:
        rid = f"r{len(self.resources)}"
        self.resources.append(Resource(rid, label, kind, delay=delay))  # type: ignore[arg-type]
        return rid

    def cpu(self, label: str, cores: int) -> str:
        """A pool of ``cores`` client cores (kind ``cpu``), one per label: a cap whose unit of
        work is one core-nanosecond (``bytes_per_s`` = cores × 10⁹), so that the per-IO and
        per-byte cycles of an IO add up (see :func:`work`)."""
        for r in self.resources:
            if r.kind == "cpu" and r.label == label:
                return r.id
        return self.cap(label, "cpu", Cap(None, cores * 1e9))

    def slots(self, label: str, kind: str, slots: int) -> str:
        sid = f"s{len(self.slot_limits)}"
        self.slot_limits.append(SlotLimit(sid, label, kind, slots))  # type: ignore[arg-type]
        return sid

    def cache(self, label: str, size: int, warm: bool) -> str:
        cid = f"c{len(self.caches)}"
        self.caches.append(Cache(cid, label, size, warm))
        return cid

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def job(self, fio: FioJob, client: int, working_set: int) -> str:
        name = f"{fio.name}@{client + 1}" if self.clients > 1 else fio.name
        rate = fio.rate_iops * fio.numjobs if fio.rate_iops else None
        self.jobs.append(Job(
            name=name, group=fio.name, client=client, population=fio.outstanding,
            working_set=max(int(working_set), fio.bs), rate=rate, think=fio.think,
            arrival="poisson" if fio.rate_process == "poisson" else "uniform",
            sequential=fio.rw in SEQUENTIAL, block=fio.bs,
        ))
        return name

    def add_class(self, cls: Class) -> None:
        self.classes.append(replace(cls, id=f"k{len(self.classes)}"))

    def demand(self, steps: tuple[Step, ...]) -> float:
        """Cap time (seconds) one IO alone spends on ``steps``: a fork's members run in
        parallel, so they count once (see :func:`iolab.network.walk`)."""
        caps = {r.id: r.cap for r in self.resources if r.cap is not None}
        return sum(rw * caps[s.resource].demand(s.bytes) for s, _, rw in walk(steps)
                   if isinstance(s, Visit) and s.resource in caps)

    def unloaded(self, steps: tuple[Step, ...], delay_id: str, latency: float) -> tuple[Step, ...]:
        """The unloaded-latency rule: set the visits to ``delay_id`` in ``steps`` to the stated unloaded
        ``latency`` minus the cap time of one IO alone on the whole route (never below zero;
        a fork's parallel members count once), so that one IO alone takes exactly the stated
        latency."""
        adjusted = max(0.0, latency - self.demand(steps))

        def fix(ss: tuple[Step, ...]) -> tuple[Step, ...]:
            out: list[Step] = []
            for s in ss:
                if isinstance(s, Visit) and s.resource == delay_id:
                    out.append(replace(s, latency=adjusted))
                elif isinstance(s, Fork):
                    out.append(replace(s, branches=tuple(fix(br) for br in s.branches)))
                elif isinstance(s, Hold):
                    out.append(replace(s, steps=fix(s.steps)))
                else:
                    out.append(s)
            return tuple(out)

        return fix(steps)

    def network(self) -> Network:
        """The network, without resources and slot limits that no route visits."""
        used = {s.slot_limit if isinstance(s, Hold) else s.resource  # type: ignore[union-attr]
                for c in self.classes for steps in (c.route, c.background) for s, _, _ in walk(steps)}
        return Network(tuple(r for r in self.resources if r.id in used), tuple(self.classes), tuple(self.jobs),
                       tuple(s for s in self.slot_limits if s.id in used), tuple(self.caches), tuple(self.notes))


def work(cpu: str, seconds: float) -> Visit:
    """A visit to a :meth:`Builder.cpu` pool costing ``seconds`` of one core."""
    return Visit(cpu, max(1, round(seconds * 1e9)))


def directions(fio: FioJob) -> list[tuple[str, float, int]]:
    """(direction, share of the job's IOs, IO size) for each direction and size the job issues
    (several sizes with ``bssplit`` or ``bsrange``; see :mod:`iolab.fio.sizes`)."""
    if fio.rw in READ_ONLY:
        mix = {"read": 1.0}
    elif fio.rw in WRITE_ONLY:
        mix = {"write": 1.0}
    else:
        mix = {"read": fio.read_fraction, "write": 1.0 - fio.read_fraction}
    sizes = io_sizes(fio)
    return [(d, share * part, size) for d, share in mix.items() if share > 0 for size, part in sizes[d]]


def working_set(fio: FioJob, default: int) -> int:
    """Bytes a job touches: ``size`` (or filesize × nrfiles) for each of its numjobs clones."""
    per_job = fio.size or ((fio.filesize or 0) * max(fio.nrfiles, 1)) or default
    return per_job * fio.numjobs
