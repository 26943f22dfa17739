"""Published Azure disk and VM storage figures, one row per figure, against what iolab answers:
the catalog (`iolab catalog list --json`) and small `iolab predict --json` scenarios. The
published validation cases (tests/validation) are not repeated here.

Sources (MicrosoftDocs/azure-docs = AD, MicrosoftDocs/azure-compute-docs = ACD):
- PREMIUM: AD includes/disk-storage-premium-ssd-sizes.md (2023-03-16)
- STD_SSD, STD_HDD: AD includes/disk-storage-standard-ssd-sizes.md, ...-standard-hdd-sizes.md (2023-03-16)
- BURSTING: ACD articles/virtual-machines/disk-bursting.md (2023-05-02),
  includes/managed-disks-bursting-2.md (2025-01-14)
- PV2_ULTRA: ACD articles/virtual-machines/disks-types.md (2026-08-11),
  includes/disks-premv2-performance.md (2024-01-25)
- DISKS_PERF: ACD articles/virtual-machines/disks-performance.md (2026-09-09)
- PREV_GEN: AD articles/virtual-machines/sizes-previous-gen.md (2020-11-01)
- DSV2: AD articles/virtual-machines/dv2-dsv2-series.md, dv2-dsv2-series-memory.md (2020-02-03)
- DSV3: ACD sizes/general-purpose/dsv3-series.md (2024-09-24)
- DDSV4: ACD ddsv4-series.md (2026-03-10); cached figures AD ddv4-ddsv4-series.md (2020)
- DV4: ACD dv4-series.md (2026-03-10)
- DSV5, ESV5: ACD dsv5-series.md (2026-02-27), memory-optimized/esv5-series.md (2026-03-10)
- GUIDE: "Azure premium storage: design for high performance" (Microsoft, 2016)
"""

from __future__ import annotations

import pytest

MB, GiB = 1e6, 2**30
MBIT = 1e6 / 8  # Mbit/s in bytes/s
TOL = 0.05


# --- catalog figures: (id, field, published value in catalog units) -----------------------

def _premium():
    # PREMIUM, BURSTING: tier, GiB, IOPS, MB/s, burst IOPS, burst MB/s
    rows = [("P1", 4, 120, 25, 3500, 170), ("P2", 8, 120, 25, 3500, 170), ("P3", 16, 120, 25, 3500, 170),
            ("P4", 32, 120, 25, 3500, 170), ("P6", 64, 240, 50, 3500, 170), ("P10", 128, 500, 100, 3500, 170),
            ("P15", 256, 1100, 125, 3500, 170), ("P20", 512, 2300, 150, 3500, 170),
            ("P30", 1024, 5000, 200, 30000, 1000), ("P40", 2048, 7500, 250, 30000, 1000),
            ("P50", 4096, 7500, 250, 30000, 1000), ("P60", 8192, 16000, 500, 30000, 1000),
            ("P70", 16384, 18000, 750, 30000, 1000), ("P80", 32767, 20000, 900, 30000, 1000)]
    for sku, gib, iops, mbs, biops, bmbs in rows:
        yield (sku, "size", gib * GiB)
        yield (sku, "iops", iops)
        yield (sku, "bandwidth", mbs * MB)
        yield (sku, "burst.iops", biops)
        yield (sku, "burst.bandwidth", bmbs * MB)
        yield (sku, "burst.kind", "credit" if gib <= 512 else "on-demand")  # BURSTING


def _standard():
    # STD_SSD, STD_HDD
    for sku in "E1 E2 E3 E4 E6 E10 E15 E20 E30 E40 E50 S4 S6 S10 S15 S20 S30 S40 S50".split():
        yield (sku, "iops", 500)
        yield (sku, "bandwidth", 60 * MB)
    for sku, iops, mbs in [("E60", 2000, 400), ("E70", 4000, 600), ("E80", 6000, 750),
                           ("S60", 1300, 300), ("S70", 2000, 500), ("S80", 2000, 500)]:
        yield (sku, "iops", iops)
        yield (sku, "bandwidth", mbs * MB)
    # Standard SSD credit burst (BURSTING): E1-E20 600 / 150, E30 1,000 / 250, 30 minutes
    for sku in "E1 E2 E3 E4 E6 E10 E15 E20".split():
        yield (sku, "burst.iops", 600)
        yield (sku, "burst.bandwidth", 150 * MB)
    yield ("E30", "burst.iops", 1000)
    yield ("E30", "burst.bandwidth", 250 * MB)
    for sku in ("P1", "P20", "E1", "E30"):
        yield (sku, "burst.duration", 1800)
    for sku in ("E40", "E80", "S4", "S80"):
        yield (sku, "burst", None)


