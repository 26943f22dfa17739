"""Reading the machine for the write policy (:mod:`.write_policy`): a path's kind, the mount
table and ``mountinfo``, ``/proc/swaps`` and ``/sys/class/block`` through :class:`Probe`
(:class:`SystemProbe` on the real machine; :class:`FakeProbe` stands in for it in tests),
the target a run is aimed at (:func:`inspect_target`, symlinks resolved), and why a block
device is in use (:func:`mounted_reason`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..errors import InputError

__all__ = ["Mount", "parse_mounts", "mount_of", "Probe", "SystemProbe", "FakeProbe", "Target", "inspect_target",
           "mounted_reason"]


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


def mounted_reason(device: Path, probe: Probe) -> str | None:
    """Why block device `device` is in use (it, a partition or a holder mounted, or in use
    as swap), or None."""
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
