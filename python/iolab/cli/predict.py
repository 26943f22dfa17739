"""`iolab predict`: IOPS, bandwidth and latency of a scenario by mean value analysis, and what
limits it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..errors import SchemaError
from ..filekind import expect
from ..plot import CurvePoint, check_plot_path, latency_curve
from ..units import format_duration, format_ops, format_rate, parse_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..prediction import Prediction

from ..traps import traps_of
from .pairing import refuse_alone
from .common import ALL_APPLIES, ALL_OPTION, CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, fold, in_order, print_json, warn

KIND_WORDS = {
    "disk": "the disks limit", "vm": "the VM's uncached limit caps", "vm-cache": "the VM's cached limit caps",
    "network": "the VM's network egress caps", "connection": "the client's connections limit",
    "session": "the NFSv4.1 session slots limit", "service": "the service's throughput limit caps",
    "device": "the device limits", "client": "the client limits", "cpu": "the client's cores limit",
    "receive": "what the VM can receive caps",
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
        raise SchemaError(f"expected {' or '.join(f'{n}=V1,V2,...' for n in SWEEPABLE)} (got {text!r})", field="--sweep")
    def whole(v: str) -> int:
        try:
            return int(v)
        except ValueError:
            raise SchemaError(f"sweep values must be whole numbers (got {values!r})", field="--sweep") from None

    out = parse_points(text, whole, field="--sweep") if values.strip() else []
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


def _group_iops(p: Prediction) -> dict[str, float]:
    out: dict[str, float] = {}
    for j in p.network.jobs:
        out[j.group] = out.get(j.group, 0.0) + p.solution.job_iops.get(j.name, 0.0)
    return out


def _rate_bound(p: Prediction) -> list[tuple[str, float]]:
    """Jobs held by fio's rate limit when no resource saturates."""
    from ..readout import rate_bound

    return rate_bound(p.network, _group_iops(p)) if p.solution.bottleneck.kind == "concurrency" else []


def explain(p: Prediction) -> str:
    """The bottleneck in one sentence."""
    from ..readout import rate_words, think_words

    b = p.solution.bottleneck
    if b.kind == "concurrency":
        bound = _rate_bound(p)
        if bound:
            return f"{_cap(rate_words(bound))} (busiest resource {b.utilization:.0%})."
        thinking = think_words(p.network)
        if thinking:
            return f"{_cap(thinking)} (busiest resource {b.utilization:.0%}); {_reach(p)}."
        return (f"Nothing is saturated (busiest resource {b.utilization:.0%}): the workload keeps too few IOs "
                f"in flight ({p.solution.outstanding:g}); {_reach(p)}.")
    if b.id.startswith("s"):
        words = KIND_WORDS.get(b.kind, b.kind) if b.kind in ("session", "connection") else "slots limit"
        return (f"{_cap(words)} it: {b.label} has {b.utilization:.1f}× "
                "as many IOs wanting in as it has slots; the rest wait at the client.")
    return f"{_cap(KIND_WORDS.get(b.kind, b.kind))} it: {b.label} is {b.utilization:.1%} busy."


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