def _performance_plus():
    # PREMIUM, STD_SSD, STD_HDD: performance plus (IOPS, MB/s)
    plus = {"P30": (8000, 300), "P40": (16000, 600), "P50": (20000, 900), "P60": (20000, 900),
            "P70": (20000, 900), "P80": (20000, 900), "E30": (1500, 150), "E40": (3000, 300),
            "E50": (6000, 600), "E60": (6000, 750), "E70": (6000, 750), "E80": (6000, 750),
            "S30": (1500, 150), "S40": (3000, 300), "S50": (3000, 500), "S60": (3000, 500),
            "S70": (3000, 500), "S80": (3000, 500)}
    for sku, (iops, mbs) in plus.items():
        yield (sku, "performance_plus.iops", iops)
        yield (sku, "performance_plus.bandwidth", mbs * MB)


def _disk_rules():
    # PREMIUM: IOs up to 256 KiB count as one; DISKS_PERF / FAQ: host caching under 4,096 GiB
    for sku in ("P1", "P30", "P80", "E10", "S80"):
        yield (sku, "io_unit", 256 * 1024)
    for sku, cached in [("P40", True), ("P50", False), ("E40", True), ("E50", False), ("S40", True)]:
        yield (sku, "host_caching", cached)
    # STD_HDD: writes under 10 ms, reads under 20 ms (the catalog takes the bounds)
    yield ("S30", "read_latency", 0.020)
    yield ("S30", "write_latency", 0.010)
    # PV2_ULTRA
    pv2 = {"min_size": 1 * GiB, "max_size": 64 * 1024 * GiB, "baseline_iops": 3000,
           "baseline_bandwidth": 125 * MB, "iops_per_gib": 500, "max_iops": 80000,
           "bandwidth_per_iops": 0.25 * MB, "max_bandwidth": 2000 * MB, "changes_per_day": 4,
           "host_caching": False}
    ultra = {"min_size": 4 * GiB, "max_size": 64 * 1024 * GiB, "iops_per_gib": 1000, "min_iops": 100,
             "max_iops": 400000, "bandwidth_per_iops": 0.25 * MB, "min_bandwidth": 1 * MB,
             "max_bandwidth": 10000 * MB, "changes_per_day": 4, "host_caching": False}
    for sku, fields in (("premium-v2", pv2), ("ultra", ultra)):
        for field, value in fields.items():
            yield (sku, field, value)


