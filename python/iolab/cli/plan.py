"""`iolab plan`: Find the cheapest configuration that meets a requirements file, and say why."""

from pathlib import Path

import typer

from ..errors import RunError


def plan(file: Path = typer.Argument(..., help="The file to read.")) -> None:
    """Find the cheapest configuration that meets a requirements file, and say why."""
    raise RunError("`iolab plan` is not built yet")
