"""What every telemetry reader produces: samples of one device over one interval.

A :class:`Sample` holds rates in base units (IOs/s, bytes/s), mean latencies in seconds,
the mean number of IOs in flight (``aqu-sz``) and the busy fraction, for one device (a
disk, a PerfMon instance, an NFS mount) over one interval. Readers raise
:class:`~iolab.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..errors import InputError

__all__ = ["Sample", "Trace", "bad", "number", "parse_time"]


@dataclass(frozen=True)
class Sample:
    """One device over one interval ending at ``time`` (epoch seconds, or seconds from the
    start of the file when the file carries no dates)."""

    time: float
    interval: float
    device: str
    r_iops: float
    w_iops: float
    r_bw: float                      # bytes/s
    w_bw: float
    r_lat: float | None = None       # seconds, mean per IO
    w_lat: float | None = None
    queue: float | None = None       # mean IOs in flight
    util: float | None = None        # 0..1
    rpc_ops: float | None = None     # NFS: RPCs sent per second, every transport summed

    @property
    def iops(self) -> float:
        return self.r_iops + self.w_iops

    @property
    def bandwidth(self) -> float:
        return self.r_bw + self.w_bw


@dataclass
class Trace:
    """Samples read from one or more sources, with what was read and how."""

    samples: list[Sample] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)     # {"file", "format", "samples"}
    notes: list[str] = field(default_factory=list)
    absolute: bool = True                                  # times are epoch seconds
    interval_used: bool = False                            # a file without times took the interval given
    merged: list[dict] = field(default_factory=list)       # {"device", "files", "kept", "start", "end"}
    sizes: dict[str, int] = field(default_factory=dict)    # device -> bytes, where the input tells

    def devices(self) -> list[str]:
        seen: dict[str, None] = {}
        for s in self.samples:
            seen.setdefault(s.device, None)
        return list(seen)


def bad(file: str, line: int | None, message: str) -> InputError:
    """An input error at ``FILE: line N: message`` (exit 2)."""
    return InputError(message, file=file, field=f"line {line}" if line else None)


#: the largest reading a telemetry field may hold (IOs/s, kB/s, ms, a queue length): far
#: beyond any device, small enough that sums over a long trace stay finite
MAX_READING = 1e15


def number(text: str, file: str, line: int, what: str) -> float:
    """A finite, non-negative number from a telemetry field, or an error naming the line."""
    shown = repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text):,} characters)"
    try:
        v = float(text)
    except ValueError:
        raise bad(file, line, f"{what}: expected a number, got {shown}") from None
    if math.isnan(v) or v < 0:
        raise bad(file, line, f"{what}: expected a non-negative number, got {shown}")
    if v > MAX_READING:
        raise bad(file, line, f"{what}: {shown} is more than any storage reports (at most {MAX_READING:g})")
    return v


_TIME_FORMATS = (
    "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S %Z", "%Y-%m-%dT%H:%M:%S.%f",
    "%m/%d/%Y %I:%M:%S %p", "%m/%d/%y %I:%M:%S %p", "%m/%d/%Y %H:%M:%S", "%m/%d/%y %H:%M:%S",
    "%a %b %d %H:%M:%S %Z %Y", "%a %b %d %H:%M:%S %Y", "%a %d %b %Y %H:%M:%S %Z", "%a %d %b %Y %I:%M:%S %p %Z",
    "%d.%m.%Y %H:%M:%S", "%d.%m.%y %H:%M:%S", "%d/%m/%Y %H:%M:%S", "%d/%m/%y %H:%M:%S",
)
_EPOCH = re.compile(r"^\d{9,11}(\.\d+)?$")
_LOOKS = re.compile(r"^(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}[ T]\d|[A-Z][a-z]{2},? )")


def parse_time(text: str) -> float | None:
    """Epoch seconds from a timestamp as sysstat, ``date`` or ``date +%s`` print it; None
    when the text is not one. A time without a zone is read as UTC (only differences
    between timestamps matter to iolab)."""
    t = text.strip()
    if _EPOCH.match(t):
        return float(t)
    if len(t) > 48 or not _LOOKS.match(t):
        return None
    t = re.sub(r"\s+", " ", t)
    # a zone name strptime does not know (CET, PST): the wall-clock time is used
    for text in (t, re.sub(r" [A-Z]{2,5}$", "", t), re.sub(r" [A-Z]{2,5}( \d{4})$", r"\1", t)):
        for fmt in (_last[0], *_TIME_FORMATS):       # a file repeats one format: try the last one first
            try:
                d = datetime.strptime(text, fmt)
            except ValueError:
                continue
            _last[0] = fmt
            if d.tzinfo is None:
                d = d.replace(tzinfo=timezone.utc)
            return d.timestamp()
    return None


_last = [_TIME_FORMATS[0]]
