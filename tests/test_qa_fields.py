"""An error's FIELD names what the user typed: an option of the command that failed (in its
--help), an argument, or a field of a file; never an option that does not exist."""

from __future__ import annotations

import re

import pytest

from conftest import DATA, EXAMPLES

CASES = [
    "results list --sweep 999",
    "results show 999",
    "results delete 999",
    "calibrate {nvme} --sweep 42",
    "calibrate {nvme} --runs 999",
    "report sweep 42 -o {out}",
    "report run 999 -o {out}",
    "bench run --target {tmp} --rw randread --latency-percentile 97 --latency-target 1ms --sweep iodepth=1",
    "simulate {nvme} --ios 0",
    "predict {nvme} --sweep ramp_time=4k",
    "characterize {iostat} --device nope --no-store",
    "plan {req} --region mars",
    "catalog list --region mars",
]


@pytest.mark.parametrize("line", CASES)
def test_the_field_of_an_error_is_an_option_the_command_has(iolab, tmp_path, line):
    # a database with one run (and no sweep 42), so that ids are looked up, not refused for a missing file
    tgt = tmp_path / "tgt"
    tgt.mkdir()
    made = iolab("bench", "run", "--target", str(tgt), "--rw", "read", "--size", "1m", "--runtime", "100ms")
    assert made.code == 0, made.err
    fill = {"nvme": EXAMPLES / "local-nvme.yaml", "out": tmp_path / "r.html", "tmp": tgt,
            "iostat": DATA / "telemetry" / "iostat-12.5.txt", "req": EXAMPLES / "oltp-requirements.yaml"}
    r = iolab(line.format(**fill))
    assert r.code == 2, r.err
    m = re.match(r"^error: (--[a-z-]+|[A-Z][A-Z.]*): ", r.err)
    assert m, r.err
    field = m.group(1)
    words = line.split()
    command = words[:2] if words[0] in ("results", "catalog", "bench") else words[:1]
    help_text = iolab(*command, "--help").out
    assert re.search(rf"(^|\s){re.escape(field)}(\s|$|[.,=\[])", help_text, re.M), (field, help_text)
