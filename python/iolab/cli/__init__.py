"""The command-line interface: thin Typer commands over the library, Rich output.

Only this package turns :mod:`iolab.errors` into exit codes (0 success, 1 runtime failure,
2 bad input, 3 refused for safety) and prints.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import typer

from . import common

# Each command: (its module in this package, the attribute there, whether it is a group).
COMMANDS = {
    "catalog": ("catalog", "app", True),
    "check": ("check", "check", False),
    "predict": ("predict", "predict", False),
    "simulate": ("simulate", "simulate", False),
    "plan": ("plan", "plan", False),
    "bench": ("bench", "app", True),
    "results": ("results", "app", True),
    "characterize": ("characterize", "characterize", False),
    "doctor": ("doctor", "doctor", False),
    "calibrate": ("calibrate", "calibrate", False),
    "report": ("report", "report", False),
    "serve": ("serve", "serve", False),
}


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"iolab {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print iolab's version and exit."),
) -> None:
    """A storage performance lab: predict, simulate, plan and benchmark storage paths."""


def make_app(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The command line with the commands `names` (all by default). Only their modules are
    imported, and Typer builds a command's tree from its signature, so a process that runs
    one command builds only that one (see :func:`commands_for`)."""
    from importlib import import_module

    from .command_line import CONTEXT, Command, Group

    made = typer.Typer(
        name="iolab",
        help="A storage performance lab: predict, simulate, plan and benchmark storage paths.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        cls=Group,
        context_settings=CONTEXT,
    )
    made.callback()(_root)
    for name in names:
        module, attribute, group = COMMANDS[name]
        target = getattr(import_module(f"{__name__}.{module}"), attribute)
        if group:
            made.add_typer(target, name=name)
        else:
            made.command(name, cls=Command)(target)
    return made


def commands_for(argv: list[str]) -> list[str]:
    """The commands a process given `argv` needs: the one it names (``predict`` in
    ``predict x.yaml``), none for ``--version``, and all of them otherwise (no command,
    ``--help``, a misspelt name), so that help lists every command and a misspelt name
    gets its suggestion."""
    first = argv[0] if argv else None
    if first in COMMANDS:
        return [first]
    return [] if first == "--version" else list(COMMANDS)


def __getattr__(name: str) -> typer.Typer:
    # `app`, the whole command line, is built on first use (by tests and embedders).
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()["app"] = made = make_app()
    return made


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``iolab`` console script (`argv` None: ``sys.argv``). As the script,
    ``check``, ``predict``, ``plan`` and ``--version`` end the process at once when done
    (:func:`iolab.cli.process.leave`); given `argv`, it raises ``SystemExit`` as usual."""
    from .process import leave, prepare

    console_script = argv is None
    prepare(console_script)  # defaults that make start-up cheap (pydantic plugins, OpenBLAS threads, collector)
    argv = sys.argv[1:] if argv is None else argv
    code = common.run(make_app(commands_for(argv)), argv)
    if console_script and argv[:1] in (["check"], ["predict"], ["plan"], ["--version"]):
        leave(code)  # they read files and print: exit at once, no teardown (see iolab.cli.process)
    sys.exit(code)
