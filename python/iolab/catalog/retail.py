"""Pages saved from the Azure Retail Prices API, read into catalog prices.

A page is the API's JSON answer, ``{"Items": [...], "NextPageLink": ...}``. Each item needs
``armSkuName``, ``armRegionName``, ``retailPrice``, ``unitOfMeasure``, ``meterName``,
``productName``, ``type``, ``currencyCode`` and ``effectiveStartDate``. :func:`read_pages`
keeps (everything else is counted by the reason it was skipped):

- VM sizes (``productName`` "Virtual Machines ..."): Linux pay-as-you-go, ``type``
  Consumption, unit "1 Hour" -> ``vms.ID.price_per_hour``. Windows products, Spot and Low
  Priority meters, reservations and Dev/Test prices are skipped. The kept VM prices must
  keep the price invariants (:mod:`.invariants`): a Linux price above the same size's
  Windows price in the pages, or out of line per vCPU with its family, is refused.
- Managed disks (``productName`` "... Managed Disks", meter "P30 LRS Disk", unit "1/Month")
  -> ``disks.P30.price_per_month``; other redundancies (ZRS) and meters (operations,
  bursting) are skipped.
- Premium SSD v2 (``productName`` "Azure Premium SSD v2") and Ultra ("Ultra Disks"): meters
  "... Provisioned Capacity" (per GiB), "... Provisioned IOPS", "... Provisioned Throughput
  (MBps)", hourly units times 730 -> ``price_per_gib_month``, ``price_per_iops_month``,
  ``price_per_mbps_month``.
- Azure NetApp Files (``productName`` "Azure NetApp Files"): the "Standard Capacity",
  "Premium Capacity", "Ultra Capacity" and "Flexible Service Level Capacity" meters (unit
  "1 GiB/Hour", times 730) -> ``services.anf-LEVEL.price_per_gib_month``; "Flexible Service
  Level Throughput MiBps" (unit "1/Hour", times 730) -> ``services.anf-flexible.
  price_per_mibps_month`` (billed above the pool's free 128 MiB/s). Other ANF meters
  (double encryption, cool access, backup) are skipped.

When an id has several prices, the one with the latest ``effectiveStartDate`` wins; among
prices of the same date, the one of the highest ``tierMinimumUnits`` (the API lists Premium
SSD v2's free first 3,000 IOPS as a tier priced 0, and the paid IOPS above as a tier from
3,000; the catalog's free baseline covers the first).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SchemaError
from .row import HOURS_PER_MONTH

__all__ = ["ITEM_FIELDS", "RetailPrices", "read_pages"]

ITEM_FIELDS = ("armSkuName", "armRegionName", "retailPrice", "unitOfMeasure", "meterName", "productName",
               "type", "currencyCode", "effectiveStartDate")
_DISK_METER = re.compile(r"^([PES]\d+) LRS Disk$")
_DISK_PRODUCT = {"P": "Premium SSD Managed Disks", "E": "Standard SSD Managed Disks", "S": "Standard HDD Managed Disks"}
_PROVISIONED = {"Azure Premium SSD v2": "premium-v2", "Ultra Disks": "ultra"}
_ANF_METERS = {"Standard Capacity": ("anf-standard", "price_per_gib_month", "1 GiB/Hour"),
               "Premium Capacity": ("anf-premium", "price_per_gib_month", "1 GiB/Hour"),
               "Ultra Capacity": ("anf-ultra", "price_per_gib_month", "1 GiB/Hour"),
               "Flexible Service Level Capacity": ("anf-flexible", "price_per_gib_month", "1 GiB/Hour"),
               "Flexible Service Level Throughput MiBps": ("anf-flexible", "price_per_mibps_month", "1/Hour")}
_FILES = {("Premium Files", "Premium LRS Provisioned"): ("azure-files-premium", "price_per_gib_month"),
          ("Azure Files Provisioned v2", "SSD LRS Provisioned Storage"): ("azure-files-premium-v2", "price_per_gib_month"),
          ("Azure Files Provisioned v2", "SSD LRS Provisioned IOPS"): ("azure-files-premium-v2", "price_per_iops_month"),
          ("Azure Files Provisioned v2", "SSD LRS Provisioned Throughput MiBPS"):
              ("azure-files-premium-v2", "price_per_mibps_month"),
          ("Azure Files Provisioned v2", "HDD LRS Provisioned Storage"): ("azure-files-standard-v2", "price_per_gib_month"),
          ("Azure Files Provisioned v2", "HDD LRS Provisioned IOPS"): ("azure-files-standard-v2", "price_per_iops_month"),
          ("Azure Files Provisioned v2", "HDD LRS Provisioned Throughput MiBPS"):
              ("azure-files-standard-v2", "price_per_mibps_month")}
"""Azure Files meters (product, meter) the catalog prices: provisioned v1 per GiB; provisioned
v2 per GiB, per IOPS and per MiB/s, each provisioned (none of them free)."""
_FILES_UNITS = ("1 GiB/Month", "1 GiB/Hour", "1/Month", "1/Hour")
_PROVISIONED_METERS = (("Provisioned Capacity", "price_per_gib_month", ("1 GiB/Hour", "1 GiB/Month")),
                       ("Provisioned IOPS", "price_per_iops_month", ("1/Hour", "1/Month")),
                       ("Provisioned Throughput (MBps)", "price_per_mbps_month", ("1/Hour", "1/Month")))


@dataclass
class RetailPrices:
    """What :func:`read_pages` kept: ``prices[(section, id, field)] = (price, (effective date, tier))``."""

    region: str | None = None
    currency: str | None = None
    prices: dict[tuple[str, str, str], tuple[float, tuple[str, float]]] = field(default_factory=dict)
    skipped: Counter = field(default_factory=Counter)
    refused: list = field(default_factory=list)
    """VM prices the invariants refused: ``{"id", "rule", "reason"}`` each."""
    items: int = 0


def _item_error(file: str, index: int, name: str, message: str) -> SchemaError:
    return SchemaError(message, file=file, field=f"Items[{index}].{name}")


def _check_item(item: Any, file: str, index: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise SchemaError(f"expected an object, got {type(item).__name__}", file=file, field=f"Items[{index}]")
    for name in ITEM_FIELDS:
        if name not in item:
            raise _item_error(file, index, name, "missing")
        value = item[name]
        if name == "retailPrice":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise _item_error(file, index, name, f"expected a price (a number 0 or above), got {value!r}")
        elif not isinstance(value, str):
            raise _item_error(file, index, name, f"expected a string, got {value!r}")
        elif not value.strip() and name in ("armRegionName", "currencyCode"):
            raise _item_error(file, index, name, f"expected a {'region' if name[0] == 'a' else 'currency'} name, "
                              f"got {value!r}")
    return item


def _load_page(path: Path) -> list[Any]:
    from ..inputs import read_text

    name = str(path)
    text = read_text(path, what="price page")  # a regular file of bounded size, UTF-8
    try:
        page = json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}", file=name) from None
    if not isinstance(page, dict) or "Items" not in page:
        raise SchemaError("expected a page of the Azure Retail Prices API: an object with an Items list", file=name)
    if not isinstance(page["Items"], list):
        raise SchemaError(f"expected a list, got {type(page['Items']).__name__}", file=name, field="Items")
    return page["Items"]


_TERMS = {"1 Year": ("reserved-1y", 8760.0), "3 Years": ("reserved-3y", 26280.0)}
"""A VM reservation's term: the rate it becomes and the hours its price (for the whole
term) is spread over."""


def _classify(item: dict[str, Any]) -> tuple[tuple[str, str, str], float] | str:
    """The catalog price an item gives, or why it is skipped."""
    product, meter, unit = item["productName"], item["meterName"], item["unitOfMeasure"]
    if item["type"] == "Reservation" and product.startswith("Virtual Machines") \
            and item.get("reservationTerm") in _TERMS and item["armSkuName"].startswith("Standard_"):
        model, hours = _TERMS[item["reservationTerm"]]
        return ("vms", item["armSkuName"], f"rates_per_hour.{model}"), float(item["retailPrice"]) / hours
    if item["type"] != "Consumption":
        return f"not pay-as-you-go (type {item['type']})"
    if product.startswith("Virtual Machines"):
        if product.endswith("Windows"):
            return "Windows"
        if "Spot" in meter:
            return "Spot"
        if "Low Priority" in meter:
            return "Low Priority"
        if not item["armSkuName"].startswith("Standard_"):
            return "not a VM size (armSkuName without Standard_)"
        if unit != "1 Hour":
            return f"VM price not per hour ({unit})"
        return ("vms", item["armSkuName"], "price_per_hour"), float(item["retailPrice"])
    disk = _DISK_METER.match(meter)
    if disk and product == _DISK_PRODUCT.get(disk.group(1)[0]):
        if unit != "1/Month":
            return f"disk price not per month ({unit})"
        return ("disks", disk.group(1), "price_per_month"), float(item["retailPrice"])
    if (product, meter) in _FILES:
        level, fld = _FILES[(product, meter)]
        if unit not in _FILES_UNITS:
            return f"Azure Files price in an unknown unit ({unit})"
        factor = HOURS_PER_MONTH if unit.endswith("Hour") else 1.0
        return ("services", level, fld), float(item["retailPrice"]) * factor
    if product in ("Premium Files", "Azure Files Provisioned v2"):
        return "Azure Files meter not priced by the catalog (redundancy other than LRS, snapshots)"
    if product == "Ultra Disks" and "vCPU" in meter:
        return ("Ultra reservation per vCPU: billed only while a VM with Ultra enabled has no Ultra disk attached, "
                "which a plan never leaves it")
    if product in _PROVISIONED:
        for suffix, fld, units in _PROVISIONED_METERS:
            if meter.endswith(suffix):
                if unit not in units:
                    return f"provisioned disk price in an unknown unit ({unit})"
                factor = HOURS_PER_MONTH if unit.endswith("Hour") else 1.0
                return ("provisioned", _PROVISIONED[product], fld), float(item["retailPrice"]) * factor
        return "provisioned disk meter not priced by the catalog"
    if product == "Azure NetApp Files":
        if meter not in _ANF_METERS:
            return "Azure NetApp Files meter not priced by the catalog"
        level, fld, expected = _ANF_METERS[meter]
        if unit != expected:
            return f"Azure NetApp Files price in an unknown unit ({unit})"
        return ("services", level, fld), float(item["retailPrice"]) * HOURS_PER_MONTH
    if "Managed Disks" in product:
        return "other disk meter (redundancy other than LRS, operations, bursting)"
    return "not a VM size or managed disk"


_SAVINGS = {"1 Year": "savings-1y", "3 Years": "savings-3y"}


def _savings(item: dict[str, Any], key: tuple[str, str, str], file: str, index: int) -> list:
    """A Linux VM price's savings-plan rates (the ``savingsPlan`` list the API gives beside a
    pay-as-you-go price: ``term`` and an hourly ``retailPrice``) as rates_per_hour entries."""
    plans = item.get("savingsPlan")
    if key[0] != "vms" or key[2] != "price_per_hour" or plans is None:
        return []
    if not isinstance(plans, list):
        raise _item_error(file, index, "savingsPlan", f"expected a list, got {type(plans).__name__}")
    out = []
    for j, plan in enumerate(plans):
        where = f"savingsPlan[{j}]"
        if not isinstance(plan, dict) or plan.get("term") not in _SAVINGS:
            raise _item_error(file, index, f"{where}.term", "expected a term of '1 Year' or '3 Years'")
        price = plan.get("retailPrice")
        if isinstance(price, bool) or not isinstance(price, (int, float)) or not price >= 0:
            raise _item_error(file, index, f"{where}.retailPrice", f"expected a price (a number 0 or above), got {price!r}")
        out.append(((key[0], key[1], f"rates_per_hour.{_SAVINGS[plan['term']]}"), float(price)))
    return out


def read_pages(paths: list[Path], region: str | None = None) -> RetailPrices:
    """Read saved pages and keep one region's prices (``region``, or the only region in them).

    Raises :class:`SchemaError` naming the file and ``Items[i].field`` for a malformed item,
    and naming the regions found when they are several and ``region`` is not given, or the
    currencies when the kept prices use more than one.
    """
    kept: list[tuple[tuple[str, str, str], float, str, str, tuple[str, float], tuple[str, int]]] = []
    windows: list[tuple[str, float, str, str]] = []
    out = RetailPrices()
    for path in paths:
        for index, raw in enumerate(_load_page(path)):
            item = _check_item(raw, str(path), index)
            out.items += 1
            found = _classify(item)
            if found == "Windows" and item["type"] == "Consumption" and item["unitOfMeasure"] == "1 Hour" \
                    and "Spot" not in item["meterName"] and "Low Priority" not in item["meterName"]:
                windows.append((item["armSkuName"], float(item["retailPrice"]), item["armRegionName"],
                                item["effectiveStartDate"]))
            if isinstance(found, str):
                out.skipped[found] += 1
            else:
                tier = item.get("tierMinimumUnits", 0)
                tier = float(tier) if isinstance(tier, (int, float)) and not isinstance(tier, bool) else 0.0
                for key, price in [found, *_savings(item, found[0], str(path), index)]:
                    kept.append((key, price, item["armRegionName"], item["currencyCode"],
                                 (item["effectiveStartDate"], tier), (str(path), index)))
    regions = sorted({k[2] for k in kept})
    if region is not None:
        region = region.strip().lower()
    else:
        if len(regions) > 1:
            raise SchemaError(f"the pages hold prices for {len(regions)} regions ({', '.join(regions)}); "
                              "choose one with --region", field="--region")
        region = regions[0] if regions else None
    out.region = region
    for key, price, where, currency, date, (file, index) in kept:
        if where != region:
            out.skipped["another region"] += 1
            continue
        if out.currency is None:
            out.currency = currency
        elif currency != out.currency:
            raise _item_error(file, index, "currencyCode", f"the pages mix currencies ({out.currency}, {currency}); "
                              "save pages of one currency")
        old = out.prices.get(key)
        if old is not None:
            out.skipped["older or lower-tier price of the same meter"] += 1
            if old[1] >= date:
                continue
        out.prices[key] = (price, date)
    _check(out, {sku: price for sku, price, where, _ in sorted(windows, key=lambda w: w[3]) if where == region})
    return out


def _check(out: RetailPrices, windows: dict[str, float]) -> None:
    """Refuse the kept VM prices that break the price invariants (:mod:`.invariants`): a
    Linux price above the same size's Windows price in the pages, or a price per vCPU out of
    line with its family's. Each is counted among the skipped and listed in ``refused``."""
    from .invariants import check_linux_windows, check_vm_family

    linux = {k[1]: v[0] for k, v in out.prices.items() if k[0] == "vms" and k[2] == "price_per_hour"}
    region = out.region or ""
    for failure in check_linux_windows(linux, windows, region) + check_vm_family(linux, region):
        if out.prices.pop(("vms", failure.ident, "price_per_hour"), None) is not None:
            out.skipped[f"failed the price check ({failure.rule})"] += 1
            out.refused.append({"id": failure.ident, "rule": failure.rule, "reason": failure.reason})
