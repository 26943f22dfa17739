"""A results database damaged by something other than iolab — binary data (an SQLite BLOB)
in any column, a schema version below 1 — is refused with one line naming the file, the run
and the column (exit 2), never a traceback, and the file is left byte for byte as it was."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from conftest import saved_run_db

BLOB = b"\xff\x00\xfe"


def _db(tmp_path, sql: str, *params):
    path = saved_run_db(tmp_path / "r.db")
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()
    return path


def _refused(iolab, path, args, words):
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    r = iolab(*args, "--db", str(path))
    assert r.code == 2 and r.out == "", (r.code, r.err)
    assert r.err.count("\n") == 1 and r.err.startswith(f"error: {path}: ") and words in r.err, r.err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("table, column, args, words", [
    ("runs", "target", ["results", "list", "--json"], "damaged results database: column target holds binary"),
    ("runs", "target", ["results", "list"], "column target holds binary data (3 bytes)"),
    ("runs", "host", ["results", "show", "1", "--json"], "run 1: damaged results database: column host"),
    ("runs", "started", ["results", "export", "1", "--json"], "column started holds binary data"),
    ("runs", "jobfile", ["results", "show", "1", "--jobfile"], "column jobfile holds binary data"),
    ("measurements", "value", ["results", "show", "1"], "run 1: damaged results database: column value"),
    ("measurements", "metric", ["results", "export", "--json"], "column metric holds binary data"),
])
def test_binary_data_in_a_column_is_named(iolab, tmp_path, table, column, args, words):
    path = _db(tmp_path, f"UPDATE {table} SET {column} = ?", BLOB)
    _refused(iolab, path, args, words)


def test_binary_data_in_a_report_s_run_is_named(iolab, tmp_path):
    path = _db(tmp_path, "UPDATE measurements SET value = ?", BLOB)
    out = tmp_path / "r.html"
    _refused(iolab, path, ["report", "run", "1", "-o", str(out)], "run 1: damaged results database: column value")
    assert not out.exists()


@pytest.mark.parametrize("version", [-1, 0])
def test_a_schema_version_below_1_is_damage(iolab, tmp_path, version):
    path = _db(tmp_path, "UPDATE schema_version SET version = ?", version)
    _refused(iolab, path, ["results", "list"], f"damaged results database: schema_version holds {version}; "
                                                "versions start at 1")
