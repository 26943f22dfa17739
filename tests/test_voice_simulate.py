"""simulate and predict speak of the same thing the same way: one utilization definition, a
word when the simulator runs on burst credits or a cold cache, a bottleneck line in words,
and no burst line that changes nothing."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

BURST = DATA / "scenarios" / "vm-burst.yaml"
SUSTAINED_VM_IOPS = 25_600  # Standard_D16s_v5 uncached IOPS (catalog)


def _by_resource(doc):
    return {r["resource"]: r for r in doc["resources"]}


def test_simulate_utilization_is_predicts_for_the_same_load(iolab):
    pred = iolab(f"predict {EXAMPLES / 'oltp-ds13-p30.yaml'} --json").json()
    sim = iolab(f"simulate {EXAMPLES / 'oltp-ds13-p30.yaml'} --ios 100000 --json").json()
    scale = sim["iops"] / pred["iops"]  # the same U = X × D: utilization scales with throughput
    p, s = _by_resource(pred), _by_resource(sim)
    for name, row in p.items():
        assert s[name]["utilization"] == pytest.approx(row["utilization"] * scale, rel=0.03), name


def test_a_bursting_cap_reads_above_100_percent_of_its_sustained_rate(iolab):
    sim = iolab(f"simulate {BURST} --ios 100000 --json").json()
    vm = _by_resource(sim)["Standard_D16s_v5 uncached"]
    assert vm["utilization"] == pytest.approx(sim["iops"] / SUSTAINED_VM_IOPS, rel=0.02)
    assert vm["utilization"] > 1.1 and vm["busy"] < 1.0  # faster at the burst rate, so less busy
    (used,) = sim["bursting"]
    assert used["resource"] == "Standard_D16s_v5 uncached"
    assert used["utilization"] == pytest.approx(vm["utilization"])
    assert 0 < used["credits_left"] <= 1


def test_simulate_says_when_it_runs_on_burst_credits(iolab):
    r = iolab(f"simulate {BURST} --ios 100000")
    assert r.code == 0, r.err
    line = next(ln for ln in r.out.splitlines() if ln.startswith("Bursting:"))
    pct = float(line.split(" at ")[1].split("%")[0])
    sim = iolab(f"simulate {BURST} --ios 100000 --json").json()
    assert pct == pytest.approx(100 * sim["iops"] / SUSTAINED_VM_IOPS, abs=1)
    assert "Bursting:" not in iolab(f"simulate {EXAMPLES / 'oltp-ds13-p30.yaml'} --ios 50000").out


def test_a_cold_cache_that_is_still_warming_is_named(iolab):
    r = iolab(f"simulate {EXAMPLES / 'sql-data-and-log.yaml'} --ios 100000")
    assert "Warming up: Standard_DS14 host cache (data) started cold" in r.out
    doc = iolab(f"simulate {EXAMPLES / 'sql-data-and-log.yaml'} --ios 100000 --json").json()
    (w,) = doc["warming"]
    assert w["hit_ratio"] < 0.5 * w["warm_hit_ratio"]


def test_with_a_warm_cache_simulate_and_predict_agree_on_the_cached_cap(iolab, tmp_path):
    """The 99.7 % vs 31.6 % gap of sql-data-and-log is the cold start, not the definition."""
    warm = tmp_path / "warm.yaml"
    warm.write_text((EXAMPLES / "sql-data-and-log.yaml").read_text().replace("cache: cold", "cache: warm"))
    pred = _by_resource(iolab(f"predict {warm} --json").json())
    sim = iolab(f"simulate {warm} --ios 200000 --json").json()
    assert sim["warming"] == []
    got = _by_resource(sim)
    for name in ("Standard_DS14 cached", "data: P30 #1", "Standard_DS14 uncached"):
        assert got[name]["utilization"] == pytest.approx(pred[name]["utilization"], abs=0.04), name


def test_the_bottleneck_line_is_words_not_a_repeated_kind(iolab, tmp_path):
    qd1 = tmp_path / "qd1.yaml"
    qd1.write_text((EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("iodepth: 32", "iodepth: 1")
                   .replace("numjobs: 4", "numjobs: 1"))
    out = iolab(f"simulate {qd1} --ios 20000").out
    line = next(ln for ln in out.splitlines() if ln.startswith("Bottleneck:"))
    assert "concurrency (concurrency" not in line
    assert "Nothing is saturated" in line and "too few IOs in flight (1)" in line
    said = next(ln for ln in iolab(f"predict {qd1}").out.splitlines() if ln.startswith("Bottleneck:"))
    assert said.split(":")[1] == line.split(":")[1]  # one wording for both engines


def test_a_burst_line_that_changes_nothing_is_not_printed(iolab):
    doc = iolab(f"predict {EXAMPLES / 'sql-data-and-log.yaml'} --json").json()
    assert doc["burst"]["iops"] == pytest.approx(doc["iops"], rel=0.01)  # the P20 log bursts: +0.1 %
    assert "Burst:" not in iolab(f"predict {EXAMPLES / 'sql-data-and-log.yaml'}").out
    assert "Burst: on the burst credits of Standard_D16s_v5 uncached:" in iolab(f"predict {BURST}").out
    sim = iolab(f"simulate {EXAMPLES / 'sql-data-and-log.yaml'} --ios 50000").out
    assert "Bursting:" not in sim and "left at the end" not in sim  # the log disks earn credits as fast as they spend
