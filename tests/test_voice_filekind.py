"""The wrong kind of file is named for what it is, with the command that takes it."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

FIO_JOBS = DATA / "fio" / "jobs" / "rate-limited-oltp.fio"
FIO_OUTPUT = DATA / "fio" / "fio-3.33-psync-read.json"
SCENARIO = EXAMPLES / "oltp-ds13-p30.yaml"
REQUIREMENTS = EXAMPLES / "oltp-requirements.yaml"
POOL = EXAMPLES / "pool-requirements.yaml"
CATALOG = EXAMPLES / "private-catalog.yaml"


@pytest.mark.parametrize("command, path, what, use", [
    ("predict", FIO_JOBS, "a fio job file, not a scenario", "iolab bench run FILE runs it"),
    ("simulate", FIO_JOBS, "a fio job file, not a scenario", "fio_file: FILE"),
    ("plan", FIO_JOBS, "a fio job file, not a requirements file", "bench run"),
    ("predict", REQUIREMENTS, "a requirements file, not a scenario", "iolab plan"),
    ("simulate", POOL, "a requirements file, not a scenario", "iolab plan"),
    ("plan", SCENARIO, "a scenario, not a requirements file", "iolab predict"),
    ("predict", CATALOG, "a catalog file, not a scenario", "--catalog FILE"),
    ("plan", CATALOG, "a catalog file, not a requirements file", "--catalog FILE"),
    ("predict", FIO_OUTPUT, "fio's JSON output, not a scenario", "result"),
    ("bench run --target /nonexistent", REQUIREMENTS, "a requirements file, not a scenario or a fio job file",
     "iolab plan"),
])
def test_wrong_kind_of_file_names_its_kind_and_command(iolab, command, path, what, use):
    r = iolab(*command.split(), str(path))
    assert r.code == 2, r.err
    assert r.err.startswith(f"error: {path}: this is {what}: "), r.err
    assert use in r.err
    assert r.err.count("\n") == 1 and "YAML syntax" not in r.err and "unknown field" not in r.err


@pytest.mark.parametrize("path, kind", [
    (SCENARIO, "scenario"), (REQUIREMENTS, "requirements"), (POOL, "requirements"), (CATALOG, "catalog"),
    (FIO_JOBS, "fio-jobs"), (FIO_OUTPUT, "fio-output"), (DATA / "fio" / "fio-3.33-libaio-randrw.jsonplus", "fio-output"),
])
def test_sniff_tells_the_kinds_apart(path, kind):
    from iolab.filekind import sniff

    assert sniff(path) == kind


def test_every_bundled_job_file_and_example_is_recognised():
    from iolab.filekind import sniff

    for job in (DATA / "fio" / "jobs").glob("*.fio"):
        assert sniff(job) == "fio-jobs", job
    for example in EXAMPLES.glob("*.yaml"):
        assert sniff(example) in ("scenario", "requirements", "catalog", "calibration"), example


def test_right_kind_still_works_and_unknown_files_reach_the_loader(iolab, tmp_path):
    assert iolab("check", str(SCENARIO)).code == 0
    odd = tmp_path / "odd.yaml"
    odd.write_text("colour: blue\n")
    r = iolab("predict", str(odd))
    assert r.code == 2 and "unknown field 'colour'" in r.err
