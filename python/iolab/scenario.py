"""Scenario files (``iolab predict``, ``iolab simulate``, ``iolab bench run``): typed,
validated once, catalog ids resolved, defaults applied as fio applies them.

The format is docs/scenario.md's. Jobs use fio's vocabulary: a mapping of fio options, a fio
command line (``fio: "..."``) or a fio job file (``fio_file: path``, relative to the
scenario). Every violation raises an :class:`~iolab.errors.InputError` naming the file,
the field path and the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from .catalog import Catalog, DiskSku, ProvisionedDisk, ScaledDisk, load_catalog
from .catalog.cloud import Part, one_cloud
from .errors import InputError, RuleViolation, SchemaError, UnknownIdError
from .fio import FioJob, parse_cmdline, parse_jobfile
from .fio.options import MODELLED_OPTIONS
from .inputs import read_text
from .schema import (MAX_DURATION, MAX_OPS, MAX_RATE, MAX_SIZE, MIN_OPS, MIN_RATE, FrozenModel, load_yaml, name_text,
                     relative_files, top_level, validate)
from .units import TiB, format_rate, format_size, parse_duration, parse_ops_rate, parse_rate, parse_size
from .articles import a

__all__ = [
    "Size",
    "Rate",
    "OpsRate",
    "Duration",
    "ClientLimits",
    "Clients",
    "DiskGroup",
    "DiskVolume",
    "Connection",
    "ShareVolume",
    "Device",
    "DeviceVolume",
    "Volume",
    "ScenarioJob",
    "Scenario",
    "load_scenario",
    "read_scenario",
    "parse_scenario",
    "parse_jobs",
]

# value ranges: see iolab.schema (MAX_SIZE ...)
Size = Annotated[int, BeforeValidator(parse_size), Field(gt=0, le=MAX_SIZE)]
Rate = Annotated[float, BeforeValidator(parse_rate), Field(gt=0), Field(ge=MIN_RATE, le=MAX_RATE)]
OpsRate = Annotated[float, BeforeValidator(parse_ops_rate), Field(gt=0), Field(ge=MIN_OPS, le=MAX_OPS)]
Duration = Annotated[float, BeforeValidator(parse_duration), Field(ge=0, le=MAX_DURATION)]


class _Model(FrozenModel):
    """Input models of the scenario (no coercion across kinds, see iolab.schema)."""


class ClientLimits(_Model):
    """Overrides of the client VM's catalog values."""

    uncached_iops: OpsRate | None = None
    uncached_bandwidth: Rate | None = None
    cached_iops: OpsRate | None = None
    cached_bandwidth: Rate | None = None
    cache_size: Size | None = None
    network_bandwidth: Rate | None = None
    burst_iops: OpsRate | None = None
    burst_bandwidth: Rate | None = None
    receive_bandwidth: Rate | None = None


class Clients(_Model):
    """Identical client machines, all running every job."""

    count: int = Field(1, ge=1, le=1000)
    vm: str | None = None
    cpus: int | None = Field(None, ge=1, le=4096)
    limits: ClientLimits | None = None


class DiskGroup(_Model):
    """``count`` managed disks of one SKU with one host-cache setting, optionally overridden."""

    sku: str
    count: int = Field(1, ge=1, le=256)
    caching: Literal["none", "readonly", "readwrite"] = "none"
    size: Size | None = None
    iops: OpsRate | None = None
    bandwidth: Rate | None = None
    latency: Duration | None = None
    burst_iops: OpsRate | None = None
    burst_bandwidth: Rate | None = None
    on_demand_bursting: bool = False
    performance_plus: bool = False


class DiskVolume(_Model):
    """A set of managed disks, striped (RAID-0) when more than one."""

    disks: list[DiskGroup] = Field(min_length=1)
    stripe_size: Size = 65536
    cache: Literal["warm", "cold"] = "warm"


class Connection(_Model):
    """Per-connection overrides: one TCP connection's (or SMB channel's) bandwidth, NFSv3 slots."""

    bandwidth: Rate | None = None
    slots: int | None = Field(None, ge=1, le=65536)


class ShareVolume(_Model):
    """A file share: Azure NetApp Files, Google Cloud NetApp Volumes or Azure Files premium."""

    service: Literal["anf", "gcnv", "azure-files"]
    level: str
    size: Size
    throughput: Rate | None = None
    iops: OpsRate | None = None
    pool: Size | None = None
    large: bool = False
    protocol: Literal["nfs3", "nfs4.1", "dnfs", "smb3"] = "nfs3"
    nconnect: int | None = Field(None, ge=1, le=16)
    session_slots: int | None = Field(None, ge=1, le=65536)
    signing: bool = False
    encryption: bool = False
    tls: bool = False
    read_ahead_kb: int | None = Field(None, ge=4, le=1 << 20)
    rsize: Size | None = None
    connection: Connection | None = None
    latency: Duration | None = None


