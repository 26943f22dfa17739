"""fio, in and out: job files and command lines into FioJobs, FioJobs back into job files,
fio's JSON output into results with explicit units, and fio's live status line.

Inputs follow fio's own rules (``[global]`` precedence, ``kb_base`` size suffixes, time
suffixes); options fio knows but iolab does not model are kept and reported in
``FioJob.ignored``; anything that is not a fio option is a SchemaError naming the source,
the field (``[section].option`` or ``--option``) and the nearest known option.
"""

from .cmdline import parse_cmdline
from .job import FioJob
from .jobfile import parse_jobfile, render_jobfile

__all__ = [
    "FioJob",
    "parse_jobfile",
    "parse_cmdline",
    "render_jobfile",
    "parse_output",
    "FioResult",
    "FioTotal",
    "JobResult",
    "ClientResult",
    "DirectionResult",
    "LatencyStats",
    "parse_status",
    "StatusLine",
]

# fio's output and status line are read by the benchmark commands only: loaded on first use,
# so that reading scenarios (check, predict) does not pay for them.
_LATER = {"parse_output": "output", "parse_status": "status", "StatusLine": "status",
          **{name: "results" for name in ("ClientResult", "DirectionResult", "FioResult", "FioTotal", "JobResult",
                                          "LatencyStats")}}


def __getattr__(name: str):
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = globals()[name] = getattr(import_module(f"{__name__}.{_LATER[name]}"), name)
    return value
