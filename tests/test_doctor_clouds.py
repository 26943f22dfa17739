"""doctor's block-device rules on cloud disks as they report themselves (saved trees in
tests/data/doctor: azure-scsi, azure-nvme, gcp-pd, aws-ebs; see README-clouds.md there)."""

from __future__ import annotations

import pytest

from conftest import DATA

D = DATA / "doctor"


def doctor(iolab, tree):
    r = iolab("doctor", "--root", str(D / tree), "--json")
    assert r.code == 0, r.err
    return r.json()


@pytest.mark.parametrize("tree,expected", [
    # name: (cloud, network disk, reports rotational, hardware queues)
    ("azure-scsi", {"sda": ("azure", True, True, None), "sdb": ("azure", True, True, None),
                    "sdc": ("azure", True, True, None)}),
    ("azure-nvme", {"nvme0n1": ("azure", True, False, 4), "nvme1n1": ("azure", False, False, 4)}),
    ("gcp-pd", {"sda": ("gcp", True, True, 2), "sdb": ("gcp", True, True, 2), "nvme0n1": ("gcp", True, False, 2),
                "nvme1n1": ("gcp", False, False, 2)}),
    ("aws-ebs", {"nvme0n1": ("aws", True, False, 2), "nvme1n1": ("aws", True, False, 2),
                 "nvme2n1": ("aws", False, False, 2)}),
])
def test_each_cloud_disk_is_told_by_what_it_reports(iolab, tree, expected):
    devices = {d["name"]: d for d in doctor(iolab, tree)["devices"]}
    assert {n: (d["cloud"], d["network"], d["rotational"], d["hw_queues"]) for n, d in devices.items()} == expected


@pytest.mark.parametrize("tree,flagged", [
    ("azure-scsi", {"sda", "sdb", "sdc"}),   # cfq on Msft Virtual Disk reporting rotational=1
    ("azure-nvme", set()),                   # none
    ("gcp-pd", {"sdb"}),                     # bfq on PersistentDisk reporting rotational=1; sda mq-deadline
    ("aws-ebs", {"nvme1n1"}),                # bfq on an EBS volume
])
def test_the_scheduler_rule_holds_on_cloud_disks_that_report_rotational(iolab, tree, flagged):
    doc = doctor(iolab, tree)
    found = {f["target"]: f for f in doc["findings"] if f["id"] == "block-scheduler"}
    assert set(found) == flagged
    for name, f in found.items():
        assert f["recommended"] == "none" and f["now"] in ("cfq", "bfq")
        assert f"echo none > /sys/block/{name}/queue/scheduler" in f["how"]
    if tree in ("azure-scsi", "gcp-pd"):
        f = next(iter(found.values()))
        assert "network disk" in f["why"] and "reports rotational=1" in f["why"]


def test_a_spinning_disk_that_is_no_cloud_disk_keeps_its_scheduler(iolab, tmp_path):
    # the same tree with the disks' identity changed to a local hard disk: rotational=1 is believed
    import shutil

    tree = tmp_path / "hdd"
    shutil.copytree(D / "azure-scsi", tree)
    for disk in ("sda", "sdb", "sdc"):
        (tree / "sys/block" / disk / "device/vendor").write_text("ATA     \n")
        (tree / "sys/block" / disk / "device/model").write_text("ST4000NM0035-1V4\n")
    r = iolab("doctor", "--root", str(tree), "--json")
    assert r.code == 0, r.err
    assert [f for f in r.json()["findings"] if f["id"] == "block-scheduler"] == []


def test_queue_depth_counts_every_hardware_queue(iolab):
    # EBS nvme1n1: nr_requests 4 on each of 2 hardware queues = 8 < 16: raise to 32 each (64 in all);
    # nvme0n1: 63 × 2 is plenty
    found = [f for f in doctor(iolab, "aws-ebs")["findings"] if f["id"] == "block-queue-depth"]
    assert [(f["target"], f["now"], f["recommended"]) for f in found] == [("nvme1n1", 4, 32)]
    assert "At most 8 requests queue for this disk (4 on each of 2 hardware queues)" in found[0]["why"]
