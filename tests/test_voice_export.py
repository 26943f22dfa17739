"""`results export --csv` carries the prediction (predicted value and ratio per figure), as
`--json` does."""

from __future__ import annotations

import csv
import io

import pytest

from iolab.bench.record import Figures, JobMeasure, Measured, RunRecord
from iolab.bench.store import ResultsStore

PREDICTED = {"iops": 20000.0, "bandwidth": 163840000.0, "latency": {"mean": 0.0064},
             "read": {"iops": 14000.0, "bandwidth": 114688000.0, "latency": {"mean": 0.006}},
             "write": {"iops": 6000.0, "bandwidth": 49152000.0, "latency": {"mean": 0.0073}},
             "jobs": [{"name": "oltp", "iops": 20000.0, "bandwidth": 163840000.0, "latency": {"mean": 0.0064}}]}


def _store(db):
    total = Figures(19000.0, 155648000.0, {"mean": 0.0067, "p99": 0.02})
    read = Figures(13300.0, 108953600.0, {"mean": 0.0063, "p99": 0.019})
    write = Figures(5700.0, 46694400.0, {"mean": 0.0077, "p99": 0.021})
    m = Measured(total, read=read, write=write)
    with ResultsStore(db) as store:
        with_prediction = store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="e",
                                               jobfile="[oltp]\n", measured=m, jobs=(JobMeasure("oltp", m),),
                                               target="/data", predicted=PREDICTED))
        without = store.save(RunRecord(status="ok", started="2026-01-02T00:00:00+00:00", ended="e",
                                       jobfile="[oltp]\n", measured=m, jobs=(JobMeasure("oltp", m),), target="/data"))
    return with_prediction, without


def test_csv_has_predicted_and_ratio_columns(iolab, tmp_path):
    db = tmp_path / "r.db"
    first, second = _store(db)
    r = iolab("results", "export", "--csv", "--db", str(db))
    assert r.code == 0, r.err
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert "predicted" in rows[0] and "ratio" in rows[0]

    def row(run, job, direction, metric):
        (hit,) = [x for x in rows if x["run_id"] == str(run) and x["job"] == job and x["direction"] == direction
                  and x["metric"] == metric]
        return hit

    total = row(first, "", "total", "iops")
    assert float(total["predicted"]) == 20000.0 and float(total["ratio"]) == pytest.approx(0.95, rel=1e-3)
    wlat = row(first, "", "write", "latency.mean")
    assert float(wlat["predicted"]) == 0.0073 and float(wlat["ratio"]) == pytest.approx(0.0077 / 0.0073, rel=1e-3)
    assert float(row(first, "oltp", "total", "bandwidth")["predicted"]) == 163840000.0
    p99 = row(first, "", "total", "latency.p99")  # not predicted: empty, not zero
    assert p99["predicted"] == "" and p99["ratio"] == ""
    assert all(x["predicted"] == "" and x["ratio"] == "" for x in rows if x["run_id"] == str(second))


def test_csv_and_json_agree_on_the_ratios(iolab, tmp_path):
    db = tmp_path / "r.db"
    first, _ = _store(db)
    rows = list(csv.DictReader(io.StringIO(iolab("results", "export", "--csv", str(first), "--db", str(db)).out)))
    doc = iolab("results", "export", "--json", str(first), "--db", str(db)).json()["runs"][0]
    assert doc["predicted"]["iops"] == 20000.0
    for c in doc["comparison"]:
        direction = c["scope"] if c["scope"] in ("total", "read", "write") else "total"
        job = c["scope"][4:] if c["scope"].startswith("job ") else ""
        (hit,) = [x for x in rows if x["job"] == job and x["direction"] == direction and x["metric"] == c["figure"]]
        assert float(hit["ratio"]) == pytest.approx(c["ratio"], rel=1e-3)