# vCPU, memory GiB, max data disks, cached IOPS, cached MB/s, cache GiB, uncached IOPS,
# uncached MB/s, burst IOPS, burst MB/s, network Mbit/s (None: not published)
VMS = {
    # PREV_GEN
    "DS1": (1, 3.5, 4, 4000, 32, 43, 3200, 32, None, None, 500),
    "DS2": (2, 7, 8, 8000, 64, 86, 6400, 64, None, None, 1000),
    "DS3": (4, 14, 16, 16000, 128, 172, 12800, 128, None, None, 2000),
    "DS4": (8, 28, 32, 32000, 256, 344, 25600, 256, None, None, 4000),
    "DS11": (2, 14, 8, 8000, 64, 72, 6400, 64, None, None, 1000),
    "DS12": (4, 28, 16, 16000, 128, 144, 12800, 128, None, None, 2000),
    "DS13": (8, 56, 32, 32000, 256, 288, 25600, 256, None, None, 4000),
    "DS14": (16, 112, 64, 64000, 512, 576, 51200, 512, None, None, 8000),
    "GS1": (2, 28, 8, 10000, 100, 264, 5000, 125, None, None, 2000),
    "GS2": (4, 56, 16, 20000, 200, 528, 10000, 250, None, None, 4000),
    "GS3": (8, 112, 32, 40000, 400, 1056, 20000, 500, None, None, 8000),
    "GS4": (16, 224, 64, 80000, 800, 2112, 40000, 1000, None, None, 16000),
    "GS5": (32, 448, 64, 160000, 1600, 4224, 80000, 2000, None, None, 20000),
    # DSV2
    "DS1_v2": (1, 3.5, 4, 4000, 32, 43, 3200, 48, None, None, 750),
    "DS2_v2": (2, 7, 8, 8000, 64, 86, 6400, 96, None, None, 1500),
    "DS3_v2": (4, 14, 16, 16000, 128, 172, 12800, 192, None, None, 3000),
    "DS4_v2": (8, 28, 32, 32000, 256, 344, 25600, 384, None, None, 6000),
    "DS11_v2": (2, 14, 8, 8000, 64, 72, 6400, 96, None, None, 1500),
    "DS12_v2": (4, 28, 16, 16000, 128, 144, 12800, 192, None, None, 3000),
    "DS13_v2": (8, 56, 32, 32000, 256, 288, 25600, 384, None, None, 6000),
    "DS14_v2": (16, 112, 64, 64000, 512, 576, 51200, 768, None, None, 12000),
    # DSV3 (D8s_v3: the DISKS_PERF example's 16,000 cached + 12,800 uncached)
    "D8s_v3": (8, 32, 16, 16000, None, None, 12800, None, None, None, None),
    "D32s_v3": (32, 128, 32, 64000, 512, 800, 51200, 768, 64000, 1600, 16000),
    "D64s_v3": (64, 256, 32, 128000, 1024, 1600, 80000, 1200, 80000, 2000, 30000),
    # DDSV4, DV4
    "D32ds_v4": (32, 128, 32, 308000, 1936, 800, 51200, 768, 64000, 1600, 16000),
    "D16_v4": (16, 64, 32, None, None, None, 25600, 384, 32000, 800, 12500),
    # DSV5, ESV5
    "D48s_v5": (48, 192, 32, None, None, None, 76800, 1315, 80000, 3000, 24000),
    "D96s_v5": (96, 384, 32, None, None, None, 80000, 2600, 80000, 4000, 35000),
    "E104is_v5": (104, 672, 64, None, None, None, 120000, 4000, 120000, 4000, 100000),
}
for _n, _dd, _ui, _um, _bi, _bm, _net in [(2, 4, 3750, 85, 10000, 1200, 12500), (4, 8, 6400, 145, 20000, 1200, 12500),
                                         (8, 16, 12800, 290, 20000, 1200, 12500), (16, 32, 25600, 600, 40000, 1200, 12500),
                                         (32, 32, 51200, 865, 80000, 2000, 16000), (64, 32, 80000, 1735, 80000, 3000, 30000)]:
    VMS[f"D{_n}s_v5"] = (_n, 4 * _n, _dd, None, None, None, _ui, _um, _bi, _bm, _net)
    VMS[f"E{_n}s_v5"] = (_n, 8 * _n, _dd, None, None, None, _ui, _um, _bi, _bm, _net)

VM_FIELDS = (("vcpus", 1), ("memory", GiB), ("max_data_disks", 1), ("cached_iops", 1),
             ("cached_bandwidth", MB), ("cache_size", GiB), ("uncached_iops", 1),
             ("uncached_bandwidth", MB), ("burst_iops", 1), ("burst_bandwidth", MB),
             ("network_bandwidth", MBIT))


def _vms():
    for name, values in VMS.items():
        for (field, unit), value in zip(VM_FIELDS, values):
            if value is not None:
                yield (f"Standard_{name}", field, value * unit)
    # DSV5, ESV5: no temp disk, no published cache
    for name in ("Standard_D8s_v5", "Standard_E64s_v5"):
        yield (name, "cache_size", None)
    # DV4: "Premium Storage: Not Supported"
    yield ("Standard_D16_v4", "premium_storage", False)


CATALOG = [*_premium(), *_standard(), *_performance_plus(), *_disk_rules(), *_vms()]


@pytest.fixture
def entries(iolab):
    r = iolab("catalog list --json")
    assert r.code == 0, r.err
    return {e["id"]: e for e in r.json()}


