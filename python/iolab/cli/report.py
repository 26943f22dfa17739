"""`iolab report`: one self-contained HTML file for runs, a sweep, a prediction, a plan or a
characterization."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .bench import DB_OPTION
from .pairing import refuse_alone
from .common import CALIBRATION_OPTION, CATALOG_OPTION, JSON_OPTION, console, print_json


def report(
    kind: str = typer.Argument(..., metavar="KIND", help="run, sweep, predict, plan, characterize or calibration."),
    items: list[str] = typer.Argument(..., metavar="ITEM...", help="Run or sweep ids; a scenario or predict JSON; "
                                      "a requirements file or plan JSON; characterize JSON files; calibration files."),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The HTML file to write."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    db: Optional[Path] = DB_OPTION,
    top: Optional[int] = typer.Option(None, "--top", min=1, max=100, help="plan: how many configurations to rank "
                                      "(default 5).", show_default=False),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    calibration: Optional[Path] = CALIBRATION_OPTION,
    json_: bool = JSON_OPTION,
    region: Optional[str] = typer.Option(None, "--region", help="plan: the Azure region whose prices to use "
                                         "(default eastus).", show_default=False),
    check_top: Optional[int] = typer.Option(None, "--check-top", min=1, max=1000, show_default=False,
                                            help="plan: as plan --check-top (default 10)."),
    sim_ios: Optional[int] = typer.Option(None, "--sim-ios", min=100, max=10**12, show_default=False,
                                          help="plan: as plan --sim-ios."),
    replications: Optional[int] = typer.Option(None, "--replications", min=2, max=100, show_default=False,
                                               help="plan: as plan --replications (default 5)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=2**64 - 1, show_default=False,
                                       help="plan: as plan --seed (default 1)."),
) -> None:
    """Write one self-contained HTML report (inline styles and figures, nothing from the network)."""
    from ..service.plan import PlanOptions
    from .. import __version__
    from ..report import build, check_output, write_output

    from ..report.build import KINDS

    if kind in KINDS:  # an unknown kind is refused as such first
        plan_only = {"--top": top, "--region": region, "--check-top": check_top, "--sim-ios": sim_ios,
                     "--replications": replications, "--seed": seed}
        if kind != "plan":
            for option, value in plan_only.items():
                refuse_alone(option, value, "to plan reports")
        if kind not in ("predict", "plan"):
            refuse_alone("--calibration", calibration, "to predict and plan reports")
        if kind not in ("predict", "plan"):
            refuse_alone("--catalog", catalog, "to predict and plan reports")
        if kind not in ("run", "sweep"):
            refuse_alone("--db", db, "to run and sweep reports (the stored runs they read)")
        if kind in ("predict", "plan") and items and all(Path(i).suffix.lower() == ".json" for i in items):
            computed = f"to a {'scenario' if kind == 'predict' else 'requirements file'} (YAML); a JSON item " \
                       f"is iolab {kind}'s output, already computed"
            refuse_alone("--catalog", catalog, computed)
            refuse_alone("--calibration", calibration, computed)
            for option, value in plan_only.items():
                refuse_alone(option, value, computed)
    check_output(output, force=force)
    options = PlanOptions(top=top, region=region or "eastus", check_top=check_top, sim_ios=sim_ios,
                          replications=replications, seed=seed, calibration=calibration)
    page = build(kind, items, db=db, catalog=catalog or (), calibration=calibration, plan=options)
    text = page.html(__version__)
    write_output(output, text, force=force)
    if json_:
        print_json({"output": str(output), "kind": kind, "title": page.title,
                    "sections": [s.title for s in page.sections], "bytes": len(text.encode())})
        return
    console.print(f"report written to {output} ({len(page.sections)} section{'s' if len(page.sections) > 1 else ''}, "
                  f"{len(text.encode()) / 1024:.0f} KiB)")
