"""Report section for a plan: the required load, the candidates ranked, and why the others lost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..plan.labels import config_label, explanations
from ..units import format_count, format_money, format_percent, format_size
from . import figures
from .formats import latency, value
from .page import Section

__all__ = ["plan_section", "config_text"]


def config_text(c: Mapping[str, Any]) -> str:
    """A plan JSON ``config`` in one line, as every rendering labels it
    (:func:`iolab.plan.labels.config_label`): ``Standard_D16s_v5 + 4 × P20``."""
    return config_label(c)


def plan_section(doc: Mapping[str, Any], *, title: str, asked: str | None = None) -> Section:
    sec = Section(title, "plan")
    if asked is not None:
        sec.heading("What was asked")
        sec.pre(asked)
    req = doc.get("required") or {}
    sec.facts([("required IOPS", value("iops", req.get("iops"))), ("required bandwidth", value("bandwidth", req.get("bandwidth"))),
               ("required mean latency", latency(req.get("latency")) if req.get("latency") else None),
               ("capacity", format_size(req["capacity"]) if req.get("capacity") else None),
               ("clients", req.get("clients")), ("region", doc.get("region")),
               ("searched", f"{format_count(doc.get('evaluated') or 0)} configurations, "
                            f"{format_count(doc.get('feasible') or 0)} feasible")])
    cands = doc.get("candidates") or []
    if not cands:
        sec.para("No configuration meets the requirements.", "bad")
    elif not cands[0].get("config"):
        sec.pre(_plain(cands))
    else:
        sec.heading("Candidates")
        body = []
        for c in cands:
            p = c.get("prediction") or {}
            b = p.get("bottleneck") or {}
            body.append([c.get("rank"), format_money(c.get("monthly_cost")), config_text(c.get("config") or {}),
                         value("iops", p.get("iops")), latency(p.get("latency") if isinstance(p.get("latency"), (int, float))
                                                              else (p.get("latency") or {}).get("mean")),
                         format_percent(c.get('headroom') or 0),
                         f"{b.get('kind') or ''} {format_percent(b.get('utilization') or 0)}"])
        sec.table(["#", "$/month", "configuration", "IOPS", "latency", "headroom", "binding"], body, left=0)
        priced = [c for c in cands if c.get("monthly_cost") is not None]
        if priced:
            sec.figure(figures.bars([f"#{c['rank']} {config_text(c.get('config') or {})}" for c in priced],
                                    [c["monthly_cost"] for c in priced], title="monthly cost", xlabel="$ / month"),
                       "What each ranked candidate costs a month.")
        best = cands[0]
        sec.para(f"#1 {config_text(best['config'])} meets the requirements at the lowest cost, with "
                 f"{format_percent(best.get('headroom') or 0)} headroom.", "good")
        for note in best.get("notes") or []:
            sec.para(f"Note: {note}", "note")
    sec.heading("Why the others lost")
    groups = explanations(doc)
    if not groups:
        sec.para("No other configuration was considered.", "note")
    for title, lines in groups:
        if title:
            sec.para(title[0].upper() + title[1:] + ":")
        sec.items(lines)
    return sec


def _plain(value: Any) -> str:
    import json

    return json.dumps(value, indent=2)
