"""iolab's own results database as telemetry: each stored run that finished is one sample
(its measured read and write figures over its duration)."""

from __future__ import annotations

from .model import Sample, Trace, bad, parse_time

__all__ = ["read_runs"]


def read_runs(path: str, trace: Trace) -> list[Sample]:
    import sqlite3

    from ..bench.store import SCHEMA_VERSION, ResultsStore
    from ..errors import RunError

    try:        # look before opening it as a store: that would add iolab's tables to another program's file
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] \
                if "schema_version" in tables else None
    except sqlite3.Error as e:
        raise bad(path, None, f"an SQLite file iolab cannot read: {e}") from None
    if not {"runs", "measurements", "schema_version"} <= tables:
        raise bad(path, None, "an SQLite database, but not an iolab results database")
    if version != SCHEMA_VERSION:
        raise bad(path, None, f"results database schema version {version}; this iolab reads {SCHEMA_VERSION}")
    try:
        store = ResultsStore(path)
    except RunError as e:
        raise bad(path, None, str(e)) from None
    out = []
    with store:
        for run_id in store.ids():
            r = store.load(run_id)
            if r.status != "ok" or r.measured is None or (r.params or {}).get("kind") == "characterize":
                continue
            start, end = parse_time(r.started), parse_time(r.ended)
            if start is None or end is None:
                continue
            m = r.measured
            rd, wr = m.read, m.write
            if rd is None and wr is None:
                rd = m.total
            out.append(Sample(end, max(end - start, 1.0), r.target or f"run {run_id}",
                              rd.iops if rd else 0.0, wr.iops if wr else 0.0,
                              rd.bandwidth if rd else 0.0, wr.bandwidth if wr else 0.0,
                              rd.latency.get("mean") if rd and rd.iops else None,
                              wr.latency.get("mean") if wr and wr.iops else None))
    if not out:
        raise bad(path, None, "the results database holds no finished run with measurements")
    trace.notes.append(f"{path}: each stored run is one sample")
    return out
