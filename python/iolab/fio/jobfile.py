"""fio job files (INI text) into FioJobs, and FioJobs back into a job file fio accepts.

fio's rules, as fio 3.x applies them:

- ``[global]`` options apply to the job sections *after* it; a later ``[global]`` changes
  only the jobs that follow it. A job's own option overrides ``[global]``.
- Comments: a line starting with ``#`` or ``;``, and anything after a ``#`` or ``;`` on a
  line (fio cuts there too, so values cannot contain them).
- ``option=value`` with optional blanks around ``=``; a flag such as ``time_based`` alone.
- A job is named by the ``name=`` in its own section, else by the section's name.
- ``include FILE`` is refused (the parser reads text, not files: paste the included
  sections in); ``${VAR}`` is expanded only from the ``env`` mapping given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..errors import SchemaError
from .job import FioJob, build_job
from .options import FLAGS, check_option, expand_variables, merge_value, reads_value

__all__ = ["parse_jobfile", "render_jobfile", "jobfile_sections", "effective_options"]

#: one option as written: (option, value, line number or other place).
Written = tuple[str, str, int]

_SECTION = re.compile(r"^\[(?P<name>[^\]]*)\]$")
_COMMENT = re.compile(r"[#;]")
#: the most job sections a job file may hold: fio runs at most 4,096 jobs (``REAL_MAX_JOBS``
#: in fio.h), so a file with more could never run; refused at the first one past it
MAX_JOB_SECTIONS = 4096
#: the most option lines a job file may hold (real ones hold dozens): read in about a second
MAX_OPTION_LINES = 100_000


def parse_jobfile(text: str, *, source: str = "job file", env: Mapping[str, str] | None = None) -> list[FioJob]:
    """Read a fio job file's text into its jobs, in file order (``numjobs`` is not expanded).

    `source` names the file in error messages; `env` supplies ``${VAR}`` values.
    Raises SchemaError (file=`source`, field=``[section].option``, the line in the message)
    for an unknown option (with the nearest known one), a bad value, an option outside any
    section, ``include``, a malformed section header, or a file without jobs.
    """
    jobs: list[FioJob] = []
    for section, merged in effective_options(jobfile_sections(text, source=source, env=env)):
        def origin(opt: str, merged: dict[str, tuple[str, str, int]] = merged) -> tuple[str, str]:
            _, sec, line = merged[opt]
            return f"[{sec}].{opt}", f" (line {line})"

        jobs.append(build_job(job_name(section, merged), {k: v[0] for k, v in merged.items()}, source=source,
                              origin=origin))
    if not jobs:
        raise SchemaError("no job section: a job file needs at least one [name] section besides [global]",
                          file=source)
    return jobs


def job_name(section: str, merged: Mapping[str, tuple[str, str, int]]) -> str:
    """The name fio gives a job: the ``name=`` written in its own section, else the section's
    name (a ``name=`` under ``[global]`` renames no job, as in fio)."""
    own = merged.get("name")
    if own is not None and own[1] != "global" and own[0].strip():
        return own[0].strip()
    return section


def jobfile_sections(text: str, *, source: str = "job file",
                     env: Mapping[str, str] | None = None) -> list[tuple[str, list[Written]]]:
    """A job file's sections in file order, each (name, [(option, value, line)]), options
    checked and variables expanded (errors as :func:`parse_jobfile`'s)."""
    sections: list[tuple[str, int, list[tuple[str, str, int]]]] = []
    jobs = options = 0
    for lineno, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line[0] in "#;":
            continue
        if "#" in line or ";" in line:
            line = _COMMENT.split(line, maxsplit=1)[0].strip()
        note = f" (line {lineno})"
        if line.startswith("["):
            m = _SECTION.match(line)
            if not m or not m.group("name").strip():
                raise SchemaError(f"malformed section header {line!r}: expected [name]",
                                  file=source, field=f"line {lineno}")
            sections.append((m.group("name").strip(), lineno, []))
            jobs += sections[-1][0] != "global"
            if jobs > MAX_JOB_SECTIONS:
                raise SchemaError(f"more than {MAX_JOB_SECTIONS:,} job sections: fio runs at most {MAX_JOB_SECTIONS:,} "
                                  "jobs, so this file could never run (split it, or use numjobs)",
                                  file=source, field=f"line {lineno}")
            continue
        options += 1
        if options > MAX_OPTION_LINES:
            raise SchemaError(f"more than {MAX_OPTION_LINES:,} option lines: no fio job needs that many (the "
                              "limit keeps reading it within a second or so)", file=source, field=f"line {lineno}")
        key, eq, value = line.partition("=")
        key = key.strip()
        if key == "include" or key.startswith("include ") or key.startswith("include\t"):
            raise SchemaError("'include' is not supported: iolab reads one job file's text; paste the "
                              f"included file's options into this file{note}", file=source,
                              field=f"[{sections[-1][0]}]" if sections else f"line {lineno}")
        if not sections:
            raise SchemaError(f"option {key!r} outside of any [section]: put it under [global] or a "
                              f"job section{note}", file=source, field=key)
        section = sections[-1][0]
        field = f"[{section}].{key}"
        name = check_option(key, source=source, field=field, note=note)
        if not eq and name not in FLAGS:
            raise SchemaError(f"option {key!r} needs a value ({key}=...){note}", file=source, field=field)
        value = expand_variables(value.strip(), env, source=source, field=field, note=note,
                                 needed=reads_value(name))
        sections[-1][2].append((name, value, lineno))
    return [(name, items) for name, _, items in sections]


def effective_options(sections: Sequence[tuple[str, Sequence[Written]]]
                      ) -> list[tuple[str, dict[str, tuple[str, str, int]]]]:
    """Each job of `sections` (as :func:`jobfile_sections` gives them; ``global`` sections
    are not jobs) with the options it runs with, each as (value, the section it was written
    in, where): a ``[global]`` option applies to the jobs after it, and a job's own option
    overrides it, so a global option every job overrides is in no job's options."""
    jobs = []
    common: dict[str, tuple[str, str, int]] = {}
    for section, items in sections:
        target = common if section == "global" else dict(common)
        for name, value, where in items:
            before = target.pop(name, None)
            target[name] = (merge_value(name, before and before[0], value), section, where)
        if section != "global":
            jobs.append((section, target))
    return jobs


# --- rendering -----------------------------------------------------------------------------

def _seconds(x: float) -> str:
    if float(x).is_integer():
        return str(int(x))
    us = x * 1e6
    if abs(us - round(us)) > 1e-6:
        raise SchemaError(f"{x!r} s cannot be written exactly in fio's microseconds", file="fio job")
    return f"{int(round(us))}us"


def _rate_text(job: FioJob) -> str:
    """``rate_iops`` as fio reads it: per direction, so a mixed job's whole cap is written as
    its reads' and its writes' caps (fio paces each direction on its own)."""
    assert job.rate_iops is not None
    share = job.rate_read_share
    if share is None or job.rw not in ("rw", "randrw") or share in (0.0, 1.0):
        return str(int(round(job.rate_iops)))
    reads = job.rate_iops * share
    caps = (reads, job.rate_iops - reads)
    if any(c < 0.5 or abs(c - round(c)) > 1e-6 * max(1.0, c) for c in caps):
        raise SchemaError(f"a mixed job's rate of {job.rate_iops:g} IOs/s with {share:.6g} of them reads cannot "
                          "be written as fio's whole IOs/s per direction", file="fio job", field=f"{job.name}.rate_iops")
    return f"{int(round(caps[0]))},{int(round(caps[1]))}"


def _field_options(job: FioJob) -> dict[str, str | None]:
    """The option text for each modelled field (None: leave the option out)."""
    bs = str(job.bs) if job.bs_write is None else f"{job.bs},{job.bs_write}"
    rate = None if job.rate_iops is None else _rate_text(job)
    return {
        "rw": job.rw,
        "rwmixread": str(job.rwmixread),
        "bs": bs,
        "iodepth": str(job.iodepth),
        "numjobs": str(job.numjobs),
        "ioengine": job.ioengine,
        "direct": "1" if job.direct else "0",
        "size": None if job.size is None else str(job.size),
        "filesize": None if job.filesize is None else str(job.filesize),
        "nrfiles": str(job.nrfiles),
        "io_size": None if job.io_size is None else str(job.io_size),
        "number_ios": None if job.number_ios is None else str(job.number_ios),
        "loops": str(job.loops),
        "runtime": None if job.runtime is None else _seconds(job.runtime),
        "ramp_time": None if job.ramp_time is None else _seconds(job.ramp_time),
        "time_based": "" if job.time_based else None,
        "rate_iops": rate,
        "rate_process": job.rate_process,
        "directory": job.directory,
        "filename": job.filename,
        "stonewall": "" if job.stonewall else None,
        "group_reporting": "" if job.group_reporting else None,
    }


_ATTRS = {"bs": ("bs", "bs_write"), "rate_iops": ("rate_iops", "rate_read_share")}
_STALE = {"rwmixread": ("rwmixread", "rwmixwrite"), "direct": ("direct", "buffered")}


def _job_to_options(job: FioJob) -> dict[str, str]:
    """A FioJob's options: its raw options, with every field that differs from what they say
    written out in plain bytes/seconds (so the result reads back to the same fields)."""
    raw = {k: v for k, v in job.options.items() if k != "name"}
    base = build_job(job.name, raw, source="fio job", origin=lambda o: (f"[{job.name}].{o}", ""))
    out = dict(raw)
    for opt, text in _field_options(job).items():
        if all(getattr(job, a) == getattr(base, a) for a in _ATTRS.get(opt, (opt,))):
            continue
        for stale in _STALE.get(opt, (opt,)):
            out.pop(stale, None)
        if text is not None:
            out[opt] = text
    return out


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def _check_section(name: str, options: Mapping[str, object], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in options.items():
        text = _text(value)
        field = f"[{where}].{key}"
        opt = check_option(str(key), source="fio job", field=field)
        if any(c in text for c in "#;\n\r"):
            raise SchemaError(f"value {text!r} cannot be written to a job file (fio cuts lines at "
                              "'#' and ';')", file="fio job", field=field)
        if text == "" and opt not in FLAGS:
            raise SchemaError(f"option {key!r} needs a value", file="fio job", field=field)
        out[opt] = text.strip()
    return out


def render_jobfile(jobs: Sequence[FioJob] | Sequence[Mapping[str, str]], *,
                   global_options: Mapping[str, str] = {}) -> str:
    """Write jobs as a fio job file that fio accepts and :func:`parse_jobfile` reads back.

    Each job is a FioJob or a mapping of fio options (which must include ``name``).
    A FioJob's raw options are kept where they still say what its fields say; changed fields
    are written in plain bytes and seconds. Fields at fio's defaults that its options do not
    mention are left out, so `global_options` (written as ``[global]``) apply to them.

    Raises SchemaError for an unknown option, a job named ``global`` or with ``[]#;`` or a
    line break in its name, or a value fio would cut (containing ``#`` or ``;``).
    """
    blocks: list[str] = []
    if global_options:
        body = _check_section("global", global_options, "global")
        blocks.append("\n".join(["[global]", *(_line(k, v) for k, v in body.items())]))
    for i, job in enumerate(jobs):
        if isinstance(job, FioJob):
            name, options = job.name, _job_to_options(job)
        else:
            options = dict(job)
            name = _text(options.pop("name", "")).strip()
            if not name:
                raise SchemaError("a job needs a name", file="fio job", field=f"jobs[{i}].name")
        if name == "global" or any(c in name for c in "[]#;\n\r"):
            raise SchemaError(f"job name {name!r} cannot be a job file section (no 'global', no []#; "
                              "or line breaks)", file="fio job", field=f"jobs[{i}].name")
        body = _check_section(name, options, name)
        blocks.append("\n".join([f"[{name}]", *(_line(k, v) for k, v in body.items())]))
    return "\n\n".join(blocks) + "\n"


def _line(key: str, value: str) -> str:
    return key if value == "" and key in FLAGS else f"{key}={value}"

