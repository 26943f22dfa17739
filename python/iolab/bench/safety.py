"""What a benchmark may write, decided before fio starts (docs/bench.md).

Without ``destructive`` a run does only what iolab can show to be harmless:

- Its ioengine and every option are on the allow-list (:mod:`iolab.bench.allowlist`);
  anything else (``read_iolog``, ``exec_prerun``, ``create_only``, ``ioengine=exec``, ...)
  is refused with :class:`~iolab.errors.SafetyError` (exit 3), the option named.
- Every path a job names (``filename=``) lies inside the target directory.
- A job that writes (a write or trim mode, a mode iolab does not know, ``verify``,
  ``overwrite``, ``unlink``...) touches only files the run creates itself, which the run
  removes afterwards (:class:`Workspace`).
- A read of an existing file stays inside it: fio would extend a file smaller than the
  job's ``offset`` + ``size`` by writing to it.

Always, even with ``destructive``: a block device that is mounted, used as swap, or whose
partitions or holders (LVM, dm, md) are mounted is refused for writes. Symlinks are
resolved before any check; paths may hold spaces or shell characters (fio runs without a
shell, in the target directory, so the path never enters a job file).

Reading the machine (file kinds, the mount table and ``mountinfo``, ``/proc/swaps``,
``/sys/class/block``) goes through :class:`Probe`; :class:`FakeProbe` stands in for it in
tests.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError, SafetyError, UnitError
from ..fio.options import parse_fio_size
from . import allowlist
from .leftovers import run_token

__all__ = [
    "WRITE_MODES",
    "FILE_ENGINES",
    "DESTRUCTIVE_ENGINES",
    "Mount",
    "parse_mounts",
    "mount_of",
    "Probe",
    "SystemProbe",
    "FakeProbe",
    "Target",
    "inspect_target",
    "job_writes",
    "check_allowed",
    "check_jobs",
    "Workspace",
]

#: fio ``rw`` values that write (or trim) data.
WRITE_MODES = allowlist.WRITE_MODES

#: ioengines allowed without ``destructive`` (any other is refused: iolab cannot tell what
#: it touches).
FILE_ENGINES = allowlist.ENGINES

#: ioengines that create, delete, truncate or allocate files whatever ``rw`` says.
DESTRUCTIVE_ENGINES = frozenset({"filedelete", "dirdelete", "ftruncate", "falloc", "filecreate", "dircreate"})


@dataclass(frozen=True)
class Mount:
    """One line of ``/proc/self/mounts``: device (``source``), mount point, type, options."""

    source: str
    mountpoint: str
    fstype: str
    options: str


def _unescape(text: str) -> str:
    # the kernel writes space, tab, newline and backslash in mount fields as octal escapes
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def parse_mounts(text: str) -> list[Mount]:
    """Parse the text of ``/proc/self/mounts`` (or ``/proc/mounts``); bad lines are skipped."""
    mounts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            mounts.append(Mount(*(_unescape(p) for p in parts[:4])))
    return mounts


def mount_of(path: Path, mounts: Sequence[Mount]) -> Mount | None:
    """The mount holding `path` (the longest mount point that is a prefix; the last one wins)."""
    best: Mount | None = None
    text = str(path)
    for m in mounts:
        mp = m.mountpoint.rstrip("/") or "/"
        if text == mp or text.startswith(mp + "/") or mp == "/":
            if best is None or len(mp) >= len(best.mountpoint.rstrip("/") or "/"):
                best = m
    return best


class Probe(Protocol):
    """Reads what the safety rules need from the machine."""

    def kind(self, path: Path) -> str:
        """``directory``, ``file``, ``block``, ``char``, ``other`` or ``missing``."""

    def mounts(self) -> str:
        """The text of ``/proc/self/mounts`` ('' when unreadable)."""

    def swaps(self) -> str:
        """The text of ``/proc/swaps`` ('' when unreadable)."""

    def family(self, device: Path) -> set[Path]:
        """`device` with its partitions and holders, recursively (``/dev/NAME`` paths)."""

    def direct_io(self, directory: Path, name: str) -> bool:
        """Whether files in `directory` open with O_DIRECT (tried on a new file `name`,
        removed afterwards); False only when the filesystem refuses it (EINVAL)."""

    def mounted_ids(self) -> dict[str, str]:
        """Mounted devices by number (``"8:1"``) with their mount points, from
        ``/proc/self/mountinfo`` (catches sources the mount table names oddly, ``/dev/root``)."""

    def device_id(self, path: Path) -> str | None:
        """The device number (``"8:1"``) of a device node, None when it is not one."""

    def free_space(self, directory: Path) -> int | None:
        """Bytes an unprivileged file may still take in `directory`'s filesystem (None: unknown)."""

    def open_problem(self, path: Path, *, write: bool) -> str | None:
        """Why `path` cannot be opened for reading (or, with `write`, for writing) by this
        process, or None when it can. Only opens and closes: nothing is read or written.
        For a directory: why files cannot be created in it."""


