"""Rendering of catalog entries for `iolab catalog` (tables and JSON); imported when a
catalog command runs, so that starting iolab does not load the catalog."""

from __future__ import annotations

import re

from pathlib import Path
from typing import Any, Callable, Optional

from msgspec.structs import replace
from rich import box
from rich.table import Table

from ..catalog import Catalog, Defaults, DiskSku, ProvisionedDisk, Protocol, ScaledDisk, ServiceLevel, Vm, load_catalog
from ..catalog.scaled import SmallVolumes
from ..catalog.row import Sourced
from ..schema import unit_of
from ..units import GiB, MiB, format_duration, format_price, format_rate, format_size
from .catalog import Section
from .common import console

ASSUMED = "[dim]* assumption, not a published figure[/]"
KIND = {Vm: "vm", DiskSku: "disk", ProvisionedDisk: "provisioned-disk", ScaledDisk: "scaled-disk",
        ServiceLevel: "service", Protocol: "protocol", Defaults: "defaults"}
SECTION = {Vm: "vms", DiskSku: "disks", ProvisionedDisk: "provisioned", ScaledDisk: "scaled", ServiceLevel: "services"}
PRICE_WORDS = {"missing": "missing", "unpublished": "no price"}


def _price_caption(cat: Catalog) -> str:
    where = cat.region or "the catalog"
    if cat.cloud is not None and cat.region:
        from ..catalog.cloud import cloud

        where = f"{cat.region} ({cloud(cat.cloud).title})"
    return (f"{ASSUMED}\n[dim]prices: USD in {where}; missing: not published in {where}; "
            "no price: published in no region (retired, or no public price)[/]")


def _status(cat: Catalog | None, row: Sourced, field: str) -> str | None:
    section = SECTION.get(type(row))
    if cat is None or section is None:
        return None
    return cat.price_status.get((section, getattr(row, "id", ""), field))


# --------------------------------------------------------------------------- JSON


def entry_json(row: Sourced, cat: Catalog | None = None) -> dict[str, Any]:
    """One catalog entry as a JSON object: ``id`` and ``kind`` first, base units, provenance last.

    With a catalog priced by ``in_region``, priced rows add ``region`` and ``price_status``
    (field -> ``priced``, ``missing``, ``unpublished`` or ``own``)."""
    data = row.model_dump(mode="json")
    doc: dict[str, Any] = {"id": data.pop("id", "defaults"), "kind": KIND[type(row)]}
    meta = {k: data.pop(k) for k in ("source", "assumptions", "notes")}
    if isinstance(row, DiskSku):
        pp = data.get("performance_plus")
        data["performance_plus"] = {"iops": pp[0], "bandwidth": pp[1]} if pp else None
    if isinstance(row, ScaledDisk) and row.small is not None:
        data["small"] = {"size": row.small.size, "bandwidth": row.small.bandwidth}
    doc.update(data)
    if isinstance(row, (DiskSku, ProvisionedDisk, ScaledDisk)):
        doc["host_caching"] = row.host_caching
    if cat is not None and cat.region and type(row) in SECTION:
        statuses = {f: _status(cat, row, f) for f in type(row).model_fields if f.startswith("price_per_")}
        doc["region"] = cat.region
        doc["price_status"] = {f: s for f, s in statuses.items() if s is not None}
        if isinstance(row, Vm) and cat.pricing:
            doc["pricing"] = cat.pricing["vm"]  # the rate price_per_month is at (--pricing)
    doc.update(meta)
    return doc


# --------------------------------------------------------------------------- formatting


def _ops(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:g}"


def _value(row: Sourced, field: str, *, binary: bool = False) -> str:
    """A field of a row as a person reads it, ``*`` marking an assumption."""
    v = getattr(row, field)
    text = _plain(type(row), field, v, binary=binary)
    return f"{text}*" if row.is_assumed(field) and v is not None else text


