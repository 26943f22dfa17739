"""fio's live status line (``--eta=always``), read into numbers while a run goes on.

fio rewrites one line with carriage returns, for example::

    Jobs: 1 (f=1): [r(1)][45.0%][r=123MiB/s][r=31.5k IOPS][eta 00m:11s]
    Jobs: 1 (f=1), 0-1000 IOPS: [m(1)][-.-%][r=2002KiB/s,w=2002KiB/s][r=500,w=500 IOPS][eta 00m:00s]

and the text can arrive glued to other output, split by ``\\r``, or prefixed by a client's
``<host>``. :func:`parse_status` finds the last complete status in what it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["StatusLine", "parse_status"]


@dataclass(frozen=True)
class StatusLine:
    """One status update. ``percent`` is 0..100 (None while fio cannot tell, ``-.-%``);
    bandwidths in bytes/s, IOPS in IOs/s, ``eta_seconds`` in seconds (None when absent);
    ``raw`` is the status text as found; ``jobs`` the number of running jobs."""

    percent: float | None
    read_bw: float | None
    write_bw: float | None
    read_iops: float | None
    write_iops: float | None
    eta_seconds: float | None
    raw: str
    jobs: int | None = None
    trim_bw: float | None = None
    trim_iops: float | None = None


_STATUS = re.compile(r"Jobs:\s*(?P<jobs>\d+)\s*\([^)\r\n]*\)[^:\r\n\[]*:?\s*(?P<body>(?:\[[^\]\r\n]*\])+)")
_GROUP = re.compile(r"\[([^\]\r\n]*)\]")
_PERCENT = re.compile(r"^\s*(?P<pct>\d+(?:\.\d+)?|-\.-)%\s*$")
_ETA = re.compile(r"^\s*eta\s+(?P<eta>[\d:dhms]+)\s*$")
_ETA_PART = re.compile(r"(\d+)([dhms])")
_RATE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<prefix>[kKMGTP]?)(?P<i>i?)(?P<unit>B|b|bit)/s$")
_IOPS = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<prefix>[kKMGT]?)$")
_POW = {"": 0, "k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def _rate(text: str) -> float | None:
    m = _RATE.match(text.strip())
    if not m:
        return None
    base = 1024 if m.group("i") else 1000
    value = float(m.group("num")) * base ** _POW[m.group("prefix")]
    return value / 8 if m.group("unit") != "B" else value


def _iops(text: str) -> float | None:
    m = _IOPS.match(text.strip())
    if not m:
        return None
    return float(m.group("num")) * 1000 ** _POW[m.group("prefix")]


def _pairs(text: str, convert) -> dict[str, float] | None:
    """``r=1MiB/s,w=2MiB/s`` into {"r": ..., "w": ...}; None when a value does not convert."""
    out: dict[str, float] = {}
    for item in text.split(","):
        key, eq, value = item.strip().partition("=")
        number = convert(value) if eq else None
        if key not in ("r", "w", "t") or number is None:
            return None
        out[key] = number
    return out


def _one(body: str, raw: str, jobs: int) -> StatusLine | None:
    percent = eta = None
    rates: dict[str, float] = {}
    iops: dict[str, float] = {}
    seen_percent = False
    for group in _GROUP.findall(body):
        if (m := _PERCENT.match(group)) is not None:
            seen_percent = True
            percent = None if m.group("pct") == "-.-" else float(m.group("pct"))
        elif (m := _ETA.match(group)) is not None:
            parts = _ETA_PART.findall(m.group("eta"))
            eta = float(sum(int(n) * _SECONDS[u] for n, u in parts)) if parts else None
        elif group.strip().endswith("IOPS"):
            found = _pairs(group.strip()[:-4], _iops)
            if found is not None:
                iops = found
        elif "/s" in group:
            found = _pairs(group, _rate)
            if found is not None:
                rates = found
    if not seen_percent and eta is None and not rates and not iops:
        return None
    return StatusLine(percent=percent, read_bw=rates.get("r"), write_bw=rates.get("w"),
                      read_iops=iops.get("r"), write_iops=iops.get("w"), eta_seconds=eta, raw=raw,
                      jobs=jobs, trim_bw=rates.get("t"), trim_iops=iops.get("t"))


def parse_status(line: str) -> StatusLine | None:
    """The last fio status update in `line` (which may hold several, separated by ``\\r``,
    mixed with other text), or None when it holds none. Never raises on odd text."""
    if not isinstance(line, str) or "Jobs:" not in line:
        return None
    found = None
    for m in _STATUS.finditer(line):
        status = _one(m.group("body"), m.group(0).strip(), int(m.group("jobs")))
        if status is not None:
            found = status
    return found
