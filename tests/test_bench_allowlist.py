"""Bench safety by allow-list, against the real fio: every way fio found to write or delete
data without --destructive is refused (exit 3, the option named), and no byte, size or
mtime of a file outside the target changes. Sizes are tiny and runs last under a second."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from iolab.bench.probe import SystemProbe

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")


def state(directory: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under `directory`: its content's hash, size and mtime."""
    out = {}
    for p in sorted(directory.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p.relative_to(directory))] = (hashlib.sha256(p.read_bytes()).hexdigest(), st.st_size,
                                                  st.st_mtime_ns)
    return out


@pytest.fixture
def lab(tmp_path):
    """A target directory and, beside it, a directory of data iolab must never touch."""
    target = tmp_path / "target"
    outside = tmp_path / "outside"
    target.mkdir()
    outside.mkdir()
    (outside / "victim.db").write_bytes(os.urandom(8192))
    (outside / "other.db").write_bytes(os.urandom(8192))
    return target, outside


@pytest.fixture
def direct(lab):
    return [] if SystemProbe().direct_io(lab[0], "probe") else ["--no-direct"]


def refused(iolab, lab, jobfile: str, *, target: Path | None = None, extra=(), name="job.fio"):
    """Run `jobfile` (written next to the data) without --destructive; assert exit 3 and
    that nothing outside or in the target changed. Returns stderr."""
    tgt, outside = lab
    path = outside.parent / name
    path.write_text(jobfile)
    before_out, before_tgt = state(outside), state(tgt)
    r = iolab("bench", "run", path, "--target", target or tgt, "--runtime", "1", "--no-direct",
              "--db", outside.parent / "r.db", *extra)
    assert r.code == 3, (r.code, r.err)
    assert "Traceback" not in r.err and r.err.startswith("error: ")
    assert state(outside) == before_out
    assert state(tgt) == before_tgt
    return r.err


def test_randtrimwrite_on_an_existing_file_is_refused(iolab, lab):
    victim = lab[1] / "victim.db"
    err = refused(iolab, lab, "[t]\nrw=randtrimwrite\nbs=4k\n", target=victim)
    assert "writes to existing file" in err and str(victim) in err


def test_unknown_write_modes_are_writes():
    from iolab.bench.write_policy import job_writes
    from iolab.fio import FioJob

    for mode in ("randtrimwrite", "trimwrite", "trim", "randtrim", "rw", "randrw", "write", "randwrite"):
        assert job_writes(FioJob(name="j", rw=mode))
    assert not job_writes(FioJob(name="j", rw="randread"))


def test_read_iolog_replaying_writes_elsewhere_is_refused(iolab, lab):
    victim = lab[1] / "victim.db"
    log = lab[1] / "replay.log"
    log.write_text(f"fio version 2 iolog\n{victim} add\n{victim} open\n{victim} write 0 4096\n{victim} close\n")
    err = refused(iolab, lab, f"[r]\nread_iolog={log}\n")
    assert "'read_iolog=" in err and "allow-list" in err
    err = refused(iolab, lab, f"[r]\nread_iolog={log}\nreplay_redirect={victim}\n", name="j2.fio")
    assert "read_iolog" in err


def test_replay_redirect_alone_is_refused(iolab, lab):
    err = refused(iolab, lab, f"[r]\nrw=read\nreplay_redirect={lab[1] / 'victim.db'}\nsize=4k\n")
    assert "'replay_redirect=" in err


def test_read_past_the_end_of_an_existing_file_is_refused(iolab, lab):
    victim = lab[1] / "victim.db"  # 8 KiB
    err = refused(iolab, lab, "[r]\nrw=read\noffset=64k\nsize=4k\n", target=victim)
    assert "fio would extend" in err and "offset" in err
    err = refused(iolab, lab, "[r]\nrw=read\noffset=8k\n", target=victim, name="j2.fio")
    assert "fio would extend" in err
    err = refused(iolab, lab, "[r]\nrw=read\noffset=4k\noffset_increment=4k\nnumjobs=2\nsize=4k\n",
                  target=victim, name="j3.fio")
    assert "fio would extend" in err


