"""Prices per region: the bundled price table and :meth:`Catalog.in_region`.

The table (``catalog/data/prices/prices.csv``, rebuilt by ``tools/catalog/prices.py``) has
one row per priced figure and one column per region::

    section,id,field,unit,currency,date,source,australiacentral,...,westus3
    vms,Standard_D4s_v5,price_per_hour,USD/hour,USD,2026-06-18,karpenter,0.24,...,0.192
    disks,P30,price_per_month,USD/month,USD,2026-09-23,zombiescan,135.17,...

An empty cell is a price the region does not publish. ``source`` names an entry of
``prices/sources.yaml`` (followed by ``|region=other`` for the cells the build took from a
second source when the first broke an invariant, see ``corrections.csv``) (repository, path, commit, date, and whether it is a secondary
source). The table is read only when a command asks for a region's prices, then kept.

:func:`in_region` puts one region's prices on a catalog's rows: a figure the region lacks
becomes None (missing), never a figure from another region; a price that the user's own
catalog file sets is kept as it is.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import msgspec

from .cloud import region_cloud
from .row import HOURS_PER_MONTH, PRICE_FIELDS
from .rows import LazyRows, clouds_of

if TYPE_CHECKING:
    from .catalog import Catalog

__all__ = ["PRICE_FIELDS", "DEFAULT_REGION", "Price", "PriceTable", "PriceStatus", "price_table", "in_region",
           "corrections", "dropped_reason"]

DEFAULT_REGION = "eastus"
"""The region whose prices Azure rows take unless told (the Azure cloud's default region)."""
PriceStatus = Literal["priced", "missing", "unpublished", "own"]
"""How a row's price was set by :func:`in_region`: from the region's table (``priced``); the
table has the figure for other regions but not this one (``missing``); no source publishes
it in any region (``unpublished``); the user's catalog file sets it (``own``)."""

EXTRA_TABLES = ("gcp",)
"""Price tables beside ``prices.csv``, one per cloud (``gcp.csv`` with ``gcp-sources.yaml``,
rebuilt by ``tools/catalog/gce.py``), in the same format with regions of their own."""
_TABLE_FIELD = {("vms", "price_per_month"): ("price_per_hour", HOURS_PER_MONTH)}
_FIXED = 7  # section,id,field,unit,currency,date,source


class Price(NamedTuple):
    """One price as the table states it (``value`` in ``unit``), with its provenance."""

    value: float
    unit: str
    currency: str
    date: str
    source: str
    region: str


class PriceTable(msgspec.Struct, frozen=True, dict=True):  # a __dict__ for the cached properties
    """The bundled price table: regions, rows by (section, id, field), and the sources."""

    regions: tuple[str, ...]
    rows: Mapping[tuple[str, str, str], tuple[str, ...]]
    sources: Mapping[str, Mapping[str, Any]]
    #: Tables of other clouds' rows (``gcp.csv``), each with regions of its own, looked up
    #: for a row this table does not have.
    extra: tuple["PriceTable", ...] = ()

    @functools.cached_property
    def rated(self) -> frozenset[str]:
        """The ids of the VMs this table or an extra one gives ``rates_per_hour.MODEL`` rows."""
        own = {ident for section, ident, fld in self.rows if fld.startswith("rates_per_hour.")}
        return frozenset(own.union(*(t.rated for t in self.extra)))

    @functools.cached_property
    def _column(self) -> dict[str, int]:
        return {r: _FIXED + i for i, r in enumerate(self.regions)}

    def region(self, name: str) -> str:
        """The name of region ``name`` (any case), a region of one of the clouds
        (:func:`iolab.catalog.cloud.region_cloud`); raises :class:`UnknownIdError` (exit 2)
        suggesting the nearest region names otherwise. A cloud's region that the table has no
        column for has no prices (each is missing)."""
        return region_cloud(name)[1]

    def lookup(self, section: str, ident: str, fld: str, region: str) -> tuple[Price | None, PriceStatus]:
        """The price of ``fld`` of row ``ident`` in ``region`` (a name from :attr:`regions`)
        and its status (``priced``, ``missing``, ``unpublished``)."""
        row = self.rows.get((section, ident, fld))
        if row is None:
            for other in self.extra:
                found = other.lookup(section, ident, fld, region)
                if found[1] != "unpublished":
                    return found
            return None, "unpublished"
        if region not in self._column:
            return None, "missing"
        cell = row[self._column[region]]
        if not cell:
            return None, "missing"
        unit, currency, date, source = row[3:7]
        if "|" in source:  # "karpenter|eastus=zombiescan-vms": a cell the build took from a second source
            source, *cells = source.split("|")
            source = dict(c.split("=", 1) for c in cells).get(region, source)
            date = str(self.sources.get(source, {}).get("date", date)) if source != row[6].split("|")[0] else date
        return Price(float(cell), unit, currency, date, source, region), "priced"

    def describe(self, source: str) -> str:
        """A source as a person cites it: repository path (date), marked secondary where so."""
        meta = self.sources.get(source, {})
        text = f"{meta.get('repository', source)} {meta.get('path', '')} ({meta.get('date', 'undated')})"
        return text + (", a secondary source" if meta.get("secondary") else "")


@lru_cache(maxsize=1)
def corrections() -> Mapping[tuple[str, str, str, str], Mapping[str, str]]:
    """What the price build's invariants changed or dropped (``corrections.csv``), by
    (section, id, table field, region): ``was``, ``now`` (empty: dropped), ``rule``, ``reason``.
    Read only where a command explains a missing price."""
    folder = resources.files("iolab.catalog").joinpath("data", "prices")
    rows = csv.DictReader(io.StringIO(folder.joinpath("corrections.csv").read_text(encoding="utf-8")))
    return MappingProxyType({(r["section"], r["id"], r["field"], r["region"]): r for r in rows})


def dropped_reason(section: str, ident: str, fld: str, region: str) -> str | None:
    """Why the price build dropped ``fld`` of ``ident`` in ``region`` (None: it did not)."""
    table_field = _TABLE_FIELD.get((section, fld), (fld, 1.0))[0]
    row = corrections().get((section, ident, table_field, region))
    return row["reason"] if row is not None and not row["now"] else None


@lru_cache(maxsize=1)
def price_table() -> PriceTable:
    """The bundled price table, read on first use and then kept."""
    from ..schema import parse_yaml

    folder = resources.files("iolab.catalog").joinpath("data", "prices")
    header, rows = read_rows(folder.joinpath("prices.csv").read_text(encoding="utf-8"))
    name = "iolab/catalog/data/prices/sources.yaml"
    sources = dict(parse_yaml(folder.joinpath("sources.yaml").read_bytes(), file=name).get("sources", {}))
    extra = []
    for cloud in EXTRA_TABLES:
        other, more = read_rows(folder.joinpath(f"{cloud}.csv").read_text(encoding="utf-8"))
        named = f"iolab/catalog/data/prices/{cloud}-sources.yaml"
        sources.update(parse_yaml(folder.joinpath(f"{cloud}-sources.yaml").read_bytes(), file=named).get("sources", {}))
        extra.append(PriceTable(tuple(other[_FIXED:]), more, MappingProxyType({})))
    return PriceTable(tuple(header[_FIXED:]), rows, MappingProxyType(sources), tuple(extra))


def read_rows(text: str) -> tuple[list[str], Mapping[tuple[str, str, str], tuple[str, ...]]]:
    """The header and the rows by (section, id, field) of the price table's CSV ``text``, as
    the csv module reads them. Plain cells (no quotes, no carriage returns: the bundled table)
    are split only when a row is looked up."""
    if '"' in text or "\r" in text:
        reader = csv.reader(io.StringIO(text))
        header = next(reader)
        return header, MappingProxyType({(r[0], r[1], r[2]): tuple(r) for r in reader})
    lines = text.split("\n")
    return lines[0].split(","), _Lines({tuple(line.split(",", 3)[:3]): line  # type: ignore[misc]
                                        for line in lines[1:] if line})


class _Lines(Mapping):
    """The table's rows by (section, id, field), each kept as its line of plain cells (no
    quotes) and split into cells when looked up: a command reads a few hundred of the rows."""

    def __init__(self, lines: dict[tuple[str, str, str], str]):
        self._lines = lines

    def __getitem__(self, key: tuple[str, str, str]) -> tuple[str, ...]:
        return tuple(self._lines[key].split(","))

    def __iter__(self):
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def _has_price(row: Any, fld: str) -> bool:
    """Whether ``fld`` is one of ``row``'s prices. A service level's throughput price
    (``price_per_mibps_month``) is only where the level's throughput is provisioned apart
    (by manual QoS, ANF Flexible; or provisioned, Azure Files provisioned v2, which also
    prices its IOPS: ``price_per_iops_month``); the other levels' throughput comes with
    their capacity."""
    if fld not in type(row).model_fields:
        return False
    if fld == "price_per_mibps_month":
        return getattr(row, "provisioned", False) or (row.rate_per_tib is None and row.base_throughput is None)
    if fld in ("price_per_iops_month", "price_per_mbps_month") and getattr(row, "by_size", False):
        return False  # a Persistent Disk's capacity price carries its IOPS and throughput (0 here)
    if fld == "price_per_iops_month" and hasattr(row, "provisioned"):
        return row.provisioned and row.iops_per_mibps is None
    return True


RATE_MODELS = ("reserved-1y", "reserved-3y", "savings-1y", "savings-3y")
"""The pricing models a table row ``rates_per_hour.MODEL`` may give a VM a rate for."""


def _rates(table: PriceTable, ident: str, region: str) -> dict[str, float]:
    """A VM's hourly rates in ``region`` by pricing model, as the table gives them (Compute
    Engine's committed use rates); empty where it gives none."""
    found = {}
    for model in RATE_MODELS:
        price, _ = table.lookup("vms", ident, f"rates_per_hour.{model}", region)
        if price is not None:
            found[model] = price.value
    return found


def in_region(catalog: "Catalog", region: str) -> "Catalog":
    """``catalog`` with every price taken from ``region``; see :meth:`Catalog.in_region`.
    A VM whose file gives no ``rates_per_hour`` takes the region's rates from the table
    (``rates_per_hour.MODEL`` rows); rates that a file gives are kept whole. Each row is
    priced when first looked up (:class:`~iolab.catalog.rows.LazyRows`), and so is its
    :attr:`~iolab.catalog.Catalog.price_status`."""
    table = price_table()
    name = table.region(region)
    status: dict[tuple[str, str, str], PriceStatus] = {}
    sections = {section: LazyRows(functools.partial(_priced, table, name, catalog, section, status),
                                  clouds_of(getattr(catalog, section)))
                for section in PRICE_FIELDS}
    return msgspec.structs.replace(catalog, **sections, region=name, price_status=_Statuses(status, sections))


def _priced(table: PriceTable, region: str, catalog: "Catalog", section: str,
            status: dict[tuple[str, str, str], PriceStatus], ident: str) -> Any:
    """The row ``ident`` of ``section`` with its prices in ``region``; its statuses go to `status`."""
    row = getattr(catalog, section)[ident]
    update: dict[str, Any] = {}
    for fld in PRICE_FIELDS[section]:
        if not _has_price(row, fld):
            continue
        if (section, ident, fld) in catalog.own_prices:
            status[(section, ident, fld)] = "own"
            continue
        table_field, factor = _TABLE_FIELD.get((section, fld), (fld, 1.0))
        price, found = table.lookup(section, ident, table_field, region)
        update[fld] = None if price is None else price.value * factor
        status[(section, ident, fld)] = found
    if section == "vms" and ident in table.rated and row.rates_per_hour is None \
            and (rates := _rates(table, ident, region)):
        update["rates_per_hour"] = rates
    if update:
        assumed = tuple(a for a in row.assumptions if a not in update)
        row = row.model_copy(update={**update, "assumptions": assumed})
    return row


class _Statuses(Mapping):
    """How each price of a catalog priced by :func:`in_region` was set, by (section, id,
    field); looking one up prices its row."""

    def __init__(self, status: dict[tuple[str, str, str], PriceStatus], sections: Mapping[str, LazyRows]) -> None:
        self._status = status
        self._sections = sections

    def __getitem__(self, key: tuple[str, str, str]) -> PriceStatus:
        rows = self._sections.get(key[0]) if isinstance(key, tuple) and len(key) == 3 else None
        if rows is not None and key[1] in rows:
            rows[key[1]]  # noqa: B018 (pricing the row records its statuses)
        return self._status[key]

    def _all(self) -> dict[tuple[str, str, str], PriceStatus]:
        for rows in self._sections.values():
            for ident in rows:
                rows[ident]  # noqa: B018
        return self._status

    def __iter__(self):
        return iter(dict(self._all()))

    def __len__(self) -> int:
        return len(self._all())

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (dict(self._all()),)
