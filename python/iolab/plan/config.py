"""A candidate configuration, its JSON form (docs/plan.md), and the real scenario it is."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from ..scenario import Clients, DiskGroup, DiskVolume, Scenario, ShareVolume, check_rules
from .labels import config_label, disk_label, share_label
from .requirements import Requirements

__all__ = ["DiskChoice", "ShareChoice", "Config", "VOLUME", "with_vm_facts"]

VOLUME = "data"
"""The name of the planned volume in a candidate's scenario."""


class DiskChoice(msgspec.Struct, frozen=True):
    """``count`` disks of ``sku`` with host caching ``caching``; for Premium SSD v2 and Ultra
    also the provisioned ``size`` (bytes), ``iops`` (ops/s) and ``bandwidth`` (bytes/s);
    ``performance_plus`` when the disks are created with it (the SKU's expanded limits).
    ``scaled``: a volume whose caps follow from its size (gp2, st1, sc1): ``iops`` and
    ``bandwidth`` are then its sustained caps at ``size``, shown but not provisioned."""

    sku: str
    count: int
    caching: str = "none"
    size: int | None = None
    iops: float | None = None
    bandwidth: float | None = None
    performance_plus: bool = False
    scaled: bool = False

    def to_json(self) -> dict:
        doc: dict = {"sku": self.sku, "count": self.count, "caching": self.caching}
        if self.size is not None:
            doc.update(size=self.size, iops=self.iops, bandwidth=self.bandwidth)
        if self.performance_plus:
            doc["performance_plus"] = True
        return doc

    def describe(self) -> str:
        """The group's label (:func:`iolab.plan.labels.disk_label`)."""
        return disk_label(self.to_json())

    def group(self) -> DiskGroup:
        """The scenario's disk group for this choice."""
        iops, bandwidth = (None, None) if self.scaled else (self.iops, self.bandwidth)
        return DiskGroup(sku=self.sku, count=self.count, caching=self.caching, size=self.size,  # type: ignore[arg-type]
                         iops=iops, bandwidth=bandwidth, performance_plus=self.performance_plus)


class ShareChoice(msgspec.Struct, frozen=True):
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
        """The share's label (:func:`iolab.plan.labels.share_label`)."""
        return share_label(self.to_json())


class Config(msgspec.Struct, frozen=True):
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
        """A one-line description, the label every rendering shows (:func:`iolab.plan.labels.config_label`):
        ``Standard_D16s_v5 + 4 × P30``."""
        return config_label(self.to_json())

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


def with_vm_facts(doc: dict, catalog) -> dict:
    """A plan's JSON ``doc`` with ``arch``, ``vcpus`` (active) and ``memory`` (bytes) of the VM
    beside each configuration's ``vm``, wherever a configuration appears in it."""
    def visit(node):
        if isinstance(node, dict):
            vm = node.get("vm")
            if isinstance(vm, str) and vm in catalog.vms and "arch" not in node:
                row = catalog.vms[vm]
                node.update(arch=row.arch, vcpus=row.vcpus, memory=row.memory)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)
    visit(doc)
    return doc
