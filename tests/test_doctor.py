"""`iolab doctor` on a saved NFS/SMB client tree (tests/data/doctor/nfs-client) and on this
machine. Expected figures are worked out by hand in the comments."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from conftest import DATA, EXAMPLES

TREE = DATA / "doctor" / "nfs-client"


def doctor(iolab, *args):
    r = iolab("doctor", *[str(a) for a in args], "--json")
    assert r.code == 0, r.err
    return r.json()


def by_id(doc):
    return {(f["id"], f["target"]): f for f in doc["findings"]}


def test_fixture_tree_is_read(iolab):
    d = doctor(iolab, "--root", TREE, "--service", "anf")
    assert d["kernel"] == "5.14.0-362.24.1.el9_3.x86_64"
    assert d["sunrpc"]["tcp_max_slot_table_entries"] == 65536 and d["sunrpc"]["tcp_slot_table_entries"] == 2
    assert d["nfs"]["max_session_slots"] == 64
    m = {x["mount_point"]: x for x in d["mounts"]}
    assert list(m) == ["/mnt/oradata", "/mnt/logs", "/mnt/share", "/mnt/smb"]
    assert m["/mnt/oradata"]["nconnect"] == 4 and m["/mnt/oradata"]["transports"] == 4
    assert m["/mnt/oradata"]["protocol"] == "nfs4.1" and m["/mnt/oradata"]["service"] == "anf"
    assert m["/mnt/logs"]["protocol"] == "nfs3" and m["/mnt/logs"]["nconnect"] == 1
    assert m["/mnt/logs"]["max_slots"] == [65536]
    assert m["/mnt/share"]["service"] == "azure-files" and m["/mnt/share"]["read_ahead_kb"] == 15360
    assert m["/mnt/smb"]["channels"] == 1 and m["/mnt/smb"]["service"] == "azure-files"
    dev = {x["name"]: x for x in d["devices"]}
    assert "loop0" not in dev
    assert dev["md127"]["chunk_kb"] == 512 and dev["md127"]["members"] == ["sdc", "sdd"]
    assert dev["md127"]["level"] == "raid0"
    assert dev["sda"]["scheduler"] == "bfq" and dev["sdc"]["nr_requests"] == 8


def test_findings_for_anf_with_predicted_gains(iolab):
    f = by_id(doctor(iolab, "--root", TREE, "--service", "anf"))
    assert set(f) == {
        ("nfs-nconnect", "/mnt/oradata"), ("nfs-rsize", "/mnt/oradata"), ("nfs-wsize", "/mnt/oradata"),
        ("nfs-read-ahead", "/mnt/oradata"), ("nfs-session-slots", "/mnt/oradata"),
        ("nfs-nconnect", "/mnt/logs"), ("nfs-read-ahead", "/mnt/logs"), ("sunrpc-slot-table", "/mnt/logs"),
        ("smb-multichannel", "/mnt/smb"), ("stripe-size", "md127"), ("block-scheduler", "sda"),
        ("block-queue-depth", "sdc")}
    nc = f[("nfs-nconnect", "/mnt/logs")]
    assert (nc["severity"], nc["now"], nc["recommended"]) == ("fix", 1, 8)
    assert "nconnect=8" in nc["how"] and "performance-linux-mount-options.md" in nc["source"]
    # default workload, 64 KiB reads: one NFS connection carries 1.3 GB/s -> 19,836 IOPS; with 8
    # the ANF Ultra 16 TiB volume's 128 MiB/s per TiB = 2,048 MiB/s binds -> 32,768 IOPS
    assert nc["predicted"]["before"]["iops"] == pytest.approx(1.3e9 / 65536, rel=1e-3)
    assert nc["predicted"]["after"]["iops"] == pytest.approx(32768, rel=1e-3)
    assert nc["predicted"]["before"]["bottleneck"]["kind"] == "connection"
    ss = f[("nfs-session-slots", "/mnt/oradata")]
    assert (ss["now"], ss["recommended"]) == (64, 180)
    assert "max_session_slots=180" in ss["how"]
    # 8 KiB reads, 256 in flight, the session's slots each held 0.5 ms plus the volume's load
    # delay, 0.95 ms x (u - 0.3) / 0.7 at u = X / 262,144 (2,048 MiB/s of 8 KiB; docs/model.md):
    # X (0.5 ms + that) = slots, a quadratic -> 64 slots: about 102,600 IOPS; 180: 177,700
    k = 0.95e-3 / 0.7
    a, b = 0.5e-3 - 0.3 * k, k / 262144

    def loaded(slots: int) -> float:
        return 2 * slots / (a + (a * a + 4 * b * slots) ** 0.5)

    assert (loaded(64), loaded(180)) == (pytest.approx(102_600, rel=1e-3), pytest.approx(177_700, rel=1e-3))
    assert ss["predicted"]["before"]["iops"] == pytest.approx(loaded(64), rel=0.03)
    assert ss["predicted"]["after"]["iops"] == pytest.approx(loaded(180), rel=0.03)
    smb = f[("smb-multichannel", "/mnt/smb")]
    # one channel 14,000 IOPS of 64 KiB; four: the 16 TiB premium share's 3,000 + 16,384 baseline IOPS
    assert smb["predicted"]["after"]["iops"] == pytest.approx(3000 + 16384, rel=1e-3)
    assert "multichannel,max_channels=4" in smb["how"]
    ra = f[("nfs-read-ahead", "/mnt/oradata")]
    assert (ra["now"], ra["recommended"], ra["predicted"]) == (128, 15360, None)
    assert "/sys/class/bdi/0:53/read_ahead_kb" in ra["how"]
    st = f[("sunrpc-slot-table", "/mnt/logs")]
    assert "tcp_max_slot_table_entries=128" in st["how"] and st["now"] == 65536
    assert f[("stripe-size", "md127")]["recommended"] == "64 KiB"
    assert f[("nfs-rsize", "/mnt/oradata")]["now"] == 1048576


def test_unknown_service_uses_anf_guidance_as_warnings(iolab):
    f = by_id(doctor(iolab, "--root", TREE))
    nc = f[("nfs-nconnect", "/mnt/logs")]
    assert nc["severity"] == "warn" and "give --service" in nc["why"]
    assert f[("smb-multichannel", "/mnt/smb")]["severity"] == "fix"       # azure-files by its host name


def test_scenario_drives_the_prediction(iolab):
    d = doctor(iolab, "--root", TREE, "--scenario", EXAMPLES / "oracle-anf-knfs.yaml")
    f = by_id(d)
    nc = f[("nfs-nconnect", "/mnt/logs")]
    assert nc["severity"] == "fix"                                        # the scenario says anf
    assert nc["predicted"]["workload"].endswith("oracle-anf-knfs.yaml")
    # one connection to Azure NetApp Files carries max(1 / 66,850 requests/s, 8 KiB / 1.3 GB/s)
    # per IO: 66,850 IOPS (its bytes alone would allow 158,700); 8 connections: the volume's
    # 2,048 MiB/s -> 262,144
    assert nc["predicted"]["before"]["iops"] == pytest.approx(66850, rel=1e-3)
    assert nc["predicted"]["after"]["iops"] == pytest.approx(262144, rel=1e-3)
    assert f[("smb-multichannel", "/mnt/smb")]["predicted"] is None       # the scenario has no SMB volume
    assert f[("nfs-session-slots", "/mnt/oradata")]["predicted"] is None  # its volume is NFSv3


def test_azure_files_rules(iolab, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(TREE, root)
    mi = root / "proc/self/mountinfo"
    mi.write_text(mi.read_text().replace("stacct01/share rw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,"
                                         "proto=tcp,nconnect=4", "stacct01/share rw,vers=4.1,rsize=1048576,"
                                         "wsize=1048576,namlen=255,hard,proto=tcp,nconnect=8"))
    (root / "sys/class/bdi/0:55/read_ahead_kb").write_text("128\n")
    # mountstats still shows the 4 transports the share has: those are what carry the IO
    f = by_id(doctor(iolab, "--root", root, "--service", "anf"))
    assert ("nfs-nconnect", "/mnt/share") not in f
    ms = root / "proc/self/mountstats"
    text = ms.read_text()
    start = text.index("device stacct01.file.core.windows.net:/stacct01/share")
    ms.write_text(text[:start] + text[text.index("device //stacct01"):])
    f = by_id(doctor(iolab, "--root", root, "--service", "anf"))
    nc = f[("nfs-nconnect", "/mnt/share")]
    assert (nc["severity"], nc["now"], nc["recommended"]) == ("warn", 8, 4)
    assert "nfs-performance.md" in nc["source"]
    assert f[("nfs-read-ahead", "/mnt/share")]["recommended"] == 15360
    assert ("nfs-session-slots", "/mnt/share") not in f                   # no published figure for Azure Files


def test_this_machine(iolab):
    d = doctor(iolab)
    assert d["kernel"] == platform.release()
    names = {x["name"] for x in d["devices"]}
    expected = {p.name for p in Path("/sys/block").iterdir()
                if not p.name.startswith(("loop", "ram", "zram", "sr", "fd", "nbd"))}
    assert names == expected
    r = iolab("doctor")
    assert r.code == 0 and "Doctor for /" in r.out


def test_bad_mountinfo_names_file_and_line(iolab):
    r = iolab("doctor", "--root", str(DATA / "doctor" / "bad-mountinfo"))
    assert r.code == 2
    assert r.err.startswith("error: ") and "bad-mountinfo/proc/self/mountinfo: line 2: not a mountinfo line" in r.err
    assert "Traceback" not in r.err


def test_unreadable_proc_file(iolab, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(TREE, root)
    (root / "proc/sys/sunrpc/tcp_max_slot_table_entries").write_bytes(b"\xff\xfe\x00garbage\x80")
    r = iolab("doctor", "--root", str(root))
    assert r.code == 2
    assert "proc/sys/sunrpc/tcp_max_slot_table_entries: cannot read" in r.err
    (root / "proc/sys/sunrpc/tcp_max_slot_table_entries").write_text("lots\n")
    r = iolab("doctor", "--root", str(root))
    assert r.code == 2 and "tcp_max_slot_table_entries: line 1: expected a whole number" in r.err
    shutil.rmtree(root / "proc/self")
    r = iolab("doctor", "--root", str(root))
    assert r.code == 2 and "proc/self/mountinfo: missing" in r.err


def test_bad_options(iolab):
    r = iolab("doctor", "--service", "nas")
    assert r.code == 2 and r.err.startswith("error: --service: expected one of anf, azure-files, gcnv")
    r = iolab("doctor", "--root", "/no/such/dir")
    assert r.code == 2 and "--root" in r.err


def test_lvm_stripe_against_the_scenario_io_size(iolab, tmp_path):
    d = doctor(iolab, "--root", TREE, "--service", "anf")
    dm = {x["name"]: x for x in d["devices"]}["dm-0"]
    assert (dm["dm_name"], dm["chunk_kb"], dm["members"]) == ("vgdata-lvdata", 64, ["sde", "sdf"])
    assert ("stripe-size", "dm-0") not in by_id(d)                        # 64 KiB suits small IO
    scen = tmp_path / "dw.yaml"
    scen.write_text((EXAMPLES / "oracle-anf-knfs.yaml").read_text().replace("bs: 8k", "bs: 1m"))
    f = by_id(doctor(iolab, "--root", TREE, "--scenario", scen))
    st = f[("stripe-size", "dm-0")]
    assert st["recommended"] == "256 KiB" and "lvcreate -i 2 -I 256k" in st["how"]
    assert f[("stripe-size", "md127")]["recommended"] == "256 KiB"


def test_old_kernel_is_named_in_the_nconnect_finding(iolab, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(TREE, root)
    (root / "proc/sys/kernel/osrelease").write_text("4.12.14-122.37-default\n")
    f = by_id(doctor(iolab, "--root", root, "--service", "anf"))
    assert "this kernel is 4.12.14-122.37-default" in f[("nfs-nconnect", "/mnt/logs")]["why"]


def test_smb_channels_from_debugdata(iolab, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(TREE, root)
    dbg = root / "proc/fs/cifs/DebugData"
    dbg.write_text(dbg.read_text().replace("\tServer interfaces: 1", "\tExtra Channels: 3\n\tServer interfaces: 1"))
    d = doctor(iolab, "--root", root, "--service", "anf")
    assert {m["mount_point"]: m for m in d["mounts"]}["/mnt/smb"]["channels"] == 4
    assert ("smb-multichannel", "/mnt/smb") not in by_id(d)


def test_client_side_queueing_from_mountstats(iolab, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(TREE, root)
    ms = root / "proc/self/mountstats"
    text = ms.read_text()
    logs = text.index("device 10.0.0.5:/logs")
    # /mnt/logs READ: 1000 ops, 900 ms queued, 500 ms RTT -> 0.9 ms queued per READ against 0.5 ms
    text = text[:logs] + text[logs:].replace("READ: 1000 1000 0 150000 65536000 100 500 700 0",
                                              "READ: 1000 1000 0 150000 65536000 900 500 1400 0", 1)
    ms.write_text(text)
    f = by_id(doctor(iolab, "--root", root, "--service", "anf"))
    q = f[("nfs-client-queue", "/mnt/logs")]
    assert q["now"] == "0.9 ms per READ (round trip 0.5 ms)"
    assert "raise nconnect to 8" in q["how"] and "180%" in q["why"]
    assert ("nfs-client-queue", "/mnt/oradata") not in f       # 0.1 ms queued of 0.5 ms: 20 %


@pytest.mark.skipif(not shutil.which("bash") or not Path("/proc/self/mountinfo").exists(), reason="needs bash, /proc")
def test_the_documented_copy_reads_as_this_machine(iolab, tmp_path):
    import json
    import re
    import subprocess

    from conftest import ROOT

    script = re.search(r"```sh\n(mkdir -p client.*?)```", (ROOT / "docs" / "doctor.md").read_text(), re.S).group(1)
    subprocess.run(["bash", "-c", script], cwd=tmp_path, check=True, capture_output=True)
    copy = doctor(iolab, "--root", tmp_path / "client")
    live = doctor(iolab)
    copy.pop("root"), live.pop("root")
    assert json.dumps(copy, sort_keys=True) == json.dumps(live, sort_keys=True)
