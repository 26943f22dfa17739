"""Silent traps become warnings: `warning: FILE: FIELD: message` on stderr, `warnings` in JSON;
and `check` shows sizes and IOPS in a person's units."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

TRAPS = DATA / "traps" / "traps.yaml"
REQ = DATA / "traps" / "latency-requirements.yaml"


@pytest.mark.parametrize("command", ["check", "predict", "simulate --ios 20000"])
def test_scenario_traps_are_warned_on_stderr_and_listed_in_json(iolab, command):
    name, *rest = command.split()
    human = iolab(name, str(TRAPS), *rest)
    assert human.code == 0, human.err
    lines = [ln for ln in human.err.splitlines() if ln.startswith("warning: ")]
    assert len(lines) == 4, human.err
    by_field = {ln.split(": ")[2]: ln for ln in lines}
    assert f"warning: {TRAPS}: " in lines[0]
    assert "read as 2 s" in by_field["volumes.data.device.read_latency"]
    assert "4,000 bytes to fio, not 4,096" in by_field["jobs[0].bs"] and "write 4k" in by_field["jobs[0].bs"]
    assert "bs=8KiB is 8,000 bytes" in by_field["jobs[1].fio"]
    depth = by_field["jobs[0].iodepth"]
    assert "iodepth=32 has no effect" in depth and "psync" in depth and "ioengine=libaio" in depth
    js = iolab(name, str(TRAPS), *rest, "--json")
    assert js.code == 0
    warnings = js.json()["warnings"]
    assert {w["field"] for w in warnings} == set(by_field)
    assert all(w["file"] == str(TRAPS) for w in warnings)


def test_the_warned_values_are_what_the_model_uses(iolab):
    """The warning tells the truth: fio's 4KiB is 4000 bytes and psync keeps 1 IO in flight."""
    doc = iolab("check", str(TRAPS), "--json").json()
    sync = doc["jobs"][0]
    assert sync["bs"] == 4000 and sync["outstanding"] == 4  # 4 jobs × 1, not 4 × 32
    assert doc["jobs"][1]["bs"] == 8000


def test_a_clean_example_has_no_warnings(iolab):
    r = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--json")
    assert r.json()["warnings"] == [] and "warning:" not in r.err


def test_requirements_latency_without_unit_is_warned_by_check_and_plan(iolab):
    for command in ("check", "plan"):
        r = iolab(command, str(REQ))
        assert r.code == 0, r.err
        assert f"warning: {REQ}: require.latency: 2 has no unit and is read as 2 s; write 2ms" in r.err
    assert iolab("plan", str(REQ), "--json").json()["warnings"][0]["field"] == "require.latency"


def test_bench_flags_warn_before_anything_runs(iolab, tmp_path):
    r = iolab("bench", "run", "--target", str(tmp_path / "missing"), "--rw", "randread", "--bs", "4KiB",
              "--iodepth", "16")
    assert r.code == 2  # the target does not exist; the warnings came first
    assert "warning: --bs: bs=4KiB is 4,000 bytes to fio" in r.err
    assert "warning: --iodepth: job bench: iodepth=16 has no effect" in r.err and "--ioengine libaio" in r.err


def test_check_shows_decimal_sizes_with_their_binary_value_and_iops_in_units(iolab, tmp_path):
    scen = tmp_path / "anf.yaml"
    scen.write_text((EXAMPLES / "oracle-anf-knfs.yaml").read_text().replace("size: 16TiB", "size: 10 TB"))
    r = iolab("check", str(scen))
    assert "10 TB (9.095 TiB)" in r.out  # 10e12 / 2**40 = 9.0949
    r = iolab("check", str(TRAPS))
    assert "100,000 IOPS" in r.out and "100000.0" not in r.out
    assert "4,000 B" in r.out


def test_capacity_and_block_formats():
    from iolab.units import format_block, format_capacity

    assert format_capacity(10 * 1000**4) == "10 TB (9.095 TiB)"
    assert format_capacity(2 * 1024**4) == "2 TiB"
    assert format_capacity(512 * 1024**3) == "512 GiB"
    assert format_block(8192) == "8 KiB" and format_block(4000) == "4,000 B" and format_block(512) == "512 B"


def test_bench_warns_about_its_source_file_too(iolab, tmp_path):
    job = tmp_path / "t.fio"
    job.write_text("[global]\nioengine=psync\n[a]\nrw=randread\nbs=4KiB\niodepth=8\n")
    r = iolab("bench", "run", str(job), "--target", str(tmp_path / "missing"))
    assert r.code == 2
    assert f"warning: {job}: [a].bs: bs=4KiB is 4,000 bytes to fio" in r.err
    assert r.err.count("iodepth=8 has no effect") == 1
    r = iolab("bench", "run", str(TRAPS), "--target", str(tmp_path / "missing"), "--iodepth", "8")
    assert r.err.count("has no effect") == 1 and "iodepth=8" in r.err  # the flag, not the file's 32
