"""`iolab plan`: the cheapest configuration that meets a requirements file, and why the others lost."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..plan import Plan, PoolResult
    from ..service.plan import PlanOptions, PlanResult

from ..units import format_count, format_duration, format_money, format_ops, format_percent, format_rate, format_size
from .pairing import given
from .pricing import PRICING_OPTION, PricingModel
from .common import CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, err_console, print_json, warn

TOP_OPTION = typer.Option(5, "--top", min=1, max=100, help="How many configurations to rank.")
REGION_OPTION = typer.Option(None, "--region", help="The region whose prices to use: an Azure region (eastus), a "
                             "Google Cloud one (us-central1) or an AWS one (us-east-1); its cloud's parts alone are searched. Default: eastus, "
                             "or the default region of the cloud the requirements' parts name.", metavar="REGION")
CHECK_TOP_OPTION = typer.Option(10, "--check-top", min=1, max=1000,
                                help="With latency percentiles required: how many of the cheapest candidates "
                                     "that pass on means to simulate.")
SIM_IOS_OPTION = typer.Option(None, "--sim-ios", min=100, max=10**12,
                              help="Measured IOs per replication of each simulation (default: about "
                                   "100 beyond the highest percentile bounded, at least 10,000).")
REPLICATIONS_OPTION = typer.Option(5, "--replications", min=2, max=100,
                                   help="Replications per simulated candidate (for the 95% interval).")
SEED_OPTION = typer.Option(1, "--seed", min=0, max=2**64 - 1,
                           help="Seed of the simulations (the same seed, the same plan).")


def plan_options(ctx: typer.Context, *, top: int | None, region: str | None, check_top: int | None, sim_ios: int | None,
                 replications: int | None, seed: int | None, calibration: Path | None,
                 pricing: "PricingModel | None" = None, progress=None) -> "PlanOptions":
    """The plan service's options from a command line: an option the command line did not
    name is left to the service's default (and one it named where it has no effect is
    refused by the service)."""
    from ..service.plan import PlanOptions

    def named(option: str, value):
        return value if given(ctx, option) else None

    return PlanOptions(top=named("--top", top), region=region, pricing=pricing.value if pricing else None,
                       check_top=named("--check-top", check_top),
                       sim_ios=named("--sim-ios", sim_ios), replications=named("--replications", replications),
                       seed=named("--seed", seed), calibration=calibration, progress=progress)


def plan(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="The requirements file (YAML)."),
    json_: bool = JSON_OPTION,
    top: int = TOP_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    region: Optional[str] = REGION_OPTION,
    check_top: int = CHECK_TOP_OPTION,
    sim_ios: Optional[int] = SIM_IOS_OPTION,
    replications: int = REPLICATIONS_OPTION,
    seed: int = SEED_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
    pricing: Optional[PricingModel] = PRICING_OPTION,
) -> None:
    """Find the cheapest configuration that meets a requirements file, and say why the others lost."""
    from ..service.plan import plan_file

    bar = _Bar() if not json_ and sys.stderr.isatty() else None
    options = plan_options(ctx, top=top, region=region, check_top=check_top, sim_ios=sim_ios,
                           replications=replications, seed=seed, calibration=calibration, pricing=pricing,
                           progress=bar)
    try:
        result = plan_file(file, catalog or (), options)
    finally:
        if bar is not None:
            bar.close()
    warnings = warn(list(result.warnings))
    if json_:
        print_json({**result.plan.to_json(), "warnings": warnings})
    else:
        render(result)


def render(result: "PlanResult") -> None:
    """The text of a plan: a pool plan, a machine's, or a disk and share plan."""
    from ..plan import PoolResult

    p = result.plan
    file = Path(result.file)
    if isinstance(p, PoolResult):
        _print_pool(p, file)
    elif result.requirements.workloads:
        _print_machine(p, file)
    else:
        _print(p, file)


class _Bar:
    """A progress bar on stderr while candidates are simulated, started on the first report."""

    def __init__(self) -> None:
        self.progress = None
        self.task = None

    def __call__(self, done: int, total: int, fraction: float) -> None:
        if self.progress is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(TextColumn("simulating candidate {task.fields[which]}"), BarColumn(),
                                     TimeElapsedColumn(), console=err_console, transient=True)
            self.progress.start()
            self.task = self.progress.add_task("sim", total=float(total), which="1")
        self.progress.update(self.task, completed=done + fraction, which=f"{done + 1} of at most {total}")

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _say(x, markup: bool = True) -> None:
    """Print a line or a table. On a terminal as Rich lays it out; elsewhere (a pipe, a
    file) never hard-wrapped: each line, reason and note whole on one line, and a table at
    its full width, one row a line, so that grep finds what it looks for."""
    if console.is_terminal or not isinstance(x, Table):
        console.print(x, markup=markup)  # text: never hard-wrapped off a terminal (cli.common's console)
        return
    width = console.width
    try:
        console.width = 1 << 16  # measured unbounded: Rich never lays a table out wider than the console
        console.width = max(width, console.measure(x).maximum)
        console.print(x)
    finally:
        console.width = width


