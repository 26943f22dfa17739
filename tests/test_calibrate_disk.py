"""Proof on this machine: calibrate a generic-device scenario of the local disk from a real
fio sweep (libaio, O_DIRECT, on a temporary directory), then predict held-out points.

The bound is loose on purpose (a shared machine's disk and cores move between points);
``benchmarks/bench_calibrate.py`` measures the same thing with the 10 % target and
docs/performance.md reports it.
"""

from __future__ import annotations

import math

SCENARIO = """version: 1
volumes:
  disk:
    device: {read_latency: 1ms}
jobs:
  - {name: randread, rw: randread, bs: 4k, iodepth: 1, ioengine: libaio, direct: 1, size: 32m}
"""


def _sweep_and_calibrate(iolab, scenario, db) -> dict:
    """One fio sweep of the local disk (iodepth 1 to 16), calibrated on 1, 4 and 16 and
    validated on 2 and 8: the calibration document."""
    sweep = iolab(f"bench run {scenario} --target {scenario.parent} --runtime 500ms --sweep iodepth=1,2,4,8,16 "
                  f"--db {db} --json")
    assert sweep.code == 0, sweep.err
    ids = {p["params"]["iodepth"]: p["run_id"] for p in sweep.json()["points"]}
    fit = ",".join(str(ids[d]) for d in (1, 4, 16))
    held = ",".join(str(ids[d]) for d in (2, 8))
    r = iolab(f"calibrate {scenario} --runs {fit} --validate {held} --db {db} --json")
    assert r.code == 0, r.err
    return r.json()


def test_calibrating_the_local_disk_predicts_held_out_points(iolab, tmp_path):
    """Within a factor of 2 at each held-out point. A disk shared with other work can slow
    one point of a sweep (another process's IO or CPU at that moment), so a sweep that
    misses is measured once more, from scratch; the second must hold."""
    scenario = tmp_path / "disk.yaml"
    scenario.write_text(SCENARIO)
    for attempt in (1, 2):
        doc = _sweep_and_calibrate(iolab, scenario, tmp_path / f"runs-{attempt}.db")
        latency = next(p for p in doc["parameters"] if p["name"] == "volumes.disk.device.read_latency")
        assert latency["identifiable"] and 1e-6 < latency["after"] < 1e-2  # moved off the 1 ms guess to a disk's figure
        assert doc["rms_log_after"] < doc["rms_log_before"]
        misses = [p for p in doc["held_out"]
                  if abs(math.log(p["after"]["iops"] / p["measured"]["iops"])) >= math.log(2)]
        if not misses:
            break
    assert misses == [], misses
