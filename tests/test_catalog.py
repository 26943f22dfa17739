"""The bundled catalog: every row loads, carries its source, and matches the published figures."""

from __future__ import annotations

import re

import pytest

from iolab.catalog import (
    Catalog,
    DiskSku,
    ProvisionedDisk,
    ServiceLevel,
    Vm,
    bundled_catalog,
    load_catalog,
)
from iolab.errors import RuleViolation, UnknownIdError
from iolab.units import GiB, MiB, TiB

MB = 1e6


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return bundled_catalog()


# ---- every row


def test_families_are_complete(cat):
    premium = ["P1", "P2", "P3", "P4", "P6", "P10", "P15", "P20", "P30", "P40", "P50", "P60", "P70", "P80"]
    assert set(premium + [f"E{p[1:]}" for p in premium]) <= set(cat.disks)
    assert {"S4", "S6", "S10", "S15", "S20", "S30", "S40", "S50", "S60", "S70", "S80"} <= set(cat.disks)
    assert len(cat.disks) == 14 + 14 + 11
    assert set(cat.of_cloud("azure").provisioned) == {"premium-v2", "ultra"}
    assert set(cat.of_cloud("gcp").provisioned) == {"pd-standard", "pd-balanced", "pd-ssd", "pd-extreme",
                                                    "hyperdisk-balanced", "hyperdisk-extreme", "hyperdisk-throughput"}
    assert set(cat.of_cloud("aws").provisioned) == {"gp3", "io1", "io2", "io2-bx"}
    assert set(cat.scaled) == {"gp2", "st1", "sc1"}
    assert set(cat.services) == {"anf-standard", "anf-premium", "anf-ultra", "anf-flexible", "gcnv-flex",
                                 "gcnv-standard", "gcnv-premium", "gcnv-extreme", "azure-files-premium",
                                 "azure-files-premium-v2", "azure-files-standard-v2", "gcnv-flex-custom"}
    assert set(cat.protocols) == {"nfs3", "nfs4.1", "dnfs", "smb3"}
    sizes = (["DS1", "DS2", "DS3", "DS4", "DS11", "DS12", "DS13", "DS14"]
             + [f"DS{n}_v2" for n in (1, 2, 3, 4, 11, 12, 13, 14)] + [f"GS{n}" for n in range(1, 6)]
             + ["D32s_v3", "D64s_v3", "D32ds_v4", "D16_v4"] + [f"D{n}s_v5" for n in (2, 4, 8, 16, 32, 48, 64, 96)]
             + [f"E{n}s_v5" for n in (2, 4, 8, 16, 32, 64)] + ["E104is_v5"])
    assert {f"Standard_{s}" for s in sizes} <= set(cat.vms)  # the whole catalog: tests/test_catalog_vms.py


def _rows(cat):
    for section in ("vms", "disks", "provisioned", "services", "protocols"):
        yield from cat.section(section).values()
    yield cat.defaults


def test_every_row_has_a_dated_source(cat):
    for row in _rows(cat):
        assert re.search(r"\((19|20)\d\d(-\d\d-\d\d)?\)", row.source), row
        for name in row.assumptions:
            assert name in type(row).model_fields


def test_unpublished_values_are_marked(cat):
    for row in (*cat.disks.values(), *cat.provisioned.values()):
        assert row.is_assumed("read_latency") and row.is_assumed("write_latency"), row.id
    for row in cat.services.values():
        assert row.is_assumed("latency"), row.id
    # one SMB channel's 875 MiB/s was measured on Azure NetApp Files only; one NFS session's
    # 1.2-1.4 GB/s is the SAP HANA on Azure NetApp Files page's (published); request rates are fitted
    assert cat.protocol("smb3").is_assumed("connection_bandwidth")
    for row in cat.protocols.values():
        assert row.is_assumed("connection_iops"), row.id
        assert row.is_assumed("connection_bandwidth") == (row.id == "smb3"), row.id
    for row in _rows(cat):
        for price in ("price_per_month", "price_per_gib_month"):
            if getattr(row, price, None) is not None:
                assert row.is_assumed(price), row.id  # no official list price was found
    assert not cat.vm("Standard_D16s_v5").is_assumed("premium_storage")  # its page: "Premium Storage: Supported"
    assert not cat.vm("Standard_DS13").assumptions
    assert set(cat.defaults.assumptions) == {"cache_hit_latency", "delay_distribution", "delay_cv", "latency"}


