"""Rebuild the bundled price table from the saved source extracts.

    python tools/catalog/prices.py [--sources DIR] [--out DIR]

Reads the extracts in ``tools/catalog/sources/prices/`` (each starts with ``#`` lines naming
its repository, path, commit and date) and writes ``prices.csv`` and ``sources.yaml`` into
``python/iolab/catalog/data/prices/``. The output depends on the extracts only: sorted rows
and regions, numbers written with 10 significant digits, so running it twice gives the same
bytes. See docs/catalog.md for the file format.

Extracts:

- ``karpenter-vms.csv``: ``region,sku,price`` (USD per hour), VM sizes -> ``vms``/``price_per_hour``.
- ``karpenter-aws-vms.csv``: the same for EC2 instance types (``us-east-1,m6i.2xlarge,0.384``).
- ``zombiescan-disks.txt``: one line per region, ``REGION SKU PRICE ...``; tiers P1..S80 ->
  ``disks``/``price_per_month``; ``premium-v2``/``ultra`` -> ``provisioned``/``price_per_gib_month``.
- ``infracost-units.txt``, ``infracost-aws-units.txt``, ``plancost-units.txt``: ``section id field region quantity
  monthly_cost path``; the unit price is monthly_cost / quantity.
- ``ocvs-shares.txt``: ``REGION LEVEL PRICE``, a share level's capacity price in USD per
  GiB-hour -> ``services``/``price_per_gib_month`` (times 730 hours). Azure NetApp Files
  levels in Azure regions, Google Cloud NetApp Volumes levels in Google Cloud regions (which
  become columns of their own, holding only those prices).
- ``zombiescan-vms.txt``: ``REGION SKU PRICE``, a second source of VM hourly prices, used only
  to check and correct ``karpenter-vms.csv``.
- ``skypilot-aws-vms.txt``: ``REGION TYPE PRICE``, the same for EC2 instance types, used only to
  check and correct ``karpenter-aws-vms.csv``.
- ``skypilot-aws-regions.txt``: ``REGION TYPE PRICE``, EC2 hourly prices in regions other than
  us-east-1 (cells of the EC2 rows, each naming this source); ``ligoj-aws-ebs-list.txt``:
  ``REGION SECTION ID FIELD PRICE``, EBS unit prices there that the golden outputs lack (cells
  likewise); ``ligoj-aws-ebs.txt``, a second source of EBS unit prices outside us-east-1. All
  optional; :mod:`tools.catalog.aws_regions`
  holds the AWS prices outside us-east-1 to its invariants before anything is written.

Every region's prices pass the invariants of ``iolab.catalog.invariants`` before they are
written: a VM size whose price per vCPU is out of line with its family is corrected from the
second source or dropped (unpriced); a disk tier priced at or below the next smaller one is
dropped. Each change is written to ``corrections.csv`` with its reason; a table that still
breaks an invariant after that is refused (exit 2), never written.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _path in (ROOT / "python", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from iolab.catalog import invariants  # noqa: E402
from tools.catalog import aws_regions  # noqa: E402

SOURCES = ROOT / "tools" / "catalog" / "sources" / "prices"
OUT = ROOT / "python" / "iolab" / "catalog" / "data" / "prices"

UNITS = {
    "price_per_hour": "USD/hour",
    "price_per_month": "USD/month",
    "price_per_gib_month": "USD/GiB-month",
    "price_per_iops_month": "USD/IOPS-month",
    "price_per_mbps_month": "USD/MBps-month",
    "price_per_mibps_month": "USD/MiBps-month",
}
HEADER = ["section", "id", "field", "unit", "currency", "date", "source"]
_TIER = re.compile(r"^[PES]\d+$")
HOURS_PER_MONTH = 730.0
SHARE_LEVELS = ("anf-standard", "anf-premium", "anf-ultra", "gcnv-standard", "gcnv-premium", "gcnv-extreme")
"""The service levels priced by capacity alone (no throughput or IOPS priced apart)."""


class SourceError(ValueError):
    """An extract is malformed; the message names the file and line."""


def _meta(path: Path, name: str, secondary: bool, what: str) -> dict[str, str]:
    """The ``# key: value`` header of an extract: repository, path, commit, date."""
    meta: dict[str, str] = {"name": name}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#\s*(repository|path|commit|date):\s*(\S+)", line)
        if m:
            meta.setdefault(m.group(1), m.group(2))
    for key in ("repository", "commit", "date"):
        if key not in meta:
            raise SourceError(f"{path.name}: no '# {key}:' line")
    meta["secondary"] = "true" if secondary else "false"
    meta["describes"] = what
    return meta


