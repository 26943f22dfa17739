"""`iolab simulate`: Simulate a scenario event by event: latency percentiles and behaviour over time."""

from pathlib import Path

import typer

from ..errors import RunError


def simulate(file: Path = typer.Argument(..., help="The file to read.")) -> None:
    """Simulate a scenario event by event: latency percentiles and behaviour over time."""
    raise RunError("`iolab simulate` is not built yet")
