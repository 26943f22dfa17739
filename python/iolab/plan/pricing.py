"""Prices as the buyer pays them: a reservation or savings plan, licences per core, negotiated discounts.

:func:`priced` turns a catalog priced in a region (list prices, pay-as-you-go) into the one a
plan ranks by: each VM's monthly price at the requirements' ``pricing.model`` (its
``rates_per_hour`` for a reservation or savings plan: a VM without that rate is unpriced,
never priced at another rate), plus ``licensed_cores`` per active vCPU, less the negotiated
discount of each part. The catalog's ``pricing`` then says which rate each part used.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from msgspec.structs import replace

from ..catalog import Catalog
from ..catalog.row import HOURS_PER_MONTH

if TYPE_CHECKING:
    from .requirements import Pricing

__all__ = ["priced", "vm_rate"]


def vm_rate(vm, model: str) -> float | None:
    """A VM's monthly price under ``model`` (None: the catalog has no such rate for it)."""
    if model == "payg":
        return vm.price_per_month
    hourly = (vm.rates_per_hour or {}).get(model)
    return None if hourly is None else hourly * HOURS_PER_MONTH


def _scaled(row, fields: tuple[str, ...], factor: float):
    update = {f: getattr(row, f) * factor for f in fields if getattr(row, f, None) is not None}
    return row.model_copy(update=update) if update and factor != 1.0 else row


def priced(catalog: Catalog, pricing: "Pricing", licensed_cores: float = 0.0) -> Catalog:
    """``catalog`` with the prices the buyer pays (see the module); left as it is for
    pay-as-you-go with no licences and no discount."""
    d = pricing.discount
    if pricing.model == "payg" and not licensed_cores and not (d.vm or d.disks or d.shares) \
            and not pricing.hybrid_benefit:
        return catalog
    vms = {}
    for ident, vm in catalog.vms.items():
        rate = vm_rate(vm, pricing.model)
        if rate is not None:
            rate = rate * (1 - d.vm) + licensed_cores * vm.vcpus
        vms[ident] = vm.model_copy(update={"price_per_month": rate})
    disks = {i: _scaled(r, ("price_per_month",), 1 - d.disks) for i, r in catalog.disks.items()}
    provisioned = {i: _scaled(r, ("price_per_gib_month", "price_per_iops_month", "price_per_mbps_month"), 1 - d.disks)
                   for i, r in catalog.provisioned.items()}
    scaled = {i: _scaled(r, ("price_per_gib_month",), 1 - d.disks) for i, r in catalog.scaled.items()}
    services = {i: _scaled(r, ("price_per_gib_month", "price_per_mibps_month", "price_per_iops_month"), 1 - d.shares)
                for i, r in catalog.services.items()}
    used: dict = {"vm": pricing.model, "disks": "payg", "shares": "payg"}
    if d.vm or d.disks or d.shares:
        used["discount"] = {"vm": d.vm, "disks": d.disks, "shares": d.shares}
    if pricing.hybrid_benefit:
        used["hybrid_benefit"] = True
    if licensed_cores:
        used["licensed_cores"] = licensed_cores
    return replace(catalog, vms=MappingProxyType(vms), disks=MappingProxyType(disks),
                   provisioned=MappingProxyType(provisioned), scaled=MappingProxyType(scaled),
                   services=MappingProxyType(services),
                   pricing=MappingProxyType(used))
