"""What limits a workload, chosen and worded once for both engines.

The rule (docs/model.md): the busiest cap when it is at least 90 % busy (:data:`SATURATION`);
else a slot limit that more IOs want to enter than it has slots (the simulator: whose slots
were nearly always all in use); else nothing is saturated and the workload's concurrency
holds it — because fio's rate limit paces the jobs, because their thinktime stalls them, or
because they keep too few IOs in flight.

:class:`Bottleneck` carries that choice as data (``kind``, ``resource``, ``utilization``,
``why``); :meth:`Bottleneck.sentence` is the one sentence every interface prints.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import msgspec

from .units import format_percent

if TYPE_CHECKING:
    from .network import Network
    from .prediction import Prediction
    from .sim import Simulation

__all__ = ["WHY", "Bottleneck", "of_prediction", "of_simulation", "KIND_WORDS", "VM_WORDS", "vm_words", "rate_bound", "rate_words", "explain", "reach_text",
           "think_words"]

#: why a bottleneck was chosen: a cap at least 90 % busy, a full slot limit, fio's rate
#: limit, the jobs' thinktime, or too few IOs in flight
WHY = ("saturated", "slots", "rate", "thinktime", "concurrency")

KIND_WORDS = {
    "disk": "the disks limit", "vm": "the VM's uncached limit caps", "vm-cache": "the VM's cached limit caps",
    "network": "the VM's network egress caps", "connection": "the client's connections limit",
    "session": "the NFSv4.1 session slots limit", "service": "the service's throughput limit caps",
    "device": "the device limits", "client": "the client limits", "cpu": "the client's cores limit",
    "receive": "what the VM can receive caps", "file": "one file's limit caps",
}

#: a slot limit whose slots the simulator found in use this share of the time is full
SLOTS_FULL = 0.99


class Bottleneck(msgspec.Struct, frozen=True):
    """What limits the workload.

    ``kind``: the resource kind (docs/model.md) or ``concurrency``; ``resource``: its label
    (``concurrency`` when nothing saturates); ``utilization``: a cap's utilization, a slot
    limit's IOs wanting in per slot, or (concurrency) the busiest cap's utilization;
    ``why``: one of :data:`WHY`. ``busiest``: the busiest cap's label when nothing is
    saturated; ``rate``: (job, IOPS limit of all its clones) for jobs held at fio's rate;
    ``thinking``: the words for jobs with a thinktime; ``outstanding``: IOs in flight."""

    kind: str
    resource: str
    utilization: float
    why: str
    busiest: str | None = None
    rate: tuple[tuple[str, float], ...] = ()
    thinking: str | None = None
    outstanding: float = 0.0

    def to_json(self) -> dict:
        doc = {"resource": self.resource, "kind": self.kind, "utilization": round(self.utilization, 4),
               "why": self.why}
        if self.why in ("concurrency", "rate", "thinktime"):
            doc["busiest"] = self.busiest
        if self.why == "rate":
            doc["rate"] = [{"job": job, "iops": round(limit, 1)} for job, limit in self.rate]
        if self.why == "thinktime":
            doc["thinktime"] = self.thinking
        return doc

    @classmethod
    def from_json(cls, doc: dict) -> Bottleneck:
        """From a predict or simulate document's ``bottleneck`` (one without ``why``, of an
        earlier version, is read by its kind)."""
        kind = str(doc.get("kind") or "concurrency")
        why = doc.get("why") or ("concurrency" if kind == "concurrency" else "saturated")
        rate = tuple((str(r.get("job")), float(r.get("iops") or 0.0)) for r in doc.get("rate") or []
                     if isinstance(r, dict))
        return cls(kind, str(doc.get("resource") or kind), float(doc.get("utilization") or 0.0), why,
                   doc.get("busiest"), rate, doc.get("thinktime"), float(doc.get("outstanding") or 0.0))

    def sentence(self, reach: str | None = None) -> str:
        """The bottleneck in one sentence; `reach` (predict's) says how many IOs in flight
        would come near the most the path allows."""
        tail = f"; {reach}" if reach else ""
        if self.why == "rate":
            words = rate_words(list(self.rate)) if self.rate else \
                "the rate limit (fio's rate_iops or rate) holds it, not the storage"
            return f"{_cap(words)} (busiest resource {_pct(self.utilization)})."
        if self.why == "thinktime":
            words = self.thinking or "the jobs' thinktime (fio's stall between IOs) holds it, not the storage"
            return f"{_cap(words)} (busiest resource {_pct(self.utilization)}){tail}."
        if self.why == "concurrency":
            busiest = f"{self.busiest}, {_pct(self.utilization)}" if self.busiest else "no caps"
            held = f" ({self.outstanding:,.4g})" if self.outstanding else ""
            return (f"Nothing is saturated (busiest resource: {busiest}): the workload keeps too few IOs in flight"
                    f"{held} to fill any limit{tail}.")
        if self.why == "slots":
            words = KIND_WORDS.get(self.kind, self.kind) if self.kind in ("session", "connection") else "slots limit"
            if self.utilization <= 1.0:  # the simulator's share of the time every slot was in use
                return (f"{_cap(words)} it: every slot of {self.resource} was in use {_pct(self.utilization)} of the "
                        "time; the rest wait at the client.")
            return (f"{_cap(words)} it: {self.resource} has {self.utilization:.1f}× "
                    "as many IOs wanting in as it has slots; the rest wait at the client.")
        words = vm_words(self.resource) + " caps" if self.kind == "vm" else KIND_WORDS.get(self.kind, self.kind)
        if self.utilization > 1.0005:  # the simulator's cap ran on burst credits above what it sustains
            return (f"{_cap(words)} it: {self.resource} is busy at {format_percent(self.utilization, 1)} of its "
                    "sustained rate, on burst credits.")
        return f"{_cap(words)} it: {self.resource} is {format_percent(self.utilization, 1)} busy."


VM_WORDS = {"azure": "the VM's uncached limit", "aws": "the instance's EBS limit", "gcp": "the machine's disk limit"}
"""How a VM's cap on its disks reads in each cloud: Azure's uncached limit, an EC2
instance's EBS limit, a Compute Engine machine's limit per disk type."""


def vm_words(resource: str) -> str:
    """:data:`VM_WORDS` for the cloud a VM cap's label names (``m6i.xlarge EBS limit``,
    ``n2-standard-8 pd-ssd limit``, ``Standard_DS13 uncached``)."""
    if resource.endswith(" EBS limit"):
        return VM_WORDS["aws"]
    return VM_WORDS["gcp"] if resource.endswith(" limit") else VM_WORDS["azure"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _held(network: Network, group_iops: dict[str, float], busiest: str | None, utilization: float,
          outstanding: float) -> Bottleneck:
    """Nothing saturated: held by fio's rate limit, the jobs' thinktime, or too few IOs."""
    bound = tuple(rate_bound(network, group_iops))
    if bound:
        return Bottleneck("concurrency", "concurrency", utilization, "rate", busiest, bound, None, outstanding)
    thinking = think_words(network)
    why = "thinktime" if thinking else "concurrency"
    return Bottleneck("concurrency", "concurrency", utilization, why, busiest, (), thinking, outstanding)


def of_prediction(p: Prediction) -> Bottleneck:
    """The analytic engine's bottleneck (:func:`iolab.analytic.solve` chose the resource)."""
    sol = p.solution
    b = sol.bottleneck
    if b.kind != "concurrency":
        slot = any(s.id == b.id for s in sol.slots)
        return Bottleneck(b.kind, b.label, b.utilization, "slots" if slot else "saturated",
                          outstanding=sol.outstanding)
    groups: dict[str, float] = {}
    for j in p.network.jobs:
        groups[j.group] = groups.get(j.group, 0.0) + sol.job_iops.get(j.name, 0.0)
    top = max(sol.resources, key=lambda r: r.utilization, default=None)
    return _held(p.network, groups, top.label if top else None, b.utilization, sol.outstanding)