class Device(_Model):
    """A generic device (local NVMe, an on-prem array) described by its own caps and latency."""

    iops: OpsRate | None = None
    bandwidth: Rate | None = None
    read_latency: Duration
    write_latency: Duration | None = None
    cpu_per_io: Annotated[float, BeforeValidator(parse_duration), Field(gt=0, le=MAX_DURATION)] | None = None


class DeviceVolume(_Model):
    device: Device


Volume = Union[DiskVolume, ShareVolume, DeviceVolume]


@dataclass(frozen=True)
class ScenarioJob:
    """One job of the scenario: its fio description and the volume it targets."""

    name: str
    volume: str
    fio: FioJob
    field: str          # where it came from, e.g. "jobs[0]"


@dataclass(frozen=True)
class Scenario:
    """A validated scenario with its catalog (bundled data plus the user's files)."""

    file: str
    clients: Clients
    volumes: dict[str, Volume]
    jobs: tuple[ScenarioJob, ...]
    catalog: Catalog
    ignored: tuple[str, ...] = ()      # fio options accepted but not modelled, "job: option"

    def replace_jobs(self, jobs: tuple[ScenarioJob, ...]) -> "Scenario":
        """The same scenario with other jobs (for sweeps); RuleViolation when they hold more
        IOs in flight than the model takes (:func:`check_outstanding`)."""
        scenario = Scenario(self.file, self.clients, self.volumes, jobs, self.catalog, self.ignored)
        check_outstanding(scenario)
        return scenario


_TOP = ("version", "clients", "volumes", "jobs", "catalog")
#: fio options the fio module lists as not modelled that the model does use.


