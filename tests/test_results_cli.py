"""`iolab results`: list, show, export and delete what runs stored."""

from __future__ import annotations

import csv
import io

import pytest

from iolab.bench.record import Figures, JobMeasure, Measured, RunRecord
from iolab.bench.store import ResultsStore


def stored(db, n=2):
    store = ResultsStore(db)
    ids = []
    for i in range(n):
        fig = Figures(1000.0 * (i + 1), 4096000.0 * (i + 1), {"mean": 0.001, "p99": 0.003})
        m = Measured(fig, read=fig)
        ids.append(store.save(RunRecord(status="ok", started=f"2026-01-0{i + 1}T00:00:00+00:00", ended="e",
                                        jobfile="[j]\nrw=randread\n", measured=m, jobs=(JobMeasure("j", m),),
                                        target="/data", params={"iodepth": 2 ** i})))
    store.close()
    return ids


def test_list_show_export_delete(iolab, tmp_path):
    db = tmp_path / "r.db"
    first, second = stored(db)
    runs = iolab("results", "list", "--db", db, "--json").json()["runs"]
    assert [r["run_id"] for r in runs] == [second, first] and runs[0]["iops"] == 2000.0
    assert runs[0]["params"] == {"iodepth": 2}
    r = iolab("results", "list", "--db", db)
    assert r.code == 0 and "2,000" in r.out and "iodepth=2" in r.out
    shown = iolab("results", "show", str(first), "--db", db)
    assert shown.code == 0 and "run 1" in shown.out and "rw=randread" in shown.out
    assert iolab("results", "show", str(first), "--jobfile", "--db", db).out == "[j]\nrw=randread\n"
    rows = list(csv.DictReader(io.StringIO(iolab("results", "export", "--csv", str(second), "--db", db).out)))
    assert {r["run_id"] for r in rows} == {str(second)}
    assert {(r["direction"], r["metric"], r["unit"]) for r in rows} >= {("total", "iops", "ops/s"),
                                                                      ("read", "latency.p99", "s")}
    total_iops = [r for r in rows if r["job"] == "" and r["direction"] == "total" and r["metric"] == "iops"]
    assert float(total_iops[0]["value"]) == 2000.0
    docs = iolab("results", "export", "--json", "--db", db).json()["runs"]
    assert [d["run_id"] for d in docs] == [first, second] and docs[0]["jobfile"].startswith("[j]")
    assert iolab("results", "delete", str(first), "--db", db, "--json").json() == {"deleted": first}
    assert [r["run_id"] for r in iolab("results", "list", "--db", db, "--json").json()["runs"]] == [second]


@pytest.mark.parametrize("args,expect", [
    (["show", "7"], "no run with id 7"), (["delete", "7"], "no run with id 7"),
    (["export", "--csv", "7"], "no run with id 7"), (["export"], "choose one format"),
])
def test_unknown_ids_and_formats_exit_2(iolab, tmp_path, args, expect):
    db = tmp_path / "r.db"
    stored(db, 1)
    r = iolab("results", *args, "--db", db)
    assert r.code == 2 and expect in r.err


def test_no_database_yet(iolab, tmp_path):
    # a database named with --db must be there (only the default one lists no runs when absent)
    r = iolab("results", "list", "--db", tmp_path / "none.db", "--json")
    assert r.code == 2 and r.out == "" and "no results database" in r.err
    assert not (tmp_path / "none.db").exists()
    r = iolab("results", "show", "1", "--db", tmp_path / "none.db")
    assert r.code == 2 and "no results database" in r.err


def test_default_database_is_in_the_user_data_directory(iolab, tmp_path):
    # the iolab fixture points XDG_DATA_HOME at a temporary directory
    from iolab.bench.store import default_path

    assert default_path() == tmp_path / "xdg-data" / "iolab" / "results.db"
    r = iolab("results", "list", "--json")
    assert r.code == 0 and r.json() == {"runs": [], "hidden_failed": 0}
