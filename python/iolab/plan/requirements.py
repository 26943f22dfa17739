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


import re

import math
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from annotated_types import Gt, Le
from msgspec.structs import replace
from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from ..catalog import Catalog, load_catalog
from ..catalog.cloud import DEFAULT_CLOUD, Part, cloud, one_cloud, region_cloud, region_in
from ..catalog.rows import clouds_of
from ..errors import SchemaError
from ..scenario import ScenarioJob, parse_jobs
from ..schema import (FrozenModel, PositiveDuration, PositiveOps, PositiveRate, PositiveSize, load_yaml,
                      new_dict, new_list, relative_files, top_level, validate)

__all__ = [
    "Require",
    "VmRequire",
    "Pricing",
    "Search",
    "PoolVolume",
    "PoolRequest",
    "Requirements",
    "load_requirements",
    "parse_requirements",
    "TOP_LEVEL",
    "NCONNECT",
]

TOP_LEVEL = ("version", "jobs", "require", "clients", "search", "catalog", "pool", "workloads", "pricing")
"""The keys a requirements file may have at its top level."""
DEFAULT_REGION = "eastus"
"""The region of a requirements file not yet priced; :meth:`Requirements.in_region` without a
region takes the default region of the parts' cloud."""
NCONNECT = (1, 2, 4, 8, 16)
"""NFS connections (SMB channels) per client tried when ``search.nconnect`` is not given."""

Caching = Literal["none", "readonly", "readwrite"]
ServiceName = Literal["anf", "gcnv", "azure-files"]
ProtocolName = Literal["nfs3", "nfs4.1", "smb3"]


PERCENTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "p99.99": 0.9999}
"""Latency percentiles the simulator reports, by key; a requirement may bound any
percentile from p50 to p99.99 (``p95``, ``p99.5``), see :func:`percentile_level`."""


def percentile_level(key: str) -> float | None:
    """``"p95"`` as 0.95, ``"p99.9"`` as 0.999; None when ``key`` is not ``p`` and a number."""
    m = re.fullmatch(r"[pP](\d{1,3}(?:\.\d{1,6})?)", key)
    return None if m is None else round(float(m.group(1)) / 100, 8)
MAX_UTILIZATION = 0.8
"""The default ``require.max_utilization``: no resource busier than 80 % at the required load."""


