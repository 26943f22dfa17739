"""`iolab bench run` with a fake fio: job files, failures explained, storage, prediction."""

from __future__ import annotations

import hashlib
import os

import pytest

import iolab.cli.bench as cli_bench
from iolab.bench.executor import FakeExecutor, FakeRun
from iolab.bench.fakejson import FakeJob, fio_json
from iolab.bench.jobs import Settings
from iolab.bench.runner import Bench, Request
from iolab.bench.probe import FakeProbe
from iolab.bench.store import ResultsStore
from iolab.errors import RunError
from iolab.fio import FioJob

VERSION = FakeRun(stdout="fio-3.33\n")


def fio_run(*jobs: FakeJob, **kw) -> FakeRun:
    return FakeRun(output=fio_json(jobs), **kw)


class Fakes:
    """A fresh FakeExecutor (fio's version, then `runs`) for every command; `last` is the latest."""

    def __init__(self, runs):
        self.runs = runs
        self.made: list[FakeExecutor] = []

    def __call__(self) -> FakeExecutor:
        self.made.append(FakeExecutor(VERSION, *self.runs))
        return self.made[-1]

    @property
    def last(self) -> FakeExecutor:
        return self.made[-1]

    @property
    def calls(self):
        return self.last.calls

    @property
    def jobfiles(self):
        return self.last.jobfiles