def test_catalog_figures(entries):
    wrong = []
    for eid, field, want in CATALOG:
        got = entries.get(eid)
        assert got is not None, f"{eid} missing from the catalog"
        for key in field.split("."):
            got = got.get(key) if isinstance(got, dict) else None
        if isinstance(want, (int, float)) and not isinstance(want, bool):
            ok = isinstance(got, (int, float)) and abs(got - want) <= 1e-9 * max(1.0, abs(want))
        else:
            ok = got == want
        if not ok:
            wrong.append(f"{eid} {field}: published {want}, catalog {got}")
    assert not wrong, "\n".join(wrong)
    assert len(CATALOG) > 400


# --- predictions: small scenarios against published figures --------------------------------

R8K = "rw: randread, bs: 8k, iodepth: 256"
SEQ1M = "rw: read, bs: 1m, iodepth: 64"


def _scenario(vm: str | None, disks: str, job: str) -> str:
    client = f"clients: {{vm: {vm}}}\n" if vm else ""
    return (f"version: 1\n{client}volumes:\n  data:\n    disks: [{disks}]\n"
            f"jobs:\n  - {{name: j, ioengine: libaio, direct: 1, {job}}}\n")


# (VM or None, disks, job, JSON key ("burst.iops": the burst phase), published value, tolerance)
PREDICT = [
    # GUIDE: VM and disk limits are independent, the lower one wins
    ("Standard_DS4", "{sku: P30, count: 2}", SEQ1M, "bandwidth", 256 * MB, TOL),  # DS4: 256 MB/s
    ("Standard_DS13", "{sku: P30, count: 8}", R8K, "iops", 25600, TOL),  # DS13: 25,600 IOPS
    ("Standard_DS14", "{sku: P30, count: 4}", SEQ1M, "bandwidth", 512 * MB, TOL),  # DS14: 512 MB/s
    ("Standard_GS5", "{sku: P30, count: 20}", R8K, "iops", 80000, TOL),  # GS5: 80,000 IOPS
    ("Standard_GS5", "{sku: P30, count: 16}", SEQ1M, "bandwidth", 2000 * MB, TOL),  # GS5: 2,000 MB/s
    (None, "{sku: S30}", R8K, "iops", 500, TOL),  # GUIDE: a standard 1 TB disk, 500 IOPS
    (None, "{sku: E30}", R8K, "iops", 500, TOL),  # STD_SSD
    # BURSTING: credit bursts (the burst phase), on-demand bursting (the steady state)
    (None, "{sku: P10}", R8K, "burst.iops", 3500, TOL),
    (None, "{sku: P10}", SEQ1M, "burst.bandwidth", 170 * MB, TOL),
    (None, "{sku: P10}", R8K, "burst.duration", 1800, TOL),  # 30 min from a full bucket
    (None, "{sku: E10}", R8K, "burst.iops", 600, TOL),
    (None, "{sku: E30}", SEQ1M, "burst.bandwidth", 250 * MB, TOL),
    (None, "{sku: P30, on_demand_bursting: true}", R8K, "iops", 30000, TOL),
    (None, "{sku: P30, on_demand_bursting: true}", SEQ1M, "bandwidth", 1000 * MB, TOL),
    # DSV3: VM-level credit burst of the uncached limit
    ("Standard_D32s_v3", "{sku: P30, count: 16}", SEQ1M, "bandwidth", 768 * MB, TOL),
    ("Standard_D32s_v3", "{sku: P30, count: 16}", SEQ1M, "burst.bandwidth", 1600 * MB, TOL),
    ("Standard_D32s_v3", "{sku: P30, count: 16}", R8K, "burst.iops", 64000, TOL),
    # PREMIUM: an IO over 256 KiB counts as several (1 MiB = 4) against the IOPS limit
    (None, "{sku: P30, iops: 100, bandwidth: 1000MB/s}", SEQ1M, "iops", 25, TOL),
    # GUIDE, DISKS_PERF: ReadOnly hits count against the VM's cached limit, not the disk's
    ("Standard_DS14", "{sku: P30, caching: readonly}", R8K + ", numjobs: 4, size: 1g", "iops", 64000, TOL),
    ("Standard_DS14", "{sku: P30, caching: readonly}", SEQ1M + ", size: 1g", "bandwidth", 512 * MB, TOL),
    # DISKS_PERF: ReadOnly writes count against both limits (D8s_v3 uncached 12,800)
    ("Standard_D8s_v3", "{sku: P30, count: 3, caching: readonly}", "rw: randwrite, bs: 8k, iodepth: 256",
     "iops", 12800, TOL),
    # GUIDE: data disks default to caching None, so a small working set still meets the disk's limit
    ("Standard_D8s_v3", "{sku: P30}", R8K + ", size: 1g", "iops", 5000, TOL),
    # PV2_ULTRA: free baseline 3,000 IOPS / 125 MB/s at any size; provisioned figures
    (None, "{sku: premium-v2, size: 1GiB}", R8K, "iops", 3000, TOL),
    (None, "{sku: premium-v2, size: 100GiB}", SEQ1M, "bandwidth", 125 * MB, TOL),
    (None, "{sku: premium-v2, size: 8GiB, iops: 4000}", R8K, "iops", 4000, TOL),
    (None, "{sku: premium-v2, size: 100GiB, iops: 3000, bandwidth: 750MB/s}", SEQ1M, "bandwidth", 750 * MB, TOL),
    (None, "{sku: premium-v2, size: 200GiB, iops: 8000, bandwidth: 2000MB/s}", SEQ1M, "bandwidth", 2000 * MB, TOL),
    (None, "{sku: ultra, size: 4GiB, iops: 4000, bandwidth: 1000MB/s}", SEQ1M, "bandwidth", 1000 * MB, TOL),
    (None, "{sku: ultra, size: 16GiB, iops: 16000, bandwidth: 4000MB/s}", SEQ1M, "bandwidth", 4000 * MB, TOL),
    (None, "{sku: ultra, size: 64GiB, iops: 64000, bandwidth: 10000MB/s}", SEQ1M, "bandwidth", 10000 * MB, TOL),
    (None, "{sku: ultra, size: 512GiB, iops: 400000}", "rw: randread, bs: 4k, iodepth: 1024", "iops", 400000, TOL),
]