def _print(p: Plan, file: Path) -> None:
    from ..plan.labels import near_miss_line
    from ..plan.table import words

    req, wl = p.requirements, p.workload
    need = req.require
    assert need is not None
    parts = [f"{format_ops(wl.rate)} ({format_rate(wl.bandwidth)})"]
    if need.latency is not None:
        parts.append(f"mean latency ≤ {format_duration(need.latency)}")
    for key, bound in need.percentiles.items():
        parts.append(f"{key} ≤ {format_duration(bound)} (simulated)")
    if need.capacity is not None:
        parts.append(f"{format_size(need.capacity)} usable")
    parts.append(f"no resource over {format_percent(need.max_utilization)} busy")
    clients = f" across {req.clients} clients" if req.clients > 1 else ""
    _say(f"[bold]Plan[/] for {file}: {wl.describe()} — {', '.join(parts)}{clients}")
    kinds = " and ".join(req.search.kinds)
    _say(f"searched {format_count(p.evaluated)} configurations ({kinds}; prices of {req.region}): "
         f"{format_count(p.feasible)} feasible" + (f" on means; the cheapest {p.checked} simulated" if p.checked else ""))
    if not p.candidates:
        if p.evaluated:
            _say("[bold red]No configuration meets the requirements.[/] The nearest misses, closest first:")
            for m in p.near_misses:
                _say(f"  - {near_miss_line(m.near_json())}", markup=False)
        else:
            _say("[bold red]No configuration can be built from the search space.[/]")
        _excluded(p)
        return
    # Every candidate carries the same (required) IOPS and bandwidth: narrow terminals skip them.
    wide = console.width >= 110 or not console.is_terminal
    t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    keys = list(need.percentiles)
    cols = ("#", "$/month", "configuration") + (("IOPS", "bandwidth") if wide else ()) + \
        ("latency",) + tuple(f"{k} (95% interval)" for k in keys) + ("headroom", "binding")
    for col in cols:
        t.add_column(col, justify="left" if col in ("configuration", "binding") else "right",
                     overflow="fold", no_wrap=col != "configuration")
    for c in p.candidates:
        b = c.prediction.bottleneck
        load = (format_ops(c.prediction.rate).removesuffix(" IOPS"), format_rate(c.prediction.bandwidth)) if wide else ()
        tails = [_tail(c.tail, k) for k in keys]
        t.add_row(str(c.rank), format_money(c.monthly_cost).lstrip("$"), c.config.describe(), *load,
                  _latency(c.prediction.latency), *tails, format_percent(c.headroom),
                  f"{_kind(b.kind)} {format_percent(b.utilization)}")
    _say(t)
    first = p.candidates[0]
    b = first.prediction.bottleneck
    inflight = first.prediction.solution.concurrency
    keep = (f"The workload must keep about {format_count(inflight)} IOs in flight." if math.isfinite(inflight) else
            "At exactly its limit the queue has no bound: require a latency to keep a margin.")
    _say(f"[bold]#1[/] {first.config.describe()} carries the load with {format_percent(first.headroom)} headroom; "
         f"the first limit it meets is {words(b.kind, req.catalog.cloud)} ({b.label}, {format_percent(b.utilization)} "
         f"busy). {keep}")
    if first.bill is not None:
        _say(f"Monthly bill of #1: {_bill(first.bill)}")
    _performance_plus(first.config)
    for note in first.notes:
        _say(f"[dim]note: {note}[/]")
    _explain(p)


def _explain(p) -> None:
    """Why not the others, as every rendering groups them (:func:`iolab.plan.labels.explanations`)."""
    from ..plan.labels import explanations

    groups = explanations(p.to_json())
    if groups:
        _say("[bold]Why not the others[/]")
    for title, lines in groups:
        if title:
            _say(f"  {title}:", markup=False)
        for line in lines:
            _say(f"  - {line}" if title else f"  {line}", markup=False)


def _tail(check, key: str) -> str:
    """A simulated percentile and its interval: ``2.38 ms (2.35–2.42)``."""
    if check is None:
        return "—"
    low_high = check.interval.get(key)
    shown = format_duration(check.estimate[key])
    # a latency is never negative: an interval from few replications can reach below 0
    return shown if low_high is None else f"{shown} ({format_duration(max(0.0, low_high[0]))}–{format_duration(low_high[1])})"


def _performance_plus(config) -> None:
    """How to get #1's disks when they use performance plus."""
    if any(d.performance_plus for d in config.groups()):
        _say("Create its disks with performance plus enabled: it costs nothing more, but can only be set "
                      "when a disk is created (search.performance_plus: false plans without it).")


