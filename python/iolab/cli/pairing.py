"""Options that only mean something beside another: given alone they would be ignored
silently, so they are refused (exit 2) with the option they need named.

Two ways to tell an option was given: its value differs from "not given" (None, False,
empty: :func:`refuse_alone`), or, for an option whose default is a real value (``plan
--check-top`` is 10 unless given), the command line itself named it (:func:`refuse_given`).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError

__all__ = ["refuse_alone", "refuse_given", "given"]


def refuse_alone(option: str, given: object, applies: str) -> None:
    """InputError naming `option` when it was `given` (anything but None, False or empty)
    where it has no effect; `applies` says when it has one (``"with --live"``)."""
    if given is None or given is False or given == [] or given == ():
        return
    raise InputError(f"has no effect here: it applies {applies}", field=option)


def given(ctx: Any, option: str) -> bool:
    """Whether the command line of `ctx` (a Typer context) named `option` (``--check-top``),
    whatever its value: giving an option its default value still gives it."""
    for param in ctx.command.params:
        if option in (*param.opts, *getattr(param, "secondary_opts", ())):
            source = ctx.get_parameter_source(param.name)
            return source is not None and source.name == "COMMANDLINE"
    raise KeyError(option)  # a programming error: the command has no such option


def refuse_given(ctx: Any, applies: str, *options: str) -> None:
    """InputError naming the first of `options` the command line of `ctx` gave, where none
    of them has an effect; `applies` says when they have one."""
    for option in options:
        if given(ctx, option):
            raise InputError(f"has no effect here: it applies {applies}", field=option)
