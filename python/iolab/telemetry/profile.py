"""From samples to a workload profile: percentiles per device and combined, busy windows,
and the requirements file ``iolab plan`` reads.

Percentiles interpolate linearly between the two nearest ranks (numpy's default, Excel's
PERCENTILE.INC). Latency and IO-size percentiles count only the samples that had IO in
that direction. The combined series adds the selected devices sample by sample (rates
and IOs in flight add up; latency is the IO-weighted mean; utilization the busiest).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .model import Sample, Trace

__all__ = ["Profile", "profile", "point_key", "select_devices", "combine", "requirements_doc", "requirements_yaml",
           "POINTS", "DEFAULT_PERCENTILE", "DEFAULT_COMFORT"]

POINTS = (50.0, 90.0, 95.0, 99.0)
DEFAULT_PERCENTILE = 95.0
DEFAULT_COMFORT = 1.3
NFS_FORMATS = ("mountstats", "nfsiostat", "live mountstats")
"""Telemetry of NFS mounts: the requirements file then searches file shares over NFS."""

_VIRTUAL = re.compile(r"^(loop|ram|zram|sr|fd|nbd)\d+$")
_STACKED = re.compile(r"^(dm-\d+|md\d+|md/.*|dev9-\d+)$")      # dev9-N: md as sar names it without -p


def _parent(name: str) -> str | None:
    m = re.match(r"^(nvme\d+n\d+|mmcblk\d+)p\d+$", name) or re.match(r"^((?:sd|vd|xvd|hd)[a-z]+)\d+$", name)
    return m.group(1) if m else None


def _bare(name: str) -> str:
    """A device's own name without the ``FILE:`` in front that tells two hosts' devices apart."""
    m = re.match(r"^[^:()/]+:(.+)$", name)
    return m.group(1) if m else name


def _sibling(name: str, other: str | None) -> str | None:
    """``other`` with ``name``'s ``FILE:`` prefix."""
    if other is None:
        return None
    prefix = name[: len(name) - len(_bare(name))]
    return prefix + other


def select_devices(names: list[str], wanted: list[str] | None) -> tuple[list[str], list[str]]:
    """(devices used for the combined figures, notes). Without ``wanted``: whole disks only —
    no partitions of a listed disk, no loop/ram/CD devices, and no device-mapper or md
    devices when the disks under them are listed (their IO would count twice)."""
    if wanted:
        missing = [w for w in wanted if w not in names]
        if missing:
            from ..errors import SchemaError
            raise SchemaError(f"no device {missing[0]!r} in the telemetry (it has: {', '.join(names)})",
                              field="--device")
        return list(wanted), []
    keep = [n for n in names if not _VIRTUAL.match(_bare(n)) and not (_sibling(n, _parent(_bare(n))) in names)]
    physical = [n for n in keep if not _STACKED.match(_bare(n))]
    if physical and len(physical) < len(keep):
        dropped = [n for n in keep if n not in physical]
        keep = physical
        notes = [f"left out of the combined figures: {', '.join(dropped)} (stacked on the disks counted)"]
    else:
        notes = []
    skipped = [n for n in names if n not in keep and not _STACKED.match(_bare(n))]
    if skipped:
        notes.append(f"left out of the combined figures: {', '.join(skipped)} (partitions or virtual devices)")
    return keep or list(names), notes