def test_ids_match_their_keys(cat):
    for section in ("vms", "disks", "provisioned", "services", "protocols"):
        for key, row in cat.section(section).items():
            assert row.id == key


# ---- published figures, a sample per family (docs/sources.md)


@pytest.mark.parametrize("sku,gib,iops,mbps,burst", [
    ("P1", 4, 120, 25, ("credit", 3500, 170)),
    ("P10", 128, 500, 100, ("credit", 3500, 170)),
    ("P20", 512, 2300, 150, ("credit", 3500, 170)),
    ("P30", 1024, 5000, 200, ("on-demand", 30000, 1000)),
    ("P50", 4096, 7500, 250, ("on-demand", 30000, 1000)),
    ("P80", 32767, 20000, 900, ("on-demand", 30000, 1000)),
    ("E10", 128, 500, 60, ("credit", 600, 150)),
    ("E30", 1024, 500, 60, ("credit", 1000, 250)),
    ("E60", 8192, 2000, 400, None),
    ("E80", 32767, 6000, 750, None),
    ("S4", 32, 500, 60, None),
    ("S60", 8192, 1300, 300, None),
    ("S80", 32767, 2000, 500, None),
])
def test_fixed_disks(cat, sku, gib, iops, mbps, burst):
    disk = cat.disk(sku)
    assert isinstance(disk, DiskSku)
    assert (disk.size, disk.iops, disk.bandwidth) == (gib * GiB, iops, mbps * MB)
    assert disk.io_unit == 256 * 1024
    if burst is None:
        assert disk.burst is None
    else:
        assert (disk.burst.kind, disk.burst.iops, disk.burst.bandwidth) == (burst[0], burst[1], burst[2] * MB)
        assert disk.burst.duration == (1800 if burst[0] == "credit" else None)


def test_performance_plus_and_latencies(cat):
    assert cat.disk("P30").performance_plus == (8000, 300 * MB)
    assert cat.disk("P40").performance_plus == (16000, 600 * MB)
    assert cat.disk("P80").performance_plus == (20000, 900 * MB)
    assert cat.disk("E50").performance_plus == (6000, 600 * MB)
    assert cat.disk("S40").performance_plus == (3000, 300 * MB)
    assert cat.disk("P20").performance_plus is None
    assert cat.disk("P30").read_latency == 0.002
    assert (cat.disk("S30").read_latency, cat.disk("S30").write_latency) == (0.020, 0.010)
    assert cat.disk("P30").price_per_month == 135.17


def test_host_caching_only_under_4_tib(cat):
    assert cat.disk("P40").host_caching and cat.disk("E40").host_caching
    assert not cat.disk("P50").host_caching  # 4,096 GiB is not under 4,096 GiB
    assert not cat.disk("premium-v2").host_caching and not cat.disk("ultra").host_caching


