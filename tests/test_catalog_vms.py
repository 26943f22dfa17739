"""The VM catalog generator (tools/catalog/vms.py) and the catalog it writes.

Fixture pages below imitate the two table styles of Azure's size pages; the expected rows
were worked out by hand from them. The spot checks compare the bundled catalog with
figures read on the saved pages.
"""

from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT
from iolab.catalog import bundled_catalog
from iolab.units import GiB

sys.path.insert(0, str(ROOT))
from tools.catalog import vms as gen  # noqa: E402

MB = 1e6

NEW_STYLE = """---
repository: example/docs
path: sizes/xsv9-series.md
commit: 0123456789abcdef0123456789abcdef01234567
page_date: 2026-01-02
read: 2026-11-24
premium_storage: Supported
---
## Basics
| Size Name | vCPUs (Qty.) | Memory (GB) |
| --- | --- | --- |
| Standard_X2s_v9 | 2 | 8 |
| Standard_X4s_v9<sup>1</sup> | 4 | 16.5 |

## Local Storage
| Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) | Temp Disk Random Read (RR)<sup>1</sup> IOPS | Temp Disk Random Read (RR)<sup>1</sup> Throughput (MB/s) | Temp Disk Random Write (RW)<sup>1</sup> IOPS | Temp Disk Random Write (RW)<sup>1</sup> Throughput (MB/s) |
| --- | --- | --- | --- | --- | --- | --- |
| Standard_X2s_v9 | 1 | 110 | 37,500 | 180 | 15000 | 90 |
| Standard_X4s_v9 | 1 | 220 | 1.5M | 360 | 30000 | 180 |

## Remote Storage
| Size Name | Max Remote Storage (Qty.) | Uncached Premium SSD IOPS | Uncached Premium SSD Throughput (MBps) | Uncached Premium SSD Burst<sup>1</sup> IOPS | Uncached Premium SSD Burst<sup>1</sup> Throughput (MBps) | Uncached Ultra Disk and Premium SSD v2 IOPS | Uncached Ultra Disk and Premium SSD v2 Throughput (MBps) |
| --- | --- | --- | --- | --- | --- | --- | --- |
| Standard_X2s_v9 | 8 | 3,750 | 106 | Up to 40,000 | 1,250 | 4167 | 124 |
| Standard_X4s_v9 | 12 | 6400 | 212 | 40000 | 1250 | 8333 | 248 |

## Network
| Size Name | Max NICs (Qty.) | Max Network Bandwidth (Gbps) |
| --- | --- | --- |
| Standard_X2s_v9 | 2 | 12.5 |
| Standard_X4s_v9 | 2 | 25 |
"""

OLD_STYLE = """---
repository: example/old-docs
path: old/ysv1-series.md
commit: fedcba9876543210fedcba9876543210fedcba98
page_date: 2020-02-03
read: 2026-11-24
---
## Ysv1 Series (SCSI)
| Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | Max data disks | Max cached and temp storage throughput: IOPS/MBps (cache size in GiB) | Max uncached disk throughput: IOPS/MBps | Max NICs/ Expected network bandwidth (Mbps) |
|---|---|---|---|---|---|---|---|
| Standard_Y2s_v1<sup>2</sup> | 2 | 16 | 32 | 4 | 4000/32 (50) | 3200/48 | 2/1000 |
| Standard_Y4s_v1 | 4 | 32 | 64 | 8 | 8000/64 (100) | 6400/96 | 2/2000 |

## Ysv1 Series (NVMe)
| Size | vCPU | Memory: GiB | Max data disks | Max uncached disk throughput: IOPS/MBps | Max NICs/ Expected network bandwidth (Mbps) |
|---|---|---|---|---|---|
| Standard_Y4s_v1 | 4 | 32 | 8 | 9000/120 | 2/2000 |
| Standard_Y8s_v1 | 8 | 64 | 16 | 18000/240 | 4/4000 |
"""

