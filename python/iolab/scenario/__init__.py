"""Scenario files (``iolab predict``, ``iolab simulate``, ``iolab bench run``): typed,
validated once, catalog ids resolved, defaults applied as fio applies them.

The format is docs/scenario.md's. Jobs use fio's vocabulary: a mapping of fio options, a fio
command line (``fio: "..."``) or a fio job file (``fio_file: path``, relative to the
scenario). Every violation raises an :class:`~iolab.errors.InputError` naming the file,
the field path and the rule.

The modules: :mod:`.models` (the typed models), :mod:`.loader` (reading and validating a
file) and :mod:`.rules` (the rules that need the catalog).
"""

from .loader import load_scenario, parse_jobs, parse_scenario, read_scenario
from .models import (MAX_OUTSTANDING, ClientLimits, Clients, Connection, Device, DeviceVolume, DiskGroup, DiskVolume,
                     Duration, OpsRate, Rate, Scenario, ScenarioJob, ShareVolume, Size, Volume, check_outstanding)
from .rules import check_rules, cloud_parts, resolve_disk

__all__ = [
    "Size",
    "Rate",
    "OpsRate",
    "Duration",
    "ClientLimits",
    "Clients",
    "DiskGroup",
    "DiskVolume",
    "Connection",
    "ShareVolume",
    "Device",
    "DeviceVolume",
    "Volume",
    "ScenarioJob",
    "Scenario",
    "load_scenario",
    "read_scenario",
    "parse_scenario",
    "parse_jobs",
    "check_rules",
    "check_outstanding",
    "MAX_OUTSTANDING",
    "cloud_parts",
    "resolve_disk",
]
