"""iolab: a storage performance lab.

Predict what a workload (in fio's terms) gets from a storage path and what limits it,
simulate it event by event, plan the cheapest configuration that meets requirements, and
benchmark real storage with fio.
"""

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



def _installed_version() -> str:
    """iolab's version as installed: the ``Version:`` line of the first ``iolab-*.dist-info``
    on the import path (where :func:`importlib.metadata.version` looks too), read directly
    because importing importlib.metadata costs a noticeable part of start-up."""
    import os
    import sys

    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("iolab-") and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry or ".", name, "METADATA"), encoding="utf-8") as f:
                        for line in f:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                except OSError:
                    pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("iolab")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0"


def __getattr__(name: str) -> str:
    # The version is looked up on first use: only `iolab --version` needs it.
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = _installed_version()
    globals()["__version__"] = found
    return found

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
