"""File-share service levels: Azure NetApp Files, Google Cloud NetApp Volumes, Azure Files premium."""


import math
from typing import Literal

from pydantic import Field, NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

from ..errors import RuleViolation
from ..schema import Duration, Fraction, Ops, PositiveDuration, PositiveOps, PositiveRate, PositiveSize, new_dict
from ..units import GiB, MiB, TiB, format_rate, format_size
from .client import ClientFigures
from .row import CloudRow, Sourced

__all__ = ["ServiceLevel", "LoadLatency", "Ceilings"]


class Ceilings(Sourced):
    """What one volume's back end serves at most whatever its quota (docs/model.md, "A volume's
    back end"): ``read_iops`` reads/s, ``write_iops`` writes/s, ``read_bandwidth`` and
    ``write_bandwidth`` bytes/s (each optional). The back end is one resource that reads and
    writes share: a read costs it ``max(1 / read_iops, bytes / read_bandwidth)``, a write
    ``max(1 / write_iops, bytes / write_bandwidth)``, so a mix gets the harmonic mean of the two."""

    read_iops: PositiveOps | None = None
    write_iops: PositiveOps | None = None
    read_bandwidth: PositiveRate | None = None
    write_bandwidth: PositiveRate | None = None

    def cost(self, direction: str, nbytes: float) -> float:
        """Seconds of the back end that one IO of ``nbytes`` in ``direction`` takes (0 for none)."""
        ops, rate = ((self.read_iops, self.read_bandwidth) if direction == "read"
                     else (self.write_iops, self.write_bandwidth))
        return max(1.0 / ops if ops else 0.0, nbytes / rate if rate else 0.0)


class LoadLatency(Sourced):
    """How a share's latency rises with the load on its quota (docs/model.md, "Latency under
    load at the service"): an extra ``delay`` (seconds) at a full quota, nothing below
    ``onset`` (a fraction of the quota), ``delay × ((u − onset) / (1 − onset))^exponent`` in
    between, ``u`` the share of the quota in use. ``delay: 0`` turns it off."""

    delay: Duration
    onset: Fraction = 0.0
    exponent: PositiveFloat = 1.0

    @model_validator(mode="after")
    def _below_one(self) -> "LoadLatency":
        if self.onset >= 1.0:
            raise ValueError("onset must be below 1 (a fraction of the quota)")
        if self.delay < 0:
            raise ValueError("delay must not be negative")
        return self


