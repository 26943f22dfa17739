"""Monthly costs from catalog prices (a month is 730 hours; the catalog converts hourly VM prices).

- A VM: ``price_per_month``.
- A fixed-size disk (P30, E10, S4): ``price_per_month``, billed at its tier's size.
- Premium SSD v2, Ultra, gp3, io1, io2: per GiB-month of size, plus per IOPS-month and per
  MB/s-month of what is provisioned above the free baseline (Premium SSD v2 and gp3: 3,000
  IOPS and 125 MB/s or MiB/s); io1/io2 bill no throughput (it follows from the IOPS).
- gp2, st1, sc1 (performance from the size): per GiB-month of size only.
- A share: per GiB-month of the billed capacity (the capacity pool where the service has
  pools: at least the pool minimum), plus, for a level whose throughput is provisioned apart
  (ANF Flexible), per MiB/s-month (``price_per_mibps_month``) of the throughput above the
  pool's free minimum (``pool_min_throughput``, 128 MiB/s); for a provisioned level (Azure
  Files provisioned v2), per IOPS-month and per MiB/s-month of all it provisions.

Every function returns None when a price it needs is missing from the catalog: such a
candidate is reported but ranked after priced ones.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from ..catalog import Catalog, DiskSku, ProvisionedDisk, ScaledDisk, ServiceLevel, Vm
from ..units import GiB, MiB
from .config import Config

__all__ = ["vm_price", "disk_price", "scaled_price", "provisioned_price", "provisioned_prices", "share_price", "billed_capacity", "pool_step", "unpriced", "price_entry",
           "bill", "Bill", "MBPS"]

MBPS = 1e6
"""Disk throughput is priced per MB/s (10^6 bytes/s)."""


def vm_price(vm: Vm | None) -> float | None:
    """Monthly price of one VM; 0 for a generic client (not part of the search)."""
    return 0.0 if vm is None else vm.price_per_month


def disk_price(sku: DiskSku) -> float | None:
    """Monthly price of one fixed-size disk."""
    return sku.price_per_month


def scaled_price(sku: ScaledDisk, size: int) -> float | None:
    """Monthly price of one gp2, st1 or sc1 volume of ``size`` bytes (whole GiB billed)."""
    return None if sku.price_per_gib_month is None else math.ceil(size / GiB) * sku.price_per_gib_month


def provisioned_price(sku: ProvisionedDisk, size: int, iops: float, bandwidth: float) -> float | None:
    """Monthly price of one Premium SSD v2 or Ultra disk of ``size`` bytes provisioned with
    ``iops`` (ops/s) and ``bandwidth`` (bytes/s); None when a needed price is missing."""
    parts = provisioned_parts(sku, size, iops, bandwidth)
    return None if parts is None else sum(parts)


def _paid_bandwidth(sku: ProvisionedDisk, bandwidth: float) -> float:
    """The throughput (bytes/s) a provisioned disk bills: what is above its free baseline, and
    nothing where throughput follows from the IOPS (io1, io2)."""
    return max(0.0, bandwidth - (sku.baseline_bandwidth or 0.0)) if sku.bandwidth_provisioned else 0.0


def provisioned_parts(sku: ProvisionedDisk, size: int, iops: float, bandwidth: float) -> tuple[float, float] | None:
    """A provisioned disk's monthly price as (capacity, IOPS and throughput); None when a
    needed price is missing."""
    parts = [(math.ceil(size / GiB), sku.price_per_gib_month),
             (max(0.0, iops - (sku.baseline_iops or 0.0)), sku.price_per_iops_month),
             (_paid_bandwidth(sku, bandwidth) / MBPS, sku.price_per_mbps_month)]
    money = []
    for quantity, price in parts:
        if quantity <= 0:
            money.append(0.0)
            continue
        if price is None:
            return None
        money.append(quantity * price)
    return money[0], money[1] + money[2]


def provisioned_prices(skus: list[ProvisionedDisk], which: np.ndarray, size: np.ndarray, iops: np.ndarray,
                       bandwidth: np.ndarray) -> np.ndarray:
    """:func:`provisioned_price` of many disks at once (row ``k`` a disk of ``skus[which[k]]``),
    NaN where a needed price is missing; the same figures, part by part."""
    def col(get) -> np.ndarray:
        return np.array([np.nan if (x := get(k)) is None else x for k in skus], dtype=float)[which]

    quantities = [(np.ceil(size / GiB), col(lambda k: k.price_per_gib_month)),
                  (np.maximum(0.0, iops - col(lambda k: k.baseline_iops or 0.0)), col(lambda k: k.price_per_iops_month)),
                  (np.maximum(0.0, bandwidth - col(lambda k: k.baseline_bandwidth or 0.0))
                   * col(lambda k: 1.0 if k.bandwidth_provisioned else 0.0) / MBPS,
                   col(lambda k: k.price_per_mbps_month))]
    money = [np.where(q <= 0, 0.0, q * p) for q, p in quantities]
    return money[0] + (money[1] + money[2])


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
    parts = share_parts(level, billed, throughput)
    return None if parts is None else sum(parts)


def share_parts(level: ServiceLevel, billed: int, throughput: float | None = None) -> tuple[float, float] | None:
    """A share's monthly price as (capacity, throughput); None when a price it needs is
    missing. ``throughput`` (bytes/s) is given for a level whose throughput is provisioned
    apart (ANF Flexible): it is billed above the pool's free minimum (``pool_min_throughput``)."""
    if level.price_per_gib_month is None:
        return None
    capacity = math.ceil(billed / GiB) * level.price_per_gib_month
    if level.provisioned:
        return _provisioned_share(level, billed, capacity)
    extra = 0.0
    above = max(0.0, (throughput or 0.0) - (level.pool_min_throughput or 0.0))
    if above > 0:
        if level.price_per_mibps_month is None:
            return None
        extra = above / MiB * level.price_per_mibps_month
    return capacity, extra


