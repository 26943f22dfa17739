"""Shared fixtures: run the CLI in-process exactly as the console script does."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

# The command line's console takes its width once, when it is first imported. Import it here,
# before any test sets COLUMNS, so every test sees the same console (a pipe's 140 columns)
# whichever test runs first, alone or with others in parallel.
_columns = os.environ.pop("COLUMNS", None)
import iolab.cli.common  # noqa: E402,F401

if _columns is not None:
    os.environ["COLUMNS"] = _columns

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = Path(__file__).resolve().parent / "data"


def saved_run_db(path: Path) -> Path:
    """A results database at ``path`` holding one finished run (100 IOPS of 4 KiB reads)."""
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore

    with ResultsStore(path) as store:
        store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:01+00:00",
                             jobfile="[j]\nrw=read\n", fio_argv=("fio", "run.fio"), fio_version="fio-3.33",
                             host="h", kernel="k", target="/t",
                             measured=Measured(Figures(100.0, 409600.0, {"mean": 1e-3}))))
    return path


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def iolab(capsys, monkeypatch, tmp_path):
    """Call ``iolab(*args)`` or ``iolab("predict x.yaml --json")``; returns code, out, err.

    The results database defaults to a temporary data directory, so no test writes into
    the user's own.
    """
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("COLUMNS", "120")

    from iolab.cli import app
    from iolab.cli.common import run

    def call(*args: str | Path) -> Result:
        argv = shlex.split(args[0]) if len(args) == 1 and isinstance(args[0], str) else [str(a) for a in args]
        capsys.readouterr()
        code = run(app, argv)
        cap = capsys.readouterr()
        return Result(code, cap.out, cap.err)

    return call


@pytest.fixture
def plan(iolab, tmp_path):
    """Write a requirements file and run `iolab plan FILE --json` with the small test catalog
    (``tests/data/plan/catalog.yaml``); returns the JSON document."""

    def run(text: str, *extra: str):
        path = tmp_path / "req.yaml"
        path.write_text(text)
        r = iolab("plan", str(path), "--json", "--catalog", str(DATA / "plan" / "catalog.yaml"), *extra)
        assert r.code == 0, r.err
        return r.json()

    return run


def bare(config: dict) -> dict:
    """A plan candidate's ``config`` without the VM's ``arch``, ``vcpus`` and ``memory`` (which
    the plan adds beside ``vm`` from the catalog row), for comparing the choice itself."""
    return {k: v for k, v in config.items() if k not in ("arch", "vcpus", "memory")}