def _plain(model: type, field: str, v: Any, *, binary: bool = False) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, dict):
        if field == "rates_per_hour":
            return ", ".join(f"{k} ${x:g}/hour" for k, x in v.items())
        return ", ".join(f"{k} {format_duration(x)}" for k, x in v.items())
    if isinstance(v, SmallVolumes):
        return f"{format_rate(v.bandwidth, binary=True)} up to {format_size(v.size)}"
    unit = unit_of(model, field)
    if unit == "rate":
        if field in ("network_bandwidth", "receive_bandwidth", "tier_1_bandwidth"):
            return f"{_num(v, 1e6 / 8)} Mbit/s"  # as the VM size pages state it
        return f"{_num(v, MiB)} MiB/s" if binary else f"{_num(v, 1e6)} MB/s"
    if unit == "size":
        return format_size(v)
    if unit == "ops":
        return _ops(v)
    if unit == "duration":
        return format_duration(v)
    return f"{v:g}" if isinstance(v, float) else str(v)


def _num(v: float | None, scale: float = 1.0) -> str:
    """A number in a table's stated unit: ``25,600``, ``3.5``, ``–`` for none."""
    if v is None:
        return "–"
    x = v / scale
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.3f}".rstrip("0").rstrip(".")


def _cell(row: Sourced, field: str, scale: float = 1.0) -> str:
    """A field in a table column's unit, ``*`` marking an assumption."""
    v = getattr(row, field)
    return _num(v, scale) + ("*" if v is not None and row.is_assumed(field) else "")


def _burst(d: DiskSku) -> str:
    if d.burst is None:
        return "–"
    b = d.burst
    text = f"{b.kind} {_ops(b.iops)} IOPS / {format_rate(b.bandwidth)}"
    return text + (f" for {format_duration(b.duration)}" if b.duration else "")


def _money(row: Sourced, field: str, cat: Catalog | None = None) -> str:
    """A price, or why there is none in the catalog's region (``missing``, ``no price``)."""
    v = getattr(row, field)
    if v is None:
        return PRICE_WORDS.get(_status(cat, row, field) or "", "–")
    return (f"{v:,.2f}" if v >= 1 else f"{v:.4g}") + ("*" if row.is_assumed(field) else "")


def _table(title: str, columns: list[str], caption: str = ASSUMED) -> Table:
    t = Table(title=title, header_style="bold", caption=caption, title_justify="left", box=None,
              pad_edge=False, caption_justify="left")
    for i, col in enumerate(columns):
        # ids stay whole unless the terminal is too narrow for every figure (then they fold too)
        t.add_column(col, justify="left" if i == 0 else "right", no_wrap=i == 0 and console.width >= 80, overflow="fold")
    return t


def _vm_table(rows: list[Vm], cat: Catalog) -> Table:
    if cat.cloud == "gcp":
        return _gce_table(rows, cat)
    if cat.cloud == "aws":
        return _ec2_table(rows, cat)
    t = _table("VM sizes (storage limits: IOPS, MB/s; network egress)", caption=_price_caption(cat), columns=
               ["id", "vCPU/\nGiB", "disks", "prem.", "uncached\nIOPS", "MB/s", "cached\nIOPS", "MB/s",
                "cache\nGiB", "burst\nIOPS", "MB/s", "network\nMbit/s", "$/month"])
    for v in rows:
        t.add_row(v.id, f"{_cell(v, 'vcpus')}/{_cell(v, 'memory', GiB)}", _cell(v, "max_data_disks"),
                  _value(v, "premium_storage"), _cell(v, "uncached_iops"), _cell(v, "uncached_bandwidth", 1e6),
                  _cell(v, "cached_iops"), _cell(v, "cached_bandwidth", 1e6), _cell(v, "cache_size", GiB),
                  _cell(v, "burst_iops"), _cell(v, "burst_bandwidth", 1e6), _cell(v, "network_bandwidth", 1e6 / 8),
                  _money(v, "price_per_month", cat))
    return t


