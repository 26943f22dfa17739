"""A fio option that changes how fast a job issues IO but that the model does not take
(``thinktime``, ``flow``, ``startdelay``, ``latency_target``, ``fsync``, ``fdatasync``,
``sync``; ``rate``/``rate_iops`` capping one direction of a mixed job) is warned about — on stderr and under ``warnings`` in the JSON —
rather than only listed as ignored: fio's own ``1mbs_clients.fio`` starts its readers 4 s
apart, which a steady-state prediction must not pass over silently. ``rate`` and
``rate_iops`` are modelled, except where they cap only one direction of a mixed job."""

from __future__ import annotations

import pytest

from conftest import DATA

FIO = DATA / "fio-examples"


def _scenario(tmp_path, jobs: str):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nvolumes:\n  d: {device: {iops: 200000, bandwidth: 2GB/s, read_latency: 90us}}\n"
                    f"jobs:\n{jobs}")
    return path


def test_fio_rate_capped_example_warns_once_per_option(iolab, tmp_path):
    path = _scenario(tmp_path, f"  - fio_file: {FIO / '1mbs_clients.fio'}\n")
    r = iolab("predict", str(path), "--json")
    assert r.code == 0, r.err
    doc = r.json()
    fields = [w["field"] for w in doc["warnings"]]
    assert fields == ["jobs[0].startdelay"]
    assert "startdelay=4, 8, 12, ..." in doc["warnings"][0]["message"]
    assert r.err.count("warning: ") == 1 and f"warning: {path}: jobs[0].startdelay: 31 jobs (file2" in r.err  # file1 starts at once
    # rate=1250 is bytes/s (fio 3.33 paced 4 KiB reads at 0.33 IOPS with it): 32 readers
    assert doc["iops"] == pytest.approx(32 * 1250 / 4096, rel=0.01)  # shown to 3 digits


@pytest.mark.parametrize("job, field, words", [
    ("{rw: randread, thinktime: 1ms, thinktime_iotime: 9s}", "jobs[0].thinktime_iotime",
     "job job1: thinktime_iotime=9s stalls after a stretch of time rather than after thinktime_blocks IOs"),
    ("{fio: '--name=a --rw=write --fsync=1'}", "jobs[0].fsync", "job a: fsync=1 adds a flush"),
    ("{rw: write, sync: 1, name: log}", "jobs[0].sync", "job log: sync=1 makes writes synchronous"),
    ("{rw: randread, latency_target: 2ms, ioengine: libaio, iodepth: 32}", "jobs[0].latency_target",
     "lets fio lower the queue depth"),
])
def test_each_pace_option_warns_in_a_scenario(iolab, tmp_path, job, field, words):
    r = iolab("check", str(_scenario(tmp_path, f"  - {job}\n")), "--json")
    assert r.code == 0, r.err
    assert [(w["field"], words in w["message"]) for w in r.json()["warnings"]] == [(field, True)], r.err


@pytest.mark.parametrize("job", ["{rw: read, rate: 0}", "{rw: read, thinktime: 0}", "{rw: write, fsync: 0}",
                                 "{rw: write, sync: 0}", "{rw: read, rate: '0,0'}", "{rw: read, rate_iops: 500}",
                                 "{rw: read, rate: '1m,2m'}", "{rw: randrw, rate_iops: '500,100'}",
                                 "{rw: read, startdelay: 0}", "{rw: read, thinktime: 1ms, thinktime_blocks: 4}",
                                 "{rw: randrw, rate_iops: '500,'}", "{rw: rw, rate: ',1m'}"])
def test_a_no_op_value_or_a_modelled_cap_does_not_warn(iolab, tmp_path, job):
    r = iolab("check", str(_scenario(tmp_path, f"  - {job}\n")), "--json")
    assert r.code == 0 and r.json()["warnings"] == [] and r.err == "", r.err


def test_check_of_a_job_file_names_the_option(iolab):
    r = iolab("check", str(FIO / "exitwhat.fio"), "--json")
    assert r.code == 0
    got = {w["field"]: w["message"] for w in r.json()["warnings"]}
    assert "thinktime" not in got  # slow1 and slow2 stall 2,000 µs after each IO: modelled
    assert "rate" not in got  # rate=300,300,300 caps both directions of the mixed fast jobs: modelled
