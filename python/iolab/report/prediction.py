"""Report section for a prediction: a scenario (predicted here) or ``iolab predict --json``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..units import format_percent
from . import figures
from .formats import latency, value
from .page import Section

__all__ = ["prediction_section"]


def prediction_section(doc: Mapping[str, Any], *, title: str, scenario_text: str | None = None,
                       points: list[tuple[str, dict[str, Any]]] | None = None,
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
    from ..bottleneck import Bottleneck

    b = doc.get("bottleneck")
    limit = Bottleneck.from_json({**b, "outstanding": doc.get("outstanding")}).sentence() \
        if isinstance(b, Mapping) else None
    sec.facts([("bottleneck", limit),
               ("IOs in flight", doc.get("outstanding")), ("knee", f"{doc.get('knee_outstanding')} IOs in flight"
                                                          if doc.get("knee_outstanding") is not None else None),
               ("IOPS bound", value("iops", doc.get("max_iops")))])
    sec.items([f"note: {n}" for n in doc.get("notes") or []])
    res = [r for r in doc.get("resources") or [] if r.get("utilization") is not None]
    if res:
        sec.heading("Resources")
        sec.table(["resource", "kind", "utilization"], [[r["resource"], r.get("kind"), format_percent(r['utilization'], 1)]
                                                        for r in res], left=2)
        sec.figure(figures.bars([r["resource"] for r in res], [r["utilization"] * 100 for r in res],
                                title="utilization", xlabel="% busy", limit=100.0),
                   "How busy each resource is at the scenario's load.")
    if points is None:  # a predict --json document's own points, each labelled by its values
        points = [(", ".join(f"{k}={v}" for k, v in (p.get("values") or p.get("params") or {}).items()), p)
                  for p in doc.get("points") or []]
    if points:
        pts = [figures.Point(p["iops"], (p.get("latency") or {}).get("mean") or 0.0, label) for label, p in points]
        from ..service.predict import knee_index

        k = knee_index([p.iops for p in pts], float(doc.get("max_iops") or 0.0))
        knee = pts[k] if k is not None else None
        sec.figure(figures.latency_curve([], pts, title="predicted latency vs IOPS", predicted_knee=knee),
                   "The predicted curve as each job's iodepth doubles; the diamond marks the knee (95 % of the "
                   "IOPS bound), past which latency grows linearly.")
    return sec
