"""Steady writes through ReadWrite host caching run at the flush path's rate: every write is
flushed later through the VM's uncached limit and the disks, so the cache cannot take more
writes than those carry for long."""

from __future__ import annotations

import pytest

RW = """version: 1
clients: {vm: Standard_DS13}
volumes:
  data:
    disks: [{sku: P30, count: 4, caching: readwrite}]
jobs:
  - {name: w, rw: randwrite, bs: 8k, iodepth: %d, ioengine: libaio, direct: 1}
"""


def test_steady_writes_are_held_by_the_flush_through_the_uncached_limit(iolab, tmp_path):
    """DS13 (no burst credits): cached limit 32,000 IOPS / 256 MB/s, uncached 25,600 IOPS /
    256 MB/s; four P30 take 20,000. The cache alone would take 31,250 writes/s of 8 KiB
    (256 MB/s); the flush through the disks lets 20,000 through, and at 256 in flight each
    write waits 256 / 20,000 = 12.8 ms."""
    path = tmp_path / "rw.yaml"
    path.write_text(RW % 256)
    doc = iolab("predict", path, "--json").json()
    assert doc["iops"] == pytest.approx(20000, rel=0.005)
    assert doc["latency"]["mean"] == pytest.approx(256 / 20000, rel=0.01)
    assert doc["bottleneck"]["kind"] == "disk"
    sim = iolab("simulate", path, "--json", "--ios", "60000", "--seed", "3").json()
    assert sim["iops"] == pytest.approx(doc["iops"], rel=0.05)


def test_light_writes_through_readwrite_caching_see_the_cache(iolab, tmp_path):
    """One write in flight: far below every limit, it is acknowledged by the cache."""
    path = tmp_path / "rw.yaml"
    path.write_text(RW % 1)
    doc = iolab("predict", path, "--json").json()
    assert doc["latency"]["mean"] < 1e-3 and doc["iops"] > 1000
