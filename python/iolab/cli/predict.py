"""`iolab predict`: IOPS, bandwidth and latency of a scenario by mean value analysis, and what
limits it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..errors import SchemaError
from ..plot import CurvePoint, check_plot_path, latency_curve
from ..units import format_duration, format_ops, format_rate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..prediction import Prediction

from .common import CATALOG_OPTION, JSON_OPTION, console, print_json

KIND_WORDS = {
    "disk": "the disks limit", "vm": "the VM's uncached limit caps", "vm-cache": "the VM's cached limit caps",
    "network": "the VM's network egress caps", "connection": "the client's connections limit",
    "session": "the NFSv4.1 session slots limit", "service": "the service's throughput limit caps",
    "device": "the device limits", "client": "the client limits",
}


#: the most points one sweep predicts.
MAX_SWEEP_POINTS = 1000


def parse_sweep(text: str) -> tuple[str, list[int]]:
    """``iodepth=1,2,4`` → ("iodepth", [1, 2, 4]); at most :data:`MAX_SWEEP_POINTS` values,
    each within fio's range (``iolab.fio.job.LIMITS``)."""
    from ..fio.job import LIMITS
    from ..prediction import SWEEPABLE

    name, sep, values = text.partition("=")
    if not sep or name not in SWEEPABLE:
        raise SchemaError(f"expected {' or '.join(SWEEPABLE)}=V1,V2,... (got {text!r})", field="--sweep")
    try:
        out = [int(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise SchemaError(f"sweep values must be whole numbers (got {values!r})", field="--sweep") from None
    if not out or any(v < 1 for v in out):
        raise SchemaError("sweep values must be whole numbers of at least 1", field="--sweep")
    high = LIMITS[name]
    if any(v > high for v in out):
        raise SchemaError(f"{name} must be at most {high}, got {max(out)}", field="--sweep")
    if len(out) > MAX_SWEEP_POINTS:
        raise SchemaError(f"{len(out)} values; a sweep takes at most {MAX_SWEEP_POINTS}", field="--sweep")
    return name, out


def _bar(u: float, width: int = 20) -> str:
    filled = min(width, int(round(min(u, 1.0) * width)))
    return "█" * filled + "░" * (width - filled)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def explain(p: Prediction) -> str:
    """The bottleneck in one sentence."""
    b = p.solution.bottleneck
    if b.kind == "concurrency":
        return (f"Nothing is saturated (busiest resource {b.utilization:.0%}): the workload keeps too few IOs "
                f"in flight ({p.solution.outstanding:g}); keep at least "
                f"{p.solution.knee_outstanding:.0f} to reach {format_ops(p.upper_iops)}.")
    if b.kind in ("session", "connection") and b.id.startswith("s"):
        return (f"{_cap(KIND_WORDS.get(b.kind, b.kind))} it: {b.label} has {b.utilization:.1f}× "
                "as many IOs wanting in as it has slots; the rest wait at the client.")
    return f"{_cap(KIND_WORDS.get(b.kind, b.kind))} it: {b.label} is {b.utilization:.1%} busy."


def _print(p: Prediction, path: Path) -> None:
    console.print(f"[bold]Prediction[/] for {path}")
    head = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("", "IOPS", "bandwidth", "mean latency"):
        head.add_column(col, justify="right" if col else "left")
    head.add_row("total", format_ops(p.iops), format_rate(p.bandwidth), format_duration(p.latency))
    for d in ("read", "write"):
        f = p.direction(d)
        if f:
            head.add_row(d, format_ops(f["iops"]), format_rate(f["bandwidth"]), format_duration(f["latency"]["mean"]))
    jobs = p.jobs()
    if len(jobs) > 1:
        for j in jobs:
            head.add_row(f"job {j['name']}", format_ops(j["iops"]), format_rate(j["bandwidth"]),
                         format_duration(j["latency"]["mean"]))
    console.print(head)
    res = Table(title="resources", show_header=True, header_style="bold", title_justify="left")
    res.add_column("resource")
    res.add_column("kind")
    res.add_column("utilization", justify="right")
    res.add_column("")
    for r in sorted(p.solution.resources, key=lambda r: -r.utilization):
        res.add_row(r.label, r.kind, f"{r.utilization:.1%}", _bar(r.utilization))
    for s in p.solution.slots:
        res.add_row(s.label, s.kind, f"{s.wanted:g}/{s.slots} slots", _bar(s.wanted / s.slots))
    console.print(res)
    console.print(f"[bold]Bottleneck:[/] {explain(p)}")
    console.print(f"[bold]Knee:[/] keep at least {p.solution.knee_outstanding:.0f} IOs in flight to reach "
                  f"{format_ops(p.upper_iops)}; beyond that latency grows linearly "
                  f"(now {p.solution.outstanding:g} in flight).")
    burst = p.solution.burst
    if burst is not None:
        lasts = "indefinitely at this load" if burst.duration is None else f"for {format_duration(burst.duration)}"
        console.print(f"[bold]Burst:[/] while credits last ({', '.join(burst.resources)}): "
                      f"{format_ops(burst.iops)}, {format_rate(burst.bandwidth)}, {format_duration(burst.latency)}; "
                      f"a full bucket lasts {lasts}.")
    for note in p.network.notes:
        console.print(f"[dim]note: {note}[/]")
    if p.scenario.ignored:
        console.print(f"[dim]fio options accepted but not modelled: {', '.join(p.scenario.ignored)}[/]")


def predict(
    scenario: Path = typer.Argument(..., help="The scenario file (YAML)."),
    json_: bool = JSON_OPTION,
    sweep: Optional[str] = typer.Option(None, "--sweep", help="Predict a curve: iodepth=1,2,4,... or numjobs=..."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw latency against IOPS (.png or .svg)."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Predict IOPS, bandwidth and latency of a scenario by mean value analysis, and what limits it."""
    from ..prediction import predict as run_predict, sweep as run_sweep
    from ..scenario import load_scenario

    if plot is not None:
        check_plot_path(plot)
    s = load_scenario(scenario, catalog or ())
    base = run_predict(s)
    points = None
    if sweep is not None:
        name, values = parse_sweep(sweep)
        points = [(f"{name}={v}", pr) for v, pr in run_sweep(s, name, values)]
    elif plot is not None:
        knee = max(1.0, base.solution.knee_outstanding)
        depth = max(1, int(base.solution.outstanding // max(1, sum(j.fio.numjobs for j in s.jobs))))
        top = max(depth, int(4 * knee / max(1, len(s.jobs))))
        values, v = [], 1
        while v <= top:
            values.append(v)
            v *= 2
        points = [(f"iodepth={v}", pr) for v, pr in run_sweep(s, "iodepth", values)]
    if plot is not None and points:
        curve = [CurvePoint(label, pr.iops, pr.latency) for label, pr in points]
        knee_pt = _curve_knee(curve, base)
        latency_curve(plot, [("predicted", curve)], title=f"{scenario.name}: predicted latency vs IOPS",
                      knee=knee_pt, knee_label=f"knee ≈ {base.solution.knee_outstanding:.0f} in flight")
    if json_:
        doc = base.to_json()
        if points is not None:
            doc["points"] = [{"params": {label.split("=")[0]: int(label.split("=")[1])}, **pr.to_json()}
                             for label, pr in points]
        if plot is not None:
            doc["plot"] = str(plot)
        print_json(doc)
        return
    _print(base, scenario)
    if points is not None:
        t = Table(title="curve", header_style="bold", title_justify="left")
        for col in ("point", "in flight", "IOPS", "bandwidth", "mean latency", "bottleneck"):
            t.add_column(col, justify="left" if col in ("point", "bottleneck") else "right")
        for label, pr in points:
            t.add_row(label, f"{pr.solution.outstanding:g}", format_ops(pr.iops), format_rate(pr.bandwidth),
                      format_duration(pr.latency), f"{pr.solution.bottleneck.kind}")
        console.print(t)
    if plot is not None:
        console.print(f"plot written to {plot}")


def _curve_knee(curve: list[CurvePoint], base: Prediction) -> CurvePoint | None:
    """The first point at or past the knee's IOPS level (95 % of the bound)."""
    for pt in curve:
        if pt.iops >= 0.95 * base.upper_iops:
            return pt
    return curve[-1] if curve else None
