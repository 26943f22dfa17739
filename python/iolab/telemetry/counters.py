"""Cumulative kernel counters: ``/proc/diskstats`` and ``/proc/self/mountstats`` snapshots.

A snapshot file holds successive copies of the kernel file, each after a line with its
time (what ``date +%s.%N``, ``date -Is`` or plain ``date`` print)::

    while sleep 5; do date +%s.%N; cat /proc/diskstats; done > diskstats.log
    while sleep 5; do date +%s.%N; cat /proc/self/mountstats; done > mountstats.log

Two successive snapshots give one sample per device: the counters' differences over the
time between them. ``/proc/diskstats`` (Documentation/admin-guide/iostats.rst): reads
completed, merged, sectors read, ms reading, writes completed, merged, sectors written,
ms writing, IOs in flight, ms doing IO, weighted ms doing IO. Mountstats: per NFS mount,
the per-operation lines ``READ:``/``WRITE:`` (ops, transmissions, timeouts, bytes sent,
bytes received, queue ms, RTT ms, execute ms) and one ``xprt:`` line per transport — with
``nconnect`` there are several, and the RPCs sent are summed over all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .model import Sample, Trace, bad, parse_time

__all__ = ["DiskCounters", "NfsCounters", "parse_diskstats", "parse_mountstats", "read_snapshots",
           "disk_sample", "nfs_sample", "is_diskstats", "is_mountstats"]

_DISK = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\S+)((?:\s+\d+){11,})\s*$")
_MOUNT = re.compile(r"^device (\S+) mounted on (\S+) with fstype (\S+)(?: statvers=(\S+))?\s*$")


@dataclass(frozen=True)
class DiskCounters:
    name: str
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    io_ms: int
    weighted_ms: int


@dataclass
class NfsCounters:
    mount_point: str
    export: str
    fstype: str
    # per operation: [ops, transmissions, timeouts, bytes sent, bytes received, queue ms, RTT ms, execute ms]
    ops: dict[str, list[int]] = field(default_factory=dict)
    sends: int = 0                                              # summed over every xprt line
    backlog: int = 0
    xprts: int = 0
    max_slots: list[int] = field(default_factory=list)          # per transport
    options: str = ""


def is_diskstats(lines: list[str]) -> bool:
    return sum(1 for l in lines[:200] if _DISK.match(l)) >= 1


def is_mountstats(lines: list[str]) -> bool:
    return any(_MOUNT.match(l) for l in lines[:400])


def parse_diskstats(lines: list[tuple[int, str]], file: str) -> dict[str, DiskCounters]:
    out = {}
    for n, line in lines:
        m = _DISK.match(line)
        if not m:
            raise bad(file, n, f"not a /proc/diskstats line: {line.strip()[:60]!r}")
        v = [int(x) for x in m.group(4).split()]
        out[m.group(3)] = DiskCounters(m.group(3), v[0], v[2], v[3], v[4], v[6], v[7], v[9], v[10])
    return out


def parse_mountstats(lines: list[tuple[int, str]], file: str) -> dict[str, NfsCounters]:
    out: dict[str, NfsCounters] = {}
    cur: NfsCounters | None = None
    for n, line in lines:
        m = _MOUNT.match(line.strip())
        if m:
            cur = None
            if m.group(3).startswith("nfs"):
                cur = NfsCounters(m.group(2), m.group(1), m.group(3))
                out[cur.mount_point] = cur
            continue
        if cur is None:
            continue
        s = line.strip()
        if s.startswith("opts:"):
            cur.options = s.split(None, 1)[1] if " " in s or "\t" in s else ""
        elif s.startswith("xprt:"):
            f = s.split()[1:]
            try:
                if f[0] == "tcp":
                    sends, backlog, slots = int(f[6]), int(f[10]), int(f[11])
                elif f[0] == "udp":
                    sends, backlog, slots = int(f[3]), int(f[7]), int(f[8])
                else:
                    sends, backlog, slots = 0, 0, 0
            except (IndexError, ValueError):
                raise bad(file, n, f"xprt line with missing or non-numeric fields: {s[:60]!r}") from None
            cur.sends += sends
            cur.backlog += backlog
            cur.xprts += 1
            cur.max_slots.append(slots)
        elif re.match(r"^[A-Z_0-9]+:\s+\d", s):
            op, rest = s.split(":", 1)
            try:
                vals = [int(x) for x in rest.split()]
            except ValueError:
                raise bad(file, n, f"per-op line with non-numeric fields: {s[:60]!r}") from None
            if len(vals) < 8:
                raise bad(file, n, f"per-op line {op}: expected at least 8 counters, found {len(vals)} "
                          "(a truncated file?)")
            cur.ops[op] = vals[:8]
    return out


class Backwards(ValueError):
    """A counter that went backwards between two snapshots: the device or mount was reset
    (a reboot, a remount) or a snapshot is damaged; that interval has no figures."""


def _delta(a: int, b: int) -> int:
    """How far a counter moved from `a` to `b`: one 32-bit wrap is allowed (a 32-bit kernel's
    counter in its upper half coming round); any other step back raises :class:`Backwards`."""
    if b >= a:
        return b - a
    if 2**31 <= a < 2**32 and b < 2**31:
        return b + 2**32 - a
    raise Backwards(f"a counter went backwards ({a} to {b})")


def disk_sample(a: DiskCounters, b: DiskCounters, dt: float, t: float) -> Sample:
    """The sample between two diskstats readings; Backwards when a counter was reset."""
    reads, writes = _delta(a.reads, b.reads), _delta(a.writes, b.writes)
    return Sample(
        t, dt, b.name, reads / dt, writes / dt,
        _delta(a.read_sectors, b.read_sectors) * 512 / dt, _delta(a.write_sectors, b.write_sectors) * 512 / dt,
        _delta(a.read_ms, b.read_ms) / reads / 1000 if reads else None,
        _delta(a.write_ms, b.write_ms) / writes / 1000 if writes else None,
        _delta(a.weighted_ms, b.weighted_ms) / 1000 / dt, min(1.0, _delta(a.io_ms, b.io_ms) / 1000 / dt))


def nfs_sample(a: NfsCounters, b: NfsCounters, dt: float, t: float) -> Sample:
    """The sample between two mountstats readings; Backwards when a counter was reset (or a
    snapshot lost the READ or WRITE line)."""
    zero = [0] * 8
    ra, rb = a.ops.get("READ", zero), b.ops.get("READ", zero)
    wa, wb = a.ops.get("WRITE", zero), b.ops.get("WRITE", zero)
    reads, writes = _delta(ra[0], rb[0]), _delta(wa[0], wb[0])
    execute = sum(v[7] for v in b.ops.values()) - sum(v[7] for v in a.ops.values())
    return Sample(
        t, dt, b.mount_point, reads / dt, writes / dt, _delta(ra[4], rb[4]) / dt, _delta(wa[3], wb[3]) / dt,
        _delta(ra[7], rb[7]) / reads / 1000 if reads > 0 else None,
        _delta(wa[7], wb[7]) / writes / 1000 if writes > 0 else None,
        max(0.0, execute) / 1000 / dt, None, max(0, b.sends - a.sends) / dt)


def read_snapshots(text: str, file: str, trace: Trace, kind: str) -> list[Sample]:
    """Samples from successive timestamped snapshots of diskstats or mountstats."""
    snaps: list[tuple[float, int, list[tuple[int, str]]]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        t = parse_time(line.strip().lstrip("=# ").rstrip("=# ")) if not line.startswith((" ", "\t")) else None
        if t is not None and not (kind == "diskstats" and _DISK.match(line)):
            snaps.append((t, n, []))
            continue
        if not snaps:
            raise bad(file, n, f"{kind} snapshots need a time line before each copy (e.g. `date +%s.%N`)")
        snaps[-1][2].append((n, line))
    if len(snaps) < 2:
        raise bad(file, None, f"need at least two timestamped {kind} snapshots, found {len(snaps)}")
    parse = parse_diskstats if kind == "diskstats" else parse_mountstats
    parsed = [(t, n, parse(lines, file)) for t, n, lines in snaps]
    out: list[Sample] = []
    for (ta, _, a), (tb, nb, b) in zip(parsed, parsed[1:]):
        dt = tb - ta
        if dt <= 0:
            raise bad(file, nb, f"snapshot times must increase (this one is {dt:g} s after the one before)")
        for name, cb in b.items():
            ca = a.get(name)
            if ca is None:
                continue
            sample = disk_sample if kind == "diskstats" else nfs_sample
            try:
                out.append(sample(ca, cb, dt, tb))  # type: ignore[operator, arg-type]
            except Backwards as e:
                trace.notes.append(f"{file}: {name}: the interval ending at line {nb} is left out: {e} (a reboot "
                                   "or remount between snapshots, or a damaged snapshot)")
    if kind == "mountstats":
        last = parsed[-1][2]
        for c in last.values():
            if c.xprts > 1:
                trace.notes.append(f"{file}: {c.mount_point} has {c.xprts} transports (nconnect): their RPCs "
                                   "are summed")
    return out
