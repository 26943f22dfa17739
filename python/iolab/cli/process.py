"""Settings of the ``iolab`` process that make a command start quickly, none of which
changes what it computes or prints (see docs/performance.md, Start-up).

- ``PYDANTIC_DISABLE_PLUGINS=__all__`` (unless set): pydantic otherwise reads every
  installed package's entry points for plugins the first time it builds a validator;
  iolab uses none. Even so, pydantic imports its plugin loader there, and with it
  ``importlib.metadata`` and the ``email`` package (~25 ms); the console script answers
  that import with a module whose ``get_plugins()`` returns no plugins, as pydantic's own
  does under that setting (any other name asked of it loads pydantic's real module).
- ``OPENBLAS_NUM_THREADS=1`` (unless set): numpy's OpenBLAS otherwise starts a thread per
  core when numpy is imported, which costs CPU time in every command that imports numpy;
  iolab's matrix products are a few rows and columns, below where OpenBLAS splits work.
- The console script's cyclic garbage collector collects its youngest generation every 50,000 new
  objects instead of every 700: start-up creates a few hundred thousand objects that live
  as long as the process (modules, classes, validators, the catalog), and at Python's
  default every one of them is walked again and again by collections that find almost
  nothing (about 7 % of `predict`'s and `plan`'s CPU time). Garbage without cycles is
  freed at once as always; cycles wait a little longer.
- :func:`leave` ends a command that reads files and prints (``check``, ``predict``,
  ``plan``) as the interpreter would, flushing its output and running its exit handlers
  (what they print is flushed too),
  but without then tearing down every module and object one by one (50 to 100 ms once
  pydantic and numpy are loaded). Anything unusual (output that cannot be flushed, another thread still
  running) takes the interpreter's own way out.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
import types
from typing import Any, NoReturn

__all__ = ["prepare", "leave", "YOUNG_COLLECTION"]

#: New objects between two collections of the youngest generation (Python's default: 700).
YOUNG_COLLECTION = 50_000

def prepare(console_script: bool = True) -> None:
    """Set the process up for the console script (see the module's docstring); a program
    that calls the command line (``console_script`` False) keeps its collector's settings."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if console_script:
        if os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__":
            sys.modules.setdefault(_PLUGIN_LOADER, _no_plugins())
        _, older, oldest = gc.get_threshold()
        gc.set_threshold(YOUNG_COLLECTION, older, oldest)


_PLUGIN_LOADER = "pydantic.plugin._loader"


def _no_plugins() -> types.ModuleType:
    """pydantic's plugin loader when plugins are disabled: ``get_plugins()`` is empty; any
    other name is read from pydantic's own module, loaded then."""
    stub = types.ModuleType(_PLUGIN_LOADER)

    def get_plugins(*args: Any, **kwargs: Any) -> tuple:
        return ()

    def real(name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (__path__, ...)
            raise AttributeError(name)
        if sys.modules.get(_PLUGIN_LOADER) is stub:
            del sys.modules[_PLUGIN_LOADER]
        return getattr(importlib.import_module(_PLUGIN_LOADER), name)

    stub.get_plugins = get_plugins  # type: ignore[attr-defined]
    stub.__getattr__ = real  # type: ignore[method-assign]
    return stub


def leave(code: int) -> NoReturn:
    """Exit with `code` (see the module's docstring)."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - a closed pipe, say: reported the interpreter's way
        sys.exit(code)
    atexit._run_exitfuncs()
    try:  # what the exit handlers printed
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - a pipe closed meanwhile: nothing more to deliver
        pass
    os._exit(code)
