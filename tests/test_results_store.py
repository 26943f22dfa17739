"""The results database: whole runs or nothing, migrations, round trips."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from iolab.bench.record import Figures, HostMeasure, JobMeasure, Measured, RunRecord
from iolab.bench.store import SCHEMA_VERSION, ResultsStore
from iolab.errors import InputError, RunError


def record(iops=1000.0, **kw) -> RunRecord:
    fig = Figures(iops, iops * 4096, {"mean": 0.001, "p50": 0.0009, "p99": 0.004})
    measured = Measured(fig, read=fig)
    base = dict(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:02+00:00",
                jobfile="[j]\nrw=randread\n", fio_argv=("fio", "x.fio"), fio_version="fio-3.33",
                host="h", kernel="6.1", target="/data", fstype="ext4", mount_options="rw",
                measured=measured, jobs=(JobMeasure("j", measured),))
    base.update(kw)
    return RunRecord(**base)


def test_round_trip(tmp_path):
    with ResultsStore(tmp_path / "r.db") as store:
        rec = record(hosts=(HostMeasure("a", measured=Measured(Figures(500.0, 1.0))),
                            HostMeasure("b", status="failed", error="gone")),
                     params={"iodepth": 4}, predicted={"iops": 900.0})
        run_id = store.save(rec)
        back = store.load(run_id)
    assert back == rec.with_id(run_id)
    assert back.to_json()["hosts"][1] == {"host": "b", "status": "failed", "error": "gone"}


def test_list_delete_and_unknown_id(tmp_path):
    store = ResultsStore(tmp_path / "r.db")
    first, second = store.save(record(100.0)), store.save(record(200.0))
    assert [s.run_id for s in store.summaries()] == [second, first]
    assert store.summaries()[0].iops == 200.0
    store.delete(first)
    assert store.ids() == [second]
    assert not store._db.execute("SELECT 1 FROM measurements WHERE run_id = ?", (first,)).fetchall()
    with pytest.raises(InputError, match=f"no run with id {first}"):
        store.load(first)
    with pytest.raises(InputError):
        store.delete(first)


def test_schema_version_recorded_and_newer_refused(tmp_path):
    path = tmp_path / "r.db"
    assert ResultsStore(path).version == SCHEMA_VERSION
    ResultsStore(path)  # opening again migrates nothing
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    db.execute("INSERT INTO schema_version VALUES (?, 'later')", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(InputError, match="upgrade iolab"):
        ResultsStore(path)


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("this is not sqlite " * 100)
    with pytest.raises(InputError, match="not an iolab results database"):  # bad input: exit 2
        ResultsStore(path)


def test_sigkill_in_the_middle_of_a_write_leaves_the_database_consistent(tmp_path):
    path = tmp_path / "r.db"
    kept = ResultsStore(path).save(record(123.0))
    # a writer that stops for good half-way through a run's measurements, then is killed
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(tmp_path)!r})
        from iolab.bench import store as s
        from tests_record import record
        rows = s._rows
        def slow(*a):
            for i, row in enumerate(rows(*a)):
                if i == 3:
                    print("mid-write", flush=True)
                    time.sleep(60)
                yield row
        s._rows = slow
        s.ResultsStore({str(path)!r}).save(record(999.0))
    """)
    (tmp_path / "tests_record.py").write_text(
        "from iolab.bench.record import *\n" + textwrap.dedent(_RECORD_SRC))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "mid-write"
        db = sqlite3.connect(path, timeout=0.2)
        with pytest.raises(sqlite3.OperationalError):  # the writer holds the lock mid-transaction
            db.execute("BEGIN IMMEDIATE")
        db.close()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    store = ResultsStore(path)
    assert store.integrity() == "ok"
    assert store.ids() == [kept]
    assert store._db.execute("SELECT COUNT(*) FROM measurements WHERE run_id != ?", (kept,)).fetchone()[0] == 0
    assert store._db.execute("SELECT COUNT(*) FROM jobs WHERE run_id != ?", (kept,)).fetchone()[0] == 0
    assert store.load(kept).measured.total.iops == 123.0
    assert store.save(record(5.0)) > kept  # and it still takes new runs


_RECORD_SRC = '''
def record(iops):
    fig = Figures(iops, iops * 4096, {"mean": 0.001})
    m = Measured(fig, read=fig)
    return RunRecord(status="ok", started="s", ended="e", jobfile="[j]", measured=m,
                     jobs=(JobMeasure("j", m), JobMeasure("k", m)))
'''
