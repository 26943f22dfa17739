"""Disks: Azure fixed-size SKUs (P30, E10, S4) and provisioned ones (Premium SSD v2, Ultra); Google
Cloud Persistent Disk (performance by size) and Hyperdisk (provisioned)."""


import math
from typing import Literal, NamedTuple

from pydantic import NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

from ..errors import RuleViolation
from ..schema import FrozenModel, PositiveDuration, PositiveOps, PositiveRate, PositiveSize
from ..units import GiB, TiB, format_ops, format_size
from .row import CloudRow

__all__ = ["DiskBurst", "BandwidthKnee", "PerformancePlus", "DiskSku", "ProvisionedDisk", "IO_UNIT", "HOST_CACHE_MAX_SIZE",
           "check_size"]

IO_UNIT = 256 * 1024
"""Azure counts an IO of up to 256 KiB as one; larger IOs count as multiples of it."""
HOST_CACHE_MAX_SIZE = 4 * TiB
"""Host caching exists only for disks smaller than this (4,096 GiB)."""


def _mibps(rate: float) -> str:
    """A bandwidth as Google's disk pages state it: MiB/s (``0.48 MiB/s``, ``1,200 MiB/s``)."""
    return f"{rate / 2**20:,.6g} MiB/s"


def _mbps(rate: float) -> str:
    """A disk bandwidth as Azure's disk pages state it: decimal MB/s (``0.25 MB/s``, ``2,000 MB/s``)."""
    return f"{rate / 1e6:,.6g} MB/s"



def check_size(row, size: int) -> None:
    """Raise :class:`RuleViolation` unless ``size`` (bytes) lies within a sized disk row's
    ``min_size``..``max_size`` in whole ``size_step`` steps (a provisioned disk, an EBS volume)."""
    if not row.min_size <= size <= row.max_size:
        raise RuleViolation(f"{row.id} size {format_size(row.min_size)} to {format_size(row.max_size)}",
                            f"size {format_size(size)} is out of range")
    if size % row.size_step:
        raise RuleViolation(f"{row.id} size in {format_size(row.size_step)} steps",
                            f"size {format_size(size)} is not a whole number of {format_size(row.size_step)}")

class DiskBurst(FrozenModel):
    """Higher caps a disk can reach for a while.

    ``credit``: free; a bucket that starts full and lasts ``duration`` seconds at the burst
    caps (Azure: 30 minutes). ``on-demand``: paid, no bucket, so ``duration`` is None.
    """

    kind: Literal["credit", "on-demand"]
    iops: PositiveOps
    bandwidth: PositiveRate
    duration: PositiveDuration | None = None

    @model_validator(mode="after")
    def _duration(self) -> "DiskBurst":
        if self.kind == "credit" and self.duration is None:
            raise ValueError("a credit burst needs duration (how long a full bucket lasts)")
        if self.kind == "on-demand" and self.duration is not None:
            raise ValueError("an on-demand burst has no duration")
        return self


class BandwidthKnee(NamedTuple):
    """Above ``bandwidth`` bytes/s, a disk's throughput rises at ``per_iops`` bytes/s per
    IOPS (io1/io2: 500 MiB/s, then 16 KiB per IOPS above 32,000 IOPS)."""

    bandwidth: PositiveRate
    per_iops: PositiveRate


class PerformancePlus(NamedTuple):
    """The higher caps of a disk created with performance plus: (ops/s, bytes/s)."""

    iops: PositiveOps
    bandwidth: PositiveRate


