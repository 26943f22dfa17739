"""fio job files: fio's precedence, units and flags; the performance guides' job files load
with the right fields; rendering round-trips and is accepted by fio's rules."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import DATA
from iolab.errors import SchemaError
from iolab.fio import FioJob, parse_jobfile, render_jobfile
from iolab.fio.options import parse_fio_int, parse_fio_time
from iolab.fio.sizes import io_sizes

JOBS = DATA / "fio" / "jobs"
GiB = 1024**3


def load(name: str) -> list[FioJob]:
    path = JOBS / name
    return parse_jobfile(path.read_text(), source=str(path))


def by_name(jobs: list[FioJob]) -> dict[str, FioJob]:
    return {j.name: j for j in jobs}


# --- the performance guides' job files (docs/sources.md) -----------------------------------

def test_premium_storage_ds14_jobs():
    writer, reader = load("premium-storage-ds14.fio")
    for job in (writer, reader):
        assert (job.bs, job.iodepth, job.numjobs, job.size) == (8192, 256, 4, 30 * GiB)
        assert job.ioengine == "libaio" and job.direct and job.group_reporting and job.time_based
        assert job.runtime == 30.0
        assert job.outstanding == 1024
    assert (writer.rw, writer.directory, writer.stonewall) == ("randwrite", "/mnt/nocachewrites", False)
    assert (reader.rw, reader.directory, reader.stonewall) == ("randread", "/mnt/cachereads", True)


def test_cache_warmup_jobs_run_two_hours_each():
    write, read = load("premium-storage-cache-warmup.fio")
    assert (write.rw, read.rw) == ("randwrite", "randread")
    assert all((j.bs, j.iodepth, j.numjobs, j.runtime) == (1 << 20, 128, 3, 7200.0) for j in (write, read))
    assert read.stonewall and not write.stonewall


def test_azure_files_nfs_jobs():
    jobs = by_name(load("azure-files-nfs.fio"))
    assert list(jobs) == ["randread-4k", "randread-8k", "randwrite-64k", "randwrite-1024k"]
    assert [j.bs for j in jobs.values()] == [4096, 8192, 65536, 1048576]
    for job in jobs.values():
        assert (job.filesize, job.nrfiles, job.numjobs, job.iodepth) == (4 * GiB, 4, 1, 64)
        assert (job.runtime, job.ramp_time, job.directory) == (1800.0, 300.0, "/mnt/azfiles")
        assert job.size is None and job.direct and job.ignored == ()
    assert jobs["randwrite-64k"].rw == "randwrite"


def test_anf_smb_jobs_keep_unmodelled_options_as_ignored():
    jobs = by_name(load("anf-smb.fio"))
    mixed = jobs["random-4k"]
    assert (mixed.rw, mixed.rwmixread, mixed.bs, mixed.iodepth, mixed.numjobs) == ("randrw", 70, 4096, 16, 16)
    assert mixed.size * mixed.numjobs == 40 * GiB
    assert mixed.ignored == ("thread",) and mixed.options["thread"] == ""
    assert not mixed.synchronous and mixed.outstanding == 256
    assert jobs["seq-read-64k"].rw == "read" and jobs["seq-write-64k"].bs == 65536
    assert jobs["seq-read-64k"].directory == r"Z\:\fio"


def test_gcnv_jobs_use_kb_base_1000():
    qd5, qd10 = load("gcnv-nfs.fio")
    assert qd5.bs == 8192  # KiB is binary with kb_base=1000
    assert qd5.size == 750 * 10**9  # g is decimal with kb_base=1000
    assert (qd5.iodepth, qd10.iodepth, qd5.numjobs) == (5, 10, 8)
    assert (qd5.runtime, qd5.ramp_time) == (120.0, 10.0)


def test_rate_limited_job():
    (job,) = load("rate-limited-oltp.fio")
    # fio paces each direction on its own: 500 reads and 200 writes a second, not 70/30
    assert job.rate_iops == 700.0
    assert job.options["rate_iops"] == "500,200"
    assert job.rate_process == "poisson"
    assert job.read_fraction == pytest.approx(500 / 700)
    assert job.rwmixread == 70


# --- fio's rules -------------------------------------------------------------------------

def test_global_applies_only_to_later_jobs_and_jobs_override_it():
    text = "[global]\nbs=8k\niodepth=4\n[a]\niodepth=16\n[global]\nbs=16k\n[b]\n"
    a, b = parse_jobfile(text)
    assert (a.bs, a.iodepth) == (8192, 16)
    assert (b.bs, b.iodepth) == (16384, 4)


def test_comments_blanks_and_spaces():
    text = "# c\n; c\n\n[a]\n  bs = 16k   # trailing\nrw=randwrite;trailing too\n\tnumjobs=2\r\n"
    (job,) = parse_jobfile(text)
    assert (job.bs, job.rw, job.numjobs) == (16384, "randwrite", 2)


def test_defaults_are_fios():
    (job,) = parse_jobfile("[only]\n")
    assert (job.rw, job.bs, job.iodepth, job.numjobs, job.ioengine, job.direct) == ("read", 4096, 1, 1, "psync", False)
    assert job.synchronous and job.outstanding == 1


@pytest.mark.parametrize("text,kb_base,expected", [
    ("4k", 1024, 4096), ("4kB", 1024, 4096), ("4KB", 1024, 4096), ("4KiB", 1024, 4000),
    ("4kib", 1024, 4000), ("4Ki", 1024, 4096), ("4k", 1000, 4000), ("4KiB", 1000, 4096),
    ("1m", 1024, 1 << 20), ("1g", 1024, 1 << 30), ("1t", 1024, 1 << 40), ("0x1000", 1024, 4096),
    ("512b", 1024, 512), ("4096", 1000, 4096),
])
def test_size_suffixes_as_fio_reads_them(text, kb_base, expected):
    # Checked against fio 3.33: size=8KiB writes 8000 bytes with kb_base=1024, 8192 with 1000.
    assert parse_fio_int(text, kb_base) == expected


@pytest.mark.parametrize("text,seconds", [("30", 30.0), ("500ms", 0.5), ("250us", 250e-6), ("10m", 600.0),
                                          ("1h", 3600.0), ("2d", 172800.0), ("1M", 60.0), ("45s", 45.0)])
def test_time_suffixes(text, seconds):
    assert parse_fio_time(text) == pytest.approx(seconds)


def test_bs_read_write_pairs():
    pairs = {"4k,8k": (4096, 8192), ",8k": (4096, 8192), "8k,": (8192, 4096), "16k": (16384, None),
             "8k,32k,": (8192, 32768)}
    for text, (bs, bs_write) in pairs.items():
        (job,) = parse_jobfile(f"[a]\nbs={text}\n")
        assert (job.bs, job.bs_write) == (bs, bs_write), text


def test_rwmixwrite_aliases_and_flags():
    (job,) = parse_jobfile("[a]\nreadwrite=readwrite\nrwmixwrite=20\nblocksize=2k\ntimeout=5m\n"
                           "wait_for_previous\ntime_based=0\nbuffered=0\n")
    assert (job.rw, job.rwmixread, job.bs, job.runtime) == ("rw", 80, 2048, 300.0)
    assert job.stonewall and not job.time_based and job.direct
    assert set(job.options) >= {"rw", "bs", "runtime", "stonewall"}  # aliases keyed canonically


def test_last_of_rwmixread_and_rwmixwrite_wins():
    (a,) = parse_jobfile("[global]\nrwmixread=90\n[a]\nrw=randrw\nrwmixwrite=40\n")
    assert a.rwmixread == 60


def test_unmodelled_options_are_reported_not_dropped():
    (job,) = parse_jobfile("[a]\nrw=randread:8\nnorandommap\nrandrepeat=0\nbssplit=4k/50:64k/50\n"
                           "size=50%\nfilesize=1g-3g\n")
    assert job.ignored == ("rw:8", "norandommap", "randrepeat", "bssplit", "size=50% (a share of the file or device)")
    assert job.rw == "randread" and job.size is None and job.filesize == 2 * GiB
    assert job.options["bssplit"] == "4k/50:64k/50"


def test_synchronous_engines_hold_one_io_per_job():
    (sync, aio) = parse_jobfile("[s]\nioengine=pvsync2\niodepth=32\nnumjobs=4\n"
                                "[a]\nioengine=io_uring\niodepth=32\nnumjobs=4\n")
    assert sync.synchronous and sync.outstanding == 4
    assert not aio.synchronous and aio.outstanding == 128


def test_environment_variables_from_env():
    (job,) = parse_jobfile("[a]\nsize=${SIZE}\ndirectory=${DIR}\n", env={"SIZE": "2g", "DIR": "/mnt/x"})
    assert (job.size, job.directory) == (2 * GiB, "/mnt/x")


# --- malformed job files: a clear SchemaError naming the file, section and option ------------

BAD = [
    ("[a]\niodepht=16\n", "[a].iodepht", "nearest: iodepth"),
    ("[a]\nrw=randred\n", "[a].rw", "nearest: randread"),
    ("[a]\nioengine=libaoi\n", "[a].ioengine", "nearest: libaio"),
    ("bs=4k\n[a]\n", "bs", "outside of any [section]"),
    ("[a]\ninclude common.fio\n", "[a]", "'include' is not supported"),
    ("[a\nbs=4k\n", "line 1", "malformed section header"),
    ("[global]\nbs=4k\n", None, "no job section"),
    ("", None, "no job section"),
    ("[a]\ndirect\n", "[a].direct", "needs a value"),
    ("[a]\ndirect=yes\n", "[a].direct", "not a fio boolean"),
    ("[a]\niodepth=0\n", "[a].iodepth", "at least 1"),
    ("[a]\nnumjobs=four\n", "[a].numjobs", "not a fio integer"),
    ("[a]\nbs=1.5k\n", "[a].bs", "no fractions"),
    ("[a]\nbs=4q\n", "[a].bs", "unknown unit"),
    ("[a]\nbs=4k,8k,16k,32k\n", "[a].bs", "at most three"),
    ("[a]\nrwmixread=120\n", "[a].rwmixread", "0..100"),
    ("[a]\nruntime=5parsecs\n", "[a].runtime", "not a fio time"),
    ("[a]\nrate_process=bursty\n", "[a].rate_process", "linear or poisson"),
    ("[a]\nkb_base=1023\n", "[a].kb_base", "1000 or 1024"),
    ("[a]\nsize=${SIZE}\n", "[a].size", "${SIZE}"),
    ("[a]\noutput-format=json\n", "[a].output-format", "command-line switch"),
    ("[global]\niodepth=-1\n[a]\n", "[global].iodepth", "not a fio integer"),
    ("[a]\nfilesize=1g-2x\n", "[a].filesize", "unknown unit"),
    ("[a]\ndirectory=\n", "[a].directory", "needs a value"),
]


@pytest.mark.parametrize("text,field,words", BAD, ids=[b[0].replace("\n", "|") for b in BAD])
def test_malformed_job_file(text, field, words):
    with pytest.raises(SchemaError) as info:
        parse_jobfile(text, source="bad.fio")
    err = info.value
    assert err.file == "bad.fio"
    assert err.field == field
    assert words in str(err)
    assert str(err).startswith("bad.fio: ")


def test_errors_name_the_line():
    with pytest.raises(SchemaError, match=r"\(line 4\)"):
        parse_jobfile("[global]\nbs=4k\n[a]\nrw=sideways\n", source="x.fio")


# --- rendering -----------------------------------------------------------------------------

FIELDS = ["name", "rw", "rwmixread", "bs", "bs_write", "iodepth", "numjobs", "ioengine", "direct", "size",
          "filesize", "nrfiles", "runtime", "ramp_time", "time_based", "rate_iops", "rate_process",
          "directory", "filename", "stonewall", "group_reporting"]


def fields(job: FioJob) -> dict:
    return {f: getattr(job, f) for f in FIELDS}


@pytest.mark.parametrize("name", sorted(p.name for p in JOBS.glob("*.fio")))
def test_render_round_trips_the_guides_jobs(name):
    jobs = load(name)
    again = parse_jobfile(render_jobfile(jobs))
    assert [fields(j) for j in again] == [fields(j) for j in jobs]
    assert [j.ignored for j in again] == [j.ignored for j in jobs]


def test_render_changed_and_constructed_jobs():
    (job,) = parse_jobfile("[a]\nkb_base=1000\nbs=4k,16k\nrate_iops=500,200\nrw=randrw\nrwmixwrite=30\n")
    changed = job.replace(iodepth=8, runtime=0.25, bs_write=None, rwmixread=90)
    built = FioJob(name="b", rw="randwrite", size=1 << 20, direct=True, stonewall=True, time_based=True)
    text = render_jobfile([changed, built], global_options={"ioengine": "libaio", "thread": ""})
    a, b = parse_jobfile(text)
    assert {**fields(a), "ioengine": "psync"} == fields(changed)
    assert {**fields(b), "ioengine": "psync"} == fields(built)
    assert a.options["rate_iops"] == "500,200"  # unchanged raw text is kept
    assert a.ioengine == "libaio" and b.ioengine == "libaio"  # defaults inherit [global]
    assert text.startswith("[global]\nioengine=libaio\nthread\n\n[a]\n")
    assert "runtime=250000us" in text and "stonewall\n" in text and "time_based\n" in text


def test_render_a_job_whose_options_use_aliases():
    job = FioJob(name="a", rw="write", options={"readwrite": "write", "blocksize": "8k"}, bs=8192)
    assert dict(job.options) == {"rw": "write", "bs": "8k"}
    (again,) = parse_jobfile(render_jobfile([job]))
    assert (again.rw, again.bs) == ("write", 8192)


def test_render_mappings():
    text = render_jobfile([{"name": "seq", "rw": "read", "bs": "1m", "direct": True}])
    assert text == "[seq]\nrw=read\nbs=1m\ndirect=1\n"
    (job,) = parse_jobfile(text)
    assert (job.bs, job.direct) == (1 << 20, True)


@pytest.mark.parametrize("jobs,words", [
    ([{"name": "global"}], "cannot be a job file section"),
    ([{"name": "a]b"}], "cannot be a job file section"),
    ([{"rw": "read"}], "needs a name"),
    ([{"name": "a", "iodepht": "4"}], "nearest: iodepth"),
    ([{"name": "a", "filename": "x;y"}], "fio cuts lines"),
    ([{"name": "a", "bs": ""}], "needs a value"),
])
def test_render_refuses_what_fio_would_misread(jobs, words):
    with pytest.raises(SchemaError, match=words.replace("[", r"\[")):
        render_jobfile(jobs)


def test_constructing_a_bad_job_is_a_schema_error():
    with pytest.raises(SchemaError, match="unknown rw"):
        FioJob(name="x", rw="sideways")
    with pytest.raises(SchemaError, match="iodepth must be at least 1"):
        FioJob(name="x", iodepth=0)
    assert FioJob(name="x", rw="readwrite").rw == "rw"
    assert hash(FioJob(name="x")) == hash(FioJob(name="x"))


# --- property: any valid job renders to a file that reads back to the same fields ---------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_sizes = st.integers(min_value=1, max_value=1 << 40)
_block_sizes = st.integers(min_value=1, max_value=1 << 31)  # iolab's ceiling for bs
_times = st.one_of(st.none(), st.integers(min_value=0, max_value=10**6).map(float),
                   st.integers(min_value=1, max_value=10**9).map(lambda us: us / 1e6))
_jobs = st.builds(
    FioJob,
    name=st.from_regex(r"[a-z][a-z0-9_.-]{0,12}", fullmatch=True).filter(lambda n: n != "global"),
    rw=st.sampled_from(["read", "write", "randread", "randwrite", "rw", "randrw", "trim", "trimwrite"]),
    rwmixread=st.integers(0, 100), bs=_block_sizes, bs_write=st.one_of(st.none(), _block_sizes),
    iodepth=st.integers(1, 4096), numjobs=st.integers(1, 256),
    ioengine=st.sampled_from(["psync", "libaio", "io_uring", "sync", "windowsaio"]), direct=st.booleans(),
    size=st.one_of(st.none(), _sizes), filesize=st.one_of(st.none(), _sizes), nrfiles=st.integers(1, 64),
    runtime=_times, ramp_time=_times, time_based=st.booleans(),
    rate_iops=st.one_of(st.none(), st.integers(1, 10**6).map(float)),
    rate_process=st.sampled_from(["linear", "poisson"]),
    directory=st.one_of(st.none(), st.from_regex(r"/[a-z0-9/_.-]{1,20}", fullmatch=True)),
    filename=st.one_of(st.none(), st.from_regex(r"[a-z0-9/_.:-]{1,20}", fullmatch=True)),
    stonewall=st.booleans(), group_reporting=st.booleans(),
)


def _paced(job: FioJob) -> FioJob:
    """A mixed job's cap as fio states it: whole IOs/s for its reads and for its writes."""
    if job.rate_iops is None or job.rw not in ("rw", "randrw") or job.rwmixread in (0, 100):
        return job
    reads, writes = int(job.rate_iops), job.iodepth
    return job.replace(rate_iops=float(reads + writes), rate_read_share=reads / (reads + writes))


