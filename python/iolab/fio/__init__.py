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
from .output import parse_output
from .results import ClientResult, DirectionResult, FioResult, FioTotal, JobResult, LatencyStats
from .status import StatusLine, parse_status

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
