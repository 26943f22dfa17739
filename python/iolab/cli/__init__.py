"""The command-line interface: thin Typer commands over the library, Rich output.

Only this package turns :mod:`iolab.errors` into exit codes (0 success, 1 runtime failure,
2 bad input, 3 refused for safety) and prints.
"""

from __future__ import annotations

import os
import sys

import typer

from . import common

app = typer.Typer(
    name="iolab",
    help="A storage performance lab: predict, simulate, plan and benchmark storage paths.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"iolab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print iolab's version and exit."),
) -> None:
    """A storage performance lab: predict, simulate, plan and benchmark storage paths."""


def _register() -> None:
    from . import bench, catalog, characterize, check, doctor, plan, predict, results, simulate

    app.add_typer(catalog.app, name="catalog")
    app.command("check")(check.check)
    app.command("predict")(predict.predict)
    app.command("simulate")(simulate.simulate)
    app.command("plan")(plan.plan)
    app.add_typer(bench.app, name="bench")
    app.add_typer(results.app, name="results")
    app.command("characterize")(characterize.characterize)
    app.command("doctor")(doctor.doctor)


_register()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``iolab`` console script."""
    # pydantic looks for plugins in every installed package's entry points the first time a
    # model is built, which costs more than a whole `iolab check`; iolab uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    sys.exit(common.run(app, argv))
