"""Share levels priced per region, and the planner ranking them with the disks.

Expected figures are worked out by hand from the unit prices in the saved source extracts
(tools/catalog/sources/prices/): ocvs-shares.txt (USD per GiB-hour, times 730 hours) and
karpenter-vms.csv (USD per hour, times 730)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES

from iolab.catalog import bundled_catalog

HOURS = 730
GIB_HOUR = {  # ocvs-shares.txt
    ("eastus", "anf-standard"): 0.000202, ("eastus", "anf-premium"): 0.000403, ("eastus", "anf-ultra"): 0.000538,
    ("japanwest", "anf-ultra"): 0.000834, ("us-central1", "gcnv-standard"): 0.000273973,
    ("us-central1", "gcnv-premium"): 0.000403014, ("europe-west6", "gcnv-extreme"): 0.000672466,
}


def _requirements(folder, job: str, require: str, search: str):
    """A share-only requirements file over NFSv3, with a generic client (no VM, no price)."""
    path = folder / "req.yaml"
    path.write_text(f"version: 1\njobs: [{job}]\nrequire: {require}\n"
                    f"search: {{kind: share, protocols: [nfs3], {search}}}\n")
    return path


@pytest.mark.parametrize("region, level", sorted(GIB_HOUR))
def test_share_level_price_is_the_regions_hourly_price_times_730(region, level):
    row = bundled_catalog().in_region(region)
    assert row.service(*level.split("-", 1)).price_per_gib_month == pytest.approx(GIB_HOUR[region, level] * HOURS,
                                                                                  rel=1e-9)
    assert row.price_status[("services", level, "price_per_gib_month")] == "priced"


def test_a_second_source_agrees_on_west_europe():
    # plancost/terraform-provider-plancost's golden output (commit 7c0d4a0, 2026-01-19), West
    # Europe: 4 TiB pools (4,096 GiB) cost $604.00 Standard, $1,205.00 Premium, $1,608.66 Ultra.
    west = bundled_catalog().in_region("westeurope")
    for level, cost in (("standard", 604.00), ("premium", 1205.00), ("ultra", 1608.66)):
        assert west.service("anf", level).price_per_gib_month * 4096 == pytest.approx(cost, abs=0.01)


def test_no_share_price_is_borrowed_from_another_region_or_cloud():
    cat = bundled_catalog()
    east, iowa = cat.in_region("eastus"), cat.in_region("us-central1")
    # NetApp Volumes runs in Google Cloud regions: none of its levels has an Azure region's price
    assert east.service("gcnv", "premium").price_per_gib_month is None
    assert east.price_status[("services", "gcnv-premium", "price_per_gib_month")] == "missing"
    # ... and a Google Cloud region has no Azure price: ANF levels and VM sizes are missing there
    assert iowa.service("anf", "ultra").price_per_gib_month is None
    assert iowa.vm("Standard_D4s_v5").price_per_month is None
    # australiacentral (no ANF price in the source) stays missing, not eastus's figure
    assert cat.in_region("australiacentral").service("anf", "premium").price_per_gib_month is None
    # ANF Flexible is priced in westeurope only: elsewhere both of its prices are missing
    for fld in ("price_per_gib_month", "price_per_mibps_month"):
        assert east.price_status[("services", "anf-flexible", fld)] == "missing"
    # levels with no source anywhere: NetApp Volumes Flex (default and custom)
    for level in ("gcnv-flex", "gcnv-flex-custom"):
        assert east.price_status[("services", level, "price_per_gib_month")] == "unpublished", level
    # only a level whose throughput is provisioned apart has a throughput price
    assert ("services", "anf-ultra", "price_per_mibps_month") not in east.price_status


def test_catalog_show_names_the_share_price_and_its_source(iolab):
    doc = iolab("catalog show anf-ultra --json --region japanwest").json()
    assert doc["price_per_gib_month"] == pytest.approx(0.000834 * HOURS)
    assert doc["price_status"] == {"price_per_gib_month": "priced"}
    out = iolab("catalog show gcnv-extreme --region europe-west6").out
    assert "lvaibhavt/ocvs-sizing-tool data/prices.js (2026-09-29), a secondary source, europe-west6" in out
    listed = iolab("catalog list services --region us-central1").out
    assert any(line.startswith("gcnv-standard ") and "0.2" in line for line in listed.splitlines())


def test_kind_any_in_eastus_ranks_an_anf_share_with_the_disks(iolab):
    # examples/any-requirements.yaml: 16,000 IOPS of 8 KiB, 70 % reads, 5 ms, 2 TiB.
    doc = iolab(f"plan {EXAMPLES / 'any-requirements.yaml'} --json --top 10").json()
    assert doc["region"] == "eastus"
    disks, first = doc["candidates"][0], next(c for c in doc["candidates"] if c["kind"] == "share")
    # the disk answer: Standard_D16pls_v5 ($0.544/h) + 3 x P30 created with performance plus
    # (8,000 IOPS each, no extra charge): 0.544 x 730 + 3 x 135.17 = 397.12 + 405.51
    assert disks["kind"] == "disks" and disks["monthly_cost"] == pytest.approx(802.63, abs=0.01)
    assert disks["config"]["disks"] == [{"sku": "P30", "count": 3, "caching": "none", "performance_plus": True}]
    # ANF Ultra, a 2 TiB pool (2,048 GiB) at $0.000538 per GiB-hour, from a Standard_D2pls_v5
    # client at $0.068 per hour: 2,048 x 0.000538 x 730 + 0.068 x 730 = 804.33 + 49.64.
    assert first["rank"] == 2 and first["priced"] is True
    assert (first["config"]["service"], first["config"]["level"]) == ("anf", "ultra")
    assert first["config"]["pool"] == 2048 * 2**30 and first["config"]["vm"] == "Standard_D2pls_v5"
    assert first["bill"]["shares"] == pytest.approx(2048 * 0.000538 * HOURS, abs=0.005)
    assert first["bill"]["vm"] == pytest.approx(0.068 * HOURS, abs=0.005)
    assert first["monthly_cost"] == pytest.approx(2048 * 0.000538 * HOURS + 0.068 * HOURS, abs=0.01)
    # ANF Premium needs 2.441 TiB for its throughput; its pool is billed in whole TiB: 3 TiB
    premium = next(c for c in doc["candidates"] if c["config"].get("level") == "premium")
    assert premium["config"]["pool"] == 3 * 2**40
    assert premium["bill"]["shares"] == pytest.approx(3072 * 0.000403 * HOURS, abs=0.005)
    assert premium["rank"] > first["rank"]


def test_netapp_volumes_are_priced_in_a_google_cloud_region(iolab, tmp_path):
    req = _requirements(tmp_path, "{rw: randread, bs: 64k, iodepth: 16, numjobs: 4, ioengine: libaio}",
                        "{iops: 2000, latency: 10ms, capacity: 3TiB}", "services: [gcnv], nconnect: [4]")
    doc = iolab(f"plan {req} --json --region us-central1").json()
    first = doc["candidates"][0]
    # Premium, 3 TiB pool (3,072 GiB) at $0.000403014 per GiB-hour: 3,072 x 0.000403014 x 730
    assert (first["config"]["level"], first["config"]["pool"]) == ("premium", 3 * 2**40)
    assert first["monthly_cost"] == pytest.approx(3072 * 0.000403014 * HOURS, abs=0.01)
    # Flex has no price in any source: listed, but unpriced and after the priced levels
    flex = next(c for c in doc["candidates"] if c["config"]["level"] == "flex")
    assert flex["priced"] is False and flex["rank"] > max(c["rank"] for c in doc["candidates"] if c["priced"])


def test_anf_flexible_bills_throughput_above_the_free_128_mibps(iolab, tmp_path):
    # plancost-units.txt (West Europe): a 4,096 GiB Flexible pool costs $645.86 a month, and
    # 72 MiB/s above the free 128 MiB/s cost $231.63: $645.86 / 4,096 per GiB, $231.63 / 72 per MiB/s.
    per_gib, per_mibps = 645.86 / 4096, 231.63 / 72
    flex = bundled_catalog().in_region("westeurope").service("anf", "flexible")
    assert flex.price_per_gib_month == pytest.approx(per_gib) and flex.price_per_mibps_month == pytest.approx(per_mibps)
    req = _requirements(tmp_path, "{rw: read, bs: 1m, iodepth: 8, numjobs: 4, ioengine: libaio}",
                        "{bandwidth: 300MiB/s, latency: 50ms, capacity: 500GiB}",
                        "services: [anf], levels: [flexible], nconnect: [8]")
    doc = iolab(f"plan {req} --json --region westeurope").json()
    first = doc["candidates"][0]
    assert first["priced"] is True and first["config"]["qos"] == "manual"
    # the smallest pool, 1 TiB (1,024 GiB), and the throughput solved for the load: all of it
    # above 128 MiB/s is billed
    mibps = first["config"]["throughput"] / 2**20
    assert first["config"]["pool"] == 2**40 and mibps > 300
    assert first["bill"]["shares"] == pytest.approx(1024 * per_gib, abs=0.005)
    assert first["bill"]["provisioned"] == pytest.approx((mibps - 128) * per_mibps, abs=0.005)
    # in eastus the throughput price is missing: the same share is listed, unpriced
    east = iolab(f"plan {req} --json").json()["candidates"][0]
    assert east["priced"] is False and east["monthly_cost"] is None


def test_a_flexible_pool_is_billed_for_its_throughput_and_pools_in_whole_tib(iolab):
    # examples/pool-requirements.yaml: 4 TiB + 512 GiB + 1 TiB, 900 + 250 + 64 = 1,214 MiB/s.
    doc = iolab(f"plan {EXAMPLES / 'pool-requirements.yaml'} --json --region westeurope").json()
    by_level = {c["config"]["level"]: c for c in doc["candidates"]}
    # Ultra: 128 MiB/s per TiB needs 9.48 TiB; pools grow in whole TiB, so 10 TiB (10,240 GiB)
    ultra = by_level["ultra"]
    assert ultra["config"]["pool"] == 10 * 2**40
    assert ultra["monthly_cost"] == pytest.approx(10240 * 0.000538 * HOURS, abs=0.01)
    # Flexible: 6 TiB for the capacity, 1,214 MiB/s provisioned, 1,086 of them above the free 128
    flex = by_level["flexible"]
    assert flex["config"]["pool"] == 6 * 2**40
    assert flex["monthly_cost"] == pytest.approx(6144 * 645.86 / 4096 + (1214 - 128) * 231.63 / 72, abs=0.01)
    assert flex["priced"] is True and flex["rank"] == ultra["rank"] + 1
    # in eastus Flexible has no throughput price: unpriced, ranked last
    east = iolab(f"plan {EXAMPLES / 'pool-requirements.yaml'} --json").json()["candidates"]
    assert [c["config"]["level"] for c in east][-1] == "flexible" and east[-1]["priced"] is False
