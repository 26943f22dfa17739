"""Files on a share: where a service level limits what one file serves (Azure Files' file scale
targets, the level's ``file_iops`` and ``file_bandwidth``), each file is a cap of its own.

fio gives each clone of a job (``numjobs``) its own files and spreads a clone's IOs evenly over
its ``nrfiles`` files; a job that sets ``filename`` puts every clone on the files it names
(``a:b`` names two), and jobs naming the same ``filename`` share those files. Each client is
taken to have files of its own. In the mean-value model a job's ``n`` files spread evenly are
one cap of ``n`` × the per-file limit, which is how they are compiled.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ..catalog import ServiceLevel
from ..fio import FioJob
from ..network import Cap
from ..units import format_rate

__all__ = ["FileGroup", "file_groups", "file_cap", "file_limit_text", "file_label"]


class FileGroup(msgspec.Struct, frozen=True):
    """``files`` files that the jobs at ``jobs`` (their indexes) spread their IOs over evenly;
    ``name``: the files' ``filename`` (None: the files fio names after the job)."""

    files: int
    jobs: tuple[int, ...]
    name: str | None = None


def file_groups(fios: Sequence[FioJob]) -> list[FileGroup]:
    """The files of one client's jobs on one share, grouped as they share them."""
    named: dict[str, list[int]] = {}
    out: list[FileGroup] = []
    for i, fio in enumerate(fios):
        if fio.filename:
            named.setdefault(fio.filename, []).append(i)
        else:
            out.append(FileGroup(fio.numjobs * fio.nrfiles, (i,)))
    out += [FileGroup(len(name.split(":")), tuple(jobs), name) for name, jobs in named.items()]
    return out


def file_cap(level: ServiceLevel, files: int) -> Cap | None:
    """``files`` files of ``level`` spread evenly, as one cap (None where no per-file limit is known)."""
    if not level.file_iops and not level.file_bandwidth:
        return None
    return Cap(files * level.file_iops if level.file_iops else None,
               files * level.file_bandwidth if level.file_bandwidth else None)


def file_limit_text(level: ServiceLevel) -> str:
    """The per-file limit in words: ``8,000 IOPS``, ``1,000 IOPS and 60 MiB/s``."""
    parts = ([f"{level.file_iops:,.0f} IOPS"] if level.file_iops else []) + \
        ([format_rate(level.file_bandwidth, binary=True)] if level.file_bandwidth else [])
    return " and ".join(parts)


def file_label(group: FileGroup, job_names: Sequence[str], level: ServiceLevel) -> str:
    """How a group of files reads as a resource: ``file f.0.0 (8,000 IOPS per file)``,
    ``f's 4 files (8,000 IOPS per file)``."""
    limit = file_limit_text(level) + " per file"
    if group.name is not None:
        what = f"file {group.name}" if group.files == 1 else f"the {group.files} files {group.name}"
    else:
        job = job_names[group.jobs[0]]
        what = f"{job}'s file" if group.files == 1 else f"{job}'s {group.files} files"
    return f"{what} ({limit})"