def _gce_table(rows: list[Vm], cat: Catalog) -> Table:
    """Compute Engine machine types: each one's own caps over its pd-balanced and pd-ssd
    disks (reads; ``catalog show`` gives writes and every type), egress default and Tier_1."""
    t = _table("Machine types (the machine's caps over its disks, reads: IOPS, MiB/s; network egress)",
               caption=_price_caption(cat), columns=["id", "vCPU/\nGiB", "disks", "pd-balanced\nIOPS", "MiB/s",
                                                     "pd-ssd\nIOPS", "MiB/s", "network\nMbit/s", "Tier_1\nMbit/s",
                                                     "$/month"])
    for v in sorted(rows, key=lambda v: _natural(v.id)):
        caps = [(v.disk_caps(tier) or ((None, None), None))[0] for tier in ("pd-balanced", "pd-ssd")]
        t.add_row(v.id, f"{_cell(v, 'vcpus')}/{_cell(v, 'memory', GiB)}", _cell(v, "max_data_disks"),
                  _num(caps[0][0]), _num(caps[0][1], MiB), _num(caps[1][0]), _num(caps[1][1], MiB),
                  _cell(v, "network_bandwidth", 1e6 / 8), _cell(v, "tier_1_bandwidth", 1e6 / 8),
                  _money(v, "price_per_month", cat))
    return t


