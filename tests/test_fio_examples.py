"""Every job file of fio's own examples/ directory (a copy in tests/data/fio-examples, GPL-2.0,
licence beside it) is read as fio reads it, or refused with a clean error.

- no file that fio accepts (``fio --parse-only``) is refused, and none gives a traceback;
- for a representative set, what iolab reads (jobs, patterns, mix, IO sizes, depth, clones,
  caps, run times) is what the file says, as read off its text by hand below;
- every value fio itself reads in those files (``fio --parse-only --debug=parse`` prints
  each option's text and the number fio made of it) is the number iolab reads;
- the options iolab does not model that change a job's IO are warned about, naming them;
- the files whose values come from the environment are refused (exit 2) naming the file,
  the field and the line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import DATA
from iolab.errors import InputError
from iolab.fio import parse_jobfile
from iolab.fio.jobfile import jobfile_sections
from iolab.fio.options import canonical, parse_fio_int, parse_fio_time
from iolab.fio.sizes import io_sizes

EXAMPLES = sorted((DATA / "fio-examples").glob("*.fio"))
FIO = shutil.which("fio")
KiB, MiB, GiB = 2**10, 2**20, 2**30


def example(name: str):
    return DATA / "fio-examples" / name


def test_the_copy_is_complete():
    assert len(EXAMPLES) >= 100
    assert (DATA / "fio-examples" / "COPYING").read_text().startswith(" " * 20 + "GNU GENERAL PUBLIC LICENSE")


def fio_accepts(path) -> bool:
    r = subprocess.run([FIO, "--parse-only", str(path)], capture_output=True, text=True, timeout=60,
                       cwd=path.parent)
    return r.returncode == 0


def iolab_reads(path) -> str | None:
    """None when iolab accepts the file, else its error line."""
    try:
        parse_jobfile(path.read_text(), source=path.name)
    except InputError as e:
        return str(e)
    return None


@pytest.mark.skipif(FIO is None, reason="fio is not installed")
def test_no_file_fio_accepts_is_refused():
    refused = [p for p in EXAMPLES if iolab_reads(p)]
    assert len(refused) < len(EXAMPLES) / 4
    # fio takes ~0.4 s to start, so it is asked only about the files iolab refuses
    with ThreadPoolExecutor(8) as pool:
        verdicts = dict(zip(refused, pool.map(fio_accepts, refused)))
    assert [f"{p.name}: {iolab_reads(p)}" for p, ok in verdicts.items() if ok] == []


def test_iolab_check_reads_job_files(iolab):
    for name in ("ssd-test.fio", "page_fault.fio", "1mbs_clients.fio", "zbd-rand-write-trim-gc.fio", "steadystate.fio"):
        r = iolab("check", example(name), "--json")
        assert r.code == 0, r.err
        assert r.json()["kind"] == "fio job file" and r.json()["jobs"]
    # every file: exit 0 or a clean error (exit 2), never a traceback
    for path in EXAMPLES:
        problem = iolab_reads(path)
        assert problem is None or problem.startswith(path.name)


# What each file says, read off its text: per job (name, rw, share of reads, read sizes,
# write sizes, iodepth, numjobs, IOs in flight). Sizes are {bytes: share}; a synchronous
# engine (psync, fio's default, or sync) keeps one IO in flight per clone whatever iodepth.
def same(sizes):
    return sizes, sizes


JOBS = {
    # [global] name=fio-rand-RW names no job (fio names the job after its section)
    "fio-rand-RW.fio": [("file1", "randrw", 0.6, *same({4 * KiB: 1}), 16, 4, 64)],
    "fio-seq-RW.fio": [("file1", "rw", 0.6, *same({256 * KiB: 1}), 16, 4, 64)],
    "fio-rand-read.fio": [("file1", "randread", 1.0, *same({4 * KiB: 1}), 16, 1, 16)],
    "aio-read.fio": [(f"file{i}", "randread", 1.0, *same({128 * KiB: 1}), depth, 1, depth)
                     for i, depth in ((1, 4), (2, 32), (3, 8), (4, 16))],
    # bsrange=4k-4k: one size; "numjobs=4<TAB>; 4 simultaneous threads" ends at the ';'
    "tiobench-example.fio": [(name, rw, share, *same({4 * KiB: 1}), 1, 4, 4) for name, rw, share in
                             (("f1", "write", 0.0), ("f2", "randwrite", 0.0), ("f3", "read", 1.0),
                              ("f4", "randread", 1.0))],
    "ssd-test.fio": [(name, rw, share, *same({4 * KiB: 1}), 4, 1, 4) for name, rw, share in
                     (("seq-read", "read", 1.0), ("rand-read", "randread", 1.0), ("seq-write", "write", 0.0),
                      ("rand-write", "randwrite", 0.0))],
    "iometer-file-access-server.fio": [("iometer", "randrw", 0.8, *same(
        {512: .10, 1 * KiB: .05, 2 * KiB: .05, 4 * KiB: .60, 8 * KiB: .02, 16 * KiB: .04, 32 * KiB: .04,
         64 * KiB: .10}), 64, 1, 64)],
    # rwmixread=40 then rwmixwrite=60; iodepth=256 × numjobs=4
    "jesd219.fio": [("JESD219", "randrw", 0.4, *same(
        {512: .04, 1024: .01, 1536: .01, 2048: .01, 2560: .01, 3072: .01, 3584: .01, 4 * KiB: .67, 8 * KiB: .10,
         16 * KiB: .07, 32 * KiB: .03, 64 * KiB: .03}), 256, 4, 1024)],
    # bssplit=64k/40:1024k/60,1024k/100: reads' list, then writes'; the last job reads only
    "cmdprio-bssplit.fio": [(name, "randrw", 0.5, {64 * KiB: .4, MiB: .6}, {MiB: 1}, 16, 1, 16)
                            for name in ("cmdprio", "cmdprio-adv", "cmdprio-adv-def")]
                           + [("cmdprio-hints", "randread", 1.0, *same({MiB: .4, 2 * MiB: .6}), 16, 1, 16)],
    "waitfor.fio": [("writers", "write", 0.0, *same({128 * KiB: 1}), 1, 4, 4)]
                   + [(name, rw, share, *same({4 * KiB: 1}), 1, 4, 4) for name, rw, share in
                      (("readers", "randread", 1.0), ("writers2", "randwrite", 0.0), ("readers2", "randread", 1.0))],
    # blocksize=4096 in [global]; ioengine=sync for the slow jobs
    "exitwhat.fio": [("slow1", "read", 1.0, *same({4096: 1}), 1, 1, 1),
                     ("fast1", "randrw", 0.5, *same({4096: 1}), 32, 3, 96),
                     ("slow2", "write", 0.0, *same({4096: 1}), 1, 1, 1),
                     ("fast2", "randrw", 0.5, *same({4096: 1}), 32, 3, 96),
                     ("runsnever", "randrw", 0.5, *same({4096: 1}), 32, 3, 96)],
    "1mbs_clients.fio": [(f"file{i}", "read", 1.0, *same({4 * KiB: 1}), 1, 1, 1) for i in range(1, 33)],
    "steadystate.fio": [("ss-write", "write", 0.0, *same({128 * KiB: 1}), 1, 4, 4),
                        ("ss-read", "randread", 1.0, *same({4 * KiB: 1}), 1, 4, 4)],
    "zbd-rand-write-trim-gc.fio": [("warmup", "randwrite", 0.0, *same({2 * MiB: 1}), 1, 1, 1),
                                   ("wjob", "randwrite", 0.0, *same({2 * MiB: 1}), 1, 1, 1),
                                   ("trimjob", "randtrim", 0.0, *same({256 * MiB: 1}), 1, 1, 1)],
}


def test_what_iolab_reads_is_what_each_file_says():
    for name, expected in JOBS.items():
        jobs = parse_jobfile(example(name).read_text(), source=name)
        assert [j.name for j in jobs] == [e[0] for e in expected], name
        for job, (_, rw, share, reads, writes, depth, clones, in_flight) in zip(jobs, expected):
            sizes = io_sizes(job)
            assert (job.rw, job.iodepth, job.numjobs, job.outstanding) == (rw, depth, clones, in_flight), \
                (name, job.name)
            assert job.read_fraction == pytest.approx(share), (name, job.name)
            assert dict(sizes["read"]) == pytest.approx(reads), (name, job.name)
            assert dict(sizes["write"]) == pytest.approx(writes), (name, job.name)


def test_run_times_caps_and_phases_are_what_each_file_says():
    read = {name: {j.name: j for j in parse_jobfile(example(name).read_text())} for name in
            ("fio-rand-RW.fio", "tiobench-example.fio", "exitwhat.fio", "1mbs_clients.fio", "steadystate.fio",
             "fixed-rate-submission.fio", "poisson-rate-submission.fio", "zbd-rand-write-trim-gc.fio", "waitfor.fio")}
    job = read["fio-rand-RW.fio"]["file1"]
    assert (job.runtime, job.time_based, job.size, job.direct) == (900, True, 10 * GiB, False)
    tio = read["tiobench-example.fio"]
    assert {j.runtime for j in tio.values()} == {60}  # timeout=60, fio's alias of runtime
    assert [j.stonewall for j in tio.values()] == [False, True, True, True]
    assert {(j.size, j.direct) for j in tio.values()} == {(512 * MiB, True)}
    # thinktime=2000 is in microseconds; rate=300,300,300 caps each direction at 300 bytes/s
    ew = read["exitwhat.fio"]
    assert ew["slow1"].thinktime == pytest.approx(0.002) and ew["slow1"].filesize == GiB
    assert ew["fast1"].rate_iops == pytest.approx(2 * 300 / 4096) and ew["fast1"].rate_read_share == 0.5
    # rate=1250 (bytes/s) over 4 KiB reads
    assert [j.rate_iops for j in read["1mbs_clients.fio"].values()] == pytest.approx([1250 / 4096] * 32)
    assert read["fixed-rate-submission.fio"]["fixed-rate-submit"].rate_iops == 1000
    poisson = read["poisson-rate-submission.fio"]["poisson-rate-submit"]
    assert (poisson.rate_iops, poisson.rate_process) == (50, "poisson")
    ss = read["steadystate.fio"]
    assert {(j.runtime, j.time_based, j.size) for j in ss.values()} == {(300, True, 128 * MiB)}  # runtime=5m
    zbd = read["zbd-rand-write-trim-gc.fio"]
    assert [(j.runtime, j.size, j.options.get("wait_for")) for j in zbd.values()] == \
        [(3, None, None), (30, None, "warmup"), (30, None, "warmup")]  # size=128z: zones, not bytes
    assert "size=128z (zones)" in zbd["wjob"].ignored
    assert [j.options.get("wait_for") for j in read["waitfor.fio"].values()] == \
        [None, "writers", "readers", "writers2"]


def test_fio_keywords_are_this_machines():
    jobs = {j.name: j for j in parse_jobfile(example("page_fault.fio").read_text())}
    mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // MiB
    page, cpus = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_NPROCESSORS_ONLN")
    # size=5*1024*1024*$mb_memory/8, bs=$pagesize, numjobs=$ncpus, size=8*1024*$pagesize
    assert jobs["page_fault_write"].size == 5 * 1024 * 1024 * mb // 8
    assert jobs["page_fault_pressure"].size == 7 * 1024 * 1024 * mb // 8
    assert jobs["page_fault_write"].bs == page
    assert (jobs["page_fault_process_storm"].numjobs, jobs["page_fault_process_storm"].size) == (cpus, 8 * 1024 * page)
    assert not any(j.storage_io for j in jobs.values())


# --- fio's own reading ---------------------------------------------------------------------

_SECTION = re.compile(r"Parsing section \[(?P<name>.*)\]$")
_OPTION = re.compile(r" handle_option=(?P<name>[^,]+), ptr=(?P<text>.*)$")
_NUMBER = re.compile(r"^parse\s+\d+\s+ret=0, out=(?P<out>-?\d+)$")
#: options whose numbers iolab reads, and how: fio's integers and sizes (bs, rate: one per
#: direction), and its times in microseconds
INTEGERS = {"bs", "iodepth", "numjobs", "nrfiles", "rwmixread", "rwmixwrite", "size", "rate", "rate_iops",
            "thinktime_blocks", "kb_base"}
TIMES = {"runtime": "s", "ramp_time": "s", "thinktime": "us"}
ORACLE = ["fio-rand-RW.fio", "tiobench-example.fio", "jesd219.fio", "exitwhat.fio", "page_fault.fio",
          "steadystate.fio", "1mbs_clients.fio", "aio-read.fio", "waitfor.fio", "poisson-rate-submission.fio",
          "enospc-pressure.fio", "e4defrag2.fio"]


def fio_reads(path) -> list[tuple[str, list[tuple[str, str, list[int]]]]]:
    """fio's own reading of a job file: each section with each option it handled, as
    (option, its text, the numbers fio made of it)."""
    r = subprocess.run([FIO, "--parse-only", "--debug=parse", path.name], capture_output=True, text=True,
                       timeout=60, cwd=path.parent)
    assert r.returncode == 0, r.stderr
    sections: list[tuple[str, list[tuple[str, str, list[int]]]]] = []
    for line in (r.stdout + r.stderr).splitlines():
        if m := _SECTION.search(line):
            sections.append((m["name"], []))
        elif m := _OPTION.search(line):
            sections[-1][1].append((canonical(m["name"]), m["text"], []))
        elif (m := _NUMBER.match(line)) and sections and sections[-1][1]:
            sections[-1][1][-1][2].append(int(m["out"]))
    return sections


@pytest.mark.skipif(FIO is None, reason="fio is not installed")
def test_every_number_fio_reads_iolab_reads():
    with ThreadPoolExecutor(4) as pool:
        theirs = dict(zip(ORACLE, pool.map(fio_reads, (example(n) for n in ORACLE))))
    compared = 0
    for name in ORACLE:
        ours = jobfile_sections(example(name).read_text(), source=name)
        assert [s for s, _ in ours] == [s for s, _ in theirs[name]], name
        for (section, items), (_, handled) in zip(ours, theirs[name]):
            fio_by = {opt: (text, numbers) for opt, text, numbers in handled}
            for opt, value, line in items:
                if opt not in INTEGERS and opt not in TIMES:
                    continue
                text, numbers = fio_by[opt]
                where = f"{name} [{section}].{opt} (line {line})"
                assert value == text.strip(), where  # comments cut, keywords and arithmetic evaluated as fio does
                if opt in TIMES:
                    assert round(parse_fio_time(value, bare=TIMES[opt]) * 1e6) == numbers[0], where
                else:
                    assert [parse_fio_int(v) for v in value.split(",")] == numbers[:len(value.split(","))], where
                compared += 1
    assert compared >= 60


# --- options iolab does not model -----------------------------------------------------------

def test_unmodelled_options_that_change_the_io_are_warned_about(iolab):
    warned = {}
    for name in ("basic-verify.fio", "butterfly.fio", "cross-stripe-verify.fio", "latency-profile.fio",
                 "zbd-rand-write.fio", "fio-rand-RW.fio", "jesd219.fio"):
        r = iolab("check", example(name), "--json")
        assert r.code == 0, r.err
        warned[name] = [w["message"] for w in r.json()["warnings"]]
    # verify=crc32c on a randwrite job reads back every block it writes
    assert any("verify=crc32c reads back every block" in w for w in warned["basic-verify.fio"])
    # rw=read:-8k steps back (the job reads backwards); flow=2 throttles the two jobs
    assert any("rw=read:-8k steps back 8k" in w for w in warned["butterfly.fio"])
    assert any("2 jobs (forward, backward): flow=2" in w for w in warned["butterfly.fio"])
    # rw=write:112k writes 16 KiB then skips 112 KiB
    assert any("rw=write:112k skips 112k" in w for w in warned["cross-stripe-verify.fio"])
    assert any("latency_target=500000" in w for w in warned["latency-profile.fio"])
    # zonemode=zbd: a randwrite job writes each zone at its write pointer
    assert any("job dev1: zonemode=zbd writes each zone" in w for w in warned["zbd-rand-write.fio"])
    # options that do not change the IO are listed, not warned about
    assert warned["fio-rand-RW.fio"] == [] and warned["jesd219.fio"] == []
    r = iolab("check", example("jesd219.fio"))
    assert "fio options accepted but not modelled: norandommap, randrepeat, ba, random_distribution" in r.out


def test_a_scenario_and_predict_warn_the_same(iolab, tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\nclients:\n  vm: Standard_D16s_v5\nvolumes:\n  data:\n    disks:\n"
                        f"      - sku: P30\n        count: 4\njobs:\n  - fio_file: {example('basic-verify.fio')}\n")
    r = iolab("predict", scenario)
    assert r.code == 0, r.err
    assert "jobs[0].verify: job write-and-verify: verify=crc32c reads back every block" in r.err
    assert "not modelled: write-and-verify: verify" in r.out


# --- refused --------------------------------------------------------------------------------

@pytest.mark.parametrize("name,field,variable", [
    ("sprandom.fio", "[global].bs", "${FIO_BS}"),
    ("xnvme-compare.fio", "[override].rw", "${FIO_RW}"),
    ("libcufile-cufile.fio", "[global].directory", "${FIO_DIR}"),
])
def test_values_from_the_environment_are_refused(iolab, name, field, variable):
    path = example(name)
    option = field.split(".")[1]
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == f"{option}={variable}")
    r = iolab("check", path)
    assert r.code == 2 and "Traceback" not in r.err
    assert f"{path}: {field}: fio would expand {variable} from its environment" in r.err
    assert f"(line {line})" in r.err


# --- how much IO a job does -------------------------------------------------------------------

def test_the_io_a_job_does_before_it_stops_is_what_each_file_says():
    def job(name, job_name):
        return next(j for j in parse_jobfile(example(name).read_text()) if j.name == job_name)

    # number_ios=1000 of blocksize=4096 stops the job long before its filesize=1G
    assert job("exitwhat.fio", "slow1").io_bytes == 1000 * 4096
    assert job("exitwhat.fio", "fast1").io_bytes == GiB
    # io_size=120g, loops=2 (and offset_increment spreads the 30 clones over the device)
    assert job("cross-stripe-verify.fio", "write-verify").io_bytes == 2 * 120 * GiB
    # size=256k, loops=500000
    assert job("fsx.fio", "file").io_bytes == 500000 * 256 * KiB
    # size=64k, io_size=4k
    assert job("http-s3.fio", "create").io_bytes == 4 * KiB
    page = os.sysconf("SC_PAGE_SIZE")
    assert job("page_fault.fio", "page_fault_cache_hot").io_bytes == 100 * 64 * page  # size=64*$pagesize, loops=100
    # size=128z: zones of a device, not bytes
    assert job("zbd-rand-write-trim-gc.fio", "wjob").io_bytes is None


def test_a_phase_lasts_as_long_as_its_io(iolab, tmp_path):
    (tmp_path / "amounts.fio").write_text(
        "[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=4\nfilesize=1g\n"
        "[w]\nrw=randwrite\nnumber_ios=5000\n"
        "[r]\nstonewall\nrw=randread\nsize=64m\nio_size=16m\nloops=2\n")
    (tmp_path / "s.yaml").write_text("version: 1\nclients:\n  vm: Standard_D16s_v5\nvolumes:\n  data:\n    disks:\n"
                                     "      - sku: P30\n        count: 4\njobs:\n  - fio_file: amounts.fio\n")
    r = iolab("predict", tmp_path / "s.yaml", "--json")
    assert r.code == 0, r.err
    w, rd = r.json()["phases"]
    assert w["phase_duration"] * w["bandwidth"] == pytest.approx(5000 * 4096, rel=0.01)
    assert rd["phase_duration"] * rd["bandwidth"] == pytest.approx(2 * 16 * MiB, rel=0.01)
