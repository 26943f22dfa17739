"""A candidate configuration, its JSON form (docs/plan.md), and the real scenario it is."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..scenario import Clients, DiskGroup, DiskVolume, Scenario, ShareVolume, check_rules
from ..units import format_ops, format_rate, format_size
from ..articles import a
from .requirements import Requirements

__all__ = ["DiskChoice", "ShareChoice", "Config", "VOLUME"]

VOLUME = "data"
"""The name of the planned volume in a candidate's scenario."""


@dataclass(frozen=True)
class DiskChoice:
    """``count`` disks of ``sku`` with host caching ``caching``; for Premium SSD v2 and Ultra
    also the provisioned ``size`` (bytes), ``iops`` (ops/s) and ``bandwidth`` (bytes/s);
    ``performance_plus`` when the disks are created with it (the SKU's expanded limits)."""

    sku: str
    count: int
    caching: str = "none"
    size: int | None = None
    iops: float | None = None
    bandwidth: float | None = None
    performance_plus: bool = False

    def to_json(self) -> dict:
        doc: dict = {"sku": self.sku, "count": self.count, "caching": self.caching}
        if self.size is not None:
            doc.update(size=self.size, iops=self.iops, bandwidth=self.bandwidth)
        if self.performance_plus:
            doc["performance_plus"] = True
        return doc

    def describe(self) -> str:
        text = f"{self.count} × {self.sku}" + (" performance plus" if self.performance_plus else "")
        if self.size is not None:
            text += (f" ({format_size(self.size)}, {format_ops(self.iops or 0)}, "
                     f"{format_rate(self.bandwidth or 0)})")
        return text + (f", cache {self.caching}" if self.caching != "none" else "")

    def group(self) -> DiskGroup:
        """The scenario's disk group for this choice."""
        return DiskGroup(sku=self.sku, count=self.count, caching=self.caching, size=self.size,  # type: ignore[arg-type]
                         iops=self.iops, bandwidth=self.bandwidth, performance_plus=self.performance_plus)


@dataclass(frozen=True)
class ShareChoice:
    """A share: ``size`` (bytes) of ``service``/``level``; ``throughput`` (bytes/s) is what
    the volume gets (its auto-QoS throughput, or the manual-QoS value when ``manual``);
    ``pool`` (bytes) is the capacity pool it is billed by, where the service has pools."""

    service: str
    level: str
    size: int
    throughput: float
    protocol: str
    nconnect: int
    large: bool = False
    manual: bool = False
    pool: int | None = None

    def to_json(self) -> dict:
        doc: dict = {"service": self.service, "level": self.level, "size": self.size,
                     "throughput": round(self.throughput, 1), "protocol": self.protocol, "nconnect": self.nconnect}
        if self.large:
            doc["large"] = True
        doc["qos"] = "manual" if self.manual else "auto"
        if self.pool is not None:
            doc["pool"] = self.pool
        return doc

    def describe(self) -> str:
        word = "channels" if self.protocol == "smb3" else "nconnect"
        large = " large" if self.large else ""
        qos = " manual QoS" if self.manual else ""
        pool = f" in {a(format_size(self.pool))} pool" if self.pool and self.pool > self.size else ""
        return (f"{self.service} {self.level}{large} {format_size(self.size)}{pool} "
                f"({format_rate(self.throughput, binary=True)}{qos}), {self.protocol} {word} {self.nconnect}")


@dataclass(frozen=True)
class Config:
    """One configuration: a client VM size (or a generic client), and disks or a share."""

    vm: str | None
    clients: int = 1
    disks: tuple[DiskChoice, ...] = ()
    share: ShareChoice | None = None
    volumes: tuple[tuple[str, tuple[DiskChoice, ...]], ...] = ()
    """Several workloads on one machine: (workload name, its disk groups) for each."""

    def groups(self) -> tuple[DiskChoice, ...]:
        """Every disk group of the configuration."""
        return self.disks + tuple(d for _, groups in self.volumes for d in groups)

    @property
    def kind(self) -> str:
        """``share`` or ``disks``."""
        return "share" if self.share is not None else "disks"

    def to_json(self) -> dict:
        doc: dict = {}
        if self.share is not None:
            doc.update(self.share.to_json())
            if self.vm is not None:
                doc["vm"] = self.vm
        elif self.volumes:
            doc["vm"] = self.vm
            doc["volumes"] = {name: {"disks": [d.to_json() for d in groups]} for name, groups in self.volumes}
        else:
            doc["vm"] = self.vm
            doc["disks"] = [d.to_json() for d in self.disks]
        if self.clients > 1:
            doc["clients"] = self.clients
        return doc

    def describe(self) -> str:
        """A one-line description: ``Standard_D16s_v5 + 4 × P30``."""
        if self.volumes:
            what = "; ".join(f"{name}: {' + '.join(d.describe() for d in groups)}" for name, groups in self.volumes)
        else:
            what = self.share.describe() if self.share else " + ".join(d.describe() for d in self.disks)
        head = f"{self.clients} × " if self.clients > 1 else ""
        if not what:
            return f"{head}{self.vm}"
        if self.vm is None:
            return f"{head}{what}" if not head else f"{head}client: {what}"
        return f"{head}{self.vm} + {what}"

    def scenario(self, req: Requirements, stripe_size: int = 65536) -> Scenario:
        """The scenario this configuration is, with the requirements' jobs on its volume.

        Checked by :func:`iolab.scenario.check_rules`, so a configuration that breaks a
        loading rule raises :class:`~iolab.errors.RuleViolation` here.
        """
        if self.volumes:
            volumes = {name: DiskVolume(disks=[d.group() for d in groups], stripe_size=stripe_size)
                       for name, groups in self.volumes}
            s = Scenario(req.file, Clients(count=self.clients, vm=self.vm), volumes, req.jobs,  # type: ignore
                         req.catalog, req.ignored)
            check_rules(s)
            return s
        if self.share is not None:
            sh = self.share
            volume = ShareVolume(service=sh.service, level=sh.level, size=sh.size,  # type: ignore[arg-type]
                                 throughput=sh.throughput if sh.manual else None, pool=sh.pool if sh.manual else None,
                                 large=sh.large, protocol=sh.protocol, nconnect=sh.nconnect)  # type: ignore[arg-type]
        else:
            volume = DiskVolume(disks=[d.group() for d in self.disks], stripe_size=stripe_size)
        jobs = tuple(replace(j, volume=VOLUME) for j in req.jobs)
        s = Scenario(req.file, Clients(count=self.clients, vm=self.vm), {VOLUME: volume}, jobs, req.catalog,
                     req.ignored)
        check_rules(s)
        return s
