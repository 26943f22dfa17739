"""The jobs a bench run hands to fio: overrides, run settings, and where their files go.

Three steps, each pure:

1. :func:`override` sets fio options on every job (the fio-style flags ``--rw --bs ...``
   and a sweep point's parameters), read with fio's own rules (``4k`` = 4096).
2. :func:`configure` applies the run settings: ``--runtime`` (time based), ``--ramp``,
   ``direct=1`` unless the job or ``--no-direct`` says otherwise, and a size when the job
   has none and fio lays out files.
3. :func:`place` points the job at the target: files named by iolab in the target
   directory (``filename_format``), or the target file or device itself. The run removes
   the files it created when it ends; fio's ``unlink=1`` is added only to a job whose
   files no other job of the run names (so stonewalled phases can share a ``filename=``). Latency percentiles are always of the total latency
   (``lat_percentiles=1``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, UnitError
from ..fio import FioJob
from ..fio.job import LIMITS
from ..fio.options import RW_MODES, engine_problem, parse_fio_int, parse_fio_size, parse_fio_time
from .probe import Target
from .workspace import Workspace

__all__ = ["DEFAULT_RUNTIME", "DEFAULT_SIZE", "SWEEP_AXES", "OVERRIDABLE", "Settings", "parse_option",
           "override", "configure", "place", "place_remote", "private", "duration", "time_limit", "outstanding"]

#: seconds a job runs when neither it nor ``--runtime`` says.
DEFAULT_RUNTIME = 30.0
#: bytes of file per job when neither the job nor ``--size`` says (fio needs a size for files).
DEFAULT_SIZE = 1 << 30
#: options a sweep may vary.
SWEEP_AXES = ("iodepth", "numjobs", "bs", "rwmixread")
#: options the fio-style flags set on every job.
OVERRIDABLE = ("rw", "bs", "iodepth", "numjobs", "size", "rwmixread", "ioengine")

_OWN = ("directory", "filename_format", "lat_percentiles", "clat_percentiles", "direct", "buffered")


def _own_options(job: FioJob) -> dict[str, str]:
    """The job's options without those iolab sets, plus the ones it always writes out."""
    options = {k: v for k, v in job.options.items() if k not in _OWN}
    options["direct"] = "1" if job.direct else "0"  # stated, so the stored job file says it
    options["lat_percentiles"] = "1"
    return options


@dataclass(frozen=True)
class Settings:
    """How iolab runs the jobs.

    ``runtime``/``ramp`` in seconds (None: the job's own, else :data:`DEFAULT_RUNTIME` and
    no ramp), ``direct`` (None: the job's own, else 1); ``destructive`` lifts the safety
    rules that may be lifted.
    """

    runtime: float | None = None
    ramp: float | None = None
    direct: bool | None = None
    destructive: bool = False


def parse_option(name: str, value: Any, *, field: str | None = None) -> Any:
    """Read one overridable option's value with fio's rules (``bs=4k`` is 4096 bytes).

    Raises InputError naming `field` (default ``--NAME``) for a bad value.
    """
    where = field or f"--{name}"
    text = str(value).strip()
    try:
        if name == "rw":
            if text not in RW_MODES:
                raise InputError(f"unknown rw {text!r}; expected one of {', '.join(sorted(set(RW_MODES)))}",
                                 field=where)
            return RW_MODES[text]
        if name in ("bs", "size"):
            number = parse_fio_size(text)
            low = 1
        elif name in ("iodepth", "numjobs", "rwmixread"):
            number = parse_fio_int(text)
            low = 0 if name == "rwmixread" else 1
        elif name == "ioengine":  # read as in a job file: a name fio knows, external:..., or a path
            problem = engine_problem(text)
            if problem:
                raise InputError(problem, field=where)
            return text
        else:
            raise InputError(f"cannot set {name!r}; settable: {', '.join(OVERRIDABLE)}", field=where)
    except UnitError as e:
        raise InputError(e.message, field=where) from None
    if number < low or (name == "rwmixread" and number > 100):
        raise InputError(f"{name} must be {'0..100' if name == 'rwmixread' else f'at least {low}'}, got {text!r}",
                         field=where)
    if name in LIMITS and number > LIMITS[name]:
        raise InputError(f"{name} must be at most {LIMITS[name]}, got {text!r}", field=where)
    return number


def override(jobs: Sequence[FioJob], options: Mapping[str, Any]) -> tuple[FioJob, ...]:
    """Every job with `options` (already read by :func:`parse_option`) set."""
    changes = dict(options)
    if "bs" in changes:
        changes["bs_write"] = None
    return tuple(job.replace(**changes) for job in jobs) if changes else tuple(jobs)


