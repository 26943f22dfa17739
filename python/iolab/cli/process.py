"""Settings of the ``iolab`` process that make a command start quickly, none of which
changes what it computes or prints (see docs/performance.md, Start-up).

- ``PYDANTIC_DISABLE_PLUGINS=__all__`` (unless set): pydantic otherwise reads every
  installed package's entry points for plugins the first time it builds a validator;
  iolab uses none.
- With plugins disabled that way, pydantic still imports :mod:`importlib.metadata` (and the
  e-mail, zip and socket modules it pulls in, about 20 ms) only to define the function that
  finds plugins. :func:`prepare` stands in for that one module with one whose
  ``get_plugins`` finds none while plugins are disabled, as pydantic's own does; anything
  else asked of it (plugins enabled again, another name) loads pydantic's module.
- ``OPENBLAS_NUM_THREADS=1`` (unless set): numpy's OpenBLAS otherwise starts a thread per
  core when numpy is imported, which costs CPU time in every command that imports numpy;
  iolab's matrix products are a few rows and columns, below where OpenBLAS splits work.
- :func:`leave` ends a command that reads files and prints (``check``, ``predict``,
  ``plan``) as the interpreter would, flushing its output and running its exit handlers,
  but without then tearing down every module and object one by one (50 to 100 ms once
  pydantic and numpy are loaded). Anything unusual (output that cannot be flushed, another thread still
  running) takes the interpreter's own way out.
"""

from __future__ import annotations

import atexit
import os
import sys
import types
from typing import NoReturn

__all__ = ["prepare", "leave"]

_LOADER = "pydantic.plugin._loader"


def _get_plugins() -> object:
    """No plugins while they are disabled (as pydantic's own function says), else pydantic's."""
    if os.getenv("PYDANTIC_DISABLE_PLUGINS") in ("__all__", "1", "true"):
        return ()
    return _real_loader("get_plugins")()


def _real_loader(name: str) -> object:
    """Any other name of pydantic's plugin loader, from pydantic's own module."""
    if name.startswith("__"):  # what the import system asks of any module (__path__, ...)
        raise AttributeError(name)
    from importlib import import_module

    if sys.modules.get(_LOADER) is _STAND_IN:
        del sys.modules[_LOADER]
    return getattr(import_module(_LOADER), name)


_STAND_IN = types.ModuleType(_LOADER, "Stands in for pydantic's plugin loader while plugins are disabled.")
_STAND_IN.get_plugins = _get_plugins  # type: ignore[attr-defined]
_STAND_IN.__getattr__ = _real_loader  # type: ignore[attr-defined]


def prepare() -> None:
    """Set the process up for the console script (see the module's docstring)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__" and _LOADER not in sys.modules:
        sys.modules[_LOADER] = _STAND_IN


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
    os._exit(code)
