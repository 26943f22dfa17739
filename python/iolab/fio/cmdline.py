"""fio command lines (``fio --name=a --rw=randread ...``) into FioJobs.

fio's rules: each ``--name`` starts a new job; options before the first ``--name`` are
global and apply to every job; a job's own option overrides them. Options are written
``--option=value``; as fio's own getopt does, ``--option value`` is accepted too for
options that take a value (flags such as ``--time_based`` never take the next word).
fio's program switches (``--output-format``, ``--eta``, ``--client``, ...) are accepted and
listed in each job's ``ignored`` (with their ``--``). Bare words are job files for fio: a
command line that names one is refused (give its text to ``parse_jobfile`` instead).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from ..errors import SchemaError
from .job import FioJob, build_job
from .options import FLAGS, PROGRAM, PROGRAM_FLAGS, check_option, expand_variables, merge_value, reads_value

__all__ = ["parse_cmdline"]


def _split(cmd: str | Sequence[str], source: str) -> list[str]:
    if isinstance(cmd, str):
        try:
            return shlex.split(cmd.replace("\\\r\n", " ").replace("\\\n", " "))
        except ValueError as e:
            raise SchemaError(f"cannot split the command line: {e}", file=source) from None
    return [str(a) for a in cmd]


def parse_cmdline(cmd: str | Sequence[str], *, source: str = "fio command line") -> list[FioJob]:
    """Read a fio command line (a string as a shell would split it, or an argv list; the
    leading ``fio`` is optional) into its jobs, in order (``numjobs`` is not expanded).

    Raises SchemaError (file=`source`, field=``--option``) for an option that is not fio's
    (naming the nearest known one), a bad value, a value missing, a job file argument, or a
    command line without ``--name``.
    """
    args = _split(cmd, source)
    if args and os.path.basename(args[0]) == "fio":
        args = args[1:]
    common: dict[str, str] = {}
    jobs: list[tuple[str, dict[str, str]]] = []
    program: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if not token.startswith("--") or token == "--":
            if token.startswith("-") and token != "-":
                raise SchemaError(f"unknown fio switch {token!r}: fio's options are written --option=value",
                                  file=source, field=token)
            raise SchemaError(f"{token!r} is a job file argument; a command line is read on its own "
                              "(use fio_file: for a job file)", file=source, field=token)
        key, eq, value = token[2:].partition("=")
        if key in PROGRAM:
            if not eq and key not in PROGRAM_FLAGS:
                value, i = _next_value(args, i, key, source)
            program.append(f"--{key}")
            continue
        field = f"--{key}"
        name = check_option(key, source=source, field=field)
        if not eq and name not in FLAGS:
            value, i = _next_value(args, i, key, source)
        value = expand_variables(value.strip(), None, source=source, field=field, note="",
                                 needed=reads_value(name))
        if name == "name":
            if not value:
                raise SchemaError("--name needs a job name", file=source, field=field)
            jobs.append((value, {}))
            continue
        target = jobs[-1][1] if jobs else common
        before = target.pop(name, None)
        target[name] = merge_value(name, before, value)
    if not jobs:
        raise SchemaError("no job: a fio command line starts each job with --name=NAME", file=source)

    result = []
    for job_name, own in jobs:
        merged = {"name": job_name, **common}
        for k, v in own.items():
            before = merged.pop(k, None)
            merged[k] = merge_value(k, before, v)
        note = f" (job {job_name!r})" if len(jobs) > 1 else ""
        job = build_job(job_name, merged, source=source, origin=lambda o, n=note: (f"--{o}", n))
        if program:
            job = job.replace(ignored=job.ignored + tuple(dict.fromkeys(program)))
        result.append(job)
    return result


def _next_value(args: list[str], i: int, key: str, source: str) -> tuple[str, int]:
    """The value of ``--key value`` (fio's getopt form); SchemaError when there is none."""
    if i < len(args) and not args[i].startswith("--"):
        return args[i], i + 1
    raise SchemaError(f"--{key} needs a value (--{key}=...)", file=source, field=f"--{key}")
