"""The EC2 catalog generator (tools/catalog/aws.py): its invariants and the file it writes."""

from __future__ import annotations

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
