"""`iolab serve`: the what-if, plan and results pages in a browser, served on this machine."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..errors import InputError
from .bench import DB_OPTION
from .common import CATALOG_OPTION


def serve(
    scenario: Optional[Path] = typer.Argument(None, metavar="[SCENARIO]", help="A scenario the what-if page "
                                              "opens with (default: four P30 disks behind a Standard_DS13)."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="H", help="The address to listen on; any other than "
                             "loopback requires the access token printed at start."),
    port: int = typer.Option(8765, "--port", metavar="P", min=0, max=65535, help="TCP port (0: any free one)."),
    db: Optional[Path] = DB_OPTION,
    allow_bench: bool = typer.Option(False, "--allow-bench", help="Let the page ask for benchmark runs (off: the "
                                     "page only reads stored runs)."),
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Serve the what-if, plan and results pages; the first line says where."""
    from ..catalog import load_catalog
    from ..filekind import expect
    from ..inputs import read_text
    from ..web.app import Settings
    from ..web.jobs import predict_text
    from ..web.server import serve as run

    if not host.strip():
        raise InputError("expected an address to listen on, such as 127.0.0.1", field="--host")
    load_catalog(list(catalog or ()))  # a bad catalog file is refused before anything listens
    text, name = None, "scenario.yaml"
    if scenario is not None:
        expect(scenario, "scenario")
        text, name = read_text(scenario), str(scenario)
        predict_text(text, name, catalog or ())  # a bad scenario is refused here, exit 2, naming its field
    run(Settings(db=db, catalog=tuple(catalog or ()), allow_bench=allow_bench, scenario=text, scenario_name=name),
        host, port)
