"""fio's JSON output with a number fio never writes — NaN, a negative count or rate, a
fraction or a value past 64 bits where a count goes, an errno past the C library's range —
is refused with the field named (the run is stored as failed, exit 1), never a traceback
and never a stored negative or fractional figure; so are figures no real run gives (IOPS past
what any machine issues, a bandwidth past any bus, a latency mean outside its own min and
max, percentiles that fall as the percentile rises)."""

from __future__ import annotations

import json

import pytest

import iolab.cli.bench as cli_bench
from iolab.bench.executor import FakeExecutor, FakeRun
from iolab.bench.fakejson import FakeJob, fio_json
from iolab.errors import SchemaError
from iolab.fio import parse_output

GOOD = json.loads(fio_json([FakeJob("a", read_iops=1000)]))


def _with(path: tuple, value) -> str:
    doc = json.loads(json.dumps(GOOD))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return json.dumps(doc)  # NaN is written as fio never would: NaN


CASES = [
    (("timestamp",), float("nan"), "timestamp", "expected a finite number"),
    (("jobs", 0, "read", "clat_ns", "N"), float("nan"), "jobs[0].read.clat_ns.N", "expected a finite number"),
    (("jobs", 0, "read", "lat_ns", "N"), 2.5, "jobs[0].read.lat_ns.N", "expected a whole number"),
    (("jobs", 0, "read", "total_ios"), 2**64, "jobs[0].read.total_ios", "expected a whole number from 0 to"),
    (("jobs", 0, "read", "iops"), -5, "jobs[0].read.iops", "expected a number of at least 0, got -5"),
    (("jobs", 0, "read", "bw_bytes"), -1.0, "jobs[0].read.bw_bytes", "at least 0"),
    (("jobs", 0, "error"), 1e308, "jobs[0].error", "expected a whole number from 0 to"),
    (("jobs", 0, "ctx"), -3, "jobs[0].ctx", "at least 0"),
]


@pytest.mark.parametrize("path, value, field, words", CASES)
def test_a_number_fio_never_writes_is_refused_with_its_field(path, value, field, words):
    with pytest.raises(SchemaError) as e:
        parse_output(_with(path, value), source="out.json")
    assert e.value.field == field and words in e.value.message, str(e.value)
    assert str(e.value).startswith(f"out.json: {field}: ")


def test_a_real_documents_counts_still_read():
    result = parse_output(json.dumps(GOOD))
    assert result.timestamp == GOOD["timestamp"]
    assert result.jobs[0].read.total_ios == 1000 and result.jobs[0].read.clat.samples == 1000


def test_bench_run_names_the_field_and_fails_cleanly(iolab, tmp_path, monkeypatch):
    target = tmp_path / "t"
    target.mkdir()
    for path, value, field, words in [CASES[0], CASES[6]]:
        runs = (FakeRun(stdout="fio-3.33\n"), FakeRun(output=_with(path, value)))
        monkeypatch.setattr(cli_bench, "make_executor", lambda runs=runs: FakeExecutor(*runs))
        r = iolab("bench", "run", "--target", str(target), "--rw", "randread", "--size", "1m", "--runtime", "1",
                  "--db", str(tmp_path / "r.db"), "--json")
        assert r.code == 1, r.err
        assert "Traceback" not in r.err and r.err.splitlines()[-1].startswith("error: run ")
        assert f"fio output: {field}: {words}" in r.err
        assert list(target.iterdir()) == []


# Figures no real run gives: IOPS past what any machine issues, a bandwidth past any bus, a
# mean outside its own min and max, percentiles that fall as the percentile rises.


def test_the_good_document_reads():
    assert parse_output(json.dumps(GOOD)).jobs[0].read.iops == pytest.approx(1000)


@pytest.mark.parametrize("path, value, field, words", [
    (("jobs", 0, "read", "iops"), 1e308, "jobs[0].read.iops",
     "1e+308 IOPS is more than any fio run reports (at most 1e+11): not the output of a real run"),
    (("jobs", 0, "read", "bw_bytes"), 1e300, "jobs[0].read.bw_bytes", "bytes/s is more than any fio run reports"),
    (("jobs", 0, "read", "clat_ns", "mean"), 10**15, "jobs[0].read.clat_ns.mean", "is outside min"),
])
def test_impossible_figures_are_refused(path, value, field, words):
    with pytest.raises(SchemaError) as e:
        parse_output(_with(path, value), source="out.json")
    assert e.value.field == field and words in str(e.value), str(e.value)
    assert str(e.value).startswith(f"out.json: {field}: ")


def test_falling_percentiles_are_refused():
    doc = json.loads(json.dumps(GOOD))
    pct = doc["jobs"][0]["read"]["clat_ns"]["percentile"]
    keys = sorted(pct, key=float)
    assert len(keys) >= 2
    pct[keys[-1]] = pct[keys[0]] / 2 if pct[keys[0]] else 0
    pct[keys[0]] = max(pct[keys[0]], 1000)
    with pytest.raises(SchemaError) as e:
        parse_output(json.dumps(doc), source="out.json")
    assert e.value.field == "jobs[0].read.clat_ns.percentile" and "percentile" in str(e.value)
    assert "is below the" in str(e.value) and "not the output of a real run" in str(e.value)
