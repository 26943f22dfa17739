"""The catalog: every VM size, disk SKU, service level and protocol, looked up by id."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeVar, Union

import msgspec

from ..errors import UnknownIdError
from .cloud import CLOUD_NAMES
from .defaults import Defaults
from .disk import DiskSku, ProvisionedDisk
from .protocol import Protocol
from .row import Row
from .rows import clouds_of, of_cloud
from .scaled import ScaledDisk
from .service import ServiceLevel
from .vm import Vm

__all__ = ["Catalog", "Entry", "SECTIONS"]

Entry = Union[Vm, DiskSku, ProvisionedDisk, ScaledDisk, ServiceLevel, Protocol]
SECTIONS: Mapping[str, type[Row]] = MappingProxyType({
    "vms": Vm, "disks": DiskSku, "provisioned": ProvisionedDisk, "services": ServiceLevel, "protocols": Protocol,
    "scaled": ScaledDisk,
})
"""The sections of a catalog file that hold rows by id, and the model of their rows."""

R = TypeVar("R", bound=Row)


def _find(rows: Mapping[str, R], ident: str) -> R | None:
    """The row with this id, or with this id ignoring case when that is unambiguous."""
    if ident in rows:
        return rows[ident]
    folded = [k for k in rows if k.casefold() == ident.casefold()]
    return rows[folded[0]] if len(folded) == 1 else None


class Catalog(msgspec.Struct, frozen=True):
    """All catalog rows, immutable. Build one with :func:`iolab.catalog.load_catalog`.

    The lookup methods accept an id exactly or in another case (``standard_ds13``) and
    raise :class:`~iolab.errors.UnknownIdError` listing the nearest known ids otherwise.
    """

    vms: Mapping[str, Vm]
    disks: Mapping[str, DiskSku]
    provisioned: Mapping[str, ProvisionedDisk]
    services: Mapping[str, ServiceLevel]
    protocols: Mapping[str, Protocol]
    defaults: Defaults
    #: EBS volumes whose caps follow from their size (gp2, st1, sc1).
    scaled: Mapping[str, ScaledDisk] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    #: (section, id, field) of every price that the user's own catalog files set: kept by
    #: :meth:`in_region` whatever the region.
    own_prices: frozenset[tuple[str, str, str]] = frozenset()
    #: The region whose prices the rows carry (set by :meth:`in_region`), None before.
    region: str | None = None
    #: How :meth:`in_region` set each price: ``(section, id, field)`` to ``priced``,
    #: ``missing`` (not published in this region), ``unpublished`` (in no region) or ``own``.
    price_status: Mapping[tuple[str, str, str], str] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    #: Which rate each part of a bill uses (``{"vm": "reserved-3y", "disks": "payg", ...}``),
    #: set by :func:`iolab.plan.pricing.priced`; empty for list prices.
    pricing: Mapping[str, Any] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    #: The cloud whose rows alone this catalog holds (set by :meth:`of_cloud`), None for all.
    cloud: str | None = None

    def vm(self, id: str) -> Vm:
        """The VM size ``id`` (``Standard_DS13``)."""
        found = _find(self.vms, id)
        if found is None:
            raise UnknownIdError("VM size", id, self.vms)
        return found

    def disk(self, id: str) -> DiskSku | ProvisionedDisk | ScaledDisk:
        """The disk SKU ``id``: a fixed size (``P30``, ``E10``, ``S4``), a provisioned disk
        (``premium-v2``, ``ultra``, ``gp3``, ``io2``) or a size-scaled one (``gp2``, ``st1``)."""
        found = _find(self.disks, id) or _find(self.provisioned, id) or _find(self.scaled, id)
        if found is None:
            raise UnknownIdError("disk SKU", id, [*self.disks, *self.provisioned, *self.scaled])
        return found

    def service(self, service: str, level: str) -> ServiceLevel:
        """The service level ``level`` of ``service`` (``"anf"``, ``"ultra"``)."""
        services = sorted({s.service for s in self.services.values()})
        if service.casefold() not in services:
            raise UnknownIdError("service", service, services)
        for row in self.services.values():
            if row.service == service.casefold() and row.level.casefold() == level.casefold():
                return row
        levels = sorted(s.level for s in self.services.values() if s.service == service.casefold())
        raise UnknownIdError(f"{service} service level", level, levels)

    def protocol(self, id: str) -> Protocol:
        """The protocol ``id`` (``nfs3``, ``nfs4.1``, ``smb3``)."""
        found = _find(self.protocols, id)
        if found is None:
            raise UnknownIdError("protocol", id, self.protocols)
        return found

    def in_region(self, region: str) -> "Catalog":
        """This catalog with every price taken from ``region`` (``eastus``, any case).

        VM sizes get the region's Linux pay-as-you-go hourly price times 730 as
        ``price_per_month``; fixed-size disks their monthly price; Premium SSD v2 and Ultra
        their per GiB, per IOPS and per MB/s monthly prices; service levels their price per
        GiB-month. A price the region does not publish becomes ``None`` (unpriced), never a
        figure borrowed from another region; :attr:`price_status` says which. A price set
        by the user's own catalog file is kept. The bundled price table is read on the first
        call. Raises :class:`~iolab.errors.UnknownIdError` (exit 2) naming the nearest
        regions for an unknown region.
        """
        from .prices import in_region

        return in_region(self, region)

    def of_cloud(self, cloud: str) -> "Catalog":
        """This catalog with the VM sizes, disks and service levels of ``cloud`` alone
        (``azure``, ``gcp``, ``aws``); protocols and the defaults belong to every cloud."""
        kept = {name: of_cloud(getattr(self, name), cloud) for name in ("vms", "disks", "provisioned", "services", "scaled")}
        return msgspec.structs.replace(self, **kept, cloud=cloud)

    def clouds(self) -> list[str]:
        """The clouds that rows of this catalog belong to, in the order of :data:`CLOUD_NAMES`."""
        found = {c for name in ("vms", "disks", "provisioned", "services", "scaled")
                 for c in clouds_of(getattr(self, name)).values()}
        return [c for c in CLOUD_NAMES if c in found]

    def section(self, name: str) -> Mapping[str, Row]:
        """The rows of one section by its name in a catalog file (``"vms"``, ``"disks"``, ...)."""
        if name not in SECTIONS:
            raise UnknownIdError("catalog section", name, SECTIONS)
        return getattr(self, name)

    def entry(self, id: str) -> tuple[str, Entry]:
        """Any row by its id, with the name of its section; for ``iolab catalog show``."""
        for name in SECTIONS:
            found = _find(getattr(self, name), id)
            if found is not None:
                return name, found  # type: ignore[return-value]
        raise UnknownIdError("catalog id", id, [k for name in SECTIONS for k in getattr(self, name)])
