"""fio's JSON output with figures no real run gives — IOPS past what any machine issues, a
bandwidth past any bus, latency percentiles that fall as the percentile rises, a mean outside
its own min and max — is refused with the field named, never stored as a measurement."""

from __future__ import annotations

import json

import pytest

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
    return json.dumps(doc)


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
