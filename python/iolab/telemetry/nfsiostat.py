"""``nfsiostat [interval [count]]`` output (nfs-utils): per mount, ops/s and RPC backlog,
then for ``read:`` and ``write:`` ops/s, kB/s, kB/op, retransmissions, avg RTT, avg exe
(and, in newer versions, avg queue and errors).

nfsiostat prints no times: reports are taken as ``--interval`` apart (1 s if not given).
Its first report covers the time since the mount and is left out. Note that with
``nconnect`` nfsiostat's own ops/s counts only the last transport; read and write figures
come from per-operation counters and are exact. Read ``/proc/self/mountstats`` snapshots
instead for the RPC rate over every transport.
"""

from __future__ import annotations

import re

from .model import Sample, Trace, bad, number

__all__ = ["is_nfsiostat", "read_nfsiostat"]

_MOUNT = re.compile(r"^(\S+) mounted on (\S+):\s*$")


def is_nfsiostat(lines: list[str]) -> bool:
    return any(_MOUNT.match(l.strip()) for l in lines[:200]) and any(l.strip().startswith("read:") for l in lines)


def read_nfsiostat(text: str, file: str, trace: Trace, interval: float | None) -> list[Sample]:
    lines = text.splitlines()
    reports: dict[str, list[dict]] = {}
    cur: dict | None = None
    pending: tuple[str, list[str]] | None = None
    for n, raw in enumerate(lines, 1):
        s = raw.strip()
        m = _MOUNT.match(s)
        if m:
            cur = {"mount": m.group(2), "line": n}
            reports.setdefault(m.group(2), []).append(cur)
            pending = None
            continue
        if cur is None or not s:
            continue
        if s.startswith("ops/s"):
            pending = ("rpc", s.split())
            continue
        if s.startswith(("read:", "write:")):
            head = re.split(r"\s{2,}", s.split(":", 1)[1].strip())
            pending = (s.split(":", 1)[0], head)
            continue
        if pending is not None:
            kind, head = pending
            vals = re.sub(r"\(\s*[\d.]+%\)", "", s).split()
            if kind == "rpc":
                cur["rpc"] = number(vals[0], file, n, "ops/s")
            else:
                if len(vals) < 6:
                    raise bad(file, n, f"{kind}: expected ops/s, kB/s, kB/op, retrans, avg RTT, avg exe; found "
                              f"{len(vals)} fields (a truncated file?)")
                cur[kind] = {"ops": number(vals[0], file, n, f"{kind} ops/s"),
                             "kB": number(vals[1], file, n, f"{kind} kB/s"),
                             "exe": number(vals[5], file, n, f"{kind} avg exe (ms)")}
            pending = None
            continue
        raise bad(file, n, f"unexpected line in nfsiostat output: {s[:60]!r}")
    if not reports:
        raise bad(file, None, "no nfsiostat report found")
    step = interval or 1.0
    trace.interval_used |= interval is not None
    if interval is None:
        trace.notes.append(f"{file}: nfsiostat prints no times: reports taken as 1 s apart (give --interval)")
    out = []
    for mount, reps in reports.items():
        if len(reps) > 1:
            reps = reps[1:]
        for i, r in enumerate(reps, 1):
            for k in ("read", "write"):
                if k not in r:
                    raise bad(file, r["line"], f"{mount}: the report has no {k}: figures (a truncated file?)")
            rd, wr = r["read"], r["write"]
            out.append(Sample(i * step, step, mount, rd["ops"], wr["ops"], rd["kB"] * 1024, wr["kB"] * 1024,
                              rd["exe"] / 1000 if rd["ops"] else None, wr["exe"] / 1000 if wr["ops"] else None,
                              rd["ops"] * rd["exe"] / 1000 + wr["ops"] * wr["exe"] / 1000, None, r.get("rpc")))
    if any(len(r) > 1 for r in reports.values()):
        trace.notes.append(f"{file}: the first nfsiostat report of each mount (since the mount) is left out")
    trace.absolute = False
    return out
