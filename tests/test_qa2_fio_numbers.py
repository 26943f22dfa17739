"""A fio number of thousands of digits (past Python's 4,300-digit conversion limit) is one
error line naming the option, exit 2 — in a job file, a command line in a scenario and
bench run's flags — not a traceback; the message shows the start of the number, not all of it."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES

HUGE = "9" * 5000


@pytest.mark.parametrize("option", ["bs", "iodepth", "size", "rate_iops", "kb_base", "filesize"])
def test_a_huge_number_in_a_job_file(iolab, tmp_path, option):
    path = tmp_path / "j.fio"
    path.write_text(f"[j]\nrw=read\n{option}={HUGE}\n")
    r = iolab("check", str(path))
    assert r.code == 2, r.err
    assert r.err == (f"error: {path}: [j].{option}: '99999999999999999999'... (5,000 digits) is far more than "
                     "fio's 64-bit integers hold (line 3)\n")


def test_a_huge_number_in_a_scenario_command_line(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nvolumes:\n  d: {device: {iops: 1000, read_latency: 1ms}}\n"
                    f"jobs:\n  - fio: '--name=a --rw=read --iodepth={HUGE}'\n")
    r = iolab("predict", str(path))
    assert r.code == 2 and r.err.count("\n") == 1 and len(r.err) < 300, r.err
    assert r.err.startswith(f"error: {path}: jobs[0].fio: --iodepth: '99999999999999999999'... (5,000 digits)")


@pytest.mark.parametrize("flag, value", [("--bs", HUGE), ("--size", HUGE + "k")])
def test_a_huge_bench_flag(iolab, tmp_path, flag, value):
    r = iolab("bench", "run", "--target", str(tmp_path), "--rw", "read", flag, value, "--runtime", "100ms")
    assert r.code == 2 and r.err.startswith(f"error: {flag}: '99999999999999999999'... (5,000 digits)"), r.err
    assert list(tmp_path.iterdir()) == []


def test_the_largest_64_bit_number_still_reads(iolab, tmp_path):
    path = tmp_path / "j.fio"
    path.write_text("[j]\nrw=read\nsize=0xffffffffffffffff\n")  # fio's own largest: past iolab's 1 EiB bound
    r = iolab("check", str(path))
    assert r.code == 2 and "size must be at most" in r.err, r.err
    assert iolab("check", str(EXAMPLES / "local-nvme.yaml")).code == 0
