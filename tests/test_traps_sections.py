"""A fio option's kb_base warning names the section and option where the value was written
(``[global].bs``, ``[seq-read].bs``), and a ``[global]`` value every job overrides is not
warned about: fio never uses it. The same holds for a scenario's ``fio_file:`` and ``fio:``
jobs, and for ``bench run`` flags that replace a job's own option."""

from __future__ import annotations

from conftest import EXAMPLES

MESSAGE = "is 4,000 bytes to fio, not 4,096"


def _jobfile(tmp_path, text: str):
    path = tmp_path / "jobs.fio"
    path.write_text(text)
    return path


def _size_warnings(r) -> dict[str, str]:
    return {w["field"]: w["message"] for w in r.json()["warnings"] if "bytes to fio" in w["message"]}


def test_a_global_value_every_job_overrides_is_not_warned(iolab, tmp_path):
    path = _jobfile(tmp_path, "[global]\nbs=4KiB\nioengine=libaio\n[seq-read]\nrw=read\nbs=128k\n"
                              "[rand-read]\nrw=randread\nbs=8KiB\n")
    r = iolab("check", str(path), "--json")
    assert r.code == 0, r.err
    warned = _size_warnings(r)
    assert list(warned) == ["[rand-read].bs"] and "bs=8KiB is 8,000 bytes to fio" in warned["[rand-read].bs"]
    assert r.json()["jobs"][0]["bs"] == 131072 and r.json()["jobs"][1]["bs"] == 8000
    text = iolab("check", str(path))
    assert f"warning: {path}: [rand-read].bs: bs=8KiB is 8,000 bytes" in text.err and "4KiB" not in text.err


def test_a_global_value_one_job_uses_is_warned_once_where_written(iolab, tmp_path):
    path = _jobfile(tmp_path, "[global]\nbs=4KiB\nioengine=libaio\n[a]\nrw=read\n[b]\nrw=randread\n"
                              "[c]\nrw=randread\nbs=4k\n")
    r = iolab("check", str(path), "--json")
    warned = _size_warnings(r)
    assert list(warned) == ["[global].bs"] and MESSAGE in warned["[global].bs"]
    assert [j["bs"] for j in r.json()["jobs"]] == [4000, 4000, 4096]  # what the warning says is what is used


def test_kb_base_in_global_silences_the_jobs_after_it_only(iolab, tmp_path):
    path = _jobfile(tmp_path, "[a]\nrw=read\nbs=4KiB\n[global]\nkb_base=1000\n[b]\nrw=read\nbs=4KiB\n")
    warned = _size_warnings(iolab("check", str(path), "--json"))
    assert list(warned) == ["[a].bs"]


def test_a_scenario_fio_file_job_is_warned_in_the_job_file(iolab, tmp_path):
    _jobfile(tmp_path, "[global]\nbs=4KiB\nsize=1MiB\nioengine=libaio\n[seq-read]\nrw=read\nbs=128k\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\nvolumes:\n  data: {device: {iops: 10000, bandwidth: 500MB/s, "
                        "read_latency: 1ms, write_latency: 1ms}}\njobs:\n  - fio_file: jobs.fio\n")
    r = iolab("check", str(scenario), "--json")
    assert r.code == 0, r.err
    warnings = [w for w in r.json()["warnings"] if "bytes to fio" in w["message"]]
    assert [(w["file"], w["field"]) for w in warnings] == [(str(tmp_path / "jobs.fio"), "[global].size")]
    assert "size=1MiB is 1,000,000 bytes to fio" in warnings[0]["message"]


def test_a_fio_command_line_global_every_job_overrides_is_not_warned(iolab, tmp_path):
    scenario = tmp_path / "s.yaml"
    body = "version: 1\nvolumes:\n  data: {device: {iops: 10000, bandwidth: 500MB/s, read_latency: 1ms, " \
           "write_latency: 1ms}}\njobs:\n  - fio: \"--bs=4KiB --ioengine=libaio --name=a --rw=read --bs=64k\"\n"
    scenario.write_text(body)
    assert _size_warnings(iolab("check", str(scenario), "--json")) == {}
    scenario.write_text(body.replace("--bs=64k", ""))
    warned = _size_warnings(iolab("check", str(scenario), "--json"))
    assert list(warned) == ["jobs[0].fio"] and MESSAGE in warned["jobs[0].fio"]


def test_a_bench_flag_that_replaces_the_option_silences_the_files_warning(iolab, tmp_path):
    path = _jobfile(tmp_path, "[a]\nrw=randread\nbs=4KiB\nsize=1MiB\nioengine=libaio\n")
    r = iolab("bench", "run", str(path), "--target", str(tmp_path / "missing"), "--bs", "4k")
    assert r.code == 2  # the target does not exist; the warnings came first
    assert "[a].bs" not in r.err and f"warning: {path}: [a].size: size=1MiB is 1,000,000 bytes" in r.err
    assert "bytes to fio" not in iolab("check", str(EXAMPLES / "oltp-ds13-p30.yaml")).err