@pytest.mark.parametrize("vm,vcpus,mem_gib,disks,cached,uncached,cache_gib,burst,net_mbit", [
    ("Standard_DS1", 1, 3.5, 4, (4000, 32), (3200, 32), 43, None, 500),
    ("Standard_DS4", 8, 28, 32, (32000, 256), (25600, 256), 344, None, 4000),
    ("Standard_DS13", 8, 56, 32, (32000, 256), (25600, 256), 288, None, 4000),
    ("Standard_DS14", 16, 112, 64, (64000, 512), (51200, 512), 576, None, 8000),
    ("Standard_DS3_v2", 4, 14, 16, (16000, 128), (12800, 192), 172, None, 3000),
    ("Standard_DS14_v2", 16, 112, 64, (64000, 512), (51200, 768), 576, None, 12000),
    ("Standard_GS5", 32, 448, 64, (160000, 1600), (80000, 2000), 4224, None, 20000),
    ("Standard_D32s_v3", 32, 128, 32, (64000, 512), (51200, 768), 800, (64000, 1600), 16000),
    ("Standard_D64s_v3", 64, 256, 32, (128000, 1024), (80000, 1200), 1600, (80000, 2000), 30000),
    ("Standard_D32ds_v4", 32, 128, 32, (308000, 1936), (51200, 768), 800, (64000, 1600), 16000),
    ("Standard_D16_v4", 16, 64, 32, None, (25600, 384), None, (32000, 800), 12500),
    ("Standard_D2s_v5", 2, 8, 4, None, (3750, 85), None, (10000, 1200), 12500),
    ("Standard_D48s_v5", 48, 192, 32, None, (76800, 1315), None, (80000, 3000), 24000),
    ("Standard_D96s_v5", 96, 384, 32, None, (80000, 2600), None, (80000, 4000), 35000),
    ("Standard_E16s_v5", 16, 128, 32, None, (25600, 600), None, (40000, 1200), 12500),
    ("Standard_E104is_v5", 104, 672, 64, None, (120000, 4000), None, (120000, 4000), 100000),
])
def test_vms(cat, vm, vcpus, mem_gib, disks, cached, uncached, cache_gib, burst, net_mbit):
    v = cat.vm(vm)
    assert isinstance(v, Vm)
    assert (v.vcpus, v.memory, v.max_data_disks) == (vcpus, mem_gib * GiB, disks)
    assert (v.uncached_iops, v.uncached_bandwidth) == (uncached[0], uncached[1] * MB)
    if cached is None:
        assert v.cached_iops is v.cached_bandwidth is v.cache_size is None
    else:
        assert (v.cached_iops, v.cached_bandwidth, v.cache_size) == (cached[0], cached[1] * MB, cache_gib * GiB)
    if burst is None:
        assert v.burst_iops is v.burst_bandwidth is None
    else:
        assert (v.burst_iops, v.burst_bandwidth, v.burst_duration) == (burst[0], burst[1] * MB, 1800)
    assert v.network_bandwidth == net_mbit * 1e6 / 8


def test_vm_premium_flags_and_prices(cat):
    assert cat.vm("Standard_DS13").premium_storage
    assert not cat.vm("Standard_D16_v4").premium_storage  # its page: "Premium Storage: Not Supported"
    assert cat.vm("Standard_D4s_v5").price_per_month == pytest.approx(0.192 * 730)
    assert cat.vm("Standard_D16s_v5").price_per_month == pytest.approx(0.768 * 730)
    assert cat.vm("Standard_DS13").price_per_month is None


# ---- provisioned disks: FACTS' examples


def test_premium_v2_rules(cat):
    v2 = cat.disk("premium-v2")
    assert isinstance(v2, ProvisionedDisk)
    assert v2.caps(1 * GiB) == (3000, 125 * MB)                 # free baseline at any size
    assert v2.caps(64 * TiB) == (3000, 125 * MB)
    assert v2.max_caps(8 * GiB)[0] == 4000                      # 8 GiB allows 4,000
    assert v2.max_caps(6 * GiB)[0] == 3000
    assert v2.max_caps(160 * GiB)[0] == 80000                   # 80,000 needs 160 GiB
    assert v2.max_caps(159 * GiB)[0] == 79500
    assert v2.caps(10 * GiB, iops=3000, bandwidth=750 * MB) == (3000, 750 * MB)   # 0.25 MB/s per IOPS
    assert v2.caps(200 * GiB, iops=8000, bandwidth=2000 * MB) == (8000, 2000 * MB)
    assert v2.max_caps(200 * GiB) == (80000, 2000 * MB)
    assert v2.size_for(80000) == 160 * GiB and v2.size_for(3000) == GiB
    assert v2.round_size(100.2 * GiB) == 101 * GiB


