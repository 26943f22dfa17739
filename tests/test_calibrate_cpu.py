"""The generic device's per-IO CPU cost: a `cpu` resource served by the client's cores."""

from __future__ import annotations

import os

import pytest


def _scenario(tmp_path, device: str, clients: str = "{cpus: 2}", iodepth: int = 64):
    path = tmp_path / "s.yaml"
    path.write_text(f"""version: 1
clients: {clients}
volumes:
  disk:
    device: {device}
jobs:
  - {{name: r, rw: randread, bs: 4k, iodepth: {iodepth}, ioengine: libaio, direct: 1, size: 1g}}
""")
    return path


def test_cpu_cost_caps_iops_at_cores_over_cost(iolab, tmp_path):
    doc = iolab(f"predict {_scenario(tmp_path, '{read_latency: 100us, cpu_per_io: 20us}')} --json").json()
    assert doc["max_iops"] == pytest.approx(2 / 20e-6, rel=1e-6)
    assert doc["iops"] == pytest.approx(100_000, rel=0.01)
    assert doc["bottleneck"]["kind"] == "cpu"


def test_cpu_and_device_caps_both_apply(iolab, tmp_path):
    path = _scenario(tmp_path, "{iops: 50000, read_latency: 100us, cpu_per_io: 20us}")
    doc = iolab(f"predict {path} --json").json()
    assert doc["max_iops"] == pytest.approx(50_000, rel=1e-6)
    kinds = {r["kind"] for r in doc["resources"]}
    assert kinds == {"cpu", "device"}
    cpu = next(r for r in doc["resources"] if r["kind"] == "cpu")
    assert cpu["utilization"] == pytest.approx(0.5, abs=0.01)


def test_one_io_alone_still_takes_the_stated_latency(iolab, tmp_path):
    doc = iolab(f"predict {_scenario(tmp_path, '{read_latency: 100us, cpu_per_io: 20us}', iodepth=1)} --json").json()
    assert doc["latency"]["mean"] == pytest.approx(100e-6, rel=1e-6)


def test_cores_default_to_the_vm_then_this_machine(iolab, tmp_path):
    dev = "{read_latency: 100us, cpu_per_io: 10us}"
    doc = iolab(f"predict {_scenario(tmp_path, dev, clients='{vm: Standard_D4s_v5}')} --json").json()
    cpu = next(r for r in doc["resources"] if r["kind"] == "cpu")
    assert "(4 vCPUs)" in cpu["resource"]
    doc = iolab(f"predict {_scenario(tmp_path, dev, clients='{}')} --json").json()
    assert doc["max_iops"] == pytest.approx((os.cpu_count() or 1) / 10e-6, rel=1e-6)


def test_zero_cpu_cost_is_refused(iolab, tmp_path):
    r = iolab(f"predict {_scenario(tmp_path, '{read_latency: 100us, cpu_per_io: 0}')}")
    assert r.code == 2
    assert "volumes.disk.device.cpu_per_io" in r.err
