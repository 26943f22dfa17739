"""Command-line values converted as Typer converts them, without building pydantic validators
where the conversion needs none.

Typer converts every parameter's value through a pydantic ``TypeAdapter`` built on first
use: a few milliseconds each, and pydantic itself for a command that does not otherwise use
it. For the values whose conversion is plain (a string kept as given, a flag's ``True`` or
``False``, a whole number written in digits within its option's range, a ``Path`` made from
a string and checked by Typer's own path rules, a list of those, any of them optional)
:func:`speed_up` gives each parameter a converter that does the same directly. Anything
else, and any value the direct way refuses, goes to Typer's own converter, built when such
a value is first given, so values, errors and their messages are exactly Typer's. Typer
releases without this machinery are left as they are.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin

__all__ = ["speed_up", "direct"]

try:  # Typer's converter of one parameter's values (Typer 0.26 and later)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import _coerce_path_result, coerce_cli_path, routes_to_path
except ImportError:  # pragma: no cover - another Typer: its own conversion stays
    RuntimeParam = None  # type: ignore[assignment,misc]


def _leaf(annotation: Any, info: Any) -> str | None:
    """How a single value of `annotation` converts directly: ``"str"``, ``"bool"``, ``"path"``
    or None."""
    if info.parser is not None:
        return None
    if annotation in (str, bool):
        return annotation.__name__
    if annotation is int and not info.clamp:  # a value out of its range goes to Typer for its message
        return "int"
    if annotation is Path and routes_to_path(annotation, info) and info.path_type in (None, Path):
        return "path"
    return None


def _given(annotation: Any) -> Any:
    """``X`` for ``Optional[X]`` (a value not given is None before any conversion), else `annotation`."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        if len(args) == 2 and len(rest) == 1:
            return rest[0]
    return annotation


#: a whole number as Typer's converter reads it too (anything else goes to that converter)
_DIGITS = re.compile(r"[+-]?[0-9]+")


def _plan(annotation: Any, info: Any) -> tuple[str, str] | None:
    """(``"one"`` or ``"list"``, leaf kind) for a parameter converted directly, else None."""
    annotation = _given(annotation)
    if get_origin(annotation) is list:
        args = get_args(annotation)
        leaf = _leaf(args[0], info) if len(args) == 1 else None
        return ("list", leaf) if leaf else None
    leaf = _leaf(annotation, info)
    return ("one", leaf) if leaf else None


class _Refused(Exception):
    """The direct way does not take this value: Typer's converter decides."""


if RuntimeParam is not None:

    @dataclass(frozen=True)  # a dataclass: it extends Typer's RuntimeParam, itself one
    class _Direct(RuntimeParam):  # type: ignore[misc,valid-type]
        shape: str
        leaf: str

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.leaf == "typer":
                raise _Refused
            if self.leaf == "bool" and type(value) is bool:
                return value
            if self.leaf == "int":
                if type(value) is str and _DIGITS.fullmatch(value):
                    value = int(value)
                low, high = self.parameter_info.min, self.parameter_info.max
                if type(value) is not int or (low is not None and value < low) or (high is not None and value > high):
                    raise _Refused
                return value
            if type(value) is not str or self.leaf == "bool":
                raise _Refused
            if self.leaf == "str":
                return value
            try:
                return coerce_cli_path(Path(value), self.parameter_info, path_type=Path, param=param, ctx=ctx)
            except Exception:
                raise _Refused from None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if self.shape == "one":
                    return self._one(value, param, ctx)
                items = value if isinstance(value, (list, tuple)) else [value]
                return [self._one(item, param, ctx) for item in items]
            except _Refused:
                pass
            # Typer's own converter, for exactly its values and errors.
            real = build_runtime_param(param.type_descriptor)
            param._runtime_param = real
            return real._coerce_value(value, param=param, ctx=ctx)


def direct(param: Any) -> Any:
    """`param`, given a direct converter (an open file's parameter keeps Typer's own)."""
    descriptor = getattr(param, "type_descriptor", None)
    if (RuntimeParam is None or descriptor is None or descriptor.file_annotation is not None
            or getattr(param, "_runtime_param", False) is not None):
        return param
    # any other value (a choice, a float) gets Typer's converter, built when a value is first given
    shape, leaf = _plan(descriptor.annotation, descriptor.parameter_info) or ("one", "typer")
    param._runtime_param = _Direct(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                                   shape=shape, leaf=leaf)
    return param


def speed_up(command: Any) -> None:
    """Give each parameter of `command` and of its subcommands a direct converter where its
    values need no pydantic validator (see the module's docstring); ``--help``, made when a
    command line is parsed, gets its own from the command's class
    (:class:`iolab.cli.command_line.Command`)."""
    for param in getattr(command, "params", []):
        direct(param)
    for sub in getattr(command, "commands", {}).values():
        speed_up(sub)
