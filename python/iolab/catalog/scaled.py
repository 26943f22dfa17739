"""EBS volumes whose caps follow from their size: gp2 (IOPS per GiB, bursting on an I/O
credit bucket) and st1/sc1 (throughput per TiB, bursting on a throughput credit bucket)."""


from typing import Any, Literal, NamedTuple

from pydantic import NonNegativeFloat, PositiveFloat, model_validator

from ..schema import PositiveDuration, PositiveOps, PositiveRate, PositiveSize
from ..units import GiB, TiB
from .row import CloudRow

__all__ = ["ScaledDisk", "SmallVolumes", "ScaledCaps"]


class SmallVolumes(NamedTuple):
    """Volumes of at most ``size`` bytes have at most ``bandwidth`` bytes/s (gp2: 170 GiB, 128 MiB/s)."""

    size: PositiveSize
    bandwidth: PositiveRate


class ScaledCaps(NamedTuple):
    """One volume's caps: sustained ops/s and bytes/s, the burst caps (equal to the sustained
    ones where the volume does not burst) and its credit bucket in ops or bytes (None: none)."""

    iops: float
    bandwidth: float
    burst_iops: float
    burst_bandwidth: float
    credit_ops: float | None
    credit_bytes: float | None


class ScaledDisk(CloudRow):
    """An EBS volume type whose caps are set by the volume's size.

    - IOPS: ``iops_per_gib`` per GiB (gp2: 3), at least ``min_iops`` and at most
      ``max_iops``; where ``iops_per_gib`` is not given, ``max_iops`` at any size (st1, sc1).
    - Throughput: ``bandwidth_per_tib`` per TiB (st1: 40 MiB/s), at most ``max_bandwidth``;
      where it is not given, ``max_bandwidth`` (gp2: 250 MiB/s), or ``small.bandwidth`` for
      volumes of at most ``small.size`` (gp2: 128 MiB/s up to 170 GiB).
    - Burst: up to ``burst_iops`` while an I/O credit bucket of ``credit_ops`` lasts (gp2:
      3,000 IOPS, 5.4 million credits, only where the baseline is below it), or up to
      ``burst_bandwidth_per_tib`` per TiB (at most ``max_bandwidth``) while a bucket of
      ``credit_bytes_per_tib`` per TiB lasts (st1/sc1: 1 TiB per TiB). Buckets start full
      and fill at the baseline rate.
    - ``io_unit``: the largest IO counted as one (256 KiB SSD, 1 MiB HDD); physically
      sequential smaller IOs are merged up to it.

    Latencies are unloaded latencies; the pages publish none for these types (assumptions).
    """

    cloud: Literal["aws"] = "aws"  # type: ignore[assignment]
    tier: Literal["gp2", "st1", "sc1"]
    min_size: PositiveSize
    max_size: PositiveSize
    size_step: PositiveSize = GiB
    io_unit: PositiveSize
    iops_per_gib: PositiveFloat | None = None
    min_iops: PositiveOps | None = None
    max_iops: PositiveOps
    burst_iops: PositiveOps | None = None
    credit_ops: PositiveFloat | None = None
    bandwidth_per_tib: PositiveRate | None = None
    small: SmallVolumes | None = None
    max_bandwidth: PositiveRate
    burst_bandwidth_per_tib: PositiveRate | None = None
    credit_bytes_per_tib: PositiveSize | None = None
    read_latency: PositiveDuration
    write_latency: PositiveDuration
    price_per_gib_month: NonNegativeFloat | None = None

    @model_validator(mode="after")
    def _pairs(self) -> "ScaledDisk":
        if self.min_size > self.max_size:
            raise ValueError("min_size must not be above max_size")
        if (self.burst_iops is None) != (self.credit_ops is None):
            raise ValueError("burst_iops and credit_ops go together: give both or neither")
        if (self.burst_bandwidth_per_tib is None) != (self.credit_bytes_per_tib is None):
            raise ValueError("burst_bandwidth_per_tib and credit_bytes_per_tib go together: give both or neither")
        return self

    @property
    def host_caching(self) -> bool:
        """Always False: EBS has no host cache."""
        return False

    def check_size(self, size: int) -> None:
        """Raise :class:`RuleViolation` unless ``size`` (bytes) is a size this volume can have."""
        from .disk import check_size

        check_size(self, size)

    def sustained(self, size: Any) -> tuple[Any, Any]:
        """The baseline (ops/s, bytes/s) of volumes of ``size`` bytes, without their burst:
        what they hold indefinitely. ``size`` may be a number or a numpy array (one figure
        per size); the sizes are not checked (:meth:`caps` checks them)."""
        import numpy as np  # only the planner passes arrays; listing the catalog needs no numpy

        size = np.asarray(size, dtype=float)
        iops = np.full(size.shape, float(self.max_iops))
        if self.iops_per_gib is not None:
            iops = np.minimum(self.max_iops, np.maximum(self.min_iops or 0.0, self.iops_per_gib * size / GiB))
        if self.bandwidth_per_tib is not None:
            bandwidth = np.minimum(float(self.max_bandwidth), self.bandwidth_per_tib * size / TiB)
        elif self.small is not None:
            bandwidth = np.where(size <= self.small.size, float(self.small.bandwidth), float(self.max_bandwidth))
        else:
            bandwidth = np.full(size.shape, float(self.max_bandwidth))
        return iops, bandwidth

    def caps(self, size: int) -> ScaledCaps:
        """The caps of a volume of ``size`` bytes (raises when the size is out of range)."""
        self.check_size(size)
        iops, bandwidth = (float(x) for x in self.sustained(size))
        burst_iops, credit_ops = iops, None
        if self.burst_iops is not None and self.burst_iops > iops:
            burst_iops, credit_ops = self.burst_iops, self.credit_ops
        burst_bw, credit_bytes = bandwidth, None
        if self.burst_bandwidth_per_tib is not None:
            top = min(self.max_bandwidth, self.burst_bandwidth_per_tib * size / TiB)
            if top > bandwidth:
                burst_bw, credit_bytes = top, self.credit_bytes_per_tib * size / TiB  # type: ignore[operator]
        return ScaledCaps(float(iops), float(bandwidth), float(burst_iops), float(burst_bw), credit_ops, credit_bytes)
