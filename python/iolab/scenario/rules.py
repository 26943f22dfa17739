"""The scenario's rules that need the catalog: every disk SKU, VM size and service level
known, and each combination one the cloud sells (host caching, performance plus, on-demand
bursting, disk types a VM takes, share sizes, QoS, protocols, connections, session slots),
all parts in one cloud. Each violation is a :class:`~iolab.errors.RuleViolation` naming its
rule, the file and the field.
"""

from __future__ import annotations

from typing import Callable

from ..articles import a
from ..catalog import Catalog, DiskSku, ProvisionedDisk, ScaledDisk
from ..catalog.cloud import Part, one_cloud
from ..errors import InputError, RuleViolation, SchemaError, UnknownIdError
from ..units import TiB, format_limit, format_size
from .models import DiskVolume, Scenario, ShareVolume, check_outstanding

__all__ = ["check_rules", "cloud_parts", "resolve_disk"]


def check_rules(s: Scenario) -> None:
    """The constraint checks that belong to loading (each names its rule)."""
    check_outstanding(s)
    cat, f = s.catalog, s.file
    vm = None
    if s.clients.vm is not None:
        vm = cat.vm(s.clients.vm) if s.clients.vm in cat.vms else None
        if vm is None:
            raise UnknownIdError("VM size", s.clients.vm, cat.vms, file=f, field="clients.vm")
    total_disks = 0
    for name, vol in s.volumes.items():
        if isinstance(vol, DiskVolume):
            modes = {g.caching for g in vol.disks}
            if len(modes) > 1:
                raise RuleViolation("uniform-caching", "all disks striped into one volume need the same "
                                    "host-cache setting; put cached disks in a volume of their own",
                                    file=f, field=f"volumes.{name}.disks")
            for i, g in enumerate(vol.disks):
                field = f"volumes.{name}.disks[{i}]"
                sku = resolve_disk(cat, g.sku, file=f, field=f"{field}.sku")
                total_disks += g.count
                if isinstance(sku, ProvisionedDisk):
                    if g.size is None:
                        raise SchemaError(f"{a(sku.id)} disk needs its provisioned size", file=f, field=f"{field}.size")
                    try:
                        sku.caps(g.size, g.iops, g.bandwidth)
                    except InputError as e:
                        raise e.located(file=f, field=field) from None
                if isinstance(sku, ScaledDisk):
                    if g.size is None:
                        raise SchemaError(f"{a(sku.id)} volume needs its size (its IOPS and throughput follow "
                                          "from it)", file=f, field=f"{field}.size")
                    try:
                        sku.check_size(g.size)
                    except InputError as e:
                        raise e.located(file=f, field=f"{field}.size") from None
                if g.on_demand_bursting and not (isinstance(sku, DiskSku) and sku.burst
                                                 and sku.burst.kind == "on-demand"):
                    raise RuleViolation("on-demand-bursting", f"on-demand bursting exists only on Premium SSD "
                                        f"disks larger than 512 GiB (P30 and up), not {sku.id}", file=f,
                                        field=f"{field}.on_demand_bursting")
                if g.performance_plus and not (isinstance(sku, DiskSku) and sku.performance_plus):
                    raise RuleViolation("performance-plus", f"performance plus exists only on the disk sizes the "
                                        f"catalog gives its limits ({_plus_skus(cat)}), not {sku.id}", file=f,
                                        field=f"{field}.performance_plus")
                if vm is not None and not vm.takes(sku.tier):
                    raise RuleViolation("disk-type", f"{vm.id} takes no {sku.tier} disks (it takes "
                                        f"{', '.join(vm.disk_types or ())})", file=f, field=f"{field}.sku")
                premium = sku.tier in ("premium", "premium-v2", "ultra")
                if premium and vm is not None and not vm.premium_storage:
                    raise RuleViolation("premium-storage", f"{vm.id} does not take premium disks ({sku.id} is "
                                        f"{sku.tier})", file=f, field=f"{field}.sku")
                caching_ok = sku.host_caching if isinstance(sku, DiskSku) else False
                if isinstance(sku, DiskSku) and g.size is not None:
                    caching_ok = caching_ok and g.size < 4 * TiB
                if g.caching != "none" and not caching_ok:
                    raise RuleViolation("host-caching", f"host caching exists only for disks under 4 TiB and "
                                        f"never for Ultra or Premium SSD v2 ({sku.id})", file=f,
                                        field=f"{field}.caching")
                if g.caching != "none" and vm is None and not (s.clients.limits and s.clients.limits.cache_size):
                    raise RuleViolation("host-caching", "host caching needs a client VM (clients.vm) or "
                                        "clients.limits.cache_size", file=f, field=f"{field}.caching")
        elif isinstance(vol, ShareVolume):
            _check_share(s, name, vol)
    one_cloud(cloud_parts(s), file=f)
    if vm is not None and total_disks > vm.max_data_disks:
        raise RuleViolation("max-data-disks", f"{vm.id} takes at most {vm.max_data_disks} data disks; the "
                            f"scenario attaches {total_disks}", file=f, field="volumes")


