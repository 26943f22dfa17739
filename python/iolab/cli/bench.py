"""`iolab bench`: Benchmark real storage with fio, safely; store every run."""

import typer

app = typer.Typer(help="Benchmark real storage with fio, safely; store every run.", no_args_is_help=True)
