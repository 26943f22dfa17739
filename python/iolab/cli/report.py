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
) -> None:
    """Write one self-contained HTML report (inline styles and figures, nothing from the network)."""
    from .. import __version__
    from ..report import build, check_output, write_output

    from ..report.build import KINDS

    if kind in KINDS:  # an unknown kind is refused as such first
        if kind != "plan":
            refuse_alone("--top", top, "to plan reports")
        if kind != "predict":
            refuse_alone("--calibration", calibration, "to predict reports")
        if kind not in ("predict", "plan"):
            refuse_alone("--catalog", catalog, "to predict and plan reports")
        if kind not in ("run", "sweep"):
            refuse_alone("--db", db, "to run and sweep reports (the stored runs they read)")
        if kind in ("predict", "plan") and items and all(Path(i).suffix.lower() == ".json" for i in items):
            computed = f"to a {'scenario' if kind == 'predict' else 'requirements file'} (YAML); a JSON item " \
                       f"is iolab {kind}'s output, already computed"
            refuse_alone("--catalog", catalog, computed)
            refuse_alone("--calibration", calibration, computed)
            refuse_alone("--top", top, computed)
    check_output(output, force=force)
    page = build(kind, items, db=db, catalog=catalog or (), calibration=calibration, top=top)
    text = page.html(__version__)
    write_output(output, text, force=force)
    if json_:
        print_json({"output": str(output), "kind": kind, "title": page.title,
                    "sections": [s.title for s in page.sections], "bytes": len(text.encode())})
        return
    console.print(f"report written to {output} ({len(page.sections)} section{'s' if len(page.sections) > 1 else ''}, "
                  f"{len(text.encode()) / 1024:.0f} KiB)")
