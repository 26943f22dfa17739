"""`iolab predict`: IOPS, bandwidth and latency of a scenario by mean value analysis, and what
limits it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..bottleneck import explain, reach_text
from ..plot import CurvePoint, check_plot_path, latency_curve
from ..units import format_duration, format_ops, format_percent, format_rate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..prediction import Prediction
    from ..service.predict import PredictResult

from .pairing import refuse_alone
from .common import ALL_APPLIES, ALL_OPTION, CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, fold, in_order, print_json, warn

def _bar(u: float, width: int = 20) -> str:
    filled = min(width, int(round(min(u, 1.0) * width)))
    return "█" * filled + "░" * (width - filled)


def _rate_bound(p: Prediction) -> bool:
    """Whether fio's rate limit holds the jobs (no resource saturates)."""
    return p.bottleneck.why == "rate"


def burst_changes(p: Prediction, within: float = 0.01) -> bool:
    """Whether the burst phase changes a figure by more than `within` (1 %): a burst line
    that changes nothing (a cap with credits behind another limit that binds) is not
    printed. A cap with credits that stays within its sustained rate can still change the
    figures: while it has credits it serves at its burst rate, so its queue and a share's
    load delay (measured against the rate in force) are shorter."""
    burst = p.solution.burst
    if burst is None:
        return False
    return any(abs(a - b) > within * max(abs(b), 1e-12)
               for a, b in ((burst.iops, p.iops), (burst.bandwidth, p.bandwidth), (burst.latency, p.latency)))


def _labels(labels) -> list[str]:
    """Resource labels, alike ones folded (``4 × data: P20 #*``)."""
    return [row[0] for row in fold([[label] for label in labels])]


def _print(p: Prediction, path: Path, show_all: bool = False) -> None:
    console.print(f"[bold]Prediction[/] for {path}")
    head = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("", "IOPS", "bandwidth", "mean latency"):
        head.add_column(col, justify="right" if col else "left")
    head.add_row("total", format_ops(p.iops), format_rate(p.bandwidth), format_duration(p.latency))
    for d in ("read", "write"):
        f = p.direction(d)
        if f:
            head.add_row(d, format_ops(f["iops"]), format_rate(f["bandwidth"]), format_duration(f["latency"]["mean"]))
    jobs = in_order(p.jobs(), [j.name for j in p.scenario.jobs], lambda j: j["name"])
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
    rows = [[r.label, r.kind, f"{format_percent(r.utilization, 1)}", _bar(r.utilization)]
            for r in sorted(p.solution.resources, key=lambda r: -r.utilization)]
    rows += [[s.label, s.kind, f"{s.wanted:g}/{s.slots} slots", _bar(s.wanted / s.slots)] for s in p.solution.slots]
    for row in (rows if show_all else fold(rows)):
        res.add_row(*row)
    console.print(res)
    console.print(f"[bold]Bottleneck:[/] {explain(p)}")
    for d in p.solution.load:
        if d.delay > 0:
            console.print(f"[bold]Load:[/] {d.label} is {format_percent(d.utilization)} busy: its latency includes "
                          f"{format_duration(d.delay)} of load delay on top of the unloaded figure.")
    if not math.isfinite(p.solution.knee_outstanding):
        console.print(f"[bold]Knee:[/] none: nothing caps the path (no IOPS or bandwidth limit), so IOPS grow with "
                      f"every IO in flight at the unloaded latency (now {p.solution.outstanding:g} in flight).")
    elif _rate_bound(p):
        console.print(f"[bold]Knee:[/] without the rate limit, {p.solution.knee_outstanding:.0f} IOs in flight would "
                      f"reach {format_ops(p.upper_iops)}.")
    else:
        console.print(f"[bold]Knee:[/] {p.solution.knee_outstanding:.0f} IOs in flight (unloaded latency × the "
                      f"most IOPS); {reach_text(p)}; beyond the knee latency grows about linearly "
                      f"(now {p.solution.outstanding:g} in flight).")
    burst = p.solution.burst
    if burst is None or not burst_changes(p):
        pass
    elif not burst.spending:
        held = _labels(burst.resources)
        one = len(held) == 1 and not held[0][0].isdigit()
        console.print(f"[bold]Burst:[/] while {', '.join(held)} {'has' if one else 'have'} burst credits "
                      f"{'it serves' if one else 'they serve'} at {'its' if one else 'their'} burst rate (shorter "
                      f"queues and load delay): {format_ops(burst.iops)}, {format_rate(burst.bandwidth)}, "
                      f"{format_duration(burst.latency)}; at this load {'it stays' if one else 'they stay'} within "
                      f"{'its' if one else 'their'} sustained rate, so a full bucket is not drawn down.")
    else:
        lasts = "indefinitely at this load" if burst.duration is None else f"for {format_duration(burst.duration)}"
        idle = _labels([r for r in burst.resources if r not in burst.spending])
        one = len(idle) == 1 and not idle[0][0].isdigit()
        behind = (f" ({', '.join(idle)} {'has' if one else 'have'} credits too, but {'stays' if one else 'stay'} "
                  "within its sustained rate here)") if idle else ""
        console.print(f"[bold]Burst:[/] on the burst credits of {', '.join(_labels(burst.spending))}{behind}: "
                      f"{format_ops(burst.iops)}, {format_rate(burst.bandwidth)}, {format_duration(burst.latency)} "
                      f"while they last; a full bucket lasts {lasts}.")
    for note in p.network.notes:
        console.print(f"[dim]note: {note}[/]")
    if p.scenario.ignored:
        console.print(f"[dim]fio options accepted but not modelled: {', '.join(p.scenario.ignored)}[/]")


