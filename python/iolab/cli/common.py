"""Helpers shared by the commands: error handling, JSON output, Rich console."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any

import typer
from rich.console import Console

from ..errors import IolabError

def _width() -> int | None:
    """A terminal's own width; piped output (a file, a pager) gets 140 columns unless COLUMNS
    says otherwise, so that wide tables are not cut to 80."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return None
    return 140


console = Console(width=_width())
err_console = Console(stderr=True)

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON document on stdout, nothing else there.")
CATALOG_OPTION = typer.Option(
    None, "--catalog", help="An extra catalog file that adds and overrides entries (repeatable).",
    show_default=False, metavar="FILE",
)
CALIBRATION_OPTION = typer.Option(
    None, "--calibration", help="A calibration file (iolab calibrate -o) whose fitted values override the "
    "scenario's.", show_default=False, metavar="FILE",
)


def run(app: typer.Typer, argv: list[str] | None = None) -> int:
    """Run the Typer app and map errors to exit codes; never show a traceback for bad input.

    Usage errors exit 2 (Typer's own handling); :class:`IolabError` exits with its
    ``exit_code`` after one ``error: ...`` line on stderr.
    """
    try:
        app(args=argv, prog_name="iolab", standalone_mode=True)
    except SystemExit as e:
        code = e.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except IolabError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def print_json(document: Any) -> None:
    """Write one JSON document to stdout (non-finite floats become null)."""
    sys.stdout.write(json.dumps(_clean(document), indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()
