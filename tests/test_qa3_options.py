"""Options that would change nothing: `doctor --service` on a machine where no share mount is
served by an address warns (exit 0, listed under the JSON's warnings); `characterize
--device` with `--live` is refused (exit 2, the option named)."""

from __future__ import annotations

import shutil

from conftest import DATA


def _no_shares(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(DATA / "doctor" / "nfs-client", root)
    info = root / "proc" / "self" / "mountinfo"
    lines = [ln for ln in info.read_text().splitlines(keepends=True) if " - nfs" not in ln and " - cifs" not in ln]
    info.write_text("".join(lines))
    return root


def test_doctor_service_without_an_address_served_mount_warns(iolab, tmp_path):
    root = _no_shares(tmp_path)
    r = iolab("doctor", "--root", str(root), "--service", "gcnv")
    assert r.code == 0
    assert r.err == (f"warning: --service: --service gcnv changed nothing: no NFS or SMB mount under {root} is "
                     "served by an address (a mount names its service by its server's name, or there is none)\n")
    doc = iolab("doctor", "--root", str(root), "--service", "gcnv", "--json").json()
    assert doc["mounts"] == [] and [w["field"] for w in doc["warnings"]] == ["--service"]


def test_doctor_service_that_names_a_mount_does_not_warn(iolab):
    r = iolab("doctor", "--root", str(DATA / "doctor" / "nfs-client"), "--service", "gcnv", "--json")
    assert r.code == 0 and r.err == ""
    doc = r.json()
    assert doc["warnings"] == [] and any(m["service"] == "gcnv" for m in doc["mounts"])


def test_characterize_live_with_device_is_refused(iolab, tmp_path):
    r = iolab("characterize", "--live", str(tmp_path), "--device", "sda")
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: --device: --device picks among the devices of telemetry files; --live samples one "
                     "device or mount already: give it there (--live DEVICE|MOUNT)\n")


def test_a_paced_requirements_job_is_warned_about(iolab, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text("version: 1\njobs:\n  - {rw: randrw, bs: 8k, iodepth: 8, ioengine: libaio, thinktime: 1ms, "
                    "rate_iops: '500,'}\nrequire: {iops: 8000, capacity: 1TiB}\n"
                    "search: {kind: disks, vms: [Standard_D8s_v5], skus: [P30]}\n")
    words = "paces the job in fio, but a plan runs the workload at the required load"
    for command in (["check"], ["plan"]):
        r = iolab(*command, str(path), "--json")
        assert r.code == 0, r.err
        assert [(w["field"], words in w["message"]) for w in r.json()["warnings"]] == \
            [("jobs[0].rate_iops", True), ("jobs[0].thinktime", True)]
    path.write_text(path.read_text().replace(", thinktime: 1ms, rate_iops: '500,'", ""))
    assert iolab("check", str(path), "--json").json()["warnings"] == []
