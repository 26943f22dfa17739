"""The results database: every run, its jobs and measurements, in SQLite.

One run is written in one transaction, at its end, so a run killed at any moment leaves
either all its rows or none. The schema carries its version (table ``schema_version``);
:data:`MIGRATIONS` brings an older database up to date when it is opened.

Tables: ``runs`` (what ran, where, when, status), ``run_hosts`` (each host of a
multi-host run and its status), ``jobs`` (per job, per host), ``measurements`` (one figure
each: scope, direction, metric, value, unit), ``sweeps`` (runs grouped as a curve).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError, RunError
from .record import LATENCY_KEYS, Figures, HostMeasure, JobMeasure, Measured, RunRecord
from .workload import Workload, workload_of

__all__ = ["SCHEMA_VERSION", "MIGRATIONS", "LOCK_WAIT", "LOCK_ATTEMPTS", "default_path", "RunSummary",
           "ResultsStore"]

_V1 = """
CREATE TABLE sweeps (
    id INTEGER PRIMARY KEY,
    created TEXT NOT NULL,
    axes TEXT NOT NULL,               -- JSON: {"iodepth": [1, 2, 4]}
    knee TEXT                         -- JSON: the knee point's params, or null
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'interrupted')),
    started TEXT NOT NULL,            -- ISO 8601, UTC
    ended TEXT NOT NULL,
    jobfile TEXT NOT NULL,            -- the exact job file fio ran
    fio_argv TEXT NOT NULL,           -- JSON list
    fio_version TEXT,
    host TEXT,
    kernel TEXT,
    target TEXT,
    fstype TEXT,
    mount_options TEXT,
    params TEXT NOT NULL DEFAULT '{}',  -- JSON: the sweep point
    sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL,
    scenario TEXT,
    predicted TEXT,                   -- JSON or null
    error TEXT
);
CREATE TABLE run_hosts (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    host TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    PRIMARY KEY (run_id, position)
);
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    host TEXT
);
CREATE TABLE measurements (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    job_id INTEGER REFERENCES jobs(id) ON DELETE CASCADE,   -- null: a run or host total
    host TEXT,                                               -- null: across hosts
    direction TEXT NOT NULL CHECK (direction IN ('total', 'read', 'write')),
    metric TEXT NOT NULL,             -- iops | bandwidth | latency.mean | latency.p99 ...
    value REAL NOT NULL,
    unit TEXT NOT NULL                -- ops/s | B/s | s
);
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX jobs_run ON jobs(run_id);
CREATE INDEX runs_sweep ON runs(sweep_id);
"""

#: schema scripts by the version they produce; version N runs on a database at N - 1.
MIGRATIONS: dict[int, str] = {1: _V1}
SCHEMA_VERSION = max(MIGRATIONS)


def default_path() -> Path:
    """``results.db`` in the user's data directory (platformdirs; honours XDG_DATA_HOME)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("iolab")) / "results.db"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RunSummary:
    """A line of ``iolab results list``."""

    run_id: int
    status: str
    started: str
    target: str | None
    host: str | None
    sweep_id: int | None
    params: Mapping[str, Any]
    jobs: str
    iops: float | None
    bandwidth: float | None
    latency_mean: float | None
    jobfile: str = ""
    error: str | None = None

    @property
    def workload(self) -> Workload:
        """What the run ran (names, rw, bs, iodepth, numjobs), read from its job file."""
        return workload_of(self.jobfile)

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "status": self.status, "started": self.started,
                "target": self.target, "host": self.host, "sweep_id": self.sweep_id,
                "params": dict(self.params), "jobs": self.jobs.split("\n") if self.jobs else [],
                "workload": self.workload.to_json(),
                "iops": self.iops, "bandwidth": self.bandwidth,
                "latency": {"mean": self.latency_mean} if self.latency_mean is not None else {},
                "error": self.error}


_UNITS = {"iops": "ops/s", "bandwidth": "B/s"}