def combine(samples: list[Sample]) -> list[Sample]:
    """One sample per interval: the devices' samples that end in the same interval (the
    median sampling interval, so that files from several hosts line up), added up."""
    if not samples:
        return []
    steps = sorted(s.interval for s in samples)
    step = steps[len(steps) // 2] or 1.0
    groups: dict[int, list[Sample]] = {}
    for s in samples:
        groups.setdefault(round(s.time / step), []).append(s)
    out = []
    for k in sorted(groups):
        g = groups[k]
        t = max(s.time for s in g)
        r, w = sum(s.r_iops for s in g), sum(s.w_iops for s in g)
        queues = [s.queue for s in g if s.queue is not None]
        utils = [s.util for s in g if s.util is not None]
        rpcs = [s.rpc_ops for s in g if s.rpc_ops is not None]
        out.append(Sample(t, max(s.interval for s in g), "combined", r, w, sum(s.r_bw for s in g),
                          sum(s.w_bw for s in g), _wmean(g, "r"), _wmean(g, "w"),
                          sum(queues) if queues else None, max(utils) if utils else None,
                          sum(rpcs) if rpcs else None))
    return out


def _wmean(g: list[Sample], d: str) -> float | None:
    pairs = [(getattr(s, f"{d}_iops"), getattr(s, f"{d}_lat")) for s in g]
    pairs = [(x, l) for x, l in pairs if x > 0 and l is not None]
    x = sum(p[0] for p in pairs)
    return sum(p[0] * p[1] for p in pairs) / x if x > 0 else None


def point_key(p: float) -> str:
    """The JSON key of a percentile: 95 -> "p95", 99.9 -> "p99.9"."""
    return f"p{p:g}"


def summary(values, points: tuple[float, ...]) -> dict[str, float] | None:
    """P50/P90/P95/P99 (and any extra point), max and mean of the values; None if there are none."""
    a = np.asarray(values, dtype=float)
    a = a[~np.isnan(a)]
    if a.size == 0:
        return None
    out = {point_key(p): float(v) for p, v in zip(points, np.percentile(a, points))}
    out["max"] = float(a.max())
    out["mean"] = float(a.mean())
    return out


def _column(samples: list[Sample], name: str) -> np.ndarray:
    return np.array([getattr(s, name) for s in samples], dtype=float)  # None becomes nan


def figures(samples: list[Sample], points: tuple[float, ...]) -> dict:
    """The contract's per-device block: read, write, total, read_share, queue_depth, ..."""
    col = {n: _column(samples, n) for n in ("r_iops", "w_iops", "r_bw", "w_bw", "r_lat", "w_lat", "queue", "util",
                                            "rpc_ops", "interval")}
    doc: dict = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for d, word in (("r", "read"), ("w", "write")):
            iops, bw, lat = col[f"{d}_iops"], col[f"{d}_bw"], col[f"{d}_lat"]
            busy = iops > 0
            doc[word] = {"iops": summary(iops, points), "bandwidth": summary(bw, points),
                         "latency": summary(lat[busy], points), "io_size": summary(bw[busy] / iops[busy], points)}
        iops = col["r_iops"] + col["w_iops"]
        bw = col["r_bw"] + col["w_bw"]
        active = iops > 0
        doc["total"] = {"iops": summary(iops, points), "bandwidth": summary(bw, points),
                        "io_size": summary(bw[active] / iops[active], points)}
        doc["read_share"] = summary(col["r_iops"][active] / iops[active], points)
    doc["queue_depth"] = summary(col["queue"], points)
    doc["utilization"] = summary(col["util"], points)
    if not np.isnan(col["rpc_ops"]).all():
        doc["rpc_ops"] = summary(col["rpc_ops"], points)
    dt = col["interval"]
    ios = float((iops * dt).sum())
    doc["mean_io_size"] = float((bw * dt).sum()) / ios if ios > 0 else None
    doc["read_fraction"] = float((col["r_iops"] * dt).sum()) / ios if ios > 0 else None
    doc["samples"] = len(samples)
    return doc


@dataclass
class Profile:
    trace: Trace
    percentile: float
    comfort: float
    devices: list[str]             # used for the combined figures
    per_device: dict[str, dict]
    combined: dict
    series: list[Sample]           # the combined series
    busy: list[dict]
    requirements: dict
    notes: list[str]

    @property
    def points(self) -> tuple[float, ...]:
        return tuple(sorted(set(POINTS) | {self.percentile}))

    def to_json(self) -> dict:
        steps = sorted(s.interval for s in self.series)
        return {
            "source": {"files": self.trace.sources, "percentile": self.percentile, "comfort": self.comfort,
                       "devices": self.devices, "notes": self.notes, "merged": self.trace.merged},
            "samples": len(self.series),
            "interval": steps[len(steps) // 2] if steps else None,
            "devices": [{"name": n, **d} for n, d in self.per_device.items()],
            "combined": self.combined,
            "busy_windows": self.busy,
            "requirements": self.requirements,
        }


def busy_windows(series: list[Sample], iops_at: float, bw_at: float, limit: int = 10) -> list[dict]:
    """Stretches where the combined IOPS or bandwidth is at or above its sizing percentile."""
    out: list[dict] = []
    for s in series:
        if not (s.iops >= iops_at > 0 or s.bandwidth >= bw_at > 0):
            continue
        start = s.time - s.interval
        if out and start <= out[-1]["end"] + 0.5 * s.interval:
            w = out[-1]
            w["end"] = s.time
            w["peak_iops"] = max(w["peak_iops"], s.iops)
            w["peak_bandwidth"] = max(w["peak_bandwidth"], s.bandwidth)
        else:
            out.append({"start": start, "end": s.time, "peak_iops": s.iops, "peak_bandwidth": s.bandwidth})
    for w in out:
        w["duration"] = w["end"] - w["start"]
    out.sort(key=lambda w: (-w["duration"], -w["peak_iops"]))
    return sorted(out[:limit], key=lambda w: w["start"])


def profile(trace: Trace, *, percentile: float = DEFAULT_PERCENTILE, comfort: float = DEFAULT_COMFORT,
            devices: list[str] | None = None) -> Profile:
    points = tuple(sorted(set(POINTS) | {percentile}))
    names = trace.devices()
    used, notes = select_devices(names, devices)
    per_device = {n: figures([s for s in trace.samples if s.device == n], points) for n in names}
    series = combine([s for s in trace.samples if s.device in used])
    combined = figures(series, points)
    key = point_key(percentile)
    iops_p = combined["total"]["iops"][key]
    bw_p = combined["total"]["bandwidth"][key]
    req = requirements_doc(combined, percentile, comfort)
    sizes = [trace.sizes.get(n) for n in used]
    if used and all(sizes):
        req["require"]["capacity"] = sum(sizes)  # type: ignore[arg-type]
    else:
        notes.append("the telemetry does not say how large the devices are: the requirements have no capacity, "
                     "and a plan would size storage for the load alone; add `capacity:` under require: (the "
                     "data's size)")
    if combined["read_fraction"] is None and combined["total"]["bandwidth"]["max"] > 0:
        notes.append("the telemetry gives bandwidth but no IO rates (a fio NAME_bw log without its NAME_iops "
                     "log?): the requirement is the bandwidth, the mix the share of bytes read, and the block "
                     "size 4 KiB is assumed")
    if trace.sources and all(src["format"] in NFS_FORMATS for src in trace.sources):
        req["search"] = {"kind": "share", "protocols": ["nfs3", "nfs4.1"]}
    return Profile(trace, percentile, comfort, used, per_device, combined, series,
                   busy_windows(series, iops_p, bw_p), req, list(trace.notes) + notes)


def requirements_doc(combined: dict, percentile: float, comfort: float) -> dict:
    """The ``jobs`` and ``require`` of a requirements file, in base units."""
    key = point_key(percentile)
    iops = combined["total"]["iops"][key] * comfort
    bw = combined["total"]["bandwidth"][key] * comfort
    size = combined["mean_io_size"] or 4096.0
    read = combined["read_fraction"]
    if read is None:  # no IO rates (a fio bandwidth log alone): the share of the bytes read
        rb, wb = combined["read"]["bandwidth"]["mean"], combined["write"]["bandwidth"]["mean"]
        read = rb / (rb + wb) if rb + wb > 0 else 1.0
    mix = int(round(read * 100))
    job: dict = {"rw": "randread" if mix >= 100 else "randwrite" if mix <= 0 else "randrw"}
    if 0 < mix < 100:
        job["rwmixread"] = mix
    job["bs"] = f"{max(1, round(size / 1024))}k"
    q = combined["queue_depth"]
    job["iodepth"] = max(1, math.ceil(q[key])) if q else 1
    job["ioengine"] = "libaio"
    require: dict = {}
    if iops > 0:
        require["iops"] = math.ceil(iops)
    if bw > 0:
        require["bandwidth"] = math.ceil(bw / 1e5) * 1e5
    if not require:
        require["iops"] = 1
    lat = [combined[d]["latency"] for d in ("read", "write") if combined[d]["latency"]]
    observed = max((l[key] for l in lat), default=None)
    return {"jobs": [job], "require": require, "observed_latency": observed}


def requirements_yaml(p: Profile, command: str) -> str:
    """The requirements file's text: comments saying where each figure comes from."""
    from ..units import format_duration, format_ops, format_rate, format_size

    r = p.requirements
    key = point_key(p.percentile)
    tot = p.combined["total"]
    job = r["jobs"][0]
    lines = [
        f"# Written by `{command}`.",
        f"# Sources: {', '.join(s['file'] + ' (' + s['format'] + ')' for s in p.trace.sources)}.",
        f"# Devices combined: {', '.join(p.devices)}; {len(p.series)} samples.",
        f"# P{p.percentile:g} of the combined load × comfort factor {p.comfort:g}:",
        f"#   IOPS      {format_ops(tot['iops'][key])} × {p.comfort:g}",
        f"#   bandwidth {format_rate(tot['bandwidth'][key])} × {p.comfort:g}",
        f"# Mean IO size {format_size(p.combined['mean_io_size'] or 0)}, reads "
        f"{100 * (p.combined['read_fraction'] or 0):.0f} % of IOs.",
    ]
    if r["observed_latency"] is not None:
        lines.append(f"# Observed P{p.percentile:g} latency {format_duration(r['observed_latency'])}: add "
                     f"`latency: {r['observed_latency'] * 1000:.3g}ms` under require: to hold a new system to it.")
    lines.append("# Telemetry does not show whether IO was random or sequential: rw assumes random.")
    lines.append("version: 1")
    lines.append("jobs:")
    lines.append("  - {" + ", ".join(f"{k}: {v}" for k, v in job.items()) + "}")
    lines.append("require:")
    for k, v in r["require"].items():
        lines.append(f"  {k}: {_rate(v) if k == 'bandwidth' else v}"
                     + (f"  # {format_size(v)}: the size of {', '.join(p.devices)}" if k == "capacity" else ""))
    if "capacity" not in r["require"]:
        lines.append("  # capacity: the telemetry does not say how large the devices are: give the data's size here")
    if "search" in r:
        lines.append("# The telemetry is of NFS mounts: plan file shares served over NFS.")
        lines.append("search: {kind: share, protocols: [" + ", ".join(r["search"]["protocols"]) + "]}")
    return "\n".join(lines) + "\n"


def _rate(bps: float) -> str:
    return f"{bps / 1e6:.1f}MB/s"
