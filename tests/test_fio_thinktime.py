"""fio's thinktime: after every ``thinktime_blocks`` IOs (default 1) fio waits for them to
complete, then stalls ``thinktime`` (a bare number is µs). So at most ``thinktime_blocks`` IOs
are in flight per job, and each IO slot waits ``thinktime × depth / thinktime_blocks`` between
an IO and the next: ``X = N / (R + think)`` per job. The figures are checked against fio
itself (ioengine=null: no storage, so only the stalls show), by hand on an Azure disk, and
between the two engines."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

FIO = shutil.which("fio")

NEAR_ZERO = """\
version: 1
volumes:
  dev:
    device: {{read_latency: 1us, write_latency: 1us}}
jobs:
  - fio: "--name=a --bs=4k {options}"
"""


def _write(tmp_path, text: str, name: str = "s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("options, expected", [
    # 2 jobs × min(8, 4) in flight, each stalling 1 ms per 4 IOs: 2 × 4 / 1 ms
    ("--rw=randread --ioengine=libaio --iodepth=8 --thinktime=1000 --thinktime_blocks=4 --numjobs=2", 8000),
    # one IO, then 500 µs: 2,000 a second
    ("--rw=randread --ioengine=libaio --iodepth=1 --thinktime=500", 2000),
    # 64 IOs at depth 16, then 2 ms: 32,000 a second
    ("--rw=randwrite --ioengine=libaio --iodepth=16 --thinktime=2ms --thinktime_blocks=64", 32000),
])
def test_fio_stalls_as_iolab_reads_it(iolab, tmp_path, options, expected):
    assert FIO is not None, "fio is missing: make test installs it"
    out = subprocess.run([FIO, "--name=a", "--ioengine=null", "--bs=4k", "--size=1g", "--runtime=1", "--time_based",
                          "--output-format=json", *[o for o in options.split() if "ioengine" not in o]],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    measured = sum(j["read"]["iops"] + j["write"]["iops"] for j in json.loads(out)["jobs"])
    # fio's stall is a sleep the kernel may end late (timer slack, a busy VM: 500 µs measured as
    # up to 531 µs), never early: fio can fall short of the stalls' rate, not beat it.
    assert expected * 0.9 <= measured <= expected * 1.01
    doc = iolab("predict", str(_write(tmp_path, NEAR_ZERO.format(options=options))), "--json").json()
    assert doc["iops"] == pytest.approx(measured, rel=0.1)
    assert doc["iops"] == pytest.approx(expected, rel=0.002)
    assert doc["latency"]["mean"] == pytest.approx(1e-6, rel=0.01)  # the stall is not the IO's latency
    assert doc.get("warnings", []) == []


def test_a_sync_job_on_a_p30_waits_for_the_disk_and_the_stall(iolab, tmp_path):
    # one synchronous IO at a time on a P30 (2 ms unloaded), then 2,000 µs: 1 / 4 ms = 250 IOPS
    path = _write(tmp_path, "version: 1\nclients: {vm: Standard_DS13}\n"
                            "volumes: {data: {disks: [{sku: P30, count: 1}]}}\n"
                            "jobs: [{rw: read, ioengine: sync, bs: 4k, thinktime: 2000}]\n")
    doc = iolab("predict", str(path), "--json").json()
    assert doc["iops"] == pytest.approx(250, rel=0.01)
    assert doc["latency"]["mean"] == pytest.approx(0.002, rel=0.01)
    assert doc["bottleneck"]["kind"] == "concurrency"


def test_the_simulator_agrees(iolab, tmp_path):
    # 2 × 4 slots, 200 µs per IO, then 1 ms per slot: 8 / 1.2 ms = 6,667 IOPS at 200 µs
    path = _write(tmp_path, "version: 1\nvolumes: {dev: {device: {read_latency: 200us}}}\n"
                            "jobs: [{rw: randread, bs: 4k, ioengine: libaio, iodepth: 8, numjobs: 2,"
                            " thinktime: 1ms, thinktime_blocks: 4}]\n")
    predicted = iolab("predict", str(path), "--json").json()
    simulated = iolab("simulate", str(path), "--json", "--ios", "200000", "--seed", "3").json()
    assert predicted["iops"] == pytest.approx(8 / 0.0012, rel=0.001)
    assert simulated["iops"] == pytest.approx(predicted["iops"], rel=0.02)
    assert simulated["latency"]["mean"] == pytest.approx(0.0002, rel=0.02)


def test_the_stall_lasts_the_longer_of_thinktime_and_its_spin(iolab, tmp_path):
    path = _write(tmp_path, NEAR_ZERO.format(options="--rw=read --ioengine=libaio --thinktime=100 "
                                                     "--thinktime_spin=400 --thinktime_blocks_type=issue"))
    assert iolab("predict", str(path), "--json").json()["iops"] == pytest.approx(1 / 401e-6, rel=0.002)


def test_check_shows_the_stall(iolab, tmp_path):
    job = tmp_path / "t.fio"
    job.write_text("[global]\nioengine=libaio\nrw=randread\n[a]\niodepth=16\nthinktime=2ms\nthinktime_blocks=64\n")
    r = iolab("check", str(job))
    assert r.code == 0
    assert "job a: randread, 4 KiB, libaio, 16 in flight, stalls 2 ms after every 64 IOs" in r.out
    (j,) = iolab("check", str(job), "--json").json()["jobs"]
    assert (j["thinktime"], j["thinktime_blocks"], j["outstanding"]) == (0.002, 64, 16)
    path = _write(tmp_path, NEAR_ZERO.format(options="--rw=read --ioengine=libaio --iodepth=8 --thinktime=1ms "
                                                     "--thinktime_blocks=2"))
    out = iolab("check", str(path)).out
    assert "stalls 1 ms after every 2 IOs" in out
    (j,) = iolab("check", str(path), "--json").json()["jobs"]
    assert (j["thinktime"], j["thinktime_blocks"], j["outstanding"]) == (0.001, 2, 2)


@pytest.mark.parametrize("job, field, words", [
    ("{rw: read, thinktime: -5}", "jobs[0].thinktime", "'-5' is not a fio time"),
    ("{rw: read, thinktime: soon}", "jobs[0].thinktime", "'soon' is not a fio time"),
    ("{rw: read, thinktime: 10, thinktime_blocks: 0}", "jobs[0].thinktime_blocks", "thinktime_blocks must be at least 1"),
    ("{rw: read, thinktime: 10, thinktime_blocks_type: later}", "jobs[0].thinktime_blocks_type",
     "thinktime_blocks_type must be complete or issue, got 'later'"),
])
def test_bad_values_are_refused_with_their_field(iolab, tmp_path, job, field, words):
    path = _write(tmp_path, f"version: 1\nvolumes: {{dev: {{device: {{read_latency: 1ms}}}}}}\njobs:\n  - {job}\n")
    r = iolab("predict", str(path))
    assert r.code == 2 and r.out == ""
    line = r.err.strip()
    assert "\n" not in line and line.startswith(f"error: {path}: {field}: "), line
    assert words in line, line


def test_buffered_nfs_reads_keep_their_stalls(iolab, tmp_path):
    """A buffered sequential reader over NFS is served by read-ahead requests; its stalls still
    bound it: far below the same reader without them."""
    base = ("version: 1\nclients: {vm: Standard_D16s_v5}\n"
            "volumes: {share: {service: anf, level: premium, size: 4TiB, protocol: nfs3}}\n"
            "jobs: [{rw: read, bs: 1m, ioengine: psync, direct: 0%s}]\n")
    fast = iolab("predict", str(_write(tmp_path, base % "", "fast.yaml")), "--json").json()
    slow = iolab("predict", str(_write(tmp_path, base % ", thinktime: 10ms", "slow.yaml")), "--json").json()
    # one 1 MiB read, then 10 ms: at most 100 reads (100 MiB) a second, whatever read-ahead does
    assert slow["bandwidth"] <= 100 * 2**20 * 1.01
    assert slow["bandwidth"] < fast["bandwidth"] / 2


def test_predict_and_simulate_say_the_stall_holds_the_jobs(iolab):
    from conftest import EXAMPLES

    example = str(EXAMPLES / "think-time.yaml")
    doc = iolab("predict", example, "--json").json()
    # 8 clones × min(iodepth 4, thinktime_blocks 4) slots, each waiting 2 ms after its IO
    assert doc["iops"] == pytest.approx(32 / (doc["latency"]["mean"] + 0.002), rel=0.001)
    words = "job app's 32 IO slots each wait 2 ms between IOs"
    assert f"The jobs' thinktime (fio's stall between IOs) holds it, not the storage: {words}" in \
        " ".join(iolab("predict", example).out.split())
    out = " ".join(iolab("simulate", example, "--ios", "20000").out.split())
    assert f"Bottleneck: The jobs' thinktime (fio's stall between IOs) holds it, not the storage: {words}" in out
