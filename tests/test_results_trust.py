"""The results store trusts nothing it finds: other programs' files are refused untouched,
damaged stores give exit 2 naming the run, a lock held elsewhere is waited for and a run
that still cannot be stored is written to a side file."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from iolab.bench.record import Figures, Measured, RunRecord
from iolab.bench.store import ResultsStore
from iolab.errors import InputError, RunError


def record(iops=100.0):
    return RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:01+00:00",
                     jobfile="[j]\nrw=read\n", fio_argv=("fio", "run.fio"), fio_version="fio-3.33",
                     host="h", kernel="k", target="/t", measured=Measured(Figures(iops, iops * 4096, {"mean": 1e-3})))


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bad(iolab, *args, expect):
    r = iolab(*args)
    assert r.code == 2, (r.code, r.err)
    assert r.err.startswith("error: ") and "Traceback" not in r.err and r.err.count("\n") == 1, r.err
    assert expect in r.err, r.err
    return r


def test_another_programs_sqlite_file_is_refused_untouched(iolab, tmp_path):
    other = tmp_path / "app.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers (name) VALUES ('ada')")
    db.commit()
    db.close()
    before = digest(other)
    bad(iolab, "results", "list", "--db", other, expect="another program's SQLite database (tables: customers)")
    bad(iolab, "bench", "run", "--target", tmp_path, "--size", "4k", "--runtime", "1", "--db", other,
        expect="another program's SQLite database")
    assert digest(other) == before
    tables = [r[0] for r in sqlite3.connect(other).execute("SELECT name FROM sqlite_master")]
    assert tables == ["customers"]


def test_empty_and_non_sqlite_files_are_not_turned_into_databases(iolab, tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    bad(iolab, "results", "list", "--db", empty, expect="an empty file, not an iolab results database")
    assert empty.stat().st_size == 0
    text = tmp_path / "notes.db"
    text.write_text("my notes\n")
    bad(iolab, "results", "show", "1", "--db", text, expect="not an SQLite file")
    assert text.read_text() == "my notes\n"
    bad(iolab, "results", "list", "--db", tmp_path, expect="is a directory")


def damaged(tmp_path, sql, *params):
    path = tmp_path / "r.db"
    with ResultsStore(path) as store:
        run_id = store.save(record())
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()
    return path, run_id


@pytest.mark.parametrize("column,value", [("params", "{not json"), ("fio_argv", "not json"),
                                          ("fio_argv", '{"a": 1}'), ("params", "[1, 2]"),
                                          ("predicted", "nope")])
def test_damaged_columns_give_exit_2_naming_the_run(iolab, tmp_path, column, value):
    path, run_id = damaged(tmp_path, f"UPDATE runs SET {column} = ?", value)
    for args in (("results", "show", str(run_id)), ("results", "export", "--json")):
        bad(iolab, *args, "--db", path, expect=f"run {run_id}: damaged results database")
    if column == "params":
        bad(iolab, "results", "list", "--db", path, expect=f"run {run_id}: damaged")


def test_non_integer_schema_version(iolab, tmp_path):
    path, _ = damaged(tmp_path, "UPDATE schema_version SET version = 'one'")
    bad(iolab, "results", "list", "--db", path, expect="schema_version holds 'one', not a whole number")


def test_newer_schema(iolab, tmp_path):
    path, _ = damaged(tmp_path, "INSERT INTO schema_version VALUES (99, 'later')")
    bad(iolab, "results", "list", "--db", path, expect="schema version 99; this iolab knows up to 1: upgrade iolab")


def test_missing_table(iolab, tmp_path):
    path, _ = damaged(tmp_path, "DROP TABLE measurements")
    bad(iolab, "results", "show", "1", "--db", path, expect="table measurements is missing")


@pytest.mark.parametrize("run_id", [str(2**63), str(10**30), "0", "-1"])
def test_ids_sqlite_cannot_hold_are_bad_input(iolab, tmp_path, run_id):
    path, _ = damaged(tmp_path, "SELECT 1")
    for command in ("show", "delete"):
        bad(iolab, "results", command, "--db", path, "--", run_id, expect="is not a run id")
    bad(iolab, "results", "export", "--json", "--db", path, "--", run_id, expect="is not a run id")
    if run_id != "-1":
        bad(iolab, "results", "list", "--sweep", run_id, "--db", path, expect="is not a sweep id")


HOLD = textwrap.dedent("""
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    db.execute("COMMIT")
""")


def hold_lock(path, seconds):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_lock_held_elsewhere_is_waited_for(tmp_path):
    path = tmp_path / "r.db"
    with ResultsStore(path) as created:
        assert created.ids() == []   # its first use creates the database
    waits = []
    store = ResultsStore(path, lock_wait=0.3, attempts=20, on_wait=waits.append)
    proc = hold_lock(path, 1.0)
    try:
        run_id = store.save(record(321.0))
    finally:
        proc.wait(10)
    assert waits and "locked by another process; waiting" in waits[0]
    assert store.load(run_id).measured.total.iops == 321.0


def test_a_lock_that_never_ends_leaves_the_run_in_a_side_file(tmp_path):
    path = tmp_path / "r.db"
    with ResultsStore(path) as created:
        assert created.ids() == []   # its first use creates the database
    store = ResultsStore(path, lock_wait=0.2, attempts=2, on_wait=lambda m: None)
    proc = hold_lock(path, 30)
    try:
        start = time.monotonic()
        with pytest.raises(RunError, match="stayed locked by another process") as e:
            store.save(record(654.0))
        assert time.monotonic() - start < 5
    finally:
        proc.kill()
        proc.wait(10)
    side = [p for p in tmp_path.iterdir() if ".unsaved-run-" in p.name]
    assert len(side) == 1 and str(side[0]) in str(e.value)
    doc = json.loads(side[0].read_text())
    assert doc["iops"] == 654.0 and doc["jobfile"] == "[j]\nrw=read\n"
    assert store.ids() == []


def test_a_store_that_is_fine_still_works(tmp_path):
    path = tmp_path / "r.db"
    with ResultsStore(path) as store:
        first = store.save(record())
    with ResultsStore(path) as store:
        assert store.ids() == [first]
    with pytest.raises(InputError, match="no run with id 7"):
        ResultsStore(path).load(7)
