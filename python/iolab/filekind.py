"""The kinds of file iolab reads, told apart by their content, so that a file handed to the
wrong command is named for what it is, with the command that takes it.

Kinds: ``scenario`` (``volumes:`` and ``jobs:``), ``requirements`` (``require:``,
``search:`` or ``pool:``), ``catalog`` (``vms:``, ``disks:``, ``services:``,
``protocols:``), ``calibration`` (``calibration:``, as ``iolab calibrate -o`` writes),
``fio-jobs`` (a fio job file: ``[section]`` lines and ``key=value`` options) and
``fio-output`` (fio's ``--output-format=json`` report).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import SchemaError

__all__ = ["KINDS", "sniff", "kind_of_data", "expect", "expect_data"]

#: what each kind is called in messages, and what a user does with it
KINDS = {
    "scenario": ("a scenario", "iolab predict, simulate, check or bench run take it"),
    "requirements": ("a requirements file", "iolab plan and iolab check take it"),
    "catalog": ("a catalog file", "give it to any command with --catalog FILE"),
    "calibration": ("a calibration file", "give it to predict, simulate, plan or report predict with "
                    "--calibration FILE"),
    "fio-jobs": ("a fio job file", "iolab bench run FILE runs it; to predict or simulate it, name it in a "
                 "scenario's jobs (- fio_file: FILE) beside the volume it runs on (docs/scenario.md)"),
    "fio-output": ("fio's JSON output", "it is a result, not an input: iolab bench run stores fio's runs itself"),
}

_SECTION = re.compile(r"^\[[^\]\s,:]+\]$")
_OPTION = re.compile(r"^(include\s+\S.*|[A-Za-z_][A-Za-z0-9_]*\s*(=.*)?)$")
_CATALOG_KEYS = {"vms", "disks", "services", "protocols"}
_REQUIREMENT_KEYS = {"require", "search", "pool"}


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith(("#", ";"))]


def kind_of_data(data: Any) -> str | None:
    """The kind of an already parsed YAML document, or None when it is none of them."""
    if not isinstance(data, dict):
        return None
    keys = set(map(str, data))
    if "fio version" in keys:
        return "fio-output"
    if "calibration" in keys:
        return "calibration"
    if keys & _REQUIREMENT_KEYS:
        return "requirements"
    if "volumes" in keys:
        return "scenario"
    if keys & _CATALOG_KEYS and not keys & {"jobs", "clients"}:
        return "catalog"
    return None


def sniff(path: str | Path) -> str | None:
    """The kind of the file at `path` judged from its text, or None (unreadable, or unknown)."""
    from .errors import InputError
    from .inputs import SAFE_LOADER, check_yaml, read_bytes

    try:  # the guarded reader: a regular file of bounded size (never /dev/zero or a FIFO)
        raw = read_bytes(path)[:256 * 1024]
        text = raw.decode("utf-8-sig")
    except (InputError, OSError, UnicodeDecodeError):
        return None
    lines = _lines(text)
    if not lines:
        return None
    if lines[0].startswith("{") or any(ln.startswith('"fio version"') for ln in lines[:5]):
        start = text.find("{")
        try:
            doc = json.loads(text[start:]) if start >= 0 else None
        except ValueError:
            doc = None
        if (isinstance(doc, dict) and "fio version" in doc) or '"fio version"' in text[:4096]:
            return "fio-output"
    if _SECTION.match(lines[0]) and all(_SECTION.match(ln) or _OPTION.match(ln) for ln in lines):
        return "fio-jobs"
    import yaml

    try:
        check_yaml(text)  # depth, aliases, long integers: the loader names the fault
        data = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader
    except (InputError, yaml.YAMLError, RecursionError, ValueError):
        return None
    return kind_of_data(data)


def expect(path: str | Path, wanted: str | tuple[str, ...]) -> None:
    """Refuse a file of another known kind than `wanted`, saying what it is and which command
    takes it (exit 2); files of no known kind go on to the loader, which names their fault."""
    _refuse(sniff(path), str(path), wanted)


def expect_data(data: Any, file: str, wanted: str | tuple[str, ...], fits: Any = ()) -> None:
    """:func:`expect` for a YAML document already read (a loader's own check). A mapping
    whose keys are all among `fits` (the loader's own top-level keys) is the loader's to
    judge, whatever it resembles (overrides of volumes without jobs are a calibration)."""
    if isinstance(data, dict) and fits and set(map(str, data)) <= set(fits):
        return
    _refuse(kind_of_data(data), file, wanted)


def _refuse(kind: str | None, file: str, wanted: str | tuple[str, ...]) -> None:
    wanted = (wanted,) if isinstance(wanted, str) else wanted
    if kind is None or kind in wanted:
        return
    what, use = KINDS[kind]
    expected = " or ".join(KINDS[w][0] for w in wanted)
    raise SchemaError(f"this is {what}, not {expected}: {use}", file=file)
