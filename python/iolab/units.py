"""Units: parse sizes, rates and durations once at the boundary into base units, and print
them back the way a person expects.

Base units everywhere inside iolab: bytes, seconds, bytes/s, ops/s.

- Sizes: ``4096``, ``4k`` ``4K`` ``4KiB`` (4096), ``4KB`` ``4kB`` (4000); likewise m/M/MiB/MB,
  g/G/GiB/GB, t/T/TiB/TB, p/P/PiB/PB. A bare letter is binary, as in fio.
- Byte rates: ``200MB/s`` ``200MBps`` (200e6 B/s), ``200MiB/s`` ``200MiBps``, ``4.5GiB/s``;
  bit rates ``12500Mbit/s`` ``12500Mbps`` (12500e6/8 B/s); a bare number is bytes/s.
- Ops rates: ``5000``, ``5000/s``, ``5000iops``, ``5k`` (5000).
- Durations: ``30`` (seconds), ``500ms``, ``250us``, ``2m``, ``1h``.

Every parser raises :class:`iolab.errors.UnitError` (a ValueError) on malformed input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TypeVar

from .errors import InputError, UnitError

T = TypeVar("T")

__all__ = [
    "parse_size",
    "parse_rate",
    "parse_ops_rate",
    "parse_duration",
    "parse_points",
    "format_size",
    "format_capacity",
    "format_block",
    "format_rate",
    "format_limit",
    "format_ops",
    "format_duration",
    "format_count",
    "format_money",
    "format_price",
    "format_percent",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
]

KiB, MiB, GiB, TiB, PiB = (1024**i for i in range(1, 6))
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_NUM = r"(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
_SIZE_RE = re.compile(_NUM + r"\s*(?P<prefix>[kmgtpKMGTP]?)(?P<i>i?)(?P<b>[bB]?)$")
_RATE_RE = re.compile(
    _NUM
    + r"\s*(?P<prefix>[kmgtpKMGTP]?)(?P<i>i?)(?P<unit>B|bit|b|)\s*(?P<per>/s|ps|/sec)?$"
)
_OPS_RE = re.compile(_NUM + r"\s*(?P<prefix>[kmKM]?)\s*(?P<per>/s|iops|IOPS|ops/s)?$")
_DURATION_RE = re.compile(_NUM + r"\s*(?P<unit>ns|us|µs|ms|s|sec|m|min|h|d)?$")
_DURATION = {None: 1.0, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
             "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def _number(m: re.Match[str], text: str, what: str) -> float:
    value = float(m.group("num"))
    if not math.isfinite(value):
        raise UnitError(f"{what} {text!r} is not a finite number")
    if value < 0:
        raise UnitError(f"{what} {text!r} is negative")
    return value


def _text(value: object, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UnitError(f"expected a {what} (a number or a string such as the examples), got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UnitError(f"{what} {value!r} is not a finite number")
    return str(value).strip()


def parse_size(value: str | int | float) -> int:
    """Parse a size into bytes (an integer, rounded). Bare k/m/g/t are binary; KB/MB are decimal."""
    text = _text(value, "size")
    m = _SIZE_RE.match(text)
    if not m:
        raise UnitError(f"{text!r} is not a size (examples: 4096, 4k, 4KiB, 4KB, 1.5GiB)")
    num = _number(m, text, "size")
    prefix = m.group("prefix").lower()
    decimal = bool(m.group("b")) and not m.group("i")
    if m.group("i") and not prefix:
        raise UnitError(f"{text!r} is not a size (examples: 4096, 4k, 4KiB, 4KB, 1.5GiB)")
    base = 1000 if decimal else 1024
    return int(round(num * base ** _POWER[prefix]))  # a fractional byte count rounds to the nearest


def parse_rate(value: str | int | float) -> float:
    """Parse a data rate into bytes/s. ``MB/s`` decimal, ``MiB/s`` binary, ``Mbit/s``/``Mbps`` bits."""
    text = _text(value, "data rate")
    m = _RATE_RE.match(text)
    if not m or (m.group("i") and not m.group("prefix")):
        raise UnitError(f"{text!r} is not a data rate (examples: 200MB/s, 200MiB/s, 12500Mbit/s, 1.5GiBps)")
    num = _number(m, text, "data rate")
    prefix, unit, binary = m.group("prefix").lower(), m.group("unit"), bool(m.group("i"))
    if unit in ("b", "bit"):
        if not m.group("per"):
            raise UnitError(f"{text!r}: a bit rate needs '/s' or 'ps' (example: 12500Mbit/s)")
        return num * (1024 if binary else 1000) ** _POWER[prefix] / 8.0
    if unit == "B" and not binary:
        return num * 1000.0 ** _POWER[prefix]
    return num * 1024.0 ** _POWER[prefix]  # MiB/s, or a bare letter as in sizes


def parse_ops_rate(value: str | int | float) -> float:
    """Parse an operation rate (IOPS) into ops/s: ``5000``, ``5000/s``, ``5000iops``, ``5k``."""
    text = _text(value, "operation rate")
    m = _OPS_RE.match(text)
    if not m:
        raise UnitError(f"{text!r} is not an operation rate (examples: 5000, 5000/s, 5k)")
    return _number(m, text, "operation rate") * 1000.0 ** {"": 0, "k": 1, "m": 2}[m.group("prefix").lower()]


def parse_duration(value: str | int | float) -> float:
    """Parse a duration into seconds: a bare number is seconds; ns, us, ms, s, m, h, d suffixes."""
    text = _text(value, "duration")
    m = _DURATION_RE.match(text)
    if not m:
        raise UnitError(f"{text!r} is not a duration (examples: 30, 500ms, 250us, 2m, 1h)")
    return _number(m, text, "duration") * _DURATION[m.group("unit")]


def parse_points(text: str, parse: Callable[[str], T], *, field: str) -> list[T]:
    """The values of a sweep ``NAME=V1,V2,...`` (``text``), each read by ``parse``: an empty
    one (``1,,2``, a comma at an end) is a typo and a value given twice one point twice, so
    both raise InputError naming ``field``."""
    name, _, values = text.partition("=")
    items = values.split(",")
    if any(not v.strip() for v in items):
        raise InputError(f"an empty value in {text!r} (two commas, or one at an end)", field=field)
    points = [parse(v) for v in items]
    if len(set(points)) != len(points):
        raise InputError(f"{name.strip()} repeats a value: {values}", field=field)
    return points


def _fmt(x: float) -> str:
    """Four significant digits, no trailing zeros, no exponent for ordinary magnitudes, and
    thousands separators as every count and rate has them (``1,000``)."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return "∞" if x > 0 else ("-∞" if x < 0 else "n/a")
    digits = max(0, 3 - int(math.floor(math.log10(abs(x)))))
    text = f"{x:,.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scaled(x: float, base: int, names: list[str]) -> tuple[float, str]:
    i = 0
    while i + 1 < len(names) and abs(x) >= base ** (i + 1) * 0.9995:
        i += 1
    return x / base**i, names[i]