def _bill(b) -> str:
    """``VM $560.64 + disks $540.68 = $1,101.32`` (parts that cost nothing left out)."""
    parts = [(name, x) for name, x in (("VM", b.vm), ("disks", b.disks), ("shares and pools", b.shares),
                                       ("provisioned IOPS and throughput", b.provisioned)) if x > 0.005]
    return " + ".join(f"{name} {format_money(x)}" for name, x in parts) + f" = {format_money(b.total)}"


def _latency(seconds: float) -> str:
    """A mean latency; a saturated resource (allowed when no latency is required) makes it unbounded."""
    return format_duration(seconds) if math.isfinite(seconds) else "unbounded"


def _kind(kind: str) -> str:
    return {"connection-slots": "slots", "vm-cache": "vm cache"}.get(kind, kind)


def _excluded(p: Plan) -> None:
    if p.excluded:
        _say("  not searched:")
        for text in p.excluded:
            _say(f"  - {text}")


def _print_machine(p, file: Path) -> None:
    """Several workloads on one machine: the VM and a volume for each."""
    from ..plan.labels import near_miss_line
    from ..plan.machine import describe_need

    req = p.requirements
    _say(f"[bold]Plan[/] for {file}: {len(req.workloads)} workloads on one machine, "
                  f"no resource over its workload's max_utilization "
                  f"({', '.join(f'{w.name} {format_percent(w.require.max_utilization)}' for w in req.workloads)})")
    for part, wl in zip(req.workloads, p.parts):
        _say(f"  {describe_need(part, wl)}")
    checked = f"; the cheapest {p.checked} simulated" if p.checked else ""
    _say(f"searched {format_count(p.evaluated)} layouts (prices of {req.region}): {format_count(p.feasible)} feasible{checked}")
    if not p.candidates:
        _say("[bold red]No configuration meets the requirements.[/] The nearest misses, closest first:")
        for m in p.near_misses:
            _say(f"  - {near_miss_line(m.near_json())}", markup=False)
        return
    names = [w.name for w in req.workloads]
    t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("#", "$/month", "configuration", *(f"{n} latency" for n in names), "headroom", "binding"):
        t.add_column(col, justify="left" if col in ("configuration", "binding") else "right", overflow="fold",
                     no_wrap=col != "configuration")
    for c in p.candidates:
        b = c.prediction.bottleneck
        lat = []
        for f in c.workloads:
            text = _latency(f.latency)
            if f.tail is not None:
                text += "; " + ", ".join(f"{k} {format_duration(f.tail.estimate[k])}" for k in f.tail.bounds)
            lat.append(text)
        t.add_row(str(c.rank), format_money(c.monthly_cost).lstrip("$"), c.config.describe(), *lat,
                  format_percent(c.headroom), f"{_kind(b.kind)} {format_percent(b.utilization)}")
    _say(t)
    first = p.candidates[0]
    b = first.prediction.bottleneck
    _say(f"[bold]#1[/] {first.config.describe()} carries every workload with {format_percent(first.headroom)} headroom; "
         f"the busiest resource is {b.label} ({format_percent(b.utilization)} busy).")
    if first.bill is not None:
        _say(f"Monthly bill of #1: {_bill(first.bill)}")
    _performance_plus(first.config)
    for note in first.notes:
        _say(f"[dim]note: {note}[/]")
    _explain(p)


def _print_pool(r: PoolResult, file: Path) -> None:
    pool = r.requirements.pool
    assert pool is not None
    total = sum(v.capacity for v in pool.volumes)
    tp = sum(v.bandwidth for v in pool.volumes)
    count = f"{len(pool.volumes)} volume{'s' if len(pool.volumes) > 1 else ''}"
    _say(f"[bold]Pool plan[/] for {file}: {count} of {pool.service}, "
                  f"{format_size(total)} and {format_rate(tp, binary=True)} in all")
    if r.candidates:
        t = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("#", "$/month", "level", "pool", "budget", "assigned", "spare", "sized by"):
            t.add_column(col, justify="left" if col in ("level", "sized by") else "right")
        for i, c in enumerate(r.candidates, 1):
            t.add_row(str(i), format_money(c.monthly_cost).lstrip("$"), c.level.id, format_size(c.pool),
                      format_rate(c.budget, binary=True), format_rate(c.assigned, binary=True),
                      format_rate(c.budget - c.assigned, binary=True), c.sized_by)
        _say(t)
        best = r.candidates[0]
        _say(f"[bold]#1[/]: the volumes in the {format_size(best.pool)} {best.level.id} pool")
        v = Table(header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("volume", "size", "throughput"):
            v.add_column(col, justify="left" if col == "volume" else "right")
        for vol in best.volumes:
            v.add_row(vol.name + (" (large)" if vol.large else ""), format_size(vol.size),
                      format_rate(vol.throughput, binary=True))
        _say(v)
        spare = best.budget - best.assigned
        if spare > 0:
            _say(f"{format_rate(spare, binary=True)} of the budget is unassigned: give it to any volume.")
    else:
        _say("[bold red]The volumes cannot share a pool at any level searched.[/]")
    _explain(r)
