"""Regenerate the bundled EC2 catalog, ``python/iolab/catalog/data/aws-ec2.yaml``.

    python -m tools.catalog.aws            # rewrite aws-ec2.yaml
    python -m tools.catalog.aws --check    # exit 1 if aws-ec2.yaml is not what the sources give

Reads the saved extracts in ``tools/catalog/sources/aws/`` (each names its repository,
path, commit and date in its first lines):

- ``ebs-optimized.md``: the EBS-optimized limits of every instance type optimized by default
  (baseline and maximum Mbit/s, MB/s at 128 KiB IO, IOPS at 16 KiB IO; a ``*`` marks the
  sizes that reach the maximum for 30 minutes at least once every 24 hours).
- ``*-instances.md``: default vCPUs and memory (GiB) of each instance type; the NVMe
  instance store's 4 KiB random read IOPS where the type has one.
- ``karpenter-bandwidth.csv``: network bandwidth in Mbit/s (``type,mbps``).

Linux on-demand prices are not rows of this file: they live in the price table
(``tools/catalog/sources/prices/karpenter-aws-vms.csv``, built by ``tools/catalog/prices.py``);
:func:`check_prices` holds them to the invariants below before anything is written.

Invariants (a third party's data is checked, never trusted; a breach stops the build):
the MB/s column is the Mbit/s column / 8 (within 1 %); a baseline is not above its maximum;
a size marked ``*`` has a baseline below its maximum and one not marked has none; every
type has vCPUs and memory; within a family the price rises with the vCPUs and the price per
vCPU stays within a factor 1.6 of the family's median (metal sizes included). Burstable
families (T) are priced by memory, so there the price per GiB is held to that bound;
accelerated types are priced by their accelerators, so only a positive price is required.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

if str(Path(__file__).resolve().parents[2]) not in sys.path:  # run as a script, not with -m
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.catalog.bundled import write_or_check  # noqa: E402
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "tools" / "catalog" / "sources" / "aws"
PRICES = ROOT / "tools" / "catalog" / "sources" / "prices" / "karpenter-aws-vms.csv"
OUTPUT = ROOT / "python" / "iolab" / "catalog" / "data" / "aws-ec2.yaml"
SPEC_PAGES = ("general-purpose-instances.md", "compute-optimized-instances.md", "memory-optimized-instances.md",
              "storage-optimized-instances.md", "accelerated-computing-instances.md")
MAX_EBS_VOLUMES = 27
"""Nitro instances share 28 attachments among network interfaces, EBS and NVMe instance store
volumes: 27 EBS volumes with one network interface (volume_limits.md)."""
PRICE_SPREAD = 1.6


class SourceError(ValueError):
    """An extract is malformed or breaks an invariant; the message names the file and line."""


@dataclass
class Extract:
    """One saved page: its provenance and its lines."""

    name: str
    meta: dict[str, str]
    lines: list[str] = field(default_factory=list)

    def citation(self) -> str:
        return (f"{self.meta['repository']} {self.meta['path']} at {self.meta['commit'][:12]} "
                f"({self.meta['date']})")


def read_extract(path: Path) -> Extract:
    meta: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines[:8]:
        m = re.match(r"(?:<!--|#)\s*(repository|path|commit|date):\s*(\S+)", line)
        if m:
            meta[m.group(1)] = m.group(2)
    for key in ("repository", "path", "commit", "date"):
        if key not in meta:
            raise SourceError(f"{path.name}: no '{key}:' line in its header")
    return Extract(path.name, meta, lines)


def clean(cell: str) -> str:
    return cell.replace("\\", "").strip()


def cells(line: str) -> list[str]:
    return [clean(c) for c in line.strip().strip("|").split("|")]


def number(text: str, where: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise SourceError(f"{where}: {text!r} is not a number") from None


def ebs_limits(page: Extract) -> dict[str, dict[str, Any]]:
    """Every instance type of the 'EBS optimized by default' tables and its EBS limits."""
    out: dict[str, dict[str, Any]] = {}
    current = False
    for number_, line in enumerate(page.lines, 1):
        where = f"{page.name}:{number_}"
        if line.startswith("### "):
            current = 'name="current"' in line
            continue
        if not current or not line.startswith("|") or "---" in line or "Instance size" in line:
            continue
        row = cells(line)
        name, burst = row[0].rstrip("* ").strip(), row[0].endswith("*")
        if len(row) == 7:
            base_mbps, max_mbps, base_mbs, max_mbs, base_iops, max_iops = (number(c, where) for c in row[1:])
        elif len(row) == 4:
            max_mbps, max_mbs, max_iops = (number(c, where) for c in row[1:])
            base_mbps, base_mbs, base_iops = max_mbps, max_mbs, max_iops
        else:
            raise SourceError(f"{where}: expected 4 or 7 columns, found {len(row)}")
        for mbps, mbs in ((base_mbps, base_mbs), (max_mbps, max_mbs)):
            if abs(mbps / 8 - mbs) > 0.01 * mbs:
                raise SourceError(f"{where}: {name}: {mbs} MB/s is not {mbps} Mbit/s / 8")
        if base_mbs > max_mbs or base_iops > max_iops:
            raise SourceError(f"{where}: {name}: a baseline above its maximum")
        if burst != (base_mbs < max_mbs or base_iops < max_iops):
            raise SourceError(f"{where}: {name}: marked {'*' if burst else 'without *'} but its baseline "
                              f"{'equals' if burst else 'is below'} its maximum")
        if name in out:
            raise SourceError(f"{where}: {name} listed twice")
        out[name] = {"base_mbs": base_mbs, "max_mbs": max_mbs, "base_iops": base_iops, "max_iops": max_iops,
                     "burst": burst, "page": page}
    if not out:
        raise SourceError(f"{page.name}: no 'EBS optimized by default' rows")
    return out


def price_basis(name: str, vcpus: int, memory: float, page: Extract) -> float | None:
    """What a type's price scales with: None for accelerated types, memory (GiB) for
    burstable families (T), vCPUs otherwise."""
    if page.name.startswith("accelerated"):
        return None
    return memory if re.match(r"t\d", name) else vcpus


def specs(pages: list[Extract]) -> tuple[dict[str, tuple[int, float, Extract]], dict[str, tuple[int, Extract]]]:
    """(vCPUs, memory GiB, page) and (instance store random read IOPS, page) of every type."""
    hw: dict[str, tuple[int, float, Extract]] = {}
    store: dict[str, tuple[int, Extract]] = {}
    for page in pages:
        table = None
        for number_, line in enumerate(page.lines, 1):
            where = f"{page.name}:{number_}"
            if not line.startswith("|"):
                table = None
                continue
            row = cells(line)
            if row[:3] == ["Instance type", "Default vCPUs", "Memory (GiB)"]:
                table = "hw"
            elif row[:2] == ["Instance Size", "100% Random Read IOPS"]:
                table = "store"
            elif row[0].startswith("Instance") or "---" in line:
                if row[0].startswith("Instance"):
                    table = None
            elif table == "hw":
                hw[row[0]] = (int(number(row[1], where)), number(row[2], where), page)
            elif table == "store":
                store[row[0]] = (int(number(row[1], where)), page)
    return hw, store


def network(path: Path) -> tuple[dict[str, float], Extract]:
    extract = read_extract(path)
    out = {}
    for number_, line in enumerate(extract.lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        name, mbps = line.split(",")
        out[name] = number(mbps, f"{path.name}:{number_}")
    return out, extract


def read_prices(path: Path = PRICES) -> dict[str, dict[str, float]]:
    """``{region: {type: USD per hour}}`` from the saved price extract."""
    out: dict[str, dict[str, float]] = {}
    for number_, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        region, name, price = line.split(",")
        out.setdefault(region, {})[name] = number(price, f"{path.name}:{number_}")
    return out


def family(name: str) -> str:
    return name.split(".")[0]


def check_prices(prices: dict[str, dict[str, float]], basis: dict[str, float | None]) -> list[str]:
    """The price invariants of EC2 types, one message per breach: a price is positive; for a
    type with a ``basis`` (vCPUs; memory for burstable families; None for accelerated types),
    within a family a larger basis does not cost less and each price per unit of basis is
    within :data:`PRICE_SPREAD` of the family's median."""
    problems = []
    for region, table in sorted(prices.items()):
        by_family: dict[str, list[tuple[float, float, str]]] = {}
        for name, price in table.items():
            if name not in basis:
                continue
            if price <= 0:
                problems.append(f"{region} {name}: price {price} is not positive")
                continue
            if basis[name] is not None:
                by_family.setdefault(family(name), []).append((basis[name], price, name))
        for fam, rows in sorted(by_family.items()):
            median = statistics.median(p / v for v, p, _ in rows)
            for v, p, name in rows:
                if not median / PRICE_SPREAD <= p / v <= median * PRICE_SPREAD:
                    problems.append(f"{region} {name}: {p / v:.4f} $/hour per unit is off its family's median "
                                    f"{median:.4f} by more than {PRICE_SPREAD}x")
            ordered = sorted(rows)
            for (v1, p1, n1), (v2, p2, n2) in zip(ordered, ordered[1:]):
                if v2 > v1 and p2 < p1 * 0.999:
                    problems.append(f"{region} {n2}: {v2:g} units at {p2} $/h cost less than {n1} ({v1:g}, {p1} $/h)")
    return problems


