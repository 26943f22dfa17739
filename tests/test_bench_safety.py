"""Safety rules of `iolab bench` (docs/bench.md): decided before fio runs, nothing touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iolab.bench.probe import FakeProbe, inspect_target, mount_of, parse_mounts
from iolab.bench.workspace import Workspace
from iolab.bench.write_policy import check_jobs, job_writes
from iolab.errors import InputError, SafetyError
from iolab.fio import FioJob

MOUNTS = """/dev/vda / ext4 rw,relatime 0 0
/dev/sdb1 /data xfs rw,noatime 0 0
/dev/mapper/vg-lv /srv ext4 rw 0 0
tmpfs /dev/shm tmpfs rw 0 0
/dev/sdd /mnt/with\\040space ext4 rw 0 0
"""


def job(rw="randwrite", **kw):
    return FioJob(name="j", rw=rw, **kw)


@pytest.mark.parametrize("rw,writes", [("read", False), ("randread", False), ("write", True),
                                       ("randwrite", True), ("rw", True), ("randrw", True),
                                       ("trim", True), ("randtrim", True), ("trimwrite", True)])
def test_which_jobs_write(rw, writes):
    assert job_writes(job(rw)) is writes


def test_verify_counts_as_write():
    assert job_writes(job("read", options={"verify": "md5"}))
    assert not job_writes(job("read", options={"verify": "0"}))


def test_mount_table_parsing_and_lookup():
    mounts = parse_mounts(MOUNTS)
    assert mounts[4].mountpoint == "/mnt/with space"
    assert mount_of(Path("/data/x/y"), mounts).fstype == "xfs"
    assert mount_of(Path("/datax"), mounts).mountpoint == "/"
    assert mount_of(Path("/mnt/with space/f"), mounts).source == "/dev/sdd"


def test_missing_target_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="does not exist") as e:
        inspect_target(tmp_path / "nope")
    assert e.value.field == "--target"


def test_symlink_is_resolved_before_the_check(tmp_path):
    victim = tmp_path / "data.db"
    victim.write_bytes(b"precious")
    link = tmp_path / "innocent-link"
    link.symlink_to(victim)
    target = inspect_target(link)
    assert target.kind == "file" and target.path == victim
    with pytest.raises(SafetyError, match="existing file"):
        check_jobs(target, [job("write")])
    check_jobs(target, [job("randread")])  # reading is allowed
    check_jobs(target, [job("write")], destructive=True)


def test_directory_target_allows_writes_to_new_files(tmp_path):
    target = inspect_target(tmp_path)
    assert check_jobs(target, [job("randwrite")]) == []


def test_explicit_existing_filename_in_target_refused(tmp_path):
    (tmp_path / "old").write_text("x")
    target = inspect_target(tmp_path)
    with pytest.raises(SafetyError, match="existing file"):
        check_jobs(target, [job("write", filename="old")])
    new = check_jobs(target, [job("write", filename="new1:new\\:2")])
    assert new == [tmp_path / "new1", tmp_path / "new:2"]


def test_filename_outside_target_refused(tmp_path):
    target = inspect_target(tmp_path / ".")
    with pytest.raises(SafetyError, match="outside the target"):
        check_jobs(target, [job("write", filename="../escape")])


def fake_device(path="/dev/sdz", **kw):
    kinds = {path: "block"}
    return FakeProbe(kinds=kinds, **kw)


def test_unmounted_block_device_needs_destructive():
    probe = fake_device(mount_text=MOUNTS)
    target = inspect_target("/dev/sdz", probe)
    with pytest.raises(SafetyError, match="--destructive"):
        check_jobs(target, [job("randwrite")], probe=probe)
    check_jobs(target, [job("randread")], probe=probe)
    check_jobs(target, [job("randwrite")], destructive=True, probe=probe)


@pytest.mark.parametrize("mounts,swaps,families,expect", [
    ("/dev/sdz /mnt ext4 rw 0 0\n", "", {}, "mounted at /mnt"),
    ("", "Filename Type Size Used Priority\n/dev/sdz partition 1 0 -2\n", {}, "swap"),
    ("/dev/sdz1 /boot ext4 rw 0 0\n", "", {"/dev/sdz": {"/dev/sdz1"}}, "/dev/sdz1 is mounted at /boot"),
])
def test_mounted_block_device_refused_even_when_destructive(mounts, swaps, families, expect):
    probe = fake_device(mount_text=mounts, swap_text=swaps, families=families)
    target = inspect_target("/dev/sdz", probe)
    with pytest.raises(SafetyError, match=expect):
        check_jobs(target, [job("write")], destructive=True, probe=probe)


def test_mounted_device_found_by_number_when_the_table_names_it_oddly():
    # the mount table says /dev/root; mountinfo's device number still matches
    probe = fake_device(mount_text="/dev/root / ext4 rw 0 0\n", mounted={"254:0": "/"}, ids={"/dev/sdz": "254:0"})
    with pytest.raises(SafetyError, match=r"device 254:0\) is mounted at /"):
        check_jobs(inspect_target("/dev/sdz", probe), [job("write")], destructive=True, probe=probe)


def test_real_mountinfo_knows_the_root_filesystem():
    from iolab.bench.probe import SystemProbe

    ids = SystemProbe().mounted_ids()
    assert "/" in ids.values() and all(":" in k for k in ids)


def test_character_device_write_refused(tmp_path):
    target = inspect_target("/dev/null")
    assert target.kind == "char"
    with pytest.raises(SafetyError, match="device"):
        check_jobs(target, [job("write")])


@pytest.mark.parametrize("options", [{"write_bw_log": "x"}, {"exec_prerun": "rm -rf ~"}, {"opendir": "/"}])
def test_options_acting_elsewhere_refused(tmp_path, options):
    with pytest.raises(SafetyError, match="outside the files"):
        check_jobs(inspect_target(tmp_path), [job("read", options=options)])


def test_unknown_engine_refused_for_writes(tmp_path):
    with pytest.raises(SafetyError, match="ioengine 'rbd'"):
        check_jobs(inspect_target(tmp_path), [job("write", ioengine="rbd")])


def test_workspace_removes_only_its_own_files(tmp_path):
    (tmp_path / "keep.txt").write_text("keep")
    (tmp_path / "iolab-other.j.0.0").write_text("someone else's")
    ws = Workspace(inspect_target(tmp_path), created=[tmp_path / "named"])
    (tmp_path / f"{ws.prefix}j.0.0").write_bytes(b"x")
    (tmp_path / "named").write_bytes(b"y")
    removed = ws.cleanup()
    assert sorted(p.name for p in removed) == sorted([f"{ws.prefix}j.0.0", "named"])
    assert sorted(os.listdir(tmp_path)) == ["iolab-other.j.0.0", "keep.txt"]


def test_reading_more_than_an_existing_file_holds_is_refused(tmp_path):
    data = tmp_path / "small.db"
    data.write_bytes(b"x" * 4096)
    target = inspect_target(data)
    with pytest.raises(SafetyError, match="fio would extend"):
        check_jobs(target, [job("randread", size=8192)])
    check_jobs(target, [job("randread", size=4096)])
    check_jobs(target, [job("randread")])
