"""Counters that go backwards between snapshots (a reboot, a remount, a damaged snapshot)
never become negative or absurd figures: that interval is left out, with a note saying so,
and the other intervals keep their exact figures."""

from __future__ import annotations

import math

import pytest

from conftest import DATA


def _disk(t: float, reads: int, sectors: int) -> str:
    # sda: `reads` reads of `sectors` sectors in total, 1 ms each; nothing else
    return f"{1795514400 + t:.9f}\n   8       0 sda {reads} 0 {sectors} {reads} 0 0 0 0 0 {reads // 10} {reads}\n"


def _characterize(iolab, path):
    r = iolab("characterize", str(path), "--no-store", "--json")
    assert r.code == 0, r.err
    return r.json()


def test_a_reboot_between_diskstats_snapshots_is_left_out(iolab, tmp_path):
    path = tmp_path / "diskstats.log"
    # 1000 reads/s for 10 s, then a reboot (counters from zero), then 500 reads/s for 10 s
    path.write_text(_disk(0, 5_000_000, 40_000_000) + _disk(10, 5_010_000, 40_080_000)
                    + _disk(20, 100, 800) + _disk(30, 5_100, 40_800))
    d = _characterize(iolab, path)
    iops = d["combined"]["read"]["iops"]
    assert iops["max"] == pytest.approx(1000) and iops["p50"] >= 500 - 1e-6
    assert d["samples"] == 2
    assert any("line 5" in n and "went backwards" in n for n in d["source"]["notes"]), d["source"]["notes"]


def test_a_32_bit_counter_coming_round_still_counts(iolab, tmp_path):
    path = tmp_path / "diskstats.log"
    start = 2**32 - 3000                   # 8000 reads in 10 s across the wrap; 1 ms each
    path.write_text(f"1795514400.0\n   8       0 sda {start} 0 8000 1000 0 0 0 0 0 100 1000\n"
                    f"1795514410.0\n   8       0 sda 5000 0 72000 9000 0 0 0 0 0 900 9000\n")
    d = _characterize(iolab, path)
    assert d["combined"]["read"]["iops"]["max"] == pytest.approx(800)
    assert d["combined"]["read"]["latency"]["max"] == pytest.approx(0.001)


def test_every_interval_left_out_says_why(iolab, tmp_path):
    path = tmp_path / "diskstats.log"
    path.write_text(_disk(0, 5_000_000, 40_000_000) + _disk(10, 100, 800))
    r = iolab("characterize", str(path), "--no-store")
    assert r.code == 2
    assert r.err.startswith(f"error: {path}: no samples") and "went backwards" in r.err and r.err.count("\n") == 1


def test_a_truncated_mountstats_snapshot_gives_no_negative_figure(iolab, tmp_path):
    text = (DATA / "telemetry" / "mountstats.log").read_text()
    lines = text.splitlines(keepends=True)
    cut = max(i for i, ln in enumerate(lines) if ln.strip().startswith("READ:"))  # the last snapshot loses it
    path = tmp_path / "mountstats.log"
    path.write_text("".join(lines[:cut]))
    d = _characterize(iolab, path)
    for direction in ("read", "write", "total"):
        for v in d["combined"][direction]["iops"].values():
            assert v is None or (math.isfinite(v) and v >= 0), (direction, d["combined"][direction])
    assert any("went backwards" in n for n in d["source"]["notes"]), d["source"]["notes"]
