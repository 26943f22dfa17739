"""Rebuild the Compute Engine machine types and their Google Cloud prices from the saved sources.

    python tools/catalog/gce.py [--check]

Reads ``tools/catalog/sources/gce/`` (an extract of Cyclenerd/google-cloud-pricing-cost-calculator
``pricing.yml``, Google's gcpdiag disk-performance tables, the egress figures of
Cyclenerd/google-cloud-compute-machine-types and infracost's Google disk unit prices) and the hand-kept series rules
``tools/catalog/gce_rules.yaml``, and writes

- ``python/iolab/catalog/data/gce.yaml``: the machine types (``vms`` rows with ``cloud: gcp``):
  vCPUs, memory, default and Tier_1 egress, the disk types each takes and its Persistent Disk limits;
- ``python/iolab/catalog/data/prices/gcp.csv`` and ``gcp-sources.yaml``: on-demand hourly prices
  per region of those machine types, their 1- and 3-year committed use rates
  (``rates_per_hour.reserved-1y``, ``-3y``) and Persistent Disk / Hyperdisk Extreme capacity prices.

Before writing, the prices pass the invariants of :func:`check_prices` (also run by
tests/test_gce_catalog.py on the bundled files); ``--check`` only checks that the files on disk
are what the sources give. The output depends on the sources only (sorted rows, numbers with
10 significant digits).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml

if str(Path(__file__).resolve().parents[2]) not in sys.path:  # run as a script, not with -m
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.catalog.bundled import write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "tools" / "catalog" / "sources" / "gce"
RULES = ROOT / "tools" / "catalog" / "gce_rules.yaml"
DATA = ROOT / "python" / "iolab" / "catalog" / "data"
HEADER = ["section", "id", "field", "unit", "currency", "date", "source"]
DISK_IDS = {"pd-standard": "pd-standard", "pd-balanced": "pd-balanced", "pd-ssd": "pd-ssd",
            "pd-extreme": "pd-extreme", "hyperdisk-extreme": "hyperdisk-extreme"}
COMMITMENTS = {"reserved-1y": "month_1y", "reserved-3y": "month_3y"}
"""The pricing models of Compute Engine's committed use discounts and pricing.yml's monthly
price under each (1- and 3-year resource-based commitments, Google's Cloud Billing Catalog)."""
HOURS = 730.0
"""Hours in pricing.yml's month (its ``--hours`` default, the Google Cloud pricing calculator's)."""
LEAST_SHARE = {"m3": 0.30, "": 0.43}
"""The least share of the on-demand price a commitment rate may be, by series (``""``: every
other series): Google's resource-based committed use discounts page (stored copy read
2026-11-28) states discounts "up to 57% for most resources" and "up to 70% for
memory-optimized machine types". Checked with 1 % of tolerance (pricing.yml's N2 rates reach
57.25 % off in some regions)."""
MOST_SHARE = 0.70
"""The most share of the on-demand price a commitment rate may be (an assumption, not a
published figure): what pricing.yml writes when it finds no commitment SKU is the monthly
price with sustained use discounts, at least 70 % of on-demand; a commitment saves more."""
_TYPE = re.compile(r"^(?P<series>[a-z0-9]+)-(?P<shape>standard|highmem|highcpu|megamem|ultramem)-(?P<vcpus>\d+)$")


class SourceError(ValueError):
    """A source or a derived figure breaks an invariant; the message names the row."""


def _num(x: float) -> str:
    return f"{x:.10g}"


def _pricing() -> dict:
    return json.loads((SOURCES / "cyclenerd-pricing-extract.json").read_text(encoding="utf-8"))


def _range_has(label: str, vcpus: int) -> bool:
    """Whether a gcpdiag "VM vCPU count" label (``1``, ``2-7``, ``64 or more``, ``22``) covers ``vcpus``."""
    label = label.strip()
    if m := re.fullmatch(r"(\d+)\s*-\s*(\d+)", label):
        return int(m[1]) <= vcpus <= int(m[2])
    if m := re.fullmatch(r"(\d+) or more", label):
        return vcpus >= int(m[1])
    return label.isdigit() and int(label) == vcpus


def pd_limits(rows: list[dict], machine: str, vcpus: int) -> dict | None:
    """The one gcpdiag row of a disk type that covers ``machine`` (by machine type or vCPU
    count) as ``{read_iops, write_iops, read_bandwidth, write_bandwidth}`` (MiB/s as text)."""
    hits = [r for r in rows if r.get("Machine type") == machine
            or ("VM vCPU count" in r and _range_has(r["VM vCPU count"], vcpus))]
    if not hits:
        return None
    if len(hits) > 1:
        raise SourceError(f"{machine}: {len(hits)} gcpdiag rows cover it")
    r = hits[0]
    return {"read_iops": r["Maximum read IOPS"], "write_iops": r["Maximum write IOPS"],
            "read_bandwidth": f"{r['Maximum read throughput (MiBps)']}MiB/s",
            "write_bandwidth": f"{r['Maximum write throughput (MiBps)']}MiB/s"}


EGRESS_FILE = "cyclenerd-machine-types-egress.json"


def egress_table(rules: dict) -> tuple[dict, dict[str, dict[int, tuple[float, float | None]]]]:
    """The egress extract's ``_source`` and, per series and vCPU count, the default and
    Tier_1 egress (Gbit/s; Tier_1 None where the size has none). Raises :class:`SourceError`
    naming the series and size unless the figures hold the invariants: each in (0, 200]
    Gbit/s; neither falls as the vCPUs grow within a series; Tier_1 above the default, on
    sizes with at least ``tier_1.min_vcpus`` vCPUs in the series it names, at most the
    series' published ``tier_1.most``; and the published figures of ``egress_checks`` hold."""
    data = json.loads((SOURCES / EGRESS_FILE).read_text(encoding="utf-8"))
    tier_1 = rules["tier_1"]
    out: dict[str, dict[int, tuple[float, float | None]]] = {}
    for series, sizes in data["series"].items():
        low = low_tier = 0.0
        rows = sorted((int(v), float(d), None if t is None else float(t)) for v, (d, t) in sizes.items())
        for vcpus, default, tier in rows:
            where = f"{EGRESS_FILE}: {series} with {vcpus} vCPUs"
            if not 0 < default <= 200 or (tier is not None and not 0 < tier <= 200):
                raise SourceError(f"{where}: egress out of (0, 200] Gbit/s")
            if default < low:
                raise SourceError(f"{where}: {default:g} Gbit/s, below a smaller size's {low:g}")
            if tier is not None:
                if tier <= default or tier < low_tier:
                    raise SourceError(f"{where}: Tier_1 {tier:g} Gbit/s is not above its default "
                                      f"{default:g} and a smaller size's Tier_1 {low_tier:g}")
                if series in tier_1["min_vcpus_series"] and vcpus < tier_1["min_vcpus"]:
                    raise SourceError(f"{where}: Tier_1 needs at least {tier_1['min_vcpus']} vCPUs")
                if tier > tier_1["most"].get(series, 200):
                    raise SourceError(f"{where}: Tier_1 {tier:g} Gbit/s is above the published "
                                      f"{tier_1['most'][series]:g}")
                low_tier = tier
            low = default
        out[series] = {v: (d, t) for v, d, t in rows}
    for ident, gbit in rules["egress_checks"].items():
        m = _TYPE.match(ident)
        found = out.get(m["series"], {}).get(int(m["vcpus"])) if m else None
        if found is None or found[0] != gbit:
            raise SourceError(f"{EGRESS_FILE}: {ident} gets {found and found[0]} Gbit/s, where Google's page "
                              f"states {gbit:g}")
    return data["_source"], out


def disk_types(series: dict, vcpus: int) -> list[str]:
    """The disk types a machine of the series with ``vcpus`` takes: the series' types less
    those it takes only from more vCPUs (``min_vcpus``: Hyperdisk Extreme on C3 from 88)."""
    least = series.get("min_vcpus", {})
    unknown = set(least) - set(series["disk_types"])
    if unknown:
        raise SourceError(f"min_vcpus names {', '.join(sorted(unknown))}, not among the series' disk_types")
    return [d for d in series["disk_types"] if vcpus >= least.get(d, 0)]


def machines(pricing: dict, rules: dict) -> dict[str, dict]:
    """The catalog rows of every machine type of the series the rules name."""
    tables = {name: json.loads((SOURCES / name).read_text(encoding="utf-8"))
              for name in {s["pd"][0] for s in rules["series"].values() if "pd" in s}}
    src = pricing["_source"]
    net, egress = egress_table(rules)
    out: dict[str, dict] = {}
    for ident, row in sorted(pricing["instance"].items()):
        m = _TYPE.match(ident)
        if not m or m["series"] not in rules["series"]:
            continue
        series = rules["series"][m["series"]]
        vcpus = int(row["cpu"])
        if vcpus != int(m["vcpus"]):
            raise SourceError(f"{ident}: pricing.yml gives {vcpus} vCPUs, its name {m['vcpus']}")
        if vcpus not in egress.get(m["series"], {}):
            raise SourceError(f"{ident}: {EGRESS_FILE} gives no egress for {m['series']} with {vcpus} vCPUs")
        gbit, tier = egress[m["series"]][vcpus]
        takes = disk_types(series, vcpus)
        doc: dict = {"cloud": "gcp", "vcpus": vcpus, "memory": f"{_num(row['ram'])}GiB",
                     "max_data_disks": 127, "premium_storage": True, "disk_types": takes,
                     "network_bandwidth": f"{_num(gbit)}Gbit/s"}
        if tier is not None:
            doc["tier_1_bandwidth"] = f"{_num(tier)}Gbit/s"
        assumed = ["max_data_disks"]
        limits = {}
        if "pd" in series:
            file, section = series["pd"]
            for disk, rows in tables[file][section].items():
                found = pd_limits(rows, ident, vcpus)
                if found is not None and disk in takes:
                    limits[disk] = found
                elif found is not None and disk in series["disk_types"]:
                    raise SourceError(f"{ident}: gcpdiag gives {disk} limits, but the series rule "
                                      f"takes {disk} only from {series['min_vcpus'][disk]} vCPUs")
            doc["disk_limits"] = limits
        doc["source"] = (f"{src['repository']} {src['path']} {src['commit'][:8]} ({src['date']}): vCPUs, memory; "
                         f"egress: {net['repository']} {net['commit'][:8]} ({net['date']}), from the "
                         f"{m['series'].upper()} machine-series page"
                         + (f"; Persistent Disk limits: GoogleCloudPlatform/gcpdiag {series['pd'][0][8:]} "
                            f"({series['pd'][1]}, 2024-08-21)" if "pd" in series else ""))
        doc["assumptions"] = assumed
        notes = []
        missing = [d for d in takes if d not in limits]
        if missing:
            notes.append(f"no per-VM limits in the sources for {', '.join(missing)}: not capped by the VM")
        if notes:
            doc["notes"] = "; ".join(notes)
        out[ident] = doc
    return out


UNITS_FILE = "infracost-google-disk-units.txt"
"""Disk unit prices read off infracost's Google golden test output (pd-extreme and Hyperdisk
Extreme per provisioned IOPS in us-central1), the second price source of gcp.csv."""


def unit_prices(text: str) -> tuple[dict[str, str], dict[tuple[str, str, str, str], float]]:
    """The header fields (``repository``, ``path``, ``commit``, ``date``) and the unit prices
    by (section, id, field, region) of a units extract: monthly cost ÷ quantity. Raises
    :class:`SourceError` naming the line unless every line is well formed and the lines of
    one figure give the same unit price (within 0.5 %)."""
    meta: dict[str, str] = {}
    found: dict[tuple[str, str, str, str], float] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if m := re.fullmatch(r"# (repository|path|commit|date): (\S+).*", line):
            meta[m[1]] = m[2]
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        try:
            section, ident, fld, region, quantity, cost = parts
            unit = float(cost) / float(quantity)
        except ValueError:
            raise SourceError(f"{UNITS_FILE} line {n}: not 'section id field region quantity monthly_cost'") from None
        if not math.isfinite(unit) or unit <= 0:
            raise SourceError(f"{UNITS_FILE} line {n}: {cost} / {quantity} is not a positive price")
        key = (section, ident, fld, region)
        if key in found and abs(unit - found[key]) > 0.005 * found[key]:
            raise SourceError(f"{UNITS_FILE} line {n}: {unit:.6g} a unit, where an earlier line gives {found[key]:.6g}")
        found.setdefault(key, unit)
    missing = {"repository", "path", "commit", "date"} - set(meta)
    if missing:
        raise SourceError(f"{UNITS_FILE}: no {', '.join(sorted(missing))} in its header")
    return meta, found


def price_rows(pricing: dict, idents: Iterable[str], dropped: list[str] | None = None,
               units: Mapping[tuple[str, str, str, str], float] | None = None,
               units_date: str = "") -> tuple[list[str], list[list[str]]]:
    """The price table's regions and rows: each machine type's on-demand hourly price and
    commitment rates, each disk type's capacity price, per region (empty where pricing.yml
    has none), and the ``units`` (:func:`unit_prices`, dated ``units_date``) pricing.yml lacks.
    A commitment rate outside its bounds (:func:`rate_breach`) is left out, and why is
    appended to ``dropped``; a unit price that pricing.yml also gives must agree with it
    (within 0.5 %), and pricing.yml's is kept."""
    dropped = [] if dropped is None else dropped
    rows: dict[tuple[str, str, str], dict[str, float]] = {}
    for ident in idents:
        cost = pricing["instance"][ident]["cost"]
        rows[("vms", ident, "price_per_hour")] = {r: c["hour"] for r, c in cost.items() if "hour" in c}
        for model, month in COMMITMENTS.items():  # a commitment's month over pricing.yml's 730 hours
            rates = {r: c[month] / HOURS for r, c in cost.items() if month in c}
            for region, rate in list(rates.items()):
                if (why := rate_breach(ident, model, rate, cost[region].get("hour"))) is not None:
                    del rates[region]  # a third party's figure outside the published bounds: left unpriced
                    dropped.append(f"{ident} {model} in {region}: {why}")
            rows[("vms", ident, f"rates_per_hour.{model}")] = rates
    for disk, per_region in pricing["storage"].items():
        rows[("provisioned", DISK_IDS[disk], "price_per_gib_month")] = dict(per_region)
    second: dict[tuple[str, str, str], dict[str, float]] = {}
    for (section, ident, fld, region), unit in (units or {}).items():
        first = rows.get((section, ident, fld), {}).get(region)
        if first is not None and abs(first - unit) > 0.005 * first:
            raise SourceError(f"{section}/{ident}/{fld} in {region}: infracost gives {unit:.6g}, pricing.yml {first:.6g}")
        if (section, ident, fld) not in rows:
            second.setdefault((section, ident, fld), {})[region] = unit
    regions = sorted({r for v in [*rows.values(), *second.values()] for r in v})
    unit_of = {"price_per_hour": "USD/hour", "price_per_gib_month": "USD/GiB-month",
               "price_per_iops_month": "USD/IOPS-month", **{f"rates_per_hour.{m}": "USD/hour" for m in COMMITMENTS}}
    date = pricing["_source"]["date"]
    body = [[*key, unit_of[key[2]], "USD", when, source, *[_num(v[r]) if r in v else "" for r in regions]]
            for table, when, source in ((rows, date, "cyclenerd"), (second, units_date, "infracost-google"))
            for key, v in sorted(table.items())]
    return regions, body


def rate_breach(ident: str, model: str, rate: float, hourly: float | None) -> str | None:
    """Why a commitment ``rate`` of machine type ``ident`` breaks its bounds against its
    on-demand ``hourly`` price (:data:`LEAST_SHARE`, :data:`MOST_SHARE`); None if it holds."""
    if hourly is None:
        return f"a {model} rate but no on-demand price"
    m = _TYPE.match(ident)
    low = LEAST_SHARE.get(m["series"] if m else "", LEAST_SHARE[""]) * 0.99
    if low <= rate / hourly <= MOST_SHARE:
        return None
    return (f"${rate:.6g} an hour is {rate / hourly:.1%} of its on-demand ${hourly:.6g}; a commitment rate "
            f"is {low:.1%} to {MOST_SHARE:.0%} of it")


def check_prices(regions: list[str], rows: list[list[str]]) -> None:
    """Raise :class:`SourceError` naming the row unless the prices hold the invariants:

    - every price is a finite positive number, every row has a price in some region;
    - within a series and shape (n2-standard), more vCPUs never cost less in a region;
    - at the same series and vCPUs, highmem costs at least standard and standard at least highcpu;
    - per GiB, pd-standard < pd-balanced < pd-ssd in every region that prices all three;
    - a commitment rate (``rates_per_hour.reserved-1y``, ``-3y``) has the machine's on-demand
      price in its region and is within :data:`LEAST_SHARE` and :data:`MOST_SHARE` of it; the
      3-year rate is below the 1-year rate.
    """
    table: dict[tuple[str, str, str], dict[str, float]] = {}
    for row in rows:
        key = (row[0], row[1], row[2])
        cells = {}
        for region, cell in zip(regions, row[len(HEADER):]):
            if not cell:
                continue
            value = float(cell)
            if not math.isfinite(value) or value <= 0:
                raise SourceError(f"{'/'.join(key)} in {region}: {cell} is not a positive price")
            cells[region] = value
        if not cells:
            raise SourceError(f"{'/'.join(key)}: no region has a price")
        table[key] = cells
    vms = {k[1]: v for k, v in table.items() if k[0] == "vms" and k[2] == "price_per_hour"}
    by_shape: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for ident in vms:
        m = _TYPE.match(ident)
        if m:
            by_shape.setdefault((m["series"], m["shape"]), []).append((int(m["vcpus"]), ident))
    for sizes in by_shape.values():
        sizes.sort()
        for (_, small), (_, big) in zip(sizes, sizes[1:]):
            for region, price in vms[small].items():
                if region in vms[big] and vms[big][region] < price:
                    raise SourceError(f"{big} costs less than {small} in {region}")
    for (series, shape), sizes in by_shape.items():
        cheaper = {"highmem": "standard", "standard": "highcpu"}.get(shape)
        for vcpus, ident in sizes:
            other = f"{series}-{cheaper}-{vcpus}"
            for region, price in vms[ident].items():
                if other in vms and region in vms[other] and vms[other][region] > price:
                    raise SourceError(f"{other} costs more than {ident} in {region}")
    for (section, ident, fld), rates in table.items():
        model = fld.removeprefix("rates_per_hour.")
        if model == fld:
            continue
        for region, rate in rates.items():
            if (why := rate_breach(ident, model, rate, vms[ident].get(region))) is not None:
                raise SourceError(f"{ident} {model} in {region}: {why}")
        longer = table.get((section, ident, "rates_per_hour.reserved-3y"), {}) if model == "reserved-1y" else {}
        for region, rate in longer.items():
            if region in rates and rate >= rates[region]:
                raise SourceError(f"{ident} reserved-3y in {region} is not below its reserved-1y rate")
    disks = [table.get(("provisioned", d, "price_per_gib_month"), {}) for d in ("pd-standard", "pd-balanced", "pd-ssd")]
    for region in set(disks[0]) & set(disks[1]) & set(disks[2]):
        if not disks[0][region] < disks[1][region] < disks[2][region]:
            raise SourceError(f"per GiB, pd-standard < pd-balanced < pd-ssd does not hold in {region}")


def read_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Regions and rows of a price table in the bundled CSV format."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    return header[len(HEADER):], [r for r in reader]


def render(pricing: dict, rules: dict) -> dict[Path, str]:
    """Every output file's path and text."""
    vms = machines(pricing, rules)
    dropped: list[str] = []
    meta, units = unit_prices((SOURCES / UNITS_FILE).read_text(encoding="utf-8"))
    regions, body = price_rows(pricing, vms, dropped, units, meta["date"])
    for line in dropped:
        print(f"left unpriced: {line}", file=sys.stderr)
    check_prices(regions, body)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER + regions)
    writer.writerows(body)
    src = pricing["_source"]
    net = egress_table(rules)[0]
    head = ("# Compute Engine machine types (cloud: gcp).\n#\n"
            "# GENERATED by tools/catalog/gce.py from tools/catalog/sources/gce/ and\n"
            "# tools/catalog/gce_rules.yaml. Edit those and rerun; do not edit this file.\n#\n"
            "# Memory in GiB; network: default per-VM egress (Tier_1 off), tier_1_bandwidth: with Tier_1\n"
            "# networking; disk_limits: the per-VM\n"
            "# Persistent Disk limits of the machine type (MiB/s = 2^20 B/s), reads and writes apart.\n"
            f"# Sources: {src['repository']} {src['path']} commit {src['commit']} ({src['date']});\n"
            "#   GoogleCloudPlatform/gcpdiag gcpdiag/runbook/gce/disk_performance_benchmark/*.json\n"
            "#   (commit af187502, 2024-08-21); egress: Cyclenerd/google-cloud-compute-machine-types\n"
            f"#   instances/series/*.sql commit {net['commit']} ({net['date']}).\n")
    text = head + yaml.safe_dump({"vms": vms}, sort_keys=False, width=120, default_flow_style=None)
    sources = {"sources": {"cyclenerd": {
        "repository": src["repository"], "path": src["path"], "commit": src["commit"], "date": src["date"],
        "secondary": True,
        "describes": "Compute Engine on-demand hourly prices per region, 1- and 3-year committed use "
                     "(resource-based commitment) prices per month / 730; Persistent Disk and Hyperdisk "
                     "Extreme capacity per GiB-month (from Google's Cloud Billing Catalog)"},
        "infracost-google": {
            "repository": meta["repository"], "path": meta["path"], "commit": meta["commit"], "date": meta["date"],
            "secondary": True,
            "describes": "pd-extreme and Hyperdisk Extreme per provisioned IOPS-month in us-central1 "
                         "(golden test output: monthly cost / quantity)"}}}
    return {DATA / "gce.yaml": text, DATA / "prices" / "gcp.csv": out.getvalue(),
            DATA / "prices" / "gcp-sources.yaml":
                "# The sources of gcp.csv. Generated by tools/catalog/gce.py; do not edit.\n"
                + yaml.safe_dump(sources, sort_keys=False, width=120)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Check that the bundled files are up to date.")
    args = parser.parse_args(argv)
    try:
        files = render(_pricing(), yaml.safe_load(RULES.read_text(encoding="utf-8")))
    except SourceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return write_or_check(files, args.check, "python -m tools.catalog.gce")


if __name__ == "__main__":
    sys.exit(main())
