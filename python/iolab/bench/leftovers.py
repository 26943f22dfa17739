"""What a killed run leaves, and how the next one finds it: iolab's own names.

A run that ends — finished, failed, interrupted with Ctrl-C — removes everything it made.
A run killed by a signal no program can catch (SIGKILL, the kernel's OOM killer, a lost
power supply) cannot; it leaves two kinds of files, both named so that a later iolab knows
them for iolab's, and which process made them:

- its scratch directory in the temporary directory, ``iolab-run-<pid>-<random>``;
- the data files fio lays out in a target directory,
  ``iolab-<pid>-<host>-<random>.<job>.<clone>.<file>``, where ``<host>`` is six hex digits
  naming the machine the run was started on (a multi-host run's files on another host
  carry the starting machine's mark, so a run there never takes them for its own).

A file is a leftover when its process no longer runs on this machine (and is not this
process). :func:`remove_scratch` and :func:`remove_target_files` remove leftovers and
return what they removed; nothing else is ever touched: a name that does not follow the
pattern exactly, a directory, a link, another user's file or one made on another machine
stays.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SCRATCH_PREFIX", "LeftFile", "run_token", "host_mark", "alive", "remove_scratch", "target_leftovers",
           "remove_target_files"]

#: the prefix of a run's scratch directory (job file, fio's output) in the temporary directory.
SCRATCH_PREFIX = "iolab-run-"

#: a data file of a run in its target: ``iolab-<pid>-<host mark>-<random>.<rest>``.
RUN_FILE = re.compile(r"^iolab-(?P<pid>[0-9]{1,10})-(?P<host>[0-9a-f]{6})-(?P<nonce>[0-9a-f]{8})\.")


def host_mark(hostname: str | None = None) -> str:
    """Six hex digits standing for this machine's name (a hash: names may hold dots)."""
    name = socket.gethostname() if hostname is None else hostname
    return hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()[:6]


def run_token(pid: int | None = None) -> str:
    """A new run's mark, ``<pid>-<host mark>-<random>``: whose files they are, and from where."""
    return f"{os.getpid() if pid is None else pid}-{host_mark()}-{os.urandom(4).hex()}"


def alive(pid: int) -> bool:
    """Whether a process `pid` runs on this machine (one we may not signal runs too)."""
    if pid <= 0:
        return True   # not a process id a run could have had: treat as running, touch nothing
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _dead(pid: int) -> bool:
    return pid != os.getpid() and not alive(pid)


def remove_scratch(directory: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the scratch directories of iolab processes that no longer run (owned by this
    user) from `directory` (default: the temporary directory); returns them."""
    base = Path(directory or tempfile.gettempdir())
    removed = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(SCRATCH_PREFIX):
            continue
        pid_text = entry.name[len(SCRATCH_PREFIX):].split("-", 1)[0]
        try:
            st = entry.lstat()
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or not _dead(pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


@dataclass(frozen=True)
class LeftFile:
    """A data file a run that no longer runs left in a target directory."""

    path: Path
    size: int
    pid: int


def target_leftovers(directory: str | os.PathLike[str]) -> Iterator[LeftFile]:
    """The files in `directory` that iolab runs started on this machine left behind: named
    by :data:`RUN_FILE` with this machine's mark, regular files (not links), owned by this
    user, whose process no longer runs."""
    mark = host_mark()
    try:
        entries = sorted(Path(directory).iterdir())
    except OSError:
        return
    for entry in entries:
        m = RUN_FILE.match(entry.name)
        if m is None or m["host"] != mark:
            continue
        try:
            st = entry.lstat()
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or not _dead(int(m["pid"])):
            continue
        yield LeftFile(entry, st.st_size, int(m["pid"]))


def remove_target_files(directory: str | os.PathLike[str]) -> list[LeftFile]:
    """Remove :func:`target_leftovers` from `directory`; returns those removed."""
    removed = []
    for left in target_leftovers(directory):
        try:
            left.path.unlink()
        except FileNotFoundError:
            continue
        except OSError:
            continue
        removed.append(left)
    return removed
