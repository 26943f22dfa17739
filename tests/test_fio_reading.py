"""Every value iolab reads from a job file is the value fio 3.x reads, checked against the fio
on this machine (``fio --parse-only --debug=parse`` prints each option's parsed number), or
refused with what fio would have read where fio reads something other than it looks
(``iodepth=2*8`` runs at 2); and job files of any size are answered within bounded time."""

from __future__ import annotations

import re
import shutil
import subprocess
import time

import pytest

from iolab.errors import SchemaError
from iolab.fio import parse_jobfile
from iolab.fio.jobfile import MAX_JOB_SECTIONS, MAX_OPTION_LINES

FIO = shutil.which("fio")
BASE = "[j]\nrw=randrw\nfilename=/tmp/iolab-never-written\nsize=1m\n"
FIELD = {"bs": "bs", "iodepth": "iodepth", "numjobs": "numjobs", "size": "size", "nrfiles": "nrfiles"}

#: option=value as users and fio's docs write them
IDIOMS = [
    "bs=4k", "bs=4K", "bs=4kb", "bs=4KB", "bs=4ki", "bs=4KiB", "bs=4kib", "bs=4096", "bs=4096b", "bs=0x1000",
    "bs=1m", "bs=64k", "size=1g", "size=1G", "size=10GiB", "size=2t", "iodepth=32", "iodepth=+4",
    "numjobs=4", "nrfiles=0x10",
    # arithmetic without parentheses: fio reads the number at the start
    "bs=4k*1", "bs=4k*2", "size=1g/4", "iodepth=2*8", "size=5*1024*1024*4096/8", "size=2^10", "numjobs=3+1",
    # fractions: fio reads the whole part
    "bs=1.5k", "size=1.5g", "iodepth=1.9",
    # fio's keywords: with arithmetic, fio asks bc (whole numbers, each division cut)
    "numjobs=$ncpus", "iodepth=$ncpus*2", "iodepth=$ncpus*3/4", "iodepth=($ncpus+1)*2", "size=$pagesize*4",
]
KB_BASE = ["bs=4k", "bs=4KiB", "bs=4kib", "size=1m", "size=1MiB", "bs=4ki"]


def _fio_reads(text: str, option: str) -> int | None:
    """The number fio parsed for ``option`` (None when fio failed to parse the value)."""
    r = subprocess.run([FIO, "--parse-only", "--debug=parse", "-"], input=text, capture_output=True, text=True,
                       timeout=60)
    out = r.stdout + r.stderr
    if "failed parsing" in out:
        return None
    found = re.findall(rf"__handle_option={re.escape(option)}, type=\w+, ptr=[^\n]*\n[^\n]*out=(\d+)", out)
    assert found, out
    return int(found[-1])                  # the idiom comes after BASE's own value


def _iolab_reads(text: str, option: str) -> int | str:
    try:
        job = parse_jobfile(text)[0]
    except SchemaError as e:
        return str(e)
    return getattr(job, FIELD[option])


@pytest.mark.parametrize("idiom", IDIOMS + [f"kb_base=1000\n{i}" for i in KB_BASE])
def test_iolab_reads_what_fio_reads_or_says_what_fio_would(idiom):
    option = idiom.splitlines()[-1].split("=", 1)[0]
    text = BASE + idiom + "\n"
    fio = _fio_reads(text, option)
    got = _iolab_reads(text, option)
    assert fio is not None, f"fio refuses {idiom!r}"
    if isinstance(got, str):
        # refused: the message says what fio would read
        assert f"reads this as {fio} " in got or f"it would take {fio})" in got, (idiom, fio, got)
    else:
        assert got == fio, (idiom, fio, got)


@pytest.mark.parametrize("idiom,expected", [
    # fio's arithmetic in parentheses (fio built with it: the upstream default; Debian's fio
    # package is built without and refuses these values): units after a number, fractions,
    # ^ a power; the result cut to a whole number
    ("bs=(4k*2)", 8192), ("size=(1g/4)", 1 << 28), ("iodepth=(2*8)", 16), ("size=(5*1024*1024*4096/8)", 2684354560),
    ("size=(2^10)", 1024), ("bs=(1.5*1024)", 1536), ("size=(1.5g)", 1610612736), ("bs=(4KiB)", 4000),
    ("iodepth=(7/2)", 3), ("iodepth=(1+3)*2", 8),
])
def test_parenthesised_arithmetic(idiom, expected):
    option = idiom.split("=", 1)[0]
    assert _iolab_reads(BASE + idiom + "\n", option) == expected


def test_a_keyword_with_units_in_its_arithmetic_is_refused():
    with pytest.raises(SchemaError, match=r"to bc, which reads whole numbers .* \(no units\)"):
        parse_jobfile(BASE + "bs=$ncpus*4k\n")


def test_fio_reads_no_parenthesised_arithmetic_without_its_arithmetic_support():
    # the fio of the test machine, for the record of what the previous test cannot check here
    fio = _fio_reads(BASE + "iodepth=(2*8)\n", "iodepth")
    assert fio in (None, 16)


def _timed(text: str) -> tuple[float, str | None]:
    start = time.perf_counter()
    try:
        parse_jobfile(text)
        err = None
    except SchemaError as e:
        err = str(e)
    return time.perf_counter() - start, err


def test_a_job_file_of_100000_sections_is_refused_at_once():
    text = "[global]\nrw=randread\nsize=1m\n" + "".join(f"[j{i}]\niodepth=1\n" for i in range(100_000))
    took, err = _timed(text)
    assert err is not None and f"more than {MAX_JOB_SECTIONS:,} job sections" in err
    assert f"line {3 + 2 * MAX_JOB_SECTIONS + 1}" in err      # the first section past the limit
    assert took < 10


def test_the_most_sections_fio_runs_are_read():
    text = "[global]\nrw=randread\nsize=1m\n" + "".join(f"[j{i}]\niodepth=1\n" for i in range(MAX_JOB_SECTIONS))
    took, err = _timed(text)
    assert err is None and took < 20


def test_a_million_option_lines_are_refused_within_bounded_time():
    text = "[global]\n" + "bs=4k\n" * 1_000_000 + "[j]\nrw=read\nsize=1m\n"
    took, err = _timed(text)
    assert err is not None and f"more than {MAX_OPTION_LINES:,} option lines" in err
    assert took < 20
