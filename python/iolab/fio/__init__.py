"""fio, in and out: job files and command lines into FioJobs, FioJobs back into job files.

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
]
