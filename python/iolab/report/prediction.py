"""Report section for a prediction: a scenario (predicted here) or ``iolab predict --json``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import figures
from .formats import latency, value
from .page import Section

__all__ = ["prediction_section", "curve"]


def curve(scenario: Any, doc: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The predicted curve over iodepth 1, 2, 4, ... up to 4× the knee (or the scenario's own
    depth); up to 64 when nothing caps the path (no knee)."""
    import math

    from ..prediction import sweep

    jobs = max(1, sum(j.fio.numjobs for j in scenario.jobs))
    knee = float(doc.get("knee_outstanding") or 1.0)
    knee = max(1.0, knee if math.isfinite(knee) else 16.0 * len(scenario.jobs))
    depth = max(1, int(float(doc.get("outstanding") or 1) // jobs))
    top = max(depth, int(4 * knee / max(1, len(scenario.jobs))), 2)
    values, v = [], 1
    while v <= top:
        values.append(v)
        v *= 2
    return [(d, p.to_json()) for d, p in sweep(scenario, "iodepth", values)]


def prediction_section(doc: Mapping[str, Any], *, title: str, scenario_text: str | None = None,
                       points: list[tuple[int, dict[str, Any]]] | None = None,
                       facts: list[tuple[str, object]] | None = None) -> Section:
    """The headline figures, what limits them, the resources' utilization and the curve."""
    sec = Section(title, "prediction")
    if scenario_text is not None:
        sec.heading("What was asked")
        sec.pre(scenario_text)
    if facts:
        sec.heading("Environment")
        sec.facts(facts)
    sec.heading("Predicted figures")
    parts = [("total", doc)] + [(d, doc[d]) for d in ("read", "write") if isinstance(doc.get(d), Mapping)]
    jobs = doc.get("jobs") or []
    parts += [(f"job {j['name']}", j) for j in jobs if len(jobs) > 1]
    sec.table(["where", "IOPS", "bandwidth", "mean latency"],
              [[n, value("iops", p.get("iops")), value("bandwidth", p.get("bandwidth")),
                latency((p.get("latency") or {}).get("mean"))] for n, p in parts])
    b = doc.get("bottleneck") or {}
    if b.get("kind") == "concurrency":
        limit = f"too few IOs in flight: nothing is saturated (busiest resource {b.get('utilization') or 0:.0%})"
    else:
        limit = f"{b.get('resource')} ({b.get('kind')}, {b.get('utilization') or 0:.0%} busy)" if b else None
    sec.facts([("bottleneck", limit),
               ("IOs in flight", doc.get("outstanding")), ("knee", f"{doc.get('knee_outstanding')} IOs in flight"
                                                          if doc.get("knee_outstanding") is not None else None),
               ("IOPS bound", value("iops", doc.get("max_iops")))])
    sec.items([f"note: {n}" for n in doc.get("notes") or []])
    res = [r for r in doc.get("resources") or [] if r.get("utilization") is not None]
    if res:
        sec.heading("Resources")
        sec.table(["resource", "kind", "utilization"], [[r["resource"], r.get("kind"), f"{r['utilization']:.1%}"]
                                                        for r in res], left=2)
        sec.figure(figures.bars([r["resource"] for r in res], [r["utilization"] * 100 for r in res],
                                title="utilization", xlabel="% busy", limit=100.0),
                   "How busy each resource is at the scenario's load.")
    points = points if points is not None else [(int(p["params"].get("iodepth", 0)), p) for p in doc.get("points") or []]
    if points:
        pts = [figures.Point(p["iops"], (p.get("latency") or {}).get("mean") or 0.0, f"iodepth={d}") for d, p in points]
        bound = float(doc.get("max_iops") or 0.0)
        knee = next((p for p in pts if bound and p.iops >= 0.95 * bound), None)
        sec.figure(figures.latency_curve([], pts, title="predicted latency vs IOPS", predicted_knee=knee),
                   "The predicted curve as each job's iodepth doubles; the diamond marks the knee (95 % of the "
                   "IOPS bound), past which latency grows linearly.")
    return sec