def _rows(measured: Measured, run_id: int, job_id: int | None, host: str | None) -> Iterator[tuple]:
    for direction, fig in measured.directions().items():
        yield (run_id, job_id, host, direction, "iops", fig.iops, "ops/s")
        yield (run_id, job_id, host, direction, "bandwidth", fig.bandwidth, "B/s")
        for key in LATENCY_KEYS:
            if key in fig.latency and fig.latency[key] is not None:
                yield (run_id, job_id, host, direction, f"latency.{key}", fig.latency[key], "s")


def _figure(value: Any, column: str = "value") -> float:
    """A stored figure: a finite number, not negative (iolab stores no other; text, or an
    infinity SQLite read from '1e999', was written by something else). ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"column {column} holds {str(value)[:40]!r}, not a finite figure")
    return float(value)


def _text(value: Any, column: str) -> str:
    """A stored text column (the job file, an error); ValueError for anything else."""
    if not isinstance(value, str):
        raise ValueError(f"column {column} holds {str(value)[:40]!r}, not text")
    return value


def _optional_id(value: Any, column: str) -> int | None:
    """A stored reference to another row (``sweep_id``): a whole number, or NULL."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"column {column} holds {str(value)[:40]!r}, not an id")
    return value


def _measured(rows: Iterable[sqlite3.Row]) -> Measured | None:
    parts: dict[str, dict[str, Any]] = {}
    for r in rows:
        part = parts.setdefault(r["direction"], {"iops": 0.0, "bandwidth": 0.0, "latency": {}})
        metric = r["metric"]
        if metric.startswith("latency."):
            part["latency"][metric.split(".", 1)[1]] = _figure(r["value"])
        else:
            part[metric] = _figure(r["value"])
    if "total" not in parts:
        return None
    figs = {k: Figures(v["iops"], v["bandwidth"], v["latency"]) for k, v in parts.items()}
    return Measured(figs["total"], figs.get("read"), figs.get("write"))


class _NewerSchema(Exception):
    """The database's schema is newer than this iolab's (args: its version)."""


def _migrate(db: sqlite3.Connection) -> None:
    """Run the migrations a database at an older version needs, in one transaction (all of
    them or none: a kill half-way leaves the database as it was)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied TEXT NOT NULL)")
        current = int(db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0)
        if current > SCHEMA_VERSION:
            raise _NewerSchema(current)
        for version in range(current + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO schema_version VALUES (?, ?)", (version, _now()))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _build(db: sqlite3.Connection) -> None:
    """A new, empty database's whole schema."""
    _migrate(db)


def _draft_prefix(path: Path) -> str:
    """The name a database being created carries until it is complete."""
    return f".{path.name}.iolab-new-"


