"""The scenario's typed models: clients, volumes (managed disks, a file share, a generic
device), jobs and the :class:`Scenario` itself, with the value types of its fields (sizes,
rates, durations parsed in the units docs/scenario.md gives) and the one invariant a scenario
keeps whenever its jobs change: no more IOs in flight than the model takes.
"""


from typing import Annotated, Literal, Union

import msgspec
from pydantic import BeforeValidator, Field

from ..catalog import Catalog
from ..errors import RuleViolation
from ..fio import FioJob
from ..schema import MAX_DURATION, MAX_OPS, MAX_RATE, MAX_SIZE, MIN_OPS, MIN_RATE, FrozenModel
from ..units import parse_duration, parse_ops_rate, parse_rate, parse_size

__all__ = ["Size", "Rate", "OpsRate", "Duration", "ClientLimits", "Clients", "DiskGroup", "DiskVolume", "Connection",
           "ShareVolume", "Device", "DeviceVolume", "Volume", "ScenarioJob", "Scenario", "MAX_OUTSTANDING",
           "check_outstanding"]

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


class ScenarioJob(msgspec.Struct, frozen=True):
    """One job of the scenario: its fio description and the volume it targets."""

    name: str
    volume: str
    fio: FioJob
    field: str          # where it came from, e.g. "jobs[0]"


class Scenario(msgspec.Struct, frozen=True):
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