OVERRIDES = """vms:
  Standard_X2s_v9:
    price_per_hour: 0.1
    assumptions: [price_per_month]
    notes: "An example price."
  Standard_Z1:
    {vcpus: 1, memory: 2GiB, max_data_disks: 2, premium_storage: false, source: "a hand-kept row (2019-01-01)"}
"""


def _sources(tmp_path, pages=(("xsv9-series.md", NEW_STYLE), ("ysv1-series.md", OLD_STYLE)), overrides=OVERRIDES):
    folder = tmp_path / "sources"
    folder.mkdir()
    for name, text in pages:
        (folder / name).write_text(text)
    over = tmp_path / "overrides.yaml"
    over.write_text(overrides)
    return folder, over


# ---- the generator on fixture pages


def test_new_style_page_rows_by_hand():
    rows = gen.page_rows(gen.parse_page(NEW_STYLE, "xsv9-series.md"))
    source = "example/docs sizes/xsv9-series.md at 0123456789ab (2026-01-02)"
    assert rows["Standard_X2s_v9"] == {
        "vcpus": 2, "memory": "8GiB", "max_data_disks": 8, "premium_storage": True,
        "uncached_iops": 3750, "uncached_bandwidth": "106MB/s", "burst_iops": 40000, "burst_bandwidth": "1250MB/s",
        "burst_kind": "credit", "temp_iops": 37500, "temp_bandwidth": "180MB/s",
        "premium_v2_iops": 4167, "premium_v2_bandwidth": "124MB/s", "ultra_iops": 4167, "ultra_bandwidth": "124MB/s",
        "network_bandwidth": "12500Mbit/s", "source": source,
    }
    x4 = rows["Standard_X4s_v9"]   # the footnote marker left the name; "1.5M" and "16.5" parsed
    assert (x4["memory"], x4["temp_iops"], x4["network_bandwidth"]) == ("16.5GiB", 1500000, "25000Mbit/s")
    assert set(rows) == {"Standard_X2s_v9", "Standard_X4s_v9"}


def test_old_style_page_rows_by_hand():
    rows = gen.page_rows(gen.parse_page(OLD_STYLE, "ysv1-series.md"))
    source = "example/old-docs old/ysv1-series.md at fedcba987654 (2020-02-03)"
    assert rows["Standard_Y2s_v1"] == {
        "vcpus": 2, "memory": "16GiB", "max_data_disks": 4, "premium_storage": True, "assumptions": ["premium_storage"],
        "cached_iops": 4000, "cached_bandwidth": "32MB/s", "cache_size": "50GiB",
        "temp_iops": 4000, "temp_bandwidth": "32MB/s",
        "uncached_iops": 3200, "uncached_bandwidth": "48MB/s", "network_bandwidth": "1000Mbit/s", "source": source,
    }
    y4 = rows["Standard_Y4s_v1"]   # SCSI figures, NVMe ones in the notes
    assert (y4["uncached_iops"], y4["uncached_bandwidth"]) == (6400, "96MB/s")
    assert "NVMe interface the page gives uncached_iops 9000, uncached_bandwidth 120MB/s" in y4["notes"]
    y8 = rows["Standard_Y8s_v1"]   # on the NVMe table only
    assert (y8["vcpus"], y8["uncached_iops"], y8["network_bandwidth"]) == (8, 18000, "4000Mbit/s")
    assert y8["notes"].startswith("NVMe interface only")
    assert "burst_kind" not in y8 and "cached_iops" not in y8


