"""The results database every job that reads stored runs opens the same way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["open_results", "RunList", "list_runs"]


@dataclass(frozen=True)
class RunList:
    """Stored runs, newest first (:class:`~iolab.bench.store.RunSummary`), and how many
    failed runs were left out (``hidden_failed``)."""

    runs: tuple[Any, ...]
    hidden_failed: int

    def to_json(self) -> dict:
        """Exactly ``iolab results list --json``."""
        return {"runs": [r.to_json() for r in self.runs], "hidden_failed": self.hidden_failed}


def list_runs(db: Path | None, *, sweep: int | None = None, limit: int | None = None,
              failed: bool = False, must_exist: bool = False) -> RunList:
    """The runs of the results database `db` (none when it does not exist yet: nothing is
    created; InputError instead when `must_exist`), of one `sweep` when given, at most
    `limit`; failed runs only with `failed` (else counted in ``hidden_failed``). InputError
    for an unknown sweep."""
    store = open_results(db, must_exist=must_exist)
    if store is None:
        return RunList((), 0)
    with store:
        if sweep is not None:
            store.sweep(sweep)
        runs = store.summaries(sweep_id=sweep, limit=limit, failed=failed)
        hidden = 0 if failed else (len(store.summaries(sweep_id=sweep)) - len(store.summaries(sweep_id=sweep,
                                                                                             failed=False)))
    return RunList(tuple(runs), hidden)


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
