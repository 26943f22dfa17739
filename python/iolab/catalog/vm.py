"""VM sizes (Azure) and machine types (Compute Engine) and their storage limits."""


import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import NonNegativeFloat, PositiveInt, ValidationError, model_validator

from ..schema import FrozenModel, PositiveDuration, PositiveOps, PositiveRate, PositiveSize, schema_error
from .row import HOURS_PER_MONTH, CloudRow

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["Vm", "DiskLimits", "arch_of"]

_AZURE = re.compile(r"^Standard_[A-Z]+\d+(?:-\d+)?([a-z]*)")
_AWS = re.compile(r"^[a-z]+\d+([a-z]*)(?:-[a-z]+)?\.")
_GCP_ARM = re.compile(r"^(t2a|c4a|n4a)-")


def arch_of(size: str) -> str:
    """The CPU architecture a size's name gives, by each cloud's naming convention: Azure,
    ``arm64`` where the additive features (the lower-case letters after the vCPU count)
    include ``p`` (``Standard_D16pls_v5``); AWS, where the letters after the generation
    include ``g`` (Graviton: ``m7g.large``, ``c7gd.xlarge``); Google Cloud, the Arm families
    (``t2a-``, ``c4a-``, ``n4a-``). ``x86_64`` otherwise."""
    m = _AZURE.match(size)
    if m:
        return "arm64" if "p" in m.group(1) else "x86_64"
    m = _AWS.match(size)
    if m:
        return "arm64" if "g" in m.group(1) else "x86_64"
    return "arm64" if _GCP_ARM.match(size) else "x86_64"


@lru_cache(maxsize=1)
def _price() -> "TypeAdapter":
    """The validator of an hourly price, built on first use (only a file giving
    ``price_per_hour`` needs it; building it at import costs every command)."""
    from pydantic import TypeAdapter

    return TypeAdapter(NonNegativeFloat)


class DiskLimits(FrozenModel):
    """A machine type's own limits over all its disks of one type (Compute Engine publishes
    reads and writes apart): ops/s and bytes/s."""

    read_iops: PositiveOps
    write_iops: PositiveOps
    read_bandwidth: PositiveRate
    write_bandwidth: PositiveRate