class DiskSku(CloudRow):
    """A fixed-size managed disk SKU: Premium SSD P1–P80, Standard SSD E1–E80, Standard HDD S4–S80.

    ``iops`` (ops/s, counted in ``io_unit`` bytes) and ``bandwidth`` (bytes/s) are the
    provisioned caps; ``read_latency``/``write_latency`` (seconds) are unloaded latencies,
    taken from the catalog's defaults (and marked assumptions) when a row does not say.
    Raises (at validation) when a burst is below the caps it bursts from.
    """

    tier: Literal["premium", "standard-ssd", "standard-hdd"]
    size: PositiveSize
    iops: PositiveOps
    bandwidth: PositiveRate
    burst: DiskBurst | None = None
    performance_plus: PerformancePlus | None = None
    read_latency: PositiveDuration
    write_latency: PositiveDuration
    io_unit: PositiveSize = IO_UNIT
    price_per_month: NonNegativeFloat | None = None

    @model_validator(mode="after")
    def _burst_above(self) -> "DiskSku":
        if self.burst and (self.burst.iops < self.iops or self.burst.bandwidth < self.bandwidth):
            raise ValueError("burst.iops/burst.bandwidth must not be below iops/bandwidth")
        return self

    @property
    def host_caching(self) -> bool:
        """True when host caching (ReadOnly/ReadWrite) may be set: disks under 4,096 GiB."""
        return self.size < HOST_CACHE_MAX_SIZE