def _natural(ident: str) -> tuple:
    """A machine type's id as it sorts for a reader: its numbers as numbers, so
    n2-standard-8 comes before n2-standard-16 and n2-standard-128 last."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", ident) if p)


def _ec2_table(rows: list[Vm], cat: Catalog) -> Table:
    """EC2 instance types: the EBS-optimized baseline and the 30-minute daily burst."""
    t = _table("Instance types (EBS limits: IOPS, MB/s; network baseline)", caption=_price_caption(cat),
               columns=["id", "vCPU/\nGiB", "volumes", "EBS base\nIOPS", "MB/s", "30-min burst\nIOPS", "MB/s",
                        "network\nMbit/s", "$/month"])
    for v in rows:
        t.add_row(v.id, f"{_cell(v, 'vcpus')}/{_cell(v, 'memory', GiB)}", _cell(v, "max_data_disks"),
                  _cell(v, "uncached_iops"), _cell(v, "uncached_bandwidth", 1e6), _cell(v, "burst_iops"),
                  _cell(v, "burst_bandwidth", 1e6), _cell(v, "network_bandwidth", 1e6 / 8),
                  _money(v, "price_per_month", cat))
    return t


def _disk_table(rows: list[DiskSku], cat: Catalog) -> Table:
    t = _table("Disk SKUs (latency: unloaded read / write)", caption=_price_caption(cat), columns=
               ["id", "tier", "GiB", "IOPS", "MB/s", "burst\nIOPS", "MB/s", "burst", "perf. plus\nIOPS", "MB/s",
                "latency\nms", "host\ncache", "$/month"])
    for d in rows:
        b, plus = d.burst, d.performance_plus
        latency = f"{_cell(d, 'read_latency', 1e-3)} / {_cell(d, 'write_latency', 1e-3)}"
        t.add_row(d.id, d.tier, _cell(d, "size", GiB), _cell(d, "iops"), _cell(d, "bandwidth", 1e6),
                  _num(b.iops if b else None), _num(b.bandwidth if b else None, 1e6), b.kind if b else "–",
                  _num(plus[0] if plus else None), _num(plus[1] if plus else None, 1e6), latency,
                  "yes" if d.host_caching else "no", _money(d, "price_per_month", cat))
    return t


def _provisioned_table(rows: list[ProvisionedDisk]) -> Table:
    t = _table("Provisioned disks (IOPS and MB/s set apart from the size)",
               ["id", "size", "free\nIOPS", "MB/s", "IOPS", "IOPS\nper GiB", "MB/s", "MB/s\nper IOPS",
                "latency\nms"])
    for d in rows:
        latency = f"{_cell(d, 'read_latency', 1e-3)} / {_cell(d, 'write_latency', 1e-3)}"
        t.add_row(d.id, f"{format_size(d.min_size)} to {format_size(d.max_size)}", _cell(d, "baseline_iops"),
                  _cell(d, "baseline_bandwidth", 1e6), f"{_num(d.min_iops)} to {_num(d.max_iops)}",
                  _cell(d, "iops_per_gib"), f"{_num(d.min_bandwidth, 1e6)} to {_num(d.max_bandwidth, 1e6)}",
                  _cell(d, "bandwidth_per_iops", 1e6), latency)
    return t


def _provisioned_price_table(rows: list[ProvisionedDisk], cat: Catalog) -> Table:
    t = _table("Provisioned disk prices (monthly; IOPS and MB/s above the free baseline)",
               ["id", "$ per GiB", "$ per IOPS", "$ per MB/s"], caption=_price_caption(cat))
    for d in rows:
        per_mbps = _money(d, "price_per_mbps_month", cat) if d.bandwidth_provisioned else "from IOPS"
        t.add_row(d.id, _money(d, "price_per_gib_month", cat), _money(d, "price_per_iops_month", cat), per_mbps)
    return t


def _scaled_table(rows: list[ScaledDisk], cat: Catalog) -> Table:
    t = _table("Size-scaled volumes (caps from the size; MiB/s)", caption=_price_caption(cat), columns=
               ["id", "size", "IOPS", "per GiB", "MiB/s", "per TiB", "burst", "IO unit", "latency\nms",
                "$/GiB\nmonth"])
    for d in rows:
        burst = []
        if d.burst_iops:
            burst.append(f"{_num(d.burst_iops)} IOPS on {_num(d.credit_ops)} credits")
        if d.burst_bandwidth_per_tib:
            burst.append(f"{_num(d.burst_bandwidth_per_tib, MiB)} MiB/s per TiB on "
                         f"{format_size(d.credit_bytes_per_tib or 0)} per TiB")
        iops = f"{_num(d.min_iops)} to {_num(d.max_iops)}" if d.min_iops else _num(d.max_iops)
        mibs = _plain(ScaledDisk, "small", d.small) + f", {_num(d.max_bandwidth, MiB)}" if d.small else \
            f"at most {_num(d.max_bandwidth, MiB)}"
        t.add_row(d.id, f"{format_size(d.min_size)} to {format_size(d.max_size)}", iops, _cell(d, "iops_per_gib"),
                  mibs, _cell(d, "bandwidth_per_tib", MiB), "; ".join(burst) or "–", format_size(d.io_unit),
                  f"{_cell(d, 'read_latency', 1e-3)} / {_cell(d, 'write_latency', 1e-3)}",
                  _money(d, "price_per_gib_month", cat))
    return t


def _service_table(rows: list[ServiceLevel], cat: Catalog) -> Table:
    t = _table("Service levels (throughput in MiB/s)", caption=_price_caption(cat), columns=
               ["id", "per TiB", "volume size", "volume\nmax", "large\nvolume max", "manual\nQoS",
                "latency\nms", "$/GiB\nmonth"])
    for s in rows:
        per_tib = _cell(s, "rate_per_tib", MiB) if s.rate_per_tib else ("formula" if s.base_throughput else "manual")
        t.add_row(s.id, per_tib, f"{format_size(s.min_size)} to {format_size(s.max_size)}",
                  _cell(s, "max_throughput", MiB), _cell(s, "large_max_throughput", MiB), _value(s, "manual_qos"),
                  _cell(s, "latency", 1e-3), _money(s, "price_per_gib_month", cat))
    return t


def _protocol_table(rows: list[Protocol]) -> Table:
    t = _table("Protocols (bandwidth of one connection in MiB/s)",
               ["id", "slots per\nconnection", "session\nslots", "session\nmax", "max\nnconnect",
                "channels\nper NIC", "connection\nMiB/s", "signing\nMiB/s", "encryption\nloss"])
    for p in rows:
        loss = f"{p.encryption_loss:.0%}" if p.encryption_loss is not None else "–"
        t.add_row(p.id, _cell(p, "slots_per_connection"), _cell(p, "session_slots"), _cell(p, "session_slots_max"),
                  _cell(p, "max_nconnect"), _cell(p, "channels_per_nic"), _cell(p, "connection_bandwidth", MiB),
                  _cell(p, "signing_bandwidth", MiB), loss)
    return t


def _tables(cat: Catalog, section: Section) -> list[Table]:
    makers: dict[Section, Callable[[], list[Table]]] = {
        Section.vms: lambda: [_vm_table(list(cat.vms.values()), cat)],
        Section.disks: lambda: [*([_disk_table(list(cat.disks.values()), cat)] if cat.disks else []),
                                _provisioned_table(list(cat.provisioned.values())),
                                _provisioned_price_table(list(cat.provisioned.values()), cat),
                                *([_scaled_table(list(cat.scaled.values()), cat)] if cat.scaled else [])],
        Section.services: lambda: [_service_table(list(cat.services.values()), cat)],
        Section.protocols: lambda: [_protocol_table(list(cat.protocols.values()))],
    }
    return makers[section]()


def _rows(cat: Catalog, section: Section) -> list[Sourced]:
    if section is Section.disks:
        return [*cat.disks.values(), *cat.provisioned.values(), *cat.scaled.values()]
    return list(cat.section(section.value).values())


PRICE_UNITS = {"price_per_month": "a month", "price_per_hour": "an hour", "price_per_gib_month": "per GiB-month",
               "price_per_iops_month": "per IOPS-month", "price_per_mbps_month": "per MB/s-month",
               "price_per_mibps_month": "per MiB/s-month"}
"""What each price field of ``catalog show`` is a price of."""


def _price_text(row: Sourced, field: str, cat: Catalog | None) -> str:
    """A price field in ``catalog show``: the figure, or why there is none in the region."""
    status = _status(cat, row, field)
    value = getattr(row, field)
    if value is not None:
        text = f"{format_price(value)} {PRICE_UNITS.get(field, '')}".rstrip() + ("*" if row.is_assumed(field) else "")
        return f"{text} (your catalog file)" if status == "own" else text
    if status is None:
        return _value(row, field)
    model = (cat.pricing.get("vm") if cat is not None and field == "price_per_month" and isinstance(row, Vm)
             else None)
    if model not in (None, "payg"):
        if row.cloud == "azure":
            return f"no {model} rate (rates_per_hour) for this size: import its Retail Prices reservation items"
        return f"no {model} rate (rates_per_hour): none bundled for this cloud; give it in a catalog file"
    if status == "missing":
        from ..catalog.prices import dropped_reason

        why = dropped_reason(SECTION[type(row)], getattr(row, "id", ""), field, cat.region)  # type: ignore[union-attr]
        if why is not None:
            return (f"missing in {cat.region}: the source's figure failed the price check and was dropped "  # type: ignore[union-attr]
                    f"({why.removesuffix(': dropped as unpriced')})")
        return f"missing in {cat.region}: not published there (no other region's price is used)"  # type: ignore[union-attr]
    return "no published price in any region (retired size, or not sold pay-as-you-go)"


def _price_sources(row: Sourced, cat: Catalog) -> str | None:
    """Where the row's prices in the catalog's region come from."""
    from ..catalog.prices import price_table

    table, section, ident = price_table(), SECTION.get(type(row)), getattr(row, "id", "")
    cited = set()
    for field in type(row).model_fields:
        status = cat.price_status.get((section, ident, field)) if section else None
        if status == "priced":
            name = "price_per_hour" if isinstance(row, Vm) else field
            price, _ = table.lookup(section, ident, name, cat.region)  # type: ignore[arg-type]
            if price is not None:
                cited.add(f"{table.describe(price.source)}, {price.region}")
        elif status == "own":
            cited.add("your catalog file")
    return "; ".join(sorted(cited)) or None


def _load_law(row: ServiceLevel) -> str:
    """A share's load delay law in words (docs/model.md), ``*`` marking assumed figures."""
    law = row.load_latency
    if law is None or law.delay <= 0:
        return "–"

    def mark(name: str, text: str) -> str:
        return f"{text}*" if row.is_assumed("load_latency") or law.is_assumed(name) else text

    return (f"none below {mark('onset', f'{law.onset:.0%}')} of the quota, rising to "
            f"{mark('delay', format_duration(law.delay))} at a full quota "
            f"(exponent {mark('exponent', f'{law.exponent:g}')}); {law.source}")


