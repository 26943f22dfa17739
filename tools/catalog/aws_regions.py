"""AWS prices outside us-east-1: the invariants that hold them before the price table is written.

``tools/catalog/prices.py`` reads the regional extracts into the table (EC2 Linux on-demand
prices from ``skypilot-aws-regions.txt``; EBS unit prices from ``infracost-aws-units.txt`` and
``ligoj-aws-ebs-list.txt``) and calls :func:`check` on it; a breach stops the build (exit 2).
The same checks run in a test over the bundled table. The invariants, for every region other than us-east-1:

- **EC2, within a family** (:func:`check_ec2`): each type has a us-east-1 price; a larger size
  does not cost less and each price per vCPU stays within the family spread of
  :func:`tools.catalog.aws.check_prices`; and a region's price of each type divided by the
  type's us-east-1 price stays within :data:`RATIO_SPREAD` of the family's median ratio in that
  region (a region prices a family at one uplift over us-east-1 in every source read: m6a, m6i
  and m5 at 1.1146 in eu-west-1 and 1.2917 in ap-northeast-1, r6i at 1.1190 and 1.2063; a row
  from another region, OS or family breaks it).
- **EBS** (:func:`check_ebs`): a price is positive and not below the same field's us-east-1
  price (an assumption: us-east-1 is the cheapest region in every source read, the pages
  publish no rule); per GiB sc1 < st1 < gp3 < gp2 < io1 where a region prices them, as in
  us-east-1 (:data:`PER_GIB_ORDER`); and where the second source (``ligoj-aws-ebs.txt``) gives
  a figure, the two agree within :data:`AGREEMENT`.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from pathlib import Path

import yaml

from tools.catalog.aws import check_prices, family

ROOT = Path(__file__).resolve().parents[2]
EC2_YAML = ROOT / "python" / "iolab" / "catalog" / "data" / "aws-ec2.yaml"
HOME = "us-east-1"
RATIO_SPREAD = 0.01
"""How far (a fraction) a type's regional uplift over us-east-1 may stray from its family's."""
AGREEMENT = 0.005
"""Two sources agree when their figures differ by at most this fraction of the larger one."""
SECOND_EBS = "ligoj-aws-ebs.txt"
LIST_EBS = "ligoj-aws-ebs-list.txt"
"""EBS unit prices outside us-east-1 that infracost's outputs do not give (gp3, st1, sc1 in eu-west-1)."""
PER_GIB_ORDER = (("scaled", "sc1"), ("scaled", "st1"), ("provisioned", "gp3"), ("scaled", "gp2"),
                 ("provisioned", "io1"))
"""EBS types cheapest per GiB first, as in us-east-1 (and as the pages rank them: sc1 the lowest
cost HDD, st1 low cost, gp3 the lowest cost SSD, io1 for sustained IOPS)."""

Table = Mapping[tuple[str, str, str], Mapping[str, float]]
"""Price rows as ``{(section, id, field): {region: price}}``."""


def vcpus(path: Path = EC2_YAML) -> dict[str, int]:
    """Each bundled EC2 type's vCPUs (the catalog generated from AWS's instance pages)."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    rows = rows.get("vms", rows) if isinstance(rows, dict) else {}
    return {name: int(row["vcpus"]) for name, row in rows.items() if isinstance(row, dict) and "vcpus" in row}


def check_ec2(table: Table, cpus: Mapping[str, int]) -> list[str]:
    """The EC2 invariants of every region but us-east-1, one message per breach."""
    regional: dict[str, dict[str, float]] = {}
    home: dict[str, float] = {}
    for (section, ident, fld), values in table.items():
        if section != "vms" or fld != "price_per_hour" or "." not in ident:
            continue
        for region, price in values.items():
            if region == HOME:
                home[ident] = price
            else:
                regional.setdefault(region, {})[ident] = price
    problems = [f"{region} {name}: no {HOME} price to compare with" for region, rows in sorted(regional.items())
                for name in sorted(rows) if name not in home]
    problems += check_prices(regional, {name: cpus.get(name) for rows in regional.values() for name in rows})
    for region, rows in sorted(regional.items()):
        by_family: dict[str, list[tuple[str, float]]] = {}
        for name, price in rows.items():
            if name in home:
                by_family.setdefault(family(name), []).append((name, price / home[name]))
        for fam, ratios in sorted(by_family.items()):
            median = statistics.median(r for _, r in ratios)
            problems += [f"{region} {name}: {r:.4f} times its {HOME} price, the {fam} family's median is "
                         f"{median:.4f} (more than {RATIO_SPREAD:.0%} apart)"
                         for name, r in sorted(ratios) if abs(r / median - 1) > RATIO_SPREAD]
    return problems


def read_cells(path: Path) -> dict[tuple[str, str, str, str], float]:
    """A ``REGION SECTION ID FIELD PRICE`` extract, ``{(region, section, id, field): price}``."""
    out: dict[tuple[str, str, str, str], float] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 5:
            raise ValueError(f"{path.name}:{number}: expected REGION SECTION ID FIELD PRICE")
        out[tuple(parts[:4])] = float(parts[4])  # type: ignore[index]
    return out


def check_ebs(table: Table, second: Mapping[tuple[str, str, str, str], float]) -> list[str]:
    """The EBS invariants of every region but us-east-1, one message per breach."""
    problems = []
    ebs = {key: values for key, values in table.items()
           if key[0] in ("provisioned", "scaled") and HOME in values}
    for (section, ident, fld), values in sorted(ebs.items()):
        for region, price in sorted(values.items()):
            if region == HOME:
                continue
            if price <= 0:
                problems.append(f"{region} {ident} {fld}: price {price} is not positive")
            elif price < values[HOME]:
                problems.append(f"{region} {ident} {fld}: {price} is below the {HOME} price {values[HOME]}")
    per_gib = [(ident, table.get((section, ident, "price_per_gib_month"), {})) for section, ident in PER_GIB_ORDER]
    for region in sorted({r for _, values in per_gib for r in values}):
        present = [(ident, values[region]) for ident, values in per_gib if region in values]
        problems += [f"{region} {b}: {pb} a GiB-month is not above {a}'s {pa}"
                     for (a, pa), (b, pb) in zip(present, present[1:]) if pb <= pa]
    for (region, section, ident, fld), other in sorted(second.items()):
        mine = table.get((section, ident, fld), {}).get(region)
        if mine is None:
            problems.append(f"{region} {ident} {fld}: the second source gives {other}, the primary nothing")
        elif abs(mine - other) > AGREEMENT * max(mine, other):
            problems.append(f"{region} {ident} {fld}: {mine} and the second source's {other} differ by more "
                            f"than {AGREEMENT:.1%}")
    return problems


def check(table: Table, folder: Path, cpus: Mapping[str, int] | None = None) -> list[str]:
    """Every invariant of the AWS prices outside us-east-1 over ``table``; ``folder`` holds the
    second source of EBS prices (its checks are skipped when the folder has no copy of it)."""
    second = read_cells(folder / SECOND_EBS) if (folder / SECOND_EBS).exists() else {}
    return check_ec2(table, vcpus() if cpus is None else cpus) + check_ebs(table, second)
