"""Rich renderables for bench results (built here, printed by the CLI): a run's figures,
the prediction beside them, a sweep's curve and knee; and the sweep's plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.table import Table

from ..units import format_duration, format_ops, format_rate
from .compare import rows
from .record import RunRecord
from .sweep import Sweep

__all__ = ["SHOWN", "figures_table", "comparison_table", "record_view", "sweep_view", "plot_sweep"]


def _lat(latency: dict, key: str) -> str:
    value = latency.get(key)
    return format_duration(value) if value is not None else "-"


def _ops(iops: float) -> str:
    return format_ops(iops).removesuffix(" IOPS")


#: latency columns of the tables (the JSON has them all).
SHOWN = ("mean", "p50", "p99", "p99.9")


def figures_table(doc: dict, *, title: str | None = None) -> Table:
    """Measured figures of a run's JSON: total, read, write, each job and host."""
    t = Table(title=title, header_style="bold", title_justify="left", box=None, pad_edge=False)
    t.add_column("", no_wrap=True)
    for col in ("IOPS", "bandwidth", *(k if k != "mean" else "mean lat" for k in SHOWN)):
        t.add_column(col, justify="right", no_wrap=True)

    def add(label: str, part: dict) -> None:
        lat = part.get("latency", {})
        t.add_row(label, _ops(part["iops"]), format_rate(part["bandwidth"]), *(_lat(lat, k) for k in SHOWN))

    if "iops" in doc:
        add("total", doc)
        for d in ("read", "write"):
            if d in doc:
                add(f"  {d}", doc[d])
    hosts = doc.get("hosts", [])
    if len(doc.get("jobs", [])) > max(1, len(hosts)):
        for j in doc.get("jobs", []):
            add(f"job {j['name']}" + (f" @ {j['host']}" if j.get("host") else ""), j)
    for h in hosts:
        if "iops" in h:
            add(f"host {h['host']}", h)
        else:
            t.add_row(f"host {h['host']}", f"[red]{h['status']}[/]: {h.get('error', '')}")
    return t


def comparison_table(doc: dict) -> Table:
    t = Table(title="measured beside predicted", header_style="bold", title_justify="left", box=None,
              pad_edge=False)
    for col in ("", "figure", "measured", "predicted", "measured/predicted"):
        t.add_column(col, justify="left" if col in ("", "figure") else "right")
    show = {"iops": format_ops, "bandwidth": format_rate, "latency.mean": format_duration}
    for r in rows(doc, doc["predicted"]):
        fmt = show[r.figure]
        t.add_row(r.scope, r.figure, fmt(r.measured) if r.measured is not None else "-",
                  fmt(r.predicted) if r.predicted is not None else "-",
                  f"{r.ratio:.2f}" if r.ratio is not None else "-")
    return t


def record_view(record: RunRecord, db: Path) -> list[RenderableType]:
    """A run: a heading, its figures, the prediction beside them, where it is stored."""
    doc = record.to_json()
    head = f"[bold]run {record.run_id}[/] {record.status}"
    if record.target:
        head += f" on {record.target}"
    if record.fstype:
        head += f" ({record.fstype})"
    out: list[RenderableType] = [head]
    if record.measured is not None or record.hosts:
        out.append(figures_table(doc))
    if record.predicted is not None and record.measured is not None:
        out.append(comparison_table(doc))
    out.append(f"[dim]stored in {db}[/]")
    return out


def sweep_view(sweep: Sweep, db: Path, latency_target: float | None, percentile: float) -> list[RenderableType]:
    """A sweep: its curve (measured and, when predicted, the prediction) and its knee."""
    t = Table(title=f"sweep {sweep.sweep_id}", header_style="bold", title_justify="left")
    predicted = any(p.predicted for p in sweep.curve)
    cols = ["point", "IOPS", "bandwidth", "mean lat", "p99", "run"] + (["predicted IOPS", "ratio"] if predicted else [])
    for col in cols:
        t.add_column(col, justify="left" if col == "point" else "right")
    for p in sweep.curve:
        mark = " ◀ knee" if sweep.knee is p else ""
        row = [p.label + mark, _ops(p.iops), format_rate(p.bandwidth), _lat(p.latency, "mean"),
               _lat(p.latency, "p99"), f"{p.run_id} {p.status if p.status != 'ok' else ''}".strip()]
        if predicted:
            piops = (p.predicted or {}).get("iops")
            row += [_ops(piops) if piops else "-", f"{p.iops / piops:.2f}" if piops else "-"]
        t.add_row(*row)
    if sweep.knee is None:
        why = (f"no point meets p{percentile:g} ≤ {format_duration(latency_target)}" if latency_target is not None
               else "IOPS kept growing by 10 % or more (or latency fell) between points")
        knee = f"[bold]Knee:[/] none — {why}."
    elif latency_target is not None:
        knee = (f"[bold]Knee:[/] {sweep.knee.label}: the highest IOPS ({format_ops(sweep.knee.iops)}) "
                f"whose p{percentile:g} latency meets {format_duration(latency_target)}.")
    else:
        knee = (f"[bold]Knee:[/] {sweep.knee.label} ({format_ops(sweep.knee.iops)}): past it IOPS grew "
                "less than 10 % while latency grew.")
    return [t, knee, f"[dim]stored in {db}[/]"]


def plot_sweep(path: Path, sweep: Sweep, title: str) -> None:
    """Draw the sweep's latency against IOPS: measured points, the prediction's curve when
    the runs carry one, and the knee (matplotlib Agg; .png or .svg)."""
    from ..plot import CurvePoint, latency_curve

    def pt(p: Any, iops: float, lat: float | None) -> CurvePoint:
        return CurvePoint(p.label, iops, lat or 0.0)

    measured = [pt(p, p.iops, p.latency.get("mean")) for p in sweep.curve if p.status == "ok"]
    series = [("measured", measured)]
    predicted = [pt(p, p.predicted["iops"], p.predicted.get("latency", {}).get("mean"))
                 for p in sweep.curve if p.predicted and p.predicted.get("iops")]
    if predicted:
        series.append(("predicted", predicted))
    knee = pt(sweep.knee, sweep.knee.iops, sweep.knee.latency.get("mean")) if sweep.knee else None
    latency_curve(path, series, title=title, knee=knee)
