"""Monthly costs from catalog prices (a month is 730 hours; the catalog converts hourly VM prices).

- A VM: ``price_per_month``.
- A fixed-size disk (P30, E10, S4): ``price_per_month``, billed at its tier's size.
- Premium SSD v2 and Ultra: per GiB-month of size, plus per IOPS-month and per MB/s-month of
  what is provisioned above the free baseline (Premium SSD v2: 3,000 IOPS and 125 MB/s).
- A share: per GiB-month of the billed capacity (the capacity pool where the service has
  pools: at least the pool minimum), plus per MiB/s-month of throughput where the level
  prices it (``price_per_mibps_month``).

Every function returns None when a price it needs is missing from the catalog: such a
candidate is reported but ranked after priced ones.
"""

from __future__ import annotations

import math

from ..catalog import Catalog, DiskSku, ProvisionedDisk, ServiceLevel, Vm
from ..units import GiB, MiB
from .config import Config

__all__ = ["vm_price", "disk_price", "provisioned_price", "share_price", "billed_capacity", "pool_step", "unpriced", "MBPS"]

MBPS = 1e6
"""Disk throughput is priced per MB/s (10^6 bytes/s)."""


def vm_price(vm: Vm | None) -> float | None:
    """Monthly price of one VM; 0 for a generic client (not part of the search)."""
    return 0.0 if vm is None else vm.price_per_month


def disk_price(sku: DiskSku) -> float | None:
    """Monthly price of one fixed-size disk."""
    return sku.price_per_month


def provisioned_price(sku: ProvisionedDisk, size: int, iops: float, bandwidth: float) -> float | None:
    """Monthly price of one Premium SSD v2 or Ultra disk of ``size`` bytes provisioned with
    ``iops`` (ops/s) and ``bandwidth`` (bytes/s); None when a needed price is missing."""
    parts = [(math.ceil(size / GiB), sku.price_per_gib_month),
             (max(0.0, iops - (sku.baseline_iops or 0.0)), sku.price_per_iops_month),
             (max(0.0, bandwidth - (sku.baseline_bandwidth or 0.0)) / MBPS, sku.price_per_mbps_month)]
    total = 0.0
    for quantity, price in parts:
        if quantity <= 0:
            continue
        if price is None:
            return None
        total += quantity * price
    return total


def pool_step(level: ServiceLevel) -> int:
    """The granularity of a pool's size: the catalog's ``pool_size_step`` where a level gives
    one, else 1 GiB."""
    return int(getattr(level, "pool_size_step", None) or GiB)


def billed_capacity(level: ServiceLevel, size: int, pool: int | None = None) -> int:
    """Bytes a share is billed for: its pool (given, or the smallest that holds it: at least
    the level's pool minimum, in whole pool steps) where the level has pools, else its size."""
    if pool is not None:
        return pool
    if level.pool_min_size is not None:
        step = pool_step(level)
        return math.ceil(max(size, level.pool_min_size) / step) * step
    return size


def share_price(level: ServiceLevel, billed: int, throughput: float | None = None) -> float | None:
    """Monthly price of ``billed`` bytes of ``level`` (and of ``throughput`` bytes/s where
    the level prices throughput); None when the level has no price."""
    if level.price_per_gib_month is None:
        return None
    total = math.ceil(billed / GiB) * level.price_per_gib_month
    per_mibps = getattr(level, "price_per_mibps_month", None)
    if per_mibps is not None and throughput:
        total += throughput / MiB * per_mibps
    return total


def unpriced(catalog: Catalog, config: Config) -> list[str]:
    """The catalog ids of a configuration's parts that have no price (empty when fully priced)."""
    out = []
    if config.vm is not None and catalog.vms[config.vm].price_per_month is None:
        out.append(config.vm)
    for d in config.disks:
        sku = catalog.disk(d.sku)
        if isinstance(sku, DiskSku):
            if sku.price_per_month is None:
                out.append(sku.id)
        elif provisioned_price(sku, d.size or sku.min_size, d.iops or 0.0, d.bandwidth or 0.0) is None:
            out.append(sku.id)
    if config.share is not None:
        level = catalog.service(config.share.service, config.share.level)
        if level.price_per_gib_month is None:
            out.append(level.id)
    return out