def cloud_parts(s: Scenario) -> list[Part]:
    """The scenario's parts that belong to a cloud: its client VM, disks and share levels
    (each already known to the catalog)."""
    cat = s.catalog
    parts = []
    if s.clients.vm is not None:
        parts.append(Part("clients.vm", s.clients.vm, "VM size", cat.vm(s.clients.vm).cloud))
    for name, vol in s.volumes.items():
        if isinstance(vol, DiskVolume):
            parts += [Part(f"volumes.{name}.disks[{i}].sku", g.sku, "disk", cat.disk(g.sku).cloud)
                      for i, g in enumerate(vol.disks)]
        elif isinstance(vol, ShareVolume):
            level = cat.service(vol.service, vol.level)
            parts.append(Part(f"volumes.{name}.service", level.id, "service level", level.cloud))
    return parts


def _plus_skus(cat: Catalog) -> str:
    """The SKUs with performance plus limits, runs of one family written as ranges
    (``P30–P80, E30–E80, S30–S80``)."""
    runs: list[list[str]] = []
    for sku in cat.disks.values():  # catalog order: each family by size
        if sku.performance_plus is None:
            continue
        if runs and runs[-1][-1].rstrip("0123456789") == sku.id.rstrip("0123456789"):
            runs[-1].append(sku.id)
        else:
            runs.append([sku.id])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs) or "none"


def resolve_disk(cat: Catalog, sku: str, *, file: str, field: str) -> DiskSku | ProvisionedDisk | ScaledDisk:
    known = list(cat.disks) + list(cat.provisioned) + list(cat.scaled)
    if sku not in known:
        raise UnknownIdError("disk SKU", sku, known, file=file, field=field)
    return cat.disk(sku)


def _span(low: float | None, high: float | None, fmt: Callable[[float], str]) -> str:
    """``low to high``, or ``at least low`` / ``at most high`` where one bound is not given."""
    if low is not None and high is not None:
        return f"{fmt(low)} to {fmt(high)}"
    return f"at least {fmt(low)}" if low is not None else f"at most {fmt(high)}" if high is not None else "any"


