"""`iolab catalog import-prices` on hand-written pages of the Azure Retail Prices API
(tests/data/catalog/retail/), and the price table's generator on small source excerpts."""

from __future__ import annotations

import importlib.util
import shutil

import pytest
import yaml

from conftest import DATA, ROOT

RETAIL = DATA / "catalog" / "retail"
PAGES = f"{RETAIL / 'westeurope-1.json'} {RETAIL / 'westeurope-2.json'}"


def test_good_pages_give_the_expected_rows(iolab, tmp_path):
    out = tmp_path / "prices.yaml"
    r = iolab(f"catalog import-prices {PAGES} -o {out}")
    assert r.code == 0, r.err
    data = yaml.safe_load(out.read_text())
    assert data["version"] == 1
    # Linux pay-as-you-go only; Standard_D2s_v9 is not in the catalog
    assert data["vms"] == {"Standard_D4s_v5": {"price_per_hour": 0.23}, "Standard_D16s_v5": {"price_per_hour": 0.92}}
    # the newer P30 LRS price (2024) wins over the older (2021); ZRS and operations are skipped
    assert data["disks"] == {"P30": {"price_per_month": 148.68}, "E10": {"price_per_month": 9.6}}
    # hourly unit prices times 730
    v2 = data["provisioned"]["premium-v2"]
    assert v2["price_per_gib_month"] == pytest.approx(0.00013 * 730)
    assert v2["price_per_iops_month"] == pytest.approx(0.0000068 * 730)
    assert v2["price_per_mbps_month"] == pytest.approx(0.000055 * 730)
    assert data["provisioned"]["ultra"] == {"price_per_gib_month": pytest.approx(0.000213 * 730)}
    assert "region westeurope, currency USD" in out.read_text()
    # Azure NetApp Files Premium: 0.000403 $/GiB-hour x 730; its double-encryption meter is skipped
    assert data["services"] == {"anf-premium": {"price_per_gib_month": pytest.approx(0.000403 * 730)}}
    # what was skipped and why (20 items: 9 prices kept, 11 skipped); the free tier of Premium SSD v2
    # IOPS (tierMinimumUnits 0, price 0) loses to the paid tier from 3,000 IOPS
    for words in ("20 items read; kept 9 prices for westeurope", "1 Windows", "1 Spot", "1 Low Priority",
                  "1 not pay-as-you-go (type Reservation)", "1 not pay-as-you-go (type DevTestConsumption)",
                  "1 not in the catalog (vms)", "2 older or lower-tier price of the same meter", "2 other disk meter",
                  "1 Azure NetApp Files meter not priced by the catalog"):
        assert words in r.err
    # the file is a catalog file that --catalog takes; its prices hold in any --region
    d4 = next(v for v in iolab(f"catalog list vms --json --catalog {out} --region eastus").json()
              if v["id"] == "Standard_D4s_v5")
    assert d4["price_per_month"] == pytest.approx(0.23 * 730) and d4["price_status"]["price_per_month"] == "own"


def test_json_summary(iolab, tmp_path):
    doc = iolab(f"catalog import-prices {PAGES} -o {tmp_path / 'p.yaml'} --json").json()
    assert doc["region"] == "westeurope" and doc["currency"] == "USD" and doc["items"] == 20
    assert doc["kept"] == {"disks": 2, "provisioned": 4, "services": 1, "vms": 2}
    assert doc["skipped"]["Windows"] == 1 and sum(doc["skipped"].values()) == 11


def test_malformed_page_exits_2_naming_the_item(iolab, tmp_path):
    out = tmp_path / "prices.yaml"
    page = RETAIL / "malformed.json"
    r = iolab(f"catalog import-prices {page} -o {out}")
    assert r.code == 2 and not out.exists()
    assert r.err.strip() == (f"error: {page}: Items[2].retailPrice: expected a price (a number 0 or above), "
                             "got '0.46'")
    bad = tmp_path / "bad.json"
    bad.write_text('{"Items": [{"armSkuName": "Standard_D4s_v5"}]}')
    r = iolab(f"catalog import-prices {bad}")
    assert r.code == 2 and r.err.strip() == f"error: {bad}: Items[0].armRegionName: missing"
    bad.write_text('{"items": []}')
    r = iolab(f"catalog import-prices {bad}")
    assert r.code == 2 and "an object with an Items list" in r.err
    bad.write_text('{"Items": [')
    r = iolab(f"catalog import-prices {bad}")
    assert r.code == 2 and r.err.startswith(f"error: {bad}: not JSON") and "Traceback" not in r.err


def test_several_regions_need_region(iolab, tmp_path):
    page = RETAIL / "two-regions.json"
    r = iolab(f"catalog import-prices {page}")
    assert r.code == 2 and "the pages hold prices for 2 regions (eastus, westeurope); choose one with --region" in r.err
    doc = iolab(f"catalog import-prices {page} --region eastus -o {tmp_path / 'p.yaml'} --json").json()
    assert doc["kept"] == {"vms": 1} and doc["skipped"] == {"another region": 1}
    assert yaml.safe_load((tmp_path / "p.yaml").read_text())["vms"]["Standard_D4s_v5"] == {"price_per_hour": 0.192}


def test_existing_output_is_left_intact_without_force(iolab, tmp_path):
    out = tmp_path / "prices.yaml"
    out.write_bytes(b"# mine\nvms: {}\n")
    r = iolab(f"catalog import-prices {PAGES} -o {out}")
    assert r.code == 2 and r.err.strip() == f"error: {out}: exists; give --force to overwrite it"
    assert out.read_bytes() == b"# mine\nvms: {}\n"
    assert iolab(f"catalog import-prices {PAGES} -o {out} --force").code == 0
    assert "Standard_D4s_v5" in out.read_text()