@settings(max_examples=100, deadline=None)
@given(st.lists(_jobs, min_size=1, max_size=3))
def test_render_parse_round_trip(jobs):
    jobs = [_paced(j.replace(bs_write=None) if j.bs_write == j.bs else j) for j in jobs]
    again = parse_jobfile(render_jobfile(jobs))
    assert [fields(j) for j in again] == [fields(j) for j in jobs]


def test_fio_keywords_in_filename_format_are_left_to_fio():
    """fio fills in $jobname, $jobnum, $filenum and $clientuid itself (a stored job file must
    load again)."""
    from iolab.fio import parse_jobfile, render_jobfile

    text = "[x]\nrw=read\nfilename_format=$jobname.$jobnum.$filenum.$clientuid\n"
    job = parse_jobfile(text, source="t.fio")[0]
    assert job.options["filename_format"] == "$jobname.$jobnum.$filenum.$clientuid"
    assert parse_jobfile(render_jobfile([job]), source="again.fio")[0].options == job.options


# --- what fio reads that fio's examples do not show ----------------------------------------

@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_a_job_is_named_as_fio_names_it(tmp_path):
    text = "[global]\nname=everyone\nioengine=null\nsize=64k\n[a]\n[b]\nname=bee\n[c]\n"
    path = tmp_path / "names.fio"
    path.write_text(text)
    ran = subprocess.run([shutil.which("fio"), "--output-format=json", str(path)], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, check=True)
    fio_names = [j["jobname"] for j in json.loads(ran.stdout)["jobs"]]
    assert fio_names == ["a", "bee", "c"]  # a [global] name= names no job; a job's own does
    assert [j.name for j in parse_jobfile(text)] == fio_names


