"""``performance_plus: true`` on a disk group gives its disks the raised caps of the SKU's
catalog row (Azure's performance plus); any SKU without such a row is refused with the file,
the field and the rule."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

EXAMPLE = EXAMPLES / "p40-performance-plus.yaml"


def test_performance_plus_raises_the_disks_iops_caps(iolab, tmp_path):
    doc = iolab("predict", str(EXAMPLE), "--json").json()
    # two P40 with performance plus: 2 × 16,000 IOPS (7,500 each without)
    assert doc["max_iops"] == pytest.approx(32000, rel=0.001)
    assert doc["bottleneck"]["kind"] == "disk" and "P40 performance plus" in doc["bottleneck"]["resource"]
    assert doc["iops"] == pytest.approx(32000, rel=0.02)
    plain = tmp_path / "plain.yaml"
    plain.write_text(EXAMPLE.read_text().replace("performance_plus: true", "performance_plus: false"))
    before = iolab("predict", str(plain), "--json").json()
    assert before["max_iops"] == pytest.approx(15000, rel=0.001)
    assert all("performance plus" not in r["resource"] for r in before["resources"])
    out = iolab("predict", str(EXAMPLE)).out
    assert "P40 performance plus" in out
    assert "2× P40 (performance plus, caching none)" in iolab("check", str(EXAMPLE)).out


def test_performance_plus_raises_the_throughput_cap(iolab, tmp_path):
    path = tmp_path / "p30.yaml"
    path.write_text("version: 1\nclients: {vm: Standard_E32s_v5}\nvolumes:\n  data:\n    disks:\n"
                    "      - {sku: P30, performance_plus: true}\njobs:\n"
                    "  - {rw: read, bs: 1m, iodepth: 16, ioengine: libaio, direct: 1}\n")
    doc = iolab("predict", str(path), "--json").json()
    assert doc["bandwidth"] == pytest.approx(300e6, rel=0.01)  # P30 with performance plus: 300 MB/s (200 without)
    path.write_text(path.read_text().replace("performance_plus: true", "caching: none"))
    assert iolab("predict", str(path), "--json").json()["bandwidth"] == pytest.approx(200e6, rel=0.01)


@pytest.mark.parametrize("sku", ["P20", "E20", "premium-v2"])
def test_performance_plus_on_a_sku_without_it_is_refused(iolab, tmp_path, sku):
    path = tmp_path / "bad.yaml"
    size = ", size: 512GiB" if sku == "premium-v2" else ""
    path.write_text(f"version: 1\nvolumes:\n  data:\n    disks:\n      - {{sku: {sku}{size}, performance_plus: true}}\n"
                    "jobs:\n  - {rw: randread, bs: 8k}\n")
    for command in ("check", "predict"):
        r = iolab(command, str(path))
        assert r.code == 2 and r.out == ""
        assert r.err == (f"error: {path}: volumes.data.disks[0].performance_plus: performance plus exists only on "
                         f"the disk sizes the catalog gives its limits (P30–P80, E30–E80, S30–S80), not {sku} "
                         "(rule: performance-plus)\n")


def test_the_refused_example_of_the_docs(iolab):
    r = iolab("predict", str(DATA / "scenarios" / "performance-plus-p20.yaml"))
    assert r.code == 2 and "performance-plus" in r.err and r.err.count("\n") == 1


def test_the_simulator_runs_performance_plus_disks_at_their_raised_caps(iolab):
    doc = iolab("simulate", str(EXAMPLE), "--ios", "20000", "--json").json()
    assert doc["iops"] == pytest.approx(32000, rel=0.03)  # 2 × 16,000, as predict (the disks bind)


PLAN = ("version: 1\njobs: [{rw: randread, bs: 8k}]\nrequire: {iops: 12000, capacity: 1TiB}\n"
        "search: {vms: [Standard_D32s_v5], skus: [P30]%s}\n")


def test_plan_searches_performance_plus_and_says_how_to_get_it(iolab, tmp_path):
    # 12,000 IOPS at the default 80 % margin need 15,000: two P30 with performance plus
    # (8,000 each, 16,000) at 2 × $135.17, against three plain P30 (5,000 each). The VM's
    # uncached cap (51,200 IOPS) is not what binds.
    path = tmp_path / "req.yaml"
    path.write_text(PLAN % "")
    doc = iolab("plan", str(path), "--json").json()
    first = doc["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "P30", "count": 2, "caching": "none", "performance_plus": True}]
    assert first["bill"]["disks"] == pytest.approx(2 * 135.17, abs=0.005)
    assert first["prediction"]["bottleneck"]["utilization"] == pytest.approx(12000 / 16000, abs=1e-4)
    out = iolab("plan", str(path)).out
    assert "#1 Standard_D32s_v5 + 2 × P30 performance plus carries the load" in out
    assert "Create its disks with performance plus enabled: it costs nothing more" in out


def test_plan_without_performance_plus(iolab, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text(PLAN % ", performance_plus: false")
    doc = iolab("plan", str(path), "--json", "--top", "10").json()
    assert all("performance_plus" not in d for c in doc["candidates"] for d in c["config"]["disks"])
    first = doc["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "P30", "count": 3, "caching": "none"}]
    assert first["bill"]["disks"] == pytest.approx(3 * 135.17, abs=0.005)
    assert "performance plus" not in iolab("plan", str(path)).out


def test_performance_plus_is_a_disk_search_field(iolab, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text("version: 1\njobs: [{rw: randread, bs: 8k}]\nrequire: {iops: 1000}\n"
                    "search: {kind: share, performance_plus: true}\n")
    r = iolab("plan", str(path))
    assert r.code == 2 and r.out == ""
    assert r.err.strip() == (f"error: {path}: search.performance_plus: performance_plus applies to kind: disks, "
                             f"not kind: share")