def load_scenario(path: str | Path, catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """Read and validate a scenario file; ``catalog_files`` extend the bundled catalog."""
    from .filekind import expect_data

    data = load_yaml(path)
    expect_data(data, str(path), "scenario", fits=_TOP)  # a requirements or calibration file is named as such
    return parse_scenario(data, file=str(path), base=Path(path).parent, catalog_files=catalog_files)


def read_scenario(text: str | bytes, *, file: str, base: Path | None = None,
                  catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """:func:`load_scenario` for text already in memory (a request body), `file` its display
    name in messages and `base` the directory its relative paths start from."""
    from .filekind import expect_data
    from .schema import parse_yaml

    data = parse_yaml(text, file=file)
    expect_data(data, file, "scenario", fits=_TOP)
    return parse_scenario(data, file=file, base=base or Path("."), catalog_files=catalog_files)


def parse_scenario(data: Any, *, file: str = "scenario", base: Path | None = None,
                   catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """Validate parsed YAML data as a scenario (see :func:`load_scenario`)."""
    base = base or Path(".")
    data = top_level(data, file=file, allowed=_TOP, what="scenario", expect="volumes and jobs")
    extra = list(catalog_files) + relative_files(data.get("catalog"), file=file, base=base)
    catalog = load_catalog(extra)
    clients = validate(Clients, data.get("clients") or {}, file=file, root_field="clients")
    raw_volumes = data.get("volumes")
    if not isinstance(raw_volumes, dict) or not raw_volumes:
        raise SchemaError("expected a mapping of named volumes (disks, a share or a device)", file=file,
                          field="volumes")
    volumes: dict[str, Volume] = {}
    for name, raw in raw_volumes.items():
        name = name_text(name, file=file, field=f"volumes.{name}", what="volume name")
        volumes[name] = _volume(raw, file, f"volumes.{name}")
    jobs, ignored = parse_jobs(data.get("jobs"), file=file, base=base, volumes=list(volumes))
    scenario = Scenario(file, clients, volumes, jobs, catalog, ignored)
    check_rules(scenario)
    return scenario


def _volume(raw: Any, file: str, field: str) -> Volume:
    if not isinstance(raw, dict):
        raise SchemaError("a volume is a mapping with one of: disks, service, device", file=file, field=field)
    if "disks" in raw:
        return validate(DiskVolume, raw, file=file, root_field=field)
    if "service" in raw:
        return validate(ShareVolume, raw, file=file, root_field=field)
    if "device" in raw:
        return validate(DeviceVolume, raw, file=file, root_field=field)
    raise SchemaError("a volume needs one of: disks (managed disks), service (a file share), device "
                      "(a generic device)", file=file, field=field)


def _fio_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(value)


def parse_jobs(raw: Any, *, file: str, base: Path, volumes: list[str] | None,
               require_volume: bool = True) -> tuple[tuple[ScenarioJob, ...], tuple[str, ...]]:
    """Parse a ``jobs:`` list (fio options, ``fio:`` command lines, ``fio_file:`` paths)."""
    if not isinstance(raw, list) or not raw:
        raise SchemaError("expected a non-empty list of jobs", file=file, field="jobs")
    from .fio.sizes import io_sizes

    jobs: list[ScenarioJob] = []
    ignored: list[str] = []
    for i, entry in enumerate(raw):
        field = f"jobs[{i}]"
        if not isinstance(entry, dict):
            raise SchemaError("a job is a mapping of fio options, or {fio: ...} or {fio_file: ...}",
                              file=file, field=field)
        entry = dict(entry)
        volume = entry.pop("volume", None)
        if volume is not None and not isinstance(volume, str):
            raise SchemaError("expected a volume name", file=file, field=f"{field}.volume")
        if volumes is not None:
            if volume is None:
                if len(volumes) != 1 and require_volume:
                    raise SchemaError(f"name the job's volume (one of: {', '.join(volumes)})", file=file,
                                      field=f"{field}.volume")
                volume = volumes[0] if volumes else ""
            elif volume not in volumes:
                raise UnknownIdError("volume", volume, volumes, file=file, field=f"{field}.volume")
        fio_jobs = _fio_jobs(entry, file, base, field, i)
        for fj in fio_jobs:
            try:
                io_sizes(fj)
            except InputError as e:
                raise e.located(file=file, field=field) from None
            ignored.extend(f"{fj.name}: {opt}" for opt in fj.ignored if opt not in MODELLED_OPTIONS)
            if fj.storage_io:  # a cpuio, net, null, exec ... job is listed as ignored, not modelled
                jobs.append(ScenarioJob(fj.name, volume or "", fj, field))
    if not jobs:
        raise SchemaError("no job does storage IO (their ioengines burn CPU, use the network or do "
                          "nothing): nothing to model", file=file, field="jobs")
    names = [j.name for j in jobs]
    for j in jobs:
        if names.count(j.name) > 1:
            raise SchemaError(f"two jobs are named {j.name!r}; give each job its own name", file=file,
                              field=f"{j.field}.name")
    return tuple(jobs), tuple(ignored)


def _fio_jobs(entry: dict, file: str, base: Path, field: str, index: int) -> list[FioJob]:
    if "fio" in entry or "fio_file" in entry:
        key = "fio" if "fio" in entry else "fio_file"
        others = [k for k in entry if k != key]
        if others:
            raise SchemaError(f"a job given by {key} takes only 'volume' beside it, not {others[0]!r}",
                              file=file, field=f"{field}.{others[0]}")
        value = entry[key]
        if not isinstance(value, str) or not value.strip():
            raise SchemaError(f"expected a {'fio command line' if key == 'fio' else 'path'} string", file=file,
                              field=f"{field}.{key}")
        try:
            if key == "fio":
                return parse_cmdline(value, source=f"{file}: {field}.fio")
            path = base / value
            try:
                text = read_text(path, what="fio job file")
            except InputError as e:
                raise SchemaError(f"cannot read fio job file {value!r}: {e.message}",
                                  file=file, field=f"{field}.fio_file") from None
            return parse_jobfile(text, source=str(path))
        except InputError as e:
            raise e if e.file else e.located(file=file, field=f"{field}.{key}") from None
    name = name_text(entry.pop("name"), file=file, field=f"{field}.name", what="job name") if "name" in entry \
        else f"job{index + 1}"
    argv = [f"--name={name}"]
    for key, value in entry.items():
        try:
            argv.append(f"--{key}={_fio_value(value)}")
        except TypeError:
            raise SchemaError(f"expected a fio option value (a number or a string), got {value!r}",
                              file=file, field=f"{field}.{key}") from None
    try:
        return parse_cmdline(argv, source=file)
    except InputError as e:
        option = (e.field or "").lstrip("-").split(".")[-1].lstrip("-")
        located = SchemaError(e.message, file=file, field=f"{field}.{option}" if option else field)
        raise located from None


# ---------------------------------------------------------------------------------- rules

#: the most IOs in flight a scenario may hold, over all jobs and clients: the model's cost
#: grows with it, and no real client set keeps more in flight.
MAX_OUTSTANDING = 100_000


def check_outstanding(s: Scenario) -> None:
    """RuleViolation (rule ``outstanding``) when the jobs × clients hold more IOs in flight
    than :data:`MAX_OUTSTANDING`."""
    total = sum(j.fio.outstanding for j in s.jobs) * s.clients.count
    if total > MAX_OUTSTANDING:
        raise RuleViolation("outstanding", f"{total} IOs in flight (numjobs × iodepth over the jobs, × "
                            f"{s.clients.count} clients); iolab models at most {MAX_OUTSTANDING}",
                            file=s.file, field="jobs")


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
                 lambda v: format_rate(v, binary=True))):
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
                                f"{format_rate(vmax, binary=True)}; {format_rate(vol.throughput, binary=True)} "
                                "asked", file=f, field=f"{field}.throughput")
        vmin = level.volume_min_throughput
        if vmin is not None and vol.throughput < vmin:
            raise RuleViolation("volume-min-throughput", f"a manual-QoS volume gets at least "
                                f"{format_rate(vmin, binary=True)}", file=f, field=f"{field}.throughput")
        if vol.pool is not None:
            budget = level.pool_budget(vol.pool)
            if vol.throughput > budget * (1 + 1e-9):
                raise RuleViolation("pool-budget", f"{a(format_size(vol.pool))} {level.id} pool has "
                                    f"{format_rate(budget, binary=True)} to assign; the volume asks "
                                    f"{format_rate(vol.throughput, binary=True)}", file=f,
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
