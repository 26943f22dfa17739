"""iolab: a storage performance lab.

Predict what a workload (in fio's terms) gets from a storage path and what limits it,
simulate it event by event, plan the cheapest configuration that meets requirements, and
benchmark real storage with fio.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from .errors import (
    InputError,
    IolabError,
    RuleViolation,
    RunError,
    SafetyError,
    SchemaError,
    UnitError,
    UnknownIdError,
)

try:
    __version__ = _version("iolab")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "__version__",
    "IolabError",
    "InputError",
    "UnitError",
    "SchemaError",
    "UnknownIdError",
    "RuleViolation",
    "SafetyError",
    "RunError",
]
