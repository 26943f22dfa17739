"""`iolab check`: a valid file is summarised in a person's units (and as JSON in base units)."""

from __future__ import annotations

from conftest import EXAMPLES


def test_scenario_summary(iolab):
    r = iolab("check", EXAMPLES / "oltp-ds13-p30.yaml")
    assert r.code == 0
    assert "a valid scenario file" in r.out
    assert "4× P30 (caching none), striped at 64 KiB" in r.out
    doc = iolab("check", EXAMPLES / "oltp-ds13-p30.yaml", "--json").json()
    assert doc["jobs"][0]["outstanding"] == 128 and doc["jobs"][0]["bs"] == 8192


def test_requirements_summary(iolab):
    r = iolab("check", EXAMPLES / "oltp-requirements.yaml")
    assert r.code == 0
    assert "a valid requirements file" in r.out
    assert "require: 16,000 IOPS; mean latency ≤ 5 ms; 2 TiB usable" in r.out
    assert "randrw 70% reads, 8 KiB, 128 in flight" in r.out
    doc = iolab("check", EXAMPLES / "oltp-requirements.yaml", "--json").json()
    assert doc["kind"] == "requirements" and doc["require"]["iops"] == 16000


def test_pool_summary(iolab):
    r = iolab("check", EXAMPLES / "pool-requirements.yaml")
    assert r.code == 0
    assert "volume data: 4 TiB, 900 MiB/s" in r.out
