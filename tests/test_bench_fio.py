"""`iolab bench` against the real fio: tiny files, one-second runs, nothing left behind.

Multi-host tests start fio servers on loopback addresses only (127.0.0.2, ...) and stop
them before they end.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from iolab.bench.executor import _die_with_parent
from iolab.bench.probe import SystemProbe
from iolab.bench.store import ResultsStore

FIO = shutil.which("fio")
SMALL = ["--size", "4m", "--runtime", "1"]


def test_fio_is_installed():
    assert FIO, "fio is missing: install it (sudo apt-get install fio) — `make test` does when run as root"


@pytest.fixture
def target(tmp_path):
    path = tmp_path / "dir with space; & $(x) 'q'"
    path.mkdir()
    return path


@pytest.fixture
def remote_target(tmp_path):
    """A target for fio servers: its path goes into the job file, where fio cuts at ';' and '#'."""
    path = tmp_path / "remote dir"
    path.mkdir()
    return path


@pytest.fixture
def direct(target):
    """[] when the target's filesystem takes O_DIRECT, else ['--no-direct'] (old tmpfs)."""
    return [] if SystemProbe().direct_io(target, "probe") else ["--no-direct"]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_run_measures_stores_and_leaves_nothing(iolab, target, direct, tmp_path):
    db = tmp_path / "r.db"
    r = iolab("bench", "run", "--target", target, "--rw", "randrw", "--bs", "4k", *SMALL, *direct,
              "--db", db, "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "ok" and doc["iops"] > 0
    assert doc["iops"] == pytest.approx(doc["read"]["iops"] + doc["write"]["iops"])
    assert 0 < doc["latency"]["p50"] <= doc["latency"]["p99"] <= doc["latency"]["p99.9"]
    assert doc["fstype"] and doc["fio_version"].startswith("fio-3")
    assert os.listdir(target) == []
    listed = iolab("results", "list", "--db", db, "--json").json()["runs"]
    assert [(x["run_id"], x["status"]) for x in listed] == [(doc["run_id"], "ok")]
    shown = iolab("results", "show", str(doc["run_id"]), "--db", db, "--json").json()
    assert shown["iops"] == doc["iops"] and "rw=randrw" in shown["jobfile"]
    csv = iolab("results", "export", "--csv", "--db", db).out.splitlines()
    assert csv[0].startswith("run_id,status") and any(",total,iops," in line for line in csv)


def test_writes_to_existing_files_refused_byte_for_byte(iolab, tmp_path, direct):
    data = tmp_path / "precious.db"
    data.write_bytes(os.urandom(1 << 20))
    link = tmp_path / "link to it"
    link.symlink_to(data)
    before = sha(data)
    for path in (data, link):
        for rw in ("write", "randwrite", "rw", "randrw", "trim"):
            r = iolab("bench", "run", "--target", path, "--rw", rw, *SMALL, "--db", tmp_path / "r.db")
            assert r.code == 3, (path, rw, r.err)
    # reading more than the file holds would make fio extend it: refused as well
    r = iolab("bench", "run", "--target", link, "--rw", "randread", *SMALL, *direct, "--db", tmp_path / "r.db")
    assert r.code == 3 and "fio would extend" in r.err
    r = iolab("bench", "run", "--target", link, "--rw", "randread", "--runtime", "1", *direct,
              "--db", tmp_path / "r.db")
    assert r.code == 0, r.err
    assert sha(data) == before and data.exists() and not data.is_symlink() and link.is_symlink()


def test_destructive_allows_writing_an_existing_file(iolab, tmp_path, direct):
    scratch = tmp_path / "scratch.img"
    scratch.write_bytes(b"\0" * (4 << 20))
    r = iolab("bench", "run", "--target", scratch, "--rw", "randwrite", "--runtime", "1", *direct,
              "--destructive", "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    assert scratch.exists() and scratch.read_bytes() != b"\0" * (4 << 20)  # fio wrote its pattern


def test_sweep_stores_a_run_per_point_reports_a_knee_and_plots(iolab, target, direct, tmp_path):
    plot = tmp_path / "curve.png"
    r = iolab("bench", "run", "--target", target, "--rw", "randread", "--ioengine", "libaio", *SMALL, *direct,
              "--sweep", "iodepth=1,4", "--latency-target", "1s", "--plot", plot, "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [p["params"] for p in doc["points"]] == [{"iodepth": 1}, {"iodepth": 4}]
    best = max(doc["points"], key=lambda p: p["iops"])
    assert doc["knee"]["params"] == best["params"]
    runs = ResultsStore(tmp_path / "r.db").summaries(sweep_id=doc["sweep_id"])
    assert sorted(x.run_id for x in runs) == sorted(p["run_id"] for p in doc["points"])
    png = plot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    assert os.listdir(target) == []


# -- multi-host, on loopback addresses -------------------------------------------------------

def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def _answers(address: str, port: int) -> bool:
    try:
        socket.create_connection((address, port), timeout=0.2).close()
        return True
    except OSError:
        return False


@pytest.fixture
def servers():
    """Start fio servers on 127.0.0.N; stop them all (bounded time) when the test ends."""
    started: list[tuple[subprocess.Popen, str, int]] = []

    def start(n: int) -> list[tuple[subprocess.Popen, str, int]]:
        for i in range(2, 2 + n):
            address = f"127.0.0.{i}"
            port = _free_port(address)
            proc = subprocess.Popen([FIO, f"--server=ip:{address},{port}"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=_die_with_parent)  # gone even if pytest is killed
            started.append((proc, address, port))
        deadline = time.monotonic() + 10
        for proc, address, port in started:
            while not _answers(address, port):
                assert time.monotonic() < deadline, f"fio server on {address}:{port} did not start"
                time.sleep(0.05)
        return started

    yield start
    for proc, _, _ in started:
        kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """Kill a fio server for good: its process group, and the per-connection children it
    forks, which may start sessions of their own (found by the server's unique address)."""
    mark = next(a for a in proc.args if a.startswith("--server="))
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if mark.encode() in argv:
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass
    proc.wait(timeout=10)


def test_bench_server_listens_on_its_address_and_stops_on_ctrl_c():
    port = _free_port("127.0.0.5")
    proc = subprocess.Popen([sys.executable, "-m", "iolab", "bench", "server", "--bind", "127.0.0.5", "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 15
        while not _answers("127.0.0.5", port):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        assert not _answers("127.0.0.1", port)  # bound to its address only
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
        assert not _answers("127.0.0.5", port)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def test_remote_target_that_fio_cannot_read_is_bad_input(iolab, target, tmp_path):
    r = iolab("bench", "run", "--target", str(target), "--client", "127.0.0.2", "--db", tmp_path / "r.db")
    assert r.code == 2 and "--target" in r.err and "';'" in r.err


SCALE_OUT = """version: 1
clients: {count: %d}
volumes:
  local:
    device: {iops: 1000000, bandwidth: 10GB/s, read_latency: 100us}
jobs:
  - {name: probe, rw: randread, bs: 4k, size: 4m}
"""


def test_hosts_are_driven_separately_and_add_up(iolab, servers, remote_target, direct, tmp_path):
    target = remote_target
    hosts = servers(3)
    clients = [a for _, address, port in hosts for a in ("--client", f"{address}:{port}")]
    scenario = tmp_path / "scale-out.yaml"
    scenario.write_text(SCALE_OUT % 3)
    r = iolab("bench", "run", scenario, "--target", str(target), "--runtime", "1", *direct, *clients,
              "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    # the scale-out's prediction sits beside it: three clients, each with one IO in flight
    from iolab.prediction import predict
    from iolab.scenario import load_scenario

    one = tmp_path / "one.yaml"
    one.write_text(SCALE_OUT % 1)
    assert doc["predicted"]["iops"] == pytest.approx(3 * predict(load_scenario(one)).iops, rel=0.01)
    assert [h["host"] for h in doc["hosts"]] == [f"{a}:{p}" for _, a, p in hosts]
    assert all(h["status"] == "ok" and h["iops"] > 0 for h in doc["hosts"])
    assert doc["iops"] == pytest.approx(sum(h["iops"] for h in doc["hosts"]))
    assert doc["bandwidth"] == pytest.approx(sum(h["bandwidth"] for h in doc["hosts"]))
    assert os.listdir(target) == []  # each server removed its own files
    stored = ResultsStore(tmp_path / "r.db").load(doc["run_id"])
    assert len(stored.hosts) == 3 and len(stored.jobs) == 3


def test_a_host_dropping_mid_run_keeps_the_others(iolab, servers, remote_target, direct, tmp_path):
    target = remote_target
    hosts = servers(3)
    victim = hosts[2]
    killer = threading.Timer(1.5, kill_group, args=(victim[0],))
    clients = [a for _, address, port in hosts for a in ("--client", f"{address}:{port}")]
    killer.start()
    try:
        r = iolab("bench", "run", "--target", str(target), "--rw", "randread", "--size", "4m", "--runtime", "3",
                  *direct, *clients, "--db", tmp_path / "r.db", "--json")
    finally:
        killer.join()
    assert r.code == 1
    doc = r.json()
    by_host = {h["host"]: h for h in doc["hosts"]}
    dead = f"{victim[1]}:{victim[2]}"
    assert by_host[dead]["status"] == "failed" and f"host {dead} failed" in r.err
    alive = [h for h in doc["hosts"] if h["host"] != dead]
    assert len(alive) == 2 and all(h["status"] == "ok" and h["iops"] > 0 for h in alive)
    assert doc["iops"] == pytest.approx(sum(h["iops"] for h in alive))
    stored = ResultsStore(tmp_path / "r.db").load(doc["run_id"])
    assert stored.status == "failed" and stored.measured.total.iops == pytest.approx(doc["iops"])


def test_unreachable_host_stops_the_run_before_it_starts(iolab, remote_target, tmp_path):
    port = _free_port("127.0.0.9")
    r = iolab("bench", "run", "--target", str(remote_target), "--client", f"127.0.0.9:{port}", "--db", tmp_path / "r.db")
    assert r.code == 1 and f"127.0.0.9:{port}" in r.err and "iolab bench server" in r.err
    assert ResultsStore(tmp_path / "r.db").ids() == []


# -- killed and interrupted runs -----------------------------------------------------------

def _bench_process(target: Path, db: Path, runtime: str, direct: list[str]) -> subprocess.Popen:
    argv = [sys.executable, "-m", "iolab", "bench", "run", "--target", str(target), "--rw", "randwrite",
            "--size", "4m", "--runtime", runtime, *direct, "--db", str(db), "--json"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for_files(target: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 15
    while not any(n.startswith("iolab-") for n in os.listdir(target)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "fio never laid out its file"
        time.sleep(0.05)
    time.sleep(0.3)


def _gone(target: Path, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while os.listdir(target):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_sigkill_mid_run_leaves_the_database_consistent(iolab, target, direct, tmp_path):
    db = tmp_path / "r.db"
    first = iolab("bench", "run", "--target", target, "--rw", "randread", *SMALL, *direct, "--db", db, "--json")
    assert first.code == 0, first.err
    proc = _bench_process(target, db, "20", direct)
    _wait_for_files(target, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    with ResultsStore(db) as store:
        assert store.integrity() == "ok"
        assert store.ids() == [first.json()["run_id"]]
    raw = sqlite3.connect(db)
    assert raw.execute("SELECT COUNT(*) FROM measurements WHERE run_id != 1").fetchone()[0] == 0
    raw.close()
    assert _gone(target), "fio outlived iolab and left its files"


def test_ctrl_c_stops_fio_removes_files_and_records_interrupted(target, direct, tmp_path):
    db = tmp_path / "r.db"
    proc = _bench_process(target, db, "20", direct)
    _wait_for_files(target, proc)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert os.listdir(target) == []
    with ResultsStore(db) as store:
        (run_id,) = store.ids()
        assert store.load(run_id).status == "interrupted"