def format_size(n: float, *, decimal: bool = False) -> str:
    """Print a byte count as a person reads it: ``8 KiB``, ``1.5 TiB`` (``8 KB`` if decimal)."""
    names = ["B", "KB", "MB", "GB", "TB", "PB"] if decimal else ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, unit = _scaled(float(n), 1000 if decimal else 1024, names)
    return f"{_fmt(v)} {unit}"


def format_capacity(n: float) -> str:
    """A capacity as its writer gave it and as quotas count it: ``10 TB (9.095 TiB)`` for a
    decimal size (cloud quotas are binary), ``2 TiB`` for a binary one."""
    n = float(n)
    for power in range(5, 0, -1):
        if n >= 1000**power and n % 1000**power == 0 and n % 1024**power != 0:
            return f"{format_size(n, decimal=True)} ({format_size(n)})"
    return format_size(n)


def format_block(n: int) -> str:
    """A block size: ``8 KiB`` when a whole number of KiB, else bytes (``4,000 B``)."""
    return format_size(n) if n % 1024 == 0 or n < 1024 else f"{n:,} B"


def format_rate(bps: float, *, binary: bool = False) -> str:
    """Print bytes/s: ``200 MB/s`` (decimal, as disk vendors state it) or ``128 MiB/s``."""
    names = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"] if binary else ["B/s", "KB/s", "MB/s", "GB/s", "TB/s"]
    v, unit = _scaled(float(bps), 1024 if binary else 1000, names)
    return f"{_fmt(v)} {unit}"


def format_limit(bps: float) -> str:
    """Print a published throughput limit in the binary unit that states it exactly, as the
    file-share services publish theirs: ``4,500 MiB/s`` (Azure NetApp Files; not 4.395 GiB/s),
    ``4.5 GiB/s`` (NetApp Volumes), ``128 MiB/s``; to two decimals at most, else as
    :func:`format_rate` prints it."""
    for scale, unit in ((1024**3, "GiB/s"), (1024**2, "MiB/s")):
        x = float(bps) / scale
        if x >= 1 and abs(x * 100 - round(x * 100)) < 1e-6:
            return f"{x:,.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return format_rate(bps, binary=True)


def format_ops(ops: float) -> str:
    """Print an operation rate with a thousands separator: ``19,357 IOPS``."""
    return f"{ops:,.0f} IOPS" if ops >= 100 else f"{_fmt(ops)} IOPS"


def format_count(n: float) -> str:
    """A count with thousands separators: ``876,768``."""
    return f"{n:,.0f}"


def format_money(dollars: float | None) -> str:
    """Money in dollars and cents with thousands separators: ``$1,234.50``; ``unpriced`` for None."""
    return "unpriced" if dollars is None else f"${dollars:,.2f}"


def format_price(dollars: float) -> str:
    """A catalog's price: dollars and cents from a dollar up (``$1,134.34``), below it the
    digits the source gives, up to six decimals (``$0.08``, ``$0.005``, ``$0.038147``)."""
    if abs(dollars) >= 1:
        return format_money(dollars)
    whole, decimals = f"{dollars:.6f}".split(".")
    return f"${whole}.{decimals.rstrip('0').ljust(2, '0')}"


def format_percent(ratio: float, digits: int = 0) -> str:
    """A share as a percentage: ``67%`` (``digits`` decimals: ``98.9%``)."""
    return f"{ratio:.{digits}%}"


def format_duration(seconds: float) -> str:
    """Print a duration in the unit that reads best: ``250 us``, ``6.613 ms``, ``30 s``, ``2 h``."""
    if seconds is None:
        return "n/a"
    s = float(seconds)
    if s == 0:
        return "0 s"
    if not math.isfinite(s):
        return f"{_fmt(s)} s"
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if abs(s) < scale * 999.95:
            return f"{_fmt(s / scale)} {unit}"
    if abs(s) < 60 * 2:
        return f"{_fmt(s)} s"
    if abs(s) < 3600 * 2:
        return f"{_fmt(s / 60)} m"
    return f"{_fmt(s / 3600)} h"
