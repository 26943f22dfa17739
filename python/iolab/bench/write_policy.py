"""What a benchmark may write, decided before fio starts (docs/bench.md).

Without ``destructive`` a run does only what iolab can show to be harmless:

- Its ioengine and every option are on the allow-list (:mod:`iolab.bench.allowlist`);
  anything else (``read_iolog``, ``exec_prerun``, ``create_only``, ``ioengine=exec``, ...)
  is refused with :class:`~iolab.errors.SafetyError` (exit 3), the option named.
- Every path a job names (``filename=``) lies inside the target directory.
- A job that writes (a write or trim mode, a mode iolab does not know, ``verify``,
  ``overwrite``, ``unlink``...) touches only files the run creates itself, which the run
  removes afterwards (:class:`~.workspace.Workspace`).
- A read of an existing file stays inside it: fio would extend a file smaller than the
  job's ``offset`` + ``size`` by writing to it.

Always, even with ``destructive``: a block device that is mounted, used as swap, or whose
partitions or holders (LVM, dm, md) are mounted is refused for writes. Symlinks are
resolved before any check; paths may hold spaces or shell characters (fio runs without a
shell, in the target directory, so the path never enters a job file).

Reading the machine goes through :class:`~.probe.Probe` (:mod:`.probe`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError, SafetyError, UnitError
from ..fio.options import parse_fio_size
from . import allowlist
from .probe import Probe, SystemProbe, Target, mounted_reason

__all__ = ["WRITE_MODES", "FILE_ENGINES", "DESTRUCTIVE_ENGINES", "job_writes", "check_allowed", "check_jobs",
           "unexpanded", "split_filenames"]

#: fio ``rw`` values that write (or trim) data.
WRITE_MODES = allowlist.WRITE_MODES

#: ioengines allowed without ``destructive`` (any other is refused: iolab cannot tell what
#: it touches).
FILE_ENGINES = allowlist.ENGINES

#: ioengines that create, delete, truncate or allocate files whatever ``rw`` says.
DESTRUCTIVE_ENGINES = frozenset({"filedelete", "dirdelete", "ftruncate", "falloc", "filecreate", "dircreate"})


def _opt(job: Any, name: str) -> Any:
    options: Mapping[str, Any] = getattr(job, "options", None) or {}
    value = getattr(job, name, None)
    return value if value is not None else options.get(name)


def _options(job: Any) -> Mapping[str, Any]:
    return getattr(job, "options", None) or {}


def job_writes(job: Any) -> bool:
    """True when the fio job changes data: its rw mode writes or trims (or is one iolab does
    not know), it verifies, overwrites or appends, it unlinks its files, or its ioengine
    creates, deletes or truncates files."""
    rw = str(_opt(job, "rw") or "read")
    engine = str(_opt(job, "ioengine") or "psync").strip().lower()
    options = _options(job)
    return (allowlist.writes(rw, options)
            or any(o in options and not allowlist.is_off(options[o]) for o in ("unlink", "unlink_each_loop"))
            or engine in DESTRUCTIVE_ENGINES)


def check_allowed(job: Any) -> None:
    """Refuse (SafetyError, exit 3) a job whose ioengine or an option is not on the
    allow-list (:mod:`iolab.bench.allowlist`), naming it."""
    name = getattr(job, "name", "job")
    engine = str(_opt(job, "ioengine") or "psync").strip()
    if engine.lower() not in allowlist.ENGINES:
        raise SafetyError(
            f"job {name!r}: ioengine {engine!r} is not on bench's allow-list "
            f"({', '.join(sorted(allowlist.ENGINES))}): iolab cannot tell what it touches; "
            "use one of those or pass --destructive")
    option = allowlist.refused_option(_options(job))
    if option is not None:
        raise SafetyError(
            f"job {name!r}: option {option!r} is not on bench's allow-list: it may read, write or run "
            "something outside the files iolab creates; remove it or pass --destructive")
    for key, value in _options(job).items():
        variable = unexpanded(str(value))
        if variable is not None:
            raise SafetyError(
                f"job {name!r}: option {key}={value} holds {variable}, which fio would expand from its "
                "environment when it runs: iolab cannot tell what it becomes; write the value or pass "
                "--destructive")


def unexpanded(value: str) -> str | None:
    """The first ``${VAR}`` (or ``$VAR``) in `value` that fio would take from its environment
    (fio's own keywords, such as ``$jobnum``, excepted), or None."""
    from ..fio.options import FIO_KEYWORDS, VARIABLE

    for m in VARIABLE.finditer(value):
        if m.group("word") not in FIO_KEYWORDS:
            return m.group(0)
    return None


def split_filenames(value: str) -> list[str]:
    """The paths of a `filename=` value (fio separates them with `:`, a literal one escaped `\\:`)."""
    parts = re.split(r"(?<!\\):", value)
    return [p.replace("\\:", ":") for p in parts if p]


def _size(path: Path) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _job_paths(job: Any, target: Target) -> list[Path]:
    """The explicit paths a job names (resolved): the target itself for a file or device."""
    if not target.is_directory:
        return [target.path]
    filename = _opt(job, "filename")
    if not filename:
        return []
    return [Path(os.path.realpath(target.path / name)) for name in split_filenames(str(filename))]


def _bytes(job: Any, option: str, have: int) -> int:
    """A size option of `job` in bytes (a percentage is of `have`); 0 when unset."""
    text = str(_options(job).get(option) or "").strip()
    if not text:
        return 0
    try:
        if text.endswith("%"):
            return int(have * float(text[:-1]) / 100)
        kb_base = int(str(_options(job).get("kb_base") or "1024").strip())
        return parse_fio_size(text, kb_base if kb_base in (1000, 1024) else 1024)
    except (ValueError, UnitError):
        raise SafetyError(f"job {getattr(job, 'name', 'job')!r}: cannot tell which bytes {option}={text} "
                          "reads; write it in bytes or pass --destructive") from None


def _outside_file(job: Any, path: Path, have: int) -> str | None:
    """Why reading `job`'s region of the existing file `path` (`have` bytes) would make fio
    extend it, or None when the region lies inside the file."""
    clones = max(int(_opt(job, "numjobs") or 1), 1)
    start = _bytes(job, "offset", have) + _bytes(job, "offset_increment", have) * (clones - 1)
    size_text = str(_options(job).get("size") or "").strip()
    length = _bytes(job, "size", have) if size_text.endswith("%") else (_opt(job, "size") or _opt(job, "filesize"))
    if length is None:
        length = have - start
    if length < 0 or start + length > have or (start >= have and start > 0):
        return (f"reads bytes {start}..{start + max(length, 0)} of {path}, which holds {have}: fio would extend "
                "the file by writing to it; keep offset and size within the file or pass --destructive")
    return None


def check_jobs(target: Target, jobs: Iterable[Any], *, destructive: bool = False,
               probe: Probe | None = None) -> list[Path]:
    """Apply the safety rules to `jobs` run against `target`; return the new paths named.

    Without `destructive` only what is on the allow-list runs (:func:`check_allowed`), every
    path a job names lies inside a target directory, a job that writes touches only files
    the run creates, and a read of an existing file stays inside it. The returned paths are
    explicit ``filename=`` paths that do not exist yet: fio will create them, and the run
    removes them afterwards. Raises SafetyError (exit 3) when a rule refuses the run;
    nothing has been touched then.
    """
    probe = probe or SystemProbe()
    created: list[Path] = []
    for job in jobs:
        name = getattr(job, "name", "job")
        writes = job_writes(job)
        if not destructive:
            check_allowed(job)
        for path in _job_paths(job, target):
            kind = probe.kind(path)
            if (not destructive and target.is_directory and path != target.path
                    and target.path not in path.parents):
                raise SafetyError(
                    f"job {name!r}: filename {path} lies outside the target directory {target.path}; "
                    "refused without --destructive")
            if kind in ("block", "char"):
                if not writes:
                    continue
                if kind == "block":
                    reason = mounted_reason(path, probe)
                    if reason:
                        raise SafetyError(
                            f"job {name!r} writes to block device {path} but {reason}: refused "
                            "even with --destructive (unmount it first)")
                if not destructive:
                    raise SafetyError(
                        f"job {name!r} writes to device {path}: that destroys the data on it; "
                        "pass --destructive if you mean it")
            elif kind == "file":
                if path in created:
                    continue
                if writes and not destructive:
                    raise SafetyError(
                        f"job {name!r} writes to existing file {path}, which iolab did not create; "
                        "aim --target at a directory (iolab creates its own files there) "
                        "or pass --destructive")
                have = _size(path)
                reason = None if destructive or have is None else _outside_file(job, path, have)
                if reason:
                    raise SafetyError(f"job {name!r} {reason}")
            elif kind == "directory":
                raise InputError(f"job {name!r}: filename {path} is a directory", field="filename")
            elif kind == "missing":
                if path not in created:
                    created.append(path)
            elif not destructive:
                raise SafetyError(f"job {name!r}: {path} is not a regular file or a device; "
                                  "refused without --destructive")
    return created