def _fraction(value: Any) -> Any:
    """``0.8``, ``80%`` or ``"80 %"`` as a fraction."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            return float(value.strip()[:-1]) / 100
        except ValueError:
            raise ValueError(f"{value!r} is not a percentage such as 80%") from None
    return value


class LatencyBound(FrozenModel):
    """``require.latency`` as a mapping: the ``mean`` and percentiles (``p99: 12ms``)."""

    model_config = ConfigDict(populate_by_name=True)

    mean: PositiveDuration | None = None
    p50: PositiveDuration | None = None
    p90: PositiveDuration | None = None
    p99: PositiveDuration | None = None
    p99_9: PositiveDuration | None = Field(None, alias="p99.9")
    p99_99: PositiveDuration | None = Field(None, alias="p99.99")

    between: dict[str, PositiveDuration] = Field(default_factory=new_dict, exclude=True)
    """Percentiles the simulator does not report (``p95``), estimated from those it does."""

    @model_validator(mode="before")
    @classmethod
    def _any_percentile(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "between" in data:
            return data
        named = {"mean", *cls.model_fields, "p99.9", "p99.99"} - {"between", "p99_9", "p99_99"}
        rest = {k: v for k, v in data.items() if k not in named}
        levels = {k: percentile_level(str(k)) for k in rest}
        out = {k: v for k, v in data.items() if k in named or levels[k] is None}
        for k, level in levels.items():
            if level is None:
                continue
            if not 0.5 <= level <= 0.9999:
                raise SchemaError(f"a latency percentile from p50 to p99.99 (got {k})", field=str(k))
            key = f"p{level * 100:.6g}"
            if key in PERCENTILES:
                out[{"p99.9": "p99_9", "p99.99": "p99_99"}.get(key, key)] = data[k]
            else:
                out.setdefault("between", {})[key] = data[k]
        return out

    @model_validator(mode="after")
    def _some(self) -> "LatencyBound":
        if not self.model_fields_set:
            raise SchemaError("give mean and/or percentiles (p50 to p99.99: p50, p90, p95, p99, p99.9, ...)")
        return self

    def percentiles(self) -> dict[str, float]:
        """The percentile bounds given, by key (``{"p95": 0.008, "p99": 0.012}``), lowest first."""
        out = {"p50": self.p50, "p90": self.p90, "p99": self.p99, "p99.9": self.p99_9, "p99.99": self.p99_99,
               **self.between}
        given = {k: v for k, v in out.items() if v is not None}
        return dict(sorted(given.items(), key=lambda kv: percentile_level(kv[0]) or 0.0))


class VmRequire(FrozenModel):
    """``require.vm``: what the client VM must be. ``arch`` (``x86_64`` or ``arm64``),
    ``min_vcpus`` / ``max_vcpus`` (active vCPUs), ``min_memory`` (bytes), ``families`` (only
    these series, as Azure names them: ``Esv5``, ``Easv5``; a constrained-core size belongs
    to its parent's series) and ``exclude`` (VM ids, globs or series to leave out);
    ``licensed_cores``: a software licence's price per active vCPU per month, added to each
    VM's monthly cost, so that fewer cores can win."""

    arch: Literal["x86_64", "arm64"] | None = None
    min_vcpus: int | None = Field(None, ge=1)
    max_vcpus: int | None = Field(None, ge=1)
    min_memory: PositiveSize | None = None
    families: list[str] | None = Field(None, min_length=1)
    exclude: list[str] = Field(default_factory=new_list)
    licensed_cores: float | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _range(self) -> "VmRequire":
        if self.min_vcpus and self.max_vcpus and self.min_vcpus > self.max_vcpus:
            raise ValueError(f"min_vcpus {self.min_vcpus} is above max_vcpus {self.max_vcpus}")
        return self


PricingModel = Literal["payg", "reserved-1y", "reserved-3y", "savings-1y", "savings-3y"]
Fraction = Annotated[float, BeforeValidator(_fraction), Field(ge=0, lt=1)]


class Discount(FrozenModel):
    """A negotiated discount per part of the bill (fractions: ``0.1`` or ``10%``)."""

    vm: Fraction = 0.0
    disks: Fraction = 0.0
    shares: Fraction = 0.0


class Pricing(FrozenModel):
    """``pricing:``: how the buyer pays. ``model``: pay-as-you-go (``payg``, the default),
    a reservation (``reserved-1y``, ``reserved-3y``) or a savings plan (``savings-1y``,
    ``savings-3y``), which apply to the VMs (disks and shares stay at their pay-as-you-go
    price); ``hybrid_benefit``: the VMs' Windows or SQL licences are brought (Azure Hybrid
    Benefit), so the compute rate is the Linux one iolab prices; ``discount``: a negotiated
    discount per part, taken off after the model's rate."""

    model: PricingModel = "payg"
    hybrid_benefit: bool = False
    discount: Discount = Field(default_factory=Discount)


class Require(FrozenModel):
    """What the workload needs, all totals across clients.

    ``iops`` (ops/s) and ``bandwidth`` (bytes/s): the load to plan for; give either or
    both (the higher load they imply is planned for). ``latency`` (seconds): the most mean
    latency allowed at that load, or a mapping ``{mean: 5ms, p99: 12ms}`` whose
    percentiles the simulator checks (:attr:`percentiles`). ``capacity`` (bytes): usable
    capacity (a share's size; with disks, the striped disks' total across all clients).
    ``max_utilization``: no resource may be busier than this at the load (default 0.8).
    ``durable``: writes must be on the disks when acknowledged (default true), so host
    caching ReadWrite is not tried unless it is false. ``vm``: what the client VM must be
    (:class:`VmRequire`).
    """

    iops: PositiveOps | None = None
    bandwidth: PositiveRate | None = None
    latency: PositiveDuration | None = None
    capacity: PositiveSize | None = None
    max_utilization: Annotated[float, BeforeValidator(_fraction), Gt(0), Le(1)] = MAX_UTILIZATION
    durable: bool = True
    vm: VmRequire | None = None
    percentiles: dict[str, float] = Field(default_factory=new_dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _latency_mapping(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "percentiles" in data:
            raise SchemaError("unknown field; give percentiles under latency: {mean: 5ms, p99: 12ms}",
                              field="percentiles")
        bound = data.get("latency")
        if isinstance(bound, dict):
            parsed = validate(LatencyBound, bound, root_field="latency")
            data = {**data, "latency": parsed.mean, "percentiles": parsed.percentiles()}
            if parsed.mean is None:
                del data["latency"]
        return data

    @model_validator(mode="after")
    def _load(self) -> "Require":
        if self.iops is None and self.bandwidth is None:
            raise SchemaError("give iops or bandwidth (or both): the load to plan for")
        return self


KINDS = ("disks", "share")
"""The kinds of storage a search can cover; ``kind: any`` is all of them."""


def _kind(value: Any) -> Any:
    """``disks``, ``share``, ``any`` or a list of kinds, as one of the first three."""
    if isinstance(value, list):
        if not value:
            raise ValueError("give at least one kind: disks, share")
        for v in value:
            if v not in KINDS:
                raise ValueError(f"expected 'disks', 'share' or 'any', or a list of them (got {v!r} in the list)")
        kinds = set(value)
        return "any" if kinds == set(KINDS) else value[0]
    if value not in (*KINDS, "any"):
        raise ValueError(f"expected 'disks', 'share' or 'any', or a list of them (got {value!r})")
    return value


class Search(FrozenModel):
    """The space to search.

    ``kind: disks``: VM sizes (``vms``, globs allowed) × disk SKUs (``skus``) × a count
    from 1 to the VM's maximum (or ``max_disks``) × host caching (``caching``), striped at
    ``stripe_size``; each SKU that offers performance plus is tried with it too (it costs
    nothing more, but must be set when the disk is created) unless ``performance_plus`` is
    false. ``kind: share``: services × levels × protocols × ``nconnect`` (default
    1, 2, 4, 8, 16) and, when ``vms`` is given, client VM sizes. ``kind: any`` (or
    ``[disks, share]``): both, ranked together; shares then always run on a client VM of
    the search (every VM size when ``vms`` is not given) and host caching defaults to every
    mode the workload allows (see :func:`parse_requirements`).
    """

    kind: Annotated[Literal["disks", "share", "any"], BeforeValidator(_kind)] = "disks"
    vms: list[str] | None = Field(None, min_length=1)
    skus: list[str] | None = Field(None, min_length=1)
    caching: list[Caching] = Field(default_factory=lambda: ["none"], min_length=1)
    max_disks: int | None = Field(None, ge=1, le=256)
    stripe_size: PositiveSize = 65536
    performance_plus: bool = True
    services: list[ServiceName] | None = Field(None, min_length=1)
    levels: list[str] | None = Field(None, min_length=1)
    protocols: list[ProtocolName] | None = Field(None, min_length=1)
    nconnect: list[int] | None = Field(None, min_length=1)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds searched: ``("disks",)``, ``("share",)`` or both."""
        return KINDS if self.kind == "any" else (self.kind,)

    @model_validator(mode="after")
    def _kind_fields(self) -> "Search":
        given = self.model_fields_set
        if self.kind == "disks":
            for name in ("services", "levels", "protocols", "nconnect"):
                if name in given:
                    raise SchemaError(f"{name} applies to kind: share, not kind: disks", field=name)
        elif self.kind == "share":
            for name in ("skus", "caching", "max_disks", "stripe_size", "performance_plus"):
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


class Requirements(msgspec.Struct, frozen=True):
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
    region: str = DEFAULT_REGION
    name: str | None = None
    workloads: tuple["Requirements", ...] = ()
    pricing: Pricing = Pricing()
    #: The cloud the file's parts name (``search.vms``, ``skus``, ``services``, ``pool``),
    #: None when they name none (then the region decides).
    cloud: str | None = None
    #: The parts that name the cloud, as a message quotes them (``search.vms n2-standard-32``).
    cloud_parts: str = ""
    #: The catalog of every cloud, which :meth:`in_region` narrows to the region's cloud
    #: (``catalog`` holds the rows of ``cloud``, or of Azure when the parts name none).
    every_cloud: Catalog | None = None

    def in_region(self, region: str | None = None, model: str | None = None) -> "Requirements":
        """The same requirements priced in ``region`` (:meth:`iolab.catalog.Catalog.in_region`),
        with the catalog's rows of the region's cloud alone, as the buyer pays (``pricing:``,
        its ``model`` overridden by ``model``; the VMs' licences per core of
        ``require.vm.licensed_cores``: :func:`iolab.plan.pricing.priced`). Without a region,
        the default region of the parts' cloud (``eastus`` for Azure, ``us-central1`` for
        Google Cloud). Raises :class:`~iolab.errors.InputError` (exit 2) for a region of
        another cloud than the parts', naming that cloud's nearest regions."""
        from .pricing import priced

        if region is None:
            region = cloud(self.cloud or DEFAULT_CLOUD).default_region
        if self.cloud is not None:
            region = region_in(region, self.cloud, f"{self.file} ({self.cloud_parts})")
        c, region = region_cloud(region)
        pricing = self.pricing if model is None else self.pricing.model_copy(update={"model": model})
        catalog = priced((self.every_cloud or self.catalog).in_region(region).of_cloud(c.name), pricing,
                         self.licensed_cores())
        parts = tuple(replace(w, catalog=catalog, region=region, pricing=pricing) for w in self.workloads)
        return replace(self, catalog=catalog, region=region, workloads=parts, pricing=pricing)

    def vm_requires(self) -> tuple[VmRequire, ...]:
        """Every ``require.vm`` of the file (one per workload that gives one)."""
        parts = self.workloads or (self,)
        return tuple(p.require.vm for p in parts if p.require is not None and p.require.vm is not None)

    def licensed_cores(self) -> float:
        """The licence price per active vCPU per month the VMs carry (0 when none is given)."""
        return max((v.licensed_cores or 0.0 for v in self.vm_requires()), default=0.0)

    def summary(self) -> dict:
        """What the file asks for, in base units (for ``iolab check``)."""
        if self.pool is not None:
            return {"pool": self.pool.model_dump(exclude_none=True)}
        if self.workloads:
            return {"workloads": {w.name: w.summary() for w in self.workloads}, "clients": self.clients,
                    "search": self.search.model_dump(exclude_none=True, exclude={"caching"})}
        assert self.require is not None
        from ..fio.summary import sizes_text

        return {
            "jobs": [{"name": j.name, "rw": j.fio.rw, "bs": j.fio.bs, "sizes": sizes_text(j.fio),
                      "rwmixread": j.fio.rwmixread, "outstanding": j.fio.outstanding} for j in self.jobs],
            "require": {**self.require.model_dump(exclude_none=True),
                        **({"percentiles": dict(self.require.percentiles)} if self.require.percentiles else {})},
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
        found, named = _cloud(None, catalog, file, pool)
        pricing = validate(Pricing, data.get("pricing") or {}, file=file, root_field="pricing")
        return _scoped(Requirements(file, (), None, 1, Search(kind="share"), catalog, pool, pricing=pricing), found,
                       named)
    search = validate(Search, data.get("search") or {}, file=file, root_field="search")
    clients = data.get("clients", 1)
    if isinstance(clients, float) and clients.is_integer():
        clients = int(clients)  # 2.0, as a program may write it
    if isinstance(clients, bool) or not isinstance(clients, int) or not 1 <= clients <= 1000:
        raise SchemaError(f"expected a whole number of clients from 1 to 1000 (got {clients!r})", file=file,
                          field="clients")
    cloud_name, named = _cloud(search, catalog, file)
    if "workloads" in data:
        return _scoped(_machine(data, file, base, catalog, search, clients), cloud_name, named)
    for key in ("jobs", "require"):
        if key not in data:
            raise SchemaError("missing required field (a requirements file needs jobs and require, workloads, "
                              "or pool)", file=file, field=key)
    req = replace(_workload(data, file, base, catalog, search, clients),
                  pricing=validate(Pricing, data.get("pricing") or {}, file=file, root_field="pricing"))
    if search.kind == "any" and "caching" not in search.model_fields_set:
        req = replace(req, search=search.model_copy(update={"caching": safe_caching(req.require, req.jobs)}))
    return _scoped(req, cloud_name, named)


def _scoped(req: Requirements, found: str | None, named: str) -> Requirements:
    """``req`` with its parts' cloud, its catalog narrowed to that cloud (Azure when they name
    none) and the whole catalog kept for :meth:`Requirements.in_region`."""
    whole = req.catalog
    scoped = whole.of_cloud(found or DEFAULT_CLOUD)
    parts = tuple(replace(w, catalog=scoped) for w in req.workloads)
    return replace(req, catalog=scoped, workloads=parts, cloud=found, cloud_parts=named, every_cloud=whole)


def _cloud(search: Search | None, catalog: Catalog, file: str, pool: PoolRequest | None = None) -> tuple[str | None, str]:
    """The one cloud that the search's allow-lists (or the pool's service) name, and those
    parts as a message quotes them; a :class:`~iolab.errors.RuleViolation` (exit 2) naming
    two parts of different clouds. A glob names the cloud of the rows it matches when they
    are all of one; an unknown id names none (the search reports it)."""
    parts: list[Part] = []
    if pool is not None:
        parts += [Part("pool.service", pool.service, "service", r.cloud)
                  for r in list(catalog.services.values()) if r.service == pool.service][:1]
    if search is not None:
        # each id with its cloud, reading no row of the (lazily made) VM and disk sections
        lists = (("vms", search.vms, clouds_of(catalog.vms), "VM size"),
                 ("skus", search.skus, {**clouds_of(catalog.disks), **clouds_of(catalog.provisioned),
                                        **clouds_of(catalog.scaled)}, "disk"),
                 ("services", search.services, {r.service: r.cloud for r in catalog.services.values()}, "service"),
                 ("levels", search.levels, {r.id: r.cloud for r in catalog.services.values()}, "service level"))
        from .space import glob

        for key, patterns, clouds, what in lists:
            for i, pattern in enumerate(patterns or ()):
                matches = glob(str(pattern))
                hits = {c for k, c in clouds.items() if matches(k)}
                if len(hits) == 1:
                    parts.append(Part(f"search.{key}[{i}]", str(pattern), what, hits.pop()))
    found = one_cloud(parts, file=file, kind="requirements file")
    return found, ", ".join(f"{p.field} {p.ident}" for p in parts[:2]) + (", ..." if len(parts) > 2 else "")


def _workload(data: dict, file: str, base: Path, catalog: Catalog, search: Search, clients: int,
              where: str = "") -> Requirements:
    """One workload's ``jobs`` and ``require`` (at ``where`` in the file) as requirements."""
    require = validate(Require, data["require"], file=file, root_field=f"{where}require")
    try:
        jobs, ignored = parse_jobs(_whole(data["jobs"]), file=file, base=base, volumes=None, require_volume=False)
    except SchemaError as e:
        raise e.located(field=where.rstrip(".") or None) from None
    for j in jobs:
        if j.volume:
            raise SchemaError("a requirements file plans one volume per workload: leave 'volume' out", file=file,
                              field=f"{where}{j.field}.volume")
    if require.capacity is not None:
        try:
            jobs = tuple(_sized(j, require.capacity // clients) for j in jobs)
        except SchemaError as e:  # each job's share is more than a fio job's size may be
            raise SchemaError(f"too large: each job's share of it is refused by fio ({e.message})", file=file,
                              field=f"{where}require.capacity") from None
    return Requirements(file, jobs, require, clients, search, catalog, None, ignored)


def _whole(jobs: Any) -> Any:
    """Jobs as a program may write them: a whole number written as a float (``bs: 8192.0``,
    ``iodepth: 7.0``) becomes an int, and a measured read share (``rwmixread: 70.6``) is
    rounded to a whole percent, as fio takes it. Anything else is left for the job parser."""
    if not isinstance(jobs, list):
        return jobs
    out = []
    for job in jobs:
        if isinstance(job, dict):
            job = dict(job)
            for key, value in job.items():
                if isinstance(value, float) and math.isfinite(value):
                    if value.is_integer():
                        job[key] = int(value)
                    elif key in ("rwmixread", "rwmixwrite") and 0 <= value <= 100:
                        job[key] = int(round(value))
        out.append(job)
    return out


WORKLOAD_FIELDS = ("jobs", "require", "caching")
"""The fields of one named workload under ``workloads:``."""


def _machine(data: dict, file: str, base: Path, catalog: Catalog, search: Search, clients: int) -> Requirements:
    """Several named workloads on one machine: each its own volume (``workloads:``)."""
    for other in ("jobs", "require"):
        if other in data:
            raise SchemaError(f"with workloads, each workload has its own {other}: move it under one",
                              file=file, field=other)
    raw = data["workloads"]
    if not isinstance(raw, dict) or not raw:
        raise SchemaError("expected a mapping of workload names to {jobs, require, caching}", file=file,
                          field="workloads")
    if search.kind != "disks":
        raise SchemaError("several workloads are planned on managed disks: kind disks", file=file,
                          field="search.kind")
    if "caching" in search.model_fields_set:
        raise SchemaError("with workloads, give caching per workload (workloads.NAME.caching)", file=file,
                          field="search.caching")
    parts = []
    for name, body in raw.items():
        where = f"workloads.{name}"
        if not isinstance(name, str) or not name.replace("-", "").replace("_", "").isalnum():
            raise SchemaError("a workload name is letters, digits, - and _", file=file, field=where)
        try:
            body = top_level(body, file=file, allowed=WORKLOAD_FIELDS, what="workload", expect="jobs and require")
        except SchemaError as e:
            raise e.located(field=where) from None
        for key in ("jobs", "require"):
            if key not in body:
                raise SchemaError("missing required field", file=file, field=f"{where}.{key}")
        req = _workload(body, file, base, catalog, search, clients, f"{where}.")
        if "caching" in body:
            modes = validate(Search, {"caching": body["caching"]}, file=file, root_field=where).caching
        else:
            modes = safe_caching(req.require, req.jobs)  # type: ignore[arg-type]
        jobs = tuple(_named(j, name, len(req.jobs)) for j in req.jobs)
        parts.append(replace(req, jobs=jobs, search=search.model_copy(update={"caching": modes}), name=name))
    pricing = validate(Pricing, data.get("pricing") or {}, file=file, root_field="pricing")
    return Requirements(file, tuple(j for p in parts for j in p.jobs), None, clients, search, catalog, None,
                        tuple(x for p in parts for x in p.ignored), workloads=tuple(parts), pricing=pricing)


def _named(job: ScenarioJob, workload: str, count: int) -> ScenarioJob:
    """A workload's job named after it (``log``, or ``data-job2`` when it has several)."""
    name = workload if count == 1 else f"{workload}-{job.name}"
    return replace(job, name=name, fio=replace(job.fio, name=name), volume=workload)


def safe_caching(require: Require, jobs: tuple[ScenarioJob, ...]) -> list[str]:
    """The host-caching modes worth trying for a workload: none and ReadOnly always;
    ReadWrite only when its writes need not be durable (``require.durable: false``) and it
    writes at all (for reads ReadWrite is ReadOnly). ReadWrite acknowledges a write once it
    is in the host's cache: a log or a database's data files lose acknowledged writes if
    the host fails, so it is never chosen for them unless told."""
    from ..compile.builder import directions

    writes = any(d == "write" and mix > 0 for j in jobs for d, mix, _ in directions(j.fio))
    return ["none", "readonly"] + (["readwrite"] if writes and not require.durable else [])


def _sized(job: ScenarioJob, per_client: int) -> ScenarioJob:
    """The job with its working set set to the client's share of the capacity (unless it says)."""
    fio = job.fio
    if fio.size or fio.filesize:
        return job
    return replace(job, fio=replace(fio, size=max(1, math.ceil(per_client / fio.numjobs))))
