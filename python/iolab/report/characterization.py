"""Report section for a characterization (``iolab characterize --json``): what the
workload did, per device and combined, and the requirements written from it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from . import figures
from .formats import value
from .page import Section

__all__ = ["characterization_section"]

STATS = ("p50", "p90", "p95", "p99", "max", "mean")
FIGURES = (("iops", "iops"), ("bandwidth", "bandwidth"), ("latency", "latency"), ("io_size", "io size"))


def _size(x: float | None) -> str:
    from ..units import format_size

    return "–" if x is None else format_size(x)


def _table(sec: Section, name: str, dev: Mapping[str, Any]) -> None:
    body = []
    for direction in ("read", "write"):
        part = dev.get(direction)
        if not isinstance(part, Mapping):
            continue
        for key, label in FIGURES:
            stats = part.get(key)
            if isinstance(stats, Mapping):
                fmt = _size if key == "io_size" else (lambda x, k=key: value(k, x))
                body.append([f"{name} {direction}", label, *(fmt(stats.get(s)) for s in STATS)])
    for key in ("read_share", "queue_depth"):
        stats = dev.get(key)
        if isinstance(stats, Mapping):
            body.append([name, key.replace("_", " "), *(f"{stats[s]:.3g}" if isinstance(stats.get(s), (int, float))
                                                         else "–" for s in STATS)])
    if body:
        sec.table(["where", "figure", *STATS], body, left=2)


def characterization_section(doc: Mapping[str, Any], *, title: str) -> Section:
    sec = Section(title, "characterization")
    sec.heading("What was measured")
    src = doc.get("source") or {}
    sec.facts([*((str(k), v if not isinstance(v, (list, dict)) else ", ".join(map(str, v)) if isinstance(v, list)
                  else yaml.safe_dump(v, default_flow_style=True).strip()) for k, v in src.items()),
               ("samples", doc.get("samples")), ("interval", f"{doc['interval']:g} s" if doc.get("interval") else None)])
    devices = [d for d in doc.get("devices") or [] if isinstance(d, Mapping)]
    combined = doc.get("combined")
    sec.heading("Workload")
    for d in devices:
        _table(sec, str(d.get("name", "device")), d)
    if isinstance(combined, Mapping) and len(devices) != 1:
        _table(sec, "combined", combined)
    series: dict[str, dict[str, float]] = {}
    for d in devices + ([dict(combined, name="combined")] if isinstance(combined, Mapping) and len(devices) > 1 else []):
        for direction in ("read", "write"):
            lat = (d.get(direction) or {}).get("latency") if isinstance(d.get(direction), Mapping) else None
            if isinstance(lat, Mapping):
                series[f"{d.get('name')} {direction}"] = {k: v for k, v in lat.items() if isinstance(v, (int, float))}
    if series:
        sec.figure(figures.percentiles(series, title="observed latency percentiles"),
                   "Latency the workload saw, at each percentile of the samples (log scale).")
    iops = [(f"{d.get('name')} {dr}", (d.get(dr) or {}).get("iops", {})) for d in devices for dr in ("read", "write")
            if isinstance(d.get(dr), Mapping)]
    iops = [(n, s) for n, s in iops if isinstance(s, Mapping) and s.get("p99") is not None]
    if iops:
        sec.figure(figures.bars([n for n, _ in iops], [s["p99"] for s, in [(s,) for _, s in iops]],
                                title="p99 of the sampled IOPS", xlabel="IOPS"),
                   "The 99th percentile of each device's IOPS over the samples.")
    if doc.get("requirements"):
        sec.heading("Requirements written")
        sec.pre(yaml.safe_dump({"require": doc["requirements"]} if "require" not in doc["requirements"]
                               else doc["requirements"], sort_keys=False))
        sec.para("iolab plan takes this requirements file unedited.", "note")
    return sec