@pytest.mark.parametrize("args,rule", [
    ((8 * GiB, 5000), "premium-v2 iops <= 500 per GiB above 6 GiB, up to 80,000"),
    ((200 * GiB, 90000), "premium-v2 iops <= 500 per GiB above 6 GiB, up to 80,000"),
    ((100 * GiB, 2000), "premium-v2 iops >= 3,000"),
    ((100 * GiB, 3000, 751 * MB), "premium-v2 bandwidth <= 0.25 MB/s per IOPS, up to 2,000 MB/s"),
    ((200 * GiB, 80000, 2001 * MB), "premium-v2 bandwidth <= 0.25 MB/s per IOPS, up to 2,000 MB/s"),
    ((100 * GiB, 3000, 100 * MB), "premium-v2 bandwidth >= 125 MB/s"),
    ((65 * TiB,), "premium-v2 size 1 GiB to 64 TiB"),
    ((int(1.5 * GiB),), "premium-v2 size in 1 GiB steps"),
])
def test_premium_v2_violations_name_the_rule(cat, args, rule):
    with pytest.raises(RuleViolation) as e:
        cat.disk("premium-v2").caps(*args)
    assert e.value.rule == rule
    assert rule in str(e.value)


def test_premium_v2_violation_says_what_is_needed(cat):
    with pytest.raises(RuleViolation, match="5,000 IOPS needs at least 10 GiB"):
        cat.disk("premium-v2").caps(8 * GiB, iops=5000)
    with pytest.raises(RuleViolation, match="2,000 MB/s needs at least 8,000 IOPS"):
        cat.disk("premium-v2").caps(100 * GiB, iops=3000, bandwidth=2000 * MB)


@pytest.mark.parametrize("gib,iops,mbps", [(4, 4000, 1000), (16, 16000, 4000), (64, 64000, 10000),
                                           (512, 400000, 10000), (65536, 400000, 10000)])
def test_ultra_caps_by_size(cat, gib, iops, mbps):
    ultra = cat.disk("ultra")
    assert ultra.max_caps(gib * GiB) == (iops, mbps * MB)
    assert ultra.caps(gib * GiB) == (iops, mbps * MB)           # default: the most the size allows


def test_ultra_rules(cat):
    ultra = cat.disk("ultra")
    assert ultra.caps(4 * GiB, iops=100, bandwidth=1 * MB) == (100, 1 * MB)
    assert ultra.caps(1024 * GiB, iops=20000) == (20000, 5000 * MB)
    with pytest.raises(RuleViolation, match="ultra iops >= 100"):
        ultra.caps(4 * GiB, iops=50)
    with pytest.raises(RuleViolation, match="ultra iops <= 1000 per GiB, up to 400,000"):
        ultra.caps(4 * GiB, iops=4001)
    with pytest.raises(RuleViolation, match="ultra size 4 GiB to 64 TiB"):
        ultra.caps(2 * GiB)


# ---- services