def configure(job: FioJob, settings: Settings, *, sized: bool) -> FioJob:
    """Apply the run settings; `sized` when fio lays out files (it needs their size then)."""
    changes: dict[str, Any] = {}
    if settings.runtime is not None:
        changes.update(runtime=settings.runtime, time_based=True)
    elif job.runtime is None:
        changes.update(runtime=DEFAULT_RUNTIME, time_based=True)
    if settings.ramp is not None:
        changes["ramp_time"] = settings.ramp
    if settings.direct is not None:
        changes["direct"] = settings.direct
    elif "direct" not in job.options and "buffered" not in job.options:
        changes["direct"] = True
    if sized and job.size is None and job.filesize is None:
        changes["size"] = DEFAULT_SIZE
    return job.replace(**changes)


def _escape(path: str) -> str:
    return path.replace(":", "\\:")


def _check_writable(path: str, what: str) -> None:
    if any(c in path for c in "#;\n\r"):
        raise InputError(f"{path!r} cannot be written into a fio job file (fio cuts lines at '#' and ';'): "
                         f"use a {what} without them", field="--target")


def place(job: FioJob, target: Target, workspace: Workspace, *, private: bool = True) -> FioJob:
    """Point `job` at a local target (fio runs with the target directory as its cwd).

    `private`: no other job of the run uses the files fio names for this one (another job
    of the same name would), so fio may remove them when the job ends (``unlink=1``).
    Named files (``filename=``) are left for the run to remove at its end."""
    options = _own_options(job)
    if not target.is_directory:
        _check_writable(str(target.path), "path")
        return job.replace(directory=None, filename=_escape(str(target.path)), options=options)
    if job.filename is None:
        options["filename_format"] = workspace.filename_format
        if private:
            options["unlink"] = "1"
    return job.replace(directory=None, options=options)


def place_remote(job: FioJob, directory: str, workspace: Workspace, *, private: bool = True) -> FioJob:
    """Point `job` at a directory on a remote fio server: files named by iolab there, one
    set per host (``$clientuid``), removed by fio at the end (``unlink=1``, when `private`:
    no other job of the run has the same name).

    Raises InputError (``--target``) for a relative directory (a server's working directory
    is its own) or one with characters a job file cannot hold.
    """
    if not directory.startswith("/"):
        raise InputError(f"{directory!r} is relative; on remote hosts give the target directory's "
                         "absolute path", field="--target")
    _check_writable(directory, "directory")
    options = _own_options(job)
    if job.filename is None:
        options["filename_format"] = workspace.prefix + "$clientuid.$jobname.$jobnum.$filenum"
        if private:
            options["unlink"] = "1"
    return job.replace(directory=_escape(directory), options=options)


def private(jobs: Sequence[FioJob]) -> list[bool]:
    """For each job, whether no other job of `jobs` has its name (fio names a job's files
    after it, so such a job's files are its own)."""
    names = [j.name for j in jobs]
    return [names.count(n) == 1 for n in names]


def _in_phases(jobs: Sequence[FioJob], span: Callable[[FioJob], float | None]) -> float | None:
    """The jobs' total of `span`: side by side, except that a ``stonewall`` starts a new
    phase after the ones before it; None when `span` is None for a job."""
    total = current = 0.0
    for job in jobs:
        seconds = span(job)
        if seconds is None:
            return None
        if job.stonewall:
            total += current
            current = seconds
        else:
            current = max(current, seconds)
    return total + current


def duration(jobs: Sequence[FioJob]) -> float | None:
    """Seconds the jobs should run (ramp included); jobs run side by side unless a
    ``stonewall`` makes them wait. None when a job is not time based (it ends with its size)."""
    return _in_phases(jobs, lambda j: None if j.runtime is None or not j.time_based
                      else j.runtime + (j.ramp_time or 0.0))


def _start_delay(job: FioJob) -> float:
    text = job.options.get("startdelay", "0").split("-")[-1].strip() or "0"  # a range: its end
    try:
        return parse_fio_time(text)
    except UnitError:
        return 0.0


def time_limit(jobs: Sequence[FioJob]) -> float | None:
    """Seconds the jobs may take at most once they start: each job's ``runtime`` (a cap
    whether or not the job is time based) plus its ramp and start delay, stonewalled phases
    one after another; None when a job has no runtime (it ends with its size)."""
    return _in_phases(jobs, lambda j: None if j.runtime is None
                      else j.runtime + (j.ramp_time or 0.0) + _start_delay(j))


def outstanding(jobs: Sequence[FioJob]) -> int:
    """IOs in flight when every job runs flat out (for Little's law: latency ≈ this / IOPS)."""
    return sum(job.outstanding for job in jobs)
