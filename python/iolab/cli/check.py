"""`iolab check`: Validate a scenario or requirements file and summarise it."""

from pathlib import Path

import typer

from ..errors import RunError


def check(file: Path = typer.Argument(..., help="The file to read.")) -> None:
    """Validate a scenario or requirements file and summarise it."""
    raise RunError("`iolab check` is not built yet")