def predict(
    scenario: Path = typer.Argument(..., help="The scenario file (YAML)."),
    json_: bool = JSON_OPTION,
    sweep: Optional[list[str]] = typer.Option(None, "--sweep", metavar="OPTION=V1,V2,...",
                                              help="Predict at each value of a job option (bs, rwmixread, iodepth, "
                                                   "numjobs, rate_iops, size) or of nconnect, clients, count; "
                                                   "repeat for a grid.", show_default=False),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw latency against IOPS (.png or .svg)."),
    all_: bool = ALL_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
) -> None:
    """Predict IOPS, bandwidth and latency of a scenario by mean value analysis, and what limits it."""
    from ..service.predict import PredictOptions, predict_file

    if json_:
        refuse_alone("--all", all_, ALL_APPLIES)
    if plot is not None:
        check_plot_path(plot)
    result = predict_file(scenario, PredictOptions(catalog=tuple(catalog or ()), calibration=calibration,
                                                   sweeps=tuple(sweep or ()), plot=plot))
    warn(result.warnings)
    if plot is not None and result.points:
        _draw(plot, result)
    if json_:
        print_json(result.to_json())
        return
    if result.phased:
        _print_phases(result, all_)
        return
    _print(result.prediction, scenario, all_)
    if result.points is not None and result.axes and sweep:
        t = Table(title="curve" if len(result.axes) == 1 else "grid", header_style="bold", title_justify="left")
        for col in ("point", "in flight", "IOPS", "bandwidth", "mean latency", "bottleneck"):
            t.add_column(col, justify="left" if col in ("point", "bottleneck") else "right")
        for pt in result.points:
            pr = pt.prediction
            t.add_row(pt.label, f"{pr.solution.outstanding:g}", format_ops(pr.iops), format_rate(pr.bandwidth),
                      format_duration(pr.latency), f"{pr.solution.bottleneck.kind}")
        console.print(t)
    if plot is not None:
        console.print(f"plot written to {plot}")


def _draw(plot: Path, result: PredictResult) -> None:
    """Latency against IOPS along the first axis: one curve per value of the second axis
    (one curve when there is one axis), the knee marked on a single curve."""
    points = result.points or []
    first = result.axes[0].name
    second = result.axes[1].name if len(result.axes) > 1 else None
    curves: dict[str, list[CurvePoint]] = {}
    for pt in points:
        key = "predicted" if second is None else f"{second}={pt.values[second]}"
        curves.setdefault(key, []).append(CurvePoint(f"{first}={pt.values[first]}", pt.prediction.iops,
                                                     pt.prediction.latency))
    knee = result.knee_point if second is None else None
    base = result.prediction
    latency_curve(plot, list(curves.items()), title=f"{result.source.display}: predicted latency vs IOPS",
                  knee=None if knee is None else CurvePoint(knee.label, knee.prediction.iops, knee.prediction.latency),
                  knee_label=f"knee ≈ {base.solution.knee_outstanding:.0f} in flight")


def _print_phases(result: PredictResult, show_all: bool = False) -> None:
    """A file whose jobs run in phases: each phase's prediction, then the file's total."""
    doc = result.to_json()
    path = result.source.path or Path(result.source.name)
    for k, (p, d) in enumerate(zip(result.phases, result.durations), 1):
        lasts = f", {format_duration(d)}" if d is not None else ""
        console.print(f"[bold]Phase {k}[/] ({', '.join(j.name for j in p.scenario.jobs)}{lasts})")
        _print(p, path, show_all)
    weights = "their durations" if all(d is not None for d in result.durations) else "equal weights (durations unknown)"
    console.print(f"[bold]File total[/] ({len(result.phases)} phases one after another, weighed by {weights}): "
                  f"{format_ops(doc['iops'])}, {format_rate(doc['bandwidth'])}, "
                  f"{format_duration(doc['latency']['mean'])} mean latency.")
