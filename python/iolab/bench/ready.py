"""Whether a run can work, decided before fio starts: the target can be opened as the jobs
need, and a target directory has room for the files fio will lay out.

A run that could only fail — a full disk found half-way through the layout, a device this
user may not open — is refused here, with what to change, and nothing is written or
stored. (The safety rules, what a run *may* do, are :mod:`iolab.bench.write_policy`'s.)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, RunError
from ..fio import FioJob
from ..units import format_size
from .probe import Probe, Target
from .write_policy import split_filenames

__all__ = ["layout_bytes", "check_ready"]


def _job_bytes(job: FioJob) -> int:
    """Bytes of files one clone of `job` lays out (fio: ``size`` is the clone's total over
    its ``nrfiles``; without it, ``filesize`` per file); 0 for an engine that writes no
    data to files (``null``, ``cpuio``, ``net``, ``filecreate``, ...): fio's ``null.fio``
    sizes a 100 GiB job that lays out nothing."""
    if not job.storage_io:
        return 0
    if job.size is not None:
        return int(job.size)
    if job.filesize is not None:
        return int(job.filesize) * max(job.nrfiles, 1)
    return 0


def layout_bytes(jobs: Sequence[FioJob], directory: Path, new_files: Sequence[Path] = ()) -> int:
    """Bytes of new files `jobs` make fio lay out in the target `directory`: every clone of a
    job whose files iolab names (jobs of one name share theirs), and each job naming a file
    that does not exist yet (`new_files`, resolved paths)."""
    named: dict[str, int] = {}
    new = set(new_files)
    total = 0
    for job in jobs:
        if job.filename is None:
            named[job.name] = max(named.get(job.name, 0), _job_bytes(job) * max(job.numjobs, 1))
        elif any(Path(os.path.realpath(directory / part)) in new for part in split_filenames(str(job.filename))):
            total += _job_bytes(job)
    return total + sum(named.values())


def check_ready(target: Target, jobs: Sequence[FioJob], probe: Probe, *, writes: bool,
                new_files: Sequence[Path] = ()) -> None:
    """Refuse a run that cannot work: RunError (exit 1) when the target cannot be opened as
    the jobs need (files cannot be created in a directory; a file or device cannot be read,
    or written when a job writes); InputError (exit 2, ``--size``) when the files fio would
    lay out do not fit in the directory's free space."""
    problem = probe.open_problem(target.path, write=writes and not target.is_directory)
    if problem is not None:
        if target.is_directory:
            raise RunError(f"cannot create files in {target.path}: {problem}; fio could not either: aim --target "
                           "at a directory you may write to")
        how = "read and write" if writes else "read"
        raise RunError(f"cannot open {target.path} to {how} it: {problem}; fio could not either (a device usually "
                       "needs root or the disk group; a container may not open the host's devices at all)")
    if not target.is_directory:
        return
    need = layout_bytes(jobs, target.path, new_files)
    free = probe.free_space(target.path)
    if free is not None and need > free:
        raise InputError(f"the run would lay out {format_size(need)} of files in {target.path}, which has "
                         f"{format_size(free)} free: use a smaller --size (or fewer --numjobs), or another --target",
                         field="--size")
