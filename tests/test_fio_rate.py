"""fio's rate caps (rate_iops, rate) per direction, as fio paces them: a mixed job capped in
both directions issues each at its own cap whatever rwmixread says; `rate` in bytes/s is a
cap on IOs/s through the direction's IO size. The figures are checked against fio itself
(ioengine=null: no storage, so only the pacing shows)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import DATA

from iolab.errors import SchemaError
from iolab.fio import parse_jobfile

SCENARIO = """\
version: 1
clients: {{vm: Standard_DS13}}
volumes:
  data:
    disks: [{{sku: P30, count: 4, caching: none}}]
jobs:
  - {{name: j, bs: 8k, iodepth: 16, ioengine: libaio, {job}}}
"""


def _job(text: str):
    (job,) = parse_jobfile(f"[j]\nbs=8k\n{text}\n", source="t.fio")
    return job


@pytest.mark.parametrize("options, rate, reads", [
    ("rw=randrw\nrwmixread=70\nrate_iops=500,100", 600, 500 / 600),   # each direction at its cap
    ("rw=randrw\nrwmixread=70\nrate_iops=500", 1000, 0.5),             # one value caps both
    ("rw=randread\nrate=4m", 512, 1.0),                                # 4 MiB/s of 8 KiB reads
    ("rw=randrw\nbs=4k,16k\nrate=4m,8m", 1024 + 512, 1024 / 1536),      # each direction's own size
    ("rw=randwrite\nrate_iops=,300", 300, 0.0),                         # the writes' item
    ("rw=randread\nrate_iops=,300", None, 1.0),                         # reads uncapped
    ("rw=randrw\nrwmixread=100\nrate_iops=200,5", 200, 1.0),            # no writes issued
])
def test_caps_per_direction(options, rate, reads):
    job = _job(options)
    assert job.rate_iops == pytest.approx(rate) if rate else job.rate_iops is None
    assert job.read_fraction == pytest.approx(reads)


def test_one_direction_capped_in_a_mixed_job_is_read_as_that_cap():
    job = _job("rw=randrw\nrate=1m,")
    assert job.rate_iops is None and job.read_fraction == 0.5   # before the model settles the mix
    assert job.capped_reads == pytest.approx(128) and job.capped_writes is None  # 1 MiB/s of 8 KiB reads
    assert "rate" not in job.ignored
    writes = _job("rw=randrw\nrate_iops=,50")
    assert (writes.capped_reads, writes.capped_writes, writes.ignored) == (None, 50, ())


def test_predict_runs_the_capped_direction_at_its_cap_and_the_other_flat_out(iolab, tmp_path):
    # DS13 + 4 × P30, randrw 70/30 with reads capped at 500/s: the reads run at 500 and the
    # writes take what the path leaves (fio switches to a write whenever the reads are ahead)
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.format(job="rw: randrw, rwmixread: 70, rate_iops: '500,'"))
    doc = iolab("predict", str(path), "--json").json()
    assert doc["read"]["iops"] == pytest.approx(500, rel=1e-3)
    assert doc["write"]["iops"] > 10 * 500
    assert doc["warnings"] == []
    flat = tmp_path / "flat.yaml"
    flat.write_text(SCENARIO.format(job="rw: randwrite"))
    # nearly all the job's IOs are writes: it runs within 10 % of the same job writing only
    assert doc["iops"] == pytest.approx(iolab("predict", str(flat), "--json").json()["iops"], rel=0.10)
    sim = iolab("simulate", str(path), "--json", "--ios", "100000", "--seed", "2").json()
    assert sim["read"]["iops"] == pytest.approx(500, rel=0.05)
    assert sim["iops"] == pytest.approx(doc["iops"], rel=0.05)
    # a cap the path does not reach at rwmixread leaves the mix alone
    path.write_text(SCENARIO.format(job="rw: randrw, rwmixread: 70, rate_iops: '100000,'"))
    loose = iolab("predict", str(path), "--json").json()
    assert loose["read"]["iops"] / loose["iops"] == pytest.approx(0.70, abs=1e-4)  # figures rounded to 0.1


def test_rate_and_rate_iops_on_one_direction_are_refused_like_fio(iolab, tmp_path):
    path = tmp_path / "both.fio"
    path.write_text("[x]\nrw=read\nrate=1m\nrate_iops=5\n")
    r = iolab("check", str(path))
    assert r.code == 2
    assert r.err.strip() == (f"error: {path}: [x].rate: rate and rate_iops both cap the reads; fio refuses "
                             "them together (rate and rate_iops are mutually exclusive): keep one (line 3)")
    with pytest.raises(SchemaError):
        _job("rw=randrw\nrate=1m,1m\nrate_iops=,5")
    assert _job("rw=randrw\nrate=1m,\nrate_iops=,5").rate_iops == pytest.approx(128 + 5)  # other directions


def test_predict_runs_each_direction_at_its_cap(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.format(job="rw: randrw, rwmixread: 70, rate_iops: '500,100'"))
    doc = iolab("predict", str(path), "--json").json()
    assert doc["read"]["iops"] == pytest.approx(500, rel=1e-3)
    assert doc["write"]["iops"] == pytest.approx(100, rel=1e-3)
    out = iolab("predict", str(path)).out
    assert "The rate limit (fio's rate_iops or rate) holds it, not the storage: job j at 600 IOPS" in " ".join(out.split())
    path.write_text(SCENARIO.format(job="rw: randread, rate: 2m"))
    assert iolab("predict", str(path), "--json").json()["iops"] == pytest.approx(256, rel=1e-3)


def test_check_shows_the_mix_and_the_cap(iolab):
    r = iolab("check", str(DATA / "fio" / "jobs" / "rate-per-direction.fio"))
    assert r.code == 0
    assert "job mixed-capped: randrw 83% reads, 8 KiB, libaio, 16 in flight, at most 600 IOPS per job" in r.out
    assert "job reads-by-bytes: randread, 8 KiB, libaio, 16 in flight, at most 512 IOPS per job" in r.out
    jobs = iolab("check", str(DATA / "fio" / "jobs" / "rate-per-direction.fio"), "--json").json()["jobs"]
    assert [j["rate_iops"] for j in jobs] == [600, 512]


FIO = shutil.which("fio")


def test_fio_runs_the_uncapped_direction_flat_out(iolab, tmp_path):
    """fio itself (ioengine=null): with the reads of a randrw job capped, the reads keep their
    cap and the writes run far past it; iolab on a device of 1 µs says the same."""
    assert FIO is not None, "fio is missing: make test installs it"
    out = subprocess.run([FIO, "--name=j", "--ioengine=null", "--size=1g", "--runtime=1", "--time_based",
                          "--output-format=json", "--rw=randrw", "--rwmixread=70", "--rate_iops=500,"],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    got = json.loads(out)["jobs"][0]
    assert got["read"]["iops"] == pytest.approx(500, rel=0.03)
    assert got["write"]["iops"] > 100 * got["read"]["iops"]
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nvolumes: {dev: {device: {read_latency: 1us, write_latency: 1us}}}\n"
                    "jobs: [{fio: '--name=j --rw=randrw --rwmixread=70 --rate_iops=500,'}]\n")
    doc = iolab("predict", str(path), "--json").json()
    assert doc["read"]["iops"] == pytest.approx(500, rel=1e-3)
    assert doc["write"]["iops"] > 100 * doc["read"]["iops"]


@pytest.mark.skipif(FIO is None, reason="fio is not installed (make test installs it)")
@pytest.mark.parametrize("options", ["--rw=randrw --rwmixread=70 --rate_iops=500,100",
                                     "--rw=randrw --rwmixread=70 --rate_iops=300",
                                     "--rw=randrw --rwmixread=30 --bs=4k,16k --rate=2m,1m"])
def test_fio_paces_as_iolab_reads_it(options):
    """fio itself, with no storage behind it (ioengine=null), issues what iolab reads from the
    options: reads and writes within 3 % of the caps."""
    args = options.split()
    job = _job("\n".join(a[2:] for a in args))
    out = subprocess.run([FIO, "--name=j", "--ioengine=null", "--size=1g", "--runtime=2", "--time_based",
                          "--output-format=json", *args], capture_output=True, text=True, check=True).stdout
    got = json.loads(out)["jobs"][0]
    total = got["read"]["iops"] + got["write"]["iops"]
    assert total == pytest.approx(job.rate_iops, rel=0.03)
    assert got["read"]["iops"] / total == pytest.approx(job.read_fraction, abs=0.02)


def test_check_shows_a_one_direction_cap(iolab):
    path = DATA / "fio" / "jobs" / "rate-one-direction.fio"
    r = iolab("check", str(path))
    assert r.code == 0 and r.err == ""
    assert ("job reads-capped: randrw 70% reads, 8 KiB, libaio, 16 in flight, reads at most 500 IOPS per job "
            "(writes flat out)") in r.out
    (j,) = iolab("check", str(path), "--json").json()["jobs"]
    assert (j["rate_iops"], j["capped_reads"], j["capped_writes"], j["read_fraction"]) == (None, 500, None, 0.7)


@pytest.mark.parametrize("device_iops, reads, writes", [
    (5000, 500, 100),   # the path allows the caps' sum: each direction at its cap
    (550, 450, 100),    # 30 % of 550 would pass the writes' 100: writes at their cap, reads the rest
    (300, 210, 90),     # both directions behind their pace: fio picks them by rwmixread, 70/30
])
def test_caps_on_both_directions_beyond_the_path(iolab, tmp_path, device_iops, reads, writes):
    path = tmp_path / "s.yaml"
    path.write_text(f"version: 1\nvolumes: {{d: {{device: {{iops: {device_iops}, read_latency: 1ms}}}}}}\n"
                    "jobs: [{rw: randrw, rwmixread: 70, bs: 4k, iodepth: 16, ioengine: libaio, rate_iops: '500,100'}]\n")
    doc = iolab("predict", str(path), "--json").json()
    assert (doc["read"]["iops"], doc["write"]["iops"]) == (pytest.approx(reads, rel=0.005),
                                                           pytest.approx(writes, rel=0.005))
