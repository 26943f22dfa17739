"""fio command lines: --name starts a job, options before it are global, both value forms,
program switches reported, and clear errors for everything fio would not run."""

from __future__ import annotations

import pytest

from iolab.errors import SchemaError
from iolab.fio import parse_cmdline


def test_contract_example():
    (job,) = parse_cmdline("fio --name=x --rw=randread --bs=4k --iodepth=64 --ioengine=libaio --numjobs=1")
    assert (job.name, job.rw, job.bs, job.iodepth, job.ioengine, job.numjobs) == ("x", "randread", 4096, 64, "libaio", 1)
    assert job.outstanding == 64 and job.ignored == ()


def test_azure_files_nfs_command_line():
    (job,) = parse_cmdline(
        "fio --name=randread-8k --ioengine=libaio --direct=1 --nrfiles=4 --numjobs=1 --filesize=4G "
        "--iodepth=64 --runtime=1800 --ramp_time=300 --time_based --bs=8k --rw=randread "
        "--directory=/mnt/azfiles --group_reporting"
    )
    assert (job.rw, job.bs, job.iodepth, job.numjobs) == ("randread", 8192, 64, 1)
    assert (job.filesize, job.nrfiles, job.runtime, job.ramp_time) == (4 << 30, 4, 1800.0, 300.0)
    assert job.directory == "/mnt/azfiles" and job.time_based and job.group_reporting


def test_options_before_the_first_name_are_global_and_jobs_override():
    jobs = parse_cmdline(["fio", "--bs=64k", "--iodepth=16", "--numjobs=16", "--name=read", "--rw=read",
                          "--name=write", "--rw=write", "--iodepth=8", "--stonewall"])
    read, write = jobs
    assert (read.rw, read.bs, read.iodepth, read.numjobs, read.stonewall) == ("read", 65536, 16, 16, False)
    assert (write.rw, write.bs, write.iodepth, write.numjobs, write.stonewall) == ("write", 65536, 8, 16, True)


def test_space_separated_values_and_continuations():
    cmd = "fio --name seq \\\n  --rw write --bs 1m --direct 1 --time_based --runtime 2m --size=1g"
    (job,) = parse_cmdline(cmd)
    assert (job.rw, job.bs, job.direct, job.time_based, job.runtime) == ("write", 1 << 20, True, True, 120.0)


def test_leading_fio_is_optional_and_paths_to_fio_allowed():
    a = parse_cmdline("--name=a --rw=randwrite")
    b = parse_cmdline("/usr/bin/fio --name=a --rw=randwrite")
    assert a == b


def test_program_switches_are_reported_as_ignored():
    (job,) = parse_cmdline("fio --output-format=json+ --eta=never --name=a --status-interval 1 --minimal")
    assert job.ignored == ("--output-format", "--eta", "--status-interval", "--minimal")
    assert "output-format" not in job.options


def test_known_unmodelled_options_are_reported():
    (job,) = parse_cmdline("fio --name=a --norandommap --randrepeat=0 --thinktime=10ms --rate_iops=,300 --rw=randwrite")
    assert job.ignored == ("norandommap", "randrepeat")
    assert job.rate_iops == 300.0  # a write-only job takes the write rate
    assert job.options["thinktime"] == "10ms" and job.thinktime == pytest.approx(0.010)  # modelled


def test_kb_base_on_the_command_line():
    (job,) = parse_cmdline("fio --kb_base=1000 --name=a --size=10g --bs=4KiB --rate_iops=1k")
    assert (job.size, job.bs, job.rate_iops) == (10 * 10**9, 4096, 1000.0)
    (job,) = parse_cmdline("fio --name=a --rate_iops=1k")
    assert job.rate_iops == 1024.0  # as fio 3.33 reads it (measured: 1023.5 IOPS)


BAD = [
    ("fio --name=x --iodepht=4", "--iodepht", "nearest: iodepth"),
    ("fio --name=x --rw=randomread", "--rw", "nearest: randread"),
    ("fio --name=x --bs=1.5k", "--bs", "no fractions"),
    ("fio jobs.fio", "jobs.fio", "job file argument"),
    ("fio --rw=read --bs=4k", None, "no job"),
    ("fio --name=x --direct", "--direct", "needs a value"),
    ("fio --name=x --iodepth --numjobs=2", "--iodepth", "needs a value"),
    ("fio --name=", "--name", "needs a job name"),
    ("fio --name=x -v", "-v", "unknown fio switch"),
    ("fio --name=x --numjobs=0", "--numjobs", "at least 1"),
    ("fio --name='x", None, "cannot split"),
    ("fio --name=x --ioengine=posixio", "--ioengine", "nearest: posixaio"),
    ("fio --name=x --output-format", "--output-format", "needs a value"),
    ("fio --name=x --size=$SIZE", "--size", "$SIZE"),
    ("fio --name=x --time_based 1", "1", "job file argument"),
]


@pytest.mark.parametrize("cmd,field,words", BAD, ids=[b[0] for b in BAD])
def test_malformed_command_line(cmd, field, words):
    with pytest.raises(SchemaError) as info:
        parse_cmdline(cmd, source="scenario.yaml: jobs[0].fio")
    err = info.value
    assert err.file == "scenario.yaml: jobs[0].fio" and err.field == field
    assert words in str(err)


def test_errors_name_the_job_when_there_are_several():
    with pytest.raises(SchemaError, match=r"\(job 'b'\)"):
        parse_cmdline("fio --name=a --name=b --iodepth=0")
