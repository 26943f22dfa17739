"""fio's live status line, including fio 3.33's own --eta=always output."""

from __future__ import annotations

import pytest

from conftest import DATA
from iolab.fio.status import parse_status

MiB = 1024 * 1024


def test_the_documented_example():
    s = parse_status("Jobs: 1 (f=1): [r(1)][45.0%][r=123MiB/s][r=31.5k IOPS][eta 00m:11s]")
    assert (s.percent, s.read_bw, s.read_iops, s.eta_seconds, s.jobs) == (45.0, 123 * MiB, 31500.0, 11.0, 1)
    assert s.write_bw is None and s.write_iops is None


def test_real_eta_output_with_carriage_returns():
    text = (DATA / "fio" / "fio-3.33-eta-always-randrw.txt").read_text()
    s = parse_status(text)
    assert s.percent is None  # fio printed -.-% for this rate-limited time_based run
    assert (s.read_bw, s.write_bw) == (2002 * 1024, 2002 * 1024)
    assert (s.read_iops, s.write_iops, s.eta_seconds) == (500.0, 500.0, 0.0)
    assert s.raw.startswith("Jobs: 1 (f=1), 0-1000 IOPS: [m(1)]")


@pytest.mark.parametrize("line,expected", [
    ("\rJobs: 2 (f=2): [w(2)][12.5%][w=3456KiB/s][w=864 IOPS][eta 01h:02m:03s]\r",
     dict(percent=12.5, write_bw=3456 * 1024, write_iops=864.0, eta_seconds=3723.0, jobs=2)),
    ("Jobs: 4 (f=4): [R(2),W(2)][50.0%][r=1.5GiB/s,w=1.2GB/s][r=400k,w=300k IOPS][eta 1d:02h:03m:04s]",
     dict(read_bw=1.5 * 1024**3, write_bw=1.2e9, read_iops=4e5, write_iops=3e5, eta_seconds=93784.0)),
    ("<host1> Jobs: 1 (f=1): [f(1)][100.0%][eta 00m:00s]", dict(percent=100.0, eta_seconds=0.0, read_bw=None)),
    ("Jobs: 1 (f=1): [r(1)][10.0%][r=5MB/s][r=1.2k IOPS][eta 00m:09s]\rJobs: 1 (f=1): [r(1)][20.0%][r=6MB/s]"
     "[r=1.5k IOPS][eta 00m:08s]\r", dict(percent=20.0, read_bw=6e6, read_iops=1500.0)),
    ("log line\nJobs: 1 (f=1): [r(1)][30.0%][r=100kB/s][r=25 IOPS][eta 00m:07s]\nanother log line",
     dict(percent=30.0, read_bw=1e5, read_iops=25.0)),
    ("Jobs: 1 (f=1): [t(1)][5.0%][t=64MiB/s][t=16k IOPS][eta 00m:19s]", dict(trim_bw=64 * MiB, trim_iops=16000.0)),
    ("Jobs: 1 (f=1): [r(1)][7.0%][r=800Mib/s][r=25.6k IOPS][eta 00m:30s]", dict(read_bw=800 * MiB / 8)),
])
def test_variants(line, expected):
    s = parse_status(line)
    for key, value in expected.items():
        assert getattr(s, key) == (pytest.approx(value) if isinstance(value, float) else value), key


@pytest.mark.parametrize("line", ["", "hello", "Jobs: 0 (f=0)", "Jobs: 1 (f=1), 0-1000 IOPS", "Jobs: 1 (f=1): [r(1)][",
                                  "Jobs: x (f=1): [r(1)][10%]", "[eta 00m:01s]"])
def test_no_status(line):
    assert parse_status(line) is None


def test_a_cut_line_keeps_what_is_complete():
    s = parse_status("Jobs: 1 (f=1): [r(1)][45.0%][r=12")
    assert s.percent == 45.0 and s.read_bw is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_pieces = st.sampled_from(["Jobs: 1 (f=1)", ": ", "[r(1)]", "[45.0%]", "[-.-%]", "[r=1MiB/s,w=2KiB/s]", "[r=3k IOPS]",
                           "[eta 00m:01s]", "\r", "\n", "[", "]", "=", ",", "x", "Jobs:", " "])


@settings(max_examples=200, deadline=None)
@given(st.lists(_pieces, max_size=20).map("".join))
def test_never_raises_on_odd_text(text):
    s = parse_status(text)
    assert s is None or s.raw in text
