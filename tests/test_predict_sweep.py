"""Predict sweeps on any option that changes the model, grids of them, and the curve on a
path without caps."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

OLTP = EXAMPLES / "oltp-ds13-p30.yaml"           # randrw 70/30 8k on 4 × P30, disk-bound
NFS = EXAMPLES / "azure-files-nfs-nconnect1.yaml"
UNCAPPED = DATA / "scenarios" / "latency-only-device.yaml"


def test_a_grid_predicts_every_combination_first_axis_slowest(iolab):
    doc = iolab(f"predict {OLTP} --json --sweep bs=4k,64k --sweep iodepth=1,8").json()
    assert [p["values"] for p in doc["points"]] == [
        {"bs": 4096, "iodepth": 1}, {"bs": 4096, "iodepth": 8}, {"bs": 65536, "iodepth": 1}, {"bs": 65536, "iodepth": 8}]
    for p in doc["points"]:
        assert p["bandwidth"] == pytest.approx(p["iops"] * p["values"]["bs"], rel=1e-3)  # every IO is bs
        assert p["outstanding"] == 4 * p["values"]["iodepth"]  # numjobs 4 kept


def test_rwmixread_sets_the_read_share(iolab):
    doc = iolab(f"predict {OLTP} --json --sweep rwmixread=0,30,100").json()
    for p in doc["points"]:
        share = p["values"]["rwmixread"] / 100
        reads = (p.get("read") or {}).get("iops", 0.0)
        assert reads == pytest.approx(share * p["iops"], rel=1e-3, abs=0.1)


def test_count_and_clients_change_the_path(iolab):
    disks = iolab(f"predict {OLTP} --json --sweep count=2,4").json()["points"]
    assert disks[1]["max_iops"] == pytest.approx(2 * disks[0]["max_iops"], rel=0.01)  # twice the P30s
    clients = iolab(f"predict {OLTP} --json --sweep clients=1,2").json()["points"]
    assert clients[1]["outstanding"] == 2 * clients[0]["outstanding"]


def test_nconnect_and_rate_iops(iolab):
    doc = iolab(f"predict {NFS} --json --sweep nconnect=1,4 --sweep iodepth=64").json()
    one, four = doc["points"]
    assert four["iops"] > 2 * one["iops"]  # one connection's slots and bandwidth held it
    paced = iolab(f"predict {OLTP} --json --sweep rate_iops=100,1000").json()["points"]
    assert [p["iops"] for p in paced] == [pytest.approx(400, rel=0.01), pytest.approx(4000, rel=0.01)]  # 4 jobs


@pytest.mark.parametrize("sweep, words", [
    ("nconnect=1,4", "the scenario has no share volume (nconnect) to sweep"),
    ("rwmixread=120", "rwmixread must be at most 100, got 120"),
    ("bs=big", "bs values must each be a size"),
    ("ramp_time=1,2", "expected OPTION=V1,V2,... with OPTION one of bs, rwmixread"),
])
def test_a_bad_sweep_names_the_option(iolab, sweep, words):
    r = iolab(f"predict {OLTP} --sweep {sweep}")
    assert r.code == 2 and "--sweep" in r.err and words in r.err and "Traceback" not in r.err


def test_an_option_swept_twice_is_refused(iolab):
    r = iolab(f"predict {OLTP} --sweep iodepth=1,2 --sweep iodepth=4")
    assert r.code == 2 and "iodepth is swept twice" in r.err


def test_plot_on_a_path_without_caps(iolab, tmp_path):
    """Nothing caps a device given only its latencies: the knee is infinite, and the curve
    still goes up to iodepth 64 instead of failing."""
    plot = tmp_path / "curve.svg"
    r = iolab(f"predict {UNCAPPED} --plot {plot} --json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["knee_outstanding"] is None or doc["knee_outstanding"] == float("inf")
    assert [p["values"]["iodepth"] for p in doc["points"]] == [1, 2, 4, 8, 16, 32, 64]
    # at the unloaded latency, IOPS grow with every IO in flight: 64 / 90 µs
    assert doc["points"][-1]["iops"] == pytest.approx(64 / 90e-6, rel=0.01)
    assert plot.read_text().startswith("<?xml")
    assert "Knee: none" in iolab(f"predict {UNCAPPED}").out


def test_the_grid_plot_draws_one_curve_per_value_of_the_second_option(iolab, tmp_path):
    plot = tmp_path / "grid.svg"
    r = iolab(f"predict {NFS} --sweep iodepth=1,16 --sweep nconnect=1,4,8 --plot {plot}")
    assert r.code == 0, r.err
    svg = plot.read_text()
    for legend in ("nconnect=1", "nconnect=4", "nconnect=8"):
        assert legend in svg


def test_the_report_draws_the_curve_without_caps(iolab, tmp_path):
    page = tmp_path / "r.html"
    r = iolab(f"report predict {UNCAPPED} -o {page}")
    assert r.code == 0, r.err
    assert "predicted latency vs IOPS" in page.read_text()  # the curve's figure
