"""A client VM's caps: uncached (IO to disks with caching None and cache misses), a Compute
Engine machine's own caps per disk type (reads and writes apart where they differ), cached
(IO through the host cache), network egress (writes to file shares), network receive (reads
from file shares), and its cores (``cpus``: ``clients.cpus``, else the VM's vCPUs)."""

from __future__ import annotations

import msgspec

from ..catalog import Vm
from ..network import Burst, Cap
from ..scenario import Scenario
from .builder import Builder

IO_UNIT = 256 * 1024
BURST_SECONDS = 1800.0  # VM-level credit bursting lasts 30 minutes from a full bucket
#: Receive capacity over the VM's expected (egress) network bandwidth, where no receive figure
#: is given: an assumption (docs/model.md). Azure meters egress only; the Oracle tests on
#: Azure NetApp Files received 3,900 MB/s into a Standard_D32s_v3 rated 16,000 Mbit/s (1.95x).
RECEIVE_PER_EGRESS = 2.5


class ClientVm(msgspec.Struct, frozen=True):
    """Resource ids of one client's VM caps (None where the VM has no such cap)."""

    name: str | None
    uncached: str | None
    cached: str | None
    network: str | None
    cache_size: int | None
    receive: str | None = None
    cpus: int | None = None
    prefix: str = ""
    #: The machine's own caps over its disks of one type (Compute Engine), by tier: the cap
    #: ids that reads and that writes visit (one cap when the limits of both are the same).
    tier_caps: dict[str, tuple[str, str]] = msgspec.field(default_factory=dict)

    def disk_cap(self, tier: str, direction: str) -> str | None:
        """The cap an IO to a disk of ``tier`` visits at the VM: the machine's own cap for the
        tier and direction where it has one, else the uncached cap (None: no cap)."""
        if tier in self.tier_caps:
            read, write = self.tier_caps[tier]
            return read if direction == "read" else write
        return self.uncached

    def cores(self, b: Builder, limit: int | None = None) -> str | None:
        """The pool of this client's cores that a protocol stack (at most ``limit`` cores, its
        RSS bound) or a device driver runs on; None when the client's cores are unknown."""
        if not self.cpus:
            return None
        n = min(self.cpus, limit) if limit else self.cpus
        name = self.name or "client"
        why = f"{n} of {self.cpus} vCPUs: RSS" if n < self.cpus else f"{n} vCPUs"
        return b.cpu(f"{self.prefix}{name} cores ({why})", n)


def _limit(s: Scenario, vm: Vm | None, field: str) -> float | None:
    lim = s.clients.limits
    value = getattr(lim, field, None) if lim is not None else None
    if value is not None:
        return value
    return getattr(vm, field, None) if vm is not None else None


VM_CAP_NAMES = {"aws": "EBS limit"}
"""What a VM's cap on all its disks is called where its cloud does not say "uncached" (an
EC2 instance's EBS-optimized limit); Azure's is the VM's uncached cap."""


def client_vm(b: Builder, s: Scenario, client: int) -> ClientVm:
    vm = s.catalog.vm(s.clients.vm) if s.clients.vm else None
    name = vm.id if vm else "client"
    p = b.prefix(client)
    uncached = cached = network = None
    ui, ub = _limit(s, vm, "uncached_iops"), _limit(s, vm, "uncached_bandwidth")
    if ui or ub:
        bi, bb = _limit(s, vm, "burst_iops"), _limit(s, vm, "burst_bandwidth")
        burst = None
        if (bi and ui and bi > ui) or (bb and ub and bb > ub):
            burst = Burst(
                ops_per_s=bi if bi and ui and bi > ui else None,
                bytes_per_s=bb if bb and ub and bb > ub else None,
                credit_ops=(bi - ui) * BURST_SECONDS if bi and ui and bi > ui else None,
                credit_bytes=(bb - ub) * BURST_SECONDS if bb and ub and bb > ub else None,
            )
        uncached = b.cap(f"{p}{name} {VM_CAP_NAMES.get(vm.cloud if vm else '', 'uncached')}", "vm",
                         Cap(ui, ub, IO_UNIT, burst))
    ci, cb = _limit(s, vm, "cached_iops"), _limit(s, vm, "cached_bandwidth")
    if ci or cb:
        cached = b.cap(f"{p}{name} cached", "vm-cache", Cap(ci, cb, IO_UNIT))
    nb = _limit(s, vm, "network_bandwidth")
    if nb:
        network = b.cap(f"{p}{name} network egress", "network", Cap(None, nb))
    rb = _limit(s, vm, "receive_bandwidth") or (nb * RECEIVE_PER_EGRESS if nb else None)
    receive = b.cap(f"{p}{name} network receive", "receive", Cap(None, rb)) if rb else None
    cache_size = _limit(s, vm, "cache_size")
    cpus = s.clients.cpus or (vm.vcpus if vm else None)
    tiers: dict[str, tuple[str, str]] = {}
    for tier in (vm.disk_limits or {}) if vm else ():
        (ri, rb), (wi, wb) = vm.disk_caps(tier)  # type: ignore[misc, union-attr]
        if (ri, rb) == (wi, wb):
            one = b.cap(f"{p}{name} {tier} limit", "vm", Cap(ri, rb, IO_UNIT))
            tiers[tier] = (one, one)
        else:
            tiers[tier] = (b.cap(f"{p}{name} {tier} read limit", "vm", Cap(ri, rb, IO_UNIT)),
                           b.cap(f"{p}{name} {tier} write limit", "vm", Cap(wi, wb, IO_UNIT)))
    return ClientVm(vm.id if vm else None, uncached, cached, network, int(cache_size) if cache_size else None,
                    receive, cpus, p, tiers)