def _lines(path: Path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            yield number, line


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SourceError(f"{where}: {text!r} is not a number") from None
    if value < 0:
        raise SourceError(f"{where}: negative price {text}")
    return value


def _put(table: dict, key: tuple[str, str, str], source: str, date: str, region: str, value: float, where: str) -> None:
    row = table.setdefault(key, {"source": source, "date": date, "values": {}})
    if row["source"] != source:
        raise SourceError(f"{where}: {key[1]} {key[2]} is already given by {row['source']}")
    if region in row["values"] and row["values"][region] != value:
        raise SourceError(f"{where}: {key[1]} {key[2]} in {region} given twice")
    row["values"][region] = value


def _put_cell(table: dict, key: tuple[str, str, str], source: str, date: str, region: str, value: float,
              where: str) -> None:
    """As :func:`_put`, for a source that gives some regions' cells of rows another source may
    own: such a cell names its source (``cell_sources``), the row keeps its own."""
    row = table.get(key)
    if row is None or row["source"] == source:
        _put(table, key, source, date, region, value, where)
        return
    if region in row["values"]:
        raise SourceError(f"{where}: {key[1]} {key[2]} in {region} is already given by {row['source']}")
    row["values"][region] = value
    row.setdefault("cell_sources", {})[region] = source


def _regional_vms(table: dict, path: Path, name: str, what: str) -> dict[str, str]:
    """A ``REGION TYPE PRICE`` extract of EC2 hourly prices outside us-east-1 into `table`."""
    meta = _meta(path, name, True, what)
    for number, line in _lines(path):
        parts = line.split()
        where = f"{path.name}:{number}"
        if len(parts) != 3 or "." not in parts[1]:
            raise SourceError(f"{where}: expected REGION FAMILY.SIZE PRICE")
        if parts[0] == aws_regions.HOME:
            raise SourceError(f"{where}: {aws_regions.HOME} is karpenter-aws-vms.csv's region, not this extract's")
        _put_cell(table, ("vms", parts[1], "price_per_hour"), name, meta["date"], parts[0],
                  _number(parts[2], where), where)
    return meta


def _units(table: dict, path: Path, name: str, what: str) -> dict[str, str]:
    """A golden-output extract: ``section id field region quantity monthly_cost path`` lines;
    the unit price is monthly_cost / quantity. Returns the source's metadata."""
    meta = _meta(path, name, True, what)
    paths = set()
    for number, line in _lines(path):
        parts = line.split()
        where = f"{path.name}:{number}"
        if len(parts) != 7 or parts[2] not in UNITS:
            raise SourceError(f"{where}: expected section id field region quantity monthly_cost path")
        section, ident, fld, region, quantity, cost, golden = parts
        unit_price = _number(cost, where) / _number(quantity, where)
        _put(table, (section, ident, fld), meta["name"], meta["date"], region, unit_price, where)
        paths.add(golden)
    meta["path"] = ", ".join(sorted(paths))
    return meta


def _vm_hours(table: dict, path: Path, name: str, what: str, named, shape: str) -> dict[str, str]:
    """A ``region,SIZE,price`` extract of hourly VM prices into `table`; `named(size)` tells
    a size of the cloud (`shape` says how one looks). Returns the source's metadata."""
    meta = _meta(path, name, False, what)
    for number, line in _lines(path):
        parts = line.split(",")
        where = f"{path.name}:{number}"
        if len(parts) != 3 or not named(parts[1]):
            raise SourceError(f"{where}: expected region,{shape},price")
        _put(table, ("vms", parts[1], "price_per_hour"), meta["name"], meta["date"], parts[0],
             _number(parts[2], where), where)
    return meta


def read_sources(folder: Path) -> tuple[dict, list[dict[str, str]]]:
    """Every price in the extracts: ``{(section, id, field): {source, date, values: {region: price}}}``."""
    table: dict = {}
    sources = []

    sources.append(_vm_hours(table, folder / "karpenter-vms.csv", "karpenter",
                             "VM sizes, Linux pay-as-you-go hourly prices per region",
                             lambda size: size.startswith("Standard_"), "Standard_SIZE"))

    path = folder / "zombiescan-disks.txt"
    meta = _meta(path, "zombiescan", True,
                 "managed disks P1-P80, E1-E80, S4-S80 (LRS) per month; Premium SSD v2 and Ultra per GiB-month")
    sources.append(meta)
    for number, line in _lines(path):
        parts = line.split()
        where = f"{path.name}:{number}"
        if len(parts) < 3 or len(parts) % 2 != 1:
            raise SourceError(f"{where}: expected REGION SKU PRICE [SKU PRICE ...]")
        region = parts[0]
        for sku, price in zip(parts[1::2], parts[2::2]):
            if _TIER.match(sku):
                key = ("disks", sku, "price_per_month")
            elif sku in ("premium-v2", "ultra"):
                key = ("provisioned", sku, "price_per_gib_month")
            else:
                raise SourceError(f"{where}: unknown disk SKU {sku!r}")
            _put(table, key, meta["name"], meta["date"], region, _number(price, where), where)

    sources.append(_vm_hours(table, folder / "karpenter-aws-vms.csv", "karpenter-aws",
                             "EC2 instance types, Linux on-demand hourly prices per region",
                             lambda size: "." in size, "FAMILY.SIZE"))
    sources.append(_units(table, folder / "infracost-aws-units.txt", "infracost-aws",
                          "EBS gp2, gp3, io1, io2, st1, sc1 per GiB, provisioned IOPS and throughput "
                          "(golden test outputs; outside us-east-1 gp2 and io1 only)"))
    path = folder / "skypilot-aws-regions.txt"
    if path.exists():
        sources.append(_regional_vms(table, path, "skypilot-aws-regions",
                                     "EC2 instance types, Linux on-demand hourly prices outside us-east-1 "
                                     "(m6a, m6i, four m5 sizes in eu-west-1 and ap-northeast-1)"))
    path = folder / aws_regions.LIST_EBS
    if path.exists():
        meta = _meta(path, "ligoj-aws-list", True, "EBS gp3, st1 and sc1 in eu-west-1 (AWS's price list rows, "
                                                   "EffectiveDate 2021-02-01, kept as a test fixture)")
        sources.append(meta)
        try:
            cells = aws_regions.read_cells(path)
        except ValueError as e:
            raise SourceError(str(e)) from None
        for (region, section, ident, fld), price in sorted(cells.items()):
            if fld not in UNITS or section not in ("provisioned", "scaled"):
                raise SourceError(f"{path.name}: {section} {ident} {fld}: not an EBS unit price")
            _put_cell(table, (section, ident, fld), meta["name"], meta["date"], region, price, path.name)
    path = folder / aws_regions.SECOND_EBS
    if path.exists():
        sources.append(_meta(path, "ligoj-aws-ebs", True,
                             "EBS gp2 and io1 in eu-west-1: a second source that checks the first"))

    sources.append(_units(table, folder / "infracost-units.txt", "infracost",
                          "Ultra Disk per provisioned IOPS and MB/s; Azure Files premium per GiB (golden test outputs)"))
    sources.append(_units(table, folder / "plancost-units.txt", "plancost",
                          "Azure NetApp Files Flexible per GiB and per MiB/s above the pool's free 128 MiB/s "
                          "(golden test outputs)"))

    path = folder / "ocvs-shares.txt"
    meta = _meta(path, "ocvs", True,
                 "Azure NetApp Files Standard/Premium/Ultra and Google Cloud NetApp Volumes "
                 "Standard/Premium/Extreme capacity, USD per GiB-hour (x 730 hours)")
    sources.append(meta)
    for number, line in _lines(path):
        parts = line.split()
        where = f"{path.name}:{number}"
        if len(parts) != 3:
            raise SourceError(f"{where}: expected REGION LEVEL PRICE")
        region, level, price = parts
        if level not in SHARE_LEVELS:
            raise SourceError(f"{where}: unknown share level {level!r} (known: {', '.join(SHARE_LEVELS)})")
        _put(table, ("services", level, "price_per_gib_month"), meta["name"], meta["date"], region,
             _number(price, where) * HOURS_PER_MONTH, where)
    return table, sources


SECOND_SOURCES = (
    ("zombiescan-vms.txt", "zombiescan-vms",
     "VM sizes, Linux pay-as-you-go hourly prices: a second source that checks and corrects the first",
     lambda size: size.startswith("Standard_"), "Standard_SIZE"),
    ("skypilot-aws-vms.txt", "skypilot-aws",
     "EC2 instance types, Linux on-demand hourly prices: a second source that checks and corrects the first",
     lambda size: "." in size, "FAMILY.SIZE"),
)
"""The second sources of VM hourly prices (extract, name, what it is, how a size of its cloud
looks): ``REGION SIZE PRICE`` lines, each region checked against one of them."""


def read_second_vms(folder: Path) -> tuple[dict[str, dict[str, float]], list[dict[str, str]]]:
    """The second sources' VM hourly prices, ``{region: {size: price}}``, and the metadata of
    each source the folder has an extract of (a cloud without one can only have rows dropped)."""
    second: dict[str, dict[str, float]] = {}
    metas: list[dict[str, str]] = []
    for file, name, what, named, shape in SECOND_SOURCES:
        path = folder / file
        if not path.exists():
            continue
        metas.append(_meta(path, name, True, what))
        for number, line in _lines(path):
            parts = line.split()
            where = f"{path.name}:{number}"
            if len(parts) != 3 or not named(parts[1]):
                raise SourceError(f"{where}: expected REGION {shape} PRICE")
            region, size, price = parts
            if size in second.setdefault(region, {}):
                raise SourceError(f"{where}: {size} in {region} given twice")
            second[region][size] = _number(price, where)
    return second, metas


def second_name(sizes: list[str], read: set[str]) -> str:
    """The second source that checks a region whose VM sizes are ``sizes`` (the one of their
    cloud, by how its sizes look), among the sources ``read``."""
    for _, name, _, named, _ in SECOND_SOURCES:
        if name in read and sizes and named(sizes[0]):
            return name
    return "no second source"


def apply_invariants(table: dict, second: dict[str, dict[str, float]], read: set[str]) -> list:
    """Check every region's prices with :mod:`iolab.catalog.invariants`, correct or drop the
    rows that fail (in ``table``, a cell taken from the second source is recorded in its row's
    ``cell_sources``; ``read``: the names of the second sources read), and return the corrections. Raises :class:`SourceError` where a region
    still breaks an invariant afterwards."""
    corrections = []
    vm_keys = {k: row for k, row in table.items() if k[0] == "vms" and k[2] == "price_per_hour"}
    regions = sorted({r for row in vm_keys.values() for r in row["values"]})
    for region in regions:
        primary = {k[1]: row["values"][region] for k, row in vm_keys.items() if region in row["values"]}
        sources = {row["source"] for row in vm_keys.values() if region in row["values"]}
        primary_name = sorted(sources)[0] if len(sources) == 1 else "the VM table"
        resolved, changes = invariants.resolve_vms(primary, second.get(region, {}), region, primary_name,
                                                   second_name(sorted(primary), read))
        for change in changes:
            row = vm_keys[("vms", change.ident, "price_per_hour")]
            if change.now is None:
                del row["values"][region]
            else:
                row["values"][region] = change.now
                row.setdefault("cell_sources", {})[region] = change.source
        corrections += changes
    disk_keys = {k: row for k, row in table.items() if k[0] == "disks" and k[2] == "price_per_month"}
    for region in sorted({r for row in disk_keys.values() for r in row["values"]}):
        tiers = {k[1]: row["values"][region] for k, row in disk_keys.items() if region in row["values"]}
        for failure in invariants.check_disk_tiers(tiers, region):
            del disk_keys[("disks", failure.ident, "price_per_month")]["values"][region]
            corrections.append(invariants.Correction("disks", failure.ident, failure.field, region, failure.value,
                                                     None, "", failure.rule, failure.reason + ": dropped as unpriced"))
    left = invariants.check_table({k: row["values"] for k, row in table.items()})
    if left:
        f = left[0]
        raise SourceError(f"{f.ident} {f.field} in {f.region} still breaks the {f.rule} invariant after corrections: "
                          f"{f.reason} ({len(left)} figures in all)")
    return corrections


def _fmt(value: float) -> str:
    return f"{value:.10g}"


def render(table: dict, sources: list[dict[str, str]]) -> tuple[str, str]:
    """The text of ``prices.csv`` and ``sources.yaml``."""
    regions = sorted({r for row in table.values() for r in row["values"]})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER + regions)
    for key in sorted(table):
        section, ident, fld = key
        row = table[key]
        source = row["source"] + "".join(f"|{r}={name}" for r, name in sorted(row.get("cell_sources", {}).items()))
        writer.writerow([section, ident, fld, UNITS[fld], "USD", row["date"], source]
                        + [_fmt(row["values"][r]) if r in row["values"] else "" for r in regions])
    lines = ["# The sources of prices.csv (its 'source' column names one of them).",
             "# Generated by tools/catalog/prices.py from tools/catalog/sources/prices/; do not edit.",
             "sources:"]
    for meta in sources:
        lines.append(f"  {meta['name']}:")
        for key in ("repository", "path", "commit", "date", "secondary", "describes"):
            value = meta.get(key, "")
            lines.append(f"    {key}: {value if key == 'secondary' else repr(value)}")
    return out.getvalue(), "\n".join(lines) + "\n"


