"""The files one run creates in its target directory, and their removal (:class:`Workspace`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from .leftovers import run_token
from .probe import Target

__all__ = ["Workspace"]


class Workspace:
    """The files one run creates in its target directory; :meth:`cleanup` removes them.

    fio names every file it lays out ``iolab-<token>.<job>.<clone>.<file>`` (through
    ``filename_format``; the token is :func:`~iolab.bench.leftovers.run_token`: this
    process, this machine, a random part), so the files are known to be the run's own, and
    a later run can tell them for a killed run's leftovers. Paths named
    explicitly that did not exist before the run (``created``) are removed as well.
    """

    def __init__(self, target: Target, created: Sequence[Path] = (), token: str | None = None):
        self.target = target
        self.token = token or run_token()
        self.created = list(created)

    @property
    def prefix(self) -> str:
        return f"iolab-{self.token}."

    @property
    def filename_format(self) -> str:
        """fio's ``filename_format`` for the run's files (relative: fio runs in the target)."""
        return self.prefix + "$jobname.$jobnum.$filenum"

    def files(self) -> list[Path]:
        """The run's files present now."""
        found = list(self.created_present())
        if self.target.is_directory:
            try:
                found += sorted(p for p in self.target.path.iterdir()
                                if p.name.startswith(self.prefix) and not p.is_dir())
            except OSError:
                pass
        return found

    def created_present(self) -> Iterable[Path]:
        return (p for p in self.created if os.path.lexists(p))

    def cleanup(self) -> list[Path]:
        """Remove the run's files; returns those removed. Never touches anything else."""
        removed = []
        for path in self.files():
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
        return removed
