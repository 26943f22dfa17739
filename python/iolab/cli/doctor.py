"""`iolab doctor`: this Linux client's NFS, SMB and block settings against the services'
published guidance, with the model's predicted gain of each fix."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from ..errors import SchemaError
from ..units import format_duration, format_ops, format_rate
from .common import JSON_OPTION, console, print_json, warn

SEVERITY_STYLE = {"fix": "bold red", "warn": "yellow", "info": "cyan"}


def doctor(
    root: Path = typer.Option(Path("/"), "--root", metavar="DIR",
                              help="Read a saved copy of /proc and /sys under DIR instead of this machine."),
    scenario: Optional[Path] = typer.Option(None, "--scenario", metavar="FILE",
                                            help="Predict each fix's gain for this scenario's share volumes."),
    service: Optional[str] = typer.Option(None, "--service", metavar="SERVICE",
                                          help="The service behind NFS/SMB mounts whose server is an address: "
                                               "anf, azure-files or gcnv.", show_default=False),
    json_: bool = JSON_OPTION,
) -> None:
    """Check this client's storage settings against the services' guidance; say what each fix gains."""
    from ..doctor import diagnose, read_system
    from ..doctor.probe import SERVICES
    from ..schema import load_yaml

    if service is not None and service not in SERVICES:
        raise SchemaError(f"expected one of {', '.join(SERVICES)} (got {service!r})", field="--service")
    if not root.is_dir():
        raise SchemaError(f"{str(root)!r} is not a directory", field="--root")
    data = None
    given = service
    if scenario is not None:
        from ..scenario import load_scenario

        load_scenario(scenario)               # validates it, errors name the file and field
        data = load_yaml(scenario)
        if service is None:
            services = {v.get("service") for v in (data.get("volumes") or {}).values() if isinstance(v, dict)} - {None}
            if len(services) == 1:
                service = services.pop()
    system = read_system(root, service=service)
    findings = diagnose(system, data, str(scenario) if scenario else "scenario",
                        scenario.parent if scenario else Path("."))
    unused = []
    if given is not None and not system.hinted:
        from ..input_warnings import Trap

        unused.append(Trap(f"--service {given} changed nothing: no NFS or SMB mount under {root} is served by an "
                           "address (a mount names its service by its server's name, or there is none)", None,
                           "--service"))
    warnings = warn(unused)
    if json_:
        doc = system.to_json()
        doc["findings"] = [f.to_json() for f in findings]
        doc["warnings"] = warnings
        print_json(doc)
        return
    _print(system, findings)


def _print(system, findings) -> None:
    console.print(f"[bold]Doctor[/] for {system.root} (kernel {system.kernel or 'unknown'})")
    if system.mounts:
        t = Table(header_style="bold", title="network file systems", title_justify="left")
        for col in ("mount point", "type", "server", "service", "protocol", "connections", "rsize/wsize",
                    "read-ahead"):
            t.add_column(col)
        for m in system.mounts:
            conns = (f"nconnect={m.nconnect}" + (f" ({m.transports} xprt)" if m.transports else "")) if m.nfs \
                else f"{m.channels or '?'} channel(s)"
            t.add_row(m.mount_point, m.fstype, m.server, m.service, m.protocol, conns,
                      f"{m.options.get('rsize', '-')}/{m.options.get('wsize', '-')}",
                      f"{m.read_ahead_kb} KiB" if m.read_ahead_kb is not None else "-")
        console.print(t)
    rpc = system.sunrpc
    console.print(f"sunrpc: tcp_slot_table_entries {rpc.get('tcp_slot_table_entries') or '?'}, "
                  f"tcp_max_slot_table_entries {rpc.get('tcp_max_slot_table_entries') or '?'}; "
                  f"nfs max_session_slots {system.max_session_slots or '?'}")
    if system.devices:
        t = Table(header_style="bold", title="block devices", title_justify="left")
        for col in ("device", "kind", "scheduler", "nr_requests", "read_ahead_kb", "max_sectors_kb", "stripe"):
            t.add_column(col)
        for d in system.devices:
            stripe = f"{d.chunk_kb} KiB × {len(d.members)}" if d.chunk_kb else (
                f"{len(d.members)} members" if d.members else "-")
            t.add_row(d.name + (f" ({d.dm_name})" if d.dm_name else ""), d.kind + (f" {d.level}" if d.level else ""),
                      d.scheduler or "-", str(d.nr_requests or "-"), str(d.read_ahead_kb or "-"),
                      str(d.max_sectors_kb or "-"), stripe)
        console.print(t)
    if not findings:
        console.print("[green]No finding:[/] every setting checked matches the guidance.")
        return
    console.print(f"[bold]{len(findings)} finding(s)[/]")
    for i, f in enumerate(findings, 1):
        style = SEVERITY_STYLE.get(f.severity, "")
        console.print(f"[{style}]{i}. {f.severity}[/] {f.target}: {f.setting} {f.now} → {f.recommended}")
        console.print(f"   {f.why}")
        console.print(f"   how: {f.how}")
        if f.predicted:
            b, a = f.predicted["before"], f.predicted["after"]
            same = abs(a["iops"] - b["iops"]) <= 1e-6 * max(1.0, b["iops"])
            console.print(f"   predicted ({f.predicted['workload']}): {_fig(b)} → {_fig(a)}"
                          + (" — no gain for this workload" if same else ""))
        console.print(f"   [dim]source: {f.to_json()['source']}[/]")


def _fig(p: dict) -> str:
    lat = p.get("latency", {}).get("mean")
    return (f"{format_ops(p['iops'])}, {format_rate(p['bandwidth'], binary=True)}"
            + (f", {format_duration(lat)}" if lat is not None else "")
            + f" ({p['bottleneck']['kind']}-bound)")
