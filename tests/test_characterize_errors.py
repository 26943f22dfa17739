"""Bad telemetry: exit 2 with one `error: FILE: line N: ...` line, no traceback, and nothing
written — an existing requirements file or plot is left byte for byte."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import DATA

T = DATA / "telemetry"
FIXTURES = ["iostat-12.5.txt", "iostat-11.5.7-iso.txt", "iostat-10.1.5.txt", "iostat-12.5.json", "sar-d-12.txt",
            "sar-d-10.txt", "typeperf-en-us.csv",
            "sadf-d-11.csv", "sadf-j-12.json", "diskstats.log", "mountstats.log", "nfsiostat.txt", "perfmon-de.csv",
            "db_iops.1.log"]


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("at", [0.37, 0.71, 0.93])
def test_every_format_cut_mid_file_is_refused_with_its_line(iolab, tmp_path, name, at):
    data = (T / name).read_bytes()
    cut = int(len(data) * at)
    while data[cut - 1:cut] in (b"\n", b"\r", b" ", b","):   # cut inside a value, not at a boundary
        cut += 1
    bad = tmp_path / name
    bad.write_bytes(data[:cut])
    out = tmp_path / "req.yaml"
    out.write_text("# an earlier requirements file\n")
    r = iolab("characterize", str(bad), "--interval", "5s", "-o", str(out), "--force", "--no-store")
    assert r.code == 2, (r.out, r.err)
    assert re.match(rf"^error: {re.escape(str(bad))}: line \d+: \S", r.err), r.err
    assert r.err.count("\n") == 1 and "Traceback" not in r.err
    assert out.read_text() == "# an earlier requirements file\n"
    line = int(re.search(r"line (\d+)", r.err).group(1))
    assert 1 <= line <= data[:cut].count(b"\n") + 1


def test_truncated_iostat_fixture(iolab):
    r = iolab("characterize", str(T / "bad" / "iostat-truncated.txt"), "--no-store")
    assert r.code == 2
    assert "iostat-truncated.txt: line 29:" in r.err


def test_csv_of_another_program(iolab):
    r = iolab("characterize", str(T / "bad" / "other-program.csv"), "--no-store")
    assert r.code == 2
    assert r.err.startswith(f"error: {T / 'bad' / 'other-program.csv'}: line 1: not a telemetry format iolab reads")


def test_perfmon_without_disk_counters(iolab, tmp_path):
    f = tmp_path / "cpu.csv"
    f.write_text('"(PDH-CSV 4.0) (UTC)(0)","\\\\H\\Processor(_Total)\\% Processor Time"\r\n'
                 '"11/24/2026 10:00:00.000","5.0"\r\n')
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2 and ": line 1: no PhysicalDisk or LogicalDisk counters" in r.err


def test_renamed_fio_log_says_to_keep_the_name(iolab, tmp_path):
    f = tmp_path / "log.txt"
    shutil.copy(T / "db_iops.1.log", f)
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2 and "keep the name fio gives it" in r.err


def test_iostat_without_x(iolab, tmp_path):
    f = tmp_path / "iostat.txt"
    f.write_text("Linux 5.15.0 (h) \t11/24/2026 \t_x86_64_\t(2 CPU)\n\n"
                 "Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n"
                 "sda              10.00        40.00        80.00       4000       8000\n\n")
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2 and ": line 3: iostat without -x" in r.err


def test_missing_and_empty_files(iolab, tmp_path):
    r = iolab("characterize", str(tmp_path / "nope.txt"), "--no-store")
    assert r.code == 2 and "nope.txt: telemetry file not found" in r.err
    (tmp_path / "empty.txt").write_text("")
    r = iolab("characterize", str(tmp_path / "empty.txt"), "--no-store")
    assert r.code == 2 and "empty.txt: the file is empty" in r.err
    r = iolab("characterize", "--no-store")
    assert r.code == 2 and "FILE: give one or more telemetry files" in r.err


def test_bad_plot_and_output_paths_fail_before_reading(iolab, tmp_path):
    r = iolab("characterize", str(T / "sar-d-12.txt"), "--plot", str(tmp_path / "x.gif"), "--no-store")
    assert r.code == 2 and "--plot" in r.err
    r = iolab("characterize", str(T / "sar-d-12.txt"), "-o", str(tmp_path / "no" / "req.yaml"), "--no-store")
    assert r.code == 2 and "--output" in r.err


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path):
    from iolab.telemetry.output import atomic_path

    target = tmp_path / "plot.svg"
    target.write_bytes(b"<svg>old</svg>")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"<svg>half")
            raise RuntimeError("renderer died")
    assert target.read_bytes() == b"<svg>old</svg>"
    assert [p.name for p in tmp_path.iterdir()] == ["plot.svg"]


def test_sqlite_file_of_another_program_is_left_alone(iolab, tmp_path):
    import sqlite3

    f = tmp_path / "app.db"
    with sqlite3.connect(f) as db:
        db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    before = f.read_bytes()
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2 and "not an iolab results database" in r.err
    assert f.read_bytes() == before


def test_a_perfmon_csv_the_csv_module_cannot_split_is_refused_with_its_line(iolab, tmp_path):
    """A bare carriage return inside an unquoted field (a file cut and pasted between
    systems): the csv module's own error, named as the file's and its line's."""
    lines = (T / "perfmon-de.csv").read_text(encoding="utf-8").split("\n")
    lines[2] = lines[2].replace(",", ",1\r2", 1) if "," in lines[2] else lines[2].replace(";", ";1\r2", 1)
    bad = tmp_path / "perfmon.csv"
    bad.write_bytes("\n".join(lines).encode("utf-8"))
    r = iolab("characterize", str(bad), "--no-store")
    assert r.code == 2, (r.out, r.err)
    assert r.err.startswith(f"error: {bad}: line ") and "not a readable PerfMon CSV" in r.err
    assert "Traceback" not in r.err and "universal-newline" not in r.err


def test_a_bandwidth_log_alone_sizes_on_bandwidth(iolab, tmp_path):
    """fio's NAME_bw log without its NAME_iops log gives no IO rates: the requirement is the
    bandwidth alone, printed and written (it once failed looking for the IOPS)."""
    out = tmp_path / "req.yaml"
    r = iolab("characterize", str(T / "db_bw.1.log"), "-o", str(out), "--no-store")
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    assert "Requirements (P95 × 1.3): " in text
    req = text.split("Requirements (P95 × 1.3): ")[1].split(";")[0]
    assert req.endswith("MB/s") and "IOPS" not in req
    # The mix is the share of bytes read (the log: reads 800, 1,600, 2,400 KiB/s; writes 400 each
    # window), and the note says what was assumed.
    assert "randrw 80% reads, bs 4k" in text
    assert "the telemetry gives bandwidth but no IO rates" in text
    import yaml
    doc = yaml.safe_load(out.read_text())
    assert "iops" not in doc["require"] and doc["require"]["bandwidth"].endswith("MB/s")
