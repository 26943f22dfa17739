"""The results database every job that reads stored runs opens the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["open_results"]


def open_results(db: Path | None, *, must_exist: bool = True) -> Any:
    """The results database at `db` (default: the user's); InputError naming ``--db`` when
    it does not exist (None instead when not `must_exist`)."""
    from ..bench.store import ResultsStore, default_path
    from ..errors import InputError

    path = db if db is not None else default_path()
    if not path.exists():
        if must_exist:
            raise InputError(f"no results database at {path}: run `iolab bench run` first, or name one with --db",
                             field="--db")
        return None
    return ResultsStore(path)