def test_read_past_the_end_of_a_file_inside_the_target_is_refused(iolab, lab):
    (lab[0] / "data.bin").write_bytes(os.urandom(4096))
    err = refused(iolab, lab, "[r]\nrw=read\nfilename=data.bin\noffset=1m\nsize=4k\n")
    assert "fio would extend" in err


def test_the_same_read_with_destructive_grows_the_file(iolab, lab):
    """The control: the refused job does change the file when let through."""
    victim = lab[1] / "victim.db"
    job = lab[1].parent / "grow.fio"
    job.write_text("[r]\nrw=read\noffset=64k\nsize=4k\n")
    r = iolab("bench", "run", job, "--target", victim, "--runtime", "1", "--no-direct", "--destructive",
              "--db", lab[1].parent / "r.db")
    assert r.code == 0, r.err
    assert victim.stat().st_size > 8192


def test_reads_inside_an_existing_file_run_and_leave_it_intact(iolab, lab):
    victim = lab[1] / "victim.db"
    before = state(lab[1])
    job = lab[1].parent / "inside.fio"
    job.write_text("[r]\nrw=randread\noffset=4k\nsize=4k\n")
    r = iolab("bench", "run", job, "--target", victim, "--runtime", "300ms", "--no-direct",
              "--db", lab[1].parent / "r.db", "--json")
    assert r.code == 0, r.err
    assert r.json()["iops"] > 0
    digest = {k: v[:2] for k, v in state(lab[1]).items()}
    assert digest == {k: v[:2] for k, v in before.items()}


def test_exec_engine_is_refused(iolab, lab):
    made = lab[1] / "made-by-exec"
    err = refused(iolab, lab, f"[x]\nioengine=exec\nprogram=/usr/bin/touch\narguments={made}\n")
    assert "ioengine 'exec'" in err and "allow-list" in err
    assert not made.exists()


@pytest.mark.parametrize("rw", ["read", "write"])
def test_filename_outside_the_target_is_refused(iolab, lab, rw):
    new = lab[1] / "new.dat"
    err = refused(iolab, lab, f"[o]\nrw={rw}\nfilename={new}\nsize=4k\n")
    assert "outside the target" in err
    assert not new.exists()
    err = refused(iolab, lab, f"[o]\nrw={rw}\nfilename=../outside/new2.dat\nsize=4k\n", name="j2.fio")
    assert "outside the target" in err


def test_create_only_is_refused(iolab, lab):
    err = refused(iolab, lab, "[c]\ncreate_only=1\nrw=write\nsize=4k\n")
    assert "'create_only=1'" in err


@pytest.mark.parametrize("option", ["write_bw_log=bw", "write_lat_log=lat", "write_iops_log",
                                    "write_hist_log=h", "write_iolog=io.log", "exec_prerun=touch x",
                                    "exec_postrun=touch x", "opendir=/", "ioscheduler=none",
                                    "unlink=1", "unlink_each_loop=1", "verify_state_save=1", "fill_device=1",
                                    "lockfile=exclusive", "cgroup=x"])
def test_options_off_the_list_are_refused_and_named(iolab, lab, option):
    err = refused(iolab, lab, f"[o]\nrw=read\nsize=4k\n{option}\n")
    assert f"option '{option.split('=')[0]}" in err


@pytest.mark.parametrize("engine", ["filecreate", "filedelete", "ftruncate", "falloc", "sg", "net", "http"])
def test_engines_off_the_list_are_refused(iolab, lab, engine):
    err = refused(iolab, lab, f"[e]\nrw=read\nsize=4k\nioengine={engine}\n")
    assert f"ioengine {engine!r}" in err


@pytest.mark.parametrize("option", ["exec_prerun=touch /tmp/x", "write_bw_log=bw", "read_iolog=/tmp/log"])
def test_remote_jobs_get_the_same_checks(iolab, lab, option):
    # refused before any host is contacted: no server is needed (the port answers nothing)
    err = refused(iolab, lab, f"[r]\nrw=read\nsize=4k\n{option}\n",
                  extra=("--client", "127.0.0.1:1"), target="/remote/dir")
    assert f"option '{option.split('=')[0]}" in err


