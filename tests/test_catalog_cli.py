"""`iolab catalog list` and `iolab catalog show`: tables for people, JSON in base units."""

from __future__ import annotations

import re
import json

import pytest

from conftest import DATA

from iolab.catalog import bundled_catalog

PRICES = DATA / "catalog" / "private-prices.yaml"


def test_list_vms_json(iolab):
    r = iolab("catalog list vms --json")
    assert r.code == 0, r.err
    rows = r.json()
    assert len(rows) == len(bundled_catalog().vms) >= 400
    # every cloud's rows: Azure VM sizes, Compute Engine machine types, EC2 instance types
    assert all(row["kind"] == "vm" and row["id"].startswith("Standard_") == (row["cloud"] == "azure")
               and ("." in row["id"]) == (row["cloud"] == "aws") for row in rows)
    assert {row["cloud"] for row in rows} == {"azure", "gcp", "aws"}
    ds13 = next(row for row in rows if row["id"] == "Standard_DS13")
    assert list(ds13)[:2] == ["id", "kind"]
    assert ds13["uncached_iops"] == 25600
    assert ds13["uncached_bandwidth"] == 256e6          # base units: bytes/s
    assert ds13["cache_size"] == 288 * 2**30            # bytes
    assert ds13["network_bandwidth"] == 500e6           # 4,000 Mbit/s
    assert ds13["source"].endswith("(2020-11-01)")


def test_list_disks_json_includes_provisioned(iolab):
    rows = iolab("catalog list disks --json").json()
    kinds = {row["id"]: row["kind"] for row in rows}
    assert kinds["P30"] == "disk" and kinds["premium-v2"] == "provisioned-disk" and kinds["ultra"] == "provisioned-disk"
    p50 = next(row for row in rows if row["id"] == "P50")
    assert p50["host_caching"] is False
    assert p50["performance_plus"] == {"iops": 20000, "bandwidth": 900e6}


def test_list_everything_json(iolab):
    rows = iolab("catalog list --json").json()
    counts = {kind: sum(r["kind"] == kind for r in rows) for kind in {r["kind"] for r in rows}}
    assert counts == {"vm": len(bundled_catalog().vms), "disk": 39, "provisioned-disk": 13, "scaled-disk": 3, "service": 12,
                      "protocol": 4}
    assert all("id" in r and r["source"] for r in rows)


def test_show_json_is_one_object(iolab):
    r = iolab("catalog show anf-ultra --json")
    assert r.code == 0
    doc = json.loads(r.out)
    assert doc["id"] == "anf-ultra" and doc["kind"] == "service"
    assert doc["rate_per_tib"] == 128 * 2**20
    assert doc["max_throughput"] == 4500 * 2**20
    assert "latency" in doc["assumptions"]
    v2 = iolab("catalog show premium-v2 --json").json()
    assert (v2["baseline_iops"], v2["baseline_bandwidth"], v2["bandwidth_per_iops"]) == (3000, 125e6, 250000)
    assert iolab("catalog show nfs4.1 --json").json()["session_slots"] == 64
    assert iolab("catalog show defaults --json").json()["latency"]["premium"] == 0.002


def test_show_accepts_any_case(iolab):
    assert iolab("catalog show standard_ds13 --json").json()["id"] == "Standard_DS13"


def test_show_table(iolab):
    r = iolab("catalog show Standard_DS13")
    assert r.code == 0
    for words in ("vm Standard_DS13", "25,600", "256 MB/s", "288 GiB", "4,000 Mbit/s", "sizes-previous-gen.md"):
        assert words in r.out
    out = iolab("catalog show P30").out
    assert "on-demand 30,000 IOPS / 1 GB/s" in out and "2 ms*" in out
    # East US's published price (no assumption mark), with its source
    assert re.search(r"price_per_month\s+\$135\.17 a month\s*$", out, re.M)
    assert re.search(r"price source\s+xbill9/zombiescan-azure .*\(2026-09-23\), a secondary source, eastus", out)


@pytest.mark.parametrize("section,words", [
    ("vms", ["Standard_DS13", "25,600", "Standard_E104is_v5", "120,000", "Standard_E8bds_v5", "24,200"]),
    ("disks", ["P30", "5,000", "on-demand", "premium-v2", "3,000 to 80,000", "S80"]),
    ("services", ["anf-ultra", "128", "4,500", "azure-files-premium", "formula"]),
    ("protocols", ["nfs4.1", "180", "875*", "smb3"]),
])
def test_list_tables(iolab, section, words):
    r = iolab(f"catalog list {section}")
    assert r.code == 0
    for w in words:
        assert w in r.out
    assert "* assumption, not a published figure" in r.out


def test_list_with_user_catalog(iolab):
    rows = iolab(f"catalog list vms --json --catalog {PRICES}").json()
    lab = next(row for row in rows if row["id"] == "Lab_Client_16")
    assert lab["uncached_iops"] == 40000
    assert "Lab_Client_16" in iolab(f"catalog list vms --catalog {PRICES}").out
    assert iolab(f"catalog show P30 --json --catalog {PRICES}").json()["price_per_month"] == 120


