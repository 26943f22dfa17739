"""Requirements files (``iolab plan``): a workload's shape, what it needs, and where to look.

The format is docs/plan.md's requirements file, extended with a few optional search
fields (``levels``, ``nconnect``, ``max_disks``, ``stripe_size``) and with ``pool:``, a
second kind of plan that sizes one NetApp capacity pool for several volumes::

    version: 1
    jobs: [{rw: randrw, rwmixread: 70, bs: 8k}]
    require: {iops: 16000, bandwidth: 100MB/s, latency: 5ms, capacity: 2TiB}
    clients: 1
    search: {kind: disks, vms: ["Standard_D*s_v5"], skus: [P20, P30], caching: [none, readonly]}
    catalog: [prices.yaml]

    version: 1
    pool:
      service: anf
      level: ultra
      volumes:
        - {name: data, capacity: 4TiB, bandwidth: 900MiB/s}
        - {name: log, capacity: 512GiB, bandwidth: 200MiB/s}

Every problem raises an :class:`~iolab.errors.InputError` naming the file and the field
path (``search.caching[1]``, ``require.latency``); unknown fields name the nearest valid
one; catalog ids that do not exist list the nearest known ids.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from ..catalog import Catalog, load_catalog
from ..errors import SchemaError
from ..scenario import ScenarioJob, parse_jobs
from ..schema import (FrozenModel, PositiveDuration, PositiveOps, PositiveRate, PositiveSize, load_yaml,
                      relative_files, top_level, validate)

__all__ = [
    "Require",
    "Search",
    "PoolVolume",
    "PoolRequest",
    "Requirements",
    "load_requirements",
    "parse_requirements",
    "TOP_LEVEL",
    "NCONNECT",
]

TOP_LEVEL = ("version", "jobs", "require", "clients", "search", "catalog", "pool")
"""The keys a requirements file may have at its top level."""
NCONNECT = (1, 2, 4, 8, 16)
"""NFS connections (SMB channels) per client tried when ``search.nconnect`` is not given."""

Caching = Literal["none", "readonly", "readwrite"]
ServiceName = Literal["anf", "gcnv", "azure-files"]
ProtocolName = Literal["nfs3", "nfs4.1", "smb3"]


class Require(FrozenModel):
    """What the workload needs, all totals across clients.

    ``iops`` (ops/s) and ``bandwidth`` (bytes/s): the load to plan for; give either or
    both (the higher load they imply is planned for). ``latency`` (seconds): the most mean
    latency allowed at that load. ``capacity`` (bytes): usable capacity (a share's size;
    with disks, the striped disks' total across all clients).
    """

    iops: PositiveOps | None = None
    bandwidth: PositiveRate | None = None
    latency: PositiveDuration | None = None
    capacity: PositiveSize | None = None

    @model_validator(mode="after")
    def _load(self) -> "Require":
        if self.iops is None and self.bandwidth is None:
            raise SchemaError("give iops or bandwidth (or both): the load to plan for")
        return self


class Search(FrozenModel):
    """The space to search.

    ``kind: disks``: VM sizes (``vms``, globs allowed) × disk SKUs (``skus``) × a count
    from 1 to the VM's maximum (or ``max_disks``) × host caching (``caching``), striped at
    ``stripe_size``. ``kind: share``: services × levels × protocols × ``nconnect`` (default
    1, 2, 4, 8, 16) and, when ``vms`` is given, client VM sizes.
    """

    kind: Literal["disks", "share"] = "disks"
    vms: list[str] | None = Field(None, min_length=1)
    skus: list[str] | None = Field(None, min_length=1)
    caching: list[Caching] = Field(default_factory=lambda: ["none"], min_length=1)
    max_disks: int | None = Field(None, ge=1, le=256)
    stripe_size: PositiveSize = 65536
    services: list[ServiceName] | None = Field(None, min_length=1)
    levels: list[str] | None = Field(None, min_length=1)
    protocols: list[ProtocolName] | None = Field(None, min_length=1)
    nconnect: list[int] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _kind_fields(self) -> "Search":
        given = self.model_fields_set
        if self.kind == "disks":
            for name in ("services", "levels", "protocols", "nconnect"):
                if name in given:
                    raise SchemaError(f"{name} applies to kind: share, not kind: disks", field=name)
        else:
            for name in ("skus", "caching", "max_disks", "stripe_size"):
                if name in given:
                    raise SchemaError(f"{name} applies to kind: disks, not kind: share", field=name)
        for i, n in enumerate(self.nconnect or ()):
            if not 1 <= n <= 16:
                raise SchemaError(f"nconnect values are 1 to 16 (got {n})", field=f"nconnect[{i}]")
        return self


class PoolVolume(FrozenModel):
    """One volume of a pool plan: its ``capacity`` (bytes) and the throughput it needs
    (``bandwidth``, bytes/s), assigned to it by manual QoS."""

    name: str = Field(min_length=1)
    capacity: PositiveSize
    bandwidth: PositiveRate


class PoolRequest(FrozenModel):
    """Several volumes that share one capacity pool of ``service`` with manual QoS.

    ``level`` picks one service level; without it every level with manual QoS is tried
    and the cheapest pool wins.
    """

    service: Literal["anf", "gcnv"]
    level: str | None = None
    volumes: list[PoolVolume] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "PoolRequest":
        seen: set[str] = set()
        for i, v in enumerate(self.volumes):
            if v.name in seen:
                raise SchemaError(f"two volumes are named {v.name!r}; give each its own name",
                                  field=f"volumes[{i}].name")
            seen.add(v.name)
        return self


@dataclass(frozen=True)
class Requirements:
    """A validated requirements file with its catalog.

    ``jobs`` carry the workload's shape (their ``size`` set from ``require.capacity`` when
    they do not state one, so that a host cache sees the real working set); exactly one
    of ``require`` (with ``search``) and ``pool`` is set.
    """

    file: str
    jobs: tuple[ScenarioJob, ...]
    require: Require | None
    clients: int
    search: Search
    catalog: Catalog
    pool: PoolRequest | None = None
    ignored: tuple[str, ...] = ()

    def summary(self) -> dict:
        """What the file asks for, in base units (for ``iolab check``)."""
        if self.pool is not None:
            return {"pool": self.pool.model_dump(exclude_none=True)}
        assert self.require is not None
        return {
            "jobs": [{"name": j.name, "rw": j.fio.rw, "bs": j.fio.bs, "rwmixread": j.fio.rwmixread,
                      "outstanding": j.fio.outstanding} for j in self.jobs],
            "require": self.require.model_dump(exclude_none=True),
            "clients": self.clients,
            "search": self.search.model_dump(exclude_none=True),
        }


def load_requirements(path: str | Path, catalog_files: tuple[str | Path, ...] | list = ()) -> Requirements:
    """Read and validate a requirements file; ``catalog_files`` extend the bundled catalog.

    Raises :class:`~iolab.errors.InputError` (exit 2) naming the file and the field.
    """
    data = load_yaml(path)
    return parse_requirements(data, file=str(path), base=Path(path).parent, catalog_files=catalog_files)


def parse_requirements(data: Any, *, file: str = "requirements", base: Path | None = None,
                       catalog_files: tuple[str | Path, ...] | list = ()) -> Requirements:
    """Validate parsed YAML data as a requirements file (see :func:`load_requirements`)."""
    base = base or Path(".")
    data = top_level(data, file=file, allowed=TOP_LEVEL, what="requirements",
                     expect="jobs, require and search (or pool)")
    catalog = load_catalog(list(catalog_files) + relative_files(data.get("catalog"), file=file, base=base))
    if "pool" in data:
        for other in ("jobs", "require", "search", "clients"):
            if other in data:
                raise SchemaError(f"a pool plan takes pool: alone; remove {other!r} (or plan one volume "
                                  "without pool:)", file=file, field=other)
        pool = validate(PoolRequest, data["pool"], file=file, root_field="pool")
        return Requirements(file, (), None, 1, Search(kind="share"), catalog, pool)
    for key in ("jobs", "require"):
        if key not in data:
            raise SchemaError("missing required field (a requirements file needs jobs and require, or pool)",
                              file=file, field=key)
    require = validate(Require, data["require"], file=file, root_field="require")
    search = validate(Search, data.get("search") or {}, file=file, root_field="search")
    clients = data.get("clients", 1)
    if isinstance(clients, bool) or not isinstance(clients, int) or not 1 <= clients <= 1000:
        raise SchemaError(f"expected a whole number of clients from 1 to 1000 (got {clients!r})", file=file,
                          field="clients")
    jobs, ignored = parse_jobs(data["jobs"], file=file, base=base, volumes=None, require_volume=False)
    for j in jobs:
        if j.volume:
            raise SchemaError("a requirements file plans one volume: leave 'volume' out", file=file,
                              field=f"{j.field}.volume")
    if require.capacity is not None:
        jobs = tuple(_sized(j, require.capacity // clients) for j in jobs)
    return Requirements(file, jobs, require, clients, search, catalog, None, ignored)


def _sized(job: ScenarioJob, per_client: int) -> ScenarioJob:
    """The job with its working set set to the client's share of the capacity (unless it says)."""
    fio = job.fio
    if fio.size or fio.filesize:
        return job
    return replace(job, fio=replace(fio, size=max(1, math.ceil(per_client / fio.numjobs))))


