"""`iolab results`: Read the results database: list, show, export, delete."""

import typer

app = typer.Typer(help="Read the results database: list, show, export, delete.", no_args_is_help=True)
