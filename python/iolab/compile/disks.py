"""Managed disks on a VM: disk caps (256 KiB IO units), VM cached/uncached caps (a Compute
Engine machine's own caps per disk type, reads and writes apart where they differ),
host cache (ReadOnly, ReadWrite, None) with the warm hit ratio, striping, credit bursting.

Rules (docs/model.md; sources in the catalog rows):
- ReadOnly: hits count against the cached cap only; misses and writes against both.
- ReadWrite: hits and writes against the cached cap (writes see cache latency); the lazy
  flush of writes loads the uncached cap and the disks off the response path.
- None: the uncached cap only.
- Warm hit ratio ``min(1, cache share / working set)``; the VM's cache is shared among its
  cached disks in proportion to their number.
- Performance plus (``performance_plus: true``, the SKUs whose catalog row gives its limits):
  the disk's caps are the raised ones; a credit burst stays only where it is above them.
- On-demand bursting (Premium SSD P30 and larger, ``on_demand_bursting: true``): paid per
  burst transaction with no credit bucket, so the disk's burst caps are its sustained caps.
- Persistent Disk (performance by size): the baseline is per VM, so each of a client's n
  disks of one type gets 1/n of it.
- Striping (RAID-0, stripe size s): an IO of b bytes touches ``ceil(b / s)`` members (one more
  when it is not aligned to the stripe), each carrying an equal part of it.

Amazon EBS volumes on an EC2 instance take the same structure: the instance's EBS-optimized
baseline is its uncached cap, its 30-minute maximum the burst of that cap (a bucket of 30
minutes above the baseline); gp2's I/O credits and st1/sc1's throughput credits are the
volume cap's burst bucket (full at the start, filling at the baseline). EBS counts an IO of
up to ``io_unit`` (256 KiB SSD, 1 MiB HDD) as one and merges physically sequential smaller
IOs up to it: a sequential job's IO of ``p`` bytes per volume reaches the volume's cap as one
merged IO of ``io_unit`` bytes for every ``io_unit / p`` IOs (the share ``p / io_unit`` of its
IOs carries the merged IO; the others only see the volume's latency).
"""

from __future__ import annotations

import math

import msgspec

from ..catalog import DiskSku, ProvisionedDisk, ScaledDisk
from ..errors import RuleViolation
from ..network import Burst, Cap, Class, Delay, Fork, Step, Visit
from ..scenario import DiskGroup, DiskVolume, Scenario, ScenarioJob, resolve_disk
from ..units import format_size
from .builder import Builder, directions, working_set
from .vm import ClientVm

IO_UNIT = 256 * 1024
EBS_TIERS = frozenset({"gp2", "gp3", "io1", "io2", "st1", "sc1"})
"""Disk tiers that merge physically sequential IOs up to their IO unit (Amazon EBS)."""
SEQUENTIAL = frozenset({"read", "write", "rw"})


class Member(msgspec.Struct, frozen=True):
    label: str
    sku: str
    cap: Cap
    size: int
    read_latency: float
    write_latency: float
    merges: bool = False


def _scaled_cap(g: DiskGroup, sku: ScaledDisk) -> tuple[Cap, int]:
    """An EBS gp2/st1/sc1 volume's cap: its caps from its size, its credit bucket as a burst."""
    size = g.size or sku.min_size
    c = sku.caps(size)
    burst = None
    if c.credit_ops or c.credit_bytes:
        burst = Burst(ops_per_s=c.burst_iops if c.credit_ops else None,
                      bytes_per_s=c.burst_bandwidth if c.credit_bytes else None,
                      credit_ops=c.credit_ops, credit_bytes=c.credit_bytes)
    return Cap(c.iops, c.bandwidth, sku.io_unit, burst), size


