"""A simulation that measures no IO reports no latency (null in JSON, '-' in the table) and
says why, instead of latencies of 0 s that read as infinitely fast."""

from __future__ import annotations

from conftest import EXAMPLES


def test_no_io_measured_means_no_latency(iolab):
    r = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--duration", "1ms", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["ios"] == 0 and doc["iops"] == 0
    assert set(doc["latency"].values()) == {None}
    assert [w["field"] for w in doc["warnings"]] == ["--duration"]
    assert "no IO completed" in doc["warnings"][0]["message"]
    assert r.err.startswith("warning: ") and "no IO completed" in r.err
    table = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--duration", "1ms")
    total = next(line for line in table.out.splitlines() if "total" in line)
    assert "0.000" not in total and total.count(" - ") >= 5, total


def test_a_measured_run_keeps_its_figures(iolab):
    doc = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--ios", "20000", "--json").json()
    assert doc["warnings"] == []
    assert 0.004 < doc["latency"]["mean"] < 0.01  # 6.6 ms predicted; the simulator agrees within a few %