def _remove_dead_drafts(path: Path) -> None:
    """Remove the drafts (and their journals) that creations killed half-way left beside
    `path`: those whose process no longer runs on this machine."""
    from .leftovers import alive

    prefix = _draft_prefix(path)
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        pid_text = entry.name[len(prefix):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or alive(int(pid_text)):
            continue
        try:
            if stat.S_ISREG(entry.lstat().st_mode):
                entry.unlink()
        except OSError:
            pass


#: seconds one attempt waits for a database another process holds locked, and the attempts.
LOCK_WAIT = 10.0
LOCK_ATTEMPTS = 6

_TABLES = ("schema_version", "sweeps", "runs", "run_hosts", "jobs", "measurements")


def _locked(error: sqlite3.OperationalError) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


def refuse_repeats(ids: Sequence[int], field: str, what: str = "run") -> None:
    """InputError when an id is listed twice: a run counted twice weighs double in a fit and
    shows twice in an export or a report."""
    twice = sorted({i for i in ids if list(ids).count(i) > 1})
    if twice:
        raise InputError(f"{what} {twice[0]} is given twice", field=field)


def _check_id(value: int, field: str, what: str = "run") -> None:
    """An id of a `what` (run or sweep) SQLite can hold (1 .. 2^63 - 1); InputError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise InputError(f"{value} is not a {what} id (ids are whole numbers from 1 to {2**63 - 1})", field=field)


def _json_value(text: Any, column: str) -> Any:
    if not isinstance(text, str):
        raise ValueError(f"column {column} holds {str(text)[:40]!r}, not JSON text")
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError(f"column {column} holds {text[:40]!r}, which is not JSON") from None


def _json_object(text: Any, column: str, *, optional: bool = False) -> dict[str, Any] | None:
    """A JSON object stored as text; with `optional`, SQL NULL and JSON ``null`` are None."""
    if optional and text is None:
        return None
    value = _json_value(text, column)
    if optional and value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"column {column} holds {str(text)[:40]!r}, not a JSON object")
    return value


def _checked_row(cursor: sqlite3.Cursor, values: tuple) -> sqlite3.Row:
    """A row as :class:`sqlite3.Row`; ValueError when a column holds binary data (iolab stores
    none: such a value was written by something else, and would break every reader)."""
    for i, v in enumerate(values):
        if isinstance(v, bytes):
            raise ValueError(f"column {cursor.description[i][0]} holds binary data ({len(v)} bytes), which iolab never writes")
    return sqlite3.Row(cursor, values)


def _json_list(text: Any, column: str) -> list[Any]:
    value = _json_value(text, column)
    if not isinstance(value, list):
        raise ValueError(f"column {column} holds {str(text)[:40]!r}, not a JSON list")
    return value


class ResultsStore:
    """A results database at `path` (created with its directory when missing).

    It trusts nothing it finds there: an existing file must be an iolab results database
    (SQLite, a ``schema_version`` table of whole numbers no newer than this iolab, every
    table present); anything else — another program's SQLite file, an empty file, a newer or
    damaged schema — raises InputError (exit 2) naming the file, and the file is left as it
    was. Values read back that do not fit (text that is not JSON, ...) raise InputError
    naming the run.

    A database locked by another process is waited for (`lock_wait` seconds per attempt,
    `attempts` times, each wait reported through `on_wait`); a run that still cannot be
    saved is written to a side file (:meth:`save`).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, lock_wait: float = LOCK_WAIT,
                 attempts: int = LOCK_ATTEMPTS, on_wait: Callable[[str], None] | None = None):
        self.path = Path(path) if path is not None else default_path()
        self.lock_wait = lock_wait
        self.attempts = max(1, attempts)
        self.on_wait = on_wait or (lambda message: print(message, file=sys.stderr))
        self._handle: sqlite3.Connection | None = None
        if self._check_file():
            self._open(existed=True)   # an existing file is checked now, before anything runs

    @property
    def _db(self) -> sqlite3.Connection:
        """The open database: a new file (and its folder) is created on first use, so that a
        run refused before it starts leaves nothing behind."""
        if self._handle is None:
            self._open(existed=self._check_file())
        return self._handle  # type: ignore[return-value]

    def _open(self, *, existed: bool) -> None:
        if not existed:
            existed = self._create()
        try:
            db = sqlite3.connect(self.path, timeout=self.lock_wait, isolation_level=None)
        except (OSError, sqlite3.Error) as e:
            raise RunError(f"cannot open results database {self.path}: {e}") from e
        db.row_factory = _checked_row
        self._handle = db
        try:
            try:
                db.execute("PRAGMA foreign_keys = ON")
                if existed:
                    self._verify()
                self._migrate()
            except BaseException:
                self._handle = None
                db.close()
                raise
        except sqlite3.OperationalError as e:
            if _locked(e):
                raise RunError(f"results database {self.path} is locked by another process: {e}; try again "
                               "when it is done") from None
            raise self._bad(f"not an iolab results database ({e})") from None
        except sqlite3.DatabaseError as e:
            raise self._bad(f"not an iolab results database ({e})") from None
        except ValueError as e:
            raise self._bad(f"damaged results database: {e}") from None

    def _create(self) -> bool:
        """Build a new database complete (schema, version) under a temporary name beside
        `path`, then link it into place: the path holds nothing or a whole iolab database at
        every instant, whenever this process is killed. Returns whether the path existed
        already (another process made it first: that one is then checked and used).

        A killed creation leaves only its temporary file, ``.NAME.iolab-new-<pid>-<random>``;
        the next creation in the folder removes those whose process no longer runs."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise RunError(f"cannot open results database {self.path}: {e}") from e
        _remove_dead_drafts(self.path)
        draft = self.path.parent / f"{_draft_prefix(self.path)}{os.getpid()}-{os.urandom(4).hex()}"
        try:
            try:
                db = sqlite3.connect(draft, isolation_level=None)
                try:
                    _build(db)
                finally:
                    db.close()
                os.link(draft, self.path)
            except FileExistsError:
                return self._check_file()
            except (OSError, sqlite3.Error) as e:
                raise RunError(f"cannot create results database {self.path}: {e}") from e
        finally:
            for leftover in (draft, Path(f"{draft}-journal")):
                try:
                    leftover.unlink()
                except OSError:
                    pass
        return True

    def _bad(self, message: str) -> InputError:
        return InputError(message, file=str(self.path))

    def _check_file(self) -> bool:
        """Whether the file exists; InputError when it exists but cannot be an iolab database."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False
        except OSError as e:
            raise self._bad(f"cannot read it ({e.strerror or e})") from None
        if stat.S_ISDIR(st.st_mode):
            raise self._bad("is a directory; name a database file (e.g. results.db in it)")
        if not stat.S_ISREG(st.st_mode):
            raise self._bad("not a regular file; --db names a results database file")
        if st.st_size == 0:
            raise self._bad("an empty file, not an iolab results database: iolab does not turn it into one; "
                            "remove it or name another --db")
        try:
            with open(self.path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise self._bad(f"cannot read it ({e.strerror or e})") from None
        if head != b"SQLite format 3\x00":
            raise self._bad("not an iolab results database (not an SQLite file); name another --db")
        return True

    def _verify(self) -> None:
        """An existing SQLite file: refuse another program's database, a newer schema, a
        damaged one (a non-integer version, a missing table)."""
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" not in tables:
            listed = ", ".join(sorted(tables)[:6]) or "none"
            raise self._bad(f"another program's SQLite database (tables: {listed}), not an iolab results "
                            "database: iolab leaves it alone; name another --db")
        versions = [r[0] for r in self._db.execute("SELECT version FROM schema_version")]
        for v in versions:
            if isinstance(v, bool) or not isinstance(v, int):
                raise self._bad(f"damaged results database: schema_version holds {str(v)[:40]!r}, not a whole number")
            if v < 1:
                raise self._bad(f"damaged results database: schema_version holds {v}; versions start at 1")
        current = max(versions, default=0)
        if current > SCHEMA_VERSION:
            raise self._bad(f"schema version {current}; this iolab knows up to {SCHEMA_VERSION}: upgrade iolab")
        if current == SCHEMA_VERSION:
            missing = [t for t in _TABLES if t not in tables]
            if missing:
                raise self._bad(f"damaged results database: table {missing[0]} is missing")

    @contextmanager
    def _reading(self, run_id: int | None = None) -> Iterator[None]:
        """Turn what a damaged or foreign database does to a read into InputError naming the run."""
        where = f"run {run_id}: " if run_id is not None else ""
        try:
            yield
        except sqlite3.OperationalError as e:
            if _locked(e):
                raise RunError(f"results database {self.path} is locked by another process; try again") from None
            raise self._bad(f"{where}damaged results database ({e})") from None
        except (sqlite3.DatabaseError, ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
            raise self._bad(f"{where}damaged results database: {e}") from None

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @property
    def version(self) -> int:
        """The schema version of the open database (0 for an empty file)."""
        try:
            row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        except sqlite3.OperationalError:
            return 0
        return int(row[0] or 0)

    def _migrate(self) -> None:
        """Bring the open database up to :data:`SCHEMA_VERSION`, in one transaction."""
        try:
            _migrate(self._db)
        except _NewerSchema as e:
            raise self._bad(f"schema version {e.args[0]}; this iolab knows up to {SCHEMA_VERSION}: upgrade iolab") from None

    # -- writing ---------------------------------------------------------------------------

    def new_sweep(self, axes: Mapping[str, Sequence[Any]]) -> int:
        """Create a sweep (its own small transaction) and return its id."""
        with self._transaction() as db:
            cur = db.execute("INSERT INTO sweeps (created, axes) VALUES (?, ?)",
                             (_now(), json.dumps({k: list(v) for k, v in axes.items()})))
            return int(cur.lastrowid)

    def drop_sweep(self, sweep_id: int) -> None:
        """Delete a sweep that has no runs (a sweep refused before its first point)."""
        with self._transaction() as db:
            db.execute("DELETE FROM sweeps WHERE id = ? AND id NOT IN"
                       " (SELECT sweep_id FROM runs WHERE sweep_id IS NOT NULL)", (sweep_id,))

    def set_knee(self, sweep_id: int, knee: Mapping[str, Any] | None) -> None:
        with self._transaction() as db:
            db.execute("UPDATE sweeps SET knee = ? WHERE id = ?", (json.dumps(knee), sweep_id))

    def save(self, record: RunRecord) -> int:
        """Write one run with all its jobs and measurements in one transaction; returns its id.

        While another process holds the database locked, waits and tries again (up to
        `attempts` times, saying so through `on_wait`); if it stays locked, the run is written
        as JSON to a side file beside the database and RunError says where."""
        for attempt in range(1, self.attempts + 1):
            try:
                return self._save(record)
            except sqlite3.OperationalError as e:
                if not _locked(e):
                    raise
                if attempt < self.attempts:
                    self.on_wait(f"results database {self.path} is locked by another process; waiting "
                                 f"(attempt {attempt + 1} of {self.attempts})")
        side = self._side_file(record)
        raise RunError(f"results database {self.path} stayed locked by another process; the run was not "
                       f"stored there but written to {side} (the measured figures, the job file and where it ran)")

    def _side_file(self, record: RunRecord) -> Path:
        doc = record.to_json()
        doc.update(jobfile=record.jobfile, fio_argv=list(record.fio_argv))
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        text = json.dumps(doc, indent=2, default=str) + "\n"
        for directory in (self.path.parent, Path(tempfile.gettempdir())):
            side = directory / f"{self.path.name}.unsaved-run-{stamp}.json"
            draft = directory / f".{side.name}.{os.getpid()}"
            try:
                with open(draft, "x") as f:   # written whole, then linked: never half a file
                    f.write(text)
                os.link(draft, side)
                return side
            except OSError:
                continue
            finally:
                try:
                    draft.unlink()
                except OSError:
                    pass
        raise RunError(f"results database {self.path} stayed locked, and no side file could be written: "
                       f"the run is lost; its figures: {json.dumps(doc.get('iops'))} IOPS")

    def _save(self, record: RunRecord) -> int:
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO runs (status, started, ended, jobfile, fio_argv, fio_version, host, kernel,"
                " target, fstype, mount_options, params, sweep_id, scenario, predicted, error)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.status, record.started, record.ended, record.jobfile, json.dumps(list(record.fio_argv)),
                 record.fio_version, record.host, record.kernel, record.target, record.fstype,
                 record.mount_options, json.dumps(dict(record.params)), record.sweep_id, record.scenario,
                 None if record.predicted is None else json.dumps(record.predicted), record.error))
            run_id = int(cur.lastrowid)
            if record.measured is not None:
                db.executemany("INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?)",
                               _rows(record.measured, run_id, None, None))
            for pos, h in enumerate(record.hosts):
                db.execute("INSERT INTO run_hosts VALUES (?, ?, ?, ?, ?)", (run_id, pos, h.host, h.status, h.error))
                if h.measured is not None:
                    db.executemany("INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   _rows(h.measured, run_id, None, h.host))
            for pos, job in enumerate(record.jobs):
                jcur = db.execute("INSERT INTO jobs (run_id, position, name, host) VALUES (?, ?, ?, ?)",
                                  (run_id, pos, job.name, job.host))
                db.executemany("INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?)",
                               _rows(job.measured, run_id, int(jcur.lastrowid), job.host))
        return run_id

    def delete(self, run_id: int) -> None:
        """Delete a run and everything stored with it. Raises InputError for an unknown id."""
        _check_id(run_id, "ID")
        with self._transaction() as db:
            if db.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise InputError(f"no run with id {run_id} in {self.path}", field="ID")
            db.execute("DELETE FROM sweeps WHERE id NOT IN (SELECT sweep_id FROM runs WHERE sweep_id IS NOT NULL)")

    # -- reading ---------------------------------------------------------------------------

    def ids(self) -> list[int]:
        with self._reading():
            return [int(r[0]) for r in self._db.execute("SELECT id FROM runs ORDER BY id")]

    def summaries(self, *, sweep_id: int | None = None, limit: int | None = None,
                  failed: bool = True) -> list[RunSummary]:
        """Runs newest first (all of a sweep when `sweep_id` is given), with their totals;
        without `failed`, only the runs that did not fail."""
        if sweep_id is not None:
            _check_id(sweep_id, "--sweep", "sweep")
        conditions, args = (["r.sweep_id = ?"], [sweep_id]) if sweep_id is not None else ([], [])
        if not failed:
            conditions.append("r.status != 'failed'")
        where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
        sql = (
            "SELECT r.id, r.status, r.started, r.target, r.host, r.sweep_id, r.params, r.jobfile, r.error,"
            " (SELECT group_concat(name, char(10)) FROM (SELECT DISTINCT name FROM jobs j"
            "   WHERE j.run_id = r.id ORDER BY position)) AS jobnames,"
            " (SELECT value FROM measurements m WHERE m.run_id = r.id AND m.job_id IS NULL AND m.host IS NULL"
            "   AND m.direction = 'total' AND m.metric = 'iops') AS iops,"
            " (SELECT value FROM measurements m WHERE m.run_id = r.id AND m.job_id IS NULL AND m.host IS NULL"
            "   AND m.direction = 'total' AND m.metric = 'bandwidth') AS bw,"
            " (SELECT value FROM measurements m WHERE m.run_id = r.id AND m.job_id IS NULL AND m.host IS NULL"
            "   AND m.direction = 'total' AND m.metric = 'latency.mean') AS lat"
            f" FROM runs r {where} ORDER BY r.id DESC"
        )
        if limit is not None:
            sql += " LIMIT ?"
            args.append(min(limit, 2**63 - 1))
        out = []
        with self._reading():
            rows = self._db.execute(sql, args).fetchall()
        for r in rows:
            with self._reading(r["id"]):
                figures = [None if r[k] is None else _figure(r[k]) for k in ("iops", "bw", "lat")]
                out.append(RunSummary(int(r["id"]), str(r["status"]), str(r["started"]), r["target"], r["host"],
                                      _optional_id(r["sweep_id"], "sweep_id"), _json_object(r["params"], "params"),
                                      r["jobnames"] or "", *figures, jobfile=_text(r["jobfile"], "jobfile"),
                                      error=r["error"] if r["error"] is None else _text(r["error"], "error")))
        return out

    def load(self, run_id: int, field: str = "ID") -> RunRecord:
        """The full record of a run. Raises InputError for an unknown id (located at `field`,
        the option or argument that named the run), or naming the run when what is stored
        does not fit."""
        _check_id(run_id, field)
        with self._reading(run_id):
            return self._load(run_id, field)

    def _load(self, run_id: int, field: str = "ID") -> RunRecord:
        r = self._db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if r is None:
            raise InputError(f"no run with id {run_id} in {self.path}", field=field)
        rows = self._db.execute("SELECT * FROM measurements WHERE run_id = ?", (run_id,)).fetchall()
        by_job: dict[int | None, list[sqlite3.Row]] = {}
        for m in rows:
            key = m["job_id"] if m["job_id"] is not None else (None if m["host"] is None else m["host"])
            by_job.setdefault(key, []).append(m)
        jobs = tuple(
            JobMeasure(j["name"], _measured(by_job.get(j["id"], ())) or Measured(Figures(0.0, 0.0)), j["host"])
            for j in self._db.execute("SELECT * FROM jobs WHERE run_id = ? ORDER BY position", (run_id,))
        )
        hosts = tuple(
            HostMeasure(h["host"], h["status"], _measured(by_job.get(h["host"], ())), h["error"])
            for h in self._db.execute("SELECT * FROM run_hosts WHERE run_id = ? ORDER BY position", (run_id,))
        )
        return RunRecord(
            status=r["status"], started=r["started"], ended=r["ended"], jobfile=r["jobfile"],
            fio_argv=tuple(str(a) for a in _json_list(r["fio_argv"], "fio_argv")), fio_version=r["fio_version"],
            host=r["host"],
            kernel=r["kernel"], target=r["target"], fstype=r["fstype"], mount_options=r["mount_options"],
            measured=_measured(by_job.get(None, ())), jobs=jobs, hosts=hosts,
            params=_json_object(r["params"], "params"),
            predicted=_json_object(r["predicted"], "predicted", optional=True),
            scenario=r["scenario"], error=r["error"], sweep_id=_optional_id(r["sweep_id"], "sweep_id"),
            run_id=r["id"],
        )

    def sweep(self, sweep_id: int, field: str = "--sweep") -> dict[str, Any]:
        """A sweep's axes and knee. Raises InputError (located at `field`, the option or
        argument that named the sweep) for an unknown id."""
        _check_id(sweep_id, field, "sweep")
        with self._reading():
            r = self._db.execute("SELECT * FROM sweeps WHERE id = ?", (sweep_id,)).fetchone()
            if r is None:
                raise InputError(f"no sweep with id {sweep_id} in {self.path}", field=field)
            return {"sweep_id": r["id"], "created": r["created"], "axes": _json_object(r["axes"], "axes"),
                    "knee": _json_object(r["knee"], "knee", optional=True)}

    def measurement_rows(self, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Flat rows (one per figure) for export: run, job, host, direction, metric, value, unit."""
        sql = ("SELECT m.run_id, r.status, r.started, r.target, r.sweep_id, r.params, j.name AS job,"
               " m.host, m.direction, m.metric, m.value, m.unit FROM measurements m"
               " JOIN runs r ON r.id = m.run_id LEFT JOIN jobs j ON j.id = m.job_id")
        args: list[Any] = []
        if run_ids:
            for i in run_ids:
                _check_id(i, "ID")
            sql += f" WHERE m.run_id IN ({','.join('?' * len(run_ids))})"
            args = list(run_ids)
        sql += " ORDER BY m.run_id, j.position, m.host, m.rowid"
        with self._reading():
            rows = [dict(r) for r in self._db.execute(sql, args)]
        for row in rows:
            with self._reading(row["run_id"]):
                row["value"] = _figure(row["value"])
                row["sweep_id"] = _optional_id(row["sweep_id"], "sweep_id")
        return rows

    def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check`` answer (``ok`` when sound)."""
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])