def _member_cap(g: DiskGroup, sku: DiskSku | ProvisionedDisk | ScaledDisk,
                baseline_share: float = 1.0) -> tuple[Cap, int]:
    if isinstance(sku, ScaledDisk):
        return _scaled_cap(g, sku)
    if isinstance(sku, ProvisionedDisk):
        size = g.size or sku.min_size
        iops, bw = sku.caps(size, g.iops, g.bandwidth, baseline_share)
        return Cap(iops, bw, sku.io_unit or IO_UNIT), size
    plus = sku.performance_plus if g.performance_plus else None  # the scenario rules checked it exists
    iops, bw = g.iops or (plus or sku).iops, g.bandwidth or (plus or sku).bandwidth
    if g.on_demand_bursting and sku.burst and sku.burst.kind == "on-demand":
        # paid per burst transaction, no credit bucket: the burst caps hold for as long as it runs
        return Cap(g.burst_iops or sku.burst.iops, g.burst_bandwidth or sku.burst.bandwidth,
                   sku.io_unit or IO_UNIT), g.size or sku.size
    burst = None
    bi = g.burst_iops or (sku.burst.iops if sku.burst and sku.burst.kind == "credit" else None)
    bb = g.burst_bandwidth or (sku.burst.bandwidth if sku.burst and sku.burst.kind == "credit" else None)
    seconds = (sku.burst.duration if sku.burst and sku.burst.duration else None) or 1800.0
    if (bi and bi > iops) or (bb and bb > bw):
        burst = Burst(
            ops_per_s=bi if bi and bi > iops else None,
            bytes_per_s=bb if bb and bb > bw else None,
            credit_ops=(bi - iops) * seconds if bi and bi > iops else None,
            credit_bytes=(bb - bw) * seconds if bb and bb > bw else None,
        )
    return Cap(iops, bw, sku.io_unit or IO_UNIT, burst), g.size or sku.size


def members(s: Scenario, name: str, vol: DiskVolume, prefix: str) -> list[Member]:
    out: list[Member] = []
    n = 0
    for i, g in enumerate(vol.disks):
        sku = resolve_disk(s.catalog, g.sku, file=s.file, field=f"volumes.{name}.disks[{i}].sku")
        cap, size = _member_cap(g, sku, 1.0 / _same_sku(s, sku.id))
        rl = g.latency if g.latency is not None else sku.read_latency
        wl = g.latency if g.latency is not None else sku.write_latency
        shown = f"{g.sku} performance plus" if g.performance_plus else g.sku
        for _ in range(g.count):
            n += 1
            out.append(Member(f"{prefix}{name}: {shown} #{n}", sku.id, cap, size, rl, wl, sku.tier in EBS_TIERS))
    return out


def _same_sku(s: Scenario, sku: str) -> int:
    """Disks of ``sku`` the scenario attaches to one client: a Persistent Disk's baseline is
    per VM, so each gets this share of it."""
    return max(1, sum(g.count for v in s.volumes.values() if isinstance(v, DiskVolume) for g in v.disks
                      if g.sku.casefold() == sku.casefold()))


def _merged_share(ms: list[Member], fio, nbytes: int, stripe_size: int) -> tuple[float, int] | None:
    """(share of a sequential job's IOs that carry a merged IO, the merged IO's bytes per
    volume) where the volumes merge sequential IO (EBS) and each IO's part is below the IO
    unit; None otherwise (random IO, larger IOs, other disks)."""
    if fio.rw not in SEQUENTIAL or not all(m.merges for m in ms):
        return None
    unit = min(m.cap.io_unit or IO_UNIT for m in ms)
    part = math.ceil(nbytes / touched(nbytes, stripe_size, len(ms)))
    if part >= unit:
        return None
    return part / unit, unit


def touched(nbytes: int, stripe: int, n: int) -> int:
    """Stripe members one IO touches (aligned IOs; one more when sizes do not divide)."""
    if n <= 1:
        return 1
    chunks = math.ceil(nbytes / stripe)
    if nbytes % stripe and stripe % nbytes:
        chunks += 1
    return max(1, min(n, chunks))