class ServiceLevel(CloudRow):
    """One service level of a file-share service (``anf-ultra``, ``gcnv-extreme``, ``azure-files-premium``).

    Throughput (bytes/s) of a volume:

    - *auto QoS* (ANF, GCNV): ``size`` in TiB × ``rate_per_tib``, capped by
      ``max_throughput`` (``large_max_throughput`` for a large volume). Where the pool's
      throughput is shared by its volumes (``shared_pool``, GCNV Flex) ``size`` is the
      pool's size, at least ``pool_min_size``.
    - *manual QoS* (``manual_qos``): the pool's budget (pool TiB × rate) is split freely;
      each volume from ``volume_min_throughput`` to ``volume_max_throughput``. ANF
      Flexible has no rate per TiB: its pool throughput is provisioned from
      ``pool_min_throughput`` up to ``pool_max_throughput_per_tib`` × pool TiB.
    - *formulas* (Azure Files provisioned v1): IOPS ``min(baseline_iops + iops_per_gib
      × GiB, max_iops)``; burst ``min(max(burst_iops_per_gib × GiB, min_burst_iops),
      max_burst_iops)``; throughput ``base_throughput`` plus each of
      ``throughput_per_gib`` × GiB rounded up to a whole MiB/s, capped by ``max_throughput``.

    - *provisioned* (``provisioned``, Azure Files provisioned v2): the share's IOPS (from
      ``min_iops`` to ``max_iops``) and throughput (from ``volume_min_throughput`` to
      ``max_throughput``) are provisioned apart from its size, by default at the
      recommended formulas above; burst IOPS ``min(max(burst_per_iops × IOPS,
      min_burst_iops), max_burst_iops)``. Where the IOPS come with the throughput
      (``iops_per_mibps``, NetApp Volumes Flex custom performance), a share gets
      ``iops_per_mibps`` × its MiB/s, at most ``max_iops``.

    Sizes (bytes) must lie in ``min_size``..``max_size`` (a large volume:
    ``large_min_size``..``large_max_size``); the methods raise :class:`RuleViolation`
    naming the rule otherwise. ``max_smb_channels``: the most SMB multichannel channels one
    client may open to a share of this level (Azure Files: 4), where it is below the protocol's
    ``max_nconnect``. ``file_iops`` and ``file_bandwidth``: the most one file in a share of this
    level serves (ops/s, bytes/s), whatever the share's own limits (Azure Files' file scale
    targets). ``latency`` (seconds) is the unloaded service latency;
    ``load_latency`` how it rises as the volume nears its quota (:class:`LoadLatency`).
    ``ceilings`` (``large_ceilings`` for a large volume): what the volume's back end serves at
    most whatever its quota (:class:`Ceilings`).
    ``clients``: per protocol (``nfs4.1``, ``smb3``...), what this service does to one
    client's connections where it differs from the protocol's figures
    (:class:`~iolab.catalog.client.ClientFigures`).
    """

    service: Literal["anf", "gcnv", "azure-files"]
    level: str = Field(min_length=1)
    rate_per_tib: PositiveRate | None = None
    min_size: PositiveSize
    max_size: PositiveSize
    max_throughput: PositiveRate
    large_min_size: PositiveSize | None = None
    large_max_size: PositiveSize | None = None
    large_max_throughput: PositiveRate | None = None
    manual_qos: bool = False
    shared_pool: bool = False
    pool_min_size: PositiveSize | None = None
    pool_max_size: PositiveSize | None = None
    pool_size_step: PositiveSize | None = None
    pool_min_throughput: PositiveRate | None = None
    pool_max_throughput: PositiveRate | None = None
    pool_max_throughput_per_tib: PositiveRate | None = None
    volume_min_throughput: PositiveRate | None = None
    volume_max_throughput: PositiveRate | None = None
    baseline_iops: Ops | None = None
    iops_per_gib: PositiveFloat | None = None
    max_iops: PositiveOps | None = None
    burst_iops_per_gib: PositiveFloat | None = None
    min_burst_iops: PositiveOps | None = None
    max_burst_iops: PositiveOps | None = None
    burst_duration: PositiveDuration | None = None
    base_throughput: PositiveRate | None = None
    throughput_per_gib: tuple[PositiveRate, ...] = ()
    provisioned: bool = False
    min_iops: PositiveOps | None = None
    burst_per_iops: PositiveFloat | None = None
    iops_per_mibps: PositiveFloat | None = None
    max_smb_channels: PositiveInt | None = None
    file_iops: PositiveOps | None = None
    file_bandwidth: PositiveRate | None = None
    latency: PositiveDuration
    load_latency: LoadLatency | None = None
    ceilings: Ceilings | None = None
    large_ceilings: Ceilings | None = None
    clients: dict[Literal["nfs3", "nfs4.1", "dnfs", "smb3"], ClientFigures] = Field(default_factory=new_dict)
    price_per_gib_month: NonNegativeFloat | None = None
    price_per_mibps_month: NonNegativeFloat | None = None
    price_per_iops_month: NonNegativeFloat | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "ServiceLevel":
        if self.min_size > self.max_size:
            raise ValueError("min_size must not be above max_size")
        large = (self.large_min_size, self.large_max_size, self.large_max_throughput)
        if any(v is not None for v in large) and any(v is None for v in large):
            raise ValueError("large_min_size, large_max_size and large_max_throughput go together")
        if self.rate_per_tib is None and self.base_throughput is None and not self.manual_qos:
            raise ValueError("give rate_per_tib (auto QoS), base_throughput (formula) or manual_qos: true")
        if self.burst_iops_per_gib is not None and (self.min_burst_iops is None or self.max_burst_iops is None):
            raise ValueError("burst_iops_per_gib needs min_burst_iops and max_burst_iops")
        return self

    # ---- rules

    def check_size(self, size: int, *, large: bool = False) -> None:
        """Raise :class:`RuleViolation` unless ``size`` (bytes) is a valid (large) volume size."""
        if large:
            if self.large_min_size is None or self.large_max_size is None:
                raise RuleViolation(f"{self.id} has no large volumes", "large: true is not available here")
            low, high, what = self.large_min_size, self.large_max_size, "large volume"
        else:
            low, high, what = self.min_size, self.max_size, "volume"
        if not low <= size <= high:
            raise RuleViolation(f"{self.id} {what} size {format_size(low)} to {format_size(high)}",
                                f"size {format_size(size)} is out of range")

    def back_end(self, *, large: bool = False) -> Ceilings | None:
        """The back-end ceilings of a (large) volume of this level, or None."""
        return self.large_ceilings if large else self.ceilings

    def ceiling(self, *, large: bool = False) -> float:
        """The most throughput (bytes/s) one volume can have (large: a large volume's)."""
        if large and self.large_max_throughput is not None:
            return self.large_max_throughput
        return self.max_throughput

    def throughput(self, size: int, *, large: bool = False) -> float:
        """The throughput (bytes/s) of a volume of ``size`` bytes under auto QoS or the formula.

        Raises :class:`RuleViolation` for a size out of range, and for a level whose
        throughput is only set by manual QoS (ANF Flexible).
        """
        self.check_size(size, large=large)
        gib = math.ceil(size / GiB)
        if self.rate_per_tib is not None:
            basis = max(size, self.pool_min_size or 0) if self.shared_pool else size
            ceiling = self.ceiling(large=large)
            if self.shared_pool and self.pool_max_throughput is not None:
                ceiling = min(ceiling, self.pool_max_throughput)
            return min(basis / TiB * self.rate_per_tib, ceiling)
        if self.base_throughput is not None:
            # round() first: 100 GiB x 0.04 MiB/s must be 4, not 4.000000000000001 rounded up to 5
            total = self.base_throughput + sum(math.ceil(round(gib * t / MiB, 9)) * MiB for t in self.throughput_per_gib)
            return min(total, self.max_throughput)
        raise RuleViolation(f"{self.id} throughput is set by manual QoS",
                            "this level has no throughput per TiB; give the volume a throughput")

    def iops(self, size: int) -> float | None:
        """Baseline IOPS of ``size`` bytes where a formula is published (Azure Files, GCNV Flex), else None."""
        if self.iops_per_gib is None:
            return None
        basis = max(size, self.pool_min_size or 0) if self.shared_pool else size
        iops = (self.baseline_iops or 0.0) + self.iops_per_gib * math.ceil(basis / GiB)
        return min(iops, self.max_iops) if self.max_iops is not None else iops

    def burst_iops(self, size: int) -> float | None:
        """Burst IOPS of ``size`` bytes where a formula is published (Azure Files), else None."""
        if self.burst_iops_per_gib is None:
            return None
        burst = max(self.burst_iops_per_gib * math.ceil(size / GiB), self.min_burst_iops or 0.0)
        return min(burst, self.max_burst_iops) if self.max_burst_iops is not None else burst

    def provisioned_iops(self, size: int, throughput: float) -> float | None:
        """Default IOPS of a provisioned share of ``size`` bytes and ``throughput`` bytes/s."""
        if self.iops_per_mibps is not None:
            iops = self.iops_per_mibps * throughput / MiB
            return min(iops, self.max_iops) if self.max_iops is not None else iops
        return self.iops(size)

    def provisioned_burst(self, iops: float) -> float | None:
        """Burst IOPS of a share provisioned with ``iops`` (provisioned v2), else None."""
        if self.burst_per_iops is None:
            return None
        burst = max(self.burst_per_iops * iops, self.min_burst_iops or 0.0)
        return min(burst, self.max_burst_iops) if self.max_burst_iops is not None else burst

    def pool_budget(self, pool_size: int) -> float:
        """The throughput (bytes/s) a capacity pool of ``pool_size`` bytes shares among its volumes.

        Pool TiB × rate; for ANF Flexible the most that can be provisioned (pool TiB ×
        ``pool_max_throughput_per_tib``, at least ``pool_min_throughput``). Raises
        :class:`RuleViolation` for a pool size out of range or a service without pools.
        """
        if self.pool_min_size is None and self.pool_max_size is None:
            raise RuleViolation(f"{self.id} has no capacity pools", "pool sizes do not apply here")
        low, high = self.pool_min_size or 0, self.pool_max_size or math.inf
        if not low <= pool_size <= high:
            raise RuleViolation(f"{self.id} pool size {format_size(low)} to {format_size(high)}",
                                f"pool size {format_size(pool_size)} is out of range")
        tib = pool_size / TiB
        if self.rate_per_tib is not None:
            budget = tib * self.rate_per_tib
            return min(budget, self.pool_max_throughput) if self.pool_max_throughput is not None else budget
        if self.pool_max_throughput_per_tib is not None:
            return max(tib * self.pool_max_throughput_per_tib, self.pool_min_throughput or 0.0)
        raise RuleViolation(f"{self.id} has no pool throughput rule", "no rate per TiB is known for this level")

    def manual_throughput(self, throughput: float, *, large: bool = False, pool_size: int | None = None) -> float:
        """Check a throughput (bytes/s) asked for one volume under manual QoS and return it.

        Raises :class:`RuleViolation` naming the rule when the level has no manual QoS,
        the throughput is outside the per-volume range (``gcnv-extreme manual QoS volume
        throughput <= 4.5 GiB/s``), or above the pool's budget when ``pool_size`` is given.
        """
        if not self.manual_qos:
            raise RuleViolation(f"{self.id} has no manual QoS", "a volume throughput cannot be set here")
        high = self.volume_max_throughput or self.max_throughput
        if large and self.large_max_throughput is not None:
            high = self.large_max_throughput
        if throughput > high:
            raise RuleViolation(f"{self.id} manual QoS volume throughput <= {format_rate(high, binary=True)}",
                                f"{format_rate(throughput, binary=True)} is above one volume's maximum")
        if self.volume_min_throughput is not None and throughput < self.volume_min_throughput:
            raise RuleViolation(
                f"{self.id} manual QoS volume throughput >= {format_rate(self.volume_min_throughput, binary=True)}",
                f"{format_rate(throughput, binary=True)} is below one volume's minimum")
        if pool_size is not None:
            budget = self.pool_budget(pool_size)
            if throughput > budget:
                raise RuleViolation(f"{self.id} pool budget = pool TiB x {self._rate_text()}",
                                    f"{format_rate(throughput, binary=True)} is above the pool's "
                                    f"{format_rate(budget, binary=True)}")
        return float(throughput)

    def _rate_text(self) -> str:
        rate = self.rate_per_tib or self.pool_max_throughput_per_tib or 0.0
        return f"{format_rate(rate, binary=True)} per TiB"
