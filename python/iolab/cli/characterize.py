"""`iolab characterize`: telemetry (iostat, sar, PerfMon, diskstats, mountstats, fio logs,
stored runs) to percentiles per device and combined, busy windows, a plot and a
requirements file that `iolab plan` reads."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..errors import SchemaError
from ..units import format_duration, format_ops, format_rate, format_size
from .bench import DB_OPTION
from .pairing import refuse_alone
from .common import JSON_OPTION, console, err_console, print_json


def characterize(
    files: Optional[list[Path]] = typer.Argument(None, help="Telemetry files (format detected by content).",
                                                 show_default=False, metavar="[FILE...]"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE",
                                          help="Write the requirements file here (for iolab plan)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    percentile: float = typer.Option(95.0, "--percentile", min=1.0, max=100.0, metavar="P",
                                     help="The percentile of the combined load to size on."),
    comfort: float = typer.Option(1.3, "--comfort", min=0.1, max=100.0, metavar="F",
                                  help="Multiply the sized load by this comfort factor."),
    device: Optional[list[str]] = typer.Option(None, "--device", metavar="NAME",
                                               help="Combine only these devices (repeatable).", show_default=False),
    interval: Optional[str] = typer.Option(None, "--interval", metavar="DURATION",
                                           help="Sampling interval with --live (default 5s); time between "
                                                "reports of files without times.", show_default=False),
    live: Optional[str] = typer.Option(None, "--live", metavar="DEVICE|MOUNT",
                                       help="Sample this block device or mount point now instead of files."),
    duration: Optional[str] = typer.Option(None, "--duration", metavar="DURATION", help="How long --live samples "
                                           "(default 10m).", show_default=False),
    plot: Optional[Path] = typer.Option(None, "--plot", metavar="FILE",
                                        help="Draw the time series (.png or .svg)."),
    db: Optional[Path] = DB_OPTION,
    store: bool = typer.Option(True, "--store/--no-store",
                               help="Save the characterization in the results database like a run."),
    json_: bool = JSON_OPTION,
) -> None:
    """Characterize a workload from telemetry: percentiles, busy windows, a requirements file."""
    from ..plot import check_plot_path
    from ..service.characterize import CharacterizeOptions, characterize_files

    step = _duration(interval, "--interval") if interval is not None else None
    if plot is not None:
        check_plot_path(plot)
    if output is not None:
        from ..outputs import check_output

        check_output(output, force=force)
    else:
        refuse_alone("--force", force, "with --output FILE (it replaces an existing one)")
    if not store:
        refuse_alone("--db", db, "with --store, the default (the database the characterization is saved in)")
    options = CharacterizeOptions(percentile=percentile, comfort=comfort, devices=tuple(device or ()), interval=step,
                                  output=output, force=force, plot=plot, store=store, db=db)
    if live is not None:
        if files:
            raise SchemaError("give telemetry files or --live, not both", field="--live")
        if device:
            raise SchemaError("--device picks among the devices of telemetry files; --live samples one device or "
                              "mount already: give it there (--live DEVICE|MOUNT)", field="--device")
        trace = _live(live, _duration(duration or "10m", "--duration"), step or 5.0, quiet=json_)
        result = characterize_files([], options, trace=trace)
    else:
        refuse_alone("--duration", duration, "with --live (how long it samples)")
        if not files:
            raise SchemaError("give one or more telemetry files (or --live DEVICE|MOUNT)", field="FILE")
        result = characterize_files(list(files), options)
    p, run_id = result.profile, result.run_id
    if json_:
        print_json(result.to_json())
        return
    _print(p)
    if output is not None:
        console.print(f"requirements written to {output} (`iolab plan {output}`)")
    if plot is not None:
        console.print(f"plot written to {plot}")
    if run_id is not None:
        console.print(f"stored as run {run_id} (`iolab results show {run_id}`)")


def _duration(text: str, option: str) -> float:
    """A positive duration option, at most a year (a longer step or sampling makes no series)."""
    from ..bench.source import duration_option
    from ..schema import MAX_DURATION

    return duration_option(text, option, positive=True, most=MAX_DURATION)


def _live(spec: str, duration: float, interval: float, *, quiet: bool):
    from rich.live import Live

    from ..telemetry import Trace
    from ..telemetry.live import resolve_target, sample_live

    target = resolve_target(spec)
    trace = Trace()
    rows: list = []

    def view() -> Table:
        t = Table(title=f"{target.name}: {len(rows)} samples of {interval:g} s (Ctrl-C stops and keeps them)",
                  header_style="bold", title_justify="left")
        for col in ("time", "read IOPS", "write IOPS", "read", "write", "r_await", "w_await", "aqu-sz"):
            t.add_column(col, justify="right")
        for s in rows[-10:]:
            t.add_row(f"{s.time - rows[0].time + s.interval:.1f} s", f"{s.r_iops:,.0f}", f"{s.w_iops:,.0f}",
                      format_rate(s.r_bw), format_rate(s.w_bw), _lat(s.r_lat), _lat(s.w_lat),
                      f"{s.queue:.2f}" if s.queue is not None else "-")
        return t

    if quiet or not console.is_terminal:
        sample_live(target, duration=duration, interval=interval, trace=trace, on_sample=rows.append)
        return trace
    with Live(view(), console=err_console, refresh_per_second=4, transient=False) as lv:
        def on(s) -> None:
            rows.append(s)
            lv.update(view())
        sample_live(target, duration=duration, interval=interval, trace=trace, on_sample=on)
    return trace


def _lat(v: float | None) -> str:
    return "-" if v is None else format_duration(v)


def _print(p) -> None:
    from ..telemetry.profile import point_key

    key = point_key(p.percentile)
    pts = [point_key(x) for x in p.points]
    c = p.combined
    console.print(f"[bold]Characterization[/] of {', '.join(s['file'] for s in p.trace.sources)}: "
                  f"{len(p.series)} samples, combined over {', '.join(p.devices)}")
    t = Table(header_style="bold", title="combined", title_justify="left")
    t.add_column("metric")
    for k in pts + ["max", "mean"]:
        t.add_column(k.upper() if k.startswith("p") else k, justify="right")

    def row(label: str, block: dict | None, fmt) -> None:
        if block:
            t.add_row(label, *[fmt(block[k]) for k in pts + ["max", "mean"]])

    row("read IOPS", c["read"]["iops"], lambda v: f"{v:,.0f}" if v >= 10 else f"{v:.3g}")
    row("write IOPS", c["write"]["iops"], lambda v: f"{v:,.0f}" if v >= 10 else f"{v:.3g}")
    row("total IOPS", c["total"]["iops"], lambda v: f"{v:,.0f}" if v >= 10 else f"{v:.3g}")
    row("read MB/s", c["read"]["bandwidth"], lambda v: f"{v / 1e6:.3g}")
    row("write MB/s", c["write"]["bandwidth"], lambda v: f"{v / 1e6:.3g}")
    row("read IO size", c["read"]["io_size"], format_size)
    row("write IO size", c["write"]["io_size"], format_size)
    row("read latency", c["read"]["latency"], format_duration)
    row("write latency", c["write"]["latency"], format_duration)
    row("read share", c["read_share"], lambda v: f"{v:.0%}")
    row("queue depth", c["queue_depth"], lambda v: f"{v:.2f}")
    row("utilization", c["utilization"], lambda v: f"{v:.0%}")
    if "rpc_ops" in c:
        row("NFS RPCs/s", c["rpc_ops"], lambda v: f"{v:,.0f}")
    console.print(t)
    if len(p.per_device) > 1:
        d = Table(header_style="bold", title=f"per device (P{p.percentile:g})", title_justify="left")
        for col in ("device", "samples", "IOPS", "bandwidth", "read share", "r_await", "w_await", "queue"):
            d.add_column(col, justify="left" if col == "device" else "right")
        for name, f in p.per_device.items():
            d.add_row(name + ("" if name in p.devices else " (not combined)"), str(f["samples"]),
                      format_ops(f["total"]["iops"][key]), format_rate(f["total"]["bandwidth"][key]),
                      f"{f['read_fraction']:.0%}" if f["read_fraction"] is not None else "-",
                      _lat(f["read"]["latency"][key] if f["read"]["latency"] else None),
                      _lat(f["write"]["latency"][key] if f["write"]["latency"] else None),
                      f"{f['queue_depth'][key]:.2f}" if f["queue_depth"] else "-")
        console.print(d)
    if p.busy:
        console.print(f"[bold]Busy windows[/] (combined IOPS or bandwidth at or above P{p.percentile:g}):")
        t0 = p.series[0].time - p.series[0].interval
        for w in p.busy:
            when = _when(w["start"], p.trace.absolute, t0)
            console.print(f"  {when} for {format_duration(w['duration'])}: peak {format_ops(w['peak_iops'])}, "
                          f"{format_rate(w['peak_bandwidth'])}")
    r = p.requirements["require"]
    job = p.requirements["jobs"][0]
    console.print(f"[bold]Requirements[/] (P{p.percentile:g} × {p.comfort:g}): "
                  + ", ".join(([format_ops(r["iops"])] if "iops" in r else [])
                              + ([format_rate(r["bandwidth"])] if "bandwidth" in r else [])
                              + ([format_size(r["capacity"])] if "capacity" in r else []))
                  + f"; {job['rw']} {job.get('rwmixread', 100 if job['rw'] == 'randread' else 0)}% reads, "
                    f"bs {job['bs']}, iodepth {job['iodepth']}")
    for n in p.notes:
        console.print(f"[dim]note: {n}[/]")


def _when(start: float, absolute: bool, t0: float) -> str:
    if absolute:
        from datetime import datetime, timezone
        return datetime.fromtimestamp(start, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return f"+{format_duration(start - t0) if start > t0 else '0 s'}"
