"""Azure VM sizes and their storage limits."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import NonNegativeFloat, PositiveInt, ValidationError, model_validator

from ..schema import PositiveDuration, PositiveOps, PositiveRate, PositiveSize, schema_error
from .row import HOURS_PER_MONTH, CloudRow

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["Vm"]


@lru_cache(maxsize=1)
def _price() -> TypeAdapter:
    """The validator of an hourly price, built on first use (only a file giving
    ``price_per_hour`` needs it; building it at import costs every command)."""
    from pydantic import TypeAdapter

    return TypeAdapter(NonNegativeFloat)


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
    - ``price_per_month``: a file may give ``price_per_hour`` instead (times 730).

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
    price_per_month: NonNegativeFloat | None = None

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
        if self.cached_iops is not None and self.cache_size is None:
            raise ValueError("cached_iops needs cache_size")
        return self

    @property
    def has_cache(self) -> bool:
        """True when the size has a host cache with published limits."""
        return self.cached_iops is not None
