"""Bounded input: every reproducer of a hang, crash or traceback on hostile input gives one
``error: FILE: ...`` line and exit 2, fast (each case well under the time bound)."""

from __future__ import annotations

import math
import os
import time

import pytest

from iolab.units import format_duration, format_ops, format_rate

DEVICE = "volumes: {x: {device: {iops: 1000, read_latency: 1ms, write_latency: 1ms}}}\n"
LAUGHS = "".join(f"  {c}: &{c} [{','.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
BOUND = 10.0  # seconds: generous for a loaded machine; the work itself takes milliseconds


def run_bad(iolab, *args, expect: str, code: int = 2):
    start = time.monotonic()
    r = iolab(*args)
    took = time.monotonic() - start
    assert r.code == code, (r.code, r.err[-500:])
    assert "Traceback" not in r.err and r.err.startswith("error: ") and r.err.count("\n") == 1, r.err[:500]
    assert expect in r.err, r.err[:500]
    assert took < BOUND, f"{took:.1f} s"
    return r


@pytest.mark.parametrize("command", [("check",), ("predict",), ("simulate",), ("plan",)])
def test_deep_nesting_is_refused_for_every_command(iolab, tmp_path, command):
    brackets = tmp_path / "brackets.yaml"
    brackets.write_text("version: 1\nclients: " + "[" * 50_000 + "]" * 50_000 + "\n")
    run_bad(iolab, *command, brackets, expect="nested more than 64 levels")
    mappings = tmp_path / "mappings.yaml"
    mappings.write_text("version: 1\nclients:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(5000)))
    run_bad(iolab, *command, mappings, expect="nested more than 64 levels")


def test_billion_laughs_inside_an_allowed_field(iolab, tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text("version: 1\n" + DEVICE + "jobs:\n  - name: x\n    description: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
                    "clients:\n" + LAUGHS)
    assert len(path.read_bytes()) < 1000
    run_bad(iolab, "check", path, expect="aliases (*name) stand for more than")
    run_bad(iolab, "catalog", "list", "vms", "--catalog", path, expect="aliases (*name) stand for more than")


def test_a_few_aliases_are_fine(iolab, tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("version: 1\nvolumes:\n  x: {device: &d {iops: 1000, read_latency: 1ms, write_latency: 1ms}}\n"
                    "  y: {device: *d}\njobs:\n  - {volume: x}\n  - {volume: y}\n")
    r = iolab("check", path, "--json")
    assert r.code == 0, r.err


def test_integers_over_4300_digits(iolab, tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("version: 1\nclients:\n  count: " + "9" * 5000 + "\n")
    run_bad(iolab, "check", path, expect="an integer of 5000 digits")


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo"])
@pytest.mark.parametrize("command", [("check",), ("predict",), ("plan",), ("catalog", "list", "vms", "--catalog"),
                                     ("bench", "run", "--target", "TARGET")])
def test_special_files_are_refused_before_reading(iolab, tmp_path, special, command):
    if special == "fifo":
        special = tmp_path / "pipe.yaml"
        os.mkfifo(special)  # opening it would block forever
    args = [str(tmp_path) if a == "TARGET" else a for a in command]
    run_bad(iolab, *args, special, expect="not a regular file")


def test_oversized_files_and_paths(iolab, tmp_path):
    from iolab.inputs import MAX_FILE_BYTES

    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    run_bad(iolab, "check", big, expect=f"iolab reads at most {MAX_FILE_BYTES}")
    run_bad(iolab, "check", "a/" * 3000 + "x.yaml", expect="characters long")


def test_a_job_file_that_is_a_device_or_fifo_is_refused(iolab, tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\n" + DEVICE + "jobs:\n  - fio_file: /dev/zero\n")
    run_bad(iolab, "check", scenario, expect="not a regular file")


@pytest.mark.parametrize("job,field", [
    ("{bs: 1180591620717411303424}", "bs"),          # 2^70
    ("{iodepth: 9223372036854775808}", "iodepth"),   # 2^63
    ("{numjobs: 100000000000000000000}", "numjobs"),  # 10^20
    ("{size: 2000EiB}", "size"),
    ("{runtime: 99999999999}", "runtime"),
    ("{nrfiles: 99999999}", "nrfiles"),
    ("{rate_iops: 99999999999999}", "rate_iops"),
])
def test_counts_and_sizes_have_ranges(iolab, tmp_path, job, field):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\n" + DEVICE + f"jobs:\n  - {job}\n")
    run_bad(iolab, "check", path, expect=field)


def test_bench_flags_have_the_same_ranges(iolab, tmp_path):
    run_bad(iolab, "bench", "run", "--target", tmp_path, "--iodepth", "9223372036854775808",
            expect="--iodepth: iodepth must be at most 65536")
    run_bad(iolab, "bench", "run", "--target", tmp_path, "--bs", "1024g", expect="--bs: bs must be at most")
    run_bad(iolab, "bench", "run", "--target", tmp_path, "--sweep", "iodepth=" + ",".join(map(str, range(1, 1002))),
            expect="a sweep runs at most 1000")


def test_model_cost_is_bounded(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\n" + DEVICE + "jobs:\n  - {iodepth: 65536, numjobs: 4096, ioengine: libaio}\n")
    for command in ("check", "predict", "simulate"):
        run_bad(iolab, command, path, expect="IOs in flight")
    ok = tmp_path / "ok.yaml"
    ok.write_text("version: 1\n" + DEVICE + "jobs:\n  - {iodepth: 8, ioengine: libaio}\n")
    run_bad(iolab, "predict", ok, "--sweep", "iodepth=99999999999999999999", expect="--sweep: iodepth must be at most")
    run_bad(iolab, "predict", ok, "--sweep", "iodepth=" + ",".join(map(str, range(1, 20001))),
            expect="a sweep takes at most")
    run_bad(iolab, "predict", ok, "--sweep", "numjobs=100000", expect="at most")


@pytest.mark.parametrize("device,field", [("iops: 1e-300", "iops"), ("bandwidth: 1e-300", "bandwidth"),
                                          ("iops: 1e308", "iops"), ("read_latency: 1e300s", "read_latency")])
def test_absurd_device_figures_are_refused(iolab, tmp_path, device, field):
    path = tmp_path / "s.yaml"
    base = {"iops": "1000", "read_latency": "1ms", "write_latency": "1ms"}
    key, value = device.split(": ")
    base[key] = value
    body = ", ".join(f"{k}: {v}" for k, v in base.items())
    path.write_text("version: 1\nvolumes: {x: {device: {" + body + "}}}\njobs:\n  - {rw: randread}\n")
    for command in ("check", "simulate"):
        run_bad(iolab, command, path, expect=f"volumes.x.device.{field}")


def test_required_iops_of_1e308_is_refused(iolab, tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("version: 1\njobs:\n  - {rw: randread, bs: 4k}\nrequire:\n  iops: 1e308\n")
    run_bad(iolab, "plan", path, expect="require.iops")


def test_formatting_infinities_does_not_raise():
    assert format_duration(math.inf) == "∞ s"
    assert format_duration(None) == "n/a"
    assert "∞" in format_rate(math.inf) and format_ops(math.inf) == "inf IOPS"
    assert format_duration(1e300).endswith(" h")
