"""The EC2 catalog generator (tools/catalog/aws.py): its invariants and the file it writes."""

from __future__ import annotations

import csv
import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from tools.catalog import aws as gen  # noqa: E402


def test_bundled_file_is_what_the_sources_give():
    assert gen.generate() == gen.OUTPUT.read_text(encoding="utf-8")


def test_every_type_of_the_ebs_page_is_a_row():
    rows, _ = gen.build()
    limits = gen.ebs_limits(gen.read_extract(gen.SOURCES / "ebs-optimized.md"))
    assert {name for name, _ in rows} == set(limits) and len(rows) >= 600
    bursting = {name for name, row in rows if "burst_iops" in row}
    assert {"m6i.large", "m6i.xlarge", "m6i.4xlarge"} <= bursting and "m6i.8xlarge" not in bursting


def test_a_price_off_its_family_is_refused():
    prices = {"us-east-1": {"m6i.large": 0.096, "m6i.xlarge": 0.192, "m6i.2xlarge": 0.96}}
    problems = gen.check_prices(prices, {"m6i.large": 2, "m6i.xlarge": 4, "m6i.2xlarge": 8})
    assert any("m6i.2xlarge" in p and "median" in p for p in problems)


def test_a_larger_type_that_costs_less_is_refused():
    prices = {"us-east-1": {"m6i.large": 0.096, "m6i.xlarge": 0.09}}
    problems = gen.check_prices(prices, {"m6i.large": 2, "m6i.xlarge": 4})
    assert any("m6i.xlarge" in p and "cost less" in p for p in problems)


def test_accelerated_types_need_only_a_positive_price():
    assert gen.check_prices({"us-east-1": {"g5.xlarge": 1.006, "g5.2xlarge": 1.212}},
                            {"g5.xlarge": None, "g5.2xlarge": None}) == []
    assert gen.check_prices({"us-east-1": {"g5.xlarge": 0.0}}, {"g5.xlarge": None})


def test_the_bundled_prices_keep_the_invariants():
    rows, _ = gen.build()  # build() itself stops on a breach
    assert rows


@pytest.mark.parametrize("old, new, words", [
    ("| m6i\\.xlarge \\* | 1250 | 10000 | 156\\.25 |", "| m6i\\.xlarge \\* | 1250 | 10000 | 256\\.25 |",
     "is not 1250.0 Mbit/s / 8"),
    ("| m6i\\.xlarge \\* | 1250 | 10000 |", "| m6i\\.xlarge | 1250 | 10000 |", "marked without *"),
])
def test_a_broken_ebs_table_stops_the_build(tmp_path, old, new, words):
    folder = tmp_path / "aws"
    shutil.copytree(gen.SOURCES, folder)
    page = folder / "ebs-optimized.md"
    text = page.read_text(encoding="utf-8")
    assert old in text
    page.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(gen.SourceError, match="m6i.xlarge") as e:
        gen.build(folder)
    assert words in str(e.value)


# The second source of EC2 prices (SkyPilot's catalog, tools/catalog/sources/prices/skypilot-aws-vms.txt)
# checks karpenter's us-east-1 figures in tools/catalog/prices.py, as zombiescan checks Azure's.

from iolab.catalog.prices import corrections, price_table  # noqa: E402
from tools.catalog import prices as price_build  # noqa: E402

PRICE_SOURCES = ROOT / "tools" / "catalog" / "sources" / "prices"


def planted_prices(tmp_path, copied: tuple[str, ...], planted: dict[str, str]):
    """A folder of price extracts: the small ones every build reads and ``copied`` taken from
    the bundled sources, each of ``planted`` written under a planted header."""
    folder = tmp_path / "sources"
    folder.mkdir()
    for name in ("infracost-units.txt", "plancost-units.txt", "ocvs-shares.txt", "infracost-aws-units.txt",
                 *copied):
        shutil.copy(PRICE_SOURCES / name, folder / name)
    for name, lines in planted.items():
        (folder / name).write_text("# repository: test/planted\n# commit: 0\n# date: 2026-01-01\n" + lines)
    return folder


def test_the_two_sources_agree_on_every_type_both_give_but_m5zn_metal():
    """Every figure of the second source is the table's within 0.5 %; where karpenter's
    m5zn.metal ($4.3605, 10 % above its 48-vCPU sibling m5zn.12xlarge at $3.9641) disagrees,
    the lower figure, SkyPilot's $3.9641, is the table's, and the correction says why."""
    second, _ = price_build.read_second_vms(PRICE_SOURCES)
    table = price_table()
    assert len(second["us-east-1"]) >= 40
    for name, figure in second["us-east-1"].items():
        price, status = table.lookup("vms", name, "price_per_hour", "us-east-1")
        assert status == "priced" and price.value == pytest.approx(figure, rel=0.005), name
    price, _ = table.lookup("vms", "m5zn.metal", "price_per_hour", "us-east-1")
    assert (price.value, price.source, price.date) == (3.9641, "skypilot-aws", "2026-11-27")
    fix = corrections()[("vms", "m5zn.metal", "price_per_hour", "us-east-1")]
    assert (fix["was"], fix["now"], fix["rule"]) == ("4.3605", "3.9641", "sources-disagree")


def test_a_raised_ec2_price_is_corrected_from_the_second_source(tmp_path):
    # m6a.4xlarge planted at 0.8752 $/h (0.6912 + 16 x $0.0115, a Windows-like uplift): SkyPilot
    # gives 0.6912, lower and 2.7 % apart, so the build keeps 0.6912 and records the change;
    # m6a.8xlarge, on which the two agree, keeps karpenter's figure and source.
    folder = planted_prices(tmp_path, ("zombiescan-disks.txt", "karpenter-vms.csv"), {
        "karpenter-aws-vms.csv": "us-east-1,m6a.4xlarge,0.8752\nus-east-1,m6a.8xlarge,1.3824\n",
        "skypilot-aws-vms.txt": "us-east-1 m6a.4xlarge 0.6912\nus-east-1 m6a.8xlarge 1.3824\n"})
    out = tmp_path / "out"
    price_build.build(folder, out)
    rows = {(r[1], r[2]): r for r in csv.reader((out / "prices.csv").read_text().splitlines())}
    header = next(csv.reader((out / "prices.csv").read_text().splitlines()))
    column = header.index("us-east-1")
    assert rows[("m6a.4xlarge", "price_per_hour")][column] == "0.6912"
    assert rows[("m6a.4xlarge", "price_per_hour")][6] == "karpenter-aws|us-east-1=skypilot-aws"
    assert rows[("m6a.8xlarge", "price_per_hour")][6] == "karpenter-aws"
    fixes = [r for r in csv.DictReader((out / "corrections.csv").read_text().splitlines()) if r["region"] == "us-east-1"]
    assert [(f["id"], f["was"], f["now"], f["rule"]) for f in fixes] == [("m6a.4xlarge", "0.8752", "0.6912",
                                                                         "sources-disagree")]