@pytest.fixture
def fake(monkeypatch):
    """Install a fake fio for the CLI: ``fake(run, ...)`` returns the Fakes."""

    def install(*runs):
        fakes = Fakes(runs)
        monkeypatch.setattr(cli_bench, "make_executor", fakes)
        return fakes

    return install


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_flags_make_the_job_file_fio_runs(iolab, fake, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    ex = fake(fio_run(FakeJob("bench", read_iops=2000, latency=0.0005)))
    r = iolab("bench", "run", "--target", target, "--rw", "randread", "--bs", "8k", "--iodepth", "4",
              "--ioengine", "libaio", "--size", "4m", "--runtime", "2", "--ramp", "500ms",
              "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    argv, cwd = ex.calls[1]
    assert argv[0] == "fio" and "--output-format=json+" in argv and cwd == str(target)
    jobfile = ex.jobfiles[0]
    for line in ("rw=randread", "bs=8192", "iodepth=4", "ioengine=libaio", "size=4194304", "runtime=2",
                 "time_based", "ramp_time=500000us", "direct=1", "lat_percentiles=1", "unlink=1"):
        assert line in jobfile.splitlines(), line
    assert "filename_format=iolab-" in jobfile and "directory=" not in jobfile
    doc = r.json()
    assert doc["status"] == "ok" and doc["run_id"] == 1
    assert doc["iops"] == 2000 and doc["read"]["iops"] == 2000 and "write" not in doc
    assert doc["latency"]["mean"] == pytest.approx(0.0005) and doc["latency"]["p99"] == pytest.approx(0.0005)
    assert doc["jobs"][0]["name"] == "bench"
    stored = ResultsStore(tmp_path / "r.db").load(1)
    assert stored.jobfile == jobfile and stored.fio_version == "fio-3.33" and stored.fstype


def test_no_direct_and_job_file_source(iolab, fake, tmp_path):
    jobfile = tmp_path / "two.fio"
    jobfile.write_text("[global]\nsize=1m\ndirectory=/elsewhere\n[a]\nrw=randread\n[b]\nrw=randwrite\nnumjobs=2\n")
    ex = fake(fio_run(FakeJob("a", read_iops=100), FakeJob("b", write_iops=50), FakeJob("b", write_iops=50)))
    r = iolab("bench", "run", jobfile, "--target", tmp_path, "--no-direct", "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    text = ex.jobfiles[0]
    assert "direct=0" in text and "/elsewhere" not in text and "runtime=30" in text
    doc = r.json()
    assert [(j["name"], j["iops"]) for j in doc["jobs"]] == [("a", 100), ("b", 100)]
    assert doc["iops"] == 200 and doc["write"]["iops"] == 100


def test_existing_file_is_refused_untouched_and_fio_never_runs(iolab, fake, tmp_path):
    victim = tmp_path / "data.db"
    victim.write_bytes(os.urandom(65536))
    before = sha(victim)
    ex = fake(fio_run(FakeJob("bench", write_iops=1)))
    r = iolab("bench", "run", "--target", victim, "--rw", "randwrite", "--db", tmp_path / "r.db")
    assert r.code == 3
    assert "existing file" in r.err and "--destructive" in r.err
    assert sha(victim) == before and not ex.made[-1].calls


def test_failed_fio_is_explained_and_stored(iolab, fake, tmp_path):
    fake(FakeRun(returncode=1, stderr="fio: engine io_uring not loadable\nfio: failed to load engine\n"))
    r = iolab("bench", "run", "--target", tmp_path, "--ioengine", "io_uring", "--db", tmp_path / "r.db")
    assert r.code == 1
    assert "ioengine io_uring is not available" in r.err and "--ioengine" in r.err
    assert ResultsStore(tmp_path / "r.db").load(1).status == "failed"


def test_fio_missing_or_old(iolab, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(FakeRun(missing=True)))
    r = iolab("bench", "run", "--target", tmp_path, "--db", tmp_path / "r.db")
    assert r.code == 1 and "not installed" in r.err and "apt-get install fio" in r.err
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(FakeRun(stdout="fio-2.2.10\n")))
    r = iolab("bench", "run", "--target", tmp_path, "--db", tmp_path / "r.db")
    assert r.code == 1 and "fio-2.2 is too old" in r.err


def test_interrupted_run_is_recorded_and_cleaned(iolab, fake, tmp_path):
    target = tmp_path / "t"
    target.mkdir()

    def laid_out(argv):  # fio wrote its file, then Ctrl-C
        prefix = next(line for line in open(argv[-1]).read().splitlines() if line.startswith("filename_format"))
        name = prefix.split("=", 1)[1].replace("$jobname.$jobnum.$filenum", "bench.0.0")
        return FakeRun(files={name: b"x" * 100}, interrupt=True, output=fio_json([FakeJob("bench", read_iops=5)]))

    fake(laid_out)
    r = iolab("bench", "run", "--target", target, "--db", tmp_path / "r.db", "--json")
    assert r.code == 130
    assert r.json()["status"] == "interrupted"
    assert os.listdir(target) == []
    assert ResultsStore(tmp_path / "r.db").load(1).status == "interrupted"


def test_tmpfs_without_o_direct_says_what_to_do(tmp_path):
    probe = FakeProbe(mount_text=f"tmpfs {tmp_path} tmpfs rw 0 0\n", direct=False)
    bench = Bench(ResultsStore(tmp_path / "r.db"), executor=FakeExecutor(VERSION), probe=probe)
    with pytest.raises(RunError, match="tmpfs does not support O_DIRECT: use --no-direct or a disk-backed"):
        bench.run(Request((FioJob(name="j"),), str(tmp_path)))
    assert ResultsStore(tmp_path / "r.db").ids() == []


def test_einval_from_fio_on_tmpfs_is_explained(tmp_path):
    probe = FakeProbe(mount_text=f"tmpfs {tmp_path} tmpfs rw 0 0\n")
    ex = FakeExecutor(VERSION, fio_run(FakeJob("j", error=22)))
    record = Bench(ResultsStore(tmp_path / "r.db"), executor=ex, probe=probe).run(
        Request((FioJob(name="j"),), str(tmp_path), Settings(runtime=1)))
    assert record.status == "failed"
    assert record.error.startswith("tmpfs does not support O_DIRECT")


SCENARIO = """version: 1
volumes:
  local:
    device: {iops: 10000, bandwidth: 1GB/s, read_latency: 100us, write_latency: 50us}
jobs:
  - name: probe
    rw: randread
    bs: 4k
    iodepth: 4
    ioengine: libaio
    size: 4m
"""


def test_scenario_sets_prediction_beside_measurement(iolab, fake, tmp_path):
    scenario = tmp_path / "local.yaml"
    scenario.write_text(SCENARIO)
    fake(fio_run(FakeJob("probe", read_iops=8000, latency=0.0005)))
    r = iolab("bench", "run", scenario, "--target", tmp_path, "--runtime", "1", "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["predicted"]["iops"] > 0 and doc["predicted"]["jobs"][0]["name"] == "probe"
    r = iolab("bench", "run", scenario, "--target", tmp_path, "--runtime", "1", "--db", tmp_path / "r.db")
    assert "measured beside predicted" in r.out and "measured/predicted" in r.out
    ratio = 8000 / doc["predicted"]["iops"]
    assert f"{ratio:.2f}" in r.out


def test_scenario_clients_must_match_hosts(iolab, fake, tmp_path):
    scenario = tmp_path / "two.yaml"
    scenario.write_text("version: 1\nclients: {count: 2}\n" + SCENARIO.split("version: 1\n", 1)[1])
    fake(fio_run(FakeJob("probe", read_iops=1)))
    r = iolab("bench", "run", scenario, "--target", tmp_path, "--db", tmp_path / "r.db")
    assert r.code == 2
    assert "clients.count is 2" in r.err and "this machine alone" in r.err
    r = iolab("bench", "run", scenario, "--target", "/data", "--client", "127.0.0.2", "--db", tmp_path / "r.db")
    assert r.code == 2 and "clients.count is 2 but the run uses 1 --client host" in r.err


@pytest.mark.parametrize("args,field", [
    (["--runtime", "0"], "--runtime"), (["--bs", "4q"], "--bs"), (["--rw", "randomread"], "--rw"),
    (["--sweep", "depth=1,2"], "--sweep"), (["--latency-target", "2ms"], "--latency-target"),
    (["--plot", "x.png"], "--plot"), (["--client", "h:99999"], "--client"),
])
def test_bad_options_exit_2_naming_the_option(iolab, fake, tmp_path, args, field):
    fake()
    r = iolab("bench", "run", "--target", tmp_path, "--db", tmp_path / "r.db", *args)
    assert r.code == 2 and field in r.err, r.err


def test_missing_target_exits_2(iolab, fake, tmp_path):
    fake()
    r = iolab("bench", "run", "--target", tmp_path / "none", "--db", tmp_path / "r.db")
    assert r.code == 2 and "--target" in r.err and "does not exist" in r.err
