"""predict's burst line names the caps whose credits are in play — those that run above
their sustained rate while credits last, so that without their burst they would be the
limit — and is left out when none is (a VM with credits behind a disk that binds). The
JSON ``burst`` section keeps its keys and adds ``spending``."""

from __future__ import annotations

import pytest

VM = "Standard_D4ads_v5"  # 6,400 IOPS uncached, 20,000 on credits (dadsv5-series page)


def _scenario(tmp_path, sku: str, count: int):
    path = tmp_path / f"{sku}-{count}.yaml"
    path.write_text(f"version: 1\nclients: {{vm: {VM}}}\nvolumes:\n  data:\n    disks: [{{sku: {sku}, count: {count}, "
                    "caching: none}]\njobs:\n  - {name: r, rw: randread, bs: 8k, iodepth: 32, numjobs: 4, "
                    "ioengine: libaio, direct: 1}\n")
    return path


def test_a_vm_with_credits_behind_a_binding_disk_shows_no_burst(iolab, tmp_path):
    path = _scenario(tmp_path, "P30", 1)  # one P30: 5,000 IOPS, no credits; the VM sustains 6,400
    doc = iolab("predict", str(path), "--json").json()
    assert doc["bottleneck"]["kind"] == "disk" and doc["iops"] == pytest.approx(5000, rel=0.001)
    burst = doc["burst"]
    assert burst["resources"] == [f"{VM} uncached"] and burst["spending"] == []
    assert burst["iops"] == pytest.approx(doc["iops"], rel=0.001)
    assert "Burst:" not in iolab("predict", str(path)).out


def test_a_disk_bursting_past_a_vm_with_credits_names_the_disk(iolab, tmp_path):
    path = _scenario(tmp_path, "P20", 1)  # P20: 2,300 IOPS sustained, 3,500 on credits
    doc = iolab("predict", str(path), "--json").json()
    assert doc["iops"] == pytest.approx(2300, rel=0.001)
    assert doc["burst"]["spending"] == ["data: P20 #1"] and f"{VM} uncached" in doc["burst"]["resources"]
    assert doc["burst"]["iops"] == pytest.approx(3500, rel=0.001)
    assert doc["burst"]["duration"] == pytest.approx(1800, rel=0.01)  # a P20's bucket: 30 min at full burst
    out = " ".join(iolab("predict", str(path)).out.split())
    assert "Burst: on the burst credits of data: P20 #1 (Standard_D4ads_v5 uncached has credits too, but stays " \
           "within its sustained rate here): 3,500 IOPS" in out


def test_a_vm_that_binds_names_its_own_credits(iolab, tmp_path):
    path = _scenario(tmp_path, "P30", 4)  # 4 × P30: 20,000 IOPS of disks behind the VM's 6,400
    doc = iolab("predict", str(path), "--json").json()
    assert doc["bottleneck"]["kind"] == "vm" and doc["iops"] == pytest.approx(6400, rel=0.001)
    assert doc["burst"]["spending"] == [f"{VM} uncached"]
    assert 6400 * 2 < doc["burst"]["iops"] <= 20000
    out = " ".join(iolab("predict", str(path)).out.split())
    assert f"Burst: on the burst credits of {VM} uncached:" in out and "has credits too" not in out


def test_alike_disks_spending_credits_fold_into_one_name(iolab, tmp_path):
    doc = iolab("predict", str(_scenario(tmp_path, "P20", 4)), "--json").json()
    assert len(doc["burst"]["spending"]) == 5  # the VM and each P20 run above their sustained rates
    out = " ".join(iolab("predict", str(_scenario(tmp_path, "P20", 4))).out.split())
    assert f"Burst: on the burst credits of {VM} uncached, 4 × data: P20 #*:" in out