#: jobs whose IO sizes fio's own run shows: bs_is_seq_rand reads bs as sequential,random; a
#: bssplit direction left empty keeps bs (fio parses each direction's list on its own)
SIZED = ("[global]\nioengine=null\nnorandommap\nsize=4m\n"
         "[seq-rand-r]\nrw=randread\nbs=4k,64k\nbs_is_seq_rand=1\n"
         "[seq-rand-s]\nrw=read\nbs=4k,64k\nbs_is_seq_rand=1\n"
         "[split-no-reads]\nrw=randread\nbs=16k\nbssplit=,4k/50:8k/50\n"
         "[split-no-writes]\nrw=randwrite\nbs=16k\nbssplit=4k/50:8k/50,\n"
         "[read-write]\nrw=randwrite\nbs=4k,64k\n")


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_io_sizes_are_the_sizes_fio_issues(tmp_path):
    path = tmp_path / "sizes.fio"
    path.write_text(SIZED)
    ran = subprocess.run([shutil.which("fio"), "--output-format=json", str(path)], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, check=True)
    fio_sizes = {(j["jobname"], d): j[d]["io_bytes"] / j[d]["total_ios"]
                 for j in json.loads(ran.stdout)["jobs"] for d in ("read", "write") if j[d]["total_ios"]}
    assert fio_sizes == {("seq-rand-r", "read"): 65536, ("seq-rand-s", "read"): 4096,
                         ("split-no-reads", "read"): 16384, ("split-no-writes", "write"): 16384,
                         ("read-write", "write"): 65536}
    ours = {}
    for job in parse_jobfile(SIZED):
        for direction, dist in io_sizes(job).items():
            if (job.name, direction) in fio_sizes:
                ours[job.name, direction] = sum(size * share for size, share in dist)
    assert ours == fio_sizes
    assert "bs_is_seq_rand" not in parse_jobfile(SIZED)[0].ignored


def test_a_range_in_bs_is_refused_naming_bsrange():
    # fio reads bs=4k-16k as 4k and drops the rest; a range of sizes is bsrange
    with pytest.raises(SchemaError) as e:
        parse_jobfile("[a]\nrw=randread\nbs=4k-16k\n", source="r.fio")
    assert str(e.value) == ("r.fio: [a].bs: '4k-16k' is a range: bs takes one size per direction, and fio would "
                            "run only 4,096-byte IOs; for sizes spread over 4k-16k write bsrange=4k-16k (line 3)")