def test_unknown_id_exits_2_with_nearest(iolab):
    r = iolab("catalog show Standard_DS13_v3")
    assert r.code == 2 and r.out == ""
    assert "unknown catalog id 'Standard_DS13_v3'; nearest: Standard_DS13_v2" in r.err
    r = iolab("catalog show P31 --json")
    assert r.code == 2 and r.out == "" and "unknown catalog id 'P31'" in r.err


def test_unknown_section_is_a_usage_error(iolab):
    r = iolab("catalog list vm")
    assert r.code == 2
    assert "vms" in r.err


def test_list_match_keeps_the_rows_a_glob_names_any_case(iolab):
    # The Ebsv5 series page lists E2 to E96 and E112i: the pattern names them and nothing else,
    # in any case; two patterns add up; one that names nothing exits 2 with the nearest ids.
    r = iolab("catalog", "list", "vms", "--match", "standard_e*BS_V5", "--json")
    assert r.code == 0, r.err
    assert [row["id"] for row in r.json()] == [f"Standard_E{n}bs_v5" for n in
                                               ("2", "4", "8", "16", "32", "48", "64", "96", "112i")]
    r = iolab("catalog", "list", "disks", "--match", "P3?", "--match", "gp[23]", "--json")
    assert r.code == 0, r.err
    assert sorted(row["id"] for row in r.json()) == ["P30", "gp2", "gp3"]
    r = iolab("catalog", "list", "vms", "--match", "m6i.*")
    assert r.code == 0 and "m6i.large" in r.out and "Standard_" not in r.out, r.err
    r = iolab("catalog", "list", "vms", "--match", "Standard_Q*")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("error: --match: no vms row matches 'Standard_Q*'; nearest: "), r.err
    r = iolab("catalog", "list", "vms", "--match", " ")
    assert (r.code, r.err) == (2, "error: --match: expected an id or a pattern, such as 'Standard_D*s_v5' or "
                                  "'n2-standard-*'\n")


def test_machine_types_are_listed_by_size_with_numbers_read_as_numbers(iolab):
    # Compute Engine's N2 standard shapes: 2 to 128 vCPUs, the table in that order (as text,
    # n2-standard-128 would come first and n2-standard-8 after n2-standard-64).
    r = iolab("catalog", "list", "vms", "--cloud", "gcp", "--match", "n2-standard-*")
    assert r.code == 0, r.err
    listed = [line.split()[0] for line in r.out.splitlines() if line.startswith("n2-standard-")]
    assert listed == [f"n2-standard-{n}" for n in (2, 4, 8, 16, 32, 48, 64, 80, 96, 128)]


def test_show_a_machine_of_another_cloud_without_azures_fields(iolab):
    # n2-standard-32: Persistent Disk caps per type, no host cache, no burst, no premium storage
    out = iolab("catalog", "show", "n2-standard-32").out
    fields = {line.split()[0] for line in out.splitlines()[2:] if line.strip() and not line.startswith(" " * 5)}
    assert {"vcpus", "memory", "disk_types", "disk_limits", "network_bandwidth", "tier_1_bandwidth",
            "price_per_month"} <= fields
    assert not fields & {"premium_storage", "cached_iops", "cache_size", "uncached_iops", "burst_iops",
                         "burst_duration", "premium_v2_iops", "parent"}
    # an EC2 instance keeps its EBS baseline (uncached_*) and its 30-minute burst
    out = iolab("catalog", "show", "m6i.large").out
    assert "burst_duration" in out and "uncached_iops" in out and "premium_storage" not in out
    # Azure's sizes show every field, "–" where the size has none
    assert re.search(r"cached_iops\s+–", iolab("catalog", "show", "Standard_D2pls_v5").out)


def test_list_vms_each_cloud_in_its_own_columns(iolab):
    # n2-standard-8 (gcpdiag's N2 table, 8 vCPUs): pd-balanced and pd-ssd 15,000 read IOPS and
    # 800 MiB/s; m6i.large: EBS baseline 3,600 IOPS / 81.25 MB/s, 40,000 / 1,250 for 30 minutes
    r = iolab("catalog", "list", "vms", "--match", "n2-standard-8", "--match", "m6i.large")
    assert r.code == 0, r.err
    assert "VM sizes" not in r.out  # no Azure row matches: no empty Azure table
    gce = next(line for line in r.out.splitlines() if line.startswith("n2-standard-8 "))
    assert gce.split()[3:7] == ["15,000", "800", "15,000", "800"] and "pd-ssd" in r.out
    ec2 = next(line for line in r.out.splitlines() if line.startswith("m6i.large "))
    assert ec2.split()[3:7] == ["3,600", "81.25", "40,000", "1,250"] and "EBS base" in r.out
