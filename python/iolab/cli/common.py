"""Helpers shared by the commands: error handling, signals, JSON output, Rich console.

Every refusal leaves as one line ``error: [FILE: ][FIELD: ]message`` on stderr (see
``docs/errors.md``): iolab's own errors, and the usage errors of the command-line parser
too (an unknown option, a bad value, a missing argument), which exit 2. Ctrl-C exits 130
and SIGTERM 143 (128 + the signal's number), each named on stderr.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
ALL_OPTION = typer.Option(False, "--all", help="List every resource; identical ones are otherwise folded "
                          "into one row with a count.")
HELP_OPTIONS = ["-h", "--help"]


# --- interrupts -------------------------------------------------------------------------

_received: list[int] = []  # the signal that interrupted the current command, if any


class Interrupted(IolabError):
    """A command stopped by Ctrl-C or SIGTERM after cleaning up; exits 128 + the signal."""

    def __init__(self, detail: str = "", signum: int | None = None):
        self.signum = signum if signum is not None else received_signal()
        self.exit_code = 128 + self.signum
        super().__init__(_interrupt_text(self.signum) + (f": {detail}" if detail else ""))


def received_signal() -> int:
    """The signal that interrupted the command (SIGINT when none was recorded)."""
    return _received[-1] if _received else int(signal.SIGINT)


def record_signal(signum: int) -> None:
    """Remember which signal interrupted the command (a handler calls this)."""
    _received.append(int(signum))


def _interrupt_text(signum: int) -> str:
    return "interrupted (Ctrl-C)" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}"


def _raise_interrupt(signum: int, frame: Any) -> None:
    record_signal(signum)
    raise KeyboardInterrupt


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM both raise KeyboardInterrupt (so that every
    clean-up path runs) and the signal is remembered for the exit code."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextmanager
def interrupts_set(flag: threading.Event) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM set `flag` (the work stops at its next poll)
    instead of raising; the signal is remembered for the exit code."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        record_signal(signum)
        flag.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


# --- usage errors -----------------------------------------------------------------------

def _usage_classes() -> tuple[type[BaseException], ...]:
    classes: list[type[BaseException]] = [typer.TyperException] if hasattr(typer, "TyperException") else []
    try:  # Typer releases that use click itself
        import click

        classes.append(click.ClickException)
    except ImportError:  # pragma: no cover - Typer vendors click
        pass
    return tuple(classes)


_REWRITES = [
    (re.compile(r"^Value error, "), ""),
    (re.compile(r"^Input should be a valid integer.*$"), "expected a whole number"),
    (re.compile(r"^Input should be a valid number.*$"), "expected a number"),
    (re.compile(r"^Input should be greater than or equal to (\S+)$"), r"must be at least \1"),
    (re.compile(r"^Input should be less than or equal to (\S+)$"), r"must be at most \1"),
    (re.compile(r"^Input should be greater than (\S+)$"), r"must be more than \1"),
    (re.compile(r"^Input should be less than (\S+)$"), r"must be less than \1"),
    (re.compile(r"^Input should be (.+)$"), r"expected \1"),
    (re.compile(r"^'?(.+?)'? is not a valid integer.*$"), r"expected a whole number, not '\1'"),
    (re.compile(r"^'?(.+?)'? is not a valid float.*$"), r"expected a number, not '\1'"),
    (re.compile(r"^(\S+) is not in the range (\S+)<=x<=(\S+)\.?$"), r"must be from \2 to \3, not \1"),
    (re.compile(r"^(\S+) is not in the range x>=(\S+)\.?$"), r"must be at least \2, not \1"),
    (re.compile(r"^(\S+) is not in the range x<=(\S+)\.?$"), r"must be at most \2, not \1"),
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
            message = pattern.sub(repl, message)
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


def _tidy(command: Any) -> None:
    """Give every command of the tree person-written usage lines."""
    command.collect_usage_pieces = types.MethodType(_usage_pieces, command)
    for p in getattr(command, "params", []):
        if getattr(p, "param_type_name", "") == "argument":  # FILE, ID... in the help's table too
            p.metavar = _argument_word(p) + ("..." if p.nargs != 1 else "")
    command.context_settings.setdefault("help_option_names", HELP_OPTIONS)
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


def build(app: typer.Typer) -> Any:
    """The command tree of `app`, ready to run (usage lines, ``-h``)."""
    command = typer.main.get_command(app)
    _tidy(command)
    return command


def run(app: typer.Typer, argv: list[str] | None = None) -> int:
    """Run the Typer app and map errors to exit codes; never show a traceback for bad input.

    A usage error and an :class:`IolabError` both come out as one ``error: ...`` line on
    stderr (exit 2, or the error's ``exit_code``); a command group given no command prints
    its help and exits 0; Ctrl-C exits 130, SIGTERM 143.
    """
    _received.clear()
    usage = _usage_classes()
    try:
        with interrupts_raise():
            code = build(app).main(args=argv, prog_name="iolab", standalone_mode=False)
    except SystemExit as e:
        code = e.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except IolabError as e:
        print(f"error: {one_line(str(e))}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        code = 130
    except usage as e:  # type: ignore[misc]
        if type(e).__name__ == "NoArgsIsHelpError":
            sys.stdout.write(e.ctx.get_help() + "\n")
            return 0
        print(f"error: {usage_message(e)}", file=sys.stderr)
        return 2
    except typer.Abort:
        code = 130
    if code == 130:  # an interrupt no command turned into its own message
        signum = received_signal()
        print(f"error: {_interrupt_text(signum)}", file=sys.stderr)
        return 128 + signum
    return code if isinstance(code, int) else 0

_DIGITS = re.compile(r"\d+")


def fold(rows: list[list[Any]], *, key: Callable[[list[Any]], tuple] | None = None,
         merge: Callable[[list[list[Any]]], list[Any]] | None = None) -> list[list[Any]]:
    """Fold identical rows into one: rows whose labels (the first cell) differ only in their
    numbers and whose `key` (default: every other cell) is equal become one row labelled
    ``N × label``, the varying numbers written ``*`` (``4 × data: P30 #*``); `merge` makes
    the other cells of a folded row from its members (default: the first member's). Order
    follows each group's first row."""
    key = key or (lambda row: tuple(row[1:]))
    merge = merge or (lambda members: members[0])
    groups: dict[tuple, list[list[Any]]] = {}
    for row in rows:
        groups.setdefault((_DIGITS.sub("#", row[0]), *key(row)), []).append(row)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
            continue
        numbers = [_DIGITS.findall(r[0]) for r in members]
        parts = _DIGITS.split(members[0][0])
        label = parts[0]
        for i, rest in enumerate(parts[1:]):
            label += (numbers[0][i] if len({n[i] for n in numbers}) == 1 else "*") + rest
        out.append([f"{len(members)} × {label}", *merge(members)[1:]])
    return out


def in_order(items: list[Any], names: list[str], name: Callable[[Any], str]) -> list[Any]:
    """`items` in the order their names take in `names` (a scenario's jobs); others last."""
    rank = {n: i for i, n in enumerate(names)}
    return sorted(items, key=lambda it: rank.get(name(it), len(rank)))


def one_line(text: str) -> str:
    """A message on one line: its lines (fio's stderr, say) joined with ``; ``."""
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


def warn(traps: list[Any]) -> list[dict]:
    """Print each warning as ``warning: FILE: FIELD: message`` on stderr; return them as JSON."""
    for t in traps:
        print(f"warning: {one_line(str(t))}", file=sys.stderr)
    return [t.to_json() for t in traps]


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
