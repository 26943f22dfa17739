"""Bench reads what it runs: read-only jobs on devices and existing files, preconditions
checked before fio starts, failed runs stored as failed (never zeros), and `results list`
and the CSV saying what each run ran."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import subprocess

import pytest

import iolab.cli.bench as cli_bench
from iolab.bench.executor import FakeExecutor, FakeRun
from iolab.bench.fakejson import FakeJob, fio_json
from iolab.bench.jobs import Settings
from iolab.bench.ready import layout_bytes
from iolab.bench.runner import Bench, Request
from iolab.bench.probe import FakeProbe
from iolab.bench.store import ResultsStore
from iolab.errors import InputError, RunError
from iolab.fio import FioJob, parse_jobfile

VERSION = FakeRun(stdout="fio-3.33\n")


def sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def loop_device(tmp_path):
    """A 32 MiB loop device over a file of random bytes (root and losetup, as in CI)."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.fail("this check needs root and losetup (make test runs as root in CI)")
    backing = tmp_path / "disk.img"
    backing.write_bytes(os.urandom(32 * 2**20))
    device = subprocess.run(["losetup", "-f", "--show", str(backing)], capture_output=True, text=True)
    if device.returncode != 0:
        pytest.fail(f"losetup could not attach a loop device: {device.stderr}")
    path = device.stdout.strip()
    try:
        yield path, backing
    finally:
        subprocess.run(["losetup", "-d", path], capture_output=True)


