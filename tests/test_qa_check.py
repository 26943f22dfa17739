"""`iolab check` of a fio job file warns as it does for a scenario: the same traps, on stderr
and under ``warnings`` in the JSON; its summary counts jobs in words."""

from __future__ import annotations


def test_a_job_file_warns_about_its_traps(iolab, tmp_path):
    path = tmp_path / "t.fio"
    path.write_text("; a comment\n[global]\nrw=randread\n\n[j]\nbs=4KiB\niodepth=32\n")
    r = iolab("check", str(path), "--json")
    assert r.code == 0, r.err
    doc = r.json()
    fields = sorted(w["field"] for w in doc["warnings"])
    assert fields == ["[j].bs", "[j].iodepth"]
    assert all(w["file"] == str(path) for w in doc["warnings"])
    assert "4,000 bytes" in next(w["message"] for w in doc["warnings"] if w["field"] == "[j].bs")
    assert r.err.count("warning: ") == 2 and f"warning: {path}: [j].iodepth: job j: iodepth=32 has no effect" in r.err
    assert doc["jobs"][0]["bs"] == 4000 and doc["jobs"][0]["outstanding"] == 1


def test_a_clean_job_file_has_no_warnings_and_one_job_reads_so(iolab, tmp_path):
    path = tmp_path / "t.fio"
    path.write_text("[j]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=32\n")
    r = iolab("check", str(path), "--json")
    assert r.code == 0 and r.err == ""
    assert r.json()["warnings"] == []
    r = iolab("check", str(path))
    assert r.out.splitlines()[0] == f"ok {path}: a valid fio job file with 1 job"


def test_a_fractional_fio_number_names_its_whole_equivalent(iolab, tmp_path):
    cases = {"bs=1.5k": "write a whole number: 1536 is the same amount",
             "size=1.5m": "write a whole number: 1536k is the same amount",
             "iodepth=1.5": "(it would take 1); write a whole number (line 3)"}
    for line, words in cases.items():
        path = tmp_path / "f.fio"
        path.write_text(f"[j]\nrw=randread\n{line}\n")
        r = iolab("check", str(path))
        assert r.code == 2
        assert r.err.startswith(f"error: {path}: [j].{line.split('=')[0]}: '{line.split('=')[1]}': fio reads no "
                                "fractions here") and words in r.err, r.err
