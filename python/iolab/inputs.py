"""Bounded input: every file iolab reads, and every YAML document it parses, passes here.

A file is read only when it is a regular file of at most :data:`MAX_FILE_BYTES` (special
files such as ``/dev/zero``, FIFOs, sockets and terminals are refused before they are
opened: reading them would never end or would block), with a path of at most
:data:`MAX_PATH_CHARS` characters. A YAML document is walked as a stream of parser events
before anything is built from it, and refused when it nests deeper than
:data:`MAX_DEPTH`, when its aliases would expand to more than :data:`MAX_NODES` values
(the "billion laughs" document of a few hundred bytes), or when it holds an integer of more
than :data:`MAX_INT_DIGITS` digits. Every refusal is an :class:`~iolab.errors.InputError`
(exit 2) naming the file and the reason, and it comes fast: the limits are checked as the
input is read, never after.
"""

from __future__ import annotations

import os
import re
import stat

import yaml

from .errors import InputError

__all__ = ["MAX_FILE_BYTES", "MAX_PATH_CHARS", "MAX_DEPTH", "MAX_NODES", "MAX_INT_DIGITS",
           "SAFE_LOADER", "read_bytes", "read_text", "check_yaml"]

#: the largest input file iolab reads (bytes).
MAX_FILE_BYTES = 32 * 1024 * 1024
#: the longest path iolab opens (characters).
MAX_PATH_CHARS = 4096
#: the deepest nesting of YAML collections.
MAX_DEPTH = 64
#: the most YAML nodes the aliases of a document may stand for, once expanded.
MAX_NODES = 10_000
#: the most digits of an integer (Python's own limit for converting text to int).
MAX_INT_DIGITS = 4300

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def read_bytes(path: str | os.PathLike[str], *, what: str = "file", limit: int = MAX_FILE_BYTES) -> bytes:
    """The content of the regular file `path`; InputError (file = `path`) when it is
    missing, not a regular file, larger than `limit` bytes, unreadable, or its path is too
    long. `what` names it in messages (``"fio job file"``)."""
    name = os.fspath(path)
    if len(name) > MAX_PATH_CHARS:
        raise InputError(f"the path is {len(name)} characters long; iolab opens paths of at most "
                         f"{MAX_PATH_CHARS}", file=name[:80] + "...")
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise InputError("file not found" if what == "file" else f"{what} not found", file=name) from None
    except OSError as e:
        raise InputError(f"cannot read the {what} ({e.strerror or e})", file=name) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, not a file", file=name)
    if not stat.S_ISREG(st.st_mode):
        kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
        raise InputError(f"is {kind}, not a regular file: give the {what} itself", file=name)
    if st.st_size > limit:
        raise InputError(f"the {what} holds {st.st_size} bytes; iolab reads at most {limit}", file=name)
    try:
        with open(name, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"cannot read the {what} ({e.strerror or e})", file=name) from None
    if len(data) > limit:  # grew while being read
        raise InputError(f"the {what} holds more than {limit} bytes; iolab reads at most {limit}", file=name)
    return data


def read_text(path: str | os.PathLike[str], *, what: str = "file", limit: int = MAX_FILE_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8; InputError for binary or non-UTF-8 content."""
    data = read_bytes(path, what=what, limit=limit)
    name = os.fspath(path)
    if b"\x00" in data:
        raise InputError(f"binary content, not a text {what}", file=name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})", file=name) from None


_INT = re.compile(r"^[-+]?(0[xob])?[0-9a-fA-F_]+$")
#: the safe YAML loader every read uses: libyaml's parser where PyYAML has it
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def check_yaml(text: str, *, file: str | None = None) -> None:
    """Walk `text`'s YAML events and refuse (InputError) a document that nests deeper than
    :data:`MAX_DEPTH`, whose aliases expand past :data:`MAX_NODES` values, or that holds an
    integer longer than :data:`MAX_INT_DIGITS` digits. Syntax errors are left to the loader
    (they are reported with the line and column there)."""
    sizes: dict[str, int] = {}
    stack: list[list] = [[None, 0]]  # [anchor, nodes below]
    expanded = 0

    def add(n: int) -> None:
        for frame in stack:
            frame[1] += n

    try:
        for event in yaml.parse(text, Loader=SAFE_LOADER):
            line = (event.start_mark.line + 1) if event.start_mark else 0
            if isinstance(event, yaml.CollectionStartEvent):
                add(1)
                stack.append([event.anchor, 0])
                if len(stack) - 1 > MAX_DEPTH:
                    raise InputError(f"line {line}: nested more than {MAX_DEPTH} levels deep; iolab refuses it",
                                     file=file)
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, below = stack.pop()
                if anchor is not None:
                    sizes[anchor] = below + 1
            elif isinstance(event, yaml.ScalarEvent):
                add(1)
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                value = event.value
                if (not event.style and len(value) > MAX_INT_DIGITS
                        and _INT.match(value) and sum(c.isdigit() for c in value) > MAX_INT_DIGITS):
                    raise InputError(f"line {line}: an integer of {len(value)} digits; iolab reads at most "
                                     f"{MAX_INT_DIGITS}", file=file)
            elif isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor, 1)
                add(size)
                expanded += size
                if expanded > MAX_NODES:
                    raise InputError(f"line {line}: the aliases (*name) stand for more than {MAX_NODES} values "
                                     "once expanded; iolab refuses it", file=file)
    except yaml.YAMLError as e:
        problem = str(getattr(e, "problem", "") or "")
        if "nesting depth" in problem:  # libyaml's own limit (PyYAML ≥ 6.0.4) met before ours
            mark = getattr(e, "problem_mark", None)
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise InputError(f"{line}nested more than {MAX_DEPTH} levels deep; iolab refuses it", file=file) from None
        return  # the loader reports it with its position
    except RecursionError:
        raise InputError(f"nested too deeply; iolab reads at most {MAX_DEPTH} levels", file=file) from None