def test_anf_rates_and_ceilings(cat):
    ultra = cat.service("anf", "ultra")
    assert isinstance(ultra, ServiceLevel)
    assert ultra.rate_per_tib == 128 * MiB
    assert cat.service("anf", "standard").rate_per_tib == 16 * MiB
    assert cat.service("anf", "premium").rate_per_tib == 64 * MiB
    assert ultra.throughput(8 * TiB) == 1024 * MiB          # VALIDATION V10
    assert ultra.throughput(16 * TiB) == 2048 * MiB
    assert ultra.throughput(32 * TiB) == 4096 * MiB
    assert ultra.throughput(100 * TiB) == 4500 * MiB        # regular volume ceiling
    premium = cat.service("anf", "premium")
    assert premium.throughput(2 * TiB) == 128 * MiB
    assert premium.throughput(100 * GiB) == 6.25 * MiB
    assert premium.throughput(int(70.31 * TiB)) == pytest.approx(4500 * MiB, rel=1e-4)
    for level, rate in (("standard", 800), ("premium", 3200), ("ultra", 6400)):
        assert cat.service("anf", level).throughput(50 * TiB, large=True) == rate * MiB
    assert ultra.throughput(1024 * TiB, large=True) == 12800 * MiB
    assert ultra.pool_budget(10 * TiB) == 1280 * MiB
    assert (ultra.min_size, ultra.max_size, ultra.pool_min_size, ultra.pool_max_size) == (
        50 * GiB, 100 * TiB, 1 * TiB, 2048 * TiB)


def test_anf_flexible_and_manual_qos(cat):
    flex = cat.service("anf", "flexible")
    assert flex.pool_budget(1 * TiB) == 640 * MiB
    assert cat.service("anf", "flexible").pool_min_throughput == 128 * MiB
    with pytest.raises(RuleViolation, match="anf-flexible throughput is set by manual QoS"):
        flex.throughput(1 * TiB)
    ultra = cat.service("anf", "ultra")
    assert ultra.manual_throughput(4500 * MiB) == 4500 * MiB
    with pytest.raises(RuleViolation, match="anf-ultra manual QoS volume throughput <= 4.395 GiB/s"):
        ultra.manual_throughput(4501 * MiB)
    with pytest.raises(RuleViolation, match="anf-ultra pool budget = pool TiB x 128 MiB/s per TiB"):
        ultra.manual_throughput(2000 * MiB, pool_size=10 * TiB)
    with pytest.raises(RuleViolation, match="anf-ultra volume size 50 GiB to 100 TiB"):
        ultra.throughput(40 * GiB)
    with pytest.raises(RuleViolation, match="anf-ultra pool size 1 TiB to 2 PiB"):
        ultra.pool_budget(512 * GiB)


def test_gcnv_levels(cat):
    extreme = cat.service("gcnv", "extreme")
    assert extreme.pool_budget(200 * TiB) == 25600 * MiB
    assert cat.service("gcnv", "premium").pool_budget(40 * TiB) == 2560 * MiB
    assert extreme.manual_throughput(4500 * MiB, pool_size=200 * TiB) == 4500 * MiB     # VALIDATION V11
    with pytest.raises(RuleViolation) as e:
        extreme.manual_throughput(25600 * MiB, pool_size=200 * TiB)
    assert e.value.rule == "gcnv-extreme manual QoS volume throughput <= 4.5 GiB/s"
    assert extreme.large_max_throughput == 30 * GiB
    assert cat.service("gcnv", "standard").throughput(100 * TiB) == 1600 * MiB    # below its 1.6 GiB/s ceiling
    assert cat.service("gcnv", "standard").max_throughput == pytest.approx(1.6 * GiB)
    assert cat.service("gcnv", "premium").throughput(10 * TiB) == 640 * MiB
    flex = cat.service("gcnv", "flex")
    assert not flex.manual_qos and flex.shared_pool
    assert flex.throughput(100 * GiB) == 16 * MiB            # the pool is at least 1 TiB
    assert flex.iops(10 * TiB) == 10240
    assert flex.iops(300 * TiB) == 60000
    with pytest.raises(RuleViolation, match="gcnv-flex has no manual QoS"):
        flex.manual_throughput(100 * MiB)
    with pytest.raises(RuleViolation, match="gcnv-standard has no large volumes"):
        cat.service("gcnv", "standard").throughput(20 * TiB, large=True)


