"""Telemetry readers: every format turned into the same :class:`~iolab.telemetry.model.Sample`s.

:func:`read_files` detects each file's format by its content (never its name) and reads it;
:mod:`iolab.telemetry.profile` turns samples into percentiles and a requirements file.
"""

from __future__ import annotations

from pathlib import Path

from ..inputs import read_bytes
from .model import Sample, Trace, bad
from .overlap import Input, merge_inputs

#: the largest telemetry file read (bytes): a week of 5-second iostat reports of a few dozen
#: devices fits many times over; a device or FIFO is refused before it is opened.
MAX_TELEMETRY_BYTES = 1024**3

__all__ = ["FORMATS", "read_files", "detect", "Sample", "Trace"]

FORMATS = {
    "iostat": "iostat -x text (any sysstat layout)",
    "iostat-json": "iostat -o JSON",
    "sar": "sar -d text",
    "sadf-csv": "sadf -d (';' separated)",
    "sadf-p": "sadf -p (one field per line)",
    "sadf-json": "sadf -j",
    "diskstats": "/proc/diskstats snapshots",
    "mountstats": "/proc/self/mountstats snapshots",
    "nfsiostat": "nfsiostat output",
    "perfmon": "Windows PerfMon CSV (typeperf, relog)",
    "fio-log": "fio iops/bw/lat logs",
    "results": "iolab results database",
}


def _text(path: str, data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise bad(path, None, "starts as UTF-16 text (a byte-order mark) but is not: not a text file "
                      "iolab can read") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            raise bad(path, None, "not a text file iolab can read") from None


def detect(path: str, data: bytes) -> tuple[str, object]:
    """(format, parsed or text) of one file, by content."""
    from . import counters, fiolog, nfsiostat, perfmon, sysstat

    if data.startswith(b"SQLite format 3\x00"):
        return "results", None
    if not data.strip():
        raise bad(path, None, "the file is empty")
    text = _text(path, data)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        doc = sysstat.load_json(text, path)
        kind = sysstat.sysstat_json_kind(doc)
        if kind is None:
            raise bad(path, 1, "JSON, but not sysstat's (iostat -o JSON or sadf -j) with disk statistics")
        return kind, (doc, text)
    if perfmon.is_perfmon(text):
        return "perfmon", text
    lines = text.splitlines()
    for name, test in (("sadf-csv", sysstat.is_sadf_csv), ("sadf-p", sysstat.is_sadf_p),
                       ("iostat", sysstat.is_iostat), ("sar", sysstat.is_sar),
                       ("mountstats", counters.is_mountstats), ("nfsiostat", nfsiostat.is_nfsiostat),
                       ("fio-log", fiolog.is_fio_log), ("diskstats", counters.is_diskstats)):
        if test(lines):
            return name, text
    first = next((i for i, l in enumerate(lines, 1) if l.strip()), 1)
    raise bad(path, first, "not a telemetry format iolab reads (" + "; ".join(FORMATS.values()) + ")")


def _host(kind: str, parsed: object) -> str | None:
    """The machine a file names, when its format records one."""
    from .sysstat import host_of

    if kind in ("iostat", "sar"):
        return host_of(parsed)  # type: ignore[arg-type]
    if kind in ("iostat-json", "sadf-json"):
        name = parsed[0]["sysstat"]["hosts"][0].get("nodename")  # type: ignore[index]
        return name if isinstance(name, str) and name else None
    if kind in ("sadf-csv", "sadf-p"):                      # the host is each row's first field
        rows = (l for l in parsed.splitlines() if l.strip() and not l.startswith("#"))  # type: ignore[union-attr]
        return next(rows, "").split(";" if kind == "sadf-csv" else "\t", 1)[0] or None
    return None


def read_files(paths: list[str | Path], *, interval: float | None = None) -> Trace:
    """Read every file into one :class:`Trace`; raises InputError naming file and line.

    Devices of the same name in several files are compared (:mod:`.overlap`): one machine's
    over the same seconds count once; two hosts' ``sda`` are told apart by the file's name in
    front (``host1.txt:sda``)."""
    from . import counters, fiolog, nfsiostat, perfmon, runs, sysstat

    trace = Trace()
    fio: list[tuple[str, str]] = []
    inputs: list[Input] = []
    for p in paths:
        path = str(p)
        data = read_bytes(path, what="telemetry file", limit=MAX_TELEMETRY_BYTES)  # never /dev/zero or a FIFO
        kind, parsed = detect(path, data)
        if isinstance(parsed, str) and not parsed.endswith(("\n", "\r")):
            raise bad(path, parsed.count("\n") + 1, "the last line has no line end: the file was cut short "
                      "(every tool iolab reads ends its lines)")
        if kind == "fio-log":
            fiolog.fio_log_kind(path)
            fio.append((path, parsed))  # type: ignore[arg-type]
            trace.sources.append({"file": path, "format": kind})
            continue
        absolute, trace.absolute = trace.absolute, True
        if kind == "results":
            got = runs.read_runs(path, trace)
        elif kind in ("iostat-json", "sadf-json"):
            doc, text = parsed  # type: ignore[misc]
            reader = sysstat.read_iostat_json if kind == "iostat-json" else sysstat.read_sadf_json
            got = reader(doc, text, path, trace, interval)
        elif kind in ("diskstats", "mountstats"):
            got = counters.read_snapshots(parsed, path, trace, kind)  # type: ignore[arg-type]
        else:
            reader = {"iostat": sysstat.read_iostat, "sar": sysstat.read_sar, "sadf-csv": sysstat.read_sadf_csv,
                      "sadf-p": sysstat.read_sadf_p, "perfmon": perfmon.read_perfmon,
                      "nfsiostat": nfsiostat.read_nfsiostat}[kind]
            got = reader(parsed, path, trace, interval)  # type: ignore[operator]
        host = _host(kind, parsed)
        inputs.append(Input(path, got, host, trace.absolute))
        trace.absolute = absolute and trace.absolute
        trace.sources.append({"file": path, "format": kind, "samples": len(got), **({"host": host} if host else {})})
    if fio:
        absolute, trace.absolute = trace.absolute, True
        got = fiolog.read_fio_logs(fio, trace)
        for src in trace.sources:
            if src["format"] == "fio-log":
                src["samples"] = len(got)
        inputs.append(Input("fio", got, None, trace.absolute))
        trace.absolute = absolute and trace.absolute
    merge_inputs(inputs, trace)
    if not trace.samples:
        left_out = [n for n in trace.notes if " is left out: " in n]
        why = f" ({left_out[-1]})" if left_out else ""
        raise bad(str(paths[0]) if paths else "-", None, f"no samples: at least two reports or snapshots are needed{why}")
    return trace