# --------------------------------------------------------------------------- the generator


def _generator():
    spec = importlib.util.spec_from_file_location("price_generator", ROOT / "tools" / "catalog" / "prices.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_generator_on_fixture_excerpts(tmp_path):
    gen = _generator()
    first, second = tmp_path / "a", tmp_path / "b"
    gen.build(DATA / "catalog" / "price-sources", first)
    gen.build(DATA / "catalog" / "price-sources", second)
    for name in ("prices.csv", "sources.yaml"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    lines = (first / "prices.csv").read_text().splitlines()
    # a Google Cloud region (us-central1, NetApp Volumes only) is a column like the others
    assert lines[0] == "section,id,field,unit,currency,date,source,eastus,us-central1,us-east-1,westeurope,westus"
    # eastus has no P30 in the excerpt: an empty cell, not westeurope's price
    assert "disks,P30,price_per_month,USD/month,USD,2026-09-23,zombiescan,,,,148.68," in lines
    assert "vms,Standard_D4s_v5,price_per_hour,USD/hour,USD,2026-06-18,karpenter,0.192,,,0.23," in lines
    assert "provisioned,ultra,price_per_iops_month,USD/IOPS-month,USD,2024-07-01,infracost,0.04964,,,," in lines
    assert "services,azure-files-premium,price_per_gib_month,USD/GiB-month,USD,2024-07-01,infracost,,,,,0.176" in lines
    # share levels: USD per GiB-hour x 730 hours (0.000403 x 730 = 0.29419; 0.000538 x 730 = 0.39274;
    # 0.000273973 x 730 = 0.20000029)
    assert "services,anf-premium,price_per_gib_month,USD/GiB-month,USD,2026-09-29,ocvs,0.29419,,,," in lines
    assert "services,anf-ultra,price_per_gib_month,USD/GiB-month,USD,2026-09-29,ocvs,,,,0.39274," in lines
    assert "services,gcnv-standard,price_per_gib_month,USD/GiB-month,USD,2026-09-29,ocvs,,0.20000029,,," in lines
    # plancost's golden output: 72 MiB/s of ANF Flexible throughput cost $231.63 a month
    assert "services,anf-flexible,price_per_mibps_month,USD/MiBps-month,USD,2026-01-19,plancost,,,,3.217083333," in lines
    # EC2 and EBS in us-east-1: 0.096 $/h; 1,000 gp3 IOPS above the free 3,000 cost $5.00 a month
    assert "vms,m6i.large,price_per_hour,USD/hour,USD,2026-07-20,karpenter-aws,,,0.096,," in lines
    assert "provisioned,gp3,price_per_iops_month,USD/IOPS-month,USD,2026-11-27,infracost-aws,,,0.005,," in lines
    meta = yaml.safe_load((first / "sources.yaml").read_text())["sources"]
    assert meta["zombiescan"]["secondary"] is True and meta["karpenter"]["secondary"] is False
    assert meta["karpenter"]["commit"] == "2b431da153a6a92b705c18046512c60b1631b682"
    assert meta["ocvs"]["secondary"] is True and meta["ocvs"]["repository"] == "lvaibhavt/ocvs-sizing-tool"


@pytest.mark.parametrize("extract, line, message", [
    ("karpenter-vms.csv", "eastus,Standard_D8s_v5,cheap", r"karpenter-vms.csv:\d+: 'cheap' is not a number"),
    # ANF Flexible bills throughput apart from capacity: a capacity price alone would
    # under-price it, so the generator accepts only the levels priced by capacity alone.
    ("ocvs-shares.txt", "eastus anf-flexible 0.000151", r"ocvs-shares.txt:\d+: unknown share level 'anf-flexible'"),
])
def test_generator_rejects_a_malformed_extract(tmp_path, extract, line, message):
    gen = _generator()
    shutil.copytree(DATA / "catalog" / "price-sources", tmp_path / "src")
    with open(tmp_path / "src" / extract, "a") as f:
        f.write(line + "\n")
    with pytest.raises(gen.SourceError, match=message):
        gen.build(tmp_path / "src", tmp_path / "out")


def test_generator_reproduces_the_bundled_table_byte_for_byte(tmp_path):
    gen = _generator()
    gen.build(gen.SOURCES, tmp_path)
    bundled = ROOT / "python" / "iolab" / "catalog" / "data" / "prices"
    for name in ("prices.csv", "sources.yaml"):
        assert (tmp_path / name).read_bytes() == (bundled / name).read_bytes(), name


def test_anf_flexible_meters_give_capacity_and_throughput_prices(iolab, tmp_path):
    # A hand-written page in the API's shape, West Europe, with the unit prices that plancost's
    # golden output implies ($645.86 / 4,096 GiB / 730 h = $0.000216; $231.63 / 72 MiB/s /
    # 730 h = $0.004407); the throughput meter's free tier (price 0 below 128 MiB/s) loses to
    # the paid tier from 128 MiB/s.
    out = tmp_path / "flex.yaml"
    r = iolab(f"catalog import-prices {RETAIL / 'anf-flexible.json'} -o {out}")
    assert r.code == 0, r.err
    services = yaml.safe_load(out.read_text())["services"]
    assert services == {"anf-flexible": {"price_per_gib_month": pytest.approx(0.000216 * 730),
                                         "price_per_mibps_month": pytest.approx(0.004407 * 730)},
                        "anf-ultra": {"price_per_gib_month": pytest.approx(0.000538 * 730)}}
    # with the file, Flexible is priced in a region whose table lacks its throughput price
    doc = iolab(f"catalog show anf-flexible --json --catalog {out} --region eastus").json()
    assert doc["price_status"] == {"price_per_gib_month": "own", "price_per_mibps_month": "own"}
