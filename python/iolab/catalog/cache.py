"""A prebuilt copy of the bundled catalog in the user's cache directory.

Reading and validating the bundled YAML files costs time that grows with the catalog; the
result is the same until the data files (or the code that reads them) change. So the
loader keeps it, pickled, in ``$XDG_CACHE_HOME/iolab`` (``~/.cache/iolab`` when unset),
under a name that holds a hash of every bundled data file and of the catalog's own source
files. A missing, unreadable, stale or corrupt copy is rebuilt silently; a directory that
cannot be written just means no copy is kept. Nothing is written anywhere else.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "key_of", "load", "store"]


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/iolab``, or ``~/.cache/iolab``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "iolab"


def key_of(parts: Iterable[tuple[str, bytes]]) -> str:
    """A hash of named byte strings (file names and contents) and of the Python version."""
    digest = hashlib.sha256(sys.version.encode())
    for name, data in parts:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:32]


def _path(name: str, key: str) -> Path:
    return cache_dir() / f"{name}-{key}.pickle"


def load(name: str, key: str) -> Any | None:
    """The object stored under ``name`` and ``key``, or None when there is no good copy."""
    try:
        return pickle.loads(_path(name, key).read_bytes())
    except Exception:  # missing, unreadable, truncated, from other code: rebuild instead
        return None


def store(name: str, key: str, value: Any) -> None:
    """Keep ``value`` under ``name`` and ``key`` (replacing older copies); never raises."""
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{name}-", suffix=".tmp", delete=False) as f:
            f.write(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(f.name, _path(name, key))
        for old in folder.glob(f"{name}-*.pickle"):
            if old.name != _path(name, key).name:
                old.unlink(missing_ok=True)
    except Exception:
        try:
            os.unlink(f.name)  # type: ignore[possibly-undefined]
        except Exception:
            pass