def compile_volume(b: Builder, s: Scenario, name: str, vol: DiskVolume, jobs: list[ScenarioJob],
                   client: int, vm: ClientVm) -> None:
    p = b.prefix(client)
    ms = members(s, name, vol, p)
    defaults = s.catalog.defaults
    dist = Delay(defaults.delay_distribution, defaults.delay_cv)
    caps = [b.cap(m.label, "disk", m.cap) for m in ms]
    disk_delay = b.delay(f"{p}{name}: disk latency", "disk", dist)
    caching = vol.disks[0].caching
    capacity = sum(m.size for m in ms)

    cache_id = hit_delay = None
    share = 0
    if caching != "none":
        if not vm.cache_size:
            raise RuleViolation("host-cache-size", f"the host cache size of {vm.name or 'the client'} is not "
                                "published: set clients.limits.cache_size", file=s.file,
                                field=f"volumes.{name}.disks[0].caching")
        cached_disks = sum(g.count for v in s.volumes.values() if isinstance(v, type(vol))
                           for g in v.disks if g.caching != "none")
        share = int(vm.cache_size * len(ms) / max(cached_disks, 1))
        cache_id = b.cache(f"{p}{vm.name or 'client'} host cache ({name})", share, vol.cache == "warm")
        hit_delay = b.delay(f"{p}{vm.name or 'client'} host cache latency", "vm-cache", dist)
        if vm.cached is None:
            b.note(f"{vm.name}: cached limits are not published; cache hits are not capped")
        if vol.cache == "cold":
            b.note(f"{name}: the host cache starts cold; predict gives the warm steady state, "
                   "simulate shows the warm-up")

    def stripe(nbytes: int, carry: int | None = None) -> tuple[Step, ...]:
        m = touched(nbytes, vol.stripe_size, len(ms))
        part = carry or math.ceil(nbytes / m)
        if len(ms) == 1:
            return (Visit(caps[0], part),)
        return (Fork(tuple((Visit(c, part),) for c in caps), choose=m, pick="random"),)

    tier = resolve_disk(s.catalog, vol.disks[0].sku, file=s.file, field=f"volumes.{name}.disks[0].sku").tier

    def uncached(nbytes: int, direction: str = "read") -> tuple[Step, ...]:
        cap = vm.disk_cap(tier, direction)
        return (Visit(cap, nbytes),) if cap else ()

    def cached(nbytes: int) -> tuple[Step, ...]:
        return (Visit(vm.cached, nbytes),) if vm.cached else ()

    for sj in jobs:
        fio = sj.fio
        ws = working_set(fio, capacity)
        job = b.job(fio, client, ws)
        hit = min(1.0, share / ws) if cache_id else 0.0
        for direction, mix, nbytes in directions(fio):
            disk_lat = ms[0].read_latency if direction == "read" else ms[0].write_latency
            disk_lat = max((m.read_latency if direction == "read" else m.write_latency) for m in ms) or disk_lat
            to_disk = stripe(nbytes) + (Visit(disk_delay, nbytes),)
            merged = _merged_share(ms, fio, nbytes, vol.stripe_size)
            if caching == "none" and merged is not None:
                share, unit = merged
                carried = stripe(nbytes, unit) + (Visit(disk_delay, nbytes),)
                route = b.unloaded(uncached(nbytes) + carried, disk_delay, disk_lat)
                b.add_class(Class("", job, direction, mix * share, nbytes, route))
                rest = b.unloaded(uncached(nbytes) + (Visit(disk_delay, nbytes),), disk_delay, disk_lat)
                b.add_class(Class("", job, direction, mix * (1 - share), nbytes, rest))
                continue
            if caching == "none":
                route = b.unloaded(uncached(nbytes, direction) + to_disk, disk_delay, disk_lat)
                b.add_class(Class("", job, direction, mix, nbytes, route))
                continue
            assert hit_delay is not None
            hit_route = b.unloaded(cached(nbytes) + (Visit(hit_delay, nbytes),), hit_delay,
                                   defaults.cache_hit_latency)
            miss_route = b.unloaded(cached(nbytes) + uncached(nbytes) + to_disk, disk_delay, disk_lat)
            if direction == "read":
                # Both outcomes always exist: the simulator decides by block address (a cold
                # cache misses at first even when the warm hit ratio is 1).
                b.add_class(Class("", job, "read", mix * hit, nbytes, hit_route, "hit", cache_id))
                b.add_class(Class("", job, "read", mix * (1 - hit), nbytes, miss_route, "miss", cache_id))
            elif caching == "readonly":
                b.add_class(Class("", job, "write", mix, nbytes, miss_route, None, cache_id))
            else:  # readwrite: the app sees the cache; the flush loads VM and disks later
                b.add_class(Class("", job, "write", mix, nbytes, hit_route, None, cache_id,
                                  background=uncached(nbytes) + stripe(nbytes)))
        if cache_id and ws > share:
            b.note(f"{sj.name}: working set {format_size(ws)} exceeds the host cache share "
                   f"{format_size(share)}: read hit ratio {hit:.0%}")