@pytest.mark.parametrize("gib,iops,burst,mibps", [
    (1024, 4024, 10000, 203),          # VALIDATION V12
    (102400, 102400, 102400, 10340),
    (100, 3100, 10000, 110),
    (5000, 8000, 15000, 600),
])
def test_azure_files_premium_formulas(cat, gib, iops, burst, mibps):
    files = cat.service("azure-files", "premium")
    assert files.iops(gib * GiB) == iops
    assert files.burst_iops(gib * GiB) == burst
    assert files.throughput(gib * GiB) == mibps * MiB


def test_anf_has_no_iops_formula(cat):
    assert cat.service("anf", "ultra").iops(8 * TiB) is None
    assert cat.service("anf", "ultra").burst_iops(8 * TiB) is None


# ---- protocols and defaults


def test_protocols(cat):
    nfs3, nfs41, smb = cat.protocol("nfs3"), cat.protocol("nfs4.1"), cat.protocol("smb3")
    assert nfs3.slots_per_connection == 128 and nfs3.session_slots is None
    assert (nfs41.session_slots, nfs41.session_slots_max) == (64, 180)
    assert nfs3.max_nconnect == nfs41.max_nconnect == 16
    assert smb.channels_per_nic == 4
    assert smb.connection_bandwidth == 875 * MiB and smb.signing_bandwidth == 250 * MiB
    assert smb.encryption_loss == 0.125  # the middle of the published 10-15 %
    assert nfs3.connection_bandwidth == nfs41.connection_bandwidth == 1.3e9  # SAP HANA page: 1.2-1.4 GB/s


def test_defaults(cat):
    d = cat.defaults
    assert d.cache_hit_latency == 0.0002
    assert d.delay_distribution == "lognormal"
    assert d.latency_for("premium") == 0.002
    assert d.latency_for("standard-hdd", "read") == 0.020
    assert d.latency_for("anf") == 0.0005


# ---- lookups


def test_lookups_ignore_case_and_suggest(cat):
    assert cat.vm("standard_ds13").id == "Standard_DS13"
    assert cat.disk("p30").id == "P30"
    assert cat.service("ANF", "Ultra").id == "anf-ultra"
    with pytest.raises(UnknownIdError) as e:
        cat.vm("Standard_DS13_v3")
    assert "Standard_DS13_v2" in e.value.nearest
    with pytest.raises(UnknownIdError, match="unknown disk SKU 'P31'"):
        cat.disk("P31")
    with pytest.raises(UnknownIdError, match="unknown protocol 'nfs4'"):
        cat.protocol("nfs4")
    with pytest.raises(UnknownIdError, match="unknown service 'netapp'"):
        cat.service("netapp", "ultra")
    assert cat.entry("ultra") == ("provisioned", cat.provisioned["ultra"])


def test_load_catalog_without_files_is_the_bundled_one():
    assert load_catalog() is bundled_catalog()
    assert load_catalog([]) is bundled_catalog()


# ---- the public API others code against


def test_public_api():
    import doctest

    import iolab.catalog as catalog
    import iolab.schema as schema

    for name in ("Catalog", "Vm", "DiskSku", "DiskBurst", "ProvisionedDisk", "ServiceLevel", "Protocol", "Defaults",
                 "load_catalog", "bundled_catalog"):
        assert name in catalog.__all__
    for module in (catalog, schema):
        assert all(hasattr(module, name) for name in module.__all__)
    for name in ("load_yaml", "parse_yaml", "validate", "FrozenModel", "Size", "Rate", "Ops", "Duration"):
        assert name in schema.__all__
    doc = doctest.testmod(catalog)
    assert doc.attempted >= 2 and doc.failed == 0
    for model in (catalog.Vm, catalog.DiskSku, catalog.ProvisionedDisk, catalog.ServiceLevel, catalog.Protocol):
        assert model.model_config["frozen"] and model.model_config["extra"] == "forbid"