def _provisioned_share(level: ServiceLevel, size: int, capacity: float) -> tuple[float, float] | None:
    """A provisioned share's (Azure Files provisioned v2) monthly price as (capacity, IOPS
    and throughput): its IOPS and MiB/s at the recommended defaults the plan provisions,
    each billed whole (``price_per_iops_month``, ``price_per_mibps_month``); None when a
    needed price is missing."""
    throughput = level.throughput(size)
    parts = [(throughput / MiB, level.price_per_mibps_month)]
    if level.iops_per_mibps is None:
        parts.append((level.provisioned_iops(size, throughput) or 0.0, level.price_per_iops_month))
    extra = 0.0
    for quantity, price in parts:
        if quantity > 0:
            if price is None:
                return None
            extra += quantity * price
    return capacity, extra


def unpriced(catalog: Catalog, config: Config) -> list[str]:
    """The catalog ids of a configuration's parts that have no price (empty when fully priced)."""
    out = []
    if config.vm is not None and catalog.vms[config.vm].price_per_month is None:
        out.append(config.vm)
    for d in config.groups():
        sku = catalog.disk(d.sku)
        if isinstance(sku, DiskSku):
            if sku.price_per_month is None:
                out.append(sku.id)
        elif isinstance(sku, ScaledDisk):
            if scaled_price(sku, d.size or sku.min_size) is None:
                out.append(sku.id)
        elif provisioned_price(sku, d.size or sku.min_size, d.iops or 0.0, d.bandwidth or 0.0) is None:
            out.append(sku.id)
    if config.share is not None:
        sh = config.share
        level = catalog.service(sh.service, sh.level)
        if share_parts(level, billed_capacity(level, sh.size, sh.pool), sh.throughput if sh.manual else None) is None:
            out.append(level.id)
    return out


