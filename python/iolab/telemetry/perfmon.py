"""Windows Performance Monitor logs as CSV (``typeperf -f CSV``, ``relog LOG.blg -f csv``).

The first row holds ``"(PDH-CSV 4.0) (<time zone>)(<bias>)"`` and one counter path per
column, ``"\\\\HOST\\PhysicalDisk(0 C:)\\Disk Reads/sec"``; every later row a time and the
values, all quoted. A missing value is an empty or blank string (relog writes one for
rate counters in the first row). Values and dates follow the machine's regional format:
``1234,5`` with a comma decimal, grouped thousands (``1.234,5``, ``1,234.5``, ``1 234,5``,
``1'234.5``) and ``24.11.2026`` or ``24/11/2026`` dates are read too.
Counter names must be the English ones (a log recorded on an English-language Windows,
whatever its regional format). PhysicalDisk is preferred to LogicalDisk when both are
present; ``_Total`` is used only when it is a host's only instance. A log of several hosts
names each device ``HOST:PhysicalDisk(...)``.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timezone

from .model import Sample, Trace, bad, number

__all__ = ["is_perfmon", "read_perfmon", "COUNTERS"]

COUNTERS = {
    "Disk Reads/sec": "r_iops", "Disk Writes/sec": "w_iops",
    "Disk Read Bytes/sec": "r_bw", "Disk Write Bytes/sec": "w_bw",
    "Avg. Disk sec/Read": "r_lat", "Avg. Disk sec/Write": "w_lat",
    "Avg. Disk Queue Length": "queue", "Current Disk Queue Length": "queue_now",
    "% Idle Time": "idle",
}
_DATE = re.compile(r"^\s*(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})\s+(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s*$")
_PATH = re.compile(r"^\\\\([^\\]*)\\(PhysicalDisk|LogicalDisk)\((.*)\)\\(.+)$")


def is_perfmon(text: str) -> bool:
    return text.lstrip().startswith('"(PDH-CSV 4.0)')


#: characters that only ever group digits (never a decimal mark): space, no-break space
#: (fr-FR), narrow no-break space, apostrophe (de-CH)
_GROUPING = str.maketrans("", "", " \u00a0\u202f'\u2019")


def number_format(cells: list[tuple[int, str]], file: str) -> tuple[str, str]:
    """(decimal mark, grouping mark) of a log's values, from all of them: a locale writes
    ``1234.5``, ``1234,5``, ``1,234.5``, ``1.234,5``, ``1 234,5`` or ``1'234.5``. Refused
    when every value could be read either way (``1,234``: a thousand and more, or one and a
    bit)."""
    decimal: str | None = None
    for n, raw in cells:
        c = raw.translate(_GROUPING)
        marks = [ch for ch in c if ch in ".,"]
        if not marks:
            continue
        if len(set(marks)) == 2:
            mark = marks[-1]                  # 1.234,5 or 1,234.5: the last mark is the decimal one
        elif len(marks) > 1:
            mark = "," if marks[0] == "." else "."   # 1.234.567: a grouping mark, used twice
        elif len(c) - c.index(marks[0]) - 1 != 3:
            mark = marks[0]                   # 0,25 or 12.000000: not a group of three digits
        else:
            continue                          # 1,234: either way
        if decimal is not None and mark != decimal:
            raise bad(file, n, f"{raw.strip()!r} has {mark!r} as its decimal mark, an earlier value "
                      f"{decimal!r}: not one regional format")
        decimal = decimal or mark
    if decimal is None:
        ambiguous = next(((n, c) for n, c in cells if any(ch in c for ch in ".,")), None)
        if ambiguous is None:
            return ".", ","
        raise bad(file, ambiguous[0], f"cannot tell whether {ambiguous[1].strip()!r} has a decimal mark or a "
                  "thousands separator (every value has three digits after it): export the log again with "
                  "typeperf or relog, which write the decimals")
    return decimal, "," if decimal == "." else "."


def _value(cell: str, fmt: tuple[str, str], file: str, line: int, what: str) -> float | None:
    c = cell.strip()
    if not c:
        return None
    decimal, group = fmt
    c = c.translate(_GROUPING).replace(group, "").replace(decimal, ".")
    return number(c, file, line, what)


def _dates(cells: list[tuple[int, str]], file: str) -> list[float]:
    """Times of the rows, month-first (en-US) unless the dates only make sense day-first."""
    for order in ("mdy", "dmy"):
        out = []
        for n, text in cells:
            m = _DATE.match(text)
            if not m:
                raise bad(file, n, f"time: cannot read {text!r}")
            a, b, c, hh, mm, ss, frac = m.groups()
            if len(a) == 4:
                y, mo, d = int(a), int(b), int(c)
            elif order == "mdy" and "." not in text.split()[0]:
                mo, d, y = int(a), int(b), int(c)
            else:
                d, mo, y = int(a), int(b), int(c)
            try:
                t = datetime(y if y > 99 else 2000 + y, mo, d, int(hh), int(mm), int(ss),
                             tzinfo=timezone.utc).timestamp()
            except ValueError:
                break
            out.append(t + (float("0." + frac) if frac else 0.0))
        else:
            if all(b > a for a, b in zip(out, out[1:])) or order == "dmy":
                return out
    raise bad(file, cells[0][0] if cells else None, "cannot read the rows' dates in either month-first or "
              "day-first order")


def read_perfmon(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    first = text.lstrip().split("\n", 1)[0]
    delim = ";" if first.startswith('"(PDH-CSV 4.0)') and '";"' in first[:80] else ","
    reader = csv.reader(io.StringIO(text.lstrip()), delimiter=delim)
    try:
        rows = list(reader)
    except csv.Error as e:  # a quoted field broken across lines, a NUL byte, ...
        raise bad(file, reader.line_num, f"not a readable PerfMon CSV: {str(e).split(' - ')[0]}") from None
    if not rows:
        raise bad(file, 1, "empty PerfMon CSV")
    head = rows[0]
    found: dict[int, tuple[str, str, str, str]] = {}       # column -> (object, host, instance, key)
    for i, path in enumerate(head[1:], 1):
        m = _PATH.match(path.strip())
        if m and m.group(4) in COUNTERS:
            found[i] = (m.group(2), m.group(1), m.group(3), COUNTERS[m.group(4)])
    if not found:
        raise bad(file, 1, "no PhysicalDisk or LogicalDisk counters (Disk Reads/sec, Disk Writes/sec, ...) in "
                  "this PerfMon CSV")
    obj = "PhysicalDisk" if any(c[0] == "PhysicalDisk" for c in found.values()) else "LogicalDisk"
    found = {i: c for i, c in found.items() if c[0] == obj}
    hosts = sorted({c[1] for c in found.values()})
    # a device per host and instance; _Total only where a host has no other instance
    names = {(h, inst): (f"{h}:" if len(hosts) > 1 else "") + f"{obj}({inst})" for _, h, inst, _ in found.values()}
    for h in hosts:
        if len([k for k in names if k[0] == h]) > 1:
            names.pop((h, "_Total"), None)
    columns = {i: (names[(h, inst)], key) for i, (_, h, inst, key) in found.items() if (h, inst) in names}
    instances = sorted(set(names.values()))
    need = {"r_iops", "w_iops", "r_bw", "w_bw"}
    for dev in instances:
        have = {k for d, k in columns.values() if d == dev}
        if not need <= have:
            raise bad(file, 1, f"{dev} lacks {', '.join(sorted(need - have))}: record Disk Reads/sec, Disk "
                      "Writes/sec, Disk Read Bytes/sec and Disk Write Bytes/sec")
    body = [(n, r) for n, r in enumerate(rows[1:], 2) if any(c.strip() for c in r)]
    for n, r in body:
        if len(r) != len(head):
            raise bad(file, n, f"expected {len(head)} fields as the header has, found {len(r)} (a truncated file?)")
    times = _dates([(n, r[0]) for n, r in body], file)
    fmt = number_format([(n, r[i]) for n, r in body for i in columns if r[i].strip()], file)
    diffs = sorted(b - a for a, b in zip(times, times[1:]))
    step = diffs[len(diffs) // 2] if diffs else (interval or 1.0)
    trace.interval_used |= not diffs and interval is not None
    out = []
    for (n, r), t in zip(body, times):
        per: dict[str, dict[str, float | None]] = {dev: {} for dev in instances}
        for i, (dev, key) in columns.items():
            per[dev][key] = _value(r[i], fmt, file, n, head[i].rsplit("\\", 1)[-1])
        for dev, v in per.items():
            if any(v.get(k) is None for k in need):
                continue                        # relog's blank first row of rate counters
            idle = v.get("idle")
            queue = v.get("queue") if v.get("queue") is not None else v.get("queue_now")
            out.append(Sample(t, step, dev, v["r_iops"] or 0.0, v["w_iops"] or 0.0,  # type: ignore[arg-type]
                              v["r_bw"] or 0.0, v["w_bw"] or 0.0,
                              v.get("r_lat") if (v["r_iops"] or 0) > 0 else None,
                              v.get("w_lat") if (v["w_iops"] or 0) > 0 else None,
                              queue, None if idle is None else max(0.0, min(1.0, 1 - idle / 100))))
    if not out:
        raise bad(file, None, "no PerfMon row has every disk counter")
    return out
