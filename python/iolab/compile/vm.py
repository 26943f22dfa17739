"""A client VM's caps: uncached (IO to disks with caching None and cache misses), cached
(IO through the host cache) and network egress (writes to file shares)."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Vm
from ..network import Burst, Cap
from ..scenario import Scenario
from .builder import Builder

IO_UNIT = 256 * 1024
BURST_SECONDS = 1800.0  # VM-level credit bursting lasts 30 minutes from a full bucket


@dataclass(frozen=True)
class ClientVm:
    """Resource ids of one client's VM caps (None where the VM has no such cap)."""

    name: str | None
    uncached: str | None
    cached: str | None
    network: str | None
    cache_size: int | None


def _limit(s: Scenario, vm: Vm | None, field: str) -> float | None:
    lim = s.clients.limits
    value = getattr(lim, field, None) if lim is not None else None
    if value is not None:
        return value
    return getattr(vm, field, None) if vm is not None else None


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
        uncached = b.cap(f"{p}{name} uncached", "vm", Cap(ui, ub, IO_UNIT, burst))
    ci, cb = _limit(s, vm, "cached_iops"), _limit(s, vm, "cached_bandwidth")
    if ci or cb:
        cached = b.cap(f"{p}{name} cached", "vm-cache", Cap(ci, cb, IO_UNIT))
    nb = _limit(s, vm, "network_bandwidth")
    if nb:
        network = b.cap(f"{p}{name} network egress", "network", Cap(None, nb))
    cache_size = _limit(s, vm, "cache_size")
    return ClientVm(vm.id if vm else None, uncached, cached, network, int(cache_size) if cache_size else None)
