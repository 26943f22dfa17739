"""sysstat's outputs: ``iostat -x`` (text and ``-o JSON``), ``sar -d``, ``sadf -d`` and ``sadf -j``.

Columns are found by name, so every layout reads the same way:

* sysstat ≤ 11.5.6: ``Device: rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz await
  r_await w_await svctm %util`` (``rsec/s``/``wsec/s`` without ``-k``; ``avgrq-sz`` in
  512-byte sectors);
* 11.5.7 to 12.1.1: ``Device r/s w/s rkB/s wkB/s rrqm/s wrqm/s %rrqm %wrqm r_await w_await
  aqu-sz rareq-sz wareq-sz svctm %util`` (request sizes in kB);
* 12.1.2 and later: grouped by direction (``r/s rkB/s rrqm/s %rrqm r_await rareq-sz``, the
  same for ``w``, then ``d`` for discards, ``f/s f_await`` for flushes, ``aqu-sz %util``).

The mean IO size is taken from bytes over IOs, never from ``avgrq-sz`` (whose unit
changed). sysstat's kB is 1,024 bytes. ``sar -d`` has no read/write split of ``tps``:
reads and writes share it in proportion to their bytes (one mean IO size assumed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from .model import Sample, Trace, bad, number, parse_time

__all__ = ["read_iostat", "read_iostat_json", "read_sar", "read_sadf_csv", "read_sadf_p", "read_sadf_json",
           "is_iostat", "is_sar", "is_sadf_csv", "is_sadf_p", "sysstat_json_kind", "reading", "host_of"]

_BYTES = (("kB", 1024.0), ("MB", 1048576.0), ("sec", 512.0), ("_sec", 512.0))


def _bytes(get: Callable[[str], float | None], d: str) -> float | None:
    """Bytes/s of direction d ('r' or 'w') from whichever unit the layout uses."""
    names = {"r": ("rkB/s", "rkB", "rMB/s", "rMB", "rsec/s", "rd_sec/s", "rd_sec"),
             "w": ("wkB/s", "wkB", "wMB/s", "wMB", "wsec/s", "wr_sec/s", "wr_sec")}[d]
    for n in names:
        v = get(n)
        if v is not None:
            scale = 1024.0 if "kB" in n else 1048576.0 if "MB" in n else 512.0
            return v * scale
    return None


#: the unit letters of sysstat's human-readable values (``-h``, ``--human``): powers of 1,024 bytes
_HUMAN = {"B": 1.0, "k": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4, "P": 1024.0**5, "E": 1024.0**6}
_HUMAN_VALUE = re.compile(r"^(\d+(?:[.,]\d+)?)([BkMGTPE])$")


def reading(text: str, key: str, file: str, line: int) -> float:
    """One sysstat field as every version and option prints it: ``12.00``, a locale's decimal
    comma (``12,00``), a percentage (``1.8%``), a human-readable size (``--human``: ``10.2M``
    in a kB/s column is 10.2 MiB/s, written back in the column's unit)."""
    t = text.strip()
    if t.endswith("%"):
        t = t[:-1]
    m = _HUMAN_VALUE.match(t)
    if m:
        v = number(m.group(1).replace(",", "."), file, line, key) * _HUMAN[m.group(2)]
        unit = 1024.0 if "kB" in key else 1048576.0 if "MB" in key else 512.0 if "sec" in key else 1.0
        return v / unit
    if "," in t and "." not in t:
        t = t.replace(",", ".")
    return number(t, file, line, key)


def host_of(text: str) -> str | None:
    """The host name of iostat's and sar's first line (``Linux 6.1.0 (db01) 11/27/26 ...``)."""
    m = re.match(r"^\s*Linux \S+ \(([^)]+)\)", text[:400])
    return m.group(1) if m else None


def _ms(v: float | None) -> float | None:
    return None if v is None else v / 1000.0


def sample_from(get: Callable[[str], float | None], *, device: str, time: float, interval: float,
                file: str, line: int) -> Sample:
    """A sample from sysstat's named fields (any version, text or JSON)."""
    rb, wb = _bytes(get, "r"), _bytes(get, "w")
    if (rb is None or wb is None) and get("kB/s") is not None:
        raise bad(file, line, "iostat -s (short) adds reads and writes together (tps, kB/s): record without -s "
                  "to get them apart")
    if rb is None or wb is None:
        raise bad(file, line, "no read/write throughput column (rkB/s, rMB/s, rsec/s or rd_sec/s)")
    r, w = get("r/s"), get("w/s")
    if r is None:
        r, w = get("r"), get("w")
    await_ = get("await")
    if r is None or w is None:
        tps = get("tps")
        if tps is None:
            raise bad(file, line, "no r/s and w/s (or tps) column")
        total = rb + wb
        r = tps * rb / total if total > 0 else tps
        w = tps - r
    r_lat, w_lat = get("r_await"), get("w_await")
    queue = get("aqu-sz")
    if queue is None:
        queue = get("avgqu-sz")
    util = next((v for v in (get("%util"), get("util"), get("util-percent")) if v is not None), None)
    return Sample(time, interval, device, r, w, rb, wb, _ms(r_lat if r_lat is not None else await_),
                  _ms(w_lat if w_lat is not None else await_), queue, None if util is None else min(util / 100, 1.0))


# -- iostat text ------------------------------------------------------------------------------

_HEADER = re.compile(r"^(Device:?)\s+\S+|^\s+r/s\s.*\sDevice\s*$")


def is_iostat(lines: list[str]) -> bool:
    return any(l.startswith("Device") and ("r/s" in l or "rrqm/s" in l or "tps" in l) for l in lines[:400]) or \
        any(l.rstrip().endswith(" Device") and "r/s" in l for l in lines[:400])


def read_iostat(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    """``iostat -x [-t] [-k|-m] [-p] [-h|--human|--pretty] [interval [count]]`` text, any
    sysstat layout: one table per report, or (``--pretty``, ``-h``) one table per direction
    with the device name last, read together as one report."""
    lines = text.splitlines()
    reports: list[tuple[float | None, dict[str, tuple[int, dict[str, str]]]]] = []
    stamp: float | None = None
    cols: list[str] | None = None
    seen: set[str] = set()                 # the columns of the current report so far
    fresh = True                           # the next table starts a report
    name_last = False
    pending: tuple[int, str] | None = None
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line.strip():
            cols = None
            continue
        if line.startswith("Linux ") and n <= 3:
            continue
        t = parse_time(line)
        if t is not None:
            stamp, fresh, cols = t, True, None
            continue
        if line.startswith("avg-cpu:"):
            fresh, cols = True, None
            continue
        words = line.split()
        if words[0].rstrip(":") == "Device" or words[-1] == "Device":
            if "tps" in words and "r/s" not in words and "w/s" not in words and "await" not in words \
                    and "r_await" not in words:
                raise bad(file, n, "iostat without -x: run `iostat -x` (extended statistics) to get "
                          "reads, writes and latency")
            name_last = words[-1] == "Device"
            cols = [w for w in words if w.rstrip(":") != "Device"]
            if fresh or seen & set(cols):
                reports.append((stamp, {}))
                seen = set()
            seen |= set(cols)
            fresh = False
            continue
        if cols is None:
            if re.match(r"^\s*[\d.,%]+(\s+[\d.,%]+)+\s*$", line):
                continue                       # the avg-cpu figures
            raise bad(file, n, f"unexpected line in iostat output: {line.strip()[:60]!r}")
        if len(words) == 1 and not name_last and pending is None:
            pending = (n, words[0])              # sysstat < 11.5.7 -h: the name alone, its figures below
            continue
        if pending is not None and len(words) == len(cols):
            (n, name), values, pending = pending, words, None
        elif len(words) != len(cols) + 1:
            raise bad(file, n, f"expected {len(cols) + 1} fields as the header says, found {len(words)} "
                      "(a truncated or edited file?)")
        else:
            name = words[-1] if name_last else words[0]
            values = words[:-1] if name_last else words[1:]
        first, vals = reports[-1][1].setdefault(name, (n, {}))
        vals.update(zip(cols, values))
    if not reports:
        raise bad(file, None, "no iostat device report found")
    times = [t for t, _ in reports]
    absolute = all(t is not None for t in times)
    step = _step(times, interval, file, trace, "iostat")
    if len(reports) > 1:
        reports = reports[1:]
        trace.notes.append(f"{file}: the first iostat report (statistics since boot) is left out")
    out = []
    for i, (t, rows) in enumerate(reports):
        when = t if absolute and t is not None else (i + 1) * step
        for name, (n, vals) in rows.items():
            def get(key: str, vals=vals, n=n) -> float | None:
                return reading(vals[key], key, file, n) if key in vals else None
            out.append(sample_from(get, device=name, time=when, interval=step, file=file, line=n))
    trace.absolute = trace.absolute and absolute
    return out


def _step(times: list[float | None], interval: float | None, file: str, trace: Trace, what: str) -> float:
    known = [t for t in times if t is not None]
    if len(known) == len(times) and len(known) > 1:
        diffs = sorted(b - a for a, b in zip(known, known[1:]) if b > a)
        if diffs:
            return diffs[len(diffs) // 2]
    if interval is not None:
        trace.interval_used = True
        return interval
    trace.notes.append(f"{file}: {what} output without timestamps: each report taken as 1 s apart "
                       "(give --interval to say otherwise)")
    return 1.0


# -- sar -d text ------------------------------------------------------------------------------

_SAR_TIME = re.compile(r"^(\d{2}:\d{2}:\d{2}(?:\s+[AP]M)?)\s+(.*)$")
_SAR_HEADER = re.compile(r"^\d{2}:\d{2}:\d{2}(\s+[AP]M)?\s+(DEV\s+tps\s.*|tps\s.*\sDEV)\s*$")


#: the summary line, as each locale names it: ``Average:``, ``Durchschn.:``, ``Moyenne :`` ...
_SAR_SUMMARY = re.compile(r"^[^\W\d][\w.]*\s?:\s")


def is_sar(lines: list[str]) -> bool:
    return any(_SAR_HEADER.match(l) for l in lines[:2000])


def read_sar(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    """``sar -d [-p]`` text: one row per device and interval, headed by ``DEV tps ...``."""
    lines = text.splitlines()
    day = None
    if lines and lines[0].startswith("Linux "):
        m = re.search(r"\s(\d{2}/\d{2}/\d{2,4}|\d{2}\.\d{2}\.\d{4}|\d{4}-\d{2}-\d{2})\s", lines[0] + " ")
        day = m.group(1) if m else None
    cols: list[str] | None = None
    name_last = False
    rows: list[tuple[int, str, str, dict[str, str]]] = []
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if not line.strip() or line.startswith("Linux ") or _SAR_SUMMARY.match(line) or "RESTART" in line:
            if not line.strip():
                cols = None
            continue
        m = _SAR_TIME.match(line)
        if not m:
            if cols is not None:
                raise bad(file, n, f"unexpected line in sar output: {line.strip()[:60]!r}")
            continue
        clock, rest = m.groups()
        words = rest.split()
        if _SAR_HEADER.match(line):              # DEV first (sysstat <= 12.5, or without -p), or last
            name_last = words[-1] == "DEV"
            cols = [w for w in words if w != "DEV"]
            continue
        if cols is None:
            continue                            # another activity (CPU, memory ...)
        if len(words) != len(cols) + 1:
            raise bad(file, n, f"expected {len(cols) + 1} fields after the time as the header says, found "
                      f"{len(words)} (a truncated or edited file?)")
        dev, vals = (words[-1], words[:-1]) if name_last else (words[0], words[1:])
        rows.append((n, clock, dev, dict(zip(cols, vals))))
    if not rows:
        raise bad(file, None, "no sar -d device rows found")
    clocks = sorted({c for _, c, _, _ in rows}, key=lambda c: [r[1] for r in rows].index(c))
    secs = {}
    day_offset, last = 0.0, None
    for c in clocks:
        t = parse_time(f"2000-01-01 {_24h(c)}")
        assert t is not None
        if last is not None and t + day_offset < last:
            day_offset += 86400.0
        secs[c] = t + day_offset
        last = secs[c]
    base = parse_time(f"{_iso_day(day)} 00:00:00") if day else None
    zero = parse_time("2000-01-01 00:00:00")
    times = [secs[c] for c in clocks]
    step = _step(times, interval, file, trace, "sar")
    trace.notes.append(f"{file}: sar -d gives tps only: reads and writes share it in proportion to their bytes")
    out = []
    for n, c, dev, vals in rows:
        def get(key: str, vals=vals, n=n) -> float | None:
            return reading(vals[key], key, file, n) if key in vals else None
        when = secs[c] - zero + (base if base is not None else 0.0)
        out.append(sample_from(get, device=dev, time=when, interval=step, file=file, line=n))
    trace.absolute = trace.absolute and base is not None
    return out


def _24h(clock: str) -> str:
    parts = clock.split()
    if len(parts) == 2:
        h, rest = parts[0].split(":", 1)
        hour = int(h) % 12 + (12 if parts[1] == "PM" else 0)
        return f"{hour:02d}:{rest}"
    return clock


def _iso_day(day: str) -> str:
    """sar's date as its locale prints it: ``2026-11-27``, ``11/27/26`` (C), ``11/27/2026``
    (en_US), ``27/11/2026`` (fr_FR, en_GB: day first when the first number is past 12),
    ``27.11.2026`` (de_DE)."""
    if "-" in day:
        return day
    if "." in day:
        d, m, y = day.split(".")
    else:
        m, d, y = day.split("/")
        if int(m) > 12:
            m, d = d, m
    return f"{int(y) + 2000 if len(y) == 2 else int(y):04d}-{int(m):02d}-{int(d):02d}"


# -- sadf -d (';' separated) ------------------------------------------------------------------

def is_sadf_csv(lines: list[str]) -> bool:
    return any(l.startswith("# hostname;interval;timestamp;") and ";DEV;" in l for l in lines[:2000])


def read_sadf_csv(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    """``sadf -d -- -d``: ``hostname;interval;timestamp;DEV;tps;...`` rows; with ``-h`` every
    device of one time on one row (the header ends in ``[...]``: ``DEV;tps;...`` repeats)."""
    cols: list[str] | None = None
    repeat = False
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            repeat = line.endswith("[...]")
            head = line.lstrip("# ").removesuffix("[...]").split(";")
            cols = head if "DEV" in head and "tps" in head else None
            continue
        if cols is None:
            continue
        vals = line.split(";")
        if len(vals) == 4 and "RESTART" in vals[3]:
            continue
        fixed, group = cols[:cols.index("DEV")], cols[cols.index("DEV"):]
        extra = len(vals) - len(fixed)
        if len(vals) != len(cols) and not (repeat and extra > 0 and extra % len(group) == 0):
            raise bad(file, n, f"expected {len(cols)} ';'-separated fields as the header says, found {len(vals)} "
                      "(a truncated or edited file?)")
        head = dict(zip(fixed, vals))
        t = parse_time(head["timestamp"])
        if t is None:
            raise bad(file, n, f"timestamp: cannot read {head['timestamp']!r}")
        step = number(head["interval"], file, n, "interval")
        trace.interval_used |= not step and interval is not None
        for at in range(len(fixed), len(vals), len(group)):
            row = dict(zip(group, vals[at:at + len(group)]))

            def get(key: str, row=row, n=n) -> float | None:
                return reading(row[key], key, file, n) if key in row else None
            out.append(sample_from(get, device=row["DEV"], time=t, interval=step or (interval or 1.0), file=file,
                                   line=n))
    if not out:
        raise bad(file, None, "no sadf -d disk rows found (make them with `sadf -d FILE -- -d`)")
    trace.notes.append(f"{file}: sar -d gives tps only: reads and writes share it in proportion to their bytes")
    return out


# -- sadf -p (one field per line) ------------------------------------------------------------

def _sadf_p_fields(line: str) -> list[str] | None:
    f = line.split("\t")
    return f if len(f) == 6 else None


def is_sadf_p(lines: list[str]) -> bool:
    """``sadf -p``: ``host<TAB>interval<TAB>timestamp<TAB>device<TAB>field<TAB>value`` lines,
    with disk fields among them."""
    return any((f := _sadf_p_fields(l)) is not None and f[4] == "tps" and f[3] not in ("-", "all")
               for l in lines[:2000])


def read_sadf_p(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    """``sadf -p FILE -- -d``: one line per device, time and field; the fields of one device
    and time make one sample. Other activities' lines (no ``tps`` among a device's fields)
    are passed over."""
    groups: dict[tuple[str, str], tuple[int, str, dict[str, str]]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        f = _sadf_p_fields(raw.rstrip("\r\n"))
        if f is None:
            if "RESTART" in raw:
                continue
            raise bad(file, n, "expected 6 tab-separated fields (host, interval, timestamp, device, field, value) "
                      "as sadf -p writes them (a truncated or edited file?)")
        _, step, stamp, dev, key, value = f
        groups.setdefault((stamp, dev), (n, step, {}))[2][key] = value
    out = []
    for (stamp, dev), (n, step_text, row) in groups.items():
        if "tps" not in row:
            continue
        t = parse_time(stamp)
        if t is None:
            raise bad(file, n, f"timestamp: cannot read {stamp!r}")
        step = number(step_text, file, n, "interval")
        trace.interval_used |= not step and interval is not None

        def get(key: str, row=row, n=n) -> float | None:
            return reading(row[key], key, file, n) if key in row else None
        out.append(sample_from(get, device=dev, time=t, interval=step or (interval or 1.0), file=file, line=n))
    if not out:
        raise bad(file, None, "no sadf -p disk lines found (make them with `sadf -p FILE -- -d`)")
    trace.notes.append(f"{file}: sar -d gives tps only: reads and writes share it in proportion to their bytes")
    return out


# -- JSON: iostat -o JSON and sadf -j ---------------------------------------------------------

def sysstat_json_kind(doc: object) -> str | None:
    """'iostat-json' or 'sadf-json' when ``doc`` is sysstat's JSON with disk statistics."""
    try:
        stats = doc["sysstat"]["hosts"][0]["statistics"]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        return None
    for s in stats:
        for d in s.get("disk", []) if isinstance(s, dict) else []:
            if "disk_device" in d:
                return "iostat-json"
            if "disk-device" in d:
                return "sadf-json"
    return None


def _json_line(text: str, needle: str, start: int) -> int:
    """The 1-based line of ``needle`` in ``text`` after offset ``start`` (for error messages)."""
    at = text.find(needle, start)
    return text.count("\n", 0, at if at >= 0 else start) + 1


def read_iostat_json(doc: dict, text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    stats = doc["sysstat"]["hosts"][0]["statistics"]
    times = [parse_time(s["timestamp"]) if isinstance(s.get("timestamp"), str) else None for s in stats]
    absolute = all(t is not None for t in times)
    step = _step(times, interval, file, trace, "iostat")
    pos = 0
    if len(stats) > 1:
        for d in stats[0].get("disk", []):  # errors name the lines of the reports read, after this one
            pos = max(pos, text.find(f'"{d.get("disk_device", "?")}"', pos) + 1)
        stats, times = stats[1:], times[1:]
        trace.notes.append(f"{file}: the first iostat report (statistics since boot) is left out")
    out = []
    for i, (s, t) in enumerate(zip(stats, times)):
        for d in s.get("disk", []):
            name = d.get("disk_device", "?")
            line = _json_line(text, f'"{name}"', pos)
            pos = max(pos, text.find(f'"{name}"', pos) + 1)
            out.append(_json_sample(d, name, t if absolute and t is not None else (i + 1) * step, step, file, line))
    trace.absolute = trace.absolute and absolute
    return out


def read_sadf_json(doc: dict, text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    out, pos = [], 0
    for s in doc["sysstat"]["hosts"][0]["statistics"]:
        ts = s.get("timestamp") or {}
        disks = s.get("disk")
        if not disks:
            continue
        t = parse_time(f"{ts.get('date')} {ts.get('time')}")
        line = _json_line(text, '"disk-device"', pos)
        if t is None:
            raise bad(file, line, f"timestamp: cannot read {ts!r}")
        given = number(str(ts["interval"]), file, line, "interval") if ts.get("interval") is not None else None
        trace.interval_used |= not given and interval is not None
        step = given or interval or 1.0
        for d in disks:
            name = d.get("disk-device", "?")
            line = _json_line(text, f'"{name}"', pos)
            pos = max(pos, text.find(f'"{name}"', pos) + 1)
            out.append(_json_sample(d, name, t, step, file, line))
    if not out:
        raise bad(file, None, "no disk statistics in this sadf -j file (make it with `sadf -j FILE -- -d`)")
    trace.notes.append(f"{file}: sar -d gives tps only: reads and writes share it in proportion to their bytes")
    return out


def _json_sample(d: dict, name: str, t: float, step: float, file: str, line: int) -> Sample:
    def get(key: str) -> float | None:
        if key not in d:
            return None
        v = d[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise bad(file, line, f"{key}: expected a non-negative number, got {v!r}")
        return number(repr(v), file, line, key)
    return sample_from(get, device=name, time=t, interval=step, file=file, line=line)


#: sysstat 10.x's ``sadf -j`` leaves out the comma after ``"file-date"``
_SADF_10_COMMA = re.compile(r'("file-date": "[^"\n]*")(\s*\n\s*")')


def load_json(text: str, file: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        mended = _SADF_10_COMMA.sub(r"\1,\2", text, count=1)
        if mended != text:
            try:
                return json.loads(mended)
            except json.JSONDecodeError:
                pass
        raise bad(file, e.lineno, f"not valid JSON ({e.msg}): a truncated file?") from None
