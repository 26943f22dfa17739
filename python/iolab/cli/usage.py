"""Usage errors and usage lines: the command-line parser's refusals as one ``error:`` line,
and usage lines as a person writes them (``plan [OPTIONS] FILE``), ``-h`` as ``--help``."""

from __future__ import annotations

import re
import types
from typing import Any

import typer

__all__ = ["usage_classes", "usage_message", "build", "HELP_OPTIONS"]

HELP_OPTIONS = ["-h", "--help"]

def usage_classes() -> tuple[type[BaseException], ...]:
    classes: list[type[BaseException]] = [typer.TyperException] if hasattr(typer, "TyperException") else []
    try:  # Typer releases that use click itself
        import click

        classes.append(click.ClickException)
    except ImportError:  # pragma: no cover - Typer vendors click
        pass
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


def _once(make_parser: Any) -> Any:
    """`make_parser` (a command's), whose parsers refuse an option that takes one value given
    more than once (``--target a --target b``: the parser would keep the last silently), and
    a flag given with its opposite (``--store --no-store``). Options that repeat (lists,
    ``--catalog``) and a flag given twice the same way are taken as they are."""
    def made(self: Any, ctx: Any) -> Any:
        parser = make_parser(ctx)
        seen: dict[str, list[tuple[Any, Any]]] = {}
        for option in {id(o): o for o in (*parser._long_opt.values(), *parser._short_opt.values())}.values():
            if option.action not in ("store", "store_const"):
                continue
            option.process = types.MethodType(_recorded(option.process, seen), option)
        parse = parser.parse_args

        def parse_args(args: list[str]) -> Any:
            seen.clear()
            out = parse(args)
            _refuse_repeats(seen)
            return out
        parser.parse_args = parse_args
        return parser
    return made


def _recorded(process: Any, seen: dict[str, list[tuple[Any, Any]]]) -> Any:
    def recorded(self: Any, value: Any, state: Any) -> None:
        seen.setdefault(self.dest, []).append((self, value if self.action == "store" else self.const))
        process(value, state)
    return recorded


def _refuse_repeats(seen: dict[str, list[tuple[Any, Any]]]) -> None:
    from ..errors import InputError

    for uses in seen.values():
        if len(uses) < 2:
            continue
        first = uses[0][0]
        name = _hint(first.obj)
        if first.action == "store":
            count = "twice" if len(uses) == 2 else f"{len(uses)} times"
            values = ", ".join(repr(v) for _, v in uses)
            raise InputError(f"given {count} ({values}); give it once", field=name)
        flags = {(o._long_opts or o._short_opts)[0]: v for o, v in uses}
        if len(set(flags.values())) > 1:
            raise InputError(f"given with its opposite ({' and '.join(flags)}); give one", field=name)


def _tidy(command: Any) -> None:
    """Give every command of the tree person-written usage lines, and parsers that refuse a
    single-valued option given twice (see :func:`_once`)."""
    command.collect_usage_pieces = types.MethodType(_usage_pieces, command)
    if not hasattr(command, "list_commands"):
        command.make_parser = types.MethodType(_once(command.make_parser), command)
    for p in getattr(command, "params", []):
        if getattr(p, "param_type_name", "") == "argument":  # FILE, ID... in the help's table too
            p.metavar = _argument_word(p) + ("..." if p.nargs != 1 else "")
            if p.nargs != 1 and hasattr(p, "display_type"):  # FILE... <path>, not FILE... <list[Path]>
                p.display_type = types.MethodType(_element_type(p.display_type), p)
    command.context_settings.setdefault("help_option_names", HELP_OPTIONS)
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
    from .values import speed_up

    command = typer.main.get_command(app)
    _tidy(command)
    speed_up(command)
    return command