def _check_share(s: Scenario, name: str, vol: ShareVolume) -> None:
    f, field = s.file, f"volumes.{name}"
    cat = s.catalog
    try:
        level = cat.service(vol.service, vol.level)
    except InputError as e:
        raise e.located(file=f, field=f"{field}.level") from None
    if vol.protocol != "smb3" and (vol.signing or vol.encryption):
        which = "signing" if vol.signing else "encryption"
        raise RuleViolation("smb-only", f"{which} applies to SMB only (protocol is {vol.protocol})", file=f,
                            field=f"{field}.{which}")
    if vol.tls and vol.protocol not in ("nfs3", "nfs4.1"):
        raise RuleViolation("nfs-only", "tls applies to the kernel NFS client only (nfs3, nfs4.1)", file=f,
                            field=f"{field}.tls")
    if vol.service == "azure-files" and vol.protocol in ("nfs3", "dnfs"):
        raise RuleViolation("azure-files-protocols", "Azure Files premium serves NFS 4.1 and SMB 3, not NFSv3 "
                            "(which Direct NFS speaks)", file=f, field=f"{field}.protocol")
    if vol.protocol == "dnfs" and vol.nconnect is not None:
        raise RuleViolation("dnfs-connections", "Direct NFS opens a connection per database process (numjobs), "
                            "not a mount's nconnect", file=f, field=f"{field}.nconnect")
    lo, hi = (level.large_min_size, level.large_max_size) if vol.large else (level.min_size, level.max_size)
    if vol.large and lo is None:
        raise RuleViolation("large-volume", f"{level.id} has no large volumes", file=f, field=f"{field}.large")
    if lo is not None and vol.size < lo or hi is not None and vol.size > hi:
        kind = "large volume" if vol.large else "volume"
        raise RuleViolation(f"{kind}-size", f"{a(level.id)} {kind} is {format_size(lo)} to {format_size(hi)}; "
                            f"{format_size(vol.size)} is outside", file=f, field=f"{field}.size")
    if vol.throughput is None and level.rate_per_tib is None and not level.provisioned and vol.service != "azure-files":
        raise RuleViolation("manual-qos", f"{level.id} volumes get their throughput by manual QoS only: give "
                            "a throughput", file=f, field=f"{field}.throughput")
    if vol.iops is not None and not level.provisioned:
        raise RuleViolation("provisioned", f"{level.id} has no provisioned IOPS: its IOPS follow its size", file=f,
                            field=f"{field}.iops")
    # the pool's size first: the budget below is only defined for a pool in range
    if vol.pool is not None:
        if vol.pool < vol.size:
            raise RuleViolation("pool-size", "a pool holds its volumes: pool must be at least the volume's size",
                                file=f, field=f"{field}.pool")
        plo, phi = level.pool_min_size, level.pool_max_size
        if plo is not None and vol.pool < plo or phi is not None and vol.pool > phi:
            raise RuleViolation("pool-size", f"{a(level.id)} pool is {_span(plo, phi, format_size)}",
                                file=f, field=f"{field}.pool")
    if level.provisioned:
        for name, value, low, high, fmt in (
                ("iops", vol.iops, level.min_iops, level.max_iops, lambda v: f"{v:,.0f} IOPS"),
                ("throughput", vol.throughput, level.volume_min_throughput, level.max_throughput,
                 format_limit)):
            if value is not None and (low is not None and value < low or high is not None and value > high):
                raise RuleViolation("provisioned", f"a {level.id} share is provisioned with {_span(low, high, fmt)}; "
                                    f"{fmt(value)} asked", file=f, field=f"{field}.{name}")
    elif vol.throughput is not None:
        if not level.manual_qos:
            raise RuleViolation("manual-qos", f"{level.id} has no manual QoS: its throughput follows its size",
                                file=f, field=f"{field}.throughput")
        vmax = level.volume_max_throughput
        if vol.large and level.large_max_throughput:
            vmax = level.large_max_throughput
        if vmax is not None and vol.throughput > vmax * (1 + 1e-9):
            raise RuleViolation("volume-max-throughput", f"one {level.id} volume is capped at "
                                f"{format_limit(vmax)}; {format_limit(vol.throughput)} "
                                "asked", file=f, field=f"{field}.throughput")
        vmin = level.volume_min_throughput
        if vmin is not None and vol.throughput < vmin:
            raise RuleViolation("volume-min-throughput", f"a manual-QoS volume gets at least "
                                f"{format_limit(vmin)}", file=f, field=f"{field}.throughput")
        if vol.pool is not None:
            budget = level.pool_budget(vol.pool)
            if vol.throughput > budget * (1 + 1e-9):
                raise RuleViolation("pool-budget", f"{a(format_size(vol.pool))} {level.id} pool has "
                                    f"{format_limit(budget)} to assign; the volume asks "
                                    f"{format_limit(vol.throughput)}", file=f,
                                    field=f"{field}.throughput")
    proto = cat.protocol(vol.protocol)
    if vol.nconnect is not None and vol.nconnect > proto.max_nconnect:
        raise RuleViolation("nconnect", f"at most {proto.max_nconnect} connections", file=f,
                            field=f"{field}.nconnect")
    if vol.protocol == "smb3" and level.max_smb_channels and (vol.nconnect or proto.channels_per_nic or 1) \
            > level.max_smb_channels:
        raise RuleViolation("smb-channels", f"{level.id} takes at most {level.max_smb_channels} SMB multichannel "
                            "channels per client", file=f, field=f"{field}.nconnect")
    if vol.session_slots is not None:
        if vol.protocol != "nfs4.1":
            raise RuleViolation("session-slots", "session slots exist in NFSv4.1 only", file=f,
                                field=f"{field}.session_slots")
        if proto.session_slots_max and vol.session_slots > proto.session_slots_max:
            raise RuleViolation("session-slots", f"the server grants at most {proto.session_slots_max} "
                                "session slots", file=f, field=f"{field}.session_slots")