def test_generated_file_from_fixtures(tmp_path):
    folder, over = _sources(tmp_path)
    text = gen.generate(folder, over)
    assert text == gen.generate(folder, over)  # deterministic
    lines = text.splitlines()
    assert "#   example/docs sizes/xsv9-series.md 0123456789abcdef0123456789abcdef01234567 (2026-01-02)" in lines
    assert ('  Standard_X2s_v9: {vcpus: 2, memory: 8GiB, max_data_disks: 8, premium_storage: true, uncached_iops: 3750, '
            'uncached_bandwidth: 106MB/s, burst_iops: 40000, burst_bandwidth: 1250MB/s, burst_kind: credit, '
            'temp_iops: 37500, temp_bandwidth: 180MB/s, premium_v2_iops: 4167, premium_v2_bandwidth: 124MB/s, '
            'ultra_iops: 4167, ultra_bandwidth: 124MB/s, network_bandwidth: 12500Mbit/s, price_per_hour: 0.1, '
            'source: "example/docs sizes/xsv9-series.md at 0123456789ab (2026-01-02)", '
            'assumptions: [price_per_month], notes: "An example price."}') in lines
    assert ('  Standard_Z1: {vcpus: 1, memory: 2GiB, max_data_disks: 2, premium_storage: false, '
            'source: "a hand-kept row (2019-01-01)"}') in lines
    names = [line.split(":")[0].strip() for line in lines if line.startswith("  Standard_")]
    assert names == ["Standard_X2s_v9", "Standard_X4s_v9", "Standard_Y2s_v1", "Standard_Y4s_v1", "Standard_Y8s_v1",
                     "Standard_Z1"]  # by page, natural order within a page, hand-kept rows last


def test_generated_fixture_file_loads_as_a_catalog(tmp_path):
    from iolab.catalog import load_catalog

    folder, over = _sources(tmp_path)
    out = tmp_path / "vms.yaml"
    assert gen.main(["--sources", str(folder), "--overrides", str(over), "--output", str(out)]) == 0
    vm = load_catalog([out]).vm("Standard_Y2s_v1")
    assert (vm.cached_iops, vm.cached_bandwidth, vm.cache_size) == (4000, 32 * MB, 50 * GiB)
    assert vm.is_assumed("premium_storage")
    assert gen.main(["--sources", str(folder), "--overrides", str(over), "--output", str(out), "--check"]) == 0
    out.write_text(out.read_text().replace("3200", "3201"))
    assert gen.main(["--sources", str(folder), "--overrides", str(over), "--output", str(out), "--check"]) == 1