def test_remote_jobs_may_not_name_files(iolab, lab):
    err = refused(iolab, lab, "[r]\nrw=read\nfilename=/etc/hostname\nsize=4k\n",
                  extra=("--client", "127.0.0.1:1"), target="/remote/dir")
    assert "filename=/etc/hostname" in err


def test_destructive_lifts_the_allow_list_but_not_mounted_devices(lab):
    from iolab.bench.probe import FakeProbe, inspect_target
    from iolab.bench.write_policy import check_jobs
    from iolab.errors import SafetyError
    from iolab.fio import parse_jobfile

    jobs = parse_jobfile("[x]\nioengine=exec\nprogram=/bin/true\n[y]\nrw=read\ncreate_only=1\n")
    check_jobs(inspect_target(lab[0]), jobs, destructive=True)
    probe = FakeProbe(kinds={"/dev/sdz": "block"}, mount_text="/dev/sdz /mnt ext4 rw 0 0\n")
    with pytest.raises(SafetyError, match="even with --destructive"):
        check_jobs(inspect_target("/dev/sdz", probe), parse_jobfile("[w]\nrw=randtrimwrite\n"),
                   destructive=True, probe=probe)


def test_stonewalled_phases_share_one_file_and_leave_nothing(iolab, lab, direct):
    target, outside = lab
    job = outside.parent / "phases.fio"
    job.write_text("[global]\nfilename=shared.dat\nsize=1m\nbs=4k\n\n"
                   "[lay]\nrw=write\n\n[check]\nstonewall\nrw=read\n")
    before = state(outside)
    r = iolab("bench", "run", job, "--target", target, "--runtime", "300ms", *direct,
              "--db", outside.parent / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    by_name = {j["name"]: j for j in doc["jobs"]}
    assert by_name["lay"]["iops"] > 0 and by_name["check"]["iops"] > 0
    jobfile = iolab("results", "show", str(doc["run_id"]), "--jobfile", "--db", outside.parent / "r.db").out
    assert "unlink" not in jobfile
    assert os.listdir(target) == []
    assert state(outside) == before


def test_jobs_of_the_same_name_keep_their_files_until_the_end(iolab, lab, direct):
    target, outside = lab
    job = outside.parent / "same.fio"
    job.write_text("[p]\nrw=write\nsize=256k\n\n[p]\nstonewall\nrw=read\nsize=256k\n\n[q]\nstonewall\nrw=read\nsize=256k\n")
    r = iolab("bench", "run", job, "--target", target, "--runtime", "200ms", *direct,
              "--db", outside.parent / "r.db", "--json")
    assert r.code == 0, r.err
    jobfile = iolab("results", "show", str(r.json()["run_id"]), "--jobfile", "--db", outside.parent / "r.db").out
    sections = jobfile.split("\n\n")
    assert ["unlink=1" in s for s in sections] == [False, False, True]
    assert os.listdir(target) == []


def test_the_docs_list_the_whole_allow_list():
    import re

    from conftest import ROOT
    from iolab.bench import allowlist

    text = (ROOT / "docs" / "bench.md").read_text()
    listed = text.split("The complete list of options allowed without `--destructive`:", 1)[1]
    allowed, off = listed.split("Allowed only switched off (`=0`):", 1)
    off = off.split("\n\n", 1)[0]
    assert set(re.findall(r"`([^`]+)`", allowed)) == set(allowlist.OPTIONS)
    assert set(re.findall(r"`([^`]+)`", off)) == set(allowlist.OFF)


@pytest.mark.parametrize("option", ["write_iolog=0", "read_iolog=0"])
def test_a_file_option_named_0_is_not_switched_off(iolab, lab, option):
    err = refused(iolab, lab, f"[o]\nrw=read\nsize=4k\n{option}\n")
    assert f"'{option}'" in err


def test_boolean_options_switched_off_are_harmless(iolab, lab, direct):
    job = lab[1].parent / "off.fio"
    job.write_text("[o]\nrw=write\nsize=64k\nunlink=0\ncreate_only=0\nfill_device=0\nverify_state_save=0\n")
    r = iolab("bench", "run", job, "--target", lab[0], "--runtime", "200ms", *direct, "--db", lab[1].parent / "r.db")
    assert r.code == 0, r.err
    assert os.listdir(lab[0]) == []