class ProvisionedDisk(CloudRow):
    """A disk whose size, IOPS and throughput are provisioned separately: Premium SSD v2 or
    Ultra (Azure), gp3, io1 or io2 (EBS).

    The rules, with their parameters from the catalog:

    - size from ``min_size`` to ``max_size`` in ``size_step`` steps;
    - IOPS from ``min_iops`` up to ``iops_per_gib`` per GiB of size, never below
      ``baseline_iops`` (free at any size, Premium SSD v2) and never above ``max_iops``;
    - bandwidth from ``min_bandwidth`` up to ``bandwidth_per_iops`` (bytes/s per
      provisioned IOPS), never above ``max_bandwidth``.

    With a ``knee`` the throughput stops at ``knee.bandwidth`` until ``knee.per_iops`` per
    IOPS gives more (io1/io2 above 32,000 IOPS: 16 KiB per IOPS, up to ``max_bandwidth``).
    Where ``bandwidth_provisioned`` is false (io1, io2, pd-extreme, Hyperdisk Throughput) the
    throughput is not chosen: it is the most the IOPS allow; given alone, it sets the IOPS it
    needs (Hyperdisk Throughput is provisioned by its throughput: 4 IOPS per MiB/s).
    No host caching. Latencies are unloaded latencies (assumptions: not published).

    ``by_size`` (Google Cloud Persistent Disk): the performance is not provisioned but follows
    the size: ``iops_per_gib`` and ``bandwidth_per_gib`` times the size, plus the baseline
    (which Compute Engine gives per VM: :meth:`caps` takes the share of it one disk gets), up
    to ``max_iops`` and ``max_bandwidth``. A scenario may state lower figures than the size
    gives (a plan's disks carry what they are planned for), never higher.
    """

    tier: Literal["premium-v2", "ultra", "pd-standard", "pd-balanced", "pd-ssd", "pd-extreme", "hyperdisk-balanced",
                  "hyperdisk-extreme", "hyperdisk-throughput", "gp3", "io1", "io2"]
    by_size: bool = False
    bandwidth_per_gib: PositiveRate | None = None
    min_size: PositiveSize
    max_size: PositiveSize
    size_step: PositiveSize
    baseline_iops: PositiveOps | None = None
    baseline_bandwidth: PositiveRate | None = None
    iops_per_gib: PositiveFloat
    min_iops: PositiveOps
    max_iops: PositiveOps
    bandwidth_per_iops: PositiveRate
    min_bandwidth: PositiveRate
    max_bandwidth: PositiveRate
    read_latency: PositiveDuration
    write_latency: PositiveDuration
    io_unit: PositiveSize = IO_UNIT
    changes_per_day: PositiveInt | None = None
    bandwidth_provisioned: bool = True
    knee: BandwidthKnee | None = None
    price_per_gib_month: NonNegativeFloat | None = None
    price_per_iops_month: NonNegativeFloat | None = None
    price_per_mbps_month: NonNegativeFloat | None = None

    @model_validator(mode="after")
    def _ranges(self) -> "ProvisionedDisk":
        for low, high in (("min_size", "max_size"), ("min_iops", "max_iops"), ("min_bandwidth", "max_bandwidth")):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} must not be above {high}")
        if (self.baseline_iops is None) != (self.baseline_bandwidth is None):
            raise ValueError("baseline_iops and baseline_bandwidth go together: give both or neither")
        if self.by_size and self.bandwidth_per_gib is None:
            raise ValueError("by_size needs bandwidth_per_gib (the throughput per GiB of size)")
        return self

    @property
    def host_caching(self) -> bool:
        """Always False: neither Premium SSD v2, Ultra, a Google Cloud disk nor EBS has host caching."""
        return False

    # ---- rules

    def _rule_iops(self) -> str:
        above = f" above {self.baseline_iops / self.iops_per_gib:g} GiB" if self.baseline_iops else ""
        return f"{self.id} iops <= {self.iops_per_gib:g} per GiB{above}, up to {self.max_iops:,.0f}"

    def _rule_bandwidth(self) -> str:
        knee = (f" ({_mbps(self.knee.bandwidth)} until {_mbps(self.knee.per_iops)} per IOPS gives more)"
                if self.knee else "")
        return (f"{self.id} bandwidth <= {_mbps(self.bandwidth_per_iops)} per IOPS{knee}, "
                f"up to {_mbps(self.max_bandwidth)}")

    def most_bandwidth(self, iops: float) -> float:
        """The most bytes/s that ``iops`` provisioned IOPS allow."""
        most = min(self.max_bandwidth, self.bandwidth_per_iops * iops)
        return min(most, max(self.knee.bandwidth, self.knee.per_iops * iops)) if self.knee else most

    def iops_for(self, bandwidth: float) -> float:
        """The fewest IOPS that allow ``bandwidth`` bytes/s (below the maximum)."""
        if self.knee and bandwidth > self.knee.bandwidth:
            return bandwidth / self.knee.per_iops
        return bandwidth / self.bandwidth_per_iops

    def check_size(self, size: int) -> None:
        """Raise :class:`RuleViolation` unless ``size`` (bytes) is a size this disk can have."""
        check_size(self, size)

    def round_size(self, size: float) -> int:
        """The smallest valid size (bytes) of at least ``size``; raises when above the maximum."""
        rounded = max(self.min_size, math.ceil(size / self.size_step) * self.size_step)
        self.check_size(rounded)
        return rounded

    def size_for(self, iops: float) -> int:
        """The smallest valid size (bytes) that allows ``iops``; raises when none does."""
        if iops > self.max_iops:
            raise RuleViolation(self._rule_iops(), f"{format_ops(iops)} is above the maximum")
        if self.baseline_iops is not None and iops <= self.baseline_iops:
            return self.min_size
        return self.round_size(math.ceil(iops / self.iops_per_gib) * GiB)

    def max_caps(self, size: int, baseline_share: float = 1.0) -> tuple[float, float]:
        """The most (ops/s, bytes/s) a disk of ``size`` bytes can be provisioned with (a
        ``by_size`` disk: what its size gives, with ``baseline_share`` of the baseline)."""
        self.check_size(size)
        if self.by_size:
            gib = size / GiB
            return (min(self.max_iops, (self.baseline_iops or 0.0) * baseline_share + self.iops_per_gib * gib),
                    min(self.max_bandwidth, (self.baseline_bandwidth or 0.0) * baseline_share
                        + self.bandwidth_per_gib * gib))  # type: ignore[operator]
        iops = min(self.max_iops, max(self.baseline_iops or 0.0, self.iops_per_gib * size / GiB))
        return iops, self.most_bandwidth(iops)

    def _sized_caps(self, size: int, iops: float | None, bandwidth: float | None,
                    baseline_share: float) -> tuple[float, float]:
        """:meth:`caps` of a ``by_size`` disk: what the size gives, or the lower figures given."""
        most_iops, most_bandwidth = self.max_caps(size, baseline_share)
        for name, value, most, text in (("iops", iops, most_iops, format_ops),
                                        ("bandwidth", bandwidth, most_bandwidth, _mibps)):
            if value is not None and value > most * (1 + 1e-9):
                rule = (f"{self.id} {name} follows its size: {self.iops_per_gib:g} IOPS and "
                        f"{_mibps(self.bandwidth_per_gib)} per GiB")  # type: ignore[arg-type]
                raise RuleViolation(rule, f"{format_size(size)} gives at most {text(most)}")
        return float(iops if iops is not None else most_iops), float(bandwidth if bandwidth is not None
                                                                      else most_bandwidth)

    def caps(self, size: int, iops: float | None = None, bandwidth: float | None = None,
             baseline_share: float = 1.0) -> tuple[float, float]:
        """The (ops/s, bytes/s) caps of a disk of ``size`` bytes provisioned with ``iops`` and ``bandwidth``.

        An omitted value takes the free baseline where there is one (Premium SSD v2:
        3,000 IOPS, 125 MB/s), otherwise the most the size (or the IOPS) allows (Ultra).
        Raises :class:`RuleViolation` naming the rule when a value is out of range, for
        instance ``premium-v2 iops <= 500 per GiB above 6 GiB, up to 80,000``. A ``by_size``
        disk has what its size gives (``baseline_share`` of the baseline), or lower figures given.
        """
        if self.by_size:
            return self._sized_caps(size, iops, bandwidth, baseline_share)
        most_iops, _ = self.max_caps(size)
        if iops is None and bandwidth is not None and not self.bandwidth_provisioned:
            iops = self.iops_for(bandwidth)  # the throughput given alone sets the IOPS it comes with
        if iops is None:
            iops = self.baseline_iops if self.baseline_iops is not None else most_iops
        if iops < self.min_iops:
            raise RuleViolation(f"{self.id} iops >= {self.min_iops:,.0f}", f"{format_ops(iops)} is below the minimum")
        if iops > most_iops:
            need = self.size_for(iops) if iops <= self.max_iops else None
            hint = f"; {format_ops(iops)} needs at least {format_size(need)}" if need else ""
            raise RuleViolation(self._rule_iops(),
                                f"{format_size(size)} allows at most {format_ops(most_iops)}{hint}")
        most_bandwidth = self.most_bandwidth(iops)
        if not self.bandwidth_provisioned:
            if bandwidth is not None and abs(bandwidth - most_bandwidth) > 1e-6 * most_bandwidth:
                raise RuleViolation(f"{self.id} bandwidth follows from iops", "it is not provisioned: leave "
                                    f"bandwidth out (these IOPS give {_mbps(most_bandwidth)})")
            return float(iops), float(most_bandwidth)
        if bandwidth is None:
            bandwidth = self.baseline_bandwidth if self.baseline_bandwidth is not None else most_bandwidth
            bandwidth = min(bandwidth, most_bandwidth)
        if bandwidth < self.min_bandwidth:
            raise RuleViolation(f"{self.id} bandwidth >= {_mbps(self.min_bandwidth)}",
                                f"{_mbps(bandwidth)} is below the minimum")
        if bandwidth > most_bandwidth:
            need_iops = math.ceil(self.iops_for(bandwidth))
            hint = f"; {_mbps(bandwidth)} needs at least {need_iops:,} IOPS" if bandwidth <= self.max_bandwidth else ""
            raise RuleViolation(self._rule_bandwidth(),
                                f"{format_ops(iops)} allows at most {_mbps(most_bandwidth)}{hint}")
        return float(iops), float(bandwidth)
