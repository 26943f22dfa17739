"""Benchmarking real storage with fio: safety rules, the fio executor, the results database,
sweeps and multi-host runs (``iolab bench`` and ``iolab results``).

The pieces, each behind a small interface so tests can replace the machine:

- :class:`Bench` runs a :class:`Request` (jobs, target, :class:`Settings`, hosts, scenario)
  and stores a :class:`RunRecord` in a :class:`ResultsStore`; :func:`run_sweep` runs a
  curve and finds its knee.
- :class:`ProcessExecutor` runs fio (:class:`FakeExecutor` plays scripted runs);
  :class:`SystemProbe` reads the machine for the safety rules (:class:`FakeProbe`).
- :func:`check_jobs` and :func:`inspect_target` apply the safety rules (docs/bench.md);
  :class:`Workspace` names and removes a run's files.
"""

from .executor import Completed, Executor, FakeExecutor, FakeRun, ProcessExecutor
from .hosts import DEFAULT_PORT, Host, check_reachable, parse_host, read_clients, server_argv
from .jobs import Settings
from .probe import FakeProbe, SystemProbe, Target, inspect_target
from .record import Figures, HostMeasure, JobMeasure, Measured, RunRecord
from .runner import Bench, Request
from .store import ResultsStore, default_path
from .sweep import Point, Sweep, find_knee, parse_axes, run_sweep
from .workspace import Workspace
from .write_policy import check_jobs

__all__ = [
    "Bench", "Request", "Settings", "run_sweep", "Sweep", "Point", "find_knee", "parse_axes",
    "RunRecord", "Measured", "Figures", "JobMeasure", "HostMeasure",
    "ResultsStore", "default_path",
    "Executor", "ProcessExecutor", "FakeExecutor", "FakeRun", "Completed",
    "SystemProbe", "FakeProbe", "Target", "Workspace", "check_jobs", "inspect_target",
    "Host", "DEFAULT_PORT", "parse_host", "read_clients", "check_reachable", "server_argv",
]