@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace("| 3,750 |", "| lots |"), "xsv9-series.md: Standard_X2s_v9: 'Uncached Premium SSD IOPS': not a number: 'lots'"),
    (lambda t: t.replace("| 12.5 |", "| 12.5 | 3 |"), "a row has 4 cells, the header 3"),
    (lambda t: t.replace("| Standard_X2s_v9 | 8 | 3,750 | 106 |", "| Standard_X2s_v9 | 8 | 3,750/9 | 106 |"),
     "header 'Uncached Premium SSD IOPS' names 1 values, the cell has 2"),
    (lambda t: t.replace("| Standard_X4s_v9<sup>1</sup> | 4 |", "| Standard_X2s_v9 | 4 |"), "vcpus given twice (2 and 4)"),
    (lambda t: t.replace("commit: 0123456789abcdef0123456789abcdef01234567\n", ""), "front matter lacks 'commit'"),
])
def test_bad_source_stops_the_generator(tmp_path, capsys, edit, message):
    folder, over = _sources(tmp_path, pages=(("xsv9-series.md", edit(NEW_STYLE)),))
    out = tmp_path / "vms.yaml"
    assert gen.main(["--sources", str(folder), "--overrides", str(over), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err
    assert not out.exists()


def test_bad_overrides_and_duplicate_pages(tmp_path):
    folder, over = _sources(tmp_path, overrides="vms:\n  Standard_Q1: {vcpus: 1}\n")
    with pytest.raises(gen.SourceError, match="overrides.yaml: vms.Standard_Q1: a row no page covers needs its source"):
        gen.generate(folder, over)
    over.write_text("vms:\n  Standard_X2s_v9: {vpcus: 3}\n")
    with pytest.raises(gen.SourceError, match=r"vms.Standard_X2s_v9: unknown fields \['vpcus'\]"):
        gen.generate(folder, over)
    (folder / "again.md").write_text(NEW_STYLE)
    over.write_text("vms: {}\n")
    with pytest.raises(gen.SourceError, match="Standard_X2s_v9 is on two pages: again.md and xsv9-series.md"):
        gen.generate(folder, over)


# ---- the bundled catalog


def test_saved_sources_reproduce_the_bundled_file_byte_for_byte():
    assert gen.generate() == gen.OUTPUT.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def vms():
    return bundled_catalog().vms


def test_at_least_400_sizes_in_every_family_asked_for(vms):
    assert len(vms) >= 400
    one_per_family = ["D2s_v5", "D2ds_v5", "D2as_v5", "D2ads_v5", "D2s_v6", "D2ds_v6", "D2as_v6", "D2ads_v6",
                      "D2ls_v5", "D2lds_v5", "D2ls_v6", "D2lds_v6", "E2s_v5", "E2ds_v5", "E2as_v5", "E2ads_v5",
                      "E2bs_v5", "E2bds_v5", "E2s_v6", "E2ds_v6", "E2as_v6", "E2ads_v6", "F2s_v2", "F2as_v6",
                      "L8s_v3", "L8as_v3", "M32ms_v2", "M32dms_v2", "M208s_v2", "DS13", "DS13_v2", "GS5",
                      "D2s_v3", "E2s_v3", "D2s_v4", "D2ds_v4", "E2s_v4", "E2ds_v4", "D2ps_v6", "E2ps_v6"]
    assert {f"Standard_{s}" for s in one_per_family} <= set(vms)


@pytest.mark.parametrize("name,figures", [
    # Ebdsv5 page, SCSI table: 8 vCPU, 64 GiB, 16 disks, 24,200 IOPS / 680 MB/s, burst 40,000 / 1,200,
    # Premium SSD v2 and Ultra 32,400 / 680, temp 38,000 / 500, 12,500 Mbps
    ("Standard_E8bds_v5", dict(vcpus=8, memory=64 * GiB, max_data_disks=16, uncached_iops=24200,
                               uncached_bandwidth=680 * MB, burst_iops=40000, burst_bandwidth=1200 * MB,
                               premium_v2_iops=32400, premium_v2_bandwidth=680 * MB, ultra_iops=32400,
                               temp_iops=38000, temp_bandwidth=500 * MB, network_bandwidth=12500e6 / 8)),
    # Dsv6 page: 48 disks, 25,600 / 848, burst 40,000 / 1,250, v2 and Ultra 33,333 / 992
    ("Standard_D16s_v6", dict(max_data_disks=48, uncached_iops=25600, uncached_bandwidth=848 * MB, burst_iops=40000,
                              burst_bandwidth=1250 * MB, premium_v2_iops=33333, ultra_bandwidth=992 * MB,
                              temp_iops=None, cached_iops=None)),
    # Lsv3 page: local NVMe 3.8M IOPS / 20,000 MB/s; remote 80,000 / 2,160
    ("Standard_L80s_v3", dict(temp_iops=3_800_000, temp_bandwidth=20000 * MB, uncached_iops=80000,
                              uncached_bandwidth=2160 * MB, premium_v2_iops=80000)),
    # Mv2 page: 11,400 GiB; temp/cache 250,000 / 1,600 with a 14,080 GiB cache; 80,000 / 2,000; no burst
    ("Standard_M416ms_v2", dict(memory=11400 * GiB, cached_iops=250000, cached_bandwidth=1600 * MB,
                                cache_size=14080 * GiB, uncached_iops=80000, uncached_bandwidth=2000 * MB,
                                burst_iops=None, burst_kind=None)),
    # Dsv3 page: cache 50 GiB at 4,000 / 32; uncached 3,200 / 48; burst 4,000 / 200; 1,000 Mbps
    ("Standard_D2s_v3", dict(cached_iops=4000, cached_bandwidth=32 * MB, cache_size=50 * GiB, uncached_iops=3200,
                             uncached_bandwidth=48 * MB, burst_iops=4000, burst_bandwidth=200 * MB,
                             network_bandwidth=1000e6 / 8)),
    # Mdsv2 page: cached-and-temp 40,000 / 400 without a cache size -> temp only
    ("Standard_M32dms_v2", dict(temp_iops=40000, temp_bandwidth=400 * MB, cached_iops=None, uncached_iops=20000,
                                burst_iops=40000, burst_bandwidth=1000 * MB)),
    # Msv2 page, footnote 2: with Ultra Disk or Premium SSD v2, 120,000 IOPS / 2,000 MB/s
    ("Standard_M192is_v2", dict(premium_v2_iops=120000, ultra_bandwidth=2000 * MB, uncached_iops=80000)),
    # previous generations, "Max temp storage throughput (IOPS/MBps)" and "5000/ 125": 40,000 / 400 temp
    ("Standard_L8s", dict(temp_iops=40000, temp_bandwidth=400 * MB, uncached_iops=10000, uncached_bandwidth=250 * MB,
                          cached_iops=None, network_bandwidth=8000e6 / 8)),
    ("Standard_GS1", dict(cached_iops=10000, cache_size=264 * GiB, uncached_bandwidth=125 * MB)),
    ("Standard_DS15_v2", dict(vcpus=20, cached_iops=80000, cached_bandwidth=640 * MB, cache_size=720 * GiB,
                              uncached_iops=64000, uncached_bandwidth=960 * MB, network_bandwidth=25000e6 / 8)),
    # Dasv5 page: "3,750", "82" and "12,500" with thousands separators
    ("Standard_D2as_v5", dict(uncached_iops=3750, uncached_bandwidth=82 * MB, burst_bandwidth=600 * MB,
                              network_bandwidth=12500e6 / 8)),
])
def test_spot_checks_against_the_pages(vms, name, figures):
    vm = vms[name]
    assert {k: getattr(vm, k) for k in figures} == figures


def test_every_row_is_sourced_and_bursts_by_credit(vms):
    for vm in vms.values():
        assert re.search(r"\((19|20)\d\d(-\d\d-\d\d)?\)", vm.source), vm.id
        assert (vm.burst_kind == "credit") == (vm.burst_iops is not None), vm.id
    fixed = vms["Standard_E192ids_v6"]   # the page's garbled row, corrected from the Esv6 page
    assert (fixed.uncached_bandwidth, fixed.burst_iops) == (12000 * MB, 260000)
    assert {"uncached_bandwidth", "burst_iops", "burst_bandwidth"} <= set(fixed.assumptions)
    assert vms["Standard_E8bds_v5"].notes.startswith("Remote-disk limits are the page's SCSI figures")


def test_a_generator_checks_then_writes_its_files(tmp_path, capsys):
    from tools.catalog.bundled import write_or_check

    kept, stale = tmp_path / "kept.yaml", tmp_path / "stale.yaml"
    kept.write_text("a: 1\n")
    stale.write_text("b: 1\n")
    files = {kept: "a: 1\n", stale: "b: 2\n", tmp_path / "new.yaml": "c: 3\n"}
    assert write_or_check(files, True, "python -m tools.catalog.vms") == 1
    err = capsys.readouterr().err
    assert f"{stale}: differs from the sources; rerun python -m tools.catalog.vms" in err and "new.yaml" in err
    assert "kept.yaml" not in err and stale.read_text() == "b: 1\n"  # a check writes nothing
    assert write_or_check(files, False, "python -m tools.catalog.vms") == 0
    assert all(p.read_text() == text for p, text in files.items())
    assert write_or_check(files, True, "python -m tools.catalog.vms") == 0