class SystemProbe:
    """The real machine: ``os.stat``, ``/proc`` and ``/sys/class/block``."""

    def kind(self, path: Path) -> str:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return "missing"
        except OSError:
            return "other"
        if stat.S_ISDIR(mode):
            return "directory"
        if stat.S_ISREG(mode):
            return "file"
        if stat.S_ISBLK(mode):
            return "block"
        if stat.S_ISCHR(mode):
            return "char"
        return "other"

    def _read(self, path: str) -> str:
        try:
            return Path(path).read_text()
        except OSError:
            return ""

    def mounts(self) -> str:
        return self._read("/proc/self/mounts")

    def swaps(self) -> str:
        return self._read("/proc/swaps")

    def family(self, device: Path) -> set[Path]:
        found = {device}
        todo = [device.name]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            base = Path("/sys/class/block") / name
            children = []
            try:
                children += [p.name for p in base.iterdir() if (p / "partition").exists()]
            except OSError:
                pass
            try:
                children += [p.name for p in (base / "holders").iterdir()]
            except OSError:
                pass
            for child in children:
                found.add(Path("/dev") / child)
                todo.append(child)
        return found

    def mounted_ids(self) -> dict[str, str]:
        ids: dict[str, str] = {}
        for line in self._read("/proc/self/mountinfo").splitlines():
            parts = line.split()
            if len(parts) > 4 and ":" in parts[2]:
                ids.setdefault(parts[2], _unescape(parts[4]))
        return ids

    def device_id(self, path: Path) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not (stat.S_ISBLK(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            return None
        return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"

    def free_space(self, directory: Path) -> int | None:
        try:
            st = os.statvfs(directory)
        except OSError:
            return None
        return st.f_bavail * st.f_frsize

    def open_problem(self, path: Path, *, write: bool) -> str | None:
        if os.path.isdir(path):
            if os.access(path, os.W_OK | os.X_OK):
                return None
            return "permission denied: this user may not create files in it"
        try:
            fd = os.open(path, os.O_RDWR if write else os.O_RDONLY)
        except OSError as e:
            return f"{e.strerror or e} (errno {e.errno})"
        os.close(fd)
        return None

    def direct_io(self, directory: Path, name: str) -> bool:
        flag = getattr(os, "O_DIRECT", 0)
        if not flag:
            return True
        path = directory / name
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | flag, 0o600)
        except OSError as e:
            if e.errno == errno.EEXIST:  # not ours: leave it alone, let fio find out
                return True
            if os.path.exists(path):  # created, then refused O_DIRECT
                path.unlink()
            return e.errno != errno.EINVAL
        os.close(fd)
        path.unlink()
        return True


@dataclass
class FakeProbe:
    """A machine described in memory: kinds by path (others are read from disk), tables as
    text, mounted device numbers and the numbers of device nodes by path."""

    kinds: dict[str, str] = field(default_factory=dict)
    mount_text: str = ""
    swap_text: str = ""
    families: dict[str, set[str]] = field(default_factory=dict)
    direct: bool = True
    mounted: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    free: int | None = None
    refused: dict[str, str] = field(default_factory=dict)

    def kind(self, path: Path) -> str:
        if str(path) in self.kinds:
            return self.kinds[str(path)]
        return SystemProbe().kind(path)

    def mounts(self) -> str:
        return self.mount_text

    def swaps(self) -> str:
        return self.swap_text

    def family(self, device: Path) -> set[Path]:
        return {device, *(Path(p) for p in self.families.get(str(device), ()))}

    def direct_io(self, directory: Path, name: str) -> bool:
        return self.direct

    def mounted_ids(self) -> dict[str, str]:
        return dict(self.mounted)

    def device_id(self, path: Path) -> str | None:
        return self.ids.get(str(path))

    def free_space(self, directory: Path) -> int | None:
        return self.free

    def open_problem(self, path: Path, *, write: bool) -> str | None:
        return self.refused.get(str(path))


@dataclass(frozen=True)
class Target:
    """The path a run is aimed at, symlinks resolved.

    ``kind`` is ``directory`` (fio creates its files there), ``file`` or ``block``/``char``
    (fio uses the path itself). ``given`` is the path as the user wrote it.
    """

    given: str
    path: Path
    kind: str

    @property
    def is_directory(self) -> bool:
        return self.kind == "directory"


def inspect_target(given: str | os.PathLike[str], probe: Probe | None = None) -> Target:
    """Resolve `given` (following symlinks) and find what it is.

    Raises InputError (field ``--target``) when the path does not exist or is neither a
    directory, a regular file nor a device.
    """
    probe = probe or SystemProbe()
    text = os.fspath(given)
    if not text:  # realpath("") is the working directory: a variable left empty would run there
        raise InputError("an empty path; name the directory to run in ('.' for this one)", field="--target")
    path = Path(os.path.realpath(os.path.expanduser(text)))
    kind = probe.kind(path)
    if kind == "missing":
        raise InputError(f"{text!r} does not exist: create the directory first (fio writes its files there)",
                         field="--target")
    if kind == "other":
        raise InputError(f"{text!r} is neither a directory, a regular file nor a device", field="--target")
    return Target(text, path, kind)


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


def _mounted_reason(device: Path, probe: Probe) -> str | None:
    family = probe.family(device)
    mounts = parse_mounts(probe.mounts())
    for m in mounts:
        if m.source.startswith("/"):
            src = Path(os.path.realpath(m.source))
            if src in family:
                what = "it" if src == device else str(src)
                return f"{what} is mounted at {m.mountpoint}"
    mounted = probe.mounted_ids()
    for member in sorted(family):
        number = probe.device_id(member)
        if number is not None and number in mounted:
            what = "it" if member == device else str(member)
            return f"{what} (device {number}) is mounted at {mounted[number]}"
    for line in probe.swaps().splitlines()[1:]:
        parts = line.split()
        if parts and parts[0].startswith("/"):
            src = Path(os.path.realpath(parts[0]))
            if src in family:
                what = "it" if src == device else str(src)
                return f"{what} is in use as swap"
    return None


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
                    reason = _mounted_reason(path, probe)
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


class Workspace:
    """The files one run creates in its target directory; :meth:`cleanup` removes them.

    fio names every file it lays out ``iolab-<token>.<job>.<clone>.<file>`` (through
    ``filename_format``; the token is :func:`~iolab.bench.leftovers.run_token`: this
    process, this machine, a random part), so the files are known to be the run's own, and
    a later run can tell them for a killed run's leftovers. Paths named
    explicitly that did not exist before the run (``created``) are removed as well.
    """

    def __init__(self, target: Target, created: Sequence[Path] = (), token: str | None = None):
        self.target = target
        self.token = token or run_token()
        self.created = list(created)

    @property
    def prefix(self) -> str:
        return f"iolab-{self.token}."

    @property
    def filename_format(self) -> str:
        """fio's ``filename_format`` for the run's files (relative: fio runs in the target)."""
        return self.prefix + "$jobname.$jobnum.$filenum"

    def files(self) -> list[Path]:
        """The run's files present now."""
        found = list(self.created_present())
        if self.target.is_directory:
            try:
                found += sorted(p for p in self.target.path.iterdir()
                                if p.name.startswith(self.prefix) and not p.is_dir())
            except OSError:
                pass
        return found

    def created_present(self) -> Iterable[Path]:
        return (p for p in self.created if os.path.lexists(p))

    def cleanup(self) -> list[Path]:
        """Remove the run's files; returns those removed. Never touches anything else."""
        removed = []
        for path in self.files():
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
        return removed