def render_corrections(corrections: list) -> str:
    """The text of ``corrections.csv``: one line per figure the invariants changed or dropped."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", "id", "field", "region", "was", "now", "source", "rule", "reason"])
    for c in sorted(corrections, key=lambda c: (c.section, c.ident, c.field, c.region)):
        writer.writerow([c.section, c.ident, c.field, c.region, _fmt(c.was), "" if c.now is None else _fmt(c.now),
                         c.source, c.rule, c.reason])
    return out.getvalue()


def build(sources_dir: Path = SOURCES, out_dir: Path = OUT) -> list[Path]:
    """Write ``prices.csv``, ``sources.yaml`` and ``corrections.csv`` into ``out_dir``; return
    their paths. Nothing is written when the sources break an invariant that cannot be fixed."""
    table, sources = read_sources(sources_dir)
    try:
        problems = aws_regions.check({k: row["values"] for k, row in table.items()}, sources_dir)
    except ValueError as e:  # a malformed second source
        raise SourceError(str(e)) from None
    if problems:
        raise SourceError("the AWS prices outside us-east-1 break the invariants:\n  " + "\n  ".join(problems))
    second, metas = read_second_vms(sources_dir)
    sources += metas
    corrections = apply_invariants(table, second, {m["name"] for m in metas})
    prices, meta = render(table, sources)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("prices.csv", prices), ("sources.yaml", meta), ("corrections.csv", render_corrections(corrections))):
        path = out_dir / name
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, default=SOURCES, help="folder of the saved extracts")
    parser.add_argument("--out", type=Path, default=OUT, help="folder to write prices.csv and sources.yaml into")
    args = parser.parse_args(argv)
    try:
        for path in build(args.sources, args.out):
            print(f"wrote {path}")
    except (OSError, SourceError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