def test_a_read_only_job_runs_on_a_loop_device_and_leaves_it_byte_for_byte(iolab, loop_device, tmp_path):
    device, backing = loop_device
    before = sha(backing)
    r = iolab("bench", "run", "--target", device, "--rw", "randread", "--bs", "4k", "--runtime", "300ms",
              "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "ok" and doc["iops"] > 0 and doc["read"]["iops"] == doc["iops"]
    assert sha(backing) == before
    stored = ResultsStore(tmp_path / "r.db").load(doc["run_id"])
    assert "--readonly" in stored.fio_argv     # fio's own guard: it refuses any write
    # writing to the same device is still refused without --destructive, untouched
    w = iolab("bench", "run", "--target", device, "--rw", "randwrite", "--runtime", "300ms", "--db", tmp_path / "r.db")
    assert w.code == 3 and "--destructive" in w.err
    assert sha(backing) == before


def test_a_read_only_job_runs_on_an_existing_file_and_leaves_it_intact(iolab, tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(8 * 2**20))
    before = sha(data)
    r = iolab("bench", "run", "--target", data, "--rw", "read", "--bs", "64k", "--runtime", "300ms",
              "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    assert r.json()["iops"] > 0
    assert sha(data) == before


def test_a_target_without_room_is_refused_before_fio_starts_and_nothing_is_stored(iolab, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    r = iolab("bench", "run", "--target", target, "--rw", "write", "--size", "64p", "--db", tmp_path / "r.db")
    assert r.code == 2
    assert "--size" in r.err and "free" in r.err and "64 PiB" in r.err
    assert os.listdir(target) == [] and not (tmp_path / "r.db").exists()


def test_free_space_counts_every_clone_and_shared_files_once(tmp_path):
    jobs = parse_jobfile("[a]\nsize=10m\nnumjobs=3\n[b]\nfilesize=1m\nnrfiles=4\n[a]\nsize=10m\nnumjobs=3\n")
    assert layout_bytes(jobs, tmp_path) == 3 * 10 * 2**20 + 4 * 2**20
    # fio's null.fio sizes its job 100 GiB, but the null engine lays out no file: nothing to fit
    null = parse_jobfile("[global]\nbs=4k\n[null]\nioengine=null\nsize=100g\nrw=randread\n")
    assert layout_bytes(null, tmp_path) == 0
    assert layout_bytes(null + jobs, tmp_path) == 3 * 10 * 2**20 + 4 * 2**20
    probe = FakeProbe(free=30 * 2**20)
    with ResultsStore(tmp_path / "r.db") as store:
        ex = FakeExecutor(VERSION)
        bench = Bench(store, executor=ex, probe=probe)
        with pytest.raises(InputError, match="34 MiB of files") as e:
            bench.run(Request(tuple(jobs), str(tmp_path), Settings(runtime=1)))
        assert e.value.field == "--size"
        assert [c for c in ex.calls if "--version" not in c] == []   # fio never ran
        assert store.ids() == []


def test_a_target_that_cannot_be_opened_is_refused_before_fio_starts(tmp_path):
    victim = tmp_path / "dev"
    victim.write_bytes(b"x" * 4096)
    probe = FakeProbe(refused={str(victim): "Operation not permitted (errno 1)"})
    with ResultsStore(tmp_path / "r.db") as store:
        ex = FakeExecutor(VERSION)
        bench = Bench(store, executor=ex, probe=probe)
        with pytest.raises(RunError, match="cannot open .* to read it: Operation not permitted"):
            bench.run(Request((FioJob(name="r", rw="randread", size=4096),), str(victim), Settings(runtime=1)))
        assert store.ids() == []


def test_a_failed_run_is_stored_as_failed_with_fios_message_never_as_zeros(iolab, monkeypatch, tmp_path):
    failing = FakeRun(returncode=1, stderr="fio: pid=0, err=5/file:io_u.c:1841, func=io_u error, error=Input/output error\n",
                      output=fio_json([FakeJob("bench", read_iops=0, error=5)]))
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(VERSION, failing))
    db = tmp_path / "r.db"
    r = iolab("bench", "run", "--target", tmp_path, "--rw", "randread", "--size", "1m", "--db", db)
    assert r.code == 1 and "Input/output error" in r.err
    record = ResultsStore(db).load(1)
    assert record.status == "failed" and "Input/output error" in record.error
    assert record.measured is None and record.jobs == ()      # no figures, not zeros
    listed = iolab("results", "list", "--db", db)
    assert "1 failed run not shown: --all shows them" in listed.out and "Input" not in listed.out
    shown = iolab("results", "list", "--db", db, "--all", "--json").json()
    assert [(x["run_id"], x["status"], x["iops"]) for x in shown["runs"]] == [(1, "failed", None)]
    assert "Input/output error" in shown["runs"][0]["error"]
    assert iolab("results", "list", "--db", db, "--json").json() == {"runs": [], "hidden_failed": 1}


def test_results_list_and_csv_say_what_each_run_ran(iolab, monkeypatch, tmp_path):
    runs = [FakeRun(output=fio_json([FakeJob("bench", read_iops=700, write_iops=300, latency=0.001)]))]
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(VERSION, *runs))
    deep = tmp_path / "a-rather-long-directory-name" / "and-another-one-below-it" / "target"
    deep.mkdir(parents=True)
    db = tmp_path / "r.db"
    r = iolab("bench", "run", "--target", deep, "--rw", "randrw", "--bs", "8k", "--iodepth", "16", "--numjobs", "4",
              "--ioengine", "libaio", "--size", "1m", "--db", db)
    assert r.code == 0, r.err
    listed = iolab("results", "list", "--db", db)
    header = next(line for line in listed.out.splitlines() if "status" in line).split()
    assert header[:8] == ["run", "status", "started", "(UTC)", "name", "rw", "bs", "depth×jobs"]
    row = next(line for line in listed.out.splitlines() if line.strip().startswith("1 "))
    assert row.split()[4:8] == ["bench", "randrw", "8k", "16×4"] and "1,000" in row
    assert str(deep) in row        # not a terminal: the whole path on the row's one line
    rows = list(csv.DictReader(io.StringIO(iolab("results", "export", "--csv", "--db", db).out)))
    assert {(x["name"], x["rw"], x["bs"], x["iodepth"], x["numjobs"]) for x in rows} == {("bench", "randrw", "8k",
                                                                                          "16", "4")}
    doc = iolab("results", "list", "--db", db, "--json").json()
    assert doc["runs"][0]["workload"] == {"name": "bench", "rw": "randrw", "bs": "8k", "iodepth": 16, "numjobs": 4}


def test_a_long_target_folds_after_a_separator_on_a_terminal():
    from iolab.cli.common import fold_path

    path = "/data/benchmarks/azure-netapp-files/ultra-volume-01/iolab"
    lines = fold_path(path, 24).split("\n")
    assert "".join(lines) == path and all(len(x) <= 24 for x in lines)
    assert all(x.endswith("/") for x in lines[:-1])
    assert fold_path(path, None) == path