def _clients(row: ServiceLevel) -> str:
    """A service level's own client figures per protocol (docs/catalog.md), ``*`` marking
    assumed (fitted) figures, each protocol's source after it."""
    if not row.clients:
        return "– (the protocols' figures)"
    out = []
    for proto, f in row.clients.items():
        parts = [f"{name} {_value(f, name, binary=True)}" for name in
                 ("connection_iops", "connection_bandwidth", "client_iops", "client_bandwidth", "rss_cores")
                 if getattr(f, name) is not None]
        out.append(f"{proto}: {', '.join(parts)}; {f.source}")
    return "\n".join(out)


AZURE_VM_FIELDS = frozenset({"premium_storage", "cached_iops", "cached_bandwidth", "cache_size", "temp_iops",
                             "temp_bandwidth", "premium_v2_iops", "premium_v2_bandwidth", "ultra_iops",
                             "ultra_bandwidth", "parent"})
"""VM fields that only Azure's sizes have (host cache, premium storage, per disk type caps)."""


def _not_of_its_cloud(row: Sourced, name: str) -> bool:
    """Whether ``catalog show`` leaves field ``name`` out for ``row``: for another cloud's
    machine than Azure's, a field only Azure's sizes have, a field it does not set (an
    uncached cap a Compute Engine machine has per disk type instead) and a burst's length
    where it has no burst; prices always show (missing in a region says so)."""
    if not isinstance(row, Vm) or row.cloud == "azure" or name.startswith("price_per_"):
        return False
    if name in ("burst_duration", "burst_kind"):
        return row.burst_iops is None and row.burst_bandwidth is None
    return name in AZURE_VM_FIELDS or getattr(row, name) is None


