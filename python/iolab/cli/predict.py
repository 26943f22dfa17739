"""`iolab predict`: Predict IOPS, bandwidth and latency of a scenario by mean value analysis, and what limits it."""

from pathlib import Path

import typer

from ..errors import RunError


def predict(file: Path = typer.Argument(..., help="The file to read.")) -> None:
    """Predict IOPS, bandwidth and latency of a scenario by mean value analysis, and what limits it."""
    raise RunError("`iolab predict` is not built yet")
