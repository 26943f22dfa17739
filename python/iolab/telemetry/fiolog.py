"""fio's per-interval logs: ``--write_iops_log``, ``--write_bw_log``, ``--write_lat_log``.

Each line is ``time (ms), value, direction (0 read, 1 write, 2 trim), block size, offset
[, priority]``. What the value is cannot be told from the numbers, so it is taken from the
name fio gives the file: ``NAME_iops.N.log`` (IOs/s), ``NAME_bw.N.log`` (KiB/s),
``NAME_lat.N.log`` / ``NAME_clat.N.log`` (nanoseconds; ``_lat`` preferred, ``_slat``
ignored). Record with ``--log_avg_msec=1000`` (or any window): the window becomes the
sampling interval. Logs of several jobs (``.1.log``, ``.2.log``, ...) of one name are
added up per window: they are one workload.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from .model import Sample, Trace, bad, number

__all__ = ["is_fio_log", "fio_log_kind", "read_fio_logs"]

_LINE = re.compile(r"^\s*(\d+),\s*(\d+(?:\.\d+)?),\s*(\d+),\s*(\d+)(?:,\s*(\d+))?(?:,\s*(\d+))?\s*$")
_NAME = re.compile(r"^(?P<base>.*)_(?P<kind>iops|bw|lat|clat|slat)(?:\.(?P<job>\d+))?\.log$")


def is_fio_log(lines: list[str]) -> bool:
    body = [l for l in lines[:50] if l.strip()]
    return bool(body) and all(_LINE.match(l) for l in body)


def fio_log_kind(file: str) -> tuple[str, str]:
    m = _NAME.match(Path(file).name)
    if not m:
        raise bad(file, None, "a fio log, but its name does not say what it logs: keep the name fio gives it "
                  "(NAME_iops.1.log, NAME_bw.1.log, NAME_lat.1.log)")
    return m.group("base"), m.group("kind")


def read_fio_logs(files: list[tuple[str, str]], trace: Trace) -> list[Sample]:
    """Samples of fio logs (``(file, text)`` pairs); logs of one base name form one device."""
    groups: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for file, text in files:
        base, kind = fio_log_kind(file)
        groups[base][kind].append((file, text))
    out: list[Sample] = []
    for base, kinds in groups.items():
        if "iops" not in kinds and "bw" not in kinds:
            raise bad(kinds[next(iter(kinds))][0][0], None, "latency logs alone give no rates: add the "
                      "matching NAME_iops or NAME_bw log")
        window = _window([t for k in kinds.values() for t in k])
        # per kind: window index -> direction -> summed (or mean, for latency) value
        table: dict[str, dict[int, dict[int, float]]] = {}
        for kind, logs in kinds.items():
            if kind == "slat" or (kind == "clat" and "lat" in kinds):
                continue
            sums: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
            per_file = []
            for file, text in logs:
                f: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
                for n, line in enumerate(text.splitlines(), 1):
                    if not line.strip():
                        continue
                    m = _LINE.match(line)
                    if not m:
                        raise bad(file, n, f"not a fio log line (time, value, direction, bs, offset): {line[:60]!r}")
                    t, v, d = int(m.group(1)), number(m.group(2), file, n, "value"), int(m.group(3))
                    if d > 1:
                        continue
                    f[round(t / window)][d].append(v)
                per_file.append(f)
            for f in per_file:
                for w, dirs in f.items():
                    for d, vals in dirs.items():
                        sums[w][d].append(sum(vals) / len(vals))
            agg = "lat" if kind in ("lat", "clat") else kind
            table[agg] = {w: {d: (sum(v) if agg != "lat" else sum(v) / len(v)) for d, v in dirs.items()}
                          for w, dirs in sums.items()}
        windows = sorted({w for t in table.values() for w in t})
        for w in windows:
            def get(kind: str, d: int) -> float | None:
                return table.get(kind, {}).get(w, {}).get(d)
            iops = [get("iops", d) for d in (0, 1)]
            bw = [None if get("bw", d) is None else get("bw", d) * 1024 for d in (0, 1)]  # type: ignore[operator]
            lat = [None if get("lat", d) is None else get("lat", d) / 1e9 for d in (0, 1)]  # type: ignore[operator]
            if "iops" not in table:      # rates from bandwidth alone cannot give IOs: leave them 0
                iops = [0.0, 0.0]
            if "bw" not in table:
                bw = [0.0, 0.0]
            out.append(Sample(w * window / 1000, window / 1000, Path(base).name,
                              iops[0] or 0.0, iops[1] or 0.0, bw[0] or 0.0, bw[1] or 0.0,
                              lat[0] if iops[0] else None, lat[1] if iops[1] else None,
                              _little(iops, lat), None))
        trace.notes.append(f"{base}: fio logs read in {window / 1000:g} s windows")
    trace.absolute = False
    return out


def _little(iops: list[float | None], lat: list[float | None]) -> float | None:
    """IOs in flight by Little's law, when both rates and latencies are known."""
    if any(x is None for x in iops + lat):
        return None
    return sum(i * l for i, l in zip(iops, lat))  # type: ignore[operator, misc]


def _window(logs: list[tuple[str, str]]) -> int:
    """The logging window in ms: the most common gap between one direction's entries."""
    gaps: dict[int, int] = defaultdict(int)
    for _, text in logs:
        last: dict[str, int] = {}
        for line in text.splitlines()[:2000]:
            m = _LINE.match(line)
            if not m:
                continue
            t, d = int(m.group(1)), m.group(3)
            if d in last and t > last[d]:
                gaps[round((t - last[d]) / 100) * 100 or 100] += 1
            last[d] = t
    return max(gaps, key=lambda g: (gaps[g], g)) if gaps else 1000