def _get(doc: dict, key: str):
    for k in key.split("."):
        doc = doc[k]
    return doc


@pytest.mark.parametrize("vm,disks,job,key,want,tol", PREDICT)
def test_predicted_figure(iolab, tmp_path, vm, disks, job, key, want, tol):
    path = tmp_path / "s.yaml"
    path.write_text(_scenario(vm, disks, job))
    r = iolab("predict", path, "--json")
    assert r.code == 0, r.err
    got = _get(r.json(), key)
    assert got == pytest.approx(want, rel=tol), f"{vm} {disks} {job}: {key} {got}, published {want}"


# (VM or None, disks, the rule named in the one-line error) — published limits iolab refuses to pass
REFUSED = [
    (None, "{sku: premium-v2, size: 8GiB, iops: 4001}", "premium-v2 iops"),  # PV2_ULTRA: 8 GiB allows 4,000
    (None, "{sku: premium-v2, size: 6GiB, iops: 3001}", "premium-v2 iops"),  # 3,000 up to 6 GiB
    (None, "{sku: premium-v2, size: 159GiB, iops: 80000}", "premium-v2 iops"),  # 80,000 needs 160 GiB
    (None, "{sku: premium-v2, size: 100GiB, iops: 3000, bandwidth: 751MB/s}", "premium-v2 bandwidth"),
    (None, "{sku: premium-v2, size: 100GiB, iops: 7999, bandwidth: 2000MB/s}", "premium-v2 bandwidth"),
    (None, "{sku: ultra, size: 4GiB, iops: 4001}", "ultra iops"),  # 1,000 IOPS per GiB
    (None, "{sku: ultra, size: 16GiB, iops: 16000, bandwidth: 4001MB/s}", "ultra bandwidth"),
    (None, "{sku: ultra, size: 64GiB, iops: 64000, bandwidth: 10001MB/s}", "ultra bandwidth"),
    (None, "{sku: ultra, size: 64GiB, iops: 99}", "ultra iops"),  # minimum 100
    (None, "{sku: ultra, size: 3GiB}", "ultra size"),  # 4 GiB to 64 TiB
    (None, "{sku: P20, on_demand_bursting: true}", "on-demand-bursting"),  # BURSTING: over 512 GiB only
    ("Standard_DS14", "{sku: P50, caching: readonly}", "host-caching"),  # FAQ: under 4,096 GiB only
    ("Standard_D32s_v5", "{sku: ultra, size: 64GiB, caching: readonly}", "host-caching"),
    ("Standard_D32s_v5", "{sku: premium-v2, size: 64GiB, caching: readonly}", "host-caching"),
    ("Standard_DS1", "{sku: P10, count: 5}", "max-data-disks"),  # PREV_GEN: DS1 takes 4
    ("Standard_GS5", "{sku: P10, count: 65}", "max-data-disks"),  # GUIDE: GS stripes up to 64
    ("Standard_D16_v4", "{sku: P10}", "premium-storage"),  # DV4: Premium Storage not supported
]