def price_entry(catalog, ident: str) -> str:
    """A catalog entry that would price ``ident`` (a VM size, a disk SKU, a service level),
    with the price fields it needs: ``vms: {Standard_D8s_v5: {price_per_hour: ...}}``."""
    model = (catalog.pricing or {}).get("vm", "payg")
    if ident in catalog.vms and model != "payg":  # a reservation's or savings plan's rate
        return f"vms: {{{ident}: {{rates_per_hour: {{{model}: ...}}}}}}"
    if ident in catalog.vms:
        section, fields = "vms", ["price_per_hour"]
    elif ident in catalog.disks:
        section, fields = "disks", ["price_per_month"]
    elif ident in catalog.scaled:
        section, fields = "scaled", ["price_per_gib_month"]
    elif ident in catalog.provisioned:
        row = catalog.provisioned[ident]
        section = "provisioned"
        fields = [f for f in ("price_per_gib_month", "price_per_iops_month", "price_per_mbps_month")
                  if getattr(row, f) is None]
    else:
        row = catalog.services.get(ident)
        section = "services"
        # a level with a capacity price lacks only the price of its provisioned throughput; one
        # whose throughput is billed apart (provisioned, or manual QoS without a rate per TiB) may lack both
        fields = ["price_per_gib_month"] if row is None or row.price_per_gib_month is None else []
        apart = row is not None and (row.provisioned or (row.manual_qos and row.rate_per_tib is None))
        if not fields or (apart and row.price_per_mibps_month is None):
            fields.append("price_per_mibps_month")
    return f"{section}: {{{ident}: {{{', '.join(f'{f}: ...' for f in fields)}}}}}"


class Bill(msgspec.Struct, frozen=True):
    """A configuration's monthly cost by part: the client VMs, the disks (fixed-size disks,
    and the capacity of Premium SSD v2 and Ultra), the shares (their billed capacity or
    pool), and what is provisioned on top (IOPS and throughput of Premium SSD v2 and Ultra,
    a share level's priced throughput). ``total`` is their sum."""

    vm: float = 0.0
    disks: float = 0.0
    shares: float = 0.0
    provisioned: float = 0.0
    pricing: tuple = ()
    """Which rate each part used, as (part, rate) pairs (``pricing`` of the catalog)."""

    @property
    def total(self) -> float:
        return self.vm + self.disks + self.shares + self.provisioned

    def __add__(self, other: "Bill") -> "Bill":
        return Bill(self.vm + other.vm, self.disks + other.disks, self.shares + other.shares,
                    self.provisioned + other.provisioned, self.pricing or other.pricing)

    def to_json(self) -> dict:
        return {"vm": round(self.vm, 2), "disks": round(self.disks, 2), "shares": round(self.shares, 2),
                "provisioned": round(self.provisioned, 2), "total": round(self.total, 2),
                "pricing": dict(self.pricing) or {"vm": "payg", "disks": "payg", "shares": "payg"}}


def bill(catalog: Catalog, config: Config) -> Bill | None:
    """The monthly :class:`Bill` of a configuration (every client); None when a part is unpriced.
    Its ``pricing`` says which rate each part used (:func:`iolab.plan.pricing.priced`)."""
    n = config.clients
    vm = vm_price(catalog.vms[config.vm] if config.vm is not None else None)
    if vm is None:
        return None
    total = Bill(vm=vm * n, pricing=tuple(catalog.pricing.items()))
    for group in config.groups():
        sku = catalog.disk(group.sku)
        if isinstance(sku, DiskSku):
            if sku.price_per_month is None:
                return None
            total += Bill(disks=sku.price_per_month * group.count * n)
            continue
        if isinstance(sku, ScaledDisk):
            price = scaled_price(sku, group.size or sku.min_size)
            if price is None:
                return None
            total += Bill(disks=price * group.count * n)
            continue
        parts = provisioned_parts(sku, group.size or sku.min_size, group.iops or 0.0, group.bandwidth or 0.0)
        if parts is None:
            return None
        total += Bill(disks=parts[0] * group.count * n, provisioned=parts[1] * group.count * n)
    if config.share is not None:
        sh = config.share
        level = catalog.service(sh.service, sh.level)
        parts = share_parts(level, billed_capacity(level, sh.size, sh.pool), sh.throughput if sh.manual else None)
        if parts is None:
            return None
        total += Bill(shares=parts[0], provisioned=parts[1])
    return total