def _num(x: float) -> str:
    return f"{int(x)}" if float(x).is_integer() else f"{x:g}"


def build(folder: Path = SOURCES, prices_file: Path = PRICES) -> tuple[list[tuple[str, dict[str, Any]]], list[Extract]]:
    ebs_page = read_extract(folder / "ebs-optimized.md")
    limits = ebs_limits(ebs_page)
    pages = [read_extract(folder / name) for name in SPEC_PAGES]
    hw, store = specs(pages)
    net, net_extract = network(folder / "karpenter-bandwidth.csv")
    problems = [f"{name}: no vCPUs and memory in the instance pages" for name in limits if name not in hw]
    problems += check_prices(read_prices(prices_file), {name: price_basis(name, *hw[name]) for name in limits
                                                            if name in hw})
    if problems:
        raise SourceError("the sources break the invariants:\n  " + "\n  ".join(problems))
    rows = []
    for name, lim in limits.items():
        vcpus, memory, spec_page = hw[name]
        row: dict[str, Any] = {
            "cloud": "aws", "vcpus": vcpus, "memory": f"{_num(memory)}GiB", "max_data_disks": MAX_EBS_VOLUMES,
            "premium_storage": True,
            "uncached_iops": _num(lim["base_iops"]), "uncached_bandwidth": f"{_num(lim['base_mbs'])}MB/s",
        }
        if lim["burst"]:
            row |= {"burst_iops": _num(lim["max_iops"]), "burst_bandwidth": f"{_num(lim['max_mbs'])}MB/s",
                    "burst_kind": "credit"}
        assumptions = ["max_data_disks"]
        cited = [ebs_page, spec_page]
        if name in store:
            iops, store_page = store[name]
            row |= {"temp_iops": iops, "temp_bandwidth": f"{_num(iops * 4096 / 1e6)}MB/s"}
            assumptions.append("temp_bandwidth")
            cited.append(store_page) if store_page is not spec_page else None
        if name in net:
            row["network_bandwidth"] = f"{_num(net[name])}Mbit/s"
            cited.append(net_extract)
        row["source"] = "; ".join(dict.fromkeys(e.citation() for e in cited))
        row["assumptions"] = assumptions
        rows.append((name, row))
    return rows, [ebs_page, *pages, net_extract]