def of_simulation(network: Network, sim: Simulation, loads: dict[str, float] | None = None) -> Bottleneck:
    """The simulator's bottleneck by the same rule: the busiest cap when at least 90 % busy
    (at the rate it ran, burst or not), else a slot limit whose slots were nearly always all
    in use, else what holds the concurrency. ``utilization`` is predict's (``loads``, see
    :func:`iolab.sim_reading.cap_loads`) where given."""
    from .analytic import SATURATION

    loads = loads or {}
    outstanding = sum(j.population for j in network.jobs)
    caps = [r for r in sim.resources if r.slots is None]
    slots = [r for r in sim.resources if r.slots is not None]
    top = max(caps, key=lambda r: r.utilization, default=None)
    if top is not None and top.utilization >= SATURATION:
        return Bottleneck(top.kind, top.resource, loads.get(top.id, top.utilization), "saturated",
                          outstanding=outstanding)
    full = max(slots, key=lambda r: r.utilization, default=None)
    if full is not None and full.utilization >= SLOTS_FULL:
        return Bottleneck(full.kind, full.resource, full.utilization, "slots", outstanding=outstanding)
    busiest = max(caps, key=lambda r: loads.get(r.id, r.utilization), default=None)
    groups = {j.name: j.iops for j in sim.jobs if j.name} if sim.jobs else {network.jobs[0].group: sim.total.iops}
    return _held(network, groups, busiest.resource if busiest else None,
                 loads.get(busiest.id, busiest.utilization) if busiest else 0.0, outstanding)


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


def _pct(u: float) -> str:
    """A utilization as the sentence shows it, from the figure the JSON carries (rounded to
    four digits first), so a sentence read back from JSON (a report) says the same."""
    return format_percent(round(u, 4))


def rate_words(bound: list[tuple[str, float]]) -> str:
    """``the rate limit (fio's rate_iops or rate) holds it, not the storage: job oltp at 4,000 IOPS``."""
    jobs = "; ".join(f"job {g} at {lim:,.0f} IOPS" for g, lim in bound)
    return f"the rate limit (fio's rate_iops or rate) holds it, not the storage: {jobs}"


def reach_text(p: Any) -> str:
    """How many IOs in flight give 90 % of the most a prediction's path allows (as a sweep
    would show); `p` is a :class:`~iolab.prediction.Prediction`."""
    import math

    from .units import format_ops

    if not math.isfinite(p.upper_iops):
        return "nothing caps the path, so more IOs in flight give more IOPS"
    if p.reach_90 is None:
        return f"no concurrency reaches 90 % of {format_ops(p.upper_iops)}"
    return (f"about {p.reach_90:.0f} in flight give 90 % of the most the path allows "
            f"({format_ops(0.9 * p.upper_iops)} of {format_ops(p.upper_iops)})")


def explain(p: Any) -> str:
    """A prediction's bottleneck in the one sentence every interface prints
    (:meth:`Bottleneck.sentence` with :func:`reach_text`)."""
    return p.bottleneck.sentence(reach_text(p))
