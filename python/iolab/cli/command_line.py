"""Usage errors and usage lines: the command-line parser's refusals as one ``error:`` line,
and usage lines as a person writes them (``plan [OPTIONS] FILE``), ``-h`` as ``--help``.

Every command is a :class:`Command` and every group a :class:`Group` (Typer's ``cls=``):
subclasses of Typer's public command classes that write the usage line, refuse an option
given twice and give ``--help`` a direct converter (:mod:`.conversions`)."""

from __future__ import annotations

import re
import types
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from .conversions import direct

__all__ = ["usage_classes", "usage_message", "build", "HELP_OPTIONS", "CONTEXT", "Command", "Group"]

HELP_OPTIONS = ["-h", "--help"]

#: The context settings of the root command (its subcommands' contexts inherit them).
CONTEXT = {"help_option_names": HELP_OPTIONS}

def usage_classes() -> tuple[type[BaseException], ...]:
    classes: list[type[BaseException]] = [typer.TyperException] if hasattr(typer, "TyperException") else []
    import sys

    click = sys.modules.get("click")  # a Typer release that uses click itself has imported it
    if click is not None:  # (importing an installed click that Typer does not use costs every start)
        classes.append(click.ClickException)
    return tuple(classes)


# Patterns compiled on first use (by ``re``), when a value is refused, not at every start.
_REWRITES = [
    (r"^Value error, ", ""),
    (r"^Input should be a valid integer.*$", "expected a whole number"),
    (r"^Input should be a valid number.*$", "expected a number"),
    (r"^Input should be greater than or equal to (\S+)$", r"must be at least \1"),
    (r"^Input should be less than or equal to (\S+)$", r"must be at most \1"),
    (r"^Input should be greater than (\S+)$", r"must be more than \1"),
    (r"^Input should be less than (\S+)$", r"must be less than \1"),
    (r"^Input should be (.+)$", r"expected \1"),
    (r"^'?(.+?)'? is not a valid integer.*$", r"expected a whole number, not '\1'"),
    (r"^'?(.+?)'? is not a valid float.*$", r"expected a number, not '\1'"),
    (r"^(\S+) is not in the range (\S+)<=x<=(\S+)\.?$", r"must be from \2 to \3, not \1"),
    (r"^(\S+) is not in the range x>=(\S+)\.?$", r"must be at least \2, not \1"),
    (r"^(\S+) is not in the range x<=(\S+)\.?$", r"must be at most \2, not \1"),
]


def _hint(param: Any) -> str | None:
    if param is None:
        return None
    if getattr(param, "param_type_name", "") == "argument":
        return _argument_word(param)
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")] or list(getattr(param, "opts", []))
    return opts[0] if opts else param.name


def usage_message(e: BaseException) -> str:
    """A command-line parser's error as one line: ``FIELD: message (see 'iolab CMD --help')``."""
    ctx = getattr(e, "ctx", None)
    param = getattr(e, "param", None)
    name = type(e).__name__
    if name in ("BadParameter",) and param is not None:
        message = str(getattr(e, "message", e)).strip().rstrip(".")
        for pattern, repl in _REWRITES:
            message = re.sub(pattern, repl, message)
        text = f"{_hint(param)}: {message}"
    elif name == "MissingParameter" and param is not None:
        text = f"missing {_hint(param)}"
    else:
        text = e.format_message() if hasattr(e, "format_message") else str(e)
        text = " ".join(text.split()).rstrip(".")
        text = text.replace(". Did you mean", "; did you mean")
        text = re.sub(r" \((?:Possible options|Did you mean):? ([^)]*)\)$", r"; did you mean \1?", text)
        text = text[:1].lower() + text[1:]
    if ctx is not None and name != "NoArgsIsHelpError":
        text += f" (see '{ctx.command_path} --help')"
    return text


def _argument_word(param: Any) -> str:
    """An argument's name as usage lines write it: ``FILE``, ``ID`` (no brackets, no dots)."""
    return (param.metavar or param.name or "").strip("[].").upper()


def _usage_pieces(self: Any, ctx: Any) -> list[str]:
    """A usage line as a person writes it: ``plan [OPTIONS] FILE``, ``export [OPTIONS] [ID]...``."""
    pieces = [self.options_metavar] if getattr(self, "options_metavar", None) else []
    for p in self.get_params(ctx):
        if getattr(p, "param_type_name", "") != "argument":
            continue
        word = _argument_word(p)
        word = word if p.required else f"[{word}]"
        pieces.append(word + ("..." if p.nargs != 1 else ""))
    if hasattr(self, "list_commands"):
        pieces.append(getattr(self, "subcommand_metavar", None) or "COMMAND [ARGS]...")
    return pieces


