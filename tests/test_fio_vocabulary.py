"""All of fio that users write: aliases, valueless options, engine and profile options in
any section, zone units, fio's keywords and arithmetic, list options that keep earlier
items, engines that do no storage IO."""

from __future__ import annotations

import os

import pytest

from iolab.errors import SchemaError
from iolab.fio import parse_cmdline, parse_jobfile


def one(text):
    return parse_jobfile(text)[0]


@pytest.mark.parametrize("alias,canonical,value", [("ratemin", "rate_min", "1m"), ("nr_files", "nrfiles", "4"),
                                                   ("fileoffset", "offset", "4k"), ("ratecycle", "rate_cycle", "500"),
                                                   ("data_placement", "dataplacement", "fdp"),
                                                   ("ss_interval", "steadystate_check_interval", "1s")])
def test_aliases_are_read_under_fio_s_own_name(alias, canonical, value):
    job = one(f"[j]\n{alias}={value}\n")
    assert job.options[canonical] == value


def test_nr_files_is_the_modelled_nrfiles():
    assert one("[j]\nnr_files=8\n").nrfiles == 8


@pytest.mark.parametrize("option", ["write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log",
                                    "cpus_allowed", "ignore_error"])
def test_options_fio_takes_without_a_value(option):
    job = one(f"[j]\n{option}\n")
    assert job.options[option] == ""
    assert parse_cmdline(f"fio --name=j --{option}")[0].options[option] == ""


@pytest.mark.parametrize("option", ["threads=4", "volume=vol1", "brick=b", "numruns=2", "libaio_vectored=1",
                                    "pi_chk=GUARD"])
def test_engine_and_profile_options_anywhere(option):
    job = one(f"[global]\n{option}\n[j]\nrw=read\n")
    assert option.split("=")[0] in job.ignored


def test_zone_units():
    job = one("[j]\nzonemode=zbd\nsize=128z\n")
    assert job.size is None and "size=128z (zones)" in job.ignored


def test_engines_fio_builds():
    assert one("[j]\nioengine=cpp_null\n").ioengine == "cpp_null"
    assert one("[j]\nioengine=libblkio\n").ioengine == "libblkio"


def test_an_empty_list_item_keeps_the_earlier_value():
    job = one("[global]\nbs=8k\n[j]\nbs=,64k\n")
    assert (job.bs, job.bs_write) == (8192, 65536)
    job = parse_cmdline("fio --bs=8k --name=j --bs=,64k")[0]
    assert (job.bs, job.bs_write) == (8192, 65536)
    job = one("[global]\nbs=4k,16k\n[j]\nbs=,64k\n")
    assert (job.bs, job.bs_write) == (4096, 65536)
    assert one("[j]\nbs=,64k\n").bs == 4096  # nothing before: fio's default


def test_fio_keywords_are_evaluated_as_fio_does():
    page = os.sysconf("SC_PAGE_SIZE")
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")
    mib = page * os.sysconf("SC_PHYS_PAGES") // 2**20
    job = one("[j]\nbs=$pagesize\nnumjobs=$ncpus\nsize=5*1024*1024*$mb_memory/8\n")
    assert (job.bs, job.numjobs) == (page, cpus)
    assert job.size == 5 * 1024 * 1024 * mib // 8


def test_arithmetic_and_its_limits():
    assert one("[j]\niodepth=(1+3)*2\n").iodepth == 8
    assert one("[j]\nsize=(2^20)\n").size == 2**20
    with pytest.raises(SchemaError, match=r"fio evaluates arithmetic only in parentheses, and reads this as 2 "):
        one("[j]\nsize=2^20\n")
    with pytest.raises(SchemaError, match="not fio arithmetic"):
        one("[j]\niodepth=(1//)\n")
    with pytest.raises(SchemaError, match="too large|64-bit"):
        one("[j]\nsize=(9^99999)\n")


def test_environment_variables_are_still_refused_by_name():
    with pytest.raises(SchemaError, match=r"expand \$\{FIO_BS\}"):
        one("[j]\nbs=${FIO_BS}\n")


@pytest.mark.parametrize("engine", ["cpuio", "net", "null", "exec", "filecreate", "page_fault"])
def test_engines_without_storage_io_are_flagged(engine):
    job = one(f"[j]\nioengine={engine}\n")
    assert not job.storage_io
    assert any("no storage IO" in i for i in job.ignored)
    assert one("[j]\nioengine=libaio\n").storage_io


def test_jobs_without_storage_io_are_left_out_of_the_model_and_said_so(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nvolumes: {x: {device: {iops: 1000, read_latency: 1ms}}}\n"
                    "jobs:\n  - {name: burn, ioengine: cpuio}\n  - {name: io, rw: randread, iodepth: 4, ioengine: libaio}\n")
    alone = tmp_path / "alone.yaml"
    alone.write_text("version: 1\nvolumes: {x: {device: {iops: 1000, read_latency: 1ms}}}\n"
                     "jobs:\n  - {name: io, rw: randread, iodepth: 4, ioengine: libaio}\n")
    r = iolab("check", path, "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [j["name"] for j in doc["jobs"]] == ["io"]
    assert "burn: ioengine=cpuio (no storage IO: not predicted as disk IO)" in doc["ignored"]
    with_burn, without = iolab("predict", path, "--json").json(), iolab("predict", alone, "--json").json()
    assert with_burn["iops"] == pytest.approx(without["iops"])
    only = tmp_path / "only.yaml"
    only.write_text("version: 1\nvolumes: {x: {device: {iops: 1000, read_latency: 1ms}}}\n"
                    "jobs:\n  - {name: burn, ioengine: cpuio}\n  - {fio: 'fio --name=n --ioengine=null'}\n")
    r = iolab("check", only)
    assert r.code == 2 and "no job does storage IO" in r.err
