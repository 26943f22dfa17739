"""The published cases (docs/sources.md): every published case through `iolab predict --json`, figures within 5 %
and the stated bottleneck kind."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, ROOT

V = ROOT / "tests" / "validation"
MB, MiB = 1e6, 2**20
TOL = 0.05

CASES = [
    # file, expected figures, bottleneck kind(s)
    ("v01-p30-8k.yaml", {"iops": 5000, "bandwidth": 40 * MB}, {"disk"}),
    ("v02-p30-1024k.yaml", {"iops": 200, "bandwidth": 200 * MB}, {"disk"}),
    ("v03-p30-64k.yaml", {"iops": 3200, "bandwidth": 200 * MB}, {"disk"}),
    ("v04-p30-32k.yaml", {"iops": 5000, "bandwidth": 160 * MB}, {"disk"}),
    ("v05-ds1-p30.yaml", {"iops": 3200}, {"vm"}),
    ("v06-ds4-p30-seq.yaml", {"bandwidth": 200 * MB}, {"disk"}),
    ("v07a-ds14-2p30-8k.yaml", {"iops": 10000}, {"disk"}),
    ("v07b-ds14-2p30-1024k.yaml", {"bandwidth": 400 * MB}, {"disk"}),
    ("v08-p30-1ms.yaml", {"iops": 1000, "knee_outstanding": 5}, {"concurrency"}),
    ("v09-ds14-10p30-write.yaml", {"iops": 50000}, {"disk", "vm"}),
    ("v10-anf-ultra-8tib.yaml", {"bandwidth": 1024 * MiB}, {"service"}),
    ("v10-anf-ultra-16tib.yaml", {"bandwidth": 2048 * MiB}, {"service"}),
    ("v10-anf-ultra-32tib.yaml", {"bandwidth": 4096 * MiB}, {"service"}),
    ("v11-gcnv-extreme-4500.yaml", {"bandwidth": 4500 * MiB}, {"service"}),
    ("v12-azure-files-1024g-4k.yaml", {"iops": 4024}, {"service"}),
    ("v12-azure-files-1024g-1m.yaml", {"bandwidth": 203 * MiB}, {"service"}),
    ("v13-anf-smb-one-channel.yaml", {"bandwidth": 875 * MiB}, {"connection"}),
    ("v13-anf-smb-signing.yaml", {"bandwidth": 250 * MiB}, {"connection"}),
    ("v14-nfs41-nconnect1.yaml", {"iops": 64000}, {"session"}),
    ("v14-nfs41-nconnect8.yaml", {"iops": 64000}, {"session"}),
    ("v15-nfs3-nconnect1.yaml", {}, {"connection"}),
    ("v15-nfs3-nconnect8.yaml", {"bandwidth": 2048 * MiB}, {"service"}),
]


def within(actual: float, expected: float, tol: float = TOL) -> bool:
    return abs(actual - expected) <= tol * expected


@pytest.mark.parametrize("name,expected,kinds", CASES, ids=[c[0] for c in CASES])
def test_case(iolab, name, expected, kinds):
    r = iolab("predict", V / name, "--json")
    assert r.code == 0, r.err
    doc = r.json()
    for key, value in expected.items():
        assert within(doc[key], value), f"{key}: {doc[key]} is not within 5 % of {value}"
    assert doc["bottleneck"]["kind"] in kinds, doc["bottleneck"]


def test_v08_curve(iolab):
    """V8: 1,000 IOPS at QD 1 (concurrency), knee 5, 5,000 IOPS and 12.8 ms at QD 64 (disk)."""
    r = iolab("predict", V / "v08-p30-1ms.yaml", "--json", "--sweep", "iodepth=1,5,64")
    assert r.code == 0, r.err
    doc = r.json()
    qd1, qd5, qd64 = doc["points"]
    assert within(qd1["iops"], 1000) and qd1["bottleneck"]["kind"] == "concurrency"
    assert within(qd1["latency"]["mean"], 1e-3)
    assert within(doc["knee_outstanding"], 5)
    assert qd5["iops"] > 3000  # at the knee the curve bends: most of the bound, some queueing
    assert within(qd64["iops"], 5000) and qd64["bottleneck"]["kind"] == "disk"
    assert within(qd64["latency"]["mean"], 12.8e-3)


def test_v11_refused(iolab):
    """V11: one NetApp Volumes volume cannot take 25,600 MiB/s: the rule is named."""
    r = iolab("predict", V / "v11-gcnv-extreme-25600.yaml", "--json")
    assert r.code == 2
    assert "volume-max-throughput" in r.err
    assert "volumes.share.throughput" in r.err and "v11-gcnv-extreme-25600.yaml" in r.err
    assert "4.5 GiB/s" in r.err
    assert r.out == ""


def test_v12_burst(iolab):
    """V12: 10,000 IOPS while the share's burst credits last."""
    doc = iolab("predict", V / "v12-azure-files-1024g-4k.yaml", "--json").json()
    assert within(doc["burst"]["iops"], 10000)
    assert doc["burst"]["duration"] > 0