def _show_table(row: Sourced, cat: Catalog | None = None) -> Table:
    binary = isinstance(row, (ServiceLevel, Protocol))
    title = f"{KIND[type(row)]} {getattr(row, 'id', '')}".strip()
    t = Table(title=title, header_style="bold", show_header=False, caption=ASSUMED, title_justify="left",
              caption_justify="left", box=box.SIMPLE, pad_edge=False)
    t.add_column("field", style="bold", no_wrap=True)
    t.add_column("value", overflow="fold")
    for name in type(row).model_fields:
        if name in ("id", "source", "assumptions", "notes") or _not_of_its_cloud(row, name):
            continue
        v = getattr(row, name)
        if isinstance(row, DiskSku) and name == "burst":
            text = _burst(row)
        elif isinstance(row, DiskSku) and name == "performance_plus":
            text = f"{_ops(v[0])} IOPS / {format_rate(v[1])}" if v else "–"
        elif name.startswith("price_per_"):
            text = _price_text(row, name, cat)
        elif isinstance(row, Vm) and name == "disk_limits":
            text = "\n".join(f"{tier}: reads {_ops(x.read_iops)} IOPS, {_num(x.read_bandwidth, MiB)} MiB/s; writes "
                             f"{_ops(x.write_iops)} IOPS, {_num(x.write_bandwidth, MiB)} MiB/s"
                             for tier, x in (v or {}).items()) or "–"
        elif isinstance(row, Vm) and name == "disk_types":
            text = ", ".join(v) if v else "every type"
        elif isinstance(row, ServiceLevel) and name == "load_latency":
            text = _load_law(row)
        elif isinstance(row, ServiceLevel) and name == "clients":
            text = _clients(row)
        elif isinstance(v, tuple) and name == "throughput_per_gib":
            terms = " + ".join(f"{_num(x, MiB)} MiB/s" for x in v)
            text = f"{terms} per GiB, each rounded up to a whole MiB/s" if v else "–"
        else:
            text = _value(row, name, binary=binary)
        t.add_row(name, text)
    if isinstance(row, (DiskSku, ProvisionedDisk)):
        t.add_row("host_caching", "yes" if row.host_caching else "no")
    t.add_row("source", row.source)
    cited = _price_sources(row, cat) if cat is not None and cat.region else None
    if cited:
        t.add_row("price source", cited)
    if row.assumptions:
        t.add_row("assumptions", ", ".join(row.assumptions))
    if row.notes:
        t.add_row("notes", row.notes)
    return t


