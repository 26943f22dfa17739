"""A file of the wrong kind is named for what it is wherever a file is taken, not only as a
command's main argument: --calibration, --catalog, doctor --scenario, calibrate's scenario,
report's items. One line, exit 2, the file named, nothing written."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES

SCENARIO = EXAMPLES / "oltp-ds13-p30.yaml"
REQUIREMENTS = EXAMPLES / "oltp-requirements.yaml"
CATALOG = EXAMPLES / "private-catalog.yaml"
CALIBRATION = EXAMPLES / "p30-calibration.yaml"

CASES = [
    (["predict", SCENARIO, "--calibration", REQUIREMENTS], REQUIREMENTS, "a requirements file, not a calibration file"),
    (["simulate", SCENARIO, "--calibration", CATALOG], CATALOG, "a catalog file, not a calibration file"),
    (["predict", SCENARIO, "--calibration", SCENARIO], SCENARIO, "a scenario, not a calibration file"),
    (["predict", SCENARIO, "--catalog", REQUIREMENTS], REQUIREMENTS, "a requirements file, not a catalog file"),
    (["check", SCENARIO, "--catalog", CALIBRATION], CALIBRATION, "a calibration file, not a catalog file"),
    (["plan", REQUIREMENTS, "--catalog", SCENARIO], SCENARIO, "a scenario, not a catalog file"),
    (["predict", CALIBRATION], CALIBRATION, "a calibration file, not a scenario"),
    (["check", CALIBRATION], CALIBRATION, "a calibration file, not a scenario or a requirements file"),
    (["plan", CALIBRATION], CALIBRATION, "a calibration file, not a requirements file"),
    (["calibrate", REQUIREMENTS, "--runs", "1"], REQUIREMENTS, "a requirements file, not a scenario"),
    (["doctor", "--scenario", REQUIREMENTS], REQUIREMENTS, "a requirements file, not a scenario"),
    (["report", "predict", REQUIREMENTS, "-o", "{out}"], REQUIREMENTS, "a requirements file, not a scenario"),
    (["report", "plan", SCENARIO, "-o", "{out}"], SCENARIO, "a scenario, not a requirements file"),
]


@pytest.mark.parametrize("args, file, words", CASES, ids=[" ".join(str(a).split("/")[-1] for a in c[0]) for c in CASES])
def test_a_file_of_another_kind_is_named_for_what_it_is(iolab, tmp_path, args, file, words):
    out = tmp_path / "r.html"
    r = iolab(*[str(a).format(out=out) for a in args])
    assert r.code == 2, r.err
    assert r.err.startswith(f"error: {file}: this is {words}: "), r.err
    assert r.err.count("\n") == 1 and r.out == "" and not out.exists()


def test_the_right_kinds_still_work_together(iolab):
    r = iolab("predict", SCENARIO, "--calibration", CALIBRATION, "--catalog", CATALOG, "--json")
    assert r.code == 0, r.err
    assert r.json()["iops"] > 0