def test_v14_nconnect_does_not_help_nfs41(iolab):
    one = iolab("predict", V / "v14-nfs41-nconnect1.yaml", "--json").json()
    eight = iolab("predict", V / "v14-nfs41-nconnect8.yaml", "--json").json()
    assert within(eight["iops"], one["iops"], 0.02)


def test_v15_nconnect_helps_nfs3(iolab):
    one = iolab("predict", V / "v15-nfs3-nconnect1.yaml", "--json").json()
    eight = iolab("predict", V / "v15-nfs3-nconnect8.yaml", "--json").json()
    assert eight["iops"] > 1.5 * one["iops"]
    assert eight["bottleneck"]["kind"] != "connection"


def test_v16_direct_nfs_reaches_the_volume(iolab):
    """V16: Direct NFS (many connections) reaches ~2,048 MiB/s; kernel NFS is held by its one
    connection."""
    dnfs = iolab("predict", EXAMPLES / "oracle-anf-dnfs.yaml", "--json").json()
    knfs = iolab("predict", EXAMPLES / "oracle-anf-knfs.yaml", "--json").json()
    assert within(dnfs["bandwidth"], 2048 * MiB) and dnfs["bottleneck"]["kind"] == "service"
    assert knfs["bottleneck"]["kind"] == "connection"
    assert knfs["bandwidth"] < 0.5 * dnfs["bandwidth"]


def test_worked_example(iolab):
    """docs/model.md's worked example and docs/predict.md's JSON: 19,777 IOPS, 6.472 ms, disks 98.9 %,
    VM 77.3 %, knee 40 (MVA with the throttles' residual time)."""
    doc = iolab("predict", EXAMPLES / "oltp-ds13-p30.yaml", "--json").json()
    assert within(doc["iops"], 19777, 0.001)
    assert within(doc["latency"]["mean"], 0.006472, 0.001)
    assert within(doc["read"]["iops"], 13844, 0.001) and within(doc["write"]["iops"], 5933, 0.001)
    assert doc["read"]["latency"]["mean"] == pytest.approx(doc["write"]["latency"]["mean"])
    assert doc["bottleneck"] == {"resource": "data: P30 #1", "kind": "disk", "utilization": pytest.approx(0.989, abs=5e-4),
                                "why": "saturated"}
    vm = next(r for r in doc["resources"] if r["kind"] == "vm")
    assert vm["resource"] == "Standard_DS13 uncached" and vm["utilization"] == pytest.approx(0.7725, abs=5e-4)
    assert doc["outstanding"] == 128 and doc["knee_outstanding"] == pytest.approx(40.0, rel=1e-3)
    assert doc["jobs"][0]["name"] == "oltp"


def test_rate_limited_job(iolab, tmp_path):
    """fio's rate_iops: the job runs at its rate when the path allows more, and its IOs see the
    lightly loaded latency, not N / X; the simulator agrees."""
    path = tmp_path / "rate.yaml"
    path.write_text("volumes:\n  data:\n    disks:\n      - {sku: P30, latency: 1ms}\njobs:\n"
                    "  - {name: capped, rw: randread, bs: 8k, iodepth: 16, numjobs: 2, ioengine: libaio,"
                    " rate_iops: 1000}\n")
    doc = iolab("predict", path, "--json").json()
    assert within(doc["iops"], 2000, 0.001)
    assert 1e-3 <= doc["latency"]["mean"] < 1.5e-3
    assert doc["bottleneck"]["kind"] == "concurrency"
    sim = iolab("simulate", path, "--json", "--ios", "40000").json()
    assert within(sim["iops"], 2000, 0.02)
    assert sim["latency"]["mean"] < 1.6e-3


def test_striped_members_run_in_parallel(iolab):
    """A 1 MiB IO on two P30 striped at 64 KiB touches both disks at once (512 KiB each): one IO
    alone takes the VM's 2.05 ms plus one member's 2.62 ms, not both members' in turn; the
    simulator, which runs the members in parallel, agrees."""
    vm = 2**20 / 512e6
    member = 2**19 / 200e6
    doc = iolab("predict", V / "v07b-ds14-2p30-1024k.yaml", "--json", "--sweep", "iodepth=1").json()
    qd1 = doc["points"][0]
    assert within(qd1["latency"]["mean"], vm + member, 0.01)
    assert within(qd1["iops"], 1 / (vm + member), 0.01)
    sim = iolab("simulate", V / "v07b-ds14-2p30-1024k.yaml", "--json", "--ios", "3000").json()
    assert within(sim["iops"], doc["iops"])