def _load(files: Optional[list[Path]], region: str | None = None) -> Catalog:
    """The catalog (bundled data and the user's files), priced in ``region`` when given."""
    cat = load_catalog(list(files or ()))
    return cat.in_region(region) if region is not None else cat


def by_cloud(files: Optional[list[Path]], region: str | None, cloud_name: str | None) -> list[Catalog]:
    """The catalog (bundled data and the user's files) as one catalog per cloud listed, each
    holding that cloud's rows priced in ``region`` or, without one, in the cloud's default
    region: the region's cloud alone when ``region`` is given, ``cloud_name`` alone when that
    is, every cloud with rows otherwise. A region of another cloud than ``cloud_name`` is an
    :class:`~iolab.errors.InputError` (exit 2)."""
    from ..catalog.cloud import cloud, region_cloud, region_in

    cat = load_catalog(list(files or ()))
    if region is not None:
        if cloud_name is not None:
            region = region_in(region, cloud(cloud_name).name, f"--cloud {cloud_name}")
        c, name = region_cloud(region)
        return [cat.in_region(name).of_cloud(c.name)]
    names = [cloud(cloud_name).name] if cloud_name is not None else cat.clouds() or ["azure"]
    return [cat.in_region(cloud(n).default_region).of_cloud(n) for n in names]


def matching(cats: list[Catalog], patterns: list[str], sections: list[str]) -> list[Catalog]:
    """``cats`` with only the rows whose id matches one of ``patterns`` (globs, any case),
    reading no other row; an :class:`~iolab.errors.InputError` (exit 2) naming ``--match``
    and the nearest ids for a pattern that matches no row of ``sections``."""
    import fnmatch

    from ..catalog.rows import LazyRows, clouds_of
    from ..errors import InputError, nearest

    folded = [p.casefold() for p in patterns]

    def kept(rows):
        ids = {k: c for k, c in clouds_of(rows).items() if any(fnmatch.fnmatchcase(k.casefold(), p) for p in folded)}
        return LazyRows(rows.__getitem__, ids)

    names = ["vms", "disks", "provisioned", "services", "scaled", "protocols"]
    every = [k for cat in cats for s in sections for name in (["disks", "provisioned", "scaled"] if s == "disks" else [s])
             for k in getattr(cat, name)]
    for p, f in zip(patterns, folded):
        if not p.strip():
            raise InputError("expected an id or a pattern, such as 'Standard_D*s_v5' or 'n2-standard-*'",
                             field="--match")
        if not any(fnmatch.fnmatchcase(k.casefold(), f) for k in every):
            hint = nearest(p.replace("*", "").replace("?", ""), every)
            raise InputError(f"no {' or '.join(sections)} row matches {p!r}" + (f"; nearest: {', '.join(hint)}" if hint
                                                                                 else ""), field="--match")
    return [replace(cat, **{n: kept(getattr(cat, n)) for n in names}) for cat in cats]


def priced_entry(files: Optional[list[Path]], ident: str, region: str | None) -> tuple[Sourced, Catalog]:
    """Catalog entry ``ident`` (or the defaults) and the catalog it is priced in: ``region``,
    which must be a region of the row's cloud, or the cloud's default region."""
    from ..catalog.cloud import cloud, region_in

    cat = load_catalog(list(files or ()))
    row: Sourced = cat.defaults if ident == "defaults" else cat.entry(ident)[1]
    home = getattr(row, "cloud", None)
    if home is None:
        return row, cat  # protocols and the defaults have no prices
    where = cloud(home).default_region if region is None else region_in(region, home, ident)
    priced = cat.in_region(where)
    return priced.entry(ident)[1], priced