def natural(name: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    text = str(value)
    return f'"{text}"' if any(c in text for c in ":#;,()") else text


def render(rows: list[tuple[str, dict[str, Any]]], extracts: list[Extract]) -> str:
    head = [
        "# EC2 instance types and their EBS limits.",
        "#",
        "# GENERATED by tools/catalog/aws.py (python -m tools.catalog.aws) from the extracts saved in",
        "# tools/catalog/sources/aws/. Edit those and rerun; do not edit this file.",
        "#",
        "# uncached_*: the EBS-optimized baseline (IOPS at 16 KiB IO; MB/s at 128 KiB IO);",
        "# burst_*: the EBS-optimized maximum, held for 30 minutes at least once every 24 hours",
        "# (burst_kind credit) on the sizes the page marks; sizes without a burst sustain the maximum.",
        "# temp_*: the NVMe instance store (4 KiB random read IOPS; MB/s assumed IOPS x 4 KiB).",
        "# network_bandwidth: Mbit/s. max_data_disks: 27 (28 Nitro attachments, one network interface).",
        "# Linux on-demand prices: the price table (prices/prices.csv), per region.",
        "#",
        "# Sources:",
    ]
    head += [f"#   {e.citation()}" for e in extracts]
    out = head + ["vms:"]
    for name, row in sorted(rows, key=lambda r: (natural(family(r[0])), r[1]["vcpus"], natural(r[0]))):
        row = dict(row)
        out.append(f"  {name}: {{" + ", ".join(f"{k}: {scalar(v)}" for k, v in row.items()) + "}")
    return "\n".join(out) + "\n"


def generate(folder: Path = SOURCES, prices_file: Path = PRICES) -> str:
    rows, extracts = build(folder, prices_file)
    return render(rows, extracts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if aws-ec2.yaml differs from what the sources give")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write (default: the bundled aws-ec2.yaml)")
    args = parser.parse_args(argv)
    try:
        text = generate()
    except (OSError, SourceError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return write_or_check({args.output: text}, args.check, "python -m tools.catalog.aws")


if __name__ == "__main__":
    sys.exit(main())