def _reach(p: Prediction) -> str:
    """How many IOs in flight give 90 % of the most the path allows (as a sweep would show)."""
    if p.reach_90 is None:
        return f"no concurrency reaches 90 % of {format_ops(p.upper_iops)}"
    return (f"about {p.reach_90:.0f} in flight give 90 % of the most the path allows "
            f"({format_ops(0.9 * p.upper_iops)} of {format_ops(p.upper_iops)})")


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
    rows = [[r.label, r.kind, f"{r.utilization:.1%}", _bar(r.utilization)]
            for r in sorted(p.solution.resources, key=lambda r: -r.utilization)]
    rows += [[s.label, s.kind, f"{s.wanted:g}/{s.slots} slots", _bar(s.wanted / s.slots)] for s in p.solution.slots]
    for row in (rows if show_all else fold(rows)):
        res.add_row(*row)
    console.print(res)
    console.print(f"[bold]Bottleneck:[/] {explain(p)}")
    for d in p.solution.load:
        if d.delay > 0:
            console.print(f"[bold]Load:[/] {d.label} is {d.utilization:.0%} busy: its latency includes "
                          f"{format_duration(d.delay)} of load delay on top of the unloaded figure.")
    if _rate_bound(p):
        console.print(f"[bold]Knee:[/] without the rate limit, {p.solution.knee_outstanding:.0f} IOs in flight would "
                      f"reach {format_ops(p.upper_iops)}.")
    else:
        console.print(f"[bold]Knee:[/] {p.solution.knee_outstanding:.0f} IOs in flight (unloaded latency × the "
                      f"most IOPS); {_reach(p)}; beyond the knee latency grows about linearly "
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
    sweep: Optional[str] = typer.Option(None, "--sweep", help="Predict a curve: iodepth=1,2,4,... or numjobs=..."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw latency against IOPS (.png or .svg)."),
    all_: bool = ALL_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
) -> None:
    """Predict IOPS, bandwidth and latency of a scenario by mean value analysis, and what limits it."""
    from ..prediction import predict_file, sweep as run_sweep
    from ..scenario import load_scenario

    if json_:
        refuse_alone("--all", all_, ALL_APPLIES)
    if plot is not None:
        check_plot_path(plot)
    expect(scenario, "scenario")
    s = load_scenario(scenario, catalog or ())
    if calibration is not None:
        from ..calibrate import apply_calibration

        s = apply_calibration(s, calibration)
    warnings = warn(traps_of(s))
    preds, durations = predict_file(s)
    if len(preds) > 1:
        if sweep is not None or plot is not None:
            raise SchemaError(f"--sweep and --plot take jobs that run together; this file runs in {len(preds)} "
                              "phases (stonewall, wait_for)", field="--sweep" if sweep is not None else "--plot")
        _print_phases(preds, durations, scenario, json_, warnings, all_)
        return
    base = preds[0]
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
        order = [j.name for j in s.jobs]
        doc["jobs"] = in_order(doc["jobs"], order, lambda j: j["name"])
        if points is not None:
            doc["points"] = [{"params": {label.split("=")[0]: int(label.split("=")[1])}, **pr.to_json()}
                             for label, pr in points]
            for point in doc["points"]:
                point["jobs"] = in_order(point["jobs"], order, lambda j: j["name"])
        if plot is not None:
            doc["plot"] = str(plot)
        doc["warnings"] = warnings
        print_json(doc)
        return
    _print(base, scenario, all_)
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


def _print_phases(preds: list[Prediction], durations: list[float | None], path: Path, json_: bool,
                  warnings: list | None = None, show_all: bool = False) -> None:
    """A file whose jobs run in phases: each phase's prediction, then the file's total."""
    from ..prediction import file_json

    doc = file_json(preds, durations)
    doc["warnings"] = warnings or []
    if json_:
        print_json(doc)
        return
    for k, (p, d) in enumerate(zip(preds, durations), 1):
        lasts = f", {format_duration(d)}" if d is not None else ""
        console.print(f"[bold]Phase {k}[/] ({', '.join(j.name for j in p.scenario.jobs)}{lasts})")
        _print(p, path, show_all)
    weights = "their durations" if all(d is not None for d in durations) else "equal weights (durations unknown)"
    console.print(f"[bold]File total[/] ({len(preds)} phases one after another, weighed by {weights}): "
                  f"{format_ops(doc['iops'])}, {format_rate(doc['bandwidth'])}, "
                  f"{format_duration(doc['latency']['mean'])} mean latency.")


def _curve_knee(curve: list[CurvePoint], base: Prediction) -> CurvePoint | None:
    """The first point at or past the knee's IOPS level (95 % of the bound)."""
    for pt in curve:
        if pt.iops >= 0.95 * base.upper_iops:
            return pt
    return curve[-1] if curve else None
