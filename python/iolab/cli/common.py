"""Helpers shared by the commands: error handling, signals, JSON output, Rich console.

Every refusal leaves as one line ``error: [FILE: ][FIELD: ]message`` on stderr (see
``docs/errors.md``): iolab's own errors, and the usage errors of the command-line parser
too (an unknown option, a bad value, a missing argument), which exit 2. Ctrl-C exits 130
and SIGTERM 143 (128 + the signal's number), each named on stderr.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console
from rich.highlighter import NullHighlighter
from rich.text import Text

from ..errors import IolabError
from ..outputs import json_ready
from .interrupts import interrupt_text, interrupts_raise, received_signal, reset
from .command_line import build, usage_classes, usage_message

def _width() -> int | None:
    """A terminal's own width; piped output (a file, a pager) gets 140 columns unless COLUMNS
    says otherwise, so that wide tables are not cut to 80."""
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return None
    return 140


def _plain(c: Console) -> Console:
    """`c`, not highlighting numbers and words when it prints no styles (the work is lost)."""
    if c.color_system is None:
        c.highlighter = NullHighlighter()
    return c


class _Console(Console):
    """Rich's console, except that where it does not write to a terminal (a pipe, a file)
    text is never hard-wrapped: each sentence, reason and note stays whole on one line, so
    that grep finds what it looks for. Tables keep their layout (their cells fold within the
    width)."""

    def print(self, *objects: Any, **options: Any) -> None:  # noqa: A003 - Rich's name
        if options.get("soft_wrap") is None and not self.is_terminal and objects \
                and all(isinstance(o, (str, Text)) for o in objects):
            options["soft_wrap"] = True
        super().print(*objects, **options)


# emoji=False: text is printed as given (a file named "a:fire:b.yaml" keeps its name), and
# Rich's emoji table is neither loaded nor searched for every string printed.
console = _plain(_Console(width=_width(), emoji=False))
err_console = _plain(_Console(stderr=True, emoji=False))

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON document on stdout, nothing else there.")
CATALOG_OPTION = typer.Option(
    None, "--catalog", help="An extra catalog file that adds and overrides entries (repeatable).",
    show_default=False, metavar="FILE",
)
ALL_OPTION = typer.Option(False, "--all", help="List every resource; identical ones are otherwise folded "
                          "into one row with a count (tables only: the JSON lists every one).")
#: where --all applies (it is refused with --json, whose lists are never folded).
ALL_APPLIES = "to the tables (with --json every resource is listed anyway)"
CALIBRATION_OPTION = typer.Option(
    None, "--calibration", help="A calibration file (iolab calibrate -o) whose fitted values override the "
    "scenario's.", show_default=False, metavar="FILE",
)


def run(app: typer.Typer, argv: list[str] | None = None) -> int:
    """Run the Typer app and map errors to exit codes; never show a traceback for bad input.

    A usage error and an :class:`IolabError` both come out as one ``error: ...`` line on
    stderr (exit 2, or the error's ``exit_code``); a command group given no command prints
    its help and exits 0; Ctrl-C exits 130, SIGTERM 143.
    """
    reset()
    usage = usage_classes()
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
        print(f"error: {interrupt_text(signum)}", file=sys.stderr)
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


def wide_console() -> Console:
    """A console for output that is not a terminal's: as wide as what it prints, so a table's
    rows are never wrapped or cut (a pipe, grep, a file)."""
    return _plain(Console(width=100_000, emoji=False, color_system=None))


def fold_path(path: str, width: int | None) -> str:
    """`path` on lines of at most `width` characters, broken after a ``/`` (never inside a
    name, unless one name alone is wider); whole when `width` is None (a pipe: one line)."""
    if width is None or len(path) <= width:
        return path
    lines, line = [], ""
    for part in path.replace("/", "/\0").split("\0"):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    lines.append(line)
    return "\n".join(lines)


def one_line(text: str) -> str:
    """A message on one line: its lines (fio's stderr, say) joined with ``; ``."""
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


def warn(traps: list[Any]) -> list[dict]:
    """Print each warning as ``warning: FILE: FIELD: message`` on stderr; return them as JSON."""
    for t in traps:
        print(f"warning: {one_line(str(t))}", file=sys.stderr)
    return [t.to_json() for t in traps]


def print_json(document: Any) -> None:
    """Write one JSON document to stdout (non-finite floats become null)."""
    import json

    sys.stdout.write(json.dumps(json_ready(document), indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()
