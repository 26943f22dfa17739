"""A telemetry reading that is not a finite number a device could report — NaN, Infinity,
1e309 (infinite as a float), 1e308 (whose sum over a trace overflows) — is refused at its
line and column name (exit 2), never a traceback; in every format: iostat/sadf JSON,
sar text, PerfMon CSV, fio logs."""

from __future__ import annotations

import pytest

from conftest import DATA

T = DATA / "telemetry"


def _first(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


CASES = {
    # (iostat's first report, the averages since boot, is left out: these are in its second)
    "iostat json NaN": ("iostat-12.5.json", '"aqu-sz": 0.11', '"aqu-sz": NaN', "line 22: aqu-sz",
                        "expected a non-negative number, got 'nan'"),
    "iostat json Infinity": ("iostat-12.5.json", '"rkB/s": 2000.00', '"rkB/s": Infinity', "line 22: rkB/s",
                             "'inf' is more than any storage reports"),
    "iostat json 1e308": ("iostat-12.5.json", '"r_await": 0.20', '"r_await": 1e308', "line 22: r_await",
                          "more than any storage reports"),
    "sadf json interval NaN": ("sadf-j-12.json", '"interval": 600', '"interval": NaN', "line 16: interval",
                               "expected a non-negative number"),
    "sar 1e308": ("sar-d-12.txt", "800.00 ", "1e308  ", "line 4: wkB/s", "more than any storage reports"),
    "perfmon inf": ("typeperf-en-us.csv", '"409600.000000"', '"inf"', "line 2: Disk Read Bytes/sec",
                    "'inf' is more than any storage reports (at most 1e+15)"),
    "perfmon 1e309": ("typeperf-en-us.csv", '"1638400.000000"', '"1e309"', "line 2: Disk Write Bytes/sec",
                      "'1e309' is more than any storage reports"),
    "fio log 400 digits": ("db_iops.1.log", "1000, 100, 0", "1000, " + "9" * 400 + ", 0", "line 1: value",
                           "'99999999999999999999'... (400 characters) is more than any storage reports"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_reading_no_device_reports_is_refused_at_its_line(iolab, tmp_path, case):
    name, old, new, field, words = CASES[case]
    path = tmp_path / name
    path.write_text(_first((T / name).read_text(), old, new))
    r = iolab("characterize", str(path), "--no-store", "--json")
    assert r.code == 2 and r.out == "", r.err
    assert r.err.count("\n") == 1 and r.err.startswith(f"error: {path}: {field}: ") and words in r.err, r.err


def test_the_largest_plausible_reading_is_still_read(iolab, tmp_path):
    path = tmp_path / "sar.txt"
    path.write_text(_first((T / "sar-d-12.txt").read_text(), "800.00 ", "9e14   "))  # 900 TB/s of writes
    r = iolab("characterize", str(path), "--no-store", "--json")
    assert r.code == 0, r.err