@pytest.mark.parametrize("vm,disks,rule", REFUSED)
def test_published_limit_refused(iolab, tmp_path, vm, disks, rule):
    path = tmp_path / "s.yaml"
    path.write_text(_scenario(vm, disks, R8K))
    r = iolab("predict", path, "--json")
    assert r.code == 2, r.out
    assert len(r.err.strip().splitlines()) == 1 and r.err.startswith(f"error: {path}: volumes")
    assert f"rule: {rule}" in r.err


def test_at_the_published_limits_accepted(iolab, tmp_path):
    """The edge of each refused row above is accepted (DS14: 64 data disks today; the 2016 guide said 32)."""
    for vm, disks in [(None, "{sku: premium-v2, size: 160GiB, iops: 80000}"),
                      ("Standard_DS14", "{sku: P40, caching: readonly}"),
                      ("Standard_DS14", "{sku: P10, count: 64}"),
                      ("Standard_DS1", "{sku: P10, count: 4}")]:
        path = tmp_path / "s.yaml"
        path.write_text(_scenario(vm, disks, R8K))
        r = iolab("predict", path, "--json")
        assert r.code == 0, r.err


def test_queue_depth_rules(iolab, tmp_path):
    """GUIDE: 8-16 outstanding IOs per attached disk reach its limit, a stripe needs that times the
    disks; a queue far beyond need only adds latency (Little's law: QD = IOPS x latency);
    QD 1 leaves the disk idle between requests. Approximate: the guide gives a range."""
    def predict(job, count=4):
        path = tmp_path / "q.yaml"
        path.write_text(_scenario(None, f"{{sku: P30, count: {count}}}", job))
        r = iolab("predict", path, "--json")
        assert r.code == 0, r.err
        return r.json()

    knee = predict("rw: randread, bs: 8k, iodepth: 1")
    assert 8 <= knee["knee_outstanding"] / 4 <= 16
    assert knee["iops"] < 0.1 * knee["max_iops"]
    near, far = predict("rw: randread, bs: 8k, iodepth: 128"), predict("rw: randread, bs: 8k, iodepth: 512")
    assert near["iops"] == pytest.approx(20000, rel=TOL) and far["iops"] == pytest.approx(20000, rel=TOL)
    assert far["latency"]["mean"] == pytest.approx(512 / far["iops"], rel=0.01)
    assert far["latency"]["mean"] > 3.5 * near["latency"]["mean"]


def test_cached_and_uncached_limits_add_up(iolab, tmp_path):
    """DISKS_PERF: a Standard_D8s_v3 (16,000 cached + 12,800 uncached IOPS) serves 25,000 IOPS from
    three P30 with host caching and two without."""
    path = tmp_path / "mixed.yaml"
    path.write_text("""version: 1
clients: {vm: Standard_D8s_v3}
volumes:
  uncached:
    disks: [{sku: P30, count: 2, caching: none}]
  cached:
    disks: [{sku: P30, count: 3, caching: readonly}]
jobs:
  - {name: u, volume: uncached, rw: randread, bs: 8k, iodepth: 64, rate_iops: 10000, ioengine: libaio, direct: 1}
  - {name: c, volume: cached, rw: randread, bs: 8k, iodepth: 64, rate_iops: 15000, size: 1g, ioengine: libaio, direct: 1}
""")
    r = iolab("predict", path, "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["iops"] == pytest.approx(25000, rel=TOL)
    assert doc["iops"] > 16000 and doc["iops"] > 12800  # more than either limit alone