class Command(TyperCommand):
    """A command whose usage line is written as a person writes it (:func:`_usage_pieces`),
    whose parser first refuses an option taking one value given more than once (``--target
    a --target b``: the parser would keep the last silently) and a flag given with its
    opposite (``--store --no-store``; options that repeat, such as lists and ``--catalog``,
    and a flag given twice the same way are taken as they are), and whose ``--help`` takes
    its value without a pydantic validator."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)

    def parse_args(self, ctx: Any, args: list[str]) -> Any:
        _refuse_repeats(self.get_params(ctx), args)
        return super().parse_args(ctx, args)

    def get_help_option(self, ctx: Any) -> Any:
        return direct(super().get_help_option(ctx))


class Group(TyperGroup):
    """A command group whose usage line is written as a person writes it and whose
    ``--help`` takes its value without a pydantic validator."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)

    def get_help_option(self, ctx: Any) -> Any:
        return direct(super().get_help_option(ctx))


def _long(names: Any) -> str:
    return next((n for n in names if n.startswith("--")), names[0])


def _refuse_repeats(params: list[Any], args: list[str]) -> None:
    from ..errors import InputError

    names: dict[str, tuple[Any, bool]] = {}
    for p in params:
        if getattr(p, "param_type_name", "") == "option":
            names.update({n: (p, True) for n in p.opts})
            names.update({n: (p, False) for n in getattr(p, "secondary_opts", ())})
    uses: dict[str, list[tuple[str, Any]]] = {}
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            break
        name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if name not in names and not word.startswith("--") and word[:2] in names and len(word) > 2:
            name, eq, value = word[:2], "=", word[2:]  # -ovalue
        if name not in names:
            continue
        p, on = names[name]
        if p.is_flag:
            shown = _long(p.opts if on else p.secondary_opts)
            uses.setdefault(p.name, []).append((shown, on))
            continue
        if not eq and i < len(args):
            value, i = args[i], i + 1
        if not (p.multiple or getattr(p, "count", False) or p.nargs != 1):
            uses.setdefault(p.name, []).append((_hint(p), value))
    by_name = {p.name: p for p in params}
    for key, seen in uses.items():
        if len(seen) < 2:
            continue
        p = by_name[key]
        if not p.is_flag:
            count = "twice" if len(seen) == 2 else f"{len(seen)} times"
            raise InputError(f"given {count} ({', '.join(repr(v) for _, v in seen)}); give it once", field=_hint(p))
        flags = dict(seen)
        if len(set(flags.values())) > 1:
            raise InputError(f"given with its opposite ({' and '.join(flags)}); give one", field=_hint(p))


def _is_path(param: Any) -> bool:
    """True for a parameter whose values are paths (``Path``, ``list[Path]``)."""
    from pathlib import Path
    from typing import get_args, get_origin

    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if get_origin(annotation) is list:
        annotation = (get_args(annotation) or (None,))[0]
    return annotation is Path


def _no_empty_path(process_value: Any) -> Any:
    """A path parameter's `process_value` that refuses an empty value: ``Path("")`` is
    ``.``, so a shell variable left empty would name the working directory."""
    def process(self: Any, ctx: Any, value: Any) -> Any:
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, str) and not v for v in values):
            raise typer.BadParameter("an empty path; give a path ('.' is the working directory)", ctx=ctx,
                                     param=self)
        return process_value(ctx, value)
    return process


def _tidy(command: Any) -> None:
    """Check that every command of the tree is a :class:`Command` and every group a
    :class:`Group`, and give path parameters that refuse an empty path and arguments their
    usage words (``FILE``, ``ID...``) in the help's table too."""
    if not isinstance(command, (Command, Group)):
        raise TypeError(f"command {command.name!r} is a {type(command).__name__}: declare it with "
                        "cls=Command (cls=Group for a group) from iolab.cli.command_line")
    for p in getattr(command, "params", []):
        if _is_path(p):
            p.process_value = types.MethodType(_no_empty_path(p.process_value), p)
        if getattr(p, "param_type_name", "") == "argument":  # FILE, ID... in the help's table too
            p.metavar = _argument_word(p) + ("..." if p.nargs != 1 else "")
            if p.nargs != 1 and hasattr(p, "display_type"):  # FILE... <path>, not FILE... <list[Path]>
                p.display_type = types.MethodType(_element_type(p.display_type), p)
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


def _element_type(display_type: Any) -> Any:
    """A repeated argument's type label as its elements' (``<path>``, ``<int>``)."""
    def shown(self: Any, ctx: Any) -> str:
        return re.sub(r"^<list\[(\w+)\]>$", lambda m: f"<{m.group(1).lower()}>", display_type(ctx))
    return shown


def build(app: typer.Typer) -> Any:
    """The command tree of `app`, ready to run (usage lines, ``-h``, values converted without
    pydantic where Typer's conversion needs none)."""
    from .conversions import speed_up

    command = typer.main.get_command(app)
    _tidy(command)
    speed_up(command)
    return command