class Vm(CloudRow):
    """One VM size (``Standard_DS13``) and the limits that bound its storage IO.

    - ``uncached_iops`` / ``uncached_bandwidth`` (ops/s, bytes/s): the cap over IO to
      disks with host caching None and over cache misses ("Remote Storage" limits).
    - ``cached_iops`` / ``cached_bandwidth``: the separate cap over IO served through the
      host cache; ``cache_size`` (bytes) is the cache (shared with the temp disk). None
      where the size has no cache or the figure is not published (Dsv5, Esv5).
    - ``burst_iops`` / ``burst_bandwidth``: the uncached caps while the VM's credits last,
      ``burst_duration`` seconds at most from a full bucket (Azure: 30 minutes).
      ``burst_kind``: ``credit`` (the bucket above; Azure's VM-level bursting) or
      ``on-demand`` (no time limit); None where the size does not burst.
    - ``temp_iops`` / ``temp_bandwidth``: the local temp disk (for L series, all local
      NVMe disks together); random-read figures where the page separates reads and writes.
    - ``premium_v2_iops`` / ``premium_v2_bandwidth`` and ``ultra_iops`` /
      ``ultra_bandwidth``: the uncached caps over Premium SSD v2 and Ultra Disk where the
      page gives them apart from the Premium SSD caps (None: the page gives none).
    - ``network_bandwidth``: aggregate egress bytes/s over all NICs (not guaranteed).
    - ``receive_bandwidth``: what the size can receive, where a page states it (its NIC's
      speed; ingress is not metered); None: the model takes a multiple of the egress figure.
    - ``tier_1_bandwidth``: the same with Compute Engine's Tier_1 networking (a paid option
      of the larger sizes; None where the size has none). Not used unless a scenario takes
      it as its ``clients.limits.network_bandwidth``.
    - ``price_per_month``: a file may give ``price_per_hour`` instead (times 730).
    - ``arch``: ``x86_64`` or ``arm64``; where a row does not state it, Azure's size-name
      convention gives it (a ``p`` among the additive features, as in ``D16pls_v5``: an
      Arm CPU; MicrosoftDocs azure-compute-docs ``vm-naming-conventions.md``).
    - ``rates_per_hour``: the effective hourly price under a reservation or savings plan
      (``reserved-1y``, ``reserved-3y``, ``savings-1y``, ``savings-3y``): a reservation's
      price for its term divided by the term's hours; ``iolab catalog import-prices`` writes
      them from Retail Prices pages.
    - ``parent``: for a constrained-core size (``Standard_E16-4s_v5``), the size whose
      memory, disk, IO and network limits and price it keeps; ``vcpus`` is then the active
      vCPU count (the count a per-core licence charges for).
    - ``disk_types``: the disk types (tiers) the machine takes, None for every one (Azure
      sizes); ``disk_limits``: its per-type caps over all its disks of that type, in place of
      the uncached caps (Compute Engine: Persistent Disk limits per machine type).

    Raises (at validation) when a cap is given without its pair (IOPS without bandwidth)
    or a burst cap is below the baseline it bursts from.
    """

    vcpus: PositiveInt
    memory: PositiveSize
    max_data_disks: PositiveInt
    premium_storage: bool
    uncached_iops: PositiveOps | None = None
    uncached_bandwidth: PositiveRate | None = None
    cached_iops: PositiveOps | None = None
    cached_bandwidth: PositiveRate | None = None
    cache_size: PositiveSize | None = None
    burst_iops: PositiveOps | None = None
    burst_bandwidth: PositiveRate | None = None
    burst_duration: PositiveDuration = 1800.0
    burst_kind: Literal["credit", "on-demand"] | None = None
    temp_iops: PositiveOps | None = None
    temp_bandwidth: PositiveRate | None = None
    premium_v2_iops: PositiveOps | None = None
    premium_v2_bandwidth: PositiveRate | None = None
    ultra_iops: PositiveOps | None = None
    ultra_bandwidth: PositiveRate | None = None
    network_bandwidth: PositiveRate | None = None
    receive_bandwidth: PositiveRate | None = None
    tier_1_bandwidth: PositiveRate | None = None
    price_per_month: NonNegativeFloat | None = None
    arch: Literal["x86_64", "arm64"] = "x86_64"
    parent: str | None = None
    rates_per_hour: dict[Literal["reserved-1y", "reserved-3y", "savings-1y", "savings-3y"], NonNegativeFloat] | None = None
    disk_types: tuple[str, ...] | None = None
    disk_limits: dict[str, DiskLimits] | None = None

    alternatives: ClassVar = (frozenset({"price_per_month", "price_per_hour"}),)

    @model_validator(mode="before")
    @classmethod
    def _hourly_price(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "price_per_hour" not in data:
            return data
        data = dict(data)
        hourly = data.pop("price_per_hour")
        if "price_per_month" in data:
            raise ValueError("give price_per_month or price_per_hour, not both")
        try:
            data["price_per_month"] = None if hourly is None else _price().validate_python(hourly) * HOURS_PER_MONTH
        except ValidationError as e:
            raise schema_error(e, root_field="price_per_hour") from None
        return data

    @model_validator(mode="before")
    @classmethod
    def _arch(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("arch") is None and isinstance(data.get("id"), str):
            data = dict(data, arch=arch_of(data["id"]))
        return data

    @model_validator(mode="after")
    def _pairs(self) -> "Vm":
        for a, b in (("uncached_iops", "uncached_bandwidth"), ("cached_iops", "cached_bandwidth"),
                     ("burst_iops", "burst_bandwidth"), ("temp_iops", "temp_bandwidth"),
                     ("premium_v2_iops", "premium_v2_bandwidth"), ("ultra_iops", "ultra_bandwidth")):
            if (getattr(self, a) is None) != (getattr(self, b) is None):
                raise ValueError(f"{a} and {b} go together: give both or neither")
        if self.burst_iops is not None:
            if self.uncached_iops is None:
                raise ValueError("burst_iops needs uncached_iops (the baseline it bursts from)")
            if self.burst_iops < self.uncached_iops or self.burst_bandwidth < self.uncached_bandwidth:  # type: ignore[operator]
                raise ValueError("burst_iops/burst_bandwidth must not be below uncached_iops/uncached_bandwidth")
        if self.burst_kind is not None and self.burst_iops is None:
            raise ValueError("burst_kind needs burst_iops and burst_bandwidth (the limits it bursts to)")
        for tier in self.disk_limits or {}:
            if self.disk_types is not None and tier not in self.disk_types:
                raise ValueError(f"disk_limits names {tier}, which is not among disk_types")
        if self.cached_iops is not None and self.cache_size is None:
            raise ValueError("cached_iops needs cache_size")
        return self

    def takes(self, tier: str) -> bool:
        """Whether disks of ``tier`` attach to this machine (every tier where the row lists none)."""
        return self.disk_types is None or tier in self.disk_types

    def disk_caps(self, tier: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """The machine's own (read, write) caps, each (ops/s, bytes/s), over its disks of
        ``tier``; None where it has none of its own for that tier (the uncached caps apply)."""
        lim = (self.disk_limits or {}).get(tier)
        if lim is None:
            return None
        return (lim.read_iops, lim.read_bandwidth), (lim.write_iops, lim.write_bandwidth)

    @property
    def has_cache(self) -> bool:
        """True when the size has a host cache with published limits."""
        return self.cached_iops is not None
